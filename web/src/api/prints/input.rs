//! Print request bodies: the draft DTO (nested `parts`, or the legacy flat one-part form) and its
//! conversion to the rules' input.

use crate::api::charges::Per;
use crate::body_forms::Alternative;
use crate::error::ApiError;
use crate::input::Faults;
use crate::wire::{WireId, WireSha256};
use actors::prints::{
    CreateDraft, FilamentInput, HotendInput, MaterialLine, PartInput, PrintInput,
    PrintMaterialInput, WorkInput,
};
use actors::values::{Amount, Grams, Name, Note, Seconds};
use deserr::Deserr;
use serde::{Deserialize, Serialize};
use storage::records::{PrintSource, WorkSource};
use utoipa::ToSchema;

/// What a work line prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WorkKind {
    /// Minutes at a labour rate (`/api/labour-rates`).
    Labour,
    /// A count of a fixed charge (`/api/charges`).
    Charge,
    /// Minutes of a post-processing step (`/api/post-processing-steps`), with its machine.
    Step,
}

crate::input::deserr_by_name!(WorkKind);

impl WorkKind {
    /// The kind of a stored source.
    pub fn of(source: WorkSource) -> WorkKind {
        match source {
            WorkSource::Labour(_) => WorkKind::Labour,
            WorkSource::Charge(_) => WorkKind::Charge,
            WorkSource::Step(_) => WorkKind::Step,
        }
    }
}

/// One work line of a draft.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct WorkLineInput {
    /// LABOUR, CHARGE or STEP.
    pub kind: WorkKind,
    /// The labour rate, charge or post-processing step.
    #[schema(value_type = String, format = Uuid)]
    pub source_id: WireId,
    /// Labour minutes: required for LABOUR, the step's own when left out for STEP, refused for
    /// CHARGE.
    #[schema(example = "7")]
    #[deserr(default)]
    pub minutes: Option<Amount>,
    /// How many of a CHARGE (default 1); refused for LABOUR and STEP.
    #[schema(example = "1")]
    #[deserr(default)]
    pub count: Option<Amount>,
    /// PIECE (every unit of the run) or JOB (once); left out: the charge's or the step's own,
    /// JOB for labour.
    #[deserr(default)]
    pub per: Option<Per>,
}

impl From<WorkLineInput> for WorkInput {
    fn from(w: WorkLineInput) -> Self {
        let id = w.source_id.0;
        WorkInput {
            source: match w.kind {
                WorkKind::Labour => WorkSource::Labour(id),
                WorkKind::Charge => WorkSource::Charge(id),
                WorkKind::Step => WorkSource::Step(id),
            },
            minutes: w.minutes,
            count: w.count,
            per: w.per.map(Into::into),
        }
    }
}

/// A hotend and its printing time.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct HotendLine {
    /// A component of type HOTEND.
    #[schema(value_type = String, format = Uuid)]
    pub component_id: WireId,
    /// Printing time of this hotend, seconds (0 to 2,147,483,647).
    #[schema(value_type = u32, maximum = 2147483647)]
    pub duration_seconds: Seconds,
}

/// A filament line.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct FilamentLine {
    /// The filament.
    #[schema(value_type = String, format = Uuid)]
    pub filament_id: WireId,
    /// Grams for the whole run: at most 12 whole and 6 fractional digits.
    #[schema(example = "42.5")]
    pub used_grams: Grams,
    /// The spool (with spool management on; ignored when it is off).
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub spool_id: Option<WireId>,
}

/// A resin part's vat and the part's printing time.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct VatLine {
    /// A component of type VAT.
    #[schema(value_type = String, format = Uuid)]
    pub component_id: WireId,
    /// The part's printing time, seconds (0 to 2,147,483,647).
    #[schema(value_type = u32, maximum = 2147483647)]
    pub duration_seconds: Seconds,
}

/// A material line: a filament, a resin or a consumable, in the material's unit.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct MaterialLineInput {
    /// The material (`/api/materials`).
    #[schema(value_type = String, format = Uuid)]
    pub material_id: WireId,
    /// Quantity for the whole run in the material's unit (grams, millilitres, whole pieces): at
    /// most 12 whole and 6 fractional digits.
    #[schema(example = "36.4")]
    pub quantity: Grams,
    /// The spool, bottle or pack (with spool management on; ignored when it is off).
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub spool_id: Option<WireId>,
}

/// A consumable of the whole print: so much per piece or per job (a box per piece, 50 ml of
/// isopropyl alcohol per job).
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PrintMaterialLine {
    /// A material of kind CONSUMABLE (`/api/materials`; another kind is 422
    /// `errors.notConsumable`).
    #[schema(value_type = String, format = Uuid)]
    pub material_id: WireId,
    /// Quantity per piece or per job in the material's unit (millilitres, whole pieces): at
    /// most 12 whole and 6 fractional digits.
    #[schema(example = "1")]
    pub amount: Grams,
    /// PIECE: `amount` for every unit the print makes; JOB (when left out): once for the whole
    /// print.
    #[deserr(default)]
    pub per: Option<Per>,
    /// The pack or bottle (with spool management on; ignored when it is off).
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub spool_id: Option<WireId>,
}

