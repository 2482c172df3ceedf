//! What the appliance suggests for a sliced file: per plate a printer with the components a new
//! draft preselects, per filament slot a filament (and a spool where spool management is on).
//! The maker confirms or picks another; nothing here is stored.

use super::{Sliced, grams_of_length};
use crate::Result;
use crate::command::{Query, Snapshot};
use rust_decimal::Decimal;
use std::str::FromStr;
use storage::records::{
    Component, ComponentType, Filament, MaterialKind, Printer, PrinterTechnology, Spool,
};
use storage::{Id, repo};

/// Suggestions for `sliced`.
#[derive(Debug, Clone)]
pub struct Suggest(pub Sliced);

/// The suggestions, plate by plate (in the file's plate order), slot by slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestions {
    /// One per plate of the file.
    pub plates: Vec<PlateSuggestion>,
}

/// A plate's printer and the components a draft on it preselects.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlateSuggestion {
    /// The printer whose model or name matches the file's printer model, or the only one.
    pub printer_id: Option<Id>,
    /// The build plate preselected on that printer ([`preselected`]).
    pub build_plate_id: Option<Id>,
    /// The hotend preselected on that printer (an FDM printer's).
    pub hotend_id: Option<Id>,
    /// The vat preselected on that printer (an MSLA printer's).
    pub vat_id: Option<Id>,
    /// The other components preselected on that printer.
    pub other_component_ids: Vec<Id>,
    /// One per slot of the plate, in the plate's slot order.
    pub slots: Vec<SlotSuggestion>,
    /// An SLA job's resin: the resin and its bottle.
    pub resin: Option<ResinSuggestion>,
}

/// The resin for an SLA job's plate.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResinSuggestion {
    /// The active resin whose material and colour words the slicer's resin profile holds (a
    /// resin `Tough`, `Prusa Orange` for `Prusament Resin Tough Prusa Orange`), else the only
    /// active resin.
    pub material_id: Option<Id>,
    /// With spool management on: that resin's active bottle with the most left.
    pub spool_id: Option<Id>,
}

/// A slot's filament and spool, and its grams where the file gave only a length.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SlotSuggestion {
    /// The active filament of the slot's material with the nearest colour.
    pub filament_id: Option<Id>,
    /// With spool management on: that filament's active spool with the most filament left.
    pub spool_id: Option<Id>,
    /// The slot's grams: the file's, or derived from its length with the suggested filament's
    /// material density and a 1.75 mm diameter ([`MATERIAL_DENSITY`]).
    pub grams: Option<Decimal>,
    /// True when `grams` was derived (here or by the parser).
    pub grams_derived: bool,
}

/// Densities (g/cm³) of common materials, for grams from a length where the slicer wrote no
/// weight: the manufacturers' usual datasheet figures. Other materials derive no grams.
pub const MATERIAL_DENSITY: [(&str, &str); 10] = [
    ("PLA", "1.24"),
    ("PETG", "1.27"),
    ("ABS", "1.04"),
    ("ASA", "1.07"),
    ("TPU", "1.21"),
    ("PC", "1.20"),
    ("PA", "1.14"),
    ("NYLON", "1.14"),
    ("PVA", "1.23"),
    ("HIPS", "1.04"),
];

/// The diameter assumed for derived grams, mm.
const DIAMETER: &str = "1.75";

