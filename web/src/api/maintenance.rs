//! `/api/maintenance`: maintenance tasks of printers and components (every N hours, runs or
//! days; done, blocking), and `/api/printers/{id}/wear`, `/api/components/{id}/wear`: what
//! each has run.

use crate::api::components::{Component, Components};
use crate::api::inventory::Resource;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{PathId, StrictJson};
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{WireId, dec, ts};
use actix_web::web::{Data, Json};
use actix_web::{HttpResponse, get, patch, post};
use actors::maintenance::tasks::{State, TaskChange as Change, TaskInput, TaskView};
use actors::maintenance::{
    ChangeTask, CreateTask, GetTask, GetWear, ListTasks, MarkDone, ReplaceComponent,
};
use actors::values::{Amount, Name, Note, note_text};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::Id;
use storage::records::Interval;
use utoipa::ToSchema;

/// Registers the maintenance routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(list)
        .add(create)
        .add(get_task)
        .add(change)
        .add(done)
        .add(printer_wear)
        .add(component_wear)
        .add(replace_component);
}

/// The unit of an interval.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Unit {
    /// Hours of actual runs.
    Hours,
    /// Runs (parts printed with an outcome).
    Prints,
    /// Calendar days.
    Days,
}

crate::input::deserr_by_name!(Unit);

/// How often: `{unit, count}`.
#[derive(Debug, Clone, Copy, Serialize, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct Every {
    /// `HOURS`, `PRINTS` or `DAYS`.
    pub unit: Unit,
    /// 1–1,000,000.
    #[schema(minimum = 1, maximum = 1_000_000)]
    pub count: u32,
}

impl From<Every> for Interval {
    fn from(e: Every) -> Interval {
        match e.unit {
            Unit::Hours => Interval::Hours(e.count),
            Unit::Prints => Interval::Prints(e.count),
            Unit::Days => Interval::Days(e.count),
        }
    }
}

impl From<Interval> for Every {
    fn from(i: Interval) -> Every {
        let (unit, count) = match i {
            Interval::Hours(n) => (Unit::Hours, n),
            Interval::Prints(n) => (Unit::Prints, n),
            Interval::Days(n) => (Unit::Days, n),
        };
        Every { unit, count }
    }
}

/// A task marked done.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoneDto {
    /// When.
    pub at: String,
    /// Who.
    pub by_name: String,
    /// Free text.
    pub note: Option<String>,
}

/// A move to PRINTING past this task while it was overdue.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OverrideDto {
    /// When.
    pub at: String,
    /// The print.
    pub print_id: String,
    /// Why.
    pub reason: String,
}

/// A maintenance task and where it stands.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskDto {
    /// Id.
    pub id: String,
    /// The printer.
    pub printer_id: String,
    /// The component, or null for the printer itself.
    pub component_id: Option<String>,
    /// The printer's or component's name.
    pub subject_name: String,
    /// What to do.
    pub name: String,
    /// How often.
    pub every: Every,
    /// Blocks moves to PRINTING while overdue.
    pub blocking: bool,
    /// `OK`, `DUE` (90% of the interval used) or `OVERDUE`.
    #[schema(example = "DUE")]
    pub state: String,
    /// Used since the interval started, in its unit (decimal string).
    pub used: String,
    /// What remains, in its unit (negative once overdue).
    pub remaining: String,
    /// The interval's start: creation or the last time it was done.
    pub since: String,
    /// Every time it was done, oldest first.
    pub done: Vec<DoneDto>,
    /// Every override, oldest first.
    pub overrides: Vec<OverrideDto>,
    /// Archive state.
    pub archived: bool,
}

impl From<TaskView> for TaskDto {
    fn from(v: TaskView) -> TaskDto {
        let t = v.task;
        TaskDto {
            id: t.id.to_string(),
            printer_id: t.printer_id.to_string(),
            component_id: t.component_id.map(|c| c.to_string()),
            subject_name: v.subject_name,
            name: t.name,
            every: t.every.into(),
            blocking: t.blocking,
            state: match v.state {
                State::Ok => "OK",
                State::Due => "DUE",
                State::Overdue => "OVERDUE",
            }
            .into(),
            used: dec(v.used),
            remaining: dec(v.remaining),
            since: ts(t.since.at),
            done: t
                .done
                .into_iter()
                .map(|d| DoneDto {
                    at: ts(d.mark.at),
                    by_name: d.by_name,
                    note: d.note,
                })
                .collect(),
            overrides: t
                .overrides
                .into_iter()
                .map(|o| OverrideDto {
                    at: ts(o.at),
                    print_id: o.print_id.to_string(),
                    reason: o.reason,
                })
                .collect(),
            archived: t.archived,
        }
    }
}

