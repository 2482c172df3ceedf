//! `GET /api/backup`: a consistent copy of the whole store, as a download; `/api/backups`: the
//! nightly backups (their schedule, the files kept, one now, a kept one as a download).

use crate::error::{ApiError, Code, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire;
use actix_web::body::SizedStream;
use actix_web::web::{self, Bytes, Data, Json};
use actix_web::{HttpRequest, HttpResponse, get, post, put};
use actors::backup::nightly::{self, BackupFile, ReadPlan, ScheduleInput, SetSchedule};
use actors::backup::{RecordBackup, TakeBackup, stamp};
use deserr::Deserr;
use serde::Serialize;
use std::fs::File;
use std::io::Read;
use storage::Timestamp;
use storage::records::BackupSchedule;
use utoipa::ToSchema;

/// Registers the backup routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(backup)
        .add(get_backups)
        .add(put_schedule)
        .add(post_backup)
        .add(download);
}

/// Bytes read from the backup file per chunk of the response.
const CHUNK: usize = 64 * 1024;

/// A backup of the whole store (a redb file of this product's schema) as it was when the request
/// arrived: every write acknowledged before it, nothing half-written. Writers go on meanwhile;
/// the copy is made first (on the store's disk) and then streamed. Restore it with `printcost
/// restore FILE` while the service is stopped.
#[utoipa::path(
    tag = "settings",
    responses(
        (status = 200, description = "The store file; `Content-Disposition: attachment; filename=\"printcost-YYYYMMDD-HHMMSS.redb\"` (UTC), `Cache-Control: no-store`",
            content_type = "application/octet-stream", body = Vec<u8>),
        (status = 401, body = ErrorBody),
        (status = 503, description = "DATABASE_UNAVAILABLE: the store cannot be read or the copy written", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/backup")]
pub async fn backup(state: Data<AppState>, _user: CurrentUser) -> Result<HttpResponse, ApiError> {
    let at = Timestamp::now();
    let dir = state.store.dir().unwrap_or_else(std::env::temp_dir);
    let file = state.query(TakeBackup { dir }).await?;
    let len = file.metadata().map_err(storage::Error::from)?.len();
    state.send(RecordBackup { at }).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/octet-stream")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"printcost-{}.redb\"", stamp(at)),
        ))
        .body(SizedStream::new(len, chunks(file))))
}

/// The file's contents in chunks, each read on the blocking pool.
fn chunks(file: File) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + 'static {
    futures_util::stream::unfold(Some(file), |file| async move {
        let mut file = file?;
        let read = actix_web::web::block(move || {
            let mut buf = vec![0; CHUNK];
            let n = file.read(&mut buf)?;
            buf.truncate(n);
            Ok::<_, std::io::Error>((file, buf))
        })
        .await
        .map_err(std::io::Error::other)
        .and_then(|r| r);
        match read {
            Ok((_, buf)) if buf.is_empty() => None,
            Ok((file, buf)) => Some((Ok(Bytes::from(buf)), Some(file))),
            Err(e) => Some((Err(e), None)),
        }
    })
}

/// The nightly backup's schedule.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    /// Whether the nightly backup runs.
    pub enabled: bool,
    /// When it runs, `HH:MM` (24-hour) in the instance time zone.
    #[schema(example = "03:00")]
    pub time: String,
    /// The folder set, or null for `backups` beside the data.
    pub folder: Option<String>,
    /// The folder the backups go to (the set one or the default), absolute.
    pub effective_folder: String,
    /// Days for which the newest backup of each day is kept (today counts as one).
    pub keep_days: u16,
    /// ISO weeks for which the newest backup of each week is kept (this one counts as one).
    pub keep_weeks: u16,
}

impl Schedule {
    fn of(state: &AppState, s: BackupSchedule) -> Schedule {
        let folder = state.backups.folder(&s);
        Schedule {
            enabled: s.enabled,
            time: nightly::format_time(s.minute_of_day),
            effective_folder: std::path::absolute(&folder)
                .unwrap_or(folder)
                .display()
                .to_string(),
            folder: s.folder,
            keep_days: s.keep_days,
            keep_weeks: s.keep_weeks,
        }
    }
}

/// A kept backup.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupFileBody {
    /// File name, `printcost-YYYYMMDD-HHMMSS.redb` (UTC); `GET /api/backups/{name}` downloads it.
    pub name: String,
    /// Size in bytes.
    pub size_bytes: u64,
    /// When its snapshot was taken.
    pub taken_at: String,
}

impl From<BackupFile> for BackupFileBody {
    fn from(f: BackupFile) -> Self {
        BackupFileBody {
            name: f.name,
            size_bytes: f.bytes,
            taken_at: wire::ts(f.taken_at),
        }
    }
}

/// The last run since the service started.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastRunBody {
    /// When it ran.
    pub at: String,
    /// Whether a checked backup was written.
    pub ok: bool,
    /// The file written, when ok.
    pub file: Option<String>,
    /// Why none was (the folder and the cause), when not ok.
    pub error: Option<String>,
}

/// The nightly backups: schedule, last run, kept files newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Backups {
    /// The schedule.
    pub schedule: Schedule,
    /// The last run since the service started (scheduled or `POST /api/backups`), if any.
    pub last_run: Option<LastRunBody>,
    /// The backups in the folder, newest first.
    pub files: Vec<BackupFileBody>,
}