impl Query for Suggest {
    type Answer = Suggestions;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Suggestions> {
        let printers: Vec<Printer> = repo::all::<Printer>(snapshot)?
            .into_iter()
            .filter(|p| !p.archived)
            .collect();
        let components: Vec<Component> = repo::all::<Component>(snapshot)?
            .into_iter()
            .filter(|c| !c.archived)
            .collect();
        let materials: Vec<Filament> = repo::all::<Filament>(snapshot)?
            .into_iter()
            .filter(|f| !f.archived)
            .collect();
        let of_kind = |kind| -> Vec<Filament> {
            materials
                .iter()
                .filter(|f| f.kind == kind)
                .cloned()
                .collect()
        };
        let filaments = of_kind(MaterialKind::Filament);
        let resins = of_kind(MaterialKind::Resin);
        let spools: Vec<Spool> = match repo::settings(snapshot)? {
            Some(s) if s.spool_management_enabled => repo::all::<Spool>(snapshot)?
                .into_iter()
                .filter(|s| !s.archived && s.remaining_grams > Decimal::ZERO)
                .collect(),
            _ => Vec::new(),
        };
        // An SLA job goes to a resin printer, any other file to an FDM printer.
        let technology = match self.0.plates.iter().any(|p| p.resin.is_some()) {
            true => PrinterTechnology::Msla,
            false => PrinterTechnology::Fdm,
        };
        let printers: Vec<Printer> = printers
            .into_iter()
            .filter(|p| p.technology == technology)
            .collect();
        let printer_id = printer_for(self.0.printer_model.as_deref(), &printers);
        let (build_plate_id, head_id, other_component_ids) = printer_id
            .map_or((None, None, Vec::new()), |p| {
                preselected(&components, p, head_of(technology))
            });
        let fullest = |material: Id| {
            spools
                .iter()
                .filter(|s| s.filament_id == material)
                .max_by_key(|s| s.remaining_grams)
                .map(|s| s.id)
        };
        let plates = self
            .0
            .plates
            .iter()
            .map(|plate| {
                let slots = plate
                    .slots
                    .iter()
                    .map(|slot| {
                        let filament = filament_for(
                            slot.material.as_deref(),
                            slot.colour.as_deref(),
                            &filaments,
                        );
                        let spool_id = filament.and_then(|f| fullest(f.id));
                        let derived = slot.grams.is_none().then(|| {
                            let density = density(
                                filament
                                    .map(|f| f.material.as_str())
                                    .or(slot.material.as_deref())?,
                            )?;
                            grams_of_length(
                                slot.millimetres?,
                                Decimal::from_str(DIAMETER).ok()?,
                                density,
                            )
                        });
                        let derived = derived.flatten();
                        SlotSuggestion {
                            filament_id: filament.map(|f| f.id),
                            spool_id,
                            grams: slot.grams.or(derived),
                            grams_derived: slot.grams_derived || derived.is_some(),
                        }
                    })
                    .collect();
                let resin = plate.resin.as_ref().map(|r| {
                    let material = resin_for(r.material.as_deref(), &resins);
                    ResinSuggestion {
                        material_id: material.map(|m| m.id),
                        spool_id: material.and_then(|m| fullest(m.id)),
                    }
                });
                let head = |kind| head_id.filter(|_| technology == kind);
                PlateSuggestion {
                    printer_id,
                    build_plate_id,
                    hotend_id: head(PrinterTechnology::Fdm),
                    vat_id: head(PrinterTechnology::Msla),
                    other_component_ids: other_component_ids.clone(),
                    slots,
                    resin,
                }
            })
            .collect();
        Ok(Suggestions { plates })
    }
}

/// The density of `material` (case-insensitive, [`MATERIAL_DENSITY`]).
fn density(material: &str) -> Option<Decimal> {
    let material = material.trim().to_ascii_uppercase();
    MATERIAL_DENSITY
        .iter()
        .find(|(name, _)| *name == material)
        .and_then(|(_, d)| Decimal::from_str(d).ok())
}

/// The printer for a file sliced for `model`: the first (by name) whose model or name holds the
/// model's text or is held by it, case-insensitive; else the only printer there is.
fn printer_for(model: Option<&str>, printers: &[Printer]) -> Option<Id> {
    let wanted = model
        .map(|m| m.trim().to_lowercase())
        .filter(|m| !m.is_empty());
    let matches = |p: &&Printer| {
        let Some(wanted) = wanted.as_deref() else {
            return false;
        };
        [Some(p.name.as_str()), p.model.as_deref()]
            .into_iter()
            .flatten()
            .map(str::to_lowercase)
            .any(|have| !have.is_empty() && (have.contains(wanted) || wanted.contains(&have)))
    };
    let mut found: Vec<&Printer> = printers.iter().filter(matches).collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    match (found.first(), printers) {
        (Some(p), _) => Some(p.id),
        (None, [only]) => Some(only.id),
        _ => None,
    }
}

