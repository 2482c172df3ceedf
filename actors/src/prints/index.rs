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

use super::board::Board;
use super::entry::{IndexEntry, Printers, Refs};
use super::query::{Outcome, PrintFilter, Totals};
use crate::Result;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard};
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

/// The projection. Shared by every handler; cheap to read concurrently.
#[derive(Debug)]
pub struct PrintIndex {
    state: OnceLock<RwLock<State>>,
    time_zone: TimeZone,
    /// Where a reload reads from (none for a projection built by hand in tests).
    store: Option<Store>,
}

impl PrintIndex {
    /// Loads every print of `store`; dates are taken in `time_zone`.
    /// Errors: the store cannot be read.
    pub fn load(store: &Store, time_zone: TimeZone) -> Result<PrintIndex> {
        let index = PrintIndex::empty(Some(store.clone()), time_zone);
        let state = index.read_state(&store.begin_read()?)?;
        let _ = index.state.set(RwLock::new(state));
        Ok(index)
    }

    /// A projection of `store` that loads on a thread of its own and is usable at once: readers
    /// and writers wait until the load is done. Errors of the load are logged and leave the
    /// projection empty (the store's own errors then answer the routes that read it).
    pub fn load_in_background(store: &Store, time_zone: TimeZone) -> Arc<PrintIndex> {
        let index = Arc::new(PrintIndex::empty(Some(store.clone()), time_zone));
        let loading = index.clone();
        let store = store.clone();
        std::thread::Builder::new()
            .name("print-projection".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                let state = store
                    .begin_read()
                    .map_err(crate::Error::from)
                    .and_then(|txn| loading.read_state(&txn))
                    .unwrap_or_else(|e| {
                        tracing::error!(error = %e, "the print projection could not be loaded");
                        State::default()
                    });
                let prints = state.entries.len();
                let _ = loading.state.set(RwLock::new(state));
                tracing::info!(
                    prints,
                    ms = started.elapsed().as_millis() as u64,
                    "print projection loaded"
                );
            })
            .map_or_else(
                |e| {
                    tracing::error!(error = %e, "cannot start the projection's loader");
                    let _ = index.state.set(RwLock::new(State::default()));
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

    /// The state, once loaded.
    fn lock(&self) -> &RwLock<State> {
        self.state.wait()
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.lock().read().unwrap_or_else(|p| p.into_inner())
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
            state.board.apply(&p, self.day_of(&p), true);
            let entry = self.entry(&p, &mut state.refs);
            state.entries.push(entry);
        })?;
        Ok(state)
    }

    /// Replaces the projection with the store's prints (after bulk writes such as demo data).
    /// Errors: the store cannot be read.
    pub fn reload(&self, store: &Store) -> Result<()> {
        let mut state = self.lock().write().unwrap_or_else(|p| p.into_inner());
        *state = self.read_state(&store.begin_read()?)?;
        Ok(())
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
    /// The entry of `print`, its shared values interned in `refs`.
    fn entry(&self, print: &Print, refs: &mut Refs) -> IndexEntry {
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
        IndexEntry {
            id: print.id,
            version: print.version,
            name: print.name.to_lowercase().into_boxed_str(),
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
            total_cost: print.costing.total,
            sales_value: print.sales_value,
        }
    }

    /// Records a committed print write: `print` as it is now, and `old`, as it was before
    /// (`None` for a new print). An older version never replaces a newer one; an update that
    /// does not follow the entry it finds (out of commit order) reloads the projection.
    pub fn upsert(&self, old: Option<&Print>, print: &Print) {
        let mut state = self.lock().write().unwrap_or_else(|p| p.into_inner());
        let at = state.entries.binary_search_by_key(&print.id, |e| e.id);
        let found = at.ok().map(|i| state.entries[i].version);
        if found.is_some_and(|v| v >= print.version) {
            return;
        }
        if found != old.map(|o| o.version)
            && let Some(store) = &self.store
        {
            tracing::warn!(print = %print.id, "print updates out of order; reloading the projection");
            match store
                .begin_read()
                .map_err(crate::Error::from)
                .and_then(|txn| self.read_state(&txn))
            {
                Ok(fresh) => *state = fresh,
                Err(e) => tracing::error!(error = %e, "the print projection could not be reloaded"),
            }
            return;
        }
        if let Some(old) = old.filter(|_| found.is_some()) {
            state.board.apply(old, self.day_of(old), false);
        }
        state.board.apply(print, self.day_of(print), true);
        let entry = self.entry(print, &mut state.refs);
        match at {
            Ok(i) => state.entries[i] = entry,
            Err(i) => state.entries.insert(i, entry),
        }
    }

    /// Runs `read` on the dashboard's aggregates.
    pub fn with_board<R>(&self, read: impl FnOnce(&Board) -> R) -> R {
        read(&self.read().board)
    }

    /// The ids of page `skip..skip + take` of the prints matching `filter`, newest first, and
    /// how many match in all.
    pub fn page(&self, filter: &PrintFilter, skip: usize, take: usize) -> (Vec<Id>, usize) {
        let state = self.read();
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
    }

    /// Every id matching `filter`, newest first (exports, search).
    pub fn ids(&self, filter: &PrintFilter) -> Vec<Id> {
        self.page(filter, 0, usize::MAX).0
    }

    /// Totals over every print matching `filter` (histories).
    pub fn totals(&self, filter: &PrintFilter) -> Totals {
        let state = self.read();
        let mut totals = Totals::default();
        state
            .entries
            .iter()
            .filter(|e| filter.matches(e, &state.refs))
            .for_each(|e| totals.add(e));
        totals
    }

    /// Number of prints known.
    pub fn len(&self) -> usize {
        self.read().entries.len()
    }

    /// True when no print is known.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;
    use storage::records::Costing;
    use storage::records::PrintStatus;

    fn print(version: u64, name: &str) -> Print {
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
        let _ = index.state.set(RwLock::new(State::default()));
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
        assert_eq!(index.page(&search("second"), 0, 10).1, 1);
        assert_eq!(index.page(&search("first"), 0, 10).1, 0);
        index.upsert(Some(&print(2, "Second")), &print(3, "Third"));
        assert_eq!(index.page(&search("third"), 0, 10).1, 1);
        assert_eq!(index.len(), 1);
    }

    #[test]
    fn pages_count_every_match() {
        let index = index();
        for n in 0u8..30 {
            let mut p = print(1, "job");
            p.id = Id::from_bytes([n; 16]);
            index.upsert(None, &p);
        }
        let (ids, total) = index.page(&PrintFilter::default(), 25, 25);
        assert_eq!(total, 30);
        assert_eq!(ids.len(), 5);
        assert_eq!(ids[0], Id::from_bytes([4; 16]), "newest first");
        assert_eq!(index.ids(&PrintFilter::default()).len(), 30);
        assert_eq!(
            index.totals(&PrintFilter::default()).total_cost,
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
            assert_eq!(index.with_board(Board::clone), fresh(&prints));
        }
        assert!(index.with_board(|b| !b.done.is_empty() && !b.drafts.is_empty()));
    }
}
