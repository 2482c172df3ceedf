//! Maintenance tasks: every N hours of actual runs, every N runs or every N days, of a printer
//! or one of its components; marked done (when, by whom) to restart the interval; a blocking
//! task keeps a print on its printer from moving to PRINTING while overdue, unless overridden
//! with a reason ([`check_blocking`]).

use crate::error::FieldError;
use crate::txn::Txn;
use crate::{Error, Result, inventory};
use rust_decimal::Decimal;
use storage::records::{
    Component, Done, Interval, MaintenanceTask, Mark, Overridden, Print, Printer, Wear,
};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// Seconds in an hour and in a day.
const HOUR: u64 = 3600;
const DAY: i64 = 86_400;
/// A task is due from this share of its interval on (per mille), overdue at the whole.
const DUE_FROM_PER_MILLE: u64 = 900;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Less than 90% of its interval used.
    Ok,
    /// 90% or more used.
    Due,
    /// Its interval used up.
    Overdue,
}

/// A task with where it stands: how much of its interval is used (hours, runs or days, as
/// its interval counts) and what remains (negative once overdue).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView {
    /// The task.
    pub task: MaintenanceTask,
    /// The subject's name: the printer's, or the component's.
    pub subject_name: String,
    /// Used since the interval started, in the interval's unit (hours to the thousandth).
    pub used: Decimal,
    /// What remains of the interval, in its unit (negative once overdue).
    pub remaining: Decimal,
    /// Where it stands.
    pub state: State,
}

/// A task as entered (`POST /api/maintenance`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskInput {
    /// The printer.
    pub printer_id: Id,
    /// One of its components, or none for the printer.
    pub component_id: Option<Id>,
    /// What to do, 1–200 characters.
    pub name: String,
    /// How often (a count of 1 to 1,000,000).
    pub every: Interval,
    /// Whether it blocks moves to PRINTING while overdue.
    pub blocking: bool,
}

/// The subject of a task: its component, else its printer.
fn subject(task: &MaintenanceTask) -> Id {
    task.component_id.unwrap_or(task.printer_id)
}

/// The mark of `subject` at `now`. Errors: the store fails.
fn mark(tx: &impl Tx, subject: Id, now: Timestamp) -> Result<Mark> {
    let wear = repo::wear(tx, subject)?;
    Ok(Mark {
        at: now,
        actual_seconds: wear.actual_seconds,
        runs: wear.runs,
    })
}

/// Where `task` stands at `now` given its subject's `wear`: (used, interval length) in the
/// interval's unit, and the state.
pub fn standing(task: &MaintenanceTask, wear: &Wear, now: Timestamp) -> (Decimal, Decimal, State) {
    // In thousandths of the unit, so that hours keep their fraction.
    let (used, length) = match task.every {
        Interval::Hours(h) => (
            wear.actual_seconds
                .saturating_sub(task.since.actual_seconds)
                * 1000
                / HOUR,
            u64::from(h) * 1000,
        ),
        Interval::Prints(n) => (
            wear.runs.saturating_sub(task.since.runs) * 1000,
            u64::from(n) * 1000,
        ),
        Interval::Days(d) => (
            u64::try_from((now.0 - task.since.at.0).max(0) * 1000 / DAY).unwrap_or(0),
            u64::from(d) * 1000,
        ),
    };
    let state = if used >= length {
        State::Overdue
    } else if used * 1000 >= length * DUE_FROM_PER_MILLE {
        State::Due
    } else {
        State::Ok
    };
    let thousandths = |v: u64| Decimal::new(i64::try_from(v).unwrap_or(i64::MAX), 3).normalize();
    (thousandths(used), thousandths(length), state)
}

/// `task` with where it stands at `now`. Errors: the store fails; its printer or component is
/// gone ([`Error::NotFound`]).
pub fn view(tx: &impl Tx, task: MaintenanceTask, now: Timestamp) -> Result<TaskView> {
    let wear = repo::wear(tx, subject(&task))?;
    let (used, length, state) = standing(&task, &wear, now);
    let subject_name = match task.component_id {
        Some(id) => inventory::get::<Component>(tx, id)?.name,
        None => inventory::get::<Printer>(tx, task.printer_id)?.name,
    };
    Ok(TaskView {
        task,
        subject_name,
        used,
        remaining: length - used,
        state,
    })
}

/// Every task that is not archived, with where it stands at `now`, most urgent first (overdue,
/// then due, then the rest; by what remains relative to the interval).
/// Errors: the store fails.
pub fn list(tx: &impl Tx, now: Timestamp) -> Result<Vec<TaskView>> {
    let mut tasks = Vec::new();
    repo::for_each::<MaintenanceTask>(tx, |t| {
        if !t.archived {
            tasks.push(t);
        }
    })?;
    let mut views = tasks
        .into_iter()
        .map(|t| view(tx, t, now))
        .collect::<Result<Vec<_>>>()?;
    let rank = |v: &TaskView| match v.state {
        State::Overdue => 0,
        State::Due => 1,
        State::Ok => 2,
    };
    views.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then(a.remaining.cmp(&b.remaining))
            .then(a.task.name.cmp(&b.task.name))
    });
    Ok(views)
}

