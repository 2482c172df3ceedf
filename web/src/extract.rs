//! Request extractors: strict JSON bodies, PATCH bodies, list queries, path ids.
//!
//! Parsing is strict (unknown fields are refused) and every refusal is a 422 with field errors at
//! the JSON path of the field at fault, never a 500.

use crate::error::{ApiError, Code};
use crate::faults;
use actix_web::dev::Payload;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpRequest};
use actors::FieldError;
use actors::inventory::ListQuery;
use futures_util::future::LocalBoxFuture;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use storage::Id;
use utoipa::{IntoParams, ToSchema};

/// Parses a JSON body into `T` strictly, listing every fault at once.
///
/// Errors (all 422 `VALIDATION_FAILED`): malformed JSON (`errors.malformedJson`, alone); else one
/// field error per fault at its JSON path (`parts[0].grams`), found by
/// [`faults::every_fault`]: a missing field (`errors.required`), an unknown field
/// (`errors.unknownField`), a wrong type (`errors.invalidType`), an invalid value
/// (`errors.invalidValue`), or a domain value's own key (`errors.invalidColor`, ...).
///
/// A number with a zero fraction (`4.0`, `1e3`) is an integer, as in JSON Schema: a body refused
/// only for such numbers is taken.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let first = match serde_path_to_error::deserialize(&mut de) {
        Ok(value) => {
            de.end().map_err(malformed)?;
            return Ok(value);
        }
        Err(error) => error,
    };
    let mut body: serde_json::Value = serde_json::from_slice(bytes).map_err(malformed)?;
    if faults::whole_numbers(&mut body)
        && let Ok(value) = T::deserialize(&body)
    {
        return Ok(value);
    }
    let mut found = faults::every_fault::<T>(body);
    if found.is_empty() {
        found.push(faults::first_fault(&first));
    }
    let texts: Vec<&str> = found.iter().map(|(_, text)| text.as_str()).collect();
    let message = format!("The request is invalid: {}.", texts.join("; "));
    Err(ApiError::validation(found.into_iter().map(|(f, _)| f).collect()).with_message(message))
}

/// 422 `errors.malformedJson` for a body that is not JSON.
fn malformed(error: serde_json::Error) -> ApiError {
    ApiError::field("", "errors.malformedJson").with_message(format!("Malformed JSON: {error}"))
}

fn read_body(
    req: &HttpRequest,
    payload: &mut Payload,
) -> LocalBoxFuture<'static, Result<Bytes, ApiError>> {
    let bytes = Bytes::from_request(req, payload);
    Box::pin(async move {
        bytes.await.map_err(|e| {
            ApiError::field("", "errors.unreadableBody")
                .with_message(format!("Unreadable request body: {e}"))
        })
    })
}

/// A JSON body parsed strictly with [`parse_json`].
#[derive(Debug)]
pub struct StrictJson<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for StrictJson<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = read_body(req, payload);
        Box::pin(async move { parse_json(&body.await?).map(StrictJson) })
    }
}

/// `{ "archived": true }`: changes only the archive state.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchiveInput {
    /// New archive state.
    pub archived: bool,
}

/// A PATCH body of an inventory record: the full editable DTO (replaces every editable field), or
/// `{ "archived": bool }` alone, which only changes the archive state.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum Patch<T> {
    /// Only the archive state.
    Archive(ArchiveInput),
    /// Every editable field.
    Replace(T),
}

impl<T: DeserializeOwned + 'static> FromRequest for Patch<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = read_body(req, payload);
        Box::pin(async move {
            let bytes = body.await?;
            let value: serde_json::Value = parse_json(&bytes)?;
            match value.as_object() {
                Some(fields) if fields.len() == 1 && fields.contains_key("archived") => {
                    parse_json(&bytes).map(Patch::Archive)
                }
                _ => parse_json(&bytes).map(Patch::Replace),
            }
        })
    }
}

/// Query parameters of one request, parsed one by one into field errors.
pub struct QueryFields {
    values: HashMap<String, String>,
    faults: Vec<FieldError>,
}

impl QueryFields {
    /// The query of `req`. Errors: 422 when it is not valid URL encoding.
    pub fn of(req: &HttpRequest) -> Result<Self, ApiError> {
        Self::parse(req.query_string())
    }

