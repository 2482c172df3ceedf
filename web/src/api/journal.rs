//! `/api/journal`: the record of every change (`storage::journal`), newest first and filtered,
//! and its export for a tax auditor (JSON or CSV, with the chain's head).

use super::ListResponse;
use super::prints::export::{Separator, text, write};
use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictQuery;
use crate::input::Faults;
use crate::input::Refusal;
use crate::input::query::{self, Params};
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::http::header::AUTHORIZATION;
use actix_web::web::{Data, Json};
use actix_web::{FromRequest, HttpRequest, HttpResponse, get};
use actors::accounts::token_hash;
use actors::journal::{JournalExport, JournalPage, VerifyJournal};
use deserr::Deserr;
use serde::Serialize;
use storage::Id;
use storage::journal::{Change, Filter, Stored, Verdict, Who};
use utoipa::{IntoParams, ToSchema};

/// Registers the journal's page (every role reads it).
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(list);
}

/// Registers the journal's export and check (owners).
pub fn configure_export(cfg: &mut impl routes::Routes) {
    cfg.add(export).add(verify);
}

/// Who made a change: exactly one of the two members.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WhoDto {
    /// The account's id (UUID), when an account made it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// The part of the appliance that made it on its own (`spoolman`, `bambuddy`, `scheduler`,
    /// `meters`, `alerts`, `cli`, `web` for a request without a session).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
}

/// A field that changed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldDto {
    /// Its path in the record's stored form, members and list indexes joined by dots.
    pub path: String,
    /// The value before (absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<serde_json::Value>,
    /// The value after (absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<serde_json::Value>,
    /// True for a secret (a password hash, a token, a credential): only that it changed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
}

/// How a touched record changed.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ChangeName {
    /// It is new.
    Created,
    /// It has other values.
    Changed,
    /// It is gone.
    Deleted,
}

/// A record a command touched.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TouchedDto {
    /// Its kind (`spools`, `movements`, `prints`, `customers`, `pricing`, …).
    pub kind: String,
    /// Its id (a UUID, or the name of a single row such as `pricing`).
    pub id: String,
    /// How it changed.
    pub change: ChangeName,
    /// The fields that changed.
    pub fields: Vec<FieldDto>,
}

/// One entry of the journal.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntryDto {
    /// Its number (1, 2, …, no gaps).
    pub seq: u64,
    /// When, UTC (RFC 3339, milliseconds).
    pub at: String,
    /// When, in the shop's time zone (RFC 3339 with its offset).
    pub local: String,
    /// Who.
    pub who: WhoDto,
    /// The command's name (`BookMovement`, `CreateRecord<Customer>`).
    pub command: String,
    /// The records it touched.
    pub records: Vec<TouchedDto>,
    /// SHA-256 of the entry before it (hex; 64 zeros for the first).
    pub prev: String,
    /// SHA-256 of this entry's `canonical` text (hex).
    pub hash: String,
}

impl From<Stored> for JournalEntryDto {
    fn from(stored: Stored) -> Self {
        let entry = stored.entry;
        let who = match entry.who {
            Who::Account(id) => WhoDto {
                account: Some(id.to_string()),
                system: None,
            },
            Who::System(name) => WhoDto {
                account: None,
                system: Some(name),
            },
        };
        let records = entry
            .records
            .into_iter()
            .map(|r| TouchedDto {
                kind: r.kind,
                id: r.id,
                change: match r.change {
                    Change::Created => ChangeName::Created,
                    Change::Changed => ChangeName::Changed,
                    Change::Deleted => ChangeName::Deleted,
                },
                fields: r
                    .fields
                    .into_iter()
                    .map(|f| FieldDto {
                        path: f.path,
                        before: f.before,
                        after: f.after,
                        secret: f.secret,
                    })
                    .collect(),
            })
            .collect();
        JournalEntryDto {
            seq: entry.seq,
            at: entry.at,
            local: entry.local,
            who,
            command: entry.command,
            records,
            prev: entry.prev,
            hash: stored.hash,
        }
    }
}

