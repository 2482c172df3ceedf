//! The spool commands and queries: what the API and the UI send to the ledger writer, each
//! with every rule it needs (spool management must be on; a spool's code, filament and initial
//! weight are fixed; only RECEIPT and CORRECTION are booked by hand).

use super::views::{self, SpoolFilter, SpoolView};
use crate::command::LedgerWriter;
use crate::command::{Command, Query, Snapshot};
use crate::ledger::remote as links;
use crate::ledger::{self, SpoolChange, SpoolInput};
use crate::list::{ListQuery, Page};
use crate::txn::Txn;
use crate::values::SignedGrams;
use crate::{Error, Result, settings};
use rust_decimal::Decimal;
use storage::records::{Filament, Movement, MovementKind, Spool, SpoolLink, StockUnit};
use storage::repo;
use storage::{Id, Timestamp};

/// Opens a spool with its opening RECEIPT, atomically; replies with the spool.
///
/// Errors: [`Error::SpoolManagementDisabled`]; as [`ledger::open_spool`].
#[derive(Debug, Clone)]
pub struct OpenSpool(pub SpoolInput);

impl Command for OpenSpool {
    type Writer = LedgerWriter;
    type Reply = SpoolView;

    fn apply(&mut self, txn: &Txn) -> Result<SpoolView> {
        settings::require_spool_management(txn)?;
        let spool = ledger::open_spool(txn, &self.0, Timestamp::now())?;
        views::view(txn, spool.id)
    }
}

/// The fields fixed when a spool is opened, as a change may repeat them (each `None` when not
/// sent). A value other than the spool's is refused.
#[derive(Debug, Clone, Default)]
pub struct FixedFields {
    /// The spool's code.
    pub code: Option<String>,
    /// Its filament.
    pub filament_id: Option<Id>,
    /// Its net quantity when bought, with the unit each was sent in.
    pub initial_quantities: Vec<(Decimal, StockUnit)>,
}

impl FixedFields {
    /// True when every field sent equals the spool's (its quantity in its material's `unit`).
    fn hold_for(&self, spool: &Spool, unit: StockUnit) -> bool {
        self.code.as_ref().is_none_or(|c| c.trim() == spool.code)
            && self.filament_id.is_none_or(|f| f == spool.filament_id)
            && self
                .initial_quantities
                .iter()
                .all(|q| *q == (spool.initial_net_weight_grams, unit))
    }
}

/// Changes a spool's metadata and price; replies with the spool.
///
/// Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`]; [`Error::Immutable`] when
/// a fixed field differs from the spool's; [`Error::StockOwnedExternally`] while the spool
/// manager owns its stock.
#[derive(Debug, Clone)]
pub struct ChangeSpool {
    /// The spool.
    pub id: Id,
    /// The new metadata and price.
    pub change: SpoolChange,
    /// Fixed fields as sent.
    pub fixed: FixedFields,
}

impl Command for ChangeSpool {
    type Writer = LedgerWriter;
    type Reply = SpoolView;

    fn apply(&mut self, txn: &Txn) -> Result<SpoolView> {
        settings::require_spool_management(txn)?;
        let spool = views::view(txn, self.id)?;
        if !self.fixed.hold_for(&spool.spool, spool.unit) {
            return Err(Error::Immutable);
        }
        links::require_native(txn, self.id)?;
        ledger::change(txn, self.id, &self.change, Timestamp::now())?;
        views::view(txn, self.id)
    }
}

/// Archives or restores a spool (an archived spool is not active stock); replies with it.
///
/// Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct ArchiveSpool {
    /// The spool.
    pub id: Id,
    /// The new archive state.
    pub archived: bool,
}

impl Command for ArchiveSpool {
    type Writer = LedgerWriter;
    type Reply = SpoolView;

    fn apply(&mut self, txn: &Txn) -> Result<SpoolView> {
        settings::require_spool_management(txn)?;
        ledger::set_archived(txn, self.id, self.archived, Timestamp::now())?;
        views::view(txn, self.id)
    }
}

