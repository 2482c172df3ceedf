//! Backups as the rules see them: when the service last handed one out. The copy itself is the
//! store's ([`storage::Store::backup`]): one read transaction, so writers never wait for it.

pub mod nightly;
pub mod rotation;

use crate::Result;
use crate::command::SettingsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::txn::Txn;
use std::fs::File;
use std::path::PathBuf;
use storage::Timestamp;
use storage::backup;
use storage::repo;

/// Records that a backup taken at `at` was handed out (shown on the settings' Backup page).
#[derive(Debug, Clone, Copy)]
pub struct RecordBackup {
    /// When the backup's snapshot was taken.
    pub at: Timestamp,
}

impl Command for RecordBackup {
    type Writer = SettingsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        repo::set_last_backup(txn, self.at)?;
        Ok(())
    }
}

/// Records that the store was just restored from the backup `file` (its name): run by
/// `printcost restore` on the restored file, so the journal says when and from what.
#[derive(Debug, Clone)]
pub struct RecordRestore {
    /// When.
    pub at: Timestamp,
    /// The backup's file name.
    pub file: String,
}

impl Command for RecordRestore {
    type Writer = SettingsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        repo::set_last_restore(txn, self.at, &self.file)?;
        Ok(())
    }
}

/// A backup of the snapshot the query runs in, as an unnamed temporary file in `dir` (the store's
/// directory), rewound ([`storage::backup::to_temp_file`]). Writers go on while it is copied.
#[derive(Debug, Clone)]
pub struct TakeBackup {
    /// Where the temporary file goes.
    pub dir: PathBuf,
}

impl Query for TakeBackup {
    type Answer = File;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<File> {
        Ok(backup::to_temp_file(snapshot.txn, &self.dir)?)
    }
}

/// When the service last handed out a backup; `None` before the first.
#[derive(Debug, Clone, Copy)]
pub struct LastBackup;

impl Query for LastBackup {
    type Answer = Option<Timestamp>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Option<Timestamp>> {
        Ok(repo::last_backup(snapshot)?)
    }
}

/// `at` as the backup files' time stamp, `YYYYMMDD-HHMMSS` in UTC (`printcost-<stamp>.redb`,
/// `printcost.redb.before-restore-<stamp>`).
pub fn stamp(at: Timestamp) -> String {
    jiff::Timestamp::from_second(at.0)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .strftime("%Y%m%d-%H%M%S")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stamp_is_utc_to_the_second() {
        // 2026-11-24T08:05:09Z
        assert_eq!(stamp(Timestamp(1_795_507_509)), "20261124-080509");
    }
}
