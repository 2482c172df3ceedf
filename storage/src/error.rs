//! The storage error: anything that went wrong below the rules (I/O, corruption, encoding).

/// A failure of the store. Every variant means "the database cannot be read or written as asked"
/// and maps to 503 `DATABASE_UNAVAILABLE` at the HTTP edge, except [`Error::NewerSchema`], which
/// and [`Error::JournalSchema`], which stop start-up, and the backup tools' [`Error::NotAStore`] and [`Error::InUse`].
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// redb reported an I/O, transaction, table or commit failure (message kept, source dropped so
    /// the error can be cloned to every sender of a failed batch).
    #[error("database error: {0}")]
    Database(String),
    /// A stored value could not be decoded or encoded with bincode.
    #[error("record encoding error in table {table}: {message}")]
    Codec {
        /// Table whose value failed.
        table: &'static str,
        /// The codec's message.
        message: String,
    },
    /// The file was written by a newer build: opening it could lose data, so it is refused.
    #[error(
        "the database was written by a newer printcost (schema version {found}); this build knows schema versions up to {supported}: upgrade printcost, or restore a backup taken before the upgrade"
    )]
    NewerSchema {
        /// Version found in the file's meta table.
        found: u64,
        /// Highest version this build can read.
        supported: u64,
    },
    /// A file offered as a backup is not a database of this product (not redb, or without its
    /// `meta` table and schema version).
    #[error("not a printcost database: {0}")]
    NotAStore(String),
    /// The journal holds records, not yet in the database, that a build of another schema
    /// version wrote (the service was killed, then upgraded or downgraded): this build cannot
    /// apply them, so it opens nothing.
    #[error(
        "the database's journal holds changes written by a printcost of schema version {found}, and this build writes version {supported}: start that version once (it applies them), then this one",
        supported = crate::SCHEMA_VERSION
    )]
    JournalSchema {
        /// Schema version of the build that wrote the records.
        found: u64,
    },
    /// Another process (the running service) has the database file open.
    #[error("the database file is in use: stop the service first")]
    InUse,
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

macro_rules! from_redb {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::Database(e.to_string())
            }
        }
    )*};
}
from_redb!(
    redb::Error,
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::SetDurabilityError,
    std::io::Error
);
