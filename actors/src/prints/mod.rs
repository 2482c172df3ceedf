//! Print rules: drafts and their parts, pricing from the inventory, the status lifecycle, copies.
//!
//! A draft is priced at current prices whenever it is saved; leaving DRAFT reprices it once more
//! and freezes the snapshot: later inventory price changes never touch a finalized print.

mod commands;
mod index;
mod lifecycle;
pub mod outcome;
mod plan;
pub mod query;

pub use commands::{
    ArchivePrint, Calculate, Complete, CopyPrint, CorrectOutcome, CreateDraft, Detail, Export,
    ExportData, GetPrint, History, ListPrints, MAX_EXPORT, NextRun, PrintDetail, PrintPage,
    RecordOutcome, ReplaceDraft, Report, ReportData, Retry, Scope, SetPaid, SetStatus,
};
pub use index::{IndexEntry, PrintIndex};
pub use lifecycle::{complete, set_archived, set_paid, set_status};
pub use plan::{FilamentInput, HotendInput, PartInput, PrintInput};

use crate::txn::Txn;
use crate::{Error, Result, settings};
use rust_decimal::Decimal;
use storage::records::{Print, PrintStatus};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// Most parts a print may have.
pub const MAX_PARTS: usize = 100;
/// Largest quantity of a run.
pub const MAX_QUANTITY: u32 = 1_000_000;

/// The print `id`. Errors: [`Error::NotFound`].
pub fn get(tx: &impl Tx, id: Id) -> Result<Print> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// Prices `input` at current prices without storing anything (`POST /api/prints/calculate`).
/// Errors: [`Error::Validation`] with the path of every field at fault.
pub fn calculate(tx: &impl Tx, input: &PrintInput) -> Result<Print> {
    let now = Timestamp::now();
    draft(tx, input, None, now)
}

/// Builds a priced draft from `input`, reusing part ids of `existing`.
fn draft(
    tx: &impl Tx,
    input: &PrintInput,
    existing: Option<&Print>,
    now: Timestamp,
) -> Result<Print> {
    let settings = settings::get(tx)?;
    let planned = plan::resolve(tx, input, existing, settings.spool_management_enabled)?;
    let costing = plan::price(&planned.plans, settings.electricity_price, input.quantity)?;
    Ok(Print {
        id: existing.map_or_else(Id::new, |p| p.id),
        version: existing.map_or(1, |p| p.version + 1),
        name: input.name.get().clone(),
        customer_id: planned.customer_id,
        series_id: input.series_id,
        quantity: input.quantity,
        sales_value: input.sales_value.as_ref().map(|a| *a.get()),
        notes: crate::values::note_text(input.notes.clone()),
        status: PrintStatus::Draft,
        paid: existing.is_some_and(|p| p.paid),
        paid_at: existing.and_then(|p| p.paid_at),
        archived: existing.is_some_and(|p| p.archived),
        archived_at: existing.and_then(|p| p.archived_at),
        parts: planned.parts,
        costing,
        finalized_at: None,
        completed_at: None,
        repeat_of_id: existing.and_then(|p| p.repeat_of_id),
        retried_from_id: existing.and_then(|p| p.retried_from_id),
        retry_ids: existing.map(|p| p.retry_ids.clone()).unwrap_or_default(),
        outcome: None,
        created_at: existing.map_or(now, |p| p.created_at),
        updated_at: now,
    })
}

/// Stores `print`, keeping its reference edges (customer, series, printers, components,
/// filaments) in step with `old`.
fn save(txn: &Txn, old: Option<&Print>, print: &Print) -> Result<()> {
    repo::put(txn, print)?;
    txn.print_changed(print);
    let old_refs = old.map(references).unwrap_or_default();
    repo::set_references(txn, print.id, &old_refs, &references(print))?;
    Ok(())
}

/// The records a print refers to (so that they cannot be deleted while it exists).
fn references(print: &Print) -> Vec<Id> {
    let mut refs: Vec<Id> = print
        .customer_id
        .into_iter()
        .chain(print.series_id)
        .collect();
    for part in &print.parts {
        refs.push(part.printer_id);
        refs.push(part.build_plate_id);
        refs.extend(part.hotends.iter().map(|h| h.component_id));
        refs.extend(part.other_component_ids.iter().copied());
        refs.extend(part.usages.iter().map(|u| u.filament_id));
    }
    refs.sort();
    refs.dedup();
    refs
}

