//! A postal address on the wire: a customer's and the shop's.

use crate::input::Faults;
use actors::values::{self, Country, Name};
use deserr::Deserr;
use serde::Serialize;
use storage::records::PostalAddress;
use utoipa::ToSchema;

/// A postal address.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    /// Street and number.
    pub street: String,
    /// Postal code.
    pub postal_code: String,
    /// City.
    pub city: String,
    /// ISO 3166-1 alpha-2 country code.
    pub country: String,
}

impl From<PostalAddress> for Address {
    fn from(a: PostalAddress) -> Self {
        Address {
            street: a.street,
            postal_code: a.postal_code,
            city: a.city,
            country: a.country,
        }
    }
}

/// A postal address input: every field required.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct AddressInput {
    /// Street and number, 1-200 characters.
    #[schema(example = "Hauptstraße 1")]
    pub street: Name,
    /// Postal code.
    #[schema(example = "10115")]
    pub postal_code: Name,
    /// City.
    #[schema(example = "Berlin")]
    pub city: Name,
    /// ISO 3166-1 alpha-2 country code (an assigned one).
    #[schema(example = "DE")]
    pub country: Country,
}

impl From<AddressInput> for values::AddressInput {
    fn from(a: AddressInput) -> Self {
        values::AddressInput {
            street: a.street,
            postal_code: a.postal_code,
            city: a.city,
            country: a.country,
        }
    }
}
