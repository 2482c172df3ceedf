//! Filaments (their stock is [`crate::stock`]).

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::inventory;
use crate::ledger;
use crate::txn::Txn;
use crate::values::{Amount, HexColor, Name, Note, PositiveGrams, note_text};
use crate::{Result, settings};
use rust_decimal::Decimal;
use storage::records::{Filament, Manufacturer};
use storage::repo::Tx;
use storage::{Id, Timestamp};

impl InventoryRecord for Filament {
    archivable!(Filament);

    /// Archives its untouched spools (nothing used or corrected since their opening receipt:
    /// the catalog spool it was given when made, a roll never opened) with it, so an archived
    /// filament leaves no stock behind; a spool with movements keeps its real grams in stock
    /// until it is archived itself. Restoring the filament restores none of them.
    fn archive_with(&self, txn: &Txn, now: Timestamp) -> Result<()> {
        for spool in ledger::active_spools(txn, self.id)? {
            if spool.remaining_grams == spool.initial_net_weight_grams {
                ledger::set_archived(txn, spool.id, true, now)?;
            }
        }
        Ok(())
    }
}

/// The editable fields of a filament.
#[derive(Debug, Clone)]
pub struct FilamentInput {
    /// Its manufacturer.
    pub manufacturer_id: Id,
    /// Material (PLA, PETG, ...).
    pub material: Name,
    /// Colour name.
    pub color_name: Name,
    /// Colour, `#RRGGBB`.
    pub color_hex: HexColor,
    /// Catalog price of one spool, instance currency.
    pub purchase_price: Amount,
    /// Catalog net weight of one spool, grams.
    pub net_weight_grams: PositiveGrams,
    /// Stock threshold in grams.
    pub minimum_stock_grams: Option<Amount>,
    /// Free text.
    pub note: Option<Note>,
    /// At creation while spool management is on: whether a full catalog spool of it is on hand
    /// and is booked as its opening spool. Ours (the spec opens spools only when the feature is
    /// switched on): a filament whose first roll is booked as a spool asks for none, so that roll
    /// is not counted twice. Ignored on replace and while spool management is off.
    pub opening_spool: bool,
}

/// A filament with its manufacturer's name and derived display name.
#[derive(Debug, Clone, PartialEq)]
pub struct FilamentView {
    /// The record.
    pub filament: Filament,
    /// Its manufacturer's name.
    pub manufacturer: String,
    /// `"<manufacturer> <material> <colour name>"`.
    pub name: String,
}

/// The view of `filament` made by `manufacturer`.
pub fn view(filament: Filament, manufacturer: String) -> FilamentView {
    let name = format!(
        "{} {} {}",
        manufacturer, filament.material, filament.color_name
    );
    FilamentView {
        filament,
        manufacturer,
        name,
    }
}

fn write(
    txn: &Txn,
    mut filament: Filament,
    input: &FilamentInput,
    now: Timestamp,
) -> Result<FilamentView> {
    let manufacturer: Manufacturer =
        inventory::require_active(txn, input.manufacturer_id, "manufacturerId")?;
    filament.manufacturer_id = manufacturer.id;
    filament.material = input.material.get().clone();
    filament.color_name = input.color_name.get().clone();
    filament.color_hex = input.color_hex.get().clone();
    filament.purchase_price = *input.purchase_price.get();
    filament.net_weight_grams = *input.net_weight_grams.get();
    filament.minimum_stock_grams = input.minimum_stock_grams.as_ref().map(|a| *a.get());
    filament.note = note_text(input.note.clone());
    filament.updated_at = now;
    save(txn, &filament)?;
    Ok(view(filament, manufacturer.name))
}

/// The derived display name of `filament`: `"<manufacturer> <material> <colour name>"`.
/// Errors: [`crate::Error::NotFound`] when its manufacturer is gone.
pub fn display_name(tx: &impl Tx, filament: &Filament) -> Result<String> {
    let manufacturer: Manufacturer = inventory::get(tx, filament.manufacturer_id)?;
    Ok(view(filament.clone(), manufacturer.name).name)
}

/// The filaments resource's rules (see [`Kind`]).
pub struct Filaments;

impl Kind for Filaments {
    type Record = Filament;
    type Input = FilamentInput;
    type View = FilamentView;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<FilamentView> {
        let filament = Filament {
            id: Id::new(),
            manufacturer_id: input.manufacturer_id,
            material: String::new(),
            color_name: String::new(),
            color_hex: String::new(),
            purchase_price: Decimal::ZERO,
            net_weight_grams: Decimal::ONE,
            minimum_stock_grams: None,
            note: None,
            archived: false,
            created_at: now,
            updated_at: now,
        };
        let view = write(txn, filament, input, now)?;
        // A catalog spool on hand is booked when asked (docs/api-contract.md).
        if input.opening_spool && settings::get(txn)?.spool_management_enabled {
            ledger::stock_filament(txn, &view.filament, now)?;
        }
        Ok(view)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<FilamentView> {
        let old: Filament = inventory::get(txn, id)?;
        write(txn, old, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<FilamentView> {
        let filament: Filament = inventory::get(tx, id)?;
        let manufacturer: Manufacturer = inventory::get(tx, filament.manufacturer_id)?;
        Ok(view(filament, manufacturer.name))
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<FilamentView>> {
        let names = inventory::manufacturer_names(tx)?;
        inventory::list(
            tx,
            query,
            |f: Filament| {
                let manufacturer = names.get(&f.manufacturer_id).cloned().unwrap_or_default();
                view(f, manufacturer)
            },
            |v| query.matches(&[&v.name, &v.filament.color_hex]),
            |v| v.name.clone(),
        )
    }
}
