//! Outcomes, corrections and retries.
//!
//! An outcome is recorded once on a non-archived DONE print; in the same transaction it freezes
//! the actual costs (the frozen rates applied to what really happened) and books one PRINT
//! movement per usage on its spool (consumption is negative). An identical repeat changes
//! nothing; a different outcome is refused. A correction appends an immutable revision and books
//! only the consumption deltas. A failed print can be retried as a new draft. Consumption goes
//! to whoever owns the spool's stock (see `book_consumption`).

use super::draft::{self, CopyKind, get, save};
use super::electricity::{self, RunInput};
use super::fleet_logs as logs;
use crate::costing::{self, Actuals};
use crate::ledger::remote::{self as links, consume};
use crate::ledger::{self, MovementInput};
use crate::txn::Txn;
use crate::{Error, FieldError, Result};
use redb::ReadableTable;
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use storage::records::{
    Authority, CostCategory, EnergySource, Filament, MaterialKind, MovementKind, Outcome,
    OutcomeRevision, OutcomeStatus, Print, PrintStatus, StockUnit, UsageGrams, WorkMinutes,
};
use storage::repo;
use storage::{Id, Timestamp, tables};

pub use crate::values::MAX_SECONDS;
use crate::values::{Amount, Grams, Seconds};
/// Corrections a print DTO shows besides the original.
pub const HISTORY_CORRECTIONS: usize = 20;

/// What really happened.
#[derive(Debug, Clone, PartialEq)]
pub struct OutcomeInput {
    /// Success or failure, shared by every part.
    pub status: OutcomeStatus,
    /// Actual printing time of the whole print; may be left out when `parts` gives every
    /// part's, and is then their sum.
    pub duration_seconds: Option<Seconds>,
    /// Actual grams per planned filament usage; with `materials`, every usage exactly once.
    pub filaments: Vec<(Id, Grams)>,
    /// Actual quantity per planned usage of any material, in the material's unit (schema 16).
    pub materials: Vec<(Id, Grams)>,
    /// Free text.
    pub note: Option<String>,
    /// Required when FAILED.
    pub failure_reason: Option<String>,
    /// Multipart prints: the actual time of every part; their sum is `duration_seconds`.
    pub parts: Option<Vec<(Id, Seconds)>>,
    /// The maker's run times and kWh of some parts, each part at most once
    /// ([`electricity::measure`] fills in the rest).
    pub electricity: Vec<RunInput>,
    /// Actual labour minutes of some work lines, each at most once, in each line's own terms
    /// (per piece or per job); the others took their planned minutes.
    pub work_minutes: Vec<(Id, Amount)>,
}

impl OutcomeInput {
    /// The whole print's time as given: `durationSeconds`, else the sum of `parts` (`None` when
    /// neither is given).
    pub fn total_seconds(&self) -> Option<u64> {
        match (self.duration_seconds, &self.parts) {
            (Some(whole), _) => Some(u64::from(whole.get())),
            (None, Some(parts)) => Some(parts.iter().map(|(_, s)| u64::from(s.get())).sum()),
            (None, None) => None,
        }
    }
}

/// A correction: the outcome fields, why, the revision it corrects and its idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrectionInput {
    /// The corrected outcome.
    pub outcome: OutcomeInput,
    /// Why (required).
    pub correction_note: String,
    /// The revision the client saw; another current revision is refused.
    pub expected_revision: u32,
    /// Idempotency key, unique across all corrections.
    pub operation_key: Id,
}

