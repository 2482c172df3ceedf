//! Print detail: parts, planned costs by category and line, planned versus actual time, grams
//! and cost, financials, links (retries, repeat), and every command of a print: status moves,
//! paid, archive, duplicate, repeat, retry, outcome recording and corrections with their
//! revision history.
//!
//! Forms send the API's commands, so the rules and errors are the API's; a
//! refused command shows this page again with the message at the top or beside its field.

use super::Chrome;
use super::changes::{self, ChangeRow};
use super::format::{clock, minutes, wire};
use super::forms::{Faults, Submitted};
use super::i18n::Tr;
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use super::print_fleet;
use crate::api::materials::MaterialKindDto;
use crate::api::prints::input::WorkKind;
use crate::api::prints::outcome_dto::{CorrectionInputDto, OutcomeInputDto, PartElectricityOut};
use crate::api::prints::{PrintDto, Status, category_name};
use crate::api::quotes::State as QuoteState;
use crate::error::{ApiError, Code};
use crate::input;
use crate::wire::name as wire_name;
use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Path};
use actors::maintenance::tasks::Override;
use actors::prints::board;
use actors::prints::{
    ArchivePrint, Complete, CopyKind, CopyPrint, CorrectOutcome, Detail, FinishWithOutcome,
    PrintDetail, RecordOutcome, Retry, SetPaid, SetStatus, TakeRetryPrice, is_backward, moves,
    passes_gate, skips_printing,
};
use actors::words::unit_key;
use askama::Template;
use deserr::Deserr;
use rust_decimal::Decimal;
use std::collections::{BTreeMap, HashMap};
use storage::Id;
use storage::records::{OutcomeStatus, Print, PrintStatus, StockUnit};

/// The cost categories on the wire, in the order pages show them: the order of
/// [`board::CATEGORIES`], named as the API names them.
pub const CATEGORIES: [&str; board::CATEGORY_COUNT] = {
    let mut names = [""; board::CATEGORY_COUNT];
    let mut i = 0;
    while i < board::CATEGORY_COUNT {
        names[i] = category_name(board::CATEGORIES[i]);
        i += 1;
    }
    names
};

/// Planned costs of a print, formatted: total, per unit, by category, by part, every line.
#[derive(Debug, Clone)]
pub struct Costs {
    /// Total, formatted.
    pub total: String,
    /// Total as the API writes it (for the live preview check).
    pub total_raw: String,
    /// Per unit, formatted.
    pub per_unit: String,
    /// (category label, subtotal) in category order.
    pub categories: Vec<(String, String)>,
    /// (category label, line label, quantity, cost).
    pub lines: Vec<(String, String, String, String)>,
}

impl Costs {
    /// The planned costs of `print` in the locale of `t`; category subtotals are exact sums of
    /// the lines (rounded only for display).
    pub fn of(t: &Tr, print: &PrintDto) -> Costs {
        let mut sums: BTreeMap<&str, Decimal> = BTreeMap::new();
        let lines = print
            .cost_lines
            .iter()
            .map(|l| {
                *sums.entry(l.category).or_default() +=
                    l.cost.parse::<Decimal>().unwrap_or_default();
                (
                    category(t, l.category),
                    l.label.clone(),
                    t.exact_str(&l.quantity),
                    t.money_str(&l.cost),
                )
            })
            .collect();
        Costs {
            total: t.money_str(&print.total_cost),
            total_raw: print.total_cost.clone(),
            per_unit: t.money_str(&print.cost_per_unit),
            categories: CATEGORIES
                .iter()
                .filter_map(|c| sums.get(c).map(|v| (category(t, c), t.money(v))))
                .collect(),
            lines,
        }
    }
}

fn category(t: &Tr, name: &str) -> String {
    t.t(&format!("category.{name}")).to_string()
}

/// A planned filament use beside its actual grams, formatted.
pub struct UsageRow {
    id: String,
    /// The outcome form's field of its usage id (`filaments[k].usageId`, `materials[k].usageId`).
    id_field: String,
    /// The outcome form's field of its quantity (`filaments[k].usedGrams`,
    /// `materials[k].quantity`).
    field: String,
    /// What the field asks for: grams (a filament), else the quantity with its unit.
    measure: String,
    /// The part's number, from 1, or the whole print's word for its own consumables.
    pub part: String,
    /// The material as priced (manufacturer, material, colour).
    pub label: String,
    /// The spool's code; empty without one.
    pub spool: String,
    /// Planned quantity with the unit.
    pub planned: String,
    /// Actual quantity with the unit; empty before an outcome.
    pub actual: String,
    /// Planned cost.
    pub cost: String,
    /// Its value in the outcome form.
    entered: String,
}

