//! A printer's energy meter over HTTP: linking (each kind's fields, wildcard topics, bridge
//! points the running bridge does not have), unlinking, and, with a bridge and its embedded
//! broker in the process, a Tasmota plug's messages and a pymodbus device playing an SDM120
//! (import active energy: input register 0x0048, float32, high word first) read live and kept.

#[path = "../bridge_peers/peers.rs"]
#[allow(dead_code)]
pub mod peers;

use crate::alerts::device::free_address;
use crate::durability::Service;
use crate::support::{
    PASSWORD, Shop, TestApp, assert_error, assert_field_error, draft, logged_in, setup_body, shop,
    submit,
};
use actors::bridge::config;
use rumqttc::{AsyncClient, MqttOptions, QoS};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::str::FromStr;
use std::time::Duration;
use storage::records::{EnergyUnit, MeterLink, MeterSource};
use storage::{Id, Store, StoreOptions, Timestamp, repo};

#[actix_web::test]
async fn a_meter_is_linked_checked_and_unlinked() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let meter = format!("/api/printers/{}/meter", shop.printer);
    assert_eq!(app.json(&meter).await["meter"], Value::Null);

    let tasmota = json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    let res = app.put(&meter, &tasmota).await;
    assert_eq!(res.status(), 200);
    let linked: Value = res.json().await.unwrap();
    assert_eq!(linked["meter"], tasmota);
    assert_eq!(
        linked["reading"], false,
        "no bridge in this process: kept, not read"
    );
    assert_eq!(app.json(&meter).await["meter"], tasmota);

    let no_topic = json!({"kind": "MQTT", "unit": "KWH"});
    assert_field_error(app.put(&meter, &no_topic).await, "topic", "errors.required").await;
    // A wildcard, and a NUL (which MQTT forbids in a topic name: a broker drops the connection
    // that subscribes it, and with it every meter) or any other control character.
    for topic in [
        "tele/+/SENSOR",
        "tele/plug\u{0}/SENSOR",
        "tele/plug\n/SENSOR",
    ] {
        let refused = json!({"kind": "MQTT", "topic": topic, "unit": "WH"});
        assert_field_error(
            app.put(&meter, &refused).await,
            "topic",
            "errors.invalidValue",
        )
        .await;
    }
    let no_point = json!({"kind": "BRIDGE_POINT", "source": "sdm120", "unit": "KWH"});
    assert_field_error(app.put(&meter, &no_point).await, "point", "errors.required").await;
    // Names as long as the schema says (200), kept even without a bridge to check them.
    let long_point =
        json!({"kind": "BRIDGE_POINT", "source": "sdm120", "point": "0".repeat(201), "unit": "WH"});
    assert_field_error(
        app.put(&meter, &long_point).await,
        "point",
        "errors.tooLong",
    )
    .await;
    let unknown = "/api/printers/01a1fca8-547d-7442-9d4e-aa020ca898c4/meter";
    assert_error(app.put(unknown, &tasmota).await, 404, "NOT_FOUND").await;
    assert_eq!(
        app.json(&meter).await["meter"],
        tasmota,
        "refusals change nothing"
    );

    assert_eq!(app.delete(&meter).await.status(), 204);
    assert_eq!(app.json(&meter).await["meter"], Value::Null);
    let readings = app.json(&format!("{meter}/readings?hours=48")).await;
    assert_eq!(readings["items"], json!([]));
    let too_far = app.get(&format!("{meter}/readings?hours=745")).await;
    assert_field_error(too_far, "hours", "errors.outOfRange").await;
}

