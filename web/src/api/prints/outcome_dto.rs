//! Outcome request and response bodies.

use crate::error::ApiError;
use crate::input::Faults;
use crate::wire::{WireId, dec, ts};
use actors::prints::electricity::RunInput;
use actors::prints::outcome::{CorrectionInput, HISTORY_CORRECTIONS, OutcomeInput};
use actors::values::{Amount, Grams, Kwh, Moment, Note, Seconds};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records::{
    CostCategory, EnergySource, Outcome, OutcomeRevision, OutcomeStatus, PartElectricity, Unmetered,
};
use utoipa::ToSchema;

/// SUCCESS or FAILED.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OutcomeKind {
    /// Usable parts came off the printer.
    Success,
    /// The run failed.
    Failed,
}

crate::input::deserr_by_name!(OutcomeKind);

impl From<OutcomeStatus> for OutcomeKind {
    fn from(s: OutcomeStatus) -> Self {
        match s {
            OutcomeStatus::Success => OutcomeKind::Success,
            OutcomeStatus::Failed => OutcomeKind::Failed,
        }
    }
}

/// Actual grams of one planned usage.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct UsageGrams {
    /// A planned usage of the print.
    #[schema(value_type = String, format = Uuid)]
    pub usage_id: WireId,
    /// Actual grams: a canonical non-negative decimal string.
    #[schema(example = "40.1")]
    pub used_grams: Grams,
}

/// Actual quantity of one planned usage, in its material's unit.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct UsageQuantity {
    /// A planned usage of the print.
    #[schema(value_type = String, format = Uuid)]
    pub usage_id: WireId,
    /// Actual quantity: a canonical non-negative decimal string.
    #[schema(example = "38.2")]
    pub quantity: Grams,
}

/// Actual time of one part.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PartSeconds {
    /// A part of the print.
    #[schema(value_type = String, format = Uuid)]
    pub part_id: WireId,
    /// Its actual printing time, seconds (0 to 2,147,483,647).
    #[schema(value_type = u32, maximum = 2147483647)]
    pub duration_seconds: Seconds,
}

/// Actual labour minutes of one work line.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct WorkMinutesIn {
    /// A work line of the print.
    #[schema(value_type = String, format = Uuid)]
    pub work_line_id: WireId,
    /// Its actual minutes, in the line's own terms (per piece or per job).
    #[schema(example = "12")]
    pub minutes: Amount,
}

/// Actual labour minutes of one work line (response).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkMinutesOut {
    /// The work line.
    pub work_line_id: String,
    /// Actual minutes, per piece or per job as the line counts.
    pub minutes: String,
}

/// The maker's word on one part's electricity: its run's times and its kWh, each optional (what
/// is left out comes from the printer fleet's log, the print's PRINTING times and the meter).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct RunIn {
    /// A part of the print.
    #[schema(value_type = String, format = Uuid)]
    pub part_id: WireId,
    /// When its run started, RFC 3339 with an offset (`2026-11-20T10:00:00Z`).
    #[deserr(default)]
    pub started_at: Option<Moment>,
    /// When its run ended (not before it started).
    #[deserr(default)]
    pub ended_at: Option<Moment>,
    /// The energy it used, kWh (read off a plug): priced instead of the meter's figure.
    #[deserr(default)]
    pub kwh: Option<Kwh>,
}

