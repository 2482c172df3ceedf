//! HTML forms checked by the API's input types: a form body becomes the JSON object the API
//! would receive, and is parsed by the same strict parser, so a form and an API call get the
//! same field errors.

use crate::error::ApiError;
use crate::input;
use deserr::Deserr;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// How a form field becomes JSON.
#[derive(Debug, Clone, Copy)]
pub enum Field {
    /// A text input: a JSON string (`""` stays `""`, the API decides).
    Text(&'static str),
    /// A checkbox: `true` when sent, `false` when not.
    Check(&'static str),
}

/// The submitted values of a form, in order (a repeated name keeps every value).
#[derive(Debug, Default, Clone)]
pub struct Submitted(pub Vec<(String, String)>);

impl Submitted {
    /// Parses an `application/x-www-form-urlencoded` body.
    pub fn parse(body: &[u8]) -> Submitted {
        Submitted(serde_urlencoded::from_bytes(body).unwrap_or_default())
    }

    /// Sets `name` to `value` (to prefill a form).
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        self.0.retain(|(n, _)| *n != name);
        self.0.push((name, value.into()));
    }

    /// The last value of `name`, or `""`.
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// Every value of `name` (a multiple select).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Whether `name` was sent with `value` (an option of a multiple select).
    pub fn has(&self, name: &str, value: &str) -> bool {
        self.0.iter().any(|(n, v)| n == name && v == value)
    }

    /// Whether a checkbox `name` was sent.
    pub fn checked(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n == name)
    }

    /// The API input `T` from the `fields` of this form.
    ///
    /// Errors: the API's `VALIDATION_FAILED` with field errors, as for the JSON body.
    pub fn input<T: Deserr<input::Faults>>(&self, fields: &[Field]) -> Result<T, ApiError> {
        let mut object = Map::new();
        for field in fields {
            match *field {
                Field::Text(name) => {
                    object.insert(name.to_string(), Value::String(self.get(name).to_string()));
                }
                Field::Check(name) => {
                    object.insert(name.to_string(), Value::Bool(self.checked(name)));
                }
            }
        }
        input::parse(Value::Object(object))
    }

    /// The API input `T` from a form whose field names are JSON paths, as in the API's field
    /// errors: `name`, `parts[0].printerId`, `parts[0].hotends[1].durationSeconds`; a name
    /// ending in `[]` appends to an array (a multiple select).
    ///
    /// Empty values are left out (the API's default or `null`); `"on"` of a checkbox is `true`;
    /// fields named in `numbers` (by their whole name: `quantity`, `every.count`; a part's
    /// material line's `parts[0].materials[0].quantity` is a decimal string) become JSON numbers
    /// when they are whole numbers;
    /// a field `…Minutes` becomes `…Seconds` (minutes × 60, whole seconds). `static/app.js`
    /// builds the same document for the live cost preview.
    ///
    /// Errors: the API's `VALIDATION_FAILED` with field errors at those same paths.
    pub fn document<T: Deserr<input::Faults>>(&self, numbers: &[&str]) -> Result<T, ApiError> {
        input::parse(self.tree(numbers))
    }

    /// As [`Submitted::tree`], with `list` an empty array when no box of it was ticked (the API
    /// then says the list is too short, not missing).
    pub fn tree_with_list(&self, numbers: &[&str], list: &str) -> Value {
        let mut tree = self.tree(numbers);
        if tree.get(list).is_none() {
            tree[list] = Value::Array(Vec::new());
        }
        tree
    }

    /// The JSON document of [`Submitted::document`] before the API's parser sees it (to show a
    /// refused form again).
    pub fn tree(&self, numbers: &[&str]) -> Value {
        let mut root = Value::Object(Map::new());
        for (name, value) in &self.0 {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            let mut segments = path(name);
            let Some(Segment::Key(last)) = segments.pop() else {
                continue;
            };
            let number = numbers.contains(&name.as_str());
            let (last, value) = leaf(last, value, number);
            let parent = segments
                .iter()
                .fold(&mut root, |node, segment| step(node, segment));
            if !parent.is_object() {
                *parent = Value::Object(Map::new());
            }
            match last.strip_suffix("[]") {
                Some(list) => {
                    if let Some(object) = parent.as_object_mut() {
                        let entry = object
                            .entry(list.to_string())
                            .or_insert_with(|| Value::Array(Vec::new()));
                        if let Some(items) = entry.as_array_mut() {
                            items.push(value);
                        }
                    }
                }
                None => {
                    if let Some(object) = parent.as_object_mut() {
                        object.insert(last, value);
                    }
                }
            }
        }
        compact(&mut root);
        root
    }
}

/// One step of a field path.
#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// Largest array index a form field may name (forms have at most 100 parts; this bounds the
/// memory a crafted name can claim).
const MAX_INDEX: usize = 1000;

