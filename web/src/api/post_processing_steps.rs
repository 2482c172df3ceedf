//! `/api/post-processing-steps`.

use super::charges::Per;
use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::extract::NoFilter;
use crate::input::Faults;
use crate::wire::{WireId, dec, ts};
use actors::inventory::steps::{self, StepView};
use actors::values::{Amount, Name, Note, PositiveAmount, Watts};
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// The machine a step runs, priced by its hours and watts.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepMachine {
    /// Display name.
    pub name: String,
    /// Purchase price, instance currency.
    pub purchase_price: String,
    /// Expected lifetime, running hours.
    pub expected_lifetime_hours: String,
    /// Average power while running, watts.
    pub average_power_watts: u32,
    /// Running minutes per piece or per job (the step's `per`).
    pub minutes: String,
}

/// A post-processing step.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostProcessingStep {
    /// Id (UUID).
    pub id: String,
    /// Display name.
    pub name: String,
    /// The labour rate its minutes are priced at.
    pub labour_rate_id: String,
    /// That labour rate's name.
    pub labour_rate_name: String,
    /// Labour minutes per piece or per job.
    pub minutes: String,
    /// Per piece or per job.
    pub per: Per,
    /// The machine it runs, if any.
    pub machine: Option<StepMachine>,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// The machine of a step input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct StepMachineInput {
    /// Display name, 1-200 characters.
    #[schema(example = "Wash & Cure")]
    pub name: Name,
    /// Purchase price, non-negative, instance currency.
    #[schema(example = "250.00")]
    pub purchase_price: Amount,
    /// Expected lifetime, running hours (> 0).
    #[schema(example = "1000")]
    pub expected_lifetime_hours: PositiveAmount,
    /// Average power while running, watts (0-100000).
    #[schema(value_type = u32, example = 60, maximum = 100000)]
    pub average_power_watts: Watts,
    /// Running minutes per piece or per job.
    #[schema(example = "6")]
    pub minutes: Amount,
}

/// Post-processing step input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PostProcessingStepInput {
    /// Display name, 1-200 characters.
    #[schema(example = "Stützen entfernen")]
    pub name: Name,
    /// The labour rate its minutes are priced at (active).
    #[schema(value_type = String, format = Uuid)]
    pub labour_rate_id: WireId,
    /// Labour minutes per piece or per job, non-negative.
    #[schema(example = "5")]
    pub minutes: Amount,
    /// Per piece or per job.
    pub per: Per,
    /// The machine it runs, if any.
    #[deserr(default)]
    pub machine: Option<StepMachineInput>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

/// The post-processing steps resource.
pub struct Steps;

impl Resource for Steps {
    type Kind = steps::Steps;
    type Dto = PostProcessingStep;
    type Input = PostProcessingStepInput;

    fn domain(i: PostProcessingStepInput) -> Result<inventory::Input<Self>, ApiError> {
        Ok(steps::StepInput {
            name: i.name,
            labour_rate_id: i.labour_rate_id.0,
            minutes: i.minutes,
            per: i.per.into(),
            machine: i.machine.map(|m| steps::MachineInput {
                name: m.name,
                purchase_price: m.purchase_price,
                expected_lifetime_hours: m.expected_lifetime_hours,
                average_power_watts: m.average_power_watts.get(),
                minutes: m.minutes,
            }),
            note: i.note,
        })
    }

    type Params = NoFilter;

    fn filter(_: NoFilter) {}

    fn dto(v: StepView) -> PostProcessingStep {
        let s = v.step;
        PostProcessingStep {
            id: s.id.to_string(),
            name: s.name,
            labour_rate_id: s.labour_rate_id.to_string(),
            labour_rate_name: v.labour_rate,
            minutes: dec(s.minutes),
            per: s.per.into(),
            machine: s.machine.map(|m| StepMachine {
                name: m.name,
                purchase_price: dec(m.purchase_price),
                expected_lifetime_hours: dec(m.expected_lifetime_hours),
                average_power_watts: m.average_power_watts,
                minutes: dec(m.minutes),
            }),
            note: s.note,
            archived: s.archived,
            created_at: ts(s.created_at),
            updated_at: ts(s.updated_at),
        }
    }
}

inventory_routes!(
    Steps,
    "post-processing steps",
    "/post-processing-steps",
    "/post-processing-steps/{id}",
    PostProcessingStep,
    PostProcessingStepInput,
    []
);