/// A part beside its actual time.
struct PartRow {
    number: usize,
    id: String,
    printer: String,
    plate: String,
    hotends: String,
    planned: String,
    actual: String,
    total: String,
    /// Its minutes in the outcome form.
    entered: String,
    /// Its actual electricity: kWh, where they came from and any flag; empty before an outcome.
    electricity: String,
    /// Its run's start, end and kWh in the outcome form (`datetime-local` values, a decimal).
    run_start: String,
    run_end: String,
    run_kwh: String,
}

/// A work line whose actual minutes the outcome form asks for (labour and steps).
struct WorkMinutesRow {
    /// The line's id.
    id: String,
    /// Its label and how it counts (`Sanding · per piece`).
    label: String,
    /// The minutes in the form.
    entered: String,
}

/// The labour and step lines of `print` with the minutes the form holds for them.
fn work_minutes_rows(t: &Tr, print: &PrintDto, form: &Submitted) -> Vec<WorkMinutesRow> {
    print
        .work
        .iter()
        .filter(|w| w.kind != WorkKind::Charge)
        .enumerate()
        .map(|(k, w)| WorkMinutesRow {
            id: w.id.clone(),
            label: format!("{} · {}", w.label, t.t(&format!("per.{}", wire(&w.per)))),
            entered: form.get(&format!("workMinutes[{k}].minutes")).to_string(),
        })
        .collect()
}

/// One outcome revision, formatted.
struct RevisionRow {
    revision: u32,
    status: String,
    recorded: String,
    duration: String,
    note: String,
    failure_reason: String,
    correction_note: String,
    actual_cost: String,
}

#[derive(Template)]
#[template(path = "print_detail.html")]
struct DetailPage {
    chrome: Chrome,
    /// Who changed what of the print.
    changes: Vec<ChangeRow>,
    print: PrintDto,
    status: String,
    costs: Costs,
    customer: Option<(String, String)>,
    series: Option<(String, String)>,
    /// The newest quote offering it: (id, its number or "draft", its state), in words.
    quote: Option<(String, String, String)>,
    /// The invoice billing it: (id, its number or "draft").
    invoice: Option<(String, String)>,
    parts: Vec<PartRow>,
    usages: Vec<UsageRow>,
    /// Labour and step lines, for their actual minutes.
    work_minutes: Vec<WorkMinutesRow>,
    moves: Vec<(String, String)>,
    /// A move that asks first (back in the flow, or past PRINTING from DRAFT) and is not yet
    /// confirmed: its status (wire), its label and the question's locale key.
    confirm_move: Option<(String, String, &'static str)>,
    /// The overdue blocking maintenance task that holds a move the print may make: (its name,
    /// the moves it holds as (wire, label), the move asked for (wire), the reason entered).
    blocking: Option<Blocking>,
    outcome_status: String,
    revisions: Vec<RevisionRow>,
    /// `record`, `correct` or `""`: which outcome form the print takes.
    form_kind: &'static str,
    form: Submitted,
    faults: Faults,
    operation_key: String,
    financials: Vec<(String, String)>,
    planned_duration: String,
    actual_duration: String,
    actual_cost: String,
    is_draft: bool,
    is_done: bool,
    failed: bool,
    /// Parts on linked printers of the printer fleet, with their jobs.
    fleet: Vec<print_fleet::FleetPart>,
    /// What the last command did, in words naming the print(s).
    notice: Option<String>,
    /// The failed print's sales value a DRAFT retry without one may take, formatted.
    retry_price: Option<String>,
    /// The other prints PRINTING on one of its printers (id, name).
    also_printing: Vec<(String, String)>,
}

/// The maintenance gate on a print's page: the overdue task, the moves it holds and the
/// override's reason field ([`actors::maintenance::tasks::check_blocking`]).
struct Blocking {
    /// The task's name.
    task: String,
    /// The moves it holds, (wire, label), the next step first.
    moves: Vec<(String, String)>,
    /// The move asked for (wire): preselected.
    asked: String,
    /// The reason as entered (a refused one is shown again).
    reason: String,
}

impl DetailPage {
    fn fault(&self, name: &str) -> &str {
        self.faults.at(name)
    }

    /// The fault of field `field` of run `run` in the outcome form.
    fn run_fault(&self, run: &usize, field: &str) -> &str {
        self.faults.at(&format!("electricity[{run}].{field}"))
    }

    /// The fault of the actual minutes of work line `k` in the outcome form.
    fn work_fault(&self, k: &usize) -> &str {
        self.faults.at(&format!("workMinutes[{k}].minutes"))
    }

