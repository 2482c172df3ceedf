//! Alerts: where they go (Settings › Alerts) and which are standing now.

use crate::{Id, Timestamp};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a webhook's request looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WebhookForm {
    /// ntfy's publish form: the message as the body, `Title`, `Priority` (1–5) and `Tags` as
    /// headers (<https://docs.ntfy.sh/publish/>).
    Ntfy,
    /// One JSON object per alert (`docs/api-contract.md`, "Alerts").
    Json,
}

/// One HTTP endpoint alerts are posted to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    /// Its id.
    pub id: Id,
    /// What the shop calls it ("ntfy Werkstatt").
    pub name: String,
    /// `http` or `https` URL the alerts are posted to, without a credential in it.
    pub url: String,
    /// The request's form.
    pub form: WebhookForm,
    /// The alert kinds it receives (codes such as `LOW_STOCK`); empty for every kind.
    pub kinds: Vec<String>,
    /// Sent as `Authorization: Bearer <token>`; write-only, and left out of backups.
    pub token: Option<String>,
}

/// Settings › Alerts. Stored in the settings table under key 4; [`AlertSettings::default`]
/// until first changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlertSettings {
    /// Minutes an integration may fail before `INTEGRATION_FAILING` starts (0: at once).
    pub integration_minutes: u16,
    /// Days the newest backup may be old before `BACKUP_STALE` starts.
    pub backup_days: u16,
    /// The webhooks, in the order they were added.
    pub webhooks: Vec<Webhook>,
}

impl Default for AlertSettings {
    /// 15 minutes, 2 days, no webhook.
    fn default() -> Self {
        AlertSettings {
            integration_minutes: 15,
            backup_days: 2,
            webhooks: Vec::new(),
        }
    }
}

/// An alert that has started and not cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingAlert {
    /// Its kind's code (`LOW_STOCK`).
    pub kind: String,
    /// What it is about: a record's id, a source's id, a peer (`spoolmgr`); empty for the
    /// instance.
    pub subject: String,
    /// One line, in the instance's default language.
    pub title: String,
    /// The details.
    pub message: String,
    /// When it started.
    pub since: Timestamp,
}

/// The alerts standing now, by key `<KIND>/<subject>`; stored in the settings table under
/// key 5 so that a restart neither repeats a start nor misses a clear.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingAlerts(pub BTreeMap<String, StandingAlert>);
