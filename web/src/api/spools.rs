//! `/api/spools`: spools, their ledger movements and QR labels. Every route answers 409
//! `SPOOL_MANAGEMENT_DISABLED` while spool management is off.

use super::ListResponse;
use super::materials::{MaterialKindDto, StockUnitDto};
use super::spoolmgr::{AuthorityDto, RemoteStateDto};
use crate::error::{ApiError, Code, ErrorBody};
use crate::extract::{ArchiveInput, ListParams, Patch, PathId, StrictJson, StrictQuery};
use crate::input::Faults;
use crate::input::Refusal;
use crate::input::query::{self, Params};
use crate::middleware::request_origin;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{WireId, dec, ts};
use actix_web::web::{Data, Json};
use actix_web::{HttpRequest, HttpResponse, get, patch, post};
use actors::inventory::ListQuery;
use actors::ledger::remote as links;
use actors::ledger::{self, SpoolChange, SpoolInput};
use actors::stock::{
    ArchiveSpool, BookMovement, ChangeSpool, FixedFields, GetSpool, ListSpools, OpenSpool,
    SpoolFilter, SpoolLedger, SpoolView,
};
use actors::values::{self, Amount, Name, Note, PositiveGrams, PurchaseDate, Sign, SignedGrams};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::Id;
use storage::records::StockUnit;
use storage::records::{Movement, MovementKind};
use utoipa::openapi::schema::{
    AdditionalProperties, KnownFormat, Object, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat,
    SchemaType, Type,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, PartialSchema, ToSchema};

/// Registers the spool routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    // Booking first: each dynamic route tried before the one that matches costs a regex run
    // (regex-lite's PikeVM; actix-web's `unicode` feature would use the regex crate, about 5 MiB
    // more RSS for every route's compiled regex in each worker).
    cfg.add(book)
        .add(list_spools)
        .add(create)
        .add(get_spool)
        .add(patch_spool)
        .add(archive)
        .add(qr);
}

/// A spool.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpoolDto {
    /// Id.
    pub id: String,
    /// Unique label code.
    pub code: String,
    /// Its material (a filament, a resin, a consumable).
    pub filament_id: String,
    /// Its material's name.
    pub filament: String,
    /// Its material's kind: a filament's spool, a resin's bottle, a consumable's pack.
    pub material_kind: MaterialKindDto,
    /// The unit its quantities are counted in.
    pub unit: StockUnitDto,
    /// What it cost, instance currency.
    pub purchase_price: String,
    /// Net quantity when bought, in `unit`.
    pub initial_quantity: String,
    /// Net grams when bought: a filament's spool only (null for other kinds).
    pub initial_net_weight_grams: Option<String>,
    /// Manufacturer's lot.
    pub purchase_lot: Option<String>,
    /// Where it is kept.
    pub location: Option<String>,
    /// Purchase date, YYYY-MM-DD.
    pub acquired_at: Option<String>,
    /// Exact quantity left in `unit` by the owner of its stock: the sum of its movements, or the
    /// spool manager's remaining grams while it owns the stock (none known: 0).
    pub remaining_quantity: String,
    /// As `remainingQuantity`, for a filament's spool only (null for other kinds).
    pub remaining_grams: Option<String>,
    /// `purchasePrice / initialQuantity`, currency per unit (per gram of a filament).
    pub unit_cost: String,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
    /// Who owns its stock.
    pub authority: AuthorityDto,
    /// The linked remote spool's id in the spool manager.
    pub remote_id: Option<u64>,
    /// Grams left by the spool manager's last good answer.
    pub remote_remaining_grams: Option<String>,
    /// The remote spool's state by the last sync.
    pub remote_state: Option<RemoteStateDto>,
    /// Time of the last good sync.
    pub synced_at: Option<String>,
    /// Why the last sync failed (a contract code).
    pub sync_error: Option<String>,
    /// Linked, and no good sync for 5 minutes, or the last one failed.
    pub stale: Option<bool>,
}

