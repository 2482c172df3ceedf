//! Modbus RTU against pymodbus: two meters on one RS-485 bus (a socat pseudo-terminal pair
//! standing in for the adapter) read in turn, RTU frames over TCP to a gateway, three Modbus TCP
//! units behind a gateway that takes one connection, and devices that
//! answer for another unit id or with a bad CRC, whose answers are never published.

use crate::peers::{
    Subscriber, bridge, free_port, modbus_gateway, mosquitto, rtu_device, serial_pair,
};

/// The bridge's configuration: broker on `mqtt`, and `sources` (YAML list items).
fn with_sources(mqtt: u16, sources: &str) -> String {
    format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {mqtt}\n  base_topic: rtu\n  reconnect_delay_secs: 1\nlogging:\n  level: warn\nsources:\n{sources}"
    )
}

/// A source `id` for unit `unit` on `line` (YAML lines of the line's keys), reading holding
/// registers 0 and 1 as `a` and `b`.
fn source(id: &str, unit: u8, line: &str) -> String {
    format!(
        "  - id: {id}\n{line}    unit_id: {unit}\n    poll_interval_ms: 200\n    request_timeout_ms: 500\n    modbus_retries: 1\n    modbus_retry_backoff_ms: 50\n    points:\n      - {{name: A, topic: a, address: 0, kind: holding, data_type: u16}}\n      - {{name: B, topic: b, address: 1, kind: holding, data_type: u16}}\n"
    )
}

#[test]
fn two_meters_on_one_serial_bus_are_read_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (_socat, bridge_end, device_end) = serial_pair(dir.path());
    let _device = rtu_device("serial", device_end.to_str().unwrap());
    let mqtt = free_port();
    let _broker = mosquitto(mqtt, dir.path());
    let mut watcher = Subscriber::start(mqtt, "rtu/#");
    let line = format!(
        "    serial: {{port: {}, baud: 9600, parity: none}}\n    inter_request_delay_ms: 5\n",
        bridge_end.display()
    );
    let yaml = with_sources(mqtt, &(source("m1", 1, &line) + &source("m2", 2, &line)));
    let _bridge = bridge(&yaml, dir.path());
    assert_eq!(watcher.next_on("rtu/m1/a").payload, "1000");
    assert_eq!(watcher.next_on("rtu/m1/b").payload, "1001");
    assert_eq!(watcher.next_on("rtu/m2/a").payload, "2000");
    assert_eq!(watcher.next_on("rtu/m2/b").payload, "2001");
    // Polled again and again, both stay correct: neither answer is taken for the other's.
    for _ in 0..3 {
        assert_eq!(watcher.next_on("rtu/m1/a").payload, "1000");
        assert_eq!(watcher.next_on("rtu/m2/a").payload, "2000");
    }
    assert_eq!(watcher.next_on("rtu/m1/status").payload, "online");
}

#[test]
fn rtu_frames_over_tcp_reach_a_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let gateway = free_port();
    let _device = rtu_device("tcp", &gateway.to_string());
    let mqtt = free_port();
    let _broker = mosquitto(mqtt, dir.path());
    let mut watcher = Subscriber::start(mqtt, "rtu/#");
    let line = format!("    host: 127.0.0.1\n    port: {gateway}\n    framing: rtu\n");
    let _bridge = bridge(&with_sources(mqtt, &source("m2", 2, &line)), dir.path());
    assert_eq!(watcher.next_on("rtu/m2/a").payload, "2000");
    assert_eq!(watcher.next_on("rtu/m2/b").payload, "2001");
}

#[test]
fn three_units_behind_a_one_connection_gateway_share_its_connection() {
    let dir = tempfile::tempdir().unwrap();
    let (gateway, counts) = (free_port(), dir.path().join("counts.json"));
    let _gateway = modbus_gateway(gateway, &counts);
    let mqtt = free_port();
    let _broker = mosquitto(mqtt, dir.path());
    let mut watcher = Subscriber::start(mqtt, "rtu/#");
    let line = format!("    host: 127.0.0.1\n    port: {gateway}\n");
    let sources = source("u1", 1, &line) + &source("u2", 2, &line) + &source("u3", 3, &line);
    let _bridge = bridge(&with_sources(mqtt, &sources), dir.path());
    // Polled again and again over the one connection, each unit's answer stays its own.
    for _ in 0..3 {
        assert_eq!(watcher.next_on("rtu/u1/a").payload, "1000");
        assert_eq!(watcher.next_on("rtu/u2/b").payload, "2001");
        assert_eq!(watcher.next_on("rtu/u3/a").payload, "3000");
    }
    for id in ["u1", "u2", "u3"] {
        assert_eq!(
            watcher.next_on(&format!("rtu/{id}/status")).payload,
            "online"
        );
    }
    let counts: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&counts).unwrap()).unwrap();
    assert_eq!(
        counts,
        serde_json::json!({"accepted": 2, "refused": 0}),
        "the test's readiness probe, then one connection for the three units"
    );
}

#[test]
fn an_answer_for_another_unit_or_with_a_bad_crc_is_never_published() {
    for fault in ["wrong-unit", "bad-crc"] {
        let dir = tempfile::tempdir().unwrap();
        let (_socat, bridge_end, device_end) = serial_pair(dir.path());
        let _device = rtu_device(fault, device_end.to_str().unwrap());
        let mqtt = free_port();
        let _broker = mosquitto(mqtt, dir.path());
        let mut watcher = Subscriber::start(mqtt, "rtu/#");
        let line = format!("    serial: {{port: {}}}\n", bridge_end.display());
        let _bridge = bridge(&with_sources(mqtt, &source("m1", 1, &line)), dir.path());
        let status = watcher.next_on("rtu/m1/status");
        assert_eq!(status.payload, "offline", "{fault}");
        let published = watcher.seen_on("rtu/m1/a");
        assert!(published.is_empty(), "{fault}: {published:?}");
    }
}
