//! `GET/PATCH /api/settings` and `GET/PATCH /api/settings/features`.

use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::dec;
use actix_web::web::{Data, Json};
use actix_web::{get, patch};
use actors::settings::GetSettings;
use actors::setup::{FeaturesInput, SettingsInput, UpdateFeatures, UpdateSettings};
use actors::values::{Amount, Currency, Locale};
use deserr::Deserr;
use serde::Serialize;
use storage::records;
use utoipa::ToSchema;

/// Registers the settings routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_settings)
        .add(patch_settings)
        .add(get_features)
        .add(patch_features);
}

/// Instance settings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// ISO 4217 code.
    pub currency: String,
    /// `en-US` or `de-DE`.
    pub default_language: String,
    /// Currency per kWh.
    pub electricity_price: String,
    /// Spool management flag.
    pub spool_management_enabled: bool,
}

impl From<records::Settings> for Settings {
    fn from(s: records::Settings) -> Self {
        Settings {
            currency: s.currency,
            default_language: s.default_language,
            electricity_price: dec(s.electricity_price),
            spool_management_enabled: s.spool_management_enabled,
        }
    }
}

/// Settings input: every field is required (full replacement).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SettingsPatch {
    /// ISO 4217 code; a change is refused (409 CURRENCY_LOCKED) once any print exists.
    #[schema(example = "EUR")]
    pub currency: Currency,
    /// `en-US` or `de-DE`.
    #[schema(example = "en-US")]
    pub default_language: Locale,
    /// Currency per kWh, decimal string.
    #[schema(example = "0.32")]
    pub electricity_price: Amount,
    /// Spool management flag.
    pub spool_management_enabled: bool,
}

/// Feature flags.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Features {
    /// Print series routes and UI.
    pub print_series_enabled: bool,
    /// Spools, stock ledger and spool-manager integration.
    pub spool_management_enabled: bool,
}

impl From<records::Settings> for Features {
    fn from(s: records::Settings) -> Self {
        Features {
            print_series_enabled: s.print_series_enabled,
            spool_management_enabled: s.spool_management_enabled,
        }
    }
}

/// Feature flag change; absent flags keep their value.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct FeaturesPatch {
    /// Print series on or off.
    #[deserr(default)]
    pub print_series_enabled: Option<bool>,
    /// Spool management on or off.
    #[deserr(default)]
    pub spool_management_enabled: Option<bool>,
}

/// The settings.
#[utoipa::path(tag = "settings", responses((status = 200, body = Settings), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings")]
pub async fn get_settings(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Settings>, ApiError> {
    Ok(Json(state.query(GetSettings).await?.into()))
}

/// Replaces the settings.
#[utoipa::path(
    tag = "settings",
    request_body = SettingsPatch,
    responses(
        (status = 200, body = Settings),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "CURRENCY_LOCKED", body = ErrorBody),
        (status = 422, body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/settings")]
pub async fn patch_settings(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<SettingsPatch>,
) -> Result<Json<Settings>, ApiError> {
    Ok(Json(
        state.send(UpdateSettings::from(input.0)).await?.into(),
    ))
}

impl From<SettingsPatch> for UpdateSettings {
    fn from(p: SettingsPatch) -> UpdateSettings {
        UpdateSettings(SettingsInput {
            currency: p.currency,
            default_language: p.default_language,
            electricity_price: p.electricity_price,
            spool_management_enabled: p.spool_management_enabled,
        })
    }
}

/// The feature flags.
#[utoipa::path(tag = "settings", responses((status = 200, body = Features), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings/features")]
pub async fn get_features(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Features>, ApiError> {
    Ok(Json(state.query(GetSettings).await?.into()))
}

/// Changes feature flags.
#[utoipa::path(
    tag = "settings",
    request_body = FeaturesPatch,
    responses((status = 200, body = Features), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 422, body = ErrorBody)),
    security(("session" = []))
)]
#[patch("/settings/features")]
pub async fn patch_features(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<FeaturesPatch>,
) -> Result<Json<Features>, ApiError> {
    Ok(Json(
        state.send(UpdateFeatures::from(input.0)).await?.into(),
    ))
}

impl From<FeaturesPatch> for UpdateFeatures {
    fn from(patch: FeaturesPatch) -> UpdateFeatures {
        UpdateFeatures(FeaturesInput {
            print_series_enabled: patch.print_series_enabled,
            spool_management_enabled: patch.spool_management_enabled,
        })
    }
}
