//! Request extractors: strict JSON bodies, query strings and path ids.
//!
//! Bodies and query strings are parsed by [`crate::input`]: strictly (unknown fields are
//! refused), every refusal a 422 with field errors at the JSON path of the field at fault, never
//! a 500.

use crate::error::{ApiError, Code};
use crate::input::query::{self, FromQuery, Params};
use crate::input::shape::{self, Shape};
use crate::input::{Faults, Refusal, parse_json};
use actix_web::dev::Payload;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpRequest};
use actors::inventory::ListQuery;
use deserr::{Deserr, IntoValue, ValuePointerRef};
use futures_util::future::LocalBoxFuture;
use storage::Id;
use utoipa::{IntoParams, ToSchema};

/// A JSON body parsed strictly with [`parse_json`].
///
/// Errors: 422 `errors.unreadableBody` when the body cannot be read; else [`parse_json`]'s.
#[derive(Debug)]
pub struct StrictJson<T>(pub T);

impl<T: Deserr<Faults> + 'static> FromRequest for StrictJson<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let bytes = Bytes::from_request(req, payload);
        Box::pin(async move {
            let bytes = bytes.await.map_err(|e| {
                ApiError::field("", "errors.unreadableBody")
                    .with_message(format!("Unreadable request body: {e}"))
            })?;
            parse_json(&bytes).map(StrictJson)
        })
    }
}

/// `{ "archived": true }`: changes only the archive state.
#[derive(Debug, Clone, Copy, Deserr, ToSchema)]
#[deserr(error = Faults, deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct ArchiveInput {
    /// New archive state.
    pub archived: bool,
}

/// A PATCH body of an inventory record: the full editable DTO (replaces every editable field), or
/// `{ "archived": bool }` alone, which only changes the archive state.
#[derive(Debug, ToSchema)]
#[serde(untagged)]
pub enum Patch<T> {
    /// Only the archive state.
    Archive(ArchiveInput),
    /// Every editable field.
    Replace(T),
}

impl<T: Deserr<Faults>> Deserr<Faults> for Patch<T> {
    fn deserialize_from_value<V: IntoValue>(
        value: deserr::Value<V>,
        location: ValuePointerRef,
    ) -> Result<Self, Faults> {
        match shape::one_field(value, &["archived"]) {
            Shape::One(name, archived) => {
                let archived =
                    bool::deserialize_from_value(archived.into_value(), location.push_key(name))?;
                Ok(Patch::Archive(ArchiveInput { archived }))
            }
            Shape::Whole(body) => T::deserialize_from_value(body, location).map(Patch::Replace),
        }
    }
}

/// A query string parsed strictly into `T` by [`query::parse`]: a parameter `T` does not
/// document is 422 `errors.unknownField`, and every fault is listed at once.
#[derive(Debug)]
pub struct StrictQuery<T>(pub T);

impl<T: FromQuery> FromRequest for StrictQuery<T> {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(query::parse(req.query_string()).map(StrictQuery))
    }
}

/// The common list query: `search`, `page` (one-based, default 1), `pageSize` (1-100, default
/// 25), `includeArchived` (default false).
#[derive(Debug, Clone, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ListParams {
    /// Case-insensitive text filter.
    #[deserr(default)]
    pub search: Option<String>,
    /// One-based page number (default 1).
    #[param(minimum = 1, maximum = 2147483647)]
    #[deserr(default, try_from(&String) = query::number::<1, { i32::MAX as u32 }> -> Refusal)]
    pub page: Option<u32>,
    /// Items per page, 1 to 100 (default 25).
    #[param(minimum = 1, maximum = 100)]
    #[deserr(default, try_from(&String) = query::number::<1, 100> -> Refusal)]
    pub page_size: Option<u32>,
    /// Also list archived records (default false).
    #[deserr(default, try_from(&String) = query::flag -> Refusal)]
    pub include_archived: Option<bool>,
}

impl Params for ListParams {}

impl From<ListParams> for ListQuery {
    fn from(p: ListParams) -> ListQuery {
        ListQuery {
            search: p.search,
            page: p.page.unwrap_or(1),
            page_size: p.page_size.unwrap_or(25),
            include_archived: p.include_archived.unwrap_or(false),
        }
    }
}

/// No query parameters beyond the common list query.
#[derive(Debug, Clone, Copy, Deserr, IntoParams)]
#[deserr(error = Faults)]
#[into_params(parameter_in = Query)]
pub struct NoFilter {}

impl Params for NoFilter {}

/// The `{id}` path segment as an id. Errors: 404 when it is not a UUID (no record has that id).
pub struct PathId(pub Id);

impl FromRequest for PathId {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let id = req
            .match_info()
            .get("id")
            .and_then(|text| text.parse().ok())
            .map(PathId)
            .ok_or_else(|| ApiError::new(Code::NotFound));
        std::future::ready(id)
    }
}
