//! `GET /api/health`.

use crate::error::{ApiError, Code, ErrorBody};
use crate::state::AppState;
use actix_web::get;
use actix_web::web::{self, Data, Json};
use actors::projection::progress::{LoadStep, Loading};
use serde::Serialize;
use utoipa::ToSchema;

/// Health of the instance.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// `ok`. An unreadable database, or a print projection that could not be loaded from it,
    /// answers 503 `DATABASE_UNAVAILABLE` instead, its message saying which.
    pub database: &'static str,
    /// Version of this build.
    pub version: &'static str,
    /// While the prints are being loaded (at start-up; lists and the dashboard wait for it):
    /// what the load does and how far it is. `null` once they are loaded.
    pub loading: Option<HealthLoading>,
}

/// The load of the prints, as it stands.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthLoading {
    /// `READING_SUMMARIES` (every start), or `REBUILDING_SUMMARIES` (once, on the first start
    /// after an upgrade that changed them: it takes longest).
    pub step: HealthLoadStep,
    /// Prints done so far.
    pub done: u64,
    /// Prints in the store.
    pub total: u64,
}

/// What the load of the prints does.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HealthLoadStep {
    /// Reading the stored print summaries.
    ReadingSummaries,
    /// Rebuilding the print summaries from the prints.
    RebuildingSummaries,
}

impl From<Loading> for HealthLoading {
    fn from(loading: Loading) -> HealthLoading {
        HealthLoading {
            step: match loading.step {
                LoadStep::ReadingSummaries => HealthLoadStep::ReadingSummaries,
                LoadStep::RebuildingSummaries => HealthLoadStep::RebuildingSummaries,
            },
            done: loading.done,
            total: loading.total,
        }
    }
}

/// Health: reads the database file from the device (bypassing caches), opens a read
/// transaction, and checks that the print projection loaded (it may still be loading: then
/// `loading` says how far it is).
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, body = Health),
        (status = 503, description = "DATABASE_UNAVAILABLE: the database cannot be read, or the print projection could not be loaded from it (the message says which)", body = ErrorBody),
    )
)]
#[get("/health")]
pub async fn health(state: Data<AppState>) -> Result<Json<Health>, ApiError> {
    let store = state.store.clone();
    web::block(move || store.probe())
        .await
        .map_err(|_| ApiError::new(Code::Internal))??;
    if let Some(reason) = state.index.failure() {
        return Err(
            ApiError::new(Code::DatabaseUnavailable).with_message(format!(
                "The print projection could not be loaded: {reason}."
            )),
        );
    }
    Ok(Json(Health {
        status: "ok",
        database: "ok",
        version: env!("CARGO_PKG_VERSION"),
        loading: state.index.loading().map(HealthLoading::from),
    }))
}