    /// (part id, fingerprint) of every part with an attached job, for the import.
    fn previews(&self) -> Vec<(&str, &str)> {
        self.fleet
            .iter()
            .filter_map(|f| {
                f.attached
                    .as_ref()
                    .map(|j| (f.part_id.as_str(), j.hash.as_str()))
            })
            .collect()
    }
}

/// One planned use of a material as the pages list it: a part's usage, or one of the print's
/// own consumables (no part).
struct Used<'a> {
    /// The part's number, from 1; `None` for the whole print.
    part: Option<usize>,
    id: &'a str,
    material_id: &'a str,
    kind: MaterialKindDto,
    quantity: &'a str,
    spool_code: Option<&'a str>,
    /// The material as priced (manufacturer, material, colour; a pack's code).
    label: String,
    cost: &'a str,
}

/// Every planned use of a material of `print`: each part's usages in part order, then the
/// print's own consumables.
fn used(print: &PrintDto) -> Vec<Used<'_>> {
    let parts = print.parts.iter().enumerate().flat_map(|(i, part)| {
        part.usages.iter().map(move |u| Used {
            part: Some(i + 1),
            id: &u.id,
            material_id: &u.material_id,
            kind: u.material_kind,
            quantity: &u.quantity,
            spool_code: u.spool_code.as_deref(),
            label: (part.cost_lines.iter())
                .find(|l| l.category == wire_name(&u.material_kind) && l.source_id == u.material_id)
                .map_or_else(|| u.material_id.clone(), |l| l.label.clone()),
            cost: &u.cost,
        })
    });
    let own = print.materials.iter().map(|m| Used {
        part: None,
        id: &m.usage_id,
        material_id: &m.material_id,
        kind: MaterialKindDto::Consumable,
        quantity: &m.quantity,
        spool_code: m.spool_code.as_deref(),
        label: m.label.clone(),
        cost: &m.cost,
    });
    parts.chain(own).collect()
}

/// The outcome form's fields of each usage of `print`, in part order, the print's own
/// consumables last: a filament's in `filaments[k]` (`usageId`, `usedGrams`), any other
/// material's in `materials[k]` (`usageId`, `quantity`).
pub fn usage_fields(print: &PrintDto) -> Vec<(String, String)> {
    let (mut filaments, mut materials) = (0, 0);
    used(print)
        .iter()
        .map(|u| {
            let (list, field, k) = match u.kind {
                MaterialKindDto::Filament => ("filaments", "usedGrams", &mut filaments),
                _ => ("materials", "quantity", &mut materials),
            };
            let names = (
                format!("{list}[{k}].usageId"),
                format!("{list}[{k}].{field}"),
            );
            *k += 1;
            names
        })
        .collect()
}

/// The material rows of `print`, in part order and the print's own consumables last, each
/// quantity with the sign of its material's unit (`units`, by material id:
/// [`actors::prints::Detail::units`]).
pub fn usage_rows(t: &Tr, print: &PrintDto, units: &HashMap<Id, StockUnit>) -> Vec<UsageRow> {
    let actual: BTreeMap<&str, &str> = print
        .outcome
        .iter()
        .flat_map(|o| o.materials.iter())
        .map(|g| (g.usage_id.as_str(), g.quantity.as_str()))
        .collect();
    used(print)
        .into_iter()
        .zip(usage_fields(print))
        .map(|(u, (id_field, field))| {
            let unit = u
                .material_id
                .parse()
                .ok()
                .and_then(|id: Id| units.get(&id))
                .map_or_else(String::new, |u| format!(" {}", t.t(unit_key(*u))));
            let measure = match u.kind {
                MaterialKindDto::Filament => t.t("editor.grams").to_string(),
                _ => format!("{} ({})", t.t("editor.quantity"), unit.trim()),
            };
            UsageRow {
                id: u.id.to_string(),
                id_field,
                field,
                measure,
                part: u
                    .part
                    .map_or_else(|| t.t("print.wholePrint").to_string(), |n| n.to_string()),
                label: u.label,
                spool: u.spool_code.unwrap_or_default().to_string(),
                planned: format!("{}{unit}", t.exact_str(u.quantity)),
                actual: actual
                    .get(u.id)
                    .map(|g| format!("{}{unit}", t.exact_str(g)))
                    .unwrap_or_default(),
                cost: t.money_str(u.cost),
                entered: String::new(),
            }
        })
        .collect()
}

/// A part's actual electricity in words: `0,119 kWh · gemessen`, `0,12 kWh · geschätzt (kein
/// Zähler)`, with a note when the time was shared with another run.
pub(super) fn electricity_text(t: &Tr, e: &PartElectricityOut) -> String {
    let source = t.t(&format!("energy.{}", wire(&e.source))).to_string();
    let mut text = format!("{} kWh · {source}", t.exact_str(&e.kwh));
    if let Some(reason) = &e.reason {
        text.push_str(&format!(" ({})", t.t(&format!("energy.{}", wire(reason)))));
    }
    if e.overlapped {
        text.push_str(&format!(" · {}", t.t("energy.overlapped")));
    }
    text
}