impl From<PrintMaterialLine> for PrintMaterialInput {
    fn from(l: PrintMaterialLine) -> Self {
        PrintMaterialInput {
            material_id: l.material_id.0,
            amount: l.amount,
            per: l.per.unwrap_or(Per::Job).into(),
            spool_id: l.spool_id.map(|s| s.0),
        }
    }
}

/// One part: one printer run. Its schema (`part_schema.rs`) is one object for a part on an FDM
/// printer, one for a part on an MSLA printer.
#[derive(Debug, Deserr)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PartInputDto {
    /// The part's id when editing an existing part; omit for a new part.
    #[deserr(default)]
    pub id: Option<WireId>,
    /// The printer.
    pub printer_id: WireId,
    /// A component of type BUILD_PLATE.
    pub build_plate_id: WireId,
    /// An FDM printer's part: one or more hotends with their printing times (422
    /// `errors.required` without, `errors.notForPrinter` on an MSLA printer).
    #[deserr(default)]
    pub hotends: Vec<HotendLine>,
    /// An MSLA printer's part: its vat and printing time (422 `errors.required` without,
    /// `errors.notForPrinter` on an FDM printer).
    #[deserr(default)]
    pub vat: Option<VatLine>,
    /// Components of type OTHER, each at most once.
    #[deserr(default)]
    pub other_component_ids: Vec<WireId>,
    /// Filament lines (an FDM printer's part).
    #[deserr(default)]
    pub filaments: Vec<FilamentLine>,
    /// Material lines: the printer's printing material (filament on FDM, resin on MSLA; 422
    /// `errors.notForPrinter` for the other) and consumables. A part has at least one line of
    /// its printing material, here or in `filaments` (422 `errors.required` at `filaments` on
    /// FDM, at `materials` on MSLA); pieces are whole (`errors.wholeNumber`).
    #[deserr(default)]
    pub materials: Vec<MaterialLineInput>,
}

/// Print draft input. Send `parts` (1 to 100), or for a one-part print the legacy flat form with
/// `printerId`, `buildPlateId`, `hotends`, `otherComponentIds` and `filaments` at the root.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct PrintInputDto {
    /// Name.
    #[schema(example = "Phone stand")]
    pub name: Name,
    /// Customer (a series' customer is inherited; another one is refused).
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub customer_id: Option<WireId>,
    /// Series.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub series_id: Option<WireId>,
    /// Units made by the run, 1 to 1,000,000 (default 1).
    #[schema(minimum = 1, maximum = 1000000)]
    #[deserr(default)]
    pub quantity: Option<u32>,
    /// Sales value of the whole run, non-negative, instance currency.
    #[schema(example = "12.50")]
    #[deserr(default)]
    pub sales_value: Option<Amount>,
    /// Free text.
    #[deserr(default)]
    pub notes: Option<Note>,
    /// Ordered parts, 1 to 100.
    #[schema(min_items = 1, max_items = 100)]
    #[deserr(default)]
    pub parts: Option<Vec<PartInputDto>>,
    /// Legacy flat form: the printer.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub printer_id: Option<WireId>,
    /// Legacy flat form: the build plate.
    #[schema(value_type = Option<String>, format = Uuid)]
    #[deserr(default)]
    pub build_plate_id: Option<WireId>,
    /// Legacy flat form: hotends.
    #[schema(min_items = 1)]
    #[deserr(default)]
    pub hotends: Option<Vec<HotendLine>>,
    /// Legacy flat form: other components, each at most once.
    #[schema(value_type = Option<BTreeSet<String>>, format = Uuid)]
    #[deserr(default)]
    pub other_component_ids: Option<Vec<WireId>>,
    /// Legacy flat form: filament lines.
    #[schema(min_items = 1)]
    #[deserr(default)]
    pub filaments: Option<Vec<FilamentLine>>,
    /// Work lines (labour, charges, post-processing steps), up to 100; priced after the parts.
    #[schema(max_items = 100)]
    #[deserr(default)]
    pub work: Option<Vec<WorkLineInput>>,
    /// Consumables of the whole print, up to 100, each per piece or per job; priced after the
    /// work lines and booked by outcomes like a part's materials.
    #[schema(max_items = 100)]
    #[deserr(default)]
    pub materials: Option<Vec<PrintMaterialLine>>,
    /// Create only: the sliced file the draft is made from, as `POST /api/prints/sliced`
    /// answered it; remembered, so that the same file again names this print. A replace keeps
    /// what the create remembered.
    #[deserr(default)]
    pub source: Option<SourceInput>,
}

