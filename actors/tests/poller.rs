//! A source poller against an in-process Modbus TCP test device and the embedded broker, watched
//! by a real MQTT client: decoded states, coalesced requests (as the device sees them), and the
//! source turning offline when the device disappears.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actix::Actor;
use actors::bridge::run;
use actors::bridge::{broker, config, link::MqttLink, poller::Poller};
use rumqttc::{AsyncClient, EventLoop, MqttOptions, QoS};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[path = "support/device.rs"]
mod device;
use device::{Device, free_address, next_publish, serve, serve_at};

#[actix_rt::test]
async fn a_source_is_polled_coalesced_published_and_reported_offline() {
    let device = Arc::new(Device::default());
    device.registers.lock().unwrap().extend([
        (0, 1234),
        (1, 0x0001),
        (2, 0x0002),
        (3, 0x4060),
        (4, 0x0000),
    ]);
    device.coils.lock().unwrap().insert(0, true);
    let (modbus, server) = serve(device.clone()).await;

    let mqtt = free_address();
    broker::start(mqtt).unwrap();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  base_topic: shop\n  reconnect_delay_secs: 1\nsources:\n  - id: dryer\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 200\n    request_timeout_ms: 500\n    modbus_retries: 1\n    modbus_retry_backoff_ms: 50\n    points:\n      - {{name: a, topic: a, address: 0, kind: holding, data_type: u16}}\n      - {{name: b, topic: b, address: 1, kind: holding, data_type: u32}}\n      - {{name: c, topic: c, address: 3, kind: holding, data_type: f32}}\n      - {{name: relay, topic: relay, address: 0, kind: coil, data_type: bool}}\n",
        mqtt.port(),
        modbus.port()
    );
    let config = config::parse("test.yml", &yaml).unwrap();
    config.validate().unwrap();

    let mut options = MqttOptions::new("watcher", "127.0.0.1", mqtt.port());
    options.set_keep_alive(Duration::from_secs(5));
    let (watcher, mut events) = AsyncClient::new(options, 64);
    watcher
        .subscribe("shop/dryer/#", QoS::AtLeastOnce)
        .await
        .unwrap();

    let (link, _incoming) = MqttLink::start(&config.mqtt, vec![]).unwrap();
    Poller::new(config.sources[0].clone(), &config.mqtt.base_topic, link).start();

    let mut states = BTreeMap::new();
    while states.len() < 5 {
        let (topic, payload) = next_publish(&mut events).await;
        states.insert(topic, payload);
    }
    assert_eq!(states["shop/dryer/status"], "online");
    assert_eq!(states["shop/dryer/a"], "1234");
    assert_eq!(states["shop/dryer/b"], "65538");
    assert_eq!(states["shop/dryer/c"], "3.5");
    assert_eq!(states["shop/dryer/relay"], "true");
    let seen = device.seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert!(
        seen.iter()
            .all(|r| *r == ("holding", 0, 5) || *r == ("coils", 0, 1)),
        "three holding points in one request, the coil in another: {seen:?}"
    );

    server.abort();
    let _ = server.await;
    let status = async |events: &mut EventLoop, wanted: &str| loop {
        let (topic, payload) = next_publish(events).await;
        if topic == "shop/dryer/status" && payload == wanted {
            break;
        }
    };
    status(&mut events, "offline").await;

    // The device comes back on the same address: the source turns online again.
    serve_at(device.clone(), modbus).await;
    status(&mut events, "online").await;
}

/// A device with a setpoint (holding, i16, scaled), a relay (coil), a fan (input) and an
/// energy counter (u32, little word order), the bridge over it with its embedded broker, and an
/// MQTT client subscribed to its topics.
struct WriteRig {
    device: Arc<Device>,
    client: AsyncClient,
    events: EventLoop,
    _server: tokio::task::JoinHandle<()>,
}

/// The dryer's points of the write tests (YAML list items).
const DRYER_POINTS: &str = "      - {name: setpoint, topic: setpoint, address: 10, kind: holding, data_type: i16, scale: 0.1, offset: -40}\n      - {name: relay, topic: relay, address: 0, kind: coil, data_type: bool}\n      - {name: fan, topic: fan, address: 20, kind: input, data_type: u16}\n      - {name: energy, topic: energy, address: 30, kind: holding, data_type: u32, encoding: {word_order: little}}\n      - {name: heater, topic: heater, address: 40, kind: holding, data_type: bool, bit: 3}\n";

