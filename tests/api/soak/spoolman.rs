//! The real Spoolman in the month's soak ([`crate::spoolmgr_real::real_spoolman`]), behind a
//! [`Gate`] the run closes for whole days: two of its spools imported with
//! `EXTERNAL_CONSUMPTION`, so every outcome and correction on them becomes an operation the
//! service's background rounds (every second here) send to Spoolman's `PUT /use`, which adds
//! whatever it is sent. At the end every print's consumption is in Spoolman exactly once: its
//! used weight is the sum of the outcomes' grams on its spool, after outages, `kill -9` and
//! restarts, with a person's word only for the operations the service itself calls `UNKNOWN`
//! (a kill while one was on the wire).

use super::Run;
use crate::spoolmgr_real::real_spoolman::RealSpoolman;
use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::io::ErrorKind;
use std::net::{TcpListener, TcpStream};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Grams on each remote spool when bought: enough for the month's prints on it.
const INITIAL_GRAMS: u32 = 20_000;

/// A TCP gate in front of Spoolman. Open, it forwards every connection; closed, nothing
/// listens on its port (a connection is refused, as with Spoolman down) and the connections
/// it forwarded are cut.
struct Gate {
    url: String,
    open: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Gate {
    /// A gate on a free port of 127.0.0.1 in front of `upstream` (`host:port`), open.
    fn start(upstream: String) -> Gate {
        let first = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = first.local_addr().unwrap().port();
        let open = Arc::new(AtomicBool::new(true));
        let stop = Arc::new(AtomicBool::new(false));
        let (is_open, stopped) = (open.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut listener = Some(first);
            // Both ends of every connection it forwards (dropped once both copies end).
            let mut forwarded: Vec<Arc<TcpStream>> = Vec::new();
            while !stopped.load(Ordering::SeqCst) {
                let wanted = is_open.load(Ordering::SeqCst);
                if !wanted && listener.is_some() {
                    listener = None;
                    for stream in forwarded.drain(..) {
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                    }
                }
                if wanted && listener.is_none() {
                    listener = TcpListener::bind(("127.0.0.1", port)).ok();
                }
                let Some(accepting) = &listener else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                accepting.set_nonblocking(true).unwrap();
                match accepting.accept() {
                    Ok((client, _)) => {
                        client.set_nonblocking(false).unwrap();
                        let Ok(server) = TcpStream::connect(&upstream) else {
                            continue;
                        };
                        let (client, server) = (Arc::new(client), Arc::new(server));
                        forwarded.retain(|stream| Arc::strong_count(stream) > 1);
                        forwarded.extend([client.clone(), server.clone()]);
                        pipe(client.clone(), server.clone());
                        pipe(server, client);
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => {}
                }
            }
        });
        Gate {
            url: format!("http://127.0.0.1:{port}"),
            open,
            stop,
        }
    }

    fn set(&self, open: bool) {
        self.open.store(open, Ordering::SeqCst);
        // The gate's thread looks every 5 ms.
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Copies `from` to `to` on a thread of its own until either closes.
fn pipe(from: Arc<TcpStream>, to: Arc<TcpStream>) {
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from.as_ref(), &mut to.as_ref());
        let _ = to.shutdown(std::net::Shutdown::Write);
    });
}

/// A remote spool as the shop holds it.
pub struct Remote {
    /// Spoolman's id.
    id: u64,
    /// The local spool.
    pub spool: String,
    /// Its filament (made by the import).
    pub filament: String,
}

/// The real Spoolman, its gate, and the spools imported from it.
pub struct Spoolman {
    real: RealSpoolman,
    gate: Gate,
    http: reqwest::Client,
    pub remote: Vec<Remote>,
    /// Days the gate was closed.
    pub outages: u32,
}

