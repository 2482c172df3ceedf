//! `/api/components`.

use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::input::Faults;
use crate::input::Refusal;
use crate::input::query::{self, Params};
use crate::wire::{WireId, dec, ts};
use actors::inventory::components::{self, ComponentFilter, ComponentView, LifetimeInput};
use actors::values::{Amount, Name, Note, PositiveAmount};
use deserr::{Deserr, IntoValue, ValuePointerRef};
use serde::{Deserialize, Serialize};
use storage::Id;
use storage::records::{ComponentType as StoredType, Lifetime};
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, PartialSchema, ToSchema};

/// The kind of a component.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ComponentType {
    /// A hotend; costed for its own printing time.
    Hotend,
    /// A build plate.
    BuildPlate,
    /// Any other wear part.
    Other,
    /// A resin printer's vat and its FEP film: costed for a resin part's printing time.
    Vat,
}

crate::input::deserr_by_name!(ComponentType);

impl From<ComponentType> for StoredType {
    fn from(t: ComponentType) -> Self {
        match t {
            ComponentType::Hotend => StoredType::Hotend,
            ComponentType::BuildPlate => StoredType::BuildPlate,
            ComponentType::Other => StoredType::Other,
            ComponentType::Vat => StoredType::Vat,
        }
    }
}

impl From<StoredType> for ComponentType {
    fn from(t: StoredType) -> Self {
        match t {
            StoredType::Hotend => ComponentType::Hotend,
            StoredType::BuildPlate => ComponentType::BuildPlate,
            StoredType::Other => ComponentType::Other,
            StoredType::Vat => ComponentType::Vat,
        }
    }
}

/// A component.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Component {
    /// Id (UUID).
    pub id: String,
    /// Hotend, build plate, vat or other.
    #[serde(rename = "type")]
    pub kind: ComponentType,
    /// Display name.
    pub name: String,
    /// Its manufacturer's id.
    pub manufacturer_id: Option<String>,
    /// Its manufacturer's name.
    pub manufacturer: Option<String>,
    /// Model designation.
    pub model: Option<String>,
    /// Purchase price, instance currency.
    pub purchase_price: String,
    /// Expected lifetime in printing hours, or null when it is counted in prints.
    pub expected_lifetime_hours: Option<String>,
    /// Expected lifetime in prints (a vat's FEP film), or null when it is counted in hours.
    pub expected_lifetime_prints: Option<u32>,
    /// Preselected in new drafts (costed only where a part lists it).
    pub always_used: bool,
    /// Printers it fits.
    pub printer_ids: Vec<String>,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Component input (create and full replace): [`ComponentFields`], its lifetime given in
/// hours or in prints, exactly one (its schema says so: `allOf` the fields and `oneOf` the two
/// lifetimes; the faults are [`Resource::domain`]'s).
#[derive(Debug)]
pub struct ComponentInput(ComponentFields);

impl Deserr<Faults> for ComponentInput {
    fn deserialize_from_value<V: IntoValue>(
        value: deserr::Value<V>,
        location: ValuePointerRef,
    ) -> Result<Self, Faults> {
        ComponentFields::deserialize_from_value(value, location).map(ComponentInput)
    }
}

impl PartialSchema for ComponentInput {
    fn schema() -> RefOr<Schema> {
        let given = |field: &str, kind: Type| {
            ObjectBuilder::new()
                .property(field, ObjectBuilder::new().schema_type(kind))
                .required(field)
        };
        AllOfBuilder::new()
            .description(Some(
                "A component, its lifetime in printing hours or in prints: exactly one of \
                 expectedLifetimeHours and expectedLifetimePrints.",
            ))
            .item(Ref::from_schema_name(ComponentFields::name()))
            .item(
                OneOfBuilder::new()
                    .item(given("expectedLifetimeHours", Type::String))
                    .item(given("expectedLifetimePrints", Type::Integer)),
            )
            .into()
    }
}

impl ToSchema for ComponentInput {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((ComponentFields::name().into(), ComponentFields::schema()));
        ComponentFields::schemas(schemas);
    }
}

