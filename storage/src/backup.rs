//! Backups: one snapshot of the store copied into a new database file, and restoring such a file
//! in place of the store.
//!
//! A backup copies every table (named once, in [`tables::visit_all`]) from one read transaction,
//! so it holds exactly the commits acknowledged before that transaction began and nothing
//! half-written; writers go on meanwhile (redb readers never block the writer). The copy is a
//! complete, cleanly closed redb file of the same schema version, so a backup is restored by
//! putting it where the store lives.
//!
//! A backup leaves out the integrations' credentials (the spool manager's `Authorization` value,
//! the printer fleet's API key): a backup file travels (a download, a USB stick, another box),
//! and nothing in it is kept in clear text that would let its holder act on the shop's peers.
//! Their URLs and switches stay; `meta.credentials_left_out` counts what was left out, and
//! [`restore`] reports it so that they are entered again (or the environment's defaults apply).

use crate::old_journal;
use crate::records::{AlertSettings, Integrations, Override};
use crate::repo;
use crate::schema;
use crate::store::side_builder;
use crate::{Error, Result, SCHEMA_VERSION, Store, StoreOptions, decode, encode, tables};
use redb::backends::FileBackend;
use redb::{
    MultimapTableDefinition, ReadTransaction, ReadableDatabase, ReadableMultimapTable,
    ReadableTable, ReadableTableMetadata, TableDefinition, TableHandle, WriteTransaction,
};
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

impl Store {
    /// A backup of the last commit ([`to_temp_file`] in the store's directory).
    ///
    /// Errors: as [`to_temp_file`].
    pub fn backup(&self) -> Result<File> {
        to_temp_file(
            &self.begin_read()?,
            &self.dir().unwrap_or_else(std::env::temp_dir),
        )
    }

    /// Writes a backup of the last commit to `path`, through `<path>.partial` renamed into place
    /// once synced, so `path` is either absent or complete.
    ///
    /// Errors: as [`Store::backup`]; `path` cannot be written.
    pub fn backup_to(&self, path: &Path) -> Result<()> {
        write_to(&self.begin_read()?, path)
    }

    /// Writes a backup of the last commit to `path` as [`Store::backup_to`] does, but checks it
    /// before it takes the name: redb's integrity check passes, it is of this schema version,
    /// and each table holds as many entries as the snapshot that was copied (`meta` aside,
    /// where the left-out credentials are noted). Returns the entries checked.
    ///
    /// A backup that fails its check never replaces a file already at `path` (one taken in the
    /// same second): only a checked file is renamed into place.
    ///
    /// Errors: as [`Store::backup_to`]; [`Error::NotAStore`] when the check fails, and then
    /// nothing is left of the attempt.
    pub fn backup_checked(&self, path: &Path) -> Result<u64> {
        let snapshot = self.begin_read()?;
        let partial = write_partial(&snapshot, path)?;
        let checked = entries(&snapshot).and_then(|expected| check(&partial, expected));
        match checked {
            Ok(entries) => {
                std::fs::rename(&partial, path)?;
                sync_parent(path)?;
                Ok(entries)
            }
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                Err(e)
            }
        }
    }
}

/// Writes a backup of `snapshot` to `path`, through `<path>.partial` renamed into place once
/// synced, so `path` is either absent or complete.
fn write_to(snapshot: &ReadTransaction, path: &Path) -> Result<()> {
    let partial = write_partial(snapshot, path)?;
    std::fs::rename(&partial, path)?;
    sync_parent(path)
}

/// Writes a backup of `snapshot` to `<path>.partial` (synced: redb commits it durably) and
/// answers that path; on failure nothing is left of it.
fn write_partial(snapshot: &ReadTransaction, path: &Path) -> Result<PathBuf> {
    let partial = with_suffix(path, ".partial");
    let written = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&partial)
        .map_err(Error::from)
        .and_then(|file| copy_snapshot(snapshot, file));
    match written {
        Ok(()) => Ok(partial),
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}