fn part_rows(t: &Tr, print: &PrintDto) -> Vec<PartRow> {
    let actual: BTreeMap<&str, u32> = print
        .outcome
        .iter()
        .flat_map(|o| o.parts.iter())
        .map(|p| (p.part_id.as_str(), p.duration_seconds))
        .collect();
    let electricity: BTreeMap<&str, String> = print
        .outcome
        .iter()
        .flat_map(|o| o.electricity.iter())
        .map(|e| (e.part_id.as_str(), electricity_text(t, e)))
        .collect();
    print
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| PartRow {
            number: i + 1,
            id: p.id.clone(),
            printer: p.printer.clone(),
            plate: p.build_plate.clone(),
            hotends: p
                .hotends
                .iter()
                .map(|h| format!("{} ({})", h.name, clock(u64::from(h.duration_seconds))))
                .collect::<Vec<_>>()
                .join(", "),
            planned: clock(p.duration_seconds),
            actual: actual
                .get(p.id.as_str())
                .map(|s| clock(u64::from(*s)))
                .unwrap_or_default(),
            total: t.money_str(&p.total_cost),
            entered: String::new(),
            electricity: electricity.get(p.id.as_str()).cloned().unwrap_or_default(),
            run_start: String::new(),
            run_end: String::new(),
            run_kwh: String::new(),
        })
        .collect()
}

/// The financial figures of `print` that exist, labelled and formatted.
pub fn financials(t: &Tr, print: &PrintDto) -> Vec<(String, String)> {
    let f = &print.financials;
    let price = print.price.as_ref();
    let suggested = price.map(|p| p.suggested_net.clone());
    let vat = price.and_then(|p| p.vat.clone());
    let gross = price.and_then(|p| p.gross.clone());
    let good = price.and_then(|p| p.cost_per_good_part.clone());
    let good_label = price.and_then(|p| p.success_rate.as_deref()).map(|rate| {
        let percent = rate.parse::<Decimal>().unwrap_or_default() * Decimal::ONE_HUNDRED;
        let sample = price.map_or(0, |p| p.success_sample);
        format!(
            "{} ({} % · {} {})",
            t.t("financials.costPerGoodPart"),
            t.number(percent, 1),
            sample,
            t.t("financials.runs")
        )
    });
    let mut rows: Vec<(String, String)> = [
        ("financials.suggestedNet", &suggested),
        ("financials.salesValue", &f.sales_value),
        ("financials.vat", &vat),
        ("financials.gross", &gross),
        ("financials.plannedMargin", &f.planned_margin),
        ("financials.realizedRevenue", &f.realized_revenue),
        ("financials.realizedMargin", &f.realized_margin),
        ("financials.salesPerUnit", &f.sales_per_unit),
        (
            "financials.plannedMarginPerUnit",
            &f.planned_margin_per_unit,
        ),
        (
            "financials.realizedMarginPerUnit",
            &f.realized_margin_per_unit,
        ),
        ("financials.failedCost", &print.failed_cost),
    ]
    .into_iter()
    .filter_map(|(key, value)| {
        value
            .as_ref()
            .map(|v| (t.t(key).to_string(), t.money_str(v)))
    })
    .collect();
    if let (Some(label), Some(good)) = (good_label, good) {
        rows.insert(1, (label, t.money_str(&good)));
    }
    rows
}

