//! `/api/prints`: calculate, list, create, get, PATCH (draft data, status, paid, archived),
//! complete, duplicate, repeat, CSV export and report data.

mod dto;
pub mod export;
pub mod filters;
pub mod input;
pub mod outcome_dto;
mod part_schema;
pub mod sliced;

pub use dto::{Financials, PrintDto, Status, category_name};
pub use input::PrintInputDto;

use super::ListResponse;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{ArchiveInput, ListParams, PathId, StrictJson, StrictQuery};
use crate::input::Faults;
use crate::input::shape::{self, Shape};
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire;
use actix_web::web::{Data, Json};
use actix_web::{HttpResponse, get, patch, post};
use actors::inventory::ListQuery;
use actors::maintenance::tasks::Override;
use actors::prints::{
    self, ArchivePrint, Calculate, Complete, CopyKind, CopyPrint, CorrectOutcome, ListPrints,
    PrintDetail, PrintPage, RecordOutcome, ReplaceDraft, ReportData, Retry, SetPaid, SetStatus,
};
use actors::values::Name;
use deserr::Deserr;
use deserr::{IntoValue, ValuePointerRef};
use serde::Serialize;
use storage::{Id, Timestamp};
use utoipa::ToSchema;

/// Registers the print routes (export before `{id}`).
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(calculate)
        .add(export::export)
        .add(list_prints)
        .add(create)
        .add(sliced::preview)
        .add(report)
        .add(get_print)
        .add(patch_print)
        .add(complete)
        .add(move_status)
        .add(duplicate)
        .add(repeat)
        .add(record_outcome)
        .add(correct_outcome)
        .add(retry);
}

/// A filtered page of prints as DTOs, newest first (API and UI lists).
pub fn page_dto(page: &PrintPage, list: &ListQuery) -> ListResponse<PrintDto> {
    ListResponse {
        items: page.prints.iter().map(PrintDto::from).collect(),
        total: page.total as u64,
        page: list.page,
        page_size: list.page_size,
    }
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
    let print = state.query(Calculate(input.0.into_input()?)).await?;
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
    query: StrictQuery<(ListParams, filters::PrintParams)>,
) -> Result<Json<ListResponse<PrintDto>>, ApiError> {
    let (list, filter) = filters::filter(query.0);
    let query = ListPrints {
        list: list.clone(),
        filter,
        with_totals: false,
    };
    Ok(Json(page_dto(&state.query(query).await?, &list)))
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
    let print = state.send(input.0.create()?).await?;
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
    let detail = state.query(PrintDetail(id.0)).await?;
    Ok(Json(
        PrintDto::from(&detail.print).with_source(detail.source),
    ))
}

/// `{ "status": ... }`.
#[derive(Debug, Deserr, ToSchema)]
#[serde(deny_unknown_fields)]
#[deserr(error = Faults, deny_unknown_fields)]
pub struct StatusInput {
    /// The new status; never back to DRAFT once left.
    pub status: Status,
}

/// `{ "paid": ... }`.
#[derive(Debug, Deserr, ToSchema)]
#[serde(deny_unknown_fields)]
#[deserr(error = Faults, deny_unknown_fields)]
pub struct PaidInput {
    /// Paid flag; `paidAt` is set by the server.
    pub paid: bool,
}

impl StatusInput {
    /// The status move of print `id`.
    pub fn command(self, id: Id) -> SetStatus {
        SetStatus {
            id,
            status: self.status.into(),
            maintenance_override: None,
        }
    }
}

/// `{ "status": ..., "maintenanceOverride": ... }`: a status move that may pass overdue
/// blocking maintenance with a reason.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct StatusMove {
    /// The new status; never back to DRAFT once left.
    pub status: Status,
    /// Why the print goes to PRINTING (or past it from DRAFT) although a blocking maintenance
    /// task of its printer or components is overdue (1–200 characters; recorded on the task). Without it such a move
    /// is refused with 409 `MAINTENANCE_OVERDUE`.
    #[deserr(default)]
    pub maintenance_override: Option<Name>,
}