/// Checks the backup at `path` against the `expected` entries of the snapshot it copied.
fn check(path: &Path, expected: u64) -> Result<u64> {
    let not_ours = |e: &dyn std::fmt::Display| Error::NotAStore(e.to_string());
    if schema_version(path)? != SCHEMA_VERSION {
        return Err(not_ours(&"the backup is not of this schema version"));
    }
    let mut db = side_builder().open(path).map_err(|e| not_ours(&e))?;
    if !db.check_integrity().map_err(|e| not_ours(&e))? {
        return Err(not_ours(&"the backup fails redb's integrity check"));
    }
    let found = entries(&db.begin_read()?)?;
    if found != expected {
        return Err(not_ours(&format!(
            "the backup holds {found} entries where the store held {expected}"
        )));
    }
    Ok(found)
}

/// The entries of every table of `snapshot` but `meta`.
fn entries(snapshot: &ReadTransaction) -> Result<u64> {
    let mut count = Count {
        from: snapshot,
        entries: 0,
    };
    tables::visit_all(&mut count)?;
    Ok(count.entries)
}

/// A backup of `snapshot` as an unnamed temporary file in `dir`, rewound to its start. Put it on
/// the store's disk (a Pi's `/tmp` may be RAM); it is gone from the disk once the returned handle
/// is closed, even after a crash.
///
/// Errors: the snapshot cannot be read or the file written ([`Error::Database`]).
pub fn to_temp_file(snapshot: &ReadTransaction, dir: &Path) -> Result<File> {
    let mut file = tempfile::tempfile_in(dir)?;
    copy_snapshot(snapshot, file.try_clone()?)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(file)
}

/// Restores the backup at `source` as the store at `target` (the service must be stopped).
///
/// The backup is copied beside `target` and checked there: it must be a database of this product
/// ([`Error::NotAStore`] otherwise) of this schema version or an older one, which is migrated
/// ([`Error::NewerSchema`] for a newer one). Only then is the current file (if any) renamed to
/// `<target>.before-restore-<label>` and the checked copy renamed to `target`. A ledger journal an
/// earlier build left beside the current file (`storage/src/old_journal.rs`) is applied to it first and
/// removed, so the kept file holds every acknowledged write; if the current file cannot be opened
/// (a damaged file is what a restore is for), that journal is kept beside it instead.
/// A refusal leaves `target` and its directory as they were. Returns where the previous file
/// was kept, and how many integration credentials the backup left out.
///
/// Errors: [`Error::NotAStore`], [`Error::NewerSchema`], [`Error::InUse`] while a process has
/// `target` open, [`Error::Database`] on I/O failures.
pub fn restore(source: &Path, target: &Path, label: &str) -> Result<Restored> {
    let staged = with_suffix(target, ".restoring");
    let checked = std::fs::copy(source, &staged)
        .map_err(|e| Error::NotAStore(format!("cannot read {}: {e}", source.display())))
        .and_then(|_| check_staged(&staged))
        // Last, as opening the current file to learn whether it is in use rewrites its header.
        .and_then(|_| refuse_if_open(target));
    if let Err(e) = checked {
        let _ = std::fs::remove_file(&staged);
        return Err(e);
    }
    let journal = old_journal::path_of(target);
    let kept = if target.exists() {
        let kept = with_suffix(target, &format!(".before-restore-{label}"));
        if journal.exists() {
            // Opening the store applies the journal and removes it.
            match Store::open(target, StoreOptions::default()) {
                Ok(applied) => drop(applied),
                Err(_) => std::fs::rename(&journal, old_journal::path_of(&kept))?,
            }
        }
        std::fs::rename(target, &kept)?;
        Some(kept)
    } else {
        None
    };
    let credentials_left_out = left_out_in(&staged)?;
    std::fs::rename(&staged, target)?;
    sync_parent(target)?;
    Ok(Restored {
        kept,
        credentials_left_out,
    })
}

