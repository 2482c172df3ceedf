//! The money of a print beyond its cost: units, planned margin and, once an outcome is known,
//! the realized revenue and margin; and what a DONE print adds to the dashboard ([`Figures`]).

use crate::money;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::ops::{AddAssign, SubAssign};
use storage::records::{CostCategory, CostLine, EnergySource, OutcomeStatus, Print};
use storage::{Id, decimal_parts};

/// Whether every amount `print` stores is within [`crate::money::MAX_AMOUNT`]: its planned and
/// actual costings and its sales value. The write rules refuse any other print; one written by
/// an earlier build without that rule is left out of every sum (and logged), so that sums over
/// the store stay in range (the bound's argument in [`crate::money`]).
pub fn in_range(print: &Print) -> bool {
    let costings = std::iter::once(&print.costing).chain(
        print
            .outcome
            .iter()
            .flat_map(|o| o.revisions.iter().map(|r| &r.actual)),
    );
    let amounts = costings
        .flat_map(|c| {
            [c.total, c.cost_per_unit]
                .into_iter()
                .chain(c.lines.iter().map(|l| l.cost))
        })
        .chain(print.sales_value);
    let fits = amounts.into_iter().all(|a| money::bounded(a).is_ok());
    if !fits {
        tracing::warn!(print = %print.id, "a print's amounts exceed the limit; it is left out of sums");
    }
    fits
}

/// Sum of the units of `prints`.
pub fn units(prints: &[Print]) -> u64 {
    prints.iter().map(|p| u64::from(p.quantity)).sum()
}

/// The sales value minus the planned total, when a sales value exists.
pub fn planned_margin(print: &Print) -> Option<Decimal> {
    print
        .sales_value
        .map(|s| (s - print.costing.total).normalize())
}

/// Money of a print once its outcome is known (spec, Dashboard: "Realized margin arises only
/// from SUCCESS; FAILED gives zero realized revenue when a sales value was supplied, with failed
/// costs reported separately; pending outcomes have no realized revenue; missing sales values
/// stay null").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Realized {
    /// Actual cost of the current outcome revision.
    pub actual_cost: Option<Decimal>,
    /// Actual cost per unit.
    pub actual_cost_per_unit: Option<Decimal>,
    /// SUCCESS: the sales value; FAILED: 0 when a sales value exists.
    pub revenue: Option<Decimal>,
    /// SUCCESS with a sales value: revenue minus actual cost.
    pub margin: Option<Decimal>,
    /// FAILED: the actual cost of the failed run.
    pub failed_cost: Option<Decimal>,
}

/// The realized money of `print` (all `None` while no outcome is recorded).
pub fn realized(print: &Print) -> Realized {
    use storage::records::OutcomeStatus;
    let Some(current) = print.outcome.as_ref().and_then(|o| o.current()) else {
        return Realized::default();
    };
    let actual = current.actual.total;
    let mut realized = Realized {
        actual_cost: Some(actual),
        actual_cost_per_unit: Some(current.actual.cost_per_unit),
        ..Realized::default()
    };
    match current.status {
        OutcomeStatus::Success => {
            realized.revenue = print.sales_value;
            realized.margin = print.sales_value.map(|s| (s - actual).normalize());
        }
        OutcomeStatus::Failed => {
            realized.revenue = print.sales_value.map(|_| Decimal::ZERO);
            realized.failed_cost = Some(actual);
        }
    }
    realized
}

/// Cost categories, in the order of [`Figures::categories`].
pub const CATEGORIES: [CostCategory; CATEGORY_COUNT] = [
    CostCategory::Printer,
    CostCategory::Hotend,
    CostCategory::BuildPlate,
    CostCategory::Component,
    CostCategory::Filament,
    CostCategory::Electricity,
    CostCategory::Labour,
    CostCategory::Charge,
    CostCategory::Machine,
    CostCategory::MachineElectricity,
    CostCategory::Vat,
    CostCategory::Resin,
    CostCategory::Consumable,
    CostCategory::PerPrint,
];

/// How many cost categories there are.
pub const CATEGORY_COUNT: usize = 14;

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
    /// Sales values given, failed prints left out (they earned nothing; a retry carries the
    /// order's price).
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

/// Planned against actual electricity of one printer's runs with a recorded outcome: kWh and
/// cost from the frozen snapshot's electricity lines and the current revision's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrinterElectricity {
    /// Runs (parts) counted.
    pub runs: u64,
    /// Of them, runs whose actual kWh the meter gave.
    pub metered: u64,
    /// Planned kWh.
    #[serde(with = "decimal_parts")]
    pub planned_kwh: Decimal,
    /// Actual kWh.
    #[serde(with = "decimal_parts")]
    pub actual_kwh: Decimal,
    /// Planned electricity cost.
    #[serde(with = "decimal_parts")]
    pub planned_cost: Decimal,
    /// Actual electricity cost.
    #[serde(with = "decimal_parts")]
    pub actual_cost: Decimal,
}

