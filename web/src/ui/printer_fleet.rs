//! Inventory › Printer › Printer fleet: link the printer to a Bambuddy printer, see its state
//! and trays, and map each tray to a spool (a mapping preselects that spool in new drafts for
//! this printer). Every form posts the API's action document (`action`, `data.…`).

use super::Chrome;
use super::forms::{Faults, Submitted};
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use super::peer_state::{Found, PeerState};
use super::spoolmgr;
use crate::api::printfleet::{FleetAction, FleetPrinterDto};
use crate::error::ApiError;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::integrations::settings::Integration;
use actors::inventory::ListQuery;
use actors::inventory::commands::GetRecord;
use actors::inventory::printers::Printers;
use actors::stock::{ListSpools, SpoolFilter};
use askama::Template;
use storage::records::MaterialKind;

/// A tray row: its slot, what the printer reports, and the spool mapped to it.
struct TrayRow {
    slot: String,
    loaded: String,
    spool_id: String,
    unavailable: bool,
}

#[derive(Template)]
#[template(path = "printer_fleet.html")]
struct PrinterFleetPage {
    chrome: Chrome,
    printer_id: String,
    /// The message key of why the fleet cannot be asked (switched off), if so.
    unavailable: Option<&'static str>,
    /// Whether Bambuddy answered, or why not.
    peer_state: Option<PeerState>,
    /// (remote id, name, selected).
    remotes: Vec<(u64, String, bool)>,
    linked: Option<FleetPrinterDto>,
    trays: Vec<TrayRow>,
    /// Active spools: (id, label).
    spools: Vec<(String, String)>,
    faults: Faults,
    /// What the last action did, naming the printer ("MK4S: linked to the Bambuddy printer.").
    notice: Option<String>,
}

async fn render(ctx: Ctx, faults: Faults, status: StatusCode) -> Page {
    let id = ctx.id()?;
    let fleet = ctx.state.printfleet.clone();
    let notice = match ctx.param("did").as_str() {
        "LINK_PRINTER" => Some("fleet.linked"),
        "SYNC_PRINTER" => Some("fleet.synced"),
        "MAP_TRAY" => Some("fleet.mapped"),
        _ => None,
    };
    let notice = match notice {
        Some(key) => {
            let printer = ctx.query(GetRecord::<Printers>::new(id)).await?;
            Some(format!("{}: {}", printer.printer.name, ctx.chrome.t.t(key)))
        }
        None => None,
    };
    let mut page = PrinterFleetPage {
        printer_id: id.to_string(),
        unavailable: None,
        peer_state: None,
        remotes: Vec::new(),
        linked: None,
        trays: Vec::new(),
        spools: Vec::new(),
        faults,
        notice,
        chrome: ctx.chrome.clone(),
    };
    match fleet.status().await.map_err(ApiError::from) {
        Ok(found) => {
            let url = spoolmgr::peer_url(&ctx, Integration::Printfleet).await;
            let state = Found::of(found.version.as_ref(), found.failure.as_ref());
            let t = &ctx.chrome.t;
            page.peer_state = Some(PeerState::of(t, "printfleet", "Bambuddy", &url, state));
            let linked = found.printers.into_iter().find(|p| p.printer.id == id);
            let remote = linked.as_ref().map(|l| l.link.remote_id);
            page.remotes = found
                .remote_printers
                .into_iter()
                .map(|r| (r.id, r.name, Some(r.id) == remote))
                .collect();
            page.linked = linked.map(FleetPrinterDto::from);
        }
        Err(e) => page.unavailable = Some(e.code.message_key()),
    }
    if let Some(linked) = &page.linked {
        page.trays = linked
            .trays
            .iter()
            .map(|t| TrayRow {
                slot: t.slot.clone(),
                loaded: [t.material.clone(), t.color.clone()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" · "),
                spool_id: t.spool_id.clone().unwrap_or_default(),
                unavailable: t.unavailable,
            })
            .collect();
        let all = ListQuery {
            page_size: 1000,
            ..ListQuery::default()
        };
        if let Ok(spools) = ctx
            .state
            .query(ListSpools {
                query: all,
                filter: SpoolFilter::default(),
            })
            .await
        {
            // A tray holds filament: a resin's bottle or a consumable's pack is not offered.
            page.spools = spools
                .items
                .into_iter()
                .filter(|v| v.kind == MaterialKind::Filament)
                .map(|v| {
                    (
                        v.spool.id.to_string(),
                        format!("{} · {}", v.spool.code, v.filament),
                    )
                })
                .collect();
        }
    }
    Ok(html(status, page.render()))
}

/// `GET /printers/{id}/fleet`.
pub async fn show(ctx: Ctx) -> Page {
    render(ctx, Faults::default(), StatusCode::OK).await
}

/// `POST /printers/{id}/fleet`: LINK_PRINTER, SYNC_PRINTER or MAP_TRAY as an action document;
/// back to this page, or this page with the refusal.
pub async fn act(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let mut form = Submitted::parse(&body);
    form.set("data.printerId", id.to_string());
    let result = match ctx.typed(|| form.document::<FleetAction>(&["data.remoteId"])) {
        Ok(action) => action.run(&ctx.state.printfleet).await.map(|_| ()),
        Err(e) => Err(e),
    };
    let did = serde_urlencoded::to_string([("did", form.get("action"))]).unwrap_or_default();
    match result {
        Ok(()) => Ok(see_other(&format!("{}?{did}", paths::printer_fleet(id)))),
        Err(e) => {
            let status = e.code.status();
            render(ctx, Faults::of(&e), status).await
        }
    }
}