impl From<SpoolView> for SpoolDto {
    fn from(v: SpoolView) -> Self {
        let now = storage::Timestamp::now();
        let (authority, remaining) = (v.authority().into(), dec(v.remaining()));
        let grams = |text: &str| (v.unit == StockUnit::Gram).then(|| text.to_string());
        let (remaining_grams, initial_grams) = (
            grams(&remaining),
            grams(&dec(v.spool.initial_net_weight_grams)),
        );
        let (material_kind, unit) = (v.kind.into(), v.unit.into());
        let link = v.link;
        let s = v.spool;
        SpoolDto {
            authority,
            remote_id: link.as_ref().map(|l| l.remote_id),
            remote_remaining_grams: link
                .as_ref()
                .and_then(|l| l.remote_remaining_grams)
                .map(dec),
            remote_state: link.as_ref().map(|l| l.remote_state.into()),
            synced_at: link.as_ref().and_then(|l| l.synced_at).map(ts),
            stale: link.as_ref().map(|l| links::stale(l, now)),
            sync_error: link.and_then(|l| l.sync_error),
            id: s.id.to_string(),
            code: s.code.clone(),
            filament_id: s.filament_id.to_string(),
            filament: v.filament,
            material_kind,
            unit,
            unit_cost: dec(ledger::unit_cost(&s)),
            purchase_price: dec(s.purchase_price),
            initial_quantity: dec(s.initial_net_weight_grams),
            initial_net_weight_grams: initial_grams,
            purchase_lot: s.purchase_lot,
            location: s.location,
            acquired_at: s.acquired_at,
            remaining_quantity: remaining,
            remaining_grams,
            archived: s.archived,
            created_at: ts(s.created_at),
            updated_at: ts(s.updated_at),
        }
    }
}

/// A movement's kind on the wire: RECEIPT, CORRECTION or PRINT (only the first two are booked
/// through the API).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MovementKindDto {
    /// Filament received (positive grams).
    Receipt,
    /// A signed, nonzero correction.
    Correction,
    /// Consumption by a print (booked by outcomes, not through this route).
    Print,
}

crate::input::deserr_by_name!(MovementKindDto);

/// A ledger movement.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MovementDto {
    /// Id.
    pub id: String,
    /// The spool.
    pub spool_id: String,
    /// Kind.
    pub kind: MovementKindDto,
    /// The unit `quantity` is in: its spool's material's.
    pub unit: StockUnitDto,
    /// Signed quantity in `unit`.
    pub quantity: String,
    /// Signed grams: a filament's movement only (null for other kinds).
    pub grams: Option<String>,
    /// Free text.
    pub note: Option<String>,
    /// The idempotency key it was booked with.
    pub operation_key: Option<String>,
    /// For PRINT movements, the print.
    pub print_id: Option<String>,
    /// For PRINT movements, the usage.
    pub usage_id: Option<String>,
    /// Booking time.
    pub created_at: String,
}

impl MovementDto {
    /// The wire form of movement `m` of a spool counted in `unit`.
    pub fn of(m: Movement, unit: StockUnit) -> Self {
        MovementDto {
            id: m.id.to_string(),
            spool_id: m.spool_id.to_string(),
            kind: m.kind.into(),
            unit: unit.into(),
            quantity: dec(m.grams),
            grams: (unit == StockUnit::Gram).then(|| dec(m.grams)),
            note: m.note,
            operation_key: m.operation_key.map(|k| k.to_string()),
            print_id: m.print_id.map(|p| p.to_string()),
            usage_id: m.usage_id.map(|u| u.to_string()),
            created_at: ts(m.created_at),
        }
    }
}

/// A spool with a page of its movements, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct SpoolDetail {
    /// The spool.
    pub spool: SpoolDto,
    /// Its movements (`page` and `pageSize` of the query).
    pub movements: ListResponse<MovementDto>,
}

/// New spool input: a filament's spool, a resin's bottle or a consumable's pack, its opening
/// quantity in exactly one of `initialNetWeightGrams`, `initialMillilitres` and `initialPieces`
/// (its material's unit). Its OpenAPI schema is one object per unit (its `PartialSchema`).
#[derive(Debug, Deserr)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SpoolInputDto {
    /// Unique label code; omit to get the next `SP-000001`-style code.
    #[deserr(default)]
    pub code: Option<Name>,
    /// Its filament.
    pub filament_id: WireId,
    /// What it cost.
    pub purchase_price: Amount,
    /// A filament's net grams when bought; booked as the opening receipt.
    #[deserr(default)]
    pub initial_net_weight_grams: Option<PositiveGrams>,
    /// A resin's (or a liquid consumable's) millilitres when bought.
    #[deserr(default)]
    pub initial_millilitres: Option<PositiveGrams>,
    /// A counted consumable's pieces when bought (whole).
    #[deserr(default)]
    pub initial_pieces: Option<PositiveGrams>,
    /// Manufacturer's lot.
    #[deserr(default)]
    pub purchase_lot: Option<Note>,
    /// Where it is kept.
    #[deserr(default)]
    pub location: Option<Note>,
    /// Purchase date, YYYY-MM-DD.
    #[deserr(default)]
    pub acquired_at: Option<PurchaseDate>,
}

