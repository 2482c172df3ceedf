//! Inventory records: customers, manufacturers, printers, components, materials (filaments,
//! resins, consumables).

use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A customer prints are made for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    /// Record id.
    pub id: Id,
    /// Display name.
    pub name: String,
    /// Contact email, if known.
    pub email: Option<String>,
    /// Free text.
    pub note: Option<String>,
    /// Leave this customer's prints out of the dashboard (e.g. the maker's own prints).
    pub exclude_from_dashboard: bool,
    /// Archived records are hidden from lists unless asked for.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
    /// A discount on the shop's price rule for this customer (a reseller's), percent below 100
    /// (schema 11).
    #[serde(with = "rust_decimal::serde::str_option")]
    pub discount_percent: Option<Decimal>,
    /// What a quote or an invoice to this customer needs (schema 11), in one place.
    pub billing: Billing,
}

/// A postal address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostalAddress {
    /// Street and number, one or two lines.
    pub street: String,
    /// Postal code.
    pub postal_code: String,
    /// City.
    pub city: String,
    /// ISO 3166-1 alpha-2 country code, upper-case (`DE`).
    pub country: String,
}

/// A customer's billing details: the fields a quote and an EN 16931 invoice name (issues 46
/// and 47). All optional: a maker's own prints need none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Billing {
    /// Postal address with country.
    pub address: Option<PostalAddress>,
    /// VAT identification number (USt-IdNr.), upper-case, country prefix first (`DE123456789`).
    pub vat_id: Option<String>,
    /// The buyer's reference: a public buyer's Leitweg-ID, or an order reference.
    pub buyer_reference: Option<String>,
    /// Where invoices go, when not to `email`.
    pub invoice_email: Option<String>,
    /// The language quotes and invoices are written in (`de-DE`, `en-US`); the shop's default
    /// when none.
    pub language: Option<String>,
    /// Days to pay, when other than the shop's terms.
    pub payment_terms_days: Option<u16>,
}

/// A maker of printers, components or filament. The name is unique (case-insensitive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manufacturer {
    /// Record id.
    pub id: Id,
    /// Unique name.
    pub name: String,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// A printer; its depreciation is `purchase_price / expected_lifetime_hours` per printing hour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Printer {
    /// Record id.
    pub id: Id,
    /// Display name.
    pub name: String,
    /// Its manufacturer.
    pub manufacturer_id: Id,
    /// Model designation.
    pub model: Option<String>,
    /// Purchase price in the instance currency.
    #[serde(with = "rust_decimal::serde::str")]
    pub purchase_price: Decimal,
    /// Expected lifetime in printing hours (> 0).
    #[serde(with = "rust_decimal::serde::str")]
    pub expected_lifetime_hours: Decimal,
    /// Average electrical power while printing, in watts.
    pub average_power_watts: u32,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
    /// How it prints (schema 16; every printer before it is FDM); fixed for its life.
    pub technology: PrinterTechnology,
}

/// How a printer prints (schema 16, issue 51): it decides what prints on it (the part's heads
/// and its printing material).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PrinterTechnology {
    /// Fused deposition: hotends lay down filament.
    Fdm,
    /// Masked stereolithography: a vat of resin, cured layer by layer.
    Msla,
}

/// The kind of a component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ComponentType {
    /// A hotend (nozzle assembly); each is costed for its own printing time.
    Hotend,
    /// A build plate (print bed surface).
    BuildPlate,
    /// Anything else that wears with printing time (belts, fans, enclosure filter...).
    Other,
    /// A resin printer's vat and its FEP film (schema 16): costed for the part's printing
    /// time, in a resin part's place of the hotends.
    Vat,
}

/// What a component is expected to last (schema 17, issue 51), and so how its wear is costed
/// (docs/costing.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lifetime {
    /// Printing hours (> 0): costed `hours × purchase_price / lifetime hours` over a part's
    /// printing time.
    Hours(#[serde(with = "rust_decimal::serde::str")] Decimal),
    /// Prints (> 0), a run each (a vat's FEP film): costed `purchase_price / lifetime prints`
    /// once per part printed with it.
    Prints(u32),
}

/// A wear part costed by its [`Lifetime`]: per printing hour or per print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Component {
    /// Record id.
    pub id: Id,
    /// Hotend, build plate or other.
    pub kind: ComponentType,
    /// Display name.
    pub name: String,
    /// Its manufacturer, if known.
    pub manufacturer_id: Option<Id>,
    /// Model designation.
    pub model: Option<String>,
    /// Purchase price in the instance currency.
    #[serde(with = "rust_decimal::serde::str")]
    pub purchase_price: Decimal,
    /// What it is expected to last: printing hours or prints (schema 17; hours before it).
    pub lifetime: Lifetime,
    /// Preselected in new drafts (it is only costed where a part lists it).
    pub always_used: bool,
    /// Printers it fits.
    pub printer_ids: Vec<Id>,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// What a material is (schema 15, issue 51): it decides the unit its stock is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MaterialKind {
    /// Filament for FDM printers, in grams (every material before schema 15).
    Filament,
    /// Photopolymer resin for MSLA printers, in millilitres, bought in bottles.
    Resin,
    /// Anything else a shop uses up: isopropyl alcohol, gloves, FEP films, nozzles, boxes; in
    /// pieces or in millilitres.
    Consumable,
}

/// The unit a material's stock, its ledger movements and its uses are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StockUnit {
    /// Grams (filament).
    Gram,
    /// Millilitres (resin; a liquid consumable).
    Millilitre,
    /// Whole pieces (a counted consumable).
    Piece,
}

/// A material product: a filament, a resin or a consumable (the record keeps its first name,
/// `Filament`, and its table). Catalog price per unit is `purchase_price / net_weight_grams`,
/// where `net_weight_grams` is the net quantity of one spool, bottle or pack in `unit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Filament {
    /// Record id.
    pub id: Id,
    /// Its manufacturer.
    pub manufacturer_id: Id,
    /// Material (PLA, PETG, ...).
    pub material: String,
    /// Colour name as the maker sells it.
    pub color_name: String,
    /// Colour as `#RRGGBB`, upper-case.
    pub color_hex: String,
    /// Catalog price of one spool in the instance currency.
    #[serde(with = "rust_decimal::serde::str")]
    pub purchase_price: Decimal,
    /// Catalog net quantity of one spool, bottle or pack in `unit` (> 0): grams of a filament.
    #[serde(with = "rust_decimal::serde::str")]
    pub net_weight_grams: Decimal,
    /// Stock threshold in `unit` below which the material counts as low.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub minimum_stock_grams: Option<Decimal>,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
    /// What it is (schema 15).
    pub kind: MaterialKind,
    /// The unit its stock is counted in: grams for a filament, millilitres for a resin, pieces
    /// or millilitres for a consumable (schema 15).
    pub unit: StockUnit,
    /// A resin's density, grams per millilitre, when known (schema 15).
    #[serde(with = "rust_decimal::serde::str_option")]
    pub density_grams_per_millilitre: Option<Decimal>,
}