impl WriteRig {
    async fn start() -> WriteRig {
        let device = Arc::new(Device::default());
        device.registers.lock().unwrap().extend([
            (10, 600),
            (20, 7),
            (30, 0),
            (31, 0),
            (40, 0b1_0001),
        ]);
        device.coils.lock().unwrap().insert(0, true);
        let (modbus, server) = serve(device.clone()).await;
        Self::on(device, modbus, server, DRYER_POINTS).await
    }

    /// The bridge, with the embedded broker, polling `modbus` every 200 ms as source `dryer`
    /// with `points` (YAML list items), and a client subscribed to `shop/dryer/#`.
    async fn on(
        device: Arc<Device>,
        modbus: SocketAddr,
        server: tokio::task::JoinHandle<()>,
        points: &str,
    ) -> WriteRig {
        let mqtt = free_address();
        let yaml = format!(
            "mqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\nbroker:\n  listen: 127.0.0.1:{port}\nsources:\n  - id: dryer\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 200\n    request_timeout_ms: 500\n    points:\n{points}",
            modbus.port(),
            port = mqtt.port(),
        );
        let config = config::parse("test.yml", &yaml).unwrap();
        config.validate().unwrap();
        run::start(&config).unwrap();

        let mut options = MqttOptions::new("writer", "127.0.0.1", mqtt.port());
        options.set_keep_alive(Duration::from_secs(5));
        let (client, events) = AsyncClient::new(options, 64);
        client
            .subscribe("shop/dryer/#", QoS::AtLeastOnce)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        WriteRig {
            device,
            client,
            events,
            _server: server,
        }
    }

    /// The next state published on `topic` (below `shop/dryer/`).
    async fn state_of(&mut self, topic: &str) -> String {
        loop {
            let (t, p) = next_publish(&mut self.events).await;
            if t == format!("shop/dryer/{topic}") {
                return p;
            }
        }
    }

    /// Publishes `payload` to the point's `/set` and returns its `/set/result`.
    async fn result_of(&mut self, topic: &str, payload: &str) -> serde_json::Value {
        self.client
            .publish(
                format!("shop/dryer/{topic}/set"),
                QoS::AtLeastOnce,
                false,
                payload,
            )
            .await
            .unwrap();
        loop {
            let (t, p) = next_publish(&mut self.events).await;
            if t == format!("shop/dryer/{topic}/set/result") {
                return serde_json::from_str(&p).unwrap();
            }
        }
    }
}

#[actix_rt::test]
async fn writes_are_encoded_applied_read_back_and_answered() {
    let mut rig = WriteRig::start().await;
    let device = rig.device.clone();

    assert_eq!(
        rig.result_of("setpoint", r#"{"value": 25.5}"#).await,
        serde_json::json!({"ok": true, "value": 25.5})
    );
    assert_eq!(
        device.registers.lock().unwrap()[&10],
        655,
        "inverse of scale and offset"
    );
    assert_eq!(
        rig.result_of("relay", "false").await,
        serde_json::json!({"ok": true, "value": false})
    );
    assert!(!device.coils.lock().unwrap()[&0]);

    let malformed = rig.result_of("setpoint", "{oops").await;
    assert_eq!(malformed["ok"], false);
    let too_hot = rig.result_of("setpoint", "9999").await;
    assert_eq!(too_hot["ok"], false, "{too_hot}");
    let read_only = rig.result_of("fan", "1").await;
    assert_eq!(
        read_only,
        serde_json::json!({"ok": false, "error": "the point is read-only"})
    );
    assert_eq!(
        device.registers.lock().unwrap()[&10],
        655,
        "refused writes touch nothing"
    );
    assert_eq!(
        rig.result_of("setpoint", "20").await,
        serde_json::json!({"ok": true, "value": 20.0}),
        "the bridge still serves; a scaled state is a float"
    );
    assert_eq!(device.registers.lock().unwrap()[&10], 600);
    let energy = rig.result_of("energy", "70000").await;
    assert_eq!(
        energy,
        serde_json::json!({"ok": true, "value": 70000}),
        "FC16 over two registers"
    );
    let stored = {
        let registers = device.registers.lock().unwrap();
        (registers[&30], registers[&31])
    };
    assert_eq!(
        stored,
        (0x1170, 0x0001),
        "little word order: low word first"
    );
    let writes = device
        .seen
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.0.starts_with("write"))
        .count();
    assert_eq!(writes, 4, "only valid writes reach the device");
}

