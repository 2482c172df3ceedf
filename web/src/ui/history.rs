//! Series and customer history pages, and the series list: the prints of a series or a customer
//! with totals over all of them, and a series' next run.

use super::forms::{Faults, Submitted};
use super::page::{Ctx, html, see_other};
use super::prints::{Row, row};
use crate::api::series::{History, Scope, SeriesDto, SeriesInputDto, history, start_next_run};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::inventory::ListQuery;
use actors::series::{self, SeriesInput};
use askama::Template;
use storage::records::SeriesStatus;
use storage::{Id, Timestamp, WriteTransaction};

/// Totals of a history, formatted.
struct Totals {
    prints: u64,
    units: u64,
    total_cost: String,
    sales_value: String,
    planned_margin: String,
}

fn totals(t: &super::i18n::Tr, h: &History) -> Totals {
    Totals {
        prints: h.totals.prints,
        units: h.totals.units,
        total_cost: t.money_str(&h.totals.total_cost),
        sales_value: t.money_str(&h.totals.sales_value),
        planned_margin: t.money_str(&h.totals.planned_margin),
    }
}

#[derive(Template)]
#[template(path = "history.html")]
struct HistoryPage {
    chrome: super::Chrome,
    title: String,
    rows: Vec<Row>,
    totals: Totals,
    /// The series (for its commands), or `None` for a customer.
    series: Option<SeriesDto>,
    /// The print a next run copies by default: the series' newest.
    latest: Option<(String, String)>,
    /// The series' state, translated, and whether it is OPEN.
    series_state: String,
    series_open: bool,
    faults: Faults,
}

async fn show(ctx: Ctx, scope: Scope, faults: Faults, status: StatusCode) -> HttpResponse {
    let id = match ctx.id() {
        Ok(id) => id,
        Err(page) => return *page,
    };
    let is_series = matches!(scope, Scope::Series(_));
    let found = match history(&ctx.state, &ctx.req, scope).await {
        Ok(found) => found,
        Err(e) => return ctx.fail(&e),
    };
    let (title, series) = match is_series {
        true => match ctx.read(move |tx| series::get(tx, id)).await {
            Ok(s) => (s.name.clone(), Some(SeriesDto::from(s))),
            Err(page) => return *page,
        },
        false => {
            let customer = ctx
                .read(move |tx| actors::inventory::get::<storage::records::Customer>(tx, id))
                .await;
            match customer {
                Ok(c) => (c.name, None),
                Err(page) => return *page,
            }
        }
    };
    let wire = series
        .as_ref()
        .map(|s| super::print_detail::wire(&s.status))
        .unwrap_or_default();
    let page = HistoryPage {
        series_state: ctx.chrome.t.t(&format!("seriesState.{wire}")).to_string(),
        series_open: wire == "OPEN",
        rows: found.items.iter().map(|p| row(&ctx.chrome, p)).collect(),
        totals: totals(&ctx.chrome.t, &found),
        latest: found.items.first().map(|p| (p.id.clone(), p.name.clone())),
        title,
        series,
        faults,
        chrome: ctx.chrome,
    };
    html(status, page.render())
}

/// `GET /customers/{id}/history`.
pub async fn customer(ctx: Ctx) -> HttpResponse {
    match ctx.id() {
        Ok(id) => show(ctx, Scope::Customer(id), Faults::default(), StatusCode::OK).await,
        Err(page) => *page,
    }
}

/// `GET /series/{id}`: the series, its history and its commands.
pub async fn series_page(ctx: Ctx) -> HttpResponse {
    match ctx.id() {
        Ok(id) => show(ctx, Scope::Series(id), Faults::default(), StatusCode::OK).await,
        Err(page) => *page,
    }
}

/// `POST /series/{id}/next-run` (field `sourcePrintId`): the new draft's page.
pub async fn next_run(ctx: Ctx, body: Bytes) -> HttpResponse {
    let id = match ctx.id() {
        Ok(id) => id,
        Err(page) => return *page,
    };
    let source = Submitted::parse(&body).get("sourcePrintId").parse();
    let result = match source {
        Ok(source) => start_next_run(&ctx.state, id, source).await,
        Err(_) => Err(crate::error::ApiError::field(
            "sourcePrintId",
            "errors.notFound",
        )),
    };
    match result {
        Ok(print) => see_other(&format!("/prints/{}", print.id)),
        Err(e) => {
            let status = e.code.status();
            show(ctx, Scope::Series(id), Faults::of(&e), status).await
        }
    }
}

