//! What the print projection keeps of one print ([`Summary`]), derived from the print by
//! [`Summary::of`] and stored beside it, in the same transaction, in the `print_summaries`
//! table (compact bincode: decimals as mantissa and scale, small integers in a byte).
//!
//! The projection loads from the summaries (a few dozen bytes a print) instead of decoding every
//! print with its parts, cost lines and outcome revisions: at a million prints that is the
//! difference between seconds and a fraction of one. The summaries are trusted only when META's
//! `print_summaries` names this build's [`FORMAT`] and there are as many as prints; otherwise
//! (a file from before schema 6, a restored older backup, a build that derives them
//! differently) the projection's first load rebuilds them from the prints in one write
//! transaction ([`rebuild`]).

use super::entry::Outcome;
use super::figures::{self, Figures};
use crate::Result;
use crate::projection::wear;
use redb::{ReadableTable, ReadableTableMetadata};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::ops::ControlFlow;
use storage::records::{CostCategory, OutcomeStatus, Print, PrintStatus};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp, WriteTxn, decimal_parts, tables};

/// The layout and derivation of [`Summary`]; raise it whenever either changes, and every
/// store's summaries are rebuilt on its next start. 2: amounts with more than
/// [`crate::money::SCALE`] decimal places are out of range ([`crate::money::bounded`]). 3: the
/// `wear` table ([`crate::projection::wear`]) is rebuilt with them. 4: figures carry the
/// electricity by printer ([`figures::electricity_by_printer`]). 5: the work categories
/// ([`figures::CATEGORIES`] grew from 6 to 10). 6: a failed print's sales value is left out of
/// the figures' sales value. 7: the resin categories (vat, resin, consumables: 13). 8: wear
/// per print (14), and filament grams count filament only (not millilitres or pieces).
pub const FORMAT: u64 = 8;

/// META's key for the format of complete summaries.
const META_KEY: &str = "print_summaries";

/// The table's name, for codec errors.
const TABLE: &str = "print_summaries";

/// Everything the projection's entry and the dashboard's aggregates take from a print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Record version.
    pub version: u64,
    /// Lower-case name, for search.
    pub name: String,
    /// Status.
    pub status: PrintStatus,
    /// The current outcome's status, if one is recorded.
    pub outcome: Option<Outcome>,
    /// Customer.
    pub customer_id: Option<Id>,
    /// Series.
    pub series_id: Option<Id>,
    /// Printer of each part, in part order.
    pub printer_ids: Vec<Id>,
    /// Lower-case names of the print's printer cost lines, one per line.
    pub printer_search: String,
    /// Archive state.
    pub archived: bool,
    /// Completion time, else creation time: what the print is dated by.
    pub dated_at: Timestamp,
    /// Units.
    pub quantity: u32,
    /// False for a print whose amounts exceed the limit ([`figures::in_range`], an earlier
    /// build's): it adds nothing to totals or the dashboard.
    pub counted: bool,
    /// Planned total cost; zero when not counted.
    #[serde(with = "decimal_parts")]
    pub total_cost: Decimal,
    /// Sales value; none when not counted.
    #[serde(with = "decimal_parts::option")]
    pub sales_value: Option<Decimal>,
    /// What the print adds to the dashboard once DONE (none in other statuses). Inline: boxed,
    /// the load's extra allocation per print cost more than the smaller moves saved.
    pub figures: Option<Figures>,
}

impl Summary {
    /// The summary of `print`.
    pub fn of(print: &Print) -> Summary {
        let counted = figures::in_range(print);
        let printer_search = print
            .costing
            .lines
            .iter()
            .filter(|l| l.category == CostCategory::Printer)
            .map(|l| l.label.to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        Summary {
            version: print.version,
            name: print.name.to_lowercase(),
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
            printer_search,
            archived: print.archived,
            dated_at: print.completed_at.unwrap_or(print.created_at),
            quantity: print.quantity,
            counted,
            total_cost: if counted {
                print.costing.total
            } else {
                Decimal::ZERO
            },
            sales_value: print.sales_value.filter(|_| counted),
            figures: (print.status == PrintStatus::Done).then(|| Figures::of(print)),
        }
    }
}

/// Stores the summary of `print`, replacing its earlier one; called wherever a print is stored.
/// Errors: the store fails.
pub fn put(txn: &WriteTxn, print: &Print) -> Result<()> {
    let bytes = storage::encode_compact(TABLE, &Summary::of(print))?;
    txn.open_table(tables::PRINT_SUMMARIES)
        .map_err(storage::Error::from)?
        .insert(print.id.bytes(), bytes.as_slice())
        .map_err(storage::Error::from)?;
    Ok(())
}

/// True when the summaries are complete summaries of this [`FORMAT`]: one per print, and META
/// names the format. Errors: the store fails.
pub fn complete(tx: &impl Tx) -> Result<bool> {
    let format = tx
        .table(tables::META)?
        .get(META_KEY)
        .map_err(storage::Error::from)?
        .map(|f| f.value());
    Ok(format == Some(FORMAT)
        && tx
            .table(tables::PRINT_SUMMARIES)?
            .len()
            .map_err(storage::Error::from)?
            == repo::count::<Print>(tx)?)
}

/// Calls `visit` with every print's summary in id order, until it answers
/// [`ControlFlow::Break`]. Errors: the store fails, or a summary does not decode.
pub fn for_each(tx: &impl Tx, mut visit: impl FnMut(Id, Summary) -> ControlFlow<()>) -> Result<()> {
    for entry in tx
        .table(tables::PRINT_SUMMARIES)?
        .iter()
        .map_err(storage::Error::from)?
    {
        let (id, bytes) = entry.map_err(storage::Error::from)?;
        let summary = storage::decode_compact(TABLE, bytes.value())?;
        if visit(Id::from_bytes(id.value()), summary).is_break() {
            break;
        }
    }
    Ok(())
}

/// Writes every print's summary anew in `txn` (what was there is dropped), and every subject's
/// wear ([`wear::Rebuild`]), and marks them complete, calling `visit` with each in id order.
/// Errors: the store fails, or a print does not decode.
pub fn rebuild(txn: &WriteTxn, mut visit: impl FnMut(Id, Summary)) -> Result<()> {
    let mut wear = wear::Rebuild::default();
    txn.delete_table(tables::PRINT_SUMMARIES)
        .map_err(storage::Error::from)?;
    let mut summaries = txn
        .open_table(tables::PRINT_SUMMARIES)
        .map_err(storage::Error::from)?;
    let mut failure = None;
    repo::for_each::<Print>(txn, |print| {
        if failure.is_some() {
            return;
        }
        wear.add(&print);
        let summary = Summary::of(&print);
        let stored = storage::encode_compact(TABLE, &summary).and_then(|bytes| {
            summaries
                .insert(print.id.bytes(), bytes.as_slice())
                .map(drop)
                .map_err(storage::Error::from)
        });
        match stored {
            Ok(()) => visit(print.id, summary),
            Err(e) => failure = Some(e),
        }
    })?;
    if let Some(e) = failure {
        return Err(e.into());
    }
    drop(summaries);
    wear.write(txn)?;
    txn.open_table(tables::META)
        .map_err(storage::Error::from)?
        .insert(META_KEY, FORMAT)
        .map_err(storage::Error::from)?;
    Ok(())
}
