//! Print input and its resolution against the inventory: every referenced record is looked up in
//! the caller's transaction, every fault is reported with its JSON path, and the rates of the
//! cost engine are taken from the records found.

use super::success;
use crate::costing::{
    self, MachinePlan, MaterialUse, Overflow, PartPlan, Rate, Wear, WorkKind, WorkPlan,
};
use crate::inventory::filaments;
use crate::ledger;
use crate::ledger::remote as links;
use crate::money;
use crate::pricing;
use crate::values::{Amount, Grams, Name, Note, Seconds};
use crate::{Error, FieldError, Result};
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use storage::Id;
use storage::records::{
    Charge, Component, ComponentType, CostCategory, Costing, Customer, Filament, HotendUse,
    LabourRate, Lifetime, MaterialKind, Part, Per, PostProcessingStep, PriceSnapshot, Print,
    PrintMaterial, Printer, PrinterTechnology, Series, Spool, StockUnit, Usage, WorkLine,
    WorkSource,
};
use storage::repo::{self, Record, Tx};

/// Most parts a print may have.
pub const MAX_PARTS: usize = 100;
/// Largest quantity of a run.
pub const MAX_QUANTITY: u32 = 1_000_000;
/// Most work lines a print may have.
pub const MAX_WORK_LINES: usize = 100;

/// One work line of a print input: what it prices, and how much of it, per piece or per job.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkInput {
    /// A labour rate, a fixed charge or a post-processing step.
    pub source: WorkSource,
    /// Labour minutes: required for a labour rate; a step's own minutes when left out; refused
    /// for a charge.
    pub minutes: Option<Amount>,
    /// How many of a charge (1 when left out); refused for labour and steps.
    pub count: Option<Amount>,
    /// Per piece or per job; left out: the charge's or the step's own, per job for labour.
    pub per: Option<Per>,
}

/// One hotend of a part input.
#[derive(Debug, Clone, PartialEq)]
pub struct HotendInput {
    /// A component of type HOTEND.
    pub component_id: Id,
    /// Its printing time.
    pub duration_seconds: Seconds,
}

/// One filament line of a part input.
#[derive(Debug, Clone, PartialEq)]
pub struct FilamentInput {
    /// The filament.
    pub filament_id: Id,
    /// Grams for the whole run.
    pub used_grams: Grams,
    /// The spool, when spool management is on.
    pub spool_id: Option<Id>,
}

/// One material line of a part input (schema 16): a filament, a resin or a consumable, in the
/// material's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialLine {
    /// The material.
    pub material_id: Id,
    /// Quantity for the whole run: grams, millilitres or (whole) pieces.
    pub quantity: Grams,
    /// The spool, bottle or pack, when spool management is on.
    pub spool_id: Option<Id>,
}

/// One consumable of the whole print (schema 18): so much per piece or per job.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintMaterialInput {
    /// A consumable (a material of kind CONSUMABLE).
    pub material_id: Id,
    /// The quantity per piece or per job, in the material's unit.
    pub amount: Grams,
    /// Per piece or per job.
    pub per: Per,
    /// The pack (bottle), when spool management is on.
    pub spool_id: Option<Id>,
}

/// Most consumables a print may have of its own.
pub const MAX_PRINT_MATERIALS: usize = 100;

/// One part of a print input.
#[derive(Debug, Clone, PartialEq)]
pub struct PartInput {
    /// An existing part's id when editing; `None` for a new part.
    pub id: Option<Id>,
    /// The printer.
    pub printer_id: Id,
    /// A component of type BUILD_PLATE.
    pub build_plate_id: Id,
    /// One or more hotends (an FDM printer's parts only).
    pub hotends: Vec<HotendInput>,
    /// The vat, a component of type VAT, and the part's printing time (an MSLA printer's parts
    /// only, and required there).
    pub vat: Option<HotendInput>,
    /// Components of type OTHER.
    pub other_component_ids: Vec<Id>,
    /// Filament lines (an FDM printer's parts only).
    pub filaments: Vec<FilamentInput>,
    /// Material lines: the printer's printing material (filament on FDM, resin on MSLA) and
    /// consumables. A part has at least one line of its printing material, here or in
    /// `filaments`.
    pub materials: Vec<MaterialLine>,
}

/// The draft data of a print.
#[derive(Debug, Clone)]
pub struct PrintInput {
    /// Name.
    pub name: Name,
    /// Customer (a series' customer is inherited).
    pub customer_id: Option<Id>,
    /// Series.
    pub series_id: Option<Id>,
    /// Units, 1 to 1,000,000.
    pub quantity: u32,
    /// Sales value for the whole run.
    pub sales_value: Option<Amount>,
    /// Free text.
    pub notes: Option<Note>,
    /// 1 to 100 parts.
    pub parts: Vec<PartInput>,
    /// Up to [`MAX_WORK_LINES`] work lines.
    pub work: Vec<WorkInput>,
    /// Up to [`MAX_PRINT_MATERIALS`] consumables of the whole print.
    pub materials: Vec<PrintMaterialInput>,
    /// True when the parts came in the legacy flat one-part form, which a multipart print
    /// refuses on edit (it needs an explicit `parts` array).
    pub flat: bool,
}

