//! The bridge's MQTT link (rumqttc).
//!
//! - Last will: `<base_topic>/status` = `offline`, retained; on every connection the link
//!   publishes `online` there, retained.
//! - It keeps the last state published on every topic and, on every (re)connection, republishes
//!   them and re-subscribes the write topics, so subscribers and writers see a restarted broker as
//!   if nothing happened.
//! - A state is remembered and queued under one lock, and the republishing reads each state
//!   under that lock too, so an older state never overtakes a newer one in the queue. The
//!   republishing runs beside the connection loop: it may wait for queue space that only the
//!   loop frees.
//! - While the broker is away nothing is queued: publishing only remembers the latest state per
//!   topic (memory bounded by the number of topics, and polling never waits for a broker), and
//!   the reconnection publishes those latest states, never a backlog of stale ones. Write results
//!   made meanwhile are dropped (the writer sees no answer, as with a broker that is down).
//! - After a connection error it waits before trying again (rumqttc itself retries at once):
//!   `reconnect_delay_secs`, doubled after every failed attempt up to
//!   [`MAX_RECONNECT_DELAY_SECS`], and back to the first delay once connected. Every failure is
//!   logged as a sentence that says what to fix (a refused password, a certificate the bridge
//!   does not trust or that has expired) with the wait before the next attempt.
//! - Nagle's algorithm is off on its connections (`client`): a message written while an
//!   earlier one is unacknowledged goes at once, not after the broker's delayed ACK.
//! - TLS ([`super::tls`]) when the endpoint says so; the password comes from the configuration
//!   ([`MqttConfig::password`]) and is never logged.
//! - Messages on subscribed topics are forwarded on a channel as `(topic, payload)`.
//! - Announcements (Home Assistant discovery configs) are published, retained, on every
//!   connection before the states, and again on request.
//! - States go out at `mqtt.state_qos` (default 0); availability, the last will, announcements
//!   and write results at QoS 1. Up to `mqtt.max_inflight` QoS 1/2 messages wait for the
//!   broker's acknowledgement at once: rumqttc's default of 100 capped the bridge near
//!   48,000 states/s to mosquitto on loopback (benches/README.md).
//! - To the embedded broker ([`MqttLink::embedded`]) the link speaks in process, through
//!   rumqttd's local link: no socket, no MQTT encoding and decoding, one hand-over to the
//!   broker's router per poll rather than a write per state. rumqttd takes a local link's
//!   messages at QoS 0 only, whatever `mqtt.state_qos` says; nothing lies between the bridge and
//!   the router that could lose them, and subscribers receive them at QoS 0. It is always
//!   connected; there is no last will (the broker goes when the bridge does).

use super::broker::LocalLink;
use super::config::{MAX_RECONNECT_DELAY_SECS, MqttConfig};
use super::tls;
use bytes::Bytes;
use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event, EventLoop, LastWill, MqttOptions,
    Packet, QoS, TlsConfiguration, TlsError, Transport,
};
use rumqttd::local::LinkTx;
use rumqttd::protocol as local;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::{Mutex, mpsc};

/// A message received on a subscribed topic: `(topic, payload)`.
pub type Incoming = (String, Vec<u8>);

/// A retained or plain state to (re)publish.
#[derive(Debug, Clone, PartialEq)]
struct State {
    payload: Bytes,
    retain: bool,
    qos: QoS,
}

/// A topic as the link sends it, made once and shared: its text (rumqttc's, and the key of the
/// remembered states) and its bytes (the embedded broker's). Cloning it copies no text.
#[derive(Debug, Clone)]
pub struct Topic {
    text: Arc<str>,
    bytes: Bytes,
}

impl Topic {
    /// The topic `text`.
    pub fn new(text: &str) -> Topic {
        Topic {
            text: Arc::from(text),
            bytes: Bytes::copy_from_slice(text.as_bytes()),
        }
    }

    /// The topic's text.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl PartialEq for Topic {
    fn eq(&self, other: &Topic) -> bool {
        self.text == other.text
    }
}

impl Eq for Topic {}

