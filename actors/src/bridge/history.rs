//! History: every sample of the points marked `history: true`, delivered in order on
//! `<state topic>/history` as `{"ts": <ms since the Unix epoch, UTC>, "value": <the state>}`
//! (QoS 1, not retained), through broker outages and restarts of the bridge (beyond the spec).
//!
//! - A poll's samples are written to an on-disk queue ([`Queue`], a redb file at
//!   `history.path`) before the poll goes on: the pollers' samples of one moment go in one
//!   transaction (a group commit, one `fsync`). A sample the poller has handed over is on disk.
//! - A delivery task sends the queue's samples in order over a connection of its own
//!   (`<client_id>-history`, the link's endpoint, TLS and credentials), at most a window of
//!   them unacknowledged, and deletes each once the broker acknowledged it (PUBACK). QoS 1
//!   PUBACKs come in the order of the PUBLISHes (MQTT 3.1.1 §4.6), and this connection carries
//!   nothing else, so each acknowledgement names one sample. After a connection error the
//!   connection is dropped whole (no retransmission by rumqttc that could reorder) and
//!   delivery starts again at the queue's head: at least once, in order; a sample whose
//!   acknowledgement was lost is sent twice (its `ts` tells it apart).
//! - The queue holds at most `history.max_samples`; when a new sample would pass it, the oldest
//!   are dropped first (logged once per filling).
//! - The state topic is left to the link: its retained latest state is republished on
//!   reconnection as ever ([`super::link`]), so the two never race on one topic.
//! - To the embedded broker in process there is no outage to wait out: samples go straight to
//!   the link, no queue.
//! - A sample is recorded for every poll's read of the point, whatever its `publish_mode` (which
//!   rules the state topic only); the read-back after a write is not a sample.

use super::config::{BridgeConfig, MqttConfig};
use super::link::{self, LinkError, MqttLink, StateMessage, Topic};
use bytes::Bytes;
use redb::TableDefinition;
use redb::{Database, Durability, ReadableDatabase, ReadableTable, ReadableTableMetadata};
use rumqttc::{ConnectionError, Event, EventLoop, MqttOptions, Outgoing, Packet, QoS};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, mpsc, oneshot};

/// The samples, by sequence number: `(topic id, ts in ms, the value as JSON)`.
const SAMPLES: TableDefinition<u64, (u32, i64, &[u8])> = TableDefinition::new("samples");
/// The history topics, by id (each written once, samples refer to them by id).
const TOPICS: TableDefinition<u32, &str> = TableDefinition::new("topics");

/// At most this many samples unacknowledged on the history connection.
const WINDOW: usize = 256;

/// The queue file's page cache, bytes. redb's default (1 GiB) would keep a long outage's queue
/// in memory as it grows; with this its pages stream through a bounded buffer.
const CACHE_BYTES: usize = 2 * 1024 * 1024;

/// A sample read back for delivery: `(sequence number, topic, payload)`.
pub type Stored = (u64, Arc<str>, Vec<u8>);

/// One sample of a point: its history topic, when it was read and its value as JSON.
#[derive(Debug, Clone)]
pub struct Sample {
    /// `<state topic>/history`.
    pub topic: Topic,
    /// When it was read, milliseconds since the Unix epoch (UTC).
    pub ts: i64,
    /// The value, as JSON (the state's payload).
    pub value: Bytes,
}

/// A sample's payload: `{"ts":<ts>,"value":<value>}`.
pub fn payload(ts: i64, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 32);
    out.extend_from_slice(format!("{{\"ts\":{ts},\"value\":").as_bytes());
    out.extend_from_slice(value);
    out.push(b'}');
    out
}

/// The history queue's file could not be used: `history.path` and why.
#[derive(Debug, thiserror::Error)]
#[error("history.path {path}: {reason}")]
pub struct HistoryError {
    path: String,
    reason: String,
}

/// The on-disk queue of samples (redb): appended in order, read from a sequence number on,
/// deleted as delivered, at most `max` long.
pub struct Queue {
    db: Database,
    path: String,
    /// Topic ids, and the topics by id.
    ids: HashMap<Arc<str>, u32>,
    topics: Vec<Arc<str>>,
    /// The sequence number of the next sample appended.
    next: u64,
    /// Samples held.
    len: u64,
    max: u64,
    /// Set when the queue filled and dropped its oldest; cleared once it has room again.
    full: bool,
}

