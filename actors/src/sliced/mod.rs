//! Sliced files: what a slicer wrote into the file it made about the print it sliced (its name
//! and version, the printer model, and per plate the estimated time and each filament slot's
//! grams, length, material and colour), read without trusting the file.
//!
//! Formats (`docs/sliced-files.md` gives the facts each parser relies on):
//! - binary G-code ([`bgcode`]): PrusaSlicer's `.bgcode`, from its metadata blocks;
//! - text G-code ([`gcode`]) from PrusaSlicer, SuperSlicer and OrcaSlicer (a summary at the end),
//!   Bambu Studio and OrcaSlicer for Bambu printers (a header block at the start), and Cura
//!   (`;TIME:` and `;Filament used:` at the start);
//! - 3MF packages ([`package`]): Bambu Studio's and OrcaSlicer's `.gcode.3mf`
//!   (`Metadata/slice_info.config`, one part per plate) and Cura's UFP (its G-code inside);
//! - PrusaSlicer's SLA archives ([`sla`]): `.sl1` and `.sl1s`, one plate of resin in
//!   millilitres (a resin part of the draft, issue 51).
//!
//! A G-code file is read from its head and tail only ([`Sample`]: the slicers put their
//! metadata there), so a file of any size costs two bounded buffers. A package is read from a
//! file on disk: entries are checked for size before they are inflated, their names are never
//! used as paths, and the XML parser expands no entity beyond XML's five.

pub mod bgcode;
pub mod gcode;
pub mod package;
pub mod sla;
pub mod suggest;

use crate::values::MAX_SECONDS;
use rust_decimal::Decimal;
use std::io::{Read, Seek};
use zip::ZipArchive;
use zip::result::ZipError;

/// Bytes of a G-code file kept from its start and from its end.
pub const SAMPLE_BYTES: usize = 1 << 20;
/// Largest G-code file taken, bytes (2 GiB: a day-long print on a large printer stays far below).
pub const MAX_GCODE_BYTES: u64 = 2 << 30;
/// Largest package (3MF, UFP) taken, bytes.
pub const MAX_PACKAGE_BYTES: u64 = 512 << 20;
/// Most sliced plates a package may have: as many as a print holds parts (the prints' own
/// `MAX_PARTS`, which a test keeps equal), each plate becoming one part of the draft.
pub const MAX_PLATES: usize = 100;
/// Largest archive entry inflated, bytes (`slice_info.config`, `project_settings.config`).
pub const MAX_ENTRY_BYTES: u64 = 16 << 20;

/// What a sliced file says about its print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sliced {
    /// The slicer: `PrusaSlicer`, `SuperSlicer`, `OrcaSlicer`, `BambuStudio`, `Cura`.
    pub slicer: String,
    /// Its version as it wrote it (`2.5.0+linux-x64`, `01.08.00.62`).
    pub slicer_version: Option<String>,
    /// The printer model the file was sliced for (`MK4`, `Bambu Lab X1 Carbon`).
    pub printer_model: Option<String>,
    /// The plates, in order; a file of one print has one.
    pub plates: Vec<Plate>,
}

/// One plate: one part of the print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plate {
    /// Its number, from 1.
    pub number: u32,
    /// Estimated printing time, whole seconds, when the slicer wrote one.
    pub seconds: Option<u32>,
    /// The filament slots the plate uses (grams or length above zero), in slot order.
    pub slots: Vec<Slot>,
    /// The resin an SLA job uses (it has no filament slots).
    pub resin: Option<Resin>,
}

/// The resin of an SLA job's plate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resin {
    /// Millilitres, exactly as the slicer wrote them.
    pub millilitres: Decimal,
    /// The slicer's resin profile (`Prusament Resin Tough Prusa Orange`), when one was chosen.
    pub material: Option<String>,
}

/// One filament slot (an extruder, an AMS tray) of a plate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The slot's number, from 1 (extruder 1 is `T0`).
    pub number: u32,
    /// Grams as the slicer wrote them, or derived from the length (see `grams_derived`).
    pub grams: Option<Decimal>,
    /// True when `grams` was computed here from length × cross-section × density, because the
    /// slicer wrote no weight.
    pub grams_derived: bool,
    /// Filament length, millimetres.
    pub millimetres: Option<Decimal>,
    /// Material as the slicer names it (`PLA`, `PETG`).
    pub material: Option<String>,
    /// Colour as `#RRGGBB`, upper-case.
    pub colour: Option<String>,
}

