//! A printer's measured power, learned from its metered runs: kWh per printing hour overall and
//! per material, and how far planned and learned estimates were from what the meter read.
//!
//! A run counts when the current outcome of a DONE print metered its part on the printer
//! ([`EnergySource::Metered`]); its hours are the part's actual printing time (what an estimate
//! multiplies the average power by), its planned kWh the frozen snapshot's electricity line.
//! Nothing is learned before [`MIN_RUNS`] runs. The learned figure's error is measured
//! leave-one-out (each run predicted from the others), so it says how the figure does on a run
//! it has not seen.

use crate::command::Command;
use crate::command::InventoryWriter;
use crate::command::{Query, Snapshot};
use crate::inventory::printers::{self, PrinterView};
use crate::projection::query::PrintFilter;
use crate::txn::Txn;
use crate::values::Watts;
use crate::{Result, inventory};
use rust_decimal::Decimal;
use std::collections::BTreeMap;
use storage::records::{CostCategory, EnergySource, Filament, Print, PrintStatus, Printer};
use storage::repo;
use storage::{Id, Timestamp};

/// Metered runs a printer needs before its power is learned.
pub const MIN_RUNS: usize = 5;

/// Metered runs of one material before an estimate takes that material's own figure.
pub const MIN_MATERIAL_RUNS: usize = 3;

/// One metered run: its printing hours, the kWh the meter read and the kWh planned, and the
/// material it printed (the first filament's).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Actual printing time, hours.
    pub hours: Decimal,
    /// Metered energy, kWh.
    pub kwh: Decimal,
    /// Planned energy, kWh (the snapshot's average power × planned time).
    pub planned_kwh: Decimal,
    /// The material printed (`PLA`), if known.
    pub material: Option<String>,
}

/// Power learned from some runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Power {
    /// Runs it is learned from.
    pub runs: usize,
    /// kWh per printing hour: `Σ kWh / Σ hours`, rounded half-even to 3 decimals.
    pub kwh_per_hour: Decimal,
    /// The same in whole watts (what a printer's average power takes).
    pub watts: u32,
}

/// Errors of estimates against metered runs, as shares (0.05 is 5 %).
#[derive(Debug, Clone, PartialEq)]
pub struct Errors {
    /// Median of `|estimate − metered| / metered`.
    pub median: Decimal,
    /// 90th percentile (nearest rank).
    pub p90: Decimal,
}

/// What a printer's metered runs say of its power.
#[derive(Debug, Clone, PartialEq)]
pub struct Learned {
    /// Over every run.
    pub overall: Power,
    /// Per material, by name.
    pub by_material: Vec<(String, Power)>,
    /// Errors of the planned kWh.
    pub planned: Errors,
    /// Errors of the learned figure (per material where the material has
    /// [`MIN_MATERIAL_RUNS`] runs of its own, else overall), each run predicted from the others.
    pub learned: Errors,
}

/// `Σ kWh / Σ hours` of `runs`, kWh per hour; none without hours.
fn per_hour(runs: &[&Run]) -> Option<Decimal> {
    let hours: Decimal = runs.iter().map(|r| r.hours).sum();
    let kwh: Decimal = runs.iter().map(|r| r.kwh).sum();
    kwh.checked_div(hours).filter(|_| !hours.is_zero())
}

/// The power of `runs` ([`per_hour`]); none without hours.
fn power(runs: &[&Run]) -> Option<Power> {
    let per_hour = per_hour(runs)?;
    let watts = (per_hour * Decimal::ONE_THOUSAND).round();
    Some(Power {
        runs: runs.len(),
        kwh_per_hour: per_hour.round_dp(3).normalize(),
        watts: u32::try_from(watts.mantissa()).ok()?,
    })
}

/// Median and 90th percentile of `shares`.
fn errors(mut shares: Vec<Decimal>) -> Option<Errors> {
    if shares.is_empty() {
        return None;
    }
    shares.sort_unstable();
    let n = shares.len();
    let median = if n % 2 == 1 {
        shares[n / 2]
    } else {
        (shares[n / 2 - 1] + shares[n / 2]) / Decimal::TWO
    };
    let rank = (n * 9).div_ceil(10).max(1) - 1;
    Some(Errors {
        median: median.round_dp(4).normalize(),
        p90: shares[rank].round_dp(4).normalize(),
    })
}

/// `|estimate − metered| / metered`; none for a run that metered nothing.
fn share(estimate: Decimal, metered: Decimal) -> Option<Decimal> {
    (estimate - metered).abs().checked_div(metered)
}

/// The learned figure for `run` from `others`: its material's when that has
/// [`MIN_MATERIAL_RUNS`] runs among them, else all of them; kWh per hour.
pub fn figure_for(run: &Run, others: &[&Run]) -> Option<Decimal> {
    let same: Vec<&Run> = others
        .iter()
        .copied()
        .filter(|o| o.material.is_some() && o.material == run.material)
        .collect();
    per_hour(if same.len() >= MIN_MATERIAL_RUNS {
        &same
    } else {
        others
    })
}

