//! Print list filters: the legacy query filters, the validated `where` group, totals.
//!
//! `where`: one leaf, `{"AND": [...]}` or `{"OR": [...]}` with 1 to 20 leaves. Leaves:
//! `{status|outcome|printerId|customerId|seriesId: {"in": [...]} | {"notIn": [...]}}`,
//! `{"archived": bool}`, `{"dateFrom": {"gte": "YYYY-MM-DD"}}`, `{"dateTo": {"lte": "YYYY-MM-DD"}}`.
//! Anything else is refused with `errors.invalidWhere` on `where`. Search, the legacy filters and
//! a route's customer or series scope always apply outside the group. An `archived` leaf in the
//! group decides archive visibility instead of `includeArchived`.

pub use super::entry::Outcome;
use super::entry::{IndexEntry, Refs};
use crate::{Error, Result};
use jiff::civil::Date;
use rust_decimal::Decimal;
use serde_json::Value;
use storage::Id;
use storage::records::PrintStatus;

/// Most leaves in a `where` group.
pub const MAX_CONDITIONS: usize = 20;
/// Most values in one `in` or `notIn` set. The largest group (20 sets of 50 ids, about 48 KB
/// URL-encoded) stays well inside the 128 KiB request head the HTTP server reads; with 100 a
/// group could outgrow it and be refused as a bad request before any rule saw it.
pub const MAX_SET_VALUES: usize = 50;

/// Parses `DRAFT`, `PRINTING`, `PRINTED`, `SHIPPED` or `DONE`.
pub fn parse_status(text: &str) -> Option<PrintStatus> {
    PrintStatus::ALL.into_iter().find(|s| s.as_str() == text)
}

/// A set condition: `in` or `notIn`.
#[derive(Debug, Clone, PartialEq)]
pub enum Set<T> {
    /// The value is one of these.
    In(Vec<T>),
    /// The value is none of these.
    NotIn(Vec<T>),
}

impl<T: PartialEq> Set<T> {
    fn holds(&self, value: Option<&T>) -> bool {
        match self {
            Set::In(values) => value.is_some_and(|v| values.contains(v)),
            Set::NotIn(values) => value.is_none_or(|v| !values.contains(v)),
        }
    }

    fn holds_any(&self, values: &[T]) -> bool {
        match self {
            Set::In(set) => values.iter().any(|v| set.contains(v)),
            Set::NotIn(set) => values.iter().all(|v| !set.contains(v)),
        }
    }
}

/// One leaf of a `where` group.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// Status in or not in.
    Status(Set<PrintStatus>),
    /// Outcome in or not in.
    Outcome(Set<Outcome>),
    /// Any part's printer in, or no part's printer in.
    PrinterId(Set<Id>),
    /// Customer in or not in.
    CustomerId(Set<Id>),
    /// Series in or not in.
    SeriesId(Set<Id>),
    /// Archive state.
    Archived(bool),
    /// Date on or after.
    DateFrom(Date),
    /// Date on or before.
    DateTo(Date),
}

/// A validated `where` group.
#[derive(Debug, Clone, PartialEq)]
pub enum Where {
    /// Every leaf holds (a single leaf is a group of one).
    All(Vec<Condition>),
    /// Any leaf holds.
    Any(Vec<Condition>),
}

/// The refusal of a malformed group; `reason` documents the rule at the call site.
fn invalid(reason: &str) -> Error {
    tracing::debug!(reason, "where refused");
    Error::field("where", "errors.invalidWhere")
}

