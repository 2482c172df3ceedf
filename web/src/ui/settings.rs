//! Settings: the account's language, and the instance's currency, default language,
//! electricity price and feature flags.

use super::forms::{Faults, Field, Submitted};
use super::page::{Chrome, error_page, html, see_other};
use super::paths;
use crate::api::auth::{PreferencesInput, save_locale};
use crate::api::settings::{SettingsPatch, save};
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
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
pub async fn show(
    state: Data<AppState>,
    req: HttpRequest,
    user: Option<CurrentUser>,
) -> HttpResponse {
    let Some(user) = user else {
        return see_other(paths::LOGIN);
    };
    let settings = match state.read(actors::settings::get).await {
        Ok(settings) => settings,
        Err(e) => {
            let chrome = Chrome::load(&state, Some(&user), paths::SETTINGS).await;
            return error_page(&req, &chrome, &e);
        }
    };
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
    let saved = req.query_string().contains("saved");
    render(
        &state,
        &user,
        form,
        Faults::default(),
        saved,
        StatusCode::OK,
    )
    .await
}

async fn render(
    state: &AppState,
    user: &CurrentUser,
    form: Submitted,
    faults: Faults,
    saved: bool,
    status: StatusCode,
) -> HttpResponse {
    let chrome = Chrome::load(state, Some(user), paths::SETTINGS).await;
    html(
        status,
        SettingsPage {
            chrome,
            form,
            faults,
            saved,
        }
        .render(),
    )
}

/// Saves the instance settings.
pub async fn save_settings(
    state: Data<AppState>,
    user: Option<CurrentUser>,
    body: Bytes,
) -> HttpResponse {
    let Some(user) = user else {
        return see_other(paths::LOGIN);
    };
    let form = Submitted::parse(&body);
    let outcome = match form.input::<SettingsPatch>(&SETTINGS_FIELDS) {
        Ok(input) => save(&state, input).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match outcome {
        Ok(()) => see_other(&format!("{}?saved", paths::SETTINGS)),
        Err(e) => {
            let status = e.code.status();
            render(&state, &user, form, Faults::of(&e), false, status).await
        }
    }
}

/// Sets the account's language and returns to the page it came from (or settings).
pub async fn language(
    state: Data<AppState>,
    req: HttpRequest,
    user: Option<CurrentUser>,
    body: Bytes,
) -> HttpResponse {
    let Some(user) = user else {
        return see_other(paths::LOGIN);
    };
    let form = Submitted::parse(&body);
    let saved = match form.input::<PreferencesInput>(&[Field::Text("locale")]) {
        Ok(input) => save_locale(&state, &user, input).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => see_other(&format!("{}?saved", paths::SETTINGS)),
        Err(e) => error_page(
            &req,
            &Chrome::load(&state, Some(&user), paths::SETTINGS).await,
            &e,
        ),
    }
}

/// Sets the print series flag (the form's `printSeriesEnabled` checkbox).
pub async fn features(ctx: super::page::Ctx, body: Bytes) -> HttpResponse {
    let form = Submitted::parse(&body);
    let patch = crate::api::settings::FeaturesPatch {
        print_series_enabled: Some(form.checked("printSeriesEnabled")),
        spool_management_enabled: None,
    };
    match crate::api::settings::save_features(&ctx.state, patch).await {
        Ok(_) => see_other(&format!("{}?saved", paths::SETTINGS)),
        Err(e) => ctx.fail(&e),
    }
}