/// A new task.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct TaskCreate {
    /// The printer.
    #[schema(value_type = String, format = Uuid)]
    pub printer_id: WireId,
    /// One of the components its prints use, or null for the printer itself.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub component_id: Option<WireId>,
    /// What to do, 1–200 characters.
    #[schema(example = "Clean the build plate")]
    pub name: Name,
    /// How often.
    pub every: Every,
    /// Block moves to PRINTING while overdue (default false).
    #[schema(required = false, default = false)]
    #[deserr(default)]
    pub blocking: bool,
}

impl From<TaskCreate> for TaskInput {
    fn from(i: TaskCreate) -> TaskInput {
        TaskInput {
            printer_id: i.printer_id.0,
            component_id: i.component_id.map(|c| c.0),
            name: i.name.into_inner(),
            every: i.every.into(),
            blocking: i.blocking,
        }
    }
}

/// A task's change: the fields given replace theirs, the others stay (its printer and
/// component always stay).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct TaskChange {
    /// What to do, 1–200 characters.
    #[deserr(default)]
    pub name: Option<Name>,
    /// How often.
    #[deserr(default)]
    pub every: Option<Every>,
    /// Block moves to PRINTING while overdue.
    #[deserr(default)]
    pub blocking: Option<bool>,
    /// Archive state.
    #[deserr(default)]
    pub archived: Option<bool>,
}

/// A task marked done.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct TaskDone {
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

