//! The OpenAPI schema of a print's part ([`PartInputDto`]): `oneOf` a part on an FDM printer
//! (hotends, filament) and a part on an MSLA printer (a vat, resin), each object closed. Which
//! technology a printer has is stored data: a part of the other shape is refused at its field
//! (422 `errors.notForPrinter`), as is a material line of the other printing material.

use super::input::{FilamentLine, HotendLine, MaterialLineInput, PartInputDto, VatLine};
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, KnownFormat, Object, ObjectBuilder, OneOfBuilder, Schema,
    SchemaFormat, Type,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// A UUID string.
fn uuid() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)))
}

/// An array of the component schema `name`, with at least `min` and at most `max` items.
fn list_of(name: &str, min: Option<usize>, max: Option<usize>) -> ArrayBuilder {
    ArrayBuilder::new()
        .items(Ref::from_schema_name(name))
        .min_items(min)
        .max_items(max)
}

/// The fields both shapes share: the part's id, its printer, build plate and other components.
fn common(description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .description(Some(description))
        .property(
            "id",
            OneOfBuilder::new()
                .item(uuid())
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .description(Some(
                    "The part's id when editing an existing part; omit for a new part.",
                )),
        )
        .property("printerId", uuid().description(Some("The printer.")))
        .required("printerId")
        .property(
            "buildPlateId",
            uuid().description(Some("A component of type BUILD_PLATE.")),
        )
        .required("buildPlateId")
        .property(
            "otherComponentIds",
            ArrayBuilder::new()
                .items(uuid())
                .unique_items(true)
                .description(Some("Components of type OTHER, each at most once.")),
        )
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
}

/// A part on an FDM printer: hotends and at least one filament line; consumables as material
/// lines (a resin there is 422 `errors.notForPrinter`).
fn fdm() -> Object {
    common("A part on an FDM printer: its hotends, filament and consumables.")
        .property(
            "hotends",
            list_of(&HotendLine::name(), Some(1), None)
                .description(Some("One or more hotends with their printing times.")),
        )
        .required("hotends")
        .property(
            "vat",
            ObjectBuilder::new()
                .schema_type(Type::Null)
                .description(Some("None: an FDM printer has no vat.")),
        )
        .property(
            "filaments",
            list_of(&FilamentLine::name(), Some(1), None)
                .description(Some("One or more filament lines.")),
        )
        .required("filaments")
        .property(
            "materials",
            list_of(&MaterialLineInput::name(), None, None)
                .description(Some("Consumables, each in its material's unit.")),
        )
        .build()
}

/// A part on an MSLA printer: its vat and at least one resin line, consumables beside them.
fn msla() -> Object {
    common("A part on an MSLA printer: its vat, resin and consumables.")
        .property("vat", Ref::from_schema_name(VatLine::name()))
        .required("vat")
        .property(
            "hotends",
            list_of(&HotendLine::name(), None, Some(0))
                .description(Some("None: a resin printer has no hotends.")),
        )
        .property(
            "filaments",
            list_of(&FilamentLine::name(), None, Some(0))
                .description(Some("None: a resin printer prints no filament.")),
        )
        .property(
            "materials",
            list_of(&MaterialLineInput::name(), Some(1), None).description(Some(
                "Resin (at least one line) and consumables, each in its material's unit.",
            )),
        )
        .required("materials")
        .build()
}

impl PartialSchema for PartInputDto {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .description(Some(
                "One part: one printer run, on an FDM or an MSLA printer (the printer's \
                 technology decides which: the other shape is 422 errors.notForPrinter).",
            ))
            .item(fdm())
            .item(msla())
            .into()
    }
}

impl ToSchema for PartInputDto {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        for (name, schema, more) in [
            (
                HotendLine::name(),
                HotendLine::schema(),
                HotendLine::schemas as fn(&mut _),
            ),
            (VatLine::name(), VatLine::schema(), VatLine::schemas),
            (
                FilamentLine::name(),
                FilamentLine::schema(),
                FilamentLine::schemas,
            ),
            (
                MaterialLineInput::name(),
                MaterialLineInput::schema(),
                MaterialLineInput::schemas,
            ),
        ] {
            schemas.push((name.into(), schema));
            more(schemas);
        }
    }
}