impl SpoolInputDto {
    /// The command opening this spool. Errors: 422 when not exactly one initial quantity is
    /// sent ([`one_quantity`]).
    pub fn command(self) -> Result<OpenSpool, ApiError> {
        let (quantity, unit) = one_quantity(
            [
                (self.initial_net_weight_grams, StockUnit::Gram),
                (self.initial_millilitres, StockUnit::Millilitre),
                (self.initial_pieces, StockUnit::Piece),
            ],
            ledger::initial_field,
        )?;
        Ok(OpenSpool(SpoolInput {
            code: self.code.map(Name::into_inner),
            filament_id: self.filament_id.0,
            purchase_price: self.purchase_price.into_inner(),
            initial_net_weight_grams: quantity.into_inner(),
            unit,
            purchase_lot: self.purchase_lot,
            location: self.location,
            acquired_at: self.acquired_at.and_then(PurchaseDate::into_inner),
        }))
    }
}

/// The one quantity sent among `sent` (each with the unit its field is in) and its unit.
///
/// Errors: 422 at the field of the first unit (`field`) when none is sent (`errors.required`),
/// at the second one sent when more are (`errors.oneQuantity`).
pub fn one_quantity<T>(
    sent: [(Option<T>, StockUnit); 3],
    field: fn(StockUnit) -> &'static str,
) -> Result<(T, StockUnit), ApiError> {
    let mut given = sent
        .into_iter()
        .filter_map(|(value, unit)| value.map(|v| (v, unit)));
    match (given.next(), given.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(actors::Error::field(field(StockUnit::Gram), "errors.required").into()),
        (Some(_), Some((_, unit))) => {
            Err(actors::Error::field(field(unit), "errors.oneQuantity").into())
        }
    }
}

/// Spool change: metadata and price. `code`, `filamentId` and `initialNetWeightGrams` are fixed;
/// sending a different value is 409 IMMUTABLE.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SpoolPatch {
    /// What it cost.
    pub purchase_price: Amount,
    /// Manufacturer's lot.
    #[deserr(default)]
    pub purchase_lot: Option<Note>,
    /// Where it is kept.
    #[deserr(default)]
    pub location: Option<Note>,
    /// Purchase date, YYYY-MM-DD.
    #[schema(format = Date)]
    #[deserr(default)]
    pub acquired_at: Option<PurchaseDate>,
    /// Fixed: must equal the spool's code if sent.
    #[deserr(default)]
    pub code: Option<String>,
    /// Fixed: must equal the spool's filament if sent.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub filament_id: Option<WireId>,
    /// Fixed: must equal a filament spool's initial weight if sent.
    #[deserr(default)]
    pub initial_net_weight_grams: Option<PositiveGrams>,
    /// Fixed: must equal a bottle's or a pack's initial millilitres if sent.
    #[deserr(default)]
    pub initial_millilitres: Option<PositiveGrams>,
    /// Fixed: must equal a pack's initial pieces if sent.
    #[deserr(default)]
    pub initial_pieces: Option<PositiveGrams>,
}

impl SpoolPatch {
    /// The change command of spool `id`.
    pub fn command(self, id: Id) -> ChangeSpool {
        ChangeSpool {
            id,
            change: SpoolChange {
                purchase_price: self.purchase_price.into_inner(),
                purchase_lot: self.purchase_lot.map(Note::into_inner),
                location: self.location.map(Note::into_inner),
                acquired_at: self.acquired_at.and_then(PurchaseDate::into_inner),
            },
            fixed: FixedFields {
                code: self.code,
                filament_id: self.filament_id.map(|f| f.0),
                initial_quantities: [
                    (self.initial_net_weight_grams, StockUnit::Gram),
                    (self.initial_millilitres, StockUnit::Millilitre),
                    (self.initial_pieces, StockUnit::Piece),
                ]
                .into_iter()
                .filter_map(|(q, unit)| q.map(|q| (q.into_inner(), unit)))
                .collect(),
            },
        }
    }
}

