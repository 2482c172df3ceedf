//! A print's actual electricity, part by part: each part's run (when it started and ended) and
//! the kWh it used, with where they came from.
//!
//! **The run.** Its start and end are, each on its own, the maker's (given with the outcome),
//! else the printer fleet's log of the part (Bambuddy's `started_at`, `completed_at`), else the
//! print's move to PRINTING and its move on from PRINTING.
//!
//! **The kWh**, the first that applies:
//! 1. the maker's figure: [`EnergySource::Entered`];
//! 2. the fleet log's `energy_kwh`: [`EnergySource::PrintFleet`];
//! 3. the printer's meter over the run ([`history::energy`], each end within
//!    [`SILENCE_SECONDS`] of a reading): [`EnergySource::Metered`]. Time the run shared with other
//!    runs on the same meter (another print's part, or another part of this print, on the same
//!    printer) is split equally among the runs sharing it, and the part is flagged `overlapped`;
//! 4. else [`EnergySource::Estimated`]: the frozen average power times the actual printing time
//!    (the electricity line as it was always priced), with why the meter did not give it
//!    ([`Unmetered`]). A counter that went back is never priced.

use super::fleet_logs as logs;
use crate::meters::history;
use crate::txn::Txn;
use crate::{Error, Result};
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use storage::records::{
    CostCategory, Costing, EnergySource, MAX_SCALE, Part, PartElectricity, Print, PrintLog,
    PrintStatus, Unmetered,
};
use storage::repo;
use storage::{Id, Timestamp};

/// The longest a meter may have been silent around a run's start or end, seconds (ten
/// minutes: ten of the one-a-minute readings the history keeps).
pub const SILENCE_SECONDS: i64 = 10 * 60;

/// What the maker says of one part's electricity with an outcome: the run's times and the kWh,
/// each optional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInput {
    /// The part.
    pub part_id: Id,
    /// When its run started.
    pub started_at: Option<Timestamp>,
    /// When its run ended.
    pub ended_at: Option<Timestamp>,
    /// The energy it used, kWh (at most 6 decimals).
    pub kwh: Option<Decimal>,
}

/// A run's start and end, either unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Window {
    started_at: Option<Timestamp>,
    ended_at: Option<Timestamp>,
}

impl Window {
    /// Each end the maker left out filled from `fallback`.
    fn or(self, fallback: Window) -> Window {
        Window {
            started_at: self.started_at.or(fallback.started_at),
            ended_at: self.ended_at.or(fallback.ended_at),
        }
    }
}

/// The run of a part of `print` as the store knows it: its fleet `log`'s times, else the
/// print's PRINTING times.
fn stored_window(print: &Print, log: Option<&PrintLog>) -> Window {
    Window {
        started_at: log.and_then(|l| l.started_at),
        ended_at: log.and_then(|l| l.completed_at),
    }
    .or(Window {
        started_at: print.printing_started_at,
        ended_at: print.printing_ended_at,
    })
}

/// The fleet log of part `part`, as last read. Errors: the store cannot be read.
fn log_of(txn: &Txn, part: Id) -> Result<Option<PrintLog>> {
    Ok(logs::of(txn, part)?.and_then(|l| l.log))
}

/// The run of `part` of another print, `(start, end)` in Unix seconds, as its outcome recorded
/// it or, before one, as the store knows it; a print still PRINTING runs on (`end` is
/// `i64::MAX`).
fn other_window(txn: &Txn, print: &Print, part: Id) -> Result<Option<(i64, i64)>> {
    let recorded = print
        .outcome
        .as_ref()
        .and_then(|o| o.current())
        .and_then(|r| r.electricity.iter().find(|e| e.part_id == part))
        .map(|e| Window {
            started_at: e.started_at,
            ended_at: e.ended_at,
        });
    let window = match recorded {
        Some(w) => w,
        None => stored_window(print, log_of(txn, part)?.as_ref()),
    };
    let Some(start) = window.started_at else {
        return Ok(None);
    };
    Ok(match (window.ended_at, print.status) {
        (Some(end), _) => Some((start.0, end.0)),
        (None, PrintStatus::Printing) => Some((start.0, i64::MAX)),
        (None, _) => None,
    })
}

/// The runs on printer `printer` other than `part` of `print`: other parts of `print` on it,
/// and parts of other prints (which refer to the printer) on it, as [`other_window`] gives them.
/// Errors: the store cannot be read.
fn other_runs(
    txn: &Txn,
    print: &Print,
    windows: &HashMap<Id, Window>,
    part: &Part,
) -> Result<Vec<(i64, i64)>> {
    let mut runs = Vec::new();
    for sibling in print
        .parts
        .iter()
        .filter(|p| p.id != part.id && p.printer_id == part.printer_id)
    {
        if let Some(Window {
            started_at: Some(s),
            ended_at: Some(e),
        }) = windows.get(&sibling.id)
        {
            runs.push((s.0, e.0));
        }
    }
    let referrers: HashSet<Id> = repo::referrers(txn, part.printer_id)?.into_iter().collect();
    for other in referrers.into_iter().filter(|id| *id != print.id) {
        // Records other than prints (maintenance tasks, say) refer to the printer too.
        let Some(other) = repo::get::<Print>(txn, other)? else {
            continue;
        };
        if other.status == PrintStatus::Draft {
            continue;
        }
        for p in other
            .parts
            .iter()
            .filter(|p| p.printer_id == part.printer_id)
        {
            runs.extend(other_window(txn, &other, p.id)?);
        }
    }
    Ok(runs)
}

