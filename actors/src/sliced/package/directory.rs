//! The bounds of a zip's central directory, checked before the zip library reads it.
//!
//! The library (`zip`) keeps every central-directory entry in memory (about 200 bytes each plus
//! the name), however many the end-of-central-directory record claims: a 50 MB upload listing a
//! million empty entries took ~200 MiB. A sliced package holds a handful of entries (Bambu
//! Studio's `.gcode.3mf` about 20, one more per plate's thumbnails and G-code), so a directory
//! beyond [`MAX_ENTRIES`] entries or [`MAX_BYTES`] bytes is refused before it is parsed. What
//! the library then holds is bounded by those two constants: at most [`MAX_ENTRIES`] entries
//! whose names come from at most [`MAX_BYTES`] bytes, under 4 MiB.
//!
//! Only the records' counts and sizes are read here (APPNOTE 6.3.10, sections 4.3.14–4.3.16);
//! every candidate end record in the file's last 64 KiB is checked, so a directory cannot hide
//! behind a second, smaller one that the library would not choose.

use super::Refusal;
use std::io::{Read, Seek, SeekFrom};

/// Most entries a package's central directory may list.
pub const MAX_ENTRIES: u64 = 4096;
/// Largest central directory, bytes.
pub const MAX_BYTES: u64 = 1 << 20;

/// The end of central directory record's signature, its fixed size, and its largest comment.
const END_SIGNATURE: [u8; 4] = *b"PK\x05\x06";
const END_LEN: u64 = 22;
const MAX_COMMENT: u64 = u16::MAX as u64;
/// The zip64 end record's locator (right before the end record) and the record itself.
const LOCATOR_SIGNATURE: [u8; 4] = *b"PK\x06\x07";
const LOCATOR_LEN: u64 = 20;
const END64_SIGNATURE: [u8; 4] = *b"PK\x06\x06";
const END64_LEN: usize = 56;

/// Refuses `reader` (of `len` bytes) when any end record in its tail claims a central directory
/// beyond the bounds; leaves the reader rewound. A file without an end record is left to the
/// library (which refuses it as a broken archive).
///
/// Errors: [`Refusal::TooLarge`] beyond the bounds; [`Refusal::BrokenArchive`] when the file
/// cannot be read.
pub fn within_bounds<R: Read + Seek>(reader: &mut R, len: u64) -> Result<(), Refusal> {
    let tail_len = len.min(END_LEN + MAX_COMMENT + LOCATOR_LEN);
    let tail_start = len - tail_len;
    let tail = read_at(reader, tail_start, tail_len as usize)?;
    for at in (0..tail.len().saturating_sub(END_LEN as usize - 1)).rev() {
        if tail[at..at + 4] != END_SIGNATURE {
            continue;
        }
        let end = &tail[at..at + END_LEN as usize];
        let entries = u16_at(end, 10);
        let bytes = u32_at(end, 12);
        if entries != u16::MAX && bytes != u32::MAX {
            check(u64::from(entries), u64::from(bytes))?;
            continue;
        }
        // The values are in the zip64 end record, found through its locator; without one the
        // markers themselves are the claim.
        let end64 = match at.checked_sub(LOCATOR_LEN as usize) {
            Some(locator) if tail[locator..locator + 4] == LOCATOR_SIGNATURE => {
                let offset = u64_at(&tail[locator..at], 8);
                match offset.checked_add(END64_LEN as u64) {
                    Some(e) if e <= len => Some(read_at(reader, offset, END64_LEN)?),
                    _ => None,
                }
            }
            _ => None,
        };
        match end64 {
            Some(end64) if end64[..4] == END64_SIGNATURE => {
                check(u64_at(&end64, 32), u64_at(&end64, 40))?
            }
            _ => check(u64::from(entries), u64::from(bytes))?,
        }
    }
    reader
        .seek(SeekFrom::Start(0))
        .map_err(|_| Refusal::BrokenArchive)?;
    Ok(())
}

fn check(entries: u64, bytes: u64) -> Result<(), Refusal> {
    if entries > MAX_ENTRIES || bytes > MAX_BYTES {
        return Err(Refusal::TooLarge);
    }
    Ok(())
}

fn read_at<R: Read + Seek>(reader: &mut R, at: u64, len: usize) -> Result<Vec<u8>, Refusal> {
    let mut bytes = vec![0; len];
    reader
        .seek(SeekFrom::Start(at))
        .and_then(|_| reader.read_exact(&mut bytes))
        .map_err(|_| Refusal::BrokenArchive)?;
    Ok(bytes)
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};
    use zip::write::SimpleFileOptions;
    use zip::{CompressionMethod, ZipWriter};

    /// A zip of `n` empty stored entries, written by the zip library.
    fn zip_of(n: usize) -> Vec<u8> {
        let mut out = ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
        for k in 0..n {
            out.start_file(format!("f{k}"), options).unwrap();
            out.write_all(b"").unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    fn bounded(bytes: &[u8]) -> Result<(), Refusal> {
        within_bounds(&mut Cursor::new(bytes), bytes.len() as u64)
    }

    #[test]
    fn a_package_of_a_few_entries_passes_and_one_of_too_many_is_refused() {
        assert_eq!(bounded(&zip_of(20)), Ok(()));
        assert_eq!(bounded(&zip_of(MAX_ENTRIES as usize)), Ok(()));
        assert_eq!(
            bounded(&zip_of(MAX_ENTRIES as usize + 1)),
            Err(Refusal::TooLarge)
        );
    }

    #[test]
    fn an_end_record_that_claims_a_huge_directory_is_refused_whatever_follows() {
        let mut bytes = zip_of(3);
        let end = bytes.len() - END_LEN as usize;
        // The directory's size claimed as 100 MiB.
        bytes[end + 12..end + 16].copy_from_slice(&(100u32 << 20).to_le_bytes());
        assert_eq!(bounded(&bytes), Err(Refusal::TooLarge));
        // A second, modest end record appended as a comment does not hide the first.
        let mut hidden = zip_of(3);
        let first = hidden.len() - END_LEN as usize;
        hidden[first + 10..first + 12].copy_from_slice(&u16::MAX.to_le_bytes());
        hidden[first + 8..first + 10].copy_from_slice(&u16::MAX.to_le_bytes());
        hidden.extend_from_slice(&zip_of(1)[zip_of(1).len() - END_LEN as usize..]);
        assert_eq!(bounded(&hidden), Err(Refusal::TooLarge));
    }

    #[test]
    fn a_zip64_end_record_is_read_through_its_locator() {
        let zip64 = |entries: u64| {
            let mut bytes = zip_of(2);
            let end = bytes.len() - END_LEN as usize;
            let end64_at = end as u64;
            let mut end64 = vec![0u8; END64_LEN];
            end64[..4].copy_from_slice(&END64_SIGNATURE);
            end64[32..40].copy_from_slice(&entries.to_le_bytes());
            end64[40..48].copy_from_slice(&1000u64.to_le_bytes());
            let mut locator = vec![0u8; LOCATOR_LEN as usize];
            locator[..4].copy_from_slice(&LOCATOR_SIGNATURE);
            locator[8..16].copy_from_slice(&end64_at.to_le_bytes());
            let mut record = bytes.split_off(end);
            record[10..12].copy_from_slice(&u16::MAX.to_le_bytes());
            bytes.extend_from_slice(&end64);
            bytes.extend_from_slice(&locator);
            bytes.extend_from_slice(&record);
            bytes
        };
        assert_eq!(bounded(&zip64(10_000_000)), Err(Refusal::TooLarge));
        assert_eq!(bounded(&zip64(2)), Ok(()));
    }
}
