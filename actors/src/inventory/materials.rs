//! Materials of every kind (issue 51): filaments in grams, resins in millilitres, consumables
//! in pieces or millilitres. One record type and one table hold them all (the record keeps its
//! first name, `Filament`); `/api/filaments` is the filament kind's view of them (the
//! `filaments` module beside this one), and their stock is [`crate::stock`], one ledger for
//! every kind.
//!
//! The rules of a kind live here once:
//! - the unit: a filament is counted in grams, a resin in millilitres, a consumable in pieces
//!   or in millilitres, as its maker chooses ([`unit_of`]);
//! - a filament and a resin have a colour; a consumable may have none;
//! - only a resin has a density (grams per millilitre);
//! - a quantity in pieces is whole ([`ledger::require_whole`]).

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::inventory;
use crate::ledger;
use crate::txn::Txn;
use crate::values::{Amount, HexColor, Name, Note, PositiveGrams, note_text};
use crate::{Error, FieldError, Result, settings};
use rust_decimal::Decimal;
use storage::records::{Filament, Manufacturer, MaterialKind, StockUnit};
use storage::repo::Tx;
use storage::{Id, Timestamp};

impl InventoryRecord for Filament {
    archivable!(Filament);

    /// Archives its untouched spools (nothing used or corrected since their opening receipt:
    /// the catalog spool it was given when made, a roll never opened) with it, so an archived
    /// material leaves no stock behind; a spool with movements keeps its real quantity in stock
    /// until it is archived itself. Restoring the material restores none of them.
    fn archive_with(&self, txn: &Txn, now: Timestamp) -> Result<()> {
        for spool in ledger::active_spools(txn, self.id)? {
            if spool.remaining_grams == spool.initial_net_weight_grams {
                ledger::set_archived(txn, spool.id, true, now)?;
            }
        }
        Ok(())
    }
}

/// The editable fields of a material of any kind.
#[derive(Debug, Clone)]
pub struct MaterialInput {
    /// What it is; fixed after creation (a replace with another kind is refused at `kind`).
    pub kind: MaterialKind,
    /// The unit asked for: needed for a consumable; for the other kinds, when sent, the one of
    /// their kind ([`unit_of`]).
    pub unit: Option<StockUnit>,
    /// Its manufacturer.
    pub manufacturer_id: Id,
    /// Material (PLA, PETG, "Standard Grey" resin, "Nitrile gloves", ...).
    pub material: Name,
    /// Colour name: required for a filament and a resin.
    pub color_name: Option<Name>,
    /// Colour, `#RRGGBB`: required for a filament and a resin.
    pub color_hex: Option<HexColor>,
    /// Catalog price of one spool, bottle or pack, instance currency.
    pub purchase_price: Amount,
    /// Catalog net quantity of one spool, bottle or pack in the unit.
    pub net_quantity: PositiveGrams,
    /// Stock threshold in the unit.
    pub minimum_stock: Option<Amount>,
    /// A resin's density in grams per millilitre; refused for the other kinds.
    pub density_grams_per_millilitre: Option<PositiveGrams>,
    /// Free text.
    pub note: Option<Note>,
    /// At creation while spool management is on: whether a full catalog spool, bottle or pack
    /// of it is on hand and is booked as its opening stock (see the filaments' input).
    pub opening_spool: bool,
}

/// A material with its manufacturer's name and derived display name.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialView {
    /// The record.
    pub filament: Filament,
    /// Its manufacturer's name.
    pub manufacturer: String,
    /// `"<manufacturer> <material> <colour name>"` (without the colour when it has none).
    pub name: String,
}

/// The view of `material` made by `manufacturer`.
pub fn view(material: Filament, manufacturer: String) -> MaterialView {
    let name = [
        manufacturer.as_str(),
        material.material.as_str(),
        material.color_name.as_str(),
    ]
    .into_iter()
    .filter(|part| !part.is_empty())
    .collect::<Vec<_>>()
    .join(" ");
    MaterialView {
        filament: material,
        manufacturer,
        name,
    }
}

/// The unit a material of `kind` is counted in, given the unit asked for (`None`: its kind's
/// own). Errors: [`Error::Validation`] at `unit` (`errors.wrongUnit`) for a unit the kind is
/// not counted in, or (`errors.required`) for a consumable without one.
pub fn unit_of(kind: MaterialKind, asked: Option<StockUnit>) -> Result<StockUnit> {
    let unit = match (kind, asked) {
        (MaterialKind::Filament, None | Some(StockUnit::Gram)) => StockUnit::Gram,
        (MaterialKind::Resin, None | Some(StockUnit::Millilitre)) => StockUnit::Millilitre,
        (MaterialKind::Consumable, Some(unit @ (StockUnit::Piece | StockUnit::Millilitre))) => unit,
        (MaterialKind::Consumable, None) => return Err(Error::field("unit", "errors.required")),
        _ => return Err(Error::field("unit", "errors.wrongUnit")),
    };
    Ok(unit)
}

/// Checks `input` against its kind's rules; returns the unit.
fn check(input: &MaterialInput) -> Result<StockUnit> {
    let unit = unit_of(input.kind, input.unit)?;
    let coloured = input.kind != MaterialKind::Consumable;
    let mut errors = Vec::new();
    if coloured && input.color_name.is_none() {
        errors.push(FieldError::new("colorName", "errors.required"));
    }
    if coloured && input.color_hex.is_none() {
        errors.push(FieldError::new("colorHex", "errors.required"));
    }
    if input.kind != MaterialKind::Resin && input.density_grams_per_millilitre.is_some() {
        errors.push(FieldError::new(
            "densityGramsPerMillilitre",
            "errors.notForKind",
        ));
    }
    if !errors.is_empty() {
        return Err(Error::Validation(errors));
    }
    ledger::require_whole(unit, *input.net_quantity.get(), "netQuantity")?;
    if let Some(minimum) = &input.minimum_stock {
        ledger::require_whole(unit, *minimum.get(), "minimumStock")?;
    }
    Ok(unit)
}

