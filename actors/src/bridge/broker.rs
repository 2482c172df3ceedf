//! The embedded MQTT broker (rumqttd), for a bridge that runs with nothing else installed.
//!
//! rumqttd's defaults are not usable as they are (a `RouterConfig` left at its defaults panics at
//! the first topic), so every limit is set here. `start` runs
//! the broker on its own thread (rumqttd's `start` blocks) and returns once it accepts
//! connections.

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

/// Starts the broker on `listen` and waits until it accepts connections.
///
/// Errors: [`BrokerError`].
pub fn start(listen: SocketAddr) -> Result<(), BrokerError> {
    let mut broker = Broker::new(config(listen));
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
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(BrokerError::NotListening(listen))
}
