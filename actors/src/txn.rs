//! The write transaction a command runs in: redb's [`WriteTransaction`] plus the log of derived
//! state it changes.
//!
//! Every print written through [`crate::prints`] is noted here ([`Txn::print_changed`]); after
//! the commit, the writer that committed applies the log to the print list projection
//! ([`crate::prints::PrintIndex`]). So the projection follows every path that changes a print
//! (API, UI, demo data, an outcome booked through another aggregate), and nobody has to
//! remember it. A refused or failed transaction's log is dropped with it.

use redb::{Key, Table, TableDefinition, Value};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::ops::Deref;
use storage::journal::Redo;
use storage::ledger::LedgerTables;
use storage::records::{Print, Settings, SpoolLink};
use storage::repo::{self, Tx};
use storage::{Id, Store, WriteTransaction};

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

/// What a journaled transaction read of the records its commands never write: each read once,
/// then held until the commit (every booking of a batch checks both).
#[derive(Default)]
struct Held {
    /// The settings (`None` before setup).
    settings: OnceCell<Option<Settings>>,
    /// Spool-manager links by their spool (`None`: the spool has none).
    links: RefCell<HashMap<Id, Option<SpoolLink>>>,
}

/// A write transaction of one batch of commands. Reads and writes go through it as through
/// redb's transaction (it dereferences to one); rule functions that change derived state note
/// it here.
pub struct Txn {
    inner: Inner,
    prints: RefCell<ChangedPrints>,
    /// It commits through the journal: its ledger tables stay open and log their changes, and
    /// it holds what it read in `held`.
    journaled: bool,
    held: Held,
}

impl Txn {
    /// Wraps a fresh write transaction with an empty change log.
    pub fn new(inner: WriteTransaction) -> Txn {
        Txn {
            inner: Inner::new(inner, |_| RefCell::new(None)),
            prints: RefCell::new(Vec::new()),
            journaled: false,
            held: Held::default(),
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

    /// The settings (`None` before setup). A journaled transaction reads them at its first
    /// call and holds them, as its commands never write them
    /// ([`crate::command::Command::JOURNALED`]); any other reads them at each call.
    ///
    /// Errors: the store fails.
    pub fn settings(&self) -> storage::Result<Option<Settings>> {
        if !self.journaled {
            return repo::settings(self);
        }
        if let Some(held) = self.held.settings.get() {
            return Ok(held.clone());
        }
        let settings = repo::settings(self)?;
        Ok(self.held.settings.get_or_init(|| settings).clone())
    }

    /// The spool-manager link of spool `spool_id`, if it has one; read and held as
    /// [`Txn::settings`].
    ///
    /// Errors: the store fails.
    pub fn spool_link(&self, spool_id: Id) -> storage::Result<Option<SpoolLink>> {
        if !self.journaled {
            return repo::get(self, spool_id);
        }
        if let Some(held) = self.held.links.borrow().get(&spool_id) {
            return Ok(held.clone());
        }
        let link: Option<SpoolLink> = repo::get(self, spool_id)?;
        let mut links = self.held.links.borrow_mut();
        Ok(links.entry(spool_id).or_insert(link).clone())
    }

    /// Notes that `print` was stored in this transaction, as it now is, over `old` (`None` for
    /// a new print).
    pub fn print_changed(&self, old: Option<&Print>, print: &Print) {
        self.prints.borrow_mut().push((old.cloned(), print.clone()));
    }

    /// The redb transaction with the ledger tables finished and closed, and the ledger changes
    /// they noted.
    ///
    /// Errors: the tables could not write what they held (the transaction is aborted).
    fn close(self) -> storage::Result<(WriteTransaction, Vec<Redo>, ChangedPrints)> {
        let changes = self.inner.with_dependent(|_, open| {
            open.borrow_mut()
                .take()
                .map_or(Ok(Vec::new()), LedgerTables::finish)
        });
        let txn = self.inner.into_owner();
        match changes {
            Ok(changes) => Ok((txn, changes, self.prints.into_inner())),
            Err(e) => {
                let _ = txn.abort();
                Err(e)
            }
        }
    }

    /// Commits durably and returns the prints this transaction changed (each as it was and as
    /// it is), in write order.
    ///
    /// Errors: the commit failed (nothing of it is visible).
    pub fn commit(self) -> storage::Result<ChangedPrints> {
        let (txn, _, prints) = self.close()?;
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
        let (txn, changes, prints) = self.close()?;
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

    fn settings(spool_management_enabled: bool) -> Settings {
        Settings {
            currency: "EUR".into(),
            default_language: "en-US".into(),
            electricity_price: Decimal::new(32, 2),
            print_series_enabled: false,
            spool_management_enabled,
        }
    }

    #[test]
    fn a_journaled_transaction_reads_settings_and_links_once_and_any_other_at_each_call() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let spool_id = Id::new();
        for journaled in [true, false] {
            let txn = store.begin_write().unwrap();
            repo::put_settings(&txn, &settings(true)).unwrap();
            txn.commit().unwrap();
            let txn = match store.begin_write().unwrap() {
                txn if journaled => Txn::journaled(txn),
                txn => Txn::new(txn),
            };
            assert_eq!(txn.settings().unwrap(), Some(settings(true)));
            assert_eq!(txn.spool_link(spool_id).unwrap(), None);
            // Written behind the transaction's back, as no journaled command may.
            repo::put_settings(&txn, &settings(false)).unwrap();
            let link = SpoolLink {
                spool_id,
                remote_id: 7,
                authority: storage::records::Authority::Native,
                remote_remaining_grams: None,
                remote_state: storage::records::RemoteState::Active,
                synced_at: None,
                sync_error: None,
                linked_at: Timestamp(1),
            };
            repo::put(&txn, &link).unwrap();
            let (settings_now, link_now) = if journaled {
                (settings(true), None)
            } else {
                (settings(false), Some(link))
            };
            assert_eq!(txn.settings().unwrap(), Some(settings_now), "{journaled}");
            assert_eq!(txn.spool_link(spool_id).unwrap(), link_now, "{journaled}");
            txn.abort();
        }
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
