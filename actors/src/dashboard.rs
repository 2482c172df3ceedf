//! The dashboard: money, material and success rates over a completion period.
//!
//! Rules (spec, "Dashboard, search, version"): outcome metrics use the completion period and
//! exclude archived prints; the success rate leaves pending outcomes out; variance sums actual
//! minus planned over recorded outcomes only; realized figures follow
//! [`crate::prints::realized`]. Prints of customers with `excludeFromDashboard` are left out.

use crate::Result;
use crate::command;
use crate::invoices::{self, Settlement};
use crate::money;
use crate::prints::PrinterElectricity;
use crate::prints::{Outcome, PrintIndex};
pub use crate::projection::board::Kpis;
use crate::projection::board::{CATEGORIES, Figures};
use crate::projection::query::PrintFilter;
use crate::settings;
use crate::stock;
use jiff::ToSpan;
use jiff::civil::Date;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashSet};
use storage::Id;
use storage::records::{
    CostCategory, Customer, Invoice, InvoiceKind, MaterialKind, PrintStatus, Printer, StockUnit,
};
use storage::repo::{self, Tx};

/// The period a dashboard covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// The last 30 days (daily series).
    Days30,
    /// The last 90 days (daily series).
    Days90,
    /// Everything (monthly series).
    All,
}

impl Period {
    /// Parses `30d`, `90d` or `all`.
    pub fn parse(text: &str) -> Option<Period> {
        match text {
            "30d" => Some(Period::Days30),
            "90d" => Some(Period::Days90),
            "all" => Some(Period::All),
            _ => None,
        }
    }

    /// The period's name: `30d`, `90d` or `all`.
    pub fn name(self) -> &'static str {
        match self {
            Period::Days30 => "30d",
            Period::Days90 => "90d",
            Period::All => "all",
        }
    }
}

/// Outcome metrics of the period.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutcomeMetrics {
    /// SUCCESS outcomes.
    pub success: u64,
    /// FAILED outcomes.
    pub failed: u64,
    /// DONE prints without an outcome.
    pub pending: u64,
    /// `success / (success + failed)`; `None` without recorded outcomes.
    pub success_rate: Option<Decimal>,
    /// Sum of actual minus planned cost over recorded outcomes.
    pub variance: Decimal,
}

/// What customers owe today on issued invoices (whatever the period).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Receivables {
    /// Invoices not paid in full.
    pub open: u64,
    /// What they still owe.
    pub open_amount: Decimal,
    /// Of those, the ones past their due day.
    pub overdue: u64,
    /// What those still owe.
    pub overdue_amount: Decimal,
}

/// What the issued invoices (not archived, not credit notes) still owe on `today`.
pub fn receivables(tx: &impl Tx, today: Date) -> Result<Receivables> {
    let mut owed = Receivables::default();
    for invoice in repo::all::<Invoice>(tx)? {
        if invoice.archived || invoice.kind != InvoiceKind::Invoice || invoice.issued.is_none() {
            continue;
        }
        let due = invoices::totals(&invoice)?.due;
        let outstanding = due - invoices::paid(&invoice);
        if outstanding <= Decimal::ZERO {
            continue;
        }
        owed.open += 1;
        owed.open_amount += outstanding;
        if invoices::settlement(&invoice, due, today) == Settlement::Overdue {
            owed.overdue += 1;
            owed.overdue_amount += outstanding;
        }
    }
    Ok(owed)
}

/// The dashboard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dashboard {
    /// First day of the period (`None` for all).
    pub from: Option<Date>,
    /// Headline figures.
    pub kpis: Kpis,
    /// Planned and actual cost per day (30d, 90d) or month (all), oldest first.
    pub cost_series: Vec<(String, Decimal, Decimal)>,
    /// Planned cost per cost category.
    pub categories: Vec<(CostCategory, Decimal)>,
    /// Open drafts and their planned cost.
    pub drafts: (u64, Decimal),
    /// Outcome metrics.
    pub outcomes: OutcomeMetrics,
    /// Planned against actual electricity by printer over the period's recorded outcomes,
    /// ordered by printer name: (printer, its name, the figures).
    pub electricity: Vec<(Id, String, PrinterElectricity)>,
    /// What customers owe today on issued invoices.
    pub receivables: Receivables,
    /// DONE prints (not archived, whatever the period) still waiting for their outcome: their
    /// realized revenue and margin stay 0 until it is recorded.
    pub waiting_outcome: usize,
    /// Stock on hand per kind of material and unit, whatever the period (none with spool
    /// management off).
    pub stock: Vec<KindStock>,
}

/// What the active spools, bottles and packs of one kind of material counted in one unit hold
/// (issue 51): a filament's in grams, a resin's in millilitres, a consumable's in pieces or in
/// millilitres.
#[derive(Debug, Clone, PartialEq)]
pub struct KindStock {
    /// Filament, resin or consumable.
    pub kind: MaterialKind,
    /// The unit of `quantity`.
    pub unit: StockUnit,
    /// Active materials of the kind in the unit.
    pub materials: usize,
    /// Their stock together, in `unit`.
    pub quantity: Decimal,
    /// Of them, those below their threshold.
    pub low: usize,
}

