//! A DONE print's jobs in the printer fleet: for each part on a linked printer, pick the
//! Bambuddy job that printed it from the printer's recent jobs, see what Bambuddy recorded, and
//! import the outcome with the page's outcome form (prefilled from the jobs).

use super::forms::Submitted;
use super::page::{Ctx, Page, see_other};
use super::paths;
use super::print_detail::{minutes, outcome_tree, refuse};
use crate::api::printfleet::{FleetAction, LogLinkDto, PrintLogDto};
use crate::api::prints::PrintDto;
use crate::error::ApiError;
use crate::extract;
use actix_web::web::Bytes;
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
        .map(|s| super::print_detail::clock(u64::from(s)))
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
/// part with one usage.
pub fn prefill(form: &mut Submitted, print: &PrintDto, parts: &[FleetPart]) {
    let mut usage = 0;
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
            if let (Some(grams), 1) = (&job.grams, part.usages.len()) {
                form.set(format!("filaments[{usage}].usedGrams"), grams.clone());
            }
        }
        usage += part.usages.len();
    }
}

/// `POST /prints/{id}/fleet`: `fleetAction` ATTACH (`attach.partId`, `attach.remoteLogId`),
/// SYNC_PRINT (`sync.partId`) or IMPORT (the outcome form and `previews[i].…`). Back to the
/// print, or the print with the refusal.
pub async fn act(ctx: Ctx, body: Bytes) -> Page {
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let outcome = Submitted(
        form.0
            .iter()
            .filter(|(k, _)| {
                !k.starts_with("previews[")
                    && !k.starts_with("attach.")
                    && !k.starts_with("sync.")
                    && k != "fleetAction"
            })
            .cloned()
            .collect(),
    );
    let mut document = Submitted::default();
    document.set("data.printId", id.to_string());
    let action = match form.get("fleetAction") {
        "ATTACH" => {
            document.set("action", "ATTACH");
            document.set("data.partId", form.get("attach.partId"));
            document.set("data.remoteLogId", form.get("attach.remoteLogId"));
            document.document::<FleetAction>(&["remoteLogId"])
        }
        "SYNC_PRINT" => {
            document.set("action", "SYNC_PRINT");
            document.set("data.partId", form.get("sync.partId"));
            document.document::<FleetAction>(&[])
        }
        _ => import(&form, &outcome, id),
    };
    let result = match action {
        Ok(action) => action.run(&ctx.state.printfleet).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => Ok(see_other(&paths::print(id))),
        Err(e) => refuse(ctx, &e, Some(outcome)).await,
    }
}

fn import(form: &Submitted, outcome: &Submitted, id: storage::Id) -> Result<FleetAction, ApiError> {
    let mut previews = Submitted::default();
    for (name, value) in form.0.iter().filter(|(k, _)| k.starts_with("previews[")) {
        previews.set(format!("data.{name}"), value.clone());
    }
    previews.set("action", "IMPORT");
    previews.set("data.printId", id.to_string());
    let mut tree = previews.tree(&[]);
    tree["data"]["outcome"] = outcome_tree(outcome);
    extract::parse_json(tree.to_string().as_bytes())
}
