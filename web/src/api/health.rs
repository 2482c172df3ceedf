//! `GET /api/health`.

use crate::error::{ApiError, Code, ErrorBody};
use crate::state::AppState;
use actix_web::get;
use actix_web::web::{self, Data, Json};
use serde::Serialize;
use utoipa::ToSchema;

/// Health of the instance.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// `ok` (an unreadable database answers 503 `DATABASE_UNAVAILABLE` instead).
    pub database: &'static str,
    /// Version of this build.
    pub version: &'static str,
}

/// Health: reads the database file from the device (bypassing caches) and opens a read
/// transaction.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, body = Health),
        (status = 503, description = "The database cannot be read", body = ErrorBody),
    )
)]
#[get("/health")]
pub async fn health(state: Data<AppState>) -> Result<Json<Health>, ApiError> {
    let store = state.store.clone();
    web::block(move || store.probe())
        .await
        .map_err(|_| ApiError::new(Code::Internal))??;
    Ok(Json(Health {
        status: "ok",
        database: "ok",
        version: env!("CARGO_PKG_VERSION"),
    }))
}
