//! The integrations' settings: switched on or off, the peer's URL and its credential (the
//! spool manager's `Authorization` header value, the printer fleet's API key).
//!
//! Until a setting is changed, the environment's default applies (`PRINTCOST_SPOOLMGR_URL`,
//! `PRINTCOST_SPOOLMGR_AUTHORIZATION`, `PRINTCOST_PRINTFLEET_URL`,
//! `PRINTCOST_PRINTFLEET_API_KEY`). A credential is never answered, only whether one is
//! configured. Either integration may be switched on before its connection is complete. The
//! spool manager works on spools: it cannot be switched on while spool management is off, and
//! switching spool management off switches it off (its URL and credential stay; see
//! [`crate::setup`]).

use crate::command::SettingsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::txn::Txn;
use crate::{Error, Result, settings, values};
use deserr::{DeserializeError, Deserr, IntoValue, ValuePointerRef};
use std::fmt;
use storage::records::{Integrations, Override, PeerSettings};
use storage::repo::{self, Tx};

/// A credential: its text never appears in a `Debug` or log line.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `text` (trimmed); `None` when blank.
    pub fn new(text: &str) -> Option<Secret> {
        let text = text.trim();
        (!text.is_empty()).then(|| Secret(text.to_string()))
    }

    /// The credential, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// A peer's base URL: `http` or `https`, with a host, and no user info, query or fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerUrl(String);

/// A pattern for the URLs [`PeerUrl::parse`] takes: http(s), a host name or IPv4 address, an
/// optional port and path; no credentials, query or fragment.
const PEER_URL_PATTERN: &str = concat!(
    r"^https?://(",
    r"((25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])",
    r"|([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z]([a-z0-9-]*[a-z0-9])?",
    r")(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?",
    r"(/[A-Za-z0-9._~-]+)*/?$",
);

impl utoipa::PartialSchema for PeerUrl {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(PEER_URL_PATTERN))
            .into()
    }
}

impl utoipa::ToSchema for PeerUrl {}

impl<E: DeserializeError> Deserr<E> for PeerUrl {
    /// A URL from a JSON string. Errors: `errors.invalidUrl` ([`PeerUrl::parse`]).
    fn deserialize_from_value<V: IntoValue>(
        value: deserr::Value<V>,
        location: ValuePointerRef,
    ) -> std::result::Result<Self, E> {
        values::from_text(value, location, |text| {
            PeerUrl::parse(&text)
                .map_err(|key| format!("{key}: an http(s) URL without user, query or fragment"))
        })
    }
}

impl PeerUrl {
    /// Parses `text`. Errors: `errors.invalidUrl` (the key of a field error).
    pub fn parse(text: &str) -> std::result::Result<PeerUrl, &'static str> {
        let url = url::Url::parse(text.trim()).map_err(|_| "errors.invalidUrl")?;
        let plain = matches!(url.scheme(), "http" | "https")
            && url.host_str().is_some()
            && url.username().is_empty()
            && url.password().is_none()
            && url.query().is_none()
            && url.fragment().is_none();
        if !plain {
            return Err("errors.invalidUrl");
        }
        Ok(PeerUrl(url.as_str().trim_end_matches('/').to_string()))
    }

    /// The URL, without a trailing slash.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The environment's defaults of the integrations' URLs and credentials.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Defaults {
    /// `PRINTCOST_SPOOLMGR_URL`.
    pub spoolmgr_url: Option<PeerUrl>,
    /// `PRINTCOST_SPOOLMGR_AUTHORIZATION`: a whole header value (`Bearer …`).
    pub spoolmgr_authorization: Option<Secret>,
    /// `PRINTCOST_PRINTFLEET_URL`.
    pub printfleet_url: Option<PeerUrl>,
    /// `PRINTCOST_PRINTFLEET_API_KEY`.
    pub printfleet_api_key: Option<Secret>,
}

/// One integration as it is in force: the stored settings over the environment's defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Peer {
    /// Switched on (the spool manager only while spool management is on).
    pub enabled: bool,
    /// The peer's base URL.
    pub url: Option<PeerUrl>,
    /// The credential.
    pub credential: Option<Secret>,
}

