//! First-run setup: orchestrates the first account, the settings, its session and the demo
//! data, once, in one transaction.

use crate::accounts::{self, NewAccount};
use crate::command::{Command, Query, SettingsWriter, Snapshot};
use crate::txn::Txn;
use crate::values::{Amount, Currency};
use crate::{Error, Result, demo};
use storage::Timestamp;
use storage::records::{Account, Settings};
use storage::repo;

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
