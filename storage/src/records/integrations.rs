//! The settings of the two integrations (spool manager, printer fleet): one record.

use serde::{Deserialize, Serialize};

/// A setting that falls back to the environment until it is set or removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Override {
    /// Never changed: the environment default applies.
    #[default]
    Default,
    /// Set to this value.
    Set(String),
    /// Removed: no value, whatever the environment says.
    Removed,
}

/// The stored settings of one integration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerSettings {
    /// Switched on.
    pub enabled: bool,
    /// The peer's base URL (`http://spoolman.lan:7912`).
    pub url: Override,
    /// The credential: the spool manager's whole `Authorization` header value, the printer
    /// fleet's API key. Never returned by the API.
    pub credential: Override,
}

/// The settings of both integrations, stored beside the instance settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Integrations {
    /// The spool manager (Spoolman).
    pub spoolmgr: PeerSettings,
    /// The printer-fleet manager (Bambuddy).
    pub printfleet: PeerSettings,
}
