//! The instance settings: one record.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Instance-wide settings, written by setup and `PATCH /api/settings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// ISO 4217 code of the instance currency (`EUR`); every money value is in it.
    pub currency: String,
    /// Locale for accounts without a preference (`en-US` or `de-DE`).
    pub default_language: String,
    /// Electricity price in currency per kWh.
    #[serde(with = "rust_decimal::serde::str")]
    pub electricity_price: Decimal,
    /// Feature flag: print series routes and UI.
    pub print_series_enabled: bool,
    /// Feature flag: spools, stock ledger and spool-manager integration.
    pub spool_management_enabled: bool,
}