impl From<MovementKind> for MovementKindDto {
    fn from(kind: MovementKind) -> Self {
        match kind {
            MovementKind::Receipt => MovementKindDto::Receipt,
            MovementKind::Correction => MovementKindDto::Correction,
            MovementKind::Print => MovementKindDto::Print,
        }
    }
}

impl From<MovementKindDto> for MovementKind {
    fn from(kind: MovementKindDto) -> Self {
        match kind {
            MovementKindDto::Receipt => MovementKind::Receipt,
            MovementKindDto::Correction => MovementKind::Correction,
            MovementKindDto::Print => MovementKind::Print,
        }
    }
}

/// Movement input: its quantity in exactly one of `grams`, `millilitres` and `pieces` (the
/// spool's material's unit). Its OpenAPI schema is one object per kind and unit (below), so a
/// client sends only quantities the ledger books.
#[derive(Debug, Deserr)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct MovementInputDto {
    /// RECEIPT (positive) or CORRECTION (signed, nonzero); PRINT is refused (outcomes book it).
    pub kind: MovementKindDto,
    /// A filament spool's grams: at most 12 whole and 6 fractional digits.
    #[deserr(default)]
    pub grams: Option<SignedGrams>,
    /// A bottle's or a liquid consumable's millilitres, as grams.
    #[deserr(default)]
    pub millilitres: Option<SignedGrams>,
    /// A counted consumable's pieces (whole).
    #[deserr(default)]
    pub pieces: Option<SignedGrams>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// A UUID: retrying with the same key and content books nothing new and answers the first
    /// movement; the same key with other content is 409 OPERATION_KEY_REUSED.
    #[deserr(default)]
    pub operation_key: Option<WireId>,
}

/// The quantity fields of a unit: its name in a movement and in a new spool, and the pattern of
/// its values of `sign` (`whole`/`fraction` digits of the ledger).
fn quantity_schema(unit: StockUnit, sign: Sign) -> RefOr<Schema> {
    let pattern = match unit {
        StockUnit::Piece => values::whole_pattern,
        StockUnit::Gram | StockUnit::Millilitre => values::decimal_pattern,
    };
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(pattern(
            values::GRAMS_WHOLE,
            values::GRAMS_FRACTION,
            sign,
        )))
        .into()
}

/// Every unit, as the movement and spool schemas offer them.
const UNITS: [StockUnit; 3] = [StockUnit::Gram, StockUnit::Millilitre, StockUnit::Piece];

impl utoipa::PartialSchema for MovementInputDto {
    /// `oneOf` a RECEIPT (positive) and a CORRECTION (nonzero) in each unit, each with `note`
    /// and `operationKey`. That a correction may not take the spool below zero depends on its
    /// balance, and which unit a spool takes on its material: both are left to the answer (422
    /// `errors.belowZero`, `errors.wrongUnit`).
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOfBuilder::new().description(Some(
            "Movement input: a RECEIPT or a CORRECTION, in grams, millilitres or pieces.",
        ));
        for unit in UNITS {
            let field = ledger::quantity_field(unit);
            one_of = one_of
                .item(movement_kind(
                    "RECEIPT",
                    field,
                    quantity_schema(unit, Sign::Positive),
                    "Quantity received: positive.",
                ))
                .item(movement_kind(
                    "CORRECTION",
                    field,
                    quantity_schema(unit, Sign::NonZero),
                    "Quantity added, negative for a quantity taken: nonzero.",
                ));
        }
        one_of.into()
    }
}

impl ToSchema for MovementInputDto {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((Note::name().into(), Note::schema()));
    }
}

/// `null` or the schema `of`.
fn nullable(of: impl Into<RefOr<Schema>>) -> OneOfBuilder {
    OneOfBuilder::new()
        .item(of)
        .item(ObjectBuilder::new().schema_type(Type::Null))
}

/// The object of one movement kind, described by `text`: `kind`, the quantity as `field`,
/// `note`, `operationKey`.
fn movement_kind(kind: &str, field: &str, quantity: RefOr<Schema>, text: &str) -> Object {
    let key = ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)))
        .description(Some(
            "A UUID: retrying with the same key and content books nothing new and answers the \
             first movement; the same key with other content is 409 OPERATION_KEY_REUSED.",
        ));
    ObjectBuilder::new()
        .property(
            "kind",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([kind])),
        )
        .required("kind")
        .property(field, quantity)
        .required(field)
        .property("note", nullable(Ref::from_schema_name(Note::name())))
        .property("operationKey", key)
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .description(Some(text))
        .build()
}

