//! `GET/POST /api/integrations/printfleet`: the printer fleet's status, our linked printers with
//! their trays, a print part's log link, a linked printer's remote log, and the actions
//! LINK_PRINTER, SYNC_PRINTER, MAP_TRAY, ATTACH, SYNC_PRINT and IMPORT (docs/api-contract.md,
//! "Integrations"). Remote failures are classified into the contract's codes without the peer's
//! body, URL or API key.

use super::prints::PrintDto;
use super::prints::outcome_dto::OutcomeInputDto;
use crate::body_forms::Alternative;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{StrictJson, StrictQuery};
use crate::input::query::{self, Params};
use crate::input::{Faults, Refusal};
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::OkDto;
use crate::wire::{WireId, dec, ts};
use actix_web::web::{Data, Json};
use actix_web::{get, post};
use actors::integrations::fleet::LinkedPrinter;
use actors::ledger::remote as links;
use actors::prints::fleet_logs as logs;
use actors::runtime::printfleet::{FleetStatus, Printfleet};
use deserr::{Deserr, ValuePointerRef};
use serde::Serialize;
use storage::Id;
use storage::records::{LogLink, OutcomeStatus, PrintLog};
use utoipa::{IntoParams, ToSchema};

/// Registers the printer fleet's routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_printfleet).add(post_printfleet);
}

/// A remote printer.
#[derive(Debug, Serialize, ToSchema)]
pub struct RemotePrinterDto {
    /// Its id in the fleet manager.
    pub id: u64,
    /// Its name.
    pub name: String,
}

/// Where a tray's spool comes from.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TraySource {
    /// Mapped here to a spool.
    Mapped,
    /// No spool mapped.
    Unmapped,
}

/// One tray of a linked printer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrayDto {
    /// `"<ams id>:<tray id>"`; the external spool holder is `"255:254"`.
    pub slot: String,
    /// Material loaded, as the printer reports it.
    pub material: Option<String>,
    /// Colour loaded, as the printer reports it.
    pub color: Option<String>,
    /// The mapped spool.
    pub spool_id: Option<String>,
    /// Its code.
    pub spool_code: Option<String>,
    /// MAPPED or UNMAPPED.
    pub source: TraySource,
    /// The mapped spool is archived or gone.
    pub unavailable: bool,
}

/// A linked printer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FleetPrinterDto {
    /// Our printer's id.
    pub id: String,
    /// Our printer's name.
    pub name: String,
    /// The remote printer's id.
    pub remote_id: u64,
    /// Its state by the last sync (`RUNNING`, `IDLE`, …), null while disconnected.
    pub state: Option<String>,
    /// Connected to the fleet manager by the last sync.
    pub connected: bool,
    /// Its trays by the last sync.
    pub trays: Vec<TrayDto>,
    /// Time of the last good sync.
    pub synced_at: Option<String>,
    /// Why the last sync failed (a contract code, or NOT_FOUND).
    pub error: Option<String>,
    /// No good sync for 5 minutes, or the last one failed.
    pub stale: bool,
}

impl From<LinkedPrinter> for FleetPrinterDto {
    fn from(p: LinkedPrinter) -> Self {
        let now = storage::Timestamp::now();
        let link = p.link;
        let trays = link
            .trays
            .iter()
            .map(|t| {
                let mapped = link
                    .mapped
                    .iter()
                    .find(|(slot, _)| *slot == t.slot)
                    .map(|(_, id)| *id);
                let spool = mapped.and_then(|id| p.spools.get(&id));
                TrayDto {
                    slot: t.slot.clone(),
                    material: t.material.clone(),
                    color: t.color.clone(),
                    spool_id: mapped.map(|id| id.to_string()),
                    spool_code: spool.map(|s| s.code.clone()),
                    source: if mapped.is_some() {
                        TraySource::Mapped
                    } else {
                        TraySource::Unmapped
                    },
                    unavailable: mapped.is_some() && spool.is_none_or(|s| s.archived),
                }
            })
            .collect();
        FleetPrinterDto {
            id: p.printer.id.to_string(),
            name: p.printer.name,
            remote_id: link.remote_id,
            state: link.state.clone(),
            connected: link.connected,
            trays,
            stale: link.sync_error.is_some()
                || link
                    .synced_at
                    .is_none_or(|at| now.0 - at.0 >= links::STALE_AFTER_SECONDS),
            synced_at: link.synced_at.map(ts),
            error: link.sync_error,
        }
    }
}

