//! The store: one redb database file and its transactions.

use crate::journal::{self, Journal, Redo};
use crate::ledger::LedgerTables;
use crate::{Error, Result, SCHEMA_VERSION, SharedBackend, schema, tables};
use redb::backends::FileBackend;
use redb::{Durability, ReadTransaction, ReadableDatabase, StorageBackend, WriteTransaction};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Options of [`Store::open`].
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// redb page cache in bytes. redb's own default (1 GiB) is far too much for a Raspberry Pi;
    /// ours is 16 MiB.
    pub cache_bytes: usize,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            cache_bytes: 16 * 1024 * 1024,
        }
    }
}

/// The open database. Cheap to clone (shared handle); safe to use from many threads: any number
/// of read transactions run alongside the one write transaction redb allows at a time.
#[derive(Clone)]
pub struct Store {
    db: Arc<redb::Database>,
    backend: SharedBackend,
    /// The file's directory; `None` for backends that are not a file.
    dir: Option<PathBuf>,
    /// The ledger journal ([`crate::journal`]); `None` for backends that are not a file, whose
    /// commits are all durable.
    journal: Option<Arc<Mutex<Journal>>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (or creates) the database file at `path`, brings it to the current schema, and
    /// applies again the journal's records that its last durable commit does not include (after a
    /// crash or power cut), committing them durably.
    ///
    /// Errors: the file cannot be opened or locked (another process has it open), it is corrupt,
    /// it was written by a newer schema ([`crate::Error::NewerSchema`]), or its journal holds
    /// records of another schema version ([`crate::Error::JournalSchema`]) or misses some.
    pub fn open(path: &Path, options: StoreOptions) -> Result<Store> {
        let file = open_or_create(path)?;
        let journal_path = journal::path_of(path);
        let records = journal::read(&journal_path)?;
        let (db, backend) = Self::database(FileBackend::new(file)?, options)?;
        let applied = journal_lsn(&db)?;
        let pending: Vec<_> = records.into_iter().filter(|r| r.lsn > applied).collect();
        if let Some(other) = pending
            .iter()
            .find(|r| u64::from(r.schema) != SCHEMA_VERSION)
        {
            return Err(Error::JournalSchema {
                found: other.schema.into(),
            });
        }
        schema::prepare(&db)?;
        let last_lsn = replay(&db, applied, &pending)?;
        Ok(Store {
            db: Arc::new(db),
            backend,
            dir: Some(match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }),
            journal: Some(Arc::new(Mutex::new(Journal::new(journal_path, last_lsn)))),
        })
    }

    /// Opens a database kept by any redb backend (tests use failing or in-memory backends). It
    /// has no journal: every commit is durable.
    ///
    /// Errors: as [`Store::open`].
    pub fn open_with_backend(backend: impl StorageBackend, options: StoreOptions) -> Result<Store> {
        let (db, backend) = Self::database(backend, options)?;
        schema::prepare(&db)?;
        Ok(Store {
            db: Arc::new(db),
            backend,
            dir: None,
            journal: None,
        })
    }

    fn database(
        backend: impl StorageBackend,
        options: StoreOptions,
    ) -> Result<(redb::Database, SharedBackend)> {
        let backend = SharedBackend::new(backend);
        let db = redb::Database::builder()
            .set_cache_size(options.cache_bytes)
            .create_with_backend(backend.clone())?;
        Ok((db, backend))
    }

    /// The directory of the database file, when the store is a file.
    pub fn dir(&self) -> Option<PathBuf> {
        self.dir.clone()
    }

    /// A read transaction: a consistent snapshot of the last commit.
    pub fn begin_read(&self) -> Result<ReadTransaction> {
        Ok(self.db.begin_read()?)
    }

    /// A write transaction, durable when committed by [`Store::commit`] (or redb's own
    /// `commit`). Only the writer actors call this; redb lets one write transaction run at a time.
    pub fn begin_write(&self) -> Result<WriteTransaction> {
        let mut txn = self.db.begin_write()?;
        txn.set_durability(Durability::Immediate)?;
        Ok(txn)
    }

    /// Commits `txn` durably. It includes every journaled commit before it, so the journal is
    /// rewound.
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit(&self, txn: WriteTransaction) -> Result<()> {
        let Some(journal) = &self.journal else {
            return Ok(txn.commit()?);
        };
        let mut journal = journal.lock().unwrap_or_else(|e| e.into_inner());
        txn.commit()?;
        journal.rewind();
        Ok(())
    }

    /// Commits `txn`, whose every change to the data is in `changes` (it wrote through
    /// [`LedgerTables`] alone), through the journal: the changes are written to the journal and
    /// synced, then `txn` commits without a sync. Acknowledged after this returns, they survive a
    /// crash or power cut as a durable commit does. Falls back to a durable commit when the
    /// store has no journal or the journal is full.
    ///
    /// Errors: the journal or the commit failed; nothing of `txn` is visible and its record is
    /// erased.
    pub fn commit_journaled(&self, mut txn: WriteTransaction, changes: &[Redo]) -> Result<()> {
        let Some(journal) = &self.journal else {
            return Ok(txn.commit()?);
        };
        if changes.is_empty() {
            // Nothing was written: nothing to journal or sync.
            txn.set_durability(Durability::None)?;
            return Ok(txn.commit()?);
        }
        let mut journal = journal.lock().unwrap_or_else(|e| e.into_inner());
        let Some(record) = journal.record(changes)? else {
            txn.commit()?;
            journal.rewind();
            return Ok(());
        };
        txn.open_table(tables::META)?
            .insert(journal::LSN_KEY, journal.next_lsn())?;
        txn.set_durability(Durability::None)?;
        let committed = journal.write(&record).and_then(|()| Ok(txn.commit()?));
        match committed {
            Ok(()) => {
                journal.advance(&record);
                Ok(())
            }
            Err(e) => {
                if let Err(undo) = journal.undo() {
                    tracing::error!(error = %undo, "a journal record of a failed commit could not be erased");
                }
                Err(e)
            }
        }
    }

    /// Makes every journaled commit durable in redb itself (an empty durable commit) and rewinds
    /// the journal; nothing to do when it holds no records. The ledger writer calls this a moment
    /// after its last journaled commit, so the journal and the time to apply it at start-up stay
    /// small.
    ///
    /// Errors: the commit failed.
    pub fn checkpoint(&self) -> Result<()> {
        let holds_records = self
            .journal
            .as_ref()
            .is_some_and(|j| j.lock().unwrap_or_else(|e| e.into_inner()).holds_records());
        if holds_records {
            self.commit(self.begin_write()?)?;
        }
        Ok(())
    }

    /// Checks that the file can still be read from the device, bypassing redb's page cache, and
    /// that a read transaction opens. Used by `GET /api/health`.
    pub fn probe(&self) -> Result<()> {
        self.backend.probe()?;
        let txn = self.begin_read()?;
        crate::repo::Tx::table(&txn, crate::tables::META)?;
        Ok(())
    }
}

