//! `/api/alerts`: the alerts standing now; `/api/settings/alerts`: their thresholds, the MQTT
//! channel's state and the webhooks (tokens write-only), each with a "send test".

use crate::error::{ApiError, ErrorBody};
use crate::extract::{PathId, StrictJson};
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::ts;
use actix_web::web::{Data, Json};
use actix_web::{HttpResponse, delete, get, post, put};
use actors::alerts::Kind;
use actors::alerts::mqtt::{EVENTS, PREFIX};
use actors::alerts::settings::{
    AddWebhook, ChangeWebhook, GetAlertSettings, GetStanding, RemoveWebhook, SetThresholds,
    Thresholds, WebhookInput,
};
use actors::integrations::settings::PeerUrl;
use actors::settings::GetSettings;
use actors::values::Name;
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records::{AlertSettings, StandingAlert, Webhook, WebhookForm};
use utoipa::ToSchema;

/// Registers the alert routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(standing)
        .add(get_settings)
        .add(put_settings)
        .add(add_webhook)
        .add(put_webhook)
        .add(delete_webhook)
        .add(test_webhook)
        .add(test_mqtt);
}

crate::input::deserr_by_name!(Kind, Form);

/// A webhook's request form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Form {
    /// ntfy: the message as the body; `X-Title`, `X-Priority`, `X-Tags` headers.
    Ntfy,
    /// The alert as one JSON object.
    Json,
}

impl From<Form> for WebhookForm {
    fn from(f: Form) -> WebhookForm {
        match f {
            Form::Ntfy => WebhookForm::Ntfy,
            Form::Json => WebhookForm::Json,
        }
    }
}

impl From<WebhookForm> for Form {
    fn from(f: WebhookForm) -> Form {
        match f {
            WebhookForm::Ntfy => Form::Ntfy,
            WebhookForm::Json => Form::Json,
        }
    }
}

/// An alert that has started and not cleared.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertDto {
    /// Its kind's code (`LOW_STOCK`).
    pub kind: String,
    /// What it is about: a record's id, a source's id, `spoolmgr` or `printfleet`; empty for
    /// the instance.
    pub subject: String,
    /// One line, in the instance's default language.
    pub title: String,
    /// The details.
    pub message: String,
    /// When it started.
    pub since: String,
}

impl From<StandingAlert> for AlertDto {
    fn from(a: StandingAlert) -> AlertDto {
        AlertDto {
            kind: a.kind,
            subject: a.subject,
            title: a.title,
            message: a.message,
            since: ts(a.since),
        }
    }
}

/// A webhook; its token is never returned.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDto {
    /// Its id.
    #[schema(format = Uuid)]
    pub id: String,
    /// Its name.
    pub name: String,
    /// Where alerts are posted.
    pub url: String,
    /// The request's form.
    pub form: Form,
    /// The kinds it takes; empty for every kind.
    pub kinds: Vec<String>,
    /// A token is set (sent as `Authorization: Bearer`).
    pub token_set: bool,
}

impl From<Webhook> for WebhookDto {
    fn from(w: Webhook) -> WebhookDto {
        WebhookDto {
            id: w.id.to_string(),
            name: w.name,
            url: w.url,
            form: w.form.into(),
            kinds: w.kinds,
            token_set: w.token.is_some(),
        }
    }
}

/// The MQTT channel.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MqttChannel {
    /// The bridge runs in this process, so alerts and levels go out through its link.
    pub configured: bool,
    /// Its broker is connected now.
    pub connected: bool,
    /// The first level of every printcost topic.
    pub prefix: String,
    /// The events' topic (unretained).
    pub events_topic: String,
    /// Home Assistant's discovery prefix, when discovery is on.
    pub discovery_prefix: Option<String>,
}

/// Settings › Alerts.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertSettingsDto {
    /// Minutes an integration may fail to answer before `INTEGRATION_FAILING` (0: at once).
    pub integration_minutes: u16,
    /// Days the newest backup may be old before `BACKUP_STALE`.
    pub backup_days: u16,
    /// Every kind an alert can have.
    pub kinds: Vec<String>,
    /// The MQTT channel.
    pub mqtt: MqttChannel,
    /// The webhooks, in the order they were added.
    pub webhooks: Vec<WebhookDto>,
}

