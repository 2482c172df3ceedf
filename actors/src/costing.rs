//! The cost engine: pure functions over exact decimals.
//!
//! Formulas (docs/costing.md), with `h = seconds / 3600`:
//! - printer: `h × purchasePrice / expectedLifetimeHours`, over the part's duration;
//! - each hotend: `its own h × price / lifetime_h` (a resin part's vat alike, over the part's
//!   duration);
//! - build plate and each other component: `h × price / lifetime_h`, over the part's duration;
//! - a component whose lifetime is counted in prints (any of the above, a vat's FEP film
//!   mostly): `price / lifetime_prints`, once per part run, in the category
//!   [`CostCategory::PerPrint`];
//! - each material (filament, resin, consumable): `quantity × price / net quantity` (the
//!   spool's, bottle's or pack's, or the catalog's), in the material's unit;
//! - electricity: `h × averagePowerWatts / 1000 × electricityPrice` (per kWh);
//! - work lines (labour, fixed charges, post-processing machines): [`work`].
//!
//! A part's duration is the sum of its hotend durations (a resin part's: its vat's). Each line is one fraction, the
//! multiplications first and a single division last (`seconds × price / (3600 × lifetime)`),
//! rounded half-even to 10 places ([`money::divide`]); totals are sums of lines;
//! `costPerUnit = total / quantity`, rounded the same way (docs/api-contract.md, "Money").
//! Each line keeps its rate as the fraction `price / per`, so later costs reuse it exactly.

mod rate;
pub mod work;

use crate::money;
pub use rate::Rate;
use rust_decimal::Decimal;
use storage::Id;
use storage::records::{CostCategory, CostLine, Costing};
pub use work::{MachinePlan, WorkKind, WorkPlan};

/// Where pricing went beyond the amounts a print may store ([`money::MAX_AMOUNT`], or the decimal
/// range itself on the way), so that the caller can name the input at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Overflow {
    /// A line of the part at index `part` of the print: its category, and which of the part's
    /// lines of that category (`nth`, from 0: hotends and other components have several; for
    /// a material's line, which of the part's material uses, whatever their kinds).
    #[error("a {category:?} cost of part {part} is too large")]
    Line {
        /// The part's index.
        part: usize,
        /// The line's category.
        category: CostCategory,
        /// Which of the part's lines of that category.
        nth: usize,
    },
    /// A line of the print's work line at index `line`.
    #[error("a cost of work line {line} is too large")]
    Work {
        /// The work line's index.
        line: usize,
    },
    /// The line of the print's own consumable at index `line`.
    #[error("the cost of the print's consumable {line} is too large")]
    Material {
        /// The consumable's index.
        line: usize,
    },
    /// The sum of the lines.
    #[error("the total cost is too large")]
    Total,
}

/// A planned use of a material.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialUse {
    /// The usage.
    pub usage_id: Id,
    /// FILAMENT, RESIN or CONSUMABLE: the material's kind.
    pub category: CostCategory,
    /// Price per unit (gram, millilitre, piece) of its spool, bottle or pack, or its catalog
    /// material's.
    pub rate: Rate,
    /// Quantity for the whole run, in the material's unit.
    pub quantity: Decimal,
}

/// A component's wear rate: `price / per`, per printing hour or per print (its
/// [`records::Lifetime`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Wear {
    /// The rate: over lifetime hours or lifetime prints.
    pub rate: Rate,
    /// True when `rate.per` counts prints: one line per part run
    /// ([`CostCategory::PerPrint`]) whatever the time.
    pub per_print: bool,
}

impl Wear {
    /// A rate per printing hour.
    pub fn hours(rate: Rate) -> Wear {
        Wear {
            rate,
            per_print: false,
        }
    }
}

/// Everything one part is priced from.
#[derive(Debug, Clone, PartialEq)]
pub struct PartPlan {
    /// The part.
    pub part_id: Id,
    /// The printer's depreciation rate.
    pub printer: Rate,
    /// The printer's average power, watts.
    pub watts: u32,
    /// The build plate's wear.
    pub build_plate: Wear,
    /// Each hotend's wear and printing time, seconds (a resin part: its vat's).
    pub hotends: Vec<(Wear, u32)>,
    /// What `hotends` are: [`CostCategory::Hotend`], or [`CostCategory::Vat`] on a resin
    /// printer.
    pub head: CostCategory,
    /// Other components' wear.
    pub others: Vec<Wear>,
    /// Material uses.
    pub materials: Vec<MaterialUse>,
}

impl PartPlan {
    /// The part's duration: the sum of its hotend durations, seconds.
    pub fn duration_seconds(&self) -> u64 {
        self.hotends.iter().map(|(_, s)| u64::from(*s)).sum()
    }
}

use money::multiply as mul;
use storage::records;

const SECONDS_PER_HOUR: Decimal = Decimal::from_parts(3600, 0, 0, false, 0);
const WATT_SECONDS_PER_KWH: Decimal = Decimal::from_parts(3_600_000, 0, 0, false, 0);

