//! Inputs that take one of several shapes: an integration action `{ "action": "<NAME>", "data":
//! {…} }` (the `actions!` macro), and a PATCH that is either one named field alone or a whole record
//! ([`one_field`]).

use super::Faults;
use deserr::{DeserializeError, ErrorKind, IntoValue, Map, Value, ValueKind, ValuePointerRef};

/// The fault of `error` at `location`.
fn refuse<V: IntoValue>(error: ErrorKind<V>, location: ValuePointerRef) -> Faults {
    deserr::take_cf_content(Faults::error(None, error, location))
}

/// The action's name (one of `names`) and its `data` of the action body `value`.
///
/// Errors: a body that is not an object (`errors.invalidType`); `action` missing
/// (`errors.required`), not a string (`errors.invalidType`) or not one of `names`
/// (`errors.invalidValue`, and then nothing else is reported: the faults of another action's
/// data would mislead); `data` missing (`errors.required`); any other field
/// (`errors.unknownField`).
pub fn action<V: IntoValue>(
    value: Value<V>,
    location: ValuePointerRef,
    names: &[&'static str],
) -> Result<(&'static str, Value<V>), Faults> {
    let Value::Map(map) = value else {
        let kind = ErrorKind::IncorrectValueKind {
            actual: value,
            accepted: &[ValueKind::Map],
        };
        return Err(refuse(kind, location));
    };
    let mut faults = Faults::default();
    let (mut name, mut data) = (None, None);
    for (key, value) in map.into_iter() {
        match key.as_str() {
            "action" => name = Some(value.into_value()),
            "data" => data = Some(value.into_value()),
            _ => {
                let kind = ErrorKind::UnknownKey {
                    key: &key,
                    accepted: &["action", "data"],
                };
                faults = faults.and(refuse::<V>(kind, location));
            }
        }
    }
    let at = location.push_key("action");
    let name = match name {
        None => {
            faults = faults.and(refuse::<V>(
                ErrorKind::MissingField { field: "action" },
                location,
            ));
            None
        }
        Some(Value::String(text)) => match names.iter().find(|n| **n == text) {
            Some(known) => Some(*known),
            None => {
                let kind = ErrorKind::UnknownValue {
                    value: &text,
                    accepted: names,
                };
                return Err(refuse::<V>(kind, at));
            }
        },
        Some(other) => {
            let kind = ErrorKind::IncorrectValueKind {
                actual: other,
                accepted: &[ValueKind::String],
            };
            faults = faults.and(refuse(kind, at));
            None
        }
    };
    if data.is_none() {
        faults = faults.and(refuse::<V>(
            ErrorKind::MissingField { field: "data" },
            location,
        ));
    }
    match (name, data) {
        (Some(name), Some(data)) if faults.is_empty() => Ok((name, data)),
        _ => Err(faults),
    }
}

/// Implements [`deserr::Deserr`] for an action enum whose variants each hold their data:
/// `actions!(FleetAction { "LINK_PRINTER" => LinkPrinter, … })`. The names are the wire's (the
/// enum's `#[serde(tag = "action", content = "data")]` documents the same for OpenAPI).
macro_rules! actions {
    ($name:ident { $($wire:literal => $variant:ident),+ $(,)? }) => {
        impl deserr::Deserr<$crate::input::Faults> for $name {
            fn deserialize_from_value<V: deserr::IntoValue>(
                value: deserr::Value<V>,
                location: deserr::ValuePointerRef,
            ) -> Result<Self, $crate::input::Faults> {
                let (name, data) =
                    $crate::input::shape::action(value, location, &[$($wire),+])?;
                let at = location.push_key("data");
                match name {
                    $($wire => deserr::Deserr::deserialize_from_value(data, at).map($name::$variant),)+
                    other => Err($crate::input::Faults::one(
                        "action".into(),
                        "errors.invalidValue",
                        format!("unknown action `{other}`"),
                    )),
                }
            }
        }
    };
}
pub(crate) use actions;

/// What a PATCH body holds: exactly one field, named among those asked for, with its value; or
/// any other body, whole.
pub enum Shape<V: IntoValue> {
    /// The one field's name and value.
    One(&'static str, V),
    /// The body as it came.
    Whole(Value<V>),
}

/// The shape of `value`: [`Shape::One`] when it is an object with exactly one field and that
/// field is one of `names`, else [`Shape::Whole`].
pub fn one_field<V: IntoValue>(value: Value<V>, names: &[&'static str]) -> Shape<V> {
    match value {
        Value::Map(mut map) if map.len() == 1 => {
            for name in names {
                if let Some(field) = map.remove(name) {
                    return Shape::One(name, field);
                }
            }
            Shape::Whole(Value::Map(map))
        }
        other => Shape::Whole(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse;
    use crate::input::tests::pairs;
    use deserr::Deserr;
    use serde_json::{Value, json};

    #[derive(Debug, Deserr)]
    #[deserr(error = Faults, deny_unknown_fields)]
    struct Data {
        grams: u32,
    }

    #[derive(Debug)]
    enum Action {
        Book(Data),
        Count(Data),
    }
    actions!(Action { "BOOK" => Book, "COUNT" => Count });

    fn faults(body: Value) -> Vec<(String, String)> {
        pairs(&parse::<Action>(body).expect_err("refused"))
    }

    #[test]
    fn an_action_parses_its_own_data() {
        let action = parse::<Action>(json!({"action": "COUNT", "data": {"grams": 3}}));
        assert!(matches!(action, Ok(Action::Count(Data { grams: 3 }))));
        let action = parse::<Action>(json!({"action": "BOOK", "data": {"grams": 4}}));
        assert!(matches!(action, Ok(Action::Book(Data { grams: 4 }))));
    }

    #[test]
    fn an_unknown_action_is_its_only_fault() {
        let found = faults(json!({"action": "NOPE", "data": {"x": 1}, "extra": 1}));
        assert_eq!(found, [("action".into(), "errors.invalidValue".into())]);
    }

    #[test]
    fn every_other_fault_of_an_action_is_listed() {
        let mut found = faults(json!({"extra": 1}));
        found.sort();
        let expected = [
            ("action", "errors.required"),
            ("data", "errors.required"),
            ("extra", "errors.unknownField"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(p, k)| (p.to_string(), k.to_string()))
            .collect();
        assert_eq!(found, expected);
        let found = faults(json!({"action": "BOOK", "data": {"grams": -1, "x": 2}}));
        assert_eq!(
            found,
            [
                ("data.grams".into(), "errors.invalidValue".into()),
                ("data.x".into(), "errors.unknownField".into())
            ]
        );
    }

    #[test]
    fn one_named_field_alone_is_its_own_shape() {
        let one = |value: Value| match one_field(value.into_value(), &["paid", "archived"]) {
            Shape::One(name, _) => Some(name),
            Shape::Whole(_) => None,
        };
        assert_eq!(one(json!({"archived": true})), Some("archived"));
        assert_eq!(one(json!({"paid": false})), Some("paid"));
        assert_eq!(one(json!({"name": "x"})), None, "not a named field");
        assert_eq!(one(json!({"paid": true, "name": "x"})), None, "not alone");
    }
}
