//! Prints, their parts and frozen cost snapshots; print series.

use super::work::{Per, WorkLine, WorkMinutes};
use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Where a print is in its life. Order: DRAFT → PRINTING → PRINTED → SHIPPED → DONE; never back
/// to DRAFT, free moves among the other four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum PrintStatus {
    /// Editable; priced at current prices.
    Draft,
    /// On a printer.
    Printing,
    /// Off the printer.
    Printed,
    /// Sent to the customer.
    Shipped,
    /// Finished.
    Done,
}

impl PrintStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [PrintStatus; 5] = [
        PrintStatus::Draft,
        PrintStatus::Printing,
        PrintStatus::Printed,
        PrintStatus::Shipped,
        PrintStatus::Done,
    ];

    /// The wire name: `DRAFT`, `PRINTING`, `PRINTED`, `SHIPPED` or `DONE`.
    pub fn as_str(self) -> &'static str {
        match self {
            PrintStatus::Draft => "DRAFT",
            PrintStatus::Printing => "PRINTING",
            PrintStatus::Printed => "PRINTED",
            PrintStatus::Shipped => "SHIPPED",
            PrintStatus::Done => "DONE",
        }
    }
}

/// One hotend of a part and how long it printed, seconds; on a resin printer, the part's vat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotendUse {
    /// The hotend component.
    pub component_id: Id,
    /// Printing time of this hotend, seconds.
    pub duration_seconds: u32,
}

/// Planned use of a material by a part: filament in grams, resin in millilitres, a consumable
/// in its unit (schema 15; the field names are those of the filament-only schemas).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Usage id (outcomes refer to it).
    pub id: Id,
    /// The material (a filament, a resin or a consumable).
    pub filament_id: Id,
    /// The spool (bottle, pack) it comes from, when spool management chose one.
    pub spool_id: Option<Id>,
    /// That spool's code (fixed for the spool's life).
    pub spool_code: Option<String>,
    /// Planned quantity for the whole run (not per unit), in the material's unit: grams,
    /// millilitres or pieces.
    #[serde(with = "rust_decimal::serde::str")]
    pub used_grams: Decimal,
}

/// One part of a print: one printer run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// Part id, kept across edits.
    pub id: Id,
    /// The printer.
    pub printer_id: Id,
    /// The build plate component.
    pub build_plate_id: Id,
    /// Hotends with their durations; the part's duration is their sum. A part on a resin
    /// printer has one entry: its vat (a component of type VAT) and the part's printing time.
    pub hotends: Vec<HotendUse>,
    /// Other components costed for the part's duration.
    pub other_component_ids: Vec<Id>,
    /// Planned filament uses.
    pub usages: Vec<Usage>,
}

/// What a cost line charges for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CostCategory {
    /// Printer depreciation.
    Printer,
    /// A hotend's depreciation.
    Hotend,
    /// Build plate depreciation.
    BuildPlate,
    /// Another component's depreciation.
    Component,
    /// Filament.
    Filament,
    /// Electricity.
    Electricity,
    /// Labour: a labour rate's or a post-processing step's minutes (schema 11).
    Labour,
    /// A fixed charge (schema 11).
    Charge,
    /// A post-processing step's machine, by its running hours (schema 11).
    Machine,
    /// A post-processing step's machine, by its electricity (schema 11).
    MachineElectricity,
    /// A resin part's vat and FEP film, by the part's printing time (schema 16).
    Vat,
    /// Resin, by millilitres (schema 16).
    Resin,
    /// A consumable, by millilitres or pieces (schema 16).
    Consumable,
    /// A component whose lifetime is counted in prints (a vat's FEP film): its price over its
    /// prints, once per part run, whatever the time (schema 17).
    PerPrint,
}

/// One line of a cost snapshot. The rate is kept as the exact fraction `price / per` (currency
/// per hour, per gram or per kWh) so that later costs (actuals) reuse it without rounding drift.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostLine {
    /// What it charges for.
    pub category: CostCategory,
    /// The charged record (printer, component, filament; the printer for electricity).
    pub source_id: Id,
    /// The part it belongs to.
    pub part_id: Option<Id>,
    /// For filament lines, the usage; for work lines (labour, charge, machine), the print's work
    /// line.
    pub usage_id: Option<Id>,
    /// Human label at the time of pricing.
    pub label: String,
    /// Hours, grams, kWh or a count (rounded for display).
    #[serde(with = "rust_decimal::serde::str")]
    pub quantity: Decimal,
    /// Rate numerator: a price, or for electricity the price per kWh.
    #[serde(with = "rust_decimal::serde::str")]
    pub rate_price: Decimal,
    /// Rate denominator: lifetime hours, net grams, or 1 for electricity.
    #[serde(with = "rust_decimal::serde::str")]
    pub rate_per: Decimal,
    /// Watts, for electricity lines (0 otherwise).
    pub watts: u32,
    /// The line's cost, rounded half-even to 10 places.
    #[serde(with = "rust_decimal::serde::str")]
    pub cost: Decimal,
}

