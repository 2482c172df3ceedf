//! Settings › Alerts: what stands now, the thresholds, the channels (MQTT and the webhooks, each
//! with "send test"), and a new webhook's form. Every form goes through the API's own inputs
//! and commands ([`crate::api::alerts`]).

use super::Chrome;
use super::forms::{Faults, Submitted};
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use crate::api::alerts::{
    AlertDto, AlertSettingsDto, TestResult, ThresholdsPut, WebhookPut, put_thresholds_of,
    test_mqtt_of, test_webhook_of,
};
use crate::input;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::alerts::Kind;
use actors::alerts::settings::{AddWebhook, GetAlertSettings, GetStanding, RemoveWebhook};
use askama::Template;

#[derive(Template)]
#[template(path = "alerts.html")]
struct AlertsPage {
    chrome: Chrome,
    settings: AlertSettingsDto,
    standing: Vec<AlertDto>,
    /// The thresholds' form.
    thresholds: Submitted,
    /// The new webhook's form.
    form: Submitted,
    faults: Faults,
    /// `?saved`, `?added`, `?removed`: the i18n key of the message.
    notice: Option<&'static str>,
    /// A test's channel name and result.
    tested: Option<(String, TestResult)>,
}

impl AlertsPage {
    /// The i18n key of a kind's name.
    fn kind_key(&self, code: &str) -> String {
        format!("alerts.kind.{code}")
    }

    /// Every kind's code, in the settings' order.
    fn kinds(&self) -> Vec<&'static str> {
        Kind::ALL.iter().map(|k| k.code()).collect()
    }
}

/// Renders the page.
pub async fn show(ctx: Ctx) -> Page {
    let notice = ctx.notice(&[
        ("saved", "alerts.saved"),
        ("added", "alerts.added"),
        ("removed", "alerts.removed"),
    ]);
    render(
        ctx,
        Shown {
            notice,
            ..Shown::default()
        },
        StatusCode::OK,
    )
    .await
}

/// Saves the thresholds.
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let tree = form.tree(&["integrationMinutes", "backupDays"]);
    let saved = match ctx.typed(|| input::parse::<ThresholdsPut>(tree)) {
        Ok(input) => put_thresholds_of(&ctx.state, input).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => Ok(see_other(&format!("{}?saved", paths::SETTINGS_ALERTS))),
        Err(e) => {
            let status = e.code.status();
            render(
                ctx,
                Shown {
                    thresholds: Some(form),
                    faults: Faults::of(&e),
                    ..Shown::default()
                },
                status,
            )
            .await
        }
    }
}

/// Adds a webhook (kinds from the checkboxes `kinds[]`; an empty token is none).
pub async fn add(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let added = match input::parse::<WebhookPut>(form.tree(&[])) {
        Ok(input) => ctx.state.send(AddWebhook(input.into())).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match added {
        Ok(()) => Ok(see_other(&format!("{}?added", paths::SETTINGS_ALERTS))),
        Err(e) => {
            let status = e.code.status();
            render(
                ctx,
                Shown {
                    form,
                    faults: Faults::of(&e),
                    ..Shown::default()
                },
                status,
            )
            .await
        }
    }
}

/// Removes webhook `{id}`.
pub async fn remove(ctx: Ctx) -> Page {
    let id = ctx.id()?;
    ctx.state
        .send(RemoveWebhook(id))
        .await
        .map_err(|e| ctx.fail(&e))?;
    Ok(see_other(&format!("{}?removed", paths::SETTINGS_ALERTS)))
}

/// Sends a test to webhook `{id}` and shows how it went.
pub async fn test_webhook(ctx: Ctx) -> Page {
    let id = ctx.id()?;
    let result = test_webhook_of(&ctx.state, id)
        .await
        .map_err(|e| ctx.fail(&e))?;
    let settings = ctx.query(GetAlertSettings).await?;
    let name = settings
        .webhooks
        .iter()
        .find(|w| w.id == id)
        .map(|w| w.name.clone())
        .unwrap_or_default();
    tested(ctx, name, result).await
}

/// Publishes a test on MQTT and shows how it went.
pub async fn test_mqtt(ctx: Ctx) -> Page {
    let result = test_mqtt_of(&ctx.state).await.map_err(|e| ctx.fail(&e))?;
    tested(ctx, "MQTT".to_string(), result).await
}

/// The page with how the test of channel `name` went.
async fn tested(ctx: Ctx, name: String, result: TestResult) -> Page {
    let shown = Shown {
        tested: Some((name, result)),
        ..Shown::default()
    };
    render(ctx, shown, StatusCode::OK).await
}

/// What a rendering shows beyond the stored settings.
#[derive(Default)]
struct Shown {
    /// The thresholds' form as submitted (else as stored).
    thresholds: Option<Submitted>,
    /// The new webhook's form as submitted.
    form: Submitted,
    faults: Faults,
    notice: Option<&'static str>,
    tested: Option<(String, TestResult)>,
}

async fn render(ctx: Ctx, shown: Shown, status: StatusCode) -> Page {
    let Shown {
        thresholds,
        form,
        faults,
        notice,
        tested,
    } = shown;
    let stored = ctx.query(GetAlertSettings).await?;
    let standing = ctx.query(GetStanding).await?;
    let thresholds = thresholds.unwrap_or_else(|| {
        let mut form = Submitted::default();
        form.set("integrationMinutes", stored.integration_minutes.to_string());
        form.set("backupDays", stored.backup_days.to_string());
        form
    });
    let mut standing: Vec<AlertDto> = standing.0.into_values().map(Into::into).collect();
    standing.sort_by(|a, b| a.since.cmp(&b.since));
    let page = AlertsPage {
        settings: AlertSettingsDto::of(&ctx.state, stored),
        chrome: ctx.chrome,
        standing,
        thresholds,
        form,
        faults,
        notice,
        tested,
    };
    Ok(html(status, page.render()))
}