/// Both integrations as they are in force.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InForce {
    /// The spool manager.
    pub spoolmgr: Peer,
    /// The printer-fleet manager.
    pub printfleet: Peer,
}

fn resolve<T>(
    stored: &Override,
    default: &Option<T>,
    parse: impl Fn(&str) -> Option<T>,
) -> Option<T>
where
    T: Clone,
{
    match stored {
        Override::Default => default.clone(),
        Override::Set(value) => parse(value),
        Override::Removed => None,
    }
}

fn peer(stored: &PeerSettings, url: &Option<PeerUrl>, credential: &Option<Secret>) -> Peer {
    Peer {
        enabled: stored.enabled,
        url: resolve(&stored.url, url, |u| PeerUrl::parse(u).ok()),
        credential: resolve(&stored.credential, credential, Secret::new),
    }
}

/// The integrations in force: stored settings over `defaults`.
/// Errors: the store cannot be read.
pub fn in_force(tx: &impl Tx, defaults: &Defaults) -> Result<InForce> {
    let stored = repo::integrations(tx)?;
    let spool_management = settings::get(tx).is_ok_and(|s| s.spool_management_enabled);
    let mut spoolmgr = peer(
        &stored.spoolmgr,
        &defaults.spoolmgr_url,
        &defaults.spoolmgr_authorization,
    );
    spoolmgr.enabled &= spool_management;
    Ok(InForce {
        spoolmgr,
        printfleet: peer(
            &stored.printfleet,
            &defaults.printfleet_url,
            &defaults.printfleet_api_key,
        ),
    })
}

/// A change of one integration's settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PeerChange {
    /// Switched on or off.
    pub enabled: bool,
    /// The URL (`None`: removed).
    pub url: Option<PeerUrl>,
    /// The credential: `None` keeps the stored one (or the environment's), `Some(None)`
    /// removes it, `Some(Some(_))` replaces it.
    pub credential: Option<Option<Secret>>,
}

impl PeerChange {
    fn apply(&self, stored: &mut PeerSettings) {
        stored.enabled = self.enabled;
        stored.url = match &self.url {
            Some(url) => Override::Set(url.as_str().to_string()),
            None => Override::Removed,
        };
        match &self.credential {
            None => {}
            Some(None) => stored.credential = Override::Removed,
            Some(Some(secret)) => stored.credential = Override::Set(secret.expose().to_string()),
        }
    }
}

/// Changes the integrations' settings (an omitted integration stays as it is); replies with
/// the integrations in force.
///
/// Errors: [`Error::SpoolManagementDisabled`] when the spool manager is switched on while spool
/// management is off; [`Error::NotFound`] before setup.
#[derive(Debug, Clone)]
pub struct UpdateIntegrations {
    /// The spool manager's change.
    pub spoolmgr: Option<PeerChange>,
    /// The printer fleet's change.
    pub printfleet: Option<PeerChange>,
    /// The environment's defaults, for the reply.
    pub defaults: Defaults,
}

impl Command for UpdateIntegrations {
    type Writer = SettingsWriter;
    type Reply = InForce;

    fn apply(&mut self, txn: &Txn) -> Result<InForce> {
        let spool_management = settings::get(txn)?.spool_management_enabled;
        let mut stored: Integrations = repo::integrations(txn)?;
        if let Some(change) = &self.spoolmgr {
            if change.enabled && !spool_management {
                return Err(Error::SpoolManagementDisabled);
            }
            change.apply(&mut stored.spoolmgr);
        }
        if let Some(change) = &self.printfleet {
            change.apply(&mut stored.printfleet);
        }
        repo::put_integrations(txn, &stored)?;
        in_force(txn, &self.defaults)
    }
}

/// Switches the spool manager off (spool management was switched off), keeping its URL and
/// credential. Errors: the store cannot be written.
pub fn switch_spoolmgr_off(txn: &Txn) -> Result<()> {
    let mut stored = repo::integrations(txn)?;
    if stored.spoolmgr.enabled {
        stored.spoolmgr.enabled = false;
        repo::put_integrations(txn, &stored)?;
    }
    Ok(())
}