/// Books a RECEIPT or CORRECTION on a spool, idempotent by its operation key; replies with the
/// movement (the first one, for a repeated key with the same content).
///
/// Errors: [`Error::Validation`] at `kind` for PRINT (booked by outcomes only), at the
/// quantity's field ([`ledger::quantity_field`]: `errors.wrongUnit` for another unit than the
/// spool's material's, `errors.wholeNumber` for a fraction of a piece, and [`ledger::book`]'s
/// errors on the quantity); [`Error::SpoolManagementDisabled`];
/// [`Error::StockOwnedExternally`] while the spool manager owns the spool's stock; as
/// [`ledger::book`].
#[derive(Debug, Clone)]
pub struct BookMovement {
    /// The spool.
    pub spool_id: Id,
    /// RECEIPT (positive) or CORRECTION (signed, nonzero, never below zero).
    pub kind: MovementKind,
    /// Signed quantity in `unit` (12 whole and 6 fractional digits at most).
    pub grams: SignedGrams,
    /// The unit the quantity was sent in: it must be the spool's material's.
    pub unit: StockUnit,
    /// Free text; blank is none.
    pub note: Option<String>,
    /// Idempotency key.
    pub operation_key: Option<Id>,
}

impl Command for BookMovement {
    type Writer = LedgerWriter;
    type Reply = Movement;

    fn apply(&mut self, txn: &Txn) -> Result<Movement> {
        if self.kind == MovementKind::Print {
            return Err(Error::field("kind", "errors.invalidValue"));
        }
        settings::require_spool_management(txn)?;
        // A missing spool has no link; ledger::book answers NotFound for it.
        links::native(repo::get::<SpoolLink>(txn, self.spool_id)?.as_ref())?;
        let field = ledger::quantity_field(self.unit);
        let spool = ledger::get(txn, self.spool_id)?;
        let material: Filament = repo::get(txn, spool.filament_id)?.ok_or(Error::NotFound)?;
        if material.unit != self.unit {
            return Err(Error::field(field, "errors.wrongUnit"));
        }
        ledger::require_whole(material.unit, *self.grams.get(), field)?;
        let movement = ledger::MovementInput {
            kind: self.kind,
            grams: *self.grams.get(),
            note: self.note.clone().filter(|n| !n.trim().is_empty()),
            operation_key: self.operation_key,
            print_id: None,
            usage_id: None,
        };
        ledger::book(txn, self.spool_id, &movement, Timestamp::now())
            .map_err(|e| e.moved("grams", field))
    }
}

/// Spools matching a list query and filter, sorted by code.
///
/// Errors: [`Error::SpoolManagementDisabled`].
#[derive(Debug, Clone)]
pub struct ListSpools {
    /// Search, archive state, page.
    pub query: ListQuery,
    /// Filament and availability.
    pub filter: SpoolFilter,
}

impl Query for ListSpools {
    type Answer = Page<SpoolView>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Page<SpoolView>> {
        views::list(snapshot, &self.query, &self.filter)
    }
}

/// A spool and one page of its movements, newest first.
///
/// Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct SpoolLedger {
    /// The spool.
    pub id: Id,
    /// One-based page of movements.
    pub page: u32,
    /// Movements per page.
    pub page_size: u32,
}

impl Query for SpoolLedger {
    type Answer = (SpoolView, Page<Movement>);

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Self::Answer> {
        settings::require_spool_management(snapshot)?;
        Ok((
            views::view(snapshot, self.id)?,
            ledger::movements(snapshot, self.id, self.page, self.page_size)?,
        ))
    }
}

/// One spool with its filament's name.
///
/// Errors: [`Error::SpoolManagementDisabled`]; [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct GetSpool(pub Id);

impl Query for GetSpool {
    type Answer = SpoolView;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<SpoolView> {
        settings::require_spool_management(snapshot)?;
        views::view(snapshot, self.0)
    }
}
