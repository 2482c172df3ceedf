//! An in-memory projection of every print: the fields lists filter on, so a filtered page of
//! 100,000 prints is one pass over compact entries instead of decoding every record, and the
//! dashboard's aggregates ([`Board`]).
//!
//! It is loaded from the store at start-up (in the background: health answers at once, lists and
//! the dashboard wait for the load) and updated after every committed print write with
//! [`PrintIndex::upsert`], which gets the print as it was before the write too: an entry only
//! replaces one of a lower `version`, and the board moves the old figures out and the new ones
//! in. Should updates arrive out of commit order (two writers), the projection reloads itself
//! from a fresh snapshot under its lock, so it never drifts.
//!
//! It never takes the service down: a load that fails or panics leaves the projection *failed*
//! (every read of it answers [`crate::Error::Storage`], so the routes answer 503
//! `DATABASE_UNAVAILABLE`, and [`PrintIndex::failure`] tells health why) instead of waiting
//! forever; an update that panics half-way is thrown away and the projection is read again from
//! the store, which holds what was committed.

use super::board::Board;
use super::entry::{IndexEntry, Printers, Refs};
use super::figures;
use super::query::{Outcome, PrintFilter, Totals};
use crate::Result;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock, RwLock, RwLockWriteGuard};
use storage::records::{CostCategory, OutcomeStatus, Print};
use storage::repo::{self, Tx};
use storage::{Id, Store, Timestamp};

/// What the projection holds.
#[derive(Debug, Default)]
struct State {
    /// Entries sorted by id: ids are UUID v7, so new prints append at the end, and a filtered
    /// scan walks contiguous memory.
    entries: Vec<IndexEntry>,
    /// What entries share.
    refs: Refs,
    /// The dashboard's aggregates.
    board: Board,
}

/// The projection as loaded: its state, or why it could not be read from the store.
type Loaded = std::result::Result<State, String>;

/// The projection. Shared by every handler; cheap to read concurrently.
#[derive(Debug)]
pub struct PrintIndex {
    state: OnceLock<RwLock<Loaded>>,
    time_zone: TimeZone,
    /// Where a reload reads from (none for a projection built by hand in tests).
    store: Option<Store>,
}

impl PrintIndex {
    /// Loads every print of `store`; dates are taken in `time_zone`.
    /// Errors: the store cannot be read, or the load failed (as [`PrintIndex::failure`] says).
    pub fn load(store: &Store, time_zone: TimeZone) -> Result<PrintIndex> {
        let index = PrintIndex::empty(Some(store.clone()), time_zone);
        let loaded = index.fresh_state(store);
        if let Err(reason) = &loaded {
            return Err(unavailable(reason));
        }
        let _ = index.state.set(RwLock::new(loaded));
        Ok(index)
    }