/// The outcome form's values: the submitted ones, or the current outcome's, or the plan's; each
/// part's run from the current outcome, else the print's PRINTING times (in the shop's zone).
fn outcome_form(t: &Tr, print: &PrintDto) -> Submitted {
    let mut form = Submitted::default();
    let outcome = print.outcome.as_ref();
    form.set(
        "status",
        outcome.map_or("SUCCESS".into(), |o| wire(&o.status)),
    );
    let seconds = outcome.map_or(print.duration_seconds, |o| u64::from(o.duration_seconds));
    form.set("durationMinutes", minutes(seconds));
    if let Some(o) = outcome {
        form.set("note", o.note.clone().unwrap_or_default());
        form.set(
            "failureReason",
            o.failure_reason.clone().unwrap_or_default(),
        );
        form.set("expectedRevision", o.revision.to_string());
    }
    for (u, (id_field, field)) in used(print).into_iter().zip(usage_fields(print)) {
        let quantity = outcome
            .and_then(|o| o.materials.iter().find(|g| g.usage_id == u.id))
            .map_or(u.quantity, |g| g.quantity.as_str());
        form.set(id_field, u.id);
        form.set(field, quantity);
    }
    let timed = print.work.iter().filter(|w| w.kind != WorkKind::Charge);
    for (k, w) in timed.enumerate() {
        let minutes = outcome
            .and_then(|o| o.work_minutes.iter().find(|m| m.work_line_id == w.id))
            .map_or(w.amount.clone(), |m| m.minutes.clone());
        form.set(format!("workMinutes[{k}].workLineId"), w.id.clone());
        form.set(format!("workMinutes[{k}].minutes"), minutes);
    }
    if print.parts.len() > 1 {
        for (i, p) in print.parts.iter().enumerate() {
            let seconds = outcome
                .and_then(|o| o.parts.iter().find(|s| s.part_id == p.id))
                .map_or(p.duration_seconds, |s| u64::from(s.duration_seconds));
            form.set(format!("parts[{i}].partId"), p.id.clone());
            form.set(format!("parts[{i}].durationMinutes"), minutes(seconds));
        }
    }
    for (i, p) in print.parts.iter().enumerate() {
        let recorded = outcome.and_then(|o| o.electricity.iter().find(|e| e.part_id == p.id));
        let (start, end) = match recorded {
            Some(e) => (e.started_at.as_deref(), e.ended_at.as_deref()),
            None => (
                print.printing_started_at.as_deref(),
                print.printing_ended_at.as_deref(),
            ),
        };
        form.set(format!("electricity[{i}].partId"), p.id.clone());
        let field = |at: Option<&str>| at.map(|a| t.field_datetime(a)).unwrap_or_default();
        form.set(format!("electricity[{i}].startedAt"), field(start));
        form.set(format!("electricity[{i}].endedAt"), field(end));
        let entered = recorded.filter(|e| wire(&e.source) == "ENTERED");
        form.set(
            format!("electricity[{i}].kwh"),
            entered.map(|e| e.kwh.clone()).unwrap_or_default(),
        );
    }
    form
}

/// A status move asked for on the page: the status and the override's reason as entered.
#[derive(Debug, Clone, Default)]
struct Asked {
    status: Option<PrintStatus>,
    reason: String,
}

impl Asked {
    /// The move a command form asks for: `status`'s field, DONE for `complete`.
    fn of(action: &str, form: &Submitted) -> Asked {
        let status = match action {
            "status" => status_of(form.get("status")),
            "complete" => Some(PrintStatus::Done),
            _ => None,
        };
        let reason = form.get("maintenanceOverride").to_string();
        Asked { status, reason }
    }
}

/// The print's page: its detail, with `form` (the refused values, else the current outcome) and
/// `faults`, answered with `status`.
async fn render(ctx: Ctx, form: Option<Submitted>, faults: Faults, status: StatusCode) -> Page {
    render_move(ctx, form, faults, status, Asked::default()).await
}

/// [`render`], with the status move `asked` for (refused or to confirm).
async fn render_move(
    ctx: Ctx,
    form: Option<Submitted>,
    faults: Faults,
    status: StatusCode,
    asked: Asked,
) -> Page {
    let detail = ctx.query(PrintDetail(ctx.id()?)).await?;
    let print = PrintDto::from(&detail.print);
    let recording = matches!(form_kind(&print), "record" | "finish");
    let fleet = print_fleet::parts(&ctx, &print, recording).await;
    let form = form.or_else(|| {
        let mut prefilled = outcome_form(&ctx.chrome.t, &print);
        print_fleet::prefill(&mut prefilled, &print, &fleet);
        Some(prefilled)
    });
    let t = &ctx.chrome.t;
    let current = detail.print.status;
    let confirm = ctx.param("confirmMove");
    let confirm_move = status_of(&confirm)
        .filter(|s| moves(&detail.print).contains(s))
        .and_then(|s| question(current, s))
        .map(|key| {
            (
                confirm.clone(),
                t.t(&format!("status.{confirm}")).to_string(),
                key,
            )
        });
    // A DRAFT's every move is held; a later print's only way back to PRINTING is, and the
    // form shows once that move is asked for.
    let held =
        current == PrintStatus::Draft || asked.status.is_some_and(|s| passes_gate(current, s));
    let blocking = detail.blocking.as_ref().filter(|_| held).map(|task| {
        let moves: Vec<(String, String)> = moves(&detail.print)
            .into_iter()
            .filter(|s| passes_gate(current, *s))
            .map(|s| labelled(t, s))
            .collect();
        let asked_status = asked.status.or_else(|| status_of(&confirm));
        Blocking {
            task: task.name.clone(),
            asked: asked_status.map_or_else(String::new, |s| labelled(t, s).0),
            moves,
            reason: asked.reason.clone(),
        }
    });
    let notice = notice(&ctx, &detail.print).await;
    let changes = changes::of(&ctx, detail.print.id).await?;
    let mut page = DetailPage::of(ctx.chrome.clone(), detail, form, faults);
    page.changes = changes;
    page.fleet = fleet;
    page.confirm_move = confirm_move;
    page.blocking = blocking;
    page.notice = notice;
    Ok(html(status, page.render()))
}

