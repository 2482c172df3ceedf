//! Every fault of a JSON body at once.
//!
//! serde stops at a body's first fault. To list them all, [`every_fault`] parses a copy of the
//! body again after each fault: it records the fault as a field error, then removes an unknown
//! field, or puts a stand-in at the faulty or missing path (the first of a few candidates the
//! field's type accepts; a variant the error names comes first), and parses again, until the copy
//! parses or no stand-in fits. Faults inside a stand-in are the stand-in's, never the caller's,
//! and are not reported. Only a refused body pays for this: a valid one is parsed once, by
//! [`crate::extract::parse_json`].
//!
//! A stand-in for an enum that tags a body (`action` of an integration action) would make the
//! faults of its `data` those of a variant the caller did not choose, so a fault at a path named
//! `action` ends the search.

use actors::FieldError;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::ops::BitOr;

/// How many parses one body may take before the search stops with what it found.
const MAX_ROUNDS: usize = 256;

/// Values tried, in order, for a faulty or missing field: a decimal or text, a whole number, a
/// flag, an id, a colour, a currency, a locale, a URL, an e-mail, an object, a list.
fn candidates() -> [Value; 11] {
    [
        Value::from("1"),
        Value::from(1),
        Value::from(true),
        Value::from("00000000-0000-7000-8000-000000000000"),
        Value::from("#000000"),
        Value::from("EUR"),
        Value::from("en"),
        Value::from("http://127.0.0.1"),
        Value::from("a@example.org"),
        Value::Object(serde_json::Map::new()),
        Value::Array(Vec::new()),
    ]
}

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Step {
    Key(String),
    Index(usize),
}

/// A fault as serde reports it, placed: where it is, what it is, and its human text.
struct Fault {
    at: Vec<Step>,
    kind: Kind,
    text: String,
}

enum Kind {
    /// A required field is absent.
    Missing,
    /// A field the type does not have.
    Unknown,
    /// A present value refused, with its message key.
    Refused(String),
}

/// Every fault of `body` (a JSON document that is known to fail to parse as `T`), each as a field
/// error at its JSON path (`parts[0].grams`) with the human text of serde's message, in the order
/// found. Every body the API takes is an object: any other is one `errors.invalidType` at the
/// root. Never empty for a body `T` refuses.
pub fn every_fault<T: DeserializeOwned>(mut body: Value) -> Vec<(FieldError, String)> {
    if !body.is_object() {
        let text = "invalid type: expected a JSON object".to_string();
        return vec![(FieldError::new("", "errors.invalidType"), text)];
    }
    let mut found: Vec<(FieldError, String)> = Vec::new();
    let mut reported: Vec<Vec<Step>> = Vec::new();
    // Paths holding a stand-in, with the index of the candidate tried there.
    let mut stand_ins: HashMap<Vec<Step>, usize> = HashMap::new();
    for _ in 0..MAX_ROUNDS {
        let Err(error) = serde_path_to_error::deserialize::<_, T>(&body) else {
            break;
        };
        let fault = place(&error);
        let inside_stand_in = stand_ins
            .keys()
            .any(|s| fault.at.starts_with(s) && fault.at != *s);
        let tried = stand_ins.get(&fault.at).copied();
        if !inside_stand_in && tried.is_none() && !reported.contains(&fault.at) {
            found.push(report(&fault));
            reported.push(fault.at.clone());
        }
        if fault.at.is_empty() || fault.at.last() == Some(&Step::Key("action".into())) {
            break;
        }
        if matches!(fault.kind, Kind::Unknown) {
            remove(&mut body, &fault.at);
            continue;
        }
        let mut options: Vec<Value> = variants(&fault.text).into_iter().map(Value::from).collect();
        options.extend(candidates());
        let next = tried.map_or(0, |n| n + 1);
        let Some(stand_in) = options.get(next) else {
            break;
        };
        stand_ins.insert(fault.at.clone(), next);
        if !put(&mut body, &fault.at, stand_in.clone()) {
            break;
        }
    }
    found
}