impl PrintInput {
    /// The draft data of an existing print: with its part ids (`keep_ids`, to reprice it in
    /// place) or without (a copy). A part's usages become filament lines while they are
    /// filament, the rest material lines; a part on a resin printer gives its vat.
    pub fn from_print(
        tx: &impl Tx,
        print: &Print,
        series_id: Option<Id>,
        keep_ids: bool,
    ) -> Result<PrintInput> {
        let mut resin = HashSet::new();
        let mut filaments = HashSet::new();
        for part in &print.parts {
            if repo::get::<Printer>(tx, part.printer_id)?
                .is_some_and(|p| p.technology == PrinterTechnology::Msla)
            {
                resin.insert(part.id);
            }
            for usage in &part.usages {
                if repo::get::<Filament>(tx, usage.filament_id)?
                    .is_some_and(|m| m.kind == MaterialKind::Filament)
                {
                    filaments.insert(usage.filament_id);
                }
            }
        }
        let heads = |p: &Part| -> Vec<HotendInput> {
            p.hotends
                .iter()
                .map(|h| HotendInput {
                    component_id: h.component_id,
                    duration_seconds: Seconds::trusted(h.duration_seconds),
                })
                .collect()
        };
        Ok(PrintInput {
            name: Name::trusted(print.name.clone()),
            customer_id: print.customer_id,
            series_id,
            quantity: print.quantity,
            sales_value: print.sales_value.map(Amount::trusted),
            notes: print.notes.clone().map(Note::trusted),
            parts: print
                .parts
                .iter()
                .map(|p| {
                    let (hotends, vat) = match resin.contains(&p.id) {
                        true => (Vec::new(), heads(p).into_iter().next()),
                        false => (heads(p), None),
                    };
                    // Filament lines as long as the usages are filament: the copy's faults
                    // name the lines a client sent, and its usages keep their order.
                    let leading = p
                        .usages
                        .iter()
                        .take_while(|u| filaments.contains(&u.filament_id))
                        .count();
                    let (first, rest) = p.usages.split_at(leading);
                    PartInput {
                        id: keep_ids.then_some(p.id),
                        printer_id: p.printer_id,
                        build_plate_id: p.build_plate_id,
                        hotends,
                        vat,
                        other_component_ids: p.other_component_ids.clone(),
                        filaments: first
                            .iter()
                            .map(|u| FilamentInput {
                                filament_id: u.filament_id,
                                used_grams: Grams::trusted(u.used_grams),
                                spool_id: u.spool_id,
                            })
                            .collect(),
                        materials: rest
                            .iter()
                            .map(|u| MaterialLine {
                                material_id: u.filament_id,
                                quantity: Grams::trusted(u.used_grams),
                                spool_id: u.spool_id,
                            })
                            .collect(),
                    }
                })
                .collect(),
            work: print
                .work
                .iter()
                .map(|w| {
                    let amount = Some(Amount::trusted(w.amount));
                    let charge = matches!(w.source, WorkSource::Charge(_));
                    WorkInput {
                        source: w.source,
                        minutes: amount.clone().filter(|_| !charge),
                        count: amount.filter(|_| charge),
                        per: Some(w.per),
                    }
                })
                .collect(),
            materials: print
                .materials
                .iter()
                .map(|m| PrintMaterialInput {
                    material_id: m.usage.filament_id,
                    amount: Grams::trusted(m.amount),
                    per: m.per,
                    spool_id: m.usage.spool_id,
                })
                .collect(),
            flat: false,
        })
    }
}

/// A resolved draft: stored parts and work lines, their pricing plans, the effective customer.
pub(super) struct Planned {
    pub parts: Vec<Part>,
    pub plans: Vec<PartPlan>,
    /// Each part's material uses' input fields (`filaments[j].usedGrams`,
    /// `materials[k].quantity`), in the order of the plan's uses.
    pub material_fields: Vec<Vec<String>>,
    pub work: Vec<WorkLine>,
    pub work_plans: Vec<WorkPlan>,
    /// The print's own consumables and their pricing plans.
    pub materials: Vec<PrintMaterial>,
    pub material_plans: Vec<MaterialUse>,
    pub customer_id: Option<Id>,
}

/// Collects field errors while resolving.
struct Faults(Vec<FieldError>);

impl Faults {
    fn add(&mut self, path: String, key: &'static str) {
        self.0.push(FieldError::new(path, key));
    }

