//! Stock › Spoolman: the spool manager's version, its spools as the import preview shows them
//! (with an import form each), and the latest operations (with send and confirm buttons). A
//! spool's own page syncs and unlinks it. Every form posts the API's action document
//! (`action`, `data.…`), checked by the API's own input type.

use super::Chrome;
use super::format;
use super::forms::{Faults, Submitted};
use super::i18n;
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use super::peer_state::{Found, PeerState};
use super::spools;
use crate::api::spoolmgr;
use crate::api::spoolmgr::{
    ActionResult, ConflictDto, OperationDto, PreviewItemDto, SpoolmgrAction,
};
use crate::error::ApiError;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::integrations::settings::{GetIntegrations, Integration};
use actors::stock::GetSpool;
use askama::Template;

/// One remote spool of the preview, as the table shows it.
struct RemoteRow {
    id: u64,
    name: String,
    remaining: String,
    price: String,
    local_id: String,
    local_code: String,
    conflicts: Vec<&'static str>,
    importable: bool,
    hash: String,
}

/// One operation, as the table shows it.
struct OperationRow {
    id: String,
    spool_id: String,
    remote_id: u64,
    grams: String,
    state: String,
    error: String,
    date: String,
    sendable: bool,
    confirmable: bool,
}

#[derive(Template)]
#[template(path = "spoolmgr.html")]
struct SpoolmgrPage {
    chrome: Chrome,
    /// The message key of why there is no status (switched off), if so.
    unavailable: Option<&'static str>,
    /// Whether Spoolman answered, or why not (none while switched off).
    peer_state: Option<PeerState>,
    /// The message key of a later call's failure (the preview), if any.
    error: Option<&'static str>,
    remotes: Vec<RemoteRow>,
    page: u32,
    has_more: bool,
    operations: Vec<OperationRow>,
    faults: Faults,
    /// What the last action did, in words naming its spool ("SM-2 imported.").
    notice: Option<String>,
}

fn conflict_key(c: ConflictDto) -> &'static str {
    match c {
        ConflictDto::Archived => "spoolmgr.conflict.ARCHIVED",
        ConflictDto::MissingPricing => "spoolmgr.conflict.MISSING_PRICING",
        ConflictDto::UnknownBalance => "spoolmgr.conflict.UNKNOWN_BALANCE",
        ConflictDto::BalanceChanged => "spoolmgr.conflict.BALANCE_CHANGED",
    }
}

fn remote_row(t: &i18n::Tr, item: PreviewItemDto) -> RemoteRow {
    let r = item.remote;
    let vendor = r.filament.vendor.map(|v| v.name).unwrap_or_default();
    let filament = r.filament.name.unwrap_or_default();
    let material = r.filament.material.unwrap_or_default();
    let grams = |g: Option<String>| {
        g.map_or("–".into(), |g| {
            format!("{} {}", t.exact_str(&g), t.t("unit.g"))
        })
    };
    RemoteRow {
        id: r.id,
        name: [vendor, filament, material]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" · "),
        remaining: grams(r.remaining_weight),
        price: r
            .price
            .or(r.filament.price)
            .map_or("–".into(), |p| t.money_str(&p)),
        local_id: item.local_spool_id.unwrap_or_default(),
        local_code: item.local_code.unwrap_or_default(),
        importable: !item
            .conflicts
            .iter()
            .any(|c| matches!(c, ConflictDto::MissingPricing | ConflictDto::UnknownBalance)),
        conflicts: item.conflicts.into_iter().map(conflict_key).collect(),
        hash: item.preview_hash,
    }
}

fn operation_row(t: &i18n::Tr, op: OperationDto) -> OperationRow {
    let state = format::wire(&op.state);
    OperationRow {
        sendable: state == "PENDING",
        confirmable: state == "UNKNOWN" || state == "FAILED",
        state: t.t(&format!("spoolmgr.state.{state}")).to_string(),
        grams: format!("{} {}", t.exact_str(&op.grams), t.t("unit.g")),
        error: op.error.unwrap_or_default(),
        date: t.date(&op.created_at),
        id: op.id,
        spool_id: op.spool_id,
        remote_id: op.remote_id,
    }
}

impl SpoolmgrPage {
    /// Whether Spoolman's spools could be read (its tables say "nothing yet" only then).
    fn read(&self) -> bool {
        self.error.is_none() && self.peer_state.as_ref().is_some_and(|s| s.ok)
    }
}