impl Where {
    /// Parses the JSON text of a `where` query parameter.
    /// Errors: [`Error::Validation`] with `errors.invalidWhere` on `where`.
    pub fn parse(text: &str) -> Result<Where> {
        let value: Value = serde_json::from_str(text).map_err(|_| invalid("where is not JSON"))?;
        let object = value
            .as_object()
            .ok_or_else(|| invalid("where must be an object"))?;
        let group = |leaves: &Value| -> Result<Vec<Condition>> {
            let leaves = leaves
                .as_array()
                .ok_or_else(|| invalid("AND and OR take an array"))?;
            if leaves.is_empty() || leaves.len() > MAX_CONDITIONS {
                return Err(invalid("a group has 1 to 20 conditions"));
            }
            leaves.iter().map(leaf).collect()
        };
        match (object.len(), object.get("AND"), object.get("OR")) {
            (1, Some(leaves), _) => Ok(Where::All(group(leaves)?)),
            (1, _, Some(leaves)) => Ok(Where::Any(group(leaves)?)),
            _ => Ok(Where::All(vec![leaf(&value)?])),
        }
    }

    /// True when `entry` (its shared values in `refs`) satisfies the group.
    pub fn holds(&self, entry: &IndexEntry, refs: &Refs) -> bool {
        match self {
            Where::All(c) => c.iter().all(|c| c.holds(entry, refs)),
            Where::Any(c) => c.iter().any(|c| c.holds(entry, refs)),
        }
    }

    fn mentions_archived(&self) -> bool {
        let (Where::All(c) | Where::Any(c)) = self;
        c.iter().any(|c| matches!(c, Condition::Archived(_)))
    }
}

fn leaf(value: &Value) -> Result<Condition> {
    let object = value
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or_else(|| invalid("a condition has exactly one field"))?;
    let Some((field, test)) = object.iter().next() else {
        return Err(invalid("a condition has exactly one field"));
    };
    let date = |key: &str| -> Result<Date> {
        let text = test
            .as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.get(key))
            .and_then(Value::as_str);
        text.and_then(|t| t.parse::<Date>().ok())
            .ok_or_else(|| invalid("dates are {\"gte\"|\"lte\": \"YYYY-MM-DD\"}"))
    };
    Ok(match field.as_str() {
        "status" => Condition::Status(set(test, parse_status)?),
        "outcome" => Condition::Outcome(set(test, Outcome::parse)?),
        "printerId" => Condition::PrinterId(set(test, |t| t.parse().ok())?),
        "customerId" => Condition::CustomerId(set(test, |t| t.parse().ok())?),
        "seriesId" => Condition::SeriesId(set(test, |t| t.parse().ok())?),
        "archived" => Condition::Archived(
            test.as_bool()
                .ok_or_else(|| invalid("archived takes true or false"))?,
        ),
        "dateFrom" => Condition::DateFrom(date("gte")?),
        "dateTo" => Condition::DateTo(date("lte")?),
        _ => return Err(invalid("unknown condition field")),
    })
}

fn set<T>(test: &Value, parse: impl Fn(&str) -> Option<T>) -> Result<Set<T>> {
    let object = test
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or_else(|| invalid("sets are {\"in\"|\"notIn\": [...]}"))?;
    let (kind, values) = object.iter().next().ok_or_else(|| invalid("empty set"))?;
    let values = values
        .as_array()
        .filter(|v| !v.is_empty() && v.len() <= MAX_SET_VALUES)
        .ok_or_else(|| invalid("sets list 1 to 50 values"))?;
    let parsed = values
        .iter()
        .map(|v| {
            v.as_str()
                .and_then(&parse)
                .ok_or_else(|| invalid("a set value is not valid here"))
        })
        .collect::<Result<Vec<T>>>()?;
    match kind.as_str() {
        "in" => Ok(Set::In(parsed)),
        "notIn" => Ok(Set::NotIn(parsed)),
        _ => Err(invalid("sets are {\"in\"|\"notIn\": [...]}")),
    }
}

impl Condition {
    fn holds(&self, e: &IndexEntry, refs: &Refs) -> bool {
        match self {
            Condition::Status(s) => s.holds(Some(&e.status)),
            Condition::Outcome(s) => s.holds(Outcome::of(e).as_ref()),
            Condition::PrinterId(s) => s.holds_any(&refs.printers(e.context).ids),
            Condition::CustomerId(s) => s.holds(refs.context(e.context).customer.as_ref()),
            Condition::SeriesId(s) => s.holds(refs.context(e.context).series.as_ref()),
            Condition::Archived(a) => e.archived == *a,
            Condition::DateFrom(d) => e.date >= *d,
            Condition::DateTo(d) => e.date <= *d,
        }
    }
}

