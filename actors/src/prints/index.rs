//! An in-memory projection of every print: the fields lists filter on, so a filtered page of
//! 100,000 prints is one pass over compact entries instead of decoding every record.
//!
//! It is loaded from the store at start-up and updated after every committed print write with
//! [`PrintIndex::upsert`]; an entry only replaces one of a lower `version`, so updates that
//! arrive out of order never regress it.

use super::query::{Outcome, PrintFilter, Totals};
use crate::Result;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use rust_decimal::Decimal;
use std::collections::BTreeMap;
use std::sync::RwLock;
use storage::records::{CostCategory, Print, PrintStatus};
use storage::repo;
use storage::{Id, Store, Timestamp};

/// What lists filter and total on, for one print.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// The print.
    pub id: Id,
    /// Its record version.
    pub version: u64,
    /// Lower-case name and printer names, for search.
    pub search: String,
    /// Status.
    pub status: PrintStatus,
    /// Recorded outcome; `None` until one is recorded.
    pub outcome: Option<Outcome>,
    /// Customer.
    pub customer_id: Option<Id>,
    /// Series.
    pub series_id: Option<Id>,
    /// Printers of every part.
    pub printer_ids: Vec<Id>,
    /// Archive state.
    pub archived: bool,
    /// Completion date, else creation date, in the instance time zone.
    pub date: Date,
    /// Units.
    pub quantity: u32,
    /// Planned total cost.
    pub total_cost: Decimal,
    /// Sales value.
    pub sales_value: Option<Decimal>,
}

/// The projection. Shared by every handler; cheap to read concurrently.
#[derive(Debug)]
pub struct PrintIndex {
    entries: RwLock<BTreeMap<Id, IndexEntry>>,
    time_zone: TimeZone,
}

impl PrintIndex {
    /// Loads every print of `store`; dates are taken in `time_zone`.
    /// Errors: the store cannot be read.
    pub fn load(store: &Store, time_zone: TimeZone) -> Result<PrintIndex> {
        let index = PrintIndex {
            entries: RwLock::new(BTreeMap::new()),
            time_zone,
        };
        index.reload(store)?;
        Ok(index)
    }

    /// Replaces the projection with the store's prints (after bulk writes such as demo data).
    /// Errors: the store cannot be read.
    pub fn reload(&self, store: &Store) -> Result<()> {
        let txn = store.begin_read()?;
        let entries = repo::all::<Print>(&txn)?
            .iter()
            .map(|p| (p.id, self.entry(p)))
            .collect();
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
            outcome: None,
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
        match entries.get(&print.id) {
            Some(existing) if existing.version >= entry.version => {}
            _ => {
                entries.insert(print.id, entry);
            }
        }
    }

    /// Ids of the prints matching `filter`, newest first, and totals over all of them.
    pub fn query(&self, filter: &PrintFilter) -> (Vec<Id>, Totals) {
        let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
        let mut totals = Totals::default();
        let ids = entries
            .values()
            .rev()
            .filter(|e| filter.matches(e))
            .inspect(|e| totals.add(e))
            .map(|e| e.id)
            .collect();
        (ids, totals)
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
