//! The cost of work lines (docs/costing.md, "Work"): labour, fixed charges, and a
//! post-processing step's machine, each one exact fraction rounded once, as the machine's lines
//! are.
//!
//! With `units` = the print's quantity for a line per piece and 1 for a line per job:
//! - labour (a labour rate's, or a step's at its rate): `minutes × units × hourlyRate / 60`;
//! - a fixed charge: `count × units × amount`;
//! - a step's machine: `minutes × units × purchasePrice / (60 × expectedLifetimeHours)`, and its
//!   electricity `minutes × units × watts × pricePerKwh / 60,000`.

use super::rate::Rate;
use crate::money;
use money::multiply as mul;
use rust_decimal::Decimal;
use storage::Id;
use storage::records::{CostCategory, CostLine, Per};

const MINUTES_PER_HOUR: Decimal = Decimal::from_parts(60, 0, 0, false, 0);
const WATT_MINUTES_PER_KWH: Decimal = Decimal::from_parts(60_000, 0, 0, false, 0);

/// A post-processing step's machine as it is priced.
#[derive(Debug, Clone, PartialEq)]
pub struct MachinePlan {
    /// Its depreciation: purchase price per lifetime hours; the step is the source.
    pub rate: Rate,
    /// Its average power, watts.
    pub watts: u32,
    /// Its running minutes per piece or per job (the step's `per`).
    pub minutes: Decimal,
}

/// What one work line prices, with its rates taken from the inventory.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkKind {
    /// Minutes at a labour rate (`rate`: price per 1 hour).
    Labour {
        /// The hourly rate; the labour rate (or the step) is the source.
        rate: Rate,
        /// Minutes per piece or per job.
        minutes: Decimal,
    },
    /// A count of a fixed charge (`rate`: amount per 1).
    Charge {
        /// The charge's amount.
        rate: Rate,
        /// How many, per piece or per job.
        count: Decimal,
    },
    /// A post-processing step: its labour minutes at its rate, and its machine.
    Step {
        /// The step's labour, at its labour rate's hourly price.
        labour: Rate,
        /// Labour minutes per piece or per job.
        minutes: Decimal,
        /// The machine it runs, if any.
        machine: Option<MachinePlan>,
    },
}

/// One work line of a print, ready to price.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkPlan {
    /// The print's work line (kept in each of its cost lines' `usage_id`).
    pub line_id: Id,
    /// What it prices.
    pub kind: WorkKind,
    /// Per piece or per job.
    pub per: Per,
}

/// How many times a line counts in a run of `quantity` units.
pub fn units(per: Per, quantity: u32) -> Decimal {
    match per {
        Per::Piece => Decimal::from(quantity),
        Per::Job => Decimal::ONE,
    }
}

/// A work cost line without its figures.
fn line(category: CostCategory, rate: &Rate, line_id: Id) -> CostLine {
    CostLine {
        category,
        source_id: rate.source_id,
        part_id: None,
        usage_id: Some(line_id),
        label: rate.label.clone(),
        quantity: Decimal::ZERO,
        rate_price: rate.price,
        rate_per: rate.per,
        watts: 0,
        cost: Decimal::ZERO,
    }
}

/// A line charged by the minute: `minutes × units × price / (60 × per)`, its quantity in hours.
/// (Labour and a machine's hours; [`relabour`] reprices a labour line from actual minutes.)
fn hourly(
    category: CostCategory,
    rate: &Rate,
    line_id: Id,
    minutes: Decimal,
) -> Result<CostLine, money::Overflow> {
    Ok(CostLine {
        quantity: money::divide(minutes, MINUTES_PER_HOUR)?,
        cost: money::bounded(money::divide(
            mul(minutes, rate.price)?,
            mul(MINUTES_PER_HOUR, rate.per)?,
        )?)?,
        ..line(category, rate, line_id)
    })
}

/// The cost lines of one work line for a run of `quantity` units, in display order: labour or
/// charge, then a machine's hours and electricity.
///
/// Errors: [`money::Overflow`] when a product or a line is beyond [`money::MAX_AMOUNT`].
pub fn lines(
    plan: &WorkPlan,
    quantity: u32,
    price_per_kwh: Decimal,
) -> Result<Vec<CostLine>, money::Overflow> {
    let units = units(plan.per, quantity);
    match &plan.kind {
        WorkKind::Labour { rate, minutes } => Ok(vec![hourly(
            CostCategory::Labour,
            rate,
            plan.line_id,
            mul(*minutes, units)?,
        )?]),
        WorkKind::Charge { rate, count } => {
            let count = mul(*count, units)?;
            Ok(vec![CostLine {
                quantity: count,
                cost: money::bounded(money::divide(mul(count, rate.price)?, rate.per)?)?,
                ..line(CostCategory::Charge, rate, plan.line_id)
            }])
        }
        WorkKind::Step {
            labour,
            minutes,
            machine,
        } => {
            let mut lines = vec![hourly(
                CostCategory::Labour,
                labour,
                plan.line_id,
                mul(*minutes, units)?,
            )?];
            if let Some(machine) = machine {
                let minutes = mul(machine.minutes, units)?;
                lines.push(hourly(
                    CostCategory::Machine,
                    &machine.rate,
                    plan.line_id,
                    minutes,
                )?);
                let watt_minutes = mul(minutes, Decimal::from(machine.watts))?;
                lines.push(CostLine {
                    label: format!("{} ({} W)", machine.rate.label, machine.watts),
                    quantity: money::divide(watt_minutes, WATT_MINUTES_PER_KWH)?,
                    rate_price: price_per_kwh,
                    rate_per: Decimal::ONE,
                    watts: machine.watts,
                    cost: money::bounded(money::divide(
                        mul(watt_minutes, price_per_kwh)?,
                        WATT_MINUTES_PER_KWH,
                    )?)?,
                    ..line(
                        CostCategory::MachineElectricity,
                        &machine.rate,
                        plan.line_id,
                    )
                });
            }
            Ok(lines)
        }
    }
}

/// A frozen labour line repriced from the actual minutes of its work line (`minutes` in the
/// line's own terms, per piece or per job; `units` as [`units`] counts them), at its frozen rate.
///
/// Errors: [`money::Overflow`] beyond [`money::MAX_AMOUNT`].
pub fn relabour(
    line: &CostLine,
    minutes: Decimal,
    units: Decimal,
) -> Result<CostLine, money::Overflow> {
    let rate = Rate {
        source_id: line.source_id,
        label: line.label.clone(),
        price: line.rate_price,
        per: line.rate_per,
    };
    let Some(line_id) = line.usage_id else {
        return Ok(line.clone());
    };
    hourly(CostCategory::Labour, &rate, line_id, mul(minutes, units)?)
}