/// Checks the copy of a backup at `staged` before it is installed, changing only that copy: a
/// product database of this schema or an older one (migrated), that passes redb's integrity
/// check and whose every record decodes ([`repo::decode_all`]); its print summaries are
/// dropped so that the service derives them again from the prints (derived state is never
/// trusted from a file). A damaged file may make redb panic: that is caught and refused like
/// any other damage, and no panic leaves this function.
///
/// Errors: [`Error::NotAStore`] naming the damage; [`Error::NewerSchema`].
fn check_staged(staged: &Path) -> Result<()> {
    let damaged = |e: &dyn std::fmt::Display| Error::NotAStore(format!("the file is damaged: {e}"));
    let checked = std::panic::catch_unwind(|| -> Result<()> {
        schema_version(staged)?;
        let mut db = side_builder().open(staged).map_err(|e| damaged(&e))?;
        if !db.check_integrity().map_err(|e| damaged(&e))? {
            return Err(damaged(&"it fails redb's integrity check"));
        }
        drop(db);
        let store = Store::open(staged, StoreOptions::default())?;
        repo::decode_all(&store.begin_read()?).map_err(|e| damaged(&e))?;
        let txn = store.begin_write()?;
        txn.open_table(tables::META)?.remove(PRINT_SUMMARIES)?;
        txn.commit()?;
        Ok(())
    });
    checked.unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("the database engine stopped on it");
        Err(damaged(&why))
    })
}

/// `meta` key naming the format of the print summaries (the actors' `prints::summary`); without
/// it they are derived again from the prints when the service starts.
const PRINT_SUMMARIES: &str = "print_summaries";

/// `meta.credentials_left_out` of the store file at `path` (0 when absent).
fn left_out_in(path: &Path) -> Result<u64> {
    let db = side_builder().open(path)?;
    let txn = db.begin_read()?;
    let meta = txn.open_table(tables::META)?;
    Ok(meta.get(CREDENTIALS_LEFT_OUT)?.map_or(0, |v| v.value()))
}

