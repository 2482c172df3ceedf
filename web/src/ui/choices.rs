//! Choices for form selects: the active records a form may refer to, read in one snapshot.

use super::i18n::Tr;
use super::page::Ctx;
use crate::api::materials::MaterialKindDto;
use crate::error::Rendered;
use crate::wire;
use actors::command::{Query, Snapshot};
use actors::integrations::fleet;
use actors::inventory::charges::Charges;
use actors::inventory::components::{ComponentView, Components};
use actors::inventory::customers::Customers;
use actors::inventory::filaments::{FilamentView, Filaments};
use actors::inventory::labour_rates::LabourRates;
use actors::inventory::manufacturers::Manufacturers;
use actors::inventory::materials::Materials;
use actors::inventory::printers::{PrinterView, Printers};
use actors::inventory::steps::{StepView, Steps};
use actors::inventory::{Kind, ListQuery};
use actors::series;
use actors::settings;
use actors::sliced::suggest;
use actors::stock;
use actors::words::unit_key;
use std::marker::PhantomData;
use storage::records::{
    Charge, Component, ComponentType, Customer, LabourRate, Manufacturer, MaterialKind,
    PrinterTechnology,
};

/// Most records a select offers (a shop has far fewer).
const LIMIT: u32 = 1000;

/// One option of a select.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The record id (the option's value).
    pub id: String,
    /// What the option shows.
    pub label: String,
    /// What it belongs to: a component's type, a spool's filament id; `""` otherwise.
    pub group: String,
}

/// A record a select can offer.
pub trait Choosable {
    /// The option of this record.
    fn choice(&self) -> Choice;
}

fn plain(id: storage::Id, label: &str) -> Choice {
    Choice {
        id: id.to_string(),
        label: label.to_string(),
        group: String::new(),
    }
}

impl Choosable for Customer {
    fn choice(&self) -> Choice {
        plain(self.id, &self.name)
    }
}

impl Choosable for Manufacturer {
    fn choice(&self) -> Choice {
        plain(self.id, &self.name)
    }
}

impl Choosable for PrinterView {
    /// `group` is the printer's technology: FDM or MSLA.
    fn choice(&self) -> Choice {
        let group = match self.printer.technology {
            PrinterTechnology::Fdm => "FDM",
            PrinterTechnology::Msla => "MSLA",
        };
        Choice {
            group: group.to_string(),
            ..plain(self.printer.id, &self.printer.name)
        }
    }
}

impl Choosable for FilamentView {
    fn choice(&self) -> Choice {
        plain(self.filament.id, &self.name)
    }
}

/// A choice of work: `group` is the work line's kind (`LABOUR`, `CHARGE`, `STEP`).
fn work(id: storage::Id, label: &str, kind: &str) -> Choice {
    Choice {
        group: kind.to_string(),
        ..plain(id, label)
    }
}

impl Choosable for LabourRate {
    fn choice(&self) -> Choice {
        work(self.id, &self.name, "LABOUR")
    }
}

impl Choosable for Charge {
    fn choice(&self) -> Choice {
        work(self.id, &self.name, "CHARGE")
    }
}

impl Choosable for StepView {
    fn choice(&self) -> Choice {
        work(self.step.id, &self.step.name, "STEP")
    }
}

impl Choosable for ComponentView {
    fn choice(&self) -> Choice {
        let group = match self.component.kind {
            ComponentType::Hotend => "HOTEND",
            ComponentType::BuildPlate => "BUILD_PLATE",
            ComponentType::Other => "OTHER",
            ComponentType::Vat => "VAT",
        };
        Choice {
            group: group.to_string(),
            ..plain(self.component.id, &self.component.name)
        }
    }
}

