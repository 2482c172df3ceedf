//! `/api/filaments` and `/api/filaments/{id}/stock`.

use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{NoFilter, PathId, StrictJson};
use crate::input::Faults;
use crate::routes::Routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{WireId, dec, dec_opt, ts};
use actix_web::web::{Data, Json};
use actix_web::{get, patch};
use actors::inventory::filaments::{self, FilamentView};
use actors::stock::{self, FilamentStock, SetMinimumStock};
use actors::values::{Amount, HexColor, Name, Note, PositiveGrams};
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// A filament.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Filament {
    /// Id (UUID).
    pub id: String,
    /// Derived: `<manufacturer> <material> <colorName>`.
    pub name: String,
    /// Its manufacturer's id.
    pub manufacturer_id: String,
    /// Its manufacturer's name.
    pub manufacturer: String,
    /// Material.
    pub material: String,
    /// Colour name.
    pub color_name: String,
    /// `#RRGGBB`, upper-case.
    pub color_hex: String,
    /// Catalog price of one spool, instance currency.
    pub purchase_price: String,
    /// Catalog net weight of one spool, grams.
    pub net_weight_grams: String,
    /// Stock threshold, grams.
    pub minimum_stock_grams: Option<String>,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Filament input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct FilamentInput {
    /// Manufacturer id.
    #[schema(value_type = String, format = Uuid)]
    pub manufacturer_id: WireId,
    /// Material.
    #[schema(example = "PLA")]
    pub material: Name,
    /// Colour name.
    #[schema(example = "Galaxy Black")]
    pub color_name: Name,
    /// `#RRGGBB` (stored upper-case).
    #[schema(example = "#3D3D3D", pattern = "^#[0-9A-Fa-f]{6}$")]
    pub color_hex: HexColor,
    /// Catalog price of one spool, non-negative decimal string.
    #[schema(example = "29.99")]
    pub purchase_price: Amount,
    /// Catalog net weight of one spool in grams, positive decimal string.
    #[schema(example = "1000")]
    pub net_weight_grams: PositiveGrams,
    /// Stock threshold in grams.
    #[schema(example = "500")]
    #[deserr(default)]
    pub minimum_stock_grams: Option<Amount>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// Taken at creation while spool management is on: `true` (the default, as before it was
    /// asked) books a full catalog spool (purchase price, net weight) as its opening spool;
    /// `false` books none, for a filament whose first roll is received as a spool
    /// (`POST /api/spools`), so that roll is not counted twice. Ignored on replace.
    #[deserr(default)]
    #[schema(default = true)]
    pub opening_spool: Option<bool>,
}

/// The stock of a filament.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stock {
    /// The filament's id.
    pub filament_id: String,
    /// Grams remaining on its active spools.
    pub active_total_grams: String,
    /// Threshold, grams.
    pub minimum_stock_grams: Option<String>,
    /// True when a threshold is set and the active total is below it.
    pub below_minimum: bool,
}

/// Stock threshold input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct StockInput {
    /// Threshold in grams; null clears it.
    #[schema(example = "500")]
    #[deserr(default)]
    pub minimum_stock_grams: Option<Amount>,
}

impl From<stock::Stock> for Stock {
    fn from(s: stock::Stock) -> Self {
        Stock {
            filament_id: s.filament_id.to_string(),
            active_total_grams: dec(s.active_total_grams),
            minimum_stock_grams: dec_opt(s.minimum_stock_grams),
            below_minimum: s.below_minimum,
        }
    }
}

/// The filaments resource.
pub struct Filaments;

impl Resource for Filaments {
    type Kind = filaments::Filaments;
    type Dto = Filament;
    type Input = FilamentInput;

    fn domain(i: FilamentInput) -> Result<inventory::Input<Self>, ApiError> {
        Ok(filaments::FilamentInput {
            manufacturer_id: i.manufacturer_id.0,
            material: i.material,
            color_name: i.color_name,
            color_hex: i.color_hex,
            purchase_price: i.purchase_price,
            net_weight_grams: i.net_weight_grams,
            minimum_stock_grams: i.minimum_stock_grams,
            note: i.note,
            opening_spool: i.opening_spool.unwrap_or(true),
        })
    }

    type Params = NoFilter;

    fn filter(_: NoFilter) {}

    fn dto(v: FilamentView) -> Filament {
        let f = v.filament;
        Filament {
            id: f.id.to_string(),
            name: v.name,
            manufacturer_id: f.manufacturer_id.to_string(),
            manufacturer: v.manufacturer,
            material: f.material,
            color_name: f.color_name,
            color_hex: f.color_hex,
            purchase_price: dec(f.purchase_price),
            net_weight_grams: dec(f.net_weight_grams),
            minimum_stock_grams: dec_opt(f.minimum_stock_grams),
            note: f.note,
            archived: f.archived,
            created_at: ts(f.created_at),
            updated_at: ts(f.updated_at),
        }
    }
}

mod routes {
    use super::*;
    inventory_routes!(
        Filaments,
        "filaments",
        "/filaments",
        "/filaments/{id}",
        Filament,
        FilamentInput,
        []
    );
}

/// Registers the filament routes, stock included.
pub fn configure(cfg: &mut impl Routes) {
    cfg.with(routes::configure).add(get_stock).add(patch_stock);
}

/// The filament's stock: active total and threshold.
#[utoipa::path(
    tag = "filaments",
    params(("id" = String, Path, description = "Filament id (UUID)")),
    responses(
        (status = 200, body = Stock),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "SPOOL_MANAGEMENT_DISABLED", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/filaments/{id}/stock")]
pub async fn get_stock(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<Stock>, ApiError> {
    Ok(Json(state.query(FilamentStock(id.0)).await?.into()))
}

/// Sets the filament's stock threshold.
#[utoipa::path(
    tag = "filaments",
    params(("id" = String, Path, description = "Filament id (UUID)")),
    request_body = StockInput,
    responses(
        (status = 200, body = Stock),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "SPOOL_MANAGEMENT_DISABLED", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/filaments/{id}/stock")]
pub async fn patch_stock(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<StockInput>,
) -> Result<Json<Stock>, ApiError> {
    let command = SetMinimumStock {
        filament_id: id.0,
        minimum: input.0.minimum_stock_grams,
    };
    Ok(Json(state.send(command).await?.into()))
}
