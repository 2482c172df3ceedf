//! `/api/customers`.

use super::address::{Address, AddressInput};
use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::extract::NoFilter;
use crate::input::Faults;
use crate::wire::{dec_opt, ts};
use actors::inventory::customers;
use actors::values::{Amount, Email, Locale, Name, Note, VatId};
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// A customer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    /// Id (UUID).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Contact email.
    pub email: Option<String>,
    /// Free text.
    pub note: Option<String>,
    /// Left out of the dashboard.
    pub exclude_from_dashboard: bool,
    /// A discount on the price rule, percent; null for none.
    pub discount_percent: Option<String>,
    /// Postal address with country; null for none.
    pub address: Option<Address>,
    /// VAT identification number.
    pub vat_id: Option<String>,
    /// Buyer reference or a public buyer's Leitweg-ID.
    pub buyer_reference: Option<String>,
    /// Where invoices go, when not to `email`.
    pub invoice_email: Option<String>,
    /// Language of quotes and invoices (`de-DE`, `en-US`); null: the shop's default.
    pub language: Option<String>,
    /// Days to pay, when other than the shop's terms.
    pub payment_terms_days: Option<u16>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Customer input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct CustomerInput {
    /// Display name, 1-200 characters.
    #[schema(example = "Jane Doe")]
    pub name: Name,
    /// Contact email.
    #[schema(example = "jane@example.com")]
    #[deserr(default)]
    pub email: Option<Email>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// Leave this customer's prints out of the dashboard (default false).
    #[serde(default)]
    #[deserr(default)]
    pub exclude_from_dashboard: bool,
    /// A discount on the price rule (a reseller's), percent below 100.
    #[schema(example = "10")]
    #[deserr(default)]
    pub discount_percent: Option<Amount>,
    /// Postal address with country.
    #[deserr(default)]
    pub address: Option<AddressInput>,
    /// VAT identification number: country prefix and a number of that country's shape
    /// (`DE123456789`, `ATU12345678`).
    #[schema(example = "DE123456789")]
    #[deserr(default)]
    pub vat_id: Option<VatId>,
    /// Buyer reference or Leitweg-ID, 1-200 characters.
    #[schema(example = "991-12345-67")]
    #[deserr(default)]
    pub buyer_reference: Option<Name>,
    /// Where invoices go, when not to `email`.
    #[deserr(default)]
    pub invoice_email: Option<Email>,
    /// Language of quotes and invoices: `de-DE` or `en-US`.
    #[deserr(default)]
    pub language: Option<Locale>,
    /// Days to pay, 0 to 365.
    #[schema(maximum = 365)]
    #[deserr(default)]
    pub payment_terms_days: Option<u16>,
}

/// The customers resource.
pub struct Customers;

impl Resource for Customers {
    type Kind = customers::Customers;
    type Dto = Customer;
    type Input = CustomerInput;

    fn domain(i: CustomerInput) -> Result<inventory::Input<Self>, ApiError> {
        Ok(customers::CustomerInput {
            name: i.name,
            email: i.email,
            note: i.note,
            exclude_from_dashboard: i.exclude_from_dashboard,
            discount_percent: i.discount_percent,
            billing: customers::BillingInput {
                address: i.address.map(Into::into),
                vat_id: i.vat_id,
                buyer_reference: i.buyer_reference,
                invoice_email: i.invoice_email,
                language: i.language,
                payment_terms_days: i.payment_terms_days,
            },
        })
    }

    type Params = NoFilter;

    fn filter(_: NoFilter) {}

    fn dto(c: inventory::View<Self>) -> Customer {
        Customer {
            id: c.id.to_string(),
            name: c.name,
            email: c.email,
            note: c.note,
            exclude_from_dashboard: c.exclude_from_dashboard,
            discount_percent: dec_opt(c.discount_percent),
            address: c.billing.address.map(Address::from),
            vat_id: c.billing.vat_id,
            buyer_reference: c.billing.buyer_reference,
            invoice_email: c.billing.invoice_email,
            language: c.billing.language,
            payment_terms_days: c.billing.payment_terms_days,
            archived: c.archived,
            created_at: ts(c.created_at),
            updated_at: ts(c.updated_at),
        }
    }
}

inventory_routes!(
    Customers,
    "customers",
    "/customers",
    "/customers/{id}",
    Customer,
    CustomerInput,
    []
);
