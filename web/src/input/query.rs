//! Query strings: parsed into a `#[derive(Deserr)]` type whose parameters are documented with
//! utoipa's `IntoParams`, and the parsers of single parameters (`#[deserr(try_from(&String) =
//! …)]`, each answering a [`Refusal`] with its message key).
//!
//! A parameter's value is trimmed, and a blank value counts as absent. A parameter no part of the
//! query documents is `errors.unknownField`.

use super::{Faults, Refusal};
use crate::error::ApiError;
use deserr::Deserr;
use serde_json::{Map, Value};
use storage::Id;
use utoipa::IntoParams;
use utoipa::openapi::path::ParameterIn;

/// `true` or `false`. Errors: `errors.invalidType`.
pub fn flag(text: &str) -> Result<Option<bool>, Refusal> {
    match text {
        "true" => Ok(Some(true)),
        "false" => Ok(Some(false)),
        _ => Err(Refusal("errors.invalidType")),
    }
}

/// A record id (a UUID). Errors: `errors.invalidId`.
pub fn id(text: &str) -> Result<Option<Id>, Refusal> {
    text.parse()
        .map(Some)
        .map_err(|_| Refusal("errors.invalidId"))
}

/// A calendar date, `YYYY-MM-DD`. Errors: `errors.invalidDate`.
pub fn date(text: &str) -> Result<Option<jiff::civil::Date>, Refusal> {
    text.parse()
        .map(Some)
        .map_err(|_| Refusal("errors.invalidDate"))
}

/// An instant, RFC 3339 with an offset (`2026-11-28T12:00:00Z`). Errors: `errors.invalidDate`.
pub fn instant(text: &str) -> Result<Option<jiff::Timestamp>, Refusal> {
    text.parse()
        .map(Some)
        .map_err(|_| Refusal("errors.invalidDate"))
}

/// A whole number in `MIN..=MAX`. Errors: `errors.invalidType`, `errors.outOfRange`.
pub fn number<const MIN: u32, const MAX: u32>(text: &str) -> Result<Option<u32>, Refusal> {
    let n: u64 = text.parse().map_err(|_| Refusal("errors.invalidType"))?;
    u32::try_from(n)
        .ok()
        .filter(|n| (MIN..=MAX).contains(n))
        .map(Some)
        .ok_or(Refusal("errors.outOfRange"))
}

/// A value `parse` knows. Errors: `errors.invalidValue`.
pub fn choice<T>(text: &str, parse: impl Fn(&str) -> Option<T>) -> Result<Option<T>, Refusal> {
    parse(text).map(Some).ok_or(Refusal("errors.invalidValue"))
}

/// Comma-separated values, each parsed by `parse`. Errors: `errors.invalidValue` when one is
/// refused.
pub fn list<T>(text: &str, parse: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, Refusal> {
    text.split(',')
        .map(|t| parse(t.trim()))
        .collect::<Option<Vec<T>>>()
        .ok_or(Refusal("errors.invalidValue"))
}

/// A query type: its parameters documented with [`IntoParams`], parsed with [`Deserr`]. Each
/// says so (`impl Params for ListParams {}`), which leaves pairs of them free to be a
/// [`FromQuery`] too.
pub trait Params: Deserr<Faults> + IntoParams {}

/// A query of one route: the parameters it documents (its OpenAPI parameters) and how they are
/// parsed. Implemented for every [`Params`] type and for pairs of them (the common list query
/// and a route's own filters).
pub trait FromQuery: Sized {
    /// The names of the parameters it takes.
    fn names() -> Vec<String>;
    /// Parses them from `params` (name to trimmed, non-blank value), leaving others alone.
    fn from_params(params: &Map<String, Value>) -> Result<Self, Faults>;
}

impl<T: Params> FromQuery for T {
    fn names() -> Vec<String> {
        T::into_params(|| Some(ParameterIn::Query))
            .into_iter()
            .map(|p| p.name)
            .collect()
    }

    fn from_params(params: &Map<String, Value>) -> Result<Self, Faults> {
        deserr::deserialize(Value::Object(params.clone()))
    }
}

impl<A: FromQuery, B: FromQuery> FromQuery for (A, B) {
    fn names() -> Vec<String> {
        let mut names = A::names();
        names.extend(B::names());
        names
    }

    fn from_params(params: &Map<String, Value>) -> Result<Self, Faults> {
        match (A::from_params(params), B::from_params(params)) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            (Err(a), Err(b)) => Err(a.and(b)),
            (Err(faults), _) | (_, Err(faults)) => Err(faults),
        }
    }
}

/// Parses the query string `query` (without `?`) into `T`, as the API takes it: a parameter
/// given empty (`?printerId=`) is that value, which its rule admits (an empty `search`) or
/// refuses (an id, a choice, a date), as the OpenAPI document says.
///
/// Errors (422 `VALIDATION_FAILED`): `errors.invalidQuery` when it is not URL encoding; else
/// every parameter at fault in the order of their documentation, then `errors.unknownField` for
/// each one `T` does not document.
pub fn parse<T: FromQuery>(query: &str) -> Result<T, ApiError> {
    parse_with(query, true)
}

/// As [`parse`], for the UI's filter forms: a form sends its empty fields (`?status=&page=2`),
/// and an empty field is no filter.
///
/// Errors: as [`parse`].
pub fn parse_form<T: FromQuery>(query: &str) -> Result<T, ApiError> {
    parse_with(query, false)
}

fn parse_with<T: FromQuery>(query: &str, keep_empty: bool) -> Result<T, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
        .map_err(|_| ApiError::field("", "errors.invalidQuery"))?;
    let names = T::names();
    let mut unknown = Faults::default();
    let mut params = Map::new();
    for (name, value) in pairs {
        if !names.contains(&name) {
            let text = format!("unknown parameter `{name}`");
            unknown = unknown.and(Faults::one(name, "errors.unknownField", text));
            continue;
        }
        let value = value.trim();
        if keep_empty || !value.is_empty() {
            params.insert(name, Value::String(value.to_string()));
        }
    }
    let faults = match T::from_params(&params) {
        Ok(value) if unknown.is_empty() => return Ok(value),
        Ok(_) => unknown,
        Err(faults) => faults.and(unknown),
    };
    Err(ApiError::validation(
        faults.ordered_by(&names).into_field_errors(),
    ))
}
