//! Print response bodies: the print DTO (docs/api-contract.md) with its parts, usages, cost lines
//! and financials. Names shown beside ids (printer, build plate, hotends) are the labels frozen in
//! the cost snapshot.

use super::input::WorkKind;
use super::outcome_dto;
use crate::api::charges::Per;
use crate::api::materials::MaterialKindDto;
use crate::wire::{WireSha256, dec, dec_opt, name, ts};
use actors::costing;
use actors::money;
use actors::pricing;
use actors::prints;
use rust_decimal::Decimal;
use serde::Serialize;
use storage::records::{CostCategory, CostLine, Part, Print, PrintSource, PrintStatus};
use utoipa::ToSchema;

/// Print status.
#[derive(Debug, Clone, Copy, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    /// Editable.
    Draft,
    /// On a printer.
    Printing,
    /// Off the printer.
    Printed,
    /// Sent.
    Shipped,
    /// Finished.
    Done,
}

crate::input::deserr_by_name!(Status);

impl Status {
    /// Every status's wire name, in lifecycle order (`DRAFT` … `DONE`): the one list the
    /// filter's schema and the prints page offer, taken from the serde names above.
    pub fn names() -> Vec<String> {
        PrintStatus::ALL
            .into_iter()
            .map(|s| name(&Status::from(s)))
            .collect()
    }
}

impl From<PrintStatus> for Status {
    fn from(s: PrintStatus) -> Self {
        match s {
            PrintStatus::Draft => Status::Draft,
            PrintStatus::Printing => Status::Printing,
            PrintStatus::Printed => Status::Printed,
            PrintStatus::Shipped => Status::Shipped,
            PrintStatus::Done => Status::Done,
        }
    }
}

impl From<Status> for PrintStatus {
    fn from(s: Status) -> Self {
        match s {
            Status::Draft => PrintStatus::Draft,
            Status::Printing => PrintStatus::Printing,
            Status::Printed => PrintStatus::Printed,
            Status::Shipped => PrintStatus::Shipped,
            Status::Done => PrintStatus::Done,
        }
    }
}

/// The wire name of a cost category.
pub const fn category_name(c: CostCategory) -> &'static str {
    match c {
        CostCategory::Printer => "PRINTER",
        CostCategory::Hotend => "HOTEND",
        CostCategory::BuildPlate => "BUILD_PLATE",
        CostCategory::Component => "COMPONENT",
        CostCategory::Filament => "FILAMENT",
        CostCategory::Electricity => "ELECTRICITY",
        CostCategory::Labour => "LABOUR",
        CostCategory::Charge => "CHARGE",
        CostCategory::Machine => "MACHINE",
        CostCategory::MachineElectricity => "MACHINE_ELECTRICITY",
        CostCategory::Vat => "VAT",
        CostCategory::Resin => "RESIN",
        CostCategory::Consumable => "CONSUMABLE",
        CostCategory::PerPrint => "PER_PRINT",
    }
}

/// One work line of a print with what it costs (its cost lines' sum).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkLineDto {
    /// Line id (outcomes give actual minutes against it).
    pub id: String,
    /// LABOUR, CHARGE or STEP.
    pub kind: WorkKind,
    /// The labour rate, charge or step.
    pub source_id: String,
    /// Its name at pricing time.
    pub label: String,
    /// Labour minutes (LABOUR, STEP) or a count (CHARGE), per `per`.
    pub amount: String,
    /// PIECE or JOB.
    pub per: Per,
    /// Planned cost of the line (labour or charge, and a step's machine).
    pub cost: String,
}

fn work_dto(print: &Print) -> Vec<WorkLineDto> {
    print
        .work
        .iter()
        .map(|w| {
            let lines = || {
                print
                    .costing
                    .lines
                    .iter()
                    .filter(move |l| l.usage_id == Some(w.id))
            };
            WorkLineDto {
                id: w.id.to_string(),
                kind: WorkKind::of(w.source),
                source_id: w.source.id().to_string(),
                label: lines().next().map(|l| l.label.clone()).unwrap_or_default(),
                amount: dec(w.amount),
                per: w.per.into(),
                cost: dec(lines().map(|l| l.cost).sum::<Decimal>().normalize()),
            }
        })
        .collect()
}

