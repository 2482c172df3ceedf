//! Meters in the month's soak: the service runs its bridge in process against an external
//! mosquitto, with an SDM120 played by pymodbus (import energy, input register 0x0048,
//! float32) on one printer and a Tasmota plug publishing `ENERGY.Total` on another. Half the
//! days a print runs on one of them for half an hour (of the run's clock) and its meter plays
//! one of:
//!
//! - nothing wrong: the counter rises by [`STEP`] mid-run, and the run is metered at exactly
//!   that;
//! - a counter reset: the device or plug replaced by one reading 0.5 kWh less (estimated,
//!   `COUNTER_WENT_BACK`; the counters stay quarters of a kWh, exact as float32s and within
//!   the history's six decimals, and rises outnumber resets, so they never reach zero);
//! - silence: the device stopped, the plug quiet (estimated, `METER_SILENT_AT_END`);
//! - NaN: a float32 NaN, which the bridge publishes as null, or a plug's `"NaN"`; neither is a
//!   reading, so the same.

use super::{Dice, Inventory, Model, Run, complete, outcome_of, start_printing};
use crate::meters::peers::{self, Peer};
use crate::support::part;
use reqwest::Method;
use rumqttc::{Client, MqttOptions, QoS};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the counter rises by in a run that goes well, kWh (exact as a float32).
const STEP: Decimal = Decimal::from_parts(25, 0, 0, false, 2);
/// How long a metered run lasts (the service's clock is moved on so far under it).
const RUN_SECONDS: i64 = 1800;
/// The plug's topic.
const PLUG_TOPIC: &str = "tele/plug-mk3/SENSOR";

/// What a metered run's meter plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Play {
    Rises,
    Reset,
    Silent,
    NaN,
}

/// A Tasmota plug: publishes its payload every 200 ms (nothing while it is `None`).
struct Plug {
    payload: Arc<Mutex<Option<String>>>,
    stop: Arc<AtomicBool>,
}

impl Plug {
    fn start(broker: u16) -> Plug {
        let mut options = MqttOptions::new("soak-plug-mk3", "127.0.0.1", broker);
        options.set_keep_alive(Duration::from_secs(5));
        let (client, mut connection) = Client::new(options, 16);
        let payload: Arc<Mutex<Option<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for event in connection.iter() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                if event.is_err() {
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        });
        let (current, stopped) = (payload.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stopped.load(Ordering::SeqCst) {
                let message = current.lock().unwrap().clone();
                if let Some(message) = message {
                    let _ = client.publish(PLUG_TOPIC, QoS::AtMostOnce, false, message);
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            let _ = client.disconnect();
        });
        Plug { payload, stop }
    }

    fn set(&self, payload: Option<String>) {
        *self.payload.lock().unwrap() = payload;
    }
}

impl Drop for Plug {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The meters, their peers and what they played.
pub struct Meters {
    _mosquitto: Peer,
    device_port: u16,
    device: Option<Peer>,
    /// The SDM120's counter, kWh.
    sdm: Decimal,
    plug: Plug,
    /// The plug's counter, kWh.
    plug_total: Decimal,
    /// The bridge's configuration file.
    pub config: PathBuf,
    /// The SDM120's printer and the plug's.
    printers: [String; 2],
    /// Runs by what their meter played.
    pub played: BTreeMap<String, u32>,
}

impl Meters {
    /// mosquitto, the SDM120 and the plug, and the bridge's configuration in `dir`.
    pub fn start(dir: &Path) -> Meters {
        let broker = peers::free_port();
        let mosquitto = peers::mosquitto(broker, dir);
        let device_port = peers::free_port();
        let yaml = format!(
            "mqtt:\n  host: 127.0.0.1\n  port: {broker}\n  base_topic: shop\n  client_id: printcost-soak\nsources:\n  - id: sdm120\n    host: 127.0.0.1\n    port: {device_port}\n    unit_id: 1\n    poll_interval_ms: 200\n    points:\n      - {{name: Import energy, topic: import_kwh, address: 72, kind: input, data_type: f32}}\n"
        );
        let config = dir.join("bridge.yml");
        std::fs::write(&config, yaml).unwrap();
        let mut meters = Meters {
            _mosquitto: mosquitto,
            device_port,
            device: None,
            sdm: Decimal::from_str("1234.5").unwrap(),
            plug: Plug::start(broker),
            plug_total: Decimal::from_str("12.5").unwrap(),
            config,
            printers: [String::new(), String::new()],
            played: BTreeMap::new(),
        };
        meters.sdm_reads(Some(meters.sdm));
        meters.plug_reads(Some(meters.plug_total.to_string()));
        meters
    }

