//! Wear and maintenance: what each printer and component has run ([`wear`], kept with the
//! prints), and the tasks due on them ([`tasks`]).

pub mod tasks;
pub mod wear;

use crate::command::{Command, Query, Snapshot};
use crate::txn::Txn;
use crate::writer::InventoryWriter;
use crate::{Result, inventory};
use storage::records::{Component, Printer, Wear};
use storage::repo;
use storage::{Id, Timestamp};
use tasks::{TaskInput, TaskView};

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
    /// Its new name, interval and blocking flag (printer and component stay).
    pub input: TaskInput,
    /// Its archive state.
    pub archived: bool,
}

impl Command for ChangeTask {
    type Writer = InventoryWriter;
    type Reply = TaskView;

    fn apply(&mut self, txn: &Txn) -> Result<TaskView> {
        tasks::change(txn, self.id, &self.input, self.archived, Timestamp::now())
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
    pub expected_lifetime_hours: rust_decimal::Decimal,
}

/// The wear of printer or component `0`. Errors: [`crate::Error::NotFound`] for neither.
#[derive(Debug, Clone, Copy)]
pub struct GetWear(pub Id);

impl Query for GetWear {
    type Answer = SubjectWear;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<SubjectWear> {
        let expected_lifetime_hours = match repo::get::<Printer>(snapshot, self.0)? {
            Some(printer) => printer.expected_lifetime_hours,
            None => inventory::get::<Component>(snapshot, self.0)?.expected_lifetime_hours,
        };
        Ok(SubjectWear {
            wear: repo::wear(snapshot, self.0)?,
            expected_lifetime_hours,
        })
    }
}
