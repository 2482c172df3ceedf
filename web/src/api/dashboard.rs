//! `GET /api/dashboard`.

use super::materials::{MaterialKindDto, StockUnitDto};
use super::prints;
use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictQuery;
use crate::input::Faults;
use crate::input::Refusal;
use crate::input::query::{self, Params};
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::dec;
use actix_web::get;
use actix_web::web::{Data, Json};
use actors::dashboard::{Dashboard, DashboardOf, Period};
use deserr::Deserr;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

/// Dashboard query.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults)]
#[into_params(parameter_in = Query)]
pub struct DashboardParams {
    /// `30d` (default), `90d` or `all`.
    #[param(value_type = Option<String>, pattern = "^(30d|90d|all)$")]
    #[deserr(default, try_from(&String) = period_named -> Refusal)]
    pub period: Option<Period>,
}

/// `period`. Errors: `errors.invalidValue`.
fn period_named(text: &str) -> Result<Option<Period>, Refusal> {
    query::choice(text, Period::parse)
}

impl Params for DashboardParams {}

/// Headline figures of the period (DONE prints completed in it, archived left out).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Kpis {
    /// Prints.
    pub prints: u64,
    /// Units.
    pub units: u64,
    /// Planned cost.
    pub planned_cost: String,
    /// Actual cost of prints with an outcome.
    pub actual_cost: String,
    /// Sales values given.
    pub sales_value: String,
    /// Realized revenue.
    pub realized_revenue: String,
    /// Realized margin.
    pub realized_margin: String,
    /// Actual cost of failed runs.
    pub failed_cost: String,
    /// Filament used, grams (actual where recorded, planned otherwise).
    pub filament_grams: String,
}

/// Planned and actual cost of one day or month.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeriesPoint {
    /// `YYYY-MM-DD` (30d, 90d) or `YYYY-MM` (all).
    pub bucket: String,
    /// Planned cost.
    pub planned_cost: String,
    /// Actual cost.
    pub actual_cost: String,
}

/// Planned cost of one category.
#[derive(Debug, Serialize, ToSchema)]
pub struct CategoryCost {
    /// PRINTER, HOTEND, BUILD_PLATE, COMPONENT, FILAMENT or ELECTRICITY.
    pub category: &'static str,
    /// Cost.
    pub cost: String,
}

/// Open drafts.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Drafts {
    /// How many.
    pub count: u64,
    /// Their planned cost at their last save.
    pub planned_cost: String,
}

/// Outcome metrics of the period.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Outcomes {
    /// SUCCESS outcomes.
    pub success: u64,
    /// FAILED outcomes.
    pub failed: u64,
    /// DONE prints without an outcome.
    pub pending: u64,
    /// `success / (success + failed)`, pending left out; null without recorded outcomes.
    pub success_rate: Option<String>,
    /// Actual minus planned cost over recorded outcomes.
    pub variance: String,
}

/// Planned against actual electricity of one printer's runs with a recorded outcome.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrinterElectricityDto {
    /// The printer.
    pub printer_id: String,
    /// Its name.
    pub printer: String,
    /// Runs (parts) with a recorded outcome.
    pub runs: u64,
    /// Of them, runs whose kWh the printer's meter gave.
    pub metered_runs: u64,
    /// Planned kWh (average power × planned time).
    pub planned_kwh: String,
    /// Actual kWh (metered, from the printer fleet, entered or estimated from the actual time).
    pub actual_kwh: String,
    /// Planned electricity cost.
    pub planned_cost: String,
    /// Actual electricity cost.
    pub actual_cost: String,
}

/// The dashboard.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardDto {
    /// `30d`, `90d` or `all`.
    pub period: &'static str,
    /// First day of the period; null for all.
    pub from: Option<String>,
    /// Instance currency.
    pub currency: String,
    /// Headline figures.
    pub kpis: Kpis,
    /// Cost over time, oldest first.
    pub cost_series: Vec<SeriesPoint>,
    /// Planned cost by category.
    pub categories: Vec<CategoryCost>,
    /// Open drafts.
    pub drafts: Drafts,
    /// Outcome metrics.
    pub outcomes: Outcomes,
    /// Planned against actual electricity by printer, over recorded outcomes, by name.
    pub electricity: Vec<PrinterElectricityDto>,
    /// What customers owe today on issued invoices, whatever the period.
    pub receivables: ReceivablesDto,
    /// Stock on hand per kind of material and unit, whatever the period (empty with spool
    /// management off).
    pub stock: Vec<KindStockDto>,
}

