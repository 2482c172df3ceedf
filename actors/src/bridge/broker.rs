//! The embedded MQTT broker (rumqttd), for a bridge that runs with nothing else installed.
//!
//! rumqttd's defaults are not usable as they are (a `RouterConfig` left at its defaults panics at
//! the first topic), so every limit is set here. `start` runs
//! the broker on its own thread (rumqttd's `start` blocks) and returns once it accepts
//! connections, with a [`LocalLink`]: the bridge's own connection to it, in process (no socket,
//! no MQTT encoding), which [`super::link::MqttLink::embedded`] publishes through.
//!
//! The rumqttd built in is vendored with two changes of ours (`vendor/README.md`): Nagle's
//! algorithm is off on the connections it accepts, so a subscriber sees a write's new state
//! without waiting for its own delayed ACK (40 ms on Linux); and its router allocates nothing
//! per publish of a known topic (about a quarter less of its CPU at 50,000 states a second,
//! `benches/README.md`).

use rumqttd::local::{LinkRx, LinkTx};
use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};
use std::collections::HashMap;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Longest wait for the broker to accept connections.
pub const START_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the broker did not start.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// Its thread could not be spawned.
    #[error("cannot start the broker thread: {0}")]
    Thread(#[from] std::io::Error),
    /// It did not accept connections within [`START_TIMEOUT`] (the address is taken?).
    #[error("the embedded broker does not accept connections on {0}")]
    NotListening(SocketAddr),
    /// Its router refused the in-process connection (rumqttd's reason).
    #[error("the embedded broker refused the bridge's own connection: {0}")]
    Local(String),
}

/// The client id of the bridge's in-process connection to the embedded broker.
pub const LOCAL_CLIENT_ID: &str = "printcost-bridge-local";

/// An in-process connection to the embedded broker's router (rumqttd's local link): what it
/// publishes reaches the router's queue directly, at QoS 0 (the only level rumqttd lets a local
/// link publish at; nothing lies between the two that could lose it).
pub struct LocalLink {
    /// Publishes and subscriptions go out here.
    pub tx: LinkTx,
    /// Messages of the subscriptions (and the router's acknowledgements) come in here.
    pub rx: LinkRx,
}

/// rumqttd's configuration: one MQTT 3.1.1 listener on `listen`, every limit explicit.
fn config(listen: SocketAddr) -> Config {
    let server = ServerSettings {
        name: "v4".into(),
        listen,
        tls: None,
        next_connection_delay_ms: 1,
        connections: ConnectionSettings {
            connection_timeout_ms: 60_000,
            max_payload_size: 64 * 1024,
            max_inflight_count: 200,
            auth: None,
            external_auth: None,
            dynamic_filters: true,
        },
    };
    Config {
        id: 0,
        router: RouterConfig {
            max_connections: 1_000,
            max_outgoing_packet_count: 200,
            // With dynamic filters every published topic gets its own log of up to
            // `max_segment_count` segments: 1 MiB segments made 5,000 points cost 160 MiB of RSS,
            // 64 KiB ones 26 MiB (benches/bridge/load.sh). A segment holds ~600 states.
            max_segment_size: 64 * 1024,
            max_segment_count: 10,
            custom_segment: None,
            initialized_filters: None,
            shared_subscriptions_strategy: Default::default(),
        },
        v4: Some(HashMap::from([("v4".to_string(), server)])),
        ..Config::default()
    }
}

/// Starts the broker on `listen`, waits until it accepts connections and answers the bridge's
/// in-process connection to it.
///
/// Errors: [`BrokerError`].
pub fn start(listen: SocketAddr) -> Result<LocalLink, BrokerError> {
    let mut broker = Broker::new(config(listen));
    let (tx, rx) = broker
        .link(LOCAL_CLIENT_ID)
        .map_err(|e| BrokerError::Local(e.to_string()))?;
    std::thread::Builder::new()
        .name("mqtt-broker".into())
        .spawn(move || {
            if let Err(e) = broker.start() {
                tracing::error!(error = %e, "embedded MQTT broker stopped");
            }
        })?;
    let started = Instant::now();
    while started.elapsed() < START_TIMEOUT {
        if TcpStream::connect_timeout(&listen, Duration::from_millis(100)).is_ok() {
            return Ok(LocalLink { tx, rx });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(BrokerError::NotListening(listen))
}
