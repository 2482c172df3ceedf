//! How often a printer succeeds with a material: the rate behind the failure-adjusted price
//! (docs/costing.md, "Price"). A part's pair is its printer and the material of its first
//! filament line; the rate of a pair is its successes over its latest recorded outcomes (DONE
//! prints, newest first, at most `window`, each print counted once per pair); a draft's rate is
//! the product of its parts' rates, as a print fails when any of its parts fails. A pair without
//! a recorded outcome counts as no evidence (rate 1, sample 0).

use crate::{Result, money};
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use storage::Id;
use storage::records::{Filament, OutcomeStatus, Part, Print, PrintStatus, SuccessRate};
use storage::repo::{self, Tx};

/// A printer and a material.
type Pair = (Id, String);

/// The pair of `part`: its printer and its first filament's material (none without one).
fn pair(part: &Part, materials: &HashMap<Id, String>) -> Option<Pair> {
    let filament = part.usages.first()?.filament_id;
    Some((part.printer_id, materials.get(&filament)?.clone()))
}

/// The success rate of a print made of `parts`, over the latest `window` outcomes of each of
/// their pairs; `None` when no pair has a recorded outcome.
///
/// Errors: the store fails. Cost: reads prints newest first until every pair has `window`
/// outcomes (all of them when a pair has fewer).
pub fn of(tx: &impl Tx, parts: &[Part], window: u16) -> Result<Option<SuccessRate>> {
    let materials: HashMap<Id, String> = repo::all::<Filament>(tx)?
        .into_iter()
        .map(|f| (f.id, f.material))
        .collect();
    let wanted: Vec<Pair> = parts.iter().filter_map(|p| pair(p, &materials)).collect();
    let mut counted: HashMap<Pair, (u32, u32)> = HashMap::new();
    let window = u32::from(window.max(1));
    let full = |counted: &HashMap<Pair, (u32, u32)>| {
        wanted
            .iter()
            .all(|p| counted.get(p).is_some_and(|(_, runs)| *runs >= window))
    };
    if wanted.is_empty() {
        return Ok(None);
    }
    repo::newest_first::<Print>(tx, |print| {
        let current = print.outcome.as_ref().and_then(|o| o.current());
        let Some(revision) = current.filter(|_| print.status == PrintStatus::Done) else {
            return ControlFlow::Continue(());
        };
        let pairs: HashSet<Pair> = print
            .parts
            .iter()
            .filter_map(|p| pair(p, &materials))
            .filter(|p| wanted.contains(p))
            .collect();
        for found in pairs {
            let (successes, runs) = counted.entry(found).or_default();
            if *runs < window {
                *runs += 1;
                *successes += u32::from(revision.status == OutcomeStatus::Success);
            }
        }
        match full(&counted) {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    })?;
    let (mut successes, mut runs, mut sample) = (Decimal::ONE, Decimal::ONE, 0u32);
    for part_pair in &wanted {
        if let Some((s, r)) = counted.get(part_pair).filter(|(_, r)| *r > 0) {
            successes *= Decimal::from(*s);
            runs *= Decimal::from(*r);
            sample += r;
        }
    }
    if sample == 0 {
        return Ok(None);
    }
    let rate = money::divide(successes, runs).unwrap_or_default();
    Ok(Some(SuccessRate { rate, sample }))
}
