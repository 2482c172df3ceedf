//! Print input and its resolution against the inventory: every referenced record is looked up in
//! the caller's transaction, every fault is reported with its JSON path, and the rates of the
//! cost engine are taken from the records found.

use crate::costing::{self, FilamentUse, Overflow, PartPlan, Rate};
use crate::inventory::filaments;
use crate::ledger;
use crate::ledger::remote as links;
use crate::values::{Amount, Grams, Name, Note, Seconds};
use crate::{Error, FieldError, Result};
use rust_decimal::Decimal;
use std::collections::{HashMap, HashSet};
use storage::Id;
use storage::records::{
    Component, ComponentType, CostCategory, Costing, Customer, Filament, HotendUse, Part, Print,
    Printer, Series, Spool, Usage,
};
use storage::repo::{self, Record, Tx};

/// Most parts a print may have.
pub const MAX_PARTS: usize = 100;
/// Largest quantity of a run.
pub const MAX_QUANTITY: u32 = 1_000_000;

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

/// One part of a print input.
#[derive(Debug, Clone, PartialEq)]
pub struct PartInput {
    /// An existing part's id when editing; `None` for a new part.
    pub id: Option<Id>,
    /// The printer.
    pub printer_id: Id,
    /// A component of type BUILD_PLATE.
    pub build_plate_id: Id,
    /// One or more hotends.
    pub hotends: Vec<HotendInput>,
    /// Components of type OTHER.
    pub other_component_ids: Vec<Id>,
    /// One or more filament lines.
    pub filaments: Vec<FilamentInput>,
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
    /// True when the parts came in the legacy flat one-part form, which a multipart print
    /// refuses on edit (it needs an explicit `parts` array).
    pub flat: bool,
}

impl PrintInput {
    /// The draft data of an existing print: with its part ids (`keep_ids`, to reprice it in
    /// place) or without (a copy).
    pub fn from_print(print: &Print, series_id: Option<Id>, keep_ids: bool) -> PrintInput {
        PrintInput {
            name: Name::trusted(print.name.clone()),
            customer_id: print.customer_id,
            series_id,
            quantity: print.quantity,
            sales_value: print.sales_value.map(Amount::trusted),
            notes: print.notes.clone().map(Note::trusted),
            parts: print
                .parts
                .iter()
                .map(|p| PartInput {
                    id: keep_ids.then_some(p.id),
                    printer_id: p.printer_id,
                    build_plate_id: p.build_plate_id,
                    hotends: p
                        .hotends
                        .iter()
                        .map(|h| HotendInput {
                            component_id: h.component_id,
                            duration_seconds: Seconds::trusted(h.duration_seconds),
                        })
                        .collect(),
                    other_component_ids: p.other_component_ids.clone(),
                    filaments: p
                        .usages
                        .iter()
                        .map(|u| FilamentInput {
                            filament_id: u.filament_id,
                            used_grams: Grams::trusted(u.used_grams),
                            spool_id: u.spool_id,
                        })
                        .collect(),
                })
                .collect(),
            flat: false,
        }
    }
}

/// A resolved draft: stored parts, pricing plans, the effective customer.
pub(super) struct Planned {
    pub parts: Vec<Part>,
    pub plans: Vec<PartPlan>,
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
        if part.hotends.is_empty() {
            faults.add(at("hotends"), "errors.required");
        }
        let mut hotends = Vec::new();
        for (j, h) in part.hotends.iter().enumerate() {
            if let Some(c) = faults.component(
                tx,
                h.component_id,
                ComponentType::Hotend,
                at(&format!("hotends[{j}].componentId")),
            )? {
                hotends.push((
                    rate_of(c.id, &c.name, c.purchase_price, c.expected_lifetime_hours),
                    h.duration_seconds.get(),
                ));
            }
        }
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
                others.push(rate_of(
                    c.id,
                    &c.name,
                    c.purchase_price,
                    c.expected_lifetime_hours,
                ));
            }
        }
        if part.filaments.is_empty() {
            faults.add(at("filaments"), "errors.required");
        }
        let mut usages = Vec::new();
        let mut uses = Vec::new();
        for (j, f) in part.filaments.iter().enumerate() {
            let path = |field: &str| at(&format!("filaments[{j}].{field}"));
            let Some(filament) = faults.find::<Filament>(tx, f.filament_id, path("filamentId"))?
            else {
                continue;
            };
            let spool = match spools {
                Some(rule) => {
                    match faults.spool(tx, &filament, f.spool_id, rule, path("spoolId"))? {
                        Some(spool) => Some(spool),
                        None if rule == SpoolRule::Copy => None,
                        None => continue,
                    }
                }
                None => None,
            };
            let name = filaments::display_name(tx, &filament)?;
            let rate = match &spool {
                Some(s) => rate_of(
                    filament.id,
                    &format!("{name} ({})", s.code),
                    s.purchase_price,
                    s.initial_net_weight_grams,
                ),
                None => rate_of(
                    filament.id,
                    &name,
                    filament.purchase_price,
                    filament.net_weight_grams,
                ),
            };
            let usage = Usage {
                // A kept part keeps its usage ids by position: outcomes refer to them.
                id: part
                    .id
                    .and_then(|p| known.get(&p)?.usages.get(j))
                    .map_or_else(Id::new, |u| u.id),
                filament_id: filament.id,
                spool_id: spool.as_ref().map(|s| s.id),
                spool_code: spool.map(|s| s.code),
                used_grams: *f.used_grams.get(),
            };
            uses.push(FilamentUse {
                usage_id: usage.id,
                rate,
                grams: usage.used_grams,
            });
            usages.push(usage);
        }
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
                build_plate: rate_of(
                    plate.id,
                    &plate.name,
                    plate.purchase_price,
                    plate.expected_lifetime_hours,
                ),
                hotends,
                others,
                filaments: uses,
            });
        }
        parts.push(Part {
            id,
            printer_id: part.printer_id,
            build_plate_id: part.build_plate_id,
            hotends: part
                .hotends
                .iter()
                .map(|h| HotendUse {
                    component_id: h.component_id,
                    duration_seconds: h.duration_seconds.get(),
                })
                .collect(),
            other_component_ids: part.other_component_ids.clone(),
            usages,
        });
    }
    if !faults.0.is_empty() {
        return Err(Error::Validation(faults.0));
    }
    Ok(Planned {
        parts,
        plans,
        customer_id,
    })
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

/// Prices `plans` for `quantity` units.
///
/// Errors: `errors.outOfRange` at the input that priced the line beyond
/// [`crate::money::MAX_AMOUNT`] (the printer for its depreciation and electricity, the hotend,
/// the build plate, the other component, the filament's grams), or at `parts` for the total.
pub(super) fn price(
    plans: &[PartPlan],
    electricity_price: Decimal,
    quantity: u32,
) -> Result<Costing> {
    costing::price(plans, electricity_price, quantity).map_err(|overflow| {
        let path = match overflow {
            Overflow::Line {
                part,
                category,
                nth,
            } => {
                let field = match category {
                    CostCategory::Printer | CostCategory::Electricity => "printerId".to_string(),
                    CostCategory::Hotend => format!("hotends[{nth}].componentId"),
                    CostCategory::BuildPlate => "buildPlateId".to_string(),
                    CostCategory::Component => format!("otherComponentIds[{nth}]"),
                    CostCategory::Filament => format!("filaments[{nth}].usedGrams"),
                };
                format!("parts[{part}].{field}")
            }
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
