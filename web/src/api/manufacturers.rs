//! `/api/manufacturers`.

use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::extract::QueryFields;
use crate::wire::ts;
use actors::inventory::{ListQuery, Page, manufacturers};
use actors::values::{Name, Note};
use serde::{Deserialize, Serialize};
use storage::repo::Tx;
use storage::{Id, ReadTransaction, Timestamp, WriteTransaction};
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
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ManufacturerInput {
    /// Unique name (case-insensitive), 1-200 characters.
    #[schema(value_type = String, example = "Prusa Research")]
    pub name: Name,
    /// Free text.
    #[schema(value_type = Option<String>)]
    pub note: Option<Note>,
}

/// The manufacturers resource.
pub struct Manufacturers;

impl Resource for Manufacturers {
    type Record = storage::records::Manufacturer;
    type View = storage::records::Manufacturer;
    type Dto = Manufacturer;
    type Input = ManufacturerInput;
    type Domain = manufacturers::ManufacturerInput;
    type Filter = ();

    fn domain(i: ManufacturerInput) -> Result<Self::Domain, ApiError> {
        Ok(manufacturers::ManufacturerInput {
            name: i.name,
            note: i.note,
        })
    }

    fn filter(_: &mut QueryFields) {}

    fn create(
        txn: &WriteTransaction,
        input: &Self::Domain,
        now: Timestamp,
    ) -> actors::Result<Self::View> {
        manufacturers::create(txn, input, now)
    }

    fn replace(
        txn: &WriteTransaction,
        id: Id,
        input: &Self::Domain,
        now: Timestamp,
    ) -> actors::Result<Self::View> {
        manufacturers::replace(txn, id, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> actors::Result<Self::View> {
        actors::inventory::get(tx, id)
    }

    fn list(tx: &ReadTransaction, query: &ListQuery, _: &()) -> actors::Result<Page<Self::View>> {
        manufacturers::list(tx, query)
    }

    fn dto(m: Self::View) -> Manufacturer {
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
