//! The one-time migration of a ledger journal left by an earlier build.
//!
//! Builds before `0.1.0`'s single durability path made a batch of ledger bookings durable by a
//! write-ahead record in `<database>-journal` beside the file, and committed the batch to redb
//! without a sync; `meta.journal_lsn` named the last record a commit included. Every write now
//! commits through redb's durable commit (docs/decisions/0003-group-commit.md), so this module
//! only reads such a journal: [`apply`] applies the records the database does not include yet,
//! in one durable commit, and then removes the file. A data directory without one is untouched.
//!
//! Record layout, little-endian: magic `PCJ1` (4 bytes), schema version (u32), sequence number
//! (u64), payload length (u32), CRC-32 of the three fields and the payload (u32), then the
//! payload: bincode of `Vec<Redo>`. A torn record, a bad checksum or a sequence number that does
//! not follow the previous one ends the records (the rest of the file is zeros or older records).

use crate::ledger::LedgerTables;
use crate::records::{Movement, Spool};
use crate::{Error, Result, SCHEMA_VERSION, WriteTxn, decode, tables};
use serde::{Deserialize, Serialize};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// One change of a journaled batch, as the earlier builds encoded it (variant order is the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Redo {
    /// The spool as the batch left it.
    PutSpool(Spool),
    /// A movement appended to its spool's ledger.
    Append(Movement),
}

/// A record read back from the journal.
#[derive(Debug)]
struct Record {
    lsn: u64,
    schema: u32,
    changes: Vec<Redo>,
}

const MAGIC: &[u8; 4] = b"PCJ1";
const HEADER: usize = 24;
/// `meta` key of the last journal record a commit included.
const LSN_KEY: &str = "journal_lsn";

/// The journal an earlier build kept for the database file `db`: `<db>-journal` beside it.
pub(crate) fn path_of(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-journal");
    PathBuf::from(name)
}

/// The schema versions whose journal records this build applies: the journal was last written
/// at version 4, and version 5 changed no record a journal holds (it only added tables).
const JOURNAL_SCHEMAS: std::ops::RangeInclusive<u64> = 4..=SCHEMA_VERSION;

