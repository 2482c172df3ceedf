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

use super::reader::Reader;
use super::writer::{Committed, Subscriber, Writers};
use crate::bridge::{BridgeConfig, Incoming, MqttLink};
use crate::meters::history::{Keeper, Sample};
use crate::meters::links::{self, KeepReadings, MeterLinks};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use storage::records::{EnergyUnit, Print};
use storage::{Id, Store, Timestamp};
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
    pub fn start(
        store: Store,
        reader: Reader,
        writers: Writers,
        bridge: &BridgeConfig,
    ) -> Recorder {
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
        tokio::spawn(async move {
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
                let kept = tokio::select! {
                    () = reload.notified() => {
                        stale = true;
                        continue;
                    }
                    () = marked.notified() => {
                        let printers = std::mem::take(&mut *marks.lock().unwrap_or_else(|p| p.into_inner()));
                        mark(&store, &mut keeper, &live, &printers)
                    }
                    message = message => {
                        let Some((topic, payload)) = message else { break };
                        read(&store, &mut keeper, &live, routes.get(&topic), &payload)
                    }
                };
                if !kept.is_empty()
                    && let Err(e) = writers.send(KeepReadings(kept)).await
                {
                    tracing::warn!(error = %e, "meter readings not stored");
                }
            }
        });
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

/// Marks the meters of `printers` in the keeper; answers their live readings to keep.
fn mark(
    store: &Store,
    keeper: &mut Keeper,
    live: &LiveReadings,
    printers: &[Id],
) -> Vec<(Id, Sample)> {
    let mut kept = Vec::new();
    for printer in printers {
        let marked = store
            .begin_read()
            .map_err(crate::Error::from)
            .and_then(|tx| keeper.mark(&tx, *printer, live.of(*printer)));
        match marked {
            Ok(Some(sample)) => kept.push((*printer, sample)),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "meter not marked"),
        }
    }
    kept
}

/// A message of the meters `routed` to its topic: each one's counter becomes its live reading
/// and is offered to the keeper; answers the readings to keep.
fn read(
    store: &Store,
    keeper: &mut Keeper,
    live: &LiveReadings,
    routed: Option<&Vec<(Id, Option<String>, EnergyUnit)>>,
    payload: &[u8],
) -> Vec<(Id, Sample)> {
    let at = Timestamp::now();
    let mut kept = Vec::new();
    for (printer, path, unit) in routed.into_iter().flatten() {
        let Some(kwh) = links::counter_of(payload, path.as_deref(), *unit) else {
            tracing::warn!(%printer, "meter message without a counter");
            continue;
        };
        let sample = Sample { at, kwh };
        live.set(*printer, sample);
        let offered = store
            .begin_read()
            .map_err(crate::Error::from)
            .and_then(|tx| keeper.offer(&tx, *printer, sample));
        match offered {
            Ok(Some(sample)) => kept.push((*printer, sample)),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "meter reading not kept"),
        }
    }
    kept
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