    /// The record `id` of type `R`, or a fault at `path`.
    fn find<R: Record>(&mut self, tx: &impl Tx, id: Id, path: String) -> Result<Option<R>> {
        let found = repo::get::<R>(tx, id)?;
        if found.is_none() {
            self.add(path, "errors.notFound");
        }
        Ok(found)
    }

    /// A component of `kind`, or a fault at `path`.
    fn component(
        &mut self,
        tx: &impl Tx,
        id: Id,
        kind: ComponentType,
        path: String,
    ) -> Result<Option<Component>> {
        match self.find::<Component>(tx, id, path.clone())? {
            Some(c) if c.kind == kind => Ok(Some(c)),
            Some(_) => {
                self.add(path, "errors.wrongComponentType");
                Ok(None)
            }
            None => Ok(None),
        }
    }
}

/// How a filament line's spool is chosen while spool management is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SpoolRule {
    /// As given (an active spool of the filament), else the filament's only active spool;
    /// anything else is a fault on the line.
    Required,
    /// For a copy (duplicate, repeat, retry, next run), which never fails for its source's
    /// spool: the given spool while it is active, else what an omitted `spoolId` resolves to,
    /// else the filament's active spool with the most grams left; with no active spool the line
    /// keeps none and is priced from the filament's catalog, and saving or starting the draft
    /// asks for a spool (`errors.noActiveSpool`).
    Copy,
}

impl Faults {
    /// The spool a filament line draws from under `rule`. Faults at `path` ([`SpoolRule::Required`]):
    /// `errors.notFound`, `errors.wrongFilament`, `errors.archived`, `errors.noActiveSpool`, or
    /// `errors.spoolRequired` when several spools could be meant.
    fn spool(
        &mut self,
        tx: &impl Tx,
        filament: &Filament,
        given: Option<Id>,
        rule: SpoolRule,
        path: String,
    ) -> Result<Option<Spool>> {
        let fault = |faults: &mut Faults, key| {
            faults.add(path.clone(), key);
            Ok(None)
        };
        let found = given.map(|id| repo::get::<Spool>(tx, id)).transpose()?;
        match (rule, given, found.flatten()) {
            (SpoolRule::Required, Some(_), None) => fault(self, "errors.notFound"),
            (SpoolRule::Required, Some(_), Some(s)) if s.filament_id != filament.id => {
                fault(self, "errors.wrongFilament")
            }
            (SpoolRule::Required, Some(_), Some(s)) if s.archived => fault(self, "errors.archived"),
            (_, Some(_), Some(s)) if s.filament_id == filament.id && !s.archived => Ok(Some(s)),
            (SpoolRule::Required, _, _) => {
                let mut active = ledger::active_spools(tx, filament.id)?;
                match active.len() {
                    1 => Ok(active.pop()),
                    0 => fault(self, "errors.noActiveSpool"),
                    _ => fault(self, "errors.spoolRequired"),
                }
            }
            (SpoolRule::Copy, _, _) => {
                let links = links::all(tx)?;
                let left = |s: &Spool| links::remaining(s, links.get(&s.id));
                let active = ledger::active_spools(tx, filament.id)?;
                Ok(active
                    .into_iter()
                    .max_by(|a, b| left(a).cmp(&left(b)).then_with(|| b.id.cmp(&a.id))))
            }
        }
    }
}

fn rate_of(id: Id, label: &str, price: Decimal, per: Decimal) -> Rate {
    Rate {
        source_id: id,
        label: label.to_string(),
        price,
        per,
    }
}

/// A component's wear rate: its price over its lifetime, in hours or in prints.
fn wear_of(c: &Component) -> Wear {
    let (per, per_print) = match c.lifetime {
        Lifetime::Hours(hours) => (hours, false),
        Lifetime::Prints(prints) => (Decimal::from(prints), true),
    };
    Wear {
        rate: rate_of(c.id, &c.name, c.purchase_price, per),
        per_print,
    }
}

