//! The alert engine: an actor that reads every condition ([`super::conditions`]) at a steady
//! interval (30 s by default), settles it against what stood before, stores the result, and
//! only then tells the channels ([`Channels`]) what started and what cleared: each alert is
//! said once when it starts and once when it clears, across restarts too (what stands is kept
//! in the store). Telling never waits for a webhook: each delivery runs in a task of its own.
//!
//! On MQTT it also keeps printcost's levels ([`super::mqtt`]) published, only when they
//! change, and their Home Assistant discovery announced.

use super::conditions::{self, Outside, Reading};
use super::mqtt;
use super::settings::RecordStanding;
use super::texts::Words;
use super::webhook::{self, Failure};
use super::{Change, Event, Found, TEST};
use crate::bridge::link::MqttLink;
use crate::command::Snapshot;
use crate::prints::PrintIndex;
use crate::writer::Writers;
use actix::{Actor, ActorFutureExt, AsyncContext, Context, WrapFuture};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;
use storage::records::{StandingAlert, StandingAlerts, Webhook};
use storage::{Store, Timestamp};

/// The MQTT side: the bridge's link, and Home Assistant's discovery prefix when discovery is on.
#[derive(Clone)]
pub struct MqttTarget {
    /// The link (the embedded broker or the external one).
    pub link: MqttLink,
    /// `homeassistant` (the bridge's `homeassistant.discovery_prefix`), when discovery is on.
    pub discovery_prefix: Option<String>,
}

/// Where alerts go: MQTT (when the bridge runs in this process) and the webhooks' HTTP client.
#[derive(Clone)]
pub struct Channels {
    /// MQTT, when the bridge runs in this process.
    pub mqtt: Option<MqttTarget>,
    http: reqwest::Client,
}

impl Channels {
    /// The channels, with MQTT through `mqtt` if given. Errors: the HTTP client cannot be
    /// built (its TLS).
    pub fn new(mqtt: Option<MqttTarget>) -> Result<Channels, String> {
        Ok(Channels {
            mqtt,
            http: webhook::client()?,
        })
    }

    /// Says `event` on every channel that takes it: the MQTT events topic, and each of
    /// `webhooks` taking its kind (delivered in the background, retried).
    pub async fn tell(&self, event: &Event, webhooks: &[Webhook]) {
        if let Some(mqtt) = &self.mqtt {
            let payload = serde_json::to_vec(event).unwrap_or_default();
            mqtt.link.notify(mqtt::EVENTS, payload).await;
        }
        for hook in webhooks.iter().filter(|w| webhook::takes(w, &event.kind)) {
            webhook::deliver(self.http.clone(), hook.clone(), event.clone());
        }
    }

    /// Posts a test alert to `webhook` once, in the words of `language`; answers its status.
    /// Errors: [`Failure`].
    pub async fn test_webhook(&self, webhook: &Webhook, language: &str) -> Result<u16, Failure> {
        webhook::send_once(&self.http, webhook, &test_event(language)).await
    }

    /// Publishes a test alert on the MQTT events topic. Answers false when MQTT is not
    /// configured or its broker is away (the message is then dropped).
    pub async fn test_mqtt(&self, language: &str) -> bool {
        let Some(mqtt) = self.mqtt.as_ref().filter(|m| m.link.is_connected()) else {
            return false;
        };
        let payload = serde_json::to_vec(&test_event(language)).unwrap_or_default();
        mqtt.link.notify(mqtt::EVENTS, payload).await;
        true
    }
}

fn test_event(language: &str) -> Event {
    let (title, message) = Words::of(language).test();
    let now = Timestamp::now();
    let alert = StandingAlert {
        kind: TEST.to_string(),
        subject: String::new(),
        title,
        message,
        since: now,
    };
    Event::of(&alert, Change::Test, now)
}

/// What an evaluation changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settled {
    /// What stands now (a continuing alert keeps its start; its words are the latest).
    pub standing: StandingAlerts,
    /// The alerts that started.
    pub started: Vec<StandingAlert>,
    /// The alerts that cleared (as they stood).
    pub cleared: Vec<StandingAlert>,
    /// The alerts that go on with other words (the grams left, the instance's language): stored
    /// and republished on their retained topic, not told again.
    pub reworded: Vec<StandingAlert>,
}