#[actix_rt::test]
async fn a_bit_point_sets_its_bit_and_keeps_the_others() {
    let mut rig = WriteRig::start().await;
    assert_eq!(
        rig.result_of("heater", "true").await,
        serde_json::json!({"ok": true, "value": true})
    );
    assert_eq!(rig.device.registers.lock().unwrap()[&40], 0b1_1001);
    assert_eq!(
        rig.result_of("heater", "false").await,
        serde_json::json!({"ok": true, "value": false})
    );
    assert_eq!(
        rig.device.registers.lock().unwrap()[&40],
        0b1_0001,
        "bits 0 and 4 kept"
    );
}

/// One point of the data-type test: data type, byte order, word order, extra keys, the
/// registers on the device and the state expected from them.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [u16],
    serde_json::Value,
);

#[actix_rt::test]
async fn every_data_type_decodes_in_every_byte_and_word_order() {
    use serde_json::json;
    let cases: Vec<Case> = vec![
        ("bool", "big", "big", "", &[0x0001], json!(true)),
        ("bool", "little", "big", "", &[0x0100], json!(true)),
        ("u16", "big", "big", "", &[0x1234], json!(4660)),
        ("u16", "little", "big", "", &[0x3412], json!(4660)),
        ("i16", "big", "big", "", &[0xFED4], json!(-300)),
        ("i16", "little", "big", "", &[0xD4FE], json!(-300)),
        (
            "i16",
            "big",
            "big",
            "scale: 0.5, offset: 10,",
            &[0xFED4],
            json!(-140.0),
        ),
        ("u32", "big", "big", "", &[0x1234, 0x5678], json!(305419896)),
        (
            "u32",
            "little",
            "big",
            "",
            &[0x3412, 0x7856],
            json!(305419896),
        ),
        (
            "u32",
            "big",
            "little",
            "",
            &[0x5678, 0x1234],
            json!(305419896),
        ),
        (
            "u32",
            "little",
            "little",
            "",
            &[0x7856, 0x3412],
            json!(305419896),
        ),
        ("i32", "big", "big", "", &[0xFFFF, 0xFFFE], json!(-2)),
        ("i32", "little", "big", "", &[0xFFFF, 0xFEFF], json!(-2)),
        ("i32", "big", "little", "", &[0xFFFE, 0xFFFF], json!(-2)),
        ("i32", "little", "little", "", &[0xFEFF, 0xFFFF], json!(-2)),
        ("f32", "big", "big", "", &[0xBFC0, 0x0000], json!(-1.5)),
        ("f32", "little", "big", "", &[0xC0BF, 0x0000], json!(-1.5)),
        ("f32", "big", "little", "", &[0x0000, 0xBFC0], json!(-1.5)),
        (
            "f32",
            "little",
            "little",
            "",
            &[0x0000, 0xC0BF],
            json!(-1.5),
        ),
        ("f32", "big", "big", "", &[0x7FC0, 0x0000], json!(null)),
        (
            "string",
            "big",
            "big",
            "count: 3,",
            &[0x504C, 0x412B, 0],
            json!("PLA+"),
        ),
        (
            "string",
            "little",
            "big",
            "count: 3,",
            &[0x4C50, 0x2B41, 0],
            json!("PLA+"),
        ),
        (
            "string",
            "big",
            "little",
            "count: 3,",
            &[0, 0x412B, 0x504C],
            json!("PLA+"),
        ),
        (
            "string",
            "little",
            "little",
            "count: 3,",
            &[0, 0x2B41, 0x4C50],
            json!("PLA+"),
        ),
        ("raw_u16", "big", "big", "", &[0xBEEF], json!(0xBEEF)),
        (
            "raw_u16",
            "big",
            "big",
            "count: 2,",
            &[7, 0xFFFF],
            json!([7, 0xFFFF]),
        ),
    ];
    let device = Arc::new(Device::default());
    let mut points = String::new();
    let mut address = 0u16;
    for (i, (data_type, byte_order, word_order, extra, words, _)) in cases.iter().enumerate() {
        points.push_str(&format!(
            "      - {{name: p{i}, topic: p{i}, address: {address}, kind: holding, data_type: {data_type}, {extra} encoding: {{byte_order: {byte_order}, word_order: {word_order}}}}}\n"
        ));
        let mut registers = device.registers.lock().unwrap();
        for word in words.iter() {
            registers.insert(address, *word);
            address += 1;
        }
    }
    let (modbus, _server) = serve(device.clone()).await;
    let mqtt = free_address();
    broker::start(mqtt).unwrap();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  base_topic: shop\nsources:\n  - id: meter\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 500\n    points:\n{points}",
        mqtt.port(),
        modbus.port()
    );
    let config = config::parse("test.yml", &yaml).unwrap();
    config.validate().unwrap();
    let mut options = MqttOptions::new("types", "127.0.0.1", mqtt.port());
    options.set_keep_alive(Duration::from_secs(5));
    let (watcher, mut events) = AsyncClient::new(options, 64);
    watcher
        .subscribe("shop/meter/#", QoS::AtLeastOnce)
        .await
        .unwrap();
    let (link, _incoming) = MqttLink::start(&config.mqtt, vec![]).unwrap();
    Poller::new(config.sources[0].clone(), &config.mqtt.base_topic, link).start();

    let mut states = BTreeMap::new();
    while states.len() < cases.len() {
        let (topic, payload) = next_publish(&mut events).await;
        if let Some(point) = topic.strip_prefix("shop/meter/p") {
            states.insert(point.parse::<usize>().unwrap(), payload);
        }
    }
    for (i, case) in cases.iter().enumerate() {
        let state: serde_json::Value = serde_json::from_str(&states[&i]).unwrap();
        assert_eq!(state, case.5, "p{i}: {case:?}");
    }
    let reads = device.seen.lock().unwrap().clone();
    assert_eq!(
        reads.first(),
        Some(&("holding", 0, address)),
        "all {} points in one request",
        cases.len()
    );
}

