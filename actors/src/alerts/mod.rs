//! Alerts: what needs doing, said where the shop looks (docs/api-contract.md, "Alerts").
//!
//! - [`conditions`] finds what stands now (low stock, an empty spool, maintenance due or
//!   overdue, a failed print, an integration failing or an operation UNKNOWN, a bridge source
//!   offline, the backup old or failed), one alert per kind and subject.
//! - [`channels`] settles it against what stood before (kept in the store, so a restart repeats
//!   no start and misses no clear) and says each alert once when it starts and once when it
//!   clears (the engine that does so every 30 s runs on the runtime floor,
//!   `crate::runtime::alerts`): on MQTT ([`mqtt`], with printcost's own state topics and Home Assistant discovery)
//!   and to the webhooks ([`webhook`], retried with backoff, never in a write's way).
//! - [`settings`] holds Settings › Alerts: the thresholds and the webhooks.
//! - [`texts`] words each alert in the instance's default language.

pub mod channels;
pub mod conditions;
pub mod mqtt;
pub mod settings;
pub mod texts;
pub mod webhook;

use crate::values::rfc3339;
use serde::{Deserialize, Serialize};
use storage::Timestamp;
use storage::records::StandingAlert;

/// The kind of the events "send test" sends (no alert has it).
pub const TEST: &str = "TEST";

/// An alert's kind; its code is the wire's (`LOW_STOCK`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Kind {
    /// A filament's active spools hold less than its threshold. Subject: the filament.
    LowStock,
    /// A spool has no filament left and is not archived. Subject: the spool.
    SpoolEmpty,
    /// A maintenance task has used 90 % of its interval. Subject: the task.
    MaintenanceDue,
    /// A maintenance task has used its whole interval. Subject: the task.
    MaintenanceOverdue,
    /// A print failed today or yesterday and was neither retried nor archived. Subject: the
    /// print.
    PrintFailed,
    /// A peer has not answered for longer than the settings allow. Subject: `spoolmgr` or
    /// `printfleet`.
    IntegrationFailing,
    /// Whether the spool manager applied a consumption is unknown. Subject: the operation.
    OperationUnknown,
    /// A Modbus source of the bridge does not answer. Subject: the source's id.
    SourceOffline,
    /// The newest backup is older than the settings allow (or none was written in that time).
    BackupStale,
    /// The last nightly backup failed.
    BackupFailed,
    /// An issued invoice is past its due day and not paid in full (nor archived). Subject: the
    /// invoice.
    InvoiceOverdue,
}

impl Kind {
    /// Every kind, in the order the settings page lists them.
    pub const ALL: [Kind; 11] = [
        Kind::LowStock,
        Kind::SpoolEmpty,
        Kind::MaintenanceDue,
        Kind::MaintenanceOverdue,
        Kind::PrintFailed,
        Kind::IntegrationFailing,
        Kind::OperationUnknown,
        Kind::SourceOffline,
        Kind::BackupStale,
        Kind::BackupFailed,
        Kind::InvoiceOverdue,
    ];

