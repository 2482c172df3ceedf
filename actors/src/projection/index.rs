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

use super::amount::Amount;
use super::board::Board;
use super::entry::{IndexEntry, Kind, Printers, Refs};
use super::progress::{LoadStep, Loading, Progress};
use super::query::{PrintFilter, Totals};
use super::summary::{self, Summary};
use crate::Result;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock, RwLock, RwLockWriteGuard};
use storage::records::{Print, PrintStatus};
use storage::repo;
use storage::{Id, ReadTransaction, Store, Timestamp};

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
    /// How many entries there are of each kind.
    kinds: HashMap<Kind, usize>,
}

impl State {
    /// Counts `entry`'s kind in, or out again when `add` is false.
    fn count(&mut self, entry: &IndexEntry, add: bool) {
        let count = self.kinds.entry(entry.kind()).or_default();
        *count = if add {
            *count + 1
        } else {
            count.saturating_sub(1)
        };
    }
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
    /// How far the load has come.
    progress: Progress,
}

impl PrintIndex {
    /// The shop's time zone its dates are taken in.
    pub fn time_zone(&self) -> &TimeZone {
        &self.time_zone
    }

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
            progress: Progress::default(),
        }
    }

    /// While the projection loads (at start-up, or again after a failed update): what it is
    /// doing and how many prints of how many it has done; `None` when it serves. Health
    /// answers it.
    pub fn loading(&self) -> Option<Loading> {
        self.progress.snapshot()
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
            self.read_state(store).map_err(|e| e.to_string())
        }))
        .unwrap_or_else(|_| Err("loading it panicked".into()));
        self.progress.finish();
        if let Err(reason) = &loaded {
            tracing::error!(%reason, "the print projection could not be loaded");
        }
        loaded
    }

    /// Every print of the store, as entries and aggregates: from the print summaries when they
    /// are complete, else from the prints, rebuilding the summaries in one write transaction
    /// (so no print write can slip between the prints read and the summaries written).
    fn read_state(&self, store: &Store) -> Result<State> {
        let mut state = State::default();
        let txn = store.begin_read()?;
        // Sized once: growing by doubling left the freed halves in the allocator's heap.
        let count = repo::count::<Print>(&txn)?;
        state
            .entries
            .reserve_exact(usize::try_from(count).unwrap_or(0));
        if summary::complete(&txn)? {
            self.progress.start(LoadStep::ReadingSummaries, count);
            self.add_summaries(&mut state, &txn)?;
            state.refs.shrink();
            return Ok(state);
        }
        drop(txn);
        let started = std::time::Instant::now();
        let txn = store.begin_write()?;
        self.progress.start(LoadStep::RebuildingSummaries, count);
        summary::rebuild(&txn, |id, s| self.add(&mut state, id, s))?;
        txn.commit()?;
        tracing::info!(
            prints = state.entries.len(),
            ms = started.elapsed().as_millis() as u64,
            "print summaries rebuilt from the prints"
        );
        state.refs.shrink();
        Ok(state)
    }

    /// Adds every stored summary to `state`, in id order: one thread reads and decodes them
    /// while this one adds them (the two halves of the work take about as long), handing over
    /// batches through a short queue. A panic on either side reaches the caller.
    fn add_summaries(&self, state: &mut State, txn: &ReadTransaction) -> Result<()> {
        const BATCH: usize = 512;
        std::thread::scope(|scope| {
            let (batches, received) = mpsc::sync_channel::<Vec<(Id, Summary)>>(8);
            let reader = scope.spawn(move || {
                let mut batch = Vec::with_capacity(BATCH);
                summary::for_each(txn, |id, s| {
                    batch.push((id, s));
                    if batch.len() < BATCH {
                        return ControlFlow::Continue(());
                    }
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    // A closed queue: the adding side stopped (it panicked).
                    match batches.send(full) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(_) => ControlFlow::Break(()),
                    }
                })?;
                let _ = batches.send(batch);
                Ok(())
            });
            for batch in received {
                batch.into_iter().for_each(|(id, s)| self.add(state, id, s));
            }
            reader
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// Adds the print `id` of `summary` to a state being loaded (in id order).
    fn add(&self, state: &mut State, id: Id, summary: Summary) {
        #[cfg(test)]
        assert_ne!(
            summary.name,
            tests::PANIC_WHILE_LOADING,
            "a test's injected panic"
        );
        let day = self.date_of(summary.dated_at);
        state.board.apply(&summary, day, true);
        let entry = self.entry(id, summary, day, &mut state.refs, None);
        state.count(&entry, true);
        state.entries.push(entry);
        self.progress.advance();
    }

    /// The calendar date of `at` in the instance time zone.
    pub fn date_of(&self, at: Timestamp) -> Date {
        jiff::Timestamp::from_second(at.0)
            .map(|t| t.to_zoned(self.time_zone.clone()).date())
            .unwrap_or_default()
    }

    /// The entry of the print `id` of `summary`, dated `day`, its shared values interned in
    /// `refs`; `replaced` is the entry it replaces, whose name's place is kept when the name did
    /// not change.
    fn entry(
        &self,
        id: Id,
        summary: Summary,
        day: Date,
        refs: &mut Refs,
        replaced: Option<&IndexEntry>,
    ) -> IndexEntry {
        let printers = Printers {
            ids: summary.printer_ids.into_boxed_slice(),
            search: summary.printer_search.into_boxed_str(),
        };
        IndexEntry {
            id,
            version: u32::try_from(summary.version).unwrap_or(u32::MAX),
            name: refs.intern_name(&summary.name, replaced.map(|e| e.name)),
            status: summary.status,
            outcome: summary.outcome,
            context: refs.intern_context(summary.customer_id, summary.series_id, printers),
            archived: summary.archived,
            date: day,
            quantity: summary.quantity,
            // A counted summary's amounts may be stored ([`figures::in_range`]): they fit.
            total_cost: Amount::of(summary.total_cost).unwrap_or(Amount::ZERO),
            sales_value: Amount::of_option(summary.sales_value),
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
        let found = at.ok().map(|i| u64::from(state.entries[i].version));
        if found.is_some_and(|v| v >= print.version) {
            return true;
        }
        if found != old.map(|o| o.version) && self.store.is_some() {
            return false;
        }
        if let Some(old) = old.filter(|_| found.is_some()) {
            let old = Summary::of(old);
            state.board.apply(&old, self.date_of(old.dated_at), false);
        }
        let summary = Summary::of(print);
        let day = self.date_of(summary.dated_at);
        state.board.apply(&summary, day, true);
        let replaced = at.ok().map(|i| &state.entries[i]);
        let entry = self.entry(print.id, summary, day, &mut state.refs, replaced);
        state.count(&entry, true);
        match at {
            Ok(i) => {
                let old = std::mem::replace(&mut state.entries[i], entry);
                state.count(&old, false);
            }
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
        if filter.on_kind_only() {
            self.kind_page(filter, skip, take)
        } else {
            self.scan_page(filter, skip, take)
        }
    }

    /// [`PrintIndex::page`] by testing every entry.
    fn scan_page(
        &self,
        filter: &PrintFilter,
        skip: usize,
        take: usize,
    ) -> Result<(Vec<Id>, usize)> {
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

    /// [`PrintIndex::page`] for a filter on the kind alone: the matches are counted from the
    /// per-kind counts, and the scan from the newest entry stops once the page is full.
    fn kind_page(
        &self,
        filter: &PrintFilter,
        skip: usize,
        take: usize,
    ) -> Result<(Vec<Id>, usize)> {
        self.with_state(|state| {
            let refs = &state.refs;
            let kinds: Vec<Kind> = state
                .kinds
                .iter()
                .filter(|(kind, n)| **n > 0 && filter.matches(&IndexEntry::of_kind(**kind), refs))
                .map(|(kind, _)| *kind)
                .collect();
            let matched = kinds.iter().map(|k| state.kinds[k]).sum();
            let ids = state
                .entries
                .iter()
                .rev()
                .filter(|e| kinds.contains(&e.kind()))
                .skip(skip)
                .take(take)
                .map(|e| e.id)
                .collect();
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

    /// How many prints there are of each status (statuses without prints left out).
    /// Errors: the projection failed.
    pub fn status_counts(&self) -> Result<Vec<(PrintStatus, usize)>> {
        self.with_state(|state| {
            let mut counts: Vec<(PrintStatus, usize)> = Vec::new();
            for (kind, n) in &state.kinds {
                match counts.iter_mut().find(|(s, _)| *s == kind.status) {
                    Some((_, total)) => *total += n,
                    None => counts.push((kind.status, *n)),
                }
            }
            counts.sort();
            counts
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
    use crate::prints::test_save;
    use crate::runtime::writer;
    use crate::txn;
    use rust_decimal::Decimal;
    use storage::records::Costing;
    use storage::records::PrintStatus;
    use storage::{StoreOptions, tables};

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
            printing_started_at: None,
            printing_ended_at: None,
            completed_at: None,
            repeat_of_id: None,
            retried_from_id: None,
            retry_ids: vec![],
            outcome: None,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
            work: vec![],
            price: None,
            materials: vec![],
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
            for p in prints {
                let summary = Summary::of(p);
                board.apply(&summary, index.date_of(summary.dated_at), true);
            }
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

    /// Prints of every kind the summaries carry: drafts and DONE prints with and without a
    /// customer, a sales value, an outcome, archived.
    fn varied() -> Vec<Print> {
        use storage::records::{CostCategory, CostLine, Outcome, OutcomeRevision, OutcomeStatus};
        (0u8..12)
            .map(|n| {
                let mut p = named(n, &format!("Job {n}"));
                p.customer_id = (n % 3 != 0).then(|| Id::from_bytes([200 + n % 2; 16]));
                p.sales_value = (n % 2 == 0).then(|| Decimal::new(1999 + i64::from(n), 2));
                p.costing.total = Decimal::new(123_456 + i64::from(n), 4);
                p.costing.lines = vec![CostLine {
                    category: CostCategory::Printer,
                    source_id: Id::from_bytes([150 + n % 2; 16]),
                    part_id: None,
                    usage_id: None,
                    label: format!("Printer {}", n % 2),
                    quantity: Decimal::ONE,
                    rate_price: p.costing.total,
                    rate_per: Decimal::ONE,
                    watts: 0,
                    cost: p.costing.total,
                }];
                p.created_at = Timestamp(86_400 * i64::from(n));
                p.archived = n == 5;
                if n % 2 == 1 {
                    p.status = PrintStatus::Done;
                    p.completed_at = Some(Timestamp(86_400 * i64::from(n) + 3_600));
                }
                if n % 4 == 1 {
                    p.outcome = Some(Outcome {
                        revisions: vec![OutcomeRevision {
                            revision: 1,
                            status: if n == 1 {
                                OutcomeStatus::Failed
                            } else {
                                OutcomeStatus::Success
                            },
                            duration_seconds: 3_600,
                            part_durations: vec![],
                            grams: vec![],
                            note: None,
                            failure_reason: None,
                            correction_note: None,
                            operation_key: None,
                            recorded_at: Timestamp(86_400 * i64::from(n) + 3_600),
                            actual: Costing {
                                total: Decimal::new(99_999, 3),
                                ..p.costing.clone()
                            },
                            electricity: vec![],
                            work_minutes: vec![],
                        }],
                    });
                }
                p
            })
            .collect()
    }

    /// Stores `prints` as the commands do: each with its summary.
    fn saved(store: &Store, prints: &[Print]) {
        let txn = txn::Txn::new(store.begin_write().unwrap());
        prints
            .iter()
            .for_each(|p| test_save(&txn, None, p).unwrap());
        txn.commit().unwrap();
    }

    /// The projection's entries and board, compared whole.
    fn contents(index: &PrintIndex) -> (Vec<IndexEntry>, Board) {
        index
            .with_state(|s| (s.entries.clone(), s.board.clone()))
            .unwrap()
    }

    /// Overwrites every stored print with bytes no print decodes from.
    fn spoil_prints(store: &Store) {
        use redb::ReadableTable;
        let txn = store.begin_write().unwrap();
        {
            let mut prints = txn.open_table(tables::PRINTS).unwrap();
            let ids: Vec<[u8; 16]> = prints
                .iter()
                .unwrap()
                .map(|e| e.unwrap().0.value())
                .collect();
            for id in ids {
                prints.insert(id, [0xFF_u8; 3].as_slice()).unwrap();
            }
        }
        txn.commit().unwrap();
    }

    #[test]
    fn a_load_reads_the_summaries_alone_and_equals_the_projection_kept_by_updates() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        // As the service starts: the first load of a new store marks its (no) summaries complete.
        PrintIndex::load(&store, TimeZone::UTC).unwrap();
        let prints = varied();
        saved(&store, &prints);
        let kept = index();
        prints.iter().for_each(|p| kept.upsert(None, p));
        // With every print unreadable, only the summaries can give the projection.
        spoil_prints(&store);
        let loaded = PrintIndex::load(&store, TimeZone::UTC).unwrap();
        assert_eq!(contents(&loaded), contents(&kept));
        assert!(
            contents(&loaded).1.done.len() > 2,
            "the board holds DONE days"
        );
    }

    #[test]
    fn summaries_missing_or_of_another_format_are_rebuilt_from_the_prints_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let prints = varied();
        // Prints stored without summaries (as a file from before schema 6 holds them).
        prints.iter().for_each(|p| stored(&store, p));
        let kept = index();
        prints.iter().for_each(|p| kept.upsert(None, p));
        let rebuilt = PrintIndex::load(&store, TimeZone::UTC).unwrap();
        assert_eq!(
            contents(&rebuilt),
            contents(&kept),
            "rebuilt from the prints"
        );
        let every = prints.len() as u64;
        assert_eq!(
            (rebuilt.progress.counts(), rebuilt.loading()),
            (
                Loading {
                    step: LoadStep::RebuildingSummaries,
                    done: every,
                    total: every
                },
                None
            ),
            "the rebuild counted every print of the store, and is over"
        );
        // Rebuilt and marked complete: the next load needs no print.
        spoil_prints(&store);
        let read = PrintIndex::load(&store, TimeZone::UTC).unwrap();
        assert_eq!(contents(&read), contents(&kept));
        assert_eq!(
            read.progress.counts(),
            Loading {
                step: LoadStep::ReadingSummaries,
                done: every,
                total: every
            }
        );

        // Summaries of another format are not trusted.
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        saved(&store, &prints);
        let txn = store.begin_write().unwrap();
        txn.open_table(tables::META)
            .unwrap()
            .insert("print_summaries", summary::FORMAT + 1)
            .unwrap();
        txn.commit().unwrap();
        spoil_prints(&store);
        assert!(
            PrintIndex::load(&store, TimeZone::UTC).is_err(),
            "another format's summaries are rebuilt from the prints (here unreadable)"
        );
    }

    #[test]
    fn a_list_on_the_kind_alone_is_the_full_scan_s_without_one() {
        use crate::projection::query::{Condition, Outcome, Set, Where};
        let index = index();
        let mut prints = varied();
        prints.iter().for_each(|p| index.upsert(None, p));
        // Updates move prints between kinds: archived, done with an outcome, back.
        for n in [0, 3, 6, 9] {
            let old = prints[n].clone();
            prints[n].archived = !prints[n].archived;
            prints[n].status = PrintStatus::Done;
            prints[n].version += 1;
            index.upsert(Some(&old), &prints[n]);
        }
        let filters = [
            PrintFilter::default(),
            PrintFilter {
                statuses: vec![PrintStatus::Done],
                ..PrintFilter::default()
            },
            PrintFilter {
                outcomes: vec![Outcome::Pending, Outcome::Failed],
                include_archived: true,
                ..PrintFilter::default()
            },
            PrintFilter {
                group: Some(Where::All(vec![
                    Condition::Status(Set::In(vec![PrintStatus::Done, PrintStatus::Draft])),
                    Condition::Archived(false),
                ])),
                ..PrintFilter::default()
            },
            PrintFilter {
                group: Some(Where::Any(vec![
                    Condition::Outcome(Set::NotIn(vec![Outcome::Success])),
                    Condition::Archived(true),
                ])),
                ..PrintFilter::default()
            },
        ];
        for filter in &filters {
            assert!(filter.on_kind_only());
            for (skip, take) in [(0, 25), (0, 3), (2, 4), (11, 5), (0, usize::MAX)] {
                assert_eq!(
                    index.kind_page(filter, skip, take).unwrap(),
                    index.scan_page(filter, skip, take).unwrap(),
                    "{filter:?} {skip} {take}"
                );
            }
        }
        let searched = PrintFilter {
            search: Some("job".into()),
            ..PrintFilter::default()
        };
        assert!(!searched.on_kind_only());
    }

    /// Stores a print as the prints writer's commands do, noting it for the projection.
    struct StorePrint(Print);

    impl command::Command for StorePrint {
        type Writer = command::PrintsWriter;
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