#[actix_rt::test]
async fn a_silent_device_is_retried_with_doubling_backoff_then_reported_offline() {
    // A device that accepts connections and never answers: every attempt ends in a timeout and
    // the poller drops the connection, so each attempt is one accepted connection.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let modbus = listener.local_addr().unwrap();
    let attempts = Arc::new(Mutex::new(Vec::new()));
    let seen = attempts.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            seen.lock().unwrap().push(std::time::Instant::now());
            held.push(stream);
        }
    });
    let mqtt = free_address();
    broker::start(mqtt).unwrap();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  base_topic: shop\nsources:\n  - id: silent\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 60000\n    request_timeout_ms: 200\n    modbus_retries: 2\n    modbus_retry_backoff_ms: 100\n    points:\n      - {{name: a, topic: a, address: 0, kind: holding, data_type: u16}}\n",
        mqtt.port(),
        modbus.port()
    );
    let config = config::parse("test.yml", &yaml).unwrap();
    config.validate().unwrap();
    let mut options = MqttOptions::new("retries", "127.0.0.1", mqtt.port());
    options.set_keep_alive(Duration::from_secs(5));
    let (watcher, mut events) = AsyncClient::new(options, 64);
    watcher
        .subscribe("shop/silent/#", QoS::AtLeastOnce)
        .await
        .unwrap();
    let (link, _incoming) = MqttLink::start(&config.mqtt, vec![]).unwrap();
    Poller::new(config.sources[0].clone(), &config.mqtt.base_topic, link).start();

    assert_eq!(
        next_publish(&mut events).await,
        ("shop/silent/status".to_string(), "offline".to_string())
    );
    let attempts = attempts.lock().unwrap().clone();
    assert_eq!(attempts.len(), 3, "one attempt and modbus_retries: 2");
    let gaps: Vec<Duration> = attempts.windows(2).map(|w| w[1] - w[0]).collect();
    // Each gap is the 200 ms timeout plus the backoff: 100 ms, then doubled to 200 ms.
    assert!(gaps[0] >= Duration::from_millis(300), "{gaps:?}");
    assert!(gaps[1] >= Duration::from_millis(400), "{gaps:?}");
}

