//! The dashboard: money, material and success rates over a completion period.
//!
//! Rules (spec, "Dashboard, search, version"): outcome metrics use the completion period and
//! exclude archived prints; the success rate leaves pending outcomes out; variance sums actual
//! minus planned over recorded outcomes only; realized figures follow
//! [`crate::prints::realized`]. Prints of customers with `excludeFromDashboard` are left out.

use crate::Result;
use crate::prints::query::PrintFilter;
use crate::prints::{self, PrintIndex};
use jiff::ToSpan;
use jiff::civil::Date;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashSet};
use storage::records::{CostCategory, Customer, OutcomeStatus, PrintStatus};
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

/// Headline figures of the period.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kpis {
    /// DONE prints completed in the period.
    pub prints: u64,
    /// Their units.
    pub units: u64,
    /// Their planned cost.
    pub planned_cost: Decimal,
    /// Actual cost of those with an outcome.
    pub actual_cost: Decimal,
    /// Sales values given.
    pub sales_value: Decimal,
    /// Realized revenue (SUCCESS: the sales value; FAILED: 0).
    pub realized_revenue: Decimal,
    /// Realized margin (SUCCESS with a sales value).
    pub realized_margin: Decimal,
    /// Actual cost of failed runs.
    pub failed_cost: Decimal,
    /// Filament used: actual grams where recorded, planned grams otherwise.
    pub filament_grams: Decimal,
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
}

/// Computes the dashboard for `period`, with today taken in the instance time zone.
pub fn compute(tx: &impl Tx, index: &PrintIndex, period: Period, today: Date) -> Result<Dashboard> {
    let excluded: HashSet<_> = repo::all::<Customer>(tx)?
        .into_iter()
        .filter(|c| c.exclude_from_dashboard)
        .map(|c| c.id)
        .collect();
    let from = match period {
        Period::Days30 => today.checked_sub(29.days()).ok(),
        Period::Days90 => today.checked_sub(89.days()).ok(),
        Period::All => None,
    };
    let done = PrintFilter {
        statuses: vec![PrintStatus::Done],
        date_from: from,
        ..PrintFilter::default()
    };
    let drafts = PrintFilter {
        statuses: vec![PrintStatus::Draft],
        ..PrintFilter::default()
    };
    let mut board = Dashboard {
        from,
        ..Dashboard::default()
    };
    let mut series: BTreeMap<String, (Decimal, Decimal)> = BTreeMap::new();
    let mut categories: BTreeMap<u8, (CostCategory, Decimal)> = BTreeMap::new();
    for id in index.ids(&done) {
        let print = prints::get(tx, id)?;
        if print.customer_id.is_some_and(|c| excluded.contains(&c)) {
            continue;
        }
        let k = &mut board.kpis;
        k.prints += 1;
        k.units += u64::from(print.quantity);
        k.planned_cost += print.costing.total;
        k.sales_value += print.sales_value.unwrap_or_default();
        let realized = prints::realized(&print);
        k.realized_revenue += realized.revenue.unwrap_or_default();
        k.realized_margin += realized.margin.unwrap_or_default();
        k.failed_cost += realized.failed_cost.unwrap_or_default();
        let current = print.outcome.as_ref().and_then(|o| o.current());
        k.filament_grams += match current {
            Some(r) => r.grams.iter().map(|g| g.grams).sum::<Decimal>(),
            None => print
                .parts
                .iter()
                .flat_map(|p| p.usages.iter())
                .map(|u| u.used_grams)
                .sum(),
        };
        match current {
            Some(r) => {
                k.actual_cost += r.actual.total;
                board.outcomes.variance += r.actual.total - print.costing.total;
                match r.status {
                    OutcomeStatus::Success => board.outcomes.success += 1,
                    OutcomeStatus::Failed => board.outcomes.failed += 1,
                }
            }
            None => board.outcomes.pending += 1,
        }
        let date = index.date_of(print.completed_at.unwrap_or(print.created_at));
        let bucket = match period {
            Period::All => format!("{:04}-{:02}", date.year(), date.month()),
            _ => date.to_string(),
        };
        let entry = series.entry(bucket).or_default();
        entry.0 += print.costing.total;
        entry.1 += realized.actual_cost.unwrap_or_default();
        for line in &print.costing.lines {
            categories
                .entry(line.category as u8)
                .or_insert((line.category, Decimal::ZERO))
                .1 += line.cost;
        }
    }
    for id in index.ids(&drafts) {
        let print = prints::get(tx, id)?;
        if print.customer_id.is_some_and(|c| excluded.contains(&c)) {
            continue;
        }
        board.drafts.0 += 1;
        board.drafts.1 += print.costing.total;
    }
    let recorded = board.outcomes.success + board.outcomes.failed;
    board.outcomes.success_rate = (recorded > 0).then(|| {
        crate::money::divide(
            Decimal::from(board.outcomes.success),
            Decimal::from(recorded),
        )
    });
    board.cost_series = series.into_iter().map(|(k, (p, a))| (k, p, a)).collect();
    board.categories = categories.into_values().collect();
    Ok(board)
}

/// The dashboard of a period as of today (in the instance time zone), with the instance
/// currency. Errors: the store cannot be read; [`crate::Error::NotFound`] before setup.
#[derive(Debug, Clone, Copy)]
pub struct DashboardOf(pub Period);

impl crate::command::Query for DashboardOf {
    type Answer = (Dashboard, String);

    fn run(self, snapshot: &crate::command::Snapshot<'_>) -> Result<(Dashboard, String)> {
        let today = snapshot.index.date_of(storage::Timestamp::now());
        Ok((
            compute(snapshot, snapshot.index, self.0, today)?,
            crate::settings::get(snapshot)?.currency,
        ))
    }
}