impl AlertSettingsDto {
    /// The wire form of `s`, with this process's MQTT channel.
    pub fn of(state: &AppState, s: AlertSettings) -> AlertSettingsDto {
        let mqtt = state.alerts.mqtt.as_ref();
        AlertSettingsDto {
            integration_minutes: s.integration_minutes,
            backup_days: s.backup_days,
            kinds: Kind::ALL.iter().map(|k| k.code().to_string()).collect(),
            mqtt: MqttChannel {
                configured: mqtt.is_some(),
                connected: mqtt.is_some_and(|m| m.link.is_connected()),
                prefix: PREFIX.into(),
                events_topic: EVENTS.into(),
                discovery_prefix: mqtt.and_then(|m| m.discovery_prefix.clone()),
            },
            webhooks: s.webhooks.into_iter().map(Into::into).collect(),
        }
    }
}

/// The thresholds.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct ThresholdsPut {
    /// 0–1440.
    #[schema(minimum = 0, maximum = 1440)]
    pub integration_minutes: u32,
    /// 1–365.
    #[schema(minimum = 1, maximum = 365)]
    pub backup_days: u32,
}

/// A webhook as entered (a new one, or the whole of a change).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct WebhookPut {
    /// 1–200 characters.
    #[schema(example = "ntfy Werkstatt")]
    pub name: Name,
    /// http(s), without user, query or fragment.
    #[schema(example = "http://ntfy.lan/werkstatt")]
    pub url: PeerUrl,
    /// The request's form.
    pub form: Form,
    /// The kinds it takes; empty or omitted for every kind.
    #[deserr(default)]
    #[serde(default)]
    pub kinds: Vec<Kind>,
    /// Sent as `Authorization: Bearer`: omit to keep, null to remove; 1–500 printable ASCII
    /// characters without spaces. Write-only.
    #[serde(default)]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 500, pattern = "^[!-~]{1,500}$")]
    #[deserr(default, from(Option<String>) = Some)]
    pub token: Option<Option<String>>,
}

impl From<WebhookPut> for WebhookInput {
    fn from(w: WebhookPut) -> WebhookInput {
        WebhookInput {
            name: w.name.into_inner(),
            url: w.url,
            form: w.form.into(),
            kinds: w.kinds.into_iter().map(|k| k.code().to_string()).collect(),
            token: w.token,
        }
    }
}

/// What a test sent.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    /// The channel took it (a 2xx; the MQTT broker connected).
    pub delivered: bool,
    /// The webhook's status, when it answered.
    pub status: Option<u16>,
    /// Why not, when it was not delivered, in English.
    pub error: Option<String>,
    /// Why not, as a stable key a page words in its language: `NO_CONNECTION`, `NO_ANSWER`,
    /// `ANSWERED` (with `status`), `BAD_URL` (webhooks); `MQTT_NOT_CONFIGURED`,
    /// `MQTT_DISCONNECTED` (MQTT).
    #[schema(value_type = Option<String>, example = "NO_CONNECTION")]
    pub reason: Option<&'static str>,
}