/// Checks `input` against `print` and returns the per-part seconds and per-usage quantities.
/// Every fault is reported before anything is written. A usage is given once, in `filaments`
/// (a filament's, in grams) or `materials` (any, in its unit): another kind's usage among
/// `filaments` is `errors.wrongUnit`, a part of a piece `errors.wholeNumber`, a usage left out
/// `errors.missingUsage` (at `filaments` for a filament's, else at `materials`).
fn check(tx: &impl repo::Tx, print: &Print, input: &OutcomeInput) -> Result<Actuals> {
    let mut faults = Vec::new();
    if input.status == OutcomeStatus::Failed
        && input
            .failure_reason
            .as_deref()
            .is_none_or(|r| r.trim().is_empty())
    {
        faults.push(FieldError::new("failureReason", "errors.required"));
    }
    let mut units = HashMap::new();
    for usage in print.usages() {
        let material = repo::get::<Filament>(tx, usage.filament_id)?;
        let kind = material.as_ref().map_or(MaterialKind::Filament, |m| m.kind);
        let unit = material.map_or(StockUnit::Gram, |m| m.unit);
        units.insert(usage.id, (kind, unit));
    }
    let given = (input.filaments.iter().enumerate())
        .map(|(i, g)| (format!("filaments[{i}]"), "usedGrams", g))
        .chain(
            (input.materials.iter().enumerate())
                .map(|(i, g)| (format!("materials[{i}]"), "quantity", g)),
        );
    let mut grams = HashMap::new();
    for (path, field, (usage, g)) in given {
        match units.get(usage) {
            None => faults.push(FieldError::new(
                format!("{path}.usageId"),
                "errors.notFound",
            )),
            Some(_) if grams.contains_key(usage) => faults.push(FieldError::new(
                format!("{path}.usageId"),
                "errors.duplicate",
            )),
            Some((kind, _)) if field == "usedGrams" && *kind != MaterialKind::Filament => faults
                .push(FieldError::new(
                    format!("{path}.{field}"),
                    "errors.wrongUnit",
                )),
            Some((_, StockUnit::Piece)) if !g.get().fract().is_zero() => faults.push(
                FieldError::new(format!("{path}.{field}"), "errors.wholeNumber"),
            ),
            Some(_) => {
                grams.insert(*usage, *g.get());
            }
        }
    }
    let missing = |filament: bool| {
        units.iter().any(|(u, (kind, _))| {
            !grams.contains_key(u) && (*kind == MaterialKind::Filament) == filament
        })
    };
    if missing(true) {
        faults.push(FieldError::new("filaments", "errors.missingUsage"));
    }
    if missing(false) {
        faults.push(FieldError::new("materials", "errors.missingUsage"));
    }
    let mut part_seconds = HashMap::new();
    match (&input.parts, print.parts.as_slice()) {
        (None, [only]) => match input.duration_seconds {
            Some(seconds) => {
                part_seconds.insert(only.id, seconds.get());
            }
            None => faults.push(FieldError::new("durationSeconds", "errors.required")),
        },
        (None, _) => faults.push(FieldError::new("parts", "errors.required")),
        (Some(given), planned_parts) => {
            let known: HashSet<Id> = planned_parts.iter().map(|p| p.id).collect();
            for (i, (part, seconds)) in given.iter().enumerate() {
                if !known.contains(part) {
                    faults.push(FieldError::new(
                        format!("parts[{i}].partId"),
                        "errors.notFound",
                    ));
                } else if part_seconds.insert(*part, seconds.get()).is_some() {
                    faults.push(FieldError::new(
                        format!("parts[{i}].partId"),
                        "errors.duplicate",
                    ));
                }
            }
            if known.iter().any(|p| !part_seconds.contains_key(p)) {
                faults.push(FieldError::new("parts", "errors.missingPart"));
            }
            let sum: u64 = given.iter().map(|(_, s)| u64::from(s.get())).sum();
            match input.duration_seconds {
                Some(whole) if u64::from(whole.get()) != sum => {
                    faults.push(FieldError::new("durationSeconds", "errors.partSumMismatch"));
                }
                None if sum > u64::from(MAX_SECONDS) => {
                    faults.push(FieldError::new("durationSeconds", "errors.outOfRange"));
                }
                _ => {}
            }
        }
    }
    let known: HashSet<Id> = print.parts.iter().map(|p| p.id).collect();
    let mut runs = HashSet::new();
    for (i, run) in input.electricity.iter().enumerate() {
        if !known.contains(&run.part_id) {
            faults.push(FieldError::new(
                format!("electricity[{i}].partId"),
                "errors.notFound",
            ));
        } else if !runs.insert(run.part_id) {
            faults.push(FieldError::new(
                format!("electricity[{i}].partId"),
                "errors.duplicate",
            ));
        }
    }
    let lines: HashSet<Id> = print.work.iter().map(|w| w.id).collect();
    let mut work_minutes = HashMap::new();
    for (i, (line, minutes)) in input.work_minutes.iter().enumerate() {
        let path = format!("workMinutes[{i}].workLineId");
        if !lines.contains(line) {
            faults.push(FieldError::new(path, "errors.notFound"));
        } else if work_minutes.insert(*line, *minutes.get()).is_some() {
            faults.push(FieldError::new(path, "errors.duplicate"));
        }
    }
    if faults.is_empty() {
        Ok(Actuals {
            part_seconds,
            grams,
            part_kwh: HashMap::new(),
            work_minutes,
        })
    } else {
        Err(Error::Validation(faults))
    }
}

