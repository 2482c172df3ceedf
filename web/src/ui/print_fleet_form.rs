//! The print page's printer-fleet form (`POST /prints/{id}/fleet`): attach a job of the fleet's
//! print log to a part, sync it, or import the outcome from the attached jobs.

use super::forms::Submitted;
use super::i18n::Tr;
use super::page::{Ctx, Page, see_other};
use super::paths;
use super::print_detail::{outcome_tree, refuse};
use crate::api::printfleet::FleetAction;
use crate::error::ApiError;
use crate::input;
use actix_web::web::Bytes;

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
    let action = ctx.typed(|| match form.get("fleetAction") {
        "ATTACH" => {
            document.set("action", "ATTACH");
            document.set("data.partId", form.get("attach.partId"));
            document.set("data.remoteLogId", form.get("attach.remoteLogId"));
            document.document::<FleetAction>(&["data.remoteLogId"])
        }
        "SYNC_PRINT" => {
            document.set("action", "SYNC_PRINT");
            document.set("data.partId", form.get("sync.partId"));
            document.document::<FleetAction>(&[])
        }
        _ => import(&ctx.chrome.t, &form, &outcome, id),
    });
    let result = match action {
        Ok(action) => action.run(&ctx.state.printfleet).await.map(|_| ()),
        Err(e) => Err(e),
    };
    let did = match form.get("fleetAction") {
        "ATTACH" => "fleetAttach",
        "SYNC_PRINT" => "fleetSync",
        _ => "fleetImport",
    };
    match result {
        Ok(()) => Ok(see_other(&format!("{}?did={did}", paths::print(id)))),
        Err(e) => refuse(ctx, &e, Some(outcome)).await,
    }
}

fn import(
    t: &Tr,
    form: &Submitted,
    outcome: &Submitted,
    id: storage::Id,
) -> Result<FleetAction, ApiError> {
    let mut previews = Submitted::default();
    for (name, value) in form.0.iter().filter(|(k, _)| k.starts_with("previews[")) {
        previews.set(format!("data.{name}"), value.clone());
    }
    previews.set("action", "IMPORT");
    previews.set("data.printId", id.to_string());
    let mut tree = previews.tree(&[]);
    tree["data"]["outcome"] = outcome_tree(t, outcome);
    input::parse(tree)
}
