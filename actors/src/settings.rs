//! Instance settings and feature flags (first-run setup is [`crate::setup`]).

use crate::command::{Command, Query, SettingsWriter, Snapshot};
use crate::txn::Txn;
use crate::values::{Amount, Currency, Locale};
use crate::{Error, Result, ledger};
use storage::records::Settings;
use storage::repo::{self, Tx};
use storage::{Timestamp, tables};

/// The settings. Errors: [`Error::NotFound`] before setup.
pub fn get(tx: &impl Tx) -> Result<Settings> {
    repo::settings(tx)?.ok_or(Error::NotFound)
}

/// Full replacement of the settings (`PATCH /api/settings`).
#[derive(Debug, Clone)]
pub struct SettingsInput {
    /// Instance currency.
    pub currency: Currency,
    /// Default language for accounts without a preference.
    pub default_language: Locale,
    /// Electricity price, currency per kWh.
    pub electricity_price: Amount,
    /// Spool management flag (also settable at `/api/settings/features`).
    pub spool_management_enabled: bool,
}

/// Replaces the settings. Switching spool management on opens a spool for every active filament
/// without one ([`ledger::stock_all`]), in the same transaction.
///
/// Errors: [`Error::CurrencyLocked`] when the currency changes while any print exists (every
/// stored amount is in the old currency); [`Error::NotFound`] before setup.
pub fn update(txn: &Txn, input: &SettingsInput) -> Result<Settings> {
    let mut settings = get(txn)?;
    if settings.currency != *input.currency.get() && !repo::is_empty(txn, tables::PRINTS)? {
        return Err(Error::CurrencyLocked);
    }
    settings.currency = input.currency.get().clone();
    settings.default_language = input.default_language.get().clone();
    settings.electricity_price = *input.electricity_price.get();
    let switched_on = input.spool_management_enabled && !settings.spool_management_enabled;
    settings.spool_management_enabled = input.spool_management_enabled;
    repo::put_settings(txn, &settings)?;
    if switched_on {
        ledger::stock_all(txn, Timestamp::now())?;
    }
    Ok(settings)
}

/// A change of feature flags; absent flags keep their value.
#[derive(Debug, Clone, Copy, Default)]
pub struct FeaturesInput {
    /// Print series on or off.
    pub print_series_enabled: Option<bool>,
    /// Spool management on or off.
    pub spool_management_enabled: Option<bool>,
}

/// Updates the feature flags. Errors: [`Error::NotFound`] before setup.
pub fn update_features(txn: &Txn, input: FeaturesInput) -> Result<Settings> {
    let mut settings = get(txn)?;
    if let Some(on) = input.print_series_enabled {
        settings.print_series_enabled = on;
    }
    let switched_on =
        input.spool_management_enabled == Some(true) && !settings.spool_management_enabled;
    if let Some(on) = input.spool_management_enabled {
        settings.spool_management_enabled = on;
    }
    repo::put_settings(txn, &settings)?;
    if switched_on {
        ledger::stock_all(txn, Timestamp::now())?;
    }
    Ok(settings)
}

/// Refuses routes that need spool management while it is off.
/// Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`] before setup.
pub fn require_spool_management(tx: &impl Tx) -> Result<()> {
    if get(tx)?.spool_management_enabled {
        Ok(())
    } else {
        Err(Error::SpoolManagementDisabled)
    }
}

/// Replaces the settings; replies with them. Errors: as [`update`].
#[derive(Debug, Clone)]
pub struct UpdateSettings(pub SettingsInput);

impl Command for UpdateSettings {
    type Writer = SettingsWriter;
    type Reply = Settings;

    fn apply(&mut self, txn: &Txn) -> Result<Settings> {
        update(txn, &self.0)
    }
}

/// Changes the feature flags it names; replies with the settings. Errors: as
/// [`update_features`].
#[derive(Debug, Clone, Copy)]
pub struct UpdateFeatures(pub FeaturesInput);

impl Command for UpdateFeatures {
    type Writer = SettingsWriter;
    type Reply = Settings;

    fn apply(&mut self, txn: &Txn) -> Result<Settings> {
        update_features(txn, self.0)
    }
}

/// The settings and feature flags. Errors: [`Error::NotFound`] before setup.
#[derive(Debug, Clone, Copy)]
pub struct GetSettings;

impl Query for GetSettings {
    type Answer = Settings;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Settings> {
        get(snapshot)
    }
}