/// Checks counts and ranges, looks every record up, and builds parts and pricing plans.
/// With spool management on, each filament line draws from a spool (its rate is the spool's
/// `purchasePrice / initialNetWeightGrams`); when it is off, `spoolId` values are ignored, usages
/// store none, and the filament's catalog price and net weight are used.
pub(super) fn resolve(
    tx: &impl Tx,
    input: &PrintInput,
    existing: Option<&Print>,
    spools: Option<SpoolRule>,
) -> Result<Planned> {
    let mut faults = Faults(Vec::new());
    if input.parts.is_empty() {
        faults.add("parts".into(), "errors.tooFew");
    } else if input.parts.len() > MAX_PARTS {
        faults.add("parts".into(), "errors.tooMany");
    }
    if !(1..=MAX_QUANTITY).contains(&input.quantity) {
        faults.add("quantity".into(), "errors.outOfRange");
    }
    let customer_id = customer(tx, input, &mut faults)?;

    let known: HashMap<Id, &Part> = existing
        .map(|p| p.parts.iter().map(|p| (p.id, p)).collect())
        .unwrap_or_default();
    let mut seen = HashSet::new();
    let mut parts = Vec::with_capacity(input.parts.len());
    let mut plans = Vec::with_capacity(input.parts.len());
    let mut material_fields = Vec::with_capacity(input.parts.len());
    for (i, part) in input.parts.iter().enumerate().take(MAX_PARTS) {
        let at = |field: &str| format!("parts[{i}].{field}");
        let id = match part.id {
            Some(id) if !known.contains_key(&id) => {
                faults.add(at("id"), "errors.notFound");
                id
            }
            Some(id) if !seen.insert(id) => {
                faults.add(at("id"), "errors.duplicate");
                id
            }
            Some(id) => id,
            None => Id::new(),
        };
        let printer = faults.find::<Printer>(tx, part.printer_id, at("printerId"))?;
        let plate = faults.component(
            tx,
            part.build_plate_id,
            ComponentType::BuildPlate,
            at("buildPlateId"),
        )?;
        let technology = printer.as_ref().map(|p| p.technology);
        let heads = heads(tx, part, technology, &mut faults, &at)?;
        let mut others = Vec::new();
        let mut listed = HashSet::new();
        for (j, other) in part.other_component_ids.iter().enumerate() {
            if !listed.insert(*other) {
                faults.add(at(&format!("otherComponentIds[{j}]")), "errors.duplicate");
            } else if let Some(c) = faults.component(
                tx,
                *other,
                ComponentType::Other,
                at(&format!("otherComponentIds[{j}]")),
            )? {
                others.push(wear_of(&c));
            }
        }
        let kept = part.id.and_then(|p| known.get(&p).copied());
        let uses = materials(tx, part, (technology, kept, spools), &mut faults, &at)?;
        if let (Some(printer), Some(plate)) = (printer, plate) {
            plans.push(PartPlan {
                part_id: id,
                printer: rate_of(
                    printer.id,
                    &printer.name,
                    printer.purchase_price,
                    printer.expected_lifetime_hours,
                ),
                watts: printer.average_power_watts,
                build_plate: wear_of(&plate),
                hotends: heads.rates,
                head: heads.head,
                others,
                materials: uses.plans,
            });
            material_fields.push(uses.fields);
        }
        parts.push(Part {
            id,
            printer_id: part.printer_id,
            build_plate_id: part.build_plate_id,
            hotends: heads.uses,
            other_component_ids: part.other_component_ids.clone(),
            usages: uses.usages,
        });
    }
    let (work, work_plans) = work(tx, input, existing, &mut faults)?;
    let (materials, material_plans) = print_materials(tx, input, existing, spools, &mut faults)?;
    if !faults.0.is_empty() {
        return Err(Error::Validation(faults.0));
    }
    Ok(Planned {
        parts,
        plans,
        material_fields,
        work,
        work_plans,
        materials,
        material_plans,
        customer_id,
    })
}

/// A part's heads as [`heads`] resolved them.
struct Heads {
    /// [`CostCategory::Hotend`] or [`CostCategory::Vat`].
    head: CostCategory,
    /// As stored, every one given.
    uses: Vec<HotendUse>,
    /// Those found, with their wear and printing times.
    rates: Vec<(Wear, u32)>,
}

/// A part's heads: an FDM part's hotends (one or more, at `hotends`), a resin part's vat (at
/// `vat`), with what they are, as stored and, for those found, their rates and printing times.
/// Faults: `errors.required` for none; `errors.notForPrinter` at the other technology's field;
/// a component not found or of another type at its `componentId`. Without a known printer,
/// whatever was sent is looked up.
fn heads(
    tx: &impl Tx,
    part: &PartInput,
    technology: Option<PrinterTechnology>,
    faults: &mut Faults,
    at: &dyn Fn(&str) -> String,
) -> Result<Heads> {
    let resin = technology == Some(PrinterTechnology::Msla);
    match technology {
        Some(PrinterTechnology::Fdm) if part.vat.is_some() => {
            faults.add(at("vat"), "errors.notForPrinter");
        }
        Some(PrinterTechnology::Fdm) if part.hotends.is_empty() => {
            faults.add(at("hotends"), "errors.required");
        }
        Some(PrinterTechnology::Msla) if !part.hotends.is_empty() => {
            faults.add(at("hotends"), "errors.notForPrinter");
        }
        Some(PrinterTechnology::Msla) if part.vat.is_none() => {
            faults.add(at("vat"), "errors.required");
        }
        _ => {}
    }
    let given: Vec<(String, ComponentType, &HotendInput)> = match (resin, &part.vat) {
        (true, Some(vat)) => vec![(at("vat.componentId"), ComponentType::Vat, vat)],
        (true, None) => Vec::new(),
        (false, _) => part
            .hotends
            .iter()
            .enumerate()
            .map(|(j, h)| {
                (
                    at(&format!("hotends[{j}].componentId")),
                    ComponentType::Hotend,
                    h,
                )
            })
            .collect(),
    };
    let mut rates = Vec::with_capacity(given.len());
    let mut uses = Vec::with_capacity(given.len());
    for (path, kind, h) in given {
        if let Some(c) = faults.component(tx, h.component_id, kind, path)? {
            rates.push((wear_of(&c), h.duration_seconds.get()));
        }
        uses.push(HotendUse {
            component_id: h.component_id,
            duration_seconds: h.duration_seconds.get(),
        });
    }
    let head = match resin {
        true => CostCategory::Vat,
        false => CostCategory::Hotend,
    };
    Ok(Heads { head, uses, rates })
}

