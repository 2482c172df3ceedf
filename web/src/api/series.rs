//! `/api/series` and the print histories of a series and of a customer.

use super::ListResponse;
use super::prints::{self, PrintDto, filters};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{ArchiveInput, ListParams, Patch, PathId, StrictJson, StrictQuery};
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{WireId, dec, ts};
use actix_web::web::{Data, Json};
use actix_web::{HttpResponse, get, patch, post};
use actors::inventory::ListQuery;
use actors::prints::query::{PrintFilter, Totals};
use actors::prints::{History as PrintHistory, ListPrints, NextRun, Scope};
use actors::series::{
    ArchiveSeries, CreateSeries, GetSeries, ListSeries, ReplaceSeries, SeriesInput, SetSeriesState,
};
use actors::values::{Name, Note};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records;
use storage::records::SeriesStatus;
use utoipa::ToSchema;

/// Registers the series and history routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(list_series)
        .add(create)
        .add(get_series)
        .add(patch_series)
        .add(set_state)
        .add(archive)
        .add(next_run)
        .add(series_history)
        .add(customer_history);
}

/// OPEN or COMPLETED.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    /// Runs are still being made.
    Open,
    /// Finished.
    Completed,
}

crate::input::deserr_by_name!(State);

/// A print series.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeriesDto {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Customer its prints inherit.
    pub customer_id: Option<String>,
    /// Units wanted in all.
    pub target: Option<u32>,
    /// Free text.
    pub notes: Option<String>,
    /// Completes itself when the units of its DONE prints reach `target`.
    pub auto_complete: bool,
    /// OPEN or COMPLETED.
    pub status: State,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

impl From<records::Series> for SeriesDto {
    fn from(s: records::Series) -> Self {
        SeriesDto {
            id: s.id.to_string(),
            name: s.name,
            customer_id: s.customer_id.map(|c| c.to_string()),
            target: s.target,
            notes: s.notes,
            auto_complete: s.auto_complete,
            status: match s.status {
                SeriesStatus::Open => State::Open,
                SeriesStatus::Completed => State::Completed,
            },
            archived: s.archived,
            created_at: ts(s.created_at),
            updated_at: ts(s.updated_at),
        }
    }
}

/// Series input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SeriesInputDto {
    /// Name.
    #[schema(example = "Club trophies 2026")]
    pub name: Name,
    /// Customer its prints inherit.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub customer_id: Option<WireId>,
    /// Units wanted in all (1 to 1,000,000).
    #[schema(minimum = 1, maximum = 1000000)]
    #[deserr(default)]
    pub target: Option<u32>,
    /// Free text.
    #[deserr(default)]
    pub notes: Option<Note>,
    /// Complete automatically when DONE units reach `target` (default false).
    #[serde(default)]
    #[deserr(default)]
    pub auto_complete: bool,
}

impl From<SeriesInputDto> for SeriesInput {
    fn from(i: SeriesInputDto) -> Self {
        SeriesInput {
            name: i.name,
            customer_id: i.customer_id.map(|c| c.0),
            target: i.target,
            notes: i.notes,
            auto_complete: i.auto_complete,
        }
    }
}

impl From<State> for SeriesStatus {
    fn from(state: State) -> SeriesStatus {
        match state {
            State::Open => SeriesStatus::Open,
            State::Completed => SeriesStatus::Completed,
        }
    }
}

/// `{ "status": "OPEN" | "COMPLETED" }`.
#[derive(Debug, Deserr, ToSchema)]
#[serde(deny_unknown_fields)]
#[deserr(error = Faults, deny_unknown_fields)]
pub struct StateInput {
    /// The new state.
    pub status: State,
}

/// `{ "sourcePrintId": ... }`.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct NextRunInput {
    /// The print the next run copies.
    #[schema(value_type = String, format = Uuid)]
    pub source_print_id: WireId,
}

/// Totals over a whole filtered history.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryTotals {
    /// Prints.
    pub prints: u64,
    /// Units.
    pub units: u64,
    /// Sum of planned totals.
    pub total_cost: String,
    /// Sum of sales values given, failed prints left out (they earned nothing; a retry carries
    /// the order's price).
    pub sales_value: String,
    /// Sum of planned margins of those prints.
    pub planned_margin: String,
}

impl From<Totals> for HistoryTotals {
    fn from(t: Totals) -> Self {
        HistoryTotals {
            prints: t.prints,
            units: t.units,
            total_cost: dec(t.total_cost),
            sales_value: dec(t.sales_value),
            planned_margin: dec(t.planned_margin),
        }
    }
}

/// A history page and the totals over the whole filtered set.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The page's prints.
    pub items: Vec<PrintDto>,
    /// Prints in all pages.
    pub total: u64,
    /// One-based page.
    pub page: u32,
    /// Items per page.
    pub page_size: u32,
    /// Totals over every matching print.
    pub totals: HistoryTotals,
}

/// Lists series.
#[utoipa::path(tag = "series", params(ListParams), responses((status = 200, body = ListResponse<SeriesDto>), (status = 401, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[get("/series")]
pub async fn list_series(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<ListParams>,
) -> Result<Json<ListResponse<SeriesDto>>, ApiError> {
    let page = state.query(ListSeries(query.0.into())).await?;
    Ok(Json(ListResponse::of(page, SeriesDto::from)))
}