/// A line charged by time: `seconds × price / (3600 × per)`.
fn time_line(
    category: CostCategory,
    rate: &Rate,
    part_id: Id,
    seconds: u64,
) -> Result<CostLine, money::Overflow> {
    let seconds = Decimal::from(seconds);
    let cost = money::divide(mul(seconds, rate.price)?, mul(SECONDS_PER_HOUR, rate.per)?)?;
    Ok(CostLine {
        category,
        source_id: rate.source_id,
        part_id: Some(part_id),
        usage_id: None,
        label: rate.label.clone(),
        quantity: money::divide(seconds, SECONDS_PER_HOUR)?,
        rate_price: rate.price,
        rate_per: rate.per,
        watts: 0,
        cost: money::bounded(cost)?,
    })
}

/// A component's wear line: by `seconds` in `category` ([`time_line`]), or, counted in prints,
/// one print's share of it in [`CostCategory::PerPrint`] (`price / per`, quantity 1).
fn wear_line(
    category: CostCategory,
    wear: &Wear,
    part_id: Id,
    seconds: u64,
) -> Result<CostLine, money::Overflow> {
    if !wear.per_print {
        return time_line(category, &wear.rate, part_id, seconds);
    }
    let rate = &wear.rate;
    Ok(CostLine {
        category: CostCategory::PerPrint,
        source_id: rate.source_id,
        part_id: Some(part_id),
        usage_id: None,
        label: rate.label.clone(),
        quantity: Decimal::ONE,
        rate_price: rate.price,
        rate_per: rate.per,
        watts: 0,
        cost: money::bounded(money::divide(rate.price, rate.per)?)?,
    })
}

/// The electricity line of a part: `seconds × watts × pricePerKwh / 3,600,000`.
fn electricity_line(
    plan: &PartPlan,
    seconds: u64,
    price_per_kwh: Decimal,
) -> Result<CostLine, money::Overflow> {
    let watt_seconds = mul(Decimal::from(seconds), Decimal::from(plan.watts))?;
    Ok(CostLine {
        category: CostCategory::Electricity,
        source_id: plan.printer.source_id,
        part_id: Some(plan.part_id),
        usage_id: None,
        label: format!("{} ({} W)", plan.printer.label, plan.watts),
        quantity: money::divide(watt_seconds, WATT_SECONDS_PER_KWH)?,
        rate_price: price_per_kwh,
        rate_per: Decimal::ONE,
        watts: plan.watts,
        cost: money::bounded(money::divide(
            mul(watt_seconds, price_per_kwh)?,
            WATT_SECONDS_PER_KWH,
        )?)?,
    })
}

/// A material line of a part (or, `None`, of the whole print): `quantity × price / per`.
fn material_line(part_id: Option<Id>, usage: &MaterialUse) -> Result<CostLine, money::Overflow> {
    Ok(CostLine {
        category: usage.category,
        source_id: usage.rate.source_id,
        part_id,
        usage_id: Some(usage.usage_id),
        label: usage.rate.label.clone(),
        quantity: usage.quantity,
        rate_price: usage.rate.price,
        rate_per: usage.rate.per,
        watts: 0,
        cost: money::bounded(money::divide(
            mul(usage.quantity, usage.rate.price)?,
            usage.rate.per,
        )?)?,
    })
}

/// Every cost line of one part, the part at index `part` of its print, in display order:
/// printer, hotends (or the vat), build plate, other components, materials, electricity.
///
/// Errors: [`Overflow::Line`] naming the line whose amount exceeds [`money::MAX_AMOUNT`].
pub fn part_lines(
    part: usize,
    plan: &PartPlan,
    price_per_kwh: Decimal,
) -> Result<Vec<CostLine>, Overflow> {
    let at = |category, nth| {
        move |_| Overflow::Line {
            part,
            category,
            nth,
        }
    };
    let seconds = plan.duration_seconds();
    let mut lines = vec![
        time_line(CostCategory::Printer, &plan.printer, plan.part_id, seconds)
            .map_err(at(CostCategory::Printer, 0))?,
    ];
    for (nth, (wear, own_seconds)) in plan.hotends.iter().enumerate() {
        let seconds = u64::from(*own_seconds);
        lines.push(wear_line(plan.head, wear, plan.part_id, seconds).map_err(at(plan.head, nth))?);
    }
    lines.push(
        wear_line(
            CostCategory::BuildPlate,
            &plan.build_plate,
            plan.part_id,
            seconds,
        )
        .map_err(at(CostCategory::BuildPlate, 0))?,
    );
    for (nth, wear) in plan.others.iter().enumerate() {
        lines.push(
            wear_line(CostCategory::Component, wear, plan.part_id, seconds)
                .map_err(at(CostCategory::Component, nth))?,
        );
    }
    for (nth, usage) in plan.materials.iter().enumerate() {
        lines.push(material_line(Some(plan.part_id), usage).map_err(at(usage.category, nth))?);
    }
    lines.push(
        electricity_line(plan, seconds, price_per_kwh).map_err(at(CostCategory::Electricity, 0))?,
    );
    Ok(lines)
}

/// Sums `lines`, and divides the sum by `quantity` (at least 1) for the cost per unit.
///
/// Errors: [`Overflow::Total`] when the sum exceeds [`money::MAX_AMOUNT`].
fn totals(
    lines: Vec<CostLine>,
    price_per_kwh: Decimal,
    quantity: u32,
) -> Result<Costing, Overflow> {
    let total = lines
        .iter()
        .try_fold(Decimal::ZERO, |sum, l| sum.checked_add(l.cost))
        .map(|t| t.normalize())
        .and_then(|t| money::bounded(t).ok())
        .ok_or(Overflow::Total)?;
    Ok(Costing {
        electricity_price: price_per_kwh,
        cost_per_unit: money::divide(total, Decimal::from(quantity.max(1)))
            .map_err(|_| Overflow::Total)?,
        lines,
        total,
    })
}

