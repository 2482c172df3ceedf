//! Instance settings and feature flags as the rules read them: the settings, and the feature
//! switches routes need. Changing them (which may open spools) is [`crate::setup`].

use crate::command::{Query, Snapshot};
use crate::{Error, Result};
use storage::records::Settings;
use storage::repo::{self, Tx};

/// The settings. Errors: [`Error::NotFound`] before setup.
pub fn get(tx: &impl Tx) -> Result<Settings> {
    repo::settings(tx)?.ok_or(Error::NotFound)
}

/// Refuses routes that need spool management while it is off.
/// Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`] before setup.
pub fn require_spool_management(tx: &impl Tx) -> Result<()> {
    match repo::settings(tx)? {
        None => Err(Error::NotFound),
        Some(s) if s.spool_management_enabled => Ok(()),
        Some(_) => Err(Error::SpoolManagementDisabled),
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
