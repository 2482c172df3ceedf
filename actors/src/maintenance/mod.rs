//! Maintenance: the tasks due on each printer and component ([`tasks`]), by what it has run
//! (the wear, derived with the prints in the projection: [`crate::projection::wear`]).

pub mod tasks;

use crate::command::InventoryWriter;
use crate::command::{Command, Query, Snapshot};
use crate::inventory::components::ComponentView;
use crate::txn::Txn;
use crate::{Result, inventory, money};
use rust_decimal::Decimal;
use storage::records::Manufacturer;
use storage::records::{Component, Lifetime, Printer, Wear};
use storage::repo;
use storage::{Id, Timestamp};
use tasks::{TaskChange, TaskInput, TaskView};

/// Creates a maintenance task. Errors: as [`tasks::create`].
#[derive(Debug, Clone)]
pub struct CreateTask(pub TaskInput);

impl Command for CreateTask {
    type Writer = InventoryWriter;
    type Reply = TaskView;

    fn apply(&mut self, txn: &Txn) -> Result<TaskView> {
        tasks::create(txn, &self.0, Timestamp::now())
    }
}

/// Changes or archives a task. Errors: as [`tasks::change`].
#[derive(Debug, Clone)]
pub struct ChangeTask {
    /// The task.
    pub id: Id,
    /// Its new name, interval, blocking flag and archive state.
    pub change: TaskChange,
}

impl Command for ChangeTask {
    type Writer = InventoryWriter;
    type Reply = TaskView;

    fn apply(&mut self, txn: &Txn) -> Result<TaskView> {
        tasks::change(txn, self.id, &self.change, Timestamp::now())
    }
}

/// Replaces component `id` by a new one of the same kind, name, model, lifetime and printers
/// (at `purchase_price`, or the old one's): the old one is archived with its wear, the new one
/// starts at none, and the old one's maintenance tasks move to it, their intervals starting
/// again. Replies with the new component.
///
/// Errors: [`crate::Error::NotFound`]; [`crate::Error::InvalidState`] for an archived one.
#[derive(Debug, Clone)]
pub struct ReplaceComponent {
    /// The worn component.
    pub id: Id,
    /// The new one's price, instance currency (the old one's when none).
    pub purchase_price: Option<Decimal>,
}

impl Command for ReplaceComponent {
    type Writer = InventoryWriter;
    type Reply = ComponentView;

    fn apply(&mut self, txn: &Txn) -> Result<ComponentView> {
        let now = Timestamp::now();
        let old: Component = inventory::get(txn, self.id)?;
        if old.archived {
            return Err(crate::Error::InvalidState);
        }
        let new = Component {
            id: Id::new(),
            purchase_price: self.purchase_price.unwrap_or(old.purchase_price),
            archived: false,
            created_at: now,
            updated_at: now,
            ..old.clone()
        };
        inventory::save(txn, &new)?;
        let mut retired = old.clone();
        retired.archived = true;
        retired.updated_at = now;
        inventory::save(txn, &retired)?;
        tasks::move_to_replacement(txn, old.id, new.id, now)?;
        let manufacturer = match new.manufacturer_id {
            Some(m) => Some(inventory::get::<Manufacturer>(txn, m)?.name),
            None => None,
        };
        Ok(ComponentView {
            component: new,
            manufacturer,
        })
    }
}

/// Marks a task done. Errors: as [`tasks::mark_done`].
#[derive(Debug, Clone)]
pub struct MarkDone {
    /// The task.
    pub id: Id,
    /// The account marking it.
    pub by: Id,
    /// Its display name.
    pub by_name: String,
    /// Free text.
    pub note: Option<String>,
}

impl Command for MarkDone {
    type Writer = InventoryWriter;
    type Reply = TaskView;

    fn apply(&mut self, txn: &Txn) -> Result<TaskView> {
        tasks::mark_done(
            txn,
            self.id,
            self.by,
            &self.by_name,
            self.note.take(),
            Timestamp::now(),
        )
    }
}

/// Every task not archived, most urgent first ([`tasks::list`]).
#[derive(Debug, Clone, Copy)]
pub struct ListTasks;

impl Query for ListTasks {
    type Answer = Vec<TaskView>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<TaskView>> {
        tasks::list(snapshot, Timestamp::now())
    }
}

/// One task with where it stands. Errors: [`crate::Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct GetTask(pub Id);