#[actix_web::test]
async fn a_tasmota_plug_on_the_bridges_broker_is_read_live_and_kept() {
    let broker = free_address();
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{port}\nmqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\n  client_id: printcost-meters-test\nsources:\n  - id: sdm120\n    host: 127.0.0.1\n    port: {device}\n    unit_id: 1\n    points:\n      - {{name: Import energy, topic: import_kwh, address: 72, kind: input, data_type: f32}}\n",
        port = broker.port(),
        device = free_address().port(),
    );
    let bridge = config::parse("meters.yml", &yaml).unwrap();
    let app = TestApp::spawn_with(|c| c.bridge = Some(bridge)).await;
    app.setup().await;
    let shop = shop(&app).await;
    let meter = format!("/api/printers/{}/meter", shop.printer);

    let missing =
        json!({"kind": "BRIDGE_POINT", "source": "sdm120", "point": "Power", "unit": "KWH"});
    assert_field_error(app.put(&meter, &missing).await, "point", "errors.notFound").await;
    let point = json!({"kind": "BRIDGE_POINT", "source": "sdm120", "point": "Import energy", "unit": "KWH"});
    let linked: Value = app.put(&meter, &point).await.json().await.unwrap();
    assert_eq!(linked["topic"], "shop/sdm120/import_kwh");
    assert_eq!(linked["reading"], true);

    let tasmota = json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    let linked: Value = app.put(&meter, &tasmota).await.json().await.unwrap();
    assert_eq!(linked["topic"], "tele/plug-mk4/SENSOR");

    let message = r#"{"Time":"2026-11-27T10:00:00","ENERGY":{"Total":1234.567,"Power":118}}"#;
    let live = plug_mk4_until_live(&app, &meter, broker.port(), message).await;
    assert_eq!(live["live"]["kwh"], "1234.567", "{live}");
    assert_eq!(
        live["lastKept"]["kwh"], "1234.567",
        "the first reading is kept"
    );
    let readings = app.json(&format!("{meter}/readings")).await;
    assert_eq!(readings["items"][0]["kwh"], "1234.567", "{readings}");
}

/// An app whose in-process bridge (its embedded broker) polls an SDM120 on `device` every
/// 500 ms, the shop's printer linked to its import energy; answers the app, the shop and the
/// printer's meter path.
async fn sdm120_app(device: u16, client: &str) -> (TestApp, Shop, String) {
    let broker = free_address();
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{port}\nmqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\n  client_id: {client}\nsources:\n  - id: sdm120\n    host: 127.0.0.1\n    port: {device}\n    unit_id: 1\n    poll_interval_ms: 500\n    points:\n      - {{name: Import energy, topic: import_kwh, address: 72, kind: input, data_type: f32}}\n",
        port = broker.port(),
    );
    let bridge = config::parse("sdm120.yml", &yaml).unwrap();
    let app = TestApp::spawn_with(|c| c.bridge = Some(bridge)).await;
    app.setup().await;
    let shop = shop(&app).await;
    let meter = format!("/api/printers/{}/meter", shop.printer);
    let point = json!({"kind": "BRIDGE_POINT", "source": "sdm120", "point": "Import energy", "unit": "KWH"});
    assert_eq!(app.put(&meter, &point).await.status(), 200);
    (app, shop, meter)
}

#[actix_web::test]
async fn an_sdm120_played_by_pymodbus_is_read_through_the_in_process_bridge() {
    let device = peers::free_port();
    // 1234.5 kWh as a float32, high word first: 0x449A 0x5000.
    let _sdm120 = peers::modbus_device_with_inputs(device, &[], &[(0x48, 0x449A), (0x49, 0x5000)]);
    let (app, _, meter) = sdm120_app(device, "printcost-sdm120-test").await;
    let mut read = Value::Null;
    for _ in 0..75 {
        read = app.json(&meter).await;
        if read["lastKept"] != Value::Null {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(read["live"]["kwh"], "1234.5", "{read}");
    assert_eq!(read["lastKept"]["kwh"], "1234.5", "{read}");
    assert_eq!(read["topic"], "shop/sdm120/import_kwh");
}

#[actix_web::test]
async fn tasmota_and_shelly_plugs_on_an_external_mosquitto_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let port = peers::free_port();
    let _mosquitto = peers::mosquitto(port, dir.path());
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\n  client_id: printcost-external-test\nsources:\n  - id: sdm120\n    host: 127.0.0.1\n    port: {device}\n    unit_id: 1\n    points:\n      - {{name: Import energy, topic: import_kwh, address: 72, kind: input, data_type: f32}}\n",
        device = peers::free_port(),
    );
    let bridge = config::parse("external.yml", &yaml).unwrap();
    let app = TestApp::spawn_with(|c| c.bridge = Some(bridge)).await;
    app.setup().await;
    let shop = shop(&app).await;
    let second = p1s(&app, &shop).await;
    let plugs = [
        (
            shop.printer.clone(),
            json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"}),
            "tele/plug-mk4/SENSOR",
            r#"{"Time":"2026-11-27T10:00:00","ENERGY":{"Total":12.345,"Power":118}}"#,
            "12.345",
        ),
        (
            second.clone(),
            json!({"kind": "MQTT", "topic": "shellyplug-p1s/status/switch:0", "jsonPath": "aenergy.total", "unit": "WH"}),
            "shellyplug-p1s/status/switch:0",
            r#"{"id":0,"apower":98.5,"aenergy":{"total":45678.9,"by_minute":[1,2,3]}}"#,
            "45.6789",
        ),
    ];
    for (printer, link, _, _, _) in &plugs {
        let res = app
            .put(&format!("/api/printers/{printer}/meter"), link)
            .await;
        assert_eq!(res.status(), 200);
    }
    for (printer, _, topic, message, kwh) in &plugs {
        let meter = format!("/api/printers/{printer}/meter");
        let mut read = Value::Null;
        for _ in 0..50 {
            peers::publish(port, topic, message);
            tokio::time::sleep(Duration::from_millis(200)).await;
            read = app.json(&meter).await;
            if read["live"] != Value::Null {
                break;
            }
        }
        assert_eq!(read["live"]["kwh"], *kwh, "{topic}: {read}");
        assert_eq!(read["lastKept"]["kwh"], *kwh, "{topic}: {read}");
    }
}

