//! Setup and changes of the settings: first-run setup orchestrates the first account, the
//! settings, its session and the demo data, once, in one transaction; a change of the settings
//! or feature flags that switches spool management on opens the spools it needs.

use crate::accounts::{self, NewAccount};
use crate::command::SettingsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::integrations::settings as integration_settings;
use crate::txn::Txn;
use crate::values::{Amount, Currency, Locale};
use crate::{Error, Result, demo, ledger, settings};
use storage::records::{Account, Settings};
use storage::repo;
use storage::{Timestamp, tables};

/// First-run setup input (`POST /api/auth/setup`).
#[derive(Debug, Clone)]
pub struct Setup {
    /// The first account; its locale also becomes the instance's default language.
    pub account: NewAccount,
    /// Instance currency.
    pub currency: Currency,
    /// Electricity price, currency per kWh.
    pub electricity_price: Amount,
    /// Also create realistic demo inventory.
    pub create_demo_data: bool,
}

/// Runs setup once: the first account, the settings (both feature flags on), a session under
/// `session_hash`, and the demo data if asked, all in the caller's transaction.
///
/// Errors: [`Error::SetupCompleted`] once any account exists.
pub fn setup(
    txn: &Txn,
    input: &Setup,
    session_hash: [u8; 32],
    session_ttl_seconds: i64,
    now: Timestamp,
) -> Result<Account> {
    if accounts::initialized(txn)? {
        return Err(Error::SetupCompleted);
    }
    let account = accounts::create(txn, &input.account, now)?;
    repo::put_settings(
        txn,
        &Settings {
            currency: input.currency.get().clone(),
            default_language: input.account.locale.get().clone(),
            electricity_price: *input.electricity_price.get(),
            print_series_enabled: true,
            spool_management_enabled: true,
        },
    )?;
    accounts::open_session(txn, account.id, session_hash, now, session_ttl_seconds)?;
    if input.create_demo_data {
        demo::create(txn, now)?;
    }
    Ok(account)
}

/// Runs first-run setup ([`setup`]); replies with the new account. The demo prints it writes
/// reach the print projection like any other print write.
///
/// Errors: [`Error::SetupCompleted`] once any account exists; [`Error::Duplicate`].
#[derive(Debug, Clone)]
pub struct RunSetup {
    /// What to set up.
    pub setup: Setup,
    /// The store key of the new account's first session token.
    pub session_hash: [u8; 32],
    /// Session lifetime, seconds.
    pub session_ttl_seconds: i64,
}

impl Command for RunSetup {
    type Writer = SettingsWriter;
    type Reply = Account;

    fn apply(&mut self, txn: &Txn) -> Result<Account> {
        setup(
            txn,
            &self.setup,
            self.session_hash,
            self.session_ttl_seconds,
            Timestamp::now(),
        )
    }
}

/// True once setup has run (the first account exists).
#[derive(Debug, Clone, Copy)]
pub struct Initialized;

impl Query for Initialized {
    type Answer = bool;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<bool> {
        accounts::initialized(snapshot)
    }
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
    let mut settings = settings::get(txn)?;
    if settings.currency != *input.currency.get() && !repo::is_empty(txn, tables::PRINTS)? {
        return Err(Error::CurrencyLocked);
    }
    settings.currency = input.currency.get().clone();
    settings.default_language = input.default_language.get().clone();
    settings.electricity_price = *input.electricity_price.get();
    set_spool_management(txn, &mut settings, input.spool_management_enabled)?;
    Ok(settings)
}

/// Stores `settings` with spool management `on`, and what follows a switch: on opens a spool for
/// every active filament without one ([`ledger::stock_all`]); off switches the spool manager
/// off, keeping its URL and credential.
fn set_spool_management(txn: &Txn, settings: &mut Settings, on: bool) -> Result<()> {
    let was = settings.spool_management_enabled;
    settings.spool_management_enabled = on;
    repo::put_settings(txn, settings)?;
    match (was, on) {
        (false, true) => {
            ledger::stock_all(txn, Timestamp::now())?;
        }
        (true, false) => integration_settings::switch_spoolmgr_off(txn)?,
        _ => {}
    }
    Ok(())
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
    let mut settings = settings::get(txn)?;
    if let Some(on) = input.print_series_enabled {
        settings.print_series_enabled = on;
    }
    let on = input
        .spool_management_enabled
        .unwrap_or(settings.spool_management_enabled);
    set_spool_management(txn, &mut settings, on)?;
    Ok(settings)
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