#[actix_rt::test]
async fn a_device_that_wakes_up_is_polled_at_its_rate_not_in_a_burst() {
    // Silent for two seconds: it accepts connections and reads requests but never answers, so
    // every poll times out (250 ms) and overruns the 100 ms interval.
    let address = free_address();
    let silent = tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind(address).await.unwrap();
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let mut buffer = [0u8; 256];
                while matches!(socket.read(&mut buffer).await, Ok(n) if n > 0) {}
            });
        }
    });
    let mqtt = free_address();
    broker::start(mqtt).unwrap();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  base_topic: shop\nsources:\n  - id: meter\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 100\n    request_timeout_ms: 250\n    modbus_retries: 0\n    points:\n      - {{name: a, topic: a, address: 0, kind: holding, data_type: u16}}\n",
        mqtt.port(),
        address.port()
    );
    let config = config::parse("test.yml", &yaml).unwrap();
    config.validate().unwrap();
    let (link, _incoming) = MqttLink::start(&config.mqtt, vec![]).unwrap();
    Poller::new(config.sources[0].clone(), &config.mqtt.base_topic, link).start();
    tokio::time::sleep(Duration::from_secs(2)).await;

    // It wakes up: count the polls it sees in its first second back.
    silent.abort();
    let _ = silent.await;
    let device = Arc::new(Device::default());
    device.registers.lock().unwrap().insert(0, 7);
    let _server = serve_at(device.clone(), address).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let polls = device.seen.lock().unwrap().len();
    assert!(
        (5..=12).contains(&polls),
        "{polls} polls in its first second back at 100 ms: missed ticks were made up"
    );
}

#[actix_rt::test]
async fn a_point_with_a_longer_period_is_read_on_its_ticks_with_the_others() {
    let device = Arc::new(Device::default());
    device.registers.lock().unwrap().extend([(0, 1), (1, 2)]);
    let (modbus, _server) = serve(device.clone()).await;
    let mqtt = free_address();
    broker::start(mqtt).unwrap();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  base_topic: shop\nsources:\n  - id: meter\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 50\n    points:\n      - {{name: power, topic: power, address: 0, kind: holding, data_type: u16}}\n      - {{name: energy, topic: energy, address: 1, kind: holding, data_type: u16, poll_interval_ms: 150}}\n",
        mqtt.port(),
        modbus.port()
    );
    let config = config::parse("test.yml", &yaml).unwrap();
    config.validate().unwrap();
    let (link, _incoming) = MqttLink::start(&config.mqtt, vec![]).unwrap();
    Poller::new(config.sources[0].clone(), &config.mqtt.base_topic, link).start();
    tokio::time::sleep(Duration::from_millis(800)).await;
    let seen = device.seen.lock().unwrap().clone();
    assert!(seen.len() >= 6, "{seen:?}");
    let both = ("holding", 0, 2);
    let power = ("holding", 0, 1);
    assert_eq!(
        seen[..6],
        [both, power, power, both, power, power],
        "the energy counter every third tick, in one request with the power"
    );
}