/// A topic with a NUL kept by a store written before topics were checked (written here
/// straight into the store) never reaches a real mosquitto: MQTT forbids U+0000 in a topic
/// name and mosquitto drops the connection that subscribes one, and with it every meter. The
/// recorder skips that link; the plugs beside it are read before and after.
#[actix_web::test]
async fn a_stored_topic_with_a_nul_never_reaches_a_real_mosquitto() {
    let dir = tempfile::tempdir().unwrap();
    let port = peers::free_port();
    let _mosquitto = peers::mosquitto(port, dir.path());
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\n  client_id: printcost-nul-test\nsources: []\n"
    );
    let bridge = config::parse("external.yml", &yaml).unwrap();
    let stored = tempfile::tempdir().unwrap();
    let store = Store::open(
        &stored.path().join("printcost.redb"),
        StoreOptions::default(),
    )
    .unwrap();
    let app = TestApp::spawn_with_store_and(store.clone(), |c| c.bridge = Some(bridge)).await;
    app.setup().await;
    let shop = shop(&app).await;
    let second = p1s(&app, &shop).await;
    let plug = json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    let meter = format!("/api/printers/{}/meter", shop.printer);
    assert_eq!(app.put(&meter, &plug).await.status(), 200);
    let read = |kwh: &'static str| {
        let (app, meter) = (&app, meter.clone());
        async move {
            for _ in 0..50 {
                let message = format!(r#"{{"ENERGY":{{"Total":{kwh},"Power":118}}}}"#);
                peers::publish(port, "tele/plug-mk4/SENSOR", &message);
                tokio::time::sleep(Duration::from_millis(200)).await;
                if app.json(&meter).await["live"]["kwh"] == kwh {
                    return;
                }
            }
            panic!(
                "the plug was not read at {kwh} kWh: {}",
                app.json(&meter).await
            );
        }
    };
    read("12.5").await;

    // Through the API a NUL is refused at its field; straight into the store it is kept.
    let nul = json!({"kind": "MQTT", "topic": "tele/plug\u{0}/SENSOR", "unit": "KWH"});
    let second_meter = format!("/api/printers/{second}/meter");
    assert_field_error(
        app.put(&second_meter, &nul).await,
        "topic",
        "errors.invalidValue",
    )
    .await;
    let legacy = MeterLink {
        source: MeterSource::Mqtt {
            topic: "tele/plug\u{0}/SENSOR".into(),
            json_path: Some("ENERGY.Total".into()),
        },
        unit: EnergyUnit::Kwh,
        updated_at: Timestamp::now(),
    };
    let txn = store.begin_write().unwrap();
    repo::put_meter_link(&txn, Id::from_str(&second).unwrap(), Some(&legacy)).unwrap();
    txn.commit().unwrap();
    // A change of a link makes the recorder subscribe every stored link again.
    let again = json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    assert_eq!(app.put(&meter, &again).await.status(), 200);
    read("13.75").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    read("14.125").await;
}

