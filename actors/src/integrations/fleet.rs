//! The printer fleet's commands and queries (docs/api-contract.md, "Integrations"): printers linked
//! to remote printers with their trays and the spools mapped to them, print parts attached to
//! entries of the remote print log, and outcomes imported from those entries.
//!
//! - One local printer per remote printer; a printer with attached logs not yet imported keeps
//!   its link.
//! - A tray mapping needs spool management and an active spool; it only suggests the spool in a
//!   new draft's filament line for that printer.
//! - A log attaches to a part of a print that is not archived and has no outcome, on a linked
//!   printer; one log per part and one part per log; a one-part print may omit the part.
//! - An import checks, in the transaction that records the outcome and books stock, every
//!   linked part's fingerprint, that each log is terminal and read without error, that a FAILED
//!   log makes the outcome FAILED, that a log's duration equals its part's and its grams the
//!   sum of its part's grams. An identical repeat answers the print as it is, corrections kept.

use super::printfleet;
use super::settings::{Integration, require_enabled};
use crate::command::PrintsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::ledger;
use crate::prints::fleet_logs::{self as logs, terminal};
use crate::prints::outcome;
use crate::prints::outcome::OutcomeInput;
use crate::txn::Txn;
use crate::{Error, FieldError, Result, settings};
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use storage::records::{Authority, SpoolLink};
use storage::records::{
    LogLink, OutcomeStatus, Part, Print, PrintLog, Printer, PrinterLink, Spool,
};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp, tables};

/// Entries of a printer's log an attach may pick from: its newest 1,000.
pub const ATTACHABLE_LOGS: u64 = 1000;

/// The printer `id`. Errors: [`Error::NotFound`].
fn printer(tx: &impl Tx, id: Id) -> Result<Printer> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// The link of printer `id`. Errors: [`Error::NotFound`] for an unknown printer;
/// [`Error::IntegrationConflict`] when it is not linked.
pub fn link_of(tx: &impl Tx, id: Id) -> Result<PrinterLink> {
    printer(tx, id)?;
    repo::get(tx, id)?.ok_or(Error::IntegrationConflict)
}

/// The print `id`. Errors: [`Error::NotFound`].
fn print(tx: &impl Tx, id: Id) -> Result<Print> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// The part `part_id` of `print`, or its only part when `None`.
/// Errors: [`Error::Validation`] at `partId` (`errors.notFound`, `errors.required`).
pub fn part_of(print: &Print, part_id: Option<Id>) -> Result<&Part> {
    match part_id {
        Some(id) => print
            .parts
            .iter()
            .find(|p| p.id == id)
            .ok_or_else(|| Error::field("partId", "errors.notFound")),
        None if print.parts.len() == 1 => Ok(&print.parts[0]),
        None => Err(Error::field("partId", "errors.required")),
    }
}