    /// A projection of `store` that loads on a thread of its own and is usable at once: readers
    /// and writers wait until the load is done. A load that fails or panics is logged and leaves
    /// the projection failed ([`PrintIndex::failure`]).
    pub fn load_in_background(store: &Store, time_zone: TimeZone) -> Arc<PrintIndex> {
        let index = Arc::new(PrintIndex::empty(Some(store.clone()), time_zone));
        let loading = index.clone();
        let store = store.clone();
        std::thread::Builder::new()
            .name("print-projection".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                let loaded = loading.fresh_state(&store);
                if let Ok(state) = &loaded {
                    tracing::info!(
                        prints = state.entries.len(),
                        ms = started.elapsed().as_millis() as u64,
                        "print projection loaded"
                    );
                }
                let _ = loading.state.set(RwLock::new(loaded));
            })
            .map_or_else(
                |e| {
                    tracing::error!(error = %e, "cannot start the projection's loader");
                    let _ = index.state.set(RwLock::new(Err(e.to_string())));
                },
                drop,
            );
        index
    }

    fn empty(store: Option<Store>, time_zone: TimeZone) -> PrintIndex {
        PrintIndex {
            state: OnceLock::new(),
            time_zone,
            store,
        }
    }

    /// Runs `read` on the state, once loaded. Errors: the projection failed.
    fn with_state<R>(&self, read: impl FnOnce(&State) -> R) -> Result<R> {
        let guard = self.state.wait().read().unwrap_or_else(|p| p.into_inner());
        match &*guard {
            Ok(state) => Ok(read(state)),
            Err(reason) => Err(unavailable(reason)),
        }
    }

    fn write(&self) -> RwLockWriteGuard<'_, Loaded> {
        self.state.wait().write().unwrap_or_else(|p| p.into_inner())
    }

    /// Why the projection cannot be read (its load, or its reload after a failed update,
    /// failed), or `None` while it serves or is still loading. Health reports it.
    pub fn failure(&self) -> Option<String> {
        let lock = self.state.get()?;
        let guard = lock.read().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().err().cloned()
    }

    /// Every print of the store's last commit, or why they could not be read; a panic on the
    /// way (a bug, or a record no rule expected) is caught and logged as a failure.
    fn fresh_state(&self, store: &Store) -> Loaded {
        let loaded = catch_unwind(AssertUnwindSafe(|| {
            store
                .begin_read()
                .map_err(crate::Error::from)
                .and_then(|txn| self.read_state(&txn))
                .map_err(|e| e.to_string())
        }))
        .unwrap_or_else(|_| Err("loading it panicked".into()));
        if let Err(reason) = &loaded {
            tracing::error!(%reason, "the print projection could not be loaded");
        }
        loaded
    }

    /// Every print of `tx`, as entries and aggregates.
    fn read_state(&self, tx: &impl Tx) -> Result<State> {
        let mut state = State::default();
        // Sized once: growing by doubling left the freed halves in the allocator's heap.
        let count = repo::count::<Print>(tx)?;
        state
            .entries
            .reserve_exact(usize::try_from(count).unwrap_or(0));
        repo::for_each::<Print>(tx, |p| {
            #[cfg(test)]
            assert_ne!(
                p.name,
                tests::PANIC_WHILE_LOADING,
                "a test's injected panic"
            );
            state.board.apply(&p, self.day_of(&p), true);
            let entry = self.entry(&p, &mut state.refs, None);
            state.entries.push(entry);
        })?;
        state.refs.shrink();
        Ok(state)
    }

    /// The calendar date of `at` in the instance time zone.
    pub fn date_of(&self, at: Timestamp) -> Date {
        jiff::Timestamp::from_second(at.0)
            .map(|t| t.to_zoned(self.time_zone.clone()).date())
            .unwrap_or_default()
    }

    /// The day a print is dated by: its completion, else its creation.
    fn day_of(&self, print: &Print) -> Date {
        self.date_of(print.completed_at.unwrap_or(print.created_at))
    }
    /// The entry of `print`, its shared values interned in `refs`; `replaced` is the entry it
    /// replaces, whose name's place is kept when the name did not change.
    fn entry(&self, print: &Print, refs: &mut Refs, replaced: Option<&IndexEntry>) -> IndexEntry {
        let mut search = String::new();
        for line in print
            .costing
            .lines
            .iter()
            .filter(|l| l.category == CostCategory::Printer)
        {
            if !search.is_empty() {
                search.push('\n');
            }
            search.push_str(&line.label.to_lowercase());
        }
        let printers = Printers {
            ids: print.parts.iter().map(|p| p.printer_id).collect(),
            search: search.into_boxed_str(),
        };
        // A print beyond the amounts' limit (an earlier build's) adds nothing to totals.
        let counted = figures::in_range(print);
        IndexEntry {
            id: print.id,
            version: print.version,
            name: refs.intern_name(&print.name.to_lowercase(), replaced.map(|e| e.name)),
            status: print.status,
            outcome: print
                .outcome
                .as_ref()
                .and_then(|o| o.current())
                .map(|r| match r.status {
                    OutcomeStatus::Success => Outcome::Success,
                    OutcomeStatus::Failed => Outcome::Failed,
                }),
            customer: refs.intern_id(print.customer_id),
            series: refs.intern_id(print.series_id),
            printers: refs.intern_printers(printers),
            archived: print.archived,
            date: self.day_of(print),
            quantity: print.quantity,
            total_cost: if counted {
                print.costing.total
            } else {
                rust_decimal::Decimal::ZERO
            },
            sales_value: print.sales_value.filter(|_| counted),
        }
    }

    /// Records a committed print write: `print` as it is now, and `old`, as it was before
    /// (`None` for a new print). An older version never replaces a newer one; an update that
    /// does not follow the entry it finds (out of commit order), or that panics half-way,
    /// reloads the projection from the store. A failed projection stays failed.
    pub fn upsert(&self, old: Option<&Print>, print: &Print) {
        let mut guard = self.write();
        let Ok(state) = &mut *guard else {
            return;
        };
        let applied = catch_unwind(AssertUnwindSafe(|| self.apply(state, old, print)));
        if !matches!(applied, Ok(true)) {
            if applied.is_err() {
                tracing::error!(print = %print.id, "updating the print projection panicked; reloading it");
            } else {
                tracing::warn!(print = %print.id, "print updates out of order; reloading the projection");
            }
            if let Some(store) = &self.store {
                *guard = self.fresh_state(store);
            }
        }
    }

    /// Applies one write to `state`; false when it does not follow the entry it finds.
    fn apply(&self, state: &mut State, old: Option<&Print>, print: &Print) -> bool {
        #[cfg(test)]
        assert_ne!(
            print.name,
            tests::PANIC_WHILE_UPDATING,
            "a test's injected panic"
        );
        let at = state.entries.binary_search_by_key(&print.id, |e| e.id);
        let found = at.ok().map(|i| state.entries[i].version);
        if found.is_some_and(|v| v >= print.version) {
            return true;
        }
        if found != old.map(|o| o.version) && self.store.is_some() {
            return false;
        }
        if let Some(old) = old.filter(|_| found.is_some()) {
            state.board.apply(old, self.day_of(old), false);
        }
        state.board.apply(print, self.day_of(print), true);
        let replaced = at.ok().map(|i| &state.entries[i]);
        let entry = self.entry(print, &mut state.refs, replaced);
        match at {
            Ok(i) => state.entries[i] = entry,
            Err(i) => state.entries.insert(i, entry),
        }
        true
    }

    /// Runs `read` on the dashboard's aggregates. Errors: the projection failed.
    pub fn with_board<R>(&self, read: impl FnOnce(&Board) -> R) -> Result<R> {
        self.with_state(|state| read(&state.board))
    }

    /// The ids of page `skip..skip + take` of the prints matching `filter`, newest first, and
    /// how many match in all. Errors: the projection failed.
    pub fn page(&self, filter: &PrintFilter, skip: usize, take: usize) -> Result<(Vec<Id>, usize)> {
        self.with_state(|state| {
            let mut matched = 0;
            let mut ids = Vec::with_capacity(take.min(100));
            let refs = &state.refs;
            for e in state
                .entries
                .iter()
                .rev()
                .filter(|e| filter.matches(e, refs))
            {
                if matched >= skip && ids.len() < take {
                    ids.push(e.id);
                }
                matched += 1;
            }
            (ids, matched)
        })
    }

    /// Every id matching `filter`, newest first (exports, search). Errors: the projection failed.
    pub fn ids(&self, filter: &PrintFilter) -> Result<Vec<Id>> {
        Ok(self.page(filter, 0, usize::MAX)?.0)
    }

    /// Totals over every print matching `filter` (histories). Errors: the projection failed.
    pub fn totals(&self, filter: &PrintFilter) -> Result<Totals> {
        self.with_state(|state| {
            let mut totals = Totals::default();
            state
                .entries
                .iter()
                .filter(|e| filter.matches(e, &state.refs))
                .for_each(|e| totals.add(e));
            totals
        })
    }

    /// Number of prints known. Errors: the projection failed.
    pub fn count(&self) -> Result<usize> {
        self.with_state(|state| state.entries.len())
    }
}