impl Queue {
    /// Opens (or makes) the queue at `path`, holding at most `max` samples.
    ///
    /// Errors: [`HistoryError`] when the file cannot be made, opened or read (another process
    /// holds it, it is not a queue).
    pub fn open(path: &Path, max: u64) -> Result<Queue, HistoryError> {
        let fail = |e: &dyn std::fmt::Display| HistoryError {
            path: path.display().to_string(),
            reason: e.to_string(),
        };
        let db = Database::builder()
            .set_cache_size(CACHE_BYTES)
            .create(path)
            .map_err(|e| match e {
                redb::DatabaseError::DatabaseAlreadyOpen => {
                    fail(&"another process has it open: give each bridge a history.path of its own")
                }
                e => fail(&e),
            })?;
        let write = db.begin_write().map_err(|e| fail(&e))?;
        let (topics, next, len) = {
            let samples = write.open_table(SAMPLES).map_err(|e| fail(&e))?;
            let names = write.open_table(TOPICS).map_err(|e| fail(&e))?;
            let mut topics = Vec::new();
            for entry in names.iter().map_err(|e| fail(&e))? {
                let (_, name) = entry.map_err(|e| fail(&e))?;
                topics.push(Arc::<str>::from(name.value()));
            }
            let next = match samples.last().map_err(|e| fail(&e))? {
                Some((key, _)) => key.value() + 1,
                None => 0,
            };
            (topics, next, samples.len().map_err(|e| fail(&e))?)
        };
        write.commit().map_err(|e| fail(&e))?;
        let ids = topics.iter().cloned().zip(0u32..).collect();
        Ok(Queue {
            db,
            path: path.display().to_string(),
            ids,
            topics,
            next,
            len,
            max,
            full: false,
        })
    }

    /// Samples waiting.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when no sample waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn fail(&self, error: impl std::fmt::Display) -> HistoryError {
        HistoryError {
            path: self.path.clone(),
            reason: error.to_string(),
        }
    }

    /// Appends `samples` in order in one durable transaction, dropping the oldest when the
    /// queue would hold more than its maximum. Returns how many were dropped.
    ///
    /// Errors: [`HistoryError`] (nothing of `samples` is kept then).
    pub fn append(&mut self, samples: &[Sample]) -> Result<u64, HistoryError> {
        let write = self.db.begin_write().map_err(|e| self.fail(e))?;
        let mut new_topics = Vec::new();
        let mut dropped = 0;
        {
            let mut table = write.open_table(SAMPLES).map_err(|e| self.fail(e))?;
            let mut names = write.open_table(TOPICS).map_err(|e| self.fail(e))?;
            for (key, sample) in (self.next..).zip(samples) {
                let name: &str = sample.topic.as_str();
                let id = match self.ids.get(name) {
                    Some(id) => *id,
                    None => {
                        let id = u32::try_from(self.topics.len() + new_topics.len())
                            .map_err(|e| self.fail(e))?;
                        names.insert(id, name).map_err(|e| self.fail(e))?;
                        new_topics.push(Arc::<str>::from(name));
                        self.ids.insert(Arc::from(name), id);
                        id
                    }
                };
                table
                    .insert(key, (id, sample.ts, sample.value.as_ref()))
                    .map_err(|e| self.fail(e))?;
            }
            let mut len = self.len + samples.len() as u64;
            while len > self.max {
                if table.pop_first().map_err(|e| self.fail(e))?.is_none() {
                    break;
                }
                len -= 1;
                dropped += 1;
            }
        }
        match write.commit() {
            Ok(()) => {
                self.next += samples.len() as u64;
                self.len = (self.len + samples.len() as u64).saturating_sub(dropped);
                self.topics.extend(new_topics);
                Ok(dropped)
            }
            Err(e) => {
                // The ids made in the failed transaction are not on disk: forget them.
                self.ids.retain(|_, id| (*id as usize) < self.topics.len());
                Err(self.fail(e))
            }
        }
    }

    /// Up to `limit` samples from sequence number `from` on, in order: `(sequence number,
    /// topic, payload)`.
    ///
    /// Errors: [`HistoryError`].
    pub fn read(&self, from: u64, limit: usize) -> Result<Vec<Stored>, HistoryError> {
        let read = self.db.begin_read().map_err(|e| self.fail(e))?;
        let table = read.open_table(SAMPLES).map_err(|e| self.fail(e))?;
        let mut out = Vec::new();
        for entry in table.range(from..).map_err(|e| self.fail(e))?.take(limit) {
            let (key, value) = entry.map_err(|e| self.fail(e))?;
            let (id, ts, json) = value.value();
            let Some(topic) = self.topics.get(id as usize) else {
                return Err(self.fail(format!("sample {} names unknown topic {id}", key.value())));
            };
            out.push((key.value(), topic.clone(), payload(ts, json)));
        }
        Ok(out)
    }

    /// Deletes the delivered samples `keys` (those already dropped are skipped). Not made
    /// durable by itself: a crash before the next append can only deliver them again.
    ///
    /// Errors: [`HistoryError`].
    pub fn remove(&mut self, keys: &[u64]) -> Result<(), HistoryError> {
        let mut write = self.db.begin_write().map_err(|e| self.fail(e))?;
        write
            .set_durability(Durability::None)
            .map_err(|e| self.fail(e))?;
        let mut removed = 0;
        {
            let mut table = write.open_table(SAMPLES).map_err(|e| self.fail(e))?;
            for key in keys {
                if table.remove(key).map_err(|e| self.fail(e))?.is_some() {
                    removed += 1;
                }
            }
        }
        write.commit().map_err(|e| self.fail(e))?;
        self.len = self.len.saturating_sub(removed);
        Ok(())
    }
}