/// A consumable of the whole print with its usage and what it costs.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrintMaterialDto {
    /// Its usage's id (outcomes give its actual quantity in `materials`).
    pub usage_id: String,
    /// The consumable.
    pub material_id: String,
    /// Its name at pricing time (with the pack's code).
    pub label: String,
    /// Quantity per piece or per job, in the material's unit.
    pub amount: String,
    /// PIECE or JOB.
    pub per: Per,
    /// Quantity for the whole print: `amount` × the print's quantity (PIECE) or × 1 (JOB).
    pub quantity: String,
    /// The pack or bottle; null without spool management.
    pub spool_id: Option<String>,
    /// Its code; null without spool management.
    pub spool_code: Option<String>,
    /// Planned cost.
    pub cost: String,
}

fn materials_dto(print: &Print) -> Vec<PrintMaterialDto> {
    (print.materials.iter())
        .map(|m| {
            let line = (print.costing.lines.iter()).find(|l| l.usage_id == Some(m.usage.id));
            PrintMaterialDto {
                usage_id: m.usage.id.to_string(),
                material_id: m.usage.filament_id.to_string(),
                label: line.map(|l| l.label.clone()).unwrap_or_default(),
                amount: dec(m.amount),
                per: m.per.into(),
                quantity: dec(m.usage.used_grams),
                spool_id: m.usage.spool_id.map(|s| s.to_string()),
                spool_code: m.usage.spool_code.clone(),
                cost: dec(line.map_or(Decimal::ZERO, |l| l.cost)),
            }
        })
        .collect()
}

/// One cost line: `cost = quantity × unitRate`, computed as one exact fraction.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CostLineDto {
    /// PRINTER, HOTEND, BUILD_PLATE, COMPONENT, FILAMENT or ELECTRICITY; for work lines LABOUR,
    /// CHARGE, MACHINE or MACHINE_ELECTRICITY.
    pub category: &'static str,
    /// The charged record.
    pub source_id: String,
    /// The part it belongs to (null for work).
    pub part_id: Option<String>,
    /// The print's work line it prices (null for a part's lines).
    pub work_line_id: Option<String>,
    /// Label at pricing time.
    pub label: String,
    /// Hours, grams, kWh or a count.
    pub quantity: String,
    /// Currency per hour, per gram, per kWh or per piece (rounded to 10 places for display).
    pub unit_rate: String,
    /// Cost, instance currency.
    pub cost: String,
}

impl From<&CostLine> for CostLineDto {
    fn from(l: &CostLine) -> Self {
        CostLineDto {
            category: category_name(l.category),
            source_id: l.source_id.to_string(),
            part_id: l.part_id.map(|p| p.to_string()),
            work_line_id: l
                .usage_id
                .filter(|_| costing::is_work(l.category))
                .map(|w| w.to_string()),
            label: l.label.clone(),
            quantity: dec(l.quantity),
            unit_rate: dec(money::rate(l.rate_price, l.rate_per)),
            cost: dec(l.cost),
        }
    }
}

/// Planned use of a material with its cost.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageDto {
    /// Usage id.
    pub id: String,
    /// Its part.
    pub part_id: String,
    /// The material (for compatibility named for filament; `materialId` is the same).
    pub filament_id: String,
    /// The material: a filament, a resin or a consumable.
    pub material_id: String,
    /// FILAMENT, RESIN or CONSUMABLE.
    pub material_kind: MaterialKindDto,
    /// The spool (bottle, pack); null without spool management.
    pub spool_id: Option<String>,
    /// The spool's code; null without spool management.
    pub spool_code: Option<String>,
    /// Grams for the whole run (a filament's; null for a resin or a consumable).
    pub used_grams: Option<String>,
    /// Quantity for the whole run in the material's unit (grams, millilitres, pieces).
    pub quantity: String,
    /// Planned cost.
    pub cost: String,
}

/// One hotend of a part.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HotendDto {
    /// The hotend component.
    pub component_id: String,
    /// Its name at pricing time.
    pub name: String,
    /// Its printing time, seconds.
    pub duration_seconds: u32,
}