/// Why a file is refused. Each has a code of its own on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Neither G-code from a known slicer nor a sliced 3MF.
    #[error("not a sliced file from a slicer this appliance reads")]
    Unrecognized,
    /// G-code from a known slicer whose summary is missing: cut off.
    #[error("the file ends before the slicer's summary: it is incomplete")]
    Truncated,
    /// Not UTF-8 text where G-code was expected.
    #[error("the G-code is not text (UTF-8)")]
    NotText,
    /// A zip archive that is neither a 3MF nor a UFP.
    #[error("a zip archive that is not a 3MF package")]
    NotPackage,
    /// A damaged zip archive.
    #[error("the archive is damaged")]
    BrokenArchive,
    /// `slice_info.config` that is not the documented XML.
    #[error("the package's slice_info.config cannot be read")]
    BrokenMetadata,
    /// A project 3MF that was never sliced.
    #[error("the 3MF holds a project but no sliced result: slice it and export the sliced file")]
    NotSliced,
    /// Binary G-code (`.bgcode`) whose metadata is heatshrink-compressed or cannot be read.
    #[error("this binary G-code's metadata cannot be read: export text G-code")]
    BinaryGcode,
    /// CuraEngine's command-line placeholders (`;TIME:6666`, `;Filament used: 0m`).
    #[error("the file holds CuraEngine's placeholder values, not an estimate: save it from Cura")]
    Placeholders,
    /// Larger than [`MAX_GCODE_BYTES`] or [`MAX_PACKAGE_BYTES`], or a package whose central
    /// directory lists more than 4,096 entries or 1 MiB (`package::directory`).
    #[error("the file is larger than the limit")]
    TooLarge,
    /// An archive entry larger than [`MAX_ENTRY_BYTES`] (or one that inflates beyond its size).
    #[error("an entry of the archive is larger than its limit")]
    EntryTooLarge,
    /// A 3MF with more sliced plates than a print holds parts ([`MAX_PLATES`]).
    #[error("the 3MF has more sliced plates than a print holds parts")]
    TooManyPlates,
}

/// The head and tail of a file, kept while it streams past: [`SAMPLE_BYTES`] from each end
/// (the tail's buffer holds up to twice that between compactions: at most 3 MiB in all).
#[derive(Debug, Default)]
pub struct Sample {
    head: Vec<u8>,
    tail: Vec<u8>,
    /// Bytes seen in all.
    len: u64,
}

impl Sample {
    /// Takes the next `chunk` of the file. Errors: [`Refusal::TooLarge`] beyond
    /// [`MAX_GCODE_BYTES`].
    pub fn push(&mut self, mut chunk: &[u8]) -> Result<(), Refusal> {
        self.len = self.len.saturating_add(chunk.len() as u64);
        if self.len > MAX_GCODE_BYTES {
            return Err(Refusal::TooLarge);
        }
        let room = SAMPLE_BYTES - self.head.len();
        if room > 0 {
            let taken = room.min(chunk.len());
            self.head.extend_from_slice(&chunk[..taken]);
            chunk = &chunk[taken..];
        }
        // The tail grows to twice its size before its oldest bytes are dropped, so each byte is
        // moved at most once more (dropping on every chunk would move the whole tail each time).
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > 2 * SAMPLE_BYTES {
            let from = self.tail.len() - SAMPLE_BYTES;
            self.tail.drain(..from);
        }
        Ok(())
    }

    /// The sample of a whole file held in memory (tests, small files).
    pub fn of(bytes: &[u8]) -> Result<Sample, Refusal> {
        let mut sample = Sample::default();
        sample.push(bytes)?;
        Ok(sample)
    }

    /// The first bytes of the file.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The last bytes of the file after [`Sample::head`] (empty for a file the head holds).
    pub fn tail(&self) -> &[u8] {
        &self.tail[self.tail.len().saturating_sub(SAMPLE_BYTES)..]
    }

