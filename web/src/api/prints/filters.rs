//! Print list, history and export filters from the query string.

use super::Status;
use crate::error::ApiError;
use crate::extract::ListParams;
use crate::input::Faults;
use crate::input::Refusal;
use crate::input::query::{self, Params};
use actors::inventory::ListQuery;
use actors::prints::query::{
    MAX_CONDITIONS, MAX_SET_VALUES, Outcome, PrintFilter, Where, parse_status,
};
use actors::values;
use deserr::Deserr;
use jiff::civil::Date;
use serde_json::{Value, json};
use storage::Id;
use storage::records::PrintStatus;
use utoipa::IntoParams;

/// The JSON schema of a `where` group, as `Where::parse` takes it (its module documents the
/// grammar): one condition, or `{"AND"|"OR": [1 to 20 conditions]}`; a condition is one field:
/// a set `{"in"|"notIn": [1 to 50 values]}` of statuses, outcomes or ids, `archived` true or
/// false, `dateFrom` `{"gte": date}` or `dateTo` `{"lte": date}`.
pub fn where_schema() -> Value {
    let one = |name: &str, test: Value| json!({"type": "object", "properties": {name: test}, "required": [name], "additionalProperties": false});
    let set = |items: Value| {
        let values =
            json!({"type": "array", "minItems": 1, "maxItems": MAX_SET_VALUES, "items": items});
        json!({"oneOf": [one("in", values.clone()), one("notIn", values)]})
    };
    let id = json!({"type": "string", "format": "uuid"});
    // Every calendar date: the pattern gives the shape, `format: date` rules out 02-30 and the like.
    let date = json!({"type": "string", "format": "date", "pattern": format!("^{}$", values::DATE_PATTERN)});
    let condition = json!({"oneOf": [
        one("status", set(json!({"enum": Status::names()}))),
        one("outcome", set(json!({"enum": outcome_names()}))),
        one("printerId", set(id.clone())),
        one("customerId", set(id.clone())),
        one("seriesId", set(id)),
        one("archived", json!({"type": "boolean"})),
        one("dateFrom", one("gte", date.clone())),
        one("dateTo", one("lte", date)),
    ]});
    let group =
        json!({"type": "array", "minItems": 1, "maxItems": MAX_CONDITIONS, "items": condition});
    json!({"oneOf": [condition, one("AND", group.clone()), one("OR", group)]})
}

/// Documents every query parameter `where` of the OpenAPI `document` (as JSON) as JSON content
/// with [`where_schema`]: OpenAPI's way to say a parameter's text is a JSON document.
pub fn document_where(document: &mut Value) {
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    let operations = paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut());
    for operation in operations {
        let Some(parameters) = operation
            .get_mut("parameters")
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        for parameter in parameters.iter_mut().filter(|p| p["name"] == "where") {
            if let Some(parameter) = parameter.as_object_mut() {
                parameter.remove("schema");
                parameter.insert(
                    "content".into(),
                    json!({"application/json": {"schema": where_schema()}}),
                );
            }
        }
    }
}