/// Applies the journal beside `db_path` (if there is one) to `db`, in one durable commit, and
/// removes it. Called by [`crate::Store::open`] once the file is at the current schema; records
/// of a schema outside [`JOURNAL_SCHEMAS`] are refused.
///
/// Errors: the journal cannot be read or removed; its pending records were written by a build of
/// another schema version ([`Error::JournalSchema`]: that build must apply them) or miss some;
/// the commit failed. The journal is then left in place, so nothing acknowledged is lost.
pub(crate) fn apply(db: &redb::Database, db_path: &Path) -> Result<()> {
    let path = path_of(db_path);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let applied = included_lsn(db)?;
    let pending: Vec<Record> = records(&bytes)?
        .into_iter()
        .filter(|r| r.lsn > applied)
        .collect();
    if let Some(other) = pending
        .iter()
        .find(|r| !JOURNAL_SCHEMAS.contains(&u64::from(r.schema)))
    {
        return Err(Error::JournalSchema {
            found: other.schema.into(),
        });
    }
    if let Some(first) = pending.first()
        && first.lsn != applied + 1
    {
        return Err(Error::Database(format!(
            "the journal misses records {} to {}",
            applied + 1,
            first.lsn - 1
        )));
    }
    if let Some(last) = pending.last() {
        let txn = WriteTxn::plain(db.begin_write()?);
        {
            let mut ledger = LedgerTables::open(&txn)?;
            for change in pending.iter().flat_map(|r| &r.changes) {
                match change {
                    Redo::PutSpool(spool) => ledger.put_spool(spool)?,
                    Redo::Append(movement) => ledger.append(movement)?,
                }
            }
        }
        txn.open_table(tables::META)?.insert(LSN_KEY, last.lsn)?;
        txn.commit()?;
        tracing::info!(
            records = pending.len(),
            "an earlier build's journal was applied"
        );
    }
    std::fs::remove_file(&path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// `meta.journal_lsn` of the last durable commit (0 when none was journaled).
fn included_lsn(db: &redb::Database) -> Result<u64> {
    use redb::ReadableDatabase;
    let txn = db.begin_read()?;
    match txn.open_table(tables::META) {
        Ok(meta) => Ok(meta.get(LSN_KEY)?.map_or(0, |v| v.value())),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(0),
        Err(e) => Err(e.into()),
    }
}

/// The records in `bytes`, oldest first, up to the first one that is torn, older or missing.
///
/// Errors: a record that checks out cannot be decoded.
fn records(bytes: &[u8]) -> Result<Vec<Record>> {
    let mut records: Vec<Record> = Vec::new();
    let mut at = 0;
    while let Some((schema, lsn, payload, len)) = parse(&bytes[at..]) {
        if records.last().is_some_and(|last| lsn != last.lsn + 1) {
            break;
        }
        records.push(Record {
            lsn,
            schema,
            changes: decode("journal", payload)?,
        });
        at += len;
    }
    Ok(records)
}

/// The record at the start of `bytes` (schema, sequence number, payload) and its length, if a
/// whole, intact one is there.
fn parse(bytes: &[u8]) -> Option<(u32, u64, &[u8], usize)> {
    let header = bytes.get(..HEADER)?;
    if &header[..4] != MAGIC {
        return None;
    }
    let u32_at = |i: usize| Some(u32::from_le_bytes(header.get(i..i + 4)?.try_into().ok()?));
    let len = usize::try_from(u32_at(16)?).ok()?;
    let end = HEADER.checked_add(len)?;
    let payload = bytes.get(HEADER..end)?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&header[4..20]);
    crc.update(payload);
    if crc.finalize() != u32_at(20)? {
        return None;
    }
    let lsn = u64::from_le_bytes(header.get(8..16)?.try_into().ok()?);
    Some((u32_at(4)?, lsn, payload, end))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ledger;
    use crate::repo;
    use crate::{Id, Store, StoreOptions};
    use rust_decimal::Decimal;
    use std::str::FromStr;

    /// Two bookings on one spool (−3 g, then +5 g, from 1,000 g), journaled by the last build
    /// that had the journal (`storage::journal` at f52dae4) and never checkpointed.
    pub(crate) const FIXTURE: &[u8] = include_bytes!("../tests/fixtures/legacy.redb-journal");

    fn id(text: &str) -> Id {
        Id::from_str(text).unwrap()
    }

    #[test]
    fn an_earlier_builds_journal_is_applied_once_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        drop(Store::open(&path, StoreOptions::default()).unwrap());
        std::fs::write(path_of(&path), FIXTURE).unwrap();

        let store = Store::open(&path, StoreOptions::default()).unwrap();
        assert!(!path_of(&path).exists(), "the journal was removed");
        let read = store.begin_read().unwrap();
        let spool: Spool = repo::get(&read, id("01a212a8-55f7-72b2-9711-627f37fc4dd2"))
            .unwrap()
            .unwrap();
        assert_eq!(spool.remaining_grams, Decimal::from(1002));
        let spool_movements = ledger::movement_page(&read, spool.id, 0, 10).unwrap();
        assert_eq!(
            spool_movements,
            (
                vec![
                    id("01a212a8-55fa-75e7-a6d6-f57daf716be1"),
                    id("01a212a8-55f7-72b2-9711-6282a6dcee13")
                ],
                2
            )
        );
        let grams: Vec<Decimal> = spool_movements
            .0
            .iter()
            .map(|m| {
                let m: Movement = repo::get(&read, *m).unwrap().unwrap();
                m.grams
            })
            .collect();
        assert_eq!(grams, [Decimal::from(5), Decimal::from(-3)]);
        drop((read, store));

        // The same journal again (a copy restored by hand): its records are included already.
        std::fs::write(path_of(&path), FIXTURE).unwrap();
        let read = Store::open(&path, StoreOptions::default())
            .unwrap()
            .begin_read()
            .unwrap();
        assert_eq!(ledger::movement_count(&read).unwrap(), 2);
        assert!(!path_of(&path).exists());
    }

    #[test]
    fn a_journal_of_another_schema_version_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        let mut bytes = FIXTURE.to_vec();
        // The first record's schema version field, and its checksum over it.
        bytes[4..8].copy_from_slice(&(SCHEMA_VERSION as u32 + 1).to_le_bytes());
        let len = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&bytes[4..20]);
        crc.update(&bytes[24..24 + len]);
        bytes[20..24].copy_from_slice(&crc.finalize().to_le_bytes());
        std::fs::write(path_of(&path), bytes).unwrap();
        let err = Store::open(&path, StoreOptions::default()).unwrap_err();
        assert!(
            matches!(err, Error::JournalSchema { found } if found == SCHEMA_VERSION + 1),
            "{err}"
        );
        assert!(path_of(&path).exists(), "kept for the build that wrote it");
    }

    #[test]
    fn a_torn_record_ends_the_records() {
        let mut torn = FIXTURE.to_vec();
        let last = torn.len() - 1;
        torn[last] ^= 0xff;
        let lsns = |bytes: &[u8]| {
            records(bytes)
                .unwrap()
                .iter()
                .map(|r| r.lsn)
                .collect::<Vec<_>>()
        };
        assert_eq!(lsns(FIXTURE), [1, 2]);
        assert_eq!(lsns(&torn), [1]);
        assert_eq!(lsns(&[]), Vec::<u64>::new());
    }
}