    /// A query string (without `?`). Errors: 422 when it is not valid URL encoding.
    pub fn parse(query: &str) -> Result<Self, ApiError> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
            .map_err(|_| ApiError::field("", "errors.invalidQuery"))?;
        Ok(QueryFields {
            values: pairs.into_iter().collect(),
            faults: Vec::new(),
        })
    }

    /// A trimmed, non-empty text parameter.
    pub fn text(&self, name: &str) -> Option<String> {
        self.values
            .get(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    /// An integer parameter in `min..=max`; records `errors.outOfRange` or `errors.invalidType`.
    pub fn int(&mut self, name: &str, min: u32, max: u32) -> Option<u32> {
        let text = self.text(name)?;
        match text.parse::<u64>() {
            Ok(n) if n >= u64::from(min) && n <= u64::from(max) => Some(n as u32),
            Ok(_) => self.fault(name, "errors.outOfRange"),
            Err(_) => self.fault(name, "errors.invalidType"),
        }
    }

    /// A `true` or `false` parameter; records `errors.invalidType`.
    pub fn bool(&mut self, name: &str) -> Option<bool> {
        match self.text(name)?.as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => self.fault(name, "errors.invalidType"),
        }
    }

    /// An id parameter; records `errors.invalidId`.
    pub fn id(&mut self, name: &str) -> Option<Id> {
        let text = self.text(name)?;
        match text.parse() {
            Ok(id) => Some(id),
            Err(_) => self.fault(name, "errors.invalidId"),
        }
    }

    /// One of `allowed`; records `errors.invalidValue`.
    pub fn one_of(&mut self, name: &str, allowed: &[&'static str]) -> Option<&'static str> {
        let text = self.text(name)?;
        match allowed.iter().find(|a| **a == text) {
            Some(a) => Some(*a),
            None => self.fault(name, "errors.invalidValue"),
        }
    }

    fn fault<T>(&mut self, name: &str, key: &'static str) -> Option<T> {
        self.push_fault(name, key);
        None
    }

    /// Records a fault of parameter `name`.
    pub fn push_fault(&mut self, name: &str, key: &'static str) {
        self.faults.push(FieldError::new(name, key));
    }

    /// Records `faults` found by a parser of a parameter's value.
    pub fn push_faults(&mut self, faults: impl IntoIterator<Item = FieldError>) {
        self.faults.extend(faults);
    }

    /// Records `errors.unknownField` for every parameter not among `known`.
    pub fn refuse_unknown(&mut self, known: &[String]) {
        let mut unknown: Vec<&String> = self
            .values
            .keys()
            .filter(|name| !known.contains(name))
            .collect();
        unknown.sort();
        let faults = unknown
            .into_iter()
            .map(|name| FieldError::new(name.clone(), "errors.unknownField"));
        self.faults.extend(faults);
    }

    /// Ends parsing. Errors: 422 with every parameter at fault.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.faults.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.faults))
        }
    }
}

/// A query struct that reads its own parameters: every fault is recorded in the
/// [`QueryFields`], so a query with several faults answers one 422 listing them all.
pub trait ReadQuery: Sized {
    /// Reads the parameters from `query`.
    fn read(query: &mut QueryFields) -> Self;
}

/// A query of one route: the parameters it takes (its OpenAPI parameters) and how they are read.
/// Implemented for every [`ReadQuery`] that documents itself with [`IntoParams`], and for pairs
/// of them (the common list query and a route's own filters).
pub trait FromQuery: Sized {
    /// The names of the parameters it takes.
    fn names() -> Vec<String>;
    /// Reads them from `query`.
    fn read_from(query: &mut QueryFields) -> Self;
}

impl<T: ReadQuery + IntoParams> FromQuery for T {
    fn names() -> Vec<String> {
        T::into_params(|| Some(utoipa::openapi::path::ParameterIn::Query))
            .into_iter()
            .map(|p| p.name)
            .collect()
    }

    fn read_from(query: &mut QueryFields) -> Self {
        T::read(query)
    }
}

impl<A: FromQuery, B: FromQuery> FromQuery for (A, B) {
    fn names() -> Vec<String> {
        let mut names = A::names();
        names.extend(B::names());
        names
    }

    fn read_from(query: &mut QueryFields) -> Self {
        (A::read_from(query), B::read_from(query))
    }
}

/// A query string parsed strictly into `T`: a parameter `T` does not document is 422
/// `errors.unknownField`, and every fault is listed at once.
#[derive(Debug)]
pub struct StrictQuery<T>(pub T);

impl<T: FromQuery> StrictQuery<T> {
    /// Parses `query` (without `?`). Errors: 422 with every parameter at fault.
    pub fn parse(query: &str) -> Result<T, ApiError> {
        let mut fields = QueryFields::parse(query)?;
        let value = T::read_from(&mut fields);
        fields.refuse_unknown(&T::names());
        fields.finish()?;
        Ok(value)
    }
}

impl<T: FromQuery> FromRequest for StrictQuery<T> {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(Self::parse(req.query_string()).map(StrictQuery))
    }
}

/// The common list query: `search`, `page` (one-based, default 1), `pageSize` (1-100, default
/// 25), `includeArchived` (default false).
#[derive(Debug, Clone, Default, IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ListParams {
    /// Case-insensitive text filter.
    pub search: Option<String>,
    /// One-based page number (default 1).
    #[param(minimum = 1)]
    pub page: Option<u32>,
    /// Items per page, 1 to 100 (default 25).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<u32>,
    /// Also list archived records (default false).
    pub include_archived: Option<bool>,
}

impl ReadQuery for ListParams {
    fn read(query: &mut QueryFields) -> Self {
        ListParams {
            search: query.text("search"),
            page: query.int("page", 1, u32::MAX),
            page_size: query.int("pageSize", 1, 100),
            include_archived: query.bool("includeArchived"),
        }
    }
}

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
#[derive(Debug, Clone, Copy, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NoFilter {}

impl ReadQuery for NoFilter {
    fn read(_: &mut QueryFields) -> Self {
        NoFilter {}
    }
}

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
