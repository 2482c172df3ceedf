//! Work a shop charges beside the machine: labour rates, fixed charges, post-processing steps,
//! and the work lines a print carries (schema 11).

use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// What a work line or a charge counts: each unit of the print, or the whole job once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Per {
    /// Once for every unit the run makes (the print's quantity).
    Piece,
    /// Once for the whole run.
    Job,
}

/// A labour rate: what an hour of somebody's work costs ("Nachbearbeitung 45 €/h").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabourRate {
    /// Record id.
    pub id: Id,
    /// Display name.
    pub name: String,
    /// Price of one hour, instance currency.
    #[serde(with = "rust_decimal::serde::str")]
    pub hourly_rate: Decimal,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// A fixed charge: a setup fee per job, packaging per piece, a test print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Charge {
    /// Record id.
    pub id: Id,
    /// Display name.
    pub name: String,
    /// Its amount, instance currency, per [`Charge::per`].
    #[serde(with = "rust_decimal::serde::str")]
    pub amount: Decimal,
    /// Per piece or per job (the default of a work line that names it).
    pub per: Per,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// The machine a post-processing step runs (a wash-and-cure station, an oven), priced like a
/// component by its hours (`purchasePrice / expectedLifetimeHours`) and like a printer by its
/// watts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepMachine {
    /// Display name.
    pub name: String,
    /// Purchase price, instance currency.
    #[serde(with = "rust_decimal::serde::str")]
    pub purchase_price: Decimal,
    /// Expected lifetime in running hours (> 0).
    #[serde(with = "rust_decimal::serde::str")]
    pub expected_lifetime_hours: Decimal,
    /// Average electrical power while running, watts.
    pub average_power_watts: u32,
    /// Its running minutes, per the step's [`PostProcessingStep::per`].
    #[serde(with = "rust_decimal::serde::str")]
    pub minutes: Decimal,
}

/// A post-processing step: a named piece of work at a labour rate (support removal, sanding,
/// priming, curing), optionally on a machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostProcessingStep {
    /// Record id.
    pub id: Id,
    /// Display name.
    pub name: String,
    /// The labour rate its minutes are priced at.
    pub labour_rate_id: Id,
    /// Labour minutes per [`PostProcessingStep::per`] (the default of a work line that names it).
    #[serde(with = "rust_decimal::serde::str")]
    pub minutes: Decimal,
    /// Per piece or per job.
    pub per: Per,
    /// The machine it runs, if any.
    pub machine: Option<StepMachine>,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// What a work line prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WorkSource {
    /// Minutes at a labour rate.
    Labour(Id),
    /// A count of a fixed charge.
    Charge(Id),
    /// Minutes of a post-processing step (its labour, and its machine's time as the step has it).
    Step(Id),
}

impl WorkSource {
    /// The record it names.
    pub fn id(self) -> Id {
        match self {
            WorkSource::Labour(id) | WorkSource::Charge(id) | WorkSource::Step(id) => id,
        }
    }
}

/// One line of work on a print: what, how much, per piece or per job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkLine {
    /// Line id, kept across edits by position (outcomes record actual minutes against it).
    pub id: Id,
    /// What it prices.
    pub source: WorkSource,
    /// Labour minutes (labour, step) or a count (charge), per [`WorkLine::per`].
    #[serde(with = "rust_decimal::serde::str")]
    pub amount: Decimal,
    /// Per piece or per job.
    pub per: Per,
}

/// The actual labour minutes of one work line, in the line's own terms (per piece or per job).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkMinutes {
    /// The work line.
    pub work_line_id: Id,
    /// Actual minutes.
    #[serde(with = "rust_decimal::serde::str")]
    pub minutes: Decimal,
}
