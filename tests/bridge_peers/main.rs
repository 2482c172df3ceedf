//! The bridge binary against independent implementations: a pymodbus TCP server as the device,
//! Debian's mosquitto as the broker, `mosquitto_sub`/`mosquitto_pub` as the clients. Everything
//! listens on 127.0.0.1 and stops with its guard. `scripts/test` installs the peers.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod history;
mod peers;
mod rtu;
mod tls;

use peers::{Peer, Subscriber, bridge, free_port, modbus_device, mosquitto, publish};
use serde_json::{Value, json};
use tokio_modbus::client::{Reader, Writer};

/// Holding registers 0..10 of the device: u16 1234; f32 3.5 (big word order); i16 600 (a
/// setpoint of 20.0 with scale 0.1 and offset -40); u32 70000 in little word order; "PLA".
const HOLDING: [u16; 10] = [
    1234, 0x4060, 0x0000, 600, 0x1170, 0x0001, 0x504C, 0x4100, 0, 0,
];

fn config(mqtt: u16, device: u16, publish_mode: &str) -> String {
    format!(
        "mqtt:
  host: 127.0.0.1
  port: {mqtt}
  client_id: e2e-bridge
  base_topic: e2e
  keep_alive_secs: 5
  reconnect_delay_secs: 1
logging:
  level: warn
sources:
  - id: dryer
    host: 127.0.0.1
    port: {device}
    unit_id: 1
    poll_interval_ms: 200
    request_timeout_ms: 1000
    publish_mode: {publish_mode}
    points:
      - {{name: Count, topic: count, address: 0, kind: holding, data_type: u16}}
      - {{name: Temperature, topic: temperature, address: 1, kind: holding, data_type: f32}}
      - {{name: Setpoint, topic: setpoint, address: 3, kind: holding, data_type: i16, scale: 0.1, offset: -40}}
      - {{name: Energy, topic: energy, address: 4, kind: holding, data_type: u32, encoding: {{word_order: little}}}}
      - {{name: Material, topic: material, address: 6, kind: holding, data_type: string, count: 4}}
      - {{name: Relay, topic: relay, address: 0, kind: coil, data_type: bool}}
      - {{name: Door, topic: door, address: 0, kind: discrete_input, data_type: bool}}
      - {{name: Fan, topic: fan, address: 5, kind: input, data_type: u16}}
"
    )
}

/// A Modbus client of our own beside the bridge, to look at and change the device directly.
fn device_client(port: u16) -> (tokio::runtime::Runtime, tokio_modbus::client::Context) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let address = format!("127.0.0.1:{port}").parse().unwrap();
    let client = runtime
        .block_on(tokio_modbus::client::tcp::connect_slave(
            address,
            tokio_modbus::Slave(1),
        ))
        .unwrap();
    (runtime, client)
}

fn json_of(payload: &str) -> Value {
    serde_json::from_str(payload).unwrap_or_else(|e| panic!("not JSON: {payload:?}: {e}"))
}

/// A pymodbus device, mosquitto and the bridge (publishing every poll) running in `dir`, and a
/// subscriber to everything under `e2e/` that started before the bridge.
struct Rig {
    mqtt: u16,
    device_port: u16,
    watcher: Subscriber,
    bridge: Peer,
    _device: Peer,
    _broker: Peer,
}

impl Rig {
    fn start(dir: &std::path::Path) -> Rig {
        let (device_port, mqtt) = (free_port(), free_port());
        let device = modbus_device(device_port, &HOLDING);
        let broker = mosquitto(mqtt, dir);
        let watcher = Subscriber::start(mqtt, "e2e/#");
        let bridge = bridge(&config(mqtt, device_port, "every_poll"), dir);
        Rig {
            mqtt,
            device_port,
            watcher,
            bridge,
            _device: device,
            _broker: broker,
        }
    }
}

