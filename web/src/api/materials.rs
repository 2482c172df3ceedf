//! `/api/materials`: materials of every kind (issue 51): filaments in grams, resins in
//! millilitres, consumables in pieces or millilitres. `/api/filaments` stays the filament kind's
//! view of the same records; the stock of every kind is `/api/spools` (a resin's bottle and a
//! consumable's pack are spools of their material).

use super::inventory;
use super::inventory::{Resource, inventory_routes};
use crate::error::ApiError;
use crate::input::Faults;
use crate::input::query::Params;
use crate::wire::{WireId, dec, dec_opt, ts};
use actors::inventory::materials::{self, MaterialView};
use actors::money;
use actors::values::{self, Amount, HexColor, Name, Note, PositiveGrams, Sign};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records::{MaterialKind, StockUnit};
use utoipa::openapi::schema::{
    AdditionalProperties, KnownFormat, Object, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat,
    SchemaType, Type,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, PartialSchema, ToSchema};

/// What a material is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MaterialKindDto {
    /// Filament for FDM printers, counted in grams.
    Filament,
    /// Resin for MSLA printers, counted in millilitres, bought in bottles.
    Resin,
    /// Anything else a shop uses up (isopropyl alcohol, gloves, FEP films, boxes), counted in
    /// pieces or millilitres.
    Consumable,
}

crate::input::deserr_by_name!(MaterialKindDto);

impl From<MaterialKindDto> for MaterialKind {
    fn from(k: MaterialKindDto) -> Self {
        match k {
            MaterialKindDto::Filament => MaterialKind::Filament,
            MaterialKindDto::Resin => MaterialKind::Resin,
            MaterialKindDto::Consumable => MaterialKind::Consumable,
        }
    }
}

impl From<MaterialKind> for MaterialKindDto {
    fn from(k: MaterialKind) -> Self {
        match k {
            MaterialKind::Filament => MaterialKindDto::Filament,
            MaterialKind::Resin => MaterialKindDto::Resin,
            MaterialKind::Consumable => MaterialKindDto::Consumable,
        }
    }
}

/// The unit a material's stock, movements and uses are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StockUnitDto {
    /// Grams (a filament).
    Gram,
    /// Millilitres (a resin; a liquid consumable).
    Millilitre,
    /// Whole pieces (a counted consumable).
    Piece,
}

crate::input::deserr_by_name!(StockUnitDto);

impl From<StockUnitDto> for StockUnit {
    fn from(u: StockUnitDto) -> Self {
        match u {
            StockUnitDto::Gram => StockUnit::Gram,
            StockUnitDto::Millilitre => StockUnit::Millilitre,
            StockUnitDto::Piece => StockUnit::Piece,
        }
    }
}

impl From<StockUnit> for StockUnitDto {
    fn from(u: StockUnit) -> Self {
        match u {
            StockUnit::Gram => StockUnitDto::Gram,
            StockUnit::Millilitre => StockUnitDto::Millilitre,
            StockUnit::Piece => StockUnitDto::Piece,
        }
    }
}

/// A material of any kind.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Material {
    /// Id (UUID).
    pub id: String,
    /// FILAMENT, RESIN or CONSUMABLE.
    pub kind: MaterialKindDto,
    /// GRAM (a filament), MILLILITRE (a resin), PIECE or MILLILITRE (a consumable).
    pub unit: StockUnitDto,
    /// Derived: `<manufacturer> <material> <colorName>` (without a colour when none).
    pub name: String,
    /// Its manufacturer's id.
    pub manufacturer_id: String,
    /// Its manufacturer's name.
    pub manufacturer: String,
    /// Material (PLA, "Standard" resin, "Nitrile gloves").
    pub material: String,
    /// Colour name; null for a consumable without one.
    pub color_name: Option<String>,
    /// `#RRGGBB`, upper-case; null for a consumable without one.
    pub color_hex: Option<String>,
    /// Catalog price of one spool, bottle or pack, instance currency.
    pub purchase_price: String,
    /// Catalog net quantity of one spool, bottle or pack, in `unit`.
    pub net_quantity: String,
    /// `purchasePrice / netQuantity`: the catalog price per unit (per gram, millilitre or
    /// piece), exact.
    pub price_per_unit: String,
    /// Stock threshold, in `unit`.
    pub minimum_stock: Option<String>,
    /// A resin's density, grams per millilitre.
    pub density_grams_per_millilitre: Option<String>,
    /// Free text.
    pub note: Option<String>,
    /// Archive state.
    pub archived: bool,
    /// Creation time, ISO 8601 UTC.
    pub created_at: String,
    /// Last change, ISO 8601 UTC.
    pub updated_at: String,
}

