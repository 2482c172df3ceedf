//! A DONE print's jobs in the printer fleet: for each part on a linked printer, pick the
//! Bambuddy job that printed it from the printer's recent jobs, see what Bambuddy recorded, and
//! import the outcome with the page's outcome form (prefilled from the jobs).

use super::format::{clock, minutes};
use super::forms::Submitted;
use super::page::Ctx;
use crate::api::materials::MaterialKindDto;
use crate::api::printfleet::{LogLinkDto, PrintLogDto};
use crate::api::prints::PrintDto;
use std::collections::HashSet;

/// The job attached to a part, as the page shows it.
pub struct AttachedJob {
    /// "Job 7 · completed · 1:00 · 20 g".
    pub label: String,
    /// Its fingerprint, sent back with the import.
    pub hash: String,
    /// Printing time, seconds.
    pub seconds: Option<u32>,
    /// Grams in all.
    pub grams: Option<String>,
}

/// One part of the print on a linked printer.
pub struct FleetPart {
    /// One-based part number.
    pub number: usize,
    /// The part's id.
    pub part_id: String,
    /// Its attached job, if any.
    pub attached: Option<AttachedJob>,
    /// Recent jobs of its printer to attach: (log id, label).
    pub jobs: Vec<(u64, String)>,
}

fn label(log: &PrintLogDto) -> String {
    let name = log
        .print_name
        .clone()
        .unwrap_or_else(|| format!("#{}", log.id));
    let time = log
        .duration_seconds
        .map(|s| clock(u64::from(s)))
        .unwrap_or_default();
    let grams = log
        .filament_used_grams
        .as_deref()
        .map(|g| format!("{g} g"))
        .unwrap_or_default();
    [name, log.status.clone(), time, grams]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The parts of `print` on linked printers, with their jobs; empty while the print takes no
/// outcome or the printer fleet is off or unreachable.
pub async fn parts(ctx: &Ctx, print: &PrintDto, takes_outcome: bool) -> Vec<FleetPart> {
    let fleet = &ctx.state.printfleet;
    let Ok(status) = fleet.status().await else {
        return Vec::new();
    };
    if !takes_outcome || status.version.is_none() {
        return Vec::new();
    }
    let linked: HashSet<String> = status
        .printers
        .iter()
        .map(|p| p.printer.id.to_string())
        .collect();
    let mut out = Vec::new();
    for (i, part) in print.parts.iter().enumerate() {
        if !linked.contains(&part.printer_id) {
            continue;
        }
        let (Ok(print_id), Ok(part_id)) = (print.id.parse(), part.id.parse()) else {
            continue;
        };
        let attached = match fleet.part_link(print_id, Some(part_id)).await {
            Ok((_, Some(link))) => {
                let dto = LogLinkDto::from(link);
                dto.log.as_ref().map(|log| AttachedJob {
                    label: label(log),
                    hash: dto.preview_hash.clone().unwrap_or_default(),
                    seconds: log.duration_seconds,
                    grams: log.filament_used_grams.clone(),
                })
            }
            _ => None,
        };
        let jobs = match (&attached, part.printer_id.parse()) {
            (None, Ok(printer)) => fleet
                .logs(printer, 1)
                .await
                .map(|page| {
                    page.items
                        .into_iter()
                        .map(|l| {
                            let dto = PrintLogDto::from(l);
                            (dto.id, label(&dto))
                        })
                        .collect()
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        out.push(FleetPart {
            number: i + 1,
            part_id: part.id.clone(),
            attached,
            jobs,
        });
    }
    out
}

/// Prefills the outcome form from the attached jobs: each part's time, and the grams of a
/// part with one usage, a filament's (its field is `filaments[k]`, `k` counting the print's
/// filament usages only: the outcome form's other materials are `materials[k]`).
pub fn prefill(form: &mut Submitted, print: &PrintDto, parts: &[FleetPart]) {
    let mut filaments = 0;
    for (i, part) in print.parts.iter().enumerate() {
        let job = parts
            .iter()
            .find(|p| p.part_id == part.id)
            .and_then(|p| p.attached.as_ref());
        if let Some(job) = job {
            if let Some(seconds) = job.seconds {
                let name = if print.parts.len() > 1 {
                    format!("parts[{i}].durationMinutes")
                } else {
                    "durationMinutes".into()
                };
                form.set(name, minutes(u64::from(seconds)));
            }
            if let (Some(grams), [only]) = (&job.grams, part.usages.as_slice())
                && only.material_kind == MaterialKindDto::Filament
            {
                form.set(format!("filaments[{filaments}].usedGrams"), grams.clone());
            }
        }
        filaments += (part.usages.iter())
            .filter(|u| u.material_kind == MaterialKindDto::Filament)
            .count();
    }
}