#[test]
fn states_and_availability_travel_from_pymodbus_to_mosquitto() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::start(dir.path());
    let (mqtt, watcher) = (rig.mqtt, &mut rig.watcher);
    let status = watcher.next_on("e2e/status");
    assert_eq!(
        (status.payload.as_str(), status.retained),
        ("online", false)
    );
    assert_eq!(watcher.next_on("e2e/dryer/status").payload, "online");
    let mut state = |topic: &str| json_of(&watcher.next_on(&format!("e2e/dryer/{topic}")).payload);
    assert_eq!(state("count"), json!(1234));
    assert_eq!(state("temperature"), json!(3.5));
    assert_eq!(state("setpoint"), json!(20.0));
    assert_eq!(state("energy"), json!(70000));
    assert_eq!(state("material"), json!("PLA"));
    assert_eq!(state("relay"), json!(false));
    assert_eq!(state("door"), json!(true));
    assert_eq!(state("fan"), json!(105));

    assert_eq!(
        watcher.next_on("e2e/dryer/count").qos,
        0,
        "states at QoS 0 unless state_qos says otherwise"
    );

    // A late subscriber gets the retained availability and states at once.
    let mut late = Subscriber::start(mqtt, "e2e/#");
    let retained = late.next_on("e2e/status");
    assert_eq!(
        (retained.payload.as_str(), retained.retained),
        ("online", true)
    );
}

#[test]
fn states_go_at_the_configured_qos_and_availability_stays_at_qos_1() {
    let dir = tempfile::tempdir().unwrap();
    let (device_port, mqtt) = (free_port(), free_port());
    let _device = modbus_device(device_port, &HOLDING);
    let _broker = mosquitto(mqtt, dir.path());
    let mut watcher = Subscriber::start(mqtt, "e2e/#");
    let yaml = config(mqtt, device_port, "every_poll")
        .replace("  base_topic: e2e\n", "  base_topic: e2e\n  state_qos: 1\n");
    let _bridge = bridge(&yaml, dir.path());
    assert_eq!(watcher.next_on("e2e/status").qos, 1);
    assert_eq!(watcher.next_on("e2e/dryer/status").qos, 1);
    let count = watcher.next_on("e2e/dryer/count");
    assert_eq!((count.payload.as_str(), count.qos), ("1234", 1));
    assert_eq!(watcher.next_on("e2e/dryer/temperature").qos, 1);
}

#[test]
fn writes_reach_pymodbus_encoded_and_refusals_leave_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = Rig::start(dir.path());
    let (mqtt, device_port, watcher) = (rig.mqtt, rig.device_port, &mut rig.watcher);
    assert_eq!(watcher.next_on("e2e/dryer/status").payload, "online");
    let mut write = |topic: &str, payload: &str| {
        publish(mqtt, &format!("e2e/dryer/{topic}/set"), payload);
        json_of(
            &watcher
                .next_on(&format!("e2e/dryer/{topic}/set/result"))
                .payload,
        )
    };
    assert_eq!(
        write("setpoint", r#"{"value": 25.5}"#),
        json!({"ok": true, "value": 25.5})
    );
    assert_eq!(write("relay", "true"), json!({"ok": true, "value": true}));
    assert_eq!(
        write("energy", "65536"),
        json!({"ok": true, "value": 65536})
    );
    assert_eq!(
        write("fan", "1")["ok"],
        json!(false),
        "input registers are read-only"
    );
    assert_eq!(write("setpoint", "{oops")["ok"], json!(false));
    assert_eq!(write("count", "70000")["ok"], json!(false), "out of range");
    assert_eq!(write("relay", "\"on\"")["ok"], json!(false), "wrong type");

    let (runtime, mut client) = device_client(device_port);
    let registers = runtime
        .block_on(client.read_holding_registers(0, 6))
        .unwrap()
        .unwrap();
    assert_eq!(
        registers,
        [1234, 0x4060, 0x0000, 655, 0x0000, 0x0001],
        "the valid writes, encoded, and nothing from the refused ones"
    );
    let coils = runtime.block_on(client.read_coils(0, 1)).unwrap().unwrap();
    assert_eq!(coils, [true]);
}

#[test]
fn device_changes_reach_subscribers_and_a_clean_stop_says_offline() {
    let dir = tempfile::tempdir().unwrap();
    let rig = Rig::start(dir.path());
    let (mqtt, device_port, bridge) = (rig.mqtt, rig.device_port, rig.bridge);
    let mut watcher = rig.watcher;
    assert_eq!(watcher.next_on("e2e/dryer/status").payload, "online");
    let (runtime, mut client) = device_client(device_port);
    // A change made on the device reaches the subscriber: the bridge still serves.
    runtime
        .block_on(client.write_single_register(0, 4321))
        .unwrap()
        .unwrap();
    watcher.expect("e2e/dryer/count", |m| m.payload == "4321");

    // A clean stop says goodbye with a retained offline.
    bridge.stop();
    let goodbye = watcher.expect("e2e/status", |m| m.payload == "offline");
    assert!(!goodbye.retained, "delivered live");
    let mut after = Subscriber::start(mqtt, "e2e/status");
    let kept = after.next_on("e2e/status");
    assert_eq!((kept.payload.as_str(), kept.retained), ("offline", true));
}