/// What `runs` say of the printer's power; none before [`MIN_RUNS`] runs.
pub fn learn(runs: &[Run]) -> Option<Learned> {
    if runs.len() < MIN_RUNS {
        return None;
    }
    let all: Vec<&Run> = runs.iter().collect();
    let mut materials: BTreeMap<&str, Vec<&Run>> = BTreeMap::new();
    for run in runs {
        if let Some(material) = &run.material {
            materials.entry(material).or_default().push(run);
        }
    }
    let planned = runs
        .iter()
        .filter_map(|r| share(r.planned_kwh, r.kwh))
        .collect();
    let learned = runs
        .iter()
        .enumerate()
        .filter_map(|(i, run)| {
            let others: Vec<&Run> = (0..runs.len())
                .filter(|j| *j != i)
                .map(|j| &runs[j])
                .collect();
            share(figure_for(run, &others)? * run.hours, run.kwh)
        })
        .collect();
    Some(Learned {
        overall: power(&all)?,
        by_material: materials
            .into_iter()
            .filter_map(|(m, runs)| Some((m.to_string(), power(&runs)?)))
            .collect(),
        planned: errors(planned)?,
        learned: errors(learned)?,
    })
}

/// The metered runs of `printer` in `print` (its current outcome's).
fn runs_of(tx: &Snapshot<'_>, print: &Print, printer: Id) -> Result<Vec<Run>> {
    let Some(current) = print.outcome.as_ref().and_then(|o| o.current()) else {
        return Ok(Vec::new());
    };
    let mut runs = Vec::new();
    for part in print.parts.iter().filter(|p| p.printer_id == printer) {
        let Some(metered) = current
            .electricity
            .iter()
            .find(|e| e.part_id == part.id && e.source == EnergySource::Metered)
        else {
            continue;
        };
        let seconds = current
            .part_durations
            .iter()
            .find(|(p, _)| *p == part.id)
            .map_or(0, |(_, s)| *s);
        let planned_kwh = print
            .costing
            .lines
            .iter()
            .find(|l| l.category == CostCategory::Electricity && l.part_id == Some(part.id))
            .map_or(Decimal::ZERO, |l| l.quantity);
        let material = match part.usages.first() {
            Some(u) => repo::get::<Filament>(tx, u.filament_id)?.map(|f| f.material),
            None => None,
        };
        runs.push(Run {
            hours: Decimal::from(seconds) / Decimal::from(3600),
            kwh: metered.kwh,
            planned_kwh,
            material,
        });
    }
    Ok(runs)
}

/// A printer's average power beside what its meter taught.
#[derive(Debug, Clone, PartialEq)]
pub struct PrinterPower {
    /// The printer's average power now (the nameplate figure, or one adopted earlier), watts.
    pub average_power_watts: u32,
    /// Metered runs found.
    pub runs: usize,
    /// What they say, from [`MIN_RUNS`] runs on.
    pub learned: Option<Learned>,
}

/// The power of printer `.0` learned from the metered runs of its DONE prints.
/// Errors: `NOT_FOUND`; the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct PowerOf(pub Id);

impl Query for PowerOf {
    type Answer = PrinterPower;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<PrinterPower> {
        let printer: Printer = inventory::get(snapshot, self.0)?;
        let filter = PrintFilter {
            statuses: vec![PrintStatus::Done],
            printer_id: Some(self.0),
            include_archived: true,
            ..PrintFilter::default()
        };
        let mut runs = Vec::new();
        for id in snapshot.index.ids(&filter)? {
            if let Some(print) = repo::get::<Print>(snapshot, id)? {
                runs.extend(runs_of(snapshot, &print, self.0)?);
            }
        }
        Ok(PrinterPower {
            average_power_watts: printer.average_power_watts,
            runs: runs.len(),
            learned: learn(&runs),
        })
    }
}

/// Adopts `watts` (a figure [`PowerOf`] showed) as printer `printer`'s average power: a change
/// to the printer like any other ([`printers::set_average_power`]).
/// Errors: `NOT_FOUND`.
#[derive(Debug, Clone)]
pub struct AdoptPower {
    /// The printer.
    pub printer: Id,
    /// Its new average power.
    pub watts: Watts,
}

impl Command for AdoptPower {
    type Writer = InventoryWriter;
    type Reply = PrinterView;