/// The stock of one kind of material counted in one unit.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KindStockDto {
    /// FILAMENT, RESIN or CONSUMABLE.
    pub kind: MaterialKindDto,
    /// GRAM, MILLILITRE or PIECE.
    pub unit: StockUnitDto,
    /// Active materials of the kind in the unit.
    pub materials: u64,
    /// What their active spools, bottles and packs hold together, in `unit`.
    pub quantity: String,
    /// Of them, those below their threshold.
    pub low: u64,
}

/// Issued invoices not paid in full, and of those the overdue ones.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceivablesDto {
    /// Invoices not paid in full.
    pub open: u64,
    /// What they still owe.
    pub open_amount: String,
    /// Of those, past their due day.
    pub overdue: u64,
    /// What those still owe.
    pub overdue_amount: String,
}

/// KPIs, cost series, categories, drafts and outcome metrics over a completion period; customers
/// marked `excludeFromDashboard` are left out.
#[utoipa::path(tag = "dashboard", params(DashboardParams), responses((status = 200, body = DashboardDto), (status = 401, body = ErrorBody), (status = 422, description = "period other than 30d, 90d or all", body = ErrorBody)), security(("session" = [])))]
#[get("/dashboard")]
pub async fn get_dashboard(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<DashboardParams>,
) -> Result<Json<DashboardDto>, ApiError> {
    let period = query.0.period.unwrap_or(Period::Days30);
    let (board, currency) = state.query(DashboardOf(period)).await?;
    Ok(Json(DashboardDto::of(period.name(), board, currency)))
}

impl DashboardDto {
    /// The answer for period `name` (`30d`, `90d`, `all`) from `board`, in `currency`.
    fn of(name: &'static str, board: Dashboard, currency: String) -> DashboardDto {
        let k = board.kpis;
        DashboardDto {
            period: name,
            from: board.from.map(|d| d.to_string()),
            currency,
            kpis: Kpis {
                prints: k.prints,
                units: k.units,
                planned_cost: dec(k.planned_cost),
                actual_cost: dec(k.actual_cost),
                sales_value: dec(k.sales_value),
                realized_revenue: dec(k.realized_revenue),
                realized_margin: dec(k.realized_margin),
                failed_cost: dec(k.failed_cost),
                filament_grams: dec(k.filament_grams),
            },
            cost_series: board
                .cost_series
                .into_iter()
                .map(|(bucket, planned, actual)| SeriesPoint {
                    bucket,
                    planned_cost: dec(planned),
                    actual_cost: dec(actual),
                })
                .collect(),
            categories: board
                .categories
                .into_iter()
                .map(|(c, cost)| CategoryCost {
                    category: prints::category_name(c),
                    cost: dec(cost),
                })
                .collect(),
            drafts: Drafts {
                count: board.drafts.0,
                planned_cost: dec(board.drafts.1),
            },
            outcomes: Outcomes {
                success: board.outcomes.success,
                failed: board.outcomes.failed,
                pending: board.outcomes.pending,
                success_rate: board.outcomes.success_rate.map(dec),
                variance: dec(board.outcomes.variance),
            },
            electricity: board
                .electricity
                .into_iter()
                .map(|(id, printer, e)| PrinterElectricityDto {
                    printer_id: id.to_string(),
                    printer,
                    runs: e.runs,
                    metered_runs: e.metered,
                    planned_kwh: dec(e.planned_kwh),
                    actual_kwh: dec(e.actual_kwh),
                    planned_cost: dec(e.planned_cost),
                    actual_cost: dec(e.actual_cost),
                })
                .collect(),
            receivables: ReceivablesDto {
                open: board.receivables.open,
                open_amount: dec(board.receivables.open_amount),
                overdue: board.receivables.overdue,
                overdue_amount: dec(board.receivables.overdue_amount),
            },
            stock: board
                .stock
                .into_iter()
                .map(|k| KindStockDto {
                    kind: k.kind.into(),
                    unit: k.unit.into(),
                    materials: k.materials as u64,
                    quantity: dec(k.quantity),
                    low: k.low as u64,
                })
                .collect(),
        }
    }
}