impl Spoolman {
    /// Starts Spoolman with two spools, links the service to it through the gate and imports
    /// them. `None` where the real Spoolman is absent (said loudly by its starter).
    pub async fn link(run: &Run) -> Option<Spoolman> {
        let real = RealSpoolman::start()?;
        let upstream = real.url.trim_start_matches("http://").to_string();
        let mut spoolman = Spoolman {
            gate: Gate::start(upstream),
            real,
            http: reqwest::Client::new(),
            remote: Vec::new(),
            outages: 0,
        };
        spoolman
            .call(Method::POST, "/api/v1/vendor", json!({"name": "Polymaker"}))
            .await;
        let filament = json!({"name": "PolyTerra Charcoal", "vendor_id": 1, "material": "PLA",
                              "price": 19.99, "density": 1.24, "diameter": 1.75, "weight": 1000});
        spoolman
            .call(Method::POST, "/api/v1/filament", filament)
            .await;
        let mut ids = Vec::new();
        for lot in ["PT-1", "PT-2"] {
            let spool = json!({"filament_id": 1, "initial_weight": INITIAL_GRAMS, "price": 380, "lot_nr": lot});
            ids.push(
                spoolman.call(Method::POST, "/api/v1/spool", spool).await["id"]
                    .as_u64()
                    .unwrap(),
            );
        }
        let link = json!({"spoolmgr": {"enabled": true, "url": spoolman.gate.url}});
        let res = run
            .send(Method::PATCH, "/api/settings/integrations", Some(&link))
            .await;
        assert_eq!(res.status(), 200, "linked to Spoolman");
        let preview = run
            .json("/api/integrations/spoolmgr?view=preview&page=1")
            .await;
        for id in ids {
            let item = preview["items"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["id"] == id)
                .unwrap();
            let import = json!({"action": "IMPORT", "data": {"remoteId": id, "previewHash": item["previewHash"], "authority": "EXTERNAL_CONSUMPTION"}});
            let made = run
                .post("/api/integrations/spoolmgr", &import, 200)
                .await
                .expect("imported");
            let spool = made["id"].as_str().unwrap().to_string();
            let detail = run.json(&format!("/api/spools/{spool}")).await;
            let filament = detail["spool"]["filamentId"].as_str().unwrap().to_string();
            spoolman.remote.push(Remote {
                id,
                spool,
                filament,
            });
        }
        Some(spoolman)
    }