impl PartialOrd for Topic {
    fn partial_cmp(&self, other: &Topic) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By text, as `str` is (the remembered states are looked up by `&str`).
impl Ord for Topic {
    fn cmp(&self, other: &Topic) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl std::borrow::Borrow<str> for Topic {
    fn borrow(&self) -> &str {
        &self.text
    }
}

/// A message to queue: `(topic, QoS, retain, payload)`.
type Message = (Topic, QoS, bool, Bytes);

/// A point's state to publish: `(topic, JSON payload, retain)`.
pub type StateMessage = (Topic, Bytes, bool);

/// Where the link's messages go.
#[derive(Clone)]
enum Client {
    /// A broker over the network, through rumqttc (which reconnects).
    Remote(AsyncClient),
    /// The embedded broker's router, in process ([`LocalLink`]).
    Local(Arc<Mutex<LinkTx>>),
}

impl Client {
    /// Queues `messages` in their order: one request each to rumqttc's connection loop, or all
    /// of them in one hand-over to the embedded broker's router.
    ///
    /// Errors: why the queue refused them (the connection loop or the router is gone).
    async fn publish(&self, messages: Vec<Message>) -> Result<(), String> {
        match self {
            Client::Remote(client) => {
                for (topic, qos, retain, payload) in messages {
                    client
                        .publish(topic.as_str(), qos, retain, payload)
                        .await
                        .map_err(|e| e.to_string())?;
                }
                Ok(())
            }
            Client::Local(tx) => {
                let mut packets: Vec<local::Packet> = messages
                    .into_iter()
                    .map(|(topic, _, retain, payload)| {
                        let publish = local::Publish::new(topic.bytes, payload, retain);
                        local::Packet::Publish(publish, None)
                    })
                    .collect();
                let Some(last) = packets.pop() else {
                    return Ok(());
                };
                let mut tx = tx.lock().await;
                // The router takes the whole buffer on the one event that `send` raises.
                tx.buffer().extend(packets);
                tx.send(last).await.map(drop).map_err(|e| e.to_string())
            }
        }
    }

    /// Subscribes `filter` (retained messages delivered, as by a broker over the network).
    async fn subscribe(&self, filter: String) {
        match self {
            Client::Remote(client) => {
                let _ = client.subscribe(filter, QoS::AtLeastOnce).await;
            }
            Client::Local(tx) => {
                let filters = vec![local::Filter {
                    path: filter,
                    qos: local::QoS::AtMostOnce,
                    nolocal: false,
                    preserve_retain: false,
                    retain_forward_rule: local::RetainForwardRule::OnEverySubscribe,
                }];
                let subscribe = local::Subscribe { pkid: 0, filters };
                let _ = tx
                    .lock()
                    .await
                    .send(local::Packet::Subscribe(subscribe, None))
                    .await;
            }
        }
    }
}

/// The link: publish through it; it reconnects by itself.
#[derive(Clone)]
pub struct MqttLink {
    client: Client,
    states: Arc<Mutex<BTreeMap<Topic, State>>>,
    status_topic: Topic,
    /// QoS of the states.
    state_qos: QoS,
    /// Connected to the broker (set on every ConnAck, cleared on every connection error).
    connected: Arc<AtomicBool>,
    /// Retained messages published on every connection before the states (Home Assistant
    /// discovery configs), by the group that set them (the bridge's, printcost's own).
    announcements: Arc<Mutex<BTreeMap<&'static str, Vec<Incoming>>>>,
    /// The topics subscribed on every connection: those given at the start and those added
    /// since ([`MqttLink::subscribe`]).
    subscriptions: Arc<Mutex<Vec<String>>>,
}

impl MqttLink {
    /// Connects (in the background) with the settings of `config`, subscribing `subscriptions`
    /// on every connection. Returns the link and the channel of incoming messages. Must run
    /// inside a tokio runtime.
    ///
    /// Errors: [`LinkError`], before any connection is tried (the endpoint, the TLS files, the
    /// password's file or variable).
    pub fn start(
        config: &MqttConfig,
        subscriptions: Vec<String>,
    ) -> Result<(MqttLink, mpsc::Receiver<Incoming>), LinkError> {
        let status_topic = format!("{}/status", config.base_topic);
        let mut options = options(config, &config.client_id)?;
        options.set_last_will(LastWill::new(
            status_topic.clone(),
            "offline",
            QoS::AtLeastOnce,
            true,
        ));
        let (client, mut events) = client(options, 1024);
        let link = MqttLink::new(config, Client::Remote(client), subscriptions);
        let (forward, incoming) = mpsc::channel(256);
        let first_delay = config.reconnect_delay_secs;
        let on_connect = link.clone();
        tokio::spawn(async move {
            let mut failures = 0u32;
            loop {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        tracing::info!("MQTT connected");
                        failures = 0;
                        on_connect.connected.store(true, Ordering::SeqCst);
                        // In its own task: its publishes go through the request channel that
                        // this loop drains, so awaiting them here could wait forever.
                        let link = on_connect.clone();
                        tokio::spawn(async move { link.announce().await });
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        if forward
                            .send((p.topic.clone(), p.payload.to_vec()))
                            .await
                            .is_err()
                        {
                            break;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        on_connect.connected.store(false, Ordering::SeqCst);
                        let wait = reconnect_delay(first_delay, failures);
                        failures = failures.saturating_add(1);
                        tracing::warn!(
                            error = %describe(&e),
                            retry_in_secs = wait.as_secs(),
                            "MQTT connection failed"
                        );
                        tokio::time::sleep(wait).await;
                    }
                }
            }
        });
        Ok((link, incoming))
    }

