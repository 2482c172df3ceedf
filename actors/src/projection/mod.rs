//! The derived state of the prints, on a floor of its own below every rule that reads it: the
//! in-memory print projection ([`PrintIndex`]) with its compact entries ([`IndexEntry`]), the
//! stored per-print summaries it loads from, the dashboard's aggregates ([`board`]), the list
//! filters it answers ([`query`]), the planned and realized figures of a print, and the wear a
//! print adds to its printer and components ([`wear`]).
//!
//! Every query reads a [`crate::command::Snapshot`], which carries the projection; the prints'
//! rules (`crate::prints`) keep it current after each commit (the writers' fan-out) and
//! re-export what their callers name as theirs (`prints::PrintIndex`, `prints::query`, …).
//!
//! May use: the storage crate, [`crate::money`], [`crate::values`], the crate's error. Nothing
//! above (a module check refuses it).

mod amount;
pub mod board;
mod entry;
mod figures;
mod index;
pub mod progress;
pub mod query;
mod summary;
pub mod wear;

pub use entry::{IndexEntry, Outcome};
pub use figures::{
    PrinterElectricity, Realized, electricity_by_printer, planned_margin, realized, units,
};
pub use index::PrintIndex;
#[cfg(test)]
pub(crate) use index::tests::print as test_print;

use crate::Result;
use storage::WriteTxn;
use storage::records::Print;

/// Keeps the stored derived state of `print` in step with its write, in the same transaction:
/// its summary (replacing the earlier one) and the wear it adds ([`wear::apply`]); `old` is the
/// print as it was before the write (none when it is new).
/// Errors: the store fails.
pub fn keep(txn: &WriteTxn, old: Option<&Print>, print: &Print) -> Result<()> {
    summary::put(txn, print)?;
    wear::apply(txn, old, print)
}
