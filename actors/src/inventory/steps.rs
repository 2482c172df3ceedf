//! Post-processing steps: named work at a labour rate (support removal, sanding, curing),
//! optionally on a machine priced by its hours and watts.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, save};
use crate::Result;
use crate::inventory;
use crate::txn::Txn;
use crate::values::{Amount, Name, Note, PositiveAmount, note_text};
use std::collections::HashMap;
use storage::records::{LabourRate, Per, PostProcessingStep, StepMachine};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

impl InventoryRecord for PostProcessingStep {
    archivable!(PostProcessingStep);
}

/// The machine of a step input.
#[derive(Debug, Clone)]
pub struct MachineInput {
    /// Display name ("Wash & Cure").
    pub name: Name,
    /// Purchase price, instance currency.
    pub purchase_price: Amount,
    /// Expected lifetime, running hours.
    pub expected_lifetime_hours: PositiveAmount,
    /// Average power while running, watts.
    pub average_power_watts: u32,
    /// Running minutes per piece or per job (the step's `per`).
    pub minutes: Amount,
}

/// The editable fields of a post-processing step (create, full replace).
#[derive(Debug, Clone)]
pub struct StepInput {
    /// Display name ("Stützen entfernen").
    pub name: Name,
    /// The labour rate its minutes are priced at (active).
    pub labour_rate_id: Id,
    /// Labour minutes per piece or per job.
    pub minutes: Amount,
    /// Per piece or per job.
    pub per: Per,
    /// The machine it runs, if any.
    pub machine: Option<MachineInput>,
    /// Free text.
    pub note: Option<Note>,
}

/// A step with its labour rate's name and hourly price.
#[derive(Debug, Clone, PartialEq)]
pub struct StepView {
    /// The record.
    pub step: PostProcessingStep,
    /// Its labour rate's name.
    pub labour_rate: String,
}

fn view(tx: &impl Tx, step: PostProcessingStep) -> Result<StepView> {
    let rate: LabourRate = inventory::get(tx, step.labour_rate_id)?;
    Ok(StepView {
        step,
        labour_rate: rate.name,
    })
}

fn write(
    txn: &Txn,
    mut step: PostProcessingStep,
    input: &StepInput,
    now: Timestamp,
) -> Result<StepView> {
    let rate = inventory::require_active::<LabourRate>(txn, input.labour_rate_id, "labourRateId")?;
    step.name = input.name.get().clone();
    step.labour_rate_id = rate.id;
    step.minutes = *input.minutes.get();
    step.per = input.per;
    step.machine = input.machine.as_ref().map(|m| StepMachine {
        name: m.name.get().clone(),
        purchase_price: *m.purchase_price.get(),
        expected_lifetime_hours: *m.expected_lifetime_hours.get(),
        average_power_watts: m.average_power_watts,
        minutes: *m.minutes.get(),
    });
    step.note = note_text(input.note.clone());
    step.updated_at = now;
    save(txn, &step)?;
    Ok(StepView {
        step,
        labour_rate: rate.name,
    })
}

/// The post-processing steps resource's rules (see [`Kind`]).
pub struct Steps;

impl Kind for Steps {
    type Record = PostProcessingStep;
    type Input = StepInput;
    type View = StepView;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<StepView> {
        let step = PostProcessingStep {
            id: Id::new(),
            name: String::new(),
            labour_rate_id: input.labour_rate_id,
            minutes: Default::default(),
            per: input.per,
            machine: None,
            note: None,
            archived: false,
            created_at: now,
            updated_at: now,
        };
        write(txn, step, input, now)
    }

    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<StepView> {
        let old: PostProcessingStep = inventory::get(txn, id)?;
        write(txn, old, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<StepView> {
        view(tx, inventory::get(tx, id)?)
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<StepView>> {
        let rates: HashMap<Id, String> = repo::all::<LabourRate>(tx)?
            .into_iter()
            .map(|r| (r.id, r.name))
            .collect();
        inventory::list(
            tx,
            query,
            |step: PostProcessingStep| StepView {
                labour_rate: rates.get(&step.labour_rate_id).cloned().unwrap_or_default(),
                step,
            },
            |v| {
                query.matches(&[
                    &v.step.name,
                    &v.labour_rate,
                    v.step.note.as_deref().unwrap_or(""),
                ])
            },
            |v| v.step.name.clone(),
        )
    }
}
