//! A shop's month with its features at once (issue 45), deterministic from a seed: ten printers
//! with their components and a resin printer (its vat's film counted in prints, a resin in a
//! bottle), four filaments with spools, a consumable in pieces (boxes) and one in millilitres
//! (alcohol) with their packs, customers, a series, maintenance tasks (one blocking); each day
//! drafts (some from a sliced file, some with a box per piece and alcohol per job), prints moved
//! through their routes, outcomes (failures among them) and corrections, spool corrections and
//! receipts, low stock restocked, tasks done, deletes of referenced records, spare hotends
//! through a maintenance subject's life (a task, done, the subject and the task archived, its
//! delete refused), and at night the backup the service's own schedule takes at 02:30 in
//! Europe/Berlin. Around the shop:
//!
//! - a simulated clock ([`Clock`]): each day is a calendar day from 2027-03-24, so the fourth
//!   night is the one whose 02:30 does not exist (a year's run also meets the one whose 02:30
//!   comes twice);
//! - the real Spoolman with two of its spools consumed through operations, down a fifth of the
//!   days ([`spoolman`]);
//! - the Bambuddy double linked to a printer, outcomes taken from its print log, its faults
//!   played ([`fleet`]);
//! - an SDM120 played by pymodbus through the bridge in process and a Tasmota plug on an
//!   external mosquitto, their counters rising, reset, silent or NaN under prints ([`meters`]);
//! - alerts every second to a webhook that on some days answers 500 or hangs;
//! - `kill -9` of the real binary at random moments, in the middle of a write too.
//!
//! After every day:
//!
//! - every list and page answers 200, `/metrics` answers its scraper, and no answer of the
//!   whole run was a 5xx (but the 502 a peer's fault is answered with, its code checked);
//! - every acknowledged write is there (prints with their outcome revision, movements);
//! - each spool's (bottle's, pack's) remaining quantity is its movements' sum in its unit, and
//!   no correction took it below zero (prints may: what was printed was printed);
//! - after a restart (the projection rebuilt from the store) the lists and the dashboard answer
//!   exactly as before the kill;
//! - the service's open file descriptors and resident memory stay under [`FD_BOUND`] and
//!   [`RSS_BOUND_KIB`].
//!
//! Each week, and after the last night, the night's backup restored with `printcost restore`
//! into a fresh folder answers as the service did when it was taken. At the end every outcome
//! on Spoolman's spools is in Spoolman exactly once, no alert was said to start (or clear)
//! twice, and the journal's chain verifies (`printcost journal verify` beside the running
//! service).
//!
//! `SOAK_SEED` picks another run, `SOAK_DAYS` a longer one (30 by default: under two minutes
//! here; `SOAK_DAYS=365 PRINTCOST_PEER_LIFETIME=36000` for a night: the peers it starts live
//! five minutes unless told). A failure names the seed and the day. The service runs with
//! libfaketime preloaded (`PRINTCOST_LIBFAKETIME`, which `scripts/test` sets).

mod fleet;
mod meters;
mod spoolman;

use crate::backup::printcost;
use crate::durability::Service;
use crate::outcomes::outcome;
use crate::sliced::{fixture, post_file};
use crate::support::http_double::{Reply, json as answer, serve};
use crate::support::{Shop as Inventory, TestApp, part};
use fleet::Bambuddy;
use meters::Meters;
use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use reqwest::{Method, Response};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use spoolman::Spoolman;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The shop's time zone.
const ZONE: &str = "Europe/Berlin";
/// The first day of the shop's month.
const FIRST_DAY: jiff::civil::Date = jiff::civil::date(2027, 3, 24);
/// The nightly backup's minute, local.
const NIGHTLY: jiff::civil::Time = jiff::civil::time(2, 30, 0, 0);

/// The service's wall clock, which the run moves: libfaketime, preloaded into the service,
/// adds the offset from real time that `file` holds (read again at every reading, so a change
/// is seen at once, by restarted services too). The monotonic clock stays real, so timers,
/// timeouts and the alert rounds run as they would.
struct Clock {
    file: std::path::PathBuf,
    zone: jiff::tz::TimeZone,
    /// Seconds ahead of real time.
    offset: Cell<i64>,
}

impl Clock {
    /// A clock kept in `dir`, at real time until set.
    fn new(dir: &std::path::Path) -> Clock {
        let clock = Clock {
            file: dir.join("faketime"),
            zone: jiff::tz::TimeZone::get(ZONE).unwrap(),
            offset: Cell::new(0),
        };
        clock.advance(0);
        clock
    }

    /// Moves the clock `seconds` on (and writes its offset whole: libfaketime reads the file
    /// at every reading of the clock, and a file being written could be read empty, that is
    /// as real time, for a moment).
    fn advance(&self, seconds: i64) {
        self.offset.set(self.offset.get() + seconds);
        let next = self.file.with_extension("next");
        std::fs::write(&next, format!("{:+}", self.offset.get())).unwrap();
        std::fs::rename(&next, &self.file).unwrap();
    }

    /// What the service's clock reads now (to the second).
    fn now(&self) -> jiff::Timestamp {
        let real = jiff::Timestamp::now().as_second();
        jiff::Timestamp::from_second(real + self.offset.get()).unwrap()
    }

    /// Sets the service's clock to `at` (to the second: it reads `at` plus under a second).
    fn set(&self, at: jiff::Timestamp) {
        let offset = at.as_second() - jiff::Timestamp::now().as_second();
        self.advance(offset - self.offset.get());
    }

    /// The clock at `time` of the shop's `date`.
    fn set_local(&self, date: jiff::civil::Date, time: jiff::civil::Time) {
        self.set(
            date.to_datetime(time)
                .to_zoned(self.zone.clone())
                .unwrap()
                .timestamp(),
        );
    }

    /// The first moment of `date` whose local time is `time` or later: `time` itself, or where
    /// a daylight saving change skips it, the end of the skipped hour.
    fn first_at(&self, date: jiff::civil::Date, time: jiff::civil::Time) -> jiff::Timestamp {
        let mut at = date.to_zoned(self.zone.clone()).unwrap().timestamp();
        while at.to_zoned(self.zone.clone()).time() < time {
            at = at.checked_add(jiff::SignedDuration::from_secs(60)).unwrap();
        }
        at
    }

    /// Whether `time` comes twice on `date` (the night a daylight saving change turns back).
    fn twice(&self, date: jiff::civil::Date, time: jiff::civil::Time) -> bool {
        let at = self.zone.to_ambiguous_zoned(date.to_datetime(time));
        matches!(at.offset(), jiff::tz::AmbiguousOffset::Fold { .. })
    }
}