impl utoipa::PartialSchema for SpoolInputDto {
    /// `oneOf` a new spool per unit: `code`, `filamentId`, `purchasePrice`, the lot, location
    /// and date, and its opening quantity in that unit's field. Which unit a material takes is
    /// stored data, left to the answer (422 `errors.wrongUnit`).
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOfBuilder::new().description(Some(
            "New spool input: a filament's spool (grams), a resin's bottle (millilitres) or a \
             consumable's pack (pieces or millilitres).",
        ));
        for unit in UNITS {
            let field = ledger::initial_field(unit);
            let uuid = ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)));
            let date = ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)));
            let object = ObjectBuilder::new()
                .property("code", nullable(Ref::from_schema_name(Name::name())))
                .property("filamentId", uuid)
                .required("filamentId")
                .property("purchasePrice", Ref::from_schema_name(Amount::name()))
                .required("purchasePrice")
                .property(field, quantity_schema(unit, Sign::Positive))
                .required(field)
                .property("purchaseLot", nullable(Ref::from_schema_name(Note::name())))
                .property("location", nullable(Ref::from_schema_name(Note::name())))
                .property("acquiredAt", nullable(PurchaseDate::schema()).item(date))
                .additional_properties(Some(AdditionalProperties::FreeForm(false)));
            one_of = one_of.item(object);
        }
        one_of.into()
    }
}

impl ToSchema for SpoolInputDto {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((Note::name().into(), Note::schema()));
        schemas.push((Name::name().into(), Name::schema()));
        schemas.push((Amount::name().into(), Amount::schema()));
    }
}

impl MovementInputDto {
    /// The booking command on spool `spool_id`. Errors: 422 when not exactly one quantity is
    /// sent ([`one_quantity`]).
    pub fn command(self, spool_id: Id) -> Result<BookMovement, ApiError> {
        let (grams, unit) = one_quantity(
            [
                (self.grams, StockUnit::Gram),
                (self.millilitres, StockUnit::Millilitre),
                (self.pieces, StockUnit::Piece),
            ],
            ledger::quantity_field,
        )?;
        Ok(BookMovement {
            spool_id,
            kind: self.kind.into(),
            grams,
            unit,
            note: self.note.map(Note::into_inner),
            operation_key: self.operation_key.map(|k| k.0),
        })
    }
}

/// Spool list filters.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct SpoolParams {
    /// Only this filament.
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub filament_id: Option<Id>,
    /// Only spools with filament left.
    #[deserr(default, try_from(&String) = query::flag -> Refusal)]
    pub available_only: Option<bool>,
}

impl Params for SpoolParams {}

/// Lists spools (sorted by code).
#[utoipa::path(tag = "spools", params(ListParams, SpoolParams), responses((status = 200, body = ListResponse<SpoolDto>), (status = 401, body = ErrorBody), (status = 409, description = "SPOOL_MANAGEMENT_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[get("/spools")]
pub async fn list_spools(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<(ListParams, SpoolParams)>,
) -> Result<Json<ListResponse<SpoolDto>>, ApiError> {
    let (list, params) = query.0;
    let filter = SpoolFilter {
        filament_id: params.filament_id,
        available_only: params.available_only.unwrap_or(false),
    };
    let query = ListSpools {
        query: list.into(),
        filter,
    };
    let page = state.query(query).await?;
    Ok(Json(ListResponse::of(page, SpoolDto::from)))
}

/// Creates a spool with its opening receipt, atomically.
#[utoipa::path(tag = "spools", request_body = SpoolInputDto, responses((status = 201, body = SpoolDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, description = "DUPLICATE code, or SPOOL_MANAGEMENT_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/spools")]
pub async fn create(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<SpoolInputDto>,
) -> Result<HttpResponse, ApiError> {
    let view = state.send(input.0.command()?).await?;
    Ok(HttpResponse::Created().json(SpoolDto::from(view)))
}