/// The faults of a task's name and interval; answers the trimmed name.
fn fields(name: &str, every: Interval, faults: &mut Vec<FieldError>) -> String {
    let name = name.trim().to_owned();
    if name.is_empty() {
        faults.push(FieldError::new("name", "errors.required"));
    } else if name.chars().count() > 200 {
        faults.push(FieldError::new("name", "errors.tooLong"));
    }
    let (Interval::Hours(n) | Interval::Prints(n) | Interval::Days(n)) = every;
    if !(1..=1_000_000).contains(&n) {
        faults.push(FieldError::new("every", "errors.outOfRange"));
    }
    name
}

fn validate(tx: &impl Tx, input: &TaskInput) -> Result<String> {
    let mut faults = Vec::new();
    let name = fields(&input.name, input.every, &mut faults);
    if repo::get::<Printer>(tx, input.printer_id)?.is_none_or(|p| p.archived) {
        faults.push(FieldError::new("printerId", "errors.notFound"));
    }
    if let Some(component) = input.component_id
        && repo::get::<Component>(tx, component)?.is_none_or(|c| c.archived)
    {
        faults.push(FieldError::new("componentId", "errors.notFound"));
    }
    if faults.is_empty() {
        Ok(name)
    } else {
        Err(Error::Validation(faults))
    }
}

/// Creates a task; its first interval starts now.
/// Errors: [`Error::Validation`] at `name`, `every`, `printerId`, `componentId`.
pub fn create(txn: &Txn, input: &TaskInput, now: Timestamp) -> Result<TaskView> {
    let name = validate(txn, input)?;
    let subject = input.component_id.unwrap_or(input.printer_id);
    let task = MaintenanceTask {
        id: Id::new(),
        printer_id: input.printer_id,
        component_id: input.component_id,
        name,
        every: input.every,
        blocking: input.blocking,
        since: mark(txn, subject, now)?,
        done: Vec::new(),
        overrides: Vec::new(),
        archived: false,
        created_at: now,
        updated_at: now,
    };
    repo::put(txn, &task)?;
    view(txn, task, now)
}

/// What a change of a task may change (its printer and component stay); a field left out
/// keeps its value (`PATCH`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskChange {
    /// What to do.
    pub name: Option<String>,
    /// How often.
    pub every: Option<Interval>,
    /// Whether an overdue task blocks moves to PRINTING.
    pub blocking: Option<bool>,
    /// Its archive state.
    pub archived: Option<bool>,
}

/// Changes a task's name, interval and blocking flag, or archives it; its interval's start,
/// its printer and its component stay (so a task of an archived printer can still be changed
/// and archived). Errors: [`Error::NotFound`]; [`Error::Validation`] at `name` and `every`.
pub fn change(txn: &Txn, id: Id, change: &TaskChange, now: Timestamp) -> Result<TaskView> {
    let mut task: MaintenanceTask = repo::get(txn, id)?.ok_or(Error::NotFound)?;
    let mut faults = Vec::new();
    let name = change.name.as_deref().unwrap_or(&task.name);
    let every = change.every.unwrap_or(task.every);
    task.name = fields(name, every, &mut faults);
    if !faults.is_empty() {
        return Err(Error::Validation(faults));
    }
    task.every = every;
    task.blocking = change.blocking.unwrap_or(task.blocking);
    task.archived = change.archived.unwrap_or(task.archived);
    task.updated_at = now;
    repo::put(txn, &task)?;
    view(txn, task, now)
}

/// Moves every task of component `from` that is not archived to component `to` (its
/// replacement), each interval starting again at `to`'s wear now. Errors: the store fails.
pub fn move_to_replacement(txn: &Txn, from: Id, to: Id, now: Timestamp) -> Result<usize> {
    let mut moved = Vec::new();
    repo::for_each::<MaintenanceTask>(txn, |t| {
        if !t.archived && t.component_id == Some(from) {
            moved.push(t);
        }
    })?;
    let since = mark(txn, to, now)?;
    for task in &mut moved {
        task.component_id = Some(to);
        task.since = since.clone();
        task.updated_at = now;
        repo::put(txn, task)?;
    }
    Ok(moved.len())
}

/// Marks a task done by `by` (named `by_name`): recorded, and its interval restarts now.
/// Errors: [`Error::NotFound`]; [`Error::InvalidState`] for an archived task.
pub fn mark_done(
    txn: &Txn,
    id: Id,
    by: Id,
    by_name: &str,
    note: Option<String>,
    now: Timestamp,
) -> Result<TaskView> {
    let mut task: MaintenanceTask = repo::get(txn, id)?.ok_or(Error::NotFound)?;
    if task.archived {
        return Err(Error::InvalidState);
    }
    let since = mark(txn, subject(&task), now)?;
    task.done.push(Done {
        mark: since.clone(),
        by,
        by_name: by_name.to_owned(),
        note: note.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()),
    });
    task.since = since;
    task.updated_at = now;
    repo::put(txn, &task)?;
    view(txn, task, now)
}