/// Open file descriptors the service may hold at the end of a day (sockets of the day's
/// clients closed; the store, its log, listeners, the runtime's).
const FD_BOUND: usize = 64;
/// Resident memory the service may hold (KiB). Of the debug build the tests run, up to ~43 MiB
/// is its own code paged in; an idle shop is ~40 MiB; the projection is a few hundred bytes a
/// print; a nightly backup streams through 4 MiB caches (`storage/src/backup.rs`). The run's
/// last line prints the peak.
const RSS_BOUND_KIB: u64 = 200 * 1024;

/// A webhook that takes the alerts: it answers 200 (and keeps the event), 500, or hangs past
/// the service's timeout, as [`Hook::mode`] says.
struct Hook {
    url: String,
    /// 0 answers, 1 answers 500, 2 hangs.
    mode: Arc<AtomicU8>,
    /// Every event it took (answered 200), in order.
    events: Arc<Mutex<Vec<Value>>>,
}

impl Hook {
    async fn start() -> Hook {
        let mode = Arc::new(AtomicU8::new(0));
        let events = Arc::new(Mutex::new(Vec::new()));
        let (now, kept) = (mode.clone(), events.clone());
        let (url, _) = serve(move |request| match now.load(Ordering::SeqCst) {
            0 => {
                let event = serde_json::from_str(&request.body).unwrap_or(Value::Null);
                kept.lock().unwrap().push(event);
                answer("200 OK", "{}")
            }
            1 => answer("500 Internal Server Error", "{}"),
            _ => Reply::Silent(Duration::from_secs(7)),
        })
        .await;
        Hook {
            url: format!("{url}/hook"),
            mode,
            events,
        }
    }

    /// Each alert was said to start once and to clear once: per alert (its kind and subject)
    /// and episode (`since`, when it started), at most one STARTED and one CLEARED. (Their
    /// order at the webhook is free: a start retried after a 500 may arrive after its clear.)
    /// Answers how many events it took.
    fn started_once_and_cleared_once(&self, seed: u64) -> usize {
        let events = self.events.lock().unwrap();
        let mut said: BTreeMap<[String; 4], u32> = BTreeMap::new();
        for event in events.iter() {
            let key = ["kind", "subject", "since", "change"].map(|k| event[k].to_string());
            let times = said.entry(key).or_default();
            *times += 1;
            assert_eq!(*times, 1, "seed {seed}: said twice: {event}");
        }
        events.len()
    }
}