/// A new schedule (full replacement).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SchedulePut {
    /// Whether the nightly backup runs.
    pub enabled: bool,
    /// `HH:MM`, 24-hour, instance time zone (`errors.invalidTime`).
    #[schema(example = "03:00", pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub time: String,
    /// An absolute folder this service can create and write (`errors.notAbsolute`,
    /// `errors.folderNotWritable`); null or empty for `backups` beside the data.
    #[deserr(default)]
    pub folder: Option<String>,
    /// Days kept, 1–366.
    #[schema(example = 7, minimum = 1, maximum = 366)]
    pub keep_days: u32,
    /// Weeks kept, 0–260.
    #[schema(example = 4, maximum = 260)]
    pub keep_weeks: u32,
}

/// The backups in the schedule's folder, newest first.
fn files(state: &AppState, schedule: &BackupSchedule) -> Result<Vec<BackupFileBody>, ApiError> {
    let folder = state.backups.folder(schedule);
    let files = nightly::list(&folder).map_err(|e| {
        ApiError::new(Code::DatabaseUnavailable).with_message(format!(
            "The backup folder {} cannot be read: {e}.",
            folder.display()
        ))
    })?;
    Ok(files.into_iter().map(Into::into).collect())
}

/// The nightly backups: schedule, last run and the files kept.
#[utoipa::path(
    tag = "settings",
    responses(
        (status = 200, body = Backups),
        (status = 401, body = ErrorBody),
        (status = 503, description = "DATABASE_UNAVAILABLE: the store or the backup folder cannot be read", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/backups")]
pub async fn get_backups(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Backups>, ApiError> {
    let schedule = state.query(ReadPlan).await?.schedule;
    let last_run = state.backups.last_run().map(|r| LastRunBody {
        at: wire::ts(r.at),
        ok: r.result.is_ok(),
        file: r.result.as_ref().ok().cloned(),
        error: r.result.err(),
    });
    Ok(Json(Backups {
        files: files(&state, &schedule)?,
        schedule: Schedule::of(&state, schedule),
        last_run,
    }))
}

/// Replaces the nightly backup's schedule. The folder is created and written to once (a probe
/// file, removed) before it is accepted.
#[utoipa::path(
    tag = "settings",
    request_body = SchedulePut,
    responses(
        (status = 200, body = Schedule),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED: `time`, `folder`, `keepDays`, `keepWeeks`", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[put("/backups/schedule")]
pub async fn put_schedule(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<SchedulePut>,
) -> Result<Json<Schedule>, ApiError> {
    Ok(Json(put_schedule_of(&state, input.0).await?))
}

/// Validates `input` (its folder on the blocking pool) and stores it; the stored schedule.
///
/// Errors: 422 for the fields at fault, 503 when the store cannot be written.
pub async fn put_schedule_of(state: &AppState, input: SchedulePut) -> Result<Schedule, ApiError> {
    let input = ScheduleInput {
        enabled: input.enabled,
        time: input.time,
        folder: input.folder,
        keep_days: input.keep_days,
        keep_weeks: input.keep_weeks,
    };
    let schedule = web::block(move || input.validate())
        .await
        .map_err(|_| ApiError::new(Code::Internal))??;
    let stored = state.send(SetSchedule(schedule)).await?;
    Ok(Schedule::of(state, stored))
}

/// Writes a backup to the schedule's folder now, checks it by opening it, and rotates the
/// folder as the nightly run does.
#[utoipa::path(
    tag = "settings",
    responses(
        (status = 201, body = BackupFileBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 503, description = "DATABASE_UNAVAILABLE: the backup could not be written or its check failed (the message names the folder and the cause)", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/backups")]
pub async fn post_backup(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<HttpResponse, ApiError> {
    let schedule = state.query(ReadPlan).await?.schedule;
    let backups = state.backups.clone();
    let run = web::block(move || backups.run(Timestamp::now(), &schedule))
        .await
        .map_err(|_| ApiError::new(Code::Internal))?
        .map_err(|e| {
            tracing::error!(error = %e, "backup failed");
            ApiError::new(Code::DatabaseUnavailable)
                .with_message(format!("The backup failed: {e}."))
        })?;
    Ok(HttpResponse::Created().json(BackupFileBody::from(run.file)))
}

/// A kept backup, as a download.
#[utoipa::path(
    tag = "settings",
    params(("name" = String, Path, description = "`printcost-YYYYMMDD-HHMMSS.redb`")),
    responses(
        (status = 200, description = "The backup file, `Content-Disposition: attachment`", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 401, body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no kept backup of that name", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/backups/{name}")]
pub async fn download(
    state: Data<AppState>,
    _user: CurrentUser,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let name = request
        .match_info()
        .get("name")
        .unwrap_or_default()
        .to_owned();
    // Only names of the pattern: nothing else of the folder (or beyond it) is served.
    if nightly::taken_at(&name).is_none() {
        return Err(ApiError::new(Code::NotFound));
    }
    let folder = state.backups.folder(&state.query(ReadPlan).await?.schedule);
    let file = web::block(move || File::open(folder.join(&name)).ok().map(|f| (f, name)))
        .await
        .map_err(|_| ApiError::new(Code::Internal))?;
    let Some((file, name)) = file else {
        return Err(ApiError::new(Code::NotFound));
    };
    let len = file.metadata().map_err(storage::Error::from)?.len();
    Ok(HttpResponse::Ok()
        .content_type("application/octet-stream")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{name}\""),
        ))
        .body(SizedStream::new(len, chunks(file))))
}
