//! The print editor: a draft's name, customer, series, quantity, sales value and notes, and its
//! 1 to 100 parts, each with a printer, a build plate, hotends with their printing times (a
//! resin printer's part: its vat), other components, filament lines and material lines (resin,
//! consumables; each with a spool or bottle picker under spool management), and its work lines
//! (labour, charges, post-processing steps). A part shows the fields of its printer's
//! technology; the other technology's are hidden and disabled, so they are never sent.
//!
//! Field names are the API's JSON paths (`parts[0].hotends[1].durationMinutes`, see
//! [`Submitted::document`]), so a refused draft shows each field error next to its control.
//! `static/app.js` adds and removes parts and lines and shows the live cost breakdown from
//! `POST /api/prints/calculate`; without it the form still saves and shows the stored costs.

use super::Chrome;
use super::choices::{Choice, Choices, LoadChoices};
use super::format;
use super::forms::{Faults, Submitted};
use super::i18n::Tr;
use super::page::{Ctx, Page, html, see_other};
use super::paths;
use super::print_detail;
use crate::api::materials::MaterialKindDto;
use crate::api::prints::input::WorkKind;
use crate::api::prints::sliced::{self, SlicedPreviewDto};
use crate::api::prints::{PrintDto, PrintInputDto, Status};
use crate::error::{ApiError, Rendered};
use crate::input;
use actix_multipart::Multipart;
use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actors::prints::{Calculate, GetPrint};
use askama::Template;
use serde_json::{Value, json};

/// Form fields sent as JSON numbers.
const NUMBERS: [&str; 1] = ["quantity"];

/// One form control: its name (a JSON path), value and fault key.
#[derive(Debug, Clone)]
pub struct Slot {
    /// Field name.
    pub name: String,
    /// Current value.
    pub value: String,
    /// Message key of its field error, or `""`.
    pub fault: String,
}

/// A hotend line.
struct HotendRow {
    component: Slot,
    minutes: Slot,
}

/// A filament line (`filamentId`, `usedGrams`, `spoolId`) or a material line (`materialId`,
/// `quantity`, `spoolId`).
struct FilamentRow {
    filament: Slot,
    grams: Slot,
    spool: Slot,
}

/// How a part's lines of one list are named and labelled in the form
/// (`_material_line.html`).
struct LineKind {
    /// The list: `filaments` or `materials`.
    list: &'static str,
    /// The material's field: `filamentId` or `materialId`.
    material: &'static str,
    /// The quantity's field: `usedGrams` or `quantity`.
    quantity: &'static str,
    /// Message keys of the material's and the quantity's labels.
    label: &'static str,
    quantity_label: &'static str,
    /// Whether a line must be filled in (a part's filament lines; a material line may stay
    /// empty, and is then left out).
    required: bool,
}

/// A part's filament lines.
const FILAMENT_LINE: LineKind = LineKind {
    list: "filaments",
    material: "filamentId",
    quantity: "usedGrams",
    label: "field.filament",
    quantity_label: "editor.grams",
    required: true,
};

/// A part's lines of resin and consumables.
const MATERIAL_LINE: LineKind = LineKind {
    list: "materials",
    material: "materialId",
    quantity: "quantity",
    label: "field.material",
    quantity_label: "editor.quantity",
    required: false,
};

/// A consumable of the whole print: its material, amount and pack (as a part's material line),
/// per piece or per job.
struct ConsumableRow {
    line: FilamentRow,
    per: Slot,
}

/// A work line: what it prices (kind and record), its minutes or count, per piece or job.
struct WorkRow {
    kind: Slot,
    source: Slot,
    minutes: Slot,
    count: Slot,
    per: Slot,
}

/// A part with its lines.
struct PartView {
    number: usize,
    id: Slot,
    printer: Slot,
    plate: Slot,
    others: Slot,
    other_ids: Vec<String>,
    hotends: Vec<HotendRow>,
    filaments: Vec<FilamentRow>,
    /// On a resin (MSLA) printer: the vat and printing time replace hotends and filaments.
    resin: bool,
    vat: HotendRow,
    /// The fault of the vat as a whole (`parts[i].vat`: required, not for the printer).
    vat_fault: Slot,
    materials: Vec<FilamentRow>,
    /// The fault of the material lines as a whole (`parts[i].materials`: a resin part's
    /// resin is required).
    materials_fault: Slot,
}

