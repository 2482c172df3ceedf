//! The alert engine: an actor that reads every condition ([`crate::alerts::conditions`]) at a
//! steady interval (30 s by default), through the one read path, settles it against what stood
//! before ([`settle`]), stores the result through the settings writer, and only then tells the
//! channels ([`Channels`]) what started and what cleared: each alert is said once when it
//! starts and once when it clears, across restarts too (what stands is kept in the store).
//! Telling never waits for a webhook: each delivery runs in a task of its own.
//!
//! On MQTT it also keeps printcost's levels ([`crate::alerts::mqtt`]) published, only when they
//! change, and their Home Assistant discovery announced.

use super::acting::{acting_as, system};
use super::reader::Reader;
use super::writer::Writers;
use crate::alerts::channels::{Channels, MqttTarget, settle};
use crate::alerts::conditions::{Outside, ReadConditions, Reading};
use crate::alerts::mqtt;
use crate::alerts::settings::RecordStanding;
use crate::alerts::{Change, Event};
use actix::{Actor, ActorFutureExt, AsyncContext, Context, WrapFuture};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use storage::Timestamp;

/// The engine's actor.
pub struct Engine {
    reader: Reader,
    writers: Writers,
    outside: Outside,
    channels: Channels,
    every: Duration,
    /// Whether the standing alerts' retained topics have been published since start.
    restored: bool,
    /// The levels' states last published.
    published: BTreeMap<String, String>,
    /// The discovery configs last announced.
    announced: BTreeMap<String, serde_json::Value>,
}

impl Engine {
    /// An engine reading through `reader`, storing through `writers`, evaluating every `every`.
    pub fn new(
        reader: Reader,
        writers: Writers,
        outside: Outside,
        channels: Channels,
        every: Duration,
    ) -> Engine {
        Engine {
            reader,
            writers,
            outside,
            channels,
            every,
            restored: false,
            published: BTreeMap::new(),
            announced: BTreeMap::new(),
        }
    }

    fn tick(&mut self, ctx: &mut Context<Self>) {
        let (reader, outside) = (self.reader.clone(), self.outside.clone());
        let now = Timestamp::now();
        let read = async move { reader.query(ReadConditions { outside, now }).await };
        ctx.wait(read.into_actor(self).then(move |read, engine, _| {
            let reading = match read {
                Ok(reading) => Some(reading),
                Err(e) => {
                    tracing::debug!(error = %e, "alert conditions not read");
                    None
                }
            };
            let work = reading.map(|r| engine.apply(r, now));
            acting_as(system("alerts"), async move {
                if let Some(work) = work {
                    work.await;
                }
            })
            .into_actor(engine)
        }));
    }

    /// The work of one reading: store what changed, then tell it; publish the levels.
    fn apply(&mut self, reading: Reading, now: Timestamp) -> impl Future<Output = ()> + use<> {
        let settled = settle(&reading.standing, reading.found, now);
        let restore = (!self.restored).then(|| settled.standing.clone());
        self.restored = true;
        let levels = reading
            .levels
            .as_ref()
            .map(mqtt::states)
            .unwrap_or_default();
        let changed_levels: Vec<(String, String)> = levels
            .iter()
            .filter(|(topic, payload)| self.published.get(*topic) != Some(payload))
            .map(|(t, p)| (t.clone(), p.clone()))
            .collect();
        let gone_levels: Vec<String> = self
            .published
            .keys()
            .filter(|t| !levels.contains_key(*t))
            .cloned()
            .collect();
        self.published = levels;
        let mqtt = self.channels.mqtt.clone();
        let announce = match (&mqtt, &reading.levels) {
            (
                Some(MqttTarget {
                    link,
                    discovery_prefix: Some(prefix),
                }),
                Some(levels),
            ) => {
                let configs = mqtt::discovery(levels, prefix, link.status_topic());
                if configs != self.announced {
                    let gone: BTreeSet<String> = self
                        .announced
                        .keys()
                        .filter(|t| !configs.contains_key(*t))
                        .cloned()
                        .collect();
                    self.announced = configs.clone();
                    Some((configs, gone))
                } else {
                    None
                }
            }
            _ => None,
        };
        let (writers, channels) = (self.writers.clone(), self.channels.clone());
        let webhooks = reading.settings.webhooks;
        async move {
            if let Some(mqtt) = &mqtt {
                let link = &mqtt.link;
                if let Some((configs, gone)) = announce {
                    let messages = configs
                        .into_iter()
                        .map(|(t, c)| (t, c.to_string().into_bytes()))
                        .collect();
                    link.set_announcements_of("printcost", messages).await;
                    for topic in gone {
                        link.publish(&topic, Vec::new(), true).await;
                    }
                }
                for (topic, payload) in changed_levels {
                    link.publish(&topic, payload.into_bytes(), true).await;
                }
                for topic in gone_levels {
                    link.publish(&topic, Vec::new(), true).await;
                }
                for alert in restore.iter().flat_map(|s| s.0.values()) {
                    link.publish(&mqtt::alert_topic(alert), mqtt::alert_payload(alert), true)
                        .await;
                }
            }
            if settled.started.is_empty()
                && settled.cleared.is_empty()
                && settled.reworded.is_empty()
            {
                return;
            }
            if let Err(e) = writers.send(RecordStanding(settled.standing)).await {
                tracing::warn!(error = %e, "standing alerts not stored; told at the next round");
                return;
            }
            if let Some(mqtt) = &mqtt {
                for alert in &settled.reworded {
                    let payload = mqtt::alert_payload(alert);
                    mqtt.link
                        .publish(&mqtt::alert_topic(alert), payload, true)
                        .await;
                }
            }
            for (alerts, change) in [
                (settled.started, Change::Started),
                (settled.cleared, Change::Cleared),
            ] {
                for alert in alerts {
                    tracing::info!(kind = %alert.kind, subject = %alert.subject, ?change, "alert");
                    if let Some(mqtt) = &mqtt {
                        let payload = match change {
                            Change::Started => mqtt::alert_payload(&alert),
                            _ => Vec::new(),
                        };
                        mqtt.link
                            .publish(&mqtt::alert_topic(&alert), payload, true)
                            .await;
                    }
                    channels
                        .tell(&Event::of(&alert, change, now), &webhooks)
                        .await;
                }
            }
        }
    }
}

impl Actor for Engine {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        self.tick(ctx);
        ctx.run_interval(self.every, Self::tick);
    }
}
