//! `GET/POST /api/integrations/spoolmgr`: the spool manager's status and operations, the import
//! preview, and the actions IMPORT, SYNC, UNLINK and OPERATION (docs/api-contract.md,
//! "Integrations"). Remote failures are classified into the contract's codes without the peer's
//! body, URL or credential.

use crate::error::{ApiError, ErrorBody};
use crate::extract::{StrictJson, StrictQuery};
use crate::input::Faults;
use crate::input::Refusal;
use crate::input::query::{self, Params};
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::OkDto;
use crate::wire::{WireId, dec, ts};
use actix_web::web::{Data, Json};
use actix_web::{get, post};
use actors::integrations::import::Conflict;
use actors::integrations::spoolmgr::RemoteSpool;
use actors::runtime::spoolmgr::{ImportRequest, Preview, PreviewItem, Spoolmgr, Status};
use actors::values::Grams;
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records::{Authority, OperationState, RemoteState, SpoolmgrOperation};
use utoipa::{IntoParams, ToSchema};

/// Registers the spool manager's routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_spoolmgr).add(post_spoolmgr);
}

/// Who owns a spool's stock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AuthorityDto {
    /// Our ledger (the default of a spool not linked).
    Native,
    /// The spool manager; outcomes book nothing here (the default of an import).
    ExternalReadOnly,
    /// The spool manager; outcomes send their consumption to it as operations.
    ExternalConsumption,
}

crate::input::deserr_by_name!(AuthorityDto);

impl From<Authority> for AuthorityDto {
    fn from(a: Authority) -> Self {
        match a {
            Authority::Native => AuthorityDto::Native,
            Authority::ExternalReadOnly => AuthorityDto::ExternalReadOnly,
            Authority::ExternalConsumption => AuthorityDto::ExternalConsumption,
        }
    }
}

impl From<AuthorityDto> for Authority {
    fn from(a: AuthorityDto) -> Self {
        match a {
            AuthorityDto::Native => Authority::Native,
            AuthorityDto::ExternalReadOnly => Authority::ExternalReadOnly,
            AuthorityDto::ExternalConsumption => Authority::ExternalConsumption,
        }
    }
}

/// The remote spool's state by the last sync.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RemoteStateDto {
    /// Present and not archived.
    Active,
    /// Archived in the spool manager.
    Archived,
    /// The spool manager answered 404.
    Missing,
}

impl From<RemoteState> for RemoteStateDto {
    fn from(s: RemoteState) -> Self {
        match s {
            RemoteState::Active => RemoteStateDto::Active,
            RemoteState::Archived => RemoteStateDto::Archived,
            RemoteState::Missing => RemoteStateDto::Missing,
        }
    }
}

/// Where an operation stands.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OperationStateDto {
    /// Waiting to be sent.
    Pending,
    /// Claimed by a sender.
    Sending,
    /// Applied by the spool manager.
    Applied,
    /// Sent without an answer: confirm whether it was applied.
    Unknown,
    /// Refused with a 4xx.
    Failed,
}

/// Consumption sent, or to send, to the spool manager.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationDto {
    /// Id.
    pub id: String,
    /// The local spool.
    pub spool_id: String,
    /// The remote spool's id.
    pub remote_id: u64,
    /// Grams used (negative gives filament back).
    pub grams: String,
    /// Where it stands.
    pub state: OperationStateDto,
    /// The last failure: a contract code or `HTTP <status>`.
    pub error: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

impl From<SpoolmgrOperation> for OperationDto {
    fn from(op: SpoolmgrOperation) -> Self {
        OperationDto {
            id: op.id.to_string(),
            spool_id: op.spool_id.to_string(),
            remote_id: op.remote_id,
            grams: dec(op.grams),
            state: match op.state {
                OperationState::Pending => OperationStateDto::Pending,
                OperationState::Sending => OperationStateDto::Sending,
                OperationState::Applied => OperationStateDto::Applied,
                OperationState::Unknown => OperationStateDto::Unknown,
                OperationState::Failed => OperationStateDto::Failed,
            },
            error: op.error,
            created_at: ts(op.created_at),
            updated_at: ts(op.updated_at),
        }
    }
}

/// The spool manager's configuration, version and latest operations.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpoolmgrStatusDto {
    /// A URL is set.
    pub configured: bool,
    /// The spool manager's version, when it answered.
    pub version: Option<String>,
    /// Why it did not: `INTEGRATION_CONFIG`, `INTEGRATION_UNAVAILABLE` or `INTEGRATION_CONTRACT`.
    pub error: Option<String>,
    /// What works with it: `IMPORT`, `SYNC`, `CONSUMPTION` (empty unless it answered).
    pub capabilities: Vec<String>,
    /// The latest 50 operations, newest first.
    pub operations: Vec<OperationDto>,
}