/// A priced print: lines of every part and the totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Costing {
    /// Electricity price used, currency per kWh.
    #[serde(with = "rust_decimal::serde::str")]
    pub electricity_price: Decimal,
    /// Every line of every part.
    pub lines: Vec<CostLine>,
    /// Sum of the lines.
    #[serde(with = "rust_decimal::serde::str")]
    pub total: Decimal,
    /// `total / quantity`, rounded half-even to 10 places.
    #[serde(with = "rust_decimal::serde::str")]
    pub cost_per_unit: Decimal,
}

/// How a finished print turned out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OutcomeStatus {
    /// Usable parts came off the printer.
    Success,
    /// The run failed.
    Failed,
}

/// Actual grams of one usage. (Decimals inside records always use the string form: bincode
/// cannot read rust_decimal's default serde form.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageGrams {
    /// The usage.
    pub usage_id: Id,
    /// Actual grams.
    #[serde(with = "rust_decimal::serde::str")]
    pub grams: Decimal,
}

/// One immutable revision of an outcome: the original (revision 1) or a correction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeRevision {
    /// 1 for the original, then +1 per correction.
    pub revision: u32,
    /// Success or failure (shared by every part).
    pub status: OutcomeStatus,
    /// Actual printing time of the whole print, seconds.
    pub duration_seconds: u32,
    /// Actual printing time of each part, seconds (one entry per part, in part order).
    pub part_durations: Vec<(Id, u32)>,
    /// Actual grams of each planned usage.
    pub grams: Vec<UsageGrams>,
    /// Free text.
    pub note: Option<String>,
    /// Why it failed (FAILED only).
    pub failure_reason: Option<String>,
    /// Why this correction was made (corrections only).
    pub correction_note: Option<String>,
    /// The correction's idempotency key.
    pub operation_key: Option<Id>,
    /// When it was recorded.
    pub recorded_at: Timestamp,
    /// Actual costs: the frozen rates applied to the actual durations and grams, each part's
    /// electricity line priced from [`OutcomeRevision::electricity`].
    pub actual: Costing,
    /// The actual electricity of each part, in part order (schema 9; empty in revisions
    /// recorded before, whose electricity lines were estimated).
    pub electricity: Vec<PartElectricity>,
    /// Actual labour minutes of the work lines the maker gave (schema 11); a line not named
    /// here took its planned minutes.
    pub work_minutes: Vec<WorkMinutes>,
}

/// Where a part's actual kWh came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EnergySource {
    /// Read from the printer's energy meter over the run's time.
    Metered,
    /// The printer fleet's log of the run (Bambuddy's `energy_kwh`).
    PrintFleet,
    /// The printer's average power over the actual printing time.
    Estimated,
    /// Given by the maker (read off a plug, say); in a correction, its note is the reason.
    Entered,
}

/// Why a part's electricity is not read from its meter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Unmetered {
    /// The printer has no energy meter.
    NoMeter,
    /// The run's start or end is not known (the print never moved through PRINTING and no
    /// times were given).
    NoRunTimes,
    /// No reading near the run's start.
    SilentAtStart,
    /// No reading near the run's end.
    SilentAtEnd,
    /// The counter went down during the run (a reset or a rollover): never priced.
    CounterWentBack,
}

/// The actual electricity of one part: the run's times, the kWh and where they came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartElectricity {
    /// The part.
    pub part_id: Id,
    /// The run's start: the fleet log's, the maker's, or the print's move to PRINTING.
    pub started_at: Option<Timestamp>,
    /// The run's end: the fleet log's, the maker's, or the print's move on from PRINTING.
    pub ended_at: Option<Timestamp>,
    /// Energy used, kWh, at most 6 decimals.
    #[serde(with = "rust_decimal::serde::str")]
    pub kwh: Decimal,
    /// Where `kwh` came from.
    pub source: EnergySource,
    /// Why the meter did not give it: set for ESTIMATED (a fleet's or the maker's figure needs
    /// no reason).
    pub unmetered: Option<Unmetered>,
    /// Another run on the same meter overlapped this one; the energy of the shared time was
    /// split between them by their overlap.
    pub overlapped: bool,
}

/// The recorded outcome of a DONE print: every revision, the last one current.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Revisions in order; never changed, only appended to.
    pub revisions: Vec<OutcomeRevision>,
}

impl Outcome {
    /// The current revision (the last one).
    pub fn current(&self) -> Option<&OutcomeRevision> {
        self.revisions.last()
    }
}