/// The fields of a component's input.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct ComponentFields {
    /// Hotend, build plate, vat or other.
    #[serde(rename = "type")]
    #[deserr(rename = "type")]
    pub kind: ComponentType,
    /// Display name.
    #[schema(example = "Nextruder hotend 0.4 mm")]
    pub name: Name,
    /// Manufacturer id.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub manufacturer_id: Option<WireId>,
    /// Model designation.
    #[deserr(default)]
    pub model: Option<Note>,
    /// Purchase price, non-negative decimal string.
    #[schema(example = "100")]
    pub purchase_price: Amount,
    /// Expected lifetime in printing hours, positive decimal string: costed per printing
    /// hour. Exactly one of this and `expectedLifetimePrints`.
    #[schema(example = "2000")]
    #[deserr(default)]
    pub expected_lifetime_hours: Option<PositiveAmount>,
    /// Expected lifetime in prints, 1–1,000,000 (a vat's FEP film): costed once per part
    /// printed with it, in the category PER_PRINT. Exactly one of this and
    /// `expectedLifetimeHours`.
    #[schema(minimum = 1, maximum = 1_000_000)]
    #[deserr(default)]
    pub expected_lifetime_prints: Option<u32>,
    /// Preselect in new drafts (default false).
    #[serde(default)]
    #[deserr(default)]
    pub always_used: bool,
    /// Printers it fits.
    #[serde(default)]
    #[schema(value_type = Vec<String>, format = Uuid)]
    #[deserr(default)]
    pub printer_ids: Vec<WireId>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
}

/// Component list filters.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ComponentParams {
    /// Only this type: HOTEND, BUILD_PLATE, VAT or OTHER.
    #[deserr(default, rename = "type")]
    pub r#type: Option<ComponentType>,
    /// Only components that fit this printer.
    #[param(value_type = Option<String>, format = Uuid)]
    #[deserr(default, try_from(&String) = query::id -> Refusal)]
    pub printer_id: Option<Id>,
    /// Only (not) always-used components.
    #[deserr(default, try_from(&String) = query::flag -> Refusal)]
    pub always_used: Option<bool>,
}

impl Params for ComponentParams {}

/// The components resource.
pub struct Components;

impl Resource for Components {
    type Kind = components::Components;
    type Dto = Component;
    type Input = ComponentInput;

    fn domain(ComponentInput(i): ComponentInput) -> Result<inventory::Input<Self>, ApiError> {
        let lifetime = match (i.expected_lifetime_hours, i.expected_lifetime_prints) {
            (Some(hours), None) => LifetimeInput::Hours(hours),
            (None, Some(prints)) => LifetimeInput::Prints(prints),
            (None, None) => {
                return Err(
                    actors::Error::field("expectedLifetimeHours", "errors.required").into(),
                );
            }
            (Some(_), Some(_)) => {
                return Err(
                    actors::Error::field("expectedLifetimePrints", "errors.oneLifetime").into(),
                );
            }
        };
        Ok(components::ComponentInput {
            kind: i.kind.into(),
            name: i.name,
            manufacturer_id: i.manufacturer_id.map(|m| m.0),
            model: i.model,
            purchase_price: i.purchase_price,
            lifetime,
            always_used: i.always_used,
            printer_ids: i.printer_ids.into_iter().map(|p| p.0).collect(),
            note: i.note,
        })
    }

    type Params = ComponentParams;

    fn filter(p: ComponentParams) -> ComponentFilter {
        ComponentFilter {
            kind: p.r#type.map(Into::into),
            printer_id: p.printer_id,
            always_used: p.always_used,
        }
    }

    fn dto(v: ComponentView) -> Component {
        let c = v.component;
        Component {
            id: c.id.to_string(),
            kind: c.kind.into(),
            name: c.name,
            manufacturer_id: c.manufacturer_id.map(|m| m.to_string()),
            manufacturer: v.manufacturer,
            model: c.model,
            purchase_price: dec(c.purchase_price),
            expected_lifetime_hours: match c.lifetime {
                Lifetime::Hours(hours) => Some(dec(hours)),
                Lifetime::Prints(_) => None,
            },
            expected_lifetime_prints: match c.lifetime {
                Lifetime::Prints(prints) => Some(prints),
                Lifetime::Hours(_) => None,
            },
            always_used: c.always_used,
            printer_ids: c.printer_ids.iter().map(ToString::to_string).collect(),
            note: c.note,
            archived: c.archived,
            created_at: ts(c.created_at),
            updated_at: ts(c.updated_at),
        }
    }
}

inventory_routes!(
    Components,
    "components",
    "/components",
    "/components/{id}",
    Component,
    ComponentInput,
    [ComponentParams]
);
