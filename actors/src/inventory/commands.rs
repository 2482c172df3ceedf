//! The inventory writer's commands and the inventory queries, generic over the five resources
//! ([`Kind`]): create, full replace, archive, safe delete, get and list.

use super::{InventoryRecord, Kind};
use crate::Result;
use crate::command::InventoryWriter;
use crate::command::{Command, Query, Snapshot};
use crate::inventory;
use crate::list::{ListQuery, Page};
use crate::txn::Txn;
use std::marker::PhantomData;
use storage::{Id, Timestamp};

/// Creates a record of resource `K`; replies with its view.
/// Errors: [`crate::Error::Validation`], [`crate::Error::Duplicate`].
pub struct CreateRecord<K: Kind> {
    /// The validated editable fields.
    pub input: K::Input,
}

impl<K: Kind + 'static> Command for CreateRecord<K> {
    type Writer = InventoryWriter;
    type Reply = K::View;

    fn apply(&mut self, txn: &Txn) -> Result<K::View> {
        K::create(txn, &self.input, Timestamp::now())
    }
}

/// Replaces every editable field of a record of `K`; replies with its view.
/// Errors: [`crate::Error::NotFound`]; as [`CreateRecord`].
pub struct ReplaceRecord<K: Kind> {
    /// The record.
    pub id: Id,
    /// Its new editable fields.
    pub input: K::Input,
}

impl<K: Kind + 'static> Command for ReplaceRecord<K> {
    type Writer = InventoryWriter;
    type Reply = K::View;

    fn apply(&mut self, txn: &Txn) -> Result<K::View> {
        K::replace(txn, self.id, &self.input, Timestamp::now())
    }
}

/// Archives or restores a record of `K`; replies with its view. Errors: [`crate::Error::NotFound`].
pub struct ArchiveRecord<K> {
    /// The record.
    pub id: Id,
    /// The new archive state.
    pub archived: bool,
    kind: PhantomData<fn() -> K>,
}

impl<K> ArchiveRecord<K> {
    /// Archives (`true`) or restores (`false`) record `id`.
    pub fn new(id: Id, archived: bool) -> Self {
        ArchiveRecord {
            id,
            archived,
            kind: PhantomData,
        }
    }
}

impl<K: Kind + 'static> Command for ArchiveRecord<K> {
    type Writer = InventoryWriter;
    type Reply = K::View;

    fn apply(&mut self, txn: &Txn) -> Result<K::View> {
        // A record the resource does not show (a resin under the filaments) is not found.
        K::get(txn, self.id)?;
        inventory::set_archived::<K::Record>(txn, self.id, self.archived, Timestamp::now())?;
        K::get(txn, self.id)
    }
}

/// Deletes a record of `K` unless another record still refers to it.
/// Errors: [`crate::Error::NotFound`]; [`crate::Error::Referenced`].
pub struct DeleteRecord<K> {
    /// The record.
    pub id: Id,
    kind: PhantomData<fn() -> K>,
}

impl<K> DeleteRecord<K> {
    /// Deletes record `id`.
    pub fn new(id: Id) -> Self {
        DeleteRecord {
            id,
            kind: PhantomData,
        }
    }
}

impl<K: Kind + 'static> Command for DeleteRecord<K>
where
    K::Record: InventoryRecord,
{
    type Writer = InventoryWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        // A record the resource does not show (a resin under the filaments) is not found.
        K::get(txn, self.id)?;
        inventory::delete::<K::Record>(txn, self.id)
    }
}

/// One record of `K` as a view. Errors: [`crate::Error::NotFound`].
pub struct GetRecord<K> {
    /// The record.
    pub id: Id,
    kind: PhantomData<fn() -> K>,
}

impl<K> GetRecord<K> {
    /// Reads record `id`.
    pub fn new(id: Id) -> Self {
        GetRecord {
            id,
            kind: PhantomData,
        }
    }
}

impl<K: Kind + 'static> Query for GetRecord<K> {
    type Answer = K::View;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<K::View> {
        K::get(snapshot, self.id)
    }
}

/// One page of records of `K` matching a list query and the resource's filter.
pub struct ListRecords<K: Kind> {
    /// Search, archive state, page.
    pub query: ListQuery,
    /// The resource's own filters.
    pub filter: K::Filter,
}

impl<K: Kind + 'static> Query for ListRecords<K> {
    type Answer = Page<K::View>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Page<K::View>> {
        K::list(snapshot, &self.query, &self.filter)
    }
}
