//! `GET /api/search`: prints and inventory whose names contain the query, grouped.

use crate::error::{ApiError, ErrorBody};
use crate::extract::QueryFields;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::web::{Data, Json};
use actix_web::{HttpRequest, get};
use actors::inventory::components::Components;
use actors::inventory::customers::Customers;
use actors::inventory::filaments::Filaments;
use actors::inventory::manufacturers::Manufacturers;
use actors::inventory::printers::Printers;
use actors::inventory::{Kind, ListQuery};
use actors::prints::query::PrintFilter;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

/// Results per group.
pub const PER_GROUP: u32 = 10;

/// Search query.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct SearchParams {
    /// Text to find, at least 2 characters.
    pub q: String,
}

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
    pub status: Option<super::prints::Status>,
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
}

fn hit(id: storage::Id, name: String) -> Hit {
    Hit {
        id: id.to_string(),
        name,
        status: None,
    }
}

/// Searches prints and inventory.
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
    req: HttpRequest,
) -> Result<Json<SearchResults>, ApiError> {
    let query = QueryFields::of(&req)?;
    let q = query.text("q").unwrap_or_default();
    Ok(Json(find(&state, q).await?))
}

/// Prints and inventory whose names contain `q` (API and UI).
///
/// Errors: 422 on `q` when it is shorter than 2 characters; storage errors.
pub async fn find(state: &AppState, q: String) -> Result<SearchResults, ApiError> {
    if q.chars().count() < 2 {
        return Err(ApiError::field("q", "errors.tooShort"));
    }
    let filter = PrintFilter {
        search: Some(q.to_lowercase()),
        ..PrintFilter::default()
    };
    let index = state.index.clone();
    let results = state
        .read(move |tx| {
            let (ids, _) = index.page(&filter, 0, PER_GROUP as usize);
            let list = ListQuery {
                search: Some(q),
                page: 1,
                page_size: PER_GROUP,
                include_archived: false,
            };
            let prints = ids
                .iter()
                .map(|id| actors::prints::get(tx, *id))
                .map(|p| {
                    p.map(|p| Hit {
                        id: p.id.to_string(),
                        name: p.name,
                        status: Some(p.status.into()),
                    })
                })
                .collect::<actors::Result<_>>()?;
            Ok(SearchResults {
                prints,
                customers: Customers::list(tx, &list, &())?
                    .items
                    .into_iter()
                    .map(|c| hit(c.id, c.name))
                    .collect(),
                manufacturers: Manufacturers::list(tx, &list, &())?
                    .items
                    .into_iter()
                    .map(|m| hit(m.id, m.name))
                    .collect(),
                printers: Printers::list(tx, &list, &())?
                    .items
                    .into_iter()
                    .map(|v| hit(v.printer.id, v.printer.name))
                    .collect(),
                components: Components::list(tx, &list, &Default::default())?
                    .items
                    .into_iter()
                    .map(|v| hit(v.component.id, v.component.name))
                    .collect(),
                filaments: Filaments::list(tx, &list, &())?
                    .items
                    .into_iter()
                    .map(|v| hit(v.filament.id, v.name))
                    .collect(),
            })
        })
        .await?;
    Ok(results)
}
