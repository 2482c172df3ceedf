//! The persisted model of the print-cost appliance.
//!
//! This crate owns the one redb file: the record types (plain serde structs, no redb types in them),
//! the table definitions, typed repositories whose functions take the caller's transaction, the
//! schema version kept in the `meta` table and the migrations that upgrade an older file on open.
//!
//! It knows nothing of HTTP, actors or business rules, and starts no threads: callers decide where
//! transactions run (writer actors for writes, blocking pools for reads).
//!
//! Encoding: every record value is bincode 1.3.3 of its serde form; decimals use their string form
//! (bincode has no `deserialize_any`). Keys are redb's own ordered types: ids are 16-byte UUID v7
//! arrays, so key order is creation order.

mod backend;
pub mod backup;
mod codec;
mod error;
mod ids;
pub mod journal;
pub mod ledger;
mod old_journal;
pub mod records;
pub mod repo;
mod schema;
mod store;
pub mod tables;
mod write;

pub use backend::SharedBackend;
pub use codec::{decimal_parts, decode, decode_compact, encode, encode_compact, hex};
pub use error::{Error, Result};
pub use ids::{Id, Timestamp};
pub use schema::{SCHEMA_VERSION, legacy};
pub use store::{Store, StoreOptions};
pub use write::{SECRET_FIELDS, WriteTxn};

/// redb transaction types, re-exported so that callers name one crate.
pub use redb::{ReadTransaction, WriteTransaction};