/// Prices a whole print: every part's lines, then its work lines' ([`work::lines`]), then its
/// own consumables' (each a material line of no part: `quantity × price / per`, the quantity
/// for the whole print), the total and the cost per unit. A print without work or
/// consumables costs what its parts cost.
///
/// Errors: [`Overflow`], naming the line or the total beyond [`money::MAX_AMOUNT`].
pub fn price(
    (parts, work, materials): (&[PartPlan], &[WorkPlan], &[MaterialUse]),
    price_per_kwh: Decimal,
    quantity: u32,
) -> Result<Costing, Overflow> {
    let mut lines = Vec::new();
    for (part, plan) in parts.iter().enumerate() {
        lines.extend(part_lines(part, plan, price_per_kwh)?);
    }
    for (line, plan) in work.iter().enumerate() {
        lines.extend(
            work::lines(plan, quantity, price_per_kwh).map_err(|_| Overflow::Work { line })?,
        );
    }
    for (line, usage) in materials.iter().enumerate() {
        lines.push(material_line(None, usage).map_err(|_| Overflow::Material { line })?);
    }
    totals(lines, price_per_kwh, quantity)
}

/// True for the categories of materials' lines (filament, resin, consumable): priced by
/// quantity in the material's unit, booked from stock by outcomes.
pub fn is_material(category: CostCategory) -> bool {
    matches!(
        category,
        CostCategory::Filament | CostCategory::Resin | CostCategory::Consumable
    )
}

/// True for the categories of work lines (priced by [`work`], not by a part's run).
pub fn is_work(category: CostCategory) -> bool {
    matches!(
        category,
        CostCategory::Labour
            | CostCategory::Charge
            | CostCategory::Machine
            | CostCategory::MachineElectricity
    )
}

/// What actually happened to a print, for [`actual`].
#[derive(Debug, Clone, Default)]
pub struct Actuals {
    /// Actual printing time of each part, seconds.
    pub part_seconds: std::collections::HashMap<Id, u32>,
    /// Actual quantity of each usage, in its material's unit.
    pub grams: std::collections::HashMap<Id, Decimal>,
    /// The kWh each part's electricity line is priced from, where known (metered, from the
    /// printer fleet or entered); a part without one is estimated from its watts and seconds.
    pub part_kwh: std::collections::HashMap<Id, Decimal>,
    /// Actual labour minutes of the work lines the maker gave, in each line's own terms (per
    /// piece or per job); a line not named keeps its planned cost.
    pub work_minutes: std::collections::HashMap<Id, Decimal>,
}

impl Actuals {
    /// The whole print's actual time: the sum of its parts' (checked to fit a duration before
    /// the actuals are made).
    pub fn seconds(&self) -> u32 {
        self.part_seconds
            .values()
            .fold(0u32, |sum, s| sum.saturating_add(*s))
    }
}

/// Actual costs: the rates frozen in `planned` (the snapshot taken when the print left DRAFT)
/// applied to the actual part durations and grams (docs/costing.md, "Frozen and actual
/// costs"); a part's electricity is its known kWh at the frozen price per kWh, else its
/// frozen watts over its actual time.
///
/// Each hotend takes the part's actual time in proportion to its planned time
/// (`actual × planned_hotend / planned_part`; equal shares when nothing was planned), still as one
/// fraction per line. A line per print ([`CostCategory::PerPrint`]) stays as planned: the run
/// happened, however long it took. The print's own consumables (`materials`) are repriced from
/// their actual quantities like a part's. `parts` gives the planned hotend durations in line order. Work lines keep
/// their frozen cost, but a labour line whose work line has actual minutes is repriced from
/// them at its frozen rate (`work` says per piece or per job).
///
/// Errors: [`Overflow`], naming the line (by its part's index in `parts`, or its work line's
/// in `work`) or the total beyond [`money::MAX_AMOUNT`].
pub fn actual(
    planned: &Costing,
    (parts, work, materials): (
        &[records::Part],
        &[records::WorkLine],
        &[records::PrintMaterial],
    ),
    actuals: &Actuals,
    quantity: u32,
) -> Result<Costing, Overflow> {
    let mut heads_seen: std::collections::HashMap<Id, usize> = Default::default();
    let mut seen: std::collections::HashMap<(Id, CostCategory), usize> = Default::default();
    let mut lines = Vec::with_capacity(planned.lines.len());
    for line in &planned.lines {
        if is_work(line.category) {
            lines.push(actual_work(line, work, actuals, quantity)?);
            continue;
        }
        let own = materials
            .iter()
            .position(|m| line.usage_id == Some(m.usage.id));
        if let Some(at) = own.filter(|_| is_material(line.category)) {
            let line = actual_line(line, parts, line.source_id, actuals, None)
                .map_err(|_| Overflow::Material { line: at })?;
            lines.push(line);
            continue;
        }
        let part_id = line.part_id.unwrap_or(line.source_id);
        // Materials are counted together: `nth` names the part's material use.
        let counted = match is_material(line.category) {
            true => CostCategory::Filament,
            false => line.category,
        };
        let nth = seen.entry((part_id, counted)).or_default();
        let at = Overflow::Line {
            part: parts.iter().position(|p| p.id == part_id).unwrap_or(0),
            category: line.category,
            nth: *nth,
        };
        *nth += 1;
        let head = next_head(line, parts, part_id, &mut heads_seen);
        let line = actual_line(line, parts, part_id, actuals, head).map_err(|_| at)?;
        lines.push(line);
    }
    totals(lines, planned.electricity_price, quantity)
}