    /// The wire code.
    pub fn code(self) -> &'static str {
        match self {
            Kind::LowStock => "LOW_STOCK",
            Kind::SpoolEmpty => "SPOOL_EMPTY",
            Kind::MaintenanceDue => "MAINTENANCE_DUE",
            Kind::MaintenanceOverdue => "MAINTENANCE_OVERDUE",
            Kind::PrintFailed => "PRINT_FAILED",
            Kind::IntegrationFailing => "INTEGRATION_FAILING",
            Kind::OperationUnknown => "OPERATION_UNKNOWN",
            Kind::SourceOffline => "SOURCE_OFFLINE",
            Kind::BackupStale => "BACKUP_STALE",
            Kind::BackupFailed => "BACKUP_FAILED",
            Kind::InvoiceOverdue => "INVOICE_OVERDUE",
        }
    }

    /// The kind of `code` (none for `TEST`).
    pub fn parse(code: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// ntfy's priority, 1 (min) to 5 (max): 4 for what stops work or loses data, else 3.
    pub fn priority(self) -> u8 {
        match self {
            Kind::MaintenanceOverdue
            | Kind::IntegrationFailing
            | Kind::OperationUnknown
            | Kind::SourceOffline
            | Kind::BackupFailed => 4,
            _ => 3,
        }
    }

    /// ntfy's tags (emoji short codes it shows).
    pub fn tags(self) -> &'static [&'static str] {
        match self {
            Kind::LowStock | Kind::SpoolEmpty => &["printcost", "package"],
            Kind::MaintenanceDue | Kind::MaintenanceOverdue => &["printcost", "wrench"],
            Kind::PrintFailed => &["printcost", "x"],
            Kind::IntegrationFailing | Kind::OperationUnknown | Kind::SourceOffline => {
                &["printcost", "electric_plug"]
            }
            Kind::BackupStale | Kind::BackupFailed => &["printcost", "floppy_disk"],
            Kind::InvoiceOverdue => &["printcost", "money_with_wings"],
        }
    }
}

/// An alert as found: its kind, subject and words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its kind.
    pub kind: Kind,
    /// What it is about (a record's id, a source's id, a peer's name; empty for the instance).
    pub subject: String,
    /// One line.
    pub title: String,
    /// The details.
    pub message: String,
}

impl Found {
    /// The key it stands under, `<KIND>/<subject>`.
    pub fn key(&self) -> String {
        key(self.kind.code(), &self.subject)
    }

    /// It, standing since `since`.
    pub fn standing(self, since: Timestamp) -> StandingAlert {
        StandingAlert {
            kind: self.kind.code().to_string(),
            subject: self.subject,
            title: self.title,
            message: self.message,
            since,
        }
    }
}

/// The key an alert of kind `code` about `subject` stands under.
pub fn key(code: &str, subject: &str) -> String {
    format!("{code}/{subject}")
}

/// Whether an alert started or cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Change {
    /// It started.
    Started,
    /// It cleared.
    Cleared,
    /// "Send test".
    Test,
}

/// One start or clear, as every channel is told it (the JSON webhook's body and the MQTT
/// event's payload).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The kind's code.
    pub kind: String,
    /// Started, cleared or a test.
    pub change: Change,
    /// What it is about.
    pub subject: String,
    /// One line.
    pub title: String,
    /// The details.
    pub message: String,
    /// ntfy's priority, 1–5.
    pub priority: u8,
    /// When it started (ISO 8601, UTC).
    pub since: String,
    /// When this was said (ISO 8601, UTC).
    pub at: String,
}

impl Event {
    /// The event of `alert` changing at `at`.
    pub fn of(alert: &StandingAlert, change: Change, at: Timestamp) -> Event {
        let priority = Kind::parse(&alert.kind).map_or(3, Kind::priority);
        Event {
            kind: alert.kind.clone(),
            change,
            subject: alert.subject.clone(),
            title: alert.title.clone(),
            message: alert.message.clone(),
            priority,
            since: iso(alert.since),
            at: iso(at),
        }
    }

    /// ntfy's tags of its kind (a test's: `printcost`, `white_check_mark`).
    pub fn tags(&self) -> &'static [&'static str] {
        Kind::parse(&self.kind).map_or(&["printcost", "white_check_mark"], Kind::tags)
    }
}

/// `at` as ISO 8601 in UTC (`2026-11-27T08:00:00Z`).
pub fn iso(at: Timestamp) -> String {
    rfc3339(at).unwrap_or_else(|| jiff::Timestamp::UNIX_EPOCH.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_back_to_its_kind() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.code()), Some(kind));
        }
        assert_eq!(Kind::parse(TEST), None, "a test never stands");
        let wire = serde_json::to_value(Kind::ALL).unwrap();
        let codes: Vec<&str> = Kind::ALL.iter().map(|k| k.code()).collect();
        assert_eq!(wire, serde_json::json!(codes), "serde writes the codes");
        assert_eq!(Kind::parse("low_stock"), None);
    }
}