    fn apply(&mut self, txn: &Txn) -> Result<PrinterView> {
        printers::set_average_power(txn, self.printer, self.watts, Timestamp::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic generator (xorshift64*), so the simulation is the same on every run.
    struct Rng(u64);

    impl Rng {
        /// A number in [0, 1) with 6 decimals.
        fn next(&mut self) -> Decimal {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let n = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
            Decimal::new(i64::try_from(n % 1_000_000).unwrap(), 6)
        }

        /// A number in [low, high).
        fn between(&mut self, low: &str, high: &str) -> Decimal {
            let (low, high): (Decimal, Decimal) = (low.parse().unwrap(), high.parse().unwrap());
            low + (high - low) * self.next()
        }
    }

    /// The power model: what a printer really draws printing each material, watts, with
    /// ±8 % from run to run (bed size, ambient, part); the slicer's time ±15 % off the actual.
    const MATERIALS: [(&str, i64); 3] = [("PLA", 95), ("PETG", 140), ("ABS", 210)];

    fn simulated(rng: &mut Rng, nameplate: Decimal) -> Run {
        let pick = (rng.next() * Decimal::from(3)).floor();
        let (material, watts) = MATERIALS[usize::try_from(pick.mantissa()).unwrap()];
        let hours = rng.between("0.5", "9");
        let drawn = Decimal::from(watts) * rng.between("0.92", "1.08");
        let planned_hours = hours * rng.between("0.85", "1.15");
        Run {
            hours,
            kwh: drawn * hours / Decimal::ONE_THOUSAND,
            planned_kwh: nameplate * planned_hours / Decimal::ONE_THOUSAND,
            material: Some(material.to_string()),
        }
    }

    fn error_of(estimates: impl Iterator<Item = Decimal>, runs: &[Run]) -> Errors {
        errors(
            estimates
                .zip(runs)
                .map(|(e, r)| share(e, r.kwh).unwrap())
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn the_learned_power_meets_the_bars_on_held_out_runs_where_the_nameplate_does_not() {
        let nameplate = Decimal::from(350);
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let training: Vec<Run> = (0..30).map(|_| simulated(&mut rng, nameplate)).collect();
        let held_out: Vec<Run> = (0..300).map(|_| simulated(&mut rng, nameplate)).collect();
        let learned = learn(&training).unwrap();
        assert_eq!(learned.overall.runs, 30);
        assert_eq!(learned.by_material.len(), 3);
        assert!(
            learned
                .by_material
                .iter()
                .all(|(_, p)| p.runs >= MIN_MATERIAL_RUNS),
            "{learned:?}"
        );
        let seen: Vec<&Run> = training.iter().collect();
        let by_learned = error_of(
            held_out
                .iter()
                .map(|r| figure_for(r, &seen).unwrap() * r.hours),
            &held_out,
        );
        let by_nameplate = error_of(
            held_out
                .iter()
                .map(|r| nameplate * r.hours / Decimal::ONE_THOUSAND),
            &held_out,
        );
        println!("held out: learned {by_learned:?}, nameplate {by_nameplate:?}; page: {learned:?}");
        let (ten, twenty) = (Decimal::new(10, 2), Decimal::new(20, 2));
        assert!(
            by_learned.median <= ten,
            "learned median {}",
            by_learned.median
        );
        assert!(by_learned.p90 <= twenty, "learned p90 {}", by_learned.p90);
        assert!(
            by_nameplate.median > ten,
            "nameplate median {}",
            by_nameplate.median
        );
        assert!(
            by_nameplate.p90 > twenty,
            "nameplate p90 {}",
            by_nameplate.p90
        );
        // The page's own figures say the same: the leave-one-out error of the learned figure
        // meets the bars, the planned one's does not.
        assert!(
            learned.learned.median <= ten && learned.learned.p90 <= twenty,
            "{learned:?}"
        );
        assert!(learned.planned.median > ten);
    }

    #[test]
    fn nothing_is_learned_before_five_runs_and_the_figures_are_exact_sums() {
        let run = |hours: &str, kwh: &str, material: &str| Run {
            hours: hours.parse().unwrap(),
            kwh: kwh.parse().unwrap(),
            planned_kwh: "0.3".parse().unwrap(),
            material: Some(material.into()),
        };
        let mut runs: Vec<Run> = (0..4).map(|_| run("2", "0.2", "PLA")).collect();
        assert_eq!(learn(&runs), None);
        runs.push(run("1", "0.25", "PETG"));
        let learned = learn(&runs).unwrap();
        // 1.05 kWh over 9 hours: 0.1166… kWh an hour, 117 W.
        assert_eq!(learned.overall.kwh_per_hour, "0.117".parse().unwrap());
        assert_eq!(learned.overall.watts, 117);
        assert_eq!(learned.by_material[0].0, "PETG");
        assert_eq!(learned.by_material[1].1.watts, 100);
        // The planned 0.3 against 0.2 (four times) and 0.25: 50 % four times, 20 % once.
        assert_eq!(learned.planned.median, "0.5".parse().unwrap());
    }
}