/// The input at fault for an actual costing beyond [`crate::money::MAX_AMOUNT`]: a filament
/// line's grams (`filaments[i].usedGrams`), a time line's part (`parts[i].durationSeconds`, or
/// `durationSeconds` for a print of one part), the whole duration for the total.
fn overflow_path(print: &Print, input: &OutcomeInput, overflow: costing::Overflow) -> String {
    if let costing::Overflow::Work { line } = overflow {
        let id = print.work.get(line).map(|w| w.id);
        return match input.work_minutes.iter().position(|(w, _)| Some(*w) == id) {
            Some(i) => format!("workMinutes[{i}].minutes"),
            None => "workMinutes".into(),
        };
    }
    let given = |usage: Option<Id>| {
        let filament = input.filaments.iter().position(|(u, _)| Some(*u) == usage);
        let material = input.materials.iter().position(|(u, _)| Some(*u) == usage);
        match (filament, material) {
            (Some(i), _) => Some(format!("filaments[{i}].usedGrams")),
            (None, Some(i)) => Some(format!("materials[{i}].quantity")),
            (None, None) => None,
        }
    };
    if let costing::Overflow::Material { line } = overflow {
        let usage = print.materials.get(line).map(|m| m.usage.id);
        return given(usage).unwrap_or_else(|| "materials".into());
    }
    let costing::Overflow::Line {
        part,
        category,
        nth,
    } = overflow
    else {
        return "durationSeconds".into();
    };
    let planned = print.parts.get(part);
    if costing::is_material(category) {
        let usage = planned.and_then(|p| p.usages.get(nth)).map(|u| u.id);
        if let Some(path) = given(usage) {
            return path;
        }
    }
    if category == CostCategory::Electricity {
        let entered = input
            .electricity
            .iter()
            .position(|r| Some(r.part_id) == planned.map(|p| p.id) && r.kwh.is_some());
        if let Some(i) = entered {
            return format!("electricity[{i}].kwh");
        }
    }
    let given = input.parts.as_ref().and_then(|parts| {
        let id = planned?.id;
        parts.iter().position(|(p, _)| *p == id)
    });
    match given {
        Some(i) => format!("parts[{i}].durationSeconds"),
        None => "durationSeconds".into(),
    }
}