/// Material input (create and full replace). Its OpenAPI schema is one object per kind and
/// unit ([`MaterialInput::schema`]), so a client sends only what the kind takes.
#[derive(Debug, Deserr)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct MaterialInput {
    /// FILAMENT, RESIN or CONSUMABLE; fixed after creation.
    pub kind: MaterialKindDto,
    /// Required for a consumable (PIECE or MILLILITRE); a filament is counted in GRAM and a
    /// resin in MILLILITRE, which may be sent. Fixed once the material has spools.
    #[deserr(default)]
    pub unit: Option<StockUnitDto>,
    /// Manufacturer id.
    pub manufacturer_id: WireId,
    /// Material.
    pub material: Name,
    /// Colour name: required for a filament and a resin.
    #[deserr(default)]
    pub color_name: Option<Name>,
    /// `#RRGGBB` (stored upper-case): required for a filament and a resin.
    #[deserr(default)]
    pub color_hex: Option<HexColor>,
    /// Catalog price of one spool, bottle or pack, non-negative decimal string.
    pub purchase_price: Amount,
    /// Catalog net quantity of one spool, bottle or pack in the unit, positive decimal string
    /// (whole for pieces).
    pub net_quantity: PositiveGrams,
    /// Stock threshold in the unit (whole for pieces).
    #[deserr(default)]
    pub minimum_stock: Option<Amount>,
    /// A resin's density in grams per millilitre; only for a resin.
    #[deserr(default)]
    pub density_grams_per_millilitre: Option<PositiveGrams>,
    /// Free text.
    #[deserr(default)]
    pub note: Option<Note>,
    /// Taken at creation while spool management is on: `true` (the default) books one full
    /// catalog spool, bottle or pack as its opening stock; `false` books none. Ignored on
    /// replace.
    #[deserr(default)]
    pub opening_spool: Option<bool>,
}

/// One variant of the material input: `kind`, its `unit` (required: a consumable's), whether
/// it has colours (required) and a density, and the pattern of its quantities.
struct Variant {
    kind: &'static str,
    unit: &'static str,
    unit_required: bool,
    coloured: bool,
    density: bool,
    whole: bool,
}

const VARIANTS: [Variant; 4] = [
    Variant {
        kind: "FILAMENT",
        unit: "GRAM",
        unit_required: false,
        coloured: true,
        density: false,
        whole: false,
    },
    Variant {
        kind: "RESIN",
        unit: "MILLILITRE",
        unit_required: false,
        coloured: true,
        density: true,
        whole: false,
    },
    Variant {
        kind: "CONSUMABLE",
        unit: "PIECE",
        unit_required: true,
        coloured: false,
        density: false,
        whole: true,
    },
    Variant {
        kind: "CONSUMABLE",
        unit: "MILLILITRE",
        unit_required: true,
        coloured: false,
        density: false,
        whole: false,
    },
];

impl Variant {
    fn object(&self) -> Object {
        let named = |name: &str| -> RefOr<Schema> { Ref::from_schema_name(name).into() };
        let nullable = |of: RefOr<Schema>| {
            OneOfBuilder::new()
                .item(of)
                .item(ObjectBuilder::new().schema_type(Type::Null))
        };
        let pattern = |whole: usize, fraction: usize, sign: Sign| -> RefOr<Schema> {
            let pattern = match self.whole {
                true => values::whole_pattern(whole, fraction, sign),
                false => values::decimal_pattern(whole, fraction, sign),
            };
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(pattern))
                .into()
        };
        let constant = |value: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([value]))
        };
        let colour = |name: &str| match self.coloured {
            true => named(name),
            false => nullable(named(name)).into(),
        };
        let mut object = ObjectBuilder::new()
            .property("kind", constant(self.kind))
            .required("kind")
            .property(
                "unit",
                match self.unit_required {
                    true => constant(self.unit).into(),
                    false => RefOr::from(nullable(constant(self.unit).into())),
                },
            )
            .property(
                "manufacturerId",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid))),
            )
            .required("manufacturerId")
            .property("material", named(Name::name().as_ref()))
            .required("material")
            .property("colorName", colour(Name::name().as_ref()))
            .property("colorHex", colour(HexColor::name().as_ref()))
            .property("purchasePrice", named(Amount::name().as_ref()))
            .required("purchasePrice")
            .property(
                "netQuantity",
                pattern(values::GRAMS_WHOLE, values::GRAMS_FRACTION, Sign::Positive),
            )
            .required("netQuantity")
            .property(
                "minimumStock",
                nullable(pattern(
                    values::WHOLE_DIGITS,
                    values::FRACTION_DIGITS,
                    Sign::NonNegative,
                )),
            )
            .property("note", nullable(named(Note::name().as_ref())))
            .property(
                "openingSpool",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Boolean, Type::Null]))
                    .default(Some(true.into())),
            );
        if self.unit_required {
            object = object.required("unit");
        }
        if self.coloured {
            object = object.required("colorName").required("colorHex");
        }
        if self.density {
            object = object.property(
                "densityGramsPerMillilitre",
                nullable(named(PositiveGrams::name().as_ref())),
            );
        }
        object
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some(format!("A {} counted in {}.", self.kind, self.unit)))
            .build()
    }
}

