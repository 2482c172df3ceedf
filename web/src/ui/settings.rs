//! Settings: the account's language, and the instance's currency, default language,
//! electricity price and feature flags.

use super::forms::{Faults, Field, Submitted};
use super::page::{Chrome, Ctx, Page, html, see_other};
use super::paths;
use crate::api::auth::{PreferencesInput, save_locale};
use crate::api::settings::{FeaturesPatch, SettingsPatch};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::scrape::MetricsTokenSet;
use actors::scrape::SetMetricsToken;
use actors::settings::GetSettings;
use actors::setup::{UpdateFeatures, UpdateSettings};
use askama::Template;

/// The instance settings form, named as the API's `SettingsPatch`.
const SETTINGS_FIELDS: [Field; 4] = [
    Field::Text("currency"),
    Field::Text("defaultLanguage"),
    Field::Text("electricityPrice"),
    Field::Check("spoolManagementEnabled"),
];

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsPage {
    chrome: Chrome,
    form: Submitted,
    faults: Faults,
    saved: bool,
    /// Whether a metrics token is set.
    metrics_token: bool,
}

/// Renders the settings page (`?saved` after a successful save).
pub async fn show(ctx: Ctx) -> Page {
    show_with(ctx, Faults::default(), StatusCode::OK).await
}

/// The settings page as stored, with `faults` (of a form other than the settings') shown.
async fn show_with(ctx: Ctx, faults: Faults, status: StatusCode) -> Page {
    let settings = ctx.query(GetSettings).await?;
    let mut form = Submitted::default();
    for (name, value) in [
        ("currency", settings.currency.clone()),
        ("defaultLanguage", settings.default_language.clone()),
        (
            "electricityPrice",
            settings.electricity_price.normalize().to_string(),
        ),
    ] {
        form.set(name, value);
    }
    if settings.spool_management_enabled {
        form.set("spoolManagementEnabled", "on");
    }
    let saved = ctx.flagged("saved");
    render(ctx, form, faults, saved, status).await
}

async fn render(
    ctx: Ctx,
    form: Submitted,
    faults: Faults,
    saved: bool,
    status: StatusCode,
) -> Page {
    let metrics_token = ctx.query(MetricsTokenSet).await?;
    let page = SettingsPage {
        chrome: ctx.chrome,
        form,
        faults,
        saved,
        metrics_token,
    };
    Ok(html(status, page.render()))
}

/// The settings page after a save.
fn saved() -> HttpResponse {
    see_other(&format!("{}?saved", paths::SETTINGS))
}

/// Saves the instance settings.
pub async fn save_settings(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let outcome = match ctx.typed(|| form.input::<SettingsPatch>(&SETTINGS_FIELDS)) {
        Ok(input) => ctx.state.send(UpdateSettings::from(input)).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(_) => Ok(saved()),
        Err(e) => render(ctx, form, Faults::of(&e), false, e.code.status()).await,
    }
}

/// Sets the metrics token (the form's `token`), or removes it (its `remove` button). A refused
/// token shows the settings page with the fault at the token's field.
pub async fn metrics_token(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let token = (!form.checked("remove")).then(|| form.get("token").to_owned());
    match ctx.state.send(SetMetricsToken(token)).await {
        Ok(_) => Ok(saved()),
        Err(e) => {
            let faults = Faults::of(&e);
            show_with(ctx, faults, e.code.status()).await
        }
    }
}

/// Sets the account's language and returns to the settings page.
pub async fn language(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let input = form
        .input::<PreferencesInput>(&[Field::Text("locale")])
        .map_err(|e| ctx.fail(&e))?;
    save_locale(&ctx.state, &ctx.user, input)
        .await
        .map_err(|e| ctx.fail(&e))?;
    Ok(saved())
}

/// Sets the print series flag (the form's `printSeriesEnabled` checkbox).
pub async fn features(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let patch = FeaturesPatch {
        print_series_enabled: Some(form.checked("printSeriesEnabled")),
        spool_management_enabled: None,
    };
    let command = UpdateFeatures::from(patch);
    ctx.state.send(command).await.map_err(|e| ctx.fail(&e))?;
    Ok(saved())
}
