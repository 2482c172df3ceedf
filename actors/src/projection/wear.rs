//! What each printer and component has run, kept in the `wear` table with every print write
//! ([`apply`]) and rebuilt with the print summaries ([`Rebuild`]).
//!
//! A print adds, for each part: to its printer, its build plate and its other components, the
//! part's seconds; to each hotend, that hotend's seconds. With an outcome the seconds are the
//! current revision's actual part duration (a correction replaces them; a failed run counts),
//! each hotend's share scaled to it; the run counts once per part. Without an outcome, a print
//! that is neither DONE nor archived adds its planned seconds as planned wear.

use crate::Result;
use std::collections::HashMap;
use storage::records::{Part, Print, PrintStatus, Wear};
use storage::repo;
use storage::{Id, WriteTxn, tables};

/// What `print` adds to each subject's wear.
pub fn contributions(print: &Print) -> Vec<(Id, Wear)> {
    let revision = print.outcome.as_ref().and_then(|o| o.revisions.last());
    let open = revision.is_none() && !print.archived && print.status != PrintStatus::Done;
    if revision.is_none() && !open {
        return Vec::new();
    }
    let mut added: Vec<(Id, Wear)> = Vec::new();
    let mut add = |subject: Id, seconds: u64| {
        let wear = match revision {
            Some(_) => Wear {
                actual_seconds: seconds,
                planned_seconds: 0,
                runs: 1,
            },
            None => Wear {
                actual_seconds: 0,
                planned_seconds: seconds,
                runs: 0,
            },
        };
        match added.iter_mut().find(|(s, _)| *s == subject) {
            Some((_, sum)) => *sum = sum_of(sum, &wear),
            None => added.push((subject, wear)),
        }
    };
    for part in &print.parts {
        let planned = planned_seconds(part);
        let seconds = revision
            .and_then(|r| r.part_durations.iter().find(|(p, _)| *p == part.id))
            .map_or(planned, |(_, s)| u64::from(*s));
        for subject in std::iter::once(part.printer_id)
            .chain(std::iter::once(part.build_plate_id))
            .chain(part.other_component_ids.iter().copied())
        {
            add(subject, seconds);
        }
        for hotend in &part.hotends {
            let own = u64::from(hotend.duration_seconds);
            // The hotend's share of the part's actual time (its planned share of the plan).
            let share = match planned {
                0 => own,
                p => u64::try_from(u128::from(own) * u128::from(seconds) / u128::from(p))
                    .unwrap_or(u64::MAX),
            };
            add(hotend.component_id, share);
        }
    }
    added
}

fn planned_seconds(part: &Part) -> u64 {
    part.hotends
        .iter()
        .map(|h| u64::from(h.duration_seconds))
        .sum()
}

fn sum_of(a: &Wear, b: &Wear) -> Wear {
    Wear {
        actual_seconds: a.actual_seconds.saturating_add(b.actual_seconds),
        planned_seconds: a.planned_seconds.saturating_add(b.planned_seconds),
        runs: a.runs.saturating_add(b.runs),
    }
}

fn less(a: &Wear, b: &Wear) -> Wear {
    Wear {
        actual_seconds: a.actual_seconds.saturating_sub(b.actual_seconds),
        planned_seconds: a.planned_seconds.saturating_sub(b.planned_seconds),
        runs: a.runs.saturating_sub(b.runs),
    }
}

/// Moves `old`'s contributions out of the stored wear and `new`'s in (a print write, in its
/// transaction). Errors: the store fails.
pub fn apply(txn: &WriteTxn, old: Option<&Print>, new: &Print) -> Result<()> {
    let mut changes: Vec<(Id, Wear, Wear)> = Vec::new();
    for (subject, wear) in old.map(contributions).unwrap_or_default() {
        changes.push((subject, Wear::default(), wear));
    }
    for (subject, wear) in contributions(new) {
        match changes.iter_mut().find(|(s, _, _)| *s == subject) {
            Some((_, added, _)) => *added = wear,
            None => changes.push((subject, wear, Wear::default())),
        }
    }
    for (subject, added, removed) in changes {
        if added == removed {
            continue;
        }
        let stored = repo::wear(txn, subject)?;
        repo::put_wear(txn, subject, &sum_of(&less(&stored, &removed), &added))?;
    }
    Ok(())
}

/// The wear of every subject, summed over prints as they are read (a rebuild), then written
/// in place of what the table held.
#[derive(Debug, Default)]
pub struct Rebuild(HashMap<Id, Wear>);

impl Rebuild {
    /// Adds `print`'s contributions.
    pub fn add(&mut self, print: &Print) {
        for (subject, wear) in contributions(print) {
            let sum = self.0.entry(subject).or_default();
            *sum = sum_of(sum, &wear);
        }
    }

    /// Replaces the `wear` table with the sums. Errors: the store fails.
    pub fn write(self, txn: &WriteTxn) -> Result<()> {
        txn.delete_table(tables::WEAR)
            .map_err(storage::Error::from)?;
        // Made again at once: readers expect every table to exist, an empty one included.
        txn.open_table(tables::WEAR).map_err(storage::Error::from)?;
        for (subject, wear) in self.0 {
            repo::put_wear(txn, subject, &wear)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prints::test_print;
    use storage::records::{HotendUse, Outcome, OutcomeRevision, OutcomeStatus};

    fn part(printer: Id, hotends: &[(Id, u32)]) -> Part {
        Part {
            id: Id::new(),
            printer_id: printer,
            build_plate_id: Id::from_bytes([9; 16]),
            hotends: hotends
                .iter()
                .map(|&(component_id, duration_seconds)| HotendUse {
                    component_id,
                    duration_seconds,
                })
                .collect(),
            other_component_ids: Vec::new(),
            usages: Vec::new(),
        }
    }

    #[test]
    fn two_hotends_share_a_parts_actual_time_as_planned() {
        let (printer, left, right) = (Id::new(), Id::new(), Id::new());
        let p = part(printer, &[(left, 3000), (right, 1000)]);
        let planned = planned_seconds(&p);
        assert_eq!(planned, 4000);
        let mut print = test_print(1, "Two hotends");
        print.parts = vec![p.clone()];
        assert_eq!(
            contributions(&print)
                .iter()
                .find(|(s, _)| *s == printer)
                .map(|(_, w)| w.planned_seconds),
            Some(4000)
        );
        print.status = PrintStatus::Done;
        print.outcome = Some(Outcome {
            revisions: vec![OutcomeRevision {
                revision: 1,
                status: OutcomeStatus::Success,
                duration_seconds: 2000,
                part_durations: vec![(p.id, 2000)],
                grams: Vec::new(),
                note: None,
                failure_reason: None,
                correction_note: None,
                operation_key: None,
                recorded_at: print.created_at,
                actual: print.costing.clone(),
                electricity: Vec::new(),
                work_minutes: Vec::new(),
            }],
        });
        let added = contributions(&print);
        let of = |id: Id| added.iter().find(|(s, _)| *s == id).map(|(_, w)| *w);
        assert_eq!(
            of(printer).map(|w| (w.actual_seconds, w.runs)),
            Some((2000, 1))
        );
        assert_eq!(of(left).map(|w| w.actual_seconds), Some(1500));
        assert_eq!(of(right).map(|w| w.actual_seconds), Some(500));
    }
}
