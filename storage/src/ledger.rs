//! The ledger's tables behind one typed repository: spools, movements, a spool's movements in
//! booking order, and the operation keys that make a booking idempotent.
//!
//! Booking is the hottest write of the appliance, so [`LedgerTables`] opens each of its four
//! tables once per transaction and every read and write of a booking goes through them. The
//! rules (signs, limits, "never below zero", idempotency) are the caller's: this module only
//! stores and finds.

use crate::journal::Redo;
use crate::records::{Movement, Spool};
use crate::repo::Tx;
use crate::{Id, Result, decode, encode, tables};
use redb::{ReadableTable, ReadableTableMetadata, Table, WriteTransaction};
use std::collections::BTreeMap;

/// The ledger's four tables, open in one write transaction.
pub struct LedgerTables<'t> {
    spools: Table<'t, [u8; 16], &'static [u8]>,
    movements: Table<'t, [u8; 16], &'static [u8]>,
    by_spool: Table<'t, ([u8; 16], [u8; 16]), ()>,
    keys: Table<'t, [u8; 16], [u8; 16]>,
    /// The changes so far, when they are logged for the journal.
    log: Option<Log>,
}

/// The changes of logged tables ([`LedgerTables::open_logged`]).
#[derive(Default)]
struct Log {
    /// Each spool stored, as last stored, by id: held here and written to its table once, by
    /// [`LedgerTables::finish`].
    spools: BTreeMap<Id, Spool>,
    /// The movements appended (already in their tables), in order.
    appended: Vec<Movement>,
}

impl<'t> LedgerTables<'t> {
    /// Opens the tables in `txn`. Errors: a table is already open in `txn`, or the store fails.
    pub fn open(txn: &'t WriteTransaction) -> Result<Self> {
        Ok(LedgerTables {
            spools: txn.open_table(tables::SPOOLS)?,
            movements: txn.open_table(tables::MOVEMENTS)?,
            by_spool: txn.open_table(tables::SPOOL_MOVEMENTS)?,
            keys: txn.open_table(tables::MOVEMENT_KEYS)?,
            log: None,
        })
    }

    /// Opens the tables in `txn` and notes every change, for [`crate::Store::commit_journaled`]
    /// ([`LedgerTables::finish`]). A spool stored several times (a batch of bookings on one
    /// spool) is noted and written once, as last stored, when the tables are finished: reads
    /// through these tables see it at once, reads of its table directly only after
    /// [`LedgerTables::finish`].
    ///
    /// Errors: as [`LedgerTables::open`].
    pub fn open_logged(txn: &'t WriteTransaction) -> Result<Self> {
        let mut tables = Self::open(txn)?;
        tables.log = Some(Log::default());
        Ok(tables)
    }

    /// Writes the spools held since [`LedgerTables::open_logged`] to their table and closes the
    /// tables; returns the changes noted, spools first by id (none when opened with
    /// [`LedgerTables::open`], which writes through).
    ///
    /// Errors: the store fails (the transaction must then be aborted).
    pub fn finish(mut self) -> Result<Vec<Redo>> {
        let Some(log) = self.log.take() else {
            return Ok(Vec::new());
        };
        for spool in log.spools.values() {
            self.write_spool(spool)?;
        }
        let spools = log.spools.into_values().map(Redo::PutSpool);
        Ok(spools
            .chain(log.appended.into_iter().map(Redo::Append))
            .collect())
    }

    /// Applies `change` again, as a journaled transaction made it.
    ///
    /// Errors: the store fails.
    pub fn redo(&mut self, change: &Redo) -> Result<()> {
        match change {
            Redo::PutSpool(spool) => self.put_spool(spool),
            Redo::Append(movement) => self.append(movement),
        }
    }

    /// The spool `id`, if any, as last stored through these tables.
    pub fn spool(&self, id: Id) -> Result<Option<Spool>> {
        if let Some(held) = self.log.as_ref().and_then(|log| log.spools.get(&id)) {
            return Ok(Some(held.clone()));
        }
        let found = self.spools.get(id.bytes())?;
        found.map(|v| decode("spools", v.value())).transpose()
    }

    /// Stores `spool` (its remaining grams included): at once, or, when logged, at
    /// [`LedgerTables::finish`].
    pub fn put_spool(&mut self, spool: &Spool) -> Result<()> {
        let Some(log) = &mut self.log else {
            return self.write_spool(spool);
        };
        match log.spools.get_mut(&spool.id) {
            Some(held) => held.clone_from(spool),
            None => {
                log.spools.insert(spool.id, spool.clone());
            }
        }
        Ok(())
    }

