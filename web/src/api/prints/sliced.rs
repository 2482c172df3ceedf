//! `POST /api/prints/sliced`: a sliced file's preview. The maker uploads one G-code, 3MF or SLA
//! archive; the answer says what the slicer wrote (per plate the time, per filament slot grams,
//! material and colour; an SLA job's resin in millilitres) with the appliance's suggestions
//! (printer, components, filament or resin, spool or bottle), ready to be confirmed and sent as
//! a draft. Nothing is stored.
//!
//! The upload streams: a G-code file keeps only its head and tail in memory
//! ([`actors::sliced::Sample`]); a package is spooled to an anonymous file beside the database
//! and read from there. Both are hashed (SHA-256) while they stream.

use crate::error::{ApiError, Code, ErrorBody};
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{WireSha256, dec, dec_opt};
use actix_multipart::{Field, Multipart};
use actix_web::post;
use actix_web::web::{self, Data, Json};
use actors::prints::PrintsFromFile;
use actors::sliced::suggest::{Suggest, Suggestions};
use actors::sliced::{self, MAX_PACKAGE_BYTES, Refusal, Sample, Sliced, gcode, package};
use futures_util::StreamExt;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{Seek, Write};
use utoipa::ToSchema;

/// The upload: `multipart/form-data` with the sliced file in the field `file`.
#[derive(Debug, ToSchema)]
#[allow(dead_code)]
pub struct SlicedUpload {
    /// The sliced file: text G-code (`.gcode`), a sliced 3MF (`.gcode.3mf`), a Cura UFP or
    /// PrusaSlicer's SLA archive (`.sl1`, `.sl1s`).
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// The uploaded file as received.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlicedFileDto {
    /// Its name as the browser sent it (a name only, never a path), at most 200 characters.
    pub name: String,
    /// Lower-case hex SHA-256 of its bytes.
    pub sha256: String,
    /// Its size, bytes.
    pub bytes: u64,
}

/// One filament slot of a plate, with the suggested filament and spool.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlicedFilamentDto {
    /// The slot's number, from 1 (extruder 1, AMS tray 1).
    pub slot: u32,
    /// Grams, decimal string: the slicer's, or derived from the length (`gramsDerived`).
    pub grams: Option<String>,
    /// True when `grams` was computed from the length with a material's density (the slicer
    /// wrote no weight).
    pub grams_derived: bool,
    /// Filament length, millimetres, decimal string.
    pub millimetres: Option<String>,
    /// Material as the slicer names it.
    pub material: Option<String>,
    /// Colour, `#RRGGBB`.
    pub colour: Option<String>,
    /// The suggested filament: that material, nearest colour.
    pub filament_id: Option<String>,
    /// The suggested spool (spool management on): that filament's with the most left.
    pub spool_id: Option<String>,
}

/// One plate of the file: one part of the draft.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlicedPartDto {
    /// The plate's number in the file, from 1.
    pub plate: u32,
    /// The slicer's estimated printing time, seconds.
    pub duration_seconds: Option<u32>,
    /// The suggested printer: its model or name matches the file's printer model, or it is the
    /// only one.
    pub printer_id: Option<String>,
    /// The build plate a new draft on that printer preselects.
    pub build_plate_id: Option<String>,
    /// The hotend a new draft on that printer preselects (an FDM printer's).
    pub hotend_id: Option<String>,
    /// The vat a new draft on that printer preselects (an MSLA printer's, for an SLA job).
    pub vat_id: Option<String>,
    /// Other components a new draft on that printer preselects.
    #[schema(value_type = BTreeSet<String>, format = Uuid)]
    pub other_component_ids: Vec<String>,
    /// The slots the plate uses (none for an SLA job).
    pub filaments: Vec<SlicedFilamentDto>,
    /// An SLA job's resin (null for filament).
    pub resin: Option<SlicedResinDto>,
}

/// The resin of an SLA job's plate, with the suggested resin and bottle.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlicedResinDto {
    /// Millilitres, decimal string, exactly as the slicer wrote them (`usedMaterial`).
    pub millilitres: String,
    /// The slicer's resin profile.
    pub material: Option<String>,
    /// The suggested resin: the one whose material and colour the profile names, or the only
    /// one.
    pub material_id: Option<String>,
    /// The suggested bottle (spool management on): that resin's with the most left.
    pub spool_id: Option<String>,
}

/// A print made from the same file before.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExistingPrintDto {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// What a sliced file says, with suggestions.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlicedPreviewDto {
    /// The file.
    pub file: SlicedFileDto,
    /// The slicer: `PrusaSlicer`, `SuperSlicer`, `OrcaSlicer`, `BambuStudio`, `Cura`.
    pub slicer: String,
    /// Its version as written in the file.
    pub slicer_version: Option<String>,
    /// The printer model the file was sliced for.
    pub printer_model: Option<String>,
    /// One per plate, in plate order.
    pub parts: Vec<SlicedPartDto>,
    /// The prints made from this same file (by its SHA-256) before, oldest first; another may
    /// still be made.
    pub existing_prints: Vec<ExistingPrintDto>,
}