/// One line of a part's materials, from either of its lists.
struct Line<'a> {
    /// The line's path without its field (`filaments[0]`, `materials[2]`).
    path: String,
    /// The quantity's field: `usedGrams` or `quantity`.
    quantity_field: &'static str,
    /// The material's field: `filamentId` or `materialId`.
    material_field: &'static str,
    material_id: Id,
    quantity: &'a Grams,
    spool_id: Option<Id>,
}

/// A part's material uses as [`materials`] resolved them.
struct Uses {
    /// As stored.
    usages: Vec<Usage>,
    /// Their pricing plans.
    plans: Vec<MaterialUse>,
    /// Their quantities' input fields, in the same order.
    fields: Vec<String>,
}

/// The cost category of a material's lines.
fn category_of(kind: MaterialKind) -> CostCategory {
    match kind {
        MaterialKind::Filament => CostCategory::Filament,
        MaterialKind::Resin => CostCategory::Resin,
        MaterialKind::Consumable => CostCategory::Consumable,
    }
}

/// The kind of material a printer prints with.
fn printing_material(technology: PrinterTechnology) -> MaterialKind {
    match technology {
        PrinterTechnology::Fdm => MaterialKind::Filament,
        PrinterTechnology::Msla => MaterialKind::Resin,
    }
}

/// A part's material uses: its `filaments` lines, then its `materials` lines (a kept part
/// keeps its usage ids by that position: outcomes refer to them), their pricing plans and
/// their quantities' fields. Faults at the line: the material not found; `errors.notFilament`
/// for a resin or consumable among `filaments`; `errors.notForPrinter` for another
/// technology's printing material; `errors.wholeNumber` for a part of a piece; the spool's
/// ([`Faults::spool`]). A part with no line of its printer's printing material:
/// `errors.required` at `filaments` (FDM) or `materials` (MSLA).
fn materials(
    tx: &impl Tx,
    part: &PartInput,
    (technology, kept, spools): (Option<PrinterTechnology>, Option<&Part>, Option<SpoolRule>),
    faults: &mut Faults,
    at: &dyn Fn(&str) -> String,
) -> Result<Uses> {
    let filaments = part.filaments.iter().enumerate().map(|(j, f)| Line {
        path: at(&format!("filaments[{j}]")),
        quantity_field: "usedGrams",
        material_field: "filamentId",
        material_id: f.filament_id,
        quantity: &f.used_grams,
        spool_id: f.spool_id,
    });
    let others = part.materials.iter().enumerate().map(|(k, m)| Line {
        path: at(&format!("materials[{k}]")),
        quantity_field: "quantity",
        material_field: "materialId",
        material_id: m.material_id,
        quantity: &m.quantity,
        spool_id: m.spool_id,
    });
    let mut printing = false;
    let (mut usages, mut uses, mut fields) = (Vec::new(), Vec::new(), Vec::new());
    for (n, line) in filaments.chain(others).enumerate() {
        let path = |field: &str| format!("{}.{field}", line.path);
        let Some(material) =
            faults.find::<Filament>(tx, line.material_id, path(line.material_field))?
        else {
            continue;
        };
        let printed_with = technology.map(printing_material);
        printing |= printed_with == Some(material.kind);
        if line.material_field == "filamentId" && material.kind != MaterialKind::Filament {
            // A part's filaments are filament: resins and consumables have their own lines.
            faults.add(path(line.material_field), "errors.notFilament");
            continue;
        }
        if material.kind != MaterialKind::Consumable
            && printed_with.is_some_and(|k| k != material.kind)
        {
            faults.add(path(line.material_field), "errors.notForPrinter");
            continue;
        }
        if material.unit == StockUnit::Piece && !line.quantity.get().fract().is_zero() {
            faults.add(path(line.quantity_field), "errors.wholeNumber");
            continue;
        }
        let kept = kept.and_then(|p| p.usages.get(n)).map(|u| u.id);
        let quantity = *line.quantity.get();
        let given = (line.spool_id, path("spoolId"));
        let Some((usage, planned)) =
            priced_use(tx, material, (kept, quantity), given, spools, faults)?
        else {
            continue;
        };
        uses.push(planned);
        fields.push(path(line.quantity_field));
        usages.push(usage);
    }
    match technology {
        Some(PrinterTechnology::Fdm) if !printing => faults.add(at("filaments"), "errors.required"),
        Some(PrinterTechnology::Msla) if !printing => {
            faults.add(at("materials"), "errors.required")
        }
        _ => {}
    }
    Ok(Uses {
        usages,
        plans: uses,
        fields,
    })
}