/// One of the two integrations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integration {
    /// The spool manager (Spoolman).
    Spoolmgr,
    /// The printer-fleet manager (Bambuddy).
    Printfleet,
}

/// Refuses an action of `integration` unless it is switched on; every action of an integration,
/// remote or local only, checks this in its own transaction.
///
/// Errors: for the spool manager, [`Error::SpoolManagementDisabled`] while spool management is
/// off (the spec's code for every spool-manager route); then [`Error::IntegrationDisabled`]
/// while the integration is switched off.
pub fn require_enabled(tx: &impl Tx, integration: Integration) -> Result<()> {
    let stored = repo::integrations(tx)?;
    let enabled = match integration {
        Integration::Spoolmgr => {
            settings::require_spool_management(tx)?;
            stored.spoolmgr.enabled
        }
        Integration::Printfleet => stored.printfleet.enabled,
    };
    if enabled {
        Ok(())
    } else {
        Err(Error::IntegrationDisabled)
    }
}

/// The integration in force, once [`require_enabled`] let it act. Errors: as [`require_enabled`].
#[derive(Debug, Clone)]
pub struct EnabledPeer(pub Integration, pub Defaults);

impl Query for EnabledPeer {
    type Answer = Peer;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Peer> {
        require_enabled(snapshot, self.0)?;
        let in_force = in_force(snapshot, &self.1)?;
        Ok(match self.0 {
            Integration::Spoolmgr => in_force.spoolmgr,
            Integration::Printfleet => in_force.printfleet,
        })
    }
}

/// The integrations in force. Errors: the store cannot be read.
#[derive(Debug, Clone)]
pub struct GetIntegrations(pub Defaults);

impl Query for GetIntegrations {
    type Answer = InForce;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<InForce> {
        in_force(snapshot, &self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_plain_http_or_https() {
        let ok = PeerUrl::parse("http://spoolman.lan:7912/").unwrap();
        assert_eq!(ok.as_str(), "http://spoolman.lan:7912");
        assert!(PeerUrl::parse("https://fleet.example/api").is_ok());
        for bad in [
            "ftp://spoolman.lan",
            "http://user:pw@spoolman.lan",
            "http://spoolman.lan/?x=1",
            "http://spoolman.lan/#top",
            "spoolman.lan",
            "",
        ] {
            assert_eq!(PeerUrl::parse(bad), Err("errors.invalidUrl"), "{bad}");
        }
    }

    #[test]
    fn secrets_never_show_in_debug() {
        let secret = Secret::new(" Bearer s3cr3t ").unwrap();
        assert_eq!(secret.expose(), "Bearer s3cr3t");
        assert!(!format!("{secret:?} {:?}", Some(&secret)).contains("s3cr3t"));
        assert_eq!(Secret::new("  "), None);
    }

    #[test]
    fn stored_settings_override_the_environment() {
        let defaults = Defaults {
            spoolmgr_url: PeerUrl::parse("http://env.lan").ok(),
            spoolmgr_authorization: Secret::new("Bearer env"),
            ..Defaults::default()
        };
        let mut stored = PeerSettings::default();
        let untouched = peer(
            &stored,
            &defaults.spoolmgr_url,
            &defaults.spoolmgr_authorization,
        );
        assert_eq!(untouched.url, defaults.spoolmgr_url);
        assert_eq!(untouched.credential, defaults.spoolmgr_authorization);
        let change = PeerChange {
            enabled: true,
            url: PeerUrl::parse("http://mine.lan").ok(),
            credential: None,
        };
        change.apply(&mut stored);
        let kept = peer(
            &stored,
            &defaults.spoolmgr_url,
            &defaults.spoolmgr_authorization,
        );
        assert_eq!(kept.url.unwrap().as_str(), "http://mine.lan");
        assert_eq!(
            kept.credential, defaults.spoolmgr_authorization,
            "omitted keeps"
        );
        PeerChange {
            credential: Some(None),
            ..change
        }
        .apply(&mut stored);
        let removed = peer(
            &stored,
            &defaults.spoolmgr_url,
            &defaults.spoolmgr_authorization,
        );
        assert_eq!(
            removed.credential, None,
            "null removes, the default included"
        );
    }
}
