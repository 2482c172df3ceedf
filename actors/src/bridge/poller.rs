//! One poller actor per source: it polls and writes over the source's line ([`super::line`]:
//! its own Modbus TCP connection, or the RS-485 bus it shares with other sources) and
//! serialises its own requests (a poll runs under `ctx.wait`, so polls never overlap). The next
//! poll starts when the previous one has finished and its interval has passed: missed ticks are
//! skipped, never made up, so a device that wakes up is not hit by a burst.
//!
//! - Requests are retried on the line ([`super::line::request`]). When a read is still failing,
//!   the source is reported `offline` on
//!   `<base>/<source>/status` (retained); it turns `online` when the device answers again.
//! - Reads follow [`super::plan`]. A Modbus exception on a coalesced read makes the poller read
//!   that read's points one by one, so one bad address does not hide its neighbours.
//! - States go to `<base>/<source>/<topic>` with the point's retain flag; with `on_change` only
//!   when the value changed.
//! - Points that keep history also hand every sample read to [`super::history`].
//! - Writes ([`Write`], from `<state>/set`) are encoded by the codec and refused without touching
//!   the device when invalid; a written readable point is read back and its state published.
//!   Every write gets `{"ok": true, "value": v}` or `{"ok": false, "error": reason}` on
//!   `<state>/set/result` (not retained); a malformed payload is logged and answered, never fatal.

use super::codec::{Written, decode_bit, decode_registers, encode, with_bit};
use super::config::{Access, Kind, PublishMode, SourceConfig};
use super::history::{History, Sample};
use super::line::{Data, Line, Op, SharedLine, request};
use super::link::{MqttLink, StateMessage, Topic};
use super::plan::{Read, Schedule};
use crate::metrics::metrics;
use actix::prelude::*;
use bytes::Bytes;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What one poll found.
enum Outcome {
    /// Point index and its state.
    Values(Vec<(usize, Value)>),
    /// Why the device could not be read.
    Down(String),
}

/// The poller of one source.
pub struct Poller {
    source: Arc<SourceConfig>,
    /// The reads of each tick.
    schedule: Schedule,
    base_topic: String,
    /// The state topic of every point, by index (made once, shared with the link's memory of
    /// states: a poll publishes them all without a copy).
    state_topics: Vec<Topic>,
    link: MqttLink,
    /// The line to the device (shared with the other sources of its bus).
    line: SharedLine,
    /// The last state published of every point, by index.
    last: Vec<Option<Value>>,
    online: Option<bool>,
    /// When the current poll was due: the next is due one interval later (so the cadence holds
    /// on average), or at once when that moment has already passed (missed ticks skipped).
    due: std::time::Instant,
    /// Until the first poll has run: the source's phase within its interval, which the poll
    /// after it is aligned to ([`until_slot`]).
    phase: Option<Duration>,
    /// Where the source's availability is kept for the alerts.
    states: Option<SourceStates>,
    /// The history topic of every point that keeps history, by index ([`super::history`]).
    history_topics: Vec<Option<Topic>>,
    /// Where the samples of those points go.
    history: Option<History>,
}

/// Each source's availability (`true`: it answered its last poll), by source id, as the pollers
/// last saw it; sources not polled yet are absent. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct SourceStates(Arc<std::sync::Mutex<std::collections::BTreeMap<String, bool>>>);

impl SourceStates {
    /// Every polled source's availability, by id.
    pub fn snapshot(&self) -> std::collections::BTreeMap<String, bool> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, source: &str, online: bool) {
        let mut states = self.0.lock().unwrap_or_else(|p| p.into_inner());
        states.insert(source.to_string(), online);
    }
}