/// A frozen work line as it really was: a labour line repriced from its actual minutes where
/// the maker gave them, every other line as planned.
fn actual_work(
    line: &CostLine,
    work: &[records::WorkLine],
    actuals: &Actuals,
    quantity: u32,
) -> Result<CostLine, Overflow> {
    let found = work
        .iter()
        .enumerate()
        .find(|(_, w)| Some(w.id) == line.usage_id);
    let minutes = line.usage_id.and_then(|w| actuals.work_minutes.get(&w));
    match (line.category, found, minutes) {
        (CostCategory::Labour, Some((at, work_line)), Some(minutes)) => {
            let units = work::units(work_line.per, quantity);
            work::relabour(line, *minutes, units).map_err(|_| Overflow::Work { line: at })
        }
        _ => Ok(line.clone()),
    }
}

/// The index among its part's hotends (or vat) of a head's line, taken in line order: the
/// lines of a part's heads follow its hotends, in their categories or, counted in prints, as
/// [`CostCategory::PerPrint`] (a per-print line names a head when its component is the next
/// one). `None` for any other line.
fn next_head(
    line: &CostLine,
    parts: &[records::Part],
    part_id: Id,
    seen: &mut std::collections::HashMap<Id, usize>,
) -> Option<usize> {
    let part = parts.iter().find(|p| p.id == part_id)?;
    let index = seen.entry(part_id).or_default();
    let head = match line.category {
        CostCategory::Hotend | CostCategory::Vat => true,
        CostCategory::PerPrint => {
            part.hotends.get(*index).map(|h| h.component_id) == Some(line.source_id)
        }
        _ => false,
    };
    head.then(|| {
        *index += 1;
        *index - 1
    })
}