#[derive(Template)]
#[template(path = "print_editor.html")]
struct EditorPage {
    chrome: Chrome,
    /// The print's id when editing.
    print_id: Option<String>,
    name: Slot,
    customer: Slot,
    series: Slot,
    quantity: Slot,
    sales_value: Slot,
    notes: Slot,
    parts: Vec<PartView>,
    /// Work lines (one empty line to fill when there are none).
    work: Vec<WorkRow>,
    /// The print's own consumables (one empty line to fill when there are none).
    consumables: Vec<ConsumableRow>,
    /// The fault of the consumables as a whole (`materials`: too many).
    materials_fault: Slot,
    choices: Choices,
    hotends: Vec<Choice>,
    plates: Vec<Choice>,
    vats: Vec<Choice>,
    others: Vec<Choice>,
    filament_line: LineKind,
    material_line: LineKind,
    faults: Faults,
    /// (wire name, label) of every cost category, for the live preview.
    categories: Vec<(&'static str, String)>,
    /// The stored print's costs (edit), for reading without JavaScript.
    costs: Option<print_detail::Costs>,
    /// The stored print's suggested net price, gross price and planned margin, formatted, when
    /// the price rule priced it (the live preview fills them in as the draft changes).
    price: Option<(String, String, String)>,
    /// A sliced file's figures, when the draft comes from one.
    sliced: Option<SlicedView>,
    /// The hidden `source.*` fields of a draft made from a sliced file (name, value).
    source: Vec<(String, String)>,
}

/// A sliced file's figures above the draft made from them.
struct SlicedView {
    /// `PrusaSlicer 2.5.0 · MK4`.
    source: String,
    /// The file's name.
    file: String,
    /// Its plates.
    plates: Vec<SlicedPlateView>,
    /// Some grams were derived from a length.
    derived: bool,
    /// Prints made from the same file before: (id, name).
    existing: Vec<(String, String)>,
}

/// One plate: its time and slots, or an SLA job's resin.
struct SlicedPlateView {
    number: u32,
    /// `h:mm`, or `–` when the slicer wrote no time.
    time: String,
    slots: Vec<SlicedSlotView>,
    /// An SLA job's resin: its profile and localized millilitres with the unit
    /// (`Prusament Resin Tough 12,5 ml`).
    resin: Option<String>,
}

/// One filament slot as the slicer wrote it.
struct SlicedSlotView {
    slot: u32,
    material: String,
    /// `#RRGGBB`, or empty.
    colour: String,
    /// Localized grams with the unit, or `–`.
    grams: String,
    derived: bool,
}

impl SlicedView {
    fn of(t: &Tr, preview: &SlicedPreviewDto) -> SlicedView {
        let source = [
            Some(&preview.slicer),
            preview.slicer_version.as_ref(),
            preview.printer_model.as_ref(),
        ];
        let source: Vec<&str> = source.into_iter().flatten().map(String::as_str).collect();
        let plates: Vec<SlicedPlateView> = preview
            .parts
            .iter()
            .map(|p| SlicedPlateView {
                number: p.plate,
                time: p
                    .duration_seconds
                    .map_or_else(|| "–".into(), |s| format::clock(u64::from(s))),
                slots: p
                    .filaments
                    .iter()
                    .map(|f| SlicedSlotView {
                        slot: f.slot,
                        material: f.material.clone().unwrap_or_default(),
                        colour: f.colour.clone().unwrap_or_default(),
                        grams: f
                            .grams
                            .as_deref()
                            .map_or_else(|| "–".into(), |g| format!("{} g", t.exact_str(g))),
                        derived: f.grams_derived,
                    })
                    .collect(),
                resin: p.resin.as_ref().map(|r| {
                    let ml = format!("{} {}", t.exact_str(&r.millilitres), t.t("unit.ml"));
                    match &r.material {
                        Some(material) => format!("{material} {ml}"),
                        None => ml,
                    }
                }),
            })
            .collect();
        SlicedView {
            source: source.join(" "),
            file: preview.file.name.clone(),
            derived: plates.iter().flat_map(|p| &p.slots).any(|s| s.derived),
            plates,
            existing: preview
                .existing_prints
                .iter()
                .map(|p| (p.id.clone(), p.name.clone()))
                .collect(),
        }
    }
}

/// Text of a JSON leaf (`""` for null, objects and arrays).
fn leaf(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn slot(faults: &Faults, name: String, value: String) -> Slot {
    let fault = faults.at(&name).to_string();
    Slot { name, value, fault }
}

/// Items of the array at `key` of `node`, or one empty object (a new line to fill).
fn rows<'a>(node: &'a Value, key: &str) -> Vec<&'a Value> {
    static EMPTY: Value = Value::Null;
    match node.get(key).and_then(Value::as_array) {
        Some(items) if !items.is_empty() => items.iter().collect(),
        _ => vec![&EMPTY],
    }
}