impl Poller {
    /// A poller of `source` publishing under `base_topic` through `link`.
    pub fn new(source: SourceConfig, base_topic: &str, link: MqttLink) -> Poller {
        let schedule = Schedule::new(&source);
        let state_topics: Vec<Topic> = source
            .points
            .iter()
            .map(|p| Topic::new(&format!("{base_topic}/{}/{}", source.id, p.topic)))
            .collect();
        let last = vec![None; state_topics.len()];
        let history_topics = source
            .points
            .iter()
            .zip(&state_topics)
            .map(|(p, topic)| {
                p.history
                    .then(|| Topic::new(&format!("{}/history", topic.as_str())))
            })
            .collect();
        Poller {
            source: Arc::new(source),
            schedule,
            base_topic: base_topic.to_string(),
            state_topics,
            link,
            line: Line::shared(),
            last,
            online: None,
            due: std::time::Instant::now(),
            phase: None,
            states: None,
            history_topics,
            history: None,
        }
    }

    /// The poller, handing the samples of its points that keep history to `history`.
    pub fn keeping(mut self, history: Option<History>) -> Poller {
        self.history = history;
        self
    }

    /// The poller, keeping its source's availability in `states`.
    pub fn watched(mut self, states: SourceStates) -> Poller {
        self.states = Some(states);
        self
    }

    /// The poller on `line`, the line of the bus it shares with other sources.
    pub fn on_line(mut self, line: SharedLine) -> Poller {
        self.line = line;
        self
    }

    /// The poller with its polls at `phase` within the interval (after a first poll at once):
    /// the bridge spreads its sources' polls over the interval ([`super::run::phases`]).
    pub fn with_phase(mut self, phase: Duration) -> Poller {
        self.phase = Some(phase);
        self
    }

    fn topic(&self, leaf: &str) -> String {
        format!("{}/{}/{leaf}", self.base_topic, self.source.id)
    }

    /// Polls the source, then schedules the next poll: it starts when this one has finished
    /// and one interval after this one was due, so the configured rate holds on average. A poll
    /// that overran the interval (a silent device) is followed by one at once, never by a burst
    /// of missed ones.
    fn poll(&mut self, ctx: &mut Context<Self>) {
        let (line, source, reads) = (
            self.line.clone(),
            self.source.clone(),
            self.schedule.next(&self.source.points),
        );
        let job = async move {
            let started = std::time::Instant::now();
            let outcome = poll_once(&mut *line.lock().await, &source, &reads).await;
            let result = match outcome {
                Outcome::Values(_) => "ok",
                Outcome::Down(_) => "error",
            };
            let m = metrics();
            m.bridge_polls
                .with_label_values(&[source.id.as_str(), result])
                .inc();
            m.bridge_poll_duration
                .with_label_values(&[source.id.as_str()])
                .observe(started.elapsed().as_secs_f64());
            outcome
        };
        ctx.wait(job.into_actor(self).map(move |outcome, poller, ctx| {
            poller.publish(outcome, ctx);
            let every = Duration::from_millis(poller.source.tick_ms());
            let now = std::time::Instant::now();
            poller.due = match poller.phase.take() {
                Some(phase) => now + until_slot(phase, every, SystemTime::now()),
                None => (poller.due + every).max(now),
            };
            ctx.run_later(poller.due - now, |poller, ctx| poller.poll(ctx));
        }));
    }

