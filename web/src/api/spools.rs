//! `/api/spools`: spools, their ledger movements and QR labels. Every route answers 409
//! `SPOOL_MANAGEMENT_DISABLED` while spool management is off.

use super::ListResponse;
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
    /// Its filament.
    pub filament_id: String,
    /// Its filament's name.
    pub filament: String,
    /// What it cost, instance currency.
    pub purchase_price: String,
    /// Net grams when bought.
    pub initial_net_weight_grams: String,
    /// Manufacturer's lot.
    pub purchase_lot: Option<String>,
    /// Where it is kept.
    pub location: Option<String>,
    /// Purchase date, YYYY-MM-DD.
    pub acquired_at: Option<String>,
    /// Exact grams left by the owner of its stock: the sum of its movements, or the spool
    /// manager's remaining grams while it owns the stock (none known: 0).
    pub remaining_grams: String,
    /// `purchasePrice / initialNetWeightGrams`, currency per gram.
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
            unit_cost: dec(ledger::unit_cost(&s)),
            purchase_price: dec(s.purchase_price),
            initial_net_weight_grams: dec(s.initial_net_weight_grams),
            purchase_lot: s.purchase_lot,
            location: s.location,
            acquired_at: s.acquired_at,
            remaining_grams: remaining,
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
    /// Signed grams.
    pub grams: String,
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

impl From<Movement> for MovementDto {
    fn from(m: Movement) -> Self {
        MovementDto {
            id: m.id.to_string(),
            spool_id: m.spool_id.to_string(),
            kind: m.kind.into(),
            grams: dec(m.grams),
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

/// New spool input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SpoolInputDto {
    /// Unique label code; omit to get the next `SP-000001`-style code.
    #[schema(example = "PLA-BLK-01")]
    #[deserr(default)]
    pub code: Option<Name>,
    /// Its filament.
    #[schema(value_type = String, format = Uuid)]
    pub filament_id: WireId,
    /// What it cost.
    #[schema(example = "24.99")]
    pub purchase_price: Amount,
    /// Net grams when bought; booked as the opening receipt.
    #[schema(example = "1000")]
    pub initial_net_weight_grams: PositiveGrams,
    /// Manufacturer's lot.
    #[deserr(default)]
    pub purchase_lot: Option<Note>,
    /// Where it is kept.
    #[deserr(default)]
    pub location: Option<Note>,
    /// Purchase date, YYYY-MM-DD.
    #[schema(format = Date, example = "2026-11-01")]
    #[deserr(default)]
    pub acquired_at: Option<PurchaseDate>,
}

impl From<SpoolInputDto> for OpenSpool {
    fn from(i: SpoolInputDto) -> OpenSpool {
        OpenSpool(SpoolInput {
            code: i.code.map(Name::into_inner),
            filament_id: i.filament_id.0,
            purchase_price: i.purchase_price.into_inner(),
            initial_net_weight_grams: i.initial_net_weight_grams.into_inner(),
            purchase_lot: i.purchase_lot,
            location: i.location,
            acquired_at: i.acquired_at.and_then(PurchaseDate::into_inner),
        })
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
    /// Fixed: must equal the spool's initial weight if sent.
    #[deserr(default)]
    pub initial_net_weight_grams: Option<PositiveGrams>,
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
                initial_net_weight_grams: self
                    .initial_net_weight_grams
                    .map(PositiveGrams::into_inner),
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

/// Movement input. Its OpenAPI schema is one object per kind (below), so a client sends only
/// grams the ledger books.
#[derive(Debug, Deserr)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct MovementInputDto {
    /// RECEIPT (positive grams) or CORRECTION (signed, nonzero); PRINT is refused (outcomes book
    /// it).
    pub kind: MovementKindDto,
    /// Grams: at most 12 whole and 6 fractional digits.
    pub grams: SignedGrams,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// A UUID: retrying with the same key and content books nothing new and answers the first
    /// movement; the same key with other content is 409 OPERATION_KEY_REUSED.
    #[deserr(default)]
    pub operation_key: Option<WireId>,
}

impl utoipa::PartialSchema for MovementInputDto {
    /// `oneOf` a RECEIPT (positive grams) and a CORRECTION (nonzero grams), each with `note` and
    /// `operationKey`. That a correction may not take the spool below zero depends on its balance
    /// and is left to the answer (422 `errors.belowZero`).
    fn schema() -> RefOr<Schema> {
        let positive = Ref::from_schema_name(PositiveGrams::name());
        let nonzero =
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(values::decimal_pattern(
                    values::GRAMS_WHOLE,
                    values::GRAMS_FRACTION,
                    Sign::NonZero,
                )));
        OneOfBuilder::new()
            .description(Some("Movement input: a RECEIPT or a CORRECTION."))
            .item(movement_kind(
                "RECEIPT",
                positive.into(),
                "Grams received: positive.",
            ))
            .item(movement_kind(
                "CORRECTION",
                nonzero.into(),
                "Grams added, negative for grams taken: nonzero.",
            ))
            .into()
    }
}

impl ToSchema for MovementInputDto {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((PositiveGrams::name().into(), PositiveGrams::schema()));
        schemas.push((Note::name().into(), Note::schema()));
    }
}

/// The object of one movement kind, described by `text`: `kind`, `grams` as `grams`, `note`,
/// `operationKey`.
fn movement_kind(kind: &str, grams: RefOr<Schema>, text: &str) -> Object {
    let note = OneOfBuilder::new()
        .item(Ref::from_schema_name(Note::name()))
        .item(ObjectBuilder::new().schema_type(Type::Null));
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
        .property("grams", grams)
        .required("grams")
        .property("note", note)
        .property("operationKey", key)
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .description(Some(text))
        .build()
}

impl MovementInputDto {
    /// The booking command on spool `spool_id`.
    pub fn command(self, spool_id: Id) -> BookMovement {
        BookMovement {
            spool_id,
            kind: self.kind.into(),
            grams: self.grams,
            note: self.note.map(Note::into_inner),
            operation_key: self.operation_key.map(|k| k.0),
        }
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
    let view = state.send(OpenSpool::from(input.0)).await?;
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
    Ok(Json(SpoolDetail {
        spool: view.into(),
        movements: ListResponse::of(movements, MovementDto::from),
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
    let booked = state.send(input.0.command(id.0)).await?;
    Ok(HttpResponse::Created().json(MovementDto::from(booked)))
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
