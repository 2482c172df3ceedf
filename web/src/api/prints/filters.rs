//! Print list, history and export filters from the query string.

use crate::error::ApiError;
use crate::extract::{ListParams, QueryFields};
use actix_web::HttpRequest;
use actors::inventory::ListQuery;
use actors::prints::query::{Outcome, PrintFilter, Where, parse_status};
use utoipa::IntoParams;

/// Print filters beyond the common list query.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct PrintParams {
    /// Statuses, comma-separated: DRAFT, PRINTING, PRINTED, SHIPPED, DONE.
    pub status: Option<String>,
    /// Outcomes, comma-separated: PENDING (DONE without outcome), SUCCESS, FAILED.
    pub outcome: Option<String>,
    /// Customer id.
    pub customerId: Option<String>,
    /// Printer id (any part).
    pub printerId: Option<String>,
    /// Series id.
    pub seriesId: Option<String>,
    /// Completion date (else creation date) on or after, YYYY-MM-DD, instance time zone.
    pub dateFrom: Option<String>,
    /// Completion date (else creation date) on or before, YYYY-MM-DD, instance time zone.
    pub dateTo: Option<String>,
    /// JSON group: one condition, `{"AND": [...]}` or `{"OR": [...]}` with 1 to 20 conditions on
    /// status, outcome, printerId, customerId, seriesId (`{"in"|"notIn": [...]}`), archived
    /// (bool), dateFrom (`{"gte": date}`), dateTo (`{"lte": date}`).
    #[param(example = json!(r#"{"AND":[{"status":{"in":["DONE"]}},{"archived":false}]}"#))]
    pub r#where: Option<String>,
}

fn list<T>(query: &mut QueryFields, name: &str, parse: impl Fn(&str) -> Option<T>) -> Vec<T> {
    let Some(text) = query.text(name) else {
        return Vec::new();
    };
    let parsed: Option<Vec<T>> = text.split(',').map(|t| parse(t.trim())).collect();
    parsed.unwrap_or_else(|| {
        query.push_fault(name, "errors.invalidValue");
        Vec::new()
    })
}

fn date(query: &mut QueryFields, name: &str) -> Option<jiff::civil::Date> {
    let text = query.text(name)?;
    match text.parse() {
        Ok(d) => Some(d),
        Err(_) => {
            query.push_fault(name, "errors.invalidDate");
            None
        }
    }
}

/// The list query and print filters of `req`. Errors: 422 with every parameter at fault.
pub fn parse(req: &HttpRequest) -> Result<(ListQuery, PrintFilter), ApiError> {
    parse_query(req.query_string())
}

/// [`parse`] for a query string (without `?`), for the UI's list page.
pub fn parse_query(query: &str) -> Result<(ListQuery, PrintFilter), ApiError> {
    let mut query = QueryFields::parse(query)?;
    let list_query = ListParams::parse(&mut query);
    let group = match query.text("where") {
        Some(text) => Some(Where::parse(&text).map_err(ApiError::from)?),
        None => None,
    };
    let filter = PrintFilter {
        statuses: list(&mut query, "status", parse_status),
        outcomes: list(&mut query, "outcome", Outcome::parse),
        customer_id: query.id("customerId"),
        printer_id: query.id("printerId"),
        series_id: query.id("seriesId"),
        date_from: date(&mut query, "dateFrom"),
        date_to: date(&mut query, "dateTo"),
        search: list_query.search.as_ref().map(|s| s.to_lowercase()),
        include_archived: list_query.include_archived,
        group,
    };
    query.finish()?;
    Ok((list_query, filter))
}