    fn publish(&mut self, outcome: Outcome, ctx: &mut Context<Self>) {
        let mut messages: Vec<StateMessage> = Vec::with_capacity(match &outcome {
            Outcome::Values(values) => values.len(),
            Outcome::Down(_) => 0,
        });
        let mut availability = None;
        let mut samples = Vec::new();
        match outcome {
            Outcome::Values(values) => {
                if self.online != Some(true) {
                    self.online = Some(true);
                    availability = Some(true);
                }
                let ts = now_ms();
                let mut payloads = Payloads::for_values(values.len());
                // Each payload is made once and shared by the state and the history sample.
                let mut sent = Vec::with_capacity(values.len());
                for (index, value) in values {
                    let point = &self.source.points[index];
                    let mode = point
                        .publish_mode
                        .or(self.source.publish_mode)
                        .unwrap_or(PublishMode::EveryPoll);
                    let publish = mode == PublishMode::EveryPoll
                        || !point.unchanged(self.last[index].as_ref(), &value);
                    if !publish && self.history_topics[index].is_none() {
                        continue;
                    }
                    sent.push((index, publish, payloads.push(&value)));
                    if publish {
                        self.last[index] = Some(value);
                    }
                }
                let payloads = payloads.finish();
                for (index, publish, range) in sent {
                    let payload = payloads.slice(range);
                    if let Some(topic) = &self.history_topics[index] {
                        samples.push(Sample {
                            topic: topic.clone(),
                            ts,
                            value: payload.clone(),
                        });
                    }
                    if publish {
                        let retain = self.source.points[index].retain;
                        messages.push((self.state_topics[index].clone(), payload, retain));
                    }
                }
            }
            Outcome::Down(reason) => {
                if self.online != Some(false) {
                    tracing::warn!(source = %self.source.id, %reason, "Modbus source offline");
                    self.online = Some(false);
                    availability = Some(false);
                }
            }
        }
        if let (Some(online), Some(states)) = (availability, &self.states) {
            states.set(&self.source.id, online);
        }
        let availability = availability.map(|online| (self.topic("status"), online));
        let link = self.link.clone();
        let history = self.history.clone();
        let send = async move {
            if let Some((topic, online)) = availability {
                link.publish_availability(&topic, online).await;
            }
            link.publish_states(messages).await;
            if let Some(history) = history {
                history.record(samples).await;
            }
        };
        ctx.wait(send.into_actor(self));
    }
}

/// The JSON payloads of one poll, written one after another into one buffer and handed out as
/// slices of it: two allocations a poll (the buffer and its shared count) where a payload of
/// its own took two a state. The buffer lives while one of its slices does: a state the broker
/// retains keeps at most its own poll's payloads (a few bytes a point) until the point's next
/// state.
struct Payloads(Vec<u8>);

impl Payloads {
    /// Room for `count` payloads of a register's number (a float's or a string's grow it).
    fn for_values(count: usize) -> Payloads {
        Payloads(Vec::with_capacity(count.saturating_mul(8)))
    }

    /// Appends `value` as JSON (`null` should it not serialize) and answers its byte range.
    fn push(&mut self, value: &Value) -> std::ops::Range<usize> {
        let start = self.0.len();
        if serde_json::to_writer(&mut self.0, value).is_err() {
            self.0.truncate(start);
            self.0.extend_from_slice(b"null");
        }
        start..self.0.len()
    }

    /// The payloads, one buffer to slice with the ranges [`Payloads::push`] answered.
    fn finish(self) -> Bytes {
        Bytes::from(self.0)
    }
}

/// Now, milliseconds since the Unix epoch (0 on a clock set before it).
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// How long from `now` (wall clock) until the next moment that lies `phase` into an interval of
/// `every`, intervals counted from the Unix epoch; a whole interval when that moment is now.
/// Every poller of the bridge counts from the same epoch, so their phases keep them apart.
fn until_slot(phase: Duration, every: Duration, now: SystemTime) -> Duration {
    let every_ms = every.as_millis().max(1);
    let now_ms = now
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    let wait = (phase.as_millis() % every_ms + every_ms - now_ms % every_ms) % every_ms;
    let wait = if wait == 0 { every_ms } else { wait };
    Duration::from_millis(u64::try_from(wait).unwrap_or(u64::MAX))
}

impl Actor for Poller {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.poll(ctx);
    }
}

fn decode(source: &SourceConfig, index: usize, start: u16, data: &Data) -> Option<(usize, Value)> {
    let point = &source.points[index];
    let offset = usize::from(point.address - start);
    let value = match data {
        Data::Registers(registers) => decode_registers(
            point,
            registers.get(offset..offset + usize::from(point.count()))?,
        ),
        Data::Bits(bits) => decode_bit(*bits.get(offset)?),
        Data::Written => return None,
    };
    Some((index, value))
}