/// A remote print-log entry as validated: exactly what `previewHash` fingerprints.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrintLogDto {
    /// Its id in the fleet manager.
    pub id: u64,
    /// The remote printer.
    pub printer_id: Option<u64>,
    /// The job's name.
    pub print_name: Option<String>,
    /// `completed`, `failed`, `stopped`, `cancelled` or `skipped`.
    pub status: String,
    /// Start (the peer's zone-less time, read as UTC).
    pub started_at: Option<String>,
    /// End.
    pub completed_at: Option<String>,
    /// Printing time, seconds.
    pub duration_seconds: Option<u32>,
    /// Filament used in all, grams.
    pub filament_used_grams: Option<String>,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// Energy the fleet manager measured for the job, kWh: the part's electricity when imported.
    pub energy_kwh: Option<String>,
}

impl From<PrintLog> for PrintLogDto {
    fn from(l: PrintLog) -> Self {
        PrintLogDto {
            id: l.id,
            printer_id: l.printer_id,
            print_name: l.print_name,
            status: l.status,
            started_at: l.started_at.map(ts),
            completed_at: l.completed_at.map(ts),
            duration_seconds: l.duration_seconds,
            filament_used_grams: l.filament_used_grams.map(dec),
            failure_reason: l.failure_reason,
            energy_kwh: l.energy_kwh.map(dec),
        }
    }
}

/// SUCCESS or FAILED: the outcome a terminal log stands for.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Terminal {
    /// Completed.
    Success,
    /// Failed, stopped or cancelled.
    Failed,
}

/// A print part's link to a remote log entry.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogLinkDto {
    /// The part.
    pub part_id: String,
    /// The remote entry's id.
    pub remote_log_id: u64,
    /// The entry as last read.
    pub log: Option<PrintLogDto>,
    /// Hex SHA-256 of `log` as compact JSON with keys sorted: send it with IMPORT.
    pub preview_hash: Option<String>,
    /// The outcome the entry stands for, null until it is terminal.
    pub terminal: Option<Terminal>,
    /// Time of the last good read.
    pub synced_at: Option<String>,
    /// Why the last read failed.
    pub error: Option<String>,
    /// When its outcome was imported.
    pub imported_at: Option<String>,
}

impl From<LogLink> for LogLinkDto {
    fn from(l: LogLink) -> Self {
        LogLinkDto {
            part_id: l.part_id.to_string(),
            remote_log_id: l.remote_log_id,
            preview_hash: l.log.as_ref().map(logs::preview_hash),
            terminal: l.log.as_ref().and_then(logs::terminal).map(|s| match s {
                OutcomeStatus::Success => Terminal::Success,
                OutcomeStatus::Failed => Terminal::Failed,
            }),
            log: l.log.map(Into::into),
            synced_at: l.synced_at.map(ts),
            error: l.error,
            imported_at: l.imported_at.map(ts),
        }
    }
}

/// The printer fleet's configuration, version, printers, and a part's link when asked.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FleetStatusDto {
    /// A URL and an API key are set.
    pub configured: bool,
    /// The fleet manager's version, when it answered.
    pub version: Option<String>,
    /// Why it did not: `INTEGRATION_CONFIG`, `INTEGRATION_UNAVAILABLE` or `INTEGRATION_CONTRACT`.
    pub error: Option<String>,
    /// Its printers.
    pub remote_printers: Vec<RemotePrinterDto>,
    /// Our linked printers.
    pub printers: Vec<FleetPrinterDto>,
    /// With `printId` (and `partId` for a multipart print): the part's link, or null.
    pub link: Option<LogLinkDto>,
}

