//! A printer's energy meter over HTTP: linking (each kind's fields, wildcard topics, bridge
//! points the running bridge does not have), unlinking, and, with a bridge and its embedded
//! broker in the process, a Tasmota plug's messages and a pymodbus device playing an SDM120
//! (import active energy: input register 0x0048, float32, high word first) read live and kept.

#[path = "../bridge_peers/peers.rs"]
#[allow(dead_code)]
mod peers;

use crate::alerts::device::free_address;
use crate::durability::Service;
use crate::support::{PASSWORD, TestApp, assert_error, assert_field_error, setup_body, shop};
use actors::bridge::config;
use rumqttc::{AsyncClient, MqttOptions, QoS};
use serde_json::{Value, json};
use std::time::Duration;

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
    let wildcard = json!({"kind": "MQTT", "topic": "tele/+/SENSOR", "unit": "WH"});
    assert_field_error(
        app.put(&meter, &wildcard).await,
        "topic",
        "errors.invalidValue",
    )
    .await;
    let no_point = json!({"kind": "BRIDGE_POINT", "source": "sdm120", "unit": "KWH"});
    assert_field_error(app.put(&meter, &no_point).await, "point", "errors.required").await;
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

    let mut options = MqttOptions::new("plug-mk4", "127.0.0.1", broker.port());
    options.set_keep_alive(Duration::from_secs(5));
    let (plug, mut events) = AsyncClient::new(options, 16);
    tokio::spawn(async move { while events.poll().await.is_ok() {} });
    let mut live = Value::Null;
    for _ in 0..60 {
        let message = r#"{"Time":"2026-11-27T10:00:00","ENERGY":{"Total":1234.567,"Power":118}}"#;
        plug.publish("tele/plug-mk4/SENSOR", QoS::AtLeastOnce, false, message)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        live = app.json(&meter).await;
        if live["live"] != Value::Null {
            break;
        }
    }
    assert_eq!(live["live"]["kwh"], "1234.567", "{live}");
    assert_eq!(
        live["lastKept"]["kwh"], "1234.567",
        "the first reading is kept"
    );
    let readings = app.json(&format!("{meter}/readings")).await;
    assert_eq!(readings["items"][0]["kwh"], "1234.567", "{readings}");
}

#[actix_web::test]
async fn an_sdm120_played_by_pymodbus_is_read_through_the_in_process_bridge() {
    let device = peers::free_port();
    // 1234.5 kWh as a float32, high word first: 0x449A 0x5000.
    let _sdm120 = peers::modbus_device_with_inputs(device, &[], &[(0x48, 0x449A), (0x49, 0x5000)]);
    let broker = free_address();
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{port}\nmqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\n  client_id: printcost-sdm120-test\nsources:\n  - id: sdm120\n    host: 127.0.0.1\n    port: {device}\n    unit_id: 1\n    poll_interval_ms: 500\n    points:\n      - {{name: Import energy, topic: import_kwh, address: 72, kind: input, data_type: f32}}\n",
        port = broker.port(),
    );
    let bridge = config::parse("sdm120.yml", &yaml).unwrap();
    let app = TestApp::spawn_with(|c| c.bridge = Some(bridge)).await;
    app.setup().await;
    let shop = shop(&app).await;
    let meter = format!("/api/printers/{}/meter", shop.printer);
    let point = json!({"kind": "BRIDGE_POINT", "source": "sdm120", "point": "Import energy", "unit": "KWH"});
    assert_eq!(app.put(&meter, &point).await.status(), 200);
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
    let second = app
        .create(
            "/api/printers",
            &json!({"name": "P1S", "manufacturerId": shop.maker, "purchasePrice": "699", "expectedLifetimeHours": "5000", "averagePowerWatts": 110}),
        )
        .await;
    let plugs = [
        (
            shop.printer.clone(),
            json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"}),
            "tele/plug-mk4/SENSOR",
            r#"{"Time":"2026-11-27T10:00:00","ENERGY":{"Total":12.345,"Power":118}}"#,
            "12.345",
        ),
        (
            second["id"].as_str().unwrap().to_string(),
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

/// `GET path` on `service` as JSON.
async fn get_json(service: &Service, path: &str) -> Value {
    let res = service.client.get(service.url(path)).send().await.unwrap();
    assert!(res.status().is_success(), "{path}: {}", res.status());
    res.json().await.unwrap()
}

/// A Tasmota plug on the broker at `broker` publishing `total` kWh every 200 ms until the
/// service's `meter` shows `field` (`live`, `lastKept`), for at most 15 s; answers the meter.
async fn plug_until(
    service: &Service,
    meter: &str,
    broker: u16,
    total: &str,
    field: &str,
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
        if read[field] != Value::Null {
            break;
        }
    }
    read
}

#[actix_web::test]
async fn a_kept_reading_survives_kill_9_and_the_meter_is_read_again_after_the_restart() {
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
    let setup = service.client.post(service.url("/api/auth/setup"));
    assert_eq!(
        setup.json(&setup_body()).send().await.unwrap().status(),
        201
    );
    let post = |path: &str, body: Value| service.client.post(service.url(path)).json(&body).send();
    let maker: Value = post("/api/manufacturers", json!({"name": "Prusa"}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let printer: Value = post(
        "/api/printers",
        json!({"name": "MK4S", "manufacturerId": maker["id"], "purchasePrice": "1099", "expectedLifetimeHours": "6000", "averagePowerWatts": 120}),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let meter = format!("/api/printers/{}/meter", printer["id"].as_str().unwrap());
    let tasmota = json!({"kind": "MQTT", "topic": "tele/plug-mk4/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    let linked = service
        .client
        .put(service.url(&meter))
        .json(&tasmota)
        .send();
    assert_eq!(linked.await.unwrap().status(), 200);

    let read = plug_until(&service, &meter, broker, "100.5", "lastKept").await;
    assert_eq!(read["lastKept"]["kwh"], "100.5", "{read}");
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
    let history = get_json(&service, &format!("{meter}/readings")).await;
    assert_eq!(history["items"][0]["kwh"], "100.5");
    // The restarted service reads the meter again.
    let read = plug_until(&service, &meter, broker, "100.7", "live").await;
    assert_eq!(read["live"]["kwh"], "100.7", "{read}");
    service.kill_9();
}