    fn write_spool(&mut self, spool: &Spool) -> Result<()> {
        let bytes = encode("spools", spool)?;
        self.spools.insert(spool.id.bytes(), bytes.as_slice())?;
        Ok(())
    }

    /// The movement booked under operation key `key`, if any.
    pub fn movement_by_key(&self, key: Id) -> Result<Option<Movement>> {
        let Some(id) = self.keys.get(key.bytes())?.map(|v| v.value()) else {
            return Ok(None);
        };
        let found = self.movements.get(id)?;
        found.map(|v| decode("movements", v.value())).transpose()
    }

    /// Appends `movement` to its spool's ledger (and records its operation key). Movements are
    /// never changed or deleted.
    pub fn append(&mut self, movement: &Movement) -> Result<()> {
        let bytes = encode("movements", movement)?;
        self.movements
            .insert(movement.id.bytes(), bytes.as_slice())?;
        self.by_spool
            .insert((movement.spool_id.bytes(), movement.id.bytes()), ())?;
        if let Some(key) = movement.operation_key {
            self.keys.insert(key.bytes(), movement.id.bytes())?;
        }
        if let Some(log) = &mut self.log {
            log.appended.push(movement.clone());
        }
        Ok(())
    }
}

/// The keys of spool `spool_id`'s entries in the by-spool index.
fn spool_range(spool_id: Id) -> std::ops::RangeInclusive<([u8; 16], [u8; 16])> {
    (spool_id.bytes(), [0u8; 16])..=(spool_id.bytes(), [0xff; 16])
}

/// The ids of spool `spool_id`'s movements, oldest first (ids are time-ordered).
#[cfg(test)]
pub(crate) fn movement_ids(tx: &impl Tx, spool_id: Id) -> Result<Vec<Id>> {
    let index = tx.table(tables::SPOOL_MOVEMENTS)?;
    let mut ids = Vec::new();
    for entry in index.range(spool_range(spool_id))? {
        ids.push(Id::from_bytes(entry?.0.value().1));
    }
    Ok(ids)
}

/// Up to `take` ids of spool `spool_id`'s movements, newest first, after skipping the `skip`
/// newest; and how many movements the spool has in all. Holds only the ids it returns (a spool's
/// ledger can be long: a page of it must not cost memory in its length).
///
/// Errors: the store fails.
pub fn movement_page(
    tx: &impl Tx,
    spool_id: Id,
    skip: usize,
    take: usize,
) -> Result<(Vec<Id>, u64)> {
    let index = tx.table(tables::SPOOL_MOVEMENTS)?;
    let (mut ids, mut total) = (Vec::new(), 0u64);
    // One pass, newest first: every entry counts toward the total, the page's are kept.
    for entry in index.range(spool_range(spool_id))?.rev() {
        let entry = entry?;
        if (skip..skip.saturating_add(take)).contains(&(total as usize)) {
            ids.push(Id::from_bytes(entry.0.value().1));
        }
        total += 1;
    }
    Ok((ids, total))
}

