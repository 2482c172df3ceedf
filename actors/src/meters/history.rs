//! A meter's history and the energy between two moments read from it.
//!
//! **Keeping.** Readings arrive as often as a meter is read (once a second from the bridge);
//! one a minute is kept ([`Keeper`]): the first reading at least [`KEEP_EVERY`] seconds after
//! the last one kept, and always a reading whose counter is below the last one kept (a reset
//! or a rollover, so it can be seen later). The keeper remembers each meter's last kept
//! reading, so a reading that is not kept never touches the store. Kept readings are rows of
//! an hour each ([`storage::records::MeterHour`]).
//!
//! **Energy.** The counter at a moment is read between the kept readings around it, linearly:
//! `c(t) = c₀ + (c₁ − c₀) · (t − t₀) / (t₁ − t₀)`, the one division last. The energy of a run
//! is `c(end) − c(start)`, rounded half to even to 0.000001 kWh. It is not priced ([`Unmetered`])
//! when no reading lies within the allowed silence on either side of the start or the end (the
//! meter was silent), or when the counter went down anywhere from the reading before the
//! start to the reading after the end (a reset or rollover: what it counted across it is
//! unknown).

use crate::Result;
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use storage::records::{MAX_SCALE, Reading, Unmetered};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp, WriteTxn};

/// Seconds between two kept readings of a meter (one a minute).
pub const KEEP_EVERY: i64 = 60;

/// A reading: when, and the cumulative counter in kWh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// When it was read, Unix seconds.
    pub at: Timestamp,
    /// The counter, kWh.
    pub kwh: Decimal,
}

/// Decides which readings are kept, remembering each meter's last kept one and the meters
/// marked at a run's start or end.
#[derive(Debug, Default)]
pub struct Keeper {
    last: HashMap<Id, Option<Sample>>,
    marked: HashSet<Id>,
}

impl Keeper {
    /// `meter`'s last kept reading: remembered, or read from `tx` the first time.
    fn last_of(&mut self, tx: &impl Tx, meter: Id) -> Result<Option<Sample>> {
        match self.last.get(&meter) {
            Some(last) => Ok(*last),
            None => last_kept(tx, meter),
        }
    }

    /// Marks `meter` at a run's start or end (a print moved to or on from PRINTING), so that
    /// the run's ends lie between kept readings however the minute falls: `live`, its latest
    /// reading, is kept now (`Some` of it to store) when newer than the last kept one, and its
    /// next reading is kept whatever its time.
    ///
    /// Errors: the store cannot be read.
    pub fn mark(
        &mut self,
        tx: &impl Tx,
        meter: Id,
        live: Option<Sample>,
    ) -> Result<Option<Sample>> {
        self.marked.insert(meter);
        let last = self.last_of(tx, meter)?;
        let Some(live) = live.filter(|l| last.is_none_or(|last| l.at.0 > last.at.0)) else {
            return Ok(None);
        };
        self.last.insert(meter, Some(live));
        Ok(Some(live))
    }

    /// Whether `sample` of `meter` is kept (see the module): `Some` of it to store, `None` when
    /// it is not. A reading older than the last kept one is never kept. The meter's last kept
    /// reading is read from `tx` the first time the meter is seen.
    ///
    /// Errors: the store cannot be read.
    pub fn offer(&mut self, tx: &impl Tx, meter: Id, sample: Sample) -> Result<Option<Sample>> {
        let last = self.last_of(tx, meter)?;
        let kept = match last {
            None => true,
            Some(last) if sample.at.0 <= last.at.0 => false,
            Some(last) => {
                self.marked.remove(&meter)
                    || sample.kwh < last.kwh
                    || sample.at.0 - last.at.0 >= KEEP_EVERY
            }
        };
        let now = if kept { Some(sample) } else { last };
        self.last.insert(meter, now);
        Ok(kept.then_some(sample))
    }
}

/// The hour `at` falls in (hours since the Unix epoch; none before it).
fn hour_of(at: Timestamp) -> Option<u64> {
    u64::try_from(at.0.div_euclid(3600)).ok()
}

