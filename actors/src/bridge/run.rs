//! The running bridge: embedded broker (when configured), MQTT link, one poller per source, and
//! the routing of `/set` messages to the poller of their point.

use super::broker;
use super::config::BridgeConfig;
use super::link::MqttLink;
use super::poller::{Poller, Write};
use actix::prelude::*;
use std::collections::HashMap;

/// Why the bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The embedded broker did not start.
    #[error(transparent)]
    Broker(#[from] broker::BrokerError),
    /// `broker.listen` is not an address (validation catches this first).
    #[error("broker.listen is not host:port")]
    Listen,
}

/// A started bridge.
pub struct Running {
    /// One poller per source, in configuration order.
    pub pollers: Vec<Addr<Poller>>,
    /// The MQTT link (close it for a clean goodbye).
    pub link: MqttLink,
}

/// Starts the bridge described by `config` (already validated). Must run inside an actix
/// `System`; the pollers and the link live until the system stops.
///
/// Errors: [`RunError`].
pub fn start(config: &BridgeConfig) -> Result<Running, RunError> {
    if let Some(embedded) = config.broker.as_ref().filter(|b| b.enabled) {
        broker::start(embedded.listen.parse().map_err(|_| RunError::Listen)?)?;
    }
    let base = &config.mqtt.base_topic;
    let mut routes: HashMap<String, (usize, usize)> = HashMap::new();
    for (s, source) in config.sources.iter().enumerate() {
        // Every point's /set is routed, read-only ones too: their writes are answered with a
        // refusal rather than ignored.
        for (p, point) in source.points.iter().enumerate() {
            routes.insert(format!("{base}/{}/{}/set", source.id, point.topic), (s, p));
        }
    }
    let (link, mut incoming) = MqttLink::start(&config.mqtt, routes.keys().cloned().collect());
    let pollers: Vec<Addr<Poller>> = config
        .sources
        .iter()
        .map(|source| Poller::new(source.clone(), base, link.clone()).start())
        .collect();
    let targets = pollers.clone();
    actix::spawn(async move {
        while let Some((topic, payload)) = incoming.recv().await {
            match routes.get(&topic) {
                Some(&(source, point)) => targets[source].do_send(Write { point, payload }),
                None => tracing::debug!(%topic, "message on an unknown topic dropped"),
            }
        }
    });
    Ok(Running { pollers, link })
}
