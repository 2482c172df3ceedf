//! Where alerts go ([`Channels`]: MQTT through the bridge's link, the webhooks), and how a
//! reading of the conditions settles against what stood before ([`settle`]): each alert is said
//! once when it starts and once when it clears. The engine that reads, settles and tells at a
//! steady interval runs on the runtime floor (`crate::runtime::alerts`).

use super::mqtt;
use super::texts::Words;
use super::webhook::{self, Failure};
use super::{Change, Event, Found, TEST};
use crate::bridge::MqttLink;
use storage::Timestamp;
use storage::records::{StandingAlert, StandingAlerts, Webhook};

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
    http: webhook::Client,
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
        webhook::send_test(&self.http, webhook, &test_event(language)).await
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