/// A material line's usage and pricing plan: `quantity` of `material` (the usage id `kept`, or a
/// new one) from the spool `given` as `spools` chooses it (the spool's faults at its path:
/// [`Faults::spool`]; `None` then), priced from that spool, else from the catalog.
fn priced_use(
    tx: &impl Tx,
    material: Filament,
    (kept, quantity): (Option<Id>, Decimal),
    (spool_id, spool_path): (Option<Id>, String),
    spools: Option<SpoolRule>,
    faults: &mut Faults,
) -> Result<Option<(Usage, MaterialUse)>> {
    let spool = match spools {
        Some(rule) => match faults.spool(tx, &material, spool_id, rule, spool_path)? {
            Some(spool) => Some(spool),
            None if rule == SpoolRule::Copy => None,
            None => return Ok(None),
        },
        None => None,
    };
    let name = filaments::display_name(tx, &material)?;
    let rate = match &spool {
        Some(s) => rate_of(
            material.id,
            &format!("{name} ({})", s.code),
            s.purchase_price,
            s.initial_net_weight_grams,
        ),
        None => rate_of(
            material.id,
            &name,
            material.purchase_price,
            material.net_weight_grams,
        ),
    };
    let usage = Usage {
        id: kept.unwrap_or_else(Id::new),
        filament_id: material.id,
        spool_id: spool.as_ref().map(|s| s.id),
        spool_code: spool.map(|s| s.code),
        used_grams: quantity,
    };
    let planned = MaterialUse {
        usage_id: usage.id,
        category: category_of(material.kind),
        rate,
        quantity,
    };
    Ok(Some((usage, planned)))
}

/// The print's own consumables (`materials[i]`) and their pricing plans: `amount` per piece or
/// per job, planned as `amount × units` (a line keeps the usage id of `existing`'s line at its
/// position: outcomes refer to it). Faults at `materials[i].…`: `materialId` not found or not
/// a consumable (`errors.notConsumable`), `amount` not whole for pieces (`errors.wholeNumber`)
/// or beyond the quantities a usage may hold (`errors.outOfRange`), the spool's; `materials`
/// beyond [`MAX_PRINT_MATERIALS`] (`errors.tooMany`).
fn print_materials(
    tx: &impl Tx,
    input: &PrintInput,
    existing: Option<&Print>,
    spools: Option<SpoolRule>,
    faults: &mut Faults,
) -> Result<(Vec<PrintMaterial>, Vec<MaterialUse>)> {
    if input.materials.len() > MAX_PRINT_MATERIALS {
        faults.add("materials".into(), "errors.tooMany");
    }
    let (mut materials, mut plans) = (Vec::new(), Vec::new());
    for (i, line) in input.materials.iter().enumerate().take(MAX_PRINT_MATERIALS) {
        let at = |field: &str| format!("materials[{i}].{field}");
        let Some(material) = faults.find::<Filament>(tx, line.material_id, at("materialId"))?
        else {
            continue;
        };
        if material.kind != MaterialKind::Consumable {
            faults.add(at("materialId"), "errors.notConsumable");
            continue;
        }
        let amount = *line.amount.get();
        if material.unit == StockUnit::Piece && !amount.fract().is_zero() {
            faults.add(at("amount"), "errors.wholeNumber");
            continue;
        }
        // The whole print's quantity within what a usage (and an outcome's quantity) holds.
        let quantity = amount
            .checked_mul(costing::work::units(line.per, input.quantity))
            .and_then(|q| q.normalize().to_string().parse::<Grams>().ok());
        let Some(quantity) = quantity.map(|q| *q.get()) else {
            faults.add(at("amount"), "errors.outOfRange");
            continue;
        };
        let kept = existing
            .and_then(|p| p.materials.get(i))
            .map(|m| m.usage.id);
        let given = (line.spool_id, at("spoolId"));
        let Some((usage, planned)) =
            priced_use(tx, material, (kept, quantity), given, spools, faults)?
        else {
            continue;
        };
        materials.push(PrintMaterial {
            usage,
            amount,
            per: line.per,
        });
        plans.push(planned);
    }
    Ok((materials, plans))
}

