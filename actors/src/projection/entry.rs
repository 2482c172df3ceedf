//! One print as the list projection holds it: the fields lists filter and total on, compact,
//! with what prints share held once.

use super::amount::Amount;
use jiff::civil::Date;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use storage::Id;
use storage::records::{OutcomeStatus, PrintStatus};

/// What lists filter and total on, for one print, in 64 bytes (a million prints hold 64 MB):
/// its lower-case name in the names' arena of [`Refs`], what many prints share (customer,
/// series, the printers of their parts with their names as priced) held once in [`Refs`] as
/// the print's [`Context`], and its amounts in the fixed form of [`Amount`].
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// The print.
    pub id: Id,
    /// Its record version, saturated at `u32::MAX` (a print written four billion times would
    /// make every later write reload the projection: never).
    pub version: u32,
    /// Lower-case name, for search: its place in [`Refs::name`]'s arena (one string for every
    /// name saves a heap block and a pointer per print).
    pub name: NameRef,
    /// Planned total cost (zero for a print whose amounts are out of range:
    /// [`super::figures::in_range`]).
    pub total_cost: Amount,
    /// Sales value ([`Amount::NONE`] for none, or for a print out of range).
    pub sales_value: Amount,
    /// Completion date, else creation date, in the instance time zone.
    pub date: Date,
    /// Units.
    pub quantity: u32,
    /// Customer, series and printers, in [`Refs::context`].
    pub context: Ref,
    /// Status.
    pub status: PrintStatus,
    /// Recorded outcome; `None` until one is recorded.
    pub outcome: Option<Outcome>,
    /// Archive state.
    pub archived: bool,
}

const _: () = assert!(std::mem::size_of::<IndexEntry>() == 64);

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
            name: NameRef::NONE,
            total_cost: Amount::ZERO,
            sales_value: Amount::NONE,
            date: Date::default(),
            quantity: 0,
            context: Ref::NONE,
            status: kind.status,
            outcome: kind.outcome,
            archived: kind.archived,
        }
    }
}

/// Where a name lies in the names' arena of [`Refs`]: the byte offset of its length prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameRef(u32);

impl NameRef {
    /// No name (searched as "").
    pub const NONE: NameRef = NameRef(u32::MAX);
}

/// A place in [`Refs`]; [`Ref::NONE`] for no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ref(u32);

impl Ref {
    /// No value (a print without customer or series).
    pub const NONE: Ref = Ref(u32::MAX);

    /// The place of the `len`-th value (saturated: never four billion shared values).
    fn at(len: usize) -> Ref {
        Ref(u32::try_from(len).unwrap_or(u32::MAX - 1))
    }
}

/// The printers of a print's parts and their lower-case names as priced, for search.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Printers {
    /// Printer ids, in part order.
    pub ids: Box<[Id]>,
    /// Lower-case printer names of the print's cost lines, one per line.
    pub search: Box<str>,
}

/// What a print shares with others: its customer, series and printers. There are as many as
/// combinations in use (a shop's customers by series and printer sets), not prints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Context {
    /// Customer.
    pub customer: Option<Id>,
    /// Series.
    pub series: Option<Id>,
    /// The printers, in [`Refs::printers`].
    printers: Option<Ref>,
}

/// The longest name the arena holds, in bytes: its length is a two-byte prefix of seven bits
/// each (ASCII, so the arena stays a `String`). Names are at most 200 characters, 800 bytes.
const MAX_NAME_BYTES: usize = (1 << 14) - 1;

/// Values many entries share, each held once: contexts and printer sets, and the arena of every
/// entry's lower-case name. Only grows: a value no entry uses any more stays (there are as many
/// as combinations in use, not prints); a renamed print's old name stays in the arena until the
/// projection is loaded again (a write that keeps the name keeps its place:
/// [`Refs::intern_name`]).
#[derive(Debug, Clone, Default)]
pub struct Refs {
    names: String,
    contexts: Vec<Context>,
    context_refs: HashMap<Context, Ref>,
    printers: Vec<Printers>,
    printer_refs: HashMap<Printers, Ref>,
}

impl Refs {
    /// The place of the lower-case `name`: `kept` when it holds the same text (an update that
    /// did not rename), else a new place at the arena's end. A name beyond [`MAX_NAME_BYTES`]
    /// is searched by its first bytes.
    pub fn intern_name(&mut self, name: &str, kept: Option<NameRef>) -> NameRef {
        if let Some(kept) = kept.filter(|k| self.name(*k) == name) {
            return kept;
        }
        let mut len = name.len().min(MAX_NAME_BYTES);
        while !name.is_char_boundary(len) {
            len -= 1;
        }
        let Ok(start) = u32::try_from(self.names.len()) else {
            // Beyond 4 GiB of names (never, at 25 bytes a print): the name is left out of search.
            return NameRef::NONE;
        };
        // Both below 0x80: ASCII characters.
        self.names.push(char::from((len >> 7) as u8));
        self.names.push(char::from((len & 0x7f) as u8));
        self.names.push_str(&name[..len]);
        NameRef(start)
    }