fn status_dto(s: FleetStatus, link: Option<LogLink>) -> FleetStatusDto {
    FleetStatusDto {
        configured: s.configured,
        version: s.version,
        error: s.failure.map(|f| f.code().to_string()),
        remote_printers: s
            .remote_printers
            .into_iter()
            .map(|p| RemotePrinterDto {
                id: p.id,
                name: p.name,
            })
            .collect(),
        printers: s.printers.into_iter().map(Into::into).collect(),
        link: link.map(Into::into),
    }
}

/// A page of a linked printer's remote log, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct FleetLogsDto {
    /// The entries, 25 a page.
    pub items: Vec<PrintLogDto>,
    /// Entries in all.
    pub total: u64,
    /// One-based page.
    pub page: u32,
}

/// `GET /api/integrations/printfleet`'s answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum FleetView {
    /// Without `view`.
    Status(Box<FleetStatusDto>),
    /// With `view=logs`.
    Logs(FleetLogsDto),
}

/// The status (with `printId`, `partId`: a part's link), or with `view=logs`, `printerId` and
/// `page` a page of the linked printer's remote log.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase, validate = with_printer -> Faults)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct FleetParams {
    /// `logs` for a printer's remote log.
    #[param(value_type = Option<String>, pattern = "^logs$")]
    #[deserr(default, try_from(&String) = logs -> Refusal)]
    pub view: Option<&'static str>,
    /// The print whose part's link to show.
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub print_id: Option<Id>,
    /// The part (multipart prints).
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub part_id: Option<Id>,
    /// The linked printer whose log to page (with `view=logs`).
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub printer_id: Option<Id>,
    /// One-based page of the log (1 to 10000).
    #[param(minimum = 1, maximum = 10000)]
    #[deserr(default, try_from(&String) = query::number::<1, 10_000> -> Refusal)]
    pub page: Option<u32>,
}

/// `view`: `logs`. Errors: `errors.invalidValue`.
fn logs(text: &str) -> Result<Option<&'static str>, Refusal> {
    query::choice(text, |t| (t == "logs").then_some("logs"))
}

/// `params`, when `view` comes with the `printerId` it needs. Errors: `errors.required` on
/// `printerId`.
fn with_printer(params: FleetParams, _: ValuePointerRef) -> Result<FleetParams, Faults> {
    if params.view.is_some() && params.printer_id.is_none() {
        let text = "printerId: needed with view".to_string();
        return Err(Faults::one("printerId".into(), "errors.required", text));
    }
    Ok(params)
}

impl Params for FleetParams {}

/// The printer fleet's configuration, version, remote printers and our linked printers with
/// their trays; with `printId` (`partId`) a part's log link; with `view=logs` a page of a
/// linked printer's remote log.
#[utoipa::path(
    tag = "integrations",
    params(FleetParams),
    responses(
        (status = 200, body = FleetView),
        (status = 401, body = ErrorBody),
        (status = 404, description = "An unknown print or printer", body = ErrorBody),
        (status = 409, description = "INTEGRATION_DISABLED; INTEGRATION_CONFIG (logs without a URL or key, or a refused key); INTEGRATION_CONFLICT (logs of a printer not linked)", body = ErrorBody),
        (status = 422, description = "An unknown parameter or view; a multipart print without partId", body = ErrorBody),
        (status = 502, description = "INTEGRATION_UNAVAILABLE, INTEGRATION_CONTRACT (logs)", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/integrations/printfleet")]
pub async fn get_printfleet(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<FleetParams>,
) -> Result<Json<FleetView>, ApiError> {
    let params = query.0;
    let fleet = &state.printfleet;
    if let (Some(_), Some(printer)) = (params.view, params.printer_id) {
        let page = params.page.unwrap_or(1);
        let logs = fleet.logs(printer, page).await?;
        return Ok(Json(FleetView::Logs(FleetLogsDto {
            items: logs.items.into_iter().map(Into::into).collect(),
            total: logs.total,
            page,
        })));
    }
    let link = match params.print_id {
        Some(print) => fleet.part_link(print, params.part_id).await?.1,
        None => None,
    };
    let status = status_dto(fleet.status().await?, link);
    Ok(Json(FleetView::Status(Box::new(status))))
}

/// LINK_PRINTER's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct LinkPrinterData {
    /// Our printer.
    #[schema(value_type = String, format = Uuid)]
    pub printer_id: WireId,
    /// The remote printer's id, or null to unlink.
    #[deserr(default)]
    pub remote_id: Option<u64>,
}

/// SYNC_PRINTER's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SyncPrinterData {
    /// Our linked printer.
    #[schema(value_type = String, format = Uuid)]
    pub printer_id: WireId,
}

