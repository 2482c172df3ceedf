//! `/api/prints`: calculate, list, create, get, PATCH (draft data, status, paid, archived),
//! complete, duplicate, repeat, CSV export and report data.

mod dto;
mod export;
pub mod filters;
mod input;
pub mod outcome_dto;

pub use dto::{Financials, PrintDto, Status, category_name};
pub use input::PrintInputDto;

use super::ListResponse;
use crate::error::{ApiError, Code, ErrorBody};
use crate::extract::{ArchiveInput, ListParams, PathId, StrictJson, parse_json};
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::web::{Bytes, Data, Json};
use actix_web::{FromRequest, HttpRequest, HttpResponse, get, patch, post};
use actors::inventory::ListQuery;
use actors::prints::query::{PrintFilter, Totals};
use actors::prints::{self, CopyKind};
use futures_util::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use storage::records::Print;
use storage::{Id, Timestamp, WriteTransaction};
use utoipa::ToSchema;

/// Registers the print routes (export before `{id}`).
pub fn configure(cfg: &mut impl crate::routes::Routes) {
    cfg.add(calculate)
        .add(export::export)
        .add(list_prints)
        .add(create)
        .add(report)
        .add(get_print)
        .add(patch_print)
        .add(complete)
        .add(duplicate)
        .add(repeat)
        .add(record_outcome)
        .add(correct_outcome)
        .add(retry);
}

/// Runs a print command on the prints writer and records the result in the list projection
/// (API and UI).
///
/// Errors: the command's, as API errors.
pub async fn run<F>(state: &AppState, command: F) -> Result<Print, ApiError>
where
    F: FnMut(&WriteTransaction) -> actors::Result<Print> + Send + 'static,
{
    let print = state.prints.run(command).await?;
    state.index.upsert(&print);
    Ok(print)
}

/// Runs a print command, records the result in the projection, and answers with its DTO.
pub async fn write<F>(
    state: &AppState,
    status: actix_web::http::StatusCode,
    command: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnMut(&WriteTransaction) -> actors::Result<Print> + Send + 'static,
{
    let print = run(state, command).await?;
    Ok(HttpResponse::build(status).json(PrintDto::from(&print)))
}

/// Creates a DRAFT from `draft`, priced at current prices (API and UI).
///
/// Errors: 422 with field errors (at the draft's JSON paths); storage errors.
pub async fn create_draft(state: &AppState, draft: PrintInputDto) -> Result<Print, ApiError> {
    let input = draft.into_input(false)?;
    run(state, move |txn| {
        prints::create(txn, &input, Timestamp::now())
    })
    .await
}

/// Replaces the draft data of print `id` (a multipart print needs `parts`) (API and UI).
///
/// Errors: 404; 409 `IMMUTABLE` once finalized; 422 with field errors.
pub async fn replace_draft(
    state: &AppState,
    id: Id,
    draft: PrintInputDto,
) -> Result<Print, ApiError> {
    let current = state.read(move |tx| prints::get(tx, id)).await?;
    let input = draft.into_input(current.parts.len() > 1)?;
    run(state, move |txn| {
        prints::replace(txn, id, &input, Timestamp::now())
    })
    .await
}

/// Creates the DRAFT retrying FAILED print `id` and updates both in the projection (API and UI).
///
/// Errors: 404; 409 `INVALID_STATE` when it did not fail or is archived.
pub async fn retry_print(state: &AppState, id: Id) -> Result<Print, ApiError> {
    let (draft, source) = state
        .prints
        .run(move |txn| actors::prints::outcome::retry(txn, id, Timestamp::now()))
        .await?;
    state.index.upsert(&source);
    state.index.upsert(&draft);
    Ok(draft)
}

/// A filtered page of prints, newest first; with `with_totals`, also the totals over the whole
/// filtered set. The projection scan and the reads run off the async executor.
pub async fn page(
    state: &AppState,
    list: &ListQuery,
    filter: PrintFilter,
    with_totals: bool,
) -> Result<(ListResponse<PrintDto>, Option<Totals>), ApiError> {
    let skip = (list.page.saturating_sub(1) as usize).saturating_mul(list.page_size as usize);
    let take = list.page_size as usize;
    let index = state.index.clone();
    let (prints, total, totals) = state
        .read(move |tx| {
            let (ids, total) = index.page(&filter, skip, take);
            let totals = with_totals.then(|| index.totals(&filter));
            let prints = ids
                .iter()
                .map(|id| prints::get(tx, *id))
                .collect::<actors::Result<Vec<_>>>()?;
            Ok((prints, total, totals))
        })
        .await?;
    let page = ListResponse {
        items: prints.iter().map(PrintDto::from).collect(),
        total: total as u64,
        page: list.page,
        page_size: list.page_size,
    };
    Ok((page, totals))
}

/// Prices a draft at current prices; nothing is stored.
#[utoipa::path(
    tag = "prints",
    request_body = PrintInputDto,
    responses((status = 200, description = "The priced preview", body = PrintDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 422, body = ErrorBody)),
    security(("session" = []))
)]
#[post("/prints/calculate")]
pub async fn calculate(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<PrintInputDto>,
) -> Result<Json<PrintDto>, ApiError> {
    let input = input.0.into_input(false)?;
    let print = state.read(move |tx| prints::calculate(tx, &input)).await?;
    Ok(Json(PrintDto::from(&print)))
}

