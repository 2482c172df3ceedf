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

/// A write transaction of one batch of commands. Reads and writes go through it as through
/// redb's transaction (it dereferences to one); rule functions that change derived state note
/// it here.
pub struct Txn {
    inner: WriteTransaction,
    prints: RefCell<Vec<(Option<Print>, Print)>>,
    /// The ledger changes, when the transaction commits through the journal.
    journal: Option<RefCell<Vec<Redo>>>,
}

impl Txn {
    /// Wraps a fresh write transaction with an empty change log.
    pub fn new(inner: WriteTransaction) -> Txn {
        Txn {
            inner,
            prints: RefCell::new(Vec::new()),
            journal: None,
        }
    }

    /// As [`Txn::new`], for a batch of [`crate::command::Command::JOURNALED`] commands: it logs
    /// their ledger changes, and [`Txn::commit_to`] commits through the store's journal.
    pub fn journaled(inner: WriteTransaction) -> Txn {
        Txn {
            journal: Some(RefCell::default()),
            ..Txn::new(inner)
        }
    }

    /// The ledger's tables, open in this transaction (logging their changes when it is
    /// journaled). Errors: a ledger table is already open, or the store fails.
    pub fn ledger(&self) -> storage::Result<LedgerTables<'_>> {
        match &self.journal {
            Some(log) => LedgerTables::open_logged(&self.inner, log),
            None => LedgerTables::open(&self.inner),
        }
    }

    /// Notes that `print` was stored in this transaction, as it now is, over `old` (`None` for
    /// a new print).
    pub fn print_changed(&self, old: Option<&Print>, print: &Print) {
        self.prints.borrow_mut().push((old.cloned(), print.clone()));
    }

    /// Commits durably and returns the prints this transaction changed (each as it was and as
    /// it is), in write order.
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit(self) -> storage::Result<Vec<(Option<Print>, Print)>> {
        self.inner.commit()?;
        Ok(self.prints.into_inner())
    }

    /// As [`Txn::commit`], through `store`, the store it was begun on: durably
    /// ([`Store::commit`]), or through its journal ([`Store::commit_journaled`]) when the
    /// transaction is [`Txn::journaled`].
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit_to(self, store: &Store) -> storage::Result<Vec<(Option<Print>, Print)>> {
        match self.journal {
            Some(log) => store.commit_journaled(self.inner, &log.into_inner())?,
            None => store.commit(self.inner)?,
        }
        Ok(self.prints.into_inner())
    }

    /// Discards every write of this transaction and its change log.
    pub fn abort(self) {
        let _ = self.inner.abort();
    }
}

impl Deref for Txn {
    type Target = WriteTransaction;

    fn deref(&self) -> &WriteTransaction {
        &self.inner
    }
}

impl Tx for Txn {
    type Table<'a, K: Key + 'static, V: Value + 'static> = Table<'a, K, V>;

    fn table<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> storage::Result<Table<'_, K, V>> {
        self.inner.table(def)
    }
}