/// The journal's filters and page.
#[derive(Debug, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct JournalParams {
    /// Only entries that touched this record (its id as the entries name it: a UUID, or a
    /// single row's name such as `pricing`).
    #[deserr(default)]
    pub record: Option<String>,
    /// Only entries an account made (its UUID).
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    #[param(value_type = Option<String>, format = Uuid)]
    pub account: Option<Id>,
    /// Only entries that touched a record of this kind (`spools`, `prints`, …).
    #[deserr(default)]
    pub kind: Option<String>,
    /// One-based page number (default 1).
    #[param(minimum = 1, maximum = 2147483647)]
    #[deserr(default, try_from(&String) = query::number::<1, { i32::MAX as u32 }> -> Refusal)]
    pub page: Option<u32>,
    /// Entries per page, 1 to 100 (default 25).
    #[param(minimum = 1, maximum = 100)]
    #[deserr(default, try_from(&String) = query::number::<1, 100> -> Refusal)]
    pub page_size: Option<u32>,
}

impl Params for JournalParams {}

/// A page of the journal, newest first, filtered by record, account, kind and time.
#[utoipa::path(tag = "journal", params(JournalParams, TimeRange), responses((status = 200, body = ListResponse<JournalEntryDto>), (status = 401, body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: an invalid filter, page or pageSize", body = ErrorBody)), security(("session" = [])))]
#[get("/journal")]
pub async fn list(
    state: Data<AppState>,
    _user: CurrentUser,
    params: StrictQuery<(JournalParams, TimeRange)>,
) -> Result<Json<ListResponse<JournalEntryDto>>, ApiError> {
    let (p, range) = params.0;
    let query = JournalPage {
        filter: Filter {
            record: p.record,
            account: p.account,
            kind: p.kind,
            since: range.since,
            until: range.until,
        },
        page: p.page.unwrap_or(1),
        page_size: p.page_size.unwrap_or(25),
    };
    let page = state.query(query).await?;
    Ok(Json(ListResponse::of(page, JournalEntryDto::from)))
}

/// The export's format.
#[derive(Debug, Clone, Copy, Default, Deserr, ToSchema)]
#[deserr(rename_all = lowercase)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// `{ "head": …, "entries": [ … ] }`, each entry with its canonical text.
    #[default]
    Json,
    /// One row per entry, CSV (`,`, every cell quoted), the head in `X-Journal-Head`.
    Csv,
}

/// The time range of a page or an export: entries at or after `since` and before `until`.
#[derive(Debug, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct TimeRange {
    /// Only entries at or after this instant (RFC 3339; default: from the first).
    #[deserr(default, try_from(&String) = query::instant -> Refusal)]
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<jiff::Timestamp>,
    /// Only entries before this instant (RFC 3339; default: up to the last).
    #[deserr(default, try_from(&String) = query::instant -> Refusal)]
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<jiff::Timestamp>,
}

impl Params for TimeRange {}

/// The export's own parameter.
#[derive(Debug, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ExportParams {
    /// `json` (default) or `csv`.
    #[deserr(default)]
    #[param(value_type = Option<ExportFormat>)]
    pub format: Option<ExportFormat>,
}

impl Params for ExportParams {}

/// The chain's head when the export was taken.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeadDto {
    /// The number of the journal's last entry (0: empty).
    pub seq: u64,
    /// Its SHA-256 (hex; 64 zeros while empty).
    pub hash: String,
}

/// An exported entry: the entry, and the exact text its hash is taken over.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportedEntry {
    /// The entry.
    #[serde(flatten)]
    pub entry: JournalEntryDto,
    /// Its canonical encoding (compact JSON, members in the order stored): SHA-256 of its
    /// UTF-8 bytes is `hash`.
    pub canonical: String,
}

/// The export of a time range.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JournalExportDto {
    /// The chain's head.
    pub head: HeadDto,
    /// The entries of the range, oldest first.
    pub entries: Vec<ExportedEntry>,
}

/// The CSV export's columns.
const COLUMNS: [&str; 9] = [
    "seq",
    "at",
    "local",
    "who",
    "command",
    "records",
    "prev",
    "hash",
    "canonical",
];