/// The sliced file a draft is made from.
#[derive(Debug, Deserr, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[deserr(error = Faults, rename_all = camelCase, deny_unknown_fields)]
pub struct SourceInput {
    /// The file's name.
    #[schema(example = "cube.gcode")]
    pub file_name: Name,
    /// Lower-case hex SHA-256 of the file.
    #[schema(value_type = String, pattern = "^[0-9a-fA-F]{64}$")]
    pub sha256: WireSha256,
    /// The slicer that wrote it.
    #[schema(example = "PrusaSlicer")]
    pub slicer: Name,
    /// Its version as written in the file.
    #[deserr(default)]
    pub slicer_version: Option<Name>,
}

impl From<SourceInput> for PrintSource {
    fn from(s: SourceInput) -> PrintSource {
        PrintSource {
            file_name: s.file_name.into_inner(),
            sha256: s.sha256.0,
            slicer: s.slicer.into_inner(),
            slicer_version: s.slicer_version.map(Name::into_inner),
        }
    }
}

fn part(p: PartInputDto) -> PartInput {
    PartInput {
        id: p.id.map(|i| i.0),
        printer_id: p.printer_id.0,
        build_plate_id: p.build_plate_id.0,
        hotends: p
            .hotends
            .into_iter()
            .map(|h| HotendInput {
                component_id: h.component_id.0,
                duration_seconds: h.duration_seconds,
            })
            .collect(),
        vat: p.vat.map(|v| HotendInput {
            component_id: v.component_id.0,
            duration_seconds: v.duration_seconds,
        }),
        other_component_ids: p.other_component_ids.into_iter().map(|c| c.0).collect(),
        filaments: p
            .filaments
            .into_iter()
            .map(|f| FilamentInput {
                filament_id: f.filament_id.0,
                used_grams: f.used_grams,
                spool_id: f.spool_id.map(|s| s.0),
            })
            .collect(),
        materials: p
            .materials
            .into_iter()
            .map(|m| MaterialLine {
                material_id: m.material_id.0,
                quantity: m.quantity,
                spool_id: m.spool_id.map(|s| s.0),
            })
            .collect(),
    }
}

impl PrintInputDto {
    fn has_flat_fields(&self) -> bool {
        self.printer_id.is_some()
            || self.build_plate_id.is_some()
            || self.hotends.is_some()
            || self.other_component_ids.is_some()
            || self.filaments.is_some()
    }

    /// The create command: the rules' input and the sliced file it was made from.
    ///
    /// Errors: as [`PrintInputDto::into_input`].
    pub fn create(mut self) -> Result<CreateDraft, ApiError> {
        let source = self.source.take().map(PrintSource::from);
        Ok(CreateDraft {
            input: self.into_input()?,
            source,
        })
    }

    /// The rules' input (which refuse the flat form on an edit of a multipart print).
    ///
    /// Errors: 422 on `parts` when both or neither form is sent; on a flat field missing.
    pub fn into_input(mut self) -> Result<PrintInput, ApiError> {
        let flat = self.has_flat_fields();
        let parts = match self.parts.take() {
            Some(_) if flat => return Err(ApiError::field("parts", "errors.mixedPartForms")),
            Some(parts) => parts,
            None if !flat => return Err(ApiError::field("parts", "errors.required")),
            None => {
                let required = |path: &str| ApiError::field(path.to_string(), "errors.required");
                vec![PartInputDto {
                    id: None,
                    printer_id: self.printer_id.ok_or_else(|| required("printerId"))?,
                    build_plate_id: self
                        .build_plate_id
                        .ok_or_else(|| required("buildPlateId"))?,
                    hotends: self.hotends.take().ok_or_else(|| required("hotends"))?,
                    vat: None,
                    other_component_ids: self.other_component_ids.take().unwrap_or_default(),
                    filaments: self.filaments.take().ok_or_else(|| required("filaments"))?,
                    materials: Vec::new(),
                }]
            }
        };
        Ok(PrintInput {
            name: self.name,
            customer_id: self.customer_id.map(|c| c.0),
            series_id: self.series_id.map(|s| s.0),
            quantity: self.quantity.unwrap_or(1),
            sales_value: self.sales_value,
            notes: self.notes,
            parts: parts.into_iter().map(part).collect(),
            work: self
                .work
                .take()
                .unwrap_or_default()
                .into_iter()
                .map(Into::into)
                .collect(),
            materials: self
                .materials
                .take()
                .unwrap_or_default()
                .into_iter()
                .map(Into::into)
                .collect(),
            flat,
        })
    }
}

/// The two forms [`PrintInputDto::into_input`] takes (sending both or neither is 422): the parts
/// form, and the legacy flat form of a one-part print.
pub const FORMS: [Alternative; 2] = [
    Alternative::needed(&["parts"]),
    Alternative {
        fields: &[
            "printerId",
            "buildPlateId",
            "hotends",
            "otherComponentIds",
            "filaments",
        ],
        required: &["printerId", "buildPlateId", "hotends", "filaments"],
    },
];