/// The schema version of the database file at `path`, read without changing the file's contents.
///
/// Errors: [`Error::NotAStore`] when the file is not a redb database with this product's `meta`
/// table; [`Error::NewerSchema`] when a newer build wrote it.
pub fn schema_version(path: &Path) -> Result<u64> {
    let not_ours = |e: &dyn std::fmt::Display| Error::NotAStore(e.to_string());
    let db = side_builder().open(path).map_err(|e| not_ours(&e))?;
    let txn = db.begin_read().map_err(|e| not_ours(&e))?;
    let version = txn
        .open_table(tables::META)
        .map_err(|e| not_ours(&e))?
        .get(schema::VERSION_KEY)
        .map_err(|e| not_ours(&e))?
        .map(|v| v.value())
        .ok_or_else(|| not_ours(&"it has no schema version"))?;
    if version > SCHEMA_VERSION {
        return Err(Error::NewerSchema {
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(version)
}

/// Refuses while another process holds `target` open (redb locks the file it serves).
fn refuse_if_open(target: &Path) -> Result<()> {
    if !target.exists() {
        return Ok(());
    }
    match side_builder().open(target) {
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => Err(Error::InUse),
        // A damaged file is what a restore is for; it is kept beside the restored one.
        _ => Ok(()),
    }
}

fn copy_snapshot(snapshot: &ReadTransaction, file: File) -> Result<()> {
    let db = side_builder().create_with_backend(FileBackend::new(file)?)?;
    let txn = db.begin_write()?;
    tables::visit_all(&mut Copy {
        from: snapshot,
        to: &txn,
    })?;
    copy_settings_without_credentials(snapshot, &txn)?;
    txn.commit()?;
    Ok(())
}

/// `meta` key: how many integration credentials a backup left out.
const CREDENTIALS_LEFT_OUT: &str = "credentials_left_out";

/// Copies the settings table into the backup being written with every credential left out,
/// and notes in `meta` how many there were: the integrations' (replaced by the environment's
/// default) and the webhooks' tokens (removed).
///
/// The credentials are taken out before anything is written, so their bytes never reach the
/// new file (an entry written and then overwritten would leave them on a freed page). An entry
/// that the snapshot does not hold is not made up (the copy holds exactly the snapshot's
/// entries, which [`check`] counts).
fn copy_settings_without_credentials(
    snapshot: &ReadTransaction,
    txn: &WriteTransaction,
) -> Result<()> {
    let mut left_out = 0u64;
    let mut entries: Vec<(u8, Vec<u8>)> = Vec::new();
    for entry in snapshot.open_table(tables::SETTINGS)?.iter()? {
        let (key, value) = entry?;
        entries.push((key.value(), value.value().to_vec()));
    }
    for (key, bytes) in &mut entries {
        match *key {
            repo::INTEGRATIONS_KEY => {
                let mut integrations: Integrations = decode("settings", bytes)?;
                for peer in [&mut integrations.spoolmgr, &mut integrations.printfleet] {
                    if matches!(peer.credential, Override::Set(_)) {
                        peer.credential = Override::Default;
                        left_out += 1;
                    }
                }
                *bytes = encode("settings", &integrations)?;
            }
            repo::ALERT_SETTINGS_KEY => {
                let mut alerts: AlertSettings = decode("settings", bytes)?;
                for webhook in &mut alerts.webhooks {
                    left_out += u64::from(webhook.token.take().is_some());
                }
                *bytes = encode("settings", &alerts)?;
            }
            _ => {}
        }
    }
    let mut settings = txn.open_table(tables::SETTINGS)?;
    for (key, bytes) in &entries {
        settings.insert(*key, bytes.as_slice())?;
    }
    let mut meta = txn.open_table(tables::META)?;
    if left_out > 0 {
        meta.insert(CREDENTIALS_LEFT_OUT, left_out)?;
    } else {
        meta.remove(CREDENTIALS_LEFT_OUT)?;
    }
    Ok(())
}

/// What [`restore`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// Where the previous file was kept, if there was one.
    pub kept: Option<PathBuf>,
    /// Integration credentials the backup left out, to be entered again.
    pub credentials_left_out: u64,
}

/// Copies every entry of each visited table from a snapshot into a new file's transaction (the
/// settings table aside, whose credentials are left out).
struct Copy<'a> {
    from: &'a ReadTransaction,
    to: &'a WriteTransaction,
}

impl tables::Visit for Copy<'_> {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &mut self,
        def: TableDefinition<K, V>,
    ) -> Result<()> {
        let mut to = self.to.open_table(def)?;
        if def.name() == tables::SETTINGS.name() {
            // Copied by `copy_settings_without_credentials`.
            return Ok(());
        }
        for entry in self.from.open_table(def)?.iter()? {
            let (key, value) = entry?;
            to.insert(key.value(), value.value())?;
        }
        Ok(())
    }

    fn multimap<K: redb::Key + 'static, V: redb::Key + 'static>(
        &mut self,
        def: MultimapTableDefinition<K, V>,
    ) -> Result<()> {
        let mut to = self.to.open_multimap_table(def)?;
        for entry in self.from.open_multimap_table(def)?.iter()? {
            let (key, values) = entry?;
            for value in values {
                to.insert(key.value(), value?.value())?;
            }
        }
        Ok(())
    }
}

/// Counts the entries of each visited table but `meta`.
struct Count<'a> {
    from: &'a ReadTransaction,
    entries: u64,
}