/// The component a part of a printer of `technology` prints with: a hotend (FDM) or a vat
/// (MSLA).
pub fn head_of(technology: PrinterTechnology) -> ComponentType {
    match technology {
        PrinterTechnology::Fdm => ComponentType::Hotend,
        PrinterTechnology::Msla => ComponentType::Vat,
    }
}

/// The components a new draft on `printer` preselects: of those that fit it (their printers
/// include it, or they name none), the build plate and the `head` (a hotend, a vat: see
/// [`head_of`]) marked "preselect in new prints" (or the only one of its kind that fits), and
/// every other component so marked.
pub fn preselected(
    components: &[Component],
    printer: Id,
    head: ComponentType,
) -> (Option<Id>, Option<Id>, Vec<Id>) {
    let fits = |c: &&Component| c.printer_ids.is_empty() || c.printer_ids.contains(&printer);
    let one = |kind: ComponentType| {
        let fitting: Vec<&Component> = components
            .iter()
            .filter(fits)
            .filter(|c| c.kind == kind)
            .collect();
        fitting
            .iter()
            .find(|c| c.always_used)
            .or(match fitting.as_slice() {
                [only] => Some(only),
                _ => None,
            })
            .map(|c| c.id)
    };
    let others = components
        .iter()
        .filter(fits)
        .filter(|c| c.kind == ComponentType::Other && c.always_used)
        .map(|c| c.id)
        .collect();
    (one(ComponentType::BuildPlate), one(head), others)
}

/// The filament for a slot of `material` and `colour`: among filaments of that material
/// (case-insensitive; any material when the slot names none), the nearest colour (squared RGB
/// distance), ties by name. None when no filament has the material.
fn filament_for<'a>(
    material: Option<&str>,
    colour: Option<&str>,
    filaments: &'a [Filament],
) -> Option<&'a Filament> {
    let material = material.map(|m| m.trim().to_ascii_uppercase());
    let candidates = filaments.iter().filter(|f| {
        material
            .as_deref()
            .is_none_or(|m| f.material.trim().to_ascii_uppercase() == m)
    });
    let wanted = colour.and_then(rgb);
    candidates.min_by_key(|f| {
        let distance = match (wanted, rgb(&f.color_hex)) {
            (Some(a), Some(b)) => (0..3)
                .map(|i| (i32::from(a[i]) - i32::from(b[i])).pow(2))
                .sum::<i32>(),
            _ => i32::MAX,
        };
        (distance, f.color_name.clone())
    })
}

/// The resin for a job sliced with the resin profile `profile`: the first active resin (by
/// name) whose material and colour words all appear in the profile's name, case-insensitive;
/// else the only active resin.
fn resin_for<'a>(profile: Option<&str>, resins: &'a [Filament]) -> Option<&'a Filament> {
    let profile = profile.map(str::to_lowercase).unwrap_or_default();
    let holds = |r: &&Filament| {
        let words = format!("{} {}", r.material, r.color_name).to_lowercase();
        let mut words = words.split_whitespace().peekable();
        words.peek().is_some() && words.all(|w| profile.contains(w))
    };
    let mut found: Vec<&Filament> = resins.iter().filter(holds).collect();
    found.sort_by(|a, b| (&a.material, &a.color_name).cmp(&(&b.material, &b.color_name)));
    match (found.first(), resins) {
        (Some(r), _) => Some(r),
        (None, [only]) => Some(only),
        _ => None,
    }
}

/// The red, green and blue of `#RRGGBB`.
fn rgb(hex: &str) -> Option<[u8; 3]> {
    let hex = hex.strip_prefix('#')?;
    if hex.len() != 6 {
        return None;
    }
    let channel = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some([channel(0)?, channel(2)?, channel(4)?])
}
