//! An in-memory projection of every print: the fields lists filter on, so a filtered page of
//! 100,000 prints is one pass over compact entries instead of decoding every record.
//!
//! It is loaded from the store at start-up and updated after every committed print write with
//! [`PrintIndex::upsert`]; an entry only replaces one of a lower `version`, so updates that
//! arrive out of order never regress it.

use super::entry::IndexEntry;
use super::query::{Outcome, PrintFilter, Totals};
use crate::Result;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use std::sync::RwLock;
use storage::records::{CostCategory, OutcomeStatus, Print};
use storage::repo;
use storage::{Id, Store, Timestamp};

/// The projection. Shared by every handler; cheap to read concurrently.
///
/// Entries are kept in a vector sorted by id: ids are UUID v7, so new prints append at the end,
/// and a filtered scan walks contiguous memory.
#[derive(Debug)]
pub struct PrintIndex {
    entries: RwLock<Vec<IndexEntry>>,
    time_zone: TimeZone,
}

impl PrintIndex {
    /// Loads every print of `store`; dates are taken in `time_zone`.
    /// Errors: the store cannot be read.
    pub fn load(store: &Store, time_zone: TimeZone) -> Result<PrintIndex> {
        let index = PrintIndex {
            entries: RwLock::new(Vec::new()),
            time_zone,
        };
        index.reload(store)?;
        Ok(index)
    }

    /// Replaces the projection with the store's prints (after bulk writes such as demo data).
    /// Errors: the store cannot be read.
    pub fn reload(&self, store: &Store) -> Result<()> {
        let txn = store.begin_read()?;
        let mut entries = Vec::new();
        repo::for_each::<Print>(&txn, |p| entries.push(self.entry(&p)))?;
        entries.shrink_to_fit();
        *self.entries.write().unwrap_or_else(|p| p.into_inner()) = entries;
        Ok(())
    }

    /// The calendar date of `at` in the instance time zone.
    pub fn date_of(&self, at: Timestamp) -> Date {
        jiff::Timestamp::from_second(at.0)
            .map(|t| t.to_zoned(self.time_zone.clone()).date())
            .unwrap_or_default()
    }

    fn entry(&self, print: &Print) -> IndexEntry {
        let mut search = print.name.to_lowercase();
        for line in print
            .costing
            .lines
            .iter()
            .filter(|l| l.category == CostCategory::Printer)
        {
            search.push('\n');
            search.push_str(&line.label.to_lowercase());
        }
        IndexEntry {
            id: print.id,
            version: print.version,
            search,
            status: print.status,
            outcome: print
                .outcome
                .as_ref()
                .and_then(|o| o.current())
                .map(|r| match r.status {
                    OutcomeStatus::Success => Outcome::Success,
                    OutcomeStatus::Failed => Outcome::Failed,
                }),
            customer_id: print.customer_id,
            series_id: print.series_id,
            printer_ids: print.parts.iter().map(|p| p.printer_id).collect(),
            archived: print.archived,
            date: self.date_of(print.completed_at.unwrap_or(print.created_at)),
            quantity: print.quantity,
            total_cost: print.costing.total,
            sales_value: print.sales_value,
        }
    }

    /// Records a committed print, unless a newer version is already there.
    pub fn upsert(&self, print: &Print) {
        let entry = self.entry(print);
        let mut entries = self.entries.write().unwrap_or_else(|p| p.into_inner());
        match entries.binary_search_by_key(&print.id, |e| e.id) {
            Ok(at) if entries[at].version < entry.version => entries[at] = entry,
            Ok(_) => {}
            Err(at) => entries.insert(at, entry),
        }
    }

    /// The ids of page `skip..skip + take` of the prints matching `filter`, newest first, and
    /// how many match in all.
    pub fn page(&self, filter: &PrintFilter, skip: usize, take: usize) -> (Vec<Id>, usize) {
        let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
        let mut matched = 0;
        let mut ids = Vec::with_capacity(take.min(100));
        for e in entries.iter().rev().filter(|e| filter.matches(e)) {
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
        let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
        let mut totals = Totals::default();
        entries
            .iter()
            .filter(|e| filter.matches(e))
            .for_each(|e| totals.add(e));
        totals
    }

    /// Number of prints known.
    pub fn len(&self) -> usize {
        self.entries.read().unwrap_or_else(|p| p.into_inner()).len()
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
        PrintIndex {
            entries: RwLock::new(Vec::new()),
            time_zone: TimeZone::UTC,
        }
    }

    #[test]
    fn an_older_version_never_replaces_a_newer_one() {
        let index = index();
        index.upsert(&print(2, "Second"));
        index.upsert(&print(1, "First"));
        let search = |text: &str| PrintFilter {
            search: Some(text.into()),
            ..PrintFilter::default()
        };
        assert_eq!(index.page(&search("second"), 0, 10).1, 1);
        assert_eq!(index.page(&search("first"), 0, 10).1, 0);
        index.upsert(&print(3, "Third"));
        assert_eq!(index.page(&search("third"), 0, 10).1, 1);
        assert_eq!(index.len(), 1);
    }

    #[test]
    fn pages_count_every_match() {
        let index = index();
        for n in 0u8..30 {
            let mut p = print(1, "job");
            p.id = Id::from_bytes([n; 16]);
            index.upsert(&p);
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
}
