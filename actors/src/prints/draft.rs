//! Drafts: pricing a print's input at current prices, storing a print with its reference
//! edges (and noting it in the transaction for the list projection), creating, replacing and
//! copying drafts.

use super::plan::{self, PrintInput, SpoolRule};
use crate::projection;
use crate::txn::Txn;
use crate::values;
use crate::{Error, Result, settings};
use storage::records::{Print, PrintStatus};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// The print `id`. Errors: [`Error::NotFound`].
pub fn get(tx: &impl Tx, id: Id) -> Result<Print> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// Prices `input` at current prices without storing anything (`POST /api/prints/calculate`).
/// Errors: [`Error::Validation`] with the path of every field at fault.
pub fn calculate(tx: &impl Tx, input: &PrintInput) -> Result<Print> {
    let now = Timestamp::now();
    priced(tx, input, None, now)
}

/// Builds a priced draft from `input`, reusing part ids of `existing`; each filament line needs
/// its spool while spool management is on ([`SpoolRule::Required`]).
pub(super) fn priced(
    tx: &impl Tx,
    input: &PrintInput,
    existing: Option<&Print>,
    now: Timestamp,
) -> Result<Print> {
    priced_as(tx, input, existing, SpoolRule::Required, now)
}

/// As [`priced`], with the spools chosen by `rule`.
fn priced_as(
    tx: &impl Tx,
    input: &PrintInput,
    existing: Option<&Print>,
    rule: SpoolRule,
    now: Timestamp,
) -> Result<Print> {
    let settings = settings::get(tx)?;
    let spools = settings.spool_management_enabled.then_some(rule);
    let planned = plan::resolve(tx, input, existing, spools)?;
    let costing = plan::price(&planned, settings.electricity_price, input.quantity)?;
    let given = input.sales_value.as_ref().map(|a| *a.get());
    let (sales_value, price) =
        plan::sell(tx, (&planned.parts, &costing), planned.customer_id, given)?;
    Ok(Print {
        id: existing.map_or_else(Id::new, |p| p.id),
        version: existing.map_or(1, |p| p.version + 1),
        name: input.name.get().clone(),
        customer_id: planned.customer_id,
        series_id: input.series_id,
        quantity: input.quantity,
        sales_value,
        notes: values::note_text(input.notes.clone()),
        status: PrintStatus::Draft,
        paid: existing.is_some_and(|p| p.paid),
        paid_at: existing.and_then(|p| p.paid_at),
        archived: existing.is_some_and(|p| p.archived),
        archived_at: existing.and_then(|p| p.archived_at),
        parts: planned.parts,
        costing,
        finalized_at: None,
        printing_started_at: None,
        printing_ended_at: None,
        completed_at: None,
        repeat_of_id: existing.and_then(|p| p.repeat_of_id),
        retried_from_id: existing.and_then(|p| p.retried_from_id),
        retry_ids: existing.map(|p| p.retry_ids.clone()).unwrap_or_default(),
        outcome: None,
        created_at: existing.map_or(now, |p| p.created_at),
        updated_at: now,
        work: planned.work,
        price,
        materials: planned.materials,
    })
}

/// Stores `print` (its reference edges follow it: [`repo::put`]) with its summary and wear,
/// and logs the change for the projection.
pub(crate) fn save(txn: &Txn, old: Option<&Print>, print: &Print) -> Result<()> {
    repo::put(txn, print)?;
    projection::keep(txn, old, print)?;
    txn.print_changed(old, print);
    Ok(())
}

/// Creates a DRAFT print priced at current prices.
/// Errors: [`Error::Validation`] with the path of every field at fault.
pub fn create(txn: &Txn, input: &PrintInput, now: Timestamp) -> Result<Print> {
    let print = priced(txn, input, None, now)?;
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
    let print = priced(txn, input, Some(&old), now)?;
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
/// `series_id` moves the copy into a series (next run). Its spools follow [`SpoolRule::Copy`]:
/// an archived or emptied source spool never fails a copy. Errors: [`Error::NotFound`];
/// [`Error::Validation`] when its other inventory no longer exists.
pub fn copy(
    txn: &Txn,
    source_id: Id,
    kind: CopyKind,
    series_id: Option<Option<Id>>,
    now: Timestamp,
) -> Result<Print> {
    let source = get(txn, source_id)?;
    let input = PrintInput::from_print(txn, &source, series_id.unwrap_or(source.series_id), false)?;
    let mut print = priced_as(txn, &input, None, SpoolRule::Copy, now)?;
    if kind == CopyKind::Repeat {
        print.sales_value = None;
        print.repeat_of_id = Some(source.id);
    }
    save(txn, None, &print)?;
    Ok(print)
}
