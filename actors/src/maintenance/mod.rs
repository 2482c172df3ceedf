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
use storage::records::{Component, Printer, Wear};
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

/// What a printer or component has run, and its expected lifetime in hours.
#[derive(Debug, Clone, PartialEq)]
pub struct SubjectWear {
    /// The wear.
    pub wear: Wear,
    /// Its expected lifetime, hours.
    pub expected_lifetime_hours: Decimal,
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

    /// Expected lifetime left after the actual hours (negative beyond it).
    pub fn remaining_hours(&self) -> Decimal {
        self.expected_lifetime_hours - self.actual_hours()
    }

    /// Its wear cost per hour: purchase price / expected lifetime (the costing's rate,
    /// docs/costing.md), rounded as a cost line.
    pub fn cost_per_hour(&self) -> Decimal {
        money::rate(self.purchase_price, self.expected_lifetime_hours)
    }

    /// The wear cost of its actual hours at that rate, one division last as a cost line:
    /// `seconds × price / (3600 × lifetime)`; [`money::MAX_AMOUNT`] should it leave the range.
    pub fn realized_cost(&self) -> Decimal {
        let seconds = Decimal::from(self.wear.actual_seconds);
        let numerator = money::multiply(seconds, self.purchase_price);
        let denominator = money::multiply(Decimal::from(3600), self.expected_lifetime_hours);
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
        let (expected_lifetime_hours, purchase_price) =
            match repo::get::<Printer>(snapshot, self.0)? {
                Some(p) => (p.expected_lifetime_hours, p.purchase_price),
                None => {
                    let c: Component = inventory::get(snapshot, self.0)?;
                    (c.expected_lifetime_hours, c.purchase_price)
                }
            };
        Ok(SubjectWear {
            wear: repo::wear(snapshot, self.0)?,
            expected_lifetime_hours,
            purchase_price,
        })
    }
}