/// Where the pollers hand their samples. Cheap to clone.
#[derive(Clone)]
pub enum History {
    /// Straight to the link (the embedded broker in process).
    Direct(MqttLink),
    /// To the on-disk queue's writer: a batch and who waits for it to be on disk.
    Queued(mpsc::Sender<(Vec<Sample>, oneshot::Sender<()>)>),
}

impl History {
    /// Hands over `samples` in order; with a queue, returns once they are on disk (or the
    /// write failed, which is logged).
    pub async fn record(&self, samples: Vec<Sample>) {
        if samples.is_empty() {
            return;
        }
        match self {
            History::Direct(link) => {
                let messages: Vec<StateMessage> = samples
                    .into_iter()
                    .map(|s| (s.topic, Bytes::from(payload(s.ts, &s.value)), false))
                    .collect();
                link.publish_states(messages).await;
            }
            History::Queued(writer) => {
                let (done, written) = oneshot::channel();
                if writer.send((samples, done)).await.is_ok() {
                    let _ = written.await;
                }
            }
        }
    }
}

/// Starts what keeps the history of `config`'s points, or `None` when no point keeps any.
/// With `link` to the embedded broker in process the samples go straight to it; otherwise the
/// queue at `history.path` is opened and its writer and delivery tasks start (inside a tokio
/// runtime).
///
/// Errors: [`StartError`]: the queue's file ([`HistoryError`]), the connection's settings
/// ([`LinkError`], as for the link's own start).
pub fn start(config: &BridgeConfig, link: &MqttLink) -> Result<Option<History>, StartError> {
    let kept = config
        .sources
        .iter()
        .flat_map(|s| &s.points)
        .any(|p| p.history);
    if !kept {
        return Ok(None);
    }
    if link.is_local() {
        return Ok(Some(History::Direct(link.clone())));
    }
    let queue = Queue::open(&config.history.path, config.history.max_samples)?;
    if !queue.is_empty() {
        tracing::info!(samples = queue.len(), "history samples waiting from before");
    }
    let options = link::options(&config.mqtt, &format!("{}-history", config.mqtt.client_id))?;
    let queue = Arc::new(Mutex::new(queue));
    let wake = Arc::new(Notify::new());
    let (writer, batches) = mpsc::channel(64);
    tokio::spawn(write(queue.clone(), batches, wake.clone()));
    tokio::spawn(deliver(
        queue,
        options,
        wake,
        window(&config.mqtt),
        config.mqtt.reconnect_delay_secs,
    ));
    Ok(Some(History::Queued(writer)))
}

/// Why history could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The queue's file.
    #[error(transparent)]
    Queue(#[from] HistoryError),
    /// The history connection's settings.
    #[error(transparent)]
    Link(#[from] LinkError),
}

/// The delivery window: [`WINDOW`], or `mqtt.max_inflight` when smaller.
fn window(mqtt: &MqttConfig) -> usize {
    WINDOW.min(usize::from(mqtt.max_inflight).max(1))
}

/// Runs `work` on the queue on a blocking thread.
async fn on_queue<T: Send + 'static>(
    queue: &Arc<Mutex<Queue>>,
    work: impl FnOnce(&mut Queue) -> Result<T, HistoryError> + Send + 'static,
) -> Result<T, String> {
    let queue = queue.clone();
    let job = tokio::task::spawn_blocking(move || {
        let mut queue = queue.lock().unwrap_or_else(|p| p.into_inner());
        work(&mut queue)
    });
    match job.await {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(e) => Err(format!("the history queue's task failed: {e}")),
    }
}