    async fn call(&self, method: Method, path: &str, body: Value) -> Value {
        let res = self
            .http
            .request(method, format!("{}{path}", self.real.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(
            res.status().is_success(),
            "Spoolman {path}: {}",
            res.status()
        );
        res.json().await.unwrap()
    }

    /// Spoolman down (`false`) or up again.
    pub fn set_up(&mut self, up: bool) {
        if !up && self.gate.open.load(Ordering::SeqCst) {
            self.outages += 1;
        }
        self.gate.set(up);
    }

    /// Spoolman out of the service's reach (`false`) or back, not counted as an outage (a
    /// restored store checked beside the live one must not send it anything).
    pub fn reachable(&self, up: bool) {
        self.gate.set(up);
    }

    pub fn is_up(&self) -> bool {
        self.gate.open.load(Ordering::SeqCst)
    }

    /// Grams Spoolman says were used of remote spool `id`.
    async fn used(&self, id: u64) -> Decimal {
        let spool = self
            .call(Method::GET, &format!("/api/v1/spool/{id}"), Value::Null)
            .await;
        // Spoolman adds floats: its sums carry their rounding in the 13th digit or so.
        Decimal::from_str(&spool["used_weight"].to_string())
            .unwrap()
            .round_dp(6)
    }

    /// The service's operations (the latest 50).
    async fn operations(run: &Run) -> Vec<Value> {
        let status = run.json("/api/integrations/spoolmgr").await;
        status["operations"].as_array().unwrap().clone()
    }

    /// Waits (up to 30 s) until, with Spoolman up, no operation is waiting or on the wire and
    /// every remote spool's stock is what Spoolman says: nothing the service's rounds would
    /// still change. With Spoolman down nothing changes anyway.
    pub async fn settle(&self, run: &Run) {
        if !self.is_up() {
            return;
        }
        for _ in 0..600 {
            if self.settled(run).await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "seed {} day {}: the spool manager's rounds did not settle: {:?}",
            run.seed,
            run.day.get(),
            Self::operations(run).await
        );
    }

    async fn settled(&self, run: &Run) -> bool {
        let ops = Self::operations(run).await;
        if ops
            .iter()
            .any(|op| op["state"] == "PENDING" || op["state"] == "SENDING")
        {
            return false;
        }
        for remote in &self.remote {
            let detail = run.json(&format!("/api/spools/{}", remote.spool)).await;
            let local = Decimal::from_str(detail["spool"]["remainingQuantity"].as_str().unwrap());
            let there = Decimal::from(INITIAL_GRAMS) - self.used(remote.id).await;
            if local.unwrap().round_dp(6) != there {
                return false;
            }
        }
        true
    }

    /// Spoolman up, the rounds settled, and each `UNKNOWN` operation (a `kill -9` while it was
    /// on the wire) confirmed as a person would, by Spoolman's used weight; then each remote
    /// spool's used weight is the sum of the outcomes' grams on it over `prints`. The
    /// operations a person confirmed.
    pub async fn reconcile(&mut self, run: &Run, prints: &[String]) -> usize {
        self.set_up(true);
        self.settle(run).await;
        let mut confirmed = 0;
        loop {
            let ops = Self::operations(run).await;
            let Some(unknown) = ops.iter().find(|op| op["state"] == "UNKNOWN") else {
                break;
            };
            let remote = unknown["remoteId"].as_u64().unwrap();
            let expected = self.consumed(run, prints, remote).await;
            let unknown_grams: Decimal = ops
                .iter()
                .filter(|op| op["remoteId"] == remote && op["state"] == "UNKNOWN")
                .map(|op| Decimal::from_str(op["grams"].as_str().unwrap()).unwrap())
                .sum();
            // Spoolman holds all of the outcomes' grams: they were applied; it lacks them all:
            // they were not.
            let used = self.used(remote).await;
            let applied = if used == expected {
                true
            } else {
                assert_eq!(
                    used + unknown_grams,
                    expected,
                    "seed {}: remote spool {remote}: UNKNOWN operations that cannot be told apart",
                    run.seed
                );
                false
            };
            let action = if applied {
                "CONFIRM_APPLIED"
            } else {
                "CONFIRM_NOT_APPLIED"
            };
            let body = json!({"action": "OPERATION", "data": {"operationId": unknown["id"], "action": action}});
            run.post("/api/integrations/spoolmgr", &body, 200)
                .await
                .expect("a person's word on an UNKNOWN operation");
            confirmed += 1;
            self.settle(run).await;
        }
        let mut total = Decimal::ZERO;
        for remote in &self.remote {
            let expected = self.consumed(run, prints, remote.id).await;
            total += expected;
            assert_eq!(
                self.used(remote.id).await,
                expected,
                "seed {}: Spoolman's spool {} holds each outcome exactly once",
                run.seed,
                remote.id
            );
        }
        assert!(
            total > Decimal::ZERO,
            "seed {}: nothing consumed from Spoolman",
            run.seed
        );
        confirmed
    }

    /// The grams the outcomes of `prints` used of remote spool `id`: their latest revision's.
    async fn consumed(&self, run: &Run, prints: &[String], id: u64) -> Decimal {
        let spool = &self.remote.iter().find(|r| r.id == id).unwrap().spool;
        let mut sum = Decimal::ZERO;
        for print in prints {
            let print = run.json(&format!("/api/prints/{print}")).await;
            let usages = print["usages"].as_array().unwrap();
            for usage in usages.iter().filter(|u| u["spoolId"] == spool.as_str()) {
                let used = print["outcome"]["filaments"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|f| f["usageId"] == usage["id"]);
                if let Some(used) = used {
                    sum += Decimal::from_str(used["usedGrams"].as_str().unwrap()).unwrap();
                }
            }
        }
        sum
    }
}