/// A timed head's controls at `path` (`parts[0].hotends[1]`, `parts[0].vat`) from `node`: its
/// component and its minutes (from `durationSeconds`, or the minutes a refused form sent), the
/// seconds' fault shown at the minutes.
fn timed(faults: &Faults, path: &str, node: &Value) -> HotendRow {
    let minutes = match node.get("durationSeconds").and_then(Value::as_u64) {
        Some(seconds) => format::minutes(seconds),
        None => leaf(node.get("durationMinutes")),
    };
    let mut minutes = slot(faults, format!("{path}.durationMinutes"), minutes);
    let seconds_fault = faults.at(&format!("{path}.durationSeconds"));
    if !seconds_fault.is_empty() {
        minutes.fault = seconds_fault.to_string();
    }
    HotendRow {
        component: slot(
            faults,
            format!("{path}.componentId"),
            leaf(node.get("componentId")),
        ),
        minutes,
    }
}

/// The lines of `list` of `part` (at `at`) with their material, quantity and spool fields.
fn lines(
    part: &Value,
    faults: &Faults,
    at: &dyn Fn(&str) -> String,
    (list, material, quantity): (&str, &str, &str),
) -> Vec<FilamentRow> {
    rows(part, list)
        .into_iter()
        .enumerate()
        .map(|(k, f)| {
            let line = |name: &str| {
                slot(
                    faults,
                    at(&format!("{list}[{k}].{name}")),
                    leaf(f.get(name)),
                )
            };
            FilamentRow {
                filament: line(material),
                grams: line(quantity),
                spool: line("spoolId"),
            }
        })
        .collect()
}

/// The parts of a draft document as form controls; a part is a resin part when its printer
/// is an MSLA printer among `printers` (its `group`).
fn parts(tree: &Value, faults: &Faults, printers: &[Choice]) -> Vec<PartView> {
    rows(tree, "parts")
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let at = |field: &str| format!("parts[{i}].{field}");
            let field = |name: &str| slot(faults, at(name), leaf(part.get(name)));
            let hotends = rows(part, "hotends")
                .into_iter()
                .enumerate()
                .map(|(j, h)| timed(faults, &at(&format!("hotends[{j}]")), h))
                .collect();
            static NONE: Value = Value::Null;
            let vat = timed(faults, &at("vat"), part.get("vat").unwrap_or(&NONE));
            let other_ids = part
                .get("otherComponentIds")
                .and_then(Value::as_array)
                .map(|ids| ids.iter().map(|v| leaf(Some(v))).collect())
                .unwrap_or_default();
            let mut others = field("otherComponentIds");
            others.name = at("otherComponentIds[]");
            let printer = field("printerId");
            let resin = printers
                .iter()
                .any(|p| p.id == printer.value && p.group == "MSLA");
            PartView {
                number: i + 1,
                id: field("id"),
                printer,
                plate: field("buildPlateId"),
                others,
                other_ids,
                hotends,
                filaments: lines(part, faults, &at, ("filaments", "filamentId", "usedGrams")),
                resin,
                vat,
                vat_fault: field("vat"),
                materials: lines(part, faults, &at, ("materials", "materialId", "quantity")),
                materials_fault: field("materials"),
            }
        })
        .collect()
}