/// MAP_TRAY's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct MapTrayData {
    /// Our linked printer.
    #[schema(value_type = String, format = Uuid)]
    pub printer_id: WireId,
    /// `"<ams id>:<tray id>"` of one of its trays.
    pub slot: String,
    /// The spool, or null to clear.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub spool_id: Option<WireId>,
}

/// ATTACH's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct AttachData {
    /// The print.
    #[schema(value_type = String, format = Uuid)]
    pub print_id: WireId,
    /// The part (a one-part print may omit it).
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub part_id: Option<WireId>,
    /// The remote log entry's id, among the printer's newest 1,000.
    pub remote_log_id: u64,
}

/// SYNC_PRINT's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SyncPrintData {
    /// The print.
    #[schema(value_type = String, format = Uuid)]
    pub print_id: WireId,
    /// The part (a one-part print may omit it).
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub part_id: Option<WireId>,
}

/// A part's confirmed fingerprint.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PartPreview {
    /// The part.
    #[schema(value_type = String, format = Uuid)]
    pub part_id: WireId,
    /// Its link's `previewHash`.
    pub preview_hash: String,
}

/// IMPORT's data.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct LogImportData {
    /// The print.
    #[schema(value_type = String, format = Uuid)]
    pub print_id: WireId,
    /// The fingerprint of every linked part.
    #[schema(min_items = 1)]
    #[deserr(default)]
    pub previews: Option<Vec<PartPreview>>,
    /// A one-part print's fingerprint, instead of `previews`.
    #[deserr(default)]
    pub preview_hash: Option<String>,
    /// The outcome, as `POST /api/prints/{id}/outcome` takes it.
    pub outcome: OutcomeInputDto,
}

/// IMPORT's two ways to fingerprint what it imports: `previews` of the linked parts, or a
/// one-part print's `previewHash`.
pub const FINGERPRINTS: [Alternative; 2] = [
    Alternative::needed(&["previews"]),
    Alternative::needed(&["previewHash"]),
];

/// A printer-fleet action: `{ "action": "<NAME>", "data": { … } }`.
#[derive(Debug, ToSchema)]
#[serde(tag = "action", content = "data", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FleetAction {
    /// Link a printer to a remote printer, or unlink it.
    LinkPrinter(LinkPrinterData),
    /// Refresh a linked printer's state and trays.
    SyncPrinter(SyncPrinterData),
    /// Map a tray to a spool, or clear it.
    MapTray(MapTrayData),
    /// Attach a remote log entry to a print part.
    Attach(AttachData),
    /// Refresh a part's attached entry.
    SyncPrint(SyncPrintData),
    /// Record the outcome from the attached entries.
    Import(LogImportData),
}

crate::input::shape::actions!(FleetAction {
    "LINK_PRINTER" => LinkPrinter,
    "SYNC_PRINTER" => SyncPrinter,
    "MAP_TRAY" => MapTray,
    "ATTACH" => Attach,
    "SYNC_PRINT" => SyncPrint,
    "IMPORT" => Import,
});