/// The file at `path` open for reading and writing, made empty if missing.
pub(crate) fn open_or_create(path: &Path) -> std::io::Result<std::fs::File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// `meta.journal_lsn` of the last durable commit (0 when none was journaled).
fn journal_lsn(db: &redb::Database) -> Result<u64> {
    let txn = db.begin_read()?;
    match txn.open_table(tables::META) {
        Ok(meta) => Ok(meta.get(journal::LSN_KEY)?.map_or(0, |v| v.value())),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(0),
        Err(e) => Err(e.into()),
    }
}

/// Applies the journal records after `applied` (`pending`, in order) in one durable commit.
/// Returns the last sequence number now included.
fn replay(db: &redb::Database, applied: u64, pending: &[journal::Record]) -> Result<u64> {
    let Some(last) = pending.last() else {
        return Ok(applied);
    };
    if pending[0].lsn != applied + 1 {
        return Err(Error::Database(format!(
            "the journal misses records {} to {}",
            applied + 1,
            pending[0].lsn - 1
        )));
    }
    let txn = db.begin_write()?;
    {
        let mut ledger = LedgerTables::open(&txn)?;
        for change in pending.iter().flat_map(|r| &r.changes) {
            ledger.redo(change)?;
        }
    }
    txn.open_table(tables::META)?
        .insert(journal::LSN_KEY, last.lsn)?;
    txn.commit()?;
    tracing::info!(records = pending.len(), "journal applied");
    Ok(last.lsn)
}
