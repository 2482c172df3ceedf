//! The browser UI end to end in headless Chromium: `tests/e2e/*.mjs` scenarios, driven by
//! playwright-core (npm) against the `printcost` binary on 127.0.0.1. `scripts/test` installs
//! Debian's chromium and the npm packages. Screenshots go to a folder named for the run under
//! cargo's test temp folder; the test prints where.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The service on a free port with a fresh data folder; stopped when dropped.
struct Service {
    child: Child,
    base: String,
    _data: tempfile::TempDir,
}

impl Service {
    fn start() -> Service {
        Service::start_with(&[])
    }

    /// The service started with `extra` arguments.
    fn start_with(extra: &[&str]) -> Service {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let data = tempfile::tempdir().unwrap();
        let child = Command::new("timeout")
            .args(["-s", "TERM", "300", env!("CARGO_BIN_EXE_printcost")])
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data.path())
            .args(extra)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the service did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Service {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _data: data,
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// A folder for this run's screenshots.
fn screenshots(scenario: &str) -> PathBuf {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("e2e-{stamp}-{scenario}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tests/e2e/<scenario>.mjs` against a fresh service; fails with its output.
fn scenario(name: &str) {
    scenario_with(name, &[]);
}

/// As [`scenario`], with `extra` arguments after the base URL and the screenshot folder.
fn scenario_with(name: &str, extra: &[&str]) {
    scenario_on(Service::start(), name, extra);
}

/// As [`scenario_with`], against `service`.
fn scenario_on(service: Service, name: &str, extra: &[&str]) {
    let shots = screenshots(name);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/e2e/{name}.mjs"));
    let output = Command::new("timeout")
        .args(["240", "node"])
        .arg(&script)
        .arg(&service.base)
        .arg(&shots)
        .args(extra)
        .output()
        .expect("node (scripts/test installs the e2e packages)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{name} failed:\n{text}");
    println!("{text}");
    assert!(
        shots.read_dir().unwrap().count() > 0,
        "no screenshots in {shots:?}"
    );
}

#[test]
fn every_page_holds_its_layout_at_390_768_and_1280_px_in_both_languages() {
    scenario("layout");
}

#[test]
fn the_layout_check_fails_on_an_overlap_added_on_purpose() {
    let service = Service::start();
    let shots = screenshots("layout-with-overlap");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/layout.mjs");
    let output = Command::new("timeout")
        .args(["240", "node"])
        .arg(&script)
        .arg(&service.base)
        .arg(&shots)
        .arg("--with-overlap")
        .output()
        .expect("node (scripts/test installs the e2e packages)");
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the overlap went unseen: {errors}"
    );
    assert!(
        errors.contains("1280 px /dashboard: a \"") && errors.contains("overlaps a \""),
        "{errors}"
    );
}

#[test]
fn the_editor_preselects_what_fits_copies_parts_whole_and_never_shows_a_stale_total() {
    scenario("editor");
}

#[test]
fn first_run_dashboard_prints_and_german() {
    scenario("first_run");
}

#[test]
fn inventory_two_part_print_outcomes_ledger_and_german_a4_report() {
    scenario("full_flow");
}

#[test]
fn a_draft_from_a_sliced_file_in_german() {
    let gcode = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("actors/tests/fixtures/sliced/prusa-two-filaments.gcode");
    scenario_with("sliced", &[gcode.to_str().unwrap()]);
}

/// The owner's whole day in German on Berlin time at 1280 and 390 px (`shop_day.mjs`): a new
/// filament and its first spool, a draft from a sliced file, PRINTING, done with its outcome
/// from PRINTED, paid, the spreadsheet export, a failed order's retry taking its price, a
/// maintenance block passed with a reason; the figures against the API; page load times printed.
///
/// The printer's plug is a Tasmota-style meter on the embedded broker: this test publishes its
/// energy total (`tele/plug-shop/SENSOR`, `ENERGY.Total`, 0.002 kWh more every 200 ms) for as
/// long as the scenario runs, so the run PRINTING → PRINTED is metered.
#[test]
fn a_shops_whole_day_in_german_on_a_laptop_and_a_phone() {
    use rumqttc::{AsyncClient, MqttOptions, QoS};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let gcode = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("actors/tests/fixtures/sliced/prusa-two-filaments.gcode");
    let broker = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = tempfile::Builder::new().suffix(".yml").tempfile().unwrap();
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{broker}\nmqtt:\n  host: 127.0.0.1\n  port: {broker}\n  base_topic: werkstatt\n  client_id: printcost-shop-day\nsources: []\n"
    );
    std::fs::write(config.path(), yaml).unwrap();
    let service = Service::start_with(&[
        "--time-zone",
        "Europe/Berlin",
        "--bridge-config",
        config.path().to_str().unwrap(),
    ]);
    let running = Arc::new(AtomicBool::new(true));
    let publishing = running.clone();
    let plug = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let (client, mut events) =
                AsyncClient::new(MqttOptions::new("plug-shop", "127.0.0.1", broker), 16);
            tokio::spawn(async move {
                loop {
                    if events.poll().await.is_err() {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            });
            let mut total = 1_000_000u64;
            while publishing.load(Ordering::Relaxed) {
                total += 2;
                let kwh = format!("{}.{:03}", total / 1000, total % 1000);
                let message = format!(r#"{{"ENERGY":{{"Total":{kwh}}}}}"#);
                let topic = "tele/plug-shop/SENSOR";
                let _ = client
                    .publish(topic, QoS::AtLeastOnce, false, message)
                    .await;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
    });
    scenario_on(
        service,
        "shop_day",
        &[gcode.to_str().unwrap(), "tele/plug-shop/SENSOR"],
    );
    running.store(false, Ordering::Relaxed);
    plug.join().unwrap();
}

#[test]
fn maintenance_due_on_the_dashboard_and_a_nightly_backup_in_german() {
    scenario("maintenance");
}

/// A webhook that answers 200 to anything, on 127.0.0.1 for as long as the test runs.
fn webhook() -> String {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/werkstatt", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut socket in listener.incoming().map_while(Result::ok) {
            let mut buffer = [0u8; 8192];
            let _ = socket.read(&mut buffer);
            let _ = socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
        }
    });
    url
}

#[test]
fn alert_settings_with_mqtt_and_a_webhook_in_german() {
    let free = || {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    };
    let (broker, device) = (free(), free());
    let dir = tempfile::tempdir().unwrap();
    let bridge = dir.path().join("bridge.yml");
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{broker}\nmqtt:\n  host: 127.0.0.1\n  port: {broker}\n  base_topic: werkstatt\nhomeassistant:\n  enabled: true\nsources:\n  - id: zaehler\n    host: 127.0.0.1\n    port: {device}\n    unit_id: 1\n    poll_interval_ms: 1000\n    points:\n      - {{name: Leistung, topic: leistung, address: 0, kind: holding, data_type: u16}}\n"
    );
    std::fs::write(&bridge, yaml).unwrap();
    let service = Service::start_with(&[
        "--bridge-config",
        bridge.to_str().unwrap(),
        "--alerts-interval",
        "1",
    ]);
    scenario_on(service, "alerts", &[&webhook()]);
}

