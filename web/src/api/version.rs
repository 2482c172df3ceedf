//! `GET /api/version-latest`: the latest release version, from the release feed
//! ([`crate::release`]).

use crate::error;
use crate::error::ApiError;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::get;
use actix_web::web::{Data, Json};

/// The latest release version of the project as a JSON string (`"1.4.0"`), or `null` when no
/// feed is configured or it did not answer (the spec's answer); cached five minutes. This
/// build's version is `GET /api/health`'s `version`.
#[utoipa::path(tag = "health", responses((status = 200, description = "The latest version, or null", body = Option<String>, example = json!("1.4.0")), (status = 401, body = error::ErrorBody)), security(("session" = [])))]
#[get("/version-latest")]
pub async fn version_latest(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Option<String>>, ApiError> {
    Ok(Json(state.latest_version.get().await))
}
