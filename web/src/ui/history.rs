//! Series and customer history pages, and the series list: the prints of a series or a customer
//! with totals over all of them, and a series' next run.

use super::Chrome;
use super::changes::{self, ChangeRow};
use super::choices;
use super::format;
use super::forms::{Faults, Submitted};
use super::i18n;
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use super::prints::{Row, row};
use crate::api::prints::filters;
use crate::api::series::{History, SeriesDto, SeriesInputDto, history};
use crate::error::ApiError;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::inventory::ListQuery;
use actors::inventory::commands::GetRecord;
use actors::inventory::customers::Customers;
use actors::prints::{NextRun, Scope};
use actors::series::{ArchiveSeries, CreateSeries, GetSeries, ListSeries, SetSeriesState};
use askama::Template;
use storage::records::SeriesStatus;

/// Totals of a history, formatted.
struct Totals {
    prints: u64,
    units: u64,
    total_cost: String,
    sales_value: String,
    planned_margin: String,
}

fn totals(t: &i18n::Tr, h: &History) -> Totals {
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
    chrome: Chrome,
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
    /// A series' history ("who changed what"); a customer's is on its own record page.
    changes: Option<Vec<ChangeRow>>,
    faults: Faults,
}

async fn show(ctx: Ctx, scope: Scope, faults: Faults, status: StatusCode) -> Page {
    let query = filters::parse_query(ctx.req.query_string()).map_err(|e| ctx.fail(&e))?;
    let found = history(&ctx.state, query, scope)
        .await
        .map_err(|e| ctx.fail(&e))?;
    let (title, series, changes) = match scope {
        Scope::Series(id) => {
            let series = ctx.query(GetSeries(id)).await?;
            let changes = changes::of(&ctx, id).await?;
            (
                series.name.clone(),
                Some(SeriesDto::from(series)),
                Some(changes),
            )
        }
        Scope::Customer(id) => {
            let view = ctx.query(GetRecord::<Customers>::new(id)).await?;
            (view.name, None, None)
        }
    };
    let wire = series
        .as_ref()
        .map(|s| format::wire(&s.status))
        .unwrap_or_default();
    let page = HistoryPage {
        series_state: ctx.chrome.t.t(&format!("seriesState.{wire}")).to_string(),
        series_open: wire == "OPEN",
        rows: found.items.iter().map(|p| row(&ctx.chrome, p)).collect(),
        totals: totals(&ctx.chrome.t, &found),
        latest: found.items.first().map(|p| (p.id.clone(), p.name.clone())),
        title,
        series,
        changes,
        faults,
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

/// `GET /customers/{id}/history`.
pub async fn customer(ctx: Ctx) -> Page {
    let scope = Scope::Customer(ctx.id()?);
    show(ctx, scope, Faults::default(), StatusCode::OK).await
}

/// `GET /series/{id}`: the series, its history and its commands.
pub async fn series_page(ctx: Ctx) -> Page {
    let scope = Scope::Series(ctx.id()?);
    show(ctx, scope, Faults::default(), StatusCode::OK).await
}

/// `POST /series/{id}/next-run` (field `sourcePrintId`): the new draft's page.
pub async fn next_run(ctx: Ctx, body: Bytes) -> Page {
    let series_id = ctx.id()?;
    let source = Submitted::parse(&body).get("sourcePrintId").parse();
    let result = match source {
        Ok(source_print_id) => {
            let command = NextRun {
                series_id,
                source_print_id,
            };
            ctx.state.send(command).await
        }
        Err(_) => Err(ApiError::field("sourcePrintId", "errors.notFound")),
    };
    match result {
        Ok(print) => Ok(see_other(&paths::print(print.id))),
        Err(e) => {
            let status = e.code.status();
            show(ctx, Scope::Series(series_id), Faults::of(&e), status).await
        }
    }
}

/// `POST /series/{id}/state` (field `status`: COMPLETED, else OPEN).
pub async fn set_state(ctx: Ctx, body: Bytes) -> Page {
    let status = match Submitted::parse(&body).get("status") {
        "COMPLETED" => SeriesStatus::Completed,
        _ => SeriesStatus::Open,
    };
    let id = ctx.id()?;
    let command = SetSeriesState { id, status };
    ctx.state.send(command).await.map_err(|e| ctx.fail(&e))?;
    Ok(see_other(&paths::series(id)))
}

/// `POST /series/{id}/archive` (field `value`: `true` archives, `false` restores).
pub async fn archive(ctx: Ctx, body: Bytes) -> Page {
    let archived = Submitted::parse(&body).get("value") == "true";
    let id = ctx.id()?;
    let command = ArchiveSeries { id, archived };
    ctx.state.send(command).await.map_err(|e| ctx.fail(&e))?;
    Ok(see_other(&paths::series(id)))
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
    chrome: Chrome,
    rows: Vec<SeriesRow>,
    customers: Vec<choices::Choice>,
    form: Submitted,
    faults: Faults,
}

async fn list_page(ctx: Ctx, form: Submitted, faults: Faults, status: StatusCode) -> Page {
    let query = ListQuery {
        page_size: 1000,
        include_archived: true,
        ..ListQuery::default()
    };
    let found = ctx.query(ListSeries(query)).await?;
    let customers = choices::of::<Customers>(&ctx).await?;
    let t = &ctx.chrome.t;
    let rows = found
        .items
        .into_iter()
        .map(SeriesDto::from)
        .map(|s| SeriesRow {
            status: t
                .t(&format!("seriesState.{}", format::wire(&s.status)))
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
    Ok(html(status, page.render()))
}

/// `GET /series`: every series and the form for a new one.
pub async fn list(ctx: Ctx) -> Page {
    list_page(ctx, Submitted::default(), Faults::default(), StatusCode::OK).await
}

/// `POST /series`: creates an OPEN series.
pub async fn create(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let result = match ctx.typed(|| form.document::<SeriesInputDto>(&["target"])) {
        Ok(input) => ctx.state.send(CreateSeries(input.into())).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(created) => Ok(see_other(&paths::series(created.id))),
        Err(e) => {
            let status = e.code.status();
            list_page(ctx, form, Faults::of(&e), status).await
        }
    }
}