impl From<Status> for SpoolmgrStatusDto {
    fn from(s: Status) -> Self {
        SpoolmgrStatusDto {
            configured: s.configured,
            version: s.version,
            error: s.failure.map(|f| f.code().to_string()),
            capabilities: s.capabilities.into_iter().map(str::to_string).collect(),
            operations: s.operations.into_iter().map(Into::into).collect(),
        }
    }
}

/// A remote vendor.
#[derive(Debug, Serialize, ToSchema)]
pub struct RemoteVendorDto {
    /// Its id in the spool manager.
    pub id: u64,
    /// Name.
    pub name: String,
}

/// A remote filament as a spool shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoteFilamentDto {
    /// Its id in the spool manager.
    pub id: u64,
    /// Name.
    pub name: Option<String>,
    /// Vendor.
    pub vendor: Option<RemoteVendorDto>,
    /// Material.
    pub material: Option<String>,
    /// Catalog price of a spool.
    pub price: Option<String>,
    /// Net grams of a spool.
    pub weight: Option<String>,
    /// `RRGGBB` (absent for multi-colour filaments).
    pub color_hex: Option<String>,
}

/// A remote spool as validated: exactly what `previewHash` fingerprints (its compact JSON).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoteSpoolDto {
    /// Its id in the spool manager.
    pub id: u64,
    /// Its filament.
    pub filament: RemoteFilamentDto,
    /// What it cost.
    pub price: Option<String>,
    /// Grams left.
    pub remaining_weight: Option<String>,
    /// Net grams when bought.
    pub initial_weight: Option<String>,
    /// Grams used.
    pub used_weight: String,
    /// Where it is kept.
    pub location: Option<String>,
    /// Manufacturer's lot.
    pub lot_nr: Option<String>,
    /// Archived in the spool manager.
    pub archived: bool,
}

fn opt(value: Option<rust_decimal::Decimal>) -> Option<String> {
    value.map(dec)
}

impl From<RemoteSpool> for RemoteSpoolDto {
    fn from(s: RemoteSpool) -> Self {
        let f = s.filament;
        RemoteSpoolDto {
            id: s.id,
            filament: RemoteFilamentDto {
                id: f.id,
                name: f.name,
                vendor: f.vendor.map(|v| RemoteVendorDto {
                    id: v.id,
                    name: v.name,
                }),
                material: f.material,
                price: opt(f.price),
                weight: opt(f.weight),
                color_hex: f.color_hex,
            },
            price: opt(s.price),
            remaining_weight: opt(s.remaining_weight),
            initial_weight: opt(s.initial_weight),
            used_weight: dec(s.used_weight),
            location: s.location,
            lot_nr: s.lot_nr,
            archived: s.archived,
        }
    }
}

/// Why a remote spool may not import as it is, or differs from what we hold.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConflictDto {
    /// Archived in the spool manager.
    Archived,
    /// No price on the spool or its filament: it cannot be imported.
    MissingPricing,
    /// No remaining or net weight known: it cannot be imported.
    UnknownBalance,
    /// Linked, and its remaining grams changed since the last sync.
    BalanceChanged,
}

/// One remote spool of the preview.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewItemDto {
    /// The remote spool as validated.
    #[serde(flatten)]
    pub remote: RemoteSpoolDto,
    /// Hex SHA-256 of the remote spool's fields above as compact JSON with keys sorted (without
    /// the fields below): send it with IMPORT.
    pub preview_hash: String,
    /// The local spool its id belongs to.
    pub local_spool_id: Option<String>,
    /// That spool's code.
    pub local_code: Option<String>,
    /// Who owns that spool's stock, while it is linked.
    pub authority: Option<AuthorityDto>,
    /// Its conflicts.
    pub conflicts: Vec<ConflictDto>,
}

impl From<PreviewItem> for PreviewItemDto {
    fn from(item: PreviewItem) -> Self {
        let local = item.local;
        PreviewItemDto {
            remote: item.remote.into(),
            preview_hash: item.preview_hash,
            local_spool_id: local.as_ref().map(|l| l.spool_id.to_string()),
            local_code: local.as_ref().map(|l| l.code.clone()),
            authority: local
                .as_ref()
                .and_then(|l| l.link.as_ref())
                .map(|l| l.authority.into()),
            conflicts: item
                .conflicts
                .into_iter()
                .map(|c| match c {
                    Conflict::Archived => ConflictDto::Archived,
                    Conflict::MissingPricing => ConflictDto::MissingPricing,
                    Conflict::UnknownBalance => ConflictDto::UnknownBalance,
                    Conflict::BalanceChanged => ConflictDto::BalanceChanged,
                })
                .collect(),
        }
    }
}

/// One page of the import preview.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewDto {
    /// The remote spools, archived ones included, 25 a page.
    pub items: Vec<PreviewItemDto>,
    /// One-based page.
    pub page: u32,
    /// More pages follow.
    pub has_more: bool,
}

