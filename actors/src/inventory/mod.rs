//! Inventory rules: customers, manufacturers, printers, components and materials (filaments,
//! resins, consumables), and the work
//! a shop charges (labour rates, fixed charges, post-processing steps).
//!
//! Shared rules live here: archive toggling, safe delete (refused while any record refers to the
//! target, checked through the store's reference edges), reference bookkeeping on save, list
//! search and pagination. Each resource module holds its input type, create/replace rules and its
//! list view.

pub mod charges;
pub mod commands;
pub mod components;
pub mod customers;
pub mod filaments;
pub mod labour_rates;
pub mod manufacturers;
pub mod materials;
pub mod printers;
pub mod steps;

pub use crate::list::{ListQuery, Page};

use crate::txn::Txn;
use crate::{Error, Result};
use std::collections::HashMap;
use storage::records::Manufacturer;
use storage::repo::{self, Record, Tx};
use storage::{Id, Timestamp};

/// One inventory resource's rules: create, full replace, get and list. Each resource module
/// implements it on a marker type (`customers::Customers`, ...); archive and delete are shared
/// ([`set_archived`], [`delete`]).
pub trait Kind {
    /// The stored record.
    type Record: InventoryRecord + Send + 'static;
    /// The validated editable fields.
    type Input: Send + 'static;
    /// What reads return: the record and the names shown beside it.
    type View: Send + 'static;
    /// Resource-specific list filters (`()` when none).
    type Filter: Send + 'static;

    /// Creates a record. Errors: [`Error::Validation`], [`Error::Duplicate`].
    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<Self::View>;
    /// Replaces every editable field of `id`. Errors: [`Error::NotFound`]; as `create`.
    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<Self::View>;
    /// Record `id` as a view. Errors: [`Error::NotFound`].
    fn get(tx: &impl Tx, id: Id) -> Result<Self::View>;
    /// One page of records matching `query` and `filter`, sorted by name.
    fn list(tx: &impl Tx, query: &ListQuery, filter: &Self::Filter) -> Result<Page<Self::View>>;
}

/// An inventory record: archivable, and safely deletable (what it refers to is its
/// [`Record::references`], declared with the record in `storage`).
pub trait InventoryRecord: Record + Clone {
    /// Archive state.
    fn archived(&self) -> bool;
    /// Sets the archive state and the change time.
    fn set_archived(&mut self, archived: bool, now: Timestamp);
    /// Removes what else the record owns in the store (unique index entries) on delete.
    fn forget(&self, _txn: &Txn) -> Result<()> {
        Ok(())
    }
    /// What archiving the record takes with it, in the same transaction (nothing by default).
    fn archive_with(&self, _txn: &Txn, _now: Timestamp) -> Result<()> {
        Ok(())
    }
}

/// Stores `new` (its reference edges follow it: [`repo::put`]).
pub fn save<R: InventoryRecord>(txn: &Txn, new: &R) -> Result<()> {
    repo::put(txn, new)?;
    Ok(())
}

/// The record `id`. Errors: [`Error::NotFound`].
pub fn get<R: Record>(tx: &impl Tx, id: Id) -> Result<R> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// Sets the archive state of `id` (`PATCH {archived}`). Errors: [`Error::NotFound`].
pub fn set_archived<R: InventoryRecord>(
    txn: &Txn,
    id: Id,
    archived: bool,
    now: Timestamp,
) -> Result<R> {
    let mut record: R = get(txn, id)?;
    let archiving = archived && !record.archived();
    record.set_archived(archived, now);
    repo::put(txn, &record)?;
    if archiving {
        record.archive_with(txn, now)?;
    }
    Ok(record)
}

/// Deletes `id` unless another record refers to it.
/// Errors: [`Error::NotFound`], [`Error::Referenced`].
pub fn delete<R: InventoryRecord>(txn: &Txn, id: Id) -> Result<()> {
    let record: R = get(txn, id)?;
    if repo::is_referenced(txn, id)? {
        return Err(Error::Referenced);
    }
    record.forget(txn)?;
    repo::remove::<R>(txn, id)?;
    Ok(())
}

/// The record `id` for a new reference from input field `path`: it must exist and be active.
/// Errors: [`Error::Validation`] with `errors.notFound` or `errors.archived` at `path`.
pub fn require_active<R: InventoryRecord>(tx: &impl Tx, id: Id, path: &str) -> Result<R> {
    match repo::get::<R>(tx, id)? {
        None => Err(Error::field(path, "errors.notFound")),
        Some(r) if r.archived() => Err(Error::field(path, "errors.archived")),
        Some(r) => Ok(r),
    }
}

/// Every manufacturer's name by id, for views that show the name next to the id.
pub fn manufacturer_names(tx: &impl Tx) -> Result<HashMap<Id, String>> {
    Ok(repo::all::<Manufacturer>(tx)?
        .into_iter()
        .map(|m| (m.id, m.name))
        .collect())
}

/// Lists records of one kind: archived ones only when asked, then `keep`, sorted by `sort_key`
/// (case-insensitive) and id, then paginated.
pub fn list<R: InventoryRecord, V>(
    tx: &impl Tx,
    query: &ListQuery,
    view: impl Fn(R) -> V,
    keep: impl Fn(&V) -> bool,
    sort_key: impl Fn(&V) -> String,
) -> Result<Page<V>> {
    let mut rows: Vec<(String, Id, V)> = repo::all::<R>(tx)?
        .into_iter()
        .filter(|r| query.include_archived || !r.archived())
        .map(|r| {
            let id = r.id();
            (id, view(r))
        })
        .filter(|(_, v)| keep(v))
        .map(|(id, v)| (sort_key(&v).to_lowercase(), id, v))
        .collect();
    rows.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    Ok(Page::cut(
        rows.into_iter().map(|(_, _, v)| v).collect(),
        query,
    ))
}

macro_rules! archivable {
    ($t:ty) => {
        fn archived(&self) -> bool {
            self.archived
        }
        fn set_archived(&mut self, archived: bool, now: storage::Timestamp) {
            self.archived = archived;
            self.updated_at = now;
        }
    };
}
pub(crate) use archivable;
