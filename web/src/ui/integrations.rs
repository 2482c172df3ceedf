//! Settings › Integrations: the spool manager's and the printer fleet's switch, URL and
//! credential. A credential is never shown: an empty field keeps it, a checkbox removes it.

use super::Chrome;
use super::forms::{Faults, Submitted};
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use super::peer_state::{Found, PeerState};
use crate::error::ApiError;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::integrations::settings::{
    GetIntegrations, InForce, Peer, PeerChange, PeerUrl, Secret, UpdateIntegrations,
};
use askama::Template;

/// One integration's part of the form.
struct PeerForm {
    key: &'static str,
    title: &'static str,
    url_field: String,
    credential_field: String,
    credential_label: &'static str,
    enabled: bool,
    url: String,
    configured: bool,
    /// Whether the peer answers now, or why not (none while switched off).
    state: Option<PeerState>,
}

#[derive(Template)]
#[template(path = "integrations.html")]
struct IntegrationsPage {
    chrome: Chrome,
    peers: Vec<PeerForm>,
    faults: Faults,
    saved: bool,
}

/// The integrations' form fields: their key and credential field.
const PEERS: [(&str, &str, &str); 2] = [
    ("spoolmgr", "authorization", "integrations.authorization"),
    ("printfleet", "apiKey", "integrations.apiKey"),
];

fn peer_form(
    (key, credential, label): (&'static str, &str, &'static str),
    peer: &Peer,
    state: Option<PeerState>,
) -> PeerForm {
    PeerForm {
        key,
        title: if key == "spoolmgr" {
            "integrations.spoolmgr"
        } else {
            "integrations.printfleet"
        },
        url_field: format!("{key}.url"),
        credential_field: format!("{key}.{credential}"),
        credential_label: label,
        enabled: peer.enabled,
        url: peer
            .url
            .as_ref()
            .map(|u| u.as_str().to_string())
            .unwrap_or_default(),
        configured: peer.credential.is_some(),
        state,
    }
}

/// Each switched-on peer's state, both asked at once (each call is bounded by the peers'
/// timeout): so a saved address that cannot be reached says so at once.
async fn states(ctx: &Ctx, in_force: &InForce) -> (Option<PeerState>, Option<PeerState>) {
    let t = &ctx.chrome.t;
    let url = |peer: &Peer| {
        peer.url
            .as_ref()
            .map(|u| u.as_str().to_string())
            .unwrap_or_default()
    };
    let (spoolmgr, printfleet) =
        futures_util::future::join(ctx.state.spoolmgr.status(), ctx.state.printfleet.status())
            .await;
    let spoolmgr = spoolmgr.ok().map(|found| {
        let state = Found::of(found.version.as_ref(), found.failure.as_ref());
        PeerState::of(t, "spoolmgr", "Spoolman", &url(&in_force.spoolmgr), state)
    });
    let printfleet = printfleet.ok().map(|found| {
        let state = Found::of(found.version.as_ref(), found.failure.as_ref());
        PeerState::of(
            t,
            "printfleet",
            "Bambuddy",
            &url(&in_force.printfleet),
            state,
        )
    });
    (spoolmgr, printfleet)
}

async fn render(
    ctx: Ctx,
    in_force: &InForce,
    faults: Faults,
    saved: bool,
    status: StatusCode,
) -> Page {
    let (spoolmgr, printfleet) = states(&ctx, in_force).await;
    let page = IntegrationsPage {
        peers: vec![
            peer_form(PEERS[0], &in_force.spoolmgr, spoolmgr),
            peer_form(PEERS[1], &in_force.printfleet, printfleet),
        ],
        faults,
        saved,
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

/// `GET /settings/integrations`.
pub async fn show(ctx: Ctx) -> Page {
    let in_force = ctx
        .query(GetIntegrations(ctx.state.config.integrations.clone()))
        .await?;
    let saved = ctx.flagged("saved");
    render(ctx, &in_force, Faults::default(), saved, StatusCode::OK).await
}

/// The change of integration `key` in `form`: its switch, its URL (empty: none) and its
/// credential (empty: kept; the remove box: removed).
///
/// Errors: `errors.invalidUrl` at `<key>.url`.
fn change(
    form: &Submitted,
    (key, credential, _): (&str, &str, &str),
) -> Result<PeerChange, ApiError> {
    let url = form.get(&format!("{key}.url")).trim();
    let url = match url {
        "" => None,
        text => Some(
            PeerUrl::parse(text).map_err(|fault| ApiError::field(format!("{key}.url"), fault))?,
        ),
    };
    let secret = Secret::new(form.get(&format!("{key}.{credential}")));
    let credential = match (secret, form.checked(&format!("{key}.removeCredential"))) {
        (Some(secret), _) => Some(Some(secret)),
        (None, true) => Some(None),
        (None, false) => None,
    };
    Ok(PeerChange {
        enabled: form.checked(&format!("{key}.enabled")),
        url,
        credential,
    })
}

/// `POST /settings/integrations`.
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let defaults = ctx.state.config.integrations.clone();
    let command = change(&form, PEERS[0]).and_then(|spoolmgr| {
        Ok(UpdateIntegrations {
            spoolmgr: Some(spoolmgr),
            printfleet: Some(change(&form, PEERS[1])?),
            defaults: defaults.clone(),
        })
    });
    let result = match command {
        Ok(command) => ctx.state.send(command).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(see_other(&format!(
            "{}?saved",
            paths::SETTINGS_INTEGRATIONS
        ))),
        Err(e) => {
            let in_force = ctx.query(GetIntegrations(defaults)).await?;
            render(ctx, &in_force, Faults::of(&e), false, e.code.status()).await
        }
    }
}