/// Revision `number` of `print`'s outcome: `input` and its checked `actuals`, each part's
/// electricity measured ([`electricity::measure`]) and everything priced at the frozen rates.
fn revision(
    txn: &Txn,
    print: &Print,
    input: &OutcomeInput,
    actuals: &Actuals,
    number: u32,
    now: Timestamp,
) -> Result<OutcomeRevision> {
    let measured = electricity::measure(txn, print, &input.electricity)?;
    let actuals = Actuals {
        part_kwh: electricity::priced_kwh(&measured),
        ..actuals.clone()
    };
    let actual = costing::actual(
        &print.costing,
        (&print.parts, &print.work, &print.materials),
        &actuals,
        print.quantity,
    )
    .map_err(|overflow| Error::field(overflow_path(print, input, overflow), "errors.outOfRange"))?;
    Ok(OutcomeRevision {
        revision: number,
        status: input.status,
        duration_seconds: actuals.seconds(),
        part_durations: print
            .parts
            .iter()
            .map(|p| (p.id, actuals.part_seconds.get(&p.id).copied().unwrap_or(0)))
            .collect(),
        grams: print
            .usages()
            .map(|u| UsageGrams {
                usage_id: u.id,
                grams: actuals
                    .grams
                    .get(&u.id)
                    .copied()
                    .unwrap_or_default()
                    .normalize(),
            })
            .collect(),
        note: input.note.clone(),
        failure_reason: input
            .failure_reason
            .clone()
            .filter(|_| input.status == OutcomeStatus::Failed),
        correction_note: None,
        operation_key: None,
        recorded_at: now,
        electricity: electricity::with_estimates(measured, &actual),
        actual,
        work_minutes: print
            .work
            .iter()
            .filter_map(|w| {
                let minutes = actuals.work_minutes.get(&w.id)?;
                Some(WorkMinutes {
                    work_line_id: w.id,
                    minutes: minutes.normalize(),
                })
            })
            .collect(),
    })
}

/// True when `current` records exactly `input`.
fn same(current: &OutcomeRevision, input: &OutcomeInput, actuals: &Actuals) -> bool {
    current.status == input.status
        && current.duration_seconds == actuals.seconds()
        && current.note == input.note
        && current.failure_reason
            == input
                .failure_reason
                .clone()
                .filter(|_| input.status == OutcomeStatus::Failed)
        && current
            .part_durations
            .iter()
            .all(|(p, s)| actuals.part_seconds.get(p) == Some(s))
        && current
            .grams
            .iter()
            .all(|g| actuals.grams.get(&g.usage_id).map(|a| a.normalize()) == Some(g.grams))
        && current.work_minutes.len() == actuals.work_minutes.len()
        && current.work_minutes.iter().all(|w| {
            actuals
                .work_minutes
                .get(&w.work_line_id)
                .map(|m| m.normalize())
                == Some(w.minutes)
        })
        && current.electricity.iter().all(|e| {
            let given = input.electricity.iter().find(|r| r.part_id == e.part_id);
            let kwh = given.and_then(|r| r.kwh).map(|k| k.normalize());
            (e.source == EnergySource::Entered) == kwh.is_some()
                && kwh.is_none_or(|k| k == e.kwh)
                && given.is_none_or(|r| {
                    r.started_at.is_none_or(|s| Some(s) == e.started_at)
                        && r.ended_at.is_none_or(|t| Some(t) == e.ended_at)
                })
        })
}

/// Books the consumption of outcome `revision` on each usage's spool: `new - old` grams used,
/// by whoever owns the spool's stock ([`links`]): a PRINT movement of `-(new - old)` in our
/// ledger, an operation for the spool manager on an `EXTERNAL_CONSUMPTION` spool, nothing on an
/// `EXTERNAL_READ_ONLY` one.
fn book_consumption(
    txn: &Txn,
    print: &Print,
    revision: u32,
    (old, new): (&HashMap<Id, Decimal>, &HashMap<Id, Decimal>),
    reported: &HashSet<Id>,
    now: Timestamp,
) -> Result<()> {
    for usage in print.usages() {
        let Some(spool) = usage.spool_id else {
            continue;
        };
        let delta = new.get(&usage.id).copied().unwrap_or_default()
            - old.get(&usage.id).copied().unwrap_or_default();
        if delta.is_zero() {
            continue;
        }
        match links::of(txn, spool)? {
            Some(link) if link.authority == Authority::ExternalConsumption => {
                if reported.contains(&usage.id) {
                    continue;
                }
                consume(txn, &link, (print.id, usage.id, revision), delta, now)?;
            }
            Some(link) if link.authority == Authority::ExternalReadOnly => {}
            _ => {
                let movement = MovementInput {
                    kind: MovementKind::Print,
                    grams: -delta,
                    note: Some(print.name.clone()),
                    operation_key: None,
                    print_id: Some(print.id),
                    usage_id: Some(usage.id),
                };
                ledger::book(txn, spool, &movement, now)?;
            }
        }
    }
    Ok(())
}