impl tables::Visit for Count<'_> {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &mut self,
        def: TableDefinition<K, V>,
    ) -> Result<()> {
        if def.name() != tables::META.name() {
            self.entries += self.from.open_table(def)?.len()?;
        }
        Ok(())
    }

    fn multimap<K: redb::Key + 'static, V: redb::Key + 'static>(
        &mut self,
        def: MultimapTableDefinition<K, V>,
    ) -> Result<()> {
        self.entries += self.from.open_multimap_table(def)?.len()?;
        Ok(())
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Makes a rename in `path`'s directory durable.
fn sync_parent(path: &Path) -> Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(parent)?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger;
    use crate::old_journal::tests as old_journal_tests;
    use crate::records::Customer;
    use crate::schema::tests as schema_tests;
    use crate::{Id, Timestamp, repo};

    fn customer(name: &str) -> Customer {
        Customer {
            id: Id::new(),
            name: name.into(),
            email: None,
            note: None,
            exclude_from_dashboard: false,
            archived: false,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_000),
            discount_percent: None,
            billing: Default::default(),
        }
    }

    fn store_with(path: &Path, record: &Customer) -> Store {
        let store = Store::open(path, StoreOptions::default()).unwrap();
        let txn = store.begin_write().unwrap();
        repo::put(&txn, record).unwrap();
        txn.commit().unwrap();
        store
    }

    fn customer_in(path: &Path, id: Id) -> Option<Customer> {
        let store = Store::open(path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        repo::get(&txn, id).unwrap()
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_checked_backup_holds_every_entry_and_a_short_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let kept = customer("Kept");
        let store = store_with(&dir.path().join("printcost.redb"), &kept);
        let path = dir.path().join("nightly.redb");
        let entries = store.backup_checked(&path).unwrap();
        // The customer and its reference rows at least; the settings table is empty.
        assert!(entries >= 1, "{entries}");
        assert_eq!(customer_in(&path, kept.id), Some(kept));
        let short = check(&path, entries + 1).unwrap_err();
        assert!(
            matches!(&short, Error::NotAStore(why) if why.contains("entries")),
            "{short}"
        );
    }

    #[test]
    fn a_backup_holds_the_last_commit_and_leaves_no_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let kept = customer("Kept");
        let store = store_with(&dir.path().join("printcost.redb"), &kept);
        let mut file = store.backup().unwrap();
        // Written after the backup: not in it.
        let later = customer("Later");
        let txn = store.begin_write().unwrap();
        repo::put(&txn, &later).unwrap();
        txn.commit().unwrap();
        assert_eq!(names_in(dir.path()), ["printcost.redb"]);

        let copy = dir.path().join("copy.redb");
        std::io::copy(&mut file, &mut File::create(&copy).unwrap()).unwrap();
        assert_eq!(schema_version(&copy).unwrap(), SCHEMA_VERSION);
        assert_eq!(customer_in(&copy, kept.id), Some(kept));
        assert_eq!(customer_in(&copy, later.id), None);
    }

    #[test]
    fn a_restore_keeps_the_previous_file_beside_the_restored_one() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("printcost.redb");
        let old = customer("Before");
        drop(store_with(&target, &old));
        let source_dir = tempfile::tempdir().unwrap();
        let restored = customer("Restored");
        let backup = source_dir.path().join("backup.redb");
        store_with(&source_dir.path().join("live.redb"), &restored)
            .backup_to(&backup)
            .unwrap();

        let kept = restore(&backup, &target, "20261124-080000")
            .unwrap()
            .kept
            .unwrap();
        assert_eq!(
            names_in(dir.path()),
            [
                "printcost.redb",
                "printcost.redb.before-restore-20261124-080000"
            ]
        );
        assert_eq!(customer_in(&target, restored.id), Some(restored));
        assert_eq!(customer_in(&kept, old.id), Some(old));
    }

    #[test]
    fn junk_a_newer_schema_and_an_open_store_are_refused_touching_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("printcost.redb");
        let old = customer("Untouched");
        drop(store_with(&target, &old));
        let before = std::fs::read(&target).unwrap();
        let other = tempfile::tempdir().unwrap();

        let junk = other.path().join("junk.redb");
        std::fs::write(&junk, b"not a database at all").unwrap();
        let err = restore(&junk, &target, "x").unwrap_err();
        assert!(matches!(err, Error::NotAStore(_)), "{err}");

        let empty = other.path().join("empty.redb");
        File::create(&empty).unwrap();
        let err = restore(&empty, &target, "x").unwrap_err();
        assert!(matches!(err, Error::NotAStore(_)), "{err}");

        let newer = other.path().join("newer.redb");
        schema_tests::file_at_version(&newer, SCHEMA_VERSION + 1);
        let err = restore(&newer, &target, "x").unwrap_err();
        assert!(
            matches!(err, Error::NewerSchema { found, .. } if found == SCHEMA_VERSION + 1),
            "{err}"
        );

        assert_eq!(names_in(dir.path()), ["printcost.redb"]);
        assert!(
            std::fs::read(&target).unwrap() == before,
            "the store changed"
        );

        let open = Store::open(&target, StoreOptions::default()).unwrap();
        let good = other.path().join("good.redb");
        open.backup_to(&good).unwrap();
        let err = restore(&good, &target, "x").unwrap_err();
        assert!(matches!(err, Error::InUse), "{err}");
        drop(open);
        assert_eq!(names_in(dir.path()), ["printcost.redb"]);
        assert_eq!(customer_in(&target, old.id), Some(old));
    }

    #[test]
    fn an_older_schema_is_migrated_on_restore() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("printcost.redb");
        let other = tempfile::tempdir().unwrap();
        let older = other.path().join("v2.redb");
        schema_tests::file_at_version(&older, 2);
        assert_eq!(restore(&older, &target, "x").unwrap().kept, None);
        assert_eq!(schema_version(&target).unwrap(), SCHEMA_VERSION);
        // The source itself is left as it was.
        assert_eq!(schema_version(&older).unwrap(), 2);
    }

    #[test]
    fn a_restore_applies_an_earlier_builds_journal_to_the_kept_file() {
        let dir = tempfile::tempdir().unwrap();
        let crashed = tempfile::tempdir().unwrap();
        let target = crashed.path().join("printcost.redb");
        drop(Store::open(&target, StoreOptions::default()).unwrap());
        // The data directory of an earlier build, killed with bookings in its journal alone.
        std::fs::write(old_journal::path_of(&target), old_journal_tests::FIXTURE).unwrap();
        let backup = dir.path().join("backup.redb");
        drop(store_with(
            &dir.path().join("other.redb"),
            &customer("Restored"),
        ));
        Store::open(&dir.path().join("other.redb"), StoreOptions::default())
            .unwrap()
            .backup_to(&backup)
            .unwrap();

        let kept = restore(&backup, &target, "x").unwrap().kept.unwrap();
        assert_eq!(
            names_in(crashed.path()),
            ["printcost.redb", "printcost.redb.before-restore-x"],
            "the journal was applied to the kept file and removed"
        );
        let read = Store::open(&kept, StoreOptions::default())
            .unwrap()
            .begin_read()
            .unwrap();
        assert_eq!(ledger::movement_count(&read).unwrap(), 2);
    }

    #[test]
    fn a_backup_leaves_out_the_credentials_and_the_restore_says_so() {
        use crate::records::{Integrations, PeerSettings};
        let dir = tempfile::tempdir().unwrap();
        let store = store_with(&dir.path().join("printcost.redb"), &customer("Kept"));
        let txn = store.begin_write().unwrap();
        let peer = |credential| PeerSettings {
            enabled: true,
            url: Override::Set("http://spoolman.lan:7912".into()),
            credential,
        };
        let stored = Integrations {
            spoolmgr: peer(Override::Set("Bearer secret-token-4711".into())),
            printfleet: peer(Override::Removed),
        };
        repo::put_integrations(&txn, &stored).unwrap();
        txn.commit().unwrap();
        let backup = dir.path().join("backup.redb");
        store.backup_to(&backup).unwrap();
        let bytes = std::fs::read(&backup).unwrap();
        let secret = b"secret-token-4711";
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret),
            "the credential is not in the backup file"
        );

        let target = dir.path().join("restored").join("printcost.redb");
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let restored = restore(&backup, &target, "x").unwrap();
        assert_eq!(restored.credentials_left_out, 1);
        let read = Store::open(&target, StoreOptions::default()).unwrap();
        let found = repo::integrations(&read.begin_read().unwrap()).unwrap();
        assert_eq!(found.spoolmgr.credential, Override::Default);
        assert_eq!(found.spoolmgr.url, stored.spoolmgr.url, "the rest stays");
        assert_eq!(found.printfleet, stored.printfleet);
        // The store itself keeps its credential.
        let kept = repo::integrations(&store.begin_read().unwrap()).unwrap();
        assert_eq!(kept, stored);
    }
}
