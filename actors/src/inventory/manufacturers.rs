//! Manufacturers. The name is unique, compared trimmed and case-insensitively.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::inventory;
use crate::txn::Txn;
use crate::values::{Name, Note, note_text};
use crate::{Error, FieldError, Result};
use storage::records::Manufacturer;
use storage::repo::{self, Tx};
use storage::{Id, Timestamp, tables};

impl InventoryRecord for Manufacturer {
    archivable!(Manufacturer);

    fn forget(&self, txn: &Txn) -> Result<()> {
        repo::index_remove(txn, tables::MANUFACTURER_NAMES, &name_key(&self.name))?;
        Ok(())
    }
}

/// The editable fields of a manufacturer.
#[derive(Debug, Clone)]
pub struct ManufacturerInput {
    /// Unique name.
    pub name: Name,
    /// Free text.
    pub note: Option<Note>,
}

/// The unique-index key of a manufacturer name.
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn write(
    txn: &Txn,
    old: Option<&Manufacturer>,
    mut manufacturer: Manufacturer,
    input: &ManufacturerInput,
    now: Timestamp,
) -> Result<Manufacturer> {
    let key = name_key(input.name.get());
    match repo::index_get(txn, tables::MANUFACTURER_NAMES, &key)? {
        Some(owner) if owner != manufacturer.id => {
            return Err(Error::Duplicate(FieldError::new(
                "name",
                "errors.duplicate",
            )));
        }
        _ => {}
    }
    if let Some(old) = old {
        repo::index_remove(txn, tables::MANUFACTURER_NAMES, &name_key(&old.name))?;
    }
    repo::index_put(txn, tables::MANUFACTURER_NAMES, &key, manufacturer.id)?;
    manufacturer.name = input.name.get().clone();
    manufacturer.note = note_text(input.note.clone());
    manufacturer.updated_at = now;
    save(txn, &manufacturer)?;
    Ok(manufacturer)
}

/// The active manufacturer named `name` (legacy printer input: the spec's "resolves an existing
/// active manufacturer or creates one"), created when none has the name. Names are unique, so
/// an archived manufacturer of that name is restored rather than doubled.
/// Errors: the store cannot be written.
pub fn resolve_by_name(txn: &Txn, name: &Name, now: Timestamp) -> Result<Manufacturer> {
    match repo::index_get(txn, tables::MANUFACTURER_NAMES, &name_key(name.get()))? {
        Some(id) => match inventory::get::<Manufacturer>(txn, id)? {
            archived if archived.archived => inventory::set_archived(txn, id, false, now),
            active => Ok(active),
        },
        None => Manufacturers::create(
            txn,
            &ManufacturerInput {
                name: name.clone(),
                note: None,
            },
            now,
        ),
    }
}

/// The manufacturers resource's rules (see [`Kind`]).
pub struct Manufacturers;

impl Kind for Manufacturers {
    type Record = Manufacturer;
    type Input = ManufacturerInput;
    type View = Manufacturer;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<Manufacturer> {
        let manufacturer = Manufacturer {
            id: Id::new(),
            name: String::new(),
            note: None,
            archived: false,
            created_at: now,
            updated_at: now,
        };
        write(txn, None, manufacturer, input, now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<Manufacturer> {
        let old: Manufacturer = inventory::get(txn, id)?;
        write(txn, Some(&old), old.clone(), input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<Manufacturer> {
        inventory::get(tx, id)
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<Manufacturer>> {
        inventory::list(
            tx,
            query,
            |m: Manufacturer| m,
            |m| query.matches(&[&m.name, m.note.as_deref().unwrap_or("")]),
            |m| m.name.clone(),
        )
    }
}
