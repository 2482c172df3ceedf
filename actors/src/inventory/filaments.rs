//! Filaments: the filament kind of [`super::materials`], as `/api/filaments` has always shown
//! them (a material of another kind is not found here). Their stock is [`crate::stock`].

use super::materials::{self, MaterialInput};
use super::{Kind, ListQuery, Page};
use crate::Result;
use crate::txn::Txn;
use crate::values::{Amount, HexColor, Name, Note, PositiveGrams};
use storage::records::{Filament, MaterialKind};
use storage::repo::Tx;
use storage::{Id, Timestamp};

pub use super::materials::{MaterialView as FilamentView, display_name, view};

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

impl FilamentInput {
    /// The input of the material this filament is (of kind filament, counted in grams).
    pub fn material(&self) -> MaterialInput {
        let input = self;
        MaterialInput {
            kind: MaterialKind::Filament,
            unit: None,
            manufacturer_id: input.manufacturer_id,
            material: input.material.clone(),
            color_name: Some(input.color_name.clone()),
            color_hex: Some(input.color_hex.clone()),
            purchase_price: input.purchase_price.clone(),
            net_quantity: input.net_weight_grams.clone(),
            minimum_stock: input.minimum_stock_grams.clone(),
            density_grams_per_millilitre: None,
            note: input.note.clone(),
            opening_spool: input.opening_spool,
        }
    }
}

/// The filaments resource's rules (see [`Kind`]): the materials of kind filament.
pub struct Filaments;

impl Kind for Filaments {
    type Record = Filament;
    type Input = FilamentInput;
    type View = FilamentView;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<FilamentView> {
        materials::create(txn, &input.material(), now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<FilamentView> {
        materials::replace(
            txn,
            id,
            Some(MaterialKind::Filament),
            &input.material(),
            now,
        )
    }

    fn get(tx: &impl Tx, id: Id) -> Result<FilamentView> {
        materials::get_view(tx, id, Some(MaterialKind::Filament))
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<FilamentView>> {
        materials::list_of(tx, query, Some(MaterialKind::Filament))
    }
}