/// One part with its own sources, usages, duration, total and cost lines.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartDto {
    /// Part id (send it back to keep the part on edit).
    pub id: String,
    /// The printer.
    pub printer_id: String,
    /// Printer name at pricing time.
    pub printer: String,
    /// The build plate.
    pub build_plate_id: String,
    /// Build plate name at pricing time.
    pub build_plate: String,
    /// Hotends (an FDM printer's part; empty on an MSLA printer).
    pub hotends: Vec<HotendDto>,
    /// The vat and its printing time (an MSLA printer's part; null on an FDM printer).
    pub vat: Option<HotendDto>,
    /// Other components, each once.
    #[schema(value_type = BTreeSet<String>, format = Uuid)]
    pub other_component_ids: Vec<String>,
    /// Planned material uses (filament, resin, consumables).
    pub usages: Vec<UsageDto>,
    /// Sum of the hotend durations (the vat's), seconds.
    pub duration_seconds: u64,
    /// The part's planned total.
    pub total_cost: String,
    /// The part's cost lines.
    pub cost_lines: Vec<CostLineDto>,
}

/// Money of a print. Realized values exist once an outcome is recorded: revenue and margin from
/// SUCCESS; FAILED realizes zero revenue (when a sales value exists) and reports `failedCost`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Financials {
    /// Sales value of the run; null when none was given.
    pub sales_value: Option<String>,
    /// `salesValue − totalCost`.
    pub planned_margin: Option<String>,
    /// Revenue realized by the outcome.
    pub realized_revenue: Option<String>,
    /// Realized revenue minus actual cost.
    pub realized_margin: Option<String>,
    /// `salesValue / quantity`.
    pub sales_per_unit: Option<String>,
    /// `plannedMargin / quantity`.
    pub planned_margin_per_unit: Option<String>,
    /// `realizedMargin / quantity`.
    pub realized_margin_per_unit: Option<String>,
}

/// The price rule's suggestion for a print, frozen with its cost, and the VAT on its price.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PriceDto {
    /// The rule's net price for the whole run.
    pub suggested_net: String,
    /// The price, net: the sales value (the suggestion unless the maker gave another).
    pub net: Option<String>,
    /// The sales value is the maker's, not the suggestion.
    pub overridden: bool,
    /// The VAT rate, percent.
    pub vat_percent: String,
    /// VAT on the net price, to the cent.
    pub vat: Option<String>,
    /// Net plus VAT.
    pub gross: Option<String>,
    /// The success rate of the print's printers and materials over their latest outcomes
    /// (0 to 1), when any was recorded.
    pub success_rate: Option<String>,
    /// The outcomes that rate counts.
    pub success_sample: u32,
    /// The expected cost per good part: cost per unit ÷ success rate (null without a rate, or
    /// at a rate of 0).
    pub cost_per_good_part: Option<String>,
    /// The suggestion was made from the expected cost per good part.
    pub failure_adjusted: bool,
}

impl PriceDto {
    /// The price block of `print`, when the price rule priced it.
    pub fn of(print: &Print) -> Option<PriceDto> {
        let price = print.price.as_ref()?;
        let vat = print
            .sales_value
            .and_then(|net| pricing::vat(net, price.vat_percent).ok());
        Some(PriceDto {
            suggested_net: dec(price.suggested),
            net: dec_opt(print.sales_value),
            overridden: price.overridden,
            vat_percent: dec(price.vat_percent),
            vat: dec_opt(vat),
            gross: dec_opt(print.sales_value.zip(vat).map(|(n, v)| (n + v).normalize())),
            success_rate: price.success.as_ref().map(|s| dec(s.rate)),
            success_sample: price.success.as_ref().map_or(0, |s| s.sample),
            cost_per_good_part: price
                .success
                .as_ref()
                .filter(|s| !s.rate.is_zero())
                .and_then(|s| money::divide(print.costing.cost_per_unit, s.rate).ok())
                .map(dec),
            failure_adjusted: price.failure_adjusted,
        })
    }
}

