//! 3MF packages: Bambu Studio's and OrcaSlicer's `.gcode.3mf` (`Metadata/slice_info.config`:
//! one `<plate>` per sliced plate with its `prediction` seconds and one `<filament>` per slot
//! with `used_g`, `used_m`, `type` and `color`), and Cura's UFP (`3D/model.gcode` inside);
//! PrusaSlicer's SLA archives are zips too, read by [`sla`].
//!
//! Only named entries are read, each checked against [`super::MAX_ENTRY_BYTES`] before and
//! while it is inflated; an entry's name is never a path on disk. The XML parser expands no
//! entity beyond XML's five, and a document type declaration is refused outright.

pub mod directory;

use super::sla;
use super::{
    MAX_PACKAGE_BYTES, MAX_PLATES, Plate, Refusal, Sample, Sliced, Slot, colour, decimal, duration,
    entry, gcode,
};
use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::io::{Read, Seek};
use zip::ZipArchive;
use zip::result::ZipError;

/// What the package `reader` (of `len` bytes) says.
///
/// Errors: [`Refusal::TooLarge`] beyond [`MAX_PACKAGE_BYTES`], or when its central directory
/// claims more than [`directory::MAX_ENTRIES`] entries or [`directory::MAX_BYTES`] bytes; [`Refusal::BrokenArchive`] for a
/// damaged zip; [`Refusal::EntryTooLarge`]; [`Refusal::BrokenMetadata`] for a `slice_info.config`
/// that is not the documented XML; [`Refusal::NotSliced`] for a project 3MF without a sliced
/// result; [`Refusal::NotPackage`] for another zip; a UFP's G-code refusals; an SLA archive's
/// ([`sla::from_archive`]).
pub fn parse<R: Read + Seek>(reader: R, len: u64) -> Result<Sliced, Refusal> {
    if len > MAX_PACKAGE_BYTES {
        return Err(Refusal::TooLarge);
    }
    let mut reader = reader;
    directory::within_bounds(&mut reader, len)?;
    let mut archive = ZipArchive::new(reader).map_err(|_| Refusal::BrokenArchive)?;
    if sla::is_sla(&archive) {
        return sla::from_archive(&mut archive).map(sla::SlaJob::sliced);
    }
    if let Some(info) = entry(&mut archive, "Metadata/slice_info.config")? {
        return sliced_3mf(&info, &mut archive);
    }
    for ufp in ["3D/model.gcode", "/3D/model.gcode"] {
        if let Some(sample) = sample(&mut archive, ufp)? {
            return gcode::parse(&sample);
        }
    }
    let project = ["3D/3dmodel.model", "[Content_Types].xml"]
        .iter()
        .any(|name| archive.index_for_name(name).is_some());
    Err(if project {
        Refusal::NotSliced
    } else {
        Refusal::NotPackage
    })
}

/// The head and tail of the entry `name` (a G-code inside a package), streamed, when the
/// archive has it.
fn sample<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    name: &str,
) -> Result<Option<Sample>, Refusal> {
    let mut file = match archive.by_name(name) {
        Ok(file) => file,
        Err(ZipError::FileNotFound) => return Ok(None),
        Err(_) => return Err(Refusal::BrokenArchive),
    };
    let mut sample = Sample::default();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let read = file.read(&mut buffer).map_err(|_| Refusal::BrokenArchive)?;
        if read == 0 {
            return Ok(Some(sample));
        }
        sample.push(&buffer[..read])?;
    }
}

