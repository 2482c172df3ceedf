//! `/api/manufacturers`.

use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::extract::NoFilter;
use crate::input::Faults;
use crate::wire::ts;
use actors::inventory::manufacturers;
use actors::values::{Name, Note};
use deserr::Deserr;
use serde::Serialize;
use utoipa::ToSchema;

/// A manufacturer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Manufacturer {
    /// Id (UUID).
    pub id: String,
    /// Unique name.
    pub name: String,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Manufacturer input (create and full replace).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct ManufacturerInput {
    /// Unique name (case-insensitive), 1-200 characters.
    #[schema(example = "Prusa Research")]
    pub name: Name,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

/// The manufacturers resource.
pub struct Manufacturers;

impl Resource for Manufacturers {
    type Kind = manufacturers::Manufacturers;
    type Dto = Manufacturer;
    type Input = ManufacturerInput;

    fn domain(i: ManufacturerInput) -> Result<inventory::Input<Self>, ApiError> {
        Ok(manufacturers::ManufacturerInput {
            name: i.name,
            note: i.note,
        })
    }

    type Params = NoFilter;

    fn filter(_: NoFilter) {}

    fn dto(m: inventory::View<Self>) -> Manufacturer {
        Manufacturer {
            id: m.id.to_string(),
            name: m.name,
            note: m.note,
            archived: m.archived,
            created_at: ts(m.created_at),
            updated_at: ts(m.updated_at),
        }
    }
}

inventory_routes!(
    Manufacturers,
    "manufacturers",
    "/manufacturers",
    "/manufacturers/{id}",
    Manufacturer,
    ManufacturerInput,
    []
);