/// The active (not archived) records of `K`, sorted as the API lists them.
///
/// Errors: storage errors.
fn active<K: Kind>(snapshot: &Snapshot<'_>) -> actors::Result<Vec<K::View>>
where
    K::Filter: Default,
{
    let query = ListQuery {
        page_size: LIMIT,
        ..ListQuery::default()
    };
    Ok(K::list(snapshot, &query, &Default::default())?.items)
}

/// The active records of `K` as choices.
struct Of<K>(PhantomData<fn() -> K>);

impl<K: Kind + 'static> Query for Of<K>
where
    K::Filter: Default,
    K::View: Choosable,
{
    type Answer = Vec<Choice>;

    fn run(self, snapshot: &Snapshot<'_>) -> actors::Result<Vec<Choice>> {
        Ok(active::<K>(snapshot)?
            .iter()
            .map(Choosable::choice)
            .collect())
    }
}

/// The active records of `K` as choices. Errors: the error page.
pub async fn of<K: Kind + 'static>(ctx: &Ctx) -> Result<Vec<Choice>, Rendered>
where
    K::Filter: Default,
    K::View: Choosable,
{
    ctx.query(Of::<K>(PhantomData)).await
}

/// Every list a print or inventory form picks from.
#[derive(Debug, Default, Clone)]
pub struct Choices {
    /// Manufacturers.
    pub manufacturers: Vec<Choice>,
    /// Customers.
    pub customers: Vec<Choice>,
    /// Printers; `group` is FDM or MSLA.
    pub printers: Vec<Choice>,
    /// Components; `group` is HOTEND, BUILD_PLATE, VAT or OTHER.
    pub components: Vec<Choice>,
    /// Filaments.
    pub filaments: Vec<Choice>,
    /// Resins and consumables, labelled with their unit; `group` is RESIN or CONSUMABLE.
    pub materials: Vec<Choice>,
    /// Spools (bottles, packs) with something left (empty with spool management off), labelled
    /// with what is left in their unit; `group` is the material id.
    pub spools: Vec<Choice>,
    /// Active series (empty while print series are off).
    pub series: Vec<Choice>,
    /// Labour rates, charges and post-processing steps; `group` is LABOUR, CHARGE or STEP.
    pub work: Vec<Choice>,
    /// By printer id: the spools mapped to its trays in the printer fleet, space-separated (the
    /// editor suggests them).
    pub mapped: std::collections::HashMap<String, String>,
    /// By printer id: what a new part on it preselects ([`suggest::preselected`]).
    pub preselected: std::collections::HashMap<String, Preselected>,
    /// By component id: the printers it fits, space-separated (empty: every printer).
    pub fits: std::collections::HashMap<String, String>,
}

/// What a new part on one printer preselects: the build plate and the hotend (an FDM
/// printer's) or vat (an MSLA printer's) marked "preselect in new prints" (or the only one that
/// fits), and every other component so marked; ids, empty when none.
#[derive(Debug, Default, Clone)]
pub struct Preselected {
    /// The build plate.
    pub plate: String,
    /// The hotend or the vat.
    pub head: String,
    /// The other components, space-separated.
    pub others: String,
}

impl Choices {
    /// The spools mapped to printer `id`'s trays, space-separated.
    pub fn mapped_of(&self, id: &str) -> &str {
        self.mapped.get(id).map_or("", String::as_str)
    }
}

/// Reads every list of [`Choices`] in one snapshot; labels that hold numbers (a spool's grams
/// left) are written as its translator's locale writes them.
pub struct LoadChoices(pub Tr);

impl Query for LoadChoices {
    type Answer = Choices;

    fn run(self, snapshot: &Snapshot<'_>) -> actors::Result<Choices> {
        let settings = settings::get(snapshot)?;
        let query = ListQuery {
            page_size: LIMIT,
            ..ListQuery::default()
        };
        let spools = if settings.spool_management_enabled {
            let filter = stock::SpoolFilter {
                filament_id: None,
                available_only: true,
            };
            stock::list(snapshot, &query, &filter)?
                .items
                .into_iter()
                .map(|v| Choice {
                    id: v.spool.id.to_string(),
                    label: format!(
                        "{} · {} {}",
                        v.spool.code,
                        self.0.exact(v.remaining()),
                        self.0.t(unit_key(v.unit))
                    ),
                    group: v.spool.filament_id.to_string(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let series = if settings.print_series_enabled {
            series::list(snapshot, &query)?
                .items
                .into_iter()
                .map(|s| plain(s.id, &s.name))
                .collect()
        } else {
            Vec::new()
        };
        let printers: Vec<Choice> = active::<Printers>(snapshot)?
            .iter()
            .map(Choosable::choice)
            .collect();
        let mut mapped = std::collections::HashMap::new();
        for printer in &printers {
            let Ok(id) = printer.id.parse() else { continue };
            let spools = fleet::mapped_spools(snapshot, id)?;
            if !spools.is_empty() {
                let ids: Vec<String> = spools.iter().map(ToString::to_string).collect();
                mapped.insert(printer.id.clone(), ids.join(" "));
            }
        }
        let components = active::<Components>(snapshot)?;
        let records: Vec<Component> = components.iter().map(|v| v.component.clone()).collect();
        let mut preselected = std::collections::HashMap::new();
        for printer in &printers {
            let Ok(id) = printer.id.parse() else { continue };
            let technology = match printer.group.as_str() {
                "MSLA" => PrinterTechnology::Msla,
                _ => PrinterTechnology::Fdm,
            };
            let head = suggest::head_of(technology);
            let (plate, head, others) = suggest::preselected(&records, id, head);
            let text = |id: Option<storage::Id>| id.map(|i| i.to_string()).unwrap_or_default();
            let others: Vec<String> = others.iter().map(ToString::to_string).collect();
            let chosen = Preselected {
                plate: text(plate),
                head: text(head),
                others: others.join(" "),
            };
            preselected.insert(printer.id.clone(), chosen);
        }
        let fits = records
            .iter()
            .map(|c| {
                let printers: Vec<String> = c.printer_ids.iter().map(ToString::to_string).collect();
                (c.id.to_string(), printers.join(" "))
            })
            .collect();
        Ok(Choices {
            mapped,
            preselected,
            fits,
            manufacturers: active::<Manufacturers>(snapshot)?
                .iter()
                .map(Choosable::choice)
                .collect(),
            customers: active::<Customers>(snapshot)?
                .iter()
                .map(Choosable::choice)
                .collect(),
            printers,
            components: components.iter().map(Choosable::choice).collect(),
            filaments: active::<Filaments>(snapshot)?
                .iter()
                .map(Choosable::choice)
                .collect(),
            materials: active::<Materials>(snapshot)?
                .iter()
                .filter(|m| m.filament.kind != MaterialKind::Filament)
                .map(|m| Choice {
                    group: wire::name(&MaterialKindDto::from(m.filament.kind)),
                    label: format!("{} ({})", m.name, self.0.t(unit_key(m.filament.unit))),
                    ..plain(m.filament.id, &m.name)
                })
                .collect(),
            spools,
            series,
            work: active::<LabourRates>(snapshot)?
                .iter()
                .map(Choosable::choice)
                .chain(active::<Charges>(snapshot)?.iter().map(Choosable::choice))
                .chain(active::<Steps>(snapshot)?.iter().map(Choosable::choice))
                .collect(),
        })
    }
}

impl Choices {
    /// What a new part on printer `id` preselects (nothing for an unknown one).
    pub fn preselected_of(&self, id: &str) -> Preselected {
        self.preselected.get(id).cloned().unwrap_or_default()
    }

    /// The printers component `id` fits, space-separated (empty: every printer).
    pub fn fits_of(&self, id: &str) -> &str {
        self.fits.get(id).map_or("", String::as_str)
    }

    /// The work of `kind` (LABOUR, CHARGE or STEP).
    pub fn work_of(&self, kind: &str) -> Vec<Choice> {
        self.work
            .iter()
            .filter(|c| c.group == kind)
            .cloned()
            .collect()
    }

    /// The components of `kind` (HOTEND, BUILD_PLATE or OTHER).
    pub fn components_of(&self, kind: &str) -> Vec<&Choice> {
        self.components.iter().filter(|c| c.group == kind).collect()
    }
}