#[test]
fn after_a_broker_restart_status_and_last_states_are_republished() {
    let dir = tempfile::tempdir().unwrap();
    let (device_port, mqtt) = (free_port(), free_port());
    let _device = modbus_device(device_port, &HOLDING);
    let broker = mosquitto(mqtt, dir.path());
    // on_change: after the first poll nothing changes, so only a republish can bring the states
    // back after the restart.
    let _bridge = bridge(&config(mqtt, device_port, "on_change"), dir.path());
    let mut before = Subscriber::start(mqtt, "e2e/#");
    before.expect("e2e/status", |m| m.payload == "online");
    before.expect("e2e/dryer/count", |m| m.payload == "1234");
    before.expect("e2e/dryer/fan", |m| m.payload == "105");

    // The restarted broker keeps nothing (no persistence): everything it holds afterwards came
    // from the bridge reconnecting.
    broker.stop();
    let _broker = mosquitto(mqtt, dir.path());
    let mut after = Subscriber::start(mqtt, "e2e/#");
    after.expect("e2e/status", |m| m.payload == "online");
    after.expect("e2e/dryer/status", |m| m.payload == "online");
    after.expect("e2e/dryer/count", |m| m.payload == "1234");
    after.expect("e2e/dryer/material", |m| m.payload == "\"PLA\"");
    after.expect("e2e/dryer/fan", |m| m.payload == "105");

    // Writes work again over the new connection (the bridge re-subscribed).
    publish(mqtt, "e2e/dryer/relay/set", "true");
    let result = after.next_on("e2e/dryer/relay/set/result");
    assert_eq!(json_of(&result.payload), json!({"ok": true, "value": true}));
}

/// Home Assistant discovery through mosquitto: a retained config per point, read back field by
/// field; a write through the discovered `number`'s command topic reaches pymodbus.
#[test]
fn home_assistant_discovery_through_mosquitto() {
    let dir = tempfile::tempdir().unwrap();
    let (device_port, mqtt) = (free_port(), free_port());
    let _device = modbus_device(device_port, &HOLDING);
    let _broker = mosquitto(mqtt, dir.path());
    let yaml = config(mqtt, device_port, "every_poll")
        .replace("logging:\n", "homeassistant:\n  enabled: true\nlogging:\n");
    let _bridge = bridge(&yaml, dir.path());
    let mut ha = Subscriber::start(mqtt, "homeassistant/+/+/+/config");
    let mut config_of = |component: &str, object: &str| {
        let message = ha.next_on(&format!(
            "homeassistant/{component}/e2e_dryer/{object}/config"
        ));
        assert!(message.retained || !message.payload.is_empty());
        json_of(&message.payload)
    };
    let setpoint = config_of("number", "setpoint");
    assert_eq!(setpoint["command_topic"], "e2e/dryer/setpoint/set");
    assert_eq!(setpoint["state_topic"], "e2e/dryer/setpoint");
    assert_eq!(
        (
            setpoint["min"].as_f64(),
            setpoint["max"].as_f64(),
            setpoint["step"].as_f64()
        ),
        (Some(-3316.8), Some(3236.7), Some(0.1))
    );
    assert_eq!(setpoint["availability_mode"], "all");
    assert_eq!(setpoint["device"]["model"], "Modbus TCP");
    let relay = config_of("switch", "relay");
    assert_eq!(
        (
            relay["payload_on"].as_str(),
            relay["command_topic"].as_str()
        ),
        (Some("true"), Some("e2e/dryer/relay/set"))
    );
    let door = config_of("binary_sensor", "door");
    assert!(door.get("command_topic").is_none());
    let fan = config_of("sensor", "fan");
    assert_eq!(fan["unique_id"], "e2e_dryer_fan");
    let material = config_of("sensor", "material");
    assert_eq!(material["value_template"], "{{ value_json }}");

    publish(mqtt, "e2e/dryer/setpoint/set", "21");
    let (runtime, mut client) = device_client(device_port);
    let mut register = 0;
    for _ in 0..50 {
        register = runtime
            .block_on(client.read_holding_registers(3, 1))
            .unwrap()
            .unwrap()[0];
        if register == 610 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(register, 610, "21 °C = (21 + 40) / 0.1 reached the device");
}
