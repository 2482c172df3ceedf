//! A source poller against an in-process Modbus TCP test device and the embedded broker, watched
//! by a real MQTT client: decoded states, coalesced requests (as the device sees them), and the
//! source turning offline when the device disappears.
#![allow(clippy::unwrap_used, missing_docs)]

use actix::Actor;
use actors::bridge::{broker, config, link::MqttLink, poller::Poller};
use rumqttc::{AsyncClient, Event, EventLoop, MqttOptions, Packet, QoS};
use std::collections::BTreeMap;
use std::future;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_modbus::prelude::{ExceptionCode, Request, Response};
use tokio_modbus::server::tcp::{Server, accept_tcp_connection};

/// A device with fixed holding registers and coils that records every request it sees.
#[derive(Default)]
struct Device {
    registers: BTreeMap<u16, u16>,
    coils: BTreeMap<u16, bool>,
    seen: Mutex<Vec<(&'static str, u16, u16)>>,
}

impl tokio_modbus::server::Service for Device {
    type Request = Request<'static>;
    type Response = Response;
    type Exception = ExceptionCode;
    type Future = future::Ready<Result<Response, ExceptionCode>>;

    fn call(&self, request: Request<'static>) -> Self::Future {
        let answer = match request {
            Request::ReadHoldingRegisters(address, count) => {
                self.seen.lock().unwrap().push(("holding", address, count));
                let values: Option<Vec<u16>> = (address..address + count)
                    .map(|a| self.registers.get(&a).copied())
                    .collect();
                values
                    .map(Response::ReadHoldingRegisters)
                    .ok_or(ExceptionCode::IllegalDataAddress)
            }
            Request::ReadCoils(address, count) => {
                self.seen.lock().unwrap().push(("coils", address, count));
                let bits: Option<Vec<bool>> = (address..address + count)
                    .map(|a| self.coils.get(&a).copied())
                    .collect();
                bits.map(Response::ReadCoils)
                    .ok_or(ExceptionCode::IllegalDataAddress)
            }
            _ => Err(ExceptionCode::IllegalFunction),
        };
        future::ready(answer)
    }
}

fn free_address() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

async fn next_publish(events: &mut EventLoop) -> (String, String) {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Event::Incoming(Packet::Publish(p)) = events.poll().await.unwrap() {
                return (
                    p.topic.clone(),
                    String::from_utf8_lossy(&p.payload).to_string(),
                );
            }
        }
    })
    .await
    .expect("no publish within 10 s")
}

#[actix_rt::test]
async fn a_source_is_polled_coalesced_published_and_reported_offline() {
    let mut device = Device::default();
    device.registers.extend([
        (0, 1234),
        (1, 0x0001),
        (2, 0x0002),
        (3, 0x4060),
        (4, 0x0000),
    ]);
    device.coils.insert(0, true);
    let device = Arc::new(device);
    let modbus = free_address();
    let listener = tokio::net::TcpListener::bind(modbus).await.unwrap();
    let served = device.clone();
    let server = tokio::spawn(async move {
        let new_service = move |_| Ok(Some(served.clone()));
        let on_connected = move |stream, address| {
            let new_service = new_service.clone();
            async move { accept_tcp_connection(stream, address, new_service) }
        };
        let _ = Server::new(listener).serve(&on_connected, |_| {}).await;
    });

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

    let (link, _incoming) = MqttLink::start(&config.mqtt, vec![]);
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
    loop {
        let (topic, payload) = next_publish(&mut events).await;
        if topic == "shop/dryer/status" && payload == "offline" {
            break;
        }
    }
}
