//! Settings › Backup: download a backup now, the nightly backup's schedule and the backups it
//! kept (each a download), its last run, and how to restore one on the box.

use super::Chrome;
use super::forms::{Faults, Submitted};
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use crate::api::backup::{SchedulePut, put_schedule_of};
use crate::error::{ApiError, Code, Rendered};
use crate::input;
use crate::wire;
use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes};
use actors::backup::LastBackup;
use actors::backup::nightly::{self, BackupFile, LastRun, ReadPlan};
use askama::Template;
use storage::Timestamp;

#[derive(Template)]
#[template(path = "backup.html")]
struct BackupPage {
    chrome: Chrome,
    /// ISO 8601 of the last download, if any.
    last: Option<String>,
    /// The store's directory as the restore command needs it.
    data_dir: String,
    /// The schedule form, as stored or as submitted.
    form: Submitted,
    faults: Faults,
    /// The folder the backups go to.
    folder: String,
    /// The kept backups, newest first.
    files: Vec<BackupFile>,
    /// The last nightly (or manual) run since start.
    last_run: Option<LastRun>,
    /// `?saved` after a save.
    saved: bool,
}

impl BackupPage {
    /// `at` as ISO 8601.
    fn ts(&self, at: &Timestamp) -> String {
        wire::ts(*at)
    }

    /// `bytes` in megabytes, one decimal, in the user's locale.
    fn megabytes(&self, bytes: &u64) -> String {
        let tenths = bytes.div_ceil(100_000);
        self.chrome
            .t
            .number(rust_decimal::Decimal::new(tenths as i64, 1), 1)
    }
}

/// Renders the backup page.
pub async fn show(ctx: Ctx) -> Page {
    let schedule = ctx.query(ReadPlan).await?.schedule;
    let mut form = Submitted::default();
    form.set("time", nightly::format_time(schedule.minute_of_day));
    form.set("folder", schedule.folder.unwrap_or_default());
    form.set("keepDays", schedule.keep_days.to_string());
    form.set("keepWeeks", schedule.keep_weeks.to_string());
    if schedule.enabled {
        form.set("enabled", "on");
    }
    let saved = ctx.flagged("saved");
    render(ctx, form, Faults::default(), saved, StatusCode::OK).await
}

/// Saves the schedule (the form posts to the page's own path, so a refused form reloads).
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let mut tree = form.tree(&["keepDays", "keepWeeks"]);
    tree["enabled"] = serde_json::Value::Bool(form.checked("enabled"));
    let saved = match ctx.typed(|| input::parse::<SchedulePut>(tree)) {
        Ok(input) => put_schedule_of(&ctx.state, input).await,
        Err(e) => Err(e),
    };
    match saved {
        Ok(_) => Ok(see_other(&format!("{}?saved", paths::SETTINGS_BACKUP))),
        Err(e) => render(ctx, form, Faults::of(&e), false, e.code.status()).await,
    }
}

/// Writes a backup to the folder now; the page shows the run's result.
pub async fn now(ctx: Ctx) -> Page {
    let schedule = ctx.query(ReadPlan).await?.schedule;
    let _ = blocking(&ctx, move |b| Ok(b.run(Timestamp::now(), &schedule))).await?;
    Ok(see_other(paths::SETTINGS_BACKUP))
}

/// Runs `read` with the backups' handle on the blocking pool.
async fn blocking<R: Send + 'static>(
    ctx: &Ctx,
    read: impl FnOnce(&nightly::Backups) -> Result<R, ApiError> + Send + 'static,
) -> Result<R, Rendered> {
    let backups = ctx.state.backups.clone();
    web::block(move || read(&backups))
        .await
        .map_err(|_| ApiError::new(Code::Internal))
        .and_then(|r| r)
        .map_err(|e| ctx.fail(&e))
}

async fn render(
    ctx: Ctx,
    form: Submitted,
    faults: Faults,
    saved: bool,
    status: StatusCode,
) -> Page {
    let last = ctx.query(LastBackup).await?.map(wire::ts);
    let schedule = ctx.query(ReadPlan).await?.schedule;
    let (folder, files) = blocking(&ctx, move |b| {
        let folder = b.folder(&schedule);
        let files = nightly::list(&folder).unwrap_or_default();
        Ok((std::path::absolute(&folder).unwrap_or(folder), files))
    })
    .await?;
    let data_dir = ctx
        .state
        .store
        .dir()
        .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
        .map_or_else(String::new, |d| d.display().to_string());
    let page = BackupPage {
        last_run: ctx.state.backups.last_run(),
        chrome: ctx.chrome,
        last,
        data_dir,
        form,
        faults,
        folder: folder.display().to_string(),
        files,
        saved,
    };
    Ok(html(status, page.render()))
}