/// Which outcome form the page shows: `record` (DONE), `finish` (PRINTED or SHIPPED: done,
/// with this outcome), `correct` (recorded), `soon` (PRINTING: a hint that it comes once
/// printed) or none (`""`; archived or DRAFT).
fn form_kind(print: &PrintDto) -> &'static str {
    match (&print.outcome, wire(&print.status).as_str(), print.archived) {
        (_, _, true) => "",
        (Some(_), _, false) => "correct",
        (None, "DONE", false) => "record",
        (None, "PRINTED" | "SHIPPED", false) => "finish",
        (None, "PRINTING", false) => "soon",
        _ => "",
    }
}

/// A status as (wire name, label in the page's language).
fn labelled(t: &Tr, status: PrintStatus) -> (String, String) {
    let name = wire(&Status::from(status));
    let label = t.t(&format!("status.{name}")).to_string();
    (name, label)
}

/// The question a move from `from` to `to` asks before it is made, as a locale key: back in the
/// flow ([`is_backward`]), or past PRINTING from DRAFT ([`skips_printing`]: no run times are
/// taken); none for the others.
fn question(from: PrintStatus, to: PrintStatus) -> Option<&'static str> {
    if is_backward(from, to) {
        Some("detail.confirmBack")
    } else if skips_printing(from, to) {
        Some("detail.confirmSkip")
    } else {
        None
    }
}

/// The outcome's revisions, newest first.
fn revision_rows(t: &Tr, print: &PrintDto) -> Vec<RevisionRow> {
    print
        .outcome
        .iter()
        .flat_map(|o| o.history.iter())
        .rev()
        .map(|r| RevisionRow {
            revision: r.revision,
            status: t.t(&format!("outcome.{}", wire(&r.status))).to_string(),
            recorded: t.date(&r.recorded_at),
            duration: clock(u64::from(r.duration_seconds)),
            note: r.note.clone().unwrap_or_default(),
            failure_reason: r.failure_reason.clone().unwrap_or_default(),
            correction_note: r.correction_note.clone().unwrap_or_default(),
            actual_cost: t.money_str(&r.actual_cost),
        })
        .collect()
}

impl DetailPage {
    /// The page of `detail` in the frame `chrome`.
    fn of(chrome: Chrome, detail: Detail, form: Option<Submitted>, faults: Faults) -> Self {
        let print = PrintDto::from(&detail.print).with_source(detail.source.clone());
        let t = &chrome.t;
        let current = wire(&print.status);
        let form = form.unwrap_or_else(|| outcome_form(t, &print));
        let mut usages = usage_rows(t, &print, &detail.units);
        for u in usages.iter_mut() {
            u.entered = form.get(&u.field).to_string();
        }
        let mut parts = part_rows(t, &print);
        for (i, p) in parts.iter_mut().enumerate() {
            p.entered = form.get(&format!("parts[{i}].durationMinutes")).to_string();
            p.run_start = form.get(&format!("electricity[{i}].startedAt")).to_string();
            p.run_end = form.get(&format!("electricity[{i}].endedAt")).to_string();
            p.run_kwh = form.get(&format!("electricity[{i}].kwh")).to_string();
        }
        let outcome = print.outcome.as_ref();
        DetailPage {
            status: t.t(&format!("status.{current}")).to_string(),
            costs: Costs::of(t, &print),
            parts,
            usages,
            work_minutes: work_minutes_rows(t, &print, &form),
            moves: moves(&detail.print)
                .into_iter()
                .map(|s| labelled(t, s))
                .collect(),
            confirm_move: None,
            blocking: None,
            outcome_status: outcome
                .map(|o| t.t(&format!("outcome.{}", wire(&o.status))).to_string())
                .unwrap_or_default(),
            revisions: revision_rows(t, &print),
            form_kind: form_kind(&print),
            form,
            faults,
            operation_key: Id::new().to_string(),
            financials: financials(t, &print),
            planned_duration: clock(print.duration_seconds),
            actual_duration: outcome
                .map(|o| clock(u64::from(o.duration_seconds)))
                .unwrap_or_default(),
            actual_cost: print
                .actual_cost
                .as_deref()
                .map(|c| t.money_str(c))
                .unwrap_or_default(),
            is_draft: detail.print.status == PrintStatus::Draft,
            is_done: detail.print.status == PrintStatus::Done,
            failed: detail
                .print
                .outcome
                .as_ref()
                .and_then(|o| o.current())
                .is_some_and(|r| r.status == OutcomeStatus::Failed),
            retry_price: detail.retry_price.map(|p| t.money(p)),
            also_printing: detail
                .also_printing
                .iter()
                .map(|(id, name)| (id.to_string(), name.clone()))
                .collect(),
            customer: detail.customer.map(|c| (c.id.to_string(), c.name)),
            series: detail.series.map(|s| (s.id.to_string(), s.name)),
            invoice: detail.invoice.map(|i| {
                let number = i
                    .issued
                    .map_or_else(|| t.t("quotes.draftNumber").into(), |d| d.number);
                (i.id.to_string(), number)
            }),
            quote: detail.quote.map(|q| {
                let key = format!("quotes.state.{}", wire(&QuoteState::from(q.status)));
                let state = t.t(&key);
                let number = q.number.unwrap_or_else(|| t.t("quotes.draftNumber").into());
                (q.id.to_string(), number, state.to_string())
            }),
            fleet: Vec::new(),
            notice: None,
            changes: Vec::new(),
            print,
            chrome,
        }
    }
}