/// Outcome input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct OutcomeInputDto {
    /// SUCCESS or FAILED, shared by every part.
    pub status: OutcomeKind,
    /// Actual time of the whole print, seconds (0 to 2,147,483,647): required without `parts`;
    /// with them it may be left out (it is their sum) and must equal their sum when given.
    #[schema(value_type = Option<u32>, maximum = 2147483647)]
    #[deserr(default)]
    pub duration_seconds: Option<Seconds>,
    /// Actual grams of planned filament usages; with `materials`, every planned usage exactly
    /// once (422 `errors.missingUsage` at `filaments` for a filament's left out).
    #[serde(default)]
    #[deserr(default)]
    pub filaments: Vec<UsageGrams>,
    /// Actual quantities of planned usages of any material, in its unit: resin in millilitres,
    /// a consumable in millilitres or whole pieces (422 `errors.missingUsage` at `materials`
    /// for one left out; a resin's or consumable's usage among `filaments` is
    /// `errors.wrongUnit`, a part of a piece `errors.wholeNumber`).
    #[serde(default)]
    #[deserr(default)]
    pub materials: Vec<UsageQuantity>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// Required when FAILED.
    #[deserr(default)]
    pub failure_reason: Option<Note>,
    /// Multipart prints: every part exactly once.
    #[deserr(default)]
    pub parts: Option<Vec<PartSeconds>>,
    /// Runs' times and kWh the maker gives, each part at most once.
    #[deserr(default)]
    pub electricity: Option<Vec<RunIn>>,
    /// Actual labour minutes of work lines, each at most once; the others took their planned
    /// minutes.
    #[deserr(default)]
    pub work_minutes: Option<Vec<WorkMinutesIn>>,
}

/// Correction input: the outcome fields, why, the revision it corrects, and an idempotency key.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct CorrectionInputDto {
    /// SUCCESS or FAILED.
    pub status: OutcomeKind,
    /// Actual time of the whole print, seconds (0 to 2,147,483,647): required without `parts`;
    /// with them it may be left out (it is their sum) and must equal their sum when given.
    #[schema(value_type = Option<u32>, maximum = 2147483647)]
    #[deserr(default)]
    pub duration_seconds: Option<Seconds>,
    /// Actual grams of planned filament usages; with `materials`, every planned usage exactly
    /// once (422 `errors.missingUsage` at `filaments` for a filament's left out).
    #[serde(default)]
    #[deserr(default)]
    pub filaments: Vec<UsageGrams>,
    /// Actual quantities of planned usages of any material, in its unit: resin in millilitres,
    /// a consumable in millilitres or whole pieces (422 `errors.missingUsage` at `materials`
    /// for one left out; a resin's or consumable's usage among `filaments` is
    /// `errors.wrongUnit`, a part of a piece `errors.wholeNumber`).
    #[serde(default)]
    #[deserr(default)]
    pub materials: Vec<UsageQuantity>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// Required when FAILED.
    #[deserr(default)]
    pub failure_reason: Option<Note>,
    /// Multipart prints: every part exactly once.
    #[deserr(default)]
    pub parts: Option<Vec<PartSeconds>>,
    /// Runs' times and kWh the maker gives, each part at most once.
    #[deserr(default)]
    pub electricity: Option<Vec<RunIn>>,
    /// Actual labour minutes of work lines, each at most once; the others took their planned
    /// minutes.
    #[deserr(default)]
    pub work_minutes: Option<Vec<WorkMinutesIn>>,
    /// Why the outcome is corrected (required).
    pub correction_note: Note,
    /// The current revision as the client saw it.
    pub expected_revision: u32,
    /// A UUID; a retry with the same key and content changes nothing.
    #[schema(value_type = String, format = Uuid)]
    pub operation_key: WireId,
}

/// The optional lists of an outcome or correction body.
struct Given {
    materials: Vec<UsageQuantity>,
    parts: Option<Vec<PartSeconds>>,
    runs: Option<Vec<RunIn>>,
    work: Option<Vec<WorkMinutesIn>>,
}

