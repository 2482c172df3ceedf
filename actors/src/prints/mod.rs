//! Print rules: drafts and their parts, pricing from the inventory, the status lifecycle, copies.
//!
//! A draft is priced at current prices whenever it is saved; leaving DRAFT reprices it once more
//! and freezes the snapshot: later inventory price changes never touch a finalized print.

mod amount;
pub mod board;
mod commands;
mod draft;
pub mod electricity;
mod entry;
mod figures;
pub mod fleet_logs;
mod index;
mod lifecycle;
pub mod outcome;
mod plan;
pub mod power;
pub mod query;
pub mod success;
mod summary;

pub use commands::{
    ArchivePrint, Calculate, Complete, CopyPrint, CorrectOutcome, CreateDraft, Detail, Export,
    ExportData, FinishWithOutcome, GetPrint, History, ListPrints, MAX_EXPORT, NextRun, PrintDetail,
    PrintPage, PrintsFromFile, RecordOutcome, ReplaceDraft, Report, ReportData, Retry, Scope,
    SetPaid, SetStatus, SourceOf, TakeRetryPrice,
};
pub use draft::{CopyKind, calculate, copy, create, get, replace};
pub use entry::{IndexEntry, Outcome};
pub use figures::{
    PrinterElectricity, Realized, electricity_by_printer, planned_margin, realized, units,
};
pub use index::PrintIndex;
#[cfg(test)]
pub(crate) use index::tests::print as test_print;
pub use lifecycle::{
    complete, is_backward, moves, passes_gate, set_agreed_price, set_archived, set_paid,
    set_status, skips_printing,
};
pub use plan::{
    FilamentInput, HotendInput, MAX_PARTS, MAX_QUANTITY, MAX_WORK_LINES, PartInput, PrintInput,
    WorkInput,
};
