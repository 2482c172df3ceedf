//! `GET /api/version-latest`: the latest release version, from the release feed
//! ([`crate::release`]).

use crate::error::ApiError;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::get;
use actix_web::web::{Data, Json};
use serde::Serialize;
use utoipa::ToSchema;

/// Latest and current version.
#[derive(Debug, Serialize, ToSchema)]
pub struct Versions {
    /// Latest release, or null (no feed configured, or the feed did not answer).
    pub latest: Option<String>,
    /// This build.
    pub current: &'static str,
}

/// The latest release version of the project, or null; cached five minutes.
#[utoipa::path(tag = "health", responses((status = 200, body = Versions), (status = 401, body = crate::error::ErrorBody)), security(("session" = [])))]
#[get("/version-latest")]
pub async fn version_latest(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Versions>, ApiError> {
    Ok(Json(Versions {
        latest: state.latest_version.get().await,
        current: env!("CARGO_PKG_VERSION"),
    }))
}