/// The alerts standing now, by kind and subject.
#[utoipa::path(tag = "alerts", responses((status = 200, body = Vec<AlertDto>), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/alerts")]
pub async fn standing(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Vec<AlertDto>>, ApiError> {
    let alerts = state.query(GetStanding).await?;
    Ok(Json(alerts.0.into_values().map(Into::into).collect()))
}

/// Settings › Alerts.
#[utoipa::path(tag = "alerts", responses((status = 200, body = AlertSettingsDto), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings/alerts")]
pub async fn get_settings(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<AlertSettingsDto>, ApiError> {
    let settings = state.query(GetAlertSettings).await?;
    Ok(Json(AlertSettingsDto::of(&state, settings)))
}

/// Sets the thresholds.
#[utoipa::path(
    tag = "alerts",
    request_body = ThresholdsPut,
    responses(
        (status = 200, body = AlertSettingsDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED at `integrationMinutes` or `backupDays`: `errors.outOfRange`", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[put("/settings/alerts")]
pub async fn put_settings(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<ThresholdsPut>,
) -> Result<Json<AlertSettingsDto>, ApiError> {
    Ok(Json(put_thresholds_of(&state, input.0).await?))
}

/// Stores `input` (the API's and the settings page's one way in).
///
/// Errors: as [`put_settings`].
pub async fn put_thresholds_of(
    state: &AppState,
    input: ThresholdsPut,
) -> Result<AlertSettingsDto, ApiError> {
    let thresholds = Thresholds {
        integration_minutes: input.integration_minutes,
        backup_days: input.backup_days,
    };
    let settings = state.send(SetThresholds(thresholds)).await?;
    Ok(AlertSettingsDto::of(state, settings))
}

/// Adds a webhook.
#[utoipa::path(
    tag = "alerts",
    request_body = WebhookPut,
    responses(
        (status = 201, body = WebhookDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED at `name`, `url` (`errors.invalidUrl`), `form`, `kinds` or `token`", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/settings/alerts/webhooks")]
pub async fn add_webhook(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<WebhookPut>,
) -> Result<HttpResponse, ApiError> {
    let webhook = state.send(AddWebhook(input.0.into())).await?;
    Ok(HttpResponse::Created().json(WebhookDto::from(webhook)))
}

/// Replaces a webhook (its token as `token` says).
#[utoipa::path(
    tag = "alerts",
    params(("id" = String, Path, description = "Webhook id")),
    request_body = WebhookPut,
    responses(
        (status = 200, body = WebhookDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[put("/settings/alerts/webhooks/{id}")]
pub async fn put_webhook(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
    input: StrictJson<WebhookPut>,
) -> Result<Json<WebhookDto>, ApiError> {
    let command = ChangeWebhook {
        id: id.0,
        input: input.0.into(),
    };
    Ok(Json(state.send(command).await?.into()))
}

/// Removes a webhook.
#[utoipa::path(
    tag = "alerts",
    params(("id" = String, Path, description = "Webhook id")),
    responses((status = 204), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("session" = []))
)]
#[delete("/settings/alerts/webhooks/{id}")]
pub async fn delete_webhook(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<HttpResponse, ApiError> {
    state.send(RemoveWebhook(id.0)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Posts a test alert to a webhook once (no retry) and says how it went.
#[utoipa::path(
    tag = "alerts",
    params(("id" = String, Path, description = "Webhook id")),
    responses((status = 200, body = TestResult), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)),
    security(("session" = []))
)]
#[post("/settings/alerts/webhooks/{id}/test")]
pub async fn test_webhook(
    state: Data<AppState>,
    _user: CurrentUser,
    id: PathId,
) -> Result<Json<TestResult>, ApiError> {
    Ok(Json(test_webhook_of(&state, id.0).await?))
}

/// Sends the test of webhook `id`. Errors: 404 for an unknown webhook.
pub async fn test_webhook_of(state: &AppState, id: storage::Id) -> Result<TestResult, ApiError> {
    let settings = state.query(GetAlertSettings).await?;
    let webhook = settings
        .webhooks
        .into_iter()
        .find(|w| w.id == id)
        .ok_or(actors::Error::NotFound)?;
    let language = state.query(GetSettings).await?.default_language;
    Ok(match state.alerts.test_webhook(&webhook, &language).await {
        Ok(status) => TestResult {
            delivered: true,
            status: Some(status),
            error: None,
            reason: None,
        },
        Err(failure) => TestResult {
            delivered: false,
            status: failure.why().status(),
            error: Some(failure.to_string()),
            reason: Some(failure.why().key()),
        },
    })
}

/// Publishes a test alert on the MQTT events topic.
#[utoipa::path(
    tag = "alerts",
    responses((status = 200, body = TestResult), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)),
    security(("session" = []))
)]
#[post("/settings/alerts/mqtt/test")]
pub async fn test_mqtt(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<TestResult>, ApiError> {
    Ok(Json(test_mqtt_of(&state).await?))
}

/// Sends the MQTT test. Errors: the settings cannot be read.
pub async fn test_mqtt_of(state: &AppState) -> Result<TestResult, ApiError> {
    let language = state.query(GetSettings).await?.default_language;
    let delivered = state.alerts.test_mqtt(&language).await;
    let (error, reason) = match (delivered, &state.alerts.mqtt) {
        (true, _) => (None, None),
        (false, None) => (
            Some("MQTT is not configured (printcost --bridge-config)"),
            Some("MQTT_NOT_CONFIGURED"),
        ),
        (false, Some(_)) => (
            Some("the MQTT broker is not connected"),
            Some("MQTT_DISCONNECTED"),
        ),
    };
    Ok(TestResult {
        delivered,
        status: None,
        error: error.map(str::to_string),
        reason,
    })
}