    /// The name at `at` ("" for [`NameRef::NONE`] or a place outside the arena).
    pub fn name(&self, at: NameRef) -> &str {
        let start = at.0 as usize;
        let bytes = self.names.as_bytes();
        let (Some(&high), Some(&low)) = (bytes.get(start), bytes.get(start + 1)) else {
            return "";
        };
        let len = usize::from(high) << 7 | usize::from(low);
        self.names
            .get(start + 2..start + 2 + len)
            .unwrap_or_default()
    }

    /// Gives the arena's spare capacity back (after a load).
    pub fn shrink(&mut self) {
        self.names.shrink_to_fit();
    }

    /// The place of the context of `customer`, `series` and `printers`, added if new.
    pub fn intern_context(
        &mut self,
        customer: Option<Id>,
        series: Option<Id>,
        printers: Printers,
    ) -> Ref {
        let printers = (!printers.ids.is_empty() || !printers.search.is_empty())
            .then(|| self.intern_printers(printers));
        let context = Context {
            customer,
            series,
            printers,
        };
        let next = Ref::at(self.contexts.len());
        *self.context_refs.entry(context).or_insert_with(|| {
            self.contexts.push(context);
            next
        })
    }

    fn intern_printers(&mut self, printers: Printers) -> Ref {
        if let Some(found) = self.printer_refs.get(&printers) {
            return *found;
        }
        let at = Ref::at(self.printers.len());
        self.printers.push(printers.clone());
        self.printer_refs.insert(printers, at);
        at
    }

    /// The context at `at` (no customer, series or printers for [`Ref::NONE`]).
    pub fn context(&self, at: Ref) -> Context {
        self.contexts
            .get(at.0 as usize)
            .copied()
            .unwrap_or_default()
    }

    /// The printers of the context at `at` (none for an unknown place).
    pub fn printers(&self, at: Ref) -> &Printers {
        static NONE: std::sync::OnceLock<Printers> = std::sync::OnceLock::new();
        self.context(at)
            .printers
            .and_then(|p| self.printers.get(p.0 as usize))
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
    /// Every outcome a filter names, in the order pages offer them.
    pub const ALL: [Outcome; 3] = [Outcome::Pending, Outcome::Success, Outcome::Failed];

    /// The outcome's name on the wire and in the catalogue's keys (`outcome.PENDING`): the one
    /// place these names are spelled.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pending => "PENDING",
            Outcome::Success => "SUCCESS",
            Outcome::Failed => "FAILED",
        }
    }

    /// Parses a [`Outcome::name`].
    pub fn parse(text: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.name() == text)
    }

    /// The outcome of a recorded revision's `status`.
    pub fn recorded(status: OutcomeStatus) -> Outcome {
        match status {
            OutcomeStatus::Success => Outcome::Success,
            OutcomeStatus::Failed => Outcome::Failed,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_from_the_arena() {
        let mut refs = Refs::default();
        let first = refs.intern_name("benchy", None);
        let second = refs.intern_name("", None);
        let long = "ä".repeat(MAX_NAME_BYTES);
        let third = refs.intern_name(&long, None);
        assert_eq!(refs.name(first), "benchy");
        assert_eq!(refs.name(second), "");
        // Cut at a character boundary below the limit.
        assert_eq!(refs.name(third), "ä".repeat(MAX_NAME_BYTES / 2));
        assert_eq!(refs.name(NameRef::NONE), "");
        assert_eq!(refs.intern_name("benchy", Some(first)), first);
        assert_ne!(refs.intern_name("gear", Some(first)), first);
    }

    #[test]
    fn prints_sharing_customer_series_and_printers_share_one_context() {
        let mut refs = Refs::default();
        let printers = || Printers {
            ids: Box::new([Id::from_bytes([1; 16])]),
            search: "mk4".into(),
        };
        let customer = Some(Id::from_bytes([2; 16]));
        let one = refs.intern_context(customer, None, printers());
        assert_eq!(refs.intern_context(customer, None, printers()), one);
        let other = refs.intern_context(None, customer, printers());
        assert_ne!(other, one);
        assert_eq!(refs.context(one).customer, customer);
        assert_eq!(refs.context(other).series, customer);
        assert_eq!(refs.printers(other), &printers());
        assert_eq!(refs.context(Ref::NONE), Context::default());
        assert!(refs.printers(Ref::NONE).ids.is_empty());
    }
}