/// True when printer `printer_id` has a part with an attached log not yet imported.
fn attached_unimported(tx: &impl Tx, printer_id: Id) -> Result<bool> {
    let mut pending = Vec::new();
    repo::for_each::<LogLink>(tx, |l| {
        if l.imported_at.is_none() {
            pending.push(l);
        }
    })?;
    for link in pending {
        let print = print(tx, link.print_id)?;
        if print
            .parts
            .iter()
            .any(|p| p.id == link.part_id && p.printer_id == printer_id)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Links printer `printer_id` to a remote printer the fleet manager just confirmed, or unlinks
/// it (`None`). Errors: as [`require_enabled`]; [`Error::NotFound`];
/// [`Error::IntegrationConflict`] when the remote printer is linked to another printer, or the
/// printer has attached logs not yet imported.
#[derive(Debug, Clone)]
pub struct LinkPrinter {
    /// The local printer.
    pub printer_id: Id,
    /// The remote printer (id, name), or `None` to unlink.
    pub remote: Option<(u64, String)>,
}

impl Command for LinkPrinter {
    type Writer = PrintsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        require_enabled(txn, Integration::Printfleet)?;
        printer(txn, self.printer_id)?;
        let old: Option<PrinterLink> = repo::get(txn, self.printer_id)?;
        if old.as_ref().map(|l| l.remote_id) == self.remote.as_ref().map(|r| r.0) {
            return Ok(());
        }
        if attached_unimported(txn, self.printer_id)? {
            return Err(Error::IntegrationConflict);
        }
        if let Some(old) = &old {
            repo::remote_remove(txn, tables::REMOTE_PRINTERS, old.remote_id)?;
            repo::remove::<PrinterLink>(txn, self.printer_id)?;
        }
        let Some((remote_id, name)) = self.remote.clone() else {
            return Ok(());
        };
        if repo::remote_get(txn, tables::REMOTE_PRINTERS, remote_id)?.is_some() {
            return Err(Error::IntegrationConflict);
        }
        repo::remote_put(txn, tables::REMOTE_PRINTERS, remote_id, self.printer_id)?;
        repo::put(
            txn,
            &PrinterLink {
                printer_id: self.printer_id,
                remote_id,
                remote_name: Some(name),
                connected: false,
                state: None,
                trays: Vec::new(),
                mapped: Vec::new(),
                synced_at: None,
                sync_error: None,
                linked_at: Timestamp::now(),
            },
        )?;
        Ok(())
    }
}

/// Stores what a sync of a linked printer found: its state and trays, or the error code of the
/// failed call (`NOT_FOUND` when the fleet manager no longer has it). Mappings of slots that
/// are gone stay until remapped. Errors: as [`link_of`].
#[derive(Debug, Clone)]
pub struct RecordPrinterSync {
    /// The local printer.
    pub printer_id: Id,
    /// The remote status, or the failure's code.
    pub found: std::result::Result<printfleet::RemoteStatus, &'static str>,
}

impl Command for RecordPrinterSync {
    type Writer = PrintsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        let mut link = link_of(txn, self.printer_id)?;
        match &self.found {
            Ok(status) => {
                link.remote_name = status.name.clone().or(link.remote_name);
                link.connected = status.connected;
                link.state = status.state.clone();
                link.trays = status.trays.clone();
                link.synced_at = Some(Timestamp::now());
                link.sync_error = None;
            }
            Err(code) => link.sync_error = Some((*code).to_string()),
        }
        repo::put(txn, &link)?;
        Ok(())
    }
}

/// Maps a slot of a linked printer to a spool, or clears it (`None`).
///
/// Errors: [`Error::SpoolManagementDisabled`]; as [`require_enabled`]; as [`link_of`]; [`Error::Validation`] at `slot`
/// (`errors.notFound`) for a slot the printer does not have; [`Error::InvalidSpool`] for an
/// unknown or archived spool; [`Error::MaterialNotFilament`] for a resin's bottle or a
/// consumable's pack.
#[derive(Debug, Clone)]
pub struct MapTray {
    /// The local printer.
    pub printer_id: Id,
    /// `"<ams id>:<tray id>"`.
    pub slot: String,
    /// The spool, or `None` to clear.
    pub spool_id: Option<Id>,
}

impl Command for MapTray {
    type Writer = PrintsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        settings::require_spool_management(txn)?;
        require_enabled(txn, Integration::Printfleet)?;
        let mut link = link_of(txn, self.printer_id)?;
        if !link.trays.iter().any(|t| t.slot == self.slot) {
            return Err(Error::field("slot", "errors.notFound"));
        }
        if let Some(id) = self.spool_id {
            let spool: Option<Spool> = repo::get(txn, id)?;
            match spool {
                Some(spool) if !spool.archived => ledger::require_filament(txn, &spool)?,
                _ => return Err(Error::InvalidSpool),
            }
        }
        link.mapped.retain(|(slot, _)| *slot != self.slot);
        if let Some(id) = self.spool_id {
            link.mapped.push((self.slot.clone(), id));
        }
        repo::put(txn, &link)?;
        Ok(())
    }
}

/// The spools mapped to printer `printer_id`'s trays that are still active, in slot order (the
/// draft editor's suggestions). Errors: the store cannot be read.
pub fn mapped_spools(tx: &impl Tx, printer_id: Id) -> Result<Vec<Id>> {
    let Some(link) = repo::get::<PrinterLink>(tx, printer_id)? else {
        return Ok(Vec::new());
    };
    let mut mapped = link.mapped.clone();
    mapped.sort();
    let mut out = Vec::new();
    for (_, id) in mapped {
        if repo::get::<Spool>(tx, id)?.is_some_and(|s| !s.archived) {
            out.push(id);
        }
    }
    Ok(out)
}

/// What an attach needs read first: the part, its printer's remote id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachTarget {
    /// The part.
    pub part_id: Id,
    /// Its printer's remote id.
    pub remote_printer: u64,
}

fn attachable(tx: &impl Tx, print_id: Id, part_id: Option<Id>) -> Result<(Print, Id, u64)> {
    let print = print(tx, print_id)?;
    if print.archived || print.outcome.is_some() {
        return Err(Error::IntegrationConflict);
    }
    let part = part_of(&print, part_id)?;
    let (part, printer) = (part.id, part.printer_id);
    let remote = repo::get::<PrinterLink>(tx, printer)?
        .ok_or(Error::IntegrationConflict)?
        .remote_id;
    Ok((print, part, remote))
}