/// The first bytes of entry `name` (at most `limit`), when the archive has it.
fn prefix<R: Read + Seek>(archive: &mut ZipArchive<R>, name: &str, limit: u64) -> Option<Vec<u8>> {
    let file = archive.by_name(name).ok()?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// A Bambu Studio or OrcaSlicer `.gcode.3mf`, from its `slice_info.config` (`info`).
fn sliced_3mf<R: Read + Seek>(info: &[u8], archive: &mut ZipArchive<R>) -> Result<Sliced, Refusal> {
    let info = SliceInfo::parse(info)?;
    if !info.plates.iter().any(|p| p.seconds.is_some()) {
        return Err(Refusal::NotSliced);
    }
    if info.plates.len() > MAX_PLATES {
        return Err(Refusal::TooManyPlates);
    }
    // `<metadata name="Application">BambuStudio-01.09.00.70</metadata>` near the model's start.
    let application = prefix(archive, "3D/3dmodel.model", 64 * 1024).and_then(|model| {
        let model = String::from_utf8_lossy(&model).into_owned();
        let (_, rest) = model.split_once("name=\"Application\">")?;
        let (value, _) = rest.split_once('<')?;
        Some(value.trim().to_string())
    });
    let (slicer, version) = match application.as_deref().and_then(|a| a.split_once('-')) {
        Some((name, version)) => (name.to_string(), Some(version.to_string())),
        None => ("BambuStudio".to_string(), info.client_version.clone()),
    };
    let printer_model = entry(archive, "Metadata/project_settings.config")
        .ok()
        .flatten()
        .and_then(|json| serde_json::from_slice::<serde_json::Value>(&json).ok())
        .and_then(|settings| settings["printer_model"].as_str().map(str::to_string))
        .filter(|m| !m.is_empty());
    Ok(Sliced {
        slicer,
        slicer_version: version,
        printer_model,
        plates: info.plates,
    })
}

/// What `slice_info.config` holds.
struct SliceInfo {
    client_version: Option<String>,
    plates: Vec<Plate>,
}

/// A plate being read: its metadata and filaments.
#[derive(Default)]
struct PlateInfo {
    metadata: HashMap<String, String>,
    slots: Vec<Slot>,
}

impl SliceInfo {
    /// Errors: [`Refusal::BrokenMetadata`] for anything but well-formed XML without a document
    /// type declaration, or a plate without a valid `index`.
    fn parse(xml: &[u8]) -> Result<SliceInfo, Refusal> {
        let mut reader = Reader::from_reader(xml);
        reader.config_mut().trim_text(true);
        let mut buffer = Vec::new();
        let mut client_version = None;
        let mut plates = Vec::new();
        let mut plate: Option<PlateInfo> = None;
        let mut depth: u32 = 0;
        loop {
            let event = reader
                .read_event_into(&mut buffer)
                .map_err(|_| Refusal::BrokenMetadata)?;
            let empty = matches!(event, Event::Empty(_));
            match &event {
                Event::Start(_) => depth = depth.saturating_add(1),
                Event::End(_) => depth = depth.saturating_sub(1),
                _ => {}
            }
            match event {
                // A document cut off before its elements close is broken, not empty.
                Event::Eof if depth > 0 => return Err(Refusal::BrokenMetadata),
                Event::Eof => break,
                Event::DocType(_) => return Err(Refusal::BrokenMetadata),
                Event::Start(e) | Event::Empty(e) => {
                    let attributes = attributes(&e)?;
                    match (e.name().into_inner(), plate.as_mut()) {
                        ("plate", None) => plate = Some(PlateInfo::default()),
                        ("header_item", _)
                            if attributes.get("key").map(String::as_str)
                                == Some("X-BBL-Client-Version") =>
                        {
                            client_version = attributes.get("value").cloned();
                        }
                        ("metadata", Some(p)) => {
                            if let (Some(k), Some(v)) =
                                (attributes.get("key"), attributes.get("value"))
                            {
                                p.metadata.insert(k.clone(), v.clone());
                            }
                        }
                        ("filament", Some(p)) => p.slots.extend(slot(&attributes)),
                        _ => {}
                    }
                    // `<plate/>`, empty: ends at once.
                    if empty
                        && e.name().into_inner() == "plate"
                        && let Some(done) = plate.take()
                    {
                        plates.push(done.finish()?);
                    }
                }
                Event::End(e) if e.name().into_inner() == "plate" => {
                    if let Some(done) = plate.take() {
                        plates.push(done.finish()?);
                    }
                }
                _ => {}
            }
            buffer.clear();
        }
        plates.sort_by_key(|p| p.number);
        Ok(SliceInfo {
            client_version,
            plates,
        })
    }
}

impl PlateInfo {
    fn finish(mut self) -> Result<Plate, Refusal> {
        let number = self
            .metadata
            .get("index")
            .and_then(|i| i.parse::<u32>().ok())
            .filter(|i| (1..=1000).contains(i))
            .ok_or(Refusal::BrokenMetadata)?;
        let seconds = self.metadata.get("prediction").and_then(|s| duration(s));
        // A plate's total weight stands for its one slot where the slot gives none.
        let weight = self.metadata.get("weight").and_then(|w| decimal(w));
        if let ([only], Some(weight)) = (self.slots.as_mut_slice(), weight)
            && only.grams.is_none()
            && weight > Decimal::ZERO
        {
            only.grams = Some(weight);
        }
        self.slots.sort_by_key(|s| s.number);
        Ok(Plate {
            number,
            seconds,
            slots: self.slots,
            resin: None,
        })
    }
}

/// The attributes of `element`, unescaped. Errors: [`Refusal::BrokenMetadata`] for a malformed
/// attribute or an entity beyond XML's five.
fn attributes(element: &BytesStart) -> Result<HashMap<String, String>, Refusal> {
    let mut found = HashMap::new();
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|_| Refusal::BrokenMetadata)?;
        let key = attribute.key.into_inner().to_string();
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|_| Refusal::BrokenMetadata)?
            .into_owned();
        found.insert(key, value);
    }
    Ok(found)
}

/// The slot of a `<filament id type color used_g used_m>`, when it is used.
fn slot(attributes: &HashMap<String, String>) -> Option<Slot> {
    let number = attributes
        .get("id")?
        .parse::<u32>()
        .ok()
        .filter(|n| *n >= 1)?;
    let grams = attributes
        .get("used_g")
        .and_then(|g| decimal(g))
        .filter(|g| *g > Decimal::ZERO);
    let metres = attributes
        .get("used_m")
        .and_then(|m| decimal(m))
        .filter(|m| *m > Decimal::ZERO);
    if grams.is_none() && metres.is_none() {
        return None;
    }
    Some(Slot {
        number,
        grams,
        grams_derived: false,
        millimetres: metres.and_then(|m| m.checked_mul(Decimal::ONE_THOUSAND)),
        material: attributes.get("type").filter(|t| !t.is_empty()).cloned(),
        colour: attributes.get("color").and_then(|c| colour(c)),
    })
}