/// Writes every number of `body` that has a zero fraction (`4.0`, `1e3`) as the integer it is:
/// JSON Schema counts it an integer, serde's integer types refuse it. Every decimal the API
/// takes is a string, so no field loses precision. True when something changed.
pub fn whole_numbers(body: &mut Value) -> bool {
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

/// The field error of serde's first fault `error`, with its human text.
pub fn first_fault(error: &serde_path_to_error::Error<serde_json::Error>) -> (FieldError, String) {
    report(&place(error))
}

/// The fault of `error` at the path of the field at fault.
fn place(error: &serde_path_to_error::Error<serde_json::Error>) -> Fault {
    use serde_path_to_error::Segment;
    let mut at: Vec<Step> = Vec::new();
    for segment in error.path() {
        match segment {
            Segment::Seq { index } => at.push(Step::Index(*index)),
            Segment::Map { key } => at.push(Step::Key(key.clone())),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = error.inner().to_string();
    let text = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(t, _)| t)
        .to_string();
    let quoted = |prefix: &str| {
        text.strip_prefix(prefix)
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| name.to_string())
    };
    let kind = if let Some(name) = quoted("missing field `") {
        at.push(Step::Key(name));
        Kind::Missing
    } else if let Some(name) = quoted("unknown field `") {
        if at.last() != Some(&Step::Key(name.clone())) {
            at.push(Step::Key(name));
        }
        Kind::Unknown
    } else if text.starts_with("invalid type") {
        Kind::Refused("errors.invalidType".into())
    } else if let Some((key, _)) = text
        .split_once(": ")
        .filter(|(k, _)| k.starts_with("errors."))
    {
        Kind::Refused(key.to_string())
    } else {
        Kind::Refused("errors.invalidValue".into())
    };
    Fault { at, kind, text }
}

/// The field error of `fault` (its path as the API writes it, `parts[0].grams`, and its key) and
/// its text: serde's message, or `path: human text` for a domain value's own key.
fn report(fault: &Fault) -> (FieldError, String) {
    let mut path = String::new();
    for step in &fault.at {
        match step {
            Step::Key(key) if path.is_empty() => path.push_str(key),
            Step::Key(key) => {
                path.push('.');
                path.push_str(key);
            }
            Step::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    let key = match &fault.kind {
        Kind::Missing => "errors.required".to_string(),
        Kind::Unknown => "errors.unknownField".to_string(),
        Kind::Refused(key) => key.clone(),
    };
    let text = match fault.text.split_once(": ") {
        Some((k, human)) if k == key => format!("{path}: {human}"),
        _ => fault.text.clone(),
    };
    (FieldError::new(path, key), text)
}

/// The variants a serde message names: `expected one of `A`, `B`` or `expected `A` or `B``.
fn variants(text: &str) -> Vec<String> {
    let Some((_, expected)) = text.split_once("expected ") else {
        return Vec::new();
    };
    if !text.starts_with("unknown variant") {
        return Vec::new();
    }
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The value at `at`, if the document has one there.
fn parent_mut<'a>(body: &'a mut Value, at: &[Step]) -> Option<&'a mut Value> {
    let mut node = body;
    for step in at {
        node = match step {
            Step::Key(key) => node.as_object_mut()?.get_mut(key)?,
            Step::Index(index) => node.as_array_mut()?.get_mut(*index)?,
        };
    }
    Some(node)
}

/// Removes the field at `at` (an object's key).
fn remove(body: &mut Value, at: &[Step]) {
    if let Some((Step::Key(key), parent)) = at.split_last()
        && let Some(object) = parent_mut(body, parent).and_then(Value::as_object_mut)
    {
        object.remove(key);
    }
}

/// Puts `value` at `at` (a key of an object, or an element of a list). False when the document
/// has no place there.
fn put(body: &mut Value, at: &[Step], value: Value) -> bool {
    let Some((last, parent)) = at.split_last() else {
        return false;
    };
    match (last, parent_mut(body, parent)) {
        (Step::Key(key), Some(Value::Object(object))) => {
            object.insert(key.clone(), value);
            true
        }
        (Step::Index(index), Some(Value::Array(items))) if *index < items.len() => {
            items[*index] = value;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Line {
        filament_id: uuid::Uuid,
        grams: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    enum Kind {
        Hotend,
        BuildPlate,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        kind: Kind,
        note: Option<String>,
        lines: Vec<Line>,
        always_used: bool,
    }

    fn paths(body: Value) -> Vec<(String, String)> {
        every_fault::<Body>(body)
            .into_iter()
            .map(|(f, _)| (f.path, f.message_key.into_owned()))
            .collect()
    }

    #[test]
    fn every_fault_of_a_body_is_listed_once_at_its_path() {
        let found = paths(json!({
            "name": 5,
            "kind": "NOZZLE",
            "lines": [{"filamentId": "x", "grams": -1}, {"grams": 2, "extra": 1}],
            "colour": "red",
        }));
        let expected = [
            ("name", "errors.invalidType"),
            ("kind", "errors.invalidValue"),
            ("lines[0].filamentId", "errors.invalidValue"),
            ("lines[0].grams", "errors.invalidValue"),
            ("lines[1].extra", "errors.unknownField"),
            ("lines[1].filamentId", "errors.required"),
            ("colour", "errors.unknownField"),
            ("alwaysUsed", "errors.required"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(p, k)| (p.to_string(), k.to_string()))
            .collect();
        let mut sorted = found.clone();
        sorted.sort();
        let mut wanted = expected.clone();
        wanted.sort();
        assert_eq!(sorted, wanted, "found in order: {found:?}");
    }

    #[test]
    fn a_stand_in_object_reports_nothing_of_its_own() {
        let found =
            paths(json!({"name": "x", "kind": "HOTEND", "alwaysUsed": false, "lines": [7]}));
        assert_eq!(
            found,
            [("lines[0]".to_string(), "errors.invalidType".to_string())]
        );
    }

    #[test]
    fn numbers_with_a_zero_fraction_become_integers() {
        let mut body = json!({"a": 4.0, "b": [1e3, -2.0, 2.5], "c": {"d": 7}, "e": "4.0"});
        assert!(whole_numbers(&mut body));
        assert_eq!(
            body,
            json!({"a": 4, "b": [1000, -2, 2.5], "c": {"d": 7}, "e": "4.0"})
        );
        assert!(!whole_numbers(&mut body), "nothing left to change");
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "action", content = "data", rename_all = "SCREAMING_SNAKE_CASE")]
    #[allow(dead_code)]
    enum Action {
        Sync(Line),
    }

    #[test]
    fn an_unknown_action_is_its_only_fault() {
        let found: Vec<String> = every_fault::<Action>(json!({"action": "NOPE", "data": {"x": 1}}))
            .into_iter()
            .map(|(f, _)| f.path)
            .collect();
        assert_eq!(
            found,
            ["action"],
            "nothing of a variant the caller did not choose"
        );
    }

    #[test]
    fn a_body_that_is_not_an_object_is_one_fault_at_the_root() {
        let found = paths(json!([1, 2]));
        assert_eq!(found, [(String::new(), "errors.invalidType".to_string())]);
    }
}
