//! Schema version and migrations.
//!
//! The `meta` table holds `schema_version`. Opening a store:
//! - a new file gets every table and the current version in one write transaction;
//! - an older file is migrated step by step, each step one write transaction that rewrites the
//!   affected tables ("new layout + copy"), so a crash mid-upgrade leaves the last good version;
//! - a newer file is refused with [`Error::NewerSchema`] before anything is written.
//!
//! History:
//! - 1: first layout.
//! - 2: customers gained `exclude_from_dashboard` (false for existing customers).
//! - 3: the integrations' tables: the spool manager's (spool links, remote ids, operations;
//!   existing spools stay native) and the printer fleet's (printer and print-log links).
//!   No record changes, but an older build must not open a file whose spools it would book
//!   natively.
//! - 4: the print answers table (outcome and correction replays answer the first body). Tables
//!   only; an older build must not open a file whose replays it would answer differently.
//! - 5: the sliced files prints were made from (`print_sources`, `source_prints`). Tables only.
//! - 6: the print projection's summaries (`print_summaries`), written with every print. The
//!   table starts empty and the first load fills it; an older build must not open a file whose
//!   prints it would change without their summaries.
//! - 7: the wear table (what each printer and component has run), filled by the projection.
//! - 8: printers' energy meters and their readings (`meter_links`, `meter_readings`). Tables
//!   only; an older build must not open a file whose meters' history it would not keep.

use crate::records::Customer;
use crate::repo::Tx;
use crate::{Error, Id, Result, Timestamp, decode, encode, tables};
use redb::{ReadableTable, TableHandle, WriteTransaction};
use serde::{Deserialize, Serialize};

/// The layout version this build writes.
pub const SCHEMA_VERSION: u64 = 8;

pub(crate) const VERSION_KEY: &str = "schema_version";

/// Layouts of earlier schema versions, kept for their migrations.
pub mod legacy {
    use super::*;

    /// A customer as schema version 1 stored it.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct CustomerV1 {
        /// Record id.
        pub id: Id,
        /// Display name.
        pub name: String,
        /// Contact email.
        pub email: Option<String>,
        /// Free text.
        pub note: Option<String>,
        /// Archive state.
        pub archived: bool,
        /// Creation time.
        pub created_at: Timestamp,
        /// Last change.
        pub updated_at: Timestamp,
    }
}

/// Brings the open file to [`SCHEMA_VERSION`] and makes sure every table exists.
pub(crate) fn prepare(db: &redb::Database) -> Result<()> {
    let found = {
        let txn = db.begin_write()?;
        let version = txn
            .table(tables::META)?
            .get(VERSION_KEY)?
            .map(|v| v.value());
        txn.abort()?;
        version
    };
    match found {
        Some(v) if v > SCHEMA_VERSION => {
            return Err(Error::NewerSchema {
                found: v,
                supported: SCHEMA_VERSION,
            });
        }
        Some(v) => {
            for from in v..SCHEMA_VERSION {
                let txn = db.begin_write()?;
                migrate_step(&txn, from)?;
                set_version(&txn, from + 1)?;
                txn.commit()?;
                tracing::info!(from, to = from + 1, "database migrated");
            }
        }
        None => {}
    }
    let txn = db.begin_write()?;
    create_tables(&txn)?;
    if found.is_none() {
        set_version(&txn, SCHEMA_VERSION)?;
    }
    txn.commit()?;
    Ok(())
}

fn set_version(txn: &WriteTransaction, version: u64) -> Result<()> {
    txn.open_table(tables::META)?.insert(VERSION_KEY, version)?;
    Ok(())
}

fn create_tables(txn: &WriteTransaction) -> Result<()> {
    tables::visit_all(&mut Create(txn))
}

/// Opens (so creates) every table in a write transaction.
struct Create<'t>(&'t WriteTransaction);

impl tables::Visit for Create<'_> {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &mut self,
        def: redb::TableDefinition<K, V>,
    ) -> Result<()> {
        self.0.open_table(def)?;
        Ok(())
    }

    fn multimap<K: redb::Key + 'static, V: redb::Key + 'static>(
        &mut self,
        def: redb::MultimapTableDefinition<K, V>,
    ) -> Result<()> {
        self.0.open_multimap_table(def)?;
        Ok(())
    }
}