/// Every filter of a print list, history or export.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrintFilter {
    /// Only these statuses (empty: any).
    pub statuses: Vec<PrintStatus>,
    /// Only these outcomes (empty: any).
    pub outcomes: Vec<Outcome>,
    /// Customer (a history route's scope overrides the query).
    pub customer_id: Option<Id>,
    /// Any part on this printer.
    pub printer_id: Option<Id>,
    /// Series (a history route's scope overrides the query).
    pub series_id: Option<Id>,
    /// Completion (else creation) date on or after.
    pub date_from: Option<Date>,
    /// Completion (else creation) date on or before.
    pub date_to: Option<Date>,
    /// Lower-case text in the name or a part's printer name.
    pub search: Option<String>,
    /// Also archived prints.
    pub include_archived: bool,
    /// The validated `where` group.
    pub group: Option<Where>,
}

impl PrintFilter {
    /// True when the filter reads nothing of a print but its status, outcome and archive state
    /// (what [`super::index`] counts per combination, so such a list needs no full scan).
    pub fn on_kind_only(&self) -> bool {
        let group_ok = self.group.as_ref().is_none_or(|g| {
            let (Where::All(c) | Where::Any(c)) = g;
            c.iter().all(|c| {
                matches!(
                    c,
                    Condition::Status(_) | Condition::Outcome(_) | Condition::Archived(_)
                )
            })
        });
        group_ok
            && self.customer_id.is_none()
            && self.printer_id.is_none()
            && self.series_id.is_none()
            && self.date_from.is_none()
            && self.date_to.is_none()
            && self.search.is_none()
    }

    /// True when `e` (its shared values in `refs`) passes every filter.
    pub fn matches(&self, e: &IndexEntry, refs: &Refs) -> bool {
        let archive_ok = match &self.group {
            Some(g) if g.mentions_archived() => true,
            _ => self.include_archived || !e.archived,
        };
        archive_ok
            && (self.statuses.is_empty() || self.statuses.contains(&e.status))
            && (self.outcomes.is_empty()
                || Outcome::of(e).is_some_and(|o| self.outcomes.contains(&o)))
            && self
                .customer_id
                .is_none_or(|c| refs.context(e.context).customer == Some(c))
            && self
                .printer_id
                .is_none_or(|p| refs.printers(e.context).ids.contains(&p))
            && self
                .series_id
                .is_none_or(|s| refs.context(e.context).series == Some(s))
            && self.date_from.is_none_or(|d| e.date >= d)
            && self.date_to.is_none_or(|d| e.date <= d)
            && self.search.as_ref().is_none_or(|s| {
                refs.name(e.name).contains(s.as_str())
                    || refs.printers(e.context).search.contains(s.as_str())
            })
            && self.group.as_ref().is_none_or(|g| g.holds(e, refs))
    }
}

/// Totals over a whole filtered set (histories).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// Prints.
    pub prints: u64,
    /// Units.
    pub units: u64,
    /// Sum of planned totals.
    pub total_cost: Decimal,
    /// Sum of sales values, where given, failed prints left out.
    pub sales_value: Decimal,
    /// Sum of `salesValue - totalCost` over those prints.
    pub planned_margin: Decimal,
}

impl Totals {
    pub(super) fn add(&mut self, e: &IndexEntry) {
        self.prints += 1;
        self.units += u64::from(e.quantity);
        let total_cost = e.total_cost.or_zero();
        self.total_cost += total_cost;
        // A failed print earned nothing (its retry carries the order's price).
        let failed = Outcome::of(e) == Some(Outcome::Failed);
        if let Some(s) = e.sales_value.decimal().filter(|_| !failed) {
            self.sales_value += s;
            self.planned_margin += s - total_cost;
        }
    }
}
