//! Print rules: drafts and their parts, pricing from the inventory, the status lifecycle, copies.
//!
//! A draft is priced at current prices whenever it is saved; leaving DRAFT reprices it once more
//! and freezes the snapshot: later inventory price changes never touch a finalized print.

mod commands;
mod draft;
pub mod electricity;
pub mod fleet_logs;
mod lifecycle;
pub mod outcome;
mod plan;
pub mod power;
pub mod success;

#[cfg(test)]
pub(crate) use crate::projection::test_print;
pub use crate::projection::{
    IndexEntry, Outcome, PrintIndex, PrinterElectricity, Realized, board, electricity_by_printer,
    planned_margin, query, realized, units,
};
pub use commands::{
    ArchivePrint, Calculate, Complete, CopyPrint, CorrectOutcome, CreateDraft, Detail, Export,
    ExportData, FinishWithOutcome, GetPrint, History, ListPrints, MAX_EXPORT, NextRun, PrintDetail,
    PrintPage, PrintsFromFile, RecordOutcome, ReplaceDraft, Report, ReportData, Retry, Scope,
    SetPaid, SetStatus, SourceOf, TakeRetryPrice,
};
#[cfg(test)]
pub(crate) use draft::save as test_save;
pub use draft::{CopyKind, calculate, copy, create, get, replace};
pub use lifecycle::{
    complete, is_backward, moves, passes_gate, set_agreed_price, set_archived, set_paid,
    set_status, skips_printing,
};
pub use plan::{
    FilamentInput, HotendInput, MAX_PARTS, MAX_PRINT_MATERIALS, MAX_QUANTITY, MAX_WORK_LINES,
    MaterialLine, PartInput, PrintInput, PrintMaterialInput, WorkInput,
};