/// The work lines of `input` and their pricing plans. A line keeps the id of `existing`'s line
/// at its position (outcomes record actual minutes against it). Faults at `work[i].…`:
/// `sourceId` not found, `minutes` required (labour) or refused (a charge), `count` refused
/// (labour, a step), and `work` beyond [`MAX_WORK_LINES`].
fn work(
    tx: &impl Tx,
    input: &PrintInput,
    existing: Option<&Print>,
    faults: &mut Faults,
) -> Result<(Vec<WorkLine>, Vec<WorkPlan>)> {
    if input.work.len() > MAX_WORK_LINES {
        faults.add("work".into(), "errors.tooMany");
    }
    let mut lines = Vec::with_capacity(input.work.len());
    let mut plans = Vec::with_capacity(input.work.len());
    for (i, line) in input.work.iter().enumerate().take(MAX_WORK_LINES) {
        let at = |field: &str| format!("work[{i}].{field}");
        let minutes = line.minutes.as_ref().map(|m| *m.get());
        let count = line.count.as_ref().map(|c| *c.get());
        let charge = matches!(line.source, WorkSource::Charge(_));
        if charge && minutes.is_some() {
            faults.add(at("minutes"), "errors.invalidValue");
        }
        if !charge && count.is_some() {
            faults.add(at("count"), "errors.invalidValue");
        }
        let path = at("sourceId");
        let planned = match line.source {
            WorkSource::Labour(id) => {
                if minutes.is_none() {
                    faults.add(at("minutes"), "errors.required");
                }
                faults
                    .find::<LabourRate>(tx, id, path)?
                    .map(|rate| WorkPlan {
                        line_id: Id::new(),
                        kind: WorkKind::Labour {
                            rate: rate_of(rate.id, &rate.name, rate.hourly_rate, Decimal::ONE),
                            minutes: minutes.unwrap_or_default(),
                        },
                        per: line.per.unwrap_or(Per::Job),
                    })
            }
            WorkSource::Charge(id) => faults.find::<Charge>(tx, id, path)?.map(|c| WorkPlan {
                line_id: Id::new(),
                kind: WorkKind::Charge {
                    rate: rate_of(c.id, &c.name, c.amount, Decimal::ONE),
                    count: count.unwrap_or(Decimal::ONE),
                },
                per: line.per.unwrap_or(c.per),
            }),
            WorkSource::Step(id) => {
                match faults.find::<PostProcessingStep>(tx, id, path.clone())? {
                    // A step's labour rate cannot go while the step refers to it; were it gone, the
                    // line is refused rather than left out.
                    Some(step) => match step_plan(tx, &step, minutes, line.per)? {
                        Some(plan) => Some(plan),
                        None => {
                            faults.add(path, "errors.notFound");
                            None
                        }
                    },
                    None => None,
                }
            }
        };
        let Some(mut plan) = planned else {
            continue;
        };
        let kept = existing.and_then(|p| p.work.get(i)).map(|w| w.id);
        plan.line_id = kept.unwrap_or(plan.line_id);
        lines.push(WorkLine {
            id: plan.line_id,
            source: line.source,
            amount: match &plan.kind {
                WorkKind::Labour { minutes, .. } | WorkKind::Step { minutes, .. } => *minutes,
                WorkKind::Charge { count, .. } => *count,
            },
            per: plan.per,
        });
        plans.push(plan);
    }
    Ok((lines, plans))
}

/// The plan of a post-processing step's line: its labour at its rate (the step is the
/// source), `minutes` and `per` when given or else the step's own, and its machine.
fn step_plan(
    tx: &impl Tx,
    step: &PostProcessingStep,
    minutes: Option<Decimal>,
    per: Option<Per>,
) -> Result<Option<WorkPlan>> {
    let Some(rate) = repo::get::<LabourRate>(tx, step.labour_rate_id)? else {
        return Ok(None);
    };
    Ok(Some(WorkPlan {
        line_id: Id::new(),
        kind: WorkKind::Step {
            labour: rate_of(step.id, &step.name, rate.hourly_rate, Decimal::ONE),
            minutes: minutes.unwrap_or(step.minutes),
            machine: step.machine.as_ref().map(|m| MachinePlan {
                rate: rate_of(
                    step.id,
                    &m.name,
                    m.purchase_price,
                    m.expected_lifetime_hours,
                ),
                watts: m.average_power_watts,
                minutes: m.minutes,
            }),
        },
        per: per.unwrap_or(step.per),
    }))
}

/// The effective customer: the series' customer is inherited; a different one is refused.
fn customer(tx: &impl Tx, input: &PrintInput, faults: &mut Faults) -> Result<Option<Id>> {
    if let Some(id) = input.customer_id {
        faults.find::<Customer>(tx, id, "customerId".into())?;
    }
    let Some(series_id) = input.series_id else {
        return Ok(input.customer_id);
    };
    let Some(series) = faults.find::<Series>(tx, series_id, "seriesId".into())? else {
        return Ok(input.customer_id);
    };
    match (series.customer_id, input.customer_id) {
        (Some(inherited), Some(given)) if inherited != given => {
            faults.add("customerId".into(), "errors.seriesCustomerConflict");
            Ok(Some(given))
        }
        (Some(inherited), _) => Ok(Some(inherited)),
        (None, given) => Ok(given),
    }
}

