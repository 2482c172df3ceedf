//! The printer fleet's client: Bambuddy's API as `docs/peers.md` reads it from its code, and
//! its printers, trays and print-log entries as validated types.
//!
//! Every call carries `X-API-Key`. Paths keep Bambuddy's trailing slashes: `GET
//! /api/v1/updates/version` (public), `GET /api/v1/printers/`, `GET /api/v1/printers/{id}` (404
//! when unknown), `GET /api/v1/printers/{id}/status`, `GET /api/v1/print-log/?printer_id=&limit=
//! &offset=` (`{items, total}`, newest first, `limit` 1 to 500). Timestamps carry no zone and
//! are UTC; grams are JSON floats, made exact decimals once from their shortest text.

use super::health::PeerHealth;
use super::peer::{PeerClient, PeerError};
use super::settings::{PeerUrl, Secret};
use super::spoolmgr::exact;
use reqwest::header::HeaderName;
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use storage::Timestamp;
use storage::records::{PrintLog, Tray};

/// Most log entries one page may ask for (Bambuddy refuses more with 422).
pub const MAX_LOG_PAGE: u32 = 500;

#[derive(Deserialize)]
struct VersionJson {
    version: String,
}

/// A remote printer as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RemotePrinter {
    /// Its id in the fleet manager.
    pub id: u64,
    /// Its name.
    pub name: String,
}

#[derive(Deserialize)]
struct TrayJson {
    id: u64,
    tray_type: Option<String>,
    tray_color: Option<String>,
}

#[derive(Deserialize)]
struct AmsJson {
    id: u64,
    #[serde(default)]
    tray: Vec<TrayJson>,
}

#[derive(Deserialize)]
struct StatusJson {
    id: u64,
    name: Option<String>,
    connected: bool,
    state: Option<String>,
    #[serde(default)]
    ams: Vec<AmsJson>,
    #[serde(default)]
    vt_tray: Vec<TrayJson>,
}

/// A remote printer's state and trays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteStatus {
    /// Its name.
    pub name: Option<String>,
    /// Connected to the fleet manager.
    pub connected: bool,
    /// Its state (`RUNNING`, `IDLE`, …), none while disconnected.
    pub state: Option<String>,
    /// Its trays: every AMS tray as `"<ams id>:<tray id>"`, the external holder as `"255:254"`.
    pub trays: Vec<Tray>,
}

/// The slot name of the external spool holder (ams id 255, tray 254).
pub const EXTERNAL_SLOT: &str = "255:254";

fn tray(ams: u64, t: TrayJson) -> Tray {
    let blank = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
    Tray {
        slot: format!("{ams}:{}", t.id),
        material: blank(t.tray_type),
        color: blank(t.tray_color),
    }
}

#[derive(Deserialize)]
struct LogJson {
    id: u64,
    printer_id: Option<u64>,
    print_name: Option<String>,
    status: String,
    started_at: Option<String>,
    completed_at: Option<String>,
    duration_seconds: Option<i64>,
    filament_used_grams: Option<f64>,
    failure_reason: Option<String>,
    energy_kwh: Option<f64>,
}

#[derive(Deserialize)]
struct LogPageJson {
    items: Vec<LogJson>,
    total: u64,
}

/// The log statuses of the peer's contract.
const STATUSES: [&str; 5] = ["completed", "failed", "stopped", "cancelled", "skipped"];

/// A zone-less timestamp of the peer (`2026-11-20T11:00:00`, UTC); one with a zone is read as
/// it says. Errors: [`PeerError::Contract`].
pub fn utc(text: &str) -> Result<Timestamp, PeerError> {
    let at = match text.parse::<jiff::Timestamp>() {
        Ok(at) => at,
        Err(_) => text
            .parse::<jiff::civil::DateTime>()
            .and_then(|at| at.to_zoned(jiff::tz::TimeZone::UTC))
            .map_err(|_| PeerError::Contract)?
            .timestamp(),
    };
    Ok(Timestamp(at.as_second()))
}

impl TryFrom<LogJson> for PrintLog {
    type Error = PeerError;

