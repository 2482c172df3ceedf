//! A double of Spoolman for what the real one cannot play (`peers/README.md`, last section):
//! its spool routes over a shared set of spools, plus the faults — a refused credential, a
//! redirect, a timeout, malformed JSON, a contract break, and a `PUT /use` that is applied and
//! then loses its answer.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

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

/// The double's state: spools by id, the fault in play, every request line seen.
#[derive(Debug)]
pub struct State {
    pub spools: BTreeMap<u64, Value>,
    pub fault: Fault,
    pub requests: Vec<String>,
    /// Every body it sent, to check that none reaches our answers.
    pub bodies: Vec<String>,
}

/// A running double on 127.0.0.1.
#[derive(Clone)]
pub struct Double {
    pub url: String,
    pub state: Arc<Mutex<State>>,
}

/// A spool as Spoolman renders it: null fields left out, numbers as floats.
pub fn spool_json(id: u64, used: f64) -> Value {
    json!({
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
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            spools: (1..=count).map(|id| (id, spool_json(id, 0.0))).collect(),
            fault: Fault::None,
            requests: Vec::new(),
            bodies: Vec::new(),
        }));
        let shared = state.clone();
        actix_web::rt::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let state = shared.clone();
                actix_web::rt::spawn(serve(socket, state));
            }
        });
        Double { url, state }
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
        let state = self.state.lock().unwrap();
        state
            .requests
            .iter()
            .filter(|r| r.starts_with("PUT"))
            .count()
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<(String, String)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buffer).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if buffer.len() >= end + 4 + length {
                let line = text.lines().next().unwrap_or_default().to_string();
                return Some((line, text[end + 4..].to_string()));
            }
        }
    }
}

async fn answer(
    socket: &mut TcpStream,
    state: &Mutex<State>,
    status: &str,
    headers: &str,
    body: &str,
) {
    state.lock().unwrap().bodies.push(body.to_string());
    let text = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{headers}connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = socket.write_all(text.as_bytes()).await;
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>) {
    let Some((line, body)) = read_request(&mut socket).await else {
        return;
    };
    let fault = {
        let mut s = state.lock().unwrap();
        s.requests.push(line.clone());
        s.fault
    };
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    match fault {
        Fault::Refused => {
            return answer(
                &mut socket,
                &state,
                "401 Unauthorized",
                "",
                r#"{"detail":"peer-body-marker: no entry"}"#,
            )
            .await;
        }
        Fault::Redirect => {
            return answer(
                &mut socket,
                &state,
                "302 Found",
                "location: http://elsewhere.invalid/\r\n",
                "",
            )
            .await;
        }
        Fault::Timeout => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            return;
        }
        Fault::Malformed => {
            return answer(
                &mut socket,
                &state,
                "200 OK",
                "x-total-count: 1\r\n",
                "{peer-body-marker",
            )
            .await;
        }
        Fault::ContractBreak => {
            return answer(
                &mut socket,
                &state,
                "200 OK",
                "x-total-count: 1\r\n",
                r#"{"id":"peer-body-marker","used_weight":"lots"}"#,
            )
            .await;
        }
        Fault::None | Fault::ApplyThenDrop => {}
    }
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match (method, segments.as_slice()) {
        ("GET", ["api", "v1", "info"]) => {
            answer(
                &mut socket,
                &state,
                "200 OK",
                "",
                r#"{"version":"0.26.1","data_dir":"/secret/peer-body-marker"}"#,
            )
            .await
        }
        ("GET", ["api", "v1", "spool"]) => {
            let query: BTreeMap<String, String> = target
                .split_once('?')
                .map(|(_, q)| {
                    q.split('&')
                        .filter_map(|kv| kv.split_once('='))
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect()
                })
                .unwrap_or_default();
            let limit = query
                .get("limit")
                .and_then(|v| v.parse().ok())
                .unwrap_or(usize::MAX);
            let offset = query
                .get("offset")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let (items, total) = {
                let s = state.lock().unwrap();
                let items: Vec<Value> = s
                    .spools
                    .values()
                    .skip(offset)
                    .take(limit)
                    .cloned()
                    .collect();
                (items, s.spools.len())
            };
            let body = Value::Array(items).to_string();
            answer(
                &mut socket,
                &state,
                "200 OK",
                &format!("x-total-count: {total}\r\n"),
                &body,
            )
            .await
        }
        ("GET", ["api", "v1", "spool", id]) => {
            let found = id
                .parse::<u64>()
                .ok()
                .and_then(|id| state.lock().unwrap().spools.get(&id).cloned());
            match found {
                Some(spool) => answer(&mut socket, &state, "200 OK", "", &spool.to_string()).await,
                None => {
                    answer(
                        &mut socket,
                        &state,
                        "404 Not Found",
                        "",
                        &format!(r#"{{"message":"No spool with ID {id} found."}}"#),
                    )
                    .await
                }
            }
        }
        ("PUT", ["api", "v1", "spool", id, "use"]) => {
            let grams = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|b| b["use_weight"].as_f64());
            let Some(grams) = grams else {
                return answer(
                    &mut socket,
                    &state,
                    "400 Bad Request",
                    "",
                    r#"{"message":"Either use_weight or use_length must be specified."}"#,
                )
                .await;
            };
            let updated = id.parse::<u64>().ok().and_then(|id| {
                let mut s = state.lock().unwrap();
                let spool = s.spools.get_mut(&id)?;
                let used = (spool["used_weight"].as_f64().unwrap() + grams).max(0.0);
                *spool = spool_json(id, used);
                Some(spool.clone())
            });
            match (updated, fault) {
                (Some(_), Fault::ApplyThenDrop) => {} // applied; the connection drops unanswered
                (Some(spool), _) => {
                    answer(&mut socket, &state, "200 OK", "", &spool.to_string()).await
                }
                (None, _) => {
                    answer(
                        &mut socket,
                        &state,
                        "404 Not Found",
                        "",
                        r#"{"message":"No spool found."}"#,
                    )
                    .await
                }
            }
        }
        _ => {
            answer(
                &mut socket,
                &state,
                "404 Not Found",
                "",
                r#"{"detail":"Not Found"}"#,
            )
            .await
        }
    }
}
