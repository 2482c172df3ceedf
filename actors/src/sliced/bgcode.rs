//! PrusaSlicer's binary G-code (`.bgcode`, libbgcode's format): a file header (`GCDE`, version,
//! checksum type), then typed blocks: file metadata, printer metadata, thumbnails, print
//! metadata, slicer metadata, G-code. Each block is a header (type and compression, u16 each;
//! uncompressed size, u32; the compressed size, u32, when compressed), its parameters (2 bytes, 6
//! for a thumbnail), its data and, with checksums on, a CRC32. Integers are little-endian.
//!
//! The metadata blocks hold `key=value` lines: the print metadata the same keys as a text
//! G-code's summary (`filament used [g]`, `estimated printing time (normal mode)`), the
//! printer metadata the printer model and filament types, the file metadata the `Producer`.
//! They are read uncompressed or deflated (zlib, through flate2); heatshrink-compressed
//! metadata, or metadata beyond the sample's head, is [`Refusal::BinaryGcode`].

use super::{MAX_ENTRY_BYTES, Plate, Refusal, Sample, Sliced, decimal, duration, slots};
use flate2::read::ZlibDecoder;
use std::collections::HashMap;
use std::io::Read;

/// Block types.
const FILE_METADATA: u16 = 0;
const GCODE: u16 = 1;
const PRINTER_METADATA: u16 = 3;
const PRINT_METADATA: u16 = 4;
const THUMBNAIL: u16 = 5;

/// What a binary G-code's metadata says. Errors: [`Refusal::BinaryGcode`] when the metadata
/// cannot be read (compression, layout, or beyond the head); [`Refusal::Truncated`] without
/// print metadata.
pub fn parse(sample: &Sample) -> Result<Sliced, Refusal> {
    let head = sample.head();
    let u16_at = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if !head.starts_with(b"GCDE") || u32_at(4) != Some(1) {
        return Err(Refusal::BinaryGcode);
    }
    let checksum = match u16_at(8) {
        Some(0) => 0,
        Some(1) => 4,
        _ => return Err(Refusal::BinaryGcode),
    };
    let mut metadata: HashMap<u16, HashMap<String, String>> = HashMap::new();
    let mut at = 10;
    while let Some(kind) = u16_at(at) {
        if kind == GCODE {
            break;
        }
        let compression = u16_at(at + 2).ok_or(Refusal::BinaryGcode)?;
        let size = u32_at(at + 4).ok_or(Refusal::BinaryGcode)? as usize;
        let (stored, header) = match compression {
            0 => (size, 8),
            _ => (u32_at(at + 8).ok_or(Refusal::BinaryGcode)? as usize, 12),
        };
        let parameters = if kind == THUMBNAIL { 6 } else { 2 };
        let start = at + header + parameters;
        let end = start.checked_add(stored).ok_or(Refusal::BinaryGcode)?;
        if matches!(kind, FILE_METADATA | PRINTER_METADATA | PRINT_METADATA) {
            let data = head.get(start..end).ok_or(Refusal::BinaryGcode)?;
            metadata.insert(kind, pairs(&text(compression, data, size)?));
        }
        at = end + checksum;
    }
    let print = metadata.get(&PRINT_METADATA).ok_or(Refusal::Truncated)?;
    let empty = HashMap::new();
    let printer = metadata.get(&PRINTER_METADATA).unwrap_or(&empty);
    let value = |key: &str| {
        print
            .get(key)
            .or_else(|| printer.get(key))
            .map(String::as_str)
    };
    let list = |key: &str| -> Vec<&str> {
        value(key)
            .map(|v| v.split([',', ';']).map(str::trim).collect())
            .unwrap_or_default()
    };
    let decimals = |key: &str| list(key).into_iter().map(decimal).collect::<Vec<_>>();
    let producer = metadata
        .get(&FILE_METADATA)
        .and_then(|m| m.get("Producer"))
        .map(String::as_str)
        .unwrap_or("PrusaSlicer");
    let mut words = producer.split_whitespace();
    let plate = Plate {
        number: 1,
        seconds: value("estimated printing time (normal mode)").and_then(duration),
        slots: slots(
            &decimals("filament used [g]"),
            &decimals("filament used [mm]"),
            &list("filament_type"),
            &list("extruder_colour"),
            &decimals("filament_diameter"),
            &decimals("filament_density"),
        ),
        resin: None,
    };
    Ok(Sliced {
        slicer: words.next().unwrap_or("PrusaSlicer").to_string(),
        slicer_version: words.next().map(str::to_string),
        printer_model: value("printer_model")
            .filter(|m| !m.is_empty())
            .map(str::to_string),
        plates: vec![plate],
    })
}

/// The text of a metadata block's `data` (`size` bytes once inflated). Errors:
/// [`Refusal::BinaryGcode`] for heatshrink, a bad stream or text that is not UTF-8.
fn text(compression: u16, data: &[u8], size: usize) -> Result<String, Refusal> {
    let bytes = match compression {
        0 => data.to_vec(),
        1 => {
            let mut inflated = Vec::new();
            ZlibDecoder::new(data)
                .take(MAX_ENTRY_BYTES.min(size as u64))
                .read_to_end(&mut inflated)
                .map_err(|_| Refusal::BinaryGcode)?;
            inflated
        }
        _ => return Err(Refusal::BinaryGcode),
    };
    String::from_utf8(bytes).map_err(|_| Refusal::BinaryGcode)
}

/// The `key=value` lines of a metadata block.
fn pairs(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}