    /// Bytes of the whole file.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// How a zip archive starts: a local file header's signature.
const PACKAGE_MAGIC: &[u8] = b"PK\x03\x04";

/// The bytes a file's start needs before [`is_package`] can tell (an upload's reader waits for
/// them, however the client cut its chunks).
pub const MAGIC_BYTES: usize = PACKAGE_MAGIC.len();

/// The entry `name` of a zip `archive` (a package, an SLA archive), read whole, when it has
/// it. Errors: [`Refusal::EntryTooLarge`] beyond [`MAX_ENTRY_BYTES`] (declared or inflated);
/// [`Refusal::BrokenArchive`].
pub(crate) fn entry<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    name: &str,
) -> Result<Option<Vec<u8>>, Refusal> {
    let file = match archive.by_name(name) {
        Ok(file) => file,
        Err(ZipError::FileNotFound) => return Ok(None),
        Err(_) => return Err(Refusal::BrokenArchive),
    };
    if file.size() > MAX_ENTRY_BYTES {
        return Err(Refusal::EntryTooLarge);
    }
    let mut bytes = Vec::new();
    file.take(MAX_ENTRY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| Refusal::BrokenArchive)?;
    if bytes.len() as u64 > MAX_ENTRY_BYTES {
        return Err(Refusal::EntryTooLarge);
    }
    Ok(Some(bytes))
}

/// True when `head` starts as a zip archive does (a 3MF or UFP package).
pub fn is_package(head: &[u8]) -> bool {
    head.starts_with(PACKAGE_MAGIC)
}

/// A plain decimal written by a slicer (`12.34`, `0`, `1e3` is refused). None for anything
/// else, or beyond 12 whole and 6 fractional digits after rounding (grams and millimetres fit).
fn decimal(text: &str) -> Option<Decimal> {
    let text = text.trim();
    let digits = text.trim_start_matches('-');
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|b| *b == b'.').count() <= 1;
    if !plain || text.len() > 40 {
        return None;
    }
    let value = Decimal::from_str_exact(text).ok()?.round_dp(6).normalize();
    (value.abs() < Decimal::from(1_000_000_000_000_i64)).then_some(value)
}

/// A colour as `#RRGGBB` upper-case, from `#rrggbb` or `#RRGGBBAA` (alpha dropped).
fn colour(text: &str) -> Option<String> {
    let hex = text.trim().strip_prefix('#')?;
    let rgb = match hex.len() {
        6 | 8 => &hex[..6],
        _ => return None,
    };
    rgb.bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then(|| format!("#{}", rgb.to_ascii_uppercase()))
}

/// Grams of `millimetres` of filament of `diameter` mm and `density` g/cm³: length × π(d/2)² ×
/// density, rounded to 2 places. None when a factor is missing, zero or out of range.
fn grams_of_length(millimetres: Decimal, diameter: Decimal, density: Decimal) -> Option<Decimal> {
    if millimetres <= Decimal::ZERO || diameter <= Decimal::ZERO || density <= Decimal::ZERO {
        return None;
    }
    let radius = diameter.checked_div(Decimal::TWO)?;
    // π to Decimal's 28 places.
    let pi = Decimal::from_i128_with_scale(31_415_926_535_897_932_384_626_433_833, 28);
    let area = radius.checked_mul(radius)?.checked_mul(pi)?;
    // mm³ → cm³ is ÷ 1000.
    let cubic_cm = millimetres
        .checked_mul(area)?
        .checked_div(Decimal::ONE_THOUSAND)?;
    Some(cubic_cm.checked_mul(density)?.round_dp(2).normalize())
}

