//! Filament spools and their stock ledger.

use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A physical spool of one filament. `remaining_grams` always equals the sum of its movements;
/// both change in the same transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spool {
    /// Record id.
    pub id: Id,
    /// Unique label code (case-insensitive), printed on the QR label. Fixed after creation.
    pub code: String,
    /// The filament on it. Fixed after creation.
    pub filament_id: Id,
    /// What the spool cost, instance currency.
    #[serde(with = "rust_decimal::serde::str")]
    pub purchase_price: Decimal,
    /// Net filament weight when bought, grams. Fixed after creation.
    #[serde(with = "rust_decimal::serde::str")]
    pub initial_net_weight_grams: Decimal,
    /// Manufacturer's lot.
    pub purchase_lot: Option<String>,
    /// Where it is kept.
    pub location: Option<String>,
    /// Purchase date, `YYYY-MM-DD`.
    pub acquired_at: Option<String>,
    /// Sum of the spool's movements, grams.
    #[serde(with = "rust_decimal::serde::str")]
    pub remaining_grams: Decimal,
    /// Archive state (an archived spool is not active stock).
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// What a movement records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MovementKind {
    /// Filament received (positive); the opening receipt of a new spool is one.
    Receipt,
    /// A signed, nonzero correction (a weighing, a loss).
    Correction,
    /// Consumption by a print outcome (negative), or a correction of one (signed).
    Print,
}

/// One append-only ledger entry of a spool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Movement {
    /// Record id.
    pub id: Id,
    /// The spool.
    pub spool_id: Id,
    /// Kind.
    pub kind: MovementKind,
    /// Signed grams.
    #[serde(with = "rust_decimal::serde::str")]
    pub grams: Decimal,
    /// Free text.
    pub note: Option<String>,
    /// The client's idempotency key (UUID), unique across all movements.
    pub operation_key: Option<Id>,
    /// For PRINT movements, the print.
    pub print_id: Option<Id>,
    /// For PRINT movements, the usage.
    pub usage_id: Option<Id>,
    /// Booking time.
    pub created_at: Timestamp,
}