impl From<Preview> for PreviewDto {
    fn from(p: Preview) -> Self {
        PreviewDto {
            items: p.items.into_iter().map(Into::into).collect(),
            page: p.page,
            has_more: p.has_more,
        }
    }
}

/// The status, or with `view=preview` one page of the import preview.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults)]
#[into_params(parameter_in = Query)]
pub struct SpoolmgrParams {
    /// `preview` for the import preview.
    #[param(value_type = Option<String>, pattern = "^preview$")]
    #[deserr(default, try_from(&String) = preview -> Refusal)]
    pub view: Option<&'static str>,
    /// One-based page of the preview (1 to 10000).
    #[param(minimum = 1, maximum = 10000)]
    #[deserr(default, try_from(&String) = query::number::<1, 10_000> -> Refusal)]
    pub page: Option<u32>,
}

/// `view`: `preview`. Errors: `errors.invalidValue`.
fn preview(text: &str) -> Result<Option<&'static str>, Refusal> {
    query::choice(text, |t| (t == "preview").then_some("preview"))
}

impl Params for SpoolmgrParams {}

/// `GET /api/integrations/spoolmgr`'s answer: the status, or a preview page.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum SpoolmgrView {
    /// Without `view`.
    Status(SpoolmgrStatusDto),
    /// With `view=preview`.
    Preview(PreviewDto),
}

/// The spool manager's configuration, version and latest operations; with `view=preview`, a
/// page of its spools as validated, each with its fingerprint, local spool and conflicts.
#[utoipa::path(
    tag = "integrations",
    params(SpoolmgrParams),
    responses(
        (status = 200, body = SpoolmgrView),
        (status = 401, body = ErrorBody),
        (status = 409, description = "SPOOL_MANAGEMENT_DISABLED; INTEGRATION_DISABLED; INTEGRATION_CONFIG (preview without a URL, or a refused credential)", body = ErrorBody),
        (status = 422, description = "An unknown parameter or view, a page out of range", body = ErrorBody),
        (status = 502, description = "INTEGRATION_UNAVAILABLE, INTEGRATION_CONTRACT (preview)", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/integrations/spoolmgr")]
pub async fn get_spoolmgr(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<SpoolmgrParams>,
) -> Result<Json<SpoolmgrView>, ApiError> {
    let params = query.0;
    Ok(Json(if params.view.is_some() {
        SpoolmgrView::Preview(
            state
                .spoolmgr
                .preview(params.page.unwrap_or(1))
                .await?
                .into(),
        )
    } else {
        SpoolmgrView::Status(state.spoolmgr.status().await?.into())
    }))
}

/// IMPORT's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SpoolImportData {
    /// The remote spool's id.
    pub remote_id: u64,
    /// The fingerprint from the preview.
    pub preview_hash: String,
    /// Who owns its stock (default `EXTERNAL_READ_ONLY`).
    #[deserr(default)]
    pub authority: Option<AuthorityDto>,
    /// Link this local spool (same already-linked filament, not linked) instead of making one.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub local_spool_id: Option<WireId>,
}

/// SYNC's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SyncData {
    /// The linked spool.
    #[schema(value_type = String, format = Uuid)]
    pub spool_id: WireId,
}

/// The ownership an UNLINK gives back.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Ownership {
    /// Our ledger.
    Native,
}

crate::input::deserr_by_name!(Ownership);

/// UNLINK's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct UnlinkData {
    /// The linked spool.
    #[schema(value_type = String, format = Uuid)]
    pub spool_id: WireId,
    /// `NATIVE`.
    pub ownership: Ownership,
    /// Grams on the spool now, as weighed: the native ledger starts there.
    #[schema(example = "412.5")]
    pub opening_balance: Grams,
}

/// What to do with an operation.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OperationAction {
    /// Send a PENDING operation now (an APPLIED one is answered as done).
    Send,
    /// An UNKNOWN or FAILED operation was applied after all.
    ConfirmApplied,
    /// An UNKNOWN or FAILED operation was not applied: send it again.
    ConfirmNotApplied,
}

crate::input::deserr_by_name!(OperationAction);

/// OPERATION's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct OperationData {
    /// The operation.
    #[schema(value_type = String, format = Uuid)]
    pub operation_id: WireId,
    /// What to do.
    pub action: OperationAction,
}

/// A spool-manager action: `{ "action": "<NAME>", "data": { … } }`.
#[derive(Debug, ToSchema)]
#[serde(tag = "action", content = "data", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SpoolmgrAction {
    /// Import (or link) a remote spool.
    Import(SpoolImportData),
    /// Refresh a linked spool from the spool manager.
    Sync(SyncData),
    /// Give a linked spool back to our ledger.
    Unlink(UnlinkData),
    /// Send or confirm an operation.
    Operation(OperationData),
}

