//! `GET /api/search`: prints and inventory whose names contain the query, grouped.

use super::prints;
use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictQuery;
use crate::input::Faults;
use crate::input::query::Params;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::get;
use actix_web::web::{Data, Json};
use actors::search::{Found, Hit as FoundHit, Search};
use actors::values;
use deserr::Deserr;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

/// The pattern of `q`: two characters that are not blank ([`actors::values::NOT_BLANK`]) with
/// anything between, so at least two are left once trimmed (`actors::search::MIN_CHARS`).
pub fn q_pattern() -> String {
    let not_blank = values::NOT_BLANK;
    format!(r"{not_blank}[\s\S]*{not_blank}")
}

/// Search query.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// Text to find, at least 2 characters once trimmed (its pattern: [`q_pattern`]).
    #[deserr(default)]
    pub q: String,
}

impl Params for SearchParams {}

/// One hit.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// Record id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Prints only: the status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<prints::Status>,
}

/// Hits grouped by kind, at most 10 per group, archived records left out.
#[derive(Debug, Serialize, ToSchema)]
pub struct SearchResults {
    /// Prints by name or printer name, newest first.
    pub prints: Vec<Hit>,
    /// Customers.
    pub customers: Vec<Hit>,
    /// Manufacturers.
    pub manufacturers: Vec<Hit>,
    /// Printers.
    pub printers: Vec<Hit>,
    /// Components.
    pub components: Vec<Hit>,
    /// Filaments.
    pub filaments: Vec<Hit>,
    /// Spools by code, lot, location or filament, named `<code> · <filament>` (empty with spool
    /// management off).
    pub spools: Vec<Hit>,
}

impl From<FoundHit> for Hit {
    fn from(hit: FoundHit) -> Hit {
        Hit {
            id: hit.id.to_string(),
            name: hit.name,
            status: None,
        }
    }
}

impl From<Found> for SearchResults {
    fn from(found: Found) -> SearchResults {
        let hits = |hits: Vec<FoundHit>| hits.into_iter().map(Hit::from).collect();
        SearchResults {
            prints: found
                .prints
                .into_iter()
                .map(|(hit, status)| Hit {
                    status: Some(status.into()),
                    ..hit.into()
                })
                .collect(),
            customers: hits(found.customers),
            manufacturers: hits(found.manufacturers),
            printers: hits(found.printers),
            components: hits(found.components),
            filaments: hits(found.filaments),
            spools: hits(found.spools),
        }
    }
}

/// Prints and inventory records whose names contain `q` (at least 2 characters), at most 10 per
/// kind, archived records left out.
#[utoipa::path(
    tag = "search",
    params(SearchParams),
    responses((status = 200, body = SearchResults), (status = 401, body = ErrorBody), (status = 422, description = "q shorter than 2 characters", body = ErrorBody)),
    security(("session" = []))
)]
#[get("/search")]
pub async fn search(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<SearchParams>,
) -> Result<Json<SearchResults>, ApiError> {
    Ok(Json(state.query(Search(query.0.q)).await?.into()))
}
