//! `/api/printers`.

use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::body_forms::Alternative;
use crate::error::ApiError;
use crate::extract::NoFilter;
use crate::input::Faults;
use crate::wire::{WireId, dec, ts};
use actors::inventory::printers::{self, ManufacturerRef, PrinterView};
use actors::values::{Amount, Name, Note, PositiveAmount, Watts};
use deserr::Deserr;
use serde::Serialize;
use storage::records::PrinterTechnology;
use utoipa::ToSchema;

/// A printer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Printer {
    /// Id (UUID).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Its manufacturer's id.
    pub manufacturer_id: String,
    /// Its manufacturer's name.
    pub manufacturer: String,
    /// Model designation.
    pub model: Option<String>,
    /// Purchase price, instance currency.
    #[schema(example = "1099")]
    pub purchase_price: String,
    /// Expected lifetime, printing hours.
    #[schema(example = "6000")]
    pub expected_lifetime_hours: String,
    /// Average power while printing, watts.
    pub average_power_watts: u32,
    /// Depreciation per printing hour: `purchasePrice / expectedLifetimeHours`, currency per hour.
    #[schema(example = "0.1831666667")]
    pub hourly_rate: String,
    /// How it prints: FDM (hotends, filament) or MSLA (a vat, resin).
    pub technology: TechnologyDto,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Printer input (create and full replace). Send `manufacturerId`, or for compatibility the
/// legacy `manufacturer` name, which resolves an active manufacturer or creates one.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PrinterInput {
    /// Display name.
    #[schema(example = "Original Prusa MK4S")]
    pub name: Name,
    /// Manufacturer id (required unless `manufacturer` is sent).
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub manufacturer_id: Option<WireId>,
    /// Legacy: a manufacturer name instead of `manufacturerId`.
    #[schema(example = "Prusa Research")]
    #[deserr(default)]
    pub manufacturer: Option<Name>,
    /// Model designation.
    #[deserr(default)]
    pub model: Option<Note>,
    /// Purchase price, non-negative decimal string.
    #[schema(example = "1099")]
    pub purchase_price: Amount,
    /// Expected lifetime in printing hours, positive decimal string.
    #[schema(example = "6000")]
    pub expected_lifetime_hours: PositiveAmount,
    /// Average power while printing, watts (0-100000).
    #[schema(value_type = u32, maximum = 100000)]
    pub average_power_watts: Watts,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// FDM or MSLA (FDM when left out); fixed once the printer exists: left out on a replace,
    /// the printer's own; another is 422 `errors.immutable`.
    #[deserr(default)]
    pub technology: Option<TechnologyDto>,
}

/// How a printer prints.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TechnologyDto {
    /// Fused deposition: its parts have hotends and use filament.
    Fdm,
    /// Masked stereolithography: its parts have a vat and use resin.
    Msla,
}

crate::input::deserr_by_name!(TechnologyDto);

impl TechnologyDto {
    /// The stored technology.
    pub fn domain(self) -> PrinterTechnology {
        match self {
            TechnologyDto::Fdm => PrinterTechnology::Fdm,
            TechnologyDto::Msla => PrinterTechnology::Msla,
        }
    }

    /// The wire form of a stored technology.
    pub fn of(t: PrinterTechnology) -> TechnologyDto {
        match t {
            PrinterTechnology::Fdm => TechnologyDto::Fdm,
            PrinterTechnology::Msla => TechnologyDto::Msla,
        }
    }
}

/// The two ways to name a printer's manufacturer: its id, or the legacy name.
pub const MANUFACTURER: [Alternative; 2] = [
    Alternative::needed(&["manufacturerId"]),
    Alternative::needed(&["manufacturer"]),
];

/// The printers resource.
pub struct Printers;

impl Resource for Printers {
    type Kind = printers::Printers;
    type Dto = Printer;
    type Input = PrinterInput;

    fn domain(i: PrinterInput) -> Result<inventory::Input<Self>, ApiError> {
        let manufacturer = match (i.manufacturer_id, i.manufacturer) {
            (Some(id), _) => ManufacturerRef::Id(id.0),
            (None, Some(name)) => ManufacturerRef::Name(name),
            (None, None) => return Err(ApiError::field("manufacturerId", "errors.required")),
        };
        Ok(printers::PrinterInput {
            name: i.name,
            manufacturer,
            model: i.model,
            purchase_price: i.purchase_price,
            expected_lifetime_hours: i.expected_lifetime_hours,
            average_power_watts: i.average_power_watts,
            note: i.note,
            technology: i.technology.map(TechnologyDto::domain),
        })
    }

    type Params = NoFilter;

    fn filter(_: NoFilter) {}

    fn dto(v: PrinterView) -> Printer {
        let p = v.printer;
        Printer {
            id: p.id.to_string(),
            name: p.name,
            manufacturer_id: p.manufacturer_id.to_string(),
            manufacturer: v.manufacturer,
            model: p.model,
            purchase_price: dec(p.purchase_price),
            expected_lifetime_hours: dec(p.expected_lifetime_hours),
            average_power_watts: p.average_power_watts,
            hourly_rate: dec(v.hourly_rate),
            technology: TechnologyDto::of(p.technology),
            note: p.note,
            archived: p.archived,
            created_at: ts(p.created_at),
            updated_at: ts(p.updated_at),
        }
    }
}

inventory_routes!(
    Printers,
    "printers",
    "/printers",
    "/printers/{id}",
    Printer,
    PrinterInput,
    []
);
