//! Settings › Alerts: the thresholds of the alerts that wait (an integration's minutes, the
//! backup's days) and the webhooks, with their write-only tokens.

use crate::command::SettingsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::error::FieldError;
use crate::integrations::settings::PeerUrl;
use crate::txn::Txn;
use crate::{Error, Result};
use storage::Id;
use storage::records::{AlertSettings, StandingAlerts, Webhook, WebhookForm};
use storage::repo;

/// The longest an integration may wait, minutes (a day).
pub const MAX_INTEGRATION_MINUTES: u32 = 1440;
/// The longest a backup may be old, days.
pub const MAX_BACKUP_DAYS: u32 = 365;

/// The thresholds, as entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Minutes without an answer before `INTEGRATION_FAILING`, 0–1440.
    pub integration_minutes: u32,
    /// Days before `BACKUP_STALE`, 1–365.
    pub backup_days: u32,
}

/// Stores the thresholds; replies with the settings.
/// Errors: [`Error::Validation`] at `integrationMinutes` or `backupDays`
/// (`errors.outOfRange`).
#[derive(Debug, Clone)]
pub struct SetThresholds(pub Thresholds);

impl Command for SetThresholds {
    type Writer = SettingsWriter;
    type Reply = AlertSettings;

    fn apply(&mut self, txn: &Txn) -> Result<AlertSettings> {
        let mut faults = Vec::new();
        let minutes = u16::try_from(self.0.integration_minutes)
            .ok()
            .filter(|m| u32::from(*m) <= MAX_INTEGRATION_MINUTES);
        if minutes.is_none() {
            faults.push(FieldError::new("integrationMinutes", "errors.outOfRange"));
        }
        let days = u16::try_from(self.0.backup_days)
            .ok()
            .filter(|d| (1..=MAX_BACKUP_DAYS).contains(&u32::from(*d)));
        if days.is_none() {
            faults.push(FieldError::new("backupDays", "errors.outOfRange"));
        }
        let (Some(integration_minutes), Some(backup_days)) = (minutes, days) else {
            return Err(Error::Validation(faults));
        };
        let mut settings = repo::alert_settings(txn)?;
        settings.integration_minutes = integration_minutes;
        settings.backup_days = backup_days;
        repo::put_alert_settings(txn, &settings)?;
        Ok(settings)
    }
}

/// A webhook as entered.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookInput {
    /// Its name, validated (1–200 characters).
    pub name: String,
    /// Where alerts are posted.
    pub url: PeerUrl,
    /// The request's form.
    pub form: WebhookForm,
    /// The kinds it takes (codes, validated); empty for every kind.
    pub kinds: Vec<String>,
    /// The token: `None` keeps the stored one (none for a new webhook), `Some(None)` removes
    /// it, `Some(Some(t))` sets it (1–500 printable ASCII characters, no spaces).
    pub token: Option<Option<String>>,
}

/// The longest token, characters.
pub const MAX_TOKEN_CHARS: usize = 500;

impl WebhookInput {
    /// The webhook `id` this input makes, keeping `kept_token` when the input leaves the token
    /// as it is. Errors: [`Error::Validation`] at `token` (`errors.invalidValue`).
    fn into_webhook(self, id: Id, kept_token: Option<String>) -> Result<Webhook> {
        let mut kinds = self.kinds;
        kinds.sort();
        kinds.dedup();
        let token = match self.token {
            None => kept_token,
            Some(None) => None,
            Some(Some(token)) => {
                let printable = token.bytes().all(|b| b.is_ascii_graphic());
                if token.is_empty() || token.len() > MAX_TOKEN_CHARS || !printable {
                    return Err(Error::Validation(vec![FieldError::new(
                        "token",
                        "errors.invalidValue",
                    )]));
                }
                Some(token)
            }
        };
        Ok(Webhook {
            id,
            name: self.name,
            url: self.url.as_str().to_string(),
            form: self.form,
            kinds,
            token,
        })
    }
}

/// Adds a webhook (any number may be kept); replies with it. Errors: [`Error::Validation`] at
/// `token`.
#[derive(Debug, Clone)]
pub struct AddWebhook(pub WebhookInput);

impl Command for AddWebhook {
    type Writer = SettingsWriter;
    type Reply = Webhook;

    fn apply(&mut self, txn: &Txn) -> Result<Webhook> {
        let mut settings = repo::alert_settings(txn)?;
        let webhook = self.0.clone().into_webhook(Id::new(), None)?;
        settings.webhooks.push(webhook.clone());
        repo::put_alert_settings(txn, &settings)?;
        Ok(webhook)
    }
}

/// Replaces webhook `id` (its token as [`WebhookInput::token`] says); replies with it.
/// Errors: [`Error::NotFound`].
#[derive(Debug, Clone)]
pub struct ChangeWebhook {
    /// The webhook.
    pub id: Id,
    /// What it becomes.
    pub input: WebhookInput,
}

impl Command for ChangeWebhook {
    type Writer = SettingsWriter;
    type Reply = Webhook;

    fn apply(&mut self, txn: &Txn) -> Result<Webhook> {
        let mut settings = repo::alert_settings(txn)?;
        let stored = settings
            .webhooks
            .iter_mut()
            .find(|w| w.id == self.id)
            .ok_or(Error::NotFound)?;
        *stored = self
            .input
            .clone()
            .into_webhook(self.id, stored.token.clone())?;
        let webhook = stored.clone();
        repo::put_alert_settings(txn, &settings)?;
        Ok(webhook)
    }
}

/// Removes webhook `id`. Errors: [`Error::NotFound`].
#[derive(Debug, Clone)]
pub struct RemoveWebhook(pub Id);

impl Command for RemoveWebhook {
    type Writer = SettingsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        let mut settings = repo::alert_settings(txn)?;
        let before = settings.webhooks.len();
        settings.webhooks.retain(|w| w.id != self.0);
        if settings.webhooks.len() == before {
            return Err(Error::NotFound);
        }
        repo::put_alert_settings(txn, &settings).map_err(Into::into)
    }
}

/// Settings › Alerts. Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct GetAlertSettings;

impl Query for GetAlertSettings {
    type Answer = AlertSettings;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<AlertSettings> {
        Ok(repo::alert_settings(snapshot)?)
    }
}

/// The alerts standing now. Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct GetStanding;

impl Query for GetStanding {
    type Answer = StandingAlerts;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<StandingAlerts> {
        Ok(repo::standing_alerts(snapshot)?)
    }
}

/// Stores the alerts standing now (the engine's, after an evaluation changed them).
#[derive(Debug, Clone)]
pub struct RecordStanding(pub StandingAlerts);

impl Command for RecordStanding {
    type Writer = SettingsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        repo::put_standing_alerts(txn, &self.0).map_err(Into::into)
    }
}