/// An action's answer: the print for IMPORT, `{ok: true}` otherwise.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum FleetResult {
    /// IMPORT: the print with its outcome.
    Print(Box<PrintDto>),
    /// The other actions.
    Done(OkDto),
}

impl FleetAction {
    /// Runs the action through `fleet` (the API's and the UI's forms alike).
    ///
    /// Errors: see `POST /api/integrations/printfleet`.
    pub async fn run(self, fleet: &Printfleet) -> Result<FleetResult, ApiError> {
        match self {
            FleetAction::LinkPrinter(d) => fleet.link(d.printer_id.0, d.remote_id).await?,
            FleetAction::SyncPrinter(d) => fleet.sync_printer(d.printer_id.0).await?,
            FleetAction::MapTray(d) => {
                fleet
                    .map_tray(d.printer_id.0, d.slot, d.spool_id.map(|w| w.0))
                    .await?
            }
            FleetAction::Attach(d) => {
                fleet
                    .attach(d.print_id.0, d.part_id.map(|w| w.0), d.remote_log_id)
                    .await?
            }
            FleetAction::SyncPrint(d) => {
                fleet
                    .sync_print(d.print_id.0, d.part_id.map(|w| w.0))
                    .await?
            }
            FleetAction::Import(d) => {
                let mut previews: Vec<(Option<Id>, String)> = d
                    .previews
                    .unwrap_or_default()
                    .into_iter()
                    .map(|p| (Some(p.part_id.0), p.preview_hash))
                    .collect();
                previews.extend(d.preview_hash.map(|h| (None, h)));
                let print = fleet
                    .import(d.print_id.0, previews, d.outcome.into())
                    .await?;
                return Ok(FleetResult::Print(Box::new(PrintDto::from(&print))));
            }
        }
        Ok(FleetResult::Done(OkDto::DONE))
    }
}

/// Runs a printer-fleet action.
#[utoipa::path(
    tag = "integrations",
    request_body = FleetAction,
    responses(
        (status = 200, body = FleetResult),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "An unknown printer, print or part", body = ErrorBody),
        (status = 409, description = "INTEGRATION_DISABLED, INTEGRATION_CONFIG, INTEGRATION_CONFLICT (a remote printer linked elsewhere, attached logs not imported, a log of another printer or part, an import that contradicts the logs), SPOOL_MANAGEMENT_DISABLED (MAP_TRAY), MATERIAL_NOT_FILAMENT (MAP_TRAY onto a resin's bottle or a consumable's pack), OUTCOME_CONFLICT", body = ErrorBody),
        (status = 422, description = "INVALID_SPOOL (MAP_TRAY); an unknown remote printer or slot; a multipart print without partId; an invalid outcome", body = ErrorBody),
        (status = 502, description = "INTEGRATION_UNAVAILABLE, INTEGRATION_CONTRACT", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/integrations/printfleet")]
pub async fn post_printfleet(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<FleetAction>,
) -> Result<Json<FleetResult>, ApiError> {
    Ok(Json(input.0.run(&state.printfleet).await?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::Timestamp;

    #[test]
    fn the_log_hash_fingerprints_exactly_the_json_shown() {
        let log = PrintLog {
            id: 9,
            printer_id: Some(1),
            print_name: Some("Bracket".into()),
            status: "completed".into(),
            started_at: Some(Timestamp(1_795_168_800)),
            completed_at: Some(Timestamp(1_795_172_400)),
            duration_seconds: Some(3600),
            filament_used_grams: Some(rust_decimal::Decimal::new(4250, 2)),
            failure_reason: None,
            energy_kwh: Some(rust_decimal::Decimal::new(18, 2)),
        };
        let shown = serde_json::to_value(PrintLogDto::from(log.clone())).unwrap();
        assert_eq!(shown, logs::projection(&log));
        assert_eq!(shown["filamentUsedGrams"], "42.5");
        assert_eq!(shown["energyKwh"], "0.18");
        assert_eq!(shown["completedAt"], "2026-11-20T11:00:00Z");
    }
}