/// The slots of one plate from per-slot lists of grams, lengths, materials and colours, with
/// grams derived from the length where the slicer wrote none. Slots with neither grams nor
/// length above zero are left out.
fn slots(
    grams: &[Option<Decimal>],
    millimetres: &[Option<Decimal>],
    materials: &[&str],
    colours: &[&str],
    diameters: &[Option<Decimal>],
    densities: &[Option<Decimal>],
) -> Vec<Slot> {
    let count = grams.len().max(millimetres.len());
    let at = |list: &[Option<Decimal>], i: usize| list.get(i).copied().flatten();
    let mut slots = Vec::new();
    for i in 0..count {
        let length = at(millimetres, i).filter(|mm| *mm > Decimal::ZERO);
        let written = at(grams, i).filter(|g| *g > Decimal::ZERO);
        if written.is_none() && length.is_none() {
            continue;
        }
        // A list of one value holds for every slot (single-extruder settings).
        let each = |list: &[Option<Decimal>]| {
            at(list, i).or_else(|| (list.len() == 1).then(|| at(list, 0)).flatten())
        };
        let derived = written
            .is_none()
            .then(|| length.and_then(|mm| grams_of_length(mm, each(diameters)?, each(densities)?)))
            .flatten();
        let text = |list: &[&str]| {
            list.get(i)
                .map(|s| s.trim_matches('"').to_string())
                .filter(|s| !s.is_empty())
        };
        slots.push(Slot {
            number: u32::try_from(i + 1).unwrap_or(u32::MAX),
            grams: written.or(derived),
            grams_derived: derived.is_some(),
            millimetres: length,
            material: text(materials),
            colour: colours.get(i).and_then(|c| colour(c)),
        });
    }
    slots
}

/// A slicer's duration: `1d 2h 3m 4s`, leading units left out (`13m 45s`), or whole seconds.
/// None for anything else or beyond [`MAX_SECONDS`].
fn duration(text: &str) -> Option<u32> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<u32>().ok().filter(|s| *s <= MAX_SECONDS);
    }
    let mut total: u64 = 0;
    let mut any = false;
    for token in text.split_whitespace() {
        let (number, unit) = token.split_at(token.len().checked_sub(1)?);
        let factor = match unit {
            "d" => 86_400,
            "h" => 3_600,
            "m" => 60,
            "s" => 1,
            _ => return None,
        };
        let number: u64 = number.parse().ok()?;
        total = total.checked_add(number.checked_mul(factor)?)?;
        any = true;
    }
    let seconds = u32::try_from(total).ok()?;
    (any && seconds <= MAX_SECONDS).then_some(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn durations_are_read_as_slicers_write_them() {
        assert_eq!(duration("1d 2h 3m 4s"), Some(93_784));
        assert_eq!(duration("13m 45s"), Some(825));
        assert_eq!(duration("45s"), Some(45));
        assert_eq!(duration("5416"), Some(5416));
        for bad in ["", "1x", "h", "1h 2", "99999999999999d", "-1s"] {
            assert_eq!(duration(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn decimals_colours_and_derived_grams() {
        assert_eq!(decimal("12.340"), Decimal::from_str("12.34").ok());
        assert_eq!(decimal("1e3"), None);
        assert_eq!(decimal("nan"), None);
        assert_eq!(colour("#ff8000"), Some("#FF8000".into()));
        assert_eq!(colour("#FF8000FF"), Some("#FF8000".into()));
        assert_eq!(colour("red"), None);
        // 1 m of 1.75 mm PLA at 1.24 g/cm³: 1000 × π × 0.875² / 1000 × 1.24 = 2.98 g.
        let grams = grams_of_length(
            Decimal::ONE_THOUSAND,
            Decimal::from_str("1.75").unwrap(),
            Decimal::from_str("1.24").unwrap(),
        );
        assert_eq!(grams, Decimal::from_str("2.98").ok());
    }

    #[test]
    fn a_sample_keeps_the_head_and_the_tail() {
        let bytes: Vec<u8> = (0..(3 * SAMPLE_BYTES + 17))
            .map(|i| (i % 251) as u8)
            .collect();
        let mut sample = Sample::default();
        for chunk in bytes.chunks(65_537) {
            sample.push(chunk).unwrap();
        }
        assert_eq!(sample.len(), bytes.len() as u64);
        assert_eq!(sample.head(), &bytes[..SAMPLE_BYTES]);
        assert_eq!(sample.tail(), &bytes[bytes.len() - SAMPLE_BYTES..]);
        let small = Sample::of(b"; tiny").unwrap();
        assert_eq!(small.head(), b"; tiny");
        assert!(small.tail().is_empty());
    }
}