/// The part an attach addresses and its printer's remote id. Errors: as [`AttachLog`].
#[derive(Debug, Clone, Copy)]
pub struct AttachTargetOf {
    /// The print.
    pub print_id: Id,
    /// The part (optional for a one-part print).
    pub part_id: Option<Id>,
}

impl Query for AttachTargetOf {
    type Answer = AttachTarget;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<AttachTarget> {
        let (_, part_id, remote_printer) = attachable(snapshot, self.print_id, self.part_id)?;
        Ok(AttachTarget {
            part_id,
            remote_printer,
        })
    }
}

/// Attaches a log entry the fleet manager just showed among the printer's newest 1,000 to a
/// print part. Errors: [`Error::NotFound`]; [`Error::IntegrationConflict`] for an archived
/// print, one with an outcome, a part whose printer is not linked, a log of another printer, a
/// part with another log or a log on another part; [`Error::Validation`] at `partId`.
#[derive(Debug, Clone)]
pub struct AttachLog {
    /// The print.
    pub print_id: Id,
    /// The part (optional for a one-part print).
    pub part_id: Option<Id>,
    /// The log entry.
    pub log: PrintLog,
}

impl Command for AttachLog {
    type Writer = PrintsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        let (_, part_id, remote_printer) = attachable(txn, self.print_id, self.part_id)?;
        if self.log.printer_id.is_some_and(|p| p != remote_printer) {
            return Err(Error::IntegrationConflict);
        }
        if let Some(owner) = repo::remote_get(txn, tables::REMOTE_LOGS, self.log.id)?
            && owner != part_id
        {
            return Err(Error::IntegrationConflict);
        }
        if let Some(old) = logs::of(txn, part_id)? {
            if old.remote_log_id != self.log.id {
                return Err(Error::IntegrationConflict);
            }
            return Ok(());
        }
        repo::remote_put(txn, tables::REMOTE_LOGS, self.log.id, part_id)?;
        repo::put(
            txn,
            &LogLink {
                part_id,
                print_id: self.print_id,
                remote_log_id: self.log.id,
                log: Some(self.log.clone()),
                synced_at: Some(Timestamp::now()),
                error: None,
                imported_at: None,
            },
        )?;
        Ok(())
    }
}

/// A print part's log link, the part being resolved as [`part_of`] does.
/// Errors: [`Error::NotFound`]; [`Error::Validation`] at `partId`.
#[derive(Debug, Clone, Copy)]
pub struct PartLink {
    /// The print.
    pub print_id: Id,
    /// The part (optional for a one-part print).
    pub part_id: Option<Id>,
}

impl Query for PartLink {
    type Answer = (Id, Option<LogLink>);

    fn run(self, snapshot: &Snapshot<'_>) -> Result<(Id, Option<LogLink>)> {
        let print = print(snapshot, self.print_id)?;
        let part = part_of(&print, self.part_id)?.id;
        Ok((part, logs::of(snapshot, part)?))
    }
}

/// Stores a fresh read of a part's log, unless its outcome was imported (the link is final
/// then). Errors: [`Error::IntegrationConflict`] when the part has no log attached.
#[derive(Debug, Clone)]
pub struct RecordLogSync {
    /// The part.
    pub part_id: Id,
    /// The entry, or the failure's code (`NOT_FOUND` when it is gone).
    pub found: std::result::Result<PrintLog, &'static str>,
}

impl Command for RecordLogSync {
    type Writer = PrintsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        let mut link = logs::of(txn, self.part_id)?.ok_or(Error::IntegrationConflict)?;
        if link.imported_at.is_some() {
            return Ok(());
        }
        match &self.found {
            Ok(log) if log.id == link.remote_log_id => {
                link.log = Some(log.clone());
                link.synced_at = Some(Timestamp::now());
                link.error = None;
            }
            Ok(_) => link.error = Some("INTEGRATION_CONTRACT".into()),
            Err(code) => link.error = Some((*code).to_string()),
        }
        repo::put(txn, &link)?;
        Ok(())
    }
}

/// A linked printer with its link and the spools mapped to its trays that still exist.
#[derive(Debug, Clone)]
pub struct LinkedPrinter {
    /// The printer.
    pub printer: Printer,
    /// Its link.
    pub link: PrinterLink,
    /// The mapped spools, by id.
    pub spools: HashMap<Id, Spool>,
}

