//! The store: one redb database file and its transactions.

use crate::repo::Tx;
use crate::tables;
use crate::{Result, SharedBackend, WriteTxn, old_journal, schema};
use redb::backends::FileBackend;
use redb::{Durability, ReadTransaction, ReadableDatabase, StorageBackend, WriteTransaction};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (or creates) the database file at `path` and brings it to the current schema; then
    /// applies and removes a ledger journal an earlier build left beside it
    /// (`storage/src/old_journal.rs`).
    ///
    /// Errors: the file cannot be opened or locked (another process has it open), it is corrupt,
    /// it was written by a newer schema ([`crate::Error::NewerSchema`]), or an earlier build's
    /// journal cannot be applied ([`crate::Error::JournalSchema`], or records missing).
    pub fn open(path: &Path, options: StoreOptions) -> Result<Store> {
        let file = open_or_create(path)?;
        let (db, backend) = Self::database(FileBackend::new(file)?, options)?;
        schema::prepare(&db)?;
        old_journal::apply(&db, path)?;
        Ok(Store {
            db: Arc::new(db),
            backend,
            dir: Some(match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }),
        })
    }

    /// Opens a database kept by any redb backend (tests use failing, in-memory or power-cut
    /// backends).
    ///
    /// Errors: as [`Store::open`].
    pub fn open_with_backend(backend: impl StorageBackend, options: StoreOptions) -> Result<Store> {
        let (db, backend) = Self::database(backend, options)?;
        schema::prepare(&db)?;
        Ok(Store {
            db: Arc::new(db),
            backend,
            dir: None,
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

    /// A write transaction, durable when committed: its commit returns once the data and redb's
    /// header are synced (`Durability::Immediate`). It notes nothing for the journal: the writer
    /// actors take [`Store::begin_recorded`]; redb lets one write transaction run at a time.
    pub fn begin_write(&self) -> Result<WriteTxn> {
        Ok(WriteTxn::plain(self.durable()?))
    }

    /// [`Store::begin_write`], noting every change of a record for the journal
    /// ([`WriteTxn::take_changes`]).
    pub fn begin_recorded(&self) -> Result<WriteTxn> {
        Ok(WriteTxn::recording(self.durable()?))
    }

    fn durable(&self) -> Result<WriteTransaction> {
        let mut txn = self.db.begin_write()?;
        txn.set_durability(Durability::Immediate)?;
        Ok(txn)
    }

    /// Checks that the file can still be read from the device, bypassing redb's page cache, and
    /// that a read transaction opens. Used by `GET /api/health`.
    pub fn probe(&self) -> Result<()> {
        self.backend.probe()?;
        let txn = self.begin_read()?;
        Tx::table(&txn, tables::META)?;
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

/// Page cache, bytes, of each database opened beside the store: a backup's copy and its check,
/// a restore's checks, `printcost journal verify`'s read of a file. redb's default (1 GiB) would
/// let a whole store's pages pass into memory and stay there (a 34 MB store: 40 MiB more
/// resident through a backup, `cargo bench --bench backup_memory`); these stream through this.
pub(crate) const SIDE_CACHE_BYTES: usize = 4 * 1024 * 1024;

/// redb's builder with [`SIDE_CACHE_BYTES`] of page cache, for the databases opened beside the
/// store.
pub(crate) fn side_builder() -> redb::Builder {
    let mut builder = redb::Database::builder();
    builder.set_cache_size(SIDE_CACHE_BYTES);
    builder
}