/// A print.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrintDto {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Customer.
    pub customer_id: Option<String>,
    /// Series.
    pub series_id: Option<String>,
    /// Units of the run.
    pub quantity: u32,
    /// Sales value of the run.
    pub sales_value: Option<String>,
    /// Free text.
    pub notes: Option<String>,
    /// Status.
    pub status: Status,
    /// Paid flag.
    pub paid: bool,
    /// When it was marked paid.
    pub paid_at: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// First part's printer (legacy singular field).
    pub printer_id: Option<String>,
    /// First part's printer name (legacy singular field).
    pub printer: Option<String>,
    /// Ordered parts.
    pub parts: Vec<PartDto>,
    /// Sum of the parts' durations, seconds.
    pub duration_seconds: u64,
    /// Planned total of the whole run.
    pub total_cost: String,
    /// `totalCost / quantity`.
    pub cost_per_unit: String,
    /// Every cost line of every part.
    pub cost_lines: Vec<CostLineDto>,
    /// Every usage of every part.
    pub usages: Vec<UsageDto>,
    /// Work lines: labour, charges and post-processing, priced after the parts.
    pub work: Vec<WorkLineDto>,
    /// Consumables of the whole print, per piece or per job, priced after the work lines.
    pub materials: Vec<PrintMaterialDto>,
    /// Actual cost after an outcome; null before.
    pub actual_cost: Option<String>,
    /// Actual cost per unit; null before an outcome.
    pub actual_cost_per_unit: Option<String>,
    /// The outcome; null until recorded.
    pub outcome: Option<outcome_dto::OutcomeDto>,
    /// Cost of a failed run; null unless failed.
    pub failed_cost: Option<String>,
    /// Money of the print.
    pub financials: Financials,
    /// The price rule's suggestion with VAT and gross; null while the rule is off.
    pub price: Option<PriceDto>,
    /// The failed print this one retries.
    pub retried_from_id: Option<String>,
    /// Retries of this print.
    pub retry_ids: Vec<String>,
    /// The print this one repeats.
    pub repeat_of_id: Option<String>,
    /// When the snapshot froze (the print left DRAFT).
    pub finalized_at: Option<String>,
    /// When it last moved to PRINTING: its runs' start unless a fleet log or the maker says
    /// otherwise.
    pub printing_started_at: Option<String>,
    /// When it last moved on from PRINTING: its runs' end, likewise.
    pub printing_ended_at: Option<String>,
    /// When it became DONE.
    pub completed_at: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
    /// The sliced file the draft was made from: answered by `GET /api/prints/{id}` (lists and
    /// the other answers leave it out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<PrintSourceDto>,
}

fn label_of(lines: &[&CostLine], category: CostCategory) -> String {
    lines
        .iter()
        .find(|l| l.category == category)
        .map(|l| l.label.clone())
        .unwrap_or_default()
}

fn usages_of(part: &Part, lines: &[&CostLine]) -> Vec<UsageDto> {
    part.usages
        .iter()
        .map(|u| {
            let line = lines.iter().find(|l| l.usage_id == Some(u.id));
            let kind = match line.map(|l| l.category) {
                Some(CostCategory::Resin) => MaterialKindDto::Resin,
                Some(CostCategory::Consumable) => MaterialKindDto::Consumable,
                _ => MaterialKindDto::Filament,
            };
            let filament = kind == MaterialKindDto::Filament;
            UsageDto {
                id: u.id.to_string(),
                part_id: part.id.to_string(),
                filament_id: u.filament_id.to_string(),
                material_id: u.filament_id.to_string(),
                material_kind: kind,
                spool_id: u.spool_id.map(|s| s.to_string()),
                spool_code: u.spool_code.clone(),
                used_grams: filament.then(|| dec(u.used_grams)),
                quantity: dec(u.used_grams),
                cost: dec(line.map_or(Decimal::ZERO, |l| l.cost)),
            }
        })
        .collect()
}

fn part_dto(part: &Part, print: &Print) -> PartDto {
    let lines: Vec<&CostLine> = print
        .costing
        .lines
        .iter()
        .filter(|l| l.part_id == Some(part.id))
        .collect();
    let heads: Vec<&CostLine> = lines
        .iter()
        .copied()
        .filter(|l| matches!(l.category, CostCategory::Hotend | CostCategory::Vat))
        .collect();
    let mut hotends: Vec<HotendDto> = part
        .hotends
        .iter()
        .enumerate()
        .map(|(i, h)| HotendDto {
            component_id: h.component_id.to_string(),
            name: heads.get(i).map(|l| l.label.clone()).unwrap_or_default(),
            duration_seconds: h.duration_seconds,
        })
        .collect();
    let resin = heads.iter().any(|l| l.category == CostCategory::Vat);
    let vat = match resin {
        true => hotends.pop(),
        false => None,
    };
    PartDto {
        id: part.id.to_string(),
        printer_id: part.printer_id.to_string(),
        printer: label_of(&lines, CostCategory::Printer),
        build_plate_id: part.build_plate_id.to_string(),
        build_plate: label_of(&lines, CostCategory::BuildPlate),
        hotends,
        vat,
        other_component_ids: part
            .other_component_ids
            .iter()
            .map(ToString::to_string)
            .collect(),
        usages: usages_of(part, &lines),
        duration_seconds: duration(part),
        total_cost: dec(lines.iter().map(|l| l.cost).sum()),
        cost_lines: lines.iter().map(|l| CostLineDto::from(*l)).collect(),
    }
}

