//! `GET /metrics`: the Prometheus text format for a scraper holding the token set in
//! `PUT /api/settings/metrics` (`Authorization: Bearer <token>`); the token's settings.

use crate::error::{ApiError, Code, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::http::header::AUTHORIZATION;
use actix_web::web::{Data, Json};
use actix_web::{HttpRequest, HttpResponse, get, put};
use actors::metrics::metrics;
use actors::scrape::{IsMetricsToken, MetricsTokenSet, ReadLevels, SetMetricsToken};
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// Registers the metrics token's settings (the scrape itself lies outside `/api`).
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_token).add(put_token);
}

/// Whether scraping is possible.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsSettings {
    /// A token is set (it is never returned).
    pub token_set: bool,
}

/// A new token, or null to remove it (every scrape is then refused).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct MetricsTokenPut {
    /// 16–200 printable ASCII characters without spaces, or null; write-only.
    #[schema(
        example = "a-long-random-scrape-token",
        required = true,
        min_length = 16,
        max_length = 200,
        pattern = "^[!-~]{16,200}$"
    )]
    pub token: Option<String>,
}

/// The metrics token's state.
#[utoipa::path(tag = "settings", responses((status = 200, body = MetricsSettings), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings/metrics")]
pub async fn get_token(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<MetricsSettings>, ApiError> {
    let token_set = state.query(MetricsTokenSet).await?;
    Ok(Json(MetricsSettings { token_set }))
}

/// Sets or removes the token `GET /metrics` asks for.
#[utoipa::path(
    tag = "settings",
    request_body = MetricsTokenPut,
    responses(
        (status = 200, body = MetricsSettings),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED at `token`: `errors.tooShort`, `errors.tooLong`, `errors.invalidValue`", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[put("/settings/metrics")]
pub async fn put_token(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<MetricsTokenPut>,
) -> Result<Json<MetricsSettings>, ApiError> {
    let token_set = state.send(SetMetricsToken(input.0.token)).await?;
    Ok(Json(MetricsSettings { token_set }))
}

/// Every metric in the Prometheus text format (0.0.4): HTTP requests by route and status with
/// latency histograms, writer queue depth and commit latency, stock per filament, prints by
/// status, bridge polls and their latency per source, integration calls by outcome.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "`text/plain; version=0.0.4`", content_type = "text/plain", body = String),
        (status = 401, description = "UNAUTHENTICATED: no token set, or not this `Authorization: Bearer` token", body = ErrorBody),
        (status = 503, body = ErrorBody),
    ),
    security(("metricsToken" = []))
)]
#[get("/metrics")]
pub async fn scrape(state: Data<AppState>, request: HttpRequest) -> Result<HttpResponse, ApiError> {
    let presented = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let Some(presented) = presented else {
        return Err(ApiError::new(Code::Unauthenticated));
    };
    if !state.query(IsMetricsToken(presented)).await? {
        return Err(ApiError::new(Code::Unauthenticated));
    }
    state.query(ReadLevels).await?.record();
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(metrics().render()?))
}
