//! Wear and maintenance: what a printer or component has run (kept with the prints, derived from
//! them) and the tasks due on it.

use crate::{Id, Timestamp};
use serde::{Deserialize, Serialize};

/// What one printer or component has run: derived from the prints in the same transaction as
/// each print write (the actors' `projection::wear`), by subject id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wear {
    /// Seconds of runs with an outcome (their current revision's actual part durations; failed
    /// runs included).
    pub actual_seconds: u64,
    /// Seconds of open prints' runs, as planned (not DONE, not archived, no outcome).
    pub planned_seconds: u64,
    /// Runs with an outcome: parts printed on or with the subject.
    pub runs: u64,
}

/// How often a task falls due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interval {
    /// Every so many hours of actual runs.
    Hours(u32),
    /// Every so many runs.
    Prints(u32),
    /// Every so many days.
    Days(u32),
}

/// Where a task's interval starts: when it was created or last done, and the subject's wear then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// When.
    pub at: Timestamp,
    /// The subject's actual seconds then.
    pub actual_seconds: u64,
    /// The subject's runs then.
    pub runs: u64,
}

/// A task marked done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Done {
    /// When and at what wear.
    pub mark: Mark,
    /// Who marked it (account id).
    pub by: Id,
    /// Their display name then.
    pub by_name: String,
    /// Free text.
    pub note: Option<String>,
}

/// A print moved to PRINTING while this blocking task was overdue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overridden {
    /// When.
    pub at: Timestamp,
    /// The print.
    pub print_id: Id,
    /// Who (account id).
    pub by: Id,
    /// Why.
    pub reason: String,
}

/// A maintenance task of a printer, or of one of its components.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaintenanceTask {
    /// Record id.
    pub id: Id,
    /// The printer.
    pub printer_id: Id,
    /// The component (a hotend, build plate or other of that printer's prints), or none for the
    /// printer itself.
    pub component_id: Option<Id>,
    /// What to do ("Clean the build plate").
    pub name: String,
    /// How often.
    pub every: Interval,
    /// While overdue, no print on the printer may move to PRINTING without an override.
    pub blocking: bool,
    /// The current interval's start: creation, or the last time it was done.
    pub since: Mark,
    /// Every time it was done, oldest first.
    pub done: Vec<Done>,
    /// Every override of the block, oldest first.
    pub overrides: Vec<Overridden>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}