/// The writer: every batch waiting at once goes to disk in one transaction; their senders are
/// answered after it, and the delivery task is woken.
async fn write(
    queue: Arc<Mutex<Queue>>,
    mut batches: mpsc::Receiver<(Vec<Sample>, oneshot::Sender<()>)>,
    wake: Arc<Notify>,
) {
    while let Some((mut samples, done)) = batches.recv().await {
        let mut waiting = vec![done];
        while let Ok((more, done)) = batches.try_recv() {
            samples.extend(more);
            waiting.push(done);
        }
        match on_queue(&queue, move |q| {
            let dropped = q.append(&samples)?;
            let filled = dropped > 0 && !q.full;
            q.full = dropped > 0;
            Ok(filled.then_some(dropped))
        })
        .await
        {
            Ok(Some(dropped)) => tracing::warn!(
                dropped,
                "history queue full (history.max_samples): its oldest samples are dropped"
            ),
            Ok(None) => {}
            Err(e) => tracing::error!(error = %e, "history samples not kept"),
        }
        for done in waiting {
            let _ = done.send(());
        }
        wake.notify_one();
    }
}

/// Forwards the connection's events until its first error (included), then stops: the event
/// loop is dropped with whatever it held.
async fn pump(mut events: EventLoop, forward: mpsc::Sender<Result<Event, ConnectionError>>) {
    loop {
        let event = events.poll().await;
        let failed = event.is_err();
        if forward.send(event).await.is_err() || failed {
            break;
        }
    }
}

/// The delivery task: one connection at a time, from the queue's head, `window` samples
/// unacknowledged at most; after a failure the wait grows as the link's does.
async fn deliver(
    queue: Arc<Mutex<Queue>>,
    options: MqttOptions,
    wake: Arc<Notify>,
    window: usize,
    first_delay: u64,
) {
    let mut failures = 0u32;
    loop {
        let (client, events) = link::client(options.clone(), window + 8);
        let (forward, mut received) = mpsc::channel(window + 8);
        let pump = tokio::spawn(pump(events, forward));
        let mut delivery = Delivery::default();
        let error = loop {
            let room = window.saturating_sub(delivery.outstanding());
            if delivery.connected && room > 0 {
                let from = delivery.next;
                match on_queue(&queue, move |q| q.read(from, room)).await {
                    Ok(samples) => {
                        for (key, topic, payload) in samples {
                            if client
                                .try_publish(&*topic, QoS::AtLeastOnce, false, payload)
                                .is_err()
                            {
                                break;
                            }
                            delivery.sent(key);
                        }
                    }
                    Err(e) => tracing::error!(error = %e, "history samples not read"),
                }
            }
            let room = window.saturating_sub(delivery.outstanding());
            tokio::select! {
                event = received.recv() => match event {
                    Some(Ok(event)) => {
                        if delivery.on(&event) {
                            failures = 0;
                            tracing::info!("history connection up");
                        }
                        if delivery.acked.len() >= window || (delivery.outstanding() == 0 && !delivery.acked.is_empty()) {
                            remove(&queue, &mut delivery.acked).await;
                        }
                    }
                    Some(Err(e)) => break Some(e),
                    None => break None,
                },
                _ = wake.notified(), if delivery.connected && room > 0 => {}
            }
        };
        remove(&queue, &mut delivery.acked).await;
        pump.abort();
        drop(client);
        let wait = link::reconnect_delay(first_delay, failures);
        failures = failures.saturating_add(1);
        let error = error.map_or_else(|| "the connection ended".into(), |e| link::describe(&e));
        tracing::warn!(error = %error, retry_in_secs = wait.as_secs(), "history connection failed");
        tokio::time::sleep(wait).await;
    }
}

/// Deletes the acknowledged samples `acked` (emptied).
async fn remove(queue: &Arc<Mutex<Queue>>, acked: &mut Vec<u64>) {
    if acked.is_empty() {
        return;
    }
    let keys = std::mem::take(acked);
    if let Err(e) = on_queue(queue, move |q| q.remove(&keys)).await {
        tracing::error!(error = %e, "delivered history samples not deleted (they will be sent again)");
    }
}

/// What one connection has sent and the broker acknowledged.
#[derive(Debug, Default)]
struct Delivery {
    connected: bool,
    /// The next sequence number to send.
    next: u64,
    /// Handed to rumqttc, not yet given a packet id, in order.
    queued: VecDeque<u64>,
    /// Sent, by packet id.
    inflight: HashMap<u16, u64>,
    /// Acknowledged, not yet deleted.
    acked: Vec<u64>,
}