    /// The SDM120 (replaced) reading `kwh`, NaN for `None`.
    fn sdm_reads(&mut self, kwh: Option<Decimal>) {
        if let Some(device) = self.device.take() {
            device.stop();
        }
        let bits = kwh.map_or(0x7FC0_0000, |k| k.to_f32().unwrap().to_bits());
        let words = [(0x48, (bits >> 16) as u16), (0x49, bits as u16)];
        self.device = Some(peers::modbus_device_with_inputs(
            self.device_port,
            &[],
            &words,
        ));
    }

    fn plug_reads(&self, total: Option<String>) {
        let payload = total.map(|t| format!(r#"{{"ENERGY":{{"Total":{t},"Power":118}}}}"#));
        self.plug.set(payload);
    }

    /// Links the SDM120 to the shop's second printer and the plug to its third.
    pub async fn link(&mut self, run: &Run, shop: &Model) {
        self.printers = [shop.printers[1].0.clone(), shop.printers[2].0.clone()];
        let links = [
            json!({"kind": "BRIDGE_POINT", "source": "sdm120", "point": "Import energy", "unit": "KWH"}),
            json!({"kind": "MQTT", "topic": PLUG_TOPIC, "jsonPath": "ENERGY.Total", "unit": "KWH"}),
        ];
        for (printer, link) in self.printers.iter().zip(links) {
            let path = format!("/api/printers/{printer}/meter");
            let res = run.send(Method::PUT, &path, Some(&link)).await;
            assert_eq!(res.status(), 200, "meter of {printer}");
        }
    }

    /// The meter of `printer` once `done` holds of it (up to 30 s).
    async fn meter_until(run: &Run, printer: &str, done: impl Fn(&Value) -> bool) -> Value {
        let path = format!("/api/printers/{printer}/meter");
        let mut read = Value::Null;
        for _ in 0..300 {
            read = run.json(&path).await;
            if done(&read) {
                return read;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "seed {} day {}: the meter of {printer} never got there: {read}",
            run.seed,
            run.day.get()
        );
    }

    /// A print on a metered printer whose meter plays what the dice say; its outcome's
    /// electricity is metered or estimated with the reason the play calls for.
    pub async fn metered_print(&mut self, run: &Run, shop: &mut Model, dice: &mut Dice) {
        let (seed, day) = (run.seed, run.day.get());
        let sdm = dice.chance(50);
        let play = *dice.pick(&[
            Play::Rises,
            Play::Rises,
            Play::Rises,
            Play::Rises,
            Play::Reset,
            Play::Silent,
            Play::NaN,
        ]);
        let printer = self.printers[usize::from(!sdm)].clone();
        // The meter reads its counter (a stopped device or a quiet plug again): a reading
        // from now on is what comes before the run.
        let since = run.clock.now().to_string();
        let counter = if sdm { self.sdm } else { self.plug_total };
        if sdm {
            self.sdm_reads(Some(counter));
        } else {
            self.plug_reads(Some(counter.to_string()));
        }
        let (_, hotend, plate) = shop
            .printers
            .iter()
            .find(|p| p.0 == printer)
            .unwrap()
            .clone();
        let filament = dice.pick(&shop.filaments).clone();
        let inventory = Inventory {
            maker: String::new(),
            printer: printer.clone(),
            hotend,
            plate,
            belts: String::new(),
            filament: filament.clone(),
            customer: String::new(),
        };
        let mut body =
            json!({"name": format!("Day {day} metered"), "parts": [part(&inventory, 5400, "40")]});
        body["parts"][0]["filaments"][0]["spoolId"] =
            json!(shop.spools_of[&filament].last().unwrap());
        let made = run
            .post("/api/prints", &body, 201)
            .await
            .expect("a metered draft");
        let id = made["id"].as_str().unwrap().to_string();
        shop.prints.insert(id.clone(), ("DRAFT".into(), 0));
        // The history keeps a reading a minute, and at a move the latest one and the next
        // (`actors::meters::history`): a counter reached is seen live, a move's readings kept.
        let kwh = |m: &Value, of: &str| {
            m[of]["kwh"]
                .as_str()
                .and_then(|k| Decimal::from_str(k).ok())
        };
        Self::meter_until(run, &printer, |m| {
            kwh(m, "live") == Some(counter) && m["live"]["at"].as_str() >= Some(since.as_str())
        })
        .await;
        let started = start_printing(run, shop, &id).await;
        let start = started["printingStartedAt"].as_str().unwrap().to_string();
        Self::meter_until(run, &printer, |m| {
            m["lastKept"]["at"].as_str() >= Some(start.as_str())
                && kwh(m, "lastKept") == Some(counter)
        })
        .await;
        // Readings are to the second and one second keeps one (`history::keep`): the change
        // comes in a second of its own.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let after = match play {
            Play::Rises => Some(counter + STEP),
            Play::Reset => Some(counter - STEP - STEP),
            Play::Silent | Play::NaN => None,
        };
        match (sdm, play) {
            (true, Play::Silent) => {
                if let Some(device) = self.device.take() {
                    device.stop();
                }
            }
            (true, _) => self.sdm_reads(after),
            (false, Play::Silent) => self.plug_reads(None),
            (false, Play::NaN) => self.plug_reads(Some(r#""NaN""#.into())),
            (false, _) => self.plug_reads(after.map(|a| a.to_string())),
        }
        if let Some(after) = after {
            Self::meter_until(run, &printer, |m| kwh(m, "live") == Some(after)).await;
            if sdm {
                self.sdm = after;
            } else {
                self.plug_total = after;
            }
        } else {
            // Past the poll interval and the plug's period: no reading comes after the end.
            tokio::time::sleep(Duration::from_millis(1500)).await;
        }
        // The run lasts half an hour; a meter that reads is read then too, before the end.
        run.clock.advance(RUN_SECONDS);
        if after.is_some() {
            let now = run.clock.now().to_string();
            Self::meter_until(run, &printer, |m| {
                m["live"]["at"].as_str() >= Some(now.as_str())
            })
            .await;
        }
        let done = complete(run, shop, &id).await;
        let end = done["printingEndedAt"].as_str().unwrap().to_string();
        if after.is_some() {
            Self::meter_until(run, &printer, |m| {
                m["lastKept"]["at"].as_str() >= Some(end.as_str())
            })
            .await;
        }
        let print = run.json(&format!("/api/prints/{id}")).await;
        let outcome = outcome_of(&print, "SUCCESS", 5400, "40", dice);
        let recorded = run
            .post(&format!("/api/prints/{id}/outcome"), &outcome, 200)
            .await
            .expect("the metered print's outcome");
        shop.prints.get_mut(&id).unwrap().1 = 1;
        let electricity = &recorded["outcome"]["electricity"][0];
        let found = (
            electricity["source"].as_str(),
            electricity["reason"].as_str(),
        );
        let wanted = match play {
            Play::Rises => (Some("METERED"), None),
            Play::Reset => (Some("ESTIMATED"), Some("COUNTER_WENT_BACK")),
            Play::Silent | Play::NaN => (Some("ESTIMATED"), Some("METER_SILENT_AT_END")),
        };
        assert_eq!(
            found,
            wanted,
            "seed {seed} day {day}: {play:?} on {}: {electricity}",
            if sdm { "the SDM120" } else { "the plug" }
        );
        if play == Play::Rises {
            let metered = Decimal::from_str(electricity["kwh"].as_str().unwrap()).unwrap();
            assert_eq!(metered, STEP, "seed {seed} day {day}: {electricity}");
            let at = |field: &str| {
                let at: jiff::Timestamp = electricity[field].as_str().unwrap().parse().unwrap();
                at.as_second()
            };
            let lasted = at("endedAt") - at("startedAt");
            assert!(
                (RUN_SECONDS..RUN_SECONDS + 60).contains(&lasted),
                "seed {seed} day {day}: {electricity}"
            );
        }
        let kind = if sdm { "SDM120" } else { "plug" };
        *self.played.entry(format!("{kind} {play:?}")).or_default() += 1;
    }
}