/// Home Assistant discovery through a real broker: one retained config per point, read back
/// field by field; a write through the discovered `number`'s command topic reaches the device;
/// Home Assistant saying `online` gets the configs again.
#[actix_rt::test]
async fn home_assistant_finds_every_point_and_writes_through_a_number() {
    let device = Arc::new(Device::default());
    device
        .registers
        .lock()
        .unwrap()
        .extend([(10, 600), (12, 0x4049), (13, 0x0FDB)]);
    device.coils.lock().unwrap().insert(0, false);
    let (modbus, _server) = serve(device.clone()).await;
    let mqtt = free_address();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\nbroker:\n  listen: 127.0.0.1:{port}\nhomeassistant:\n  enabled: true\nsources:\n  - id: dryer\n    host: 127.0.0.1\n    port: {}\n    unit_id: 1\n    poll_interval_ms: 200\n    points:\n      - {{name: Setpoint, topic: setpoint, address: 10, kind: holding, data_type: i16, scale: 0.1, offset: -40, unit_of_measurement: '°C', device_class: temperature}}\n      - {{name: Power, topic: power, address: 12, kind: input, data_type: f32, unit_of_measurement: W, device_class: power, state_class: measurement}}\n      - {{name: Heater, topic: heater, address: 0, kind: coil, data_type: bool}}\n",
        modbus.port(),
        port = mqtt.port(),
    );
    let config = config::parse("test.yml", &yaml).unwrap();
    config.validate().unwrap();
    run::start(&config).unwrap();
    let mut options = MqttOptions::new("home-assistant", "127.0.0.1", mqtt.port());
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut events) = AsyncClient::new(options, 64);
    client
        .subscribe("homeassistant/+/+/+/config", QoS::AtLeastOnce)
        .await
        .unwrap();
    let mut configs = BTreeMap::new();
    while configs.len() < 4 {
        let (topic, payload) = next_publish(&mut events).await;
        configs.insert(
            topic,
            serde_json::from_str::<serde_json::Value>(&payload).unwrap(),
        );
    }
    let number = &configs["homeassistant/number/shop_dryer/setpoint/config"];
    assert_eq!(number["command_topic"], "shop/dryer/setpoint/set");
    assert_eq!(number["state_topic"], "shop/dryer/setpoint");
    assert_eq!(
        (
            number["min"].as_f64(),
            number["max"].as_f64(),
            number["step"].as_f64()
        ),
        (Some(-3316.8), Some(3236.7), Some(0.1))
    );
    assert_eq!(
        (
            number["unit_of_measurement"].as_str(),
            number["device_class"].as_str()
        ),
        (Some("°C"), Some("temperature"))
    );
    assert_eq!(number["unique_id"], "shop_dryer_setpoint");
    assert_eq!(
        number["availability"],
        serde_json::json!([{"topic": "shop/status"}, {"topic": "shop/dryer/status"}])
    );
    assert_eq!(
        number["device"]["identifiers"],
        serde_json::json!(["shop_dryer"])
    );
    let bridge = &configs["homeassistant/binary_sensor/shop_bridge/status/config"];
    assert_eq!(
        (
            bridge["state_topic"].as_str(),
            bridge["device"]["identifiers"][0].as_str()
        ),
        (Some("shop/status"), number["device"]["via_device"].as_str()),
        "the device every source names is announced"
    );
    let sensor = &configs["homeassistant/sensor/shop_dryer/power/config"];
    assert_eq!(
        (sensor["state_class"].as_str(), sensor.get("command_topic")),
        (Some("measurement"), None)
    );
    let switch = &configs["homeassistant/switch/shop_dryer/heater/config"];
    assert_eq!(
        (
            switch["command_topic"].as_str(),
            switch["payload_on"].as_str(),
            switch["state_off"].as_str()
        ),
        (Some("shop/dryer/heater/set"), Some("true"), Some("false"))
    );

    client
        .publish("shop/dryer/setpoint/set", QoS::AtLeastOnce, false, "25.5")
        .await
        .unwrap();
    for _ in 0..50 {
        if device.registers.lock().unwrap()[&10] == 655 {
            break;
        }
        // The client's event loop sends the publish; keep it turning.
        let _ = tokio::time::timeout(Duration::from_millis(100), events.poll()).await;
    }
    assert_eq!(
        device.registers.lock().unwrap()[&10],
        655,
        "the number's write reached the device"
    );
    // Quiet first (every earlier publish drained), then Home Assistant says it is back.
    while let Ok(Ok(_)) = tokio::time::timeout(Duration::from_millis(500), events.poll()).await {}
    client
        .publish("homeassistant/status", QoS::AtLeastOnce, false, "online")
        .await
        .unwrap();
    let mut again = std::collections::BTreeSet::new();
    while again.len() < 4 {
        again.insert(next_publish(&mut events).await.0);
    }
    let all: std::collections::BTreeSet<String> = configs.keys().cloned().collect();
    assert_eq!(
        again, all,
        "every config again after Home Assistant restarts"
    );
}