fn outcome_input(
    status: OutcomeKind,
    seconds: Option<Seconds>,
    filaments: Vec<UsageGrams>,
    note: Option<Note>,
    reason: Option<Note>,
    Given {
        materials,
        parts,
        runs,
        work,
    }: Given,
) -> OutcomeInput {
    let text = |n: Option<Note>| n.map(Note::into_inner).filter(|t| !t.is_empty());
    OutcomeInput {
        status: match status {
            OutcomeKind::Success => OutcomeStatus::Success,
            OutcomeKind::Failed => OutcomeStatus::Failed,
        },
        duration_seconds: seconds,
        filaments: filaments
            .into_iter()
            .map(|f| (f.usage_id.0, f.used_grams))
            .collect(),
        materials: materials
            .into_iter()
            .map(|m| (m.usage_id.0, m.quantity))
            .collect(),
        note: text(note),
        failure_reason: text(reason),
        parts: parts.map(|p| {
            p.into_iter()
                .map(|p| (p.part_id.0, p.duration_seconds))
                .collect()
        }),
        electricity: runs
            .unwrap_or_default()
            .into_iter()
            .map(|r| RunInput {
                part_id: r.part_id.0,
                started_at: r.started_at.map(|m| *m.get()),
                ended_at: r.ended_at.map(|m| *m.get()),
                kwh: r.kwh.map(Kwh::into_inner),
            })
            .collect(),
        work_minutes: work
            .unwrap_or_default()
            .into_iter()
            .map(|w| (w.work_line_id.0, w.minutes))
            .collect(),
    }
}

impl From<OutcomeInputDto> for OutcomeInput {
    fn from(i: OutcomeInputDto) -> Self {
        outcome_input(
            i.status,
            i.duration_seconds,
            i.filaments,
            i.note,
            i.failure_reason,
            Given {
                materials: i.materials,
                parts: i.parts,
                runs: i.electricity,
                work: i.work_minutes,
            },
        )
    }
}

impl CorrectionInputDto {
    /// The rules' input. Errors: none beyond parsing; kept fallible for symmetry with drafts.
    pub fn into_input(self) -> Result<CorrectionInput, ApiError> {
        Ok(CorrectionInput {
            outcome: outcome_input(
                self.status,
                self.duration_seconds,
                self.filaments,
                self.note,
                self.failure_reason,
                Given {
                    materials: self.materials,
                    parts: self.parts,
                    runs: self.electricity,
                    work: self.work_minutes,
                },
            ),
            correction_note: self.correction_note.into_inner(),
            expected_revision: self.expected_revision,
            operation_key: self.operation_key.0,
        })
    }
}

/// One revision of an outcome.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevisionDto {
    /// 1 for the original.
    pub revision: u32,
    /// SUCCESS or FAILED.
    pub status: OutcomeKind,
    /// When it was recorded.
    pub recorded_at: String,
    /// Actual time, seconds.
    pub duration_seconds: u32,
    /// Free text.
    pub note: Option<String>,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// Why it was corrected (corrections only).
    pub correction_note: Option<String>,
    /// Its actual cost.
    pub actual_cost: String,
}

/// The outcome of a print: the current revision's values and the history (the original plus the
/// latest 20 corrections).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutcomeDto {
    /// SUCCESS or FAILED.
    pub status: OutcomeKind,
    /// When the current revision was recorded.
    pub recorded_at: String,
    /// Actual time, seconds.
    pub duration_seconds: u32,
    /// Free text.
    pub note: Option<String>,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// The current revision (send it as `expectedRevision` to correct).
    pub revision: u32,
    /// Actual grams per filament usage.
    pub filaments: Vec<UsageGramsOut>,
    /// Actual quantity per usage of every material (filament included), in its unit.
    pub materials: Vec<UsageQuantityOut>,
    /// Actual time per part.
    pub parts: Vec<PartSecondsOut>,
    /// Actual electricity per part, in part order (empty for outcomes recorded before it was
    /// kept, whose electricity was estimated).
    pub electricity: Vec<PartElectricityOut>,
    /// Actual labour minutes of the work lines the maker gave.
    pub work_minutes: Vec<WorkMinutesOut>,
    /// Original and the latest 20 corrections, oldest first.
    pub history: Vec<RevisionDto>,
}

/// Actual grams of a usage (response).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageGramsOut {
    /// The usage.
    pub usage_id: String,
    /// Actual grams.
    pub used_grams: String,
}