/// The journal of a time range for a tax auditor, oldest first, with the chain's head: JSON
/// (default) or CSV (the head in `X-Journal-Head: <seq> <hash>`).
#[utoipa::path(tag = "journal", params(TimeRange, ExportParams), responses((status = 200, description = "JSON, or CSV with `X-Journal-Head`; `Cache-Control: no-store`", content((JournalExportDto = "application/json"), (String = "text/csv"))), (status = 401, body = ErrorBody), (status = 422, description = "VALIDATION_FAILED: an invalid since, until or format", body = ErrorBody)), security(("session" = [])))]
#[get("/journal/export")]
pub async fn export(
    state: Data<AppState>,
    _user: CurrentUser,
    params: StrictQuery<(TimeRange, ExportParams)>,
) -> Result<HttpResponse, ApiError> {
    let (range, p) = params.0;
    let exported = state
        .query(JournalExport {
            since: range.since,
            until: range.until,
        })
        .await?;
    let head = format!("{} {}", exported.head_seq, exported.head_hash);
    let name = format!("journal-{}", exported.head_seq);
    match p.format.unwrap_or_default() {
        ExportFormat::Json => {
            let body = JournalExportDto {
                head: HeadDto {
                    seq: exported.head_seq,
                    hash: exported.head_hash,
                },
                entries: exported
                    .entries
                    .into_iter()
                    .map(|s| ExportedEntry {
                        canonical: s.canonical.clone(),
                        entry: JournalEntryDto::from(s),
                    })
                    .collect(),
            };
            Ok(HttpResponse::Ok()
                .insert_header(("Cache-Control", "no-store"))
                .insert_header(("X-Journal-Head", head))
                .insert_header((
                    "Content-Disposition",
                    format!("attachment; filename=\"{name}.json\""),
                ))
                .json(body))
        }
        ExportFormat::Csv => {
            let rows: Vec<Vec<String>> = exported.entries.into_iter().map(csv_row).collect();
            Ok(HttpResponse::Ok()
                .content_type("text/csv; charset=utf-8")
                .insert_header(("Cache-Control", "no-store"))
                .insert_header(("X-Journal-Head", head))
                .insert_header((
                    "Content-Disposition",
                    format!("attachment; filename=\"{name}.csv\""),
                ))
                .body(write(&COLUMNS, &rows, Separator::Comma)?))
        }
    }
}

fn csv_row(stored: Stored) -> Vec<String> {
    let canonical = stored.canonical.clone();
    let entry = JournalEntryDto::from(stored);
    let who = match (&entry.who.account, &entry.who.system) {
        (Some(account), _) => format!("account:{account}"),
        (_, Some(system)) => format!("system:{system}"),
        _ => String::new(),
    };
    let records = serde_json::to_string(&entry.records).unwrap_or_default();
    vec![
        entry.seq.to_string(),
        entry.at,
        entry.local,
        who,
        text(&entry.command),
        text(&records),
        entry.prev,
        entry.hash,
        text(&canonical),
    ]
}

/// What the chain's check found.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerdictDto {
    /// True when every entry is whole and linked, and the last one is the head.
    pub intact: bool,
    /// How many entries were checked (all of them when intact).
    pub entries: u64,
    /// The head's hash (hex), when intact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The first broken entry's number, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broken_seq: Option<u64>,
    /// What is wrong with it (English), when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl From<Verdict> for VerdictDto {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Intact { entries, head } => VerdictDto {
                intact: true,
                entries,
                head: Some(head),
                broken_seq: None,
                reason: None,
            },
            Verdict::Broken { seq, reason } => VerdictDto {
                intact: false,
                entries: seq.saturating_sub(1),
                head: None,
                broken_seq: Some(seq),
                reason: Some(reason),
            },
        }
    }
}

/// True when the request presents this run's control token (`Authorization: Bearer`).
fn presents_control_token(state: &AppState, request: &HttpRequest) -> bool {
    let presented = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    matches!(
        (presented, state.config.control_token_hash),
        (Some(token), Some(hash)) if token_hash(token) == hash
    )
}

/// Checks the whole chain (`printcost journal verify` asks this while the service runs): every
/// entry whole, numbered in turn and linked to the one before, the last one the head; names the
/// first broken entry. An owner's session, or the control token of `control.json` in the data
/// folder.
#[utoipa::path(tag = "journal", responses((status = 200, body = VerdictDto), (status = 401, body = ErrorBody)), security(("session" = []), ("controlToken" = [])))]
#[get("/journal/verify")]
pub async fn verify(
    state: Data<AppState>,
    request: HttpRequest,
) -> Result<Json<VerdictDto>, ApiError> {
    if !presents_control_token(&state, &request) {
        CurrentUser::extract(&request).await?;
    }
    Ok(Json(state.query(VerifyJournal).await?.into()))
}