    /// The link to the embedded broker through `local`, its in-process connection: connected
    /// from the start (the announcements follow at once), never reconnecting, everything at
    /// QoS 0 (see the module's notes). Returns the link and the channel of incoming messages.
    /// Must run inside a tokio runtime.
    pub fn embedded(
        config: &MqttConfig,
        local: LocalLink,
        subscriptions: Vec<String>,
    ) -> (MqttLink, mpsc::Receiver<Incoming>) {
        let LocalLink { tx, mut rx } = local;
        let link = MqttLink::new(
            config,
            Client::Local(Arc::new(Mutex::new(tx))),
            subscriptions,
        );
        link.connected.store(true, Ordering::SeqCst);
        let (forward, incoming) = mpsc::channel(256);
        tokio::spawn(async move {
            loop {
                match rx.next().await {
                    Ok(Some(rumqttd::Notification::Forward(message))) => {
                        let publish = message.publish;
                        let topic = String::from_utf8_lossy(&publish.topic).into_owned();
                        if forward
                            .send((topic, publish.payload.to_vec()))
                            .await
                            .is_err()
                        {
                            break;
                        }
                    }
                    // The router parks a connection whose queue it filled until told it is
                    // drained again.
                    Ok(Some(rumqttd::Notification::Unschedule)) => {
                        if rx.wake().await.is_err() {
                            break;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::error!(error = %e, "the embedded broker's router is gone");
                        break;
                    }
                }
            }
        });
        let announcer = link.clone();
        tokio::spawn(async move { announcer.announce().await });
        (link, incoming)
    }

    fn new(config: &MqttConfig, client: Client, subscriptions: Vec<String>) -> MqttLink {
        MqttLink {
            client,
            states: Arc::new(Mutex::new(BTreeMap::new())),
            status_topic: Topic::new(&format!("{}/status", config.base_topic)),
            state_qos: qos(config.state_qos),
            connected: Arc::new(AtomicBool::new(false)),
            announcements: Arc::new(Mutex::new(BTreeMap::new())),
            subscriptions: Arc::new(Mutex::new(subscriptions)),
        }
    }

    /// After a (re)connection: `online`, every write subscription, every last state.
    async fn announce(&self) {
        self.publish_status("online").await;
        let subscriptions = self.subscriptions.lock().await.clone();
        for topic in subscriptions {
            self.client.subscribe(topic).await;
        }
        self.republish_announcements().await;
        let topics: Vec<Topic> = self.states.lock().await.keys().cloned().collect();
        for topic in topics {
            // Read and queue under the lock, as `publish` does, so a newer state published
            // meanwhile is never overtaken by this older one.
            let states = self.states.lock().await;
            if let Some(state) = states.get(&topic) {
                let message = (
                    topic.clone(),
                    state.qos,
                    state.retain,
                    state.payload.clone(),
                );
                let _ = self.client.publish(vec![message]).await;
            }
        }
    }

    /// Subscribes `topic` now and on every connection from now on (once, however often it
    /// is asked); its messages arrive on the link's incoming channel.
    pub async fn subscribe(&self, topic: &str) {
        let mut subscriptions = self.subscriptions.lock().await;
        if subscriptions.iter().any(|t| t == topic) {
            return;
        }
        subscriptions.push(topic.to_string());
        if self.is_connected() {
            self.client.subscribe(topic.to_string()).await;
        }
    }

    /// Sets the retained messages published on every connection (before the states), and
    /// publishes them now when connected.
    pub async fn set_announcements(&self, messages: Vec<Incoming>) {
        self.set_announcements_of("bridge", messages).await;
    }

    /// Sets the announcements of `group` (the others' stay), and publishes them now when
    /// connected.
    pub async fn set_announcements_of(&self, group: &'static str, messages: Vec<Incoming>) {
        self.announcements
            .lock()
            .await
            .insert(group, messages.clone());
        if self.is_connected() {
            self.publish_retained(messages).await;
        }
    }

    /// Publishes the announcements again, retained (Home Assistant came back online).
    pub async fn republish_announcements(&self) {
        let messages: Vec<Incoming> = self
            .announcements
            .lock()
            .await
            .values()
            .flatten()
            .cloned()
            .collect();
        self.publish_retained(messages).await;
    }

    async fn publish_retained(&self, messages: Vec<Incoming>) {
        let queued = messages
            .into_iter()
            .map(|(topic, payload)| (Topic::new(&topic), QoS::AtLeastOnce, true, payload.into()))
            .collect();
        let _ = self.client.publish(queued).await;
    }

    /// The topic of this link's availability, `<base>/status` (`online`/`offline`, retained).
    pub fn status_topic(&self) -> &str {
        self.status_topic.as_str()
    }

    /// True when the link is to the embedded broker in process ([`MqttLink::embedded`]).
    pub fn is_local(&self) -> bool {
        matches!(self.client, Client::Local(_))
    }

    /// True while connected to the broker.
    pub fn is_connected(&self) -> bool {
        self.connected.load(Ordering::SeqCst)
    }

    /// Publishes a point's state, `payload` on `topic` at `mqtt.state_qos`, and remembers it
    /// for republishing after a reconnection. While the broker is away it is only remembered
    /// (the latest per topic).
    pub async fn publish(&self, topic: &str, payload: Vec<u8>, retain: bool) {
        self.publish_states(vec![(Topic::new(topic), Bytes::from(payload), retain)])
            .await;
    }

    /// Publishes the states of one poll, in order, as [`MqttLink::publish`] does each: under
    /// one lock and, to the embedded broker, in one hand-over.
    pub async fn publish_states(&self, messages: Vec<StateMessage>) {
        let qos = self.state_qos;
        let states = messages
            .into_iter()
            .map(|(topic, payload, retain)| {
                let state = State {
                    payload,
                    retain,
                    qos,
                };
                (topic, state)
            })
            .collect();
        self.remember_and_send(states).await;
    }

    /// Publishes a source's availability (`online`/`offline`) on `topic`, retained at QoS 1
    /// whatever the states' QoS, remembered as states are.
    pub async fn publish_availability(&self, topic: &str, online: bool) {
        let payload = if online { "online" } else { "offline" };
        let state = State {
            payload: Bytes::from_static(payload.as_bytes()),
            retain: true,
            qos: QoS::AtLeastOnce,
        };
        self.remember_and_send(vec![(Topic::new(topic), state)])
            .await;
    }

    /// Queues `states` and remembers them for the next connection. The embedded broker's link
    /// never reconnects: it only queues.
    async fn remember_and_send(&self, states: Vec<(Topic, State)>) {
        if let Client::Local(_) = self.client {
            let messages = states
                .into_iter()
                .map(|(topic, state)| (topic, state.qos, state.retain, state.payload))
                .collect();
            if let Err(e) = self.client.publish(messages).await {
                tracing::warn!(error = %e, "MQTT publish not queued");
            }
            return;
        }
        // Held until the messages are queued: the queue's order is the order of the remembered
        // states, which `announce` relies on.
        let mut known = self.states.lock().await;
        let mut queued = Vec::with_capacity(states.len());
        for (topic, state) in states {
            queued.push((
                topic.clone(),
                state.qos,
                state.retain,
                state.payload.clone(),
            ));
            // The topic is usually known already: no new key then.
            match known.get_mut(&topic) {
                Some(last) => *last = state,
                None => {
                    known.insert(topic, state);
                }
            }
        }
        if !self.is_connected() {
            return;
        }
        if let Err(e) = self.client.publish(queued).await {
            tracing::warn!(error = %e, "MQTT publish not queued");
        }
    }

    /// Publishes the bridge's availability on `<base>/status`, retained at QoS 1.
    async fn publish_status(&self, status: &'static str) {
        let message = (
            self.status_topic.clone(),
            QoS::AtLeastOnce,
            true,
            Bytes::from_static(status.as_bytes()),
        );
        let _ = self.client.publish(vec![message]).await;
    }

    /// A clean goodbye: `offline` on the status topic (retained), then disconnect. (A crash is
    /// covered by the last will.)
    pub async fn close(&self) {
        self.publish_status("offline").await;
        if let Client::Remote(client) = &self.client {
            let _ = client.disconnect().await;
        }
    }

    /// Publishes a message that is not state (write results): not remembered, not retained,
    /// dropped while the broker is away.
    pub async fn notify(&self, topic: &str, payload: Vec<u8>) {
        if !self.is_connected() {
            tracing::warn!(topic, "MQTT broker away: message dropped");
            return;
        }
        let message = (
            Topic::new(topic),
            QoS::AtLeastOnce,
            false,
            Bytes::from(payload),
        );
        if let Err(e) = self.client.publish(vec![message]).await {
            tracing::warn!(topic, error = %e, "MQTT publish not queued");
        }
    }
}

/// Why the link could not start.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// `mqtt.host` is not a host or an MQTT URL (validation catches this first).
    #[error("mqtt.host: {0}")]
    Endpoint(String),
    /// The TLS files cannot be used.
    #[error("{0}")]
    Tls(String),
    /// The password's file or variable cannot be read.
    #[error("{0}")]
    Password(String),
}

/// rumqttc's options for a connection of `config` as `client_id`: endpoint, TLS, keep-alive,
/// in-flight window, credentials (no last will).
///
/// Errors: [`LinkError`] (the endpoint, the TLS files, the password's file or variable).
pub(super) fn options(config: &MqttConfig, client_id: &str) -> Result<MqttOptions, LinkError> {
    let endpoint = config.endpoint().map_err(LinkError::Endpoint)?;
    let mut options = MqttOptions::new(client_id, endpoint.host, endpoint.port);
    if endpoint.tls {
        let tls =
            tls::client_config(&config.tls.clone().unwrap_or_default()).map_err(LinkError::Tls)?;
        options.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(tls)));
    }
    options.set_keep_alive(Duration::from_secs(config.keep_alive_secs));
    options.set_inflight(config.max_inflight);
    if let Some(user) = &config.username {
        let password = config.password().map_err(LinkError::Password)?;
        options.set_credentials(user.clone(), password.unwrap_or_default());
    }
    Ok(options)
}

