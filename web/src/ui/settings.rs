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
}

/// Renders the settings page (`?saved` after a successful save).
pub async fn show(ctx: Ctx) -> Page {
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
    let saved = ctx.req.query_string().contains("saved");
    Ok(render(ctx, form, Faults::default(), saved, StatusCode::OK))
}

fn render(
    ctx: Ctx,
    form: Submitted,
    faults: Faults,
    saved: bool,
    status: StatusCode,
) -> HttpResponse {
    let page = SettingsPage {
        chrome: ctx.chrome,
        form,
        faults,
        saved,
    };
    html(status, page.render())
}

/// The settings page after a save.
fn saved() -> HttpResponse {
    see_other(&format!("{}?saved", paths::SETTINGS))
}

/// Saves the instance settings.
pub async fn save_settings(ctx: Ctx, body: Bytes) -> HttpResponse {
    let form = Submitted::parse(&body);
    let outcome = match form.input::<SettingsPatch>(&SETTINGS_FIELDS) {
        Ok(input) => ctx.state.send(UpdateSettings::from(input)).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(_) => saved(),
        Err(e) => render(ctx, form, Faults::of(&e), false, e.code.status()),
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