impl Query for GetTask {
    type Answer = TaskView;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<TaskView> {
        let task = inventory::get(snapshot, self.0)?;
        tasks::view(snapshot, task, Timestamp::now())
    }
}

/// What a printer or component has run, and what it is expected to last (a printer: hours; a
/// component: hours or prints).
#[derive(Debug, Clone, PartialEq)]
pub struct SubjectWear {
    /// The wear.
    pub wear: Wear,
    /// Its expected lifetime.
    pub lifetime: Lifetime,
    /// Its purchase price, instance currency.
    pub purchase_price: Decimal,
}

impl SubjectWear {
    /// Hours of its runs, to the thousandth.
    pub fn actual_hours(&self) -> Decimal {
        hours(self.wear.actual_seconds)
    }

    /// Hours its open prints plan, to the thousandth.
    pub fn planned_hours(&self) -> Decimal {
        hours(self.wear.planned_seconds)
    }

    /// Its expected lifetime in hours; `None` when counted in prints.
    pub fn lifetime_hours(&self) -> Option<Decimal> {
        match self.lifetime {
            Lifetime::Hours(hours) => Some(hours),
            Lifetime::Prints(_) => None,
        }
    }

    /// Its expected lifetime in prints; `None` when counted in hours.
    pub fn lifetime_prints(&self) -> Option<u32> {
        match self.lifetime {
            Lifetime::Prints(prints) => Some(prints),
            Lifetime::Hours(_) => None,
        }
    }

    /// Expected lifetime left after the actual hours (negative beyond it); `None` for a
    /// lifetime in prints.
    pub fn remaining_hours(&self) -> Option<Decimal> {
        self.lifetime_hours()
            .map(|lifetime| lifetime - self.actual_hours())
    }

    /// Expected prints left after its runs (negative beyond them); `None` for a lifetime in
    /// hours.
    pub fn remaining_prints(&self) -> Option<i64> {
        let runs = i64::try_from(self.wear.runs).unwrap_or(i64::MAX);
        self.lifetime_prints()
            .map(|lifetime| i64::from(lifetime).saturating_sub(runs))
    }

    /// Its wear cost per unit of its lifetime: purchase price / expected lifetime (the
    /// costing's rate, docs/costing.md), per hour or per print, rounded as a cost line.
    pub fn cost_per_unit(&self) -> Decimal {
        let per = match self.lifetime {
            Lifetime::Hours(hours) => hours,
            Lifetime::Prints(prints) => Decimal::from(prints),
        };
        money::rate(self.purchase_price, per)
    }

    /// The wear cost of its actual hours (or runs) at that rate, one division last as a cost
    /// line: `seconds × price / (3600 × lifetime_h)`, or `runs × price / lifetime_prints`;
    /// [`money::MAX_AMOUNT`] should it leave the range.
    pub fn realized_cost(&self) -> Decimal {
        let (used, denominator) = match self.lifetime {
            Lifetime::Hours(lifetime) => (
                Decimal::from(self.wear.actual_seconds),
                money::multiply(Decimal::from(3600), lifetime),
            ),
            Lifetime::Prints(prints) => (Decimal::from(self.wear.runs), Ok(Decimal::from(prints))),
        };
        let numerator = money::multiply(used, self.purchase_price);
        match (numerator, denominator) {
            (Ok(n), Ok(d)) => money::divide(n, d).unwrap_or(money::MAX_AMOUNT),
            _ => money::MAX_AMOUNT,
        }
    }
}

/// `seconds` as hours, to the thousandth.
fn hours(seconds: u64) -> Decimal {
    (Decimal::from(seconds) / Decimal::from(3600)).round_dp(3)
}

/// The wear of printer or component `0`. Errors: [`crate::Error::NotFound`] for neither.
#[derive(Debug, Clone, Copy)]
pub struct GetWear(pub Id);

impl Query for GetWear {
    type Answer = SubjectWear;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<SubjectWear> {
        let (lifetime, purchase_price) = match repo::get::<Printer>(snapshot, self.0)? {
            Some(p) => (Lifetime::Hours(p.expected_lifetime_hours), p.purchase_price),
            None => {
                let c: Component = inventory::get(snapshot, self.0)?;
                (c.lifetime, c.purchase_price)
            }
        };
        Ok(SubjectWear {
            wear: repo::wear(snapshot, self.0)?,
            lifetime,
            purchase_price,
        })
    }
}
