//! `GET/PATCH /api/settings/company`: the shop as its quotes and invoices name it
//! (Settings › Company).

use super::address::{Address, AddressInput};
use crate::error::{ApiError, ErrorBody};
use crate::extract::StrictJson;
use crate::input::Faults;
use crate::routes;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::web::{Data, Json};
use actix_web::{get, patch};
use actors::company::{self, GetCompany, SetCompany};
use actors::values::{Bic, Email, Iban, Locale, Name, Note, VatId};
use deserr::Deserr;
use serde::Serialize;
use storage::records;
use utoipa::ToSchema;

/// Registers the company routes.
pub fn configure(cfg: &mut impl routes::Routes) {
    cfg.add(get_company).add(patch_company);
}

/// The shop's company details.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Company {
    /// Legal name; empty until set.
    pub name: String,
    /// Postal address with country.
    pub address: Option<Address>,
    /// VAT identification number (USt-IdNr.).
    pub vat_id: Option<String>,
    /// Tax number (Steuernummer).
    pub tax_number: Option<String>,
    /// IBAN, upper-case without spaces.
    pub iban: Option<String>,
    /// BIC.
    pub bic: Option<String>,
    /// Contact e-mail.
    pub email: Option<String>,
    /// Contact phone.
    pub phone: Option<String>,
    /// Days to pay unless a customer has its own.
    #[serde(default)]
    pub payment_terms_days: u16,
    /// The payment terms in words.
    pub payment_terms_text: Option<String>,
    /// The language of quotes and invoices unless the customer has one; null: the instance's
    /// default language.
    pub language: Option<String>,
    /// A small business under § 19 UStG: no VAT on quotes, the exemption stated.
    pub small_business: bool,
}

impl From<records::Company> for Company {
    fn from(c: records::Company) -> Self {
        Company {
            name: c.name,
            address: c.address.map(Address::from),
            vat_id: c.vat_id,
            tax_number: c.tax_number,
            iban: c.iban,
            bic: c.bic,
            email: c.email,
            phone: c.phone,
            payment_terms_days: c.payment_terms_days,
            payment_terms_text: c.payment_terms_text,
            language: c.language,
            small_business: c.small_business,
        }
    }
}

/// New company details (full replacement).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct CompanyInput {
    /// Legal name, 1-200 characters.
    #[schema(example = "Musterdruck GmbH")]
    pub name: Name,
    /// Postal address with country.
    #[deserr(default)]
    pub address: Option<AddressInput>,
    /// VAT identification number: country prefix and a number of that country's shape.
    #[schema(example = "DE123456789")]
    #[deserr(default)]
    pub vat_id: Option<VatId>,
    /// Tax number (Steuernummer), 1-200 characters.
    #[schema(example = "30/123/45678")]
    #[deserr(default)]
    pub tax_number: Option<Name>,
    /// IBAN (spaces allowed); its check digits must hold.
    #[schema(example = "DE89370400440532013000")]
    #[deserr(default)]
    pub iban: Option<Iban>,
    /// BIC, 8 or 11 characters.
    #[schema(example = "COBADEFFXXX")]
    #[deserr(default)]
    pub bic: Option<Bic>,
    /// Contact e-mail.
    #[deserr(default)]
    pub email: Option<Email>,
    /// Contact phone, 1-200 characters.
    #[deserr(default)]
    pub phone: Option<Name>,
    /// Days to pay, 0 to 365 (default 14).
    #[serde(default)]
    #[schema(maximum = 365)]
    #[deserr(default = records::Company::default().payment_terms_days)]
    pub payment_terms_days: u16,
    /// The payment terms in words (`Zahlbar innerhalb von 14 Tagen ohne Abzug.`).
    #[deserr(default)]
    pub payment_terms_text: Option<Note>,
    /// The language of quotes and invoices unless the customer has one: `de-DE` or `en-US`.
    #[deserr(default)]
    pub language: Option<Locale>,
    /// A small business under § 19 UStG (default false).
    #[serde(default)]
    #[deserr(default)]
    pub small_business: bool,
}

impl From<CompanyInput> for company::CompanyInput {
    fn from(c: CompanyInput) -> Self {
        company::CompanyInput {
            name: c.name,
            address: c.address.map(Into::into),
            vat_id: c.vat_id,
            tax_number: c.tax_number,
            iban: c.iban,
            bic: c.bic,
            email: c.email,
            phone: c.phone,
            payment_terms_days: c.payment_terms_days,
            payment_terms_text: c.payment_terms_text,
            language: c.language,
            small_business: c.small_business,
        }
    }
}

/// The company details (nameless until first set).
#[utoipa::path(tag = "settings", responses((status = 200, body = Company), (status = 401, body = ErrorBody)), security(("session" = [])))]
#[get("/settings/company")]
pub async fn get_company(
    state: Data<AppState>,
    _user: CurrentUser,
) -> Result<Json<Company>, ApiError> {
    Ok(Json(state.query(GetCompany).await?.into()))
}

/// Replaces the company details. Quotes show them from then on.
#[utoipa::path(
    tag = "settings",
    request_body = CompanyInput,
    responses(
        (status = 200, body = Company),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED: an unknown country, a VAT id, IBAN or BIC of the wrong shape (an IBAN whose check digits fail), payment terms beyond 365 days", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[patch("/settings/company")]
pub async fn patch_company(
    state: Data<AppState>,
    _user: CurrentUser,
    input: StrictJson<CompanyInput>,
) -> Result<Json<Company>, ApiError> {
    Ok(Json(state.send(SetCompany(input.0.into())).await?.into()))
}