    fn try_from(l: LogJson) -> Result<PrintLog, PeerError> {
        if !STATUSES.contains(&l.status.as_str()) {
            return Err(PeerError::Contract);
        }
        let grams = l.filament_used_grams.map(exact).transpose()?;
        let energy = l.energy_kwh.map(exact).transpose()?;
        if [grams, energy]
            .iter()
            .flatten()
            .any(|v| v.is_sign_negative() && !v.is_zero())
        {
            return Err(PeerError::Contract);
        }
        Ok(PrintLog {
            id: l.id,
            printer_id: l.printer_id,
            print_name: l.print_name,
            status: l.status,
            started_at: l.started_at.as_deref().map(utc).transpose()?,
            completed_at: l.completed_at.as_deref().map(utc).transpose()?,
            duration_seconds: l
                .duration_seconds
                .map(|s| u32::try_from(s).map_err(|_| PeerError::Contract))
                .transpose()?,
            filament_used_grams: grams,
            failure_reason: l.failure_reason,
            energy_kwh: energy,
        })
    }
}

/// One page of a printer's log, newest first, and how many entries it has.
#[derive(Debug, Clone, PartialEq)]
pub struct LogPage {
    /// The page's entries, validated.
    pub items: Vec<PrintLog>,
    /// Entries in all.
    pub total: u64,
}

#[derive(Deserialize)]
struct AssignmentJson {
    printer_id: u64,
    spoolman_spool_id: Option<u64>,
}

/// A client of the printer-fleet manager.
#[derive(Debug, Clone)]
pub struct Bambuddy {
    client: PeerClient,
}

impl Bambuddy {
    /// A client of the fleet manager at `base`, sending `api_key` as `X-API-Key`.
    /// Errors: see [`PeerClient::new`].
    pub fn new(base: PeerUrl, api_key: Option<&Secret>) -> Result<Bambuddy, PeerError> {
        let header = HeaderName::from_static("x-api-key");
        let client = PeerClient::new("printfleet", base, header, api_key)?;
        Ok(Bambuddy { client })
    }

    /// This client, recording whether the peer answers in `health`.
    pub fn watched(self, health: PeerHealth) -> Bambuddy {
        Bambuddy {
            client: self.client.watched(health),
        }
    }

    async fn get<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<Option<T>, PeerError> {
        let answer = self.client.call(Method::GET, path, None).await?;
        match answer.status {
            StatusCode::OK => answer.json().map(Some),
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(PeerError::Contract),
        }
    }

    /// The fleet manager's version. Errors: see [`PeerClient::call`]; [`PeerError::Contract`].
    pub async fn version(&self) -> Result<String, PeerError> {
        let found: Option<VersionJson> = self.get("/api/v1/updates/version").await?;
        Ok(found.ok_or(PeerError::Contract)?.version)
    }

    /// Every remote printer. Errors: see [`PeerClient::call`]; [`PeerError::Contract`].
    pub async fn printers(&self) -> Result<Vec<RemotePrinter>, PeerError> {
        self.get("/api/v1/printers/")
            .await?
            .ok_or(PeerError::Contract)
    }

    /// Remote printer `id`, `None` when the fleet manager has none (404).
    /// Errors: see [`PeerClient::call`]; [`PeerError::Contract`] for another printer's id.
    pub async fn printer(&self, id: u64) -> Result<Option<RemotePrinter>, PeerError> {
        let found: Option<RemotePrinter> = self.get(&format!("/api/v1/printers/{id}")).await?;
        if found.as_ref().is_some_and(|p| p.id != id) {
            return Err(PeerError::Contract);
        }
        Ok(found)
    }

    /// Remote printer `id`'s state and trays, `None` when it is unknown (404).
    /// Errors: see [`PeerClient::call`]; [`PeerError::Contract`].
    pub async fn status(&self, id: u64) -> Result<Option<RemoteStatus>, PeerError> {
        let found: Option<StatusJson> = self.get(&format!("/api/v1/printers/{id}/status")).await?;
        let Some(s) = found else { return Ok(None) };
        if s.id != id {
            return Err(PeerError::Contract);
        }
        let mut trays = Vec::new();
        for ams in s.ams {
            trays.extend(ams.tray.into_iter().map(|t| tray(ams.id, t)));
        }
        trays.extend(s.vt_tray.into_iter().map(|t| tray(255, t)));
        Ok(Some(RemoteStatus {
            name: s.name,
            connected: s.connected,
            state: s.state,
            trays,
        }))
    }

