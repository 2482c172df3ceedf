//! The dashboard page: KPI tiles and SVG charts for 30 days, 90 days or all time.

use super::chart::{self, BarChart, RING_RADIUS};
use super::choices::{Choices, LoadChoices};
use super::maintenance;
use super::page::{Chrome, Ctx, Page, html};
use super::paths;
use crate::api::materials::MaterialKindDto;
use crate::api::prints;
use crate::wire;
use actix_web::http::StatusCode;
use actors::dashboard::{Dashboard, DashboardOf, KindStock, Period};
use actors::inventory::filaments::FilamentView;
use actors::maintenance::tasks::{State, TaskView};
use actors::stock::{LowStock, Stock};
use actors::words::unit_key;
use askama::Template;
use storage::records::MaterialKind;

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
    /// Maintenance tasks due or overdue.
    due: Vec<TaskView>,
    /// Materials of every kind below their threshold.
    low: Vec<(FilamentView, Stock)>,
    /// What a print needs that the shop has none of yet, in the order to create them: the
    /// catalog key of its name and the path of its form.
    first_steps: Vec<(&'static str, String)>,
}

impl DashboardPage {
    /// The name of a kind of material in the page's language, with its unit when a kind comes
    /// in two (a consumable in pieces or in millilitres).
    fn kind_name(&self, k: &KindStock) -> String {
        let t = &self.chrome.t;
        let key = format!(
            "materialKind.{}",
            wire::name(&MaterialKindDto::from(k.kind))
        );
        let kind = t.t(&key);
        match k.kind {
            MaterialKind::Consumable => format!("{kind} ({})", self.kind_unit(k)),
            _ => kind.to_string(),
        }
    }

    /// The sign of a kind's unit (`g`, `ml`, `pcs`).
    fn kind_unit(&self, k: &KindStock) -> &str {
        self.chrome.t.t(unit_key(k.unit))
    }

    /// The sign of the unit `view`'s material is counted in (`g`, `ml`, `pcs`).
    fn unit(&self, view: &FilamentView) -> &str {
        self.chrome.t.t(unit_key(view.filament.unit))
    }

    fn state_class(&self, state: &State) -> &'static str {
        maintenance::state_class(*state)
    }

    fn state_key(&self, state: &State) -> &'static str {
        maintenance::state_key(*state)
    }
}

/// The kinds of record a print needs of which the shop has none yet: a manufacturer, a printer,
/// a hotend and a build plate, a filament; each with its new form.
fn first_steps(choices: &Choices) -> Vec<(&'static str, String)> {
    let of = |group: &str| choices.components.iter().any(|c| c.group == group);
    [
        (
            "nav.manufacturers",
            paths::MANUFACTURERS,
            !choices.manufacturers.is_empty(),
        ),
        (
            "nav.printers",
            paths::PRINTERS,
            !choices.printers.is_empty(),
        ),
        ("componentType.HOTEND", paths::COMPONENTS, of("HOTEND")),
        (
            "componentType.BUILD_PLATE",
            paths::COMPONENTS,
            of("BUILD_PLATE"),
        ),
        (
            "nav.filaments",
            paths::FILAMENTS,
            !choices.filaments.is_empty(),
        ),
    ]
    .into_iter()
    .filter(|(_, _, there)| !there)
    .map(|(key, path, _)| (key, format!("{path}/new")))
    .collect()
}

/// `GET /dashboard?period=30d|90d|all` (30 days unless another period is named).
pub async fn show(ctx: Ctx) -> Page {
    let period = match ctx.param("period").as_str() {
        "90d" => "90d",
        "all" => "all",
        _ => "30d",
    };
    let chosen = Period::parse(period).unwrap_or(Period::Days30);
    let (board, _) = ctx.query(DashboardOf(chosen)).await?;
    let due = maintenance::due(&ctx).await?;
    let low = ctx.query(LowStock).await?;
    let first_steps = first_steps(&ctx.query(LoadChoices(ctx.chrome.t.clone())).await?);
    let chrome = ctx.chrome;
    let t = &chrome.t;
    let buckets: Vec<_> = board
        .cost_series
        .iter()
        .map(|(bucket, planned, actual)| (t.bucket(bucket), *planned, *actual))
        .collect();
    let costs = chart::columns(&buckets, |v| t.money(v));
    let rows: Vec<(String, _)> = board
        .categories
        .iter()
        .map(|(c, v)| {
            let key = format!("category.{}", prints::category_name(*c));
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
        due,
        low,
        first_steps,
    };
    Ok(html(StatusCode::OK, page.render()))
}
