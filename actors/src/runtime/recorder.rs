//! The recorder: reads every linked meter from the bridge's broker (embedded or external) and
//! keeps its history.
//!
//! One MQTT client of its own (client id `<bridge's>-meters`, status under
//! `<base topic>/meters/status`), connected once a meter is linked, subscribes each linked
//! meter's topic ([`links::topic_of`]).
//! A message's counter ([`links::counter_of`]) becomes the meter's live reading at once; the
//! keeper ([`Keeper`]) decides whether it is kept, and a kept one is stored through
//! the inventory writer, durably, before the next message of the client is read. A link made
//! or changed later is subscribed when [`Recorder::reload`] is called; messages of a topic no
//! meter is linked to any more are ignored.

use super::acting::{acting_as, system};
use super::reader::Reader;
use super::writer::{Committed, Subscriber, Writers};
use crate::bridge::{BridgeConfig, Incoming, MqttLink};
use crate::command::{Query, Snapshot};
use crate::meters::history::{Keeper, Sample};
use crate::meters::links::{self, KeepReadings, MeterLinks};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use storage::records::{EnergyUnit, Print};
use storage::{Id, Timestamp};
use tokio::sync::Notify;
use tokio::sync::mpsc::Receiver;

/// Each meter's latest reading, kept or not (the printer's page shows it): printer → reading.
#[derive(Debug, Clone, Default)]
pub struct LiveReadings(Arc<RwLock<HashMap<Id, Sample>>>);

impl LiveReadings {
    /// Printer `printer`'s latest reading since the service started, if any.
    pub fn of(&self, printer: Id) -> Option<Sample> {
        self.0.read().ok()?.get(&printer).copied()
    }

    fn set(&self, printer: Id, sample: Sample) {
        if let Ok(mut live) = self.0.write() {
            live.insert(printer, sample);
        }
    }
}

/// The running recorder: its live readings, and the ways to tell it the links changed or a
/// run started or ended.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    /// Each meter's latest reading.
    pub live: LiveReadings,
    reload: Arc<Notify>,
    marks: Arc<Mutex<Vec<Id>>>,
    marked: Arc<Notify>,
}

/// Where a topic's messages go: (printer, path of the counter, unit).
type Routes = HashMap<String, Vec<(Id, Option<String>, EnergyUnit)>>;

impl Recorder {
    /// Starts recording with the in-process bridge `bridge` (inside a tokio runtime). Its MQTT
    /// client connects once a meter is linked; until then nothing reaches the broker.
    pub fn start(reader: Reader, writers: Writers, bridge: &BridgeConfig) -> Recorder {
        let mut mqtt = bridge.mqtt.clone();
        mqtt.client_id = format!("{}-meters", mqtt.client_id);
        mqtt.base_topic = format!("{}/meters", mqtt.base_topic);
        let recorder = Recorder::default();
        let (live, reload, bridge) = (
            recorder.live.clone(),
            recorder.reload.clone(),
            bridge.clone(),
        );
        let (marks, marked) = (recorder.marks.clone(), recorder.marked.clone());
        tokio::spawn(acting_as(system("meters"), async move {
            let mut keeper = Keeper::default();
            let mut routes = Routes::new();
            let mut client: Option<(MqttLink, Receiver<Incoming>)> = None;
            let mut stale = true;
            loop {
                if stale {
                    routes = route(&reader, &bridge).await;
                    if client.is_none() && !routes.is_empty() {
                        match MqttLink::start(&mqtt, Vec::new()) {
                            Ok(started) => client = Some(started),
                            Err(e) => tracing::warn!(error = %e, "meters not read"),
                        }
                    }
                    if let Some((link, _)) = &client {
                        for topic in routes.keys() {
                            link.subscribe(topic).await;
                        }
                    }
                    stale = false;
                }
                let message = async {
                    match &mut client {
                        Some((_, incoming)) => incoming.recv().await,
                        None => std::future::pending().await,
                    }
                };
                let work = tokio::select! {
                    () = reload.notified() => {
                        stale = true;
                        continue;
                    }
                    () = marked.notified() => {
                        let printers = std::mem::take(&mut *marks.lock().unwrap_or_else(|p| p.into_inner()));
                        Work::Mark(printers.into_iter().map(|p| (p, live.of(p))).collect())
                    }
                    message = message => {
                        let Some((topic, payload)) = message else { break };
                        Work::Offer(read(&live, routes.get(&topic), &payload))
                    }
                };
                let kept;
                (keeper, kept) = keep(&reader, keeper, work).await;
                if !kept.is_empty()
                    && let Err(e) = writers.send(KeepReadings(kept)).await
                {
                    tracing::warn!(error = %e, "meter readings not stored");
                }
            }
        }));
        recorder
    }

    /// Tells the recorder the links changed: it subscribes what is new before its next message.
    pub fn reload(&self) {
        self.reload.notify_one();
    }