/// Lists prints, newest first: every filter applies before pagination and `total`; a print counts
/// once whatever its parts.
#[utoipa::path(
    tag = "prints",
    params(ListParams, filters::PrintParams),
    responses((status = 200, body = ListResponse<PrintDto>), (status = 401, body = ErrorBody), (status = 422, description = "Invalid filter or where group", body = ErrorBody)),
    security(("session" = []))
)]
#[get("/prints")]
pub async fn list_prints(
    state: Data<AppState>,
    _user: CurrentUser,
    req: HttpRequest,
) -> Result<Json<ListResponse<PrintDto>>, ApiError> {
    let (list, filter) = filters::parse(&req)?;
    Ok(Json(page(&state, &list, filter, false).await?.0))
}

/// Creates a DRAFT print priced at current prices.
#[utoipa::path(
    tag = "prints",
    request_body = PrintInputDto,
    responses((status = 201, body = PrintDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 422, description = "Invalid draft, e.g. 0 or 101 parts", body = ErrorBody)),
    security(("session" = []))
)]
#[post("/prints")]
pub async fn create(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<PrintInputDto>,
) -> Result<HttpResponse, ApiError> {
    let print = create_draft(&state, input.0).await?;
    Ok(HttpResponse::Created().json(PrintDto::from(&print)))
}

/// One print with its parts, costs, outcome and links.
#[utoipa::path(
    tag = "prints",
    params(("id" = String, Path, description = "Print id")),
    responses((status = 200, body = PrintDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("session" = []))
)]
#[get("/prints/{id}")]
pub async fn get_print(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<PrintDto>, ApiError> {
    let id = id.0;
    let print = state.read(move |tx| prints::get(tx, id)).await?;
    Ok(Json(PrintDto::from(&print)))
}

/// `{ "status": ... }`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusInput {
    /// The new status; never back to DRAFT once left.
    pub status: Status,
}

/// `{ "paid": ... }`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PaidInput {
    /// Paid flag; `paidAt` is set by the server.
    pub paid: bool,
}

/// A print PATCH: the draft data (a full replace; a multipart print needs `parts`), or exactly one
/// of `{status}`, `{paid}`, `{archived}`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum PrintPatch {
    /// Status move.
    Status(StatusInput),
    /// Paid flag.
    Paid(PaidInput),
    /// Archive state.
    Archive(ArchiveInput),
    /// Draft data.
    Draft(Box<PrintInputDto>),
}

