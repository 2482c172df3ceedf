//! Settings › Company: the shop as its quotes name it, read and written through the API's own
//! input, so its rules and field errors (country, VAT id, IBAN check digits) are the API's.

use super::forms::{Faults, Submitted};
use super::page::{Chrome, Ctx, Page};
use super::paths;
use super::settings_form::SettingsForm;
use crate::api::company::{Company, CompanyInput};
use crate::input;
use actix_web::web::Bytes;
use actors::company::{GetCompany, SetCompany};
use askama::Template;
use serde_json::Value;

#[derive(Template)]
#[template(path = "company.html")]
struct CompanyPage {
    chrome: Chrome,
    form: Submitted,
    faults: Faults,
    saved: bool,
}

const FORM: SettingsForm<CompanyPage> = SettingsForm {
    path: paths::SETTINGS_COMPANY,
    page: |chrome, form, faults, saved| CompanyPage {
        chrome,
        form,
        faults,
        saved,
    },
};

/// The text inputs of the form, in the order shown: (field path, message key).
const TEXTS: [(&str, &str); 11] = [
    ("name", "company.name"),
    ("address.street", "field.street"),
    ("address.postalCode", "field.postalCode"),
    ("address.city", "field.city"),
    ("address.country", "field.country"),
    ("vatId", "field.vatId"),
    ("taxNumber", "company.taxNumber"),
    ("iban", "company.iban"),
    ("bic", "company.bic"),
    ("email", "field.email"),
    ("phone", "company.phone"),
];

/// `GET /settings/company`: the company as stored (`?saved` after a save).
pub async fn show(ctx: Ctx) -> Page {
    let stored = Company::from(ctx.query(GetCompany).await?);
    let mut form = Submitted::default();
    let address = stored.address.as_ref();
    for (name, value) in [
        ("name", Some(stored.name.clone())),
        ("address.street", address.map(|a| a.street.clone())),
        ("address.postalCode", address.map(|a| a.postal_code.clone())),
        ("address.city", address.map(|a| a.city.clone())),
        ("address.country", address.map(|a| a.country.clone())),
        ("vatId", stored.vat_id),
        ("taxNumber", stored.tax_number),
        ("iban", stored.iban),
        ("bic", stored.bic),
        ("email", stored.email),
        ("phone", stored.phone),
        (
            "paymentTermsDays",
            Some(stored.payment_terms_days.to_string()),
        ),
    ] {
        form.set(name, value.unwrap_or_default());
    }
    if stored.small_business {
        form.set("smallBusiness", "on");
    }
    FORM.show(ctx, form)
}

/// `POST /settings/company`: saves the company, or shows the form again with its faults.
pub async fn save(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let mut tree = form.tree(&["paymentTermsDays"]);
    tree["smallBusiness"] = Value::Bool(form.checked("smallBusiness"));
    let saved = match input::parse::<CompanyInput>(tree) {
        Ok(company) => ctx.state.send(SetCompany(company.into())).await,
        Err(e) => Err(e),
    };
    FORM.answer(ctx, form, saved)
}

impl CompanyPage {
    /// The text inputs: (field path, label key).
    fn texts(&self) -> &'static [(&'static str, &'static str)] {
        &TEXTS
    }
}