/// rumqttc's client and event loop for `options`, `capacity` requests queued between them, with
/// Nagle's algorithm off (`TCP_NODELAY`): a write's result or a state written while an earlier
/// one is unacknowledged goes at once rather than after the broker's delayed ACK (up to 40 ms on
/// Linux; benches/README.md, "Writes under load").
pub(super) fn client(options: MqttOptions, capacity: usize) -> (AsyncClient, EventLoop) {
    let (client, mut events) = AsyncClient::new(options, capacity);
    events.network_options.set_tcp_nodelay(true);
    (client, events)
}

/// The wait before reconnection attempt `failures + 1`: `first` seconds doubled `failures`
/// times, at most [`MAX_RECONNECT_DELAY_SECS`] (or `first`, when that is longer).
pub(super) fn reconnect_delay(first: u64, failures: u32) -> Duration {
    let cap = first.max(MAX_RECONNECT_DELAY_SECS);
    let doubled = first.saturating_mul(1u64 << failures.min(16));
    Duration::from_secs(doubled.min(cap))
}

/// A failed connection as a sentence that says what to fix.
pub(super) fn describe(error: &ConnectionError) -> String {
    match error {
        ConnectionError::ConnectionRefused(
            ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
        ) => "the broker refused the user name or password (mqtt.username, mqtt.password)".into(),
        ConnectionError::ConnectionRefused(code) => {
            format!("the broker refused the connection: {code:?}")
        }
        ConnectionError::Tls(TlsError::TLS(tls)) => describe_tls(tls),
        ConnectionError::Tls(TlsError::Io(io)) | ConnectionError::Io(io) => {
            match io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
                Some(tls) => describe_tls(tls),
                None => error.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// A TLS failure as a sentence that says what to fix.
fn describe_tls(error: &rustls::Error) -> String {
    use rustls::CertificateError as Certificate;
    match error {
        rustls::Error::InvalidCertificate(Certificate::UnknownIssuer) => {
            "TLS: the broker's certificate is not signed by a CA the bridge trusts (mqtt.tls.ca_file)"
                .into()
        }
        rustls::Error::InvalidCertificate(
            Certificate::Expired | Certificate::ExpiredContext { .. },
        ) => "TLS: the broker's certificate has expired".into(),
        rustls::Error::InvalidCertificate(
            Certificate::NotValidForName | Certificate::NotValidForNameContext { .. },
        ) => "TLS: the broker's certificate is not for this host name (mqtt.host)".into(),
        other => format!("TLS: {other}"),
    }
}

/// The QoS of a configured level (0, 1 or 2; validated at load, anything above 2 is 2).
fn qos(level: u8) -> QoS {
    match level {
        0 => QoS::AtMostOnce,
        1 => QoS::AtLeastOnce,
        _ => QoS::ExactlyOnce,
    }
}
