//! The dashboard's aggregates, kept with the print projection: what each DONE print adds to its
//! completion day, by customer, and what each draft adds to its customer's open drafts. A print
//! write moves its old figures out and its new ones in, so the dashboard sums a few hundred days
//! instead of decoding every print of the period.
//!
//! Figures are exact decimals, so taking a print's figures out again leaves exactly what was
//! there before it. Archived prints count nowhere (the dashboard excludes them).

use super::figures::realized;
use super::summary::Summary;
use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::ops::{AddAssign, SubAssign};
use storage::records::{CostCategory, OutcomeStatus, Print, PrintStatus};
use storage::{Id, decimal_parts};

/// Cost categories, in the order of [`Figures::categories`].
pub const CATEGORIES: [CostCategory; 6] = [
    CostCategory::Printer,
    CostCategory::Hotend,
    CostCategory::BuildPlate,
    CostCategory::Component,
    CostCategory::Filament,
    CostCategory::Electricity,
];

/// Headline figures of DONE prints: of one print, of a day, or of a dashboard's period.
/// Stored in print summaries (decimals as mantissa and scale).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Kpis {
    /// DONE prints completed in the period.
    pub prints: u64,
    /// Their units.
    pub units: u64,
    /// Their planned cost.
    #[serde(with = "decimal_parts")]
    pub planned_cost: Decimal,
    /// Actual cost of those with an outcome.
    #[serde(with = "decimal_parts")]
    pub actual_cost: Decimal,
    /// Sales values given.
    #[serde(with = "decimal_parts")]
    pub sales_value: Decimal,
    /// Realized revenue (SUCCESS: the sales value; FAILED: 0).
    #[serde(with = "decimal_parts")]
    pub realized_revenue: Decimal,
    /// Realized margin (SUCCESS with a sales value).
    #[serde(with = "decimal_parts")]
    pub realized_margin: Decimal,
    /// Actual cost of failed runs.
    #[serde(with = "decimal_parts")]
    pub failed_cost: Decimal,
    /// Filament used: actual grams where recorded, planned grams otherwise.
    #[serde(with = "decimal_parts")]
    pub filament_grams: Decimal,
}

/// What DONE prints add up to (one print's, or a day's sum). Stored in print summaries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// The headline figures.
    pub kpis: Kpis,
    /// SUCCESS outcomes.
    pub success: u64,
    /// FAILED outcomes.
    pub failed: u64,
    /// DONE prints without an outcome.
    pub pending: u64,
    /// Actual minus planned cost over recorded outcomes.
    #[serde(with = "decimal_parts")]
    pub variance: Decimal,
    /// Realized actual cost (the cost series' actual line).
    #[serde(with = "decimal_parts")]
    pub realized_actual: Decimal,
    /// Planned cost per category, in [`CATEGORIES`] order.
    #[serde(with = "decimal_array")]
    pub categories: [Decimal; 6],
    /// Cost lines per category, in [`CATEGORIES`] order (a category shows while it has lines,
    /// even at zero cost).
    pub category_lines: [u64; 6],
}

impl Figures {
    /// What the DONE print `print` adds.
    pub fn of(print: &Print) -> Figures {
        let realized = realized(print);
        let current = print.outcome.as_ref().and_then(|o| o.current());
        let mut figures = Figures {
            kpis: Kpis {
                prints: 1,
                units: u64::from(print.quantity),
                planned_cost: print.costing.total,
                actual_cost: current.map(|r| r.actual.total).unwrap_or_default(),
                sales_value: print.sales_value.unwrap_or_default(),
                realized_revenue: realized.revenue.unwrap_or_default(),
                realized_margin: realized.margin.unwrap_or_default(),
                failed_cost: realized.failed_cost.unwrap_or_default(),
                filament_grams: match current {
                    Some(r) => r.grams.iter().map(|g| g.grams).sum(),
                    None => print
                        .parts
                        .iter()
                        .flat_map(|p| p.usages.iter())
                        .map(|u| u.used_grams)
                        .sum(),
                },
            },
            realized_actual: realized.actual_cost.unwrap_or_default(),
            ..Figures::default()
        };
        match current {
            Some(r) => {
                figures.variance = r.actual.total - print.costing.total;
                match r.status {
                    OutcomeStatus::Success => figures.success = 1,
                    OutcomeStatus::Failed => figures.failed = 1,
                }
            }
            None => figures.pending = 1,
        }
        for line in &print.costing.lines {
            if let Some(at) = CATEGORIES.iter().position(|c| *c == line.category) {
                figures.categories[at] += line.cost;
                figures.category_lines[at] += 1;
            }
        }
        figures
    }

