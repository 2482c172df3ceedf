//! PrusaSlicer's SLA archives (issue 51): `.sl1` and `.sl1s`, a zip whose `config.ini` says
//! what the job uses. The facts relied on (`docs/sliced-files.md`): `config.ini` is `key = value`
//! lines; `usedMaterial` is the resin the job uses, millilitres; `printTime` its estimated
//! time, seconds (PrusaSlicer writes a fraction: `1525.000005`); `materialName` and
//! `printerModel` name the resin and the printer profile (empty when none was chosen);
//! `numFast` and `numSlow` count its layers by tilt speed (one PNG entry beside it per layer),
//! `numFade` the first layers whose exposure fades from the first layer's to the others' (among
//! those, not beside them: a 20 mm cube at 0.1 mm writes `numFade = 10`, `numFast = 198` and
//! 198 images); `layerHeight` is in millimetres. `prusaslicer.ini` beside it holds the
//! slicer's whole configuration and marks the archive as PrusaSlicer's.
//!
//! Read as the other packages are (opened by [`super::package::parse`]): the central directory
//! within its bounds before anything is inflated, `config.ini` checked against
//! [`super::MAX_ENTRY_BYTES`] before and while it is inflated, no entry name used as a path, no
//! layer image read.

use super::{Plate, Refusal, Resin, Sliced, decimal, entry};
use crate::values::MAX_SECONDS;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use std::io::{Read, Seek};
use zip::ZipArchive;

/// What an SLA archive says about its job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlaJob {
    /// The slicer's version as it wrote it (`PrusaSlicer-2.5.0+linux-x64`).
    pub slicer_version: Option<String>,
    /// The printer profile it was sliced for (`SL1S`), when one was chosen.
    pub printer_model: Option<String>,
    /// The resin profile (`Prusament Resin Tough Prusa Orange`), when one was chosen.
    pub material_name: Option<String>,
    /// Resin used, millilitres, exactly as written (at most 6 fractional digits).
    pub millilitres: Decimal,
    /// Estimated printing time, whole seconds: `printTime` rounded to the nearest second, a
    /// half up.
    pub seconds: u32,
    /// Layers in all: `numFast + numSlow`.
    pub layers: u32,
    /// Of them, the first ones whose exposure fades: `numFade`.
    pub fade_layers: u32,
    /// Layer height, millimetres, when written.
    pub layer_height: Option<Decimal>,
}

/// Whether the zip `archive` is an SLA archive: it holds `config.ini` and `prusaslicer.ini`.
pub fn is_sla<R: Read + Seek>(archive: &ZipArchive<R>) -> bool {
    archive.index_for_name("config.ini").is_some()
        && archive.index_for_name("prusaslicer.ini").is_some()
}

/// What the SLA archive `archive` says (its size and directory already within the packages'
/// bounds: [`super::package::parse`] opens it).
///
/// Errors: [`Refusal::EntryTooLarge`] for a `config.ini` beyond [`super::MAX_ENTRY_BYTES`];
/// [`Refusal::BrokenArchive`]; [`Refusal::NotPackage`] for a zip that is no SLA archive;
/// [`Refusal::BrokenMetadata`] for a `config.ini` that is not UTF-8 `key = value` lines, or
/// without a `usedMaterial`, `printTime` or layer count it can read (negative, above the
/// limits, not a plain decimal).
pub fn from_archive<R: Read + Seek>(archive: &mut ZipArchive<R>) -> Result<SlaJob, Refusal> {
    if !is_sla(archive) {
        return Err(Refusal::NotPackage);
    }
    let config = entry(archive, "config.ini")?.ok_or(Refusal::NotPackage)?;
    read_config(&config)
}

impl SlaJob {
    /// The job as a sliced file of one plate: its time and its resin, no filament slots.
    pub fn sliced(self) -> Sliced {
        Sliced {
            slicer: "PrusaSlicer".to_string(),
            slicer_version: self
                .slicer_version
                .map(|v| v.trim_start_matches("PrusaSlicer-").to_string()),
            printer_model: self.printer_model,
            plates: vec![Plate {
                number: 1,
                seconds: Some(self.seconds),
                slots: Vec::new(),
                resin: Some(Resin {
                    millilitres: self.millilitres,
                    material: self.material_name,
                }),
            }],
        }
    }
}

