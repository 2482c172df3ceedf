//! Components: hotends, build plates and other wear parts.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::inventory;
use crate::txn::Txn;
use crate::values::{Amount, Name, Note, PositiveAmount, note_text};
use crate::{Error, Result};
use rust_decimal::Decimal;
use storage::records::{Component, ComponentType, Lifetime, Manufacturer, Printer};
use storage::repo::Tx;
use storage::{Id, Timestamp};

impl InventoryRecord for Component {
    archivable!(Component);
}

/// The editable fields of a component.
#[derive(Debug, Clone)]
pub struct ComponentInput {
    /// Hotend, build plate or other.
    pub kind: ComponentType,
    /// Display name.
    pub name: Name,
    /// Its manufacturer, if known.
    pub manufacturer_id: Option<Id>,
    /// Model designation.
    pub model: Option<Note>,
    /// Purchase price, instance currency.
    pub purchase_price: Amount,
    /// Expected lifetime, in printing hours or in prints.
    pub lifetime: LifetimeInput,
    /// Preselected in new drafts.
    pub always_used: bool,
    /// Printers it fits (duplicates are folded).
    pub printer_ids: Vec<Id>,
    /// Free text.
    pub note: Option<Note>,
}

/// A component's expected lifetime as entered.
#[derive(Debug, Clone)]
pub enum LifetimeInput {
    /// Printing hours (> 0).
    Hours(PositiveAmount),
    /// Prints, 1 to [`MAX_LIFETIME_PRINTS`] (checked on write: `errors.outOfRange` at
    /// `expectedLifetimePrints`).
    Prints(u32),
}

/// The most prints a component's lifetime may count (as a maintenance interval's count).
pub const MAX_LIFETIME_PRINTS: u32 = 1_000_000;

impl LifetimeInput {
    /// The lifetime to store. Errors: [`Error::Validation`] for a count of prints out of range.
    fn lifetime(&self) -> Result<Lifetime> {
        match self {
            LifetimeInput::Hours(hours) => Ok(Lifetime::Hours(*hours.get())),
            LifetimeInput::Prints(n @ 1..=MAX_LIFETIME_PRINTS) => Ok(Lifetime::Prints(*n)),
            LifetimeInput::Prints(_) => {
                Err(Error::field("expectedLifetimePrints", "errors.outOfRange"))
            }
        }
    }
}

/// Component list filters beyond the common query.
#[derive(Debug, Clone, Copy, Default)]
pub struct ComponentFilter {
    /// Only this type.
    pub kind: Option<ComponentType>,
    /// Only components that fit this printer.
    pub printer_id: Option<Id>,
    /// Only (not) always-used components.
    pub always_used: Option<bool>,
}

/// A component with its manufacturer's name.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentView {
    /// The record.
    pub component: Component,
    /// Its manufacturer's name, if it has one.
    pub manufacturer: Option<String>,
}

fn write(
    txn: &Txn,
    mut component: Component,
    input: &ComponentInput,
    now: Timestamp,
) -> Result<ComponentView> {
    let manufacturer = input
        .manufacturer_id
        .map(|id| inventory::require_active::<Manufacturer>(txn, id, "manufacturerId"))
        .transpose()?;
    let lifetime = input.lifetime.lifetime()?;
    let mut printer_ids = Vec::with_capacity(input.printer_ids.len());
    let mut faults = Vec::new();
    for (i, id) in input.printer_ids.iter().enumerate() {
        match inventory::require_active::<Printer>(txn, *id, &format!("printerIds[{i}]")) {
            Ok(_) if printer_ids.contains(id) => {}
            Ok(_) => printer_ids.push(*id),
            Err(Error::Validation(mut f)) => faults.append(&mut f),
            Err(e) => return Err(e),
        }
    }
    if !faults.is_empty() {
        return Err(Error::Validation(faults));
    }
    component.kind = input.kind;
    component.name = input.name.get().clone();
    component.manufacturer_id = manufacturer.as_ref().map(|m| m.id);
    component.model = note_text(input.model.clone());
    component.purchase_price = *input.purchase_price.get();
    component.lifetime = lifetime;
    component.always_used = input.always_used;
    component.printer_ids = printer_ids;
    component.note = note_text(input.note.clone());
    component.updated_at = now;
    save(txn, &component)?;
    Ok(ComponentView {
        component,
        manufacturer: manufacturer.map(|m| m.name),
    })
}

/// The components resource's rules (see [`Kind`]).
pub struct Components;

impl Kind for Components {
    type Record = Component;
    type Input = ComponentInput;
    type View = ComponentView;
    type Filter = ComponentFilter;

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<ComponentView> {
        let component = Component {
            id: Id::new(),
            kind: input.kind,
            name: String::new(),
            manufacturer_id: None,
            model: None,
            purchase_price: Default::default(),
            lifetime: Lifetime::Hours(Decimal::ONE),
            always_used: false,
            printer_ids: Vec::new(),
            note: None,
            archived: false,
            created_at: now,
            updated_at: now,
        };
        write(txn, component, input, now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<ComponentView> {
        let old: Component = inventory::get(txn, id)?;
        write(txn, old, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<ComponentView> {
        let component: Component = inventory::get(tx, id)?;
        let manufacturer = match component.manufacturer_id {
            Some(m) => Some(inventory::get::<Manufacturer>(tx, m)?.name),
            None => None,
        };
        Ok(ComponentView {
            component,
            manufacturer,
        })
    }

    fn list(
        tx: &impl Tx,
        query: &ListQuery,
        filter: &ComponentFilter,
    ) -> Result<Page<ComponentView>> {
        let names = inventory::manufacturer_names(tx)?;
        inventory::list(
            tx,
            query,
            |c: Component| ComponentView {
                manufacturer: c.manufacturer_id.and_then(|m| names.get(&m).cloned()),
                component: c,
            },
            |v| {
                let c = &v.component;
                filter.kind.is_none_or(|k| c.kind == k)
                    && filter.printer_id.is_none_or(|p| c.printer_ids.contains(&p))
                    && filter.always_used.is_none_or(|a| c.always_used == a)
                    && query.matches(&[
                        &c.name,
                        c.model.as_deref().unwrap_or(""),
                        v.manufacturer.as_deref().unwrap_or(""),
                    ])
            },
            |v| v.component.name.clone(),
        )
    }
}