crate::input::shape::actions!(SpoolmgrAction {
    "IMPORT" => Import,
    "SYNC" => Sync,
    "UNLINK" => Unlink,
    "OPERATION" => Operation,
});

/// IMPORT's and UNLINK's answer: the local spool.
#[derive(Debug, Serialize, ToSchema)]
pub struct SpoolIdDto {
    /// The local spool's id.
    pub id: String,
}

/// An action's answer: `{id}` for IMPORT and UNLINK, `{ok: true}` for SYNC and OPERATION.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ActionResult {
    /// IMPORT, UNLINK: the local spool.
    Spool(SpoolIdDto),
    /// SYNC, OPERATION.
    Done(OkDto),
}

/// Runs a spool-manager action. IMPORT and UNLINK answer `{id}`, SYNC and OPERATION `{ok: true}`
/// (a failed SYNC is stored on the spool, not answered as an error).
#[utoipa::path(
    tag = "integrations",
    request_body = SpoolmgrAction,
    responses(
        (status = 200, body = ActionResult),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "An unknown spool or operation", body = ErrorBody),
        (status = 409, description = "INTEGRATION_DISABLED, INTEGRATION_CONFIG, INTEGRATION_CONFLICT, SPOOL_MANAGEMENT_DISABLED, MATERIAL_NOT_FILAMENT (IMPORT onto a resin's bottle or a consumable's pack)", body = ErrorBody),
        (status = 422, description = "An unknown action, a missing or invalid field", body = ErrorBody),
        (status = 502, description = "INTEGRATION_UNAVAILABLE, INTEGRATION_CONTRACT (a SEND that got no answer is then UNKNOWN)", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/integrations/spoolmgr")]
pub async fn post_spoolmgr(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<SpoolmgrAction>,
) -> Result<Json<ActionResult>, ApiError> {
    Ok(Json(input.0.run(&state.spoolmgr).await?))
}

impl SpoolmgrAction {
    /// Runs the action through `hub` (the API's and the UI's forms alike).
    ///
    /// Errors: see `POST /api/integrations/spoolmgr`.
    pub async fn run(self, hub: &Spoolmgr) -> Result<ActionResult, ApiError> {
        let id = match self {
            SpoolmgrAction::Import(data) => Some(
                hub.import(ImportRequest {
                    remote_id: data.remote_id,
                    preview_hash: data.preview_hash,
                    authority: data.authority.map(Into::into),
                    local_spool_id: data.local_spool_id.map(|w| w.0),
                })
                .await?,
            ),
            SpoolmgrAction::Sync(data) => hub.sync(data.spool_id.0).await.map(|()| None)?,
            SpoolmgrAction::Unlink(data) => {
                let Ownership::Native = data.ownership;
                Some(
                    hub.unlink(data.spool_id.0, data.opening_balance.into_inner())
                        .await?,
                )
            }
            SpoolmgrAction::Operation(data) => {
                let id = data.operation_id.0;
                match data.action {
                    OperationAction::Send => hub.send(id).await?,
                    OperationAction::ConfirmApplied => hub.confirm(id, true).await?,
                    OperationAction::ConfirmNotApplied => hub.confirm(id, false).await?,
                };
                None
            }
        };
        Ok(match id {
            Some(id) => ActionResult::Spool(SpoolIdDto { id: id.to_string() }),
            None => ActionResult::Done(OkDto::DONE),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actors::integrations::import;
    use actors::integrations::spoolmgr::{RemoteFilament, RemoteVendor};
    use rust_decimal::Decimal;
    use std::str::FromStr;

    #[test]
    fn the_preview_hash_fingerprints_exactly_the_json_shown() {
        let spool = RemoteSpool {
            id: 4,
            filament: RemoteFilament {
                id: 2,
                name: Some("Galaxy Black".into()),
                vendor: Some(RemoteVendor {
                    id: 1,
                    name: "Prusament".into(),
                }),
                material: Some("PLA".into()),
                price: Some(Decimal::from_str("24.99").unwrap()),
                weight: Some(Decimal::from(1000)),
                color_hex: None,
            },
            price: Some(Decimal::from_str("22.50").unwrap()),
            remaining_weight: Some(Decimal::from_str("987.75").unwrap()),
            initial_weight: None,
            used_weight: Decimal::from_str("12.25").unwrap(),
            location: Some("Shelf A".into()),
            lot_nr: None,
            archived: false,
        };
        let shown = serde_json::to_value(RemoteSpoolDto::from(spool.clone())).unwrap();
        assert_eq!(shown, import::projection(&spool));
        assert_eq!(shown["price"], "22.5");
        assert_eq!(import::preview_hash(&spool).len(), 64);
    }
}