async fn poll_once(line: &mut Line, source: &SourceConfig, reads: &[Read]) -> Outcome {
    let mut values = Vec::with_capacity(reads.iter().map(|r| r.points.len()).sum());
    for read in reads {
        match request(line, source, &Op::Read(read.kind, read.address, read.count)).await {
            Ok(Ok(data)) => values.extend(
                read.points
                    .iter()
                    .filter_map(|&i| decode(source, i, read.address, &data)),
            ),
            Ok(Err(exception)) => {
                tracing::debug!(source = %source.id, ?exception, address = read.address, "exception; reading points one by one");
                for &index in &read.points {
                    let point = &source.points[index];
                    match request(
                        line,
                        source,
                        &Op::Read(point.kind, point.address, point.count()),
                    )
                    .await
                    {
                        Ok(Ok(data)) => values.extend(decode(source, index, point.address, &data)),
                        Ok(Err(_)) => {}
                        Err(reason) => return Outcome::Down(reason),
                    }
                }
            }
            Err(reason) => return Outcome::Down(reason),
        }
    }
    Outcome::Values(values)
}

/// A write received on a point's `/set` topic: the raw MQTT payload.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Write {
    /// Index of the point in the source's `points`.
    pub point: usize,
    /// The payload: a bare JSON value or `{"value": v}`.
    pub payload: Vec<u8>,
}

/// The value of a write payload: a bare JSON value, or the `value` of `{"value": v}`.
///
/// Errors: a human-readable reason (the payload is not JSON, or an object without `value`).
pub fn payload_value(payload: &[u8]) -> Result<Value, String> {
    match serde_json::from_slice::<Value>(payload) {
        Ok(Value::Object(mut fields)) => fields
            .remove("value")
            .ok_or_else(|| "an object payload needs a \"value\"".to_string()),
        Ok(value) => Ok(value),
        Err(_) => Err("the payload is not JSON".to_string()),
    }
}

/// What became of a write.
enum WriteOutcome {
    /// Written; the state read back (or the written value for a write-only point).
    Done(Value),
    /// Not written, and why.
    Refused(String),
}

async fn write_and_read_back(
    line: &mut Line,
    source: &SourceConfig,
    index: usize,
    written: Written,
    value: Value,
) -> WriteOutcome {
    let point = &source.points[index];
    let op = match written {
        Written::Coil(bit) => Op::WriteCoil(point.address, bit),
        Written::Registers(words) => Op::WriteRegisters(point.address, words),
        Written::Bit(bit, on) => {
            // Read-modify-write of the one register: the other 15 bits are written back as read.
            let read = Op::Read(Kind::Holding, point.address, 1);
            let refused = |reason: String| WriteOutcome::Refused(reason);
            match request(line, source, &read).await {
                Ok(Ok(Data::Registers(r))) if !r.is_empty() => {
                    Op::WriteRegisters(point.address, vec![with_bit(point, r[0], bit, on)])
                }
                Ok(Ok(_)) => return refused("the device answered no register".into()),
                Ok(Err(exception)) => {
                    let reason = format!("the device refused reading the register: {exception:?}");
                    return refused(reason);
                }
                Err(reason) => return refused(reason),
            }
        }
    };
    match request(line, source, &op).await {
        Ok(Ok(_)) => {}
        Ok(Err(exception)) => {
            return WriteOutcome::Refused(format!("the device refused the write: {exception:?}"));
        }
        Err(reason) => return WriteOutcome::Refused(reason),
    }
    if point.access() == Access::WriteOnly {
        return WriteOutcome::Done(value);
    }
    let read_back = request(
        line,
        source,
        &Op::Read(point.kind, point.address, point.count()),
    )
    .await;
    let state = match read_back {
        Ok(Ok(data)) => decode(source, index, point.address, &data)
            .map(|(_, v)| v)
            .unwrap_or(value),
        _ => value,
    };
    WriteOutcome::Done(state)
}

impl Handler<Write> for Poller {
    type Result = ();