/// `reading` of `hour` as a sample.
fn sample_of(hour: u64, reading: &Reading) -> Sample {
    let start = i64::try_from(hour).unwrap_or(i64::MAX / 3600) * 3600;
    Sample {
        at: Timestamp(start + i64::from(reading.second)),
        kwh: reading.kwh,
    }
}

/// `meter`'s last kept reading, if any.
///
/// Errors: the store cannot be read.
pub fn last_kept(tx: &impl Tx, meter: Id) -> Result<Option<Sample>> {
    let found = repo::meter_hour_at_or_before(tx, meter, u64::MAX)?;
    Ok(found.and_then(|(hour, row)| row.readings.last().map(|r| sample_of(hour, r))))
}

/// Stores `sample` as `meter`'s latest reading (after the keeper chose it).
///
/// Errors: a reading before the epoch or beyond the counter's range (`VALIDATION_FAILED` at
/// `kwh`); the store cannot be written.
pub fn keep(txn: &WriteTxn, meter: Id, sample: Sample) -> Result<()> {
    let beyond = || crate::Error::field("kwh", "errors.outOfRange");
    let hour = hour_of(sample.at).ok_or_else(beyond)?;
    let second = u16::try_from(sample.at.0.rem_euclid(3600)).map_err(|_| beyond())?;
    let mut row = repo::meter_hour(txn, meter, hour)?;
    row.readings.retain(|r| r.second < second);
    row.readings.push(Reading {
        second,
        kwh: sample.kwh.round_dp(MAX_SCALE),
    });
    repo::put_meter_hour(txn, meter, hour, &row).map_err(|_| beyond())?;
    Ok(())
}

/// `meter`'s kept readings from `from` to `to` (inclusive), in time order.
///
/// Errors: the store cannot be read.
pub fn readings(tx: &impl Tx, meter: Id, from: Timestamp, to: Timestamp) -> Result<Vec<Sample>> {
    let (Some(first), Some(last)) = (hour_of(from), hour_of(to)) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for (hour, row) in repo::meter_hours(tx, meter, first, last)? {
        found.extend(row.readings.iter().map(|r| sample_of(hour, r)));
    }
    found.retain(|s| s.at.0 >= from.0 && s.at.0 <= to.0);
    Ok(found)
}

/// The last kept reading at or before `at`.
fn at_or_before(tx: &impl Tx, meter: Id, at: Timestamp) -> Result<Option<Sample>> {
    let Some(mut hour) = hour_of(at) else {
        return Ok(None);
    };
    loop {
        let Some((found, row)) = repo::meter_hour_at_or_before(tx, meter, hour)? else {
            return Ok(None);
        };
        let before = row.readings.iter().rev().map(|r| sample_of(found, r));
        if let Some(sample) = before.into_iter().find(|s| s.at.0 <= at.0) {
            return Ok(Some(sample));
        }
        let Some(earlier) = found.checked_sub(1) else {
            return Ok(None);
        };
        hour = earlier;
    }
}

/// The first kept reading at or after `at`.
fn at_or_after(tx: &impl Tx, meter: Id, at: Timestamp) -> Result<Option<Sample>> {
    let mut hour = hour_of(at).unwrap_or(0);
    loop {
        let Some((found, row)) = repo::meter_hour_at_or_after(tx, meter, hour)? else {
            return Ok(None);
        };
        let after = row.readings.iter().map(|r| sample_of(found, r));
        if let Some(sample) = after.into_iter().find(|s| s.at.0 >= at.0) {
            return Ok(Some(sample));
        }
        let Some(later) = found.checked_add(1) else {
            return Ok(None);
        };
        hour = later;
    }
}

