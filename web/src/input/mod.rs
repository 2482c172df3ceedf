//! Inputs parsed with [deserr](https://docs.rs/deserr): every JSON body and query string the API
//! takes is one `#[derive(Deserr)]` type, parsed once, strictly (unknown fields and parameters
//! are refused), with every fault listed at its JSON path (`parts[0].grams`).
//!
//! deserr drives the parse; the `#[serde(...)]` attributes beside its own on an input type are
//! read by utoipa for the OpenAPI schema only (input types do not derive serde's `Deserialize`).
//! The API tests send every documented body and parameter, and the schemathesis run generates
//! them from the document, so a name the two disagree on fails a test.
//!
//! - [`Faults`]: deserr's error type here, which never stops at the first fault.
//! - [`parse_json`], [`parse`]: a body from bytes or from a JSON tree (the UI's forms).
//! - [`query`]: query strings and the parsers of their parameters.
//! - [`shape`]: inputs of several shapes (`{action, data}`, a one-field PATCH).

pub mod query;
pub mod shape;

use crate::error::ApiError;
use actors::{FieldError, values};
use deserr::{
    DeserializeError, Deserr, ErrorKind, IntoValue, MergeWithError, ValueKind, ValuePointerRef,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::ops::{BitOr, ControlFlow};

/// Every fault of one input, in the order found: each a field error at its JSON path with a
/// human text. deserr's error type for every input; it always asks deserr to go on, so one parse
/// finds them all.
#[derive(Debug, Default)]
pub struct Faults(Vec<(FieldError, String)>);

impl Faults {
    /// One fault at `path` with message `key` and a human `text`.
    pub fn one(path: String, key: &str, text: String) -> Faults {
        Faults(vec![(FieldError::new(path, key.to_string()), text)])
    }

    /// True when no fault was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Both lists of faults, `self`'s first.
    pub fn and(mut self, other: Faults) -> Faults {
        self.0.extend(other.0);
        self
    }

    /// The faults ordered by the position of their field (a path's first name) in `names`;
    /// those of fields not named last, each group as found.
    pub fn ordered_by(mut self, names: &[String]) -> Faults {
        let position = |(fault, _): &(FieldError, String)| {
            let field = fault.path.split(['.', '[']).next().unwrap_or_default();
            names.iter().position(|n| n == field).unwrap_or(names.len())
        };
        self.0.sort_by_key(position);
        self
    }

    /// The field errors alone, without their texts.
    pub fn into_field_errors(self) -> Vec<FieldError> {
        self.0.into_iter().map(|(f, _)| f).collect()
    }

    /// 422 `VALIDATION_FAILED` with every fault as a field error and their texts in the message:
    /// `The request is invalid: name: must not be blank; missing field `email`.`
    pub fn into_error(self) -> ApiError {
        let texts: Vec<&str> = self.0.iter().map(|(_, text)| text.as_str()).collect();
        let message = format!("The request is invalid: {}.", texts.join("; "));
        ApiError::validation(self.into_field_errors()).with_message(message)
    }
}

impl DeserializeError for Faults {
    fn error<V: IntoValue>(
        found: Option<Self>,
        error: ErrorKind<V>,
        location: ValuePointerRef,
    ) -> ControlFlow<Self, Self> {
        let fault = fault(error, location);
        ControlFlow::Continue(found.unwrap_or_default().and(fault))
    }
}

impl MergeWithError<Faults> for Faults {
    fn merge(found: Option<Self>, other: Faults, _: ValuePointerRef) -> ControlFlow<Self, Self> {
        ControlFlow::Continue(found.unwrap_or_default().and(other))
    }
}

/// Why a parameter parser refused a value: its message key. (A refused query answers its field
/// errors alone, with the message `The request is invalid.`)
#[derive(Debug)]
pub struct Refusal(pub &'static str);

impl MergeWithError<Refusal> for Faults {
    fn merge(found: Option<Self>, other: Refusal, at: ValuePointerRef) -> ControlFlow<Self, Self> {
        let path = path(at);
        let text = format!("{path}: {}", other.0);
        let fault = Faults::one(path, other.0, text);
        ControlFlow::Continue(found.unwrap_or_default().and(fault))
    }
}

/// The JSON path of `location`, as the API writes it: `parts[0].grams`; the root is `""`.
pub fn path(location: ValuePointerRef) -> String {
    match location {
        ValuePointerRef::Origin => String::new(),
        ValuePointerRef::Key { key, prev } => match path(*prev) {
            parent if parent.is_empty() => key.to_string(),
            parent => format!("{parent}.{key}"),
        },
        ValuePointerRef::Index { index, prev } => format!("{}[{index}]", path(*prev)),
    }
}

/// `parent.name`, or `name` at the root.
fn child(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

/// The fault of one deserr error at `location`, with the message keys of the API contract:
/// `errors.required`, `errors.unknownField`, `errors.invalidType` (a negative number where a
/// count belongs is `errors.invalidValue`), `errors.invalidValue`, or a domain value's own key
/// (its refusal reads `errors.<key>: human text`, `actors::values`).
fn fault<V: IntoValue>(error: ErrorKind<V>, location: ValuePointerRef) -> Faults {
    let at = path(location);
    match error {
        ErrorKind::MissingField { field } => {
            let text = format!("missing field `{field}`");
            Faults::one(child(&at, field), "errors.required", text)
        }
        ErrorKind::UnknownKey { key, accepted } => {
            let text = format!("unknown field `{key}`, {}", one_of(accepted));
            Faults::one(child(&at, key), "errors.unknownField", text)
        }
        ErrorKind::UnknownValue { value, accepted } => {
            let text = format!("unknown variant `{value}`, {}", one_of(accepted));
            Faults::one(at, "errors.invalidValue", text)
        }
        ErrorKind::IncorrectValueKind { actual, accepted } => {
            let negative_count = actual.kind() == ValueKind::NegativeInteger
                && accepted.contains(&ValueKind::Integer);
            let key = if negative_count {
                "errors.invalidValue"
            } else {
                "errors.invalidType"
            };
            let expected: Vec<&str> = accepted.iter().map(|k| kind_name(*k)).collect();
            let text = format!(
                "invalid type: {}, expected {}",
                kind_name(actual.kind()),
                expected.join(" or ")
            );
            Faults::one(at, key, text)
        }
        ErrorKind::BadSequenceLen { expected, .. } => {
            let text = format!("invalid length, expected {expected} values");
            Faults::one(at, "errors.invalidValue", text)
        }
        ErrorKind::Unexpected { msg } => match msg.split_once(": ") {
            Some((key, human)) if key.starts_with("errors.") => {
                let text = format!("{at}: {human}");
                Faults::one(at, key, text)
            }
            _ => Faults::one(at, "errors.invalidValue", msg),
        },
    }
}

/// serde's wording of the names a value may take: `expected `a``, `expected `a` or `b``,
/// `expected one of `a`, `b`, `c``, `there are no fields`.
fn one_of(accepted: &[&str]) -> String {
    let quoted: Vec<String> = accepted.iter().map(|a| format!("`{a}`")).collect();
    match quoted.as_slice() {
        [] => "there are no fields".to_string(),
        [one] => format!("expected {one}"),
        [a, b] => format!("expected {a} or {b}"),
        many => format!("expected one of {}", many.join(", ")),
    }
}

/// A JSON value kind as a message names it.
fn kind_name(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Null => "null",
        ValueKind::Boolean => "a boolean",
        ValueKind::Integer => "an integer",
        ValueKind::NegativeInteger => "a negative integer",
        ValueKind::Float => "a number with a fraction",
        ValueKind::String => "a string",
        ValueKind::Sequence => "an array",
        ValueKind::Map => "an object",
    }
}

/// Parses a JSON body into `T`, listing every fault at once.
///
/// Errors (all 422 `VALIDATION_FAILED`): malformed JSON (`errors.malformedJson`, alone); a body
/// that is not an object (`errors.invalidType` at the root); else one field error per fault at
/// its JSON path (see [`Faults`]).
pub fn parse_json<T: Deserr<Faults>>(bytes: &[u8]) -> Result<T, ApiError> {
    let body: Value = serde_json::from_slice(bytes).map_err(|error| {
        ApiError::field("", "errors.malformedJson").with_message(format!("Malformed JSON: {error}"))
    })?;
    parse(body)
}

/// Parses the JSON tree `body` into `T` (the API's bodies and the UI's forms alike). A number
/// with a zero fraction (`4.0`, `1e3`) is an integer, as in JSON Schema.
///
/// Errors: as [`parse_json`], without the malformed case.
pub fn parse<T: Deserr<Faults>>(mut body: Value) -> Result<T, ApiError> {
    if !body.is_object() {
        let text = "invalid type: expected a JSON object".to_string();
        return Err(Faults::one(String::new(), "errors.invalidType", text).into_error());
    }
    whole_numbers(&mut body);
    deserr::deserialize::<T, Value, Faults>(body).map_err(Faults::into_error)
}

/// Writes every number of `body` that has a zero fraction (`4.0`, `1e3`) as the integer it is:
/// JSON Schema counts it an integer, deserr's integer types refuse it. Every decimal the API
/// takes is a string, so no field loses precision. True when something changed.
fn whole_numbers(body: &mut Value) -> bool {
    match body {
        Value::Number(n) if n.is_f64() => {
            let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0) else {
                return false;
            };
            let whole = if f < 0.0 && f >= i64::MIN as f64 {
                Value::from(f as i64)
            } else if f >= 0.0 && f < u64::MAX as f64 {
                Value::from(f as u64)
            } else {
                return false;
            };
            *body = whole;
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .map(whole_numbers)
            .fold(false, BitOr::bitor),
        Value::Object(fields) => fields
            .values_mut()
            .map(whole_numbers)
            .fold(false, BitOr::bitor),
        _ => false,
    }
}

/// A wire enum's value by the name serde gives it (its `rename_all`, shared with its output):
/// the enum's one list of names. Errors: `errors.invalidType` for anything but a string,
/// `errors.invalidValue` naming the variants for an unknown name.
pub fn by_name<T: DeserializeOwned, V: IntoValue>(
    value: deserr::Value<V>,
    location: ValuePointerRef,
) -> Result<T, Faults> {
    values::from_text(value, location, |text| {
        let name = serde::de::value::StringDeserializer::<serde::de::value::Error>::new(text);
        T::deserialize(name).map_err(|e| e.to_string())
    })
}

/// Implements [`Deserr`] for wire enums through [`by_name`].
macro_rules! deserr_by_name {
    ($($name:ty),+ $(,)?) => {
        $(
            impl deserr::Deserr<$crate::input::Faults> for $name {
                fn deserialize_from_value<V: deserr::IntoValue>(
                    value: deserr::Value<V>,
                    location: deserr::ValuePointerRef,
                ) -> Result<Self, $crate::input::Faults> {
                    $crate::input::by_name(value, location)
                }
            }
        )+
    };
}
pub(crate) use deserr_by_name;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::WireId;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserr)]
    #[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
    #[allow(dead_code)]
    struct Line {
        filament_id: WireId,
        grams: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    enum Kind {
        Hotend,
        BuildPlate,
    }
    deserr_by_name!(Kind);

    #[derive(Debug, Deserr)]
    #[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        kind: Kind,
        #[deserr(default)]
        note: Option<String>,
        lines: Vec<Line>,
        always_used: bool,
    }

    /// The (path, message key) of every field error of `error`.
    pub(crate) fn pairs(error: &ApiError) -> Vec<(String, String)> {
        error
            .field_errors
            .iter()
            .map(|f| (f.path.clone(), f.message_key.to_string()))
            .collect()
    }

    fn paths(body: Value) -> Vec<(String, String)> {
        pairs(&parse::<Body>(body).expect_err("refused"))
    }

    #[test]
    fn every_fault_of_a_body_is_listed_once_at_its_path() {
        let mut found = paths(json!({
            "name": 5,
            "kind": "NOZZLE",
            "lines": [{"filamentId": "x", "grams": -1}, {"grams": 2.5, "extra": 1}],
            "colour": "red",
        }));
        found.sort();
        let mut expected: Vec<(String, String)> = [
            ("name", "errors.invalidType"),
            ("kind", "errors.invalidValue"),
            ("lines[0].filamentId", "errors.invalidId"),
            ("lines[0].grams", "errors.invalidValue"),
            ("lines[1].grams", "errors.invalidType"),
            ("lines[1].extra", "errors.unknownField"),
            ("lines[1].filamentId", "errors.required"),
            ("colour", "errors.unknownField"),
            ("alwaysUsed", "errors.required"),
        ]
        .iter()
        .map(|(p, k)| (p.to_string(), k.to_string()))
        .collect();
        expected.sort();
        assert_eq!(found, expected);
    }

    #[test]
    fn the_message_gives_every_fault_in_words() {
        let error = parse::<Body>(
            json!({"name": "x", "kind": "HOTEND", "lines": [], "alwaysUsed": true, "nick": 1}),
        )
        .expect_err("refused");
        assert_eq!(
            error.message,
            "The request is invalid: unknown field `nick`, expected one of `name`, `kind`, `note`, `lines`, `alwaysUsed`."
        );
    }

    #[test]
    fn whole_numbers_are_integers_and_a_body_is_an_object() {
        let body = json!({"name": "x", "kind": "BUILD_PLATE", "lines": [{"filamentId": "0190c3d2-7a8b-7c9d-8e0f-112233445566", "grams": 4.0}], "alwaysUsed": false});
        let parsed = parse::<Body>(body).expect("4.0 is the integer 4");
        assert_eq!(parsed.lines[0].grams, 4);
        assert_eq!(
            paths(json!([1, 2])),
            [(String::new(), "errors.invalidType".to_string())]
        );
    }

    #[test]
    fn malformed_json_is_one_fault() {
        let error = parse_json::<Body>(b"{\"name\":").expect_err("refused");
        assert_eq!(error.field_errors.len(), 1);
        assert_eq!(error.field_errors[0].message_key, "errors.malformedJson");
    }
}
