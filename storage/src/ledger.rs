//! The ledger's tables behind one typed repository: spools, movements, a spool's movements in
//! booking order, and the operation keys that make a booking idempotent.
//!
//! Booking is the hottest write of the appliance, so [`LedgerTables`] opens each of its four
//! tables once per transaction and every read and write of a booking goes through them. The
//! rules (signs, limits, "never below zero", idempotency) are the caller's: this module only
//! stores and finds.

use crate::records::{Movement, Spool};
use crate::repo::Tx;
use crate::{Id, Result, WriteTxn, decode, encode, tables};
use redb::{ReadableTable, ReadableTableMetadata, Table};

/// The ledger's four tables, open in one write transaction.
pub struct LedgerTables<'t> {
    txn: &'t WriteTxn,
    spools: Table<'t, [u8; 16], &'static [u8]>,
    movements: Table<'t, [u8; 16], &'static [u8]>,
    by_spool: Table<'t, ([u8; 16], [u8; 16]), ()>,
    keys: Table<'t, [u8; 16], [u8; 16]>,
}

impl<'t> LedgerTables<'t> {
    /// Opens the tables in `txn`. Errors: a table is already open in `txn`, or the store fails.
    pub fn open(txn: &'t WriteTxn) -> Result<Self> {
        Ok(LedgerTables {
            txn,
            spools: txn.open_table(tables::SPOOLS)?,
            movements: txn.open_table(tables::MOVEMENTS)?,
            by_spool: txn.open_table(tables::SPOOL_MOVEMENTS)?,
            keys: txn.open_table(tables::MOVEMENT_KEYS)?,
        })
    }

    /// The spool `id`, if any.
    pub fn spool(&self, id: Id) -> Result<Option<Spool>> {
        let found = self.spools.get(id.bytes())?;
        found.map(|v| decode("spools", v.value())).transpose()
    }

    /// Stores `spool` (its remaining grams included).
    pub fn put_spool(&mut self, spool: &Spool) -> Result<()> {
        let bytes = encode("spools", spool)?;
        let old = self.spools.insert(spool.id.bytes(), bytes.as_slice())?;
        if self.txn.is_recording() {
            let old = old
                .map(|v| decode::<Spool>("spools", v.value()))
                .transpose()?;
            self.txn.note("spools", spool.id, old.as_ref(), Some(spool));
        }
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
        self.txn
            .note("movements", movement.id, None, Some(movement));
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
mod tests {
    use super::*;
    use crate::records::MovementKind;
    use crate::{Store, StoreOptions, Timestamp};
    use rust_decimal::Decimal;

    fn spool() -> Spool {
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
}
