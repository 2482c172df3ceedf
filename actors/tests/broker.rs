//! The embedded broker with real MQTT clients: retained state reaches late subscribers, and a
//! client's last will is published when it dies (what the bridge's availability topics rely on).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::bridge::broker;
use actors::bridge::config;
use actors::bridge::link;
use rumqttc::{AsyncClient, EventLoop, LastWill, MqttOptions, QoS};
use std::net::SocketAddr;
use std::time::Duration;

#[path = "support/device.rs"]
mod device;
use device::{free_address, next_publish};

fn client(id: &str, address: SocketAddr, will: Option<LastWill>) -> (AsyncClient, EventLoop) {
    let mut options = MqttOptions::new(id, address.ip().to_string(), address.port());
    options.set_keep_alive(Duration::from_secs(5));
    if let Some(will) = will {
        options.set_last_will(will);
    }
    AsyncClient::new(options, 16)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retained_state_and_the_last_will_reach_subscribers() {
    let address = free_address();
    broker::start(address).unwrap();

    let will = LastWill::new("bridge/status", "offline", QoS::AtLeastOnce, true);
    let (bridge, mut bridge_events) = client("bridge", address, Some(will));
    bridge
        .publish("bridge/status", QoS::AtLeastOnce, true, "online")
        .await
        .unwrap();
    let pump = tokio::spawn(async move {
        loop {
            if bridge_events.poll().await.is_err() {
                break;
            }
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;

    let (watcher, mut watcher_events) = client("watcher", address, None);
    watcher
        .subscribe("bridge/status", QoS::AtLeastOnce)
        .await
        .unwrap();
    assert_eq!(
        next_publish(&mut watcher_events).await,
        ("bridge/status".into(), "online".into()),
        "retained state"
    );

    pump.abort();
    drop(bridge);
    assert_eq!(
        next_publish(&mut watcher_events).await,
        ("bridge/status".into(), "offline".into()),
        "last will"
    );
}

/// The next message the link forwards (within 5 s).
async fn next_incoming(
    incoming: &mut tokio::sync::mpsc::Receiver<link::Incoming>,
) -> link::Incoming {
    tokio::time::timeout(Duration::from_secs(5), incoming.recv())
        .await
        .expect("a message within 5 s")
        .expect("the link forwards")
}

fn mqtt_config(address: SocketAddr) -> config::MqttConfig {
    let yaml = format!(
        "mqtt:\n  host: {}\n  port: {}\n  base_topic: shop\n  reconnect_delay_secs: 1\n  keep_alive_secs: 5\nsources: []\n",
        address.ip(),
        address.port()
    );
    config::parse("test.yml", &yaml).unwrap().mqtt
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_link_waits_for_the_broker_then_announces_itself_and_forwards_writes() {
    let address = free_address();
    let (link, mut incoming) =
        link::MqttLink::start(&mqtt_config(address), vec!["shop/meter/relay/set".into()]).unwrap();
    link.publish("shop/meter/power_w", b"230.5".to_vec(), true)
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    broker::start(address).unwrap();

    let (watcher, mut watcher_events) = client("watcher", address, None);
    watcher.subscribe("shop/#", QoS::AtLeastOnce).await.unwrap();
    let mut seen = std::collections::BTreeMap::new();
    while seen.len() < 2 {
        let (topic, payload) = next_publish(&mut watcher_events).await;
        seen.insert(topic, payload);
    }
    assert_eq!(seen["shop/status"], "online", "announced once connected");
    assert_eq!(
        seen["shop/meter/power_w"], "230.5",
        "states kept while the broker was away"
    );

    watcher
        .publish("shop/meter/relay/set", QoS::AtLeastOnce, false, "true")
        .await
        .unwrap();
    let pump = tokio::spawn(async move { while watcher_events.poll().await.is_ok() {} });
    let (topic, payload) = next_incoming(&mut incoming).await;
    assert_eq!(
        (topic.as_str(), payload.as_slice()),
        ("shop/meter/relay/set", b"true".as_slice())
    );
    pump.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_of_states_does_not_stall_the_announcement() {
    // More states than the client's request queue holds (1,024) pile up while the broker is
    // away. Announcing on connection must not wait for queue space that only the connection
    // loop itself can free (found by the load run: the bridge went silent at 5,000 points).
    let address = free_address();
    let (link, _incoming) = link::MqttLink::start(&mqtt_config(address), vec![]).unwrap();
    let producer = link.clone();
    tokio::spawn(async move {
        for i in 0..3_000 {
            producer
                .publish(&format!("shop/bulk/{i}"), b"1".to_vec(), false)
                .await;
        }
        producer
            .publish("shop/bulk/last", b"2".to_vec(), true)
            .await;
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    broker::start(address).unwrap();

    let (watcher, mut watcher_events) = client("watcher", address, None);
    watcher
        .subscribe("shop/status", QoS::AtLeastOnce)
        .await
        .unwrap();
    watcher
        .subscribe("shop/bulk/last", QoS::AtLeastOnce)
        .await
        .unwrap();
    let mut seen = std::collections::BTreeMap::new();
    while seen.len() < 2 {
        let (topic, payload) = next_publish(&mut watcher_events).await;
        seen.insert(topic, payload);
    }
    assert_eq!(seen["shop/status"], "online");
    assert_eq!(seen["shop/bulk/last"], "2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_process_link_publishes_in_order_retains_and_forwards_writes() {
    let address = free_address();
    let local = broker::start(address).unwrap();
    // A write left retained before the bridge subscribes reaches it too, as from a broker over
    // the network.
    let (writer, mut writer_events) = client("writer", address, None);
    writer
        .publish("shop/dryer/fan/set", QoS::AtLeastOnce, true, "1")
        .await
        .unwrap();
    let pump = tokio::spawn(async move { while writer_events.poll().await.is_ok() {} });
    tokio::time::sleep(Duration::from_millis(300)).await;

    let (link, mut incoming) =
        link::MqttLink::embedded(&mqtt_config(address), local, vec!["shop/+/+/set".into()]);
    assert!(link.is_connected(), "in process: connected from the start");
    let batch = (0..300)
        .map(|i| {
            let topic = link::Topic::new(&format!("shop/bulk/p{}", i % 3));
            (topic, i.to_string().into_bytes().into(), true)
        })
        .collect();
    link.publish_states(batch).await;

    let (watcher, mut watcher_events) = client("watcher", address, None);
    watcher.subscribe("shop/#", QoS::AtLeastOnce).await.unwrap();
    let mut seen = std::collections::BTreeMap::new();
    // The status, three states and the retained write.
    while seen.len() < 5 {
        let (topic, payload) = next_publish(&mut watcher_events).await;
        seen.insert(topic, payload);
    }
    assert_eq!(seen["shop/status"], "online", "announced at once");
    assert_eq!(
        [
            &seen["shop/bulk/p0"],
            &seen["shop/bulk/p1"],
            &seen["shop/bulk/p2"]
        ],
        ["297", "298", "299"],
        "retained, the last of one batch wins: its order held"
    );

    let (topic, payload) = next_incoming(&mut incoming).await;
    assert_eq!(
        (topic.as_str(), payload.as_slice()),
        ("shop/dryer/fan/set", b"1".as_slice()),
        "the retained write"
    );
    writer
        .publish("shop/dryer/fan/set", QoS::AtLeastOnce, false, "0")
        .await
        .unwrap();
    let (topic, payload) = next_incoming(&mut incoming).await;
    assert_eq!(
        (topic.as_str(), payload.as_slice()),
        ("shop/dryer/fan/set", b"0".as_slice())
    );

    link.close().await;
    let mut status = None;
    while status.as_deref() != Some("offline") {
        let (topic, payload) = next_publish(&mut watcher_events).await;
        if topic == "shop/status" {
            status = Some(payload);
        }
    }
    pump.abort();
}