/// Actual quantity of a usage in its material's unit (response).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageQuantityOut {
    /// The usage.
    pub usage_id: String,
    /// Actual quantity: grams, millilitres or pieces.
    pub quantity: String,
}

/// Actual time of a part (response).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartSecondsOut {
    /// The part.
    pub part_id: String,
    /// Actual seconds.
    pub duration_seconds: u32,
}

/// Where a part's kWh came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EnergySourceName {
    /// The printer's meter over the run.
    Metered,
    /// The printer fleet's log (Bambuddy's `energy_kwh`).
    Printfleet,
    /// Average power times the actual time.
    Estimated,
    /// Given by the maker.
    Entered,
}

/// Why a part's kWh is not the meter's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum UnmeteredReason {
    /// The printer has no meter.
    NoMeter,
    /// The run's start or end is unknown.
    NoRunTimes,
    /// No reading within 10 minutes of the run's start.
    MeterSilentAtStart,
    /// No reading within 10 minutes of the run's end.
    MeterSilentAtEnd,
    /// The counter went down during the run (reset or rollover): never priced.
    CounterWentBack,
}

impl From<EnergySource> for EnergySourceName {
    fn from(s: EnergySource) -> Self {
        match s {
            EnergySource::Metered => EnergySourceName::Metered,
            EnergySource::PrintFleet => EnergySourceName::Printfleet,
            EnergySource::Estimated => EnergySourceName::Estimated,
            EnergySource::Entered => EnergySourceName::Entered,
        }
    }
}

impl From<Unmetered> for UnmeteredReason {
    fn from(u: Unmetered) -> Self {
        match u {
            Unmetered::NoMeter => UnmeteredReason::NoMeter,
            Unmetered::NoRunTimes => UnmeteredReason::NoRunTimes,
            Unmetered::SilentAtStart => UnmeteredReason::MeterSilentAtStart,
            Unmetered::SilentAtEnd => UnmeteredReason::MeterSilentAtEnd,
            Unmetered::CounterWentBack => UnmeteredReason::CounterWentBack,
        }
    }
}

/// The actual electricity of a part (response).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartElectricityOut {
    /// The part.
    pub part_id: String,
    /// Its run's start (RFC 3339, UTC), when known.
    pub started_at: Option<String>,
    /// Its run's end, when known.
    pub ended_at: Option<String>,
    /// Energy used, kWh (canonical decimal, at most 6 places).
    pub kwh: String,
    /// Where `kwh` came from.
    pub source: EnergySourceName,
    /// Why it is not the meter's figure (ESTIMATED only).
    pub reason: Option<UnmeteredReason>,
    /// Another run on the same meter overlapped; the shared time's energy was split.
    pub overlapped: bool,
    /// Its cost: `kwh` at the frozen price per kWh (an estimate: watts × actual time).
    pub cost: String,
}

fn electricity_dto(r: &OutcomeRevision, e: &PartElectricity) -> PartElectricityOut {
    let cost = r
        .actual
        .lines
        .iter()
        .find(|l| l.category == CostCategory::Electricity && l.part_id == Some(e.part_id))
        .map(|l| l.cost)
        .unwrap_or_default();
    PartElectricityOut {
        part_id: e.part_id.to_string(),
        started_at: e.started_at.map(ts),
        ended_at: e.ended_at.map(ts),
        kwh: dec(e.kwh),
        source: e.source.into(),
        reason: e.unmetered.map(Into::into),
        overlapped: e.overlapped,
        cost: dec(cost),
    }
}

fn revision_dto(r: &OutcomeRevision) -> RevisionDto {
    RevisionDto {
        revision: r.revision,
        status: r.status.into(),
        recorded_at: ts(r.recorded_at),
        duration_seconds: r.duration_seconds,
        note: r.note.clone(),
        failure_reason: r.failure_reason.clone(),
        correction_note: r.correction_note.clone(),
        actual_cost: dec(r.actual.total),
    }
}

