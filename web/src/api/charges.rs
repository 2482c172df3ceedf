//! `/api/charges`, and what a work line or a charge counts (`PIECE` or `JOB`).

use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::extract::NoFilter;
use crate::input::Faults;
use crate::wire::{dec, ts};
use actors::inventory::charges;
use actors::values::{Amount, Name, Note};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records::Per as StoredPer;
use utoipa::ToSchema;

/// What a charge or a work line counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Per {
    /// Once for every unit the run makes (the print's quantity).
    Piece,
    /// Once for the whole run.
    Job,
}

crate::input::deserr_by_name!(Per);

impl From<Per> for StoredPer {
    fn from(p: Per) -> Self {
        match p {
            Per::Piece => StoredPer::Piece,
            Per::Job => StoredPer::Job,
        }
    }
}

impl From<StoredPer> for Per {
    fn from(p: StoredPer) -> Self {
        match p {
            StoredPer::Piece => Per::Piece,
            StoredPer::Job => Per::Job,
        }
    }
}

/// A fixed charge: a setup fee per job, packaging per piece.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Charge {
    /// Id (UUID).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Its amount, instance currency.
    pub amount: String,
    /// Per piece or per job.
    pub per: Per,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Charge input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct ChargeInput {
    /// Display name, 1-200 characters.
    #[schema(example = "Grundgebühr")]
    pub name: Name,
    /// Its amount, non-negative, instance currency.
    #[schema(example = "3.50")]
    pub amount: Amount,
    /// Per piece or per job.
    pub per: Per,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

/// The charges resource.
pub struct Charges;

impl Resource for Charges {
    type Kind = charges::Charges;
    type Dto = Charge;
    type Input = ChargeInput;

    fn domain(i: ChargeInput) -> Result<inventory::Input<Self>, ApiError> {
        Ok(charges::ChargeInput {
            name: i.name,
            amount: i.amount,
            per: i.per.into(),
            note: i.note,
        })
    }

    type Params = NoFilter;

    fn filter(_: NoFilter) {}

    fn dto(c: inventory::View<Self>) -> Charge {
        Charge {
            id: c.id.to_string(),
            name: c.name,
            amount: dec(c.amount),
            per: c.per.into(),
            note: c.note,
            archived: c.archived,
            created_at: ts(c.created_at),
            updated_at: ts(c.updated_at),
        }
    }
}

inventory_routes!(
    Charges,
    "charges",
    "/charges",
    "/charges/{id}",
    Charge,
    ChargeInput,
    []
);
