//! History through an outage: mosquitto stopped for a minute and the bridge restarted meanwhile;
//! every sample arrives, in order, and the retained state is the latest.

use super::device_client;
use super::peers::{Subscriber, bridge, free_port, modbus_device, persistent_mosquitto};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio_modbus::client::Writer;

/// The poll period of the test's point, milliseconds.
const EVERY_MS: i64 = 200;

fn config(mqtt: u16, device: u16, queue: &Path) -> String {
    format!(
        "mqtt:
  host: 127.0.0.1
  port: {mqtt}
  client_id: history-bridge
  base_topic: e2e
  keep_alive_secs: 5
  reconnect_delay_secs: 1
history:
  path: {}
logging:
  level: warn
sources:
  - id: meter
    host: 127.0.0.1
    port: {device}
    unit_id: 1
    poll_interval_ms: {EVERY_MS}
    request_timeout_ms: 1000
    points:
      - {{name: Energy, topic: energy, address: 0, kind: holding, data_type: u16, history: true}}
",
        queue.display()
    )
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// `(ts, value)` of every history sample `watcher` has received, in the order received.
fn samples(watcher: &mut Subscriber) -> Vec<(i64, u64)> {
    watcher
        .seen_on("e2e/meter/energy/history")
        .iter()
        .map(|m| {
            let sample: Value = serde_json::from_str(&m.payload).unwrap();
            (
                sample["ts"].as_i64().unwrap(),
                sample["value"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Waits up to `within` for `holds` over `watcher`'s messages.
fn wait_until(watcher: &mut Subscriber, within: Duration, holds: impl Fn(&mut Subscriber) -> bool) {
    let deadline = Instant::now() + within;
    while !holds(watcher) {
        assert!(Instant::now() < deadline, "not within {within:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn history_samples_wait_out_a_minute_without_the_broker_and_a_restart_of_the_bridge() {
    let dir = tempfile::tempdir().unwrap();
    let (device_port, mqtt) = (free_port(), free_port());
    let _device = modbus_device(device_port, &[1]);
    let (runtime, mut device) = device_client(device_port);
    let broker = persistent_mosquitto(mqtt, dir.path());
    // A persistent session: what is published while it reconnects to the restarted broker
    // waits for it there.
    let mut watcher = Subscriber::start_with(mqtt, "e2e/#", &["-c", "-i", "history-watch"]);
    let yaml = config(mqtt, device_port, &dir.path().join("history.redb"));
    let first = bridge(&yaml, dir.path());
    wait_until(&mut watcher, Duration::from_secs(15), |w| {
        !samples(w).is_empty()
    });

    let outage = now_ms();
    broker.stop();
    std::thread::sleep(Duration::from_secs(20));
    runtime
        .block_on(device.write_single_register(0, 2))
        .unwrap()
        .unwrap();
    std::thread::sleep(Duration::from_secs(10));
    let restart = now_ms();
    first.stop();
    let _second = bridge(&yaml, dir.path());
    let restarted = now_ms();
    std::thread::sleep(Duration::from_secs(20));
    runtime
        .block_on(device.write_single_register(0, 3))
        .unwrap()
        .unwrap();
    std::thread::sleep(Duration::from_secs(10));
    let back = now_ms();
    let _broker = persistent_mosquitto(mqtt, dir.path());

    // Both connections retry with a growing wait (up to a minute): the samples of the whole
    // outage arrive once the history connection is back, and live ones follow.
    wait_until(&mut watcher, Duration::from_secs(100), |w| {
        samples(w).iter().any(|(ts, _)| *ts > back + 1000)
    });
    let received = samples(&mut watcher);
    let count = received.len();
    let mut kept: Vec<(i64, u64)> = Vec::new();
    for sample in received {
        // At least once: a sample whose acknowledgement was lost comes again; keep the first.
        if !kept.iter().any(|(ts, _)| *ts == sample.0) {
            kept.push(sample);
        }
    }
    for pair in kept.windows(2) {
        assert!(pair[0].0 < pair[1].0, "out of order: {pair:?}");
        let gap = pair[1].0 - pair[0].0;
        // Only the bridge's restart leaves a hole longer than a few polls.
        let across_restart = pair[0].0 <= restarted + 1000 && pair[1].0 >= restart - 1000;
        assert!(
            gap <= 5 * EVERY_MS || (across_restart && gap <= 10_000),
            "{gap} ms without a sample after {:?} (restart at {restart})",
            pair[0]
        );
    }
    let first_ts = kept.first().unwrap().0;
    assert!(first_ts < outage, "the samples before the outage are kept");
    let during = kept
        .iter()
        .filter(|(ts, _)| *ts > outage && *ts < back)
        .count() as i64;
    let expected = (back - outage - (restarted - restart)) / EVERY_MS;
    assert!(
        during >= expected * 8 / 10,
        "{during} samples during the outage, about {expected} taken"
    );
    eprintln!(
        "{count} samples received, {} distinct, {during} of them during the outage",
        kept.len()
    );
    let values: Vec<u64> = kept.iter().map(|(_, v)| *v).collect();
    assert!(
        values.windows(2).all(|p| p[0] <= p[1]),
        "values 1, 2, 3 in order"
    );
    assert!(values.contains(&2) && values.last() == Some(&3));

    // The state topic: its retained state is the latest, for a subscriber that comes now.
    watcher.expect("e2e/meter/energy", |m| m.payload == "3");
    let mut late = Subscriber::start(mqtt, "e2e/meter/energy");
    let retained = late.next_on("e2e/meter/energy");
    assert_eq!((retained.payload.as_str(), retained.retained), ("3", true));
}

/// To the embedded broker in process the samples go straight out, on their own topic.
#[test]
fn history_samples_reach_subscribers_of_the_embedded_broker() {
    let dir = tempfile::tempdir().unwrap();
    let (device_port, mqtt) = (free_port(), free_port());
    let _device = modbus_device(device_port, &[42]);
    let queue = dir.path().join("history.redb");
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{mqtt}\n{}",
        config(mqtt, device_port, &queue)
    );
    let _bridge = bridge(&yaml, dir.path());
    super::peers::wait_for_port(mqtt);
    let mut watcher = Subscriber::start(mqtt, "e2e/meter/#");
    let before = now_ms();
    wait_until(&mut watcher, Duration::from_secs(15), |w| {
        samples(w).iter().filter(|(ts, _)| *ts >= before).count() >= 3
    });
    let taken: Vec<(i64, u64)> = samples(&mut watcher);
    assert!(taken.iter().all(|(_, value)| *value == 42), "{taken:?}");
    assert!(
        taken.windows(2).all(|p| p[0].0 < p[1].0),
        "in order: {taken:?}"
    );
    assert!(!queue.exists(), "no queue in process");
    watcher.expect("e2e/meter/energy", |m| m.payload == "42");
}