impl PartialSchema for MaterialInput {
    /// `oneOf` a filament (grams, coloured), a resin (millilitres, coloured, a density) and a
    /// consumable in pieces (whole quantities) or in millilitres. That a material's kind stays,
    /// and its unit once it has spools, is stored data, left to the answer (422
    /// `errors.immutable`).
    fn schema() -> RefOr<Schema> {
        VARIANTS
            .iter()
            .fold(
                OneOfBuilder::new().description(Some(
                    "Material input: a filament, a resin, or a consumable in pieces or \
                     millilitres.",
                )),
                |one_of, variant| one_of.item(variant.object()),
            )
            .into()
    }
}

impl ToSchema for MaterialInput {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((Name::name().into(), Name::schema()));
        schemas.push((HexColor::name().into(), HexColor::schema()));
        schemas.push((Amount::name().into(), Amount::schema()));
        schemas.push((PositiveGrams::name().into(), PositiveGrams::schema()));
        schemas.push((Note::name().into(), Note::schema()));
    }
}

/// Material list filters.
#[derive(Debug, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct MaterialParams {
    /// Only this kind: FILAMENT, RESIN or CONSUMABLE.
    #[deserr(default)]
    pub kind: Option<MaterialKindDto>,
}

impl Params for MaterialParams {}

/// The materials resource.
pub struct Materials;

impl Resource for Materials {
    type Kind = materials::Materials;
    type Dto = Material;
    type Input = MaterialInput;

    fn domain(i: MaterialInput) -> Result<inventory::Input<Self>, ApiError> {
        Ok(materials::MaterialInput {
            kind: i.kind.into(),
            unit: i.unit.map(Into::into),
            manufacturer_id: i.manufacturer_id.0,
            material: i.material,
            color_name: i.color_name,
            color_hex: i.color_hex,
            purchase_price: i.purchase_price,
            net_quantity: i.net_quantity,
            minimum_stock: i.minimum_stock,
            density_grams_per_millilitre: i.density_grams_per_millilitre,
            note: i.note,
            opening_spool: i.opening_spool.unwrap_or(true),
        })
    }

    type Params = MaterialParams;

    fn filter(p: MaterialParams) -> Option<MaterialKind> {
        p.kind.map(Into::into)
    }

    fn dto(v: MaterialView) -> Material {
        let f = v.filament;
        let text = |s: String| Some(s).filter(|s| !s.is_empty());
        Material {
            id: f.id.to_string(),
            kind: f.kind.into(),
            unit: f.unit.into(),
            name: v.name,
            manufacturer_id: f.manufacturer_id.to_string(),
            manufacturer: v.manufacturer,
            material: f.material,
            color_name: text(f.color_name),
            color_hex: text(f.color_hex),
            price_per_unit: dec(money::rate(f.purchase_price, f.net_weight_grams)),
            purchase_price: dec(f.purchase_price),
            net_quantity: dec(f.net_weight_grams),
            minimum_stock: dec_opt(f.minimum_stock_grams),
            density_grams_per_millilitre: dec_opt(f.density_grams_per_millilitre),
            note: f.note,
            archived: f.archived,
            created_at: ts(f.created_at),
            updated_at: ts(f.updated_at),
        }
    }
}

inventory_routes!(
    Materials,
    "materials",
    "/materials",
    "/materials/{id}",
    Material,
    MaterialInput,
    [MaterialParams]
);