/// `parts[0].hotends[1].componentId` → Key(parts), Index(0), Key(hotends), Index(1),
/// Key(componentId). A trailing `[]` stays on its key. Empty for a malformed or too large index
/// (the field is then left out).
fn path(name: &str) -> Vec<Segment> {
    let mut segments = Vec::new();
    for piece in name.split('.') {
        let (key, mut rest) = piece.split_once('[').map_or((piece, ""), |(k, r)| (k, r));
        if rest == "]" {
            segments.push(Segment::Key(format!("{key}[]")));
            continue;
        }
        segments.push(Segment::Key(key.to_string()));
        while let Some((index, tail)) = rest.split_once(']') {
            match index.parse() {
                Ok(i) if i < MAX_INDEX => segments.push(Segment::Index(i)),
                _ => return Vec::new(),
            }
            rest = tail.strip_prefix('[').unwrap_or(tail);
        }
    }
    segments
}

/// The JSON name and value of a leaf field; a whole number for a field named as a number.
fn leaf(name: String, value: &str, number: bool) -> (String, Value) {
    if let Some(stem) = name.strip_suffix("Minutes")
        && let Ok(minutes) = value.replace(',', ".").parse::<f64>()
        && (0.0..=35_791_394.0).contains(&minutes)
    {
        let seconds = (minutes * 60.0).round() as u64;
        return (format!("{stem}Seconds"), Value::from(seconds));
    }
    if number && let Ok(n) = value.parse::<u64>() {
        return (name, Value::from(n));
    }
    if value == "on" {
        return (name, Value::Bool(true));
    }
    (name, Value::String(value.to_string()))
}

/// The child of `node` at `segment`, created as needed (`Value`'s index operators insert into
/// objects; arrays are grown first).
fn step<'a>(node: &'a mut Value, segment: &Segment) -> &'a mut Value {
    match segment {
        Segment::Key(key) => {
            if !node.is_object() {
                *node = Value::Object(Map::new());
            }
            &mut node[key.as_str()]
        }
        Segment::Index(i) => {
            if !node.is_array() {
                *node = Value::Array(Vec::new());
            }
            if let Value::Array(items) = node
                && items.len() <= *i
            {
                items.resize(*i + 1, Value::Null);
            }
            &mut node[*i]
        }
    }
}

/// Drops array holes (a removed row's index) so the API sees the rows in order.
fn compact(node: &mut Value) {
    match node {
        Value::Array(items) => {
            items.retain(|v| !v.is_null());
            items.iter_mut().for_each(compact);
        }
        Value::Object(object) => object.values_mut().for_each(compact),
        _ => {}
    }
}

/// Field errors of a refused form, as message keys by field path, for the template.
#[derive(Debug, Default, Clone)]
pub struct Faults {
    /// The whole-form message key (the error's code), when the form was refused.
    pub form: Option<&'static str>,
    by_field: HashMap<String, String>,
}

impl Faults {
    /// The faults of `error`.
    pub fn of(error: &ApiError) -> Faults {
        Faults {
            form: Some(error.code.message_key()),
            by_field: error
                .field_errors
                .iter()
                .map(|f| (f.path.clone(), f.message_key.to_string()))
                .collect(),
        }
    }

    /// The message key for `field`, or `""`.
    pub fn at(&self, field: &str) -> &str {
        self.by_field.get(field).map_or("", String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(pairs: &[(&str, &str)]) -> Submitted {
        Submitted(
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn field_paths_become_the_api_document() {
        let submitted = form(&[
            ("name", "Stand"),
            ("quantity", "3"),
            ("salesValue", ""),
            ("parts[0].id", ""),
            ("parts[0].printerId", "p1"),
            ("parts[0].hotends[0].componentId", "h1"),
            ("parts[0].hotends[0].durationMinutes", "90.5"),
            ("parts[0].otherComponentIds[]", "c1"),
            ("parts[0].otherComponentIds[]", "c2"),
            ("parts[2].printerId", "p2"),
            ("parts[2].filaments[1].usedGrams", "10"),
            ("parts[2].materials[0].quantity", "2"),
            ("archived", "on"),
        ]);
        assert_eq!(
            submitted.tree(&["quantity"]),
            json!({
                "name": "Stand",
                "quantity": 3,
                "archived": true,
                "parts": [
                    {
                        "printerId": "p1",
                        "hotends": [{"componentId": "h1", "durationSeconds": 5430}],
                        "otherComponentIds": ["c1", "c2"],
                    },
                    {
                        "printerId": "p2",
                        "filaments": [{"usedGrams": "10"}],
                        // A material line's quantity is its own, a decimal string.
                        "materials": [{"quantity": "2"}],
                    },
                ],
            })
        );
    }

    #[test]
    fn malformed_or_huge_indices_are_left_out_and_bad_numbers_stay_text() {
        let submitted = form(&[
            ("parts[99999999].printerId", "p"),
            ("parts[x].printerId", "p"),
            ("quantity", "many"),
            ("parts[0].hotends[0].durationMinutes", "soon"),
        ]);
        assert_eq!(
            submitted.tree(&["quantity"]),
            json!({
                "quantity": "many",
                "parts": [{"hotends": [{"durationMinutes": "soon"}]}],
            })
        );
    }
}