impl Delivery {
    fn outstanding(&self) -> usize {
        self.queued.len() + self.inflight.len()
    }

    fn sent(&mut self, key: u64) {
        self.queued.push_back(key);
        self.next = key + 1;
    }

    /// Follows `event`; true when it is the connection's acceptance.
    fn on(&mut self, event: &Event) -> bool {
        match event {
            Event::Incoming(Packet::ConnAck(_)) => {
                self.connected = true;
                return true;
            }
            Event::Outgoing(Outgoing::Publish(pkid)) => {
                if let Some(key) = self.queued.pop_front() {
                    self.inflight.insert(*pkid, key);
                }
            }
            Event::Incoming(Packet::PubAck(ack)) => {
                if let Some(key) = self.inflight.remove(&ack.pkid) {
                    self.acked.push(key);
                }
            }
            _ => {}
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(topic: &str, ts: i64, value: &str) -> Sample {
        Sample {
            topic: Topic::new(topic),
            ts,
            value: Bytes::copy_from_slice(value.as_bytes()),
        }
    }

    #[test]
    fn a_queue_another_bridge_holds_is_refused_naming_its_path_and_stays_with_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.redb");
        let mut held = Queue::open(&path, 5).unwrap();
        let refused = Queue::open(&path, 5)
            .err()
            .expect("a second opening is refused");
        let said = refused.to_string();
        assert!(
            said.starts_with(&format!("history.path {}: ", path.display())),
            "{said}"
        );
        assert!(said.contains("another process has it open"), "{said}");
        assert_eq!(held.append(&[sample("a/history", 1, "1")]).unwrap(), 0);
        assert_eq!(held.len(), 1);
    }

    #[test]
    fn samples_survive_a_reopening_in_order_and_the_oldest_go_first_when_full() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.redb");
        let mut queue = Queue::open(&path, 5).unwrap();
        let first: Vec<Sample> = (0..3)
            .map(|i| sample("a/history", i, &i.to_string()))
            .collect();
        assert_eq!(queue.append(&first).unwrap(), 0);
        drop(queue);
        let mut queue = Queue::open(&path, 5).unwrap();
        assert_eq!(queue.len(), 3);
        let more: Vec<Sample> = (3..7)
            .map(|i| sample("b/history", i, &i.to_string()))
            .collect();
        assert_eq!(queue.append(&more).unwrap(), 2, "7 samples in a queue of 5");
        let read = queue.read(0, 10).unwrap();
        let keys: Vec<u64> = read.iter().map(|(k, _, _)| *k).collect();
        assert_eq!(keys, vec![2, 3, 4, 5, 6]);
        assert_eq!(&*read[0].1, "a/history");
        assert_eq!(read[0].2, b"{\"ts\":2,\"value\":2}".to_vec());
        assert_eq!(&*read[4].1, "b/history");
        queue.remove(&[2, 3, 99]).unwrap();
        assert_eq!(queue.len(), 3);
        assert_eq!(queue.read(0, 1).unwrap()[0].0, 4);
        assert_eq!(queue.read(5, 10).unwrap().len(), 2);
    }

    #[test]
    fn each_acknowledgement_names_the_sample_sent_under_its_packet_id() {
        let mut delivery = Delivery::default();
        assert!(
            delivery.on(&Event::Incoming(Packet::ConnAck(rumqttc::ConnAck::new(
                rumqttc::ConnectReturnCode::Success,
                false
            ))))
        );
        delivery.sent(7);
        delivery.sent(8);
        assert_eq!(delivery.next, 9);
        delivery.on(&Event::Outgoing(Outgoing::Publish(1)));
        delivery.on(&Event::Outgoing(Outgoing::Publish(2)));
        delivery.on(&Event::Incoming(Packet::PubAck(rumqttc::PubAck::new(2))));
        assert_eq!(delivery.acked, vec![8]);
        assert_eq!(delivery.outstanding(), 1);
        delivery.on(&Event::Incoming(Packet::PubAck(rumqttc::PubAck::new(9))));
        assert_eq!(
            delivery.acked,
            vec![8],
            "an unknown packet id acknowledges nothing"
        );
    }

    #[test]
    fn a_payload_holds_the_time_and_the_value() {
        let text = payload(1_764_434_400_123, b"230.5");
        let value: serde_json::Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"ts": 1_764_434_400_123i64, "value": 230.5})
        );
    }
}