async fn render(ctx: Ctx, faults: Faults, status: StatusCode) -> Page {
    let hub = ctx.state.spoolmgr.clone();
    let page_no = ctx
        .param("page")
        .parse::<u32>()
        .unwrap_or(1)
        .clamp(1, 10_000);
    let t = &ctx.chrome.t;
    let mut page = SpoolmgrPage {
        unavailable: None,
        peer_state: None,
        error: None,
        remotes: Vec::new(),
        page: page_no,
        has_more: false,
        operations: Vec::new(),
        faults,
        notice: None,
        chrome: ctx.chrome.clone(),
    };
    match hub.status().await.map_err(ApiError::from) {
        Ok(found) => {
            let url = peer_url(&ctx, Integration::Spoolmgr).await;
            let state = Found::of(found.version.as_ref(), found.failure.as_ref());
            page.peer_state = Some(PeerState::of(t, "spoolmgr", "Spoolman", &url, state));
            page.operations = found
                .operations
                .into_iter()
                .map(|op| operation_row(t, op.into()))
                .collect();
            if found.version.is_some() {
                match hub.preview(page_no).await.map_err(ApiError::from) {
                    Ok(preview) => {
                        page.has_more = preview.has_more;
                        let dto = spoolmgr::PreviewDto::from(preview);
                        page.remotes = dto.items.into_iter().map(|i| remote_row(t, i)).collect();
                    }
                    Err(e) => page.error = Some(e.code.message_key()),
                }
            }
        }
        Err(e) => page.unavailable = Some(e.code.message_key()),
    }
    page.notice = notice(&ctx, &page.operations).await;
    Ok(html(status, page.render()))
}

/// The message of `?imported=<spool>` or `?did=<SEND|CONFIRM_…>&operation=<id>` after an
/// action: "SM-2 imported.", "-12,5 g to Spoolman spool #2: sent."
async fn notice(ctx: &Ctx, operations: &[OperationRow]) -> Option<String> {
    let t = &ctx.chrome.t;
    if let Ok(id) = ctx.param("imported").parse() {
        let spool = ctx.state.query(GetSpool(id)).await.ok()?;
        return Some(format!("{} {}", spool.spool.code, t.t("spoolmgr.imported")));
    }
    let did = ctx.param("did");
    let key = match did.as_str() {
        "SEND" => "spoolmgr.sent",
        "CONFIRM_APPLIED" | "CONFIRM_NOT_APPLIED" => "spoolmgr.confirmed",
        _ => return None,
    };
    let operation = ctx.param("operation");
    let op = operations.iter().find(|o| o.id == operation)?;
    let target = t
        .t("spoolmgr.toRemote")
        .replace("{id}", &op.remote_id.to_string());
    Some(format!("{} {target}: {}", op.grams, t.t(key)))
}

/// The address in force for `integration` (the settings', else the default's); empty without.
pub(super) async fn peer_url(ctx: &Ctx, integration: Integration) -> String {
    let defaults = ctx.state.config.integrations.clone();
    let Ok(in_force) = ctx.state.query(GetIntegrations(defaults)).await else {
        return String::new();
    };
    let peer = match integration {
        Integration::Spoolmgr => in_force.spoolmgr,
        Integration::Printfleet => in_force.printfleet,
    };
    peer.url.map(|u| u.as_str().to_string()).unwrap_or_default()
}

/// `GET /stock/spoolmgr[?page=N]`.
pub async fn show(ctx: Ctx) -> Page {
    render(ctx, Faults::default(), StatusCode::OK).await
}

/// `POST /stock/spoolmgr`: one action document (`action`, `data.…`). IMPORT and OPERATION come
/// back to this page, SYNC and UNLINK to the spool's page; a refusal shows this page, or the
/// spool's, with the error.
pub async fn act(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let spool = form.get("data.spoolId").parse().ok();
    let result = match ctx.typed(|| form.document::<SpoolmgrAction>(&["data.remoteId"])) {
        Ok(action) => action.run(&ctx.state.spoolmgr).await,
        Err(e) => Err(e),
    };
    let did = match form.get("action") {
        "UNLINK" => "unlinked",
        _ => "synced",
    };
    match (result, spool) {
        (Ok(_), Some(id)) => Ok(see_other(&format!("{}?{did}", paths::spool(id)))),
        (Ok(ActionResult::Spool(imported)), None) => {
            let to = format!("{}?imported={}", paths::SPOOLMGR, imported.id);
            Ok(see_other(&to))
        }
        (Ok(_), None) => {
            let done = [
                ("did", form.get("data.action")),
                ("operation", form.get("data.operationId")),
            ];
            let query = serde_urlencoded::to_string(done).unwrap_or_default();
            Ok(see_other(&format!("{}?{query}", paths::SPOOLMGR)))
        }
        (Err(e), Some(id)) => spools::show_refused(ctx, id, &e).await,
        (Err(e), None) => {
            let status = e.code.status();
            render(ctx, Faults::of(&e), status).await
        }
    }
}
