//! Settings › Journal (owners): every change to the shop, newest first, filtered by record,
//! account, kind of record and days in the shop's time zone, paged; the range's export links;
//! the chain's check on demand (`?verify=1`). The entries come from the journal's one read path
//! (`actors::journal`); what each shows is worded as on a record's own page ([`super::changes`]).

use super::changes::{FieldRow, change_key, field, who};
use super::page::{Chrome, Ctx, Page, html};
use crate::error::ApiError;
use crate::input::Faults;
use crate::input::Refusal;
use crate::input::query::{self, Params};
use actix_web::http::StatusCode;
use actors::journal::{JournalPage, NamedPage, VerifyJournal};
use askama::Template;
use deserr::Deserr;
use jiff::civil::Date;
use storage::Id;
use storage::journal::{Filter, Stored, Verdict};
use utoipa::IntoParams;

/// Entries per page.
const PAGE_SIZE: u32 = 50;

/// The page's query: its filters (blank ones ignored) and page.
#[derive(Debug, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
struct PageParams {
    /// A record's id, as the journal names it.
    #[deserr(default)]
    record: Option<String>,
    /// An account's id.
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    #[param(value_type = Option<String>)]
    account: Option<Id>,
    /// A kind of record (`spools`, `prints`, …).
    #[deserr(default)]
    kind: Option<String>,
    /// The first day, in the shop's time zone.
    #[deserr(default, try_from(&String) = query::date -> Refusal)]
    #[param(value_type = Option<String>)]
    from: Option<Date>,
    /// The last day, in the shop's time zone (included).
    #[deserr(default, try_from(&String) = query::date -> Refusal)]
    #[param(value_type = Option<String>)]
    to: Option<Date>,
    /// One-based page number.
    #[deserr(default, try_from(&String) = query::number::<1, { i32::MAX as u32 }> -> Refusal)]
    page: Option<u32>,
    /// Check the chain too.
    #[deserr(default, try_from(&String) = query::flag -> Refusal)]
    verify: Option<bool>,
}

impl Params for PageParams {}

/// A record an entry touched, as shown.
struct TouchedRow {
    kind: String,
    id: String,
    change: String,
    fields: Vec<FieldRow>,
}

/// An entry, as shown.
struct EntryRow {
    seq: u64,
    when: String,
    who: String,
    command: String,
    records: Vec<TouchedRow>,
}

#[derive(Template)]
#[template(path = "journal.html")]
struct JournalPageView {
    chrome: Chrome,
    /// The filters as given (the form keeps them).
    record: String,
    account: String,
    kind: String,
    from: String,
    to: String,
    /// Every account, by name, for the filter.
    accounts: Vec<(String, String)>,
    rows: Vec<EntryRow>,
    total: u64,
    page: u32,
    pages: u32,
    /// The filters as a query string (for the pager and the export).
    query: String,
    /// The range as the export takes it (`since=…&until=…`).
    range: String,
    /// The chain's check, when asked: whether it holds, and what it found in words.
    verdict: Option<(bool, String)>,
}

/// Midnight at the start of `day` in the shop's time zone.
fn start_of(ctx: &Ctx, day: Date, field: &str) -> Result<jiff::Timestamp, ApiError> {
    day.to_zoned(ctx.state.index.time_zone().clone())
        .map(|z| z.timestamp())
        .map_err(|_| ApiError::field(field, "errors.invalidDate"))
}

/// `GET /settings/journal`: a page of the journal. Errors: 422 for a filter that is not valid.
pub async fn show(ctx: Ctx) -> Page {
    let params =
        query::parse_form::<PageParams>(ctx.req.query_string()).map_err(|e| ctx.fail(&e))?;
    let since = params.from.map(|d| start_of(&ctx, d, "from")).transpose();
    let until = match params.to.map(|d| d.tomorrow()) {
        Some(Ok(next)) => Some(start_of(&ctx, next, "to")).transpose(),
        Some(Err(_)) => Err(ApiError::field("to", "errors.invalidDate")),
        None => Ok(None),
    };
    let (since, until) = match (since, until) {
        (Ok(since), Ok(until)) => (since, until),
        (Err(e), _) | (_, Err(e)) => return Err(ctx.fail(&e)),
    };
    let page = params.page.unwrap_or(1);
    let filter = Filter {
        record: params.record.clone(),
        account: params.account,
        kind: params.kind.clone(),
        since,
        until,
    };
    let (found, names) = ctx
        .query(NamedPage(JournalPage {
            filter,
            page,
            page_size: PAGE_SIZE,
        }))
        .await?;
    let verdict = match params.verify {
        Some(true) => Some(ctx.query(VerifyJournal).await?),
        _ => None,
    };
    let t = &ctx.chrome.t;
    let verdict = verdict.map(|v| match v {
        Verdict::Intact { entries, head } => {
            let entries = entries.to_string();
            let values = [("entries", entries.as_str()), ("head", head.as_str())];
            (true, t.lang.fill("journal.intact", &values))
        }
        Verdict::Broken { seq, reason } => {
            let seq = seq.to_string();
            let values = [("seq", seq.as_str()), ("reason", reason.as_str())];
            (false, t.lang.fill("journal.broken", &values))
        }
    });
    let rows = found
        .items
        .iter()
        .map(|stored: &Stored| {
            let entry = &stored.entry;
            EntryRow {
                seq: entry.seq,
                when: t.datetime(&entry.at),
                who: who(t, &entry.who, &names),
                command: entry.command.clone(),
                records: entry
                    .records
                    .iter()
                    .map(|r| TouchedRow {
                        kind: r.kind.clone(),
                        id: r.id.clone(),
                        change: t.t(change_key(r.change)).to_string(),
                        fields: r.fields.iter().map(|f| field(t, f)).collect(),
                    })
                    .collect(),
            }
        })
        .collect();
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let day = |d: Option<Date>| d.map(|d| d.to_string()).unwrap_or_default();
    let (account, from, to) = (
        params.account.map(|a| a.to_string()).unwrap_or_default(),
        day(params.from),
        day(params.to),
    );
    let query = serde_urlencoded::to_string([
        ("record", text(&params.record)),
        ("account", account.clone()),
        ("kind", text(&params.kind)),
        ("from", from.clone()),
        ("to", to.clone()),
    ])
    .unwrap_or_default();
    let range = serde_urlencoded::to_string(
        [("since", since), ("until", until)]
            .into_iter()
            .filter_map(|(name, at)| at.map(|at| (name, at.to_string())))
            .collect::<Vec<_>>(),
    )
    .unwrap_or_default();
    let mut accounts: Vec<(String, String)> = names
        .into_iter()
        .map(|(id, name)| (id.to_string(), name))
        .collect();
    accounts.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let view = JournalPageView {
        record: text(&params.record),
        kind: text(&params.kind),
        account,
        from,
        to,
        accounts,
        rows,
        total: found.total,
        page,
        pages: u32::try_from(found.total.div_ceil(u64::from(PAGE_SIZE))).unwrap_or(u32::MAX),
        query,
        range,
        verdict,
        chrome: ctx.chrome,
    };
    Ok(html(StatusCode::OK, view.render()))
}