/// Creates an OPEN series.
#[utoipa::path(tag = "series", request_body = SeriesInputDto, responses((status = 201, body = SeriesDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/series")]
pub async fn create(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<SeriesInputDto>,
) -> Result<HttpResponse, ApiError> {
    let series = state.send(CreateSeries(input.0.into())).await?;
    Ok(HttpResponse::Created().json(SeriesDto::from(series)))
}

/// One series.
#[utoipa::path(tag = "series", params(("id" = String, Path, description = "Series id")), responses((status = 200, body = SeriesDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody)), security(("session" = [])))]
#[get("/series/{id}")]
pub async fn get_series(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<SeriesDto>, ApiError> {
    Ok(Json(state.query(GetSeries(id.0)).await?.into()))
}

/// Replaces the editable fields of a series, or with `{"archived": bool}` alone changes only its
/// archive state (as `POST /api/series/{id}/archive`).
#[utoipa::path(tag = "series", params(("id" = String, Path, description = "Series id")), request_body = Patch<SeriesInputDto>, responses((status = 200, body = SeriesDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[patch("/series/{id}")]
pub async fn patch_series(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    body: StrictJson<Patch<SeriesInputDto>>,
) -> Result<HttpResponse, ApiError> {
    let series = match body.0 {
        Patch::Archive(a) => {
            let command = ArchiveSeries {
                id: id.0,
                archived: a.archived,
            };
            state.send(command).await?
        }
        Patch::Replace(input) => {
            let command = ReplaceSeries {
                id: id.0,
                input: input.into(),
            };
            state.send(command).await?
        }
    };
    Ok(HttpResponse::Ok().json(SeriesDto::from(series)))
}

/// Sets OPEN or COMPLETED.
#[utoipa::path(tag = "series", params(("id" = String, Path, description = "Series id")), request_body = StateInput, responses((status = 200, body = SeriesDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/series/{id}/state")]
pub async fn set_state(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<StateInput>,
) -> Result<HttpResponse, ApiError> {
    let command = SetSeriesState {
        id: id.0,
        status: input.0.status.into(),
    };
    Ok(HttpResponse::Ok().json(SeriesDto::from(state.send(command).await?)))
}

/// Sets the archive state.
#[utoipa::path(tag = "series", params(("id" = String, Path, description = "Series id")), request_body = ArchiveInput, responses((status = 200, body = SeriesDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/series/{id}/archive")]
pub async fn archive(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<ArchiveInput>,
) -> Result<HttpResponse, ApiError> {
    let command = ArchiveSeries {
        id: id.0,
        archived: input.0.archived,
    };
    Ok(HttpResponse::Ok().json(SeriesDto::from(state.send(command).await?)))
}

/// The next run: a new DRAFT in this series from a source print, at current prices, sales value
/// cleared, repeating the source.
#[utoipa::path(tag = "series", params(("id" = String, Path, description = "Series id")), request_body = NextRunInput, responses((status = 201, body = PrintDto), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[post("/series/{id}/next-run")]
pub async fn next_run(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<NextRunInput>,
) -> Result<HttpResponse, ApiError> {
    let command = NextRun {
        series_id: id.0,
        source_print_id: input.0.source_print_id.0,
    };
    Ok(HttpResponse::Created().json(PrintDto::from(&state.send(command).await?)))
}

/// The prints of `scope` for a list query and filter, with totals over the whole filtered set
/// (API and UI).
///
/// Errors: 404 for the series or customer; 409 `PRINT_SERIES_DISABLED`.
pub async fn history(
    state: &AppState,
    (list, filter): (ListQuery, PrintFilter),
    scope: Scope,
) -> Result<History, ApiError> {
    let page = ListPrints {
        list: list.clone(),
        filter,
        with_totals: true,
    };
    let found = state.query(PrintHistory { scope, page }).await?;
    let page = prints::page_dto(&found, &list);
    Ok(History {
        items: page.items,
        total: page.total,
        page: page.page,
        page_size: page.page_size,
        totals: found.totals.unwrap_or_default().into(),
    })
}

/// The series' prints, filtered and paginated, with totals over the whole filtered set.
#[utoipa::path(tag = "series", params(("id" = String, Path, description = "Series id"), ListParams, filters::PrintParams), responses((status = 200, body = History), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, description = "PRINT_SERIES_DISABLED", body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[get("/series/{id}/history")]
pub async fn series_history(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    query: StrictQuery<(ListParams, filters::PrintParams)>,
) -> Result<Json<History>, ApiError> {
    let query = filters::filter(query.0);
    history(&state, query, Scope::Series(id.0)).await.map(Json)
}

/// The customer's prints, filtered and paginated, with totals over the whole filtered set.
#[utoipa::path(tag = "customers", params(("id" = String, Path, description = "Customer id"), ListParams, filters::PrintParams), responses((status = 200, body = History), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 422, body = ErrorBody)), security(("session" = [])))]
#[get("/customers/{id}/history")]
pub async fn customer_history(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    query: StrictQuery<(ListParams, filters::PrintParams)>,
) -> Result<Json<History>, ApiError> {
    let query = filters::filter(query.0);
    history(&state, query, Scope::Customer(id.0))
        .await
        .map(Json)
}