    /// Tells the recorder runs on `printers` started or ended now: their meters' latest
    /// readings are kept, and their next ones ([`Keeper::mark`]).
    pub fn mark(&self, printers: &[Id]) {
        if let Ok(mut marks) = self.marks.lock() {
            marks.extend_from_slice(printers);
        }
        self.marked.notify_one();
    }
}

/// The recorder hears every commit: a print whose run started or ended (its move to or on from
/// PRINTING, by whatever route) has its printers' meters marked at once.
impl Subscriber for Recorder {
    fn committed(&self, changes: Committed<'_>) {
        let printers: Vec<Id> = changes
            .prints
            .iter()
            .filter(|(old, print)| run_moved(old.as_ref(), print))
            .flat_map(|(_, print)| print.parts.iter().map(|p| p.printer_id))
            .collect();
        if !printers.is_empty() {
            self.mark(&printers);
        }
    }
}

/// Whether `print` (as written over `old`) just moved to or on from PRINTING: one of its run's
/// times changed.
fn run_moved(old: Option<&Print>, print: &Print) -> bool {
    let times = |p: &Print| (p.printing_started_at, p.printing_ended_at);
    old.map(times) != Some(times(print)) && print.printing_started_at.is_some()
}

/// What the keeper is asked: to mark printers' meters (a run started or ended; each with its
/// live reading), or to take readings.
enum Work {
    Mark(Vec<(Id, Option<Sample>)>),
    Offer(Vec<(Id, Sample)>),
}

/// The keeper's work, run through the one read path (the keeper reads a meter's last kept
/// reading from a snapshot the first time it meets the meter). Answers the keeper back with the
/// readings to store; a meter whose read fails is logged and skipped.
struct KeeperWork {
    keeper: Keeper,
    work: Work,
}

impl Query for KeeperWork {
    type Answer = (Keeper, Vec<(Id, Sample)>);

    fn run(self, snapshot: &Snapshot<'_>) -> crate::Result<Self::Answer> {
        let KeeperWork { mut keeper, work } = self;
        let mut kept = Vec::new();
        let mut note = |printer: Id, done: crate::Result<Option<Sample>>| match done {
            Ok(Some(sample)) => kept.push((printer, sample)),
            Ok(None) => {}
            Err(e) => tracing::warn!(%printer, error = %e, "meter reading not kept"),
        };
        match work {
            Work::Mark(marks) => {
                for (printer, live) in marks {
                    note(printer, keeper.mark(snapshot, printer, live));
                }
            }
            Work::Offer(samples) => {
                for (printer, sample) in samples {
                    note(printer, keeper.offer(snapshot, printer, sample));
                }
            }
        }
        Ok((keeper, kept))
    }
}

/// Runs `work` with `keeper` through `reader`; answers the keeper and the readings to store.
/// When the store cannot be read at all, the keeper starts again empty (it reads what it needs
/// again) and nothing is kept this time.
async fn keep(reader: &Reader, keeper: Keeper, work: Work) -> (Keeper, Vec<(Id, Sample)>) {
    match reader.query(KeeperWork { keeper, work }).await {
        Ok(done) => done,
        Err(e) => {
            tracing::warn!(error = %e, "meters' readings not read; kept again from the store");
            (Keeper::default(), Vec::new())
        }
    }
}

/// A message of the meters `routed` to its topic: each one's counter becomes its live reading;
/// answers the samples to offer the keeper.
fn read(
    live: &LiveReadings,
    routed: Option<&Vec<(Id, Option<String>, EnergyUnit)>>,
    payload: &[u8],
) -> Vec<(Id, Sample)> {
    let at = Timestamp::now();
    let mut samples = Vec::new();
    for (printer, path, unit) in routed.into_iter().flatten() {
        let Some(kwh) = links::counter_of(payload, path.as_deref(), *unit) else {
            tracing::warn!(%printer, "meter message without a counter");
            continue;
        };
        let sample = Sample { at, kwh };
        live.set(*printer, sample);
        samples.push((*printer, sample));
    }
    samples
}

/// The routes of every linked meter; a link the bridge no longer has is skipped (logged).
async fn route(reader: &Reader, bridge: &BridgeConfig) -> Routes {
    let mut routes = Routes::new();
    let linked = match reader.query(MeterLinks).await {
        Ok(linked) => linked,
        Err(e) => {
            tracing::warn!(error = %e, "meter links not read");
            return routes;
        }
    };
    for (printer, link) in linked {
        match links::topic_of(&link.source, Some(bridge)) {
            Ok((topic, path)) => routes
                .entry(topic)
                .or_default()
                .push((printer, path, link.unit)),
            Err(e) => tracing::warn!(%printer, error = %e, "meter link not readable"),
        }
    }
    routes
}
