//! A double of Bambuddy 1.2.5.2 as `docs/peers.md` reads it from its code: `X-API-Key` on
//! every call (401 `{"detail":"Authentication required"}` without or with a wrong one, 403 for
//! a key without read permission), paths with their trailing slashes, integer ids, zone-less
//! timestamps, `vt_tray` 254, `{items, total}` log pages newest first with `limit` 1 to 500,
//! null fields; and the faults: a redirect, 503, malformed JSON, a contract break, a timeout.

use super::http_double::{Reply, Request, Seen, json, serve};
use serde_json::{Value, json as value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The key the double accepts.
pub const KEY: &str = "fleet-key-5e2a";
/// A key it knows without read permission.
pub const READLESS_KEY: &str = "fleet-key-no-read";

/// What the double does with the next requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    None,
    Redirect,
    Offline,
    Malformed,
    ContractBreak,
    Timeout,
}

/// The double's printers, their status and log, and its Spoolman slot assignments.
pub struct State {
    pub printers: Vec<Value>,
    pub logs: Vec<Value>,
    /// `None`: Bambuddy is not linked to Spoolman (404).
    pub assignments: Option<Vec<Value>>,
    /// Every printer's state (`IDLE` at start).
    pub printer_state: &'static str,
    pub fault: Fault,
}

#[derive(Clone)]
pub struct Fleet {
    pub url: String,
    pub state: Arc<Mutex<State>>,
    pub seen: Arc<Mutex<Seen>>,
}

/// A print-log entry as Bambuddy renders it (zone-less times, every field present).
pub fn log_json(id: u64, printer: u64, status: &str, seconds: u64, grams: f64) -> Value {
    value!({
        "id": id, "archive_id": null, "print_name": format!("Job {id}"), "printer_name": format!("X1C {printer}"),
        "printer_id": printer, "status": status, "started_at": "2026-11-20T10:00:00",
        "completed_at": "2026-11-20T11:30:00", "duration_seconds": seconds, "filament_type": "PLA",
        "filament_color": "#000000FF", "filament_used_grams": grams, "cost": null, "energy_kwh": null,
        "energy_cost": null, "failure_reason": if status == "failed" { Value::from("Spaghetti") } else { Value::Null },
        "thumbnail_path": null, "created_by_id": null, "created_by_username": null, "created_at": "2026-11-20T11:30:01"
    })
}

fn status_json(printer: &Value, state: &str) -> Value {
    let id = printer["id"].clone();
    value!({
        "id": id, "name": printer["name"], "connected": true, "state": state,
        "ams": [{"id": 0, "humidity": 3, "tray": [
            {"id": 0, "tray_type": "PLA", "tray_color": "000000FF", "remain": 80},
            {"id": 1, "tray_type": "PETG", "tray_color": "FFFFFFFF", "remain": 40},
            {"id": 2, "tray_type": "", "tray_color": null, "remain": -1}]}],
        "vt_tray": [{"id": 254, "tray_type": "TPU", "tray_color": "FF0000FF"}]
    })
}

impl Fleet {
    /// Starts a double with two printers (ids 1 and 2) and an empty log.
    pub async fn start() -> Fleet {
        let state = Arc::new(Mutex::new(State {
            printers: vec![
                value!({"id": 1, "name": "X1C Left", "serial_number": "01S00A1", "model": "X1C", "access_code": "12345678"}),
                value!({"id": 2, "name": "P1S Right", "serial_number": "01P00B2", "model": "P1S"}),
            ],
            logs: Vec::new(),
            assignments: None,
            printer_state: "IDLE",
            fault: Fault::None,
        }));
        let shared = state.clone();
        let (url, seen) = serve(move |request| handle(&shared, request)).await;
        Fleet { url, state, seen }
    }

    pub fn fault(&self, fault: Fault) {
        self.state.lock().unwrap().fault = fault;
    }

    /// Adds a log entry (newest first, as Bambuddy lists them).
    pub fn log(&self, entry: Value) {
        self.state.lock().unwrap().logs.insert(0, entry);
    }
}

fn handle(state: &Mutex<State>, request: &Request) -> Reply {
    let s = state.lock().unwrap();
    match s.fault {
        Fault::Redirect => {
            return Reply::Answer(
                "302 Found",
                "location: http://elsewhere.invalid/\r\n".into(),
                String::new(),
            );
        }
        Fault::Offline => {
            return json(
                "503 Service Unavailable",
                r#"{"detail":"peer-body-marker"}"#,
            );
        }
        Fault::Malformed => return json("200 OK", "[peer-body-marker"),
        Fault::ContractBreak => return json("200 OK", r#"{"id":"peer-body-marker","items":7}"#),
        Fault::Timeout => return Reply::Silent(Duration::from_secs(5)),
        Fault::None => {}
    }
    let segments = request.segments();
    if request.method == "GET" && segments == ["api", "v1", "updates", "version"] {
        return json(
            "200 OK",
            r#"{"version":"1.2.5.2","repo":"maziggy/bambuddy"}"#,
        );
    }
    match request.headers.get("x-api-key").map(String::as_str) {
        Some(KEY) => {}
        Some(READLESS_KEY) => {
            return json(
                "403 Forbidden",
                r#"{"detail":"API key does not have 'can_read_status' permission"}"#,
            );
        }
        _ => {
            return json(
                "401 Unauthorized",
                r#"{"detail":"Authentication required"}"#,
            );
        }
    }
    let printer = |id: &str| {
        s.printers
            .iter()
            .find(|p| id.parse::<u64>().is_ok_and(|id| p["id"] == id))
            .cloned()
    };
    let not_found = || json("404 Not Found", r#"{"detail":"Printer not found"}"#);
    match (
        request.method.as_str(),
        request.path.as_str(),
        segments.as_slice(),
    ) {
        ("GET", "/api/v1/printers/", _) => {
            json("200 OK", Value::Array(s.printers.clone()).to_string())
        }
        ("GET", _, ["api", "v1", "printers", id]) => {
            printer(id).map_or_else(not_found, |p| json("200 OK", p.to_string()))
        }
        ("GET", _, ["api", "v1", "printers", id, "status"]) => printer(id)
            .map_or_else(not_found, |p| {
                json("200 OK", status_json(&p, s.printer_state).to_string())
            }),
        ("GET", "/api/v1/print-log/", _) => {
            let number = |k: &str| request.query.get(k).and_then(|v| v.parse::<i64>().ok());
            let limit = number("limit").unwrap_or(50);
            if !(1..=500).contains(&limit) {
                return json(
                    "422 Unprocessable Entity",
                    r#"{"detail":[{"loc":["query","limit"],"msg":"out of range"}]}"#,
                );
            }
            let printer_id = number("printer_id");
            let mine: Vec<&Value> = s
                .logs
                .iter()
                .filter(|l| printer_id.is_none_or(|p| l["printer_id"] == p))
                .collect();
            let offset = number("offset").unwrap_or(0).max(0) as usize;
            let items: Vec<Value> = mine
                .iter()
                .skip(offset)
                .take(limit as usize)
                .map(|v| (*v).clone())
                .collect();
            json(
                "200 OK",
                value!({"items": items, "total": mine.len()}).to_string(),
            )
        }
        ("GET", "/api/v1/spoolman/inventory/slot-assignments/all", _) => match &s.assignments {
            Some(list) => json("200 OK", Value::Array(list.clone()).to_string()),
            None => json("404 Not Found", r#"{"detail":"Spoolman is not enabled"}"#),
        },
        _ => json("404 Not Found", r#"{"detail":"Not Found"}"#),
    }
}