/// Every task not archived, most urgent first (overdue, due, the rest).
#[utoipa::path(tag = "maintenance", responses((status = 200, body = Vec<TaskDto>), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/maintenance")]
pub async fn list(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Vec<TaskDto>>, ApiError> {
    let tasks = state.query(ListTasks).await?;
    Ok(Json(tasks.into_iter().map(Into::into).collect()))
}

/// Creates a task; its first interval starts now.
#[utoipa::path(
    tag = "maintenance",
    request_body = TaskCreate,
    responses(
        (status = 201, body = TaskDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED: `name`, `every`, `printerId`, `componentId`", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/maintenance")]
pub async fn create(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<TaskCreate>,
) -> Result<HttpResponse, ApiError> {
    let task = state.send(CreateTask(input.0.into())).await?;
    Ok(HttpResponse::Created().json(TaskDto::from(task)))
}

/// One task.
#[utoipa::path(tag = "maintenance", params(("id" = String, Path, description = "Task id")), responses((status = 200, body = TaskDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/maintenance/{id}")]
pub async fn get_task(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<TaskDto>, ApiError> {
    Ok(Json(state.query(GetTask(id.0)).await?.into()))
}

/// Changes a task's name, interval or blocking flag, or archives it.
#[utoipa::path(
    tag = "maintenance",
    params(("id" = String, Path, description = "Task id")),
    request_body = TaskChange,
    responses(
        (status = 200, body = TaskDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/maintenance/{id}")]
pub async fn change(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<TaskChange>,
) -> Result<Json<TaskDto>, ApiError> {
    let c = input.0;
    let command = ChangeTask {
        id: id.0,
        change: Change {
            name: c.name.map(Name::into_inner),
            every: c.every.map(Into::into),
            blocking: c.blocking,
            archived: c.archived,
        },
    };
    Ok(Json(state.send(command).await?.into()))
}

/// Marks a task done by the signed-in account: recorded, and its interval restarts now.
#[utoipa::path(
    tag = "maintenance",
    params(("id" = String, Path, description = "Task id")),
    request_body = TaskDone,
    responses(
        (status = 200, body = TaskDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "INVALID_STATE: the task is archived", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/maintenance/{id}/done")]
pub async fn done(
    state: Data<AppState>,
    user: CurrentUser,
    id: PathId,
    input: StrictJson<TaskDone>,
) -> Result<Json<TaskDto>, ApiError> {
    let command = MarkDone {
        id: id.0,
        by: user.account.id,
        by_name: user.account.display_name.clone(),
        note: note_text(input.0.note),
    };
    Ok(Json(state.send(command).await?.into()))
}

/// What a printer or component has run.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WearDto {
    /// Hours of runs with an outcome (failed ones included; corrections replace).
    pub actual_hours: String,
    /// Hours planned by open prints (not DONE, not archived).
    pub planned_hours: String,
    /// Runs with an outcome.
    pub runs: u64,
    /// Its expected lifetime, hours; null for a component whose lifetime is counted in
    /// prints.
    pub expected_lifetime_hours: Option<String>,
    /// Lifetime left after the actual hours (negative beyond it); null when counted in prints.
    pub remaining_hours: Option<String>,
    /// Its purchase price / expected lifetime, currency per hour (the costing's rate); null
    /// when counted in prints.
    pub wear_cost_per_hour: Option<String>,
    /// Its expected lifetime, prints; null when counted in hours (every printer).
    pub expected_lifetime_prints: Option<u32>,
    /// Prints left after its runs (negative beyond them); null when counted in hours.
    pub remaining_prints: Option<i64>,
    /// Its purchase price / expected prints, currency per print (the costing's PER_PRINT
    /// rate); null when counted in hours.
    pub wear_cost_per_print: Option<String>,
    /// The wear cost of its actual hours (or runs) at that rate, rounded as a cost line.
    pub realized_wear_cost: String,
}

async fn wear_of(state: &AppState, id: Id) -> Result<Json<WearDto>, ApiError> {
    let found = state.query(GetWear(id)).await?;
    Ok(Json(WearDto {
        actual_hours: dec(found.actual_hours()),
        planned_hours: dec(found.planned_hours()),
        runs: found.wear.runs,
        expected_lifetime_hours: found.lifetime_hours().map(dec),
        remaining_hours: found.remaining_hours().map(dec),
        wear_cost_per_hour: found.remaining_hours().map(|_| dec(found.cost_per_unit())),
        expected_lifetime_prints: found.lifetime_prints(),
        remaining_prints: found.remaining_prints(),
        wear_cost_per_print: found.remaining_prints().map(|_| dec(found.cost_per_unit())),
        realized_wear_cost: dec(found.realized_cost()),
    }))
}

/// What a printer has run.
#[utoipa::path(tag = "maintenance", params(("id" = String, Path, description = "Printer id")), responses((status = 200, body = WearDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/printers/{id}/wear")]
pub async fn printer_wear(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<WearDto>, ApiError> {
    wear_of(&state, id.0).await
}

/// What a component (hotend, build plate, other) has run.
#[utoipa::path(tag = "maintenance", params(("id" = String, Path, description = "Component id")), responses((status = 200, body = WearDto), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)), security(("session" = [])))]
#[get("/components/{id}/wear")]
pub async fn component_wear(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<WearDto>, ApiError> {
    wear_of(&state, id.0).await
}

/// A replacement's price.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct Replacement {
    /// The new one's purchase price (the old one's when omitted).
    #[deserr(default)]
    #[schema(example = "89.90")]
    pub purchase_price: Option<Amount>,
}

/// Replaces a worn component: the old one is archived with its wear and history, a new one of
/// the same kind, name, lifetime and printers starts at none, and the old one's maintenance
/// tasks move to it (their intervals start again).
#[utoipa::path(
    tag = "maintenance",
    params(("id" = String, Path, description = "Component id")),
    request_body = Replacement,
    responses(
        (status = 201, description = "The new component", body = Component),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "INVALID_STATE: the component is archived", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/components/{id}/replace")]
pub async fn replace_component(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<Replacement>,
) -> Result<HttpResponse, ApiError> {
    let command = ReplaceComponent {
        id: id.0,
        purchase_price: input.0.purchase_price.map(|p| *p.get()),
    };
    let view = state.send(command).await?;
    Ok(HttpResponse::Created().json(Components::dto(view)))
}