/// Every linked printer, by name (what the status shows and the timer syncs).
/// Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct LinkedPrinters;

impl Query for LinkedPrinters {
    type Answer = Vec<LinkedPrinter>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<LinkedPrinter>> {
        let mut out = Vec::new();
        for link in repo::all::<PrinterLink>(snapshot)? {
            let mut spools = HashMap::new();
            for (_, id) in &link.mapped {
                if let Some(spool) = repo::get::<Spool>(snapshot, *id)? {
                    spools.insert(*id, spool);
                }
            }
            out.push(LinkedPrinter {
                printer: printer(snapshot, link.printer_id)?,
                link,
                spools,
            });
        }
        out.sort_by(|a, b| a.printer.name.cmp(&b.printer.name));
        Ok(out)
    }
}

/// A log link to read again: the part, its printer's remote id and the log's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenLink {
    /// The part.
    pub part_id: Id,
    /// The remote printer the part runs on.
    pub remote_printer: u64,
    /// The log entry.
    pub remote_log_id: u64,
}

/// The log links of a print not yet imported (one print), or of every print (`None`, for the
/// timer). Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct OpenLinks(pub Option<Id>);

impl Query for OpenLinks {
    type Answer = Vec<OpenLink>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<OpenLink>> {
        let mut links = Vec::new();
        repo::for_each::<LogLink>(snapshot, |l| {
            if l.imported_at.is_none() && self.0.is_none_or(|p| p == l.print_id) {
                links.push(l);
            }
        })?;
        let mut out = Vec::new();
        for link in links {
            let print = print(snapshot, link.print_id)?;
            let Some(part) = print.parts.iter().find(|p| p.id == link.part_id) else {
                continue;
            };
            if let Some(printer) = repo::get::<PrinterLink>(snapshot, part.printer_id)? {
                out.push(OpenLink {
                    part_id: link.part_id,
                    remote_printer: printer.remote_id,
                    remote_log_id: link.remote_log_id,
                });
            }
        }
        Ok(out)
    }
}

/// What a person confirmed for an import: each linked part's fingerprint.
#[derive(Debug, Clone)]
pub struct ImportOutcome {
    /// The print.
    pub print_id: Id,
    /// (part, fingerprint) of every linked part; a one-part print may send one with no part.
    pub previews: Vec<(Option<Id>, String)>,
    /// The outcome.
    pub outcome: OutcomeInput,
    /// The logs just read again, by part (they are stored before the checks).
    pub fresh: Vec<(Id, std::result::Result<PrintLog, &'static str>)>,
    /// Usages whose consumption the fleet manager already reported to the spool manager.
    pub reported: HashSet<Id>,
}

/// The actual seconds of part `part` in `outcome`.
fn part_seconds(print: &Print, outcome: &OutcomeInput, part: Id) -> Option<u32> {
    match &outcome.parts {
        Some(parts) => parts.iter().find(|(p, _)| *p == part).map(|(_, s)| s.get()),
        None if print.parts.len() == 1 => outcome.duration_seconds.map(|s| s.get()),
        None => None,
    }
}

/// The actual grams of part `part` in `outcome`: the sum over its usages.
fn part_grams(print: &Print, outcome: &OutcomeInput, part: Id) -> Decimal {
    let usages: HashSet<Id> = print
        .parts
        .iter()
        .filter(|p| p.id == part)
        .flat_map(|p| p.usages.iter().map(|u| u.id))
        .collect();
    outcome
        .filaments
        .iter()
        .filter(|(u, _)| usages.contains(u))
        .map(|(_, g)| *g.get())
        .sum::<Decimal>()
        .normalize()
}

impl ImportOutcome {
    /// The fingerprint sent for part `part`.
    fn preview(&self, print: &Print, part: Id) -> Option<&str> {
        self.previews
            .iter()
            .find(|(p, _)| *p == Some(part) || (p.is_none() && print.parts.len() == 1))
            .map(|(_, h)| h.as_str())
    }