/// Creates a DRAFT print priced at current prices.
/// Errors: [`Error::Validation`] with the path of every field at fault.
pub fn create(txn: &Txn, input: &PrintInput, now: Timestamp) -> Result<Print> {
    let print = draft(txn, input, None, now)?;
    save(txn, None, &print)?;
    Ok(print)
}

/// Replaces the draft data of print `id` (name, customer, series, quantity, sales value, notes,
/// parts). The legacy flat form edits one-part prints only: a multipart print needs `parts`.
/// Errors: [`Error::NotFound`]; [`Error::Immutable`] once the print left DRAFT;
/// [`Error::Validation`] (`parts` required for a flat edit of a multipart print).
pub fn replace(txn: &Txn, id: Id, input: &PrintInput, now: Timestamp) -> Result<Print> {
    let old = get(txn, id)?;
    if old.status != PrintStatus::Draft {
        return Err(Error::Immutable);
    }
    if input.flat && old.parts.len() > 1 {
        return Err(Error::field("parts", "errors.required"));
    }
    let print = draft(txn, input, Some(&old), now)?;
    save(txn, Some(&old), &print)?;
    Ok(print)
}

/// How a copy relates to its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// A plain copy: sales value kept, no relation.
    Duplicate,
    /// A repeat: sales value cleared, `repeatOfId` set.
    Repeat,
}

/// A new DRAFT copy of print `source_id` at current prices (parts and usages get new ids).
/// `series_id` moves the copy into a series (next run). Errors: [`Error::NotFound`];
/// [`Error::Validation`] when its inventory no longer exists.
pub fn copy(
    txn: &Txn,
    source_id: Id,
    kind: CopyKind,
    series_id: Option<Option<Id>>,
    now: Timestamp,
) -> Result<Print> {
    let source = get(txn, source_id)?;
    let input = PrintInput::from_print(&source, series_id.unwrap_or(source.series_id), false);
    let mut print = draft(txn, &input, None, now)?;
    if kind == CopyKind::Repeat {
        print.sales_value = None;
        print.repeat_of_id = Some(source.id);
    }
    save(txn, None, &print)?;
    Ok(print)
}

/// Sum of the units of `prints`.
pub fn units(prints: &[Print]) -> u64 {
    prints.iter().map(|p| u64::from(p.quantity)).sum()
}

/// The sales value minus the planned total, when a sales value exists.
pub fn planned_margin(print: &Print) -> Option<Decimal> {
    print
        .sales_value
        .map(|s| (s - print.costing.total).normalize())
}

/// Money of a print once its outcome is known (spec, Dashboard: "Realized margin arises only
/// from SUCCESS; FAILED gives zero realized revenue when a sales value was supplied, with failed
/// costs reported separately; pending outcomes have no realized revenue; missing sales values
/// stay null").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Realized {
    /// Actual cost of the current outcome revision.
    pub actual_cost: Option<Decimal>,
    /// Actual cost per unit.
    pub actual_cost_per_unit: Option<Decimal>,
    /// SUCCESS: the sales value; FAILED: 0 when a sales value exists.
    pub revenue: Option<Decimal>,
    /// SUCCESS with a sales value: revenue minus actual cost.
    pub margin: Option<Decimal>,
    /// FAILED: the actual cost of the failed run.
    pub failed_cost: Option<Decimal>,
}

/// The realized money of `print` (all `None` while no outcome is recorded).
pub fn realized(print: &Print) -> Realized {
    use storage::records::OutcomeStatus;
    let Some(current) = print.outcome.as_ref().and_then(|o| o.current()) else {
        return Realized::default();
    };
    let actual = current.actual.total;
    let mut realized = Realized {
        actual_cost: Some(actual),
        actual_cost_per_unit: Some(current.actual.cost_per_unit),
        ..Realized::default()
    };
    match current.status {
        OutcomeStatus::Success => {
            realized.revenue = print.sales_value;
            realized.margin = print.sales_value.map(|s| (s - actual).normalize());
        }
        OutcomeStatus::Failed => {
            realized.revenue = print.sales_value.map(|_| Decimal::ZERO);
            realized.failed_cost = Some(actual);
        }
    }
    realized
}