/// Refuses outcomes and corrections unless `print` is DONE and not archived: archiving freezes a
/// print's outcome, unarchiving thaws it (docs/api-contract.md, `INVALID_STATE`).
/// Errors: [`Error::InvalidState`].
fn require_open(print: &Print) -> Result<()> {
    match print.status == PrintStatus::Done && !print.archived {
        true => Ok(()),
        false => Err(Error::InvalidState),
    }
}

/// The print as the call that made revision `revision` of its outcome answered it, for a replay
/// (docs/api-contract.md: a replay answers the status and body of the first call). An outcome
/// recorded before answers were kept (schema 3) gets the print with its outcome cut back to
/// that revision.
fn answered(tx: &impl repo::Tx, print: &Print, revision: u32) -> Result<Print> {
    if let Some(first) = repo::answer(tx, print.id, revision)? {
        return Ok(first);
    }
    let mut then = print.clone();
    if let Some(outcome) = then.outcome.as_mut() {
        outcome.revisions.retain(|r| r.revision <= revision);
    }
    Ok(then)
}

/// Records the outcome of print `id` and books its consumption, in one transaction.
///
/// Errors: [`Error::NotFound`]; [`Error::InvalidState`] unless the print is DONE and not
/// archived; [`Error::OutcomeConflict`] when a different outcome exists (an identical one is
/// answered as it is); [`Error::Validation`] for unknown, missing or duplicate usage or part ids.
pub fn record(txn: &Txn, id: Id, input: &OutcomeInput, now: Timestamp) -> Result<Print> {
    record_reported(txn, id, input, &HashSet::new(), now)
}

/// As [`record`], with the usages whose consumption the printer fleet already reported to the
/// spool manager: they make no operation (an imported outcome).
pub fn record_reported(
    txn: &Txn,
    id: Id,
    input: &OutcomeInput,
    reported: &HashSet<Id>,
    now: Timestamp,
) -> Result<Print> {
    let old = get(txn, id)?;
    if let Some(first) = old.outcome.as_ref().and_then(|o| o.revisions.first()) {
        let replay = check(txn, &old, input).is_ok_and(|actuals| same(first, input, &actuals));
        return match replay {
            true => answered(txn, &old, 1),
            false => {
                require_open(&old)?;
                Err(Error::OutcomeConflict)
            }
        };
    }
    require_open(&old)?;
    let actuals = check(txn, &old, input)?;
    let mut print = old.clone();
    let first = revision(txn, &old, input, &actuals, 1, now)?;
    book_consumption(
        txn,
        &old,
        1,
        (&HashMap::new(), &actuals.grams),
        reported,
        now,
    )?;
    print.outcome = Some(Outcome {
        revisions: vec![first],
    });
    print.version += 1;
    print.updated_at = now;
    save(txn, Some(&old), &print)?;
    repo::put_answer(txn, print.id, 1, &print)?;
    Ok(print)
}