/// A device answering an exception for a register it lacks: the coalesced read is split, its
/// neighbours are still published, the source stays online, and the point appears once the
/// register exists.
#[actix_rt::test]
async fn a_device_answering_exceptions_keeps_its_good_points() {
    let device = Arc::new(Device::default());
    device
        .registers
        .lock()
        .unwrap()
        .extend([(0, 10), (1, 11), (3, 13)]);
    let (modbus, server) = serve(device.clone()).await;
    let points: String = (0..4)
        .map(|a| {
            format!(
                "      - {{name: p{a}, topic: p{a}, address: {a}, kind: holding, data_type: u16}}\n"
            )
        })
        .collect();
    let mut rig = WriteRig::on(device.clone(), modbus, server, &points).await;
    assert_eq!(
        rig.state_of("p3").await,
        "13",
        "a neighbour of the bad address"
    );
    assert_eq!(rig.state_of("p0").await, "10");
    device.registers.lock().unwrap().insert(2, 12);
    assert_eq!(rig.state_of("p2").await, "12");
    let split = device.seen.lock().unwrap().contains(&("holding", 3, 1));
    assert!(split, "the failing read was split point by point");
}

/// One Modbus TCP frame (MBAP header and PDU) from `stream`, or `None` when it closed.
async fn read_frame(stream: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut header = [0u8; 7];
    stream.read_exact(&mut header).await.ok()?;
    let length = usize::from(u16::from_be_bytes([header[4], header[5]]));
    let mut pdu = vec![0u8; length.saturating_sub(1)];
    stream.read_exact(&mut pdu).await.ok()?;
    Some([header.to_vec(), pdu].concat())
}

/// A Modbus TCP proxy to `upstream`; while `drop_writes` is set, a write request (function 5,
/// 6, 15 or 16) is forwarded, so the device applies it, and then the connection is closed
/// before the answer.
async fn dropping_proxy(
    upstream: SocketAddr,
    drop_writes: Arc<std::sync::atomic::AtomicBool>,
) -> SocketAddr {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let drop_writes = drop_writes.clone();
            tokio::spawn(async move {
                let Ok(mut device) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                while let Some(request) = read_frame(&mut client).await {
                    let write = matches!(request.get(7), Some(5 | 6 | 15 | 16));
                    if device.write_all(&request).await.is_err() {
                        return;
                    }
                    let Some(answer) = read_frame(&mut device).await else {
                        return;
                    };
                    if write && drop_writes.load(std::sync::atomic::Ordering::SeqCst) {
                        return; // applied; the answer never comes
                    }
                    if client.write_all(&answer).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    address
}

/// A device that drops the connection in the middle of a write: the write's result says so,
/// the write was applied, and the bridge goes on polling and writing.
#[actix_rt::test]
async fn a_connection_dropped_mid_write_is_answered_and_the_bridge_goes_on() {
    let device = Arc::new(Device::default());
    device
        .registers
        .lock()
        .unwrap()
        .extend([(10, 600), (20, 7), (30, 0), (31, 0), (40, 0)]);
    device.coils.lock().unwrap().insert(0, true);
    let (modbus, server) = serve(device.clone()).await;
    let drop_writes = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let proxy = dropping_proxy(modbus, drop_writes.clone()).await;
    let mut rig = WriteRig::on(device.clone(), proxy, server, DRYER_POINTS).await;
    let result = rig.result_of("setpoint", "25.5").await;
    assert_eq!(result["ok"], false, "{result}");
    assert!(
        result["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{result}"
    );
    assert_eq!(
        device.registers.lock().unwrap()[&10],
        655,
        "it was applied before the drop"
    );
    drop_writes.store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(
        rig.result_of("setpoint", "20").await,
        serde_json::json!({"ok": true, "value": 20.0}),
        "the bridge goes on"
    );
    device.registers.lock().unwrap().insert(20, 8);
    while rig.state_of("fan").await != "8" {} // bounded by next_publish's timeout: it polls on
}