/// The environment of the run's service: libfaketime preloaded on `clock`, alert rounds and the
/// spool manager's rounds every second (30 s and 60 s by default, so a day of the run sees
/// some), the shop in [`ZONE`], sessions that last the run (a week by default, and the run's
/// days are calendar days), the bridge of `bridge` (a configuration file) in process.
fn service_env(clock: &Clock, bridge: &std::path::Path) -> Vec<(String, String)> {
    let library = std::env::var("PRINTCOST_LIBFAKETIME")
        .expect("PRINTCOST_LIBFAKETIME names libfaketime.so.1 (scripts/test installs it)");
    [
        ("LD_PRELOAD", library),
        ("FAKETIME_TIMESTAMP_FILE", clock.file.display().to_string()),
        ("FAKETIME_NO_CACHE", "1".into()),
        ("FAKETIME_DONT_FAKE_MONOTONIC", "1".into()),
        ("PRINTCOST_ALERTS_INTERVAL", "1".into()),
        ("PRINTCOST_SPOOLMGR_INTERVAL", "1".into()),
        ("PRINTCOST_TIME_ZONE", ZONE.into()),
        ("PRINTCOST_SESSION_TTL_HOURS", "20000".into()),
        ("PRINTCOST_BRIDGE_CONFIG", bridge.display().to_string()),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .to_vec()
}

/// The service with its data in `dir` and environment `env`.
fn start_service(dir: &std::path::Path, env: &[(String, String)]) -> Service {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Service::start_with(dir, &env)
}

/// The seeded dice.
struct Dice(TestRng);

impl Dice {
    fn new(seed: u64) -> Dice {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        Dice(TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n.max(1)
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// Grams with one decimal in `low..high`.
    fn grams(&mut self, low: u64, high: u64) -> Decimal {
        Decimal::new((low * 10 + self.below((high - low) * 10)) as i64, 1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// An operation key: a UUID (version 4 layout) from the dice.
    fn key(&mut self) -> String {
        let (a, b) = (self.0.next_u64(), self.0.next_u64());
        let hex = format!("{a:016x}{b:016x}");
        format!(
            "{}-{}-4{}-8{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[13..16],
            &hex[17..20],
            &hex[20..]
        )
    }
}

/// The shop as the run has been told it is: what was acknowledged.
#[derive(Default)]
struct Model {
    printers: Vec<(String, String, String)>,
    filaments: Vec<String>,
    customers: Vec<String>,
    series: String,
    blocking_task: String,
    tasks: Vec<String>,
    /// Each print: its status and its outcome's revision (0: none).
    prints: BTreeMap<String, (String, u64)>,
    spools: Vec<String>,
    /// Each filament's spools, oldest first.
    spools_of: BTreeMap<String, Vec<String>>,
    /// Every acknowledged manual movement, by spool.
    movements: BTreeMap<String, Vec<String>>,
    /// The resin printer, its vat, its build plate and its resin.
    resin: (String, String, String, String),
    /// The consumables: boxes (pieces) and alcohol (millilitres).
    boxes: String,
    alcohol: String,
    /// A movement's quantity field by spool, where it is not `grams`: `pieces`, `millilitres`.
    fields: BTreeMap<String, &'static str>,
    /// The file name of the last nightly backup and what the service answered then.
    backup: Option<(String, Vec<Value>)>,
    /// Spare hotends that went through a maintenance subject's life ([`spare_subject`]).
    subjects: u32,
    /// Spoolman's spools: the local spool and its filament.
    remote: Vec<(String, String)>,
    /// Prints drafted on one of them.
    remote_prints: Vec<String>,
}

/// The service, the run's client of it, and its counters.
struct Run {
    dir: tempfile::TempDir,
    clock: Clock,
    /// The service's environment ([`service_env`]).
    env: Vec<(String, String)>,
    /// The real Spoolman, where it is present.
    spoolman: Option<Spoolman>,
    service: Option<Service>,
    app: TestApp,
    seed: u64,
    day: Cell<u32>,
    requests: Cell<u64>,
    kills: Cell<u32>,
    /// Answers 4xx by status: what the rules refused.
    refused: RefCell<BTreeMap<u16, u64>>,
    /// The most resident memory (KiB) and open files the service had at a day's checks.
    peak: Cell<(u64, usize)>,
}

impl Model {
    /// The field a movement on `spool` sends its quantity in: its material's unit's.
    fn field(&self, spool: &str) -> &'static str {
        self.fields.get(spool).copied().unwrap_or("grams")
    }
}

impl Run {
    fn service(&self) -> &Service {
        self.service.as_ref().unwrap()
    }

    /// The body of `res`, which must answer `status`.
    async fn answer(&self, res: Response, status: u16) -> Value {
        let got = res.status();
        let body: Value = res.json().await.unwrap_or(Value::Null);
        let (seed, day) = (self.seed, self.day.get());
        assert_eq!(got, status, "seed {seed} day {day}: {body}");
        body
    }

    /// Sends `method path` (with `body`): no answer may be a 5xx.
    async fn send(&self, method: Method, path: &str, body: Option<&Value>) -> Response {
        self.request(method, path, body, false).await
    }

    /// As [`Run::send`], where a peer's fault may be answered 502 (the caller checks its code).
    async fn send_allowing_502(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Response {
        self.request(method, path, body, true).await
    }

    async fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        peer_fault: bool,
    ) -> Response {
        self.requests.set(self.requests.get() + 1);
        let mut request = self.app.client.request(method.clone(), self.app.url(path));
        if let Some(body) = body {
            request = request.json(body);
        }
        let res = request.send().await.unwrap();
        assert!(
            res.status().as_u16() < 500 || (peer_fault && res.status() == 502),
            "seed {} day {}: {method} {path} answered {}",
            self.seed,
            self.day.get(),
            res.status()
        );
        if res.status().is_client_error() {
            *self
                .refused
                .borrow_mut()
                .entry(res.status().as_u16())
                .or_default() += 1;
        }
        res
    }

    async fn json(&self, path: &str) -> Value {
        let res = self.send(Method::GET, path, None).await;
        assert_eq!(
            res.status(),
            200,
            "seed {} day {}: {path}",
            self.seed,
            self.day.get()
        );
        res.json().await.unwrap()
    }

    /// POSTs `body` to `path`; the answer's body when it is `status`.
    async fn post(&self, path: &str, body: &Value, status: u16) -> Option<Value> {
        let res = self.send(Method::POST, path, Some(body)).await;
        (res.status().as_u16() == status).then_some(())?;
        Some(res.json().await.unwrap_or(Value::Null))
    }

    /// Every item of a paged list.
    async fn all(&self, path: &str) -> Vec<Value> {
        let mut items = Vec::new();
        for page in 1.. {
            let join = if path.contains('?') { '&' } else { '?' };
            let found = self
                .json(&format!("{path}{join}page={page}&pageSize=100"))
                .await;
            let got = found["items"].as_array().unwrap();
            items.extend(got.iter().cloned());
            if got.len() < 100 {
                break;
            }
        }
        items
    }

    /// `kill -9`, then the service again on the same folder, signed in.
    async fn kill_and_restart(&mut self) {
        self.service.take().unwrap().kill_9();
        self.restart().await;
    }

    /// `kill -9` a few milliseconds into a receipt on a random spool, so that it lands or not;
    /// then the service again, the receipt sent again with its operation key: it is booked
    /// exactly once.
    async fn kill_under_a_write(&mut self, shop: &mut Model, dice: &mut Dice) {
        let spool = dice.pick(&shop.spools).clone();
        let key = dice.key();
        let field = shop.field(&spool);
        let quantity = if field == "pieces" { "2" } else { "1.5" };
        let body = json!({"kind": "RECEIPT", field: quantity, "note": "under a kill", "operationKey": key});
        let path = format!("/api/spools/{spool}/movements");
        let service = self.service.take().unwrap();
        let delay = Duration::from_micros(dice.below(8_000));
        let send = self.app.client.post(self.app.url(&path)).json(&body).send();
        let kill = async move {
            tokio::time::sleep(delay).await;
            service.kill_9();
        };
        let (_, ()) = tokio::join!(send, kill);
        self.restart().await;
        let made = self.post(&path, &body, 201).await.expect("the retry");
        shop.movements
            .entry(spool.clone())
            .or_default()
            .push(made["id"].as_str().unwrap().to_string());
        let booked = all_movements(self, &spool).await;
        let once = booked.iter().filter(|m| m["operationKey"] == key).count();
        assert_eq!(
            once,
            1,
            "seed {} day {}: booked once",
            self.seed,
            self.day.get()
        );
    }

    async fn restart(&mut self) {
        self.kills.set(self.kills.get() + 1);
        let service = self.start(self.dir.path());
        self.app = TestApp::attach(&service.base);
        self.app.login().await;
        self.service = Some(service);
    }

    /// The service on the run's clock with its data in `dir`.
    fn start(&self, dir: &std::path::Path) -> Service {
        start_service(dir, &self.env)
    }

    /// What the lists and the dashboard answer (the projection's view of the shop).
    /// Taken once the spool manager's rounds have settled; a linked spool's sync bookkeeping
    /// (when it was last synced, the last round's error) is left out: every round writes it.
    async fn view(&self) -> Vec<Value> {
        if let Some(spoolman) = &self.spoolman {
            spoolman.settle(self).await;
        }
        let mut view = Vec::new();
        for path in ["/api/prints", "/api/spools", "/api/maintenance"] {
            let mut items = self.all_or_list(path).await;
            for linked in items.iter_mut().filter(|i| !i["remoteId"].is_null()) {
                for field in ["syncedAt", "syncError", "stale", "updatedAt"] {
                    linked.as_object_mut().unwrap().remove(field);
                }
            }
            view.push(Value::Array(items));
        }
        for path in ["/api/dashboard?period=all", "/api/dashboard?period=30d"] {
            view.push(self.json(path).await);
        }
        view
    }

    async fn all_or_list(&self, path: &str) -> Vec<Value> {
        let first = self.json(path).await;
        match first.as_array() {
            Some(list) => list.clone(),
            None => self.all(path).await,
        }
    }
}

/// The shop's records, made through the API.
async fn stock_the_shop(run: &Run, dice: &mut Dice) -> Model {
    let mut shop = Model::default();
    let settings = json!({"currency": "EUR", "defaultLanguage": "de-DE", "electricityPrice": "0.32",
                          "spoolManagementEnabled": true});
    assert_eq!(
        run.send(Method::PATCH, "/api/settings", Some(&settings))
            .await
            .status(),
        200
    );
    let features = json!({"printSeriesEnabled": true});
    let res = run
        .send(Method::PATCH, "/api/settings/features", Some(&features))
        .await;
    assert_eq!(res.status(), 200);
    let maker = run
        .post("/api/manufacturers", &json!({"name": "Prusa"}), 201)
        .await
        .unwrap()["id"]
        .clone();
    let id = |v: Option<Value>| v.unwrap()["id"].as_str().unwrap().to_string();
    for n in 0..10 {
        let printer = json!({"name": format!("MK4 #{n}"), "manufacturerId": maker, "purchasePrice": "1200",
                             "expectedLifetimeHours": "6000", "averagePowerWatts": 80 + n * 5});
        let printer = id(run.post("/api/printers", &printer, 201).await);
        let component = |kind: &str, name: String| json!({"type": kind, "name": name, "purchasePrice": "80", "expectedLifetimeHours": "2000"});
        let hotend = component("HOTEND", format!("Hotend #{n}"));
        let hotend = id(run.post("/api/components", &hotend, 201).await);
        let plate = component("BUILD_PLATE", format!("Plate #{n}"));
        let plate = id(run.post("/api/components", &plate, 201).await);
        shop.printers.push((printer, hotend, plate));
    }
    for (material, colour) in [
        ("PLA", "Black"),
        ("PETG", "Blue"),
        ("ASA", "Grey"),
        ("TPU", "Red"),
    ] {
        let filament = json!({"manufacturerId": maker, "material": material, "colorName": colour,
                              "colorHex": "#336699", "purchasePrice": "24.99", "netWeightGrams": "1000",
                              "minimumStockGrams": "1500"});
        let filament = id(run.post("/api/filaments", &filament, 201).await);
        for _ in 0..2 {
            let spool = json!({"filamentId": filament, "purchasePrice": "24.99", "initialNetWeightGrams": "1000"});
            let spool = id(run.post("/api/spools", &spool, 201).await);
            shop.spools.push(spool.clone());
            shop.spools_of
                .entry(filament.clone())
                .or_default()
                .push(spool);
        }
        shop.filaments.push(filament);
    }
    let msla = json!({"name": "Resin printer", "manufacturerId": maker, "purchasePrice": "600",
                      "expectedLifetimeHours": "3000", "averagePowerWatts": 60, "technology": "MSLA"});
    let msla = id(run.post("/api/printers", &msla, 201).await);
    let vat =
        json!({"type": "VAT", "name": "Vat", "purchasePrice": "30", "expectedLifetimePrints": 200});
    let vat = id(run.post("/api/components", &vat, 201).await);
    let plate = json!({"type": "BUILD_PLATE", "name": "Resin plate", "purchasePrice": "60", "expectedLifetimeHours": "1200"});
    let plate = id(run.post("/api/components", &plate, 201).await);
    let resin = json!({"kind": "RESIN", "manufacturerId": maker, "material": "Standard", "colorName": "Grey",
                       "colorHex": "#808080", "purchasePrice": "34.99", "netQuantity": "1000"});
    let resin = id(run.post("/api/materials", &resin, 201).await);
    shop.resin = (msla, vat, plate, resin);
    for (unit, material, price, field) in [
        ("RESIN", "", "", "millilitres"),
        ("PIECE", "Boxes", "25", "pieces"),
        ("MILLILITRE", "Isopropyl alcohol", "9.50", "millilitres"),
    ] {
        let consumable = match unit {
            "RESIN" => shop.resin.3.clone(),
            _ => {
                let made = json!({"kind": "CONSUMABLE", "unit": unit, "manufacturerId": maker,
                                  "material": material, "purchasePrice": price, "netQuantity": "1000"});
                id(run.post("/api/materials", &made, 201).await)
            }
        };
        // Its opening pack, opened with it while spool management is on.
        let packs = run
            .json(&format!("/api/spools?filamentId={consumable}"))
            .await;
        let pack = packs["items"][0]["id"].as_str().unwrap().to_string();
        shop.spools.push(pack.clone());
        shop.spools_of
            .insert(consumable.clone(), vec![pack.clone()]);
        shop.fields.insert(pack, field);
        match unit {
            "PIECE" => shop.boxes = consumable,
            "MILLILITRE" => shop.alcohol = consumable,
            _ => {}
        }
    }
    for name in ["Verein", "Schule", "Werkstatt"] {
        let customer = json!({"name": name});
        shop.customers
            .push(id(run.post("/api/customers", &customer, 201).await));
    }
    let token = json!({"token": SCRAPE_TOKEN});
    let res = run
        .send(Method::PUT, "/api/settings/metrics", Some(&token))
        .await;
    assert_eq!(res.status(), 200, "the scrape token");
    let series = json!({"name": "Pokale", "customerId": shop.customers[0]});
    shop.series = id(run.post("/api/series", &series, 201).await);
    for (n, (printer, _, plate)) in shop.printers.iter().enumerate() {
        let count = 5 + dice.below(20);
        let task = json!({"printerId": printer, "componentId": plate, "name": format!("Plate #{n}"),
                          "every": {"unit": "PRINTS", "count": count}, "blocking": n == 0});
        let task = id(run.post("/api/maintenance", &task, 201).await);
        if n == 0 {
            shop.blocking_task = task.clone();
        }
        shop.tasks.push(task);
    }
    shop
}

/// A maintenance subject's life, on day `day`: a spare hotend gets a task (due after every
/// print of its printer), the task is done, the hotend archived; deleting it is refused while
/// the task refers to it (409 `REFERENCED`), the task archived too, still refused; a spare that
/// nothing refers to is archived and deleted (204). The day's checks then walk every list and
/// page with the archived subject under its task.
async fn spare_subject(run: &Run, shop: &mut Model, dice: &mut Dice, day: u32) {
    let seed = run.seed;
    let id = |v: Option<Value>| v.unwrap()["id"].as_str().unwrap().to_string();
    let (printer, _, _) = dice.pick(&shop.printers).clone();
    let hotend = |name: String| json!({"type": "HOTEND", "name": name, "purchasePrice": "45", "expectedLifetimeHours": "1500"});
    let archive = |path: String, what: &'static str| async move {
        let res = run
            .send(Method::PATCH, &path, Some(&json!({"archived": true})))
            .await;
        assert_eq!(res.status(), 200, "seed {seed} day {day}: {what}");
    };
    let spare = hotend(format!("Spare hotend, day {day}"));
    let spare = id(run.post("/api/components", &spare, 201).await);
    let task = json!({"printerId": printer, "componentId": spare, "name": format!("Spare, day {day}"),
                      "every": {"unit": "PRINTS", "count": 1}, "blocking": false});
    let task = id(run.post("/api/maintenance", &task, 201).await);
    let done = format!("/api/maintenance/{task}/done");
    run.post(&done, &json!({"note": "checked"}), 200)
        .await
        .expect("the spare's task done");
    let component = format!("/api/components/{spare}");
    archive(component.clone(), "the spare archived").await;
    let path = component.as_str();
    let refused = |what: &'static str| async move {
        let res = run.send(Method::DELETE, path, None).await;
        assert_eq!(res.status(), 409, "seed {seed} day {day}: {what}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(
            body["data"]["code"], "REFERENCED",
            "seed {seed} day {day}: {what}: {body}"
        );
    };
    refused("a subject its task refers to").await;
    let maintenance = format!("/api/maintenance/{task}");
    archive(maintenance.clone(), "the task archived").await;
    refused("a subject its archived task refers to").await;
    let archived = run.json(&maintenance).await;
    assert_eq!(
        archived["archived"], true,
        "seed {seed} day {day}: {archived}"
    );
    let free = hotend(format!("Unused hotend, day {day}"));
    let free = format!(
        "/api/components/{}",
        id(run.post("/api/components", &free, 201).await)
    );
    archive(free.clone(), "the unused spare archived").await;
    let res = run.send(Method::DELETE, &free, None).await;
    assert_eq!(
        res.status(),
        204,
        "seed {seed} day {day}: the unused spare deleted"
    );
    shop.subjects += 1;
}

/// The token `/metrics` is scraped with.
const SCRAPE_TOKEN: &str = "soak-scrape-token-0123456789";

/// A draft from a sliced file (PrusaSlicer's G-code of a cube): its time and grams from the
/// preview, on a random printer and the preview's filament slot filled from the shop; its id.
async fn sliced_draft(run: &Run, shop: &mut Model, dice: &mut Dice) -> String {
    let bytes = fixture("prusa-one-filament.gcode");
    let res = post_file(
        &run.app.client,
        &run.app,
        "/api/prints/sliced",
        "file",
        "cube.gcode",
        &bytes,
    )
    .await;
    run.requests.set(run.requests.get() + 1);
    assert_eq!(
        res.status(),
        200,
        "seed {} day {}: the preview",
        run.seed,
        run.day.get()
    );
    let preview: Value = res.json().await.unwrap();
    let part = &preview["parts"][0];
    let (printer, hotend, plate) = dice.pick(&shop.printers).clone();
    let filament = dice.pick(&shop.filaments).clone();
    let spool = shop.spools_of[&filament].last().unwrap();
    let body = json!({"name": format!("Sliced cube, day {}", run.day.get()), "salesValue": "12",
        "parts": [{"printerId": printer, "buildPlateId": plate,
                   "hotends": [{"componentId": hotend, "durationSeconds": part["durationSeconds"]}],
                   "filaments": [{"filamentId": filament, "spoolId": spool,
                                  "usedGrams": part["filaments"][0]["grams"]}]}],
        "source": {"fileName": preview["file"]["name"], "sha256": preview["file"]["sha256"],
                   "slicer": preview["slicer"], "slicerVersion": preview["slicerVersion"]}});
    let res = run.send(Method::POST, "/api/prints", Some(&body)).await;
    let made = run.answer(res, 201).await;
    let id = made["id"].as_str().unwrap().to_string();
    let kept = run.json(&format!("/api/prints/{id}")).await;
    assert_eq!(kept["source"]["sha256"], preview["file"]["sha256"]);
    shop.prints.insert(id.clone(), ("DRAFT".into(), 0));
    id
}

/// `/metrics` scraped with its token: 200 and the shop's series.
/// The nights the run has seen: backups taken, and those on nights of a daylight saving change.
#[derive(Default)]
struct Nights {
    taken: u32,
    /// Nights whose 02:30 does not exist.
    skipped: u32,
    /// Nights whose 02:30 comes twice.
    twice: u32,
}

/// The night before `date`'s day: the clock is set a second before the first moment of `date`
/// at 02:30 or later, and the service's scheduler takes its backup then (checked, listed, named
/// by that moment); where 02:30 comes twice, the second passes without another. The new file's
/// name.
async fn nightly(run: &Run, date: jiff::civil::Date, nights: &mut Nights) -> String {
    let (seed, day) = (run.seed, run.day.get());
    let files = |backups: &Value| -> Vec<String> {
        backups["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect()
    };
    let before = files(&run.json("/api/backups").await);
    let minute = run.clock.first_at(date, NIGHTLY);
    run.clock.set(
        minute
            .checked_sub(jiff::SignedDuration::from_secs(1))
            .unwrap(),
    );
    // The file is listed once written and checked, the run recorded a moment later.
    let mut backups = run.json("/api/backups").await;
    let new_run = |backups: &Value| {
        backups["lastRun"]["at"].is_string()
            && !before
                .iter()
                .any(|name| backups["lastRun"]["file"] == name.as_str())
    };
    for _ in 0..300 {
        if new_run(&backups) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        backups = run.json("/api/backups").await;
    }
    assert!(
        new_run(&backups),
        "seed {seed} day {day}: no nightly backup: {backups}"
    );
    assert_eq!(
        backups["lastRun"]["ok"], true,
        "seed {seed} day {day}: {backups}"
    );
    let name = files(&backups)[0].clone();
    assert_eq!(
        backups["lastRun"]["file"],
        name.as_str(),
        "seed {seed} day {day}: {backups} (before: {before:?})"
    );
    let taken: jiff::Timestamp = backups["files"][0]["takenAt"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let late = taken.duration_since(minute).as_secs();
    assert!(
        (0..=3).contains(&late),
        "seed {seed} day {day}: the nightly backup ran at {taken}, its minute was {minute}"
    );
    nights.taken += 1;
    if minute.to_zoned(run.clock.zone.clone()).time() != NIGHTLY {
        nights.skipped += 1;
    }
    if run.clock.twice(date, NIGHTLY) {
        nights.twice += 1;
        let again = minute
            .checked_add(jiff::SignedDuration::from_hours(1))
            .unwrap();
        run.clock.set(again);
        tokio::time::sleep(Duration::from_secs(3)).await;
        let after = run.json("/api/backups").await;
        assert_eq!(
            after["files"][0]["name"],
            name.as_str(),
            "seed {seed} day {day}: twice"
        );
        assert_eq!(
            after["lastRun"], backups["lastRun"],
            "seed {seed} day {day}: twice"
        );
    }
    name
}

/// Nightly backup `name`, downloaded and restored with `printcost restore` into a fresh folder,
/// answers as the service did when it was taken (`then`). The restored service runs beside the
/// live one for the check, without the bridge (one client id on the broker), with Spoolman out
/// of its reach (the operations its store holds are the live service's to send) and the webhook
/// answering 500 (its alerts are the live service's to tell).
async fn restores(run: &mut Run, hook: &Hook, name: &str, then: &[Value]) {
    let (seed, day) = (run.seed, run.day.get());
    let res = run
        .send(Method::GET, &format!("/api/backups/{name}"), None)
        .await;
    let file = run.dir.path().join("restored.redb");
    std::fs::write(&file, res.bytes().await.unwrap()).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let restored = printcost(&["restore", file.to_str().unwrap()], fresh.path());
    assert!(
        restored.status.success(),
        "seed {seed} day {day}: {restored:?}"
    );
    let env: Vec<(String, String)> = run
        .env
        .iter()
        .filter(|(k, _)| k != "PRINTCOST_BRIDGE_CONFIG")
        .cloned()
        .collect();
    let up = run.spoolman.as_ref().is_some_and(Spoolman::is_up);
    if let Some(spoolman) = &run.spoolman {
        spoolman.reachable(false);
    }
    let mode = hook.mode.swap(1, Ordering::SeqCst);
    let service = start_service(fresh.path(), &env);
    let app = TestApp::attach(&service.base);
    app.login().await;
    let live = std::mem::replace(&mut run.app, app);
    let view = run.view().await;
    run.app = live;
    drop(service);
    hook.mode.store(mode, Ordering::SeqCst);
    if let Some(spoolman) = &run.spoolman {
        spoolman.reachable(up);
    }
    assert_eq!(view, then, "seed {seed} day {day}: {name} answers as then");
}

async fn scrape(run: &Run) {
    run.requests.set(run.requests.get() + 1);
    let res = reqwest::Client::new()
        .get(run.app.url("/metrics"))
        .bearer_auth(SCRAPE_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        200,
        "seed {} day {}: /metrics",
        run.seed,
        run.day.get()
    );
    let text = res.text().await.unwrap();
    assert!(text.contains("printcost_"), "seed {}: {text}", run.seed);
}

/// A draft on a random printer of a random filament; its id.
async fn draft(run: &Run, shop: &mut Model, dice: &mut Dice, n: usize) -> String {
    let (printer, hotend, plate) = dice.pick(&shop.printers).clone();
    let filament = dice.pick(&shop.filaments).clone();
    let grams = dice.grams(5, 120).to_string();
    let seconds = 600 + dice.below(20_000) as u32;
    let inventory = Inventory {
        maker: String::new(),
        printer,
        hotend,
        plate,
        belts: String::new(),
        filament,
        customer: String::new(),
    };
    let mut body = json!({"name": format!("Day {} #{n}", run.day.get()),
                          "parts": [part(&inventory, seconds, &grams)],
                          "salesValue": "25"});
    // The filament's newest spool (a restock's, once there is one), or one of Spoolman's.
    let spool = shop.spools_of[&inventory.filament].last().unwrap();
    body["parts"][0]["filaments"][0]["spoolId"] = json!(spool);
    let remote = !shop.remote.is_empty() && dice.chance(15);
    if remote {
        let (spool, filament) = dice.pick(&shop.remote);
        body["parts"][0]["filaments"][0]["spoolId"] = json!(spool);
        body["parts"][0]["filaments"][0]["filamentId"] = json!(filament);
    }
    if dice.chance(15) {
        // On the resin printer: its vat for the part's time, resin in millilitres.
        let (printer, vat, plate, resin) = &shop.resin;
        let bottle = shop.spools_of[resin].last().unwrap();
        body["parts"] = json!([{
            "printerId": printer, "buildPlateId": plate,
            "vat": {"componentId": vat, "durationSeconds": seconds},
            "materials": [{"materialId": resin, "quantity": grams, "spoolId": bottle}]
        }]);
    }
    if dice.chance(40) {
        // Packed: a box per piece, alcohol for the job.
        body["quantity"] = json!(1 + dice.below(4));
        let ml = dice.grams(5, 50).to_string();
        let pack = |material: &String| shop.spools_of[material].last().unwrap().clone();
        body["materials"] = json!([
            {"materialId": shop.boxes, "amount": "1", "per": "PIECE", "spoolId": pack(&shop.boxes)},
            {"materialId": shop.alcohol, "amount": ml, "per": "JOB", "spoolId": pack(&shop.alcohol)}
        ]);
    }
    if dice.chance(50) {
        body["customerId"] = json!(dice.pick(&shop.customers));
    }
    if dice.chance(10) {
        // A series' prints are its customer's.
        body["seriesId"] = json!(shop.series);
        body["customerId"] = json!(shop.customers[0]);
    }
    let res = run.send(Method::POST, "/api/prints", Some(&body)).await;
    let made = run.answer(res, 201).await;
    let id = made["id"].as_str().unwrap().to_string();
    shop.prints.insert(id.clone(), ("DRAFT".into(), 0));
    if remote {
        shop.remote_prints.push(id.clone());
    }
    id
}

/// Moves a print on: PRINTING, then DONE.
async fn print_it(run: &Run, shop: &mut Model, id: &str) {
    start_printing(run, shop, id).await;
    complete(run, shop, id).await;
}

/// Moves a print to PRINTING (a blocking overdue task refuses it: the task is done, then
/// again); answers it.
async fn start_printing(run: &Run, shop: &mut Model, id: &str) -> Value {
    let path = format!("/api/prints/{id}/status");
    let body = json!({"status": "PRINTING"});
    let started = match run.post(&path, &body, 200).await {
        Some(started) => started,
        None => {
            let done = format!("/api/maintenance/{}/done", shop.blocking_task);
            run.post(&done, &json!({"note": "before the next print"}), 200)
                .await
                .expect("the blocking task is marked done");
            run.post(&path, &body, 200)
                .await
                .expect("the print starts once the task is done")
        }
    };
    shop.prints.get_mut(id).unwrap().0 = "PRINTING".into();
    started
}

/// Moves a printing print to DONE; answers it.
async fn complete(run: &Run, shop: &mut Model, id: &str) -> Value {
    let complete = format!("/api/prints/{id}/complete");
    let done = run.post(&complete, &json!({}), 200).await;
    let done = done.expect("a printing print completes");
    shop.prints.get_mut(id).unwrap().0 = "DONE".into();
    done
}

/// Records an outcome (a fifth of them failures), sometimes corrected.
async fn record(run: &Run, shop: &mut Model, dice: &mut Dice, id: &str) {
    let print = run.json(&format!("/api/prints/{id}")).await;
    let status = if dice.chance(20) { "FAILED" } else { "SUCCESS" };
    let grams = dice.grams(1, 130).to_string();
    let body = outcome_of(
        &print,
        status,
        600 + dice.below(20_000) as u32,
        &grams,
        dice,
    );
    let path = format!("/api/prints/{id}/outcome");
    // Refused only when a spool would go below zero (422).
    if run.post(&path, &body, 200).await.is_none() {
        return;
    }
    shop.prints.get_mut(id).unwrap().1 = 1;
    if dice.chance(15) {
        let grams = dice.grams(1, 130).to_string();
        let mut fix = outcome_of(&print, "SUCCESS", 5400, &grams, dice);
        fix["correctionNote"] = json!("weighed the leftovers");
        fix["expectedRevision"] = json!(1);
        fix["operationKey"] = json!(dice.key());
        if run
            .post(&format!("{path}/correct"), &fix, 200)
            .await
            .is_some()
        {
            shop.prints.get_mut(id).unwrap().1 = 2;
        }
    }
}

/// An outcome of `print`: `grams` of each filament, as many millilitres of its resin, and of
/// the print's own consumables each as planned or one more (a box crushed, a splash of
/// alcohol).
fn outcome_of(print: &Value, status: &str, seconds: u32, grams: &str, dice: &mut Dice) -> Value {
    let mut body = outcome(print, status, seconds, grams);
    let usages = print["usages"].as_array().unwrap();
    let (filaments, resins): (Vec<&Value>, Vec<&Value>) =
        usages.iter().partition(|u| u["materialKind"] == "FILAMENT");
    let filaments = filaments
        .iter()
        .map(|u| json!({"usageId": u["id"], "usedGrams": grams}));
    body["filaments"] = Value::Array(filaments.collect());
    let resins = resins
        .iter()
        .map(|u| json!({"usageId": u["id"], "quantity": grams}));
    let own = print["materials"].as_array().unwrap().iter().map(|m| {
        let planned = Decimal::from_str(m["quantity"].as_str().unwrap()).unwrap();
        let used = planned + Decimal::from(dice.below(2));
        json!({"usageId": m["usageId"], "quantity": used.to_string()})
    });
    body["materials"] = Value::Array(resins.chain(own).collect());
    body
}

/// A manual correction or a receipt on a random spool; low spools get a new one.
async fn book(run: &Run, shop: &mut Model, dice: &mut Dice) {
    let spool = dice.pick(&shop.spools).clone();
    let grams = if dice.chance(70) {
        -dice.grams(1, 60)
    } else {
        dice.grams(1, 30)
    };
    let kind = if grams.is_sign_negative() {
        "CORRECTION"
    } else {
        "RECEIPT"
    };
    let key = dice.key();
    let field = shop.field(&spool);
    // A pack counts whole pieces (a part of one is refused: 422).
    let grams = if field == "pieces" {
        grams.round()
    } else {
        grams
    };
    let body = json!({"kind": kind, field: grams.to_string(), "note": "soak", "operationKey": key});
    let path = format!("/api/spools/{spool}/movements");
    if let Some(made) = run.post(&path, &body, 201).await {
        let id = made["id"].as_str().unwrap().to_string();
        shop.movements.entry(spool).or_default().push(id);
    }
    // Below its minimum, a filament gets a new spool.
    for filament in shop.filaments.clone() {
        let stock = run.json(&format!("/api/filaments/{filament}/stock")).await;
        if stock["belowMinimum"] == true {
            let spool = json!({"filamentId": filament, "purchasePrice": "24.99", "initialNetWeightGrams": "1000"});
            let made = run.post("/api/spools", &spool, 201).await;
            let made = made.expect("a new spool")["id"]
                .as_str()
                .unwrap()
                .to_string();
            shop.spools.push(made.clone());
            shop.spools_of.entry(filament).or_default().push(made);
        }
    }
}

/// Every list and page answers 200; the ledger sums hold; every acknowledged write is there.
async fn check(run: &Run, shop: &Model) {
    let (seed, day) = (run.seed, run.day.get());
    for path in [
        "/api/prints",
        "/api/spools",
        "/api/maintenance",
        "/api/customers",
        "/api/printers",
        "/api/components",
        "/api/filaments",
        "/api/series",
        "/api/dashboard",
        "/api/alerts",
        "/api/journal",
        "/api/backups",
    ] {
        run.json(path).await;
    }
    for path in [
        "/dashboard",
        "/prints",
        "/stock",
        "/maintenance",
        "/series",
        "/settings/journal",
    ] {
        let res = run.send(Method::GET, path, None).await;
        assert_eq!(res.status(), 200, "seed {seed} day {day}: {path}");
    }
    for (id, (status, revision)) in &shop.prints {
        let print = run.json(&format!("/api/prints/{id}")).await;
        assert_eq!(
            print["status"], *status,
            "seed {seed} day {day}: print {id}"
        );
        let stored = print["outcome"]["revision"].as_u64().unwrap_or(0);
        assert_eq!(stored, *revision, "seed {seed} day {day}: outcome of {id}");
    }
    for spool in &shop.spools {
        let detail = run.json(&format!("/api/spools/{spool}")).await;
        let remaining = Decimal::from_str(detail["spool"]["remainingQuantity"].as_str().unwrap());
        let remaining = remaining.unwrap();
        let booked = all_movements(run, spool).await;
        let sum: Decimal = booked
            .iter()
            .map(|m| Decimal::from_str(m["quantity"].as_str().unwrap()).unwrap())
            .sum();
        assert_eq!(remaining, sum, "seed {seed} day {day}: spool {spool}");
        // Prints may take a spool below zero (what was printed was printed); a correction
        // that takes grams away never does. The ledger answers newest first.
        let mut balance = Decimal::ZERO;
        for m in booked.iter().rev() {
            let grams = Decimal::from_str(m["quantity"].as_str().unwrap()).unwrap();
            balance += grams;
            if m["kind"] == "CORRECTION" && grams.is_sign_negative() {
                assert!(
                    !balance.is_sign_negative(),
                    "seed {seed} day {day}: {spool} below zero by a correction: {m}"
                );
            }
        }
        for id in shop.movements.get(spool).into_iter().flatten() {
            assert!(
                booked.iter().any(|m| m["id"] == *id),
                "seed {seed} day {day}: movement {id} of {spool} acknowledged and gone"
            );
        }
    }
    let pid = run.service().pid();
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    assert!(fds <= FD_BOUND, "seed {seed} day {day}: {fds} open files");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    assert!(rss <= RSS_BOUND_KIB, "seed {seed} day {day}: RSS {rss} KiB");
    let (most_rss, most_fds) = run.peak.get();
    run.peak.set((most_rss.max(rss), most_fds.max(fds)));
}

/// A spool's movements, every page of them.
async fn all_movements(run: &Run, spool: &str) -> Vec<Value> {
    let mut items = Vec::new();
    for page in 1.. {
        let detail = run
            .json(&format!("/api/spools/{spool}?page={page}&pageSize=100"))
            .await;
        let got = detail["movements"]["items"].as_array().unwrap();
        items.extend(got.iter().cloned());
        if got.len() < 100 {
            break;
        }
    }
    items
}

#[actix_web::test]
async fn a_shops_month_with_its_features_at_once_keeps_every_invariant() {
    let seed = std::env::var("SOAK_SEED").map_or(48, |s| s.parse().unwrap());
    let days: u32 = std::env::var("SOAK_DAYS").map_or(30, |s| s.parse().unwrap());
    let mut dice = Dice::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let clock = Clock::new(dir.path());
    clock.set_local(FIRST_DAY, jiff::civil::time(9, 0, 0, 0));
    let mut meters = Meters::start(dir.path());
    let env = service_env(&clock, &meters.config);
    let service = start_service(dir.path(), &env);
    let app = TestApp::attach(&service.base);
    app.setup().await;
    let hook = Hook::start().await;
    let mut run = Run {
        dir,
        clock,
        env,
        spoolman: None,
        service: Some(service),
        app,
        seed,
        day: Cell::new(0),
        requests: Cell::new(0),
        kills: Cell::new(0),
        peak: Cell::new((0, 0)),
        refused: RefCell::default(),
    };
    let webhook = json!({"name": "Shop", "url": hook.url, "form": "JSON"});
    run.post("/api/settings/alerts/webhooks", &webhook, 201)
        .await
        .expect("the webhook");
    let schedule = json!({"enabled": true, "time": "02:30", "keepDays": 7, "keepWeeks": 4});
    let res = run
        .send(Method::PUT, "/api/backups/schedule", Some(&schedule))
        .await;
    assert_eq!(res.status(), 200, "the nightly schedule");
    let mut shop = stock_the_shop(&run, &mut dice).await;
    run.spoolman = Spoolman::link(&run).await;
    let remote = run.spoolman.iter().flat_map(|s| &s.remote);
    shop.remote = remote
        .map(|r| (r.spool.clone(), r.filament.clone()))
        .collect();
    let mut bambuddy = Bambuddy::link(&run, &shop).await;
    meters.link(&run, &shop).await;
    let mut nights = Nights::default();
    let mut restored = 0;
    for day in 1..=days {
        run.day.set(day);
        let date = FIRST_DAY
            .checked_add(jiff::Span::new().days(day - 1))
            .unwrap();
        if day > 1 {
            run.clock.set_local(date, jiff::civil::time(9, 0, 0, 0));
        }
        // Kill -9 at a random moment of a fifth of the days: between writes, or under one
        // (its answer never arrives, so it was not acknowledged: whether it is there is free).
        // The first day always has one between writes, the second one under a write.
        let kill_at = match day {
            1 => Some(1),
            _ => dice.chance(20).then(|| dice.below(30)),
        };
        // A fifth of the days the webhook answers 500 or hangs; the rest it answers.
        let fault = if dice.chance(20) {
            1 + dice.below(2)
        } else {
            0
        };
        hook.mode.store(fault as u8, Ordering::SeqCst);
        // A fifth of the days Spoolman is down, until the next.
        let outage = dice.chance(20);
        if let Some(spoolman) = run.spoolman.as_mut() {
            spoolman.set_up(!outage);
        }
        let mut step = 0;
        let mut drafts = Vec::new();
        for n in 0..(5 + dice.below(10)) as usize {
            drafts.push(draft(&run, &mut shop, &mut dice, n).await);
            step += 1;
            if kill_at == Some(step) {
                let before = run.view().await;
                run.kill_and_restart().await;
                assert_eq!(run.view().await, before, "seed {seed} day {day}: rebuilt");
            }
        }
        if dice.chance(30) {
            drafts.push(sliced_draft(&run, &mut shop, &mut dice).await);
        }
        for id in drafts {
            if dice.chance(80) {
                print_it(&run, &mut shop, &id).await;
                if dice.chance(85) {
                    let print = run.json(&format!("/api/prints/{id}")).await;
                    if bambuddy.takes(&print) && dice.chance(80) {
                        bambuddy.import(&run, &mut shop, &mut dice, &id).await;
                    } else {
                        record(&run, &mut shop, &mut dice, &id).await;
                    }
                }
            }
            step += 1;
            if kill_at == Some(step) {
                run.kill_under_a_write(&mut shop, &mut dice).await;
            }
        }
        if day == 2 {
            run.kill_under_a_write(&mut shop, &mut dice).await;
        }
        if dice.chance(50) {
            meters.metered_print(&run, &mut shop, &mut dice).await;
        }
        for _ in 0..dice.below(6) {
            book(&run, &mut shop, &mut dice).await;
        }
        if dice.chance(30) {
            let task = dice.pick(&shop.tasks).clone();
            let done = format!("/api/maintenance/{task}/done");
            run.post(&done, &json!({}), 200).await.expect("task done");
        }
        if day == 3 || dice.chance(15) {
            spare_subject(&run, &mut shop, &mut dice, day).await;
        }
        if dice.chance(20) {
            // A referenced record is not deleted: 409, and everything still answers.
            let (printer, _, _) = dice.pick(&shop.printers).clone();
            let res = run
                .send(Method::DELETE, &format!("/api/printers/{printer}"), None)
                .await;
            assert_eq!(res.status(), 409, "seed {seed} day {day}: a used printer");
        }
        scrape(&run).await;
        // The night: the service's own backup at its minute, and what it answers then.
        if let Some(spoolman) = &run.spoolman {
            spoolman.settle(&run).await;
        }
        let name = nightly(&run, date.tomorrow().unwrap(), &mut nights).await;
        let then = run.view().await;
        // Every week the night's backup is restored beside the running service.
        if day % 7 == 0 {
            restores(&mut run, &hook, &name, &then).await;
            restored += 1;
        }
        shop.backup = Some((name, then));
        check(&run, &shop).await;
    }
    // Outcomes booked millilitres and pieces from the bottle and the packs as from spools.
    for consumable in [&shop.resin.3, &shop.boxes, &shop.alcohol] {
        let pack = &shop.spools_of[consumable][0];
        let booked = all_movements(&run, pack).await;
        let printed = booked.iter().filter(|m| m["kind"] == "PRINT").count();
        assert!(printed > 0, "seed {seed}: no print booked from {pack}");
    }
    // The alerts the webhook took: each started once and cleared once.
    hook.mode.store(0, Ordering::SeqCst);
    let told = hook.started_once_and_cleared_once(seed);
    assert!(told > 0, "seed {seed}: the webhook was told of alerts");
    // The journal's chain, checked beside the running service.
    let verify = printcost(&["journal", "verify"], run.dir.path());
    assert!(
        verify.status.success(),
        "seed {seed}: {}",
        String::from_utf8_lossy(&verify.stdout)
    );
    // Every outcome on Spoolman's spools is there exactly once.
    if let Some(mut spoolman) = run.spoolman.take() {
        let confirmed = spoolman.reconcile(&run, &shop.remote_prints).await;
        println!(
            "soak seed {seed}: Spoolman down {} days; {} prints on its spools, each outcome in it \
             once; {confirmed} UNKNOWN operations confirmed by a person",
            spoolman.outages,
            shop.remote_prints.len()
        );
        run.spoolman = Some(spoolman);
    }
    // The last nightly backup restores into a store that answers as the service did then.
    let (name, then) = shop.backup.take().unwrap();
    restores(&mut run, &hook, &name, &then).await;
    restored += 1;
    println!(
        "soak seed {seed}: {days} days, {} prints, {} requests (refused as the rules say, by \
         status: {:?}), {} kill -9, {} nightly backups by the service's schedule ({} on a night \
         without 02:30, {} on a night with two, none twice), {restored} restored (each week's and \
         the last), {told} alert events taken by the webhook, {} maintenance subjects archived under their tasks, {} \
         outcomes imported from Bambuddy's log ({} of its faults refused with their codes first), \
         metered runs by what their meter played: {:?}; at most {} KiB resident and {} open \
         files",
        shop.prints.len(),
        run.requests.get(),
        run.refused.borrow(),
        run.kills.get(),
        nights.taken,
        nights.skipped,
        nights.twice,
        shop.subjects,
        bambuddy.imported,
        bambuddy.faults,
        meters.played,
        run.peak.get().0,
        run.peak.get().1
    );
}