/// The error of a failed projection: the store's, so routes answer 503 `DATABASE_UNAVAILABLE`.
fn unavailable(reason: &str) -> crate::Error {
    crate::Error::Storage(storage::Error::Database(format!(
        "the print projection cannot be read: {reason}"
    )))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::command;
    use crate::txn;
    use crate::writer;
    use rust_decimal::Decimal;
    use storage::StoreOptions;
    use storage::records::Costing;
    use storage::records::PrintStatus;

    /// A print of this name panics the projection's update (a test-only hook).
    pub(crate) const PANIC_WHILE_UPDATING: &str = "panic while updating";
    /// A print of this name panics the projection's load (a test-only hook).
    pub(crate) const PANIC_WHILE_LOADING: &str = "panic while loading";

    pub(crate) fn print(version: u64, name: &str) -> Print {
        Print {
            id: Id::from_bytes([7; 16]),
            version,
            name: name.into(),
            customer_id: None,
            series_id: None,
            quantity: 1,
            sales_value: None,
            notes: None,
            status: PrintStatus::Draft,
            paid: false,
            paid_at: None,
            archived: false,
            archived_at: None,
            parts: vec![],
            costing: Costing {
                electricity_price: Decimal::ZERO,
                lines: vec![],
                total: Decimal::ONE,
                cost_per_unit: Decimal::ONE,
            },
            finalized_at: None,
            completed_at: None,
            repeat_of_id: None,
            retried_from_id: None,
            retry_ids: vec![],
            outcome: None,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        }
    }

    fn index() -> PrintIndex {
        let index = PrintIndex::empty(None, TimeZone::UTC);
        let _ = index.state.set(RwLock::new(Ok(State::default())));
        index
    }

    #[test]
    fn an_older_version_never_replaces_a_newer_one() {
        let index = index();
        index.upsert(None, &print(2, "Second"));
        index.upsert(None, &print(1, "First"));
        let search = |text: &str| PrintFilter {
            search: Some(text.into()),
            ..PrintFilter::default()
        };
        assert_eq!(index.page(&search("second"), 0, 10).unwrap().1, 1);
        assert_eq!(index.page(&search("first"), 0, 10).unwrap().1, 0);
        index.upsert(Some(&print(2, "Second")), &print(3, "Third"));
        assert_eq!(index.page(&search("third"), 0, 10).unwrap().1, 1);
        assert_eq!(index.count().unwrap(), 1);
    }

    #[test]
    fn an_update_keeps_its_name_s_place_and_a_rename_is_found_by_its_new_name() {
        let index = index();
        let search = |text: &str| PrintFilter {
            search: Some(text.into()),
            ..PrintFilter::default()
        };
        let names = || {
            index
                .with_state(|s| {
                    s.entries
                        .iter()
                        .map(|e| s.refs.name(e.name).to_string())
                        .collect::<Vec<_>>()
                })
                .unwrap()
        };
        index.upsert(None, &print(1, "Benchy Red"));
        let mut moved = print(2, "Benchy Red");
        moved.status = PrintStatus::Done;
        index.upsert(Some(&print(1, "Benchy Red")), &moved);
        assert_eq!(names(), ["benchy red"]);
        let placed = index.with_state(|s| s.entries[0].name).unwrap();
        index.upsert(Some(&moved), &print(3, "Benchy Red"));
        assert_eq!(
            index.with_state(|s| s.entries[0].name).unwrap(),
            placed,
            "an update without a rename adds nothing to the arena"
        );
        index.upsert(Some(&print(3, "Benchy Red")), &print(4, "Calibration Cube"));
        assert_eq!(names(), ["calibration cube"]);
        assert_eq!(index.page(&search("cube"), 0, 10).unwrap().1, 1);
        assert_eq!(
            index.page(&search("benchy"), 0, 10).unwrap().1,
            0,
            "the old name is not found"
        );
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn an_entry_is_96_bytes() {
        assert_eq!(size_of::<IndexEntry>(), 96);
    }

    #[test]
    fn pages_count_every_match() {
        let index = index();
        for n in 0u8..30 {
            let mut p = print(1, "job");
            p.id = Id::from_bytes([n; 16]);
            index.upsert(None, &p);
        }
        let (ids, total) = index.page(&PrintFilter::default(), 25, 25).unwrap();
        assert_eq!(total, 30);
        assert_eq!(ids.len(), 5);
        assert_eq!(ids[0], Id::from_bytes([4; 16]), "newest first");
        assert_eq!(index.ids(&PrintFilter::default()).unwrap().len(), 30);
        assert_eq!(
            index.totals(&PrintFilter::default()).unwrap().total_cost,
            Decimal::from(30)
        );
    }

    #[test]
    fn the_board_follows_every_write_as_a_fresh_count_would() {
        let index = index();
        let mut prints: Vec<Print> = (0u8..6)
            .map(|n| {
                let mut p = print(1, "job");
                p.id = Id::from_bytes([n; 16]);
                p.customer_id = (n % 2 == 0).then(|| Id::from_bytes([100 + n % 3; 16]));
                p.costing.total = Decimal::new(1234 + i64::from(n), 2);
                p.created_at = Timestamp(86_400 * i64::from(n));
                index.upsert(None, &p);
                p
            })
            .collect();
        let fresh = |prints: &[Print]| {
            let mut board = Board::default();
            prints
                .iter()
                .for_each(|p| board.apply(p, index.day_of(p), true));
            board
        };
        // Each step: (print, change); every step is one write of a new version.
        type Change = fn(&mut Print);
        let steps: [(usize, Change); 8] = [
            (0, |p| p.status = PrintStatus::Done),
            (1, |p| p.status = PrintStatus::Done),
            (0, |p| p.sales_value = Some(Decimal::new(5, 0))),
            (2, |p| p.status = PrintStatus::Printing),
            (1, |p| p.archived = true),
            (3, |p| p.customer_id = None),
            (1, |p| p.archived = false),
            (0, |p| p.completed_at = Some(Timestamp(86_400 * 40))),
        ];
        for (n, change) in steps {
            let old = prints[n].clone();
            change(&mut prints[n]);
            prints[n].version += 1;
            index.upsert(Some(&old), &prints[n]);
            assert_eq!(index.with_board(Board::clone).unwrap(), fresh(&prints));
        }
        assert!(
            index
                .with_board(|b| !b.done.is_empty() && !b.drafts.is_empty())
                .unwrap()
        );
    }

    fn stored(store: &Store, print: &Print) {
        let txn = store.begin_write().unwrap();
        repo::put(&txn, print).unwrap();
        txn.commit().unwrap();
    }

    fn named(n: u8, name: &str) -> Print {
        let mut p = print(1, name);
        p.id = Id::from_bytes([n; 16]);
        p
    }

    #[test]
    fn an_update_that_panics_is_replaced_by_what_the_store_holds() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let index = PrintIndex::load(&store, TimeZone::UTC).unwrap();
        let first = named(1, "first");
        stored(&store, &first);
        index.upsert(None, &first);
        let panics = named(2, PANIC_WHILE_UPDATING);
        stored(&store, &panics);
        index.upsert(None, &panics);
        assert_eq!(index.failure(), None);
        assert_eq!(
            index.count().unwrap(),
            2,
            "reloaded with the committed print"
        );
        let totals = index.totals(&PrintFilter::default()).unwrap();
        assert_eq!(
            totals.total_cost,
            Decimal::from(2),
            "each print counted once"
        );
        index.upsert(None, &named(3, "after"));
        assert_eq!(index.count().unwrap(), 3, "it takes updates again");
    }

    #[test]
    fn a_load_that_fails_or_panics_answers_unavailable_instead_of_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        stored(&store, &named(1, PANIC_WHILE_LOADING));
        let index = PrintIndex::load_in_background(&store, TimeZone::UTC);
        let err = index.page(&PrintFilter::default(), 0, 10).unwrap_err();
        assert!(matches!(err, crate::Error::Storage(_)), "{err}");
        assert!(index.with_board(|_| ()).is_err());
        assert_eq!(index.failure().as_deref(), Some("loading it panicked"));
        // A failed projection takes no updates (it cannot know what it misses) and stays failed.
        index.upsert(None, &named(2, "later"));
        assert!(index.count().is_err());
        assert!(PrintIndex::load(&store, TimeZone::UTC).is_err());
    }

    /// Stores a print as the prints writer's commands do, noting it for the projection.
    struct StorePrint(Print);

    impl command::Command for StorePrint {
        type Writer = writer::PrintsWriter;
        type Reply = ();

        fn apply(&mut self, txn: &txn::Txn) -> Result<()> {
            repo::put(txn, &self.0)?;
            txn.print_changed(None, &self.0);
            Ok(())
        }
    }

    #[actix_rt::test]
    async fn a_writer_whose_projection_panics_after_the_commit_answers_and_serves_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let index = Arc::new(PrintIndex::load(&store, TimeZone::UTC).unwrap());
        let (writer, _arbiter) =
            writer::WriterHandle::start("prints", store.clone(), index.clone());
        // The write is committed before the projection panics: its sender is told so (an
        // error would make a client retry, and duplicate, a stored write).
        writer
            .send(StorePrint(named(1, PANIC_WHILE_UPDATING)))
            .await
            .unwrap();
        assert_eq!(index.count().unwrap(), 1, "rebuilt from the store");
        writer.send(StorePrint(named(2, "next"))).await.unwrap();
        assert_eq!(index.count().unwrap(), 2, "the writer serves on");
        assert_eq!(index.failure(), None);
    }
}
