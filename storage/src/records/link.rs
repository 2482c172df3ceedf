//! The spool manager's side of a spool: the link of a local spool to a remote one (who owns its
//! stock, what the spool manager last said) and the consumption operations sent to it
//! (docs/api-contract.md, "Integrations").

use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Who owns a spool's stock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Authority {
    /// Our ledger owns stock (the default of every spool not linked).
    Native,
    /// The spool manager owns stock; outcomes book nothing here (the default of an import).
    ExternalReadOnly,
    /// The spool manager owns stock and our outcomes send it their consumption as operations.
    ExternalConsumption,
}

/// The remote spool's state as last synced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RemoteState {
    /// Present and not archived.
    Active,
    /// Archived in the spool manager.
    Archived,
    /// The spool manager answered 404.
    Missing,
}

/// A local spool linked to a spool of the spool manager, stored under the local spool's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpoolLink {
    /// The local spool (the record's key).
    pub spool_id: Id,
    /// The remote spool's id in the spool manager.
    pub remote_id: u64,
    /// Who owns the stock.
    pub authority: Authority,
    /// Grams left by the spool manager's last good answer (`None` when it knows no weight).
    #[serde(with = "rust_decimal::serde::str_option")]
    pub remote_remaining_grams: Option<Decimal>,
    /// The remote spool's state by the last sync.
    pub remote_state: RemoteState,
    /// Time of the last good sync.
    pub synced_at: Option<Timestamp>,
    /// Why the last sync failed (an error code), cleared by a good one.
    pub sync_error: Option<String>,
    /// When the link was made.
    pub linked_at: Timestamp,
}

/// Where an operation stands: `PENDING → SENDING → APPLIED`, or `UNKNOWN` (no answer) or
/// `FAILED` (refused with a 4xx); neither of those two is ever resent by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OperationState {
    /// Waiting to be sent.
    Pending,
    /// Claimed by a sender; the request may be under way.
    Sending,
    /// The spool manager applied it.
    Applied,
    /// Sent without an answer: it may or may not have been applied.
    Unknown,
    /// Refused with a 4xx: not applied.
    Failed,
}

/// Consumption to send to the spool manager: made in the transaction that records an outcome
/// or a correction, one per usage (a correction's is its delta, possibly negative).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpoolmgrOperation {
    /// Record id (time-ordered).
    pub id: Id,
    /// The local spool.
    pub spool_id: Id,
    /// The remote spool.
    pub remote_id: u64,
    /// Grams to book as used (`use_weight`; negative gives filament back).
    #[serde(with = "rust_decimal::serde::str")]
    pub grams: Decimal,
    /// Where it stands.
    pub state: OperationState,
    /// The last failure (an error code or the peer's status), if any.
    pub error: Option<String>,
    /// The print whose outcome made it.
    pub print_id: Id,
    /// The usage it consumed.
    pub usage_id: Id,
    /// The outcome revision that made it (1 for the outcome, then one per correction).
    pub revision: u32,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}