/// The stock per kind and unit, in the order filament, resin, consumable (pieces, then
/// millilitres); kinds without an active material left out. Errors: the store cannot be read.
pub fn stock_by_kind(tx: &impl Tx) -> Result<Vec<KindStock>> {
    if !settings::get(tx).is_ok_and(|s| s.spool_management_enabled) {
        return Ok(Vec::new());
    }
    let mut kinds = [
        (MaterialKind::Filament, StockUnit::Gram),
        (MaterialKind::Resin, StockUnit::Millilitre),
        (MaterialKind::Consumable, StockUnit::Piece),
        (MaterialKind::Consumable, StockUnit::Millilitre),
    ]
    .map(|(kind, unit)| KindStock {
        kind,
        unit,
        materials: 0,
        quantity: Decimal::ZERO,
        low: 0,
    });
    for (view, level) in stock::material_stocks(tx)? {
        let material = &view.filament;
        if let Some(sum) = kinds
            .iter_mut()
            .find(|k| (k.kind, k.unit) == (material.kind, material.unit))
        {
            sum.materials += 1;
            sum.quantity = sum.quantity.saturating_add(level.active_total_grams);
            sum.low += usize::from(level.below_minimum);
        }
    }
    Ok(kinds.into_iter().filter(|k| k.materials > 0).collect())
}

/// Computes the dashboard for `period`, with today taken in the instance time zone, from the
/// projection's aggregates ([`crate::projection::board`]): a sum over the days of the period, never
/// a pass over its prints.
pub fn compute(tx: &impl Tx, index: &PrintIndex, period: Period, today: Date) -> Result<Dashboard> {
    let excluded = excluded_customers(tx)?;
    let from = match period {
        Period::Days30 => today.checked_sub(29.days()).ok(),
        Period::Days90 => today.checked_sub(89.days()).ok(),
        Period::All => None,
    };
    let (total, series, drafts) = index.with_board(|board| {
        let mut total = Figures::default();
        let mut series: BTreeMap<String, (Decimal, Decimal)> = BTreeMap::new();
        let days = board.done.range(from.unwrap_or(Date::MIN)..);
        for (day, customers) in days {
            let bucket = match period {
                Period::All => format!("{:04}-{:02}", day.year(), day.month()),
                _ => day.to_string(),
            };
            for (_, figures) in customers.iter().filter(|(c, _)| !excluded.contains(*c)) {
                total.add(figures);
                let entry = series.entry(bucket.clone()).or_default();
                entry.0 += figures.kpis.planned_cost;
                entry.1 += figures.realized_actual;
            }
        }
        let drafts = board
            .drafts
            .iter()
            .filter(|(c, _)| !excluded.contains(*c))
            .fold((0, Decimal::ZERO), |(n, cost), (_, d)| {
                (n + d.count, cost + d.planned_cost)
            });
        (total, series, drafts)
    })?;
    let recorded = total.success + total.failed;
    let mut electricity = Vec::with_capacity(total.electricity.len());
    for (printer, figures) in &total.electricity {
        let name = repo::get::<Printer>(tx, *printer)?.map_or_else(String::new, |p| p.name);
        electricity.push((*printer, name, figures.clone()));
    }
    electricity.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(Dashboard {
        from,
        kpis: total.kpis.clone(),
        cost_series: series.into_iter().map(|(k, (p, a))| (k, p, a)).collect(),
        categories: CATEGORIES
            .iter()
            .zip(total.categories)
            .zip(total.category_lines)
            .filter(|(_, lines)| *lines > 0)
            .map(|((c, cost), _)| (*c, cost))
            .collect(),
        drafts,
        outcomes: OutcomeMetrics {
            success: total.success,
            failed: total.failed,
            pending: total.pending,
            // A share of counts: at most 1, always in range.
            success_rate: money::divide(Decimal::from(total.success), Decimal::from(recorded))
                .ok()
                .filter(|_| recorded > 0),
            variance: total.variance,
        },
        electricity,
        receivables: receivables(tx, today)?,
        waiting_outcome: index.page(&waiting_outcome(), 0, 0)?.1,
        stock: stock_by_kind(tx)?,
    })
}

/// The DONE prints without an outcome, archived ones left out (the prints list's
/// `?status=DONE&outcome=PENDING`).
fn waiting_outcome() -> PrintFilter {
    PrintFilter {
        statuses: vec![PrintStatus::Done],
        outcomes: vec![Outcome::Pending],
        ..PrintFilter::default()
    }
}

/// The customers the dashboard leaves out (`Some(id)`, as the board keys them).
fn excluded_customers(tx: &impl Tx) -> Result<HashSet<Option<storage::Id>>> {
    Ok(repo::all::<Customer>(tx)?
        .into_iter()
        .filter(|c| c.exclude_from_dashboard)
        .map(|c| Some(c.id))
        .collect())
}

/// Realized revenue and margin of the prints completed on `from` or later, the dashboard's
/// customers only (as the dashboard's KPIs sum them). Errors: the store cannot be read; the
/// projection failed to load.
pub fn realized_since(tx: &impl Tx, index: &PrintIndex, from: Date) -> Result<(Decimal, Decimal)> {
    let excluded = excluded_customers(tx)?;
    index.with_board(|board| {
        let mut total = Figures::default();
        for (_, customers) in board.done.range(from..) {
            for (_, figures) in customers.iter().filter(|(c, _)| !excluded.contains(*c)) {
                total.add(figures);
            }
        }
        (total.kpis.realized_revenue, total.kpis.realized_margin)
    })
}

/// The dashboard of a period as of today (in the instance time zone), with the instance
/// currency. Errors: the store cannot be read; [`crate::Error::NotFound`] before setup.
#[derive(Debug, Clone, Copy)]
pub struct DashboardOf(pub Period);

impl command::Query for DashboardOf {
    type Answer = (Dashboard, String);

    fn run(self, snapshot: &command::Snapshot<'_>) -> Result<(Dashboard, String)> {
        let today = snapshot.index.date_of(storage::Timestamp::now());
        Ok((
            compute(snapshot, snapshot.index, self.0, today)?,
            settings::get(snapshot)?.currency,
        ))
    }
}