    fn handle(&mut self, write: Write, ctx: &mut Context<Self>) {
        let Some(point) = self.source.points.get(write.point).cloned() else {
            return;
        };
        let state_topic = self.state_topics[write.point].as_str().to_string();
        let encoded = payload_value(&write.payload).and_then(|v| {
            encode(&point, &v)
                .map(|w| (w, v))
                .map_err(|e| e.to_string())
        });
        let (written, value) = match encoded {
            Ok(ok) => ok,
            Err(reason) => {
                tracing::warn!(topic = %state_topic, %reason, "write refused");
                return self.send_result(ctx, &state_topic, None, Err(reason), point.retain);
            }
        };
        let (line, source) = (self.line.clone(), self.source.clone());
        let index = write.point;
        let job = async move {
            let mut line = line.lock().await;
            write_and_read_back(&mut line, &source, index, written, value).await
        };
        ctx.wait(
            job.into_actor(self)
                .map(move |outcome, poller, ctx| match outcome {
                    WriteOutcome::Done(state) => {
                        poller.last[index] = Some(state.clone());
                        poller.send_result(
                            ctx,
                            &state_topic,
                            Some(state.clone()),
                            Ok(state),
                            point.retain,
                        );
                    }
                    WriteOutcome::Refused(reason) => {
                        tracing::warn!(topic = %state_topic, %reason, "write failed");
                        poller.send_result(ctx, &state_topic, None, Err(reason), point.retain);
                    }
                }),
        );
    }
}

impl Poller {
    /// Publishes a write's result on `<state>/set/result` (and the new state, when there is one).
    fn send_result(
        &mut self,
        ctx: &mut Context<Self>,
        state_topic: &str,
        state: Option<Value>,
        result: Result<Value, String>,
        retain: bool,
    ) {
        let body = match result {
            Ok(value) => serde_json::json!({"ok": true, "value": value}),
            Err(error) => serde_json::json!({"ok": false, "error": error}),
        };
        let (link, state_topic) = (self.link.clone(), state_topic.to_string());
        let send = async move {
            if let Some(state) = state {
                link.publish(
                    &state_topic,
                    serde_json::to_vec(&state).unwrap_or_default(),
                    retain,
                )
                .await;
            }
            link.notify(
                &format!("{state_topic}/set/result"),
                body.to_string().into_bytes(),
            )
            .await;
        };
        ctx.wait(send.into_actor(self));
    }
}

#[cfg(test)]
mod tests {
    use super::{Payloads, until_slot};
    use serde_json::{Value, json};
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    #[test]
    fn a_polls_payloads_are_slices_of_one_buffer_in_their_order() {
        let values = [
            json!(1),
            json!(-32768),
            json!(21.5),
            json!("  ok\"\u{e9}"),
            json!(true),
            Value::Null,
        ];
        // Room for fewer bytes than the float and the string take: the buffer grows.
        let mut payloads = Payloads::for_values(1);
        let ranges: Vec<_> = values.iter().map(|v| payloads.push(v)).collect();
        let buffer = payloads.finish();
        for (value, range) in values.iter().zip(&ranges) {
            assert_eq!(
                buffer.slice(range.clone()),
                serde_json::to_vec(value).unwrap()
            );
        }
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(ranges.last().map(|r| r.end), Some(buffer.len()));

        // A second poll starts a buffer of its own; the first's slices stay as they were.
        let first = buffer.slice(ranges[2].clone());
        let mut next = Payloads::for_values(values.len());
        assert_eq!(next.push(&json!(7)), 0..1);
        assert_eq!(next.finish(), "7".as_bytes());
        assert_eq!(first, "21.5".as_bytes());
    }

    #[test]
    fn the_next_slot_lies_at_the_phase_within_the_interval() {
        let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
        let ms = |d: Duration| d.as_millis();
        let every = Duration::from_millis(100);
        assert_eq!(
            ms(until_slot(Duration::from_millis(25), every, at(1_000_010))),
            15
        );
        assert_eq!(
            ms(until_slot(Duration::from_millis(25), every, at(1_000_030))),
            95
        );
        assert_eq!(
            ms(until_slot(Duration::from_millis(25), every, at(1_000_025))),
            100,
            "now is a slot: the next one"
        );
        assert_eq!(ms(until_slot(Duration::ZERO, every, at(1_000_099))), 1);
        assert!(until_slot(Duration::ZERO, every, SystemTime::now()) <= every);
    }
}