impl SlicedPreviewDto {
    fn of(
        file: SlicedFileDto,
        sliced: Sliced,
        suggestions: Suggestions,
        existing: Vec<(storage::Id, String)>,
    ) -> SlicedPreviewDto {
        let id = |id: Option<storage::Id>| id.map(|i| i.to_string());
        let parts = sliced
            .plates
            .into_iter()
            .zip(suggestions.plates)
            .map(|(plate, suggested)| SlicedPartDto {
                plate: plate.number,
                duration_seconds: plate.seconds,
                printer_id: id(suggested.printer_id),
                build_plate_id: id(suggested.build_plate_id),
                hotend_id: id(suggested.hotend_id),
                vat_id: id(suggested.vat_id),
                other_component_ids: suggested
                    .other_component_ids
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                filaments: plate
                    .slots
                    .into_iter()
                    .zip(suggested.slots)
                    .map(|(slot, s)| SlicedFilamentDto {
                        slot: slot.number,
                        grams: dec_opt(s.grams),
                        grams_derived: s.grams_derived,
                        millimetres: dec_opt(slot.millimetres),
                        material: slot.material,
                        colour: slot.colour,
                        filament_id: id(s.filament_id),
                        spool_id: id(s.spool_id),
                    })
                    .collect(),
                resin: plate.resin.map(|r| {
                    let suggested = suggested.resin.unwrap_or_default();
                    SlicedResinDto {
                        millilitres: dec(r.millilitres),
                        material: r.material,
                        material_id: id(suggested.material_id),
                        spool_id: id(suggested.spool_id),
                    }
                }),
            })
            .collect();
        SlicedPreviewDto {
            file,
            slicer: sliced.slicer,
            slicer_version: sliced.slicer_version,
            printer_model: sliced.printer_model,
            parts,
            existing_prints: existing
                .into_iter()
                .map(|(id, name)| ExistingPrintDto {
                    id: id.to_string(),
                    name,
                })
                .collect(),
        }
    }
}

