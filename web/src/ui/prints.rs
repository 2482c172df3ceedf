//! The prints list: every filter of the API, search, pagination and the CSV export link.

use super::format::wire;
use super::page::{Chrome, Ctx, Page, html};
use crate::api::prints::{PrintDto, Status, filters};
use actix_web::http::StatusCode;
use actors::prints::ListPrints;
use askama::Template;
use std::collections::HashMap;

/// One row of a prints table, formatted for the page's locale.
pub struct Row {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) status: String,
    pub(super) outcome: String,
    pub(super) quantity: u32,
    pub(super) printer: String,
    pub(super) total_cost: String,
    pub(super) date: String,
    pub(super) archived: bool,
    pub(super) paid: bool,
}

#[derive(Template)]
#[template(path = "prints.html")]
struct PrintsPage {
    chrome: Chrome,
    /// The submitted filter values, to refill the form.
    query: HashMap<String, String>,
    rows: Vec<Row>,
    total: u64,
    page: u32,
    pages: u32,
    /// The query string without `page`, for the pagination links and the export.
    base_query: String,
    /// A refused filter's message key.
    fault: Option<&'static str>,
    /// Every status's wire name, in lifecycle order.
    statuses: Vec<String>,
    /// The outcomes the filter offers, by wire name.
    outcomes: Vec<&'static str>,
}

impl PrintsPage {
    fn value(&self, name: &str) -> &str {
        self.query.get(name).map_or("", String::as_str)
    }

    fn selected(&self, name: &str, option: &str) -> bool {
        self.value(name) == option
    }
}

/// The row of `print`.
pub fn row(chrome: &Chrome, print: &PrintDto) -> Row {
    let t = &chrome.t;
    let outcome = print.outcome.as_ref().map_or(String::new(), |o| {
        t.t(&format!("outcome.{}", wire(&o.status))).to_string()
    });
    Row {
        id: print.id.clone(),
        name: print.name.clone(),
        status: t.t(&format!("status.{}", wire(&print.status))).to_string(),
        outcome,
        quantity: print.quantity,
        printer: print.printer.clone().unwrap_or_default(),
        total_cost: t.money_str(&print.total_cost),
        date: t.date(print.completed_at.as_deref().unwrap_or(&print.created_at)),
        archived: print.archived,
        paid: print.paid,
    }
}

/// The filter form's query, without the empty fields (they mean "no filter", so they are
/// dropped before the API's strict parser sees them).
struct Filled {
    /// The values, to refill the form.
    query: HashMap<String, String>,
    /// The query without `page`, for the pagination links and the export.
    base_query: String,
    /// The whole query, for the parser.
    cleaned: String,
}

impl Filled {
    fn of(query_string: &str) -> Filled {
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(query_string).unwrap_or_default();
        let kept: Vec<(String, String)> =
            pairs.into_iter().filter(|(_, v)| !v.is_empty()).collect();
        let paging = |(k, _): &&(String, String)| k != "page";
        Filled {
            query: kept.iter().cloned().collect(),
            base_query: serde_urlencoded::to_string(kept.iter().filter(paging).collect::<Vec<_>>())
                .unwrap_or_default(),
            cleaned: serde_urlencoded::to_string(&kept).unwrap_or_default(),
        }
    }
}

/// Renders a page of prints for the query of the request (the API's list parameters).
pub async fn list(ctx: Ctx) -> Page {
    let Filled {
        query,
        base_query,
        cleaned,
    } = Filled::of(ctx.req.query_string());
    let (rows, total, page_no, page_size, fault) = match filters::parse_query(&cleaned) {
        Ok((list, filter)) => {
            let query = ListPrints {
                list: list.clone(),
                filter,
                with_totals: false,
            };
            let found = ctx.query(query).await?;
            let rows = found
                .prints
                .iter()
                .map(|p| row(&ctx.chrome, &PrintDto::from(p)));
            let total = found.total as u64;
            (rows.collect(), total, list.page, list.page_size, None)
        }
        Err(e) => (Vec::new(), 0, 1, 25, Some(e.code.message_key())),
    };
    let pages = (total.div_ceil(u64::from(page_size.max(1))) as u32).max(1);
    let status = if fault.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let page = PrintsPage {
        chrome: ctx.chrome,
        query,
        rows,
        total,
        page: page_no,
        pages,
        base_query,
        fault,
        statuses: Status::names(),
        outcomes: filters::outcome_names(),
    };
    Ok(html(status, page.render()))
}