/// The electricity of `print`'s runs by printer, once an outcome is recorded (empty before):
/// each part's planned and actual electricity line (kWh as the lines' quantities, which the
/// actual line takes from the part's metered, fleet or entered kWh where known).
pub fn electricity_by_printer(print: &Print) -> BTreeMap<Id, PrinterElectricity> {
    let mut by_printer: BTreeMap<Id, PrinterElectricity> = BTreeMap::new();
    let Some(current) = print.outcome.as_ref().and_then(|o| o.current()) else {
        return by_printer;
    };
    let line = |lines: &[CostLine], part: Id| {
        lines
            .iter()
            .find(|l| l.category == CostCategory::Electricity && l.part_id == Some(part))
            .map(|l| (l.quantity, l.cost))
            .unwrap_or_default()
    };
    for part in &print.parts {
        let (planned_kwh, planned_cost) = line(&print.costing.lines, part.id);
        let (actual_kwh, actual_cost) = line(&current.actual.lines, part.id);
        let metered = current
            .electricity
            .iter()
            .any(|e| e.part_id == part.id && e.source == EnergySource::Metered);
        let e = by_printer.entry(part.printer_id).or_default();
        e.runs += 1;
        e.metered += u64::from(metered);
        e.planned_kwh += planned_kwh;
        e.actual_kwh += actual_kwh;
        e.planned_cost += planned_cost;
        e.actual_cost += actual_cost;
    }
    by_printer
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
    pub categories: [Decimal; CATEGORY_COUNT],
    /// Cost lines per category, in [`CATEGORIES`] order (a category shows while it has lines,
    /// even at zero cost).
    pub category_lines: [u64; CATEGORY_COUNT],
    /// Planned against actual electricity by printer, over recorded outcomes.
    pub electricity: BTreeMap<Id, PrinterElectricity>,
}

/// The grams of filament `print` used: its current outcome revision's, else as planned. Only
/// filament counts (its usages' cost lines are FILAMENT): a resin's millilitres and a
/// consumable's pieces are other units.
fn filament_grams(print: &Print) -> Decimal {
    let filament: HashSet<Id> = (print.costing.lines.iter())
        .filter(|l| l.category == CostCategory::Filament)
        .filter_map(|l| l.usage_id)
        .collect();
    let current = print.outcome.as_ref().and_then(|o| o.current());
    match current {
        Some(r) => (r.grams.iter())
            .filter(|g| filament.contains(&g.usage_id))
            .map(|g| g.grams)
            .sum(),
        None => (print.usages())
            .filter(|u| filament.contains(&u.id))
            .map(|u| u.used_grams)
            .sum(),
    }
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
                // A failed print earned nothing: its sales value is the retry's to earn, and
                // counting both would count one order twice.
                sales_value: match current.map(|r| r.status) {
                    Some(OutcomeStatus::Failed) => Decimal::ZERO,
                    _ => print.sales_value.unwrap_or_default(),
                },
                realized_revenue: realized.revenue.unwrap_or_default(),
                realized_margin: realized.margin.unwrap_or_default(),
                failed_cost: realized.failed_cost.unwrap_or_default(),
                filament_grams: filament_grams(print),
            },
            realized_actual: realized.actual_cost.unwrap_or_default(),
            electricity: electricity_by_printer(print),
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

    /// Adds `other`, or takes it out again when `add` is false (counts never below zero).
    pub(super) fn apply(&mut self, other: &Figures, add: bool) {
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
        for (printer, theirs) in &other.electricity {
            let mine = self.electricity.entry(*printer).or_default();
            count(&mut mine.runs, theirs.runs);
            count(&mut mine.metered, theirs.metered);
            sum(&mut mine.planned_kwh, theirs.planned_kwh);
            sum(&mut mine.actual_kwh, theirs.actual_kwh);
            sum(&mut mine.planned_cost, theirs.planned_cost);
            sum(&mut mine.actual_cost, theirs.actual_cost);
            if mine.runs == 0 {
                self.electricity.remove(printer);
            }
        }
    }

    /// Adds `other` (a day's or a print's figures).
    pub fn add(&mut self, other: &Figures) {
        self.apply(other, true);
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

    pub fn serialize<S: Serializer, const N: usize>(
        values: &[Decimal; N],
        to: S,
    ) -> Result<S::Ok, S::Error> {
        values.iter().map(Out).collect::<Vec<_>>().serialize(to)
    }

    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        from: D,
    ) -> Result<[Decimal; N], D::Error> {
        let read: Vec<In> = Deserialize::deserialize(from)?;
        let found = read.len();
        read.into_iter()
            .map(|In(d)| d)
            .collect::<Vec<_>>()
            .try_into()
            .map_err(|_| serde::de::Error::invalid_length(found, &"one amount per cost category"))
    }
}