/// Reads a sliced file and answers what it says, with the appliance's suggestions for a draft.
/// Nothing is stored.
#[utoipa::path(
    tag = "prints",
    request_body(content = SlicedUpload, content_type = "multipart/form-data"),
    responses(
        (status = 200, body = SlicedPreviewDto),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 413, description = "SLICED_FILE_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "VALIDATION_FAILED (no `file` field), or the file's refusal: SLICED_FILE_UNRECOGNIZED, _TRUNCATED, _NOT_TEXT, _NOT_PACKAGE, _BROKEN_ARCHIVE, _BROKEN_METADATA, _NOT_SLICED, _BINARY_GCODE, _PLACEHOLDERS, _ENTRY_TOO_LARGE", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[post("/prints/sliced")]
pub async fn preview(
    state: Data<AppState>,
    _user: CurrentUser,
    mut form: Multipart,
) -> Result<Json<SlicedPreviewDto>, ApiError> {
    Ok(Json(preview_of(&state, &mut form).await?))
}

/// The preview of the form's field `file` (the API's and the UI's upload alike).
///
/// Errors: no field `file` (422 `errors.required` at `file`); see [`read`].
pub async fn preview_of(
    state: &AppState,
    form: &mut Multipart,
) -> Result<SlicedPreviewDto, ApiError> {
    let missing = || ApiError::field("file", "errors.required");
    let field = loop {
        let field = form.next().await.ok_or_else(missing)?.map_err(|e| {
            ApiError::field("file", "errors.unreadableBody").with_message(e.to_string())
        })?;
        if field.name() == Some("file") {
            break field;
        }
    };
    let (file, sha256, sliced) = read(field, state.store.dir()).await?;
    let suggestions = state.query(Suggest(sliced.clone())).await?;
    let existing = state.query(PrintsFromFile(sha256)).await?;
    Ok(SlicedPreviewDto::of(file, sliced, suggestions, existing))
}

/// What an upload has become while it streams: the sample of a G-code file, or a package
/// spooled to an anonymous file.
enum Upload {
    Gcode(Sample),
    Package(File, u64),
}

/// Reads the field `file` to its end and parses it (off the async executor).
///
/// Errors: the field cannot be read (422 `errors.unreadableBody` at `file`); the file's
/// [`Refusal`]; the spool file cannot be written (500).
async fn read(
    mut field: Field,
    dir: Option<std::path::PathBuf>,
) -> Result<(SlicedFileDto, [u8; 32], Sliced), ApiError> {
    let name = file_name(
        field
            .content_disposition()
            .and_then(|d| d.get_filename())
            .unwrap_or_default(),
    );
    let unreadable = |e: actix_multipart::MultipartError| {
        ApiError::field("file", "errors.unreadableBody").with_message(e.to_string())
    };
    let mut hasher = Sha256::new();
    let mut upload: Option<Upload> = None;
    // The first bytes, until there are enough to tell a package from G-code: a client may send
    // them in a chunk of their own.
    let mut head: Vec<u8> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    let mut bytes: u64 = 0;
    while let Some(chunk) = field.next().await {
        let chunk = chunk.map_err(unreadable)?;
        hasher.update(&chunk);
        bytes = bytes.saturating_add(chunk.len() as u64);
        let current = match upload.take() {
            Some(current) => current,
            None => {
                head.extend_from_slice(&chunk);
                if head.len() < sliced::MAGIC_BYTES {
                    continue;
                }
                let first = std::mem::take(&mut head);
                let started = start(&first, dir.clone()).await?;
                upload = Some(take(started, &first, bytes, &mut pending).await?);
                continue;
            }
        };
        upload = Some(take(current, &chunk, bytes, &mut pending).await?);
    }
    if !head.is_empty() {
        let started = start(&head, dir).await?;
        upload = Some(take(started, &head, bytes, &mut pending).await?);
    }
    let sliced = match upload {
        None => Err(Refusal::Unrecognized.into()),
        Some(Upload::Gcode(sample)) => web::block(move || gcode::parse(&sample))
            .await
            .map_err(internal)?
            .map_err(ApiError::from),
        Some(Upload::Package(file, written)) => {
            let (mut file, len) = spool(file, written, pending).await?;
            web::block(move || {
                file.rewind().map_err(|_| Refusal::BrokenArchive)?;
                package::parse(file, len)
            })
            .await
            .map_err(internal)?
            .map_err(ApiError::from)
        }
    }?;
    let sha256: [u8; 32] = hasher.finalize().into();
    let file = SlicedFileDto {
        name,
        sha256: WireSha256(sha256).hex(),
        bytes,
    };
    Ok((file, sha256, sliced))
}

/// The upload that `head` (at least [`sliced::MAGIC_BYTES`] bytes, or the whole file) starts:
/// a package spooled to a temporary file in `dir`, or G-code sampled in memory.
///
/// Errors: the spool file cannot be made (500).
async fn start(head: &[u8], dir: Option<std::path::PathBuf>) -> Result<Upload, ApiError> {
    if !sliced::is_package(head) {
        return Ok(Upload::Gcode(Sample::default()));
    }
    let file = web::block(move || match dir {
        Some(dir) => tempfile::tempfile_in(dir),
        None => tempfile::tempfile(),
    })
    .await
    .map_err(internal)?
    .map_err(internal)?;
    Ok(Upload::Package(file, 0))
}

/// `upload` after its next `chunk` (`bytes` read so far): a G-code sample takes it; a package
/// gathers it in `pending` and spools it a MiB at a time.
///
/// Errors: the file is too large ([`Refusal::TooLarge`]); the spool file cannot be written.
async fn take(
    upload: Upload,
    chunk: &[u8],
    bytes: u64,
    pending: &mut Vec<u8>,
) -> Result<Upload, ApiError> {
    Ok(match upload {
        Upload::Gcode(mut sample) => {
            sample.push(chunk)?;
            Upload::Gcode(sample)
        }
        Upload::Package(file, written) => {
            if bytes > MAX_PACKAGE_BYTES {
                return Err(Refusal::TooLarge.into());
            }
            pending.extend_from_slice(chunk);
            if pending.len() < 1 << 20 {
                Upload::Package(file, written)
            } else {
                let (file, len) = spool(file, written, std::mem::take(pending)).await?;
                Upload::Package(file, len)
            }
        }
    })
}

/// Appends `bytes` to the spool `file` (off the async executor); answers it and its new length.
async fn spool(mut file: File, written: u64, bytes: Vec<u8>) -> Result<(File, u64), ApiError> {
    let len = written.saturating_add(bytes.len() as u64);
    web::block(move || file.write_all(&bytes).map(|()| file))
        .await
        .map_err(internal)?
        .map(|file| (file, len))
        .map_err(internal)
}

/// 500: the spool file could not be made or written, or a blocking task failed.
fn internal<E: std::fmt::Display>(error: E) -> ApiError {
    tracing::error!(%error, "sliced file upload failed");
    ApiError::new(Code::Internal)
}

/// The name part of a browser's file name: after the last `/` or `\`, without control
/// characters, at most 200 characters (a draft's source takes a name of up to 200).
fn file_name(sent: &str) -> String {
    let last = sent.rsplit(['/', '\\']).next().unwrap_or_default();
    last.chars().filter(|c| !c.is_control()).take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn a_file_name_is_a_name_never_a_path() {
        assert_eq!(file_name("../../etc/passwd"), "passwd");
        assert_eq!(file_name("C:\\Users\\me\\cube.gcode"), "cube.gcode");
        assert_eq!(file_name("a\u{0}b\nc.gcode"), "abc.gcode");
        assert_eq!(file_name(&"x".repeat(300)).len(), 200);
    }
}
