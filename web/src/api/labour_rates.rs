//! `/api/labour-rates`.

use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::extract::NoFilter;
use crate::input::Faults;
use crate::wire::{dec, ts};
use actors::inventory::labour_rates;
use actors::values::{Amount, Name, Note};
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// A labour rate: what an hour of somebody's work costs.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabourRate {
    /// Id (UUID).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Price of one hour, instance currency.
    pub hourly_rate: String,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Labour rate input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct LabourRateInput {
    /// Display name, 1-200 characters.
    #[schema(example = "Nachbearbeitung")]
    pub name: Name,
    /// Price of one hour, non-negative, instance currency.
    #[schema(example = "45.00")]
    pub hourly_rate: Amount,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

/// The labour rates resource.
pub struct LabourRates;

impl Resource for LabourRates {
    type Kind = labour_rates::LabourRates;
    type Dto = LabourRate;
    type Input = LabourRateInput;

    fn domain(i: LabourRateInput) -> Result<inventory::Input<Self>, ApiError> {
        Ok(labour_rates::LabourRateInput {
            name: i.name,
            hourly_rate: i.hourly_rate,
            note: i.note,
        })
    }

    type Params = NoFilter;

    fn filter(_: NoFilter) {}

    fn dto(r: inventory::View<Self>) -> LabourRate {
        LabourRate {
            id: r.id.to_string(),
            name: r.name,
            hourly_rate: dec(r.hourly_rate),
            note: r.note,
            archived: r.archived,
            created_at: ts(r.created_at),
            updated_at: ts(r.updated_at),
        }
    }
}

inventory_routes!(
    LabourRates,
    "labour rates",
    "/labour-rates",
    "/labour-rates/{id}",
    LabourRate,
    LabourRateInput,
    []
);
