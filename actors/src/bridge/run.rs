//! The running bridge: embedded broker (when configured), MQTT link, one poller per source, and
//! the routing of `/set` messages to the poller of their point.

use super::broker;
use super::config::{BridgeConfig, Endpoint, SourceConfig};
use super::discovery;
use super::history;
use super::line::{Line, SharedLine};
use super::link::{LinkError, MqttLink};
use super::poller::{Poller, SourceStates, Write};
use actix::prelude::*;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// Why the bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The embedded broker did not start.
    #[error(transparent)]
    Broker(#[from] broker::BrokerError),
    /// `broker.listen` is not an address (validation catches this first).
    #[error("broker.listen is not host:port")]
    Listen,
    /// The MQTT link cannot start (TLS files, the password's file or variable).
    #[error(transparent)]
    Link(#[from] LinkError),
    /// The history queue cannot start (its file).
    #[error(transparent)]
    History(#[from] history::StartError),
}

/// A started bridge.
pub struct Running {
    /// One poller per source, in configuration order.
    pub pollers: Vec<Addr<Poller>>,
    /// The MQTT link (close it for a clean goodbye).
    pub link: MqttLink,
    /// Each source's availability.
    pub sources: SourceStates,
}

/// Starts the bridge described by `config` (already validated). Must run inside an actix
/// `System`; the pollers and the link live until the system stops. When `mqtt` names the
/// embedded broker's own listener, the link speaks to it in process
/// ([`MqttLink::embedded`]).
///
/// Errors: [`RunError`].
pub fn start(config: &BridgeConfig) -> Result<Running, RunError> {
    let mut local = None;
    if let Some(embedded) = config.broker.as_ref().filter(|b| b.enabled) {
        let listen = embedded.listen.parse().map_err(|_| RunError::Listen)?;
        let link = broker::start(listen)?;
        let endpoint = config.mqtt.endpoint().map_err(LinkError::Endpoint)?;
        local = names_listener(&endpoint, listen).then_some(link);
    }
    for warning in config.sources.iter().filter_map(|s| s.slow_poll_warning()) {
        tracing::warn!("{warning}");
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
    let ha_status = discovery::status_topic(config);
    let mut subscriptions = write_filters(base, routes.keys());
    subscriptions.extend(ha_status.clone());
    let (link, mut incoming) = match local {
        Some(local) => MqttLink::embedded(&config.mqtt, local, subscriptions),
        None => MqttLink::start(&config.mqtt, subscriptions)?,
    };
    let history = history::start(config, &link)?;
    // One line per bus: the sources of one serial port, RTU gateway or Modbus TCP gateway (one
    // host and port, by unit id) take turns on it, over one connection.
    let mut buses: HashMap<String, SharedLine> = HashMap::new();
    let sources = SourceStates::default();
    let pollers: Vec<Addr<Poller>> = config
        .sources
        .iter()
        .zip(phases(&config.sources))
        .map(|(source, phase)| {
            let poller = Poller::new(source.clone(), base, link.clone())
                .with_phase(phase)
                .watched(sources.clone())
                .keeping(history.clone());
            match source.bus() {
                Some(bus) => poller.on_line(buses.entry(bus).or_insert_with(Line::shared).clone()),
                None => poller,
            }
            .start()
        })
        .collect();
    let targets = pollers.clone();
    let (announcer, announcements) = (link.clone(), discovery::messages(config));
    actix::spawn(async move {
        announcer.set_announcements(announcements).await;
        while let Some((topic, payload)) = incoming.recv().await {
            if ha_status.as_deref() == Some(topic.as_str()) {
                if payload == b"online" {
                    announcer.republish_announcements().await;
                }
                continue;
            }
            match routes.get(&topic) {
                Some(&(source, point)) => targets[source].do_send(Write { point, payload }),
                None => tracing::debug!(%topic, "message on an unknown topic dropped"),
            }
        }
    });
    Ok(Running {
        pollers,
        link,
        sources,
    })
}

/// True when `endpoint` is the embedded broker listening on `listen`: its port, no TLS (the
/// embedded broker has none), and its address, or a loopback name for a listener on loopback or
/// on every address.
fn names_listener(endpoint: &Endpoint, listen: SocketAddr) -> bool {
    let host = endpoint.host.trim_start_matches('[').trim_end_matches(']');
    let ip = match host.parse::<IpAddr>() {
        Ok(ip) => Some(ip),
        Err(_) if host.eq_ignore_ascii_case("localhost") => None,
        Err(_) => return false,
    };
    let same_host = match ip {
        Some(ip) => ip == listen.ip() || (ip.is_loopback() && listen.ip().is_unspecified()),
        None => listen.ip().is_loopback() || listen.ip().is_unspecified(),
    };
    endpoint.port == listen.port() && !endpoint.tls && same_host
}

/// The subscriptions that cover every write topic `<base>/<source>/<topic>/set`: one filter per
/// depth below `base`, of `+` levels (`<base>/+/+/set` for the usual one-level ids and topics).
///
/// A broker keeps state per filter (rumqttd about 35 KiB each), so 5,000 points subscribed one by
/// one cost 180 MiB; a handful of wildcard filters cost nothing. Messages that match a filter but
/// no point are dropped by the routing.
fn write_filters<'a>(base: &str, topics: impl Iterator<Item = &'a String>) -> Vec<String> {
    let below_base = |topic: &str| topic[base.len() + 1..].split('/').count();
    let depths: std::collections::BTreeSet<usize> = topics.map(|t| below_base(t)).collect();
    depths
        .into_iter()
        .map(|depth| format!("{base}/{}set", "+/".repeat(depth - 1)))
        .collect()
}

/// The shortest time between two poll slots of one interval, milliseconds.
///
/// Sources in one slot are polled on one timer wake-up of the bridge's thread and their states
/// reach the embedded broker's router on one wake-up of its thread; each wake-up costs both
/// threads a context switch, which at 50 sources polled every 100 ms (a slot each, 2 ms apart)
/// was about half of either thread's CPU. Slots 25 ms apart: bridge and broker 21.6 % → 14.6 %
/// of a core, the bridge's thread 1.72 → 0.84 µs a state, mosquitto's relaying of 10 sources
/// 17.4 → 14.8 µs a state; one slot for all was cheaper still but raised the change-to-subscriber
/// median and the RSS with its burst (`benches/README.md`, "Poll slots").
pub const POLL_SLOT_GAP_MS: u64 = 25;

/// Each source's phase within its poll interval: the sources that share an interval are spread
/// evenly over it in the configuration's order, in slots at least [`POLL_SLOT_GAP_MS`] apart
/// (at most `interval / POLL_SLOT_GAP_MS` slots, never more than there are sources),
/// consecutive sources sharing a slot. So a cycle's states do not leave in one burst, and the
/// bridge wakes for the polls of one interval at most `1000 / POLL_SLOT_GAP_MS` times a second
/// (once a poll when the interval is shorter than the gap). Stable while the configuration is.
pub fn phases(sources: &[SourceConfig]) -> Vec<Duration> {
    sources
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let every = source.tick_ms();
            let peers: Vec<usize> = (0..sources.len())
                .filter(|&j| sources[j].tick_ms() == every)
                .collect();
            let rank = peers.iter().position(|&j| j == i).unwrap_or(0) as u64;
            let count = peers.len().max(1) as u64;
            let slots = (every / POLL_SLOT_GAP_MS).clamp(1, count);
            let slot = rank * slots / count;
            Duration::from_millis(every.saturating_mul(slot) / slots)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{names_listener, phases, write_filters};
    use crate::bridge::config::{Endpoint, parse};
    use std::time::Duration;

    #[test]
    fn sources_of_one_interval_are_spread_over_it() {
        let source = |id: &str, every: u32| {
            format!(
                "  - id: {id}\n    host: h\n    unit_id: 1\n    poll_interval_ms: {every}\n    points:\n      - {{name: P, topic: p, address: 0, kind: input, data_type: u16}}\n"
            )
        };
        let yaml = format!(
            "mqtt:\n  host: h\nsources:\n{}{}{}{}{}",
            source("a", 100),
            source("b", 100),
            source("slow", 1000),
            source("c", 100),
            source("d", 100)
        );
        let config = parse("c.yml", &yaml).unwrap();
        let ms: Vec<u128> = phases(&config.sources)
            .iter()
            .map(Duration::as_millis)
            .collect();
        assert_eq!(
            ms,
            [0, 25, 0, 50, 75],
            "four at 100 ms a quarter apart; the slow one alone"
        );

        // More sources than slots: consecutive sources share a slot, slots 25 ms apart; an
        // interval shorter than a slot's gap polls all its sources together.
        let many: String = (0..10).map(|i| source(&format!("s{i}"), 100)).collect();
        let fast: String = (0..3).map(|i| source(&format!("f{i}"), 20)).collect();
        let config = parse(
            "c.yml",
            &format!("mqtt:\n  host: h\nsources:\n{many}{fast}"),
        )
        .unwrap();
        let ms: Vec<u128> = phases(&config.sources)
            .iter()
            .map(Duration::as_millis)
            .collect();
        assert_eq!(ms, [0, 0, 0, 25, 25, 50, 50, 50, 75, 75, 0, 0, 0]);
    }

    #[test]
    fn the_link_is_in_process_only_to_the_embedded_listener() {
        let at = |host: &str, port: u16, tls: bool| Endpoint {
            host: host.into(),
            port,
            tls,
        };
        let loopback = "127.0.0.1:1883".parse().unwrap();
        let every = "0.0.0.0:1883".parse().unwrap();
        assert!(names_listener(&at("127.0.0.1", 1883, false), loopback));
        assert!(names_listener(&at("localhost", 1883, false), loopback));
        assert!(names_listener(&at("127.0.0.1", 1883, false), every));
        assert!(names_listener(&at("0.0.0.0", 1883, false), every));
        assert!(
            !names_listener(&at("127.0.0.1", 1884, false), loopback),
            "another port"
        );
        assert!(
            !names_listener(&at("127.0.0.1", 1883, true), loopback),
            "TLS"
        );
        assert!(
            !names_listener(&at("broker.lan", 1883, false), every),
            "another host"
        );
        assert!(!names_listener(&at("10.0.0.2", 1883, false), loopback));
    }

    #[test]
    fn write_filters_cover_each_depth_once() {
        let topics = [
            "shop/dryer/temp/set",
            "shop/meter/power/set",
            "shop/meter/phase/l1/set",
        ]
        .map(String::from);
        assert_eq!(
            write_filters("shop", topics.iter()),
            ["shop/+/+/set", "shop/+/+/+/set"]
        );
        let nested = ["a/b/dryer/temp/set".to_string()];
        assert_eq!(write_filters("a/b", nested.iter()), ["a/b/+/+/set"]);
    }
}