/// Print filters beyond the common list query.
#[derive(Debug, Clone, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct PrintParams {
    /// Statuses, comma-separated: DRAFT, PRINTING, PRINTED, SHIPPED, DONE.
    #[serde(default)]
    #[deserr(default, rename = "status", try_from(&String) = status_list -> Refusal)]
    #[param(rename = "status", value_type = Option<String>, pattern = "^(DRAFT|PRINTING|PRINTED|SHIPPED|DONE)(,(DRAFT|PRINTING|PRINTED|SHIPPED|DONE))*$")]
    pub statuses: Vec<PrintStatus>,
    /// Outcomes, comma-separated: PENDING (DONE without outcome), SUCCESS, FAILED.
    #[serde(default)]
    #[deserr(default, rename = "outcome", try_from(&String) = outcome_list -> Refusal)]
    #[param(rename = "outcome", value_type = Option<String>, pattern = "^(PENDING|SUCCESS|FAILED)(,(PENDING|SUCCESS|FAILED))*$")]
    pub outcomes: Vec<Outcome>,
    /// Customer id.
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub customer_id: Option<Id>,
    /// Printer id (any part).
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub printer_id: Option<Id>,
    /// Series id.
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub series_id: Option<Id>,
    /// Completion date (else creation date) on or after, YYYY-MM-DD, instance time zone.
    #[param(value_type = Option<String>, format = Date)]
    #[deserr(default, try_from(&String) = query::date -> Refusal)]
    pub date_from: Option<Date>,
    /// Completion date (else creation date) on or before, YYYY-MM-DD, instance time zone.
    #[param(value_type = Option<String>, format = Date)]
    #[deserr(default, try_from(&String) = query::date -> Refusal)]
    pub date_to: Option<Date>,
    /// JSON group: one condition, `{"AND": [...]}` or `{"OR": [...]}` with 1 to 20 conditions on
    /// status, outcome, printerId, customerId, seriesId (`{"in"|"notIn": [...]}`), archived
    /// (bool), dateFrom (`{"gte": date}`), dateTo (`{"lte": date}`).
    #[param(value_type = Option<String>, example = json!(r#"{"AND":[{"status":{"in":["DONE"]}},{"archived":false}]}"#))]
    #[deserr(default, rename = "where", try_from(&String) = group -> Refusal)]
    pub r#where: Option<Where>,
}

/// Every outcome's wire name ([`Outcome::name`]), in the order pages offer them: what the
/// filter's schema and the prints page list.
pub fn outcome_names() -> Vec<&'static str> {
    Outcome::ALL.into_iter().map(Outcome::name).collect()
}

/// `status`: statuses, comma-separated. Errors: `errors.invalidValue`.
fn status_list(text: &str) -> Result<Vec<PrintStatus>, Refusal> {
    query::list(text, parse_status)
}

/// `outcome`: outcomes, comma-separated. Errors: `errors.invalidValue`.
fn outcome_list(text: &str) -> Result<Vec<Outcome>, Refusal> {
    query::list(text, Outcome::parse)
}

/// `where`: a JSON group ([`Where::parse`]). Errors: `errors.invalidWhere`.
fn group(text: &str) -> Result<Option<Where>, Refusal> {
    Where::parse(text)
        .map(Some)
        .map_err(|_| Refusal("errors.invalidWhere"))
}

impl Params for PrintParams {}

/// The rules' list query and print filter of a list query and print parameters.
pub fn filter((list, p): (ListParams, PrintParams)) -> (ListQuery, PrintFilter) {
    let list = ListQuery::from(list);
    let filter = PrintFilter {
        statuses: p.statuses,
        outcomes: p.outcomes,
        customer_id: p.customer_id,
        printer_id: p.printer_id,
        series_id: p.series_id,
        date_from: p.date_from,
        date_to: p.date_to,
        search: list.search.as_ref().map(|s| s.to_lowercase()),
        include_archived: list.include_archived,
        group: p.r#where,
    };
    (list, filter)
}

/// The list query and print filter of a query string (without `?`), for the UI's list page.
///
/// Errors: 422 with every parameter at fault.
pub fn parse_query(query: &str) -> Result<(ListQuery, PrintFilter), ApiError> {
    query::parse_form::<(ListParams, PrintParams)>(query).map(filter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::IntoParams;

    /// The query parameters' patterns (literals, as utoipa's attributes take them) list exactly
    /// the names the domain spells once: a status or outcome added there fails here until the
    /// pattern follows.
    #[test]
    fn the_status_and_outcome_patterns_list_the_names_spelled_once() {
        let params = PrintParams::into_params(|| None);
        let pattern_of = |name: &str| {
            let param = params.iter().find(|p| p.name == name).unwrap();
            let schema = serde_json::to_value(&param.schema).unwrap();
            schema["pattern"].as_str().unwrap().to_string()
        };
        let list = |names: Vec<String>| {
            let one = names.join("|");
            format!("^({one})(,({one}))*$")
        };
        assert_eq!(pattern_of("status"), list(Status::names()));
        let outcomes = outcome_names().into_iter().map(str::to_string).collect();
        assert_eq!(pattern_of("outcome"), list(outcomes));
    }
}
