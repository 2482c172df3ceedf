//! The bridge with its broker down, alone in this test binary so that its memory figure is its
//! own: polling goes on, memory stays put, and the latest states arrive once a broker is there.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::bridge::run;
use actors::bridge::{broker, config};
use rumqttc::{AsyncClient, MqttOptions, QoS};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

#[path = "support/device.rs"]
mod device;
use device::{Device, free_address, next_publish, serve};

/// Resident memory of this process, KiB (Linux).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// A broker that is down for far longer than the client's queue would hold at 50 points every
/// 20 ms: polling goes on, memory stays put, and once a broker is there every state topic
/// carries its current value.
#[actix_rt::test]
async fn a_broker_that_is_down_stalls_nothing_and_gets_the_latest_states() {
    let device = Arc::new(Device::default());
    device
        .registers
        .lock()
        .unwrap()
        .extend((0..50).map(|a| (a, a)));
    let (modbus, _server) = serve(device.clone()).await;
    let mqtt = free_address();
    let points: String = (0..50)
        .map(|a| {
            format!(
                "      - {{name: p{a}, topic: p{a}, address: {a}, kind: holding, data_type: u16}}\n"
            )
        })
        .collect();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  base_topic: shop\n  reconnect_delay_secs: 1\nsources:\n  - id: dev\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 20\n    request_timeout_ms: 500\n    points:\n{points}",
        mqtt.port(),
        modbus.port(),
    );
    let config = config::parse("test.yml", &yaml).unwrap();
    config.validate().unwrap();
    run::start(&config).unwrap();
    let polls = || {
        device
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.0 == "holding")
            .count()
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (before, rss_before) = (polls(), rss_kib());
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (after, rss_after) = (polls(), rss_kib());
    assert!(
        after >= before + 20,
        "polling went on without a broker: {before} → {after} polls"
    );
    assert!(
        rss_after < rss_before + 16 * 1024,
        "no backlog kept: {rss_before} → {rss_after} KiB over {} polls of 50 states",
        after - before
    );
    device.registers.lock().unwrap().insert(7, 777);
    tokio::time::sleep(Duration::from_millis(100)).await;

    broker::start(mqtt).unwrap();
    let mut options = MqttOptions::new("watcher", "127.0.0.1", mqtt.port());
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut events) = AsyncClient::new(options, 64);
    client
        .subscribe("shop/dev/+", QoS::AtLeastOnce)
        .await
        .unwrap();
    let mut seen = BTreeMap::new();
    while seen.len() < 51 {
        let (topic, payload) = next_publish(&mut events).await;
        seen.insert(topic, payload);
    }
    assert_eq!(
        seen["shop/dev/p7"], "777",
        "the current value, not a stale one"
    );
    assert_eq!(seen["shop/dev/p49"], "49");
    assert_eq!(seen["shop/dev/status"], "online");
}