impl FromRequest for PrintPatch {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let bytes = Bytes::from_request(req, payload);
        Box::pin(async move {
            let bytes = bytes.await.map_err(|e| {
                ApiError::field("", "errors.unreadableBody").with_message(e.to_string())
            })?;
            let value: serde_json::Value = parse_json(&bytes)?;
            let single = value
                .as_object()
                .filter(|o| o.len() == 1)
                .and_then(|o| o.keys().next().cloned());
            match single.as_deref() {
                Some("status") => parse_json(&bytes).map(PrintPatch::Status),
                Some("paid") => parse_json(&bytes).map(PrintPatch::Paid),
                Some("archived") => parse_json(&bytes).map(PrintPatch::Archive),
                _ => parse_json(&bytes).map(|d| PrintPatch::Draft(Box::new(d))),
            }
        })
    }
}

/// Edits a draft, moves the status (leaving DRAFT freezes the cost snapshot), or sets paid or
/// archived.
#[utoipa::path(
    tag = "prints",
    params(("id" = String, Path, description = "Print id")),
    request_body = PrintPatch,
    responses(
        (status = 200, body = PrintDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "IMMUTABLE: edit of a finalized print, or back to DRAFT", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/prints/{id}")]
pub async fn patch_print(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    body: PrintPatch,
) -> Result<HttpResponse, ApiError> {
    let id = id.0;
    let ok = actix_web::http::StatusCode::OK;
    match body {
        PrintPatch::Status(s) => {
            write(&state, ok, move |txn| {
                prints::set_status(txn, id, s.status.into(), Timestamp::now())
            })
            .await
        }
        PrintPatch::Paid(p) => {
            write(&state, ok, move |txn| {
                prints::set_paid(txn, id, p.paid, Timestamp::now())
            })
            .await
        }
        PrintPatch::Archive(a) => {
            write(&state, ok, move |txn| {
                prints::set_archived(txn, id, a.archived, Timestamp::now())
            })
            .await
        }
        PrintPatch::Draft(draft) => {
            let print = replace_draft(&state, id, *draft).await?;
            Ok(HttpResponse::Ok().json(PrintDto::from(&print)))
        }
    }
}

macro_rules! action {
    ($name:ident, $path:literal, $status:ident, $doc:literal, $run:expr) => {
        #[doc = $doc]
        #[utoipa::path(
            tag = "prints",
            params(("id" = String, Path, description = "Print id")),
            responses(
                (status = $status, body = PrintDto),
                (status = 401, body = ErrorBody),
                (status = 403, body = ErrorBody),
                (status = 404, body = ErrorBody),
                (status = 422, description = "Its inventory can no longer be priced", body = ErrorBody),
            ),
            security(("session" = []))
        )]
        #[post($path)]
        pub async fn $name(state: Data<AppState>, _user: CurrentUser, id: PathId) -> Result<HttpResponse, ApiError> {
            let id = id.0;
            let run: fn(&WriteTransaction, Id) -> actors::Result<Print> = $run;
            write(&state, actix_web::http::StatusCode::$status, move |txn| run(txn, id)).await
        }
    };
}

action!(
    complete,
    "/prints/{id}/complete",
    OK,
    "Moves the print to DONE (a draft's snapshot freezes).",
    |txn, id| prints::complete(txn, id, Timestamp::now())
);
action!(
    duplicate,
    "/prints/{id}/duplicate",
    CREATED,
    "A new DRAFT copy at current prices; sales value kept; no relation.",
    |txn, id| prints::copy(txn, id, CopyKind::Duplicate, None, Timestamp::now())
);
action!(
    repeat,
    "/prints/{id}/repeat",
    CREATED,
    "A new DRAFT at current prices that repeats this print; sales value cleared.",
    |txn, id| prints::copy(txn, id, CopyKind::Repeat, None, Timestamp::now())
);

/// Report data of a DONE print (archived included).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The print.
    pub print: PrintDto,
    /// Its customer's name.
    pub customer: Option<String>,
    /// Its series' name.
    pub series: Option<String>,
    /// Instance currency.
    pub currency: String,
    /// Instance default language, for the report's texts.
    pub language: String,
    /// When this report was made.
    pub generated_at: String,
}