/// A spool and a page of its movements, newest first.
#[utoipa::path(tag = "spools", params(("id" = String, Path, description = "Spool id"), ListParams), responses((status = 200, body = SpoolDetail), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "SPOOL_MANAGEMENT_DISABLED", body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: an invalid page or pageSize", body = ErrorBody)), security(("session" = [])))]
#[get("/spools/{id}")]
pub async fn get_spool(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    query: StrictQuery<ListParams>,
) -> Result<Json<SpoolDetail>, ApiError> {
    let list = ListQuery::from(query.0);
    let (view, movements) = state
        .query(SpoolLedger {
            id: id.0,
            page: list.page,
            page_size: list.page_size,
        })
        .await?;
    let unit = view.unit;
    Ok(Json(SpoolDetail {
        spool: view.into(),
        movements: ListResponse::of(movements, |m| MovementDto::of(m, unit)),
    }))
}

/// Changes a spool's metadata and price (its code, filament and initial weight stay), or with
/// `{"archived": bool}` alone changes only its archive state (as `POST /api/spools/{id}/archive`).
#[utoipa::path(tag = "spools", params(("id" = String, Path, description = "Spool id")), request_body = Patch<SpoolPatch>, responses((status = 200, body = SpoolDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "IMMUTABLE for a fixed field, or SPOOL_MANAGEMENT_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[patch("/spools/{id}")]
pub async fn patch_spool(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    body: StrictJson<Patch<SpoolPatch>>,
) -> Result<Json<SpoolDto>, ApiError> {
    let spool = match body.0 {
        Patch::Archive(a) => {
            let command = ArchiveSpool {
                id: id.0,
                archived: a.archived,
            };
            state.send(command).await?
        }
        Patch::Replace(input) => state.send(input.command(id.0)).await?,
    };
    Ok(Json(spool.into()))
}

/// Archives or restores a spool (an archived spool is not active stock).
#[utoipa::path(tag = "spools", params(("id" = String, Path, description = "Spool id")), request_body = ArchiveInput, responses((status = 200, body = SpoolDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "SPOOL_MANAGEMENT_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/spools/{id}/archive")]
pub async fn archive(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<ArchiveInput>,
) -> Result<Json<SpoolDto>, ApiError> {
    let command = ArchiveSpool {
        id: id.0,
        archived: input.0.archived,
    };
    Ok(Json(state.send(command).await?.into()))
}

/// Books a RECEIPT or CORRECTION. Idempotent by `operationKey`: a retry with the same key and
/// content answers the first movement (201 again) and books nothing.
#[utoipa::path(tag = "spools", params(("id" = String, Path, description = "Spool id")), request_body = MovementInputDto, responses((status = 201, body = MovementDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "OPERATION_KEY_REUSED, or SPOOL_MANAGEMENT_DISABLED", body = ErrorBody), (status = 422, description = "Invalid grams (13 whole or 7 fractional digits, a non-positive receipt, a zero correction, below zero)", body = ErrorBody)), security(("session" = [])))]
#[post("/spools/{id}/movements")]
pub async fn book(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<MovementInputDto>,
) -> Result<HttpResponse, ApiError> {
    let command = input.0.command(id.0)?;
    let unit = command.unit;
    let booked = state.send(command).await?;
    Ok(HttpResponse::Created().json(MovementDto::of(booked, unit)))
}

/// An SVG QR code of the spool's page, `<origin>/spools/{id}`, for its label.
#[utoipa::path(tag = "spools", params(("id" = String, Path, description = "Spool id")), responses((status = 200, description = "SVG image", content_type = "image/svg+xml", body = String), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "SPOOL_MANAGEMENT_DISABLED", body = ErrorBody)), security(("session" = [])))]
#[get("/spools/{id}/qr")]
pub async fn qr(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let spool = state.query(GetSpool(id.0)).await?.spool;
    let svg = qr_svg(&req, spool.id)?;
    Ok(HttpResponse::Ok().content_type("image/svg+xml").body(svg))
}

/// An SVG QR code of `<origin of req>/spools/{id}` (API and UI labels), the origin as
/// [`crate::middleware::request_origin`] finds it.
///
/// Errors: 500 when the text cannot be encoded (it always can: it is a short URL).
pub fn qr_svg(req: &HttpRequest, id: Id) -> Result<String, ApiError> {
    let trusted = req
        .app_data::<Data<AppState>>()
        .map(|state| state.config.trusted_proxies.as_slice())
        .unwrap_or_default();
    let origin = request_origin(req, trusted);
    let url = format!("{origin}/spools/{id}");
    let code = qrcode::QrCode::new(url.as_bytes()).map_err(|_| ApiError::new(Code::Internal))?;
    Ok(code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .build())
}
