//! A double of Spoolman for what the real one cannot play (`docs/peers.md`, last section):
//! its spool routes over a shared set of spools, plus the faults — a refused credential, a
//! redirect, a timeout, malformed JSON, a contract break, and a `PUT /use` that is applied and
//! then loses its answer.

use super::http_double::{Reply, Request, Seen, json, serve};
use serde_json::{Value, json as value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the double does with the next requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Behaves as Spoolman does.
    None,
    /// 401 to everything (a proxy refusing our `Authorization`).
    Refused,
    /// 302 to elsewhere.
    Redirect,
    /// Reads the request and answers nothing for 5 s (longer than our 3 s).
    Timeout,
    /// 200 with a body that is not JSON.
    Malformed,
    /// 200 with JSON of the wrong shape.
    ContractBreak,
    /// Applies a `PUT /use`, then closes the connection before answering.
    ApplyThenDrop,
}

/// The double's state: spools by id and the fault in play.
#[derive(Debug)]
pub struct State {
    pub spools: BTreeMap<u64, Value>,
    pub fault: Fault,
}

/// A running double on 127.0.0.1.
#[derive(Clone)]
pub struct Double {
    pub url: String,
    pub state: Arc<Mutex<State>>,
    pub seen: Arc<Mutex<Seen>>,
}

/// A spool as Spoolman renders it: null fields left out, numbers as floats.
pub fn spool_json(id: u64, used: f64) -> Value {
    value!({
        "id": id, "registered": "2026-11-20T10:00:00",
        "filament": {"id": 1, "name": "Galaxy Black", "vendor": {"id": 1, "name": "Prusament", "empty_spool_weight": 201.0},
                     "material": "PLA", "price": 24.99, "density": 1.24, "diameter": 1.75, "weight": 1000.0,
                     "spool_weight": 201.0, "color_hex": "3D3E3D"},
        "price": 22.5, "remaining_weight": (1000.0 - used).max(0.0), "initial_weight": 1000.0,
        "used_weight": used, "location": "Shelf A", "lot_nr": "LOT-42", "archived": false, "extra": {}
    })
}

impl Double {
    /// Starts a double holding `count` spools (ids 1..=count, nothing used yet).
    pub async fn start(count: u64) -> Double {
        let state = Arc::new(Mutex::new(State {
            spools: (1..=count).map(|id| (id, spool_json(id, 0.0))).collect(),
            fault: Fault::None,
        }));
        let shared = state.clone();
        let (url, seen) = serve(move |request| handle(&shared, request)).await;
        Double { url, state, seen }
    }

    pub fn fault(&self, fault: Fault) {
        self.state.lock().unwrap().fault = fault;
    }

    /// Grams used on spool `id`, as the double holds it.
    pub fn used(&self, id: u64) -> f64 {
        self.state.lock().unwrap().spools[&id]["used_weight"]
            .as_f64()
            .unwrap()
    }

    /// How many `PUT /use` requests reached it.
    pub fn uses(&self) -> usize {
        let seen = self.seen.lock().unwrap();
        seen.requests
            .iter()
            .filter(|r| r.starts_with("PUT"))
            .count()
    }
}

fn handle(state: &Mutex<State>, request: &Request) -> Reply {
    let fault = state.lock().unwrap().fault;
    match fault {
        Fault::Refused => {
            return json(
                "401 Unauthorized",
                r#"{"detail":"peer-body-marker: no entry"}"#,
            );
        }
        Fault::Redirect => {
            return Reply::Answer(
                "302 Found",
                "location: http://elsewhere.invalid/\r\n".into(),
                String::new(),
            );
        }
        Fault::Timeout => return Reply::Silent(Duration::from_secs(5)),
        Fault::Malformed => {
            return Reply::Answer(
                "200 OK",
                "x-total-count: 1\r\n".into(),
                "{peer-body-marker".into(),
            );
        }
        Fault::ContractBreak => {
            let body = r#"{"id":"peer-body-marker","used_weight":"lots"}"#;
            return Reply::Answer("200 OK", "x-total-count: 1\r\n".into(), body.into());
        }
        Fault::None | Fault::ApplyThenDrop => {}
    }
    match (request.method.as_str(), request.segments().as_slice()) {
        ("GET", ["api", "v1", "info"]) => json(
            "200 OK",
            r#"{"version":"0.26.1","data_dir":"/secret/peer-body-marker"}"#,
        ),
        ("GET", ["api", "v1", "spool"]) => {
            let number = |k: &str, d| {
                request
                    .query
                    .get(k)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(d)
            };
            let (limit, offset) = (number("limit", usize::MAX), number("offset", 0));
            let s = state.lock().unwrap();
            let items: Vec<Value> = s
                .spools
                .values()
                .skip(offset)
                .take(limit)
                .cloned()
                .collect();
            let total = format!("x-total-count: {}\r\n", s.spools.len());
            Reply::Answer("200 OK", total, Value::Array(items).to_string())
        }
        ("GET", ["api", "v1", "spool", id]) => {
            let found = id
                .parse::<u64>()
                .ok()
                .and_then(|id| state.lock().unwrap().spools.get(&id).cloned());
            match found {
                Some(spool) => json("200 OK", spool.to_string()),
                None => json(
                    "404 Not Found",
                    format!(r#"{{"message":"No spool with ID {id} found."}}"#),
                ),
            }
        }
        ("PUT", ["api", "v1", "spool", id, "use"]) => {
            let grams = serde_json::from_str::<Value>(&request.body)
                .ok()
                .and_then(|b| b["use_weight"].as_f64());
            let Some(grams) = grams else {
                return json(
                    "400 Bad Request",
                    r#"{"message":"Either use_weight or use_length must be specified."}"#,
                );
            };
            let updated = id.parse::<u64>().ok().and_then(|id| {
                let mut s = state.lock().unwrap();
                let spool = s.spools.get_mut(&id)?;
                let used = (spool["used_weight"].as_f64().unwrap() + grams).max(0.0);
                *spool = spool_json(id, used);
                Some(spool.clone())
            });
            match (updated, fault) {
                (Some(_), Fault::ApplyThenDrop) => Reply::Drop, // applied; the answer is lost
                (Some(spool), _) => json("200 OK", spool.to_string()),
                (None, _) => json("404 Not Found", r#"{"message":"No spool found."}"#),
            }
        }
        _ => json("404 Not Found", r#"{"detail":"Not Found"}"#),
    }
}