/// Settles what was `found` at `now` against what stood `before`.
pub fn settle(before: &StandingAlerts, found: Vec<Found>, now: Timestamp) -> Settled {
    let mut settled = Settled::default();
    for alert in found {
        let key = alert.key();
        if settled.standing.0.contains_key(&key) {
            continue;
        }
        let standing = match before.0.get(&key) {
            Some(kept) if kept.title == alert.title && kept.message == alert.message => {
                kept.clone()
            }
            Some(kept) => {
                let reworded = alert.standing(kept.since);
                settled.reworded.push(reworded.clone());
                reworded
            }
            None => {
                let started = alert.standing(now);
                settled.started.push(started.clone());
                started
            }
        };
        settled.standing.0.insert(key, standing);
    }
    settled.cleared = before
        .0
        .iter()
        .filter(|(key, _)| !settled.standing.0.contains_key(*key))
        .map(|(_, alert)| alert.clone())
        .collect();
    settled
}

/// The engine's actor.
pub struct Engine {
    store: Store,
    index: Arc<PrintIndex>,
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
    /// An engine over `store` and `index`, storing through `writers`, evaluating every `every`.
    pub fn new(
        store: Store,
        index: Arc<PrintIndex>,
        writers: Writers,
        outside: Outside,
        channels: Channels,
        every: Duration,
    ) -> Engine {
        Engine {
            store,
            index,
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
        let (store, index, outside) =
            (self.store.clone(), self.index.clone(), self.outside.clone());
        let now = Timestamp::now();
        let read = async move {
            tokio::task::spawn_blocking(move || {
                let txn = store.begin_read()?;
                let snapshot = Snapshot {
                    txn: &txn,
                    index: &index,
                };
                conditions::read(&snapshot, &outside, now)
            })
            .await
        };
        ctx.wait(read.into_actor(self).then(move |read, engine, _| {
            let reading = match read {
                Ok(Ok(reading)) => Some(reading),
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "alert conditions not read");
                    None
                }
                Err(e) => {
                    tracing::error!(error = %e, "reading the alert conditions panicked");
                    None
                }
            };
            let work = reading.map(|r| engine.apply(r, now));
            async move {
                if let Some(work) = work {
                    work.await;
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alerts::Kind;

    fn found(kind: Kind, subject: &str, title: &str) -> Found {
        Found {
            kind,
            subject: subject.into(),
            title: title.into(),
            message: String::new(),
        }
    }

    #[test]
    fn an_alert_starts_once_keeps_its_start_takes_new_words_and_clears_once() {
        let first = settle(
            &StandingAlerts::default(),
            vec![found(Kind::LowStock, "a", "Low stock: A")],
            Timestamp(100),
        );
        assert_eq!(first.started.len(), 1);
        assert!(first.cleared.is_empty());
        let again = settle(
            &first.standing,
            vec![
                found(Kind::LowStock, "a", "Low stock: A"),
                found(Kind::LowStock, "a", "a duplicate"),
            ],
            Timestamp(200),
        );
        assert!(again.started.is_empty() && again.cleared.is_empty());
        assert!(again.reworded.is_empty());
        assert_eq!(again.standing, first.standing, "start and words kept");
        let reworded = settle(
            &again.standing,
            vec![found(Kind::LowStock, "a", "Bestand niedrig: A")],
            Timestamp(250),
        );
        assert!(reworded.started.is_empty() && reworded.cleared.is_empty());
        assert_eq!(reworded.reworded.len(), 1);
        assert_eq!(
            reworded.reworded[0].since,
            Timestamp(100),
            "still the first start"
        );
        assert_eq!(reworded.reworded[0].title, "Bestand niedrig: A");
        let gone = settle(&again.standing, Vec::new(), Timestamp(300));
        assert!(gone.started.is_empty());
        assert_eq!(gone.cleared.len(), 1);
        assert_eq!(gone.cleared[0].since, Timestamp(100));
        assert!(gone.standing.0.is_empty());
    }
}