/// A print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Print {
    /// Record id.
    pub id: Id,
    /// Incremented by every write; projections keep the newest.
    pub version: u64,
    /// Name.
    pub name: String,
    /// Customer.
    pub customer_id: Option<Id>,
    /// Series.
    pub series_id: Option<Id>,
    /// Units made by the run, 1 to 1,000,000.
    pub quantity: u32,
    /// Agreed sales value for the whole run, instance currency.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub sales_value: Option<Decimal>,
    /// Free text.
    pub notes: Option<String>,
    /// Status.
    pub status: PrintStatus,
    /// Paid flag.
    pub paid: bool,
    /// Set by the server when `paid` became true.
    pub paid_at: Option<Timestamp>,
    /// Archive state.
    pub archived: bool,
    /// When it was archived.
    pub archived_at: Option<Timestamp>,
    /// Ordered parts, 1 to 100.
    pub parts: Vec<Part>,
    /// The cost snapshot: current prices while DRAFT, frozen when the print left DRAFT.
    pub costing: Costing,
    /// When the print left DRAFT (its snapshot froze).
    pub finalized_at: Option<Timestamp>,
    /// When the print last moved to PRINTING (schema 9): its runs' start unless a fleet log or
    /// the maker says otherwise.
    pub printing_started_at: Option<Timestamp>,
    /// When it last moved on from PRINTING (cleared by a move back to PRINTING).
    pub printing_ended_at: Option<Timestamp>,
    /// When the print last became DONE.
    pub completed_at: Option<Timestamp>,
    /// The print this one repeats.
    pub repeat_of_id: Option<Id>,
    /// The failed print this one retries.
    pub retried_from_id: Option<Id>,
    /// Retries of this print.
    pub retry_ids: Vec<Id>,
    /// The outcome, once recorded.
    pub outcome: Option<Outcome>,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
    /// Work lines (labour, charges, post-processing), priced with the parts (schema 11).
    pub work: Vec<WorkLine>,
    /// The shop's price rule's suggestion, taken with the cost (schema 11; none while the rule
    /// is off, and for prints of earlier schemas, which keep their sales value).
    pub price: Option<PriceSnapshot>,
    /// Consumables the whole print uses, so much per piece or per job (schema 18; none
    /// before it).
    pub materials: Vec<PrintMaterial>,
}

/// A consumable the whole print uses (schema 18, issue 51): `amount` of it per piece or per
/// job, planned as one usage of `amount × units` (units: the print's quantity per piece, 1 per
/// job) that outcomes book like a part's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrintMaterial {
    /// Its usage: id, material, spool and the planned quantity for the whole print.
    pub usage: Usage,
    /// The quantity per piece or per job, in the material's unit.
    #[serde(with = "rust_decimal::serde::str")]
    pub amount: Decimal,
    /// Per piece or per job.
    pub per: Per,
}

impl Print {
    /// Every planned use of a material: each part's usages in part order, then the print's own
    /// consumables'.
    pub fn usages(&self) -> impl Iterator<Item = &Usage> {
        self.parts
            .iter()
            .flat_map(|p| p.usages.iter())
            .chain(self.materials.iter().map(|m| &m.usage))
    }
}

/// What the price rule suggested for a print, frozen with its cost: the sales value is the
/// suggestion unless the maker gave another (`overridden`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceSnapshot {
    /// The rule's net price for the whole run, instance currency.
    #[serde(with = "rust_decimal::serde::str")]
    pub suggested: Decimal,
    /// The VAT rate, percent.
    #[serde(with = "rust_decimal::serde::str")]
    pub vat_percent: Decimal,
    /// The sales value is the maker's, not the suggestion.
    pub overridden: bool,
    /// The success rate of the print's printers and materials when it was priced (none without
    /// a recorded outcome to count).
    pub success: Option<SuccessRate>,
    /// The suggestion was made from the expected cost per good part (cost ÷ success rate).
    pub failure_adjusted: bool,
}

/// How many of the latest runs of a printer and material succeeded, for a draft: the product of
/// its parts' rates (a print fails when any part fails).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuccessRate {
    /// The rate, 0 to 1, exact (a product of fractions, rounded to 10 places).
    #[serde(with = "rust_decimal::serde::str")]
    pub rate: Decimal,
    /// The outcomes counted, over all parts.
    pub sample: u32,
}

/// State of a print series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeriesStatus {
    /// Runs are still being made.
    Open,
    /// Finished.
    Completed,
}

/// A series of prints for one job (repeated runs of the same parts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Record id.
    pub id: Id,
    /// Name.
    pub name: String,
    /// Customer its prints inherit.
    pub customer_id: Option<Id>,
    /// Units wanted in all.
    pub target: Option<u32>,
    /// Free text.
    pub notes: Option<String>,
    /// Complete the series when the units of its DONE prints reach `target`.
    pub auto_complete: bool,
    /// Open or completed.
    pub status: SeriesStatus,
    /// Archive state.
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// The sliced file a draft was made from (`POST /api/prints/sliced`), kept beside the print
/// (table `print_sources`) and indexed by its hash (`source_prints`), so that the same file
/// again can say which prints it made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrintSource {
    /// The file's name as uploaded (a name, never a path).
    pub file_name: String,
    /// SHA-256 of the file's bytes.
    pub sha256: [u8; 32],
    /// The slicer that wrote it (`PrusaSlicer`).
    pub slicer: String,
    /// Its version as written in the file.
    pub slicer_version: Option<String>,
}
