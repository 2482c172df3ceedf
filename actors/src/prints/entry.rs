//! One print as the list projection holds it: the fields lists filter and total on, compact,
//! with what prints share held once.

use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use storage::Id;
use storage::records::PrintStatus;

/// What lists filter and total on, for one print: 96 bytes, its lower-case name in the names'
/// arena of [`Refs`]. What many prints share (customers, series, the printers of their parts
/// with their names as priced) is held once in [`Refs`], which an entry points into.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// The print.
    pub id: Id,
    /// Its record version.
    pub version: u64,
    /// Lower-case name, for search: its place in [`Refs::name`]'s arena (one string for every
    /// name saves a heap block and a pointer per print).
    pub name: NameRef,
    /// Planned total cost (zero for a print whose amounts are out of range:
    /// [`super::figures::in_range`]).
    pub total_cost: Decimal,
    /// Sales value (none for a print out of range).
    pub sales_value: Option<Decimal>,
    /// Completion date, else creation date, in the instance time zone.
    pub date: Date,
    /// Units.
    pub quantity: u32,
    /// Customer, in [`Refs::id`].
    pub customer: Ref,
    /// Series, in [`Refs::id`].
    pub series: Ref,
    /// The printers of every part and their names, in [`Refs::printers`].
    pub printers: Ref,
    /// Status.
    pub status: PrintStatus,
    /// Recorded outcome; `None` until one is recorded.
    pub outcome: Option<Outcome>,
    /// Archive state.
    pub archived: bool,
}

/// What every list filter on a print's state reads: status, outcome and archive state. The
/// projection counts its entries per kind, so a list filtered on these alone counts its matches
/// without a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kind {
    /// Status.
    pub status: PrintStatus,
    /// Recorded outcome.
    pub outcome: Option<Outcome>,
    /// Archive state.
    pub archived: bool,
}

impl IndexEntry {
    /// The entry's kind.
    pub fn kind(&self) -> Kind {
        Kind {
            status: self.status,
            outcome: self.outcome,
            archived: self.archived,
        }
    }

    /// An entry of kind `kind` and nothing else (no id, name, customer, amounts), for testing a
    /// filter that reads only the kind ([`super::query::PrintFilter::on_kind_only`]).
    pub fn of_kind(kind: Kind) -> IndexEntry {
        IndexEntry {
            id: Id::from_bytes([0; 16]),
            version: 0,
            name: NameRef::default(),
            total_cost: Decimal::ZERO,
            sales_value: None,
            date: Date::default(),
            quantity: 0,
            customer: Ref::NONE,
            series: Ref::NONE,
            printers: Ref::NONE,
            status: kind.status,
            outcome: kind.outcome,
            archived: kind.archived,
        }
    }
}

/// Where a name lies in the names' arena of [`Refs`]: start and length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameRef {
    start: u32,
    len: u32,
}

/// A place in [`Refs`]; [`Ref::NONE`] for no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ref(u32);

impl Ref {
    /// No value (a print without customer or series).
    pub const NONE: Ref = Ref(u32::MAX);
}

/// The printers of a print's parts and their lower-case names as priced, for search.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Printers {
    /// Printer ids, in part order.
    pub ids: Box<[Id]>,
    /// Lower-case printer names of the print's cost lines, one per line.
    pub search: Box<str>,
}

/// Values many entries share, each held once: ids (customers, series) and printer sets, and the
/// arena of every entry's lower-case name. Only grows: a value no entry uses any more stays
/// (there are as many as customers, series and printer combinations, not prints); a renamed
/// print's old name stays in the arena until the projection is loaded again (a write that keeps
/// the name keeps its place: [`Refs::intern_name`]).
#[derive(Debug, Clone, Default)]
pub struct Refs {
    names: String,
    ids: Vec<Id>,
    id_refs: HashMap<Id, Ref>,
    printers: Vec<Printers>,
    printer_refs: HashMap<Printers, Ref>,
}

impl Refs {
    /// The place of the lower-case `name`: `kept` when it holds the same text (an update that
    /// did not rename), else a new place at the arena's end.
    pub fn intern_name(&mut self, name: &str, kept: Option<NameRef>) -> NameRef {
        if let Some(kept) = kept.filter(|k| self.name(*k) == name) {
            return kept;
        }
        let (Ok(start), Ok(len)) = (u32::try_from(self.names.len()), u32::try_from(name.len()))
        else {
            // Beyond 4 GiB of names (never, at 20 bytes a print): the name is left out of search.
            return NameRef::default();
        };
        self.names.push_str(name);
        NameRef { start, len }
    }

    /// The name at `at` ("" for a place outside the arena).
    pub fn name(&self, at: NameRef) -> &str {
        let start = at.start as usize;
        self.names
            .get(start..start + at.len as usize)
            .unwrap_or_default()
    }

    /// Gives the arena's spare capacity back (after a load).
    pub fn shrink(&mut self) {
        self.names.shrink_to_fit();
    }

    /// The place of `id` ([`Ref::NONE`] for none), added if new.
    pub fn intern_id(&mut self, id: Option<Id>) -> Ref {
        let Some(id) = id else {
            return Ref::NONE;
        };
        let next = Ref(u32::try_from(self.ids.len()).unwrap_or(u32::MAX - 1));
        *self.id_refs.entry(id).or_insert_with(|| {
            self.ids.push(id);
            next
        })
    }

    /// The place of `printers`, added if new.
    pub fn intern_printers(&mut self, printers: Printers) -> Ref {
        if let Some(found) = self.printer_refs.get(&printers) {
            return *found;
        }
        let at = Ref(u32::try_from(self.printers.len()).unwrap_or(u32::MAX - 1));
        self.printers.push(printers.clone());
        self.printer_refs.insert(printers, at);
        at
    }

    /// The id at `at` (`None` for [`Ref::NONE`]).
    pub fn id(&self, at: Ref) -> Option<Id> {
        self.ids.get(at.0 as usize).copied()
    }

    /// The printers at `at` (none for an unknown place).
    pub fn printers(&self, at: Ref) -> &Printers {
        static NONE: std::sync::OnceLock<Printers> = std::sync::OnceLock::new();
        self.printers
            .get(at.0 as usize)
            .unwrap_or_else(|| NONE.get_or_init(Printers::default))
    }
}

/// Outcome filter values. PENDING is derived: a DONE print without an outcome. Stored in print
/// summaries (only SUCCESS and FAILED).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// DONE without an outcome.
    Pending,
    /// Recorded as a success.
    Success,
    /// Recorded as a failure.
    Failed,
}

impl Outcome {
    /// Parses `PENDING`, `SUCCESS` or `FAILED`.
    pub fn parse(text: &str) -> Option<Outcome> {
        match text {
            "PENDING" => Some(Outcome::Pending),
            "SUCCESS" => Some(Outcome::Success),
            "FAILED" => Some(Outcome::Failed),
            _ => None,
        }
    }

    pub(super) fn of(entry: &IndexEntry) -> Option<Outcome> {
        match (entry.outcome, entry.status) {
            (Some(o), _) => Some(o),
            (None, PrintStatus::Done) => Some(Outcome::Pending),
            (None, _) => None,
        }
    }
}