/// The persisted report data of a DONE print (archived included); `Cache-Control: no-store`.
#[utoipa::path(
    tag = "prints",
    params(("id" = String, Path, description = "Print id")),
    responses(
        (status = 200, body = Report),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "REPORT_NOT_ALLOWED: the print is not DONE", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/prints/{id}/report")]
pub async fn report(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    let body = report_of(&state, id.0).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(body))
}

/// The report data of DONE print `id`, made now (API and UI).
///
/// Errors: 404; 409 `REPORT_NOT_ALLOWED` when the print is not DONE.
pub async fn report_of(state: &AppState, id: Id) -> Result<Report, ApiError> {
    let (print, customer, series, settings) = state
        .read(move |tx| {
            let print = prints::get(tx, id)?;
            let customer = print
                .customer_id
                .map(|c| actors::inventory::get::<storage::records::Customer>(tx, c))
                .transpose()?;
            let series = print
                .series_id
                .map(|s| actors::series::get(tx, s))
                .transpose()?;
            Ok((print, customer, series, actors::settings::get(tx)?))
        })
        .await?;
    if print.status != storage::records::PrintStatus::Done {
        return Err(ApiError::new(Code::ReportNotAllowed));
    }
    Ok(Report {
        print: PrintDto::from(&print),
        customer: customer.map(|c| c.name),
        series: series.map(|s| s.name),
        currency: settings.currency,
        language: settings.default_language,
        generated_at: crate::wire::ts(Timestamp::now()),
    })
}

/// Records the outcome of a non-archived DONE print and books its filament consumption on the
/// spools, in one transaction. An identical repeat answers the same; a different one is 409.
#[utoipa::path(
    tag = "prints",
    params(("id" = String, Path, description = "Print id")),
    request_body = outcome_dto::OutcomeInputDto,
    responses(
        (status = 200, body = PrintDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "INVALID_STATE (not DONE, or archived), OUTCOME_CONFLICT", body = ErrorBody),
        (status = 422, description = "Unknown, missing or duplicate usage or part ids; FAILED without failureReason", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/prints/{id}/outcome")]
pub async fn record_outcome(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<outcome_dto::OutcomeInputDto>,
) -> Result<HttpResponse, ApiError> {
    let (id, input) = (id.0, actors::prints::outcome::OutcomeInput::from(input.0));
    write(&state, actix_web::http::StatusCode::OK, move |txn| {
        actors::prints::outcome::record(txn, id, &input, Timestamp::now())
    })
    .await
}

/// Corrects the outcome: appends an immutable revision and books only the consumption deltas.
#[utoipa::path(
    tag = "prints",
    params(("id" = String, Path, description = "Print id")),
    request_body = outcome_dto::CorrectionInputDto,
    responses(
        (status = 200, body = PrintDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "INVALID_STATE (no outcome), STALE_REVISION, OPERATION_KEY_REUSED", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/prints/{id}/outcome/correct")]
pub async fn correct_outcome(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<outcome_dto::CorrectionInputDto>,
) -> Result<HttpResponse, ApiError> {
    let (id, input) = (id.0, input.0.into_input()?);
    write(&state, actix_web::http::StatusCode::OK, move |txn| {
        actors::prints::outcome::correct(txn, id, &input, Timestamp::now())
    })
    .await
}

/// A new DRAFT retrying a non-archived FAILED print: current prices, quantity and customer kept,
/// sales value cleared, linked both ways (`retriedFromId`, `retryIds`).
#[utoipa::path(
    tag = "prints",
    params(("id" = String, Path, description = "Print id")),
    responses(
        (status = 201, body = PrintDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "INVALID_STATE: the print did not fail, or is archived", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/prints/{id}/retry")]
pub async fn retry(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    let retry = retry_print(&state, id.0).await?;
    Ok(HttpResponse::Created().json(PrintDto::from(&retry)))
}