/// The print's own consumables (`materials`) of a draft document as form controls.
fn consumables(tree: &Value, faults: &Faults) -> Vec<ConsumableRow> {
    let top = |path: &str| path.to_string();
    let lines = lines(tree, faults, &top, ("materials", "materialId", "amount"));
    (rows(tree, "materials").into_iter().zip(lines).enumerate())
        .map(|(i, (node, line))| ConsumableRow {
            line,
            per: slot(faults, format!("materials[{i}].per"), leaf(node.get("per"))),
        })
        .collect()
}

/// The work lines of a draft document as form controls.
fn work(tree: &Value, faults: &Faults) -> Vec<WorkRow> {
    rows(tree, "work")
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let field =
                |name: &str| slot(faults, format!("work[{i}].{name}"), leaf(line.get(name)));
            WorkRow {
                kind: field("kind"),
                source: field("sourceId"),
                minutes: field("minutes"),
                count: field("count"),
                per: field("per"),
            }
        })
        .collect()
}

/// The draft document of a stored print (the API's input shape, part ids kept): a part's
/// leading filament usages as filament lines, the rest as material lines (so the usages keep
/// their order), a resin part's vat in its place of the hotends.
fn document_of(print: &PrintDto) -> Value {
    let parts: Vec<Value> = print
        .parts
        .iter()
        .map(|p| {
            let leading = p
                .usages
                .iter()
                .take_while(|u| u.material_kind == MaterialKindDto::Filament)
                .count();
            let (filaments, materials) = p.usages.split_at(leading);
            json!({
                "id": p.id,
                "printerId": p.printer_id,
                "buildPlateId": p.build_plate_id,
                "otherComponentIds": p.other_component_ids,
                "hotends": p.hotends.iter().map(|h| json!({
                    "componentId": h.component_id,
                    "durationSeconds": h.duration_seconds,
                })).collect::<Vec<_>>(),
                "vat": p.vat.as_ref().map(|v| json!({
                    "componentId": v.component_id,
                    "durationSeconds": v.duration_seconds,
                })),
                "filaments": filaments.iter().map(|u| json!({
                    "filamentId": u.material_id,
                    "usedGrams": u.quantity,
                    "spoolId": u.spool_id,
                })).collect::<Vec<_>>(),
                "materials": materials.iter().map(|u| json!({
                    "materialId": u.material_id,
                    "quantity": u.quantity,
                    "spoolId": u.spool_id,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let work: Vec<Value> = print
        .work
        .iter()
        .map(|w| {
            let amount = match w.kind {
                WorkKind::Charge => "count",
                WorkKind::Labour | WorkKind::Step => "minutes",
            };
            json!({
                "kind": w.kind,
                "sourceId": w.source_id,
                amount: w.amount,
                "per": w.per,
            })
        })
        .collect();
    // A sales value the price rule suggested is left out, so that the next save prices anew.
    let suggested = print.price.as_ref().is_some_and(|p| !p.overridden);
    json!({
        "name": print.name,
        "customerId": print.customer_id,
        "seriesId": print.series_id,
        "quantity": print.quantity,
        "salesValue": if suggested { None } else { print.sales_value.clone() },
        "notes": print.notes,
        "parts": parts,
        "work": work,
        "materials": print.materials.iter().map(|m| json!({
            "materialId": m.material_id,
            "amount": m.amount,
            "per": m.per,
            "spoolId": m.spool_id,
        })).collect::<Vec<_>>(),
    })
}

/// A new draft's first part in a shop with one printer: on that printer, with the build plate,
/// hotend (or vat) and other components it preselects ([`Choices::preselected_of`]). With more printers
/// the editor fills them in when a printer is chosen.
fn first_part(choices: &Choices) -> Option<Value> {
    let [printer] = choices.printers.as_slice() else {
        return None;
    };
    let chosen = choices.preselected_of(&printer.id);
    let others: Vec<&str> = chosen.others.split_whitespace().collect();
    let mut part = json!({
        "printerId": printer.id,
        "buildPlateId": chosen.plate,
        "otherComponentIds": others,
    });
    match printer.group.as_str() {
        "MSLA" => part["vat"] = json!({"componentId": chosen.head}),
        _ => part["hotends"] = json!([{"componentId": chosen.head}]),
    }
    Some(part)
}

async fn render(
    ctx: Ctx,
    print: Option<&PrintDto>,
    tree: &Value,
    faults: Faults,
    status: StatusCode,
) -> Page {
    render_with(ctx, print, tree, faults, status, None).await
}

async fn render_with(
    ctx: Ctx,
    print: Option<&PrintDto>,
    tree: &Value,
    faults: Faults,
    status: StatusCode,
    sliced: Option<SlicedView>,
) -> Page {
    let choices = ctx.query(LoadChoices(ctx.chrome.t.clone())).await?;
    let tree = &match (print, tree.get("parts"), first_part(&choices)) {
        (None, None, Some(part)) => {
            let mut new = tree.clone();
            new["parts"] = json!([part]);
            new
        }
        _ => tree.clone(),
    };
    let top = |name: &str| slot(&faults, name.to_string(), leaf(tree.get(name)));
    let mut quantity = top("quantity");
    if quantity.value.is_empty() {
        quantity.value = "1".into();
    }
    let of = |kind: &str| choices.components_of(kind).into_iter().cloned().collect();
    let page = EditorPage {
        print_id: print.map(|p| p.id.clone()),
        name: top("name"),
        customer: top("customerId"),
        series: top("seriesId"),
        quantity,
        sales_value: top("salesValue"),
        notes: top("notes"),
        parts: parts(tree, &faults, &choices.printers),
        work: work(tree, &faults),
        consumables: consumables(tree, &faults),
        materials_fault: top("materials"),
        hotends: of("HOTEND"),
        plates: of("BUILD_PLATE"),
        vats: of("VAT"),
        others: of("OTHER"),
        filament_line: FILAMENT_LINE,
        material_line: MATERIAL_LINE,
        costs: print.map(|p| print_detail::Costs::of(&ctx.chrome.t, p)),
        price: print.and_then(|p| {
            let price = p.price.as_ref()?;
            let t = &ctx.chrome.t;
            let money =
                |v: &Option<String>| v.as_deref().map(|v| t.money_str(v)).unwrap_or_default();
            Some((
                t.money_str(&price.suggested_net),
                money(&price.gross),
                money(&p.financials.planned_margin),
            ))
        }),
        categories: print_detail::CATEGORIES
            .iter()
            .map(|c| (*c, ctx.chrome.t.t(&format!("category.{c}")).to_string()))
            .collect(),
        choices,
        faults,
        sliced,
        source: tree
            .get("source")
            .and_then(Value::as_object)
            .map(|fields| {
                fields
                    .iter()
                    .filter_map(|(k, v)| Some((format!("source.{k}"), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default(),
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

/// `GET /prints/new`: an empty draft with one part, one hotend line and one filament line.
pub async fn new_form(ctx: Ctx) -> Page {
    render(ctx, None, &json!({}), Faults::default(), StatusCode::OK).await
}

/// `POST /prints/sliced`: a sliced file in the editor: the slicer's figures above, the draft
/// filled with them and the suggestions (one part per plate; printer, components, filaments,
/// spools), to confirm and create as any draft. A refused file shows its code's message.
pub async fn from_sliced(ctx: Ctx, mut form: Multipart) -> Page {
    let preview = match sliced::preview_of(&ctx.state, &mut form).await {
        Ok(preview) => preview,
        Err(e) => return Err(ctx.fail(&e)),
    };
    let tree = draft_of(&preview);
    let view = SlicedView::of(&ctx.chrome.t, &preview);
    render_with(
        ctx,
        None,
        &tree,
        Faults::default(),
        StatusCode::OK,
        Some(view),
    )
    .await
}

/// The draft document of a sliced file's preview: named after the file, one part per plate
/// with the suggested printer and components, the plate's time on its hotend, and a filament
/// line per slot (suggested filament and spool, the slot's grams); an SLA job's plate has its
/// time on the vat and a resin line (suggested resin and bottle, the job's millilitres).
fn draft_of(preview: &SlicedPreviewDto) -> Value {
    let name = preview.file.name.split('.').next().unwrap_or_default();
    let parts: Vec<Value> = preview
        .parts
        .iter()
        .map(|p| match &p.resin {
            Some(resin) => json!({
                "printerId": p.printer_id,
                "buildPlateId": p.build_plate_id,
                "otherComponentIds": p.other_component_ids,
                "vat": {"componentId": p.vat_id, "durationSeconds": p.duration_seconds},
                "materials": [{
                    "materialId": resin.material_id,
                    "quantity": resin.millilitres,
                    "spoolId": resin.spool_id,
                }],
            }),
            None => json!({
                "printerId": p.printer_id,
                "buildPlateId": p.build_plate_id,
                "otherComponentIds": p.other_component_ids,
                "hotends": [{"componentId": p.hotend_id, "durationSeconds": p.duration_seconds}],
                "filaments": p.filaments.iter().map(|f| json!({
                    "filamentId": f.filament_id,
                    "usedGrams": f.grams,
                    "spoolId": f.spool_id,
                })).collect::<Vec<_>>(),
            }),
        })
        .collect();
    let source = json!({
        "fileName": preview.file.name,
        "sha256": preview.file.sha256,
        "slicer": preview.slicer,
        "slicerVersion": preview.slicer_version,
    });
    let name = if name.is_empty() {
        &preview.file.name
    } else {
        name
    };
    json!({"name": name, "parts": parts, "source": source})
}

/// `POST /prints`: creates the draft and shows it, or shows the form again with its faults.
pub async fn create(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let result = match ctx.typed(|| form.document::<PrintInputDto>(&NUMBERS)) {
        Ok(draft) => match draft.create() {
            Ok(command) => ctx.state.send(command).await,
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    match result {
        Ok(print) => Ok(see_other(&format!(
            "{}?did=drafted",
            paths::print(print.id)
        ))),
        Err(e) => refuse(ctx, None, &form, &e).await,
    }
}

async fn refuse(ctx: Ctx, print: Option<&PrintDto>, form: &Submitted, e: &ApiError) -> Page {
    let status = e.code.status();
    render(ctx, print, &form.tree(&NUMBERS), Faults::of(e), status).await
}

async fn stored(ctx: &Ctx) -> Result<PrintDto, Rendered> {
    Ok(PrintDto::from(&ctx.query(GetPrint(ctx.id()?)).await?))
}

/// `GET /prints/{id}/edit`: the draft's data in the editor, with what saving it would refuse
/// beside its field (a copy's line whose filament has no active spool left, a record archived
/// since): the draft is priced as a save would, nothing is stored.
///
/// A print that has left DRAFT has no editor (its data is frozen): the page answers 303 to the
/// print, which says so.
pub async fn edit_form(ctx: Ctx) -> Page {
    let print = stored(&ctx).await?;
    if !matches!(print.status, Status::Draft) {
        return Ok(see_other(&format!(
            "{}?did=frozen",
            paths::print(ctx.id()?)
        )));
    }
    let tree = document_of(&print);
    let priced = match ctx.typed(|| input::parse::<PrintInputDto>(tree.clone())) {
        Ok(draft) => match draft.into_input() {
            Ok(mut input) => {
                // Priced as a new draft would be: its parts' ids name nothing outside it.
                input.parts.iter_mut().for_each(|part| part.id = None);
                ctx.state.query(Calculate(input)).await.map(drop)
            }
            Err(e) => Err(e),
        },
        Err(_) => Ok(()),
    };
    let faults = priced
        .err()
        .map_or_else(Faults::default, |e| Faults::of(&e));
    render(ctx, Some(&print), &tree, faults, StatusCode::OK).await
}

/// `POST /prints/{id}/edit`: replaces the draft data (409 `IMMUTABLE` once finalized).
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let result = match ctx.typed(|| form.document::<PrintInputDto>(&NUMBERS)) {
        Ok(draft) => match draft.command(id) {
            Ok(command) => ctx.state.send(command).await,
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(see_other(&format!("{}?did=draftSaved", paths::print(id)))),
        Err(e) => {
            let print = stored(&ctx).await?;
            refuse(ctx, Some(&print), &form, &e).await
        }
    }
}
