//! Maintenance: every task with where it stands (most urgent first), marking one done, a new
//! task's form, and a task's own page (when it was done, by whom, who changed what); the
//! dashboard lists what is due from [`due`].

use super::Chrome;
use super::changes::{self, ChangeRow};
use super::choices::{Choice, LoadChoices};
use super::forms::{Faults, Submitted};
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use crate::api::maintenance::{TaskCreate, TaskDone};
use crate::error::Rendered;
use crate::input;
use crate::wire;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::maintenance::tasks::{State, TaskView};
use actors::maintenance::{CreateTask, GetTask, ListTasks, MarkDone};
use actors::values::note_text;
use askama::Template;
use serde_json::Value;
use storage::records::Interval;

#[derive(Template)]
#[template(path = "maintenance.html")]
struct MaintenancePage {
    chrome: Chrome,
    tasks: Vec<TaskView>,
    printers: Vec<Choice>,
    components: Vec<Choice>,
    form: Submitted,
    faults: Faults,
    /// The task just created or marked done, for the page's message.
    notice: Option<(&'static str, String)>,
}

/// The i18n key of a task's state.
pub fn state_key(state: State) -> &'static str {
    match state {
        State::Ok => "maintenance.state.OK",
        State::Due => "maintenance.state.DUE",
        State::Overdue => "maintenance.state.OVERDUE",
    }
}

/// The i18n key of an interval's unit and its count.
pub fn every(interval: &Interval) -> (&'static str, u32) {
    match *interval {
        Interval::Hours(n) => ("maintenance.unit.HOURS", n),
        Interval::Prints(n) => ("maintenance.unit.PRINTS", n),
        Interval::Days(n) => ("maintenance.unit.DAYS", n),
    }
}

impl MaintenancePage {
    fn state_key(&self, state: &State) -> &'static str {
        state_key(*state)
    }

    fn every(&self, interval: &Interval) -> (&'static str, u32) {
        every(interval)
    }

    fn state_class(&self, state: &State) -> &'static str {
        state_class(*state)
    }
}

/// The CSS class of a task's state (its colour on the maintenance page and the dashboard).
pub fn state_class(state: State) -> &'static str {
    match state {
        State::Ok => "ok",
        State::Due => "due",
        State::Overdue => "overdue",
    }
}

/// The tasks that are due or overdue, most urgent first (the dashboard's list).
/// Errors: the error page.
pub async fn due(ctx: &Ctx) -> Result<Vec<TaskView>, Rendered> {
    let tasks = ctx.query(ListTasks).await?;
    Ok(tasks.into_iter().filter(|t| t.state != State::Ok).collect())
}

/// Renders the maintenance page (`?created=<id>` or `?done=<id>` after a form).
pub async fn show(ctx: Ctx) -> Page {
    let notice = ["created", "done"].into_iter().find_map(|key| {
        let id = ctx.param(key);
        (!id.is_empty()).then_some((key, id))
    });
    render(
        ctx,
        Submitted::default(),
        Faults::default(),
        notice,
        StatusCode::OK,
    )
    .await
}

async fn render(
    ctx: Ctx,
    form: Submitted,
    faults: Faults,
    notice: Option<(&'static str, String)>,
    status: StatusCode,
) -> Page {
    let tasks = ctx.query(ListTasks).await?;
    let choices = ctx.query(LoadChoices(ctx.chrome.t.clone())).await?;
    // The notice names the task, found among those listed.
    let notice = notice.and_then(|(key, id)| {
        let name = tasks.iter().find(|t| t.task.id.to_string() == id)?;
        let key = if key == "created" {
            "maintenance.created"
        } else {
            "maintenance.doneSaved"
        };
        Some((key, name.task.name.clone()))
    });
    let page = MaintenancePage {
        chrome: ctx.chrome,
        tasks,
        printers: choices.printers,
        components: choices.components,
        form,
        faults,
        notice,
    };
    Ok(html(status, page.render()))
}

/// Creates a task from the form (posted to the page's own path, so a refused form reloads).
pub async fn create(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let mut tree = form.tree(&["every.count"]);
    tree["blocking"] = Value::Bool(form.checked("blocking"));
    let created = match ctx.typed(|| input::parse::<TaskCreate>(tree)) {
        Ok(input) => ctx.state.send(CreateTask(input.into())).await,
        Err(e) => Err(e),
    };
    match created {
        Ok(task) => Ok(see_other(&format!(
            "{}?created={}",
            paths::MAINTENANCE,
            task.task.id
        ))),
        Err(e) => render(ctx, form, Faults::of(&e), None, e.code.status()).await,
    }
}

/// Marks task `{id}` done by the signed-in account.
pub async fn done(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let tree = Submitted::parse(&body).tree(&[]);
    let input = ctx
        .typed(|| input::parse::<TaskDone>(tree))
        .map_err(|e| ctx.fail(&e))?;
    let command = MarkDone {
        id,
        by: ctx.user.account.id,
        by_name: ctx.user.account.display_name.clone(),
        note: note_text(input.note),
    };
    ctx.state.send(command).await.map_err(|e| ctx.fail(&e))?;
    Ok(see_other(&format!("{}?done={id}", paths::MAINTENANCE)))
}

/// A time the task was done, as its page shows it.
struct DoneRow {
    when: String,
    by: String,
    note: String,
}

/// A print started while the blocking task was overdue, as its page shows it.
struct OverrideRow {
    when: String,
    print: String,
    reason: String,
}

#[derive(Template)]
#[template(path = "maintenance_task.html")]
struct TaskPage {
    chrome: Chrome,
    view: TaskView,
    /// The unit's i18n key and the count of the task's interval.
    every: (&'static str, u32),
    /// Where the current interval started, in the shop's time.
    since: String,
    /// Every time it was done, newest first.
    done: Vec<DoneRow>,
    /// Every override of its block, newest first.
    overrides: Vec<OverrideRow>,
    changes: Vec<ChangeRow>,
}

impl TaskPage {
    fn state_key(&self) -> &'static str {
        state_key(self.view.state)
    }

    fn state_class(&self) -> &'static str {
        state_class(self.view.state)
    }
}

/// `GET /maintenance/{id}`: task `{id}`'s page. Errors: the 404 page for an unknown task.
pub async fn task(ctx: Ctx) -> Page {
    let id = ctx.id()?;
    let view = ctx.query(GetTask(id)).await?;
    let changes = changes::of(&ctx, id).await?;
    let t = &ctx.chrome.t;
    let done = view
        .task
        .done
        .iter()
        .rev()
        .map(|d| DoneRow {
            when: t.datetime(&wire::ts(d.mark.at)),
            by: d.by_name.clone(),
            note: d.note.clone().unwrap_or_default(),
        })
        .collect();
    let overrides = view
        .task
        .overrides
        .iter()
        .rev()
        .map(|o| OverrideRow {
            when: t.datetime(&wire::ts(o.at)),
            print: o.print_id.to_string(),
            reason: o.reason.clone(),
        })
        .collect();
    let page = TaskPage {
        every: every(&view.task.every),
        since: t.datetime(&wire::ts(view.task.since.at)),
        done,
        overrides,
        changes,
        view,
        chrome: ctx.chrome,
    };
    Ok(html(StatusCode::OK, page.render()))
}