/// The energy metered on `meter` over `[start, end]`, the time shared with `others` split
/// equally among the runs sharing it; `true` when any time was shared.
fn shared_energy(
    txn: &Txn,
    meter: Id,
    (start, end): (i64, i64),
    others: &[(i64, i64)],
) -> Result<std::result::Result<(Decimal, bool), Unmetered>> {
    if start == end {
        let at = Timestamp(start);
        return Ok(history::energy(txn, meter, at, at, SILENCE_SECONDS)?.map(|used| (used, false)));
    }
    let overlapping: Vec<(i64, i64)> = others
        .iter()
        .copied()
        .filter(|(s, e)| *s < end && *e > start)
        .collect();
    let mut cuts: Vec<i64> = overlapping
        .iter()
        .flat_map(|(s, e)| [*s, *e])
        .filter(|t| *t > start && *t < end)
        .chain([start, end])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut total = Decimal::ZERO;
    let beyond = || Error::field("kwh", "errors.outOfRange");
    for pair in cuts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let sharing = overlapping
            .iter()
            .filter(|(s, e)| *s <= a && *e >= b)
            .count();
        let used = match history::energy(txn, meter, Timestamp(a), Timestamp(b), SILENCE_SECONDS)? {
            Ok(used) => used,
            Err(why) => return Ok(Err(why)),
        };
        let share = used
            .checked_div(Decimal::from(sharing + 1))
            .ok_or_else(beyond)?;
        total = total.checked_add(share).ok_or_else(beyond)?;
    }
    Ok(Ok((
        total.round_dp(MAX_SCALE).normalize(),
        !overlapping.is_empty(),
    )))
}

/// The actual electricity of every part of `print`, in part order, from the maker's `given`
/// runs (see the module). An estimate's kWh is left at zero here: it is the actual electricity
/// line's quantity, which [`with_estimates`] takes once the actual costs are priced.
///
/// Errors: the store cannot be read; `VALIDATION_FAILED` at `electricity[i].endedAt` when a run
/// would end before it starts (`errors.endBeforeStart`), at `kwh` when a meter's counter is
/// beyond the decimal range.
pub fn measure(txn: &Txn, print: &Print, given: &[RunInput]) -> Result<Vec<PartElectricity>> {
    let mut windows = HashMap::new();
    let mut fleet_kwh = HashMap::new();
    for part in &print.parts {
        let maker = given.iter().find(|g| g.part_id == part.id);
        let log = log_of(txn, part.id)?;
        if let Some(kwh) = log.as_ref().and_then(|l| l.energy_kwh) {
            fleet_kwh.insert(part.id, kwh);
        }
        let window = Window {
            started_at: maker.and_then(|g| g.started_at),
            ended_at: maker.and_then(|g| g.ended_at),
        }
        .or(stored_window(print, log.as_ref()));
        if let (Some(s), Some(e)) = (window.started_at, window.ended_at)
            && e.0 < s.0
        {
            let i = given.iter().position(|g| g.part_id == part.id).unwrap_or(0);
            return Err(Error::field(
                format!("electricity[{i}].endedAt"),
                "errors.endBeforeStart",
            ));
        }
        windows.insert(part.id, window);
    }
    let mut measured = Vec::with_capacity(print.parts.len());
    for part in &print.parts {
        let window = windows.get(&part.id).copied().unwrap_or_default();
        let entered = given
            .iter()
            .find(|g| g.part_id == part.id)
            .and_then(|g| g.kwh);
        let fleet = fleet_kwh.get(&part.id).copied();
        let estimated = |why| (Decimal::ZERO, EnergySource::Estimated, Some(why), false);
        let (kwh, source, unmetered, overlapped) = match (entered, fleet) {
            (Some(kwh), _) => (kwh, EnergySource::Entered, None, false),
            (None, Some(kwh)) => (kwh, EnergySource::PrintFleet, None, false),
            (None, None) => match (repo::meter_link(txn, part.printer_id)?, window) {
                (None, _) => estimated(Unmetered::NoMeter),
                (
                    Some(_),
                    Window {
                        started_at: Some(s),
                        ended_at: Some(e),
                    },
                ) => {
                    let others = other_runs(txn, print, &windows, part)?;
                    match shared_energy(txn, part.printer_id, (s.0, e.0), &others)? {
                        Ok((kwh, shared)) => (kwh, EnergySource::Metered, None, shared),
                        Err(why) => estimated(why),
                    }
                }
                (Some(_), _) => estimated(Unmetered::NoRunTimes),
            },
        };
        measured.push(PartElectricity {
            part_id: part.id,
            started_at: window.started_at,
            ended_at: window.ended_at,
            kwh: kwh.round_dp(MAX_SCALE).normalize(),
            source,
            unmetered,
            overlapped,
        });
    }
    Ok(measured)
}

/// `measured` with each estimate's kWh taken from `actual`'s electricity line of its part (the
/// frozen watts over the actual time, as the costing priced it), rounded half-even to 6
/// decimals.
pub fn with_estimates(
    mut measured: Vec<PartElectricity>,
    actual: &Costing,
) -> Vec<PartElectricity> {
    for e in measured
        .iter_mut()
        .filter(|e| e.source == EnergySource::Estimated)
    {
        let line = actual
            .lines
            .iter()
            .find(|l| l.category == CostCategory::Electricity && l.part_id == Some(e.part_id));
        e.kwh = line.map_or(Decimal::ZERO, |l| {
            l.quantity.round_dp(MAX_SCALE).normalize()
        });
    }
    measured
}

/// The kWh to price each part's electricity line from: every part whose figure is not an
/// estimate (an estimate keeps the exact fraction of watts and seconds).
pub fn priced_kwh(measured: &[PartElectricity]) -> HashMap<Id, Decimal> {
    measured
        .iter()
        .filter(|e| e.source != EnergySource::Estimated)
        .map(|e| (e.part_id, e.kwh))
        .collect()
}
