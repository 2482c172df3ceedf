//! Filaments and their stock threshold.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::values::{Amount, HexColor, Name, Note, PositiveAmount, note_text};
use crate::{Result, settings};
use rust_decimal::Decimal;
use storage::records::{Filament, Manufacturer};
use storage::repo::Tx;
use storage::{Id, Timestamp, WriteTransaction};

impl InventoryRecord for Filament {
    archivable!(Filament);

    fn references(&self) -> Vec<Id> {
        vec![self.manufacturer_id]
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
    pub net_weight_grams: PositiveAmount,
    /// Stock threshold in grams.
    pub minimum_stock_grams: Option<Amount>,
    /// Free text.
    pub note: Option<Note>,
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

/// The stock of a filament (`GET /api/filaments/:id/stock`).
#[derive(Debug, Clone, PartialEq)]
pub struct Stock {
    /// The filament.
    pub filament_id: Id,
    /// Grams remaining on its active spools.
    pub active_total_grams: Decimal,
    /// Threshold, grams.
    pub minimum_stock_grams: Option<Decimal>,
    /// True when a threshold is set and the active total is below it.
    pub below_minimum: bool,
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
    txn: &WriteTransaction,
    old: Option<&Filament>,
    mut filament: Filament,
    input: &FilamentInput,
    now: Timestamp,
) -> Result<FilamentView> {
    let manufacturer: Manufacturer =
        super::require_active(txn, input.manufacturer_id, "manufacturerId")?;
    filament.manufacturer_id = manufacturer.id;
    filament.material = input.material.get().clone();
    filament.color_name = input.color_name.get().clone();
    filament.color_hex = input.color_hex.get().clone();
    filament.purchase_price = *input.purchase_price.get();
    filament.net_weight_grams = *input.net_weight_grams.get();
    filament.minimum_stock_grams = input.minimum_stock_grams.as_ref().map(|a| *a.get());
    filament.note = note_text(input.note.clone());
    filament.updated_at = now;
    save(txn, old, &filament)?;
    Ok(view(filament, manufacturer.name))
}

/// The derived display name of `filament`: `"<manufacturer> <material> <colour name>"`.
/// Errors: [`crate::Error::NotFound`] when its manufacturer is gone.
pub fn display_name(tx: &impl Tx, filament: &Filament) -> Result<String> {
    let manufacturer: Manufacturer = super::get(tx, filament.manufacturer_id)?;
    Ok(view(filament.clone(), manufacturer.name).name)
}

/// The stock of filament `id`: the remaining grams of its active spools and the threshold.
///
/// Errors: [`crate::Error::SpoolManagementDisabled`], [`crate::Error::NotFound`].
pub fn stock(tx: &impl Tx, id: Id) -> Result<Stock> {
    settings::require_spool_management(tx)?;
    let filament: Filament = super::get(tx, id)?;
    Ok(stock_of(&filament, crate::ledger::active_total(tx, id)?))
}

fn stock_of(filament: &Filament, active_total_grams: Decimal) -> Stock {
    Stock {
        filament_id: filament.id,
        active_total_grams,
        minimum_stock_grams: filament.minimum_stock_grams,
        below_minimum: filament
            .minimum_stock_grams
            .is_some_and(|m| active_total_grams < m),
    }
}

/// Sets the stock threshold of filament `id` (`None` clears it).
/// Errors: as [`stock`].
pub fn set_minimum_stock(
    txn: &WriteTransaction,
    id: Id,
    minimum: Option<&Amount>,
    now: Timestamp,
) -> Result<Stock> {
    settings::require_spool_management(txn)?;
    let mut filament: Filament = super::get(txn, id)?;
    filament.minimum_stock_grams = minimum.map(|m| *m.get());
    filament.updated_at = now;
    storage::repo::put(txn, &filament)?;
    Ok(stock_of(&filament, crate::ledger::active_total(txn, id)?))
}

/// The filaments resource's rules (see [`Kind`]).
pub struct Filaments;

impl Kind for Filaments {
    type Record = Filament;
    type Input = FilamentInput;
    type View = FilamentView;
    type Filter = ();

    fn create(txn: &WriteTransaction, input: &Self::Input, now: Timestamp) -> Result<FilamentView> {
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
        let view = write(txn, None, filament, input, now)?;
        // Spool management on keeps every active filament stocked (API-CONTRACT.md).
        if settings::get(txn)?.spool_management_enabled {
            crate::ledger::stock_filament(txn, &view.filament, now)?;
        }
        Ok(view)
    }

    fn replace(
        txn: &WriteTransaction,
        id: Id,
        input: &Self::Input,
        now: Timestamp,
    ) -> Result<FilamentView> {
        let old: Filament = super::get(txn, id)?;
        write(txn, Some(&old), old.clone(), input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<FilamentView> {
        let filament: Filament = super::get(tx, id)?;
        let manufacturer: Manufacturer = super::get(tx, filament.manufacturer_id)?;
        Ok(view(filament, manufacturer.name))
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<FilamentView>> {
        let names = super::manufacturer_names(tx)?;
        super::list(
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
