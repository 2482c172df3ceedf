//! Print series: a job made in several runs. A series' customer is inherited by its prints; with
//! `autoComplete` and a `target`, the series completes when the units of its DONE prints reach
//! the target.

use crate::command::SeriesWriter;
use crate::command::{Command, Query, Snapshot};
use crate::inventory::{ListQuery, Page};
use crate::txn::Txn;
use crate::values::{Name, Note, note_text};
use crate::{Error, Result, settings};
use storage::records::{Customer, Print, PrintStatus, Series, SeriesStatus};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// The editable fields of a series.
#[derive(Debug, Clone)]
pub struct SeriesInput {
    /// Name.
    pub name: Name,
    /// Customer its prints inherit.
    pub customer_id: Option<Id>,
    /// Units wanted in all (positive).
    pub target: Option<u32>,
    /// Free text.
    pub notes: Option<Note>,
    /// Complete automatically when DONE units reach `target`.
    pub auto_complete: bool,
}

/// Refuses series routes while print series are off.
/// Errors: [`Error::PrintSeriesDisabled`]; [`Error::NotFound`] before setup.
pub fn require_enabled(tx: &impl Tx) -> Result<()> {
    if settings::get(tx)?.print_series_enabled {
        Ok(())
    } else {
        Err(Error::PrintSeriesDisabled)
    }
}

/// The series `id`. Errors: [`Error::NotFound`].
pub fn get(tx: &impl Tx, id: Id) -> Result<Series> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// The most units a series may aim at: as many as one print may hold (`prints::plan`'s
/// `MAX_QUANTITY`).
pub const MAX_TARGET: u32 = 1_000_000;

fn check(tx: &impl Tx, input: &SeriesInput) -> Result<()> {
    if let Some(id) = input.customer_id
        && repo::get::<Customer>(tx, id)?.is_none()
    {
        return Err(Error::field("customerId", "errors.notFound"));
    }
    if input.target == Some(0) {
        return Err(Error::field("target", "errors.notPositive"));
    }
    if input.target.is_some_and(|t| t > MAX_TARGET) {
        return Err(Error::field("target", "errors.outOfRange"));
    }
    Ok(())
}

/// Creates an OPEN series. Errors: [`Error::PrintSeriesDisabled`], [`Error::Validation`].
pub fn create(txn: &Txn, input: &SeriesInput, now: Timestamp) -> Result<Series> {
    require_enabled(txn)?;
    check(txn, input)?;
    let series = Series {
        id: Id::new(),
        name: input.name.get().clone(),
        customer_id: input.customer_id,
        target: input.target,
        notes: note_text(input.notes.clone()),
        auto_complete: input.auto_complete,
        status: SeriesStatus::Open,
        archived: false,
        created_at: now,
        updated_at: now,
    };
    repo::put(txn, &series)?;
    Ok(series)
}

/// Replaces the editable fields of series `id`. Its prints keep their customer: a series whose
/// prints belong to another customer cannot take a customer (the customer is who a finished
/// print was made and priced for, so it is not rewritten behind the shop's back).
///
/// Errors: [`Error::PrintSeriesDisabled`], [`Error::NotFound`], [`Error::Validation`]
/// (`customerId`: `errors.notFound`, or `errors.seriesCustomerConflict` when a print of the
/// series has another customer or none).
pub fn replace(txn: &Txn, id: Id, input: &SeriesInput, now: Timestamp) -> Result<Series> {
    require_enabled(txn)?;
    check(txn, input)?;
    let old = get(txn, id)?;
    if let Some(customer) = input.customer_id.filter(|c| old.customer_id != Some(*c)) {
        for referrer in repo::referrers(txn, id)? {
            if repo::get::<Print>(txn, referrer)?.is_some_and(|p| p.customer_id != Some(customer)) {
                return Err(Error::field("customerId", "errors.seriesCustomerConflict"));
            }
        }
    }
    let mut series = old.clone();
    series.name = input.name.get().clone();
    series.customer_id = input.customer_id;
    series.target = input.target;
    series.notes = note_text(input.notes.clone());
    series.auto_complete = input.auto_complete;
    series.updated_at = now;
    repo::put(txn, &series)?;
    complete_if_reached(txn, id, now)?;
    get(txn, id)
}

/// Sets OPEN or COMPLETED. Errors: [`Error::PrintSeriesDisabled`], [`Error::NotFound`].
pub fn set_status(txn: &Txn, id: Id, status: SeriesStatus, now: Timestamp) -> Result<Series> {
    require_enabled(txn)?;
    let mut series = get(txn, id)?;
    series.status = status;
    series.updated_at = now;
    repo::put(txn, &series)?;
    Ok(series)
}