/// The DTO of `outcome`, or `None` when it has no revision.
pub fn outcome_dto(outcome: &Outcome) -> Option<OutcomeDto> {
    let current = outcome.current()?;
    let corrections = outcome.revisions.len().saturating_sub(1);
    let history = outcome
        .revisions
        .iter()
        .take(1)
        .chain(
            outcome
                .revisions
                .iter()
                .skip(1 + corrections.saturating_sub(HISTORY_CORRECTIONS)),
        )
        .map(revision_dto)
        .collect();
    Some(OutcomeDto {
        status: current.status.into(),
        recorded_at: ts(current.recorded_at),
        duration_seconds: current.duration_seconds,
        note: current.note.clone(),
        failure_reason: current.failure_reason.clone(),
        revision: current.revision,
        filaments: current
            .grams
            .iter()
            .filter(|g| {
                let line = (current.actual.lines.iter()).find(|l| l.usage_id == Some(g.usage_id));
                line.is_none_or(|l| l.category == CostCategory::Filament)
            })
            .map(|g| UsageGramsOut {
                usage_id: g.usage_id.to_string(),
                used_grams: dec(g.grams),
            })
            .collect(),
        materials: current
            .grams
            .iter()
            .map(|g| UsageQuantityOut {
                usage_id: g.usage_id.to_string(),
                quantity: dec(g.grams),
            })
            .collect(),
        parts: current
            .part_durations
            .iter()
            .map(|(p, s)| PartSecondsOut {
                part_id: p.to_string(),
                duration_seconds: *s,
            })
            .collect(),
        electricity: current
            .electricity
            .iter()
            .map(|e| electricity_dto(current, e))
            .collect(),
        work_minutes: current
            .work_minutes
            .iter()
            .map(|w| WorkMinutesOut {
                work_line_id: w.work_line_id.to_string(),
                minutes: dec(w.minutes),
            })
            .collect(),
        history,
    })
}

/// Documents the outcome and correction inputs of `schemas` (the OpenAPI document's, as JSON)
/// as `oneOf` their two statuses: a FAILED outcome needs a `failureReason` that is not blank
/// (`outcome::check`), a SUCCESS one may leave it out; a correction's `correctionNote` is not
/// blank either; and each needs `durationSeconds`, `parts`, or both.
pub fn document_statuses(schemas: &mut serde_json::Value) {
    use actors::values::{MAX_SECONDS, NOT_BLANK, NOTE_MAX_CHARS};
    use serde_json::json;
    let not_blank = json!({"type": "string", "maxLength": NOTE_MAX_CHARS, "pattern": NOT_BLANK});
    for name in ["OutcomeInputDto", "CorrectionInputDto"] {
        let mut derived = schemas[name].clone();
        if !derived.is_object() {
            continue;
        }
        if derived["properties"]["correctionNote"].is_object() {
            derived["properties"]["correctionNote"] = not_blank.clone();
        }
        // The whole time, the parts' times, or both (then they must agree); never null.
        derived["anyOf"] = json!([{"required": ["durationSeconds"]}, {"required": ["parts"]}]);
        if derived["properties"]["durationSeconds"].is_object() {
            derived["properties"]["durationSeconds"] =
                json!({"type": "integer", "minimum": 0, "maximum": MAX_SECONDS});
        }
        let mut success = derived.clone();
        success["properties"]["status"] = json!({"type": "string", "enum": ["SUCCESS"]});
        let mut failed = derived.clone();
        failed["properties"]["status"] = json!({"type": "string", "enum": ["FAILED"]});
        failed["properties"]["failureReason"] = not_blank.clone();
        if let Some(required) = failed["required"].as_array_mut() {
            required.push(json!("failureReason"));
        }
        for variant in [&mut success, &mut failed] {
            variant.as_object_mut().map(|v| v.remove("description"));
        }
        schemas[name] = json!({"description": derived["description"], "oneOf": [success, failed]});
    }
}
