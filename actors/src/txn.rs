//! The write transaction a command runs in: redb's [`WriteTransaction`] plus the log of derived
//! state it changes.
//!
//! Every print written through [`crate::prints`] is noted here ([`Txn::print_changed`]); after
//! the commit, the writer that committed applies the log to the print list projection
//! ([`crate::prints::PrintIndex`]). So the projection follows every path that changes a print
//! (API, UI, demo data, an outcome booked through another aggregate), and nobody has to
//! remember it. A refused or failed transaction's log is dropped with it.

use redb::{Key, Table, TableDefinition, Value};
use std::cell::RefCell;
use std::ops::Deref;
use storage::journal::Redo;
use storage::ledger::LedgerTables;
use storage::records::Print;
use storage::repo::Tx;
use storage::{Store, WriteTransaction};

/// The ledger's tables as a journaled transaction keeps them: opened at its first booking, open
/// until it commits (opening four redb tables was most of a booking's work in the writer).
type OpenLedger<'t> = RefCell<Option<LedgerTables<'t>>>;

self_cell::self_cell!(
    /// A write transaction and the ledger tables open in it.
    struct Inner {
        owner: WriteTransaction,
        #[not_covariant]
        dependent: OpenLedger,
    }
);

/// The prints a transaction changed, each as it was (`None` when new) and as it is, in write
/// order.
pub type ChangedPrints = Vec<(Option<Print>, Print)>;

/// A write transaction of one batch of commands. Reads and writes go through it as through
/// redb's transaction (it dereferences to one); rule functions that change derived state note
/// it here.
pub struct Txn {
    inner: Inner,
    prints: RefCell<ChangedPrints>,
    /// It commits through the journal: its ledger tables stay open and log their changes.
    journaled: bool,
}

impl Txn {
    /// Wraps a fresh write transaction with an empty change log.
    pub fn new(inner: WriteTransaction) -> Txn {
        Txn {
            inner: Inner::new(inner, |_| RefCell::new(None)),
            prints: RefCell::new(Vec::new()),
            journaled: false,
        }
    }

    /// As [`Txn::new`], for a batch of [`crate::command::Command::JOURNALED`] commands: it logs
    /// their ledger changes, and [`Txn::commit_to`] commits through the store's journal. Its
    /// commands reach the ledger's tables through [`Txn::with_ledger`] alone, which keeps them
    /// open.
    pub fn journaled(inner: WriteTransaction) -> Txn {
        Txn {
            journaled: true,
            ..Txn::new(inner)
        }
    }

    /// Runs `work` with the ledger's tables open in this transaction. A journaled transaction
    /// opens them at its first call and keeps them open (logging their changes) until it
    /// commits; any other opens them for this call alone, so that code after it in the
    /// transaction may open the same tables directly.
    ///
    /// Errors: a ledger table is already open in the transaction, or the store fails (both as
    /// `E::from(storage::Error)`); `work`'s own.
    pub fn with_ledger<T, E: From<storage::Error>>(
        &self,
        work: impl FnOnce(&mut LedgerTables<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.inner.with_dependent(|txn, open| {
            if !self.journaled {
                return work(&mut LedgerTables::open(txn)?);
            }
            let mut open = open.borrow_mut();
            let tables = match &mut *open {
                Some(tables) => tables,
                None => open.insert(LedgerTables::open_logged(txn)?),
            };
            work(tables)
        })
    }

    /// Notes that `print` was stored in this transaction, as it now is, over `old` (`None` for
    /// a new print).
    pub fn print_changed(&self, old: Option<&Print>, print: &Print) {
        self.prints.borrow_mut().push((old.cloned(), print.clone()));
    }

    /// The redb transaction with the ledger tables closed, and the ledger changes they noted.
    fn close(self) -> (WriteTransaction, Vec<Redo>, ChangedPrints) {
        let changes = self.inner.with_dependent(|_, open| {
            open.borrow_mut()
                .take()
                .map(LedgerTables::into_changes)
                .unwrap_or_default()
        });
        (self.inner.into_owner(), changes, self.prints.into_inner())
    }

    /// Commits durably and returns the prints this transaction changed (each as it was and as
    /// it is), in write order.
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit(self) -> storage::Result<ChangedPrints> {
        let (txn, _, prints) = self.close();
        txn.commit()?;
        Ok(prints)
    }

    /// As [`Txn::commit`], through `store`, the store it was begun on: durably
    /// ([`Store::commit`]), or through its journal ([`Store::commit_journaled`]) when the
    /// transaction is [`Txn::journaled`].
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit_to(self, store: &Store) -> storage::Result<ChangedPrints> {
        let journaled = self.journaled;
        let (txn, changes, prints) = self.close();
        if journaled {
            store.commit_journaled(txn, &changes)?;
        } else {
            store.commit(txn)?;
        }
        Ok(prints)
    }

    /// Discards every write of this transaction and its change log.
    pub fn abort(self) {
        let _ = self.inner.into_owner().abort();
    }
}

impl Deref for Txn {
    type Target = WriteTransaction;

    fn deref(&self) -> &WriteTransaction {
        self.inner.borrow_owner()
    }
}

impl Tx for Txn {
    type Table<'a, K: Key + 'static, V: Value + 'static> = Table<'a, K, V>;

    fn table<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> storage::Result<Table<'_, K, V>> {
        self.inner.borrow_owner().table(def)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;
    use storage::records::Spool;
    use storage::{Id, StoreOptions, Timestamp, journal, tables};

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

    #[test]
    fn a_journaled_transaction_keeps_the_ledger_open_and_journals_what_it_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.redb");
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let mut spool = spool();
        let txn = Txn::journaled(store.begin_write().unwrap());
        txn.with_ledger(|ledger| ledger.put_spool(&spool)).unwrap();
        spool.remaining_grams = Decimal::from(900);
        txn.with_ledger(|ledger| {
            let stored = ledger.spool(spool.id)?.map(|s| s.remaining_grams);
            assert_eq!(stored, Some(Decimal::from(1000)), "the first call's write");
            ledger.put_spool(&spool)
        })
        .unwrap();
        assert!(
            txn.open_table(tables::SPOOLS).is_err(),
            "the ledger's tables stay open until the commit"
        );
        txn.commit_to(&store).unwrap();
        let records = journal::read(&journal::path_of(&path)).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(
            records[0].changes,
            [Redo::PutSpool(spool)],
            "one record, the spool noted once as last stored"
        );
    }

    #[test]
    fn any_other_transaction_opens_the_ledger_for_one_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.redb");
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let spool = spool();
        let txn = Txn::new(store.begin_write().unwrap());
        txn.with_ledger(|ledger| ledger.put_spool(&spool)).unwrap();
        assert!(
            txn.open_table(tables::SPOOLS).is_ok(),
            "closed after the call"
        );
        txn.commit_to(&store).unwrap();
        assert!(journal::read(&journal::path_of(&path)).unwrap().is_empty());
        let read = store.begin_read().unwrap();
        assert!(
            read.open_table(tables::SPOOLS)
                .unwrap()
                .get(spool.id.bytes())
                .unwrap()
                .is_some()
        );
    }
}