/// Sets the archive state. Errors: [`Error::PrintSeriesDisabled`], [`Error::NotFound`].
pub fn set_archived(txn: &Txn, id: Id, archived: bool, now: Timestamp) -> Result<Series> {
    require_enabled(txn)?;
    let mut series = get(txn, id)?;
    series.archived = archived;
    series.updated_at = now;
    repo::put(txn, &series)?;
    Ok(series)
}

/// Completes series `id` when it auto-completes and the units of its DONE prints reach its
/// target. Called by the print rules when a print becomes DONE, in the same transaction.
pub fn complete_if_reached(txn: &Txn, id: Id, now: Timestamp) -> Result<()> {
    let mut series = get(txn, id)?;
    let Some(target) = series
        .target
        .filter(|_| series.auto_complete && series.status == SeriesStatus::Open)
    else {
        return Ok(());
    };
    let done: u64 = repo::all::<Print>(txn)?
        .iter()
        .filter(|p| p.series_id == Some(id) && p.status == PrintStatus::Done)
        .map(|p| u64::from(p.quantity))
        .sum();
    if done >= u64::from(target) {
        series.status = SeriesStatus::Completed;
        series.updated_at = now;
        repo::put(txn, &series)?;
    }
    Ok(())
}

/// Series matching `query` (search covers name and notes), sorted by name.
/// Errors: [`Error::PrintSeriesDisabled`].
pub fn list(tx: &impl Tx, query: &ListQuery) -> Result<Page<Series>> {
    require_enabled(tx)?;
    let mut rows: Vec<Series> = repo::all::<Series>(tx)?
        .into_iter()
        .filter(|s| query.include_archived || !s.archived)
        .filter(|s| query.matches(&[&s.name, s.notes.as_deref().unwrap_or("")]))
        .collect();
    rows.sort_by_key(|s| (s.name.to_lowercase(), s.id));
    Ok(Page::cut(rows, query))
}

/// Creates an OPEN series; replies with it. Errors: as [`create`].
#[derive(Debug, Clone)]
pub struct CreateSeries(pub SeriesInput);

impl Command for CreateSeries {
    type Writer = SeriesWriter;
    type Reply = Series;

    fn apply(&mut self, txn: &Txn) -> Result<Series> {
        create(txn, &self.0, Timestamp::now())
    }
}

/// Replaces a series' editable fields; replies with it. Errors: as [`replace`].
#[derive(Debug, Clone)]
pub struct ReplaceSeries {
    /// The series.
    pub id: Id,
    /// Its new fields.
    pub input: SeriesInput,
}

impl Command for ReplaceSeries {
    type Writer = SeriesWriter;
    type Reply = Series;

    fn apply(&mut self, txn: &Txn) -> Result<Series> {
        replace(txn, self.id, &self.input, Timestamp::now())
    }
}

/// Sets a series OPEN or COMPLETED; replies with it. Errors: as [`set_status`].
#[derive(Debug, Clone, Copy)]
pub struct SetSeriesState {
    /// The series.
    pub id: Id,
    /// OPEN or COMPLETED.
    pub status: SeriesStatus,
}

impl Command for SetSeriesState {
    type Writer = SeriesWriter;
    type Reply = Series;

    fn apply(&mut self, txn: &Txn) -> Result<Series> {
        set_status(txn, self.id, self.status, Timestamp::now())
    }
}

/// Archives or restores a series; replies with it. Errors: as [`set_archived`].
#[derive(Debug, Clone, Copy)]
pub struct ArchiveSeries {
    /// The series.
    pub id: Id,
    /// The new archive state.
    pub archived: bool,
}

impl Command for ArchiveSeries {
    type Writer = SeriesWriter;
    type Reply = Series;

    fn apply(&mut self, txn: &Txn) -> Result<Series> {
        set_archived(txn, self.id, self.archived, Timestamp::now())
    }
}

/// One series. Errors: [`Error::PrintSeriesDisabled`]; [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct GetSeries(pub Id);

impl Query for GetSeries {
    type Answer = Series;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Series> {
        require_enabled(snapshot)?;
        get(snapshot, self.0)
    }
}

/// Series matching a list query, sorted by name. Errors: [`Error::PrintSeriesDisabled`].
#[derive(Debug, Clone)]
pub struct ListSeries(pub ListQuery);

impl Query for ListSeries {
    type Answer = Page<Series>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Page<Series>> {
        list(snapshot, &self.0)
    }
}