    fn apply(&mut self, other: &Figures, add: bool) {
        let count = |a: &mut u64, b: u64| *a = if add { *a + b } else { a.saturating_sub(b) };
        let sum = |a: &mut Decimal, b: Decimal| {
            if add {
                a.add_assign(b)
            } else {
                a.sub_assign(b)
            }
        };
        let (mine, theirs) = (&mut self.kpis, &other.kpis);
        count(&mut mine.prints, theirs.prints);
        count(&mut mine.units, theirs.units);
        sum(&mut mine.planned_cost, theirs.planned_cost);
        sum(&mut mine.actual_cost, theirs.actual_cost);
        sum(&mut mine.sales_value, theirs.sales_value);
        sum(&mut mine.realized_revenue, theirs.realized_revenue);
        sum(&mut mine.realized_margin, theirs.realized_margin);
        sum(&mut mine.failed_cost, theirs.failed_cost);
        sum(&mut mine.filament_grams, theirs.filament_grams);
        count(&mut self.success, other.success);
        count(&mut self.failed, other.failed);
        count(&mut self.pending, other.pending);
        sum(&mut self.variance, other.variance);
        sum(&mut self.realized_actual, other.realized_actual);
        for (mine, theirs) in self.categories.iter_mut().zip(other.categories) {
            sum(mine, theirs);
        }
        for (mine, theirs) in self.category_lines.iter_mut().zip(other.category_lines) {
            count(mine, theirs);
        }
    }

    /// Adds `other` (a day's or a print's figures).
    pub fn add(&mut self, other: &Figures) {
        self.apply(other, true);
    }
}

/// Open drafts: how many, and their planned cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Drafts {
    /// Drafts.
    pub count: u64,
    /// Their planned cost.
    pub planned_cost: Decimal,
}

/// The aggregates of every print: DONE figures by completion day and customer, drafts by
/// customer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Board {
    /// DONE, not archived prints by completion day (instance time zone), then customer.
    pub done: BTreeMap<Date, HashMap<Option<Id>, Figures>>,
    /// Drafts that are not archived, by customer.
    pub drafts: HashMap<Option<Id>, Drafts>,
}

impl Board {
    /// Counts the print of `summary` (dated `day`) in, or out again when `add` is false.
    pub fn apply(&mut self, summary: &Summary, day: Date, add: bool) {
        if summary.archived || !summary.counted {
            return;
        }
        match (summary.status, &summary.figures) {
            (PrintStatus::Done, Some(of_print)) => {
                let days = self.done.entry(day).or_default();
                let figures = days.entry(summary.customer_id).or_default();
                figures.apply(of_print, add);
                if figures.kpis.prints == 0 {
                    days.remove(&summary.customer_id);
                    if days.is_empty() {
                        self.done.remove(&day);
                    }
                }
            }
            (PrintStatus::Draft, _) => {
                let drafts = self.drafts.entry(summary.customer_id).or_default();
                match add {
                    true => {
                        drafts.count += 1;
                        drafts.planned_cost += summary.total_cost;
                    }
                    false => {
                        drafts.count = drafts.count.saturating_sub(1);
                        drafts.planned_cost -= summary.total_cost;
                    }
                }
                if drafts.count == 0 {
                    self.drafts.remove(&summary.customer_id);
                }
            }
            _ => {}
        }
    }
}

/// Serde for the six category amounts, each as [`decimal_parts`] does.
mod decimal_array {
    use rust_decimal::Decimal;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use storage::decimal_parts;

    /// One amount, borrowed for writing.
    #[derive(Serialize)]
    struct Out<'a>(#[serde(with = "decimal_parts")] &'a Decimal);

    /// One amount, read.
    #[derive(Deserialize)]
    struct In(#[serde(with = "decimal_parts")] Decimal);

    pub fn serialize<S: Serializer>(values: &[Decimal; 6], to: S) -> Result<S::Ok, S::Error> {
        let [a, b, c, d, e, f] = values;
        (Out(a), Out(b), Out(c), Out(d), Out(e), Out(f)).serialize(to)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<[Decimal; 6], D::Error> {
        let (In(a), In(b), In(c), In(d), In(e), In(f)) = Deserialize::deserialize(from)?;
        Ok([a, b, c, d, e, f])
    }
}