/// `GET /prints/{id}`.
pub async fn show(ctx: Ctx) -> Page {
    render(ctx, None, Faults::default(), StatusCode::OK).await
}

/// Shows the print again with the faults of a refused command (and the refused form values).
pub(super) async fn refuse(ctx: Ctx, error: &ApiError, form: Option<Submitted>) -> Page {
    render(ctx, form, Faults::of(error), error.code.status()).await
}

/// Shows the print again with the faults of a refused status move `asked` for (the maintenance
/// gate's override form takes its status and reason).
async fn refuse_move(ctx: Ctx, error: &ApiError, asked: Asked) -> Page {
    render_move(ctx, None, Faults::of(error), error.code.status(), asked).await
}

/// Sends the print command named by the `{action}` of the form's path: `status` (field
/// `status`, with the maintenance override's reason in `maintenanceOverride` when given),
/// `paid` and `archive` (field `value`: `true`/`false`), `complete`, `duplicate`, `repeat`,
/// `retry`, `retryPrice` (a DRAFT retry takes the failed print's sales value).
/// Replies with the print it answers (the new copy for a copy).
async fn command(ctx: &Ctx, id: Id, action: &str, form: &Submitted) -> Result<Print, ApiError> {
    let flag = form.get("value") == "true";
    let state = &ctx.state;
    let print = match action {
        "status" => {
            let status = status_of(form.get("status"))
                .ok_or_else(|| ApiError::field("status", "errors.invalidValue"))?;
            let reason = form.get("maintenanceOverride");
            let command = SetStatus {
                id,
                status,
                maintenance_override: form.checked("maintenanceOverride").then(|| Override {
                    by: ctx.user.account.id,
                    reason: reason.to_string(),
                }),
            };
            state.send(command).await
        }
        "paid" => state.send(SetPaid { id, paid: flag }).await,
        "archive" => state.send(ArchivePrint { id, archived: flag }).await,
        "complete" => state.send(Complete { id }).await,
        "duplicate" => {
            let kind = CopyKind::Duplicate;
            state.send(CopyPrint { id, kind }).await
        }
        "repeat" => {
            let kind = CopyKind::Repeat;
            state.send(CopyPrint { id, kind }).await
        }
        "retry" => state.send(Retry { id }).await,
        "retryPrice" => state.send(TakeRetryPrice { id }).await,
        _ => Err(ApiError::new(Code::NotFound)),
    }?;
    Ok(print)
}

/// `POST /prints/{id}/actions/{action}` (see [`command`]). Answers 303 to the print (or the new
/// copy).
pub async fn act(ctx: Ctx, path: Path<(String, String)>, body: Bytes) -> Page {
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let asked = Asked::of(&path.1, &form);
    // A move back in the flow or past PRINTING is confirmed first (the page asks, with a form
    // that says yes).
    if form.get("confirmed") != "yes"
        && let Some(to) = asked.status
    {
        let current = ctx.query(PrintDetail(id)).await?.print.status;
        if question(current, to).is_some() {
            let wire = labelled(&ctx.chrome.t, to).0;
            let asked = format!("{}?confirmMove={wire}", paths::print(id));
            return Ok(see_other(&asked));
        }
    }
    match command(&ctx, id, &path.1, &form).await {
        Ok(print) => {
            let did =
                serde_urlencoded::to_string([("did", path.1.as_str()), ("from", &id.to_string())])
                    .unwrap_or_default();
            Ok(see_other(&format!("{}?{did}", paths::print(print.id))))
        }
        Err(e) => refuse_move(ctx, &e, asked).await,
    }
}