/// An override of overdue blocking tasks: who moves the print to PRINTING anyway, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// The account.
    pub by: Id,
    /// Why (required, 1–200 characters).
    pub reason: String,
}

/// The blocking tasks that keep `print` from PRINTING at `now`: those of its printers (and of
/// the components its parts use) that are overdue and not archived, in store order.
/// Errors: the store fails.
pub fn overdue_blocking(
    tx: &impl Tx,
    print: &Print,
    now: Timestamp,
) -> Result<Vec<MaintenanceTask>> {
    let mut subjects: Vec<Id> = Vec::new();
    for part in &print.parts {
        subjects.push(part.printer_id);
        subjects.push(part.build_plate_id);
        subjects.extend(part.hotends.iter().map(|h| h.component_id));
        subjects.extend(part.other_component_ids.iter().copied());
    }
    let mut candidates = Vec::new();
    repo::for_each::<MaintenanceTask>(tx, |t| {
        if t.blocking && !t.archived && subjects.contains(&subject(&t)) {
            candidates.push(t);
        }
    })?;
    let mut blocking = Vec::new();
    for task in candidates {
        let wear = repo::wear(tx, subject(&task))?;
        if standing(&task, &wear, now).2 == State::Overdue {
            blocking.push(task);
        }
    }
    Ok(blocking)
}

/// Refuses taking `print` to PRINTING (or past it) while a blocking task is overdue
/// ([`overdue_blocking`]), unless `overridden`; an override is recorded on every such task.
/// Errors: [`Error::MaintenanceOverdue`] naming the first overdue task;
/// [`Error::Validation`] at `maintenanceOverride` for an empty or too long reason (over 200
/// characters).
pub fn check_blocking(
    txn: &Txn,
    print: &Print,
    overridden: Option<&Override>,
    now: Timestamp,
) -> Result<()> {
    let blocking = overdue_blocking(txn, print, now)?;
    let Some(first) = blocking.first() else {
        return Ok(());
    };
    let Some(overridden) = overridden else {
        return Err(Error::MaintenanceOverdue {
            task_id: first.id,
            task: first.name.clone(),
        });
    };
    let reason = overridden.reason.trim();
    if reason.is_empty() || reason.chars().count() > 200 {
        let key = if reason.is_empty() {
            "errors.required"
        } else {
            "errors.tooLong"
        };
        return Err(Error::Validation(vec![FieldError::new(
            "maintenanceOverride",
            key,
        )]));
    }
    for mut task in blocking {
        task.overrides.push(Overridden {
            at: now,
            print_id: print.id,
            by: overridden.by,
            reason: reason.to_owned(),
        });
        task.updated_at = now;
        repo::put(txn, &task)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(every: Interval) -> MaintenanceTask {
        MaintenanceTask {
            id: Id::new(),
            printer_id: Id::new(),
            component_id: None,
            name: "Lubricate the rods".into(),
            every,
            blocking: false,
            since: Mark {
                at: Timestamp(1_793_588_400),
                actual_seconds: 3600,
                runs: 4,
            },
            done: Vec::new(),
            overrides: Vec::new(),
            archived: false,
            created_at: Timestamp(1_793_588_400),
            updated_at: Timestamp(1_793_588_400),
        }
    }

    #[test]
    fn days_count_from_the_intervals_start() {
        let t = task(Interval::Days(30));
        let at = |days: i64| Timestamp(t.since.at.0 + days * DAY);
        let wear = Wear::default();
        assert_eq!(standing(&t, &wear, at(10)).2, State::Ok);
        assert_eq!(standing(&t, &wear, at(27)).2, State::Due);
        let (used, length, state) = standing(&t, &wear, at(30));
        assert_eq!(
            (used, length, state),
            (Decimal::from(30), Decimal::from(30), State::Overdue)
        );
        // A clock set back counts nothing.
        assert_eq!(standing(&t, &wear, at(-3)).0, Decimal::ZERO);
    }

    #[test]
    fn hours_and_runs_count_what_ran_since_the_start() {
        let wear = Wear {
            actual_seconds: 3600 + 5400,
            planned_seconds: 99_999,
            runs: 4 + 3,
        };
        let now = Timestamp(0);
        let (used, _, state) = standing(&task(Interval::Hours(2)), &wear, now);
        assert_eq!((used, state), (Decimal::new(15, 1), State::Ok));
        let (used, _, state) = standing(&task(Interval::Prints(3)), &wear, now);
        assert_eq!((used, state), (Decimal::from(3), State::Overdue));
    }
}