/// One planned line repriced from the actual seconds of its part and grams of its usage; a
/// head's line takes the share of the part's time of the head at index `head`.
fn actual_line(
    line: &CostLine,
    parts: &[records::Part],
    part_id: Id,
    actuals: &Actuals,
    head: Option<usize>,
) -> Result<CostLine, money::Overflow> {
    let seconds = Decimal::from(actuals.part_seconds.get(&part_id).copied().unwrap_or(0));
    let (numerator, denominator, quantity_num, quantity_den) = match line.category {
        CostCategory::Printer | CostCategory::BuildPlate | CostCategory::Component => (
            mul(seconds, line.rate_price)?,
            mul(SECONDS_PER_HOUR, line.rate_per)?,
            seconds,
            SECONDS_PER_HOUR,
        ),
        CostCategory::Hotend | CostCategory::Vat => {
            let part = parts.iter().find(|p| p.id == part_id);
            let index = head.unwrap_or(0);
            let planned_total: u64 = part.map_or(0, |p| {
                p.hotends
                    .iter()
                    .map(|h| u64::from(h.duration_seconds))
                    .sum()
            });
            let own = part
                .and_then(|p| p.hotends.get(index))
                .map_or(0, |h| h.duration_seconds);
            let count = part.map_or(1, |p| p.hotends.len().max(1));
            let (share_num, share_den) = if planned_total == 0 {
                (Decimal::ONE, Decimal::from(count))
            } else {
                (Decimal::from(own), Decimal::from(planned_total))
            };
            let scaled = mul(seconds, share_num)?;
            (
                mul(scaled, line.rate_price)?,
                mul(mul(SECONDS_PER_HOUR, line.rate_per)?, share_den)?,
                scaled,
                mul(SECONDS_PER_HOUR, share_den)?,
            )
        }
        CostCategory::Electricity if actuals.part_kwh.contains_key(&part_id) => {
            let kwh = actuals.part_kwh.get(&part_id).copied().unwrap_or_default();
            (mul(kwh, line.rate_price)?, line.rate_per, kwh, Decimal::ONE)
        }
        CostCategory::Electricity => {
            let watt_seconds = mul(seconds, Decimal::from(line.watts))?;
            (
                mul(watt_seconds, line.rate_price)?,
                WATT_SECONDS_PER_KWH,
                watt_seconds,
                WATT_SECONDS_PER_KWH,
            )
        }
        CostCategory::Labour
        | CostCategory::Charge
        | CostCategory::Machine
        | CostCategory::MachineElectricity
        | CostCategory::PerPrint => return Ok(line.clone()),
        CostCategory::Filament | CostCategory::Resin | CostCategory::Consumable => {
            let grams = line
                .usage_id
                .and_then(|u| actuals.grams.get(&u).copied())
                .unwrap_or_default();
            (
                mul(grams, line.rate_price)?,
                line.rate_per,
                grams,
                Decimal::ONE,
            )
        }
    };
    Ok(CostLine {
        quantity: money::divide(quantity_num, quantity_den)?,
        cost: money::bounded(money::divide(numerator, denominator)?)?,
        ..line.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn rate(label: &str, price: &str, per: &str) -> Rate {
        Rate {
            source_id: Id::new(),
            label: label.into(),
            price: d(price),
            per: d(per),
        }
    }

    fn wear(label: &str, price: &str, per: &str) -> Wear {
        Wear::hours(rate(label, price, per))
    }

    fn per_print(label: &str, price: &str, prints: &str) -> Wear {
        Wear {
            rate: rate(label, price, prints),
            per_print: true,
        }
    }

    /// The reference example of docs/costing.md: 5,400 s; printer 1200 / 6000 h at 120 W; hotend 100 / 2000 h;
    /// plate 60 / 1200 h; 42.5 g from a 29.99 / 1000 g spool; electricity 0.32 per kWh.
    fn reference(seconds: u32, grams: &str) -> PartPlan {
        PartPlan {
            part_id: Id::new(),
            printer: rate("Printer", "1200", "6000"),
            watts: 120,
            build_plate: wear("Plate", "60", "1200"),
            hotends: vec![(wear("Hotend", "100", "2000"), seconds)],
            head: CostCategory::Hotend,
            others: vec![],
            materials: vec![material(
                CostCategory::Filament,
                ("PLA", "29.99", "1000"),
                grams,
            )],
        }
    }

    fn material(
        category: CostCategory,
        (label, price, per): (&str, &str, &str),
        quantity: &str,
    ) -> MaterialUse {
        MaterialUse {
            usage_id: Id::new(),
            category,
            rate: rate(label, price, per),
            quantity: d(quantity),
        }
    }

    /// The resin twin of the reference example (docs/costing.md): 5,400 s on an MSLA printer of
    /// 600 over 3,000 h at 60 W, a vat of 30 over 500 h, the same build plate, 36.4 ml from a
    /// bottle of 34.99 per 1,000 ml, 2 gloves from a box of 100 for 12, 50 ml of isopropyl
    /// alcohol from a litre for 9.50, electricity at 0.32 per kWh.
    fn resin_reference() -> PartPlan {
        PartPlan {
            part_id: Id::new(),
            printer: rate("Resin printer", "600", "3000"),
            watts: 60,
            build_plate: wear("Plate", "60", "1200"),
            hotends: vec![(wear("Vat", "30", "500"), 5400)],
            head: CostCategory::Vat,
            others: vec![],
            materials: vec![
                material(CostCategory::Resin, ("Resin", "34.99", "1000"), "36.4"),
                material(CostCategory::Consumable, ("Gloves", "12", "100"), "2"),
                material(CostCategory::Consumable, ("IPA", "9.50", "1000"), "50"),
            ],
        }
    }

    #[test]
    fn the_resin_reference_example_costs_exactly_2_482436() {
        let plan = resin_reference();
        let costing = price((std::slice::from_ref(&plan), &[], &[]), d("0.32"), 1).unwrap();
        assert_eq!(costing.total.to_string(), "2.482436");
        let lines: Vec<(CostCategory, String)> = costing
            .lines
            .iter()
            .map(|l| (l.category, l.cost.to_string()))
            .collect();
        let expected = [
            (CostCategory::Printer, "0.3"),
            (CostCategory::Vat, "0.09"),
            (CostCategory::BuildPlate, "0.075"),
            (CostCategory::Resin, "1.273636"),
            (CostCategory::Consumable, "0.24"),
            (CostCategory::Consumable, "0.475"),
            (CostCategory::Electricity, "0.0288"),
        ]
        .map(|(c, s)| (c, s.to_string()));
        assert_eq!(lines, expected);
        // The actuals: 10 % more time and 40 ml of resin reprice the vat and the resin at
        // their frozen rates; the consumables as used.
        let part = one_hotend_part(&plan);
        let mut actuals = Actuals::default();
        actuals.part_seconds.insert(plan.part_id, 5940);
        actuals.grams.insert(plan.materials[0].usage_id, d("40"));
        actuals.grams.insert(plan.materials[1].usage_id, d("2"));
        actuals.grams.insert(plan.materials[2].usage_id, d("50"));
        let actual = super::actual(&costing, (&[part], &[], &[]), &actuals, 1).unwrap();
        let vat = &actual.lines[1];
        assert_eq!(
            (vat.category, vat.cost.to_string()),
            (CostCategory::Vat, "0.099".into())
        );
        assert_eq!(actual.lines[3].cost.to_string(), "1.3996");
        assert_eq!(actual.total.to_string(), "2.65778");
    }

    #[test]
    fn the_reference_example_costs_exactly_1_782175() {
        let costing = price((&[reference(5400, "42.5")], &[], &[]), d("0.32"), 1).unwrap();
        assert_eq!(costing.total.to_string(), "1.782175");
        assert_eq!(costing.cost_per_unit.to_string(), "1.782175");
        let costs: Vec<String> = costing.lines.iter().map(|l| l.cost.to_string()).collect();
        assert_eq!(costs, ["0.3", "0.075", "0.075", "1.274575", "0.0576"]);
        let electricity = costing.lines.last().unwrap();
        assert_eq!(electricity.category, CostCategory::Electricity);
        assert_eq!(electricity.quantity.to_string(), "0.18");
    }

    /// The stored part of a reference plan (its one hotend printing 5,400 s), for actuals.
    fn one_hotend_part(plan: &PartPlan) -> records::Part {
        records::Part {
            id: plan.part_id,
            printer_id: plan.printer.source_id,
            build_plate_id: plan.build_plate.rate.source_id,
            hotends: vec![records::HotendUse {
                component_id: plan.hotends[0].0.rate.source_id,
                duration_seconds: 5400,
            }],
            other_component_ids: vec![],
            usages: vec![],
        }
    }

    fn labour(minutes: &str, per: records::Per) -> WorkPlan {
        WorkPlan {
            line_id: Id::new(),
            kind: WorkKind::Labour {
                rate: rate("Nachbearbeitung", "45", "1"),
                minutes: d(minutes),
            },
            per,
        }
    }

    fn setup_fee(amount: &str) -> WorkPlan {
        WorkPlan {
            line_id: Id::new(),
            kind: WorkKind::Charge {
                rate: rate("Grundgebühr", amount, "1"),
                count: Decimal::ONE,
            },
            per: records::Per::Job,
        }
    }

    /// docs/costing.md, "The reference example with work": the reference print, 7 minutes of
    /// labour at 45 per hour and a setup fee of 3.50.
    #[test]
    fn the_reference_example_with_labour_and_a_setup_fee_costs_exactly_10_532175() {
        let work = [labour("7", records::Per::Piece), setup_fee("3.50")];
        let costing = price((&[reference(5400, "42.5")], &work, &[]), d("0.32"), 1).unwrap();
        assert_eq!(costing.total.to_string(), "10.532175");
        let work_lines: Vec<(CostCategory, String, String)> = costing.lines[5..]
            .iter()
            .map(|l| (l.category, l.quantity.to_string(), l.cost.to_string()))
            .collect();
        assert_eq!(
            work_lines,
            [
                (CostCategory::Labour, "0.1166666667".into(), "5.25".into()),
                (CostCategory::Charge, "1".into(), "3.5".into()),
            ]
        );
        let without = price((&[reference(5400, "42.5")], &[], &[]), d("0.32"), 1).unwrap();
        let costs = |lines: &[CostLine]| lines.iter().map(|l| l.cost).collect::<Vec<_>>();
        assert_eq!(costs(&costing.lines[..5]), costs(&without.lines));
    }

    #[test]
    fn work_per_piece_counts_every_unit_and_a_steps_machine_runs_with_it() {
        let step = WorkPlan {
            line_id: Id::new(),
            kind: WorkKind::Step {
                labour: rate("Waschen und Härten", "45", "1"),
                minutes: d("2"),
                machine: Some(MachinePlan {
                    rate: rate("Wash & Cure", "250", "1000"),
                    watts: 60,
                    minutes: d("6"),
                }),
            },
            per: records::Per::Piece,
        };
        let work = [labour("7", records::Per::Piece), setup_fee("3.50"), step];
        let costing = price((&[reference(5400, "42.5")], &work, &[]), d("0.32"), 4).unwrap();
        let costs: Vec<String> = costing.lines[5..]
            .iter()
            .map(|l| l.cost.to_string())
            .collect();
        // 7 min × 4 × 45 / 60 = 21; 3.50 once; 2 min × 4 × 45 / 60 = 6;
        // 24 min × 250 / (60 × 1000) = 0.1; 24 min × 60 W × 0.32 / 60,000 = 0.00768.
        assert_eq!(costs, ["21", "3.5", "6", "0.1", "0.00768"]);
        assert_eq!(costing.total.to_string(), "32.389855");
        assert_eq!(costing.cost_per_unit.to_string(), "8.09746375");
    }

    #[test]
    fn actual_minutes_reprice_labour_only_at_the_frozen_rate() {
        let plan = reference(5400, "42.5");
        let work = [labour("7", records::Per::Piece), setup_fee("3.50")];
        let planned = price((std::slice::from_ref(&plan), &work, &[]), d("0.32"), 2).unwrap();
        let lines: Vec<records::WorkLine> = work
            .iter()
            .map(|w| records::WorkLine {
                id: w.line_id,
                source: records::WorkSource::Labour(Id::new()),
                amount: d("7"),
                per: w.per,
            })
            .collect();
        let part = one_hotend_part(&plan);
        let mut actuals = Actuals::default();
        actuals.part_seconds.insert(plan.part_id, 5400);
        actuals.grams.insert(plan.materials[0].usage_id, d("42.5"));
        let same = actual(
            &planned,
            (std::slice::from_ref(&part), &lines, &[]),
            &actuals,
            2,
        )
        .unwrap();
        assert_eq!(same.total, planned.total);
        actuals.work_minutes.insert(work[0].line_id, d("12"));
        actuals.work_minutes.insert(work[1].line_id, d("99"));
        let longer = actual(
            &planned,
            (std::slice::from_ref(&part), &lines, &[]),
            &actuals,
            2,
        )
        .unwrap();
        // 12 min × 2 pieces × 45 / 60 = 18 instead of 10.5; the charge stays 3.5.
        assert_eq!(
            (longer.total - planned.total).normalize().to_string(),
            "7.5"
        );
    }

    #[test]
    fn a_work_line_beyond_the_bound_names_its_index() {
        let work = [setup_fee("1"), setup_fee("999999999999999")];
        let huge = WorkPlan {
            per: records::Per::Piece,
            ..work[1].clone()
        };
        let overflow = price(
            (&[reference(5400, "42.5")], &[work[0].clone(), huge], &[]),
            d("0.32"),
            1_000_000,
        )
        .unwrap_err();
        assert_eq!(overflow, Overflow::Work { line: 1 });
    }

    #[test]
    fn a_multipart_print_sums_its_parts() {
        let mut second = reference(1800, "10");
        second
            .hotends
            .push((wear("Second hotend", "80", "1600"), 600));
        second.others.push(wear("Belts", "45", "3000"));
        let costing = price((&[reference(5400, "42.5"), second], &[], &[]), d("0.32"), 4).unwrap();
        // Part 2: 2400 s in all. printer 2400×1200/(3600×6000) = 0.1333333333;
        // hotends 1800×100/(3600×2000) = 0.025 and 600×80/(3600×1600) = 0.0083333333;
        // plate 2400×60/(3600×1200) = 0.0333333333; belts 2400×45/(3600×3000) = 0.01;
        // filament 10×29.99/1000 = 0.2999; electricity 2400×120×0.32/3600000 = 0.0256;
        // part 2 = 0.5354999999, print = 1.782175 + 0.5354999999.
        assert_eq!(costing.lines.len(), 5 + 7);
        assert_eq!(costing.total.to_string(), "2.3176749999");
        // 2.3176749999 / 4 = 0.579418749975, half-even at 10 places.
        assert_eq!(costing.cost_per_unit.to_string(), "0.57941875");
    }

    #[test]
    fn actuals_equal_to_the_plan_cost_the_same() {
        let plan = reference(5400, "42.5");
        let planned = price((std::slice::from_ref(&plan), &[], &[]), d("0.32"), 1).unwrap();
        let part = one_hotend_part(&plan);
        let mut actuals = Actuals::default();
        actuals.part_seconds.insert(plan.part_id, 5400);
        actuals.grams.insert(plan.materials[0].usage_id, d("42.5"));
        let same = actual(
            &planned,
            (std::slice::from_ref(&part), &[], &[]),
            &actuals,
            1,
        )
        .unwrap();
        assert_eq!(same.total.to_string(), "1.782175");
        actuals.part_seconds.insert(plan.part_id, 2700);
        actuals.grams.insert(plan.materials[0].usage_id, d("0"));
        let half = actual(
            &planned,
            (std::slice::from_ref(&part), &[], &[]),
            &actuals,
            1,
        )
        .unwrap();
        // Half the time: (0.3 + 0.075 + 0.075 + 0.0576) / 2; no filament.
        assert_eq!(half.total.to_string(), "0.2538");
    }

    #[test]
    fn hotends_share_the_actual_time_in_proportion_to_their_plan() {
        let mut plan = reference(3000, "1");
        plan.hotends.push((wear("Second", "100", "2000"), 1000));
        let planned = price((std::slice::from_ref(&plan), &[], &[]), d("0"), 1).unwrap();
        let part = records::Part {
            id: plan.part_id,
            printer_id: plan.printer.source_id,
            build_plate_id: plan.build_plate.rate.source_id,
            hotends: vec![
                records::HotendUse {
                    component_id: plan.hotends[0].0.rate.source_id,
                    duration_seconds: 3000,
                },
                records::HotendUse {
                    component_id: plan.hotends[1].0.rate.source_id,
                    duration_seconds: 1000,
                },
            ],
            other_component_ids: vec![],
            usages: vec![],
        };
        let mut actuals = Actuals::default();
        actuals.part_seconds.insert(plan.part_id, 8000);
        let doubled = actual(
            &planned,
            (std::slice::from_ref(&part), &[], &[]),
            &actuals,
            1,
        )
        .unwrap();
        let hotends: Vec<String> = doubled
            .lines
            .iter()
            .filter(|l| l.category == CostCategory::Hotend)
            .map(|l| l.cost.to_string())
            .collect();
        // 6000 s and 2000 s of a 100 / 2000 h hotend.
        assert_eq!(hotends, ["0.0833333333", "0.0277777778"]);
    }

    /// A print's own consumable is a line of no part after the work, repriced from its usage's
    /// actual quantity; beyond the bound it names its index.
    #[test]
    fn a_prints_own_consumable_is_a_line_of_no_part_repriced_from_its_usage() {
        let plan = reference(5400, "42.5");
        let own = material(CostCategory::Consumable, ("Box", "25", "50"), "3");
        let lines = (
            std::slice::from_ref(&plan),
            &[][..],
            std::slice::from_ref(&own),
        );
        let planned = price(lines, d("0.32"), 3).unwrap();
        let line = planned.lines.last().unwrap();
        assert_eq!(
            (line.part_id, line.usage_id, line.cost.to_string()),
            (None, Some(own.usage_id), "1.5".into())
        );
        assert_eq!(planned.total.to_string(), "3.282175");
        let materials = [records::PrintMaterial {
            usage: records::Usage {
                id: own.usage_id,
                filament_id: own.rate.source_id,
                spool_id: None,
                spool_code: None,
                used_grams: d("3"),
            },
            amount: d("1"),
            per: records::Per::Piece,
        }];
        let mut actuals = Actuals::default();
        actuals.part_seconds.insert(plan.part_id, 5400);
        actuals.grams.insert(plan.materials[0].usage_id, d("42.5"));
        actuals.grams.insert(own.usage_id, d("4"));
        let part = one_hotend_part(&plan);
        let actual = super::actual(&planned, (&[part], &[], &materials), &actuals, 3).unwrap();
        assert_eq!(actual.lines.last().unwrap().cost.to_string(), "2");
        assert_eq!(actual.total.to_string(), "3.782175");
        let dear = material(
            CostCategory::Consumable,
            ("Gold leaf", "999999999999999", "0.000001"),
            "1",
        );
        let beyond = price((&[], &[], &[own, dear]), d("0.32"), 1);
        assert_eq!(beyond.unwrap_err(), Overflow::Material { line: 1 });
    }

    /// A component counted in prints costs its price over its prints once per run, whatever the
    /// time, planned and actual; the heads around it keep their shares of the part's time.
    #[test]
    fn a_component_counted_in_prints_costs_its_share_per_run_whatever_the_time() {
        // The resin twin, its vat's FEP film counted in prints: 30 over 200 prints.
        let mut plan = resin_reference();
        plan.hotends[0].0 = per_print("FEP film", "30", "200");
        let planned = price((std::slice::from_ref(&plan), &[], &[]), d("0.32"), 1).unwrap();
        let film = &planned.lines[1];
        assert_eq!(
            (film.category, film.quantity, film.cost.to_string()),
            (CostCategory::PerPrint, Decimal::ONE, "0.15".into())
        );
        // 2.482436 − 0.09 (the vat by hours) + 0.15 (a print's share).
        assert_eq!(planned.total.to_string(), "2.542436");
        let part = one_hotend_part(&plan);
        let mut actuals = Actuals::default();
        actuals.part_seconds.insert(plan.part_id, 10_800);
        let actual = super::actual(&planned, (&[part], &[], &[]), &actuals, 1).unwrap();
        assert_eq!(actual.lines[1], planned.lines[1]);
        // Two hotends, the first counted in prints: the second keeps its own share (1000 of
        // 4000 planned seconds) of the actual time.
        let mut plan = reference(3000, "1");
        plan.hotends[0].0 = per_print("Nozzle", "20", "100");
        plan.hotends.push((wear("Second", "100", "2000"), 1000));
        let planned = price((std::slice::from_ref(&plan), &[], &[]), d("0"), 1).unwrap();
        let part = records::Part {
            hotends: plan
                .hotends
                .iter()
                .zip([3000, 1000])
                .map(|((w, _), duration_seconds)| records::HotendUse {
                    component_id: w.rate.source_id,
                    duration_seconds,
                })
                .collect(),
            ..one_hotend_part(&plan)
        };
        let mut actuals = Actuals::default();
        actuals.part_seconds.insert(plan.part_id, 8000);
        let doubled = super::actual(
            &planned,
            (std::slice::from_ref(&part), &[], &[]),
            &actuals,
            1,
        )
        .unwrap();
        let heads: Vec<(CostCategory, String)> = doubled.lines[1..3]
            .iter()
            .map(|l| (l.category, l.cost.to_string()))
            .collect();
        // The nozzle: 20 / 100 per run; the second: 2000 s of 100 / 2000 h.
        assert_eq!(
            heads,
            [
                (CostCategory::PerPrint, "0.2".to_string()),
                (CostCategory::Hotend, "0.0277777778".to_string())
            ]
        );
    }

    proptest! {
        #[test]
        fn filament_cost_is_linear_in_grams(grams in 1u32..100_000, k in 1u32..50) {
            let one = material_line(Some(Id::new()), &material(CostCategory::Filament, ("PLA", "29.99", "1000"), &grams.to_string())).unwrap();
            let many = material_line(Some(Id::new()), &material(CostCategory::Filament, ("PLA", "29.99", "1000"), &(grams * k).to_string())).unwrap();
            prop_assert_eq!(many.cost, (one.cost * Decimal::from(k)).normalize());
        }

        #[test]
        fn time_costs_are_linear_in_duration_within_rounding(seconds in 1u32..1_000_000, k in 1u32..50) {
            let plate = rate("Plate", "60", "1200");
            let one = time_line(CostCategory::BuildPlate, &plate, Id::new(), u64::from(seconds)).unwrap();
            let many = time_line(CostCategory::BuildPlate, &plate, Id::new(), u64::from(seconds) * u64::from(k)).unwrap();
            let drift = (many.cost - one.cost * Decimal::from(k)).abs();
            // Each rounding is at most half a unit in the 10th place.
            prop_assert!(drift <= Decimal::new(5, 11) * Decimal::from(k + 1), "drift {}", drift);
        }

        #[test]
        fn totals_are_sums_of_lines(seconds in 0u32..200_000, grams in 0u32..5000) {
            let costing = price((&[reference(seconds, &grams.to_string())], &[], &[]), d("0.32"), 3).unwrap();
            let sum: Decimal = costing.lines.iter().map(|l| l.cost).sum();
            prop_assert_eq!(costing.total, sum.normalize());
        }
    }
}