/// The message of `?did=<action>&from=<id>` after a command, naming `print` (and, for a copy,
/// the print it was made from): "Bracket duplicated as Bracket (2)", "Moved to Printed".
async fn notice(ctx: &Ctx, print: &Print) -> Option<String> {
    let t = &ctx.chrome.t;
    let did = ctx.param("did");
    let said = |key: &str| t.t(key).to_string();
    let status = || {
        t.t(&format!("status.{}", wire(&Status::from(print.status))))
            .to_string()
    };
    Some(match did.as_str() {
        "status" => format!("{} {}.", said("notice.movedTo"), status()),
        "complete" => format!("{} {}.", said("notice.completed"), status()),
        "retryPrice" => said("notice.retryPrice"),
        "recorded" | "finished" | "corrected" | "frozen" | "drafted" | "draftSaved" => {
            said(&format!("notice.{did}"))
        }
        "paid" if print.paid => said("notice.paid"),
        "paid" => said("notice.unpaid"),
        "archive" if print.archived => said("notice.archived"),
        "archive" => said("notice.restored"),
        "fleetAttach" | "fleetSync" | "fleetImport" => {
            format!("{}: {}", print.name, said(&format!("notice.{did}")))
        }
        "duplicate" | "repeat" | "retry" => {
            let from: Id = ctx.param("from").parse().ok()?;
            let original = ctx.state.query(PrintDetail(from)).await.ok()?.print.name;
            let key = format!("notice.{did}");
            format!("{original} {} {}.", said(&key), print.name)
        }
        _ => return None,
    })
}

/// The status a form names by its wire name (`"DONE"`); never DRAFT, which no page offers
/// ([`moves`]).
fn status_of(wire: &str) -> Option<PrintStatus> {
    serde_json::from_value::<Status>(wire.into())
        .ok()
        .map(PrintStatus::from)
        .filter(|s| *s != PrintStatus::Draft)
}

/// Numbers of the outcome forms.
const NUMBERS: [&str; 1] = ["expectedRevision"];

/// The outcome input `T` of a form. A multipart form sends the parts' times only: the total is
/// their sum, as the rules require.
///
/// Errors: the API's field errors.
pub(super) fn outcome_input<T: Deserr<input::Faults>>(
    t: &Tr,
    form: &Submitted,
) -> Result<T, ApiError> {
    input::parse(outcome_tree(t, form))
}

/// The outcome document of an outcome form, before the API's parser sees it: minutes become
/// seconds. A multipart form sends its parts' times only; the rules sum them. A run's times
/// (`datetime-local`, the shop's wall clock) become RFC 3339 (one that is not a time is passed
/// on, for the API to refuse); empty run fields are left out, and a run with nothing but its
/// part.
pub(super) fn outcome_tree(t: &Tr, form: &Submitted) -> serde_json::Value {
    let mut tree = form.tree(&NUMBERS);
    if let Some(runs) = tree.get_mut("electricity").and_then(|r| r.as_array_mut()) {
        for run in runs.iter_mut().filter_map(|r| r.as_object_mut()) {
            run.retain(|_, v| v.as_str() != Some(""));
            for name in ["startedAt", "endedAt"] {
                let typed = run.get(name).and_then(|v| v.as_str());
                if let Some(at) = typed.and_then(|v| t.from_field_datetime(v)) {
                    run.insert(name.into(), at.into());
                }
            }
        }
        runs.retain(|r| r.as_object().is_some_and(|r| r.len() > 1));
    }
    tree
}

/// `POST /prints/{id}/outcome`: records the outcome (and books the consumption on the spools);
/// with `finish=yes` (the form of a PRINTED or SHIPPED print), moves it to DONE first, in the
/// same write ([`FinishWithOutcome`]).
pub async fn record(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let mut form = Submitted::parse(&body);
    let finish = form.get("finish") == "yes";
    form.0.retain(|(name, _)| name != "finish");
    let result = match ctx.typed(|| outcome_input::<OutcomeInputDto>(&ctx.chrome.t, &form)) {
        Ok(input) if finish => {
            let input = input.into();
            ctx.state.send(FinishWithOutcome { id, input }).await
        }
        Ok(input) => {
            let input = input.into();
            ctx.state.send(RecordOutcome { id, input }).await
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => {
            let did = if finish { "finished" } else { "recorded" };
            Ok(see_other(&format!("{}?did={did}", paths::print(id))))
        }
        Err(e) => refuse(ctx, &e, Some(form)).await,
    }
}

/// `POST /prints/{id}/outcome/correct`: appends a revision (books only the deltas).
pub async fn correct(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let input = ctx
        .typed(|| outcome_input::<CorrectionInputDto>(&ctx.chrome.t, &form))
        .and_then(CorrectionInputDto::into_input);
    let result = match input {
        Ok(input) => ctx.state.send(CorrectOutcome { id, input }).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(see_other(&format!("{}?did=corrected", paths::print(id)))),
        Err(e) => refuse(ctx, &e, Some(form)).await,
    }
}