/// Moves the print to a status, as `PATCH {status}` does, and may pass overdue blocking
/// maintenance with a reason (`maintenanceOverride`), which is recorded on each such task.
#[utoipa::path(
    tag = "prints",
    params(("id" = String, Path, description = "Print id")),
    request_body = StatusMove,
    responses(
        (status = 200, body = PrintDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "IMMUTABLE back to DRAFT; INVALID_STATE away from DONE with an outcome; MAINTENANCE_OVERDUE to PRINTING, or past it from DRAFT, while a blocking task is overdue (the message names it) and no override is given", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/prints/{id}/status")]
pub async fn move_status(
    state: Data<AppState>,
    user: CurrentUser,
    id: PathId,
    body: StrictJson<StatusMove>,
) -> Result<Json<PrintDto>, ApiError> {
    let command = SetStatus {
        id: id.0,
        status: body.0.status.into(),
        maintenance_override: body.0.maintenance_override.map(|reason| Override {
            by: user.account.id,
            reason: reason.into_inner(),
        }),
    };
    let print = state.send(command).await?;
    Ok(Json(PrintDto::from(&print)))
}

impl PaidInput {
    /// The paid flag of print `id`.
    pub fn command(self, id: Id) -> SetPaid {
        SetPaid {
            id,
            paid: self.paid,
        }
    }
}

impl PrintInputDto {
    /// The draft replacement of print `id`.
    ///
    /// Errors: 422 with field errors.
    pub fn command(self, id: Id) -> Result<ReplaceDraft, ApiError> {
        Ok(ReplaceDraft {
            id,
            input: self.into_input()?,
        })
    }
}

/// A print PATCH: the draft data (a full replace; a multipart print needs `parts`), or exactly one
/// of `{status}`, `{paid}`, `{archived}`.
#[derive(Debug, ToSchema)]
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

impl Deserr<Faults> for PrintPatch {
    fn deserialize_from_value<V: IntoValue>(
        value: deserr::Value<V>,
        location: ValuePointerRef,
    ) -> Result<Self, Faults> {
        match shape::one_field(value, &["status", "paid", "archived"]) {
            Shape::One(name, value) => {
                let (at, value) = (location.push_key(name), value.into_value());
                match name {
                    "status" => Status::deserialize_from_value(value, at)
                        .map(|status| PrintPatch::Status(StatusInput { status })),
                    "paid" => bool::deserialize_from_value(value, at)
                        .map(|paid| PrintPatch::Paid(PaidInput { paid })),
                    _ => bool::deserialize_from_value(value, at)
                        .map(|archived| PrintPatch::Archive(ArchiveInput { archived })),
                }
            }
            Shape::Whole(body) => PrintInputDto::deserialize_from_value(body, location)
                .map(|draft| PrintPatch::Draft(Box::new(draft))),
        }
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
        (status = 409, description = "IMMUTABLE: edit of a finalized print, or back to DRAFT; MAINTENANCE_OVERDUE: to PRINTING, or past it from DRAFT, while a blocking maintenance task is overdue (pass it with `POST /api/prints/{id}/status`)", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/prints/{id}")]
pub async fn patch_print(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    body: StrictJson<PrintPatch>,
) -> Result<HttpResponse, ApiError> {
    let print = match body.0 {
        PrintPatch::Status(s) => state.send(s.command(id.0)).await?,
        PrintPatch::Paid(p) => state.send(p.command(id.0)).await?,
        PrintPatch::Archive(a) => {
            let command = ArchivePrint {
                id: id.0,
                archived: a.archived,
            };
            state.send(command).await?
        }
        PrintPatch::Draft(draft) => state.send(draft.command(id.0)?).await?,
    };
    Ok(HttpResponse::Ok().json(PrintDto::from(&print)))
}

macro_rules! action {
    ($name:ident, $path:literal, $status:ident, $doc:literal, $command:expr) => {
        #[doc = $doc]
        #[utoipa::path(
            tag = "prints",
            params(("id" = String, Path, description = "Print id")),
            responses(
                (status = $status, body = PrintDto),
                (status = 401, body = ErrorBody),
                (status = 403, body = ErrorBody),
                (status = 404, body = ErrorBody),
                (status = 409, description = "The print's state refuses it: INVALID_STATE (a retry of a print that did not fail, a complete away from an outcome's DONE), MAINTENANCE_OVERDUE (a complete of a DRAFT held by an overdue blocking task: it carries no override, the status move does)", body = ErrorBody),
                (status = 422, description = "Its inventory can no longer be priced", body = ErrorBody),
            ),
            security(("session" = []))
        )]
        #[post($path)]
        pub async fn $name(state: Data<AppState>, _user: CurrentUser, id: PathId) -> Result<HttpResponse, ApiError> {
            let command: fn(Id) -> _ = $command;
            let print = state.send(command(id.0)).await?;
                    Ok(HttpResponse::build(actix_web::http::StatusCode::$status).json(PrintDto::from(&print)))
        }
    };
}

action!(
    complete,
    "/prints/{id}/complete",
    OK,
    "Moves the print to DONE (a draft's snapshot freezes).",
    |id| Complete { id }
);
action!(
    duplicate,
    "/prints/{id}/duplicate",
    CREATED,
    "A new DRAFT copy at current prices; sales value kept; no relation.",
    |id| CopyPrint {
        id,
        kind: CopyKind::Duplicate
    }
);
action!(
    repeat,
    "/prints/{id}/repeat",
    CREATED,
    "A new DRAFT at current prices that repeats this print; sales value cleared.",
    |id| CopyPrint {
        id,
        kind: CopyKind::Repeat
    }
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
    /// The number of the invoice that bills it, once issued (null before, or while a draft).
    pub invoice_number: Option<String>,
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
    let report = Report::from(state.query(prints::Report(id.0)).await?);
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(report))
}

impl From<ReportData> for Report {
    fn from(data: ReportData) -> Report {
        Report {
            print: PrintDto::from(&data.detail.print),
            customer: data.detail.customer.map(|c| c.name),
            series: data.detail.series.map(|s| s.name),
            invoice_number: data.detail.invoice.and_then(|i| i.issued).map(|i| i.number),
            currency: data.settings.currency,
            language: data.settings.default_language,
            generated_at: wire::ts(Timestamp::now()),
        }
    }
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
    let command = RecordOutcome {
        id: id.0,
        input: input.0.into(),
    };
    Ok(HttpResponse::Ok().json(PrintDto::from(&state.send(command).await?)))
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
    let command = CorrectOutcome {
        id: id.0,
        input: input.0.into_input()?,
    };
    Ok(HttpResponse::Ok().json(PrintDto::from(&state.send(command).await?)))
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
    let retry = state.send(Retry { id: id.0 }).await?;
    Ok(HttpResponse::Created().json(PrintDto::from(&retry)))
}