/// `POST /series/{id}/state` (field `status`: COMPLETED, else OPEN).
pub async fn set_state(ctx: Ctx, body: Bytes) -> HttpResponse {
    let status = match Submitted::parse(&body).get("status") {
        "COMPLETED" => SeriesStatus::Completed,
        _ => SeriesStatus::Open,
    };
    change(ctx, move |txn, id, now| {
        series::set_status(txn, id, status, now)
    })
    .await
}

/// `POST /series/{id}/archive` (field `value`: `true` archives, `false` restores).
pub async fn archive(ctx: Ctx, body: Bytes) -> HttpResponse {
    let archived = Submitted::parse(&body).get("value") == "true";
    change(ctx, move |txn, id, now| {
        series::set_archived(txn, id, archived, now)
    })
    .await
}

/// Runs `command` on the series of the path and shows the series again.
async fn change<F>(ctx: Ctx, command: F) -> HttpResponse
where
    F: Fn(&WriteTransaction, Id, Timestamp) -> actors::Result<storage::records::Series>
        + Send
        + 'static,
{
    let id = match ctx.id() {
        Ok(id) => id,
        Err(page) => return *page,
    };
    let result = ctx
        .state
        .series
        .run(move |txn| command(txn, id, Timestamp::now()))
        .await;
    match result {
        Ok(_) => see_other(&format!("/series/{id}")),
        Err(e) => ctx.fail(&e.into()),
    }
}

/// A series list line.
struct SeriesRow {
    id: String,
    name: String,
    status: String,
    target: String,
    archived: bool,
}

#[derive(Template)]
#[template(path = "series_list.html")]
struct SeriesList {
    chrome: super::Chrome,
    rows: Vec<SeriesRow>,
    customers: Vec<super::choices::Choice>,
    form: Submitted,
    faults: Faults,
}

async fn list_page(ctx: Ctx, form: Submitted, faults: Faults, status: StatusCode) -> HttpResponse {
    let query = ListQuery {
        page_size: 1000,
        include_archived: true,
        ..ListQuery::default()
    };
    let read = ctx
        .read(move |tx| {
            series::require_enabled(tx)?;
            let customers = super::choices::of::<crate::api::customers::Customers>(tx, "")?;
            Ok((series::list(tx, &query)?, customers))
        })
        .await;
    let (found, customers) = match read {
        Ok(found) => found,
        Err(page) => return *page,
    };
    let t = &ctx.chrome.t;
    let rows = found
        .items
        .into_iter()
        .map(SeriesDto::from)
        .map(|s| SeriesRow {
            status: t
                .t(&format!(
                    "seriesState.{}",
                    super::print_detail::wire(&s.status)
                ))
                .to_string(),
            target: s.target.map(|n| n.to_string()).unwrap_or_default(),
            id: s.id,
            name: s.name,
            archived: s.archived,
        })
        .collect();
    let page = SeriesList {
        rows,
        customers,
        form,
        faults,
        chrome: ctx.chrome,
    };
    html(status, page.render())
}

/// `GET /series`: every series and the form for a new one.
pub async fn list(ctx: Ctx) -> HttpResponse {
    list_page(ctx, Submitted::default(), Faults::default(), StatusCode::OK).await
}

/// `POST /series`: creates an OPEN series.
pub async fn create(ctx: Ctx, body: Bytes) -> HttpResponse {
    let form = Submitted::parse(&body);
    let result = match form.document::<SeriesInputDto>(&["target"]) {
        Ok(input) => {
            let input = SeriesInput::from(input);
            ctx.state
                .series
                .run(move |txn| series::create(txn, &input, Timestamp::now()))
                .await
                .map_err(crate::error::ApiError::from)
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(created) => see_other(&format!("/series/{}", created.id)),
        Err(e) => {
            let status = e.code.status();
            list_page(ctx, form, Faults::of(&e), status).await
        }
    }
}