/// A Bambuddy for the browser scenario: one printer (id 1, an AMS and the external holder) and
/// one completed job (5,400 s, 42.5 g), answered on 127.0.0.1 for as long as the test runs.
/// The API tests' double (`tests/api/support/bambuddy.rs`) plays the peer's rules and faults.
fn fleet_peer() -> String {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut socket in listener.incoming().map_while(Result::ok) {
            let mut buffer = [0u8; 8192];
            let n = socket.read(&mut buffer).unwrap_or(0);
            let request = String::from_utf8_lossy(&buffer[..n]).to_string();
            let path = request.split_whitespace().nth(1).unwrap_or("").to_string();
            let (status, body) = match path.split('?').next().unwrap_or("") {
                "/api/v1/updates/version" => ("200 OK", r#"{"version":"1.2.5.2","repo":"maziggy/bambuddy"}"#.to_string()),
                "/api/v1/printers/" => ("200 OK", r#"[{"id":1,"name":"X1C Left","serial_number":"01S00A1","model":"X1C"}]"#.to_string()),
                "/api/v1/printers/1" => ("200 OK", r#"{"id":1,"name":"X1C Left","serial_number":"01S00A1","model":"X1C"}"#.to_string()),
                "/api/v1/printers/1/status" => ("200 OK", r#"{"id":1,"name":"X1C Left","connected":true,"state":"IDLE","ams":[{"id":0,"tray":[{"id":0,"tray_type":"PLA","tray_color":"000000FF"},{"id":1,"tray_type":"PETG","tray_color":"FFFFFFFF"}]}],"vt_tray":[{"id":254,"tray_type":"TPU","tray_color":"FF0000FF"}]}"#.to_string()),
                "/api/v1/print-log/" => ("200 OK", r##"{"items":[{"id":41,"archive_id":null,"print_name":"Bracket plate","printer_name":"X1C Left","printer_id":1,"status":"completed","started_at":"2026-11-20T10:00:00","completed_at":"2026-11-20T11:30:00","duration_seconds":5400,"filament_type":"PLA","filament_color":"#000000FF","filament_used_grams":42.5,"cost":null,"energy_kwh":null,"energy_cost":null,"failure_reason":null,"thumbnail_path":null,"created_by_id":null,"created_by_username":null,"created_at":"2026-11-20T11:30:01"}],"total":1}"##.to_string()),
                _ => ("404 Not Found", r#"{"detail":"Not Found"}"#.to_string()),
            };
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(answer.as_bytes());
        }
    });
    url
}

#[test]
fn a_printer_linked_to_bambuddy_and_an_imported_outcome() {
    scenario_with("fleet", &[&fleet_peer()]);
}

/// An HTTP client for the in-process app at `base`: cookies kept, same-origin `Origin`.
fn api_client(base: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::ORIGIN, base.parse().unwrap());
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .build()
        .unwrap()
}

/// `body` POSTed (or PUT) to `path`; asserts a success and answers the body.
async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    body: serde_json::Value,
) -> serde_json::Value {
    let res = client
        .request(method, &url)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = res.status();
    let answer: serde_json::Value = res.json().await.unwrap_or_default();
    assert!(status.is_success(), "{url}: {status} {answer}");
    answer
}

/// Metered electricity in German: the app runs in this process (so the test writes the plug's
/// history straight into its store: seven hours at 180 W, the printer's nameplate 350 W), six
/// prints recorded over it through the API, a live reading published to the embedded broker;
/// then `metered.mjs` screenshots the printer's meter and measured power, a print's outcome
/// with its runs and electricity, and the dashboard's electricity by printer.
#[actix_web::test]
async fn metered_electricity_on_the_printer_the_outcome_and_the_dashboard_in_german() {
    use actors::bridge::config::parse;
    use actors::meters::history::{self, Sample};
    use reqwest::Method;
    use rust_decimal::Decimal;
    use serde_json::json;
    use storage::{Id, Store, StoreOptions, Timestamp};

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("printcost.redb"), StoreOptions::default()).unwrap();
    let broker = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{broker}\nmqtt:\n  host: 127.0.0.1\n  port: {broker}\n  base_topic: werkstatt\nsources: []\n"
    );
    let config = printcost::Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().to_path_buf(),
        workers: 1,
        bridge: Some(parse("werkstatt.yml", &yaml).unwrap()),
        time_zone: jiff::tz::TimeZone::get("Europe/Berlin").unwrap(),
        ..printcost::Config::default()
    };
    let app = printcost::Application::build_with_store(&config, store.clone()).unwrap();
    let base = format!("http://{}", app.address());
    actix_web::rt::spawn(app.run_until_stopped());
    let client = api_client(&base);
    let url = |path: &str| format!("{base}{path}");
    let setup = json!({"displayName": "Ada", "email": "ada@example.com", "password": "correct horse battery staple", "locale": "de-DE", "currency": "EUR", "electricityPrice": "0.32"});
    call(&client, Method::POST, url("/api/auth/setup"), setup).await;
    let id = |v: serde_json::Value| v["id"].as_str().unwrap().to_string();
    let maker = id(call(
        &client,
        Method::POST,
        url("/api/manufacturers"),
        json!({"name": "Prusa Research"}),
    )
    .await);
    let printer = id(call(&client, Method::POST, url("/api/printers"), json!({"name": "MK4S Werkstatt", "manufacturerId": maker, "purchasePrice": "1099", "expectedLifetimeHours": "6000", "averagePowerWatts": 350})).await);
    let component = |kind: &str, name: &str| json!({"type": kind, "name": name, "purchasePrice": "60", "expectedLifetimeHours": "1200"});
    let hotend = id(call(
        &client,
        Method::POST,
        url("/api/components"),
        component("HOTEND", "Düse 0,4 mm"),
    )
    .await);
    let plate = id(call(
        &client,
        Method::POST,
        url("/api/components"),
        component("BUILD_PLATE", "Texturiertes Blech"),
    )
    .await);
    let filament = id(call(&client, Method::POST, url("/api/filaments"), json!({"manufacturerId": maker, "material": "PLA", "colorName": "Galaxy Black", "colorHex": "#1B1B1B", "purchasePrice": "29.99", "netWeightGrams": "1000"})).await);
    let meter = format!("/api/printers/{printer}/meter");
    let plug = json!({"kind": "MQTT", "topic": "tele/steckdose-mk4s/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    call(&client, Method::PUT, url(&meter), plug).await;

    // Seven hours of readings ending 10 minutes ago, one a minute: 180 W on average, the
    // heaters cycling between 168 and 192 W (0.0028 and 0.0032 kWh a minute, by 7 minutes).
    let now = Timestamp::now().0;
    let t = now - now.rem_euclid(60) - 7 * 3600 - 600;
    let printer_id: Id = printer.parse().unwrap();
    let txn = store.begin_write().unwrap();
    let mut kwh = Decimal::new(18432, 1);
    for minute in 0..=420 {
        history::keep(
            &txn,
            printer_id,
            Sample {
                at: Timestamp(t + minute * 60),
                kwh,
            },
        )
        .unwrap();
        kwh += if (minute / 7) % 2 == 0 {
            Decimal::new(28, 4)
        } else {
            Decimal::new(32, 4)
        };
    }
    txn.commit().unwrap();
    let at = |minutes: i64| {
        jiff::Timestamp::from_second(t + minutes * 60)
            .unwrap()
            .to_string()
    };
    let mut last = String::new();
    for (n, (from, minutes)) in [
        (5, 62),
        (70, 48),
        (125, 75),
        (205, 55),
        (265, 90),
        (360, 50),
    ]
    .into_iter()
    .enumerate()
    {
        let part = json!({"printerId": printer, "buildPlateId": plate, "hotends": [{"componentId": hotend, "durationSeconds": minutes * 60}], "filaments": [{"filamentId": filament, "usedGrams": "38.5"}]});
        let draft = json!({"name": format!("Wandhalterung {}", n + 1), "quantity": 4, "salesValue": "24.90", "parts": [part]});
        let print = call(&client, Method::POST, url("/api/prints"), draft).await;
        let pid = id(print.clone());
        call(
            &client,
            Method::POST,
            url(&format!("/api/prints/{pid}/complete")),
            json!({}),
        )
        .await;
        let outcome = json!({
            "status": "SUCCESS", "durationSeconds": minutes * 60,
            "filaments": [{"usageId": print["usages"][0]["id"], "usedGrams": "39.1"}],
            "electricity": [{"partId": print["parts"][0]["id"], "startedAt": at(from), "endedAt": at(from + minutes)}]
        });
        let recorded = call(
            &client,
            Method::POST,
            url(&format!("/api/prints/{pid}/outcome")),
            outcome,
        )
        .await;
        assert_eq!(
            recorded["outcome"]["electricity"][0]["source"], "METERED",
            "{recorded}"
        );
        last = pid;
    }
    // The plug's latest message, read live.
    let mut options = rumqttc::MqttOptions::new("steckdose-mk4s", "127.0.0.1", broker);
    options.set_keep_alive(Duration::from_secs(5));
    let (plug, mut events) = rumqttc::AsyncClient::new(options, 16);
    tokio::spawn(async move { while events.poll().await.is_ok() {} });
    for _ in 0..50 {
        let message = r#"{"Time":"2026-11-27T09:41:00","ENERGY":{"Total":1844.46,"Power":181}}"#;
        plug.publish(
            "tele/steckdose-mk4s/SENSOR",
            rumqttc::QoS::AtLeastOnce,
            false,
            message,
        )
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let read = client
            .get(url(&meter))
            .send()
            .await
            .unwrap()
            .json::<serde_json::Value>()
            .await
            .unwrap();
        if read["live"]["kwh"] == "1844.46" {
            break;
        }
    }
    let shots = screenshots("metered");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/metered.mjs");
    let args = [
        base.clone(),
        shots.to_str().unwrap().to_string(),
        printer,
        last,
    ];
    let output = tokio::task::spawn_blocking(move || {
        Command::new("timeout")
            .args(["240", "node"])
            .arg(&script)
            .args(args)
            .output()
    })
    .await
    .unwrap()
    .expect("node (scripts/test installs the e2e packages)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "metered failed:\n{text}");
    println!("{text}");
}
