//! The printer fleet's side of our printers and print parts: a printer linked to a remote
//! printer (its state, its trays and the spools mapped to them), and a print part linked to an
//! entry of the remote print log (docs/api-contract.md, "Integrations").

use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// One filament tray of a remote printer, as its last sync showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tray {
    /// `"<ams id>:<tray id>"`; the external spool holder is `"255:254"`.
    pub slot: String,
    /// Material loaded (`PLA`), if the printer knows it.
    pub material: Option<String>,
    /// Colour loaded (`RRGGBBAA` as the printer reports it), if known.
    pub color: Option<String>,
}

/// A local printer linked to a printer of the fleet manager, stored under the local printer's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrinterLink {
    /// The local printer (the record's key).
    pub printer_id: Id,
    /// The remote printer's id.
    pub remote_id: u64,
    /// The remote printer's name by the last sync.
    pub remote_name: Option<String>,
    /// Connected by the last sync.
    pub connected: bool,
    /// The printer's state by the last sync (`RUNNING`, `IDLE`, …; none when disconnected).
    pub state: Option<String>,
    /// Its trays by the last sync.
    pub trays: Vec<Tray>,
    /// Spools mapped to slots: (slot, spool). A mapping suggests the spool in new drafts.
    pub mapped: Vec<(String, Id)>,
    /// Time of the last good sync.
    pub synced_at: Option<Timestamp>,
    /// Why the last sync failed (an error code), cleared by a good one.
    pub sync_error: Option<String>,
    /// When the link was made.
    pub linked_at: Timestamp,
}

/// An entry of the remote print log, validated, as last read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrintLog {
    /// Its id in the fleet manager.
    pub id: u64,
    /// The remote printer it ran on.
    pub printer_id: Option<u64>,
    /// The job's name.
    pub print_name: Option<String>,
    /// `completed`, `failed`, `stopped`, `cancelled` or `skipped`.
    pub status: String,
    /// Start, UTC.
    pub started_at: Option<Timestamp>,
    /// End, UTC.
    pub completed_at: Option<Timestamp>,
    /// Printing time, seconds.
    pub duration_seconds: Option<u32>,
    /// Filament used in all, grams.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub filament_used_grams: Option<Decimal>,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// Energy the fleet manager measured for the job (a smart plug), kWh (schema 9).
    #[serde(with = "rust_decimal::serde::str_option")]
    pub energy_kwh: Option<Decimal>,
}

/// A print part linked to an entry of the remote print log, stored under the part's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogLink {
    /// The part (the record's key).
    pub part_id: Id,
    /// Its print.
    pub print_id: Id,
    /// The remote log entry's id.
    pub remote_log_id: u64,
    /// The entry as last read.
    pub log: Option<PrintLog>,
    /// Time of the last good read.
    pub synced_at: Option<Timestamp>,
    /// Why the last read failed (an error code), cleared by a good one.
    pub error: Option<String>,
    /// When its outcome was imported; the link is final from then on.
    pub imported_at: Option<Timestamp>,
}
