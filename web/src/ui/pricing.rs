//! Settings › Pricing: the shop's price rule (markup or margin, minimum per job, rounding, VAT),
//! read and written through the API's own input, so its rules and field errors are the API's.

use super::forms::{Faults, Submitted};
use super::page::{Chrome, Ctx, Page};
use super::paths;
use super::settings_form::SettingsForm;
use crate::api::pricing::{Pricing, PricingInput};
use crate::input;
use crate::wire;
use actix_web::web::Bytes;
use actors::pricing::{GetPricing, SetPricing};
use askama::Template;
use serde_json::Value;

#[derive(Template)]
#[template(path = "pricing.html")]
struct PricingPage {
    chrome: Chrome,
    form: Submitted,
    faults: Faults,
    saved: bool,
}

const FORM: SettingsForm<PricingPage> = SettingsForm {
    path: paths::SETTINGS_PRICING,
    page: |chrome, form, faults, saved| PricingPage {
        chrome,
        form,
        faults,
        saved,
    },
};

/// `GET /settings/pricing`: the rule as stored (`?saved` after a save).
pub async fn show(ctx: Ctx) -> Page {
    let stored = Pricing::from(ctx.query(GetPricing).await?);
    let mut form = Submitted::default();
    if stored.enabled {
        form.set("enabled", "on");
    }
    form.set("basis", wire::name(&stored.basis));
    form.set("percent", stored.percent);
    form.set("minimumPerJob", stored.minimum_per_job.unwrap_or_default());
    form.set("rounding", wire::name(&stored.rounding));
    form.set("vatPercent", stored.vat_percent);
    if stored.failure_adjusted {
        form.set("failureAdjusted", "on");
    }
    form.set("failureWindow", stored.failure_window.to_string());
    FORM.show(ctx, form)
}

/// `POST /settings/pricing`: saves the rule, or shows the form again with its faults.
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let mut tree = form.tree(&["failureWindow"]);
    tree["enabled"] = Value::Bool(form.checked("enabled"));
    tree["failureAdjusted"] = Value::Bool(form.checked("failureAdjusted"));
    let saved = match ctx.typed(|| input::parse::<PricingInput>(tree)) {
        Ok(rule) => ctx.state.send(SetPricing(rule.into())).await,
        Err(e) => Err(e),
    };
    FORM.answer(ctx, form, saved)
}
