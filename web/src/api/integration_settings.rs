//! `GET/PATCH /api/settings/integrations`: the spool manager's and the printer fleet's
//! enablement, URL and whether a credential is configured. Credentials are write-only.

use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::web::{Data, Json};
use actix_web::{get, patch};
use actors::integrations::settings::{
    GetIntegrations, InForce, Peer, PeerChange, PeerUrl, Secret, UpdateIntegrations,
};
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// Registers the integration settings routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_integrations).add(patch_integrations);
}

/// The spool manager's settings in force.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpoolmgrSettings {
    /// Switched on (never while spool management is off).
    pub enabled: bool,
    /// The spool manager's base URL.
    pub url: Option<String>,
    /// An `Authorization` header value is configured (it is never returned).
    pub authorization_configured: bool,
}

/// The printer fleet's settings in force.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrintfleetSettings {
    /// Switched on.
    pub enabled: bool,
    /// The printer-fleet manager's base URL.
    pub url: Option<String>,
    /// An API key is configured (it is never returned).
    pub api_key_configured: bool,
}

/// Both integrations' settings in force: stored values over the environment's defaults.
#[derive(Debug, Serialize, ToSchema)]
pub struct IntegrationSettings {
    /// The spool manager (Spoolman).
    pub spoolmgr: SpoolmgrSettings,
    /// The printer-fleet manager (Bambuddy).
    pub printfleet: PrintfleetSettings,
}

fn url(peer: &Peer) -> Option<String> {
    peer.url.as_ref().map(|u| u.as_str().to_string())
}

impl From<InForce> for IntegrationSettings {
    fn from(f: InForce) -> Self {
        IntegrationSettings {
            spoolmgr: SpoolmgrSettings {
                enabled: f.spoolmgr.enabled,
                url: url(&f.spoolmgr),
                authorization_configured: f.spoolmgr.credential.is_some(),
            },
            printfleet: PrintfleetSettings {
                enabled: f.printfleet.enabled,
                url: url(&f.printfleet),
                api_key_configured: f.printfleet.credential.is_some(),
            },
        }
    }
}

/// A credential field: omitted keeps it (the field's default, `None`), null removes it
/// (`Some(None)`), a text replaces it.
fn credential(text: Option<String>) -> Option<Option<Secret>> {
    Some(text.and_then(|text| Secret::new(&text)))
}

/// A change of the spool manager's settings.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SpoolmgrChange {
    /// Switch on or off (on needs spool management: 409 SPOOL_MANAGEMENT_DISABLED).
    pub enabled: bool,
    /// The base URL, http(s), or null.
    #[schema(required = true)]
    pub url: Option<PeerUrl>,
    /// The whole `Authorization` header value (`Bearer …`): omit to keep, null to remove.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    #[deserr(default, from(Option<String>) = credential)]
    pub authorization: Option<Option<Secret>>,
}

/// A change of the printer fleet's settings.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PrintfleetChange {
    /// Switch on or off.
    pub enabled: bool,
    /// The base URL, http(s), or null.
    #[schema(required = true)]
    pub url: Option<PeerUrl>,
    /// The API key: omit to keep, null to remove.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    #[deserr(default, from(Option<String>) = credential)]
    pub api_key: Option<Option<Secret>>,
}

/// A change of the integrations' settings; an omitted integration stays as it is.
#[derive(Debug, Deserr, ToSchema)]
#[serde(deny_unknown_fields)]
#[deserr(error = Faults, deny_unknown_fields)]
pub struct IntegrationSettingsPatch {
    /// The spool manager.
    #[deserr(default)]
    pub spoolmgr: Option<SpoolmgrChange>,
    /// The printer-fleet manager.
    #[deserr(default)]
    pub printfleet: Option<PrintfleetChange>,
}

impl IntegrationSettingsPatch {
    /// The command, with the environment's defaults of `state`.
    pub fn command(self, state: &AppState) -> UpdateIntegrations {
        UpdateIntegrations {
            spoolmgr: self.spoolmgr.map(|c| PeerChange {
                enabled: c.enabled,
                url: c.url,
                credential: c.authorization,
            }),
            printfleet: self.printfleet.map(|c| PeerChange {
                enabled: c.enabled,
                url: c.url,
                credential: c.api_key,
            }),
            defaults: state.config.integrations.clone(),
        }
    }
}

/// The integrations' settings in force; credentials are never returned.
#[utoipa::path(tag = "settings", responses((status = 200, body = IntegrationSettings), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings/integrations")]
pub async fn get_integrations(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<IntegrationSettings>, ApiError> {
    let query = GetIntegrations(state.config.integrations.clone());
    Ok(Json(state.query(query).await?.into()))
}

/// Changes the integrations' settings: enablement and URL explicitly, a credential replaced
/// (text), removed (null) or kept (omitted).
#[utoipa::path(
    tag = "settings",
    request_body = IntegrationSettingsPatch,
    responses(
        (status = 200, body = IntegrationSettings),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "SPOOL_MANAGEMENT_DISABLED: the spool manager needs spool management", body = ErrorBody),
        (status = 422, description = "An invalid URL, a missing field", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/settings/integrations")]
pub async fn patch_integrations(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<IntegrationSettingsPatch>,
) -> Result<Json<IntegrationSettings>, ApiError> {
    let command = input.0.command(&state);
    Ok(Json(state.send(command).await?.into()))
}