/// Appends a corrected revision to print `id`'s outcome and books only the consumption deltas.
///
/// Errors: [`Error::InvalidState`] without an outcome; [`Error::StaleRevision`];
/// [`Error::OperationKeyReused`]; [`Error::Validation`] (a blank correction note included);
/// [`Error::IntegrationConflict`] for a SUCCESS after an imported FAILED print log.
pub fn correct(txn: &Txn, id: Id, input: &CorrectionInput, now: Timestamp) -> Result<Print> {
    let old = get(txn, id)?;
    let mut keys = txn
        .open_table(tables::CORRECTION_KEYS)
        .map_err(storage::Error::from)?;
    let seen = keys
        .get(input.operation_key.bytes())
        .map_err(storage::Error::from)?
        .map(|v| Id::from_bytes(v.value()));
    if let Some(print_id) = seen {
        let done = old.outcome.as_ref().and_then(|o| {
            o.revisions
                .iter()
                .find(|r| {
                    r.operation_key == Some(input.operation_key)
                        && r.correction_note.as_deref() == Some(input.correction_note.trim())
                        && check(txn, &old, &input.outcome)
                            .is_ok_and(|a| same(r, &input.outcome, &a))
                })
                .map(|r| r.revision)
        });
        return match (print_id == id, done) {
            (true, Some(revision)) => answered(txn, &old, revision),
            _ => Err(Error::OperationKeyReused),
        };
    }
    require_open(&old)?;
    let Some(outcome) = old.outcome.clone() else {
        return Err(Error::InvalidState);
    };
    if input.correction_note.trim().is_empty() {
        return Err(Error::field("correctionNote", "errors.required"));
    }
    let current = outcome.current().ok_or(Error::InvalidState)?;
    if input.expected_revision != current.revision {
        return Err(Error::StaleRevision);
    }
    if input.outcome.status != OutcomeStatus::Failed && logs::imported_failure(txn, &old)? {
        return Err(Error::IntegrationConflict);
    }
    let actuals = check(txn, &old, &input.outcome)?;
    let mut next = revision(
        txn,
        &old,
        &input.outcome,
        &actuals,
        current.revision + 1,
        now,
    )?;
    next.correction_note = Some(input.correction_note.trim().to_string());
    next.operation_key = Some(input.operation_key);
    let previous: HashMap<Id, Decimal> = current
        .grams
        .iter()
        .map(|g| (g.usage_id, g.grams))
        .collect();
    book_consumption(
        txn,
        &old,
        next.revision,
        (&previous, &actuals.grams),
        &HashSet::new(),
        now,
    )?;
    keys.insert(input.operation_key.bytes(), id.bytes())
        .map_err(storage::Error::from)?;
    drop(keys);
    let mut print = old.clone();
    let revision = next.revision;
    if let Some(o) = print.outcome.as_mut() {
        o.revisions.push(next);
    }
    print.version += 1;
    print.updated_at = now;
    save(txn, Some(&old), &print)?;
    repo::put_answer(txn, print.id, revision, &print)?;
    Ok(print)
}

/// A new DRAFT retrying the failed print `id`: current prices, quantity and customer kept, sales
/// value cleared, linked both ways. Returns the retry and the updated source.
///
/// Errors: [`Error::NotFound`]; [`Error::InvalidState`] unless the print is FAILED and not
/// archived.
pub fn retry(txn: &Txn, id: Id, now: Timestamp) -> Result<(Print, Print)> {
    let source = get(txn, id)?;
    let failed = source
        .outcome
        .as_ref()
        .and_then(Outcome::current)
        .is_some_and(|r| r.status == OutcomeStatus::Failed);
    if !failed || source.archived {
        return Err(Error::InvalidState);
    }
    let copied = draft::copy(txn, id, CopyKind::Repeat, None, now)?;
    let mut retry = copied.clone();
    retry.repeat_of_id = None;
    retry.retried_from_id = Some(id);
    save(txn, Some(&copied), &retry)?;
    let mut updated = source.clone();
    updated.retry_ids.push(retry.id);
    updated.version += 1;
    updated.updated_at = now;
    save(txn, Some(&source), &updated)?;
    Ok((retry, updated))
}