/// The readings around `at` (at or before, at or after), each within `silence` seconds of it.
fn around(
    tx: &impl Tx,
    meter: Id,
    at: Timestamp,
    silence: i64,
) -> Result<Option<(Sample, Sample)>> {
    let before = at_or_before(tx, meter, at)?;
    let after = at_or_after(tx, meter, at)?;
    Ok(match (before, after) {
        (Some(b), Some(a)) if at.0 - b.at.0 <= silence && a.at.0 - at.0 <= silence => Some((b, a)),
        _ => None,
    })
}

/// The counter at `at` between `before` and `after` (see the module), unrounded.
/// `None` when the arithmetic leaves `Decimal`'s range.
fn counter_at(before: Sample, after: Sample, at: Timestamp) -> Option<Decimal> {
    if after.at.0 == before.at.0 {
        return Some(before.kwh);
    }
    let rise = after.kwh.checked_sub(before.kwh)?;
    let elapsed = Decimal::from(at.0 - before.at.0);
    let span = Decimal::from(after.at.0 - before.at.0);
    before
        .kwh
        .checked_add(rise.checked_mul(elapsed)?.checked_div(span)?)
}

/// The energy `meter` counted from `start` to `end`, kWh (see the module), or why it cannot be
/// read: each end needs a kept reading at most `silence` seconds before and after it.
///
/// Errors: the store cannot be read; a counter so large the arithmetic leaves `Decimal`'s range
/// (`VALIDATION_FAILED` at `kwh`).
pub fn energy(
    tx: &impl Tx,
    meter: Id,
    start: Timestamp,
    end: Timestamp,
    silence: i64,
) -> Result<std::result::Result<Decimal, Unmetered>> {
    let Some((b0, a0)) = around(tx, meter, start, silence)? else {
        return Ok(Err(Unmetered::SilentAtStart));
    };
    let Some((b1, a1)) = around(tx, meter, end, silence)? else {
        return Ok(Err(Unmetered::SilentAtEnd));
    };
    let mut previous: Option<Decimal> = None;
    for sample in readings(tx, meter, b0.at, a1.at)? {
        if previous.is_some_and(|p| sample.kwh < p) {
            return Ok(Err(Unmetered::CounterWentBack));
        }
        previous = Some(sample.kwh);
    }
    let beyond = || crate::Error::field("kwh", "errors.outOfRange");
    let from = counter_at(b0, a0, start).ok_or_else(beyond)?;
    let to = counter_at(b1, a1, end).ok_or_else(beyond)?;
    let used = to.checked_sub(from).ok_or_else(beyond)?;
    Ok(Ok(used.round_dp(MAX_SCALE).normalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::{Store, StoreOptions};

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        (dir, store)
    }

    /// Offers `samples` (seconds from a fixed hour, kWh) to a keeper and keeps what it keeps,
    /// one transaction each; answers how many were kept.
    fn record(store: &Store, meter: Id, samples: &[(i64, &str)]) -> usize {
        let mut keeper = Keeper::default();
        let mut kept = 0;
        for (second, kwh) in samples {
            let sample = Sample {
                at: Timestamp(T0 + second),
                kwh: d(kwh),
            };
            let txn = store.begin_write().unwrap();
            if let Some(sample) = keeper.offer(&txn, meter, sample).unwrap() {
                keep(&txn, meter, sample).unwrap();
                kept += 1;
            }
            txn.commit().unwrap();
        }
        kept
    }

    /// 2026-11-27 10:00:00 UTC.
    const T0: i64 = 1_795_773_600;

    fn energy_of(
        store: &Store,
        meter: Id,
        start: i64,
        end: i64,
    ) -> std::result::Result<Decimal, Unmetered> {
        let tx = store.begin_read().unwrap();
        energy(&tx, meter, Timestamp(T0 + start), Timestamp(T0 + end), 300).unwrap()
    }

    #[test]
    fn one_reading_a_minute_is_kept_and_a_reset_at_once() {
        let (_dir, store) = store();
        let meter = Id::new();
        // Once a second for three minutes, rising 1 Wh a second.
        let samples: Vec<(i64, String)> = (0..180)
            .map(|s| (s, format!("{}", Decimal::new(100_000 + s, 3))))
            .collect();
        let refs: Vec<(i64, &str)> = samples.iter().map(|(s, k)| (*s, k.as_str())).collect();
        assert_eq!(record(&store, meter, &refs), 3, "at 0, 60 and 120 s");
        // A restarted keeper reads the last kept one back: 150 s is too soon, 0.5 kWh is a reset.
        assert_eq!(record(&store, meter, &[(150, "100.2"), (151, "0.5")]), 1);
        let tx = store.begin_read().unwrap();
        let all = readings(&tx, meter, Timestamp(T0), Timestamp(T0 + 3600)).unwrap();
        let seconds: Vec<i64> = all.iter().map(|s| s.at.0 - T0).collect();
        assert_eq!(seconds, vec![0, 60, 120, 151]);
    }

    #[test]
    fn a_marked_meter_keeps_its_live_reading_and_its_next_one() {
        let (_dir, store) = store();
        let meter = Id::new();
        assert_eq!(record(&store, meter, &[(0, "100")]), 1);
        let mut keeper = Keeper::default();
        let at = |second: i64, kwh: &str| Sample {
            at: Timestamp(T0 + second),
            kwh: d(kwh),
        };
        let txn = store.begin_write().unwrap();
        // A print moved to PRINTING at 12 s; the meter last read 100.0002 kWh at 10 s.
        let live = keeper.mark(&txn, meter, Some(at(10, "100.0002"))).unwrap();
        assert_eq!(live, Some(at(10, "100.0002")));
        assert_eq!(
            keeper.mark(&txn, meter, Some(at(10, "100.0002"))).unwrap(),
            None,
            "kept once"
        );
        let next = keeper.offer(&txn, meter, at(13, "100.0003")).unwrap();
        assert_eq!(
            next,
            Some(at(13, "100.0003")),
            "the next reading, 3 s later"
        );
        assert_eq!(
            keeper.offer(&txn, meter, at(16, "100.0004")).unwrap(),
            None,
            "then one a minute"
        );
    }

    #[test]
    fn a_runs_energy_is_read_between_readings_exactly() {
        let (_dir, store) = store();
        let meter = Id::new();
        // Across an hour's boundary: 10:58, 10:59, 11:00, 11:01 (+3600 s from T0).
        let kept = record(
            &store,
            meter,
            &[
                (3480, "10.000"),
                (3540, "10.030"),
                (3600, "10.060"),
                (3660, "10.100"),
            ],
        );
        assert_eq!(kept, 4);
        // From 10:58:20 (a third into the first minute) to 11:00:30 (half into the last).
        let used = energy_of(&store, meter, 3500, 3630).unwrap();
        assert_eq!(used, d("10.080") - d("10.01"));
        // A run that starts and ends on readings needs no interpolation.
        assert_eq!(energy_of(&store, meter, 3480, 3660), Ok(d("0.1")));
    }

    #[test]
    fn a_silent_meter_or_a_counter_going_back_is_not_priced() {
        let (_dir, store) = store();
        let meter = Id::new();
        record(
            &store,
            meter,
            &[(0, "5"), (60, "5.01"), (1200, "5.2"), (1260, "5.21")],
        );
        // The start at 600 s: the nearest readings are 540 and 600 s away (over 300 s).
        assert_eq!(
            energy_of(&store, meter, 600, 1230),
            Err(Unmetered::SilentAtStart)
        );
        // The end after the last reading: nothing after it.
        assert_eq!(
            energy_of(&store, meter, 30, 1300),
            Err(Unmetered::SilentAtEnd)
        );
        // A reset in the middle of a run.
        let reset = Id::new();
        record(
            &store,
            reset,
            &[(0, "7"), (60, "7.1"), (120, "0.05"), (180, "0.15")],
        );
        assert_eq!(
            energy_of(&store, reset, 30, 150),
            Err(Unmetered::CounterWentBack)
        );
        assert_eq!(
            energy_of(&store, reset, 120, 180),
            Ok(d("0.1")),
            "after it, fine"
        );
    }
}
