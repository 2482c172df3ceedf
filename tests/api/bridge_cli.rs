//! The `modbus-mqtt-bridge` binary's configuration handling (the running bridge is tested in
//! `actors/tests/poller.rs` against an in-process device and broker).

use actors::bridge::config;
use std::process::Command;

fn bridge(config: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_modbus-mqtt-bridge"))
        .arg("--config")
        .arg(config)
        .output()
        .unwrap()
}

#[test]
fn a_missing_config_gets_a_valid_starter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config").join("config.yml");
    let out = bridge(&path);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote a starter configuration"));
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with("# Modbus TCP to MQTT bridge configuration"));
    let parsed = config::load(&path).unwrap();
    assert!(
        parsed.broker.is_some(),
        "the starter uses the embedded broker"
    );
}

#[test]
fn a_missing_json_config_gets_a_json_starter_also_from_printcost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bridge.json");
    let out = Command::new(env!("CARGO_BIN_EXE_printcost"))
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--bridge-config")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote a starter configuration"));
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with('{'), "JSON, not YAML: {written}");
    assert!(config::load(&path).unwrap().broker.is_some());
    let odd = dir.path().join("bridge.conf");
    let out = bridge(&odd);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(".yml, .yaml or .json"));
    assert!(!odd.exists(), "nothing written");
}

#[test]
fn bad_configs_exit_nonzero_saying_where() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.yml");
    std::fs::write(
        &broken,
        "mqtt:\n  host: h\nsources:\n  - id: a\n    unit_id: 300\n",
    )
    .unwrap();
    let out = bridge(&broken);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.yml:5:"), "{stderr}");

    let invalid = dir.path().join("invalid.json");
    let json = r#"{"mqtt": {"host": "h"}, "sources": [{"id": "a", "host": "h", "unit_id": 1, "points": [{"name": "x", "topic": "x", "address": 0, "kind": "coil", "data_type": "u16"}, {"name": "y", "topic": "x", "address": 1, "kind": "input", "data_type": "u16", "access": "read_write"}]}]}"#;
    std::fs::write(&invalid, json).unwrap();
    let out = bridge(&invalid);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for path in [
        "sources[0].points[0].data_type",
        "sources[0].points[1].topic",
        "sources[0].points[1].access",
    ] {
        assert!(stderr.contains(path), "{path} missing in {stderr}");
    }
}

#[test]
fn the_stand_alone_bridge_needs_a_source() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.yml");
    std::fs::write(&empty, "mqtt:\n  host: 127.0.0.1\nsources: []\n").unwrap();
    let out = bridge(&empty);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("empty.yml") && stderr.contains("sources: at least one source is required"),
        "{stderr}"
    );
}