/// A second printer of the shop (a P1S at 110 W); its id.
async fn p1s(app: &TestApp, shop: &Shop) -> String {
    let body = json!({"name": "P1S", "manufacturerId": shop.maker, "purchasePrice": "699",
                      "expectedLifetimeHours": "5000", "averagePowerWatts": 110});
    app.create("/api/printers", &body).await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Waits up to 30 s for `app`'s `meter` to satisfy `done`; answers the meter.
async fn meter_until(app: &TestApp, meter: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut read = Value::Null;
    for _ in 0..150 {
        read = app.json(meter).await;
        if done(&read) {
            return read;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the meter never got there: {read}");
}

/// A print of the shop moved to `status`; answers it.
async fn moved(app: &TestApp, id: &str, status: &str) -> Value {
    let res = app
        .post(
            &format!("/api/prints/{id}/status"),
            &json!({"status": status}),
        )
        .await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// The part's electricity once the outcome of one-part `print` (5,400 s, 42.5 g) is recorded
/// without run times: the print's PRINTING times are its run.
async fn recorded(app: &TestApp, print: &Value) -> Value {
    let body = json!({
        "status": "SUCCESS", "durationSeconds": 5400,
        "filaments": [{"usageId": print["usages"][0]["id"], "usedGrams": "42.5"}]
    });
    let id = print["id"].as_str().unwrap();
    let res = app.post(&format!("/api/prints/{id}/outcome"), &body).await;
    assert_eq!(res.status(), 200);
    let print: Value = res.json().await.unwrap();
    print["outcome"]["electricity"][0].clone()
}

/// An SDM120 played by pymodbus through the in-process bridge while prints run: one print's
/// run crosses a counter reset (the device replaced by one reading 0.5 kWh: flagged and
/// estimated), another ends after the device went silent (stopped: flagged silent at its end).
/// Each move to and on from PRINTING keeps the meter's readings around it at once.
#[actix_web::test]
async fn an_sdm120_that_resets_mid_print_or_goes_silent_is_flagged() {
    let device = peers::free_port();
    // 1234.5 kWh as a float32, high word first: 0x449A 0x5000; 0.5 kWh: 0x3F00 0x0000.
    let sdm120 = peers::modbus_device_with_inputs(device, &[], &[(0x48, 0x449A), (0x49, 0x5000)]);
    let (app, shop, meter) = sdm120_app(device, "printcost-reset-test").await;
    meter_until(&app, &meter, |m| m["lastKept"]["kwh"] == "1234.5").await;

    let reset = app
        .create("/api/prints", &draft(&shop, "Reset bracket"))
        .await;
    let id = reset["id"].as_str().unwrap();
    let started = moved(&app, id, "PRINTING").await;
    let start = started["printingStartedAt"].as_str().unwrap().to_string();
    meter_until(&app, &meter, |m| {
        m["lastKept"]["at"].as_str() >= Some(start.as_str())
    })
    .await;
    sdm120.stop();
    let replaced = peers::modbus_device_with_inputs(device, &[], &[(0x48, 0x3F00), (0x49, 0)]);
    meter_until(&app, &meter, |m| m["lastKept"]["kwh"] == "0.5").await;
    let done = moved(&app, id, "DONE").await;
    let end = done["printingEndedAt"].as_str().unwrap().to_string();
    meter_until(&app, &meter, |m| {
        m["lastKept"]["at"].as_str() > Some(end.as_str())
    })
    .await;
    let part = recorded(&app, &done).await;
    assert_eq!(
        (part["source"].as_str(), part["reason"].as_str()),
        (Some("ESTIMATED"), Some("COUNTER_WENT_BACK")),
        "{part}"
    );
    assert_eq!(part["startedAt"], start.as_str());
    assert_eq!(
        part["kwh"], "0.18",
        "5,400 s at 120 W, never the reset's difference"
    );

    let silent = app
        .create("/api/prints", &draft(&shop, "Silent bracket"))
        .await;
    let id = silent["id"].as_str().unwrap();
    let started = moved(&app, id, "PRINTING").await;
    let start = started["printingStartedAt"].as_str().unwrap().to_string();
    meter_until(&app, &meter, |m| {
        m["lastKept"]["at"].as_str() > Some(start.as_str())
    })
    .await;
    replaced.stop();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let done = moved(&app, id, "DONE").await;
    let part = recorded(&app, &done).await;
    assert_eq!(
        (part["source"].as_str(), part["reason"].as_str()),
        (Some("ESTIMATED"), Some("METER_SILENT_AT_END")),
        "{part}"
    );
}

/// `GET path` on `service` as JSON.
async fn get_json(service: &Service, path: &str) -> Value {
    let res = service.client.get(service.url(path)).send().await.unwrap();
    assert!(res.status().is_success(), "{path}: {}", res.status());
    res.json().await.unwrap()
}

/// A Tasmota plug on the broker at `broker` publishing `total` kWh every 200 ms until the
/// service's `meter` satisfies `done`, for at most 15 s; answers the meter.
async fn plug_until(
    service: &Service,
    meter: &str,
    broker: u16,
    total: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let mut options = MqttOptions::new(format!("plug-{total}"), "127.0.0.1", broker);
    options.set_keep_alive(Duration::from_secs(5));
    let (plug, mut events) = AsyncClient::new(options, 16);
    tokio::spawn(async move { while events.poll().await.is_ok() {} });
    let message = format!(r#"{{"ENERGY":{{"Total":{total}}}}}"#);
    let mut read = Value::Null;
    for _ in 0..75 {
        let sent = plug.publish(
            "tele/plug-mk4/SENSOR",
            QoS::AtLeastOnce,
            false,
            message.clone(),
        );
        sent.await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        read = get_json(service, meter).await;
        if done(&read) {
            break;
        }
    }
    read
}

/// `body` POSTed to `path` on `service`, asserting `status`; answers the body.
async fn post_json(service: &Service, path: &str, body: Value, status: u16) -> Value {
    let res = service
        .client
        .post(service.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), status, "{path}");
    res.json().await.unwrap()
}

/// The counter at `at` between the readings around it, as the history reads it.
fn counter_at(readings: &[(i64, Decimal)], at: i64) -> Decimal {
    let before = readings.iter().rev().find(|(t, _)| *t <= at).unwrap();
    let after = readings.iter().find(|(t, _)| *t >= at).unwrap();
    if before.0 == after.0 {
        return before.1;
    }
    before.1
        + (after.1 - before.1) * Decimal::from(at - before.0) / Decimal::from(after.0 - before.0)
}

/// A print on a metered printer runs across a kill -9 of the real binary: the readings the
/// history acknowledged survive, the restarted service reads the meter again, and the print is
/// priced from the meter over its PRINTING times, exactly.
#[actix_web::test]
async fn a_print_running_across_kill_9_is_still_metered() {
    let dir = tempfile::tempdir().unwrap();
    let broker = free_address().port();
    let bridge = dir.path().join("bridge.yml");
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{broker}\nmqtt:\n  host: 127.0.0.1\n  port: {broker}\n  base_topic: shop\n  client_id: printcost-restart-test\nsources:\n  - id: sdm120\n    host: 127.0.0.1\n    port: {device}\n    unit_id: 1\n    points:\n      - {{name: Import energy, topic: import_kwh, address: 72, kind: input, data_type: f32}}\n",
        device = free_address().port(),
    );
    std::fs::write(&bridge, yaml).unwrap();
    let data = dir.path().join("data");
    let env = [("PRINTCOST_BRIDGE_CONFIG", bridge.to_str().unwrap())];
    let service = Service::start_with(&data, &env);
    post_json(&service, "/api/auth/setup", setup_body(), 201).await;
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let maker = id(post_json(
        &service,
        "/api/manufacturers",
        json!({"name": "Prusa"}),
        201,
    )
    .await);
    let printer = id(post_json(
        &service,
        "/api/printers",
        json!({"name": "MK4S", "manufacturerId": maker, "purchasePrice": "1099", "expectedLifetimeHours": "6000", "averagePowerWatts": 120}),
        201,
    )
    .await);
    let component = |kind: &str| json!({"type": kind, "name": kind, "purchasePrice": "60", "expectedLifetimeHours": "1200"});
    let hotend = id(post_json(&service, "/api/components", component("HOTEND"), 201).await);
    let plate = id(post_json(&service, "/api/components", component("BUILD_PLATE"), 201).await);
    let filament = id(post_json(
        &service,
        "/api/filaments",
        json!({"manufacturerId": maker, "material": "PLA", "colorName": "Black", "colorHex": "#000000", "purchasePrice": "29.99", "netWeightGrams": "1000"}),
        201,
    )
    .await);
    let meter = format!("/api/printers/{printer}/meter");
    let tasmota = json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    let linked = service
        .client
        .put(service.url(&meter))
        .json(&tasmota)
        .send();
    assert_eq!(linked.await.unwrap().status(), 200);
    let kept = |kwh: &'static str| move |m: &Value| m["lastKept"]["kwh"] == kwh;
    let read = plug_until(&service, &meter, broker, "100.5", kept("100.5")).await;
    assert_eq!(read["lastKept"]["kwh"], "100.5", "{read}");

    let part = json!({"printerId": printer, "buildPlateId": plate, "hotends": [{"componentId": hotend, "durationSeconds": 5400}], "filaments": [{"filamentId": filament, "usedGrams": "42.5"}]});
    let print = post_json(
        &service,
        "/api/prints",
        json!({"name": "Across a restart", "parts": [part]}),
        201,
    )
    .await;
    let print_id = id(print.clone());
    let status = format!("/api/prints/{print_id}/status");
    post_json(&service, &status, json!({"status": "PRINTING"}), 200).await;
    // The move to PRINTING keeps the plug's next reading at once.
    let read = plug_until(&service, &meter, broker, "100.6", kept("100.6")).await;
    assert_eq!(read["lastKept"]["kwh"], "100.6", "{read}");
    service.kill_9();

    let service = Service::start_with(&data, &env);
    assert_eq!(service.login(PASSWORD).await, 200);
    let after = get_json(&service, &meter).await;
    assert_eq!(
        after["lastKept"], read["lastKept"],
        "the acknowledged reading is kept"
    );
    assert_eq!(
        after["live"],
        Value::Null,
        "nothing read since the restart yet"
    );
    // Readings are kept to the second: the next one must fall in a later second than 100.6's.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let read = plug_until(&service, &meter, broker, "100.7", |m| {
        m["live"]["kwh"] == "100.7"
    })
    .await;
    assert_eq!(
        read["live"]["kwh"], "100.7",
        "the restarted service reads the meter again"
    );
    let done = post_json(&service, &status, json!({"status": "DONE"}), 200).await;
    // The move on from PRINTING keeps the live reading and the next one.
    plug_until(&service, &meter, broker, "100.8", kept("100.8")).await;
    let body = json!({"status": "SUCCESS", "durationSeconds": 5400, "filaments": [{"usageId": done["usages"][0]["id"], "usedGrams": "42.5"}]});
    let recorded = post_json(
        &service,
        &format!("/api/prints/{print_id}/outcome"),
        body,
        200,
    )
    .await;
    let part = &recorded["outcome"]["electricity"][0];
    assert_eq!(part["source"], "METERED", "{part}");
    let history = get_json(&service, &format!("{meter}/readings")).await;
    let at = |text: &Value| {
        jiff::Timestamp::from_str(text.as_str().unwrap())
            .unwrap()
            .as_second()
    };
    let readings: Vec<(i64, Decimal)> = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (at(&r["at"]), r["kwh"].as_str().unwrap().parse().unwrap()))
        .collect();
    let kwhs: Vec<String> = readings.iter().map(|(_, k)| k.to_string()).collect();
    assert_eq!(
        kwhs,
        ["100.5", "100.6", "100.7", "100.8"],
        "each kept once, across the restart"
    );
    let (start, end) = (at(&part["startedAt"]), at(&part["endedAt"]));
    assert_eq!(
        (part["startedAt"].as_str(), part["endedAt"].as_str()),
        (
            done["printingStartedAt"].as_str(),
            done["printingEndedAt"].as_str()
        )
    );
    let expected = (counter_at(&readings, end) - counter_at(&readings, start))
        .round_dp(6)
        .normalize();
    assert_eq!(part["kwh"], expected.to_string(), "{readings:?}");
    service.kill_9();
}

