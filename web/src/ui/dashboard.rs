//! The dashboard page: KPI tiles and SVG charts for 30 days, 90 days or all time.

use super::chart::{self, BarChart, RING_RADIUS};
use super::page::{Chrome, error_page, html};
use super::paths;
use crate::api::dashboard::load;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::web::{Data, Query};
use actix_web::{HttpRequest, HttpResponse};
use actors::dashboard::{Dashboard, Period};
use askama::Template;
use serde::Deserialize;

/// `?period=30d|90d|all`; anything else is 30d.
#[derive(Debug, Deserialize)]
pub struct PeriodQuery {
    period: Option<String>,
}

#[derive(Template)]
#[template(path = "dashboard.html")]
struct DashboardPage {
    chrome: Chrome,
    period: &'static str,
    board: Dashboard,
    costs: BarChart,
    categories: BarChart,
    ring: String,
    ring_radius: f64,
}

/// Renders the dashboard.
pub async fn show(
    state: Data<AppState>,
    req: HttpRequest,
    user: Option<CurrentUser>,
    query: Query<PeriodQuery>,
) -> HttpResponse {
    let Some(user) = user else {
        return super::page::see_other(paths::LOGIN);
    };
    let period = match query.period.as_deref() {
        Some("90d") => "90d",
        Some("all") => "all",
        _ => "30d",
    };
    let chrome = Chrome::load(&state, Some(&user), paths::DASHBOARD).await;
    let board = match load(&state, Period::parse(period).unwrap_or(Period::Days30)).await {
        Ok((board, _)) => board,
        Err(e) => return error_page(&req, &chrome, &e),
    };
    let t = &chrome.t;
    let costs = chart::columns(&board.cost_series, |v| t.money(v));
    let rows: Vec<(String, _)> = board
        .categories
        .iter()
        .map(|(c, v)| {
            let key = format!("category.{}", crate::api::prints::category_name(*c));
            (t.t(&key).to_string(), *v)
        })
        .collect();
    let categories = chart::rows(&rows, |v| t.money(v));
    let ring = chart::ring(board.outcomes.success_rate);
    let page = DashboardPage {
        period,
        costs,
        categories,
        ring,
        ring_radius: RING_RADIUS,
        board,
        chrome,
    };
    html(StatusCode::OK, page.render())
}
