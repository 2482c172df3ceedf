//! The write transaction a command runs in: the store's [`WriteTxn`] (which notes every change
//! of a record) plus the log of derived state it changes, and the journal entry each command
//! appends ([`Txn::journal`]).
//!
//! Every print written through [`crate::prints`] is noted here ([`Txn::print_changed`]); after
//! the commit, the writer that committed applies the log to the print list projection
//! ([`crate::projection::PrintIndex`]). So the projection follows every path that changes a print
//! (API, UI, demo data, an outcome booked through another aggregate), and nobody has to
//! remember it. A refused or failed transaction's log is dropped with it.

use jiff::tz::TimeZone;
use redb::{Key, Table, TableDefinition, Value};
use std::cell::RefCell;
use std::ops::Deref;
use storage::WriteTxn;
use storage::journal::{self, Draft, Who};
use storage::ledger::LedgerTables;
use storage::records::Print;
use storage::repo::Tx;

/// The prints a transaction changed, each as it was (`None` when new) and as it is, in write
/// order.
pub type ChangedPrints = Vec<(Option<Print>, Print)>;

/// A write transaction of one batch of commands. Reads and writes go through it as through
/// redb's transaction (it dereferences to one); rule functions that change derived state note
/// it here.
pub struct Txn {
    inner: WriteTxn,
    prints: RefCell<ChangedPrints>,
    /// The journal entries of the commands applied so far, appended at the commit.
    entries: RefCell<Vec<Draft>>,
}

impl Txn {
    /// Wraps a fresh write transaction with an empty change log.
    pub fn new(inner: WriteTxn) -> Txn {
        Txn {
            inner,
            prints: RefCell::new(Vec::new()),
            entries: RefCell::new(Vec::new()),
        }
    }

    /// Runs `work` with the ledger's four tables open in this transaction (closed again when it
    /// returns, so later code may open the same tables directly).
    ///
    /// Errors: a ledger table is already open in the transaction, or the store fails (both as
    /// `E::from(storage::Error)`); `work`'s own.
    pub fn with_ledger<T, E: From<storage::Error>>(
        &self,
        work: impl FnOnce(&mut LedgerTables<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        work(&mut LedgerTables::open(&self.inner)?)
    }

    /// Notes that `print` was stored in this transaction, as it now is, over `old` (`None` for
    /// a new print).
    pub fn print_changed(&self, old: Option<&Print>, print: &Print) {
        self.prints.borrow_mut().push((old.cloned(), print.clone()));
    }

    /// Keeps the journal entry of the command just applied: `who` ran `command` (its name), and
    /// the records its writes touched since the entry before ([`WriteTxn::take_changes`]). The
    /// batch's entries are appended together at [`Txn::commit`], in this transaction, so each
    /// is committed exactly when its command is; a command that changed nothing has none.
    pub fn journal(&self, who: &Who, command: &str, time_zone: &TimeZone) {
        let records = self.inner.take_changes();
        if records.is_empty() {
            return;
        }
        self.entries.borrow_mut().push(Draft {
            at: jiff::Timestamp::now(),
            time_zone: time_zone.clone(),
            who: who.clone(),
            command: command.to_string(),
            records,
        });
    }

    /// Commits durably (the data and redb's header synced before it returns) and returns the
    /// prints this transaction changed (each as it was and as it is), in write order.
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit(self) -> storage::Result<ChangedPrints> {
        journal::append_all(&self.inner, self.entries.into_inner())?;
        self.inner.commit()?;
        Ok(self.prints.into_inner())
    }

    /// Discards every write of this transaction and its change log.
    pub fn abort(self) {
        self.inner.abort();
    }
}

impl Deref for Txn {
    type Target = WriteTxn;

    fn deref(&self) -> &WriteTxn {
        &self.inner
    }
}

impl Tx for Txn {
    type Table<'a, K: Key + 'static, V: Value + 'static> = Table<'a, K, V>;

    fn table<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> storage::Result<Table<'_, K, V>> {
        Tx::table(&self.inner, def)
    }
}
