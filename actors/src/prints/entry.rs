//! One print as the list projection holds it: the fields lists filter and total on.

use jiff::civil::Date;
use rust_decimal::Decimal;
use storage::Id;
use storage::records::PrintStatus;

/// What lists filter and total on, for one print.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// The print.
    pub id: Id,
    /// Its record version.
    pub version: u64,
    /// Lower-case name and printer names, for search (boxed: no spare capacity).
    pub search: Box<str>,
    /// Status.
    pub status: PrintStatus,
    /// Recorded outcome; `None` until one is recorded.
    pub outcome: Option<Outcome>,
    /// Customer.
    pub customer_id: Option<Id>,
    /// Series.
    pub series_id: Option<Id>,
    /// Printers of every part (boxed: no spare capacity).
    pub printer_ids: Box<[Id]>,
    /// Archive state.
    pub archived: bool,
    /// Completion date, else creation date, in the instance time zone.
    pub date: Date,
    /// Units.
    pub quantity: u32,
    /// Planned total cost.
    pub total_cost: Decimal,
    /// Sales value.
    pub sales_value: Option<Decimal>,
}

/// Outcome filter values. PENDING is derived: a DONE print without an outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// DONE without an outcome.
    Pending,
    /// Recorded as a success.
    Success,
    /// Recorded as a failure.
    Failed,
}

impl Outcome {
    /// Parses `PENDING`, `SUCCESS` or `FAILED`.
    pub fn parse(text: &str) -> Option<Outcome> {
        match text {
            "PENDING" => Some(Outcome::Pending),
            "SUCCESS" => Some(Outcome::Success),
            "FAILED" => Some(Outcome::Failed),
            _ => None,
        }
    }

    pub(super) fn of(entry: &IndexEntry) -> Option<Outcome> {
        match (entry.outcome, entry.status) {
            (Some(o), _) => Some(o),
            (None, PrintStatus::Done) => Some(Outcome::Pending),
            (None, _) => None,
        }
    }
}