/// Number of movements booked in all.
pub fn movement_count(tx: &impl Tx) -> Result<u64> {
    Ok(tx.table(tables::MOVEMENTS)?.len()?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::records::MovementKind;
    use crate::{Store, StoreOptions, Timestamp};
    use rust_decimal::Decimal;

    pub(crate) fn spool() -> Spool {
        Spool {
            id: Id::new(),
            code: "SP-1".into(),
            filament_id: Id::new(),
            purchase_price: Decimal::from(20),
            initial_net_weight_grams: Decimal::from(1000),
            purchase_lot: None,
            location: None,
            acquired_at: None,
            remaining_grams: Decimal::from(1000),
            archived: false,
            created_at: Timestamp(1),
            updated_at: Timestamp(1),
        }
    }

    fn movement(spool_id: Id, key: Option<Id>) -> Movement {
        Movement {
            id: Id::new(),
            spool_id,
            kind: MovementKind::Correction,
            grams: Decimal::new(-5, 1),
            note: None,
            operation_key: key,
            print_id: None,
            usage_id: None,
            created_at: Timestamp(2),
        }
    }

    #[test]
    fn appended_movements_are_found_by_spool_and_by_key() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let (spool, key) = (spool(), Id::new());
        let (first, second) = (movement(spool.id, Some(key)), movement(spool.id, None));
        let other = movement(Id::new(), None);
        let txn = store.begin_write().unwrap();
        {
            let mut ledger = LedgerTables::open(&txn).unwrap();
            ledger.put_spool(&spool).unwrap();
            for m in [&first, &other, &second] {
                ledger.append(m).unwrap();
            }
            assert_eq!(ledger.spool(spool.id).unwrap(), Some(spool.clone()));
            assert_eq!(ledger.movement_by_key(key).unwrap(), Some(first.clone()));
            assert_eq!(ledger.movement_by_key(Id::new()).unwrap(), None);
        }
        txn.commit().unwrap();
        let read = store.begin_read().unwrap();
        assert_eq!(
            movement_ids(&read, spool.id).unwrap(),
            vec![first.id, second.id]
        );
        assert_eq!(movement_count(&read).unwrap(), 3);
    }

    #[test]
    fn a_page_of_a_spools_movements_is_newest_first_with_the_spools_total() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let (spool, other) = (spool(), Id::new());
        let booked: Vec<Movement> = (0..5).map(|_| movement(spool.id, None)).collect();
        let txn = store.begin_write().unwrap();
        {
            let mut ledger = LedgerTables::open(&txn).unwrap();
            for m in &booked {
                ledger.append(m).unwrap();
                ledger.append(&movement(other, None)).unwrap();
            }
        }
        txn.commit().unwrap();
        let read = store.begin_read().unwrap();
        let newest_first: Vec<Id> = booked.iter().rev().map(|m| m.id).collect();
        let page = |skip, take| movement_page(&read, spool.id, skip, take).unwrap();
        assert_eq!(page(0, 2), (newest_first[..2].to_vec(), 5));
        assert_eq!(page(2, 2), (newest_first[2..4].to_vec(), 5));
        assert_eq!(page(4, 2), (newest_first[4..].to_vec(), 5));
        assert_eq!(page(10, 2), (Vec::new(), 5));
        assert_eq!(
            movement_page(&read, Id::new(), 0, 25).unwrap(),
            (Vec::new(), 0)
        );
    }

    #[test]
    fn logged_tables_hold_a_spool_and_write_it_once_when_finished() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let mut spool = spool();
        let txn = store.begin_write().unwrap();
        LedgerTables::open(&txn).unwrap().put_spool(&spool).unwrap();
        let mut ledger = LedgerTables::open_logged(&txn).unwrap();
        let first = movement(spool.id, None);
        ledger.append(&first).unwrap();
        spool.remaining_grams = Decimal::from(900);
        ledger.put_spool(&spool).unwrap();
        spool.remaining_grams = Decimal::from(800);
        ledger.put_spool(&spool).unwrap();
        assert_eq!(ledger.spool(spool.id).unwrap(), Some(spool.clone()));
        let stored = ledger
            .spools
            .get(spool.id.bytes())
            .unwrap()
            .unwrap()
            .value()
            .to_vec();
        let stored: Spool = decode("spools", &stored).unwrap();
        assert_eq!(
            stored.remaining_grams,
            Decimal::from(1000),
            "held, not yet written"
        );
        assert_eq!(
            ledger.finish().unwrap(),
            [Redo::PutSpool(spool.clone()), Redo::Append(first)]
        );
        assert_eq!(crate::repo::get(&txn, spool.id).unwrap(), Some(spool));
    }

    /// Books `grams` on `spool` through the journal, as the ledger writer does.
    pub(crate) fn book_journaled(store: &Store, spool: &mut Spool, grams: i64) -> Movement {
        let txn = store.begin_write().unwrap();
        let mut m = movement(spool.id, Some(Id::new()));
        m.grams = Decimal::from(grams);
        let mut ledger = LedgerTables::open_logged(&txn).unwrap();
        ledger.append(&m).unwrap();
        spool.remaining_grams += m.grams;
        ledger.put_spool(spool).unwrap();
        // Stored again unchanged, as a batch of two bookings on one spool stores it twice.
        ledger.put_spool(spool).unwrap();
        let changes = ledger.finish().unwrap();
        assert_eq!(changes.len(), 2, "a spool stored twice is noted once");
        store.commit_journaled(txn, &changes).unwrap();
        m
    }

    /// The files as a power cut leaves them: the database at its last durable commit, the
    /// journal as synced.
    pub(crate) fn copy_files(from: &std::path::Path, to: &std::path::Path) {
        std::fs::copy(from, to).unwrap();
        std::fs::copy(crate::journal::path_of(from), crate::journal::path_of(to)).unwrap();
    }

    #[test]
    fn journaled_bookings_survive_a_crash_and_a_checkpoint_rewinds_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.redb");
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let mut spool = spool();
        let txn = store.begin_write().unwrap();
        LedgerTables::open(&txn).unwrap().put_spool(&spool).unwrap();
        store.commit(txn).unwrap();
        let booked: Vec<Id> = (1..=3)
            .map(|g| book_journaled(&store, &mut spool, -g).id)
            .collect();

        let crashed = dir.path().join("crashed.redb");
        copy_files(&path, &crashed);
        let records = crate::journal::read(&crate::journal::path_of(&crashed)).unwrap();
        assert_eq!(records.iter().map(|r| r.lsn).collect::<Vec<_>>(), [1, 2, 3]);
        let without_journal = dir.path().join("without.redb");
        std::fs::copy(&path, &without_journal).unwrap();
        let read = Store::open(&without_journal, StoreOptions::default())
            .unwrap()
            .begin_read()
            .unwrap();
        assert!(
            movement_ids(&read, spool.id).unwrap().is_empty(),
            "the bookings were not in a durable commit: only the journal carries them"
        );

        let reopened = Store::open(&crashed, StoreOptions::default()).unwrap();
        let read = reopened.begin_read().unwrap();
        assert_eq!(movement_ids(&read, spool.id).unwrap(), booked);
        assert_eq!(repo_spool(&read, spool.id), spool);
        drop((read, reopened));
        // Applied once: opening again finds them included and applies nothing twice.
        let read = Store::open(&crashed, StoreOptions::default())
            .unwrap()
            .begin_read()
            .unwrap();
        assert_eq!(movement_count(&read).unwrap(), 3);

        store.checkpoint().unwrap();
        let fourth = book_journaled(&store, &mut spool, -4).id;
        let records = crate::journal::read(&crate::journal::path_of(&path)).unwrap();
        assert_eq!(
            records.iter().map(|r| r.lsn).collect::<Vec<_>>(),
            [4],
            "the checkpoint rewound the journal"
        );
        let after = dir.path().join("after.redb");
        copy_files(&path, &after);
        let read = Store::open(&after, StoreOptions::default())
            .unwrap()
            .begin_read()
            .unwrap();
        assert_eq!(
            movement_ids(&read, spool.id).unwrap(),
            [booked, vec![fourth]].concat()
        );
    }

    #[test]
    fn a_journal_of_another_schema_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.redb");
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let mut spool = spool();
        book_journaled(&store, &mut spool, 1);
        let crashed = dir.path().join("crashed.redb");
        copy_files(&path, &crashed);
        let journal = crate::journal::path_of(&crashed);
        let mut bytes = std::fs::read(&journal).unwrap();
        // The schema version field, and the checksum over it.
        bytes[4..8].copy_from_slice(&(crate::SCHEMA_VERSION as u32 + 1).to_le_bytes());
        let len = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
        let crc = crate::journal::checksum(&bytes[4..20], &bytes[24..24 + len]);
        bytes[20..24].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&journal, bytes).unwrap();
        let err = Store::open(&crashed, StoreOptions::default()).unwrap_err();
        assert!(
            matches!(err, crate::Error::JournalSchema { found } if found == crate::SCHEMA_VERSION + 1),
            "{err}"
        );
    }

    fn repo_spool(read: &redb::ReadTransaction, id: Id) -> Spool {
        crate::repo::get(read, id).unwrap().unwrap()
    }

    #[test]
    fn a_journal_that_misses_records_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.redb");
        drop(Store::open(&path, StoreOptions::default()).unwrap());
        // Records 5 and on, while the database includes none: 1 to 4 are missing.
        let mut journal = crate::journal::Journal::new(crate::journal::path_of(&path), 4);
        let record = journal.record(&[Redo::PutSpool(spool())]).unwrap().unwrap();
        journal.write(&record).unwrap();
        let err = Store::open(&path, StoreOptions::default()).unwrap_err();
        assert!(err.to_string().contains("misses records 1 to 4"), "{err}");
    }
}