/// A part's duration: the sum of its hotend durations, seconds.
pub fn duration(part: &Part) -> u64 {
    part.hotends
        .iter()
        .map(|h| u64::from(h.duration_seconds))
        .sum()
}

fn per_unit(value: Option<Decimal>, quantity: u32) -> Option<String> {
    value.map(|v| dec(money::rate(v, Decimal::from(quantity.max(1)))))
}

/// The sliced file a print was made from.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrintSourceDto {
    /// The file's name.
    pub file_name: String,
    /// Lower-case hex SHA-256 of the file.
    pub sha256: String,
    /// The slicer.
    pub slicer: String,
    /// Its version.
    pub slicer_version: Option<String>,
}

impl From<PrintSource> for PrintSourceDto {
    fn from(s: PrintSource) -> Self {
        PrintSourceDto {
            file_name: s.file_name,
            sha256: WireSha256(s.sha256).hex(),
            slicer: s.slicer,
            slicer_version: s.slicer_version,
        }
    }
}

impl PrintDto {
    /// The answer with the sliced file the print was made from.
    pub fn with_source(mut self, source: Option<PrintSource>) -> Self {
        self.source = source.map(PrintSourceDto::from);
        self
    }
}

impl From<&Print> for PrintDto {
    fn from(p: &Print) -> Self {
        let parts: Vec<PartDto> = p.parts.iter().map(|part| part_dto(part, p)).collect();
        let planned_margin = prints::planned_margin(p);
        let realized = prints::realized(p);
        let all_lines: Vec<&CostLine> = p.costing.lines.iter().collect();
        PrintDto {
            source: None,
            id: p.id.to_string(),
            name: p.name.clone(),
            customer_id: p.customer_id.map(|c| c.to_string()),
            series_id: p.series_id.map(|s| s.to_string()),
            quantity: p.quantity,
            sales_value: dec_opt(p.sales_value),
            notes: p.notes.clone(),
            status: p.status.into(),
            paid: p.paid,
            paid_at: p.paid_at.map(ts),
            archived: p.archived,
            printer_id: parts.first().map(|f| f.printer_id.clone()),
            printer: parts.first().map(|f| f.printer.clone()),
            duration_seconds: p.parts.iter().map(duration).sum(),
            total_cost: dec(p.costing.total),
            cost_per_unit: dec(p.costing.cost_per_unit),
            cost_lines: p.costing.lines.iter().map(CostLineDto::from).collect(),
            usages: p
                .parts
                .iter()
                .flat_map(|part| usages_of(part, &all_lines))
                .collect(),
            work: work_dto(p),
            materials: materials_dto(p),
            parts,
            actual_cost: dec_opt(realized.actual_cost),
            actual_cost_per_unit: dec_opt(realized.actual_cost_per_unit),
            outcome: p.outcome.as_ref().and_then(outcome_dto::outcome_dto),
            failed_cost: dec_opt(realized.failed_cost),
            price: PriceDto::of(p),
            financials: Financials {
                sales_value: dec_opt(p.sales_value),
                planned_margin: dec_opt(planned_margin),
                realized_revenue: dec_opt(realized.revenue),
                realized_margin: dec_opt(realized.margin),
                sales_per_unit: per_unit(p.sales_value, p.quantity),
                planned_margin_per_unit: per_unit(planned_margin, p.quantity),
                realized_margin_per_unit: per_unit(realized.margin, p.quantity),
            },
            retried_from_id: p.retried_from_id.map(|r| r.to_string()),
            retry_ids: p.retry_ids.iter().map(ToString::to_string).collect(),
            repeat_of_id: p.repeat_of_id.map(|r| r.to_string()),
            finalized_at: p.finalized_at.map(ts),
            printing_started_at: p.printing_started_at.map(ts),
            printing_ended_at: p.printing_ended_at.map(ts),
            completed_at: p.completed_at.map(ts),
            created_at: ts(p.created_at),
            updated_at: ts(p.updated_at),
        }
    }
}