/// Whether `app`'s `meter` keeps a reading at or after `at` within 5 s: a move to or on from
/// PRINTING keeps the next reading at once (the device is polled every 500 ms), where the
/// keeper alone would keep one a minute.
async fn kept_at_once(app: &TestApp, meter: &str, at: &str) -> bool {
    for _ in 0..25 {
        let read = app.json(meter).await;
        if read["lastKept"]["at"].as_str() >= Some(at) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

/// A move to and on from PRINTING marks the meter whichever route made it: the status
/// operation, `PATCH /api/prints/{id}` with a status, and the print page's form. The rule is the
/// writers' (their commit tells the recorder), so no route can forget it.
#[actix_web::test]
async fn every_route_into_and_out_of_printing_keeps_the_meters_readings_at_the_move() {
    let device = peers::free_port();
    let _sdm120 = peers::modbus_device_with_inputs(device, &[], &[(0x48, 0x449A), (0x49, 0x5000)]);
    let (app, shop, meter) = sdm120_app(device, "printcost-routes-test").await;
    meter_until(&app, &meter, |m| m["lastKept"]["kwh"] == "1234.5").await;
    let browser = logged_in(&app).await;
    for route in ["status", "patch", "form"] {
        let print = app.create("/api/prints", &draft(&shop, route)).await;
        let id = print["id"].as_str().unwrap().to_string();
        let mut moves = Vec::new();
        for status in ["PRINTING", "PRINTED"] {
            match route {
                "status" => drop(moved(&app, &id, status).await),
                "patch" => {
                    let body = json!({"status": status});
                    let res = app.patch(&format!("/api/prints/{id}"), &body).await;
                    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
                }
                _ => {
                    let path = format!("/prints/{id}/actions/status");
                    let res = submit(&browser, &app, &path, &[("status", status)]).await;
                    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap());
                }
            }
            let print = app.json(&format!("/api/prints/{id}")).await;
            let at = match status {
                "PRINTING" => print["printingStartedAt"].as_str(),
                _ => print["printingEndedAt"].as_str(),
            };
            let at = at.unwrap_or_else(|| panic!("{route} {status}: {print}"));
            moves.push((status, kept_at_once(&app, &meter, at).await));
        }
        assert_eq!(
            moves,
            [("PRINTING", true), ("PRINTED", true)],
            "{route}: a reading kept at each move"
        );
    }
}

/// A shop with MQTT plugs only runs the bridge without a Modbus source: printcost starts, its
/// embedded broker carries the plugs, and a plug's meter is read.
#[actix_web::test]
async fn a_bridge_without_modbus_sources_runs_inside_printcost_for_mqtt_plugs() {
    let broker = free_address();
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{port}\nmqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\n  client_id: printcost-plugs-only\nsources: []\n",
        port = broker.port(),
    );
    let bridge = config::parse("plugs.yml", &yaml).unwrap();
    bridge.validate().unwrap();
    let app = TestApp::spawn_with(|c| c.bridge = Some(bridge)).await;
    app.setup().await;
    let shop = shop(&app).await;
    let meter = format!("/api/printers/{}/meter", shop.printer);
    let tasmota = json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    let res = app.put(&meter, &tasmota).await;
    assert_eq!(res.status(), 200);
    let linked: Value = res.json().await.unwrap();
    assert_eq!(linked["reading"], true, "{linked}");
    let message = r#"{"ENERGY":{"Total":3.5,"Power":118}}"#;
    let read = plug_mk4_until_live(&app, &meter, broker.port(), message).await;
    assert_eq!(read["live"]["kwh"], "3.5", "{read}");
    assert_eq!(app.get("/api/health").await.status(), 200);
}

/// A Tasmota plug on the broker at `port` publishing `message` on `tele/plug-mk4/SENSOR` every
/// 200 ms until `app`'s `meter` has a live reading, for at most 12 s; answers the meter.
async fn plug_mk4_until_live(app: &TestApp, meter: &str, port: u16, message: &str) -> Value {
    let mut options = MqttOptions::new("plug-mk4", "127.0.0.1", port);
    options.set_keep_alive(Duration::from_secs(5));
    let (plug, mut events) = AsyncClient::new(options, 16);
    tokio::spawn(async move { while events.poll().await.is_ok() {} });
    let mut live = Value::Null;
    for _ in 0..60 {
        plug.publish("tele/plug-mk4/SENSOR", QoS::AtLeastOnce, false, message)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        live = app.json(meter).await;
        if live["live"] != Value::Null {
            break;
        }
    }
    live
}