    /// The spool-manager spools the fleet manager has assigned to its printers' slots, as
    /// (remote printer, spool-manager spool): consumption on those it reports to the spool
    /// manager itself. Empty when it is not linked to one (404).
    /// Errors: see [`PeerClient::call`]; [`PeerError::Contract`].
    pub async fn slot_assignments(&self) -> Result<Vec<(u64, u64)>, PeerError> {
        let path = "/api/v1/spoolman/inventory/slot-assignments/all";
        let found: Option<Vec<AssignmentJson>> = self.get(path).await?;
        Ok(found
            .unwrap_or_default()
            .into_iter()
            .filter_map(|a| Some((a.printer_id, a.spoolman_spool_id?)))
            .collect())
    }

    /// Entry `log` of remote printer `printer`'s log, looked for among its newest
    /// `ATTACHABLE_LOGS` (the log has no route of its own).
    /// Errors: see [`Bambuddy::logs`].
    pub async fn find_log(
        &self,
        printer: u64,
        log: u64,
        newest: u64,
    ) -> Result<Option<PrintLog>, PeerError> {
        let mut offset = 0;
        while offset < newest {
            let page = self.logs(printer, MAX_LOG_PAGE, offset).await?;
            if let Some(found) = page.items.iter().find(|l| l.id == log) {
                return Ok(Some(found.clone()));
            }
            offset += u64::from(MAX_LOG_PAGE);
            if page.items.is_empty() || offset >= page.total {
                break;
            }
        }
        Ok(None)
    }

    /// `limit` (1 to [`MAX_LOG_PAGE`]) entries of remote printer `printer`'s log from `offset`,
    /// newest first. Errors: see [`PeerClient::call`]; [`PeerError::Contract`].
    pub async fn logs(&self, printer: u64, limit: u32, offset: u64) -> Result<LogPage, PeerError> {
        let limit = limit.clamp(1, MAX_LOG_PAGE);
        let path = format!("/api/v1/print-log/?printer_id={printer}&limit={limit}&offset={offset}");
        let page: LogPageJson = self.get(&path).await?.ok_or(PeerError::Contract)?;
        let items = page
            .items
            .into_iter()
            .map(PrintLog::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        if items
            .iter()
            .any(|l| l.printer_id.is_some_and(|p| p != printer))
        {
            return Err(PeerError::Contract);
        }
        Ok(LogPage {
            items,
            total: page.total,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_less_timestamps_are_utc() {
        assert_eq!(
            utc("2026-11-20T11:00:00").unwrap(),
            Timestamp(1_795_172_400)
        );
        assert_eq!(
            utc("2026-11-20T11:00:00.5").unwrap(),
            Timestamp(1_795_172_400)
        );
        assert_eq!(
            utc("2026-11-20T12:00:00+01:00").unwrap(),
            Timestamp(1_795_172_400)
        );
        assert_eq!(utc("yesterday"), Err(PeerError::Contract));
    }

    #[test]
    fn a_log_entry_is_validated() {
        let json = r##"{"id": 5, "archive_id": null, "print_name": "Bracket", "printer_name": "X1C", "printer_id": 1,
            "status": "failed", "started_at": "2026-11-20T10:00:00", "completed_at": "2026-11-20T11:00:00",
            "duration_seconds": 3600, "filament_type": "PLA", "filament_color": "#000000", "filament_used_grams": 12.4,
            "cost": null, "energy_kwh": null, "energy_cost": null, "failure_reason": "Spaghetti", "thumbnail_path": null,
            "created_by_id": null, "created_by_username": null, "created_at": "2026-11-20T11:00:01"}"##;
        let log = PrintLog::try_from(serde_json::from_str::<LogJson>(json).unwrap()).unwrap();
        assert_eq!(log.duration_seconds, Some(3600));
        assert_eq!(
            log.filament_used_grams,
            Some(rust_decimal::Decimal::new(124, 1))
        );
        let odd = json.replace(r#""status": "failed""#, r#""status": "exploded""#);
        let parsed = serde_json::from_str::<LogJson>(&odd).unwrap();
        assert_eq!(PrintLog::try_from(parsed), Err(PeerError::Contract));
    }
}