/// The sales value of a draft costing `costing` and its price suggestion: with the price rule
/// off, the sales value given (no suggestion); with it on, the rule's price for the customer's
/// discount ([`pricing::suggest`]), which is the sales value unless the maker `given` another
/// (kept beside it, `overridden`). The success rate of the parts' printers and materials
/// ([`success::of`]) is kept with it; with the rule's `failure_adjusted` the price is made
/// from the expected cost per good part (`cost ÷ rate`), unless no run succeeded (rate 0: the
/// cost as it is).
///
/// Errors: `errors.outOfRange` at `parts` when the price leaves the money range.
pub(super) fn sell(
    tx: &impl Tx,
    (parts, costing): (&[Part], &Costing),
    customer_id: Option<Id>,
    given: Option<Decimal>,
) -> Result<(Option<Decimal>, Option<PriceSnapshot>)> {
    let rule = repo::pricing(tx)?;
    if !rule.enabled {
        return Ok((given, None));
    }
    let discount = match customer_id {
        Some(id) => repo::get::<Customer>(tx, id)?.and_then(|c| c.discount_percent),
        None => None,
    };
    let success = success::of(tx, parts, rule.failure_window)?;
    let adjusted = success
        .as_ref()
        .filter(|s| rule.failure_adjusted && !s.rate.is_zero());
    let out_of_range = |_| Error::field("parts", "errors.outOfRange");
    let basis = match adjusted {
        Some(s) => money::divide(costing.total, s.rate).map_err(out_of_range)?,
        None => costing.total,
    };
    let suggested = pricing::suggest(basis, &rule, discount).map_err(out_of_range)?;
    let price = PriceSnapshot {
        suggested,
        vat_percent: rule.vat_percent,
        overridden: given.is_some_and(|g| g != suggested),
        failure_adjusted: adjusted.is_some(),
        success,
    };
    Ok((Some(given.unwrap_or(suggested)), Some(price)))
}

/// Prices the parts and work lines of `planned` for `quantity` units.
///
/// Errors: `errors.outOfRange` at the input that priced the line beyond
/// [`crate::money::MAX_AMOUNT`] (the printer for its depreciation and electricity, the hotend,
/// the build plate, the other component, the filament's grams, a work line's minutes or
/// count), or at `parts` for the total.
pub(super) fn price(
    planned: &Planned,
    electricity_price: Decimal,
    quantity: u32,
) -> Result<Costing> {
    let Planned {
        plans,
        work_plans,
        material_fields,
        material_plans,
        ..
    } = planned;
    let lines = (
        plans.as_slice(),
        work_plans.as_slice(),
        material_plans.as_slice(),
    );
    costing::price(lines, electricity_price, quantity).map_err(|overflow| {
        let path = match overflow {
            Overflow::Line {
                part,
                category,
                nth,
            } => {
                let field = match category {
                    CostCategory::Printer | CostCategory::Electricity => "printerId".to_string(),
                    CostCategory::Hotend => format!("hotends[{nth}].componentId"),
                    CostCategory::Vat => "vat.componentId".to_string(),
                    CostCategory::BuildPlate => "buildPlateId".to_string(),
                    // An overflow names a wear line by its component's place (a line per
                    // print, at most its component's price, never overflows).
                    CostCategory::Component | CostCategory::PerPrint => {
                        format!("otherComponentIds[{nth}]")
                    }
                    CostCategory::Filament | CostCategory::Resin | CostCategory::Consumable => {
                        // The material's input field, its part's path with it.
                        let found = material_fields.get(part).and_then(|f| f.get(nth));
                        return match found {
                            Some(path) => Error::field(path.clone(), "errors.outOfRange"),
                            None => Error::field(format!("parts[{part}]"), "errors.outOfRange"),
                        };
                    }
                    CostCategory::Labour
                    | CostCategory::Charge
                    | CostCategory::Machine
                    | CostCategory::MachineElectricity => "work".to_string(),
                };
                format!("parts[{part}].{field}")
            }
            Overflow::Work { line } => match work_plans.get(line).map(|w| &w.kind) {
                Some(WorkKind::Charge { .. }) => format!("work[{line}].count"),
                _ => format!("work[{line}].minutes"),
            },
            Overflow::Material { line } => format!("materials[{line}].amount"),
            Overflow::Total => "parts".to_string(),
        };
        Error::field(path, "errors.outOfRange")
    })
}

#[cfg(test)]
mod tests {
    use super::MAX_PARTS;
    use crate::sliced::MAX_PLATES;

    #[test]
    fn a_print_holds_as_many_parts_as_a_sliced_package_may_have_plates() {
        assert_eq!(MAX_PARTS, MAX_PLATES);
    }
}