/// The job `config.ini` (its bytes) describes. Errors: as [`from_archive`] for the file's contents.
pub fn read_config(config: &[u8]) -> Result<SlaJob, Refusal> {
    let text = std::str::from_utf8(config).map_err(|_| Refusal::BrokenMetadata)?;
    let value = |key: &str| {
        text.lines().find_map(|line| {
            let (name, value) = line.split_once('=')?;
            (name.trim() == key).then(|| value.trim())
        })
    };
    let named = |key: &str| {
        value(key)
            .filter(|v| !v.is_empty())
            .map(|v| v.chars().take(200).collect::<String>())
    };
    let millilitres = value("usedMaterial")
        .and_then(decimal)
        .filter(|ml| *ml >= Decimal::ZERO)
        .ok_or(Refusal::BrokenMetadata)?;
    let seconds = value("printTime")
        .and_then(decimal)
        .filter(|s| *s >= Decimal::ZERO)
        .map(|s| s.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero))
        .and_then(|s| s.to_u32())
        .filter(|s| *s <= MAX_SECONDS)
        .ok_or(Refusal::BrokenMetadata)?;
    let count = |key: &str| {
        value(key)
            .map_or(Some(0), |v| v.parse::<u32>().ok())
            .ok_or(Refusal::BrokenMetadata)
    };
    let layers = count("numFast")?
        .checked_add(count("numSlow")?)
        .ok_or(Refusal::BrokenMetadata)?;
    let fade_layers = count("numFade")?;
    Ok(SlaJob {
        slicer_version: named("prusaSlicerVersion"),
        printer_model: named("printerModel"),
        material_name: named("materialName"),
        millilitres,
        seconds,
        layers,
        fade_layers,
        layer_height: value("layerHeight").and_then(decimal),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sliced::MAX_ENTRY_BYTES;
    use std::io::{Cursor, Write};
    use zip::write::SimpleFileOptions;

    const CONFIG: &str = "action = print\nexpTime = 10\njobDir = cube\nlayerHeight = 0.05\n\
        materialName = Prusament Resin Tough Prusa Orange\nnumFade = 10\nnumFast = 390\n\
        numSlow = 2\nprintTime = 1525.5\nprinterModel = SL1S\n\
        prusaSlicerVersion = PrusaSlicer-2.5.0+linux-x64\nusedMaterial = 9.991571\n";

    fn archive(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            zip.start_file(*name, SimpleFileOptions::default()).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn parsed(bytes: &[u8]) -> Result<SlaJob, Refusal> {
        let mut archive =
            ZipArchive::new(Cursor::new(bytes)).map_err(|_| Refusal::BrokenArchive)?;
        from_archive(&mut archive)
    }

    #[test]
    fn an_sl1_gives_its_millilitres_seconds_and_layers() {
        let bytes = archive(&[
            ("config.ini", CONFIG.as_bytes()),
            ("prusaslicer.ini", b"printer_technology = SLA\n"),
            ("cube00000.png", b"\x89PNG"),
        ]);
        let job = parsed(&bytes).unwrap();
        assert_eq!(job.millilitres, "9.991571".parse().unwrap());
        assert_eq!(job.seconds, 1526, "1525.5 s, a half up");
        assert_eq!((job.layers, job.fade_layers), (392, 10));
        assert_eq!(job.printer_model.as_deref(), Some("SL1S"));
        assert_eq!(
            job.material_name.as_deref(),
            Some("Prusament Resin Tough Prusa Orange")
        );
        assert_eq!(job.layer_height, Some("0.05".parse().unwrap()));
    }

    #[test]
    fn what_is_no_sla_archive_or_says_no_amount_is_refused() {
        let not_sla = archive(&[("config.ini", CONFIG.as_bytes())]);
        assert_eq!(parsed(&not_sla), Err(Refusal::NotPackage));
        for broken in [
            CONFIG.replace("usedMaterial = 9.991571", "usedMaterial = -1"),
            CONFIG.replace("usedMaterial = 9.991571", ""),
            CONFIG.replace("printTime = 1525.5", "printTime = 1e9"),
            CONFIG.replace("printTime = 1525.5", "printTime = 99999999999"),
            CONFIG.replace("numFast = 390", "numFast = many"),
            CONFIG.replace("numFast = 390", "numFast = 4294967295"),
            CONFIG.replace("numFade = 10", "numFade = -1"),
        ] {
            let bytes = archive(&[("config.ini", broken.as_bytes()), ("prusaslicer.ini", b"")]);
            assert_eq!(parsed(&bytes), Err(Refusal::BrokenMetadata), "{broken}");
        }
        let latin1 = archive(&[
            ("config.ini", b"materialName = \xe9\n"),
            ("prusaslicer.ini", b""),
        ]);
        assert_eq!(parsed(&latin1), Err(Refusal::BrokenMetadata));
        assert_eq!(parsed(b"PK\x03\x04 not a zip"), Err(Refusal::BrokenArchive));
    }

    /// A `config.ini` that inflates beyond the entry limit is refused before it is read whole.
    #[test]
    fn an_oversized_config_is_refused() {
        let huge = vec![b'#'; (MAX_ENTRY_BYTES + 1) as usize];
        let bytes = archive(&[("config.ini", &huge), ("prusaslicer.ini", b"")]);
        assert_eq!(parsed(&bytes), Err(Refusal::EntryTooLarge));
    }
}
