//! HTML forms checked by the API's input types: a form body becomes the JSON object the API
//! would receive, and is parsed by the same strict parser, so a form and an API call get the
//! same field errors.

use crate::error::ApiError;
use crate::extract::parse_json;
use serde::de::DeserializeOwned;
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

/// The submitted values of a form, by field name (the last value of a repeated name).
#[derive(Debug, Default, Clone)]
pub struct Submitted(pub HashMap<String, String>);

impl Submitted {
    /// Parses an `application/x-www-form-urlencoded` body.
    pub fn parse(body: &[u8]) -> Submitted {
        Submitted(serde_urlencoded::from_bytes(body).unwrap_or_default())
    }

    /// The value of `name`, or `""`.
    pub fn get(&self, name: &str) -> &str {
        self.0.get(name).map_or("", String::as_str)
    }

    /// Whether a checkbox `name` was sent.
    pub fn checked(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The API input `T` from the `fields` of this form.
    ///
    /// Errors: the API's `VALIDATION_FAILED` with field errors, as for the JSON body.
    pub fn input<T: DeserializeOwned>(&self, fields: &[Field]) -> Result<T, ApiError> {
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
        parse_json(Value::Object(object).to_string().as_bytes())
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
