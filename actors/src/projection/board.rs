//! The dashboard's aggregates, kept with the print projection: what each DONE print adds to its
//! completion day, by customer, and what each draft adds to its customer's open drafts. A print
//! write moves its old figures out and its new ones in, so the dashboard sums a few hundred days
//! instead of decoding every print of the period.
//!
//! Figures are exact decimals, so taking a print's figures out again leaves exactly what was
//! there before it. Archived prints count nowhere (the dashboard excludes them).

pub use super::figures::{CATEGORIES, CATEGORY_COUNT, Figures, Kpis};
use super::summary::Summary;
use jiff::civil::Date;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap};
use storage::Id;
use storage::records::PrintStatus;

/// Open drafts: how many, and their planned cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Drafts {
    /// Drafts.
    pub count: u64,
    /// Their planned cost.
    pub planned_cost: Decimal,
}

/// The aggregates of every print: DONE figures by completion day and customer, drafts by
/// customer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Board {
    /// DONE, not archived prints by completion day (instance time zone), then customer.
    pub done: BTreeMap<Date, HashMap<Option<Id>, Figures>>,
    /// Drafts that are not archived, by customer.
    pub drafts: HashMap<Option<Id>, Drafts>,
}

impl Board {
    /// Counts the print of `summary` (dated `day`) in, or out again when `add` is false.
    pub fn apply(&mut self, summary: &Summary, day: Date, add: bool) {
        if summary.archived || !summary.counted {
            return;
        }
        match (summary.status, &summary.figures) {
            (PrintStatus::Done, Some(of_print)) => {
                let days = self.done.entry(day).or_default();
                let figures = days.entry(summary.customer_id).or_default();
                figures.apply(of_print, add);
                if figures.kpis.prints == 0 {
                    days.remove(&summary.customer_id);
                    if days.is_empty() {
                        self.done.remove(&day);
                    }
                }
            }
            (PrintStatus::Draft, _) => {
                let drafts = self.drafts.entry(summary.customer_id).or_default();
                match add {
                    true => {
                        drafts.count += 1;
                        drafts.planned_cost += summary.total_cost;
                    }
                    false => {
                        drafts.count = drafts.count.saturating_sub(1);
                        drafts.planned_cost -= summary.total_cost;
                    }
                }
                if drafts.count == 0 {
                    self.drafts.remove(&summary.customer_id);
                }
            }
            _ => {}
        }
    }
}