fn write(
    txn: &Txn,
    mut material: Filament,
    input: &MaterialInput,
    now: Timestamp,
) -> Result<MaterialView> {
    if material.kind != input.kind {
        return Err(Error::field("kind", "errors.immutable"));
    }
    let unit = check(input)?;
    if unit != material.unit && ledger::has_spools(txn, material.id)? {
        return Err(Error::field("unit", "errors.immutable"));
    }
    let manufacturer: Manufacturer =
        inventory::require_active(txn, input.manufacturer_id, "manufacturerId")?;
    let text = |name: &Option<Name>| name.as_ref().map(|n| n.get().clone()).unwrap_or_default();
    material.manufacturer_id = manufacturer.id;
    material.unit = unit;
    material.material = input.material.get().clone();
    material.color_name = text(&input.color_name);
    material.color_hex = input
        .color_hex
        .as_ref()
        .map(|c| c.get().clone())
        .unwrap_or_default();
    material.purchase_price = *input.purchase_price.get();
    material.net_weight_grams = *input.net_quantity.get();
    material.minimum_stock_grams = input.minimum_stock.as_ref().map(|a| *a.get());
    material.density_grams_per_millilitre = input
        .density_grams_per_millilitre
        .as_ref()
        .map(|d| *d.get());
    material.note = note_text(input.note.clone());
    material.updated_at = now;
    save(txn, &material)?;
    Ok(view(material, manufacturer.name))
}

/// Creates a material; books its opening stock when asked while spool management is on.
/// Errors: as [`check`]; `manufacturerId` missing or archived.
pub fn create(txn: &Txn, input: &MaterialInput, now: Timestamp) -> Result<MaterialView> {
    let material = Filament {
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
        kind: input.kind,
        unit: unit_of(input.kind, input.unit)?,
        density_grams_per_millilitre: None,
    };
    let view = write(txn, material, input, now)?;
    // A catalog spool on hand is booked when asked (docs/api-contract.md).
    if input.opening_spool && settings::get(txn)?.spool_management_enabled {
        ledger::stock_filament(txn, &view.filament, now)?;
    }
    Ok(view)
}

/// Replaces every editable field of material `id` of `kind` (`None`: any kind).
/// Errors: [`Error::NotFound`] (also for a material of another kind than `kind`); as
/// [`create`]; `kind` changed, or `unit` changed once it has spools (`errors.immutable`).
pub fn replace(
    txn: &Txn,
    id: Id,
    kind: Option<MaterialKind>,
    input: &MaterialInput,
    now: Timestamp,
) -> Result<MaterialView> {
    let old = get_of(txn, id, kind)?;
    write(txn, old, input, now)
}

/// Material `id`, when of `kind` (`None`: any). Errors: [`Error::NotFound`].
pub fn get_of(tx: &impl Tx, id: Id, kind: Option<MaterialKind>) -> Result<Filament> {
    let material: Filament = inventory::get(tx, id)?;
    if kind.is_some_and(|k| k != material.kind) {
        return Err(Error::NotFound);
    }
    Ok(material)
}

/// Material `id` of `kind` (`None`: any) as a view. Errors: [`Error::NotFound`].
pub fn get_view(tx: &impl Tx, id: Id, kind: Option<MaterialKind>) -> Result<MaterialView> {
    let material = get_of(tx, id, kind)?;
    let manufacturer: Manufacturer = inventory::get(tx, material.manufacturer_id)?;
    Ok(view(material, manufacturer.name))
}

/// The derived display name of `material`: `"<manufacturer> <material> <colour name>"`.
/// Errors: [`crate::Error::NotFound`] when its manufacturer is gone.
pub fn display_name(tx: &impl Tx, material: &Filament) -> Result<String> {
    let manufacturer: Manufacturer = inventory::get(tx, material.manufacturer_id)?;
    Ok(view(material.clone(), manufacturer.name).name)
}

/// One page of the materials of `kind` (`None`: every kind) matching `query`, by name.
pub fn list_of(
    tx: &impl Tx,
    query: &ListQuery,
    kind: Option<MaterialKind>,
) -> Result<Page<MaterialView>> {
    let names = inventory::manufacturer_names(tx)?;
    inventory::list(
        tx,
        query,
        |f: Filament| {
            let manufacturer = names.get(&f.manufacturer_id).cloned().unwrap_or_default();
            view(f, manufacturer)
        },
        |v| {
            kind.is_none_or(|k| v.filament.kind == k)
                && query.matches(&[&v.name, &v.filament.color_hex])
        },
        |v| v.name.clone(),
    )
}

/// The materials resource's rules (see [`Kind`]): every kind, filtered by kind when asked.
pub struct Materials;

impl Kind for Materials {
    type Record = Filament;
    type Input = MaterialInput;
    type View = MaterialView;
    type Filter = Option<MaterialKind>;

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<MaterialView> {
        create(txn, input, now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<MaterialView> {
        replace(txn, id, None, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<MaterialView> {
        get_view(tx, id, None)
    }

    fn list(
        tx: &impl Tx,
        query: &ListQuery,
        kind: &Option<MaterialKind>,
    ) -> Result<Page<MaterialView>> {
        list_of(tx, query, *kind)
    }
}