fn migrate_step(txn: &WriteTransaction, from: u64) -> Result<()> {
    match from {
        1 => customers_v1_to_v2(txn),
        // v2 → v3 up to v7 → v8 add tables only; `create_tables` makes them after the steps
        // (v6's print summaries and v7's wear are filled by the print projection's first load).
        // v7 also keeps a build that does not keep the wear from writing prints into the file.
        2..=7 => Ok(()),
        other => Err(Error::Database(format!(
            "no migration from schema version {other}"
        ))),
    }
}

/// v1 → v2: every customer gets `exclude_from_dashboard = false`.
fn customers_v1_to_v2(txn: &WriteTransaction) -> Result<()> {
    let mut table = txn.open_table(tables::CUSTOMERS)?;
    let mut upgraded = Vec::new();
    for entry in table.iter()? {
        let (key, value) = entry?;
        let old: legacy::CustomerV1 = decode(tables::CUSTOMERS.name(), value.value())?;
        let new = Customer {
            id: old.id,
            name: old.name,
            email: old.email,
            note: old.note,
            exclude_from_dashboard: false,
            archived: old.archived,
            created_at: old.created_at,
            updated_at: old.updated_at,
        };
        upgraded.push((key.value(), encode("customers", &new)?));
    }
    for (key, bytes) in upgraded {
        table.insert(key, bytes.as_slice())?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{Store, StoreOptions, repo};

    fn write_v1_file(path: &std::path::Path, customer: &legacy::CustomerV1) {
        let db = redb::Database::create(path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(tables::META)
            .unwrap()
            .insert(VERSION_KEY, 1)
            .unwrap();
        let bytes = encode("customers", customer).unwrap();
        txn.open_table(tables::CUSTOMERS)
            .unwrap()
            .insert(customer.id.bytes(), bytes.as_slice())
            .unwrap();
        txn.commit().unwrap();
    }

    #[test]
    fn a_v1_customer_is_upgraded_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        let old = legacy::CustomerV1 {
            id: Id::new(),
            name: "Old Customer".into(),
            email: Some("old@example.com".into()),
            note: None,
            archived: true,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_100),
        };
        write_v1_file(&path, &old);

        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        let customer: Customer = repo::get(&txn, old.id).unwrap().unwrap();
        assert_eq!(customer.name, "Old Customer");
        assert_eq!(customer.email.as_deref(), Some("old@example.com"));
        assert!(customer.archived);
        assert!(!customer.exclude_from_dashboard);
        assert_eq!(customer.updated_at, Timestamp(1_700_000_100));
        let version = stored_version(&txn);
        assert_eq!(version, SCHEMA_VERSION);
    }

    /// The schema version stored in the file `txn` reads.
    fn stored_version(txn: &redb::ReadTransaction) -> u64 {
        txn.table(tables::META)
            .unwrap()
            .get(VERSION_KEY)
            .unwrap()
            .unwrap()
            .value()
    }

    /// A file holding nothing but schema version `version`.
    pub(crate) fn file_at_version(path: &std::path::Path, version: u64) {
        let db = redb::Database::create(path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(tables::META)
            .unwrap()
            .insert(VERSION_KEY, version)
            .unwrap();
        txn.commit().unwrap();
    }

    #[test]
    fn a_v2_file_gains_the_spool_managers_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        file_at_version(&path, 2);
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        let version = stored_version(&txn);
        assert_eq!(version, SCHEMA_VERSION);
        assert!(repo::is_empty(&txn, tables::SPOOL_LINKS).unwrap());
        assert_eq!(
            repo::remote_get(&txn, tables::REMOTE_SPOOLS, 1).unwrap(),
            None
        );
    }

    #[test]
    fn a_newer_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        file_at_version(&path, SCHEMA_VERSION + 1);
        let err = Store::open(&path, StoreOptions::default()).unwrap_err();
        assert!(matches!(err, Error::NewerSchema { found, .. } if found == SCHEMA_VERSION + 1));
        assert!(err.to_string().contains("newer printcost"));
        let db = redb::Database::open(&path).unwrap();
        assert_eq!(
            stored_version(&redb::ReadableDatabase::begin_read(&db).unwrap()),
            SCHEMA_VERSION + 1
        );
    }

    #[test]
    fn a_new_file_gets_the_current_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        let version = stored_version(&txn);
        assert_eq!(version, SCHEMA_VERSION);
        assert!(repo::is_empty(&txn, tables::PRINTS).unwrap());
    }
}