    /// Checks every linked part against the outcome; every fault is a conflict.
    fn check(&self, print: &Print, links: &[LogLink]) -> Result<()> {
        if links.is_empty() {
            return Err(Error::IntegrationConflict);
        }
        let mut failed = false;
        for link in links {
            let log = link.log.as_ref().ok_or(Error::IntegrationConflict)?;
            let status = terminal(log).ok_or(Error::IntegrationConflict)?;
            failed |= status == OutcomeStatus::Failed;
            let fresh = link.error.is_none()
                && self.preview(print, link.part_id) == Some(logs::preview_hash(log).as_str());
            let seconds = part_seconds(print, &self.outcome, link.part_id);
            let grams = part_grams(print, &self.outcome, link.part_id);
            if !fresh
                || log.duration_seconds != seconds
                || log.filament_used_grams.map(|g| g.normalize()) != Some(grams)
            {
                return Err(Error::IntegrationConflict);
            }
        }
        if failed && self.outcome.status != OutcomeStatus::Failed {
            return Err(Error::IntegrationConflict);
        }
        Ok(())
    }
}

impl Command for ImportOutcome {
    type Writer = PrintsWriter;
    type Reply = Print;

    fn apply(&mut self, txn: &Txn) -> Result<Print> {
        let old = print(txn, self.print_id)?;
        let mut links = logs::of_print(txn, &old)?;
        let imported = !links.is_empty() && links.iter().all(|l| l.imported_at.is_some());
        if imported {
            return repeat(&old, &self.outcome);
        }
        let fresh: HashMap<Id, _> = self.fresh.iter().cloned().collect();
        for link in &mut links {
            match fresh.get(&link.part_id) {
                Some(Ok(log)) if log.id == link.remote_log_id => {
                    link.log = Some(log.clone());
                    link.error = None;
                }
                Some(Ok(_)) => link.error = Some("INTEGRATION_CONTRACT".into()),
                Some(Err(code)) => link.error = Some((*code).to_string()),
                None => {}
            }
        }
        self.check(&old, &links)?;
        let now = Timestamp::now();
        let print =
            outcome::record_reported(txn, self.print_id, &self.outcome, &self.reported, now)?;
        for mut link in links {
            link.imported_at = Some(now);
            link.synced_at = Some(now);
            repo::put(txn, &link)?;
        }
        Ok(print)
    }
}

/// An import repeated after it landed: the print as it is (later corrections kept) when the
/// first revision records the same outcome. Errors: [`Error::OutcomeConflict`].
fn repeat(print: &Print, input: &OutcomeInput) -> Result<Print> {
    let first = print
        .outcome
        .as_ref()
        .and_then(|o| o.revisions.first())
        .ok_or(Error::IntegrationConflict)?;
    let grams: HashMap<Id, Decimal> = first.grams.iter().map(|g| (g.usage_id, g.grams)).collect();
    let same = first.status == input.status
        && Some(u64::from(first.duration_seconds)) == input.total_seconds()
        && input
            .filaments
            .iter()
            .all(|(u, g)| grams.get(u) == Some(&g.get().normalize()));
    if same {
        Ok(print.clone())
    } else {
        Err(Error::OutcomeConflict)
    }
}

/// Faults of an import's request before anything is read: the preview list.
pub fn check_previews(previews: &[(Option<Id>, String)]) -> Result<()> {
    if previews.is_empty() {
        return Err(Error::Validation(vec![FieldError::new(
            "previews",
            "errors.required",
        )]));
    }
    Ok(())
}

/// The usages of print `.0` whose consumption the fleet manager already reported to the spool
/// manager: on an `EXTERNAL_CONSUMPTION` spool assigned, in the fleet manager, to a slot of the
/// part's printer (`.1`: (remote printer, spool-manager spool) pairs).
#[derive(Debug, Clone)]
pub struct ReportedUsages(pub Id, pub Vec<(u64, u64)>);

impl Query for ReportedUsages {
    type Answer = HashSet<Id>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<HashSet<Id>> {
        let assigned: HashSet<(u64, u64)> = self.1.into_iter().collect();
        let print: Print = repo::get(snapshot, self.0)?.ok_or(Error::NotFound)?;
        let mut reported = HashSet::new();
        for part in &print.parts {
            let Some(printer) = repo::get::<PrinterLink>(snapshot, part.printer_id)? else {
                continue;
            };
            for usage in &part.usages {
                let Some(spool) = usage.spool_id else {
                    continue;
                };
                if let Some(link) = repo::get::<SpoolLink>(snapshot, spool)?
                    && link.authority == Authority::ExternalConsumption
                    && assigned.contains(&(printer.remote_id, link.remote_id))
                {
                    reported.insert(usage.id);
                }
            }
        }
        Ok(reported)
    }
}

/// The link of printer `.0`. Errors: as [`link_of`].
#[derive(Debug, Clone, Copy)]
pub struct PrinterLinkOf(pub Id);

impl Query for PrinterLinkOf {
    type Answer = PrinterLink;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<PrinterLink> {
        link_of(snapshot, self.0)
    }
}
