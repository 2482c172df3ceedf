//! The sliced-file parsers against fixtures written from each slicer's documented format
//! (`docs/sliced-files.md`), hostile archives, and arbitrary bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::sliced::{self, Refusal, SAMPLE_BYTES, Sample, Sliced, Slot, gcode, package};
use flate2::Compression;
use flate2::write::ZlibEncoder;
use proptest::prelude::*;
use rust_decimal::Decimal;
use std::io::{Cursor, Write};
use std::str::FromStr;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/sliced/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn gcode(name: &str) -> Result<Sliced, Refusal> {
    gcode::parse(&Sample::of(&fixture(name))?)
}

fn dec(text: &str) -> Option<Decimal> {
    Some(Decimal::from_str(text).unwrap())
}

/// A zip of `entries` (name, bytes), deflated.
fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, bytes) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// A `.gcode.3mf` as Bambu Studio writes it, around `slice_info`.
fn bambu_3mf(slice_info: &[u8]) -> Vec<u8> {
    let model = br#"<?xml version="1.0" encoding="UTF-8"?>
<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
 <metadata name="Application">BambuStudio-01.08.00.62</metadata>
 <resources/></model>"#;
    let settings = br#"{"printer_model": "Bambu Lab X1 Carbon", "filament_type": ["PLA"]}"#;
    zip(&[
        ("[Content_Types].xml", b"<Types/>"),
        ("3D/3dmodel.model", model),
        ("Metadata/slice_info.config", slice_info),
        ("Metadata/project_settings.config", settings),
        ("Metadata/plate_1.gcode", b"G1 X1\n"),
    ])
}

fn parse_package(bytes: &[u8]) -> Result<Sliced, Refusal> {
    package::parse(Cursor::new(bytes), bytes.len() as u64)
}

#[test]
fn prusaslicer_one_filament() {
    let sliced = gcode("prusa-one-filament.gcode").unwrap();
    assert_eq!(sliced.slicer, "PrusaSlicer");
    assert_eq!(
        sliced.slicer_version.as_deref(),
        Some("2.5.0+linux-x64-GTK3")
    );
    assert_eq!(sliced.printer_model.as_deref(), Some("MK4"));
    assert_eq!(sliced.plates.len(), 1);
    let plate = &sliced.plates[0];
    assert_eq!(plate.seconds, Some(13 * 60 + 45));
    assert_eq!(
        plate.slots,
        [Slot {
            number: 1,
            grams: dec("4.45"),
            grams_derived: false,
            millimetres: dec("1491.16"),
            material: Some("PLA".into()),
            colour: Some("#FF8000".into()),
        }]
    );
}

#[test]
fn prusaslicer_two_filaments_keep_their_slots() {
    let sliced = gcode("prusa-two-filaments.gcode").unwrap();
    let plate = &sliced.plates[0];
    assert_eq!(plate.seconds, Some(86_400 + 2 * 3600 + 3 * 60 + 4));
    let slots: Vec<_> = plate
        .slots
        .iter()
        .map(|s| {
            (
                s.number,
                s.grams,
                s.material.as_deref(),
                s.colour.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            (1, dec("4.45"), Some("PLA"), Some("#FF8000")),
            (2, dec("1.23"), Some("PETG"), Some("#FFFFFF"))
        ]
    );
    assert_eq!(sliced.printer_model.as_deref(), Some("MK3S"));
}

#[test]
fn bambu_studio_header_block() {
    let sliced = gcode("bambu-header.gcode").unwrap();
    assert_eq!(sliced.slicer, "BambuStudio");
    assert_eq!(sliced.slicer_version.as_deref(), Some("01.08.00.62"));
    assert_eq!(sliced.printer_model.as_deref(), Some("Bambu Lab X1 Carbon"));
    let plate = &sliced.plates[0];
    assert_eq!(
        plate.seconds,
        Some(9 * 60 + 22),
        "the total, not the model's time"
    );
    let grams: Vec<_> = plate
        .slots
        .iter()
        .map(|s| (s.grams, s.grams_derived))
        .collect();
    assert_eq!(grams, [(dec("3.68"), false), (dec("0.61"), false)]);
    assert_eq!(plate.slots[1].material.as_deref(), Some("PETG"));
}

#[test]
fn an_older_bambu_header_without_weights_derives_grams_from_the_length() {
    let sliced = gcode("bambu-old-header.gcode").unwrap();
    let slot = &sliced.plates[0].slots[0];
    // 1000 mm × π × (1.75 / 2)² mm² = 2405.28 mm³ = 2.40528 cm³; × 1.24 g/cm³ = 2.98 g.
    assert_eq!((slot.grams, slot.grams_derived), (dec("2.98"), true));
    assert_eq!(slot.colour.as_deref(), Some("#00AE42"));
    assert_eq!(sliced.plates[0].seconds, Some(720));
}

#[test]
fn cura_gives_time_and_length_but_no_grams() {
    let sliced = gcode("cura.gcode").unwrap();
    assert_eq!(sliced.slicer, "Cura");
    assert_eq!(sliced.slicer_version.as_deref(), Some("4.13.0"));
    let plate = &sliced.plates[0];
    assert_eq!(plate.seconds, Some(5416));
    let lengths: Vec<_> = plate
        .slots
        .iter()
        .map(|s| (s.number, s.millimetres, s.grams))
        .collect();
    assert_eq!(lengths, [(1, dec("1234.56"), None), (2, dec("500"), None)]);
}

#[test]
fn bad_gcode_is_refused_with_its_own_reason() {
    assert_eq!(gcode("cura-placeholders.gcode"), Err(Refusal::Placeholders));
    assert_eq!(gcode("prusa-truncated.gcode"), Err(Refusal::Truncated));
    let parse = |bytes: &[u8]| gcode::parse(&Sample::of(bytes).unwrap());
    assert_eq!(parse(b"GCDE\x01\x00\x00\x00"), Err(Refusal::BinaryGcode));
    assert_eq!(parse(b"hello, world\n"), Err(Refusal::Unrecognized));
    assert_eq!(parse(b""), Err(Refusal::Unrecognized));
    let mut latin1 = fixture("prusa-one-filament.gcode");
    latin1.extend_from_slice(b"; note = caf\xe9\n");
    assert_eq!(parse(&latin1), Err(Refusal::NotText));
    let truncated_header =
        b"; HEADER_BLOCK_START\n; BambuStudio 01.08.00.62\n; total estimated time: 9m\n";
    assert_eq!(parse(truncated_header), Err(Refusal::Truncated));
}

/// A libbgcode block: header (type, compression, sizes), 2 parameter bytes (6 for a
/// thumbnail), the data, and a CRC32 slot (not checked by the reader).
fn block(kind: u16, compression: u16, text: &[u8]) -> Vec<u8> {
    let data = match compression {
        1 => {
            let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
            encoder.write_all(text).unwrap();
            encoder.finish().unwrap()
        }
        _ => text.to_vec(),
    };
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&kind.to_le_bytes());
    bytes.extend_from_slice(&compression.to_le_bytes());
    bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
    if compression != 0 {
        bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
    }
    bytes.extend_from_slice(&vec![0; if kind == 5 { 6 } else { 2 }]);
    bytes.extend_from_slice(&data);
    bytes.extend_from_slice(&[0xAB; 4]);
    bytes
}

/// A `.bgcode` as PrusaSlicer 2.7 lays it out, its print metadata compressed with `compression`.
fn bgcode(compression: u16) -> Vec<u8> {
    let mut file = b"GCDE".to_vec();
    file.extend_from_slice(&1u32.to_le_bytes());
    file.extend_from_slice(&1u16.to_le_bytes());
    file.extend(block(0, 0, b"Producer=PrusaSlicer 2.7.0+linux-x64\n"));
    file.extend(block(
        3,
        0,
        b"printer_model=MK4\nfilament_type=PLA;PETG\nextruder_colour=#FF8000;#FFFFFF\n",
    ));
    file.extend(block(5, 0, &[0x89, b'P', b'N', b'G', 0, 0, 0, 0]));
    file.extend(block(4, compression, b"filament used [mm]=1491.16,402.50\nfilament used [g]=4.45,1.23\nestimated printing time (normal mode)=13m 45s\n"));
    file.extend(block(2, 1, b"; a whole configuration\n"));
    file.extend(block(1, 0, b"G1 X10 Y10 E1\n"));
    file
}

#[test]
fn binary_gcode_is_read_from_its_metadata_blocks() {
    for compression in [0, 1] {
        let sliced = gcode::parse(&Sample::of(&bgcode(compression)).unwrap()).unwrap();
        assert_eq!(
            (sliced.slicer.as_str(), sliced.slicer_version.as_deref()),
            ("PrusaSlicer", Some("2.7.0+linux-x64"))
        );
        assert_eq!(sliced.printer_model.as_deref(), Some("MK4"));
        let plate = &sliced.plates[0];
        assert_eq!(plate.seconds, Some(825));
        let slots: Vec<_> = plate
            .slots
            .iter()
            .map(|s| (s.grams, s.material.as_deref(), s.colour.as_deref()))
            .collect();
        assert_eq!(
            slots,
            [
                (dec("4.45"), Some("PLA"), Some("#FF8000")),
                (dec("1.23"), Some("PETG"), Some("#FFFFFF"))
            ]
        );
    }
    let heatshrink = bgcode(3);
    assert_eq!(
        gcode::parse(&Sample::of(&heatshrink).unwrap()),
        Err(Refusal::BinaryGcode),
        "no maintained heatshrink decoder"
    );
    let mut cut = bgcode(0);
    cut.truncate(60);
    assert_eq!(
        gcode::parse(&Sample::of(&cut).unwrap()),
        Err(Refusal::Truncated),
        "no print metadata"
    );
}

#[test]
fn a_large_gcode_is_read_from_its_head_and_tail() {
    let file = fixture("prusa-one-filament.gcode");
    let text = String::from_utf8(file).unwrap();
    let (start, end) = text.split_at(text.find("M73 P100").unwrap());
    let mut sample = Sample::default();
    sample.push(start.as_bytes()).unwrap();
    let filler = "G1 X10.000 Y10.000 E0.01234\n".repeat(4096);
    for _ in 0..(3 * SAMPLE_BYTES / filler.len() + 1) {
        sample.push(filler.as_bytes()).unwrap();
    }
    sample.push(end.as_bytes()).unwrap();
    assert!(sample.len() > 3 * SAMPLE_BYTES as u64);
    let sliced = gcode::parse(&sample).unwrap();
    assert_eq!(sliced.plates[0].slots[0].grams, dec("4.45"));
    assert_eq!(sliced, gcode("prusa-one-filament.gcode").unwrap());
}

#[test]
fn a_bambu_3mf_with_one_plate() {
    let sliced = parse_package(&bambu_3mf(&fixture("slice-info-one-plate.xml"))).unwrap();
    assert_eq!(sliced.slicer, "BambuStudio");
    assert_eq!(sliced.slicer_version.as_deref(), Some("01.08.00.62"));
    assert_eq!(sliced.printer_model.as_deref(), Some("Bambu Lab X1 Carbon"));
    assert_eq!(sliced.plates.len(), 1);
    assert_eq!(sliced.plates[0].seconds, Some(2722));
    let slot = &sliced.plates[0].slots[0];
    assert_eq!(
        (slot.number, slot.grams, slot.millimetres),
        (1, dec("35.46"), dec("11890"))
    );
}

#[test]
fn a_multi_plate_3mf_is_one_part_per_plate_in_plate_order() {
    let sliced = parse_package(&bambu_3mf(&fixture("slice-info-two-plates.xml"))).unwrap();
    let plates: Vec<_> = sliced
        .plates
        .iter()
        .map(|p| {
            (
                p.number,
                p.seconds,
                p.slots
                    .iter()
                    .map(|s| (s.number, s.grams))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(
        plates,
        [
            (1, Some(600), vec![(2, dec("5.5"))]),
            (2, Some(3600), vec![(1, dec("30")), (3, dec("20.1"))]),
        ]
    );
    assert_eq!(
        sliced.plates[1].slots[1].colour.as_deref(),
        Some("#FFFFFF"),
        "alpha dropped"
    );
}

#[test]
fn a_plate_with_a_skipped_object_keeps_the_slots_it_uses() {
    let sliced = parse_package(&bambu_3mf(&fixture("slice-info-skipped-object.xml"))).unwrap();
    let slots: Vec<_> = sliced.plates[0]
        .slots
        .iter()
        .map(|s| (s.number, s.grams))
        .collect();
    assert_eq!(slots, [(1, dec("12"))], "the unused slot is left out");
}

#[test]
fn bad_packages_are_refused_with_their_own_reason() {
    let unsliced = bambu_3mf(&fixture("slice-info-unsliced.xml"));
    assert_eq!(parse_package(&unsliced), Err(Refusal::NotSliced));
    let project = zip(&[
        ("[Content_Types].xml", b"<Types/>"),
        ("3D/3dmodel.model", b"<model/>"),
        ("Metadata/Slic3r_PE.config", b"; layer_height = 0.2"),
    ]);
    assert_eq!(parse_package(&project), Err(Refusal::NotSliced));
    assert_eq!(
        parse_package(&zip(&[("photo.jpg", b"\xff\xd8")])),
        Err(Refusal::NotPackage)
    );
    let bomb = bambu_3mf(&fixture("slice-info-entity-bomb.xml"));
    assert_eq!(parse_package(&bomb), Err(Refusal::BrokenMetadata));
    let cut = fixture("slice-info-one-plate.xml");
    let broken = bambu_3mf(&cut[..cut.len() / 2]);
    assert_eq!(parse_package(&broken), Err(Refusal::BrokenMetadata));
    let garbage = bambu_3mf(b"\x00\x01 not xml <<<");
    assert_eq!(parse_package(&garbage), Err(Refusal::BrokenMetadata));
    let mut damaged = bambu_3mf(&fixture("slice-info-one-plate.xml"));
    let end = damaged.len();
    damaged.truncate(end - 30);
    assert_eq!(parse_package(&damaged), Err(Refusal::BrokenArchive));
    assert_eq!(
        package::parse(Cursor::new(b"PK"), sliced::MAX_PACKAGE_BYTES + 1),
        Err(Refusal::TooLarge)
    );
}

#[test]
fn a_zip_bomb_is_refused_before_it_is_inflated() {
    // 64 MiB of zeros deflate to about 64 KiB.
    let zeros = vec![0u8; 64 << 20];
    let bomb = zip(&[("Metadata/slice_info.config", &zeros)]);
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    assert_eq!(parse_package(&bomb), Err(Refusal::EntryTooLarge));
}

#[test]
fn a_cura_ufp_is_read_through_its_gcode() {
    let ufp = zip(&[
        ("/3D/model.gcode", &fixture("cura.gcode")),
        ("[Content_Types].xml", b"<Types/>"),
    ]);
    let sliced = parse_package(&ufp).unwrap();
    assert_eq!(
        (sliced.slicer.as_str(), sliced.plates[0].seconds),
        ("Cura", Some(5416))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes, and real files with bytes changed, never panic: they parse or are refused.
    #[test]
    fn arbitrary_and_mutated_files_never_panic(
        noise in proptest::collection::vec(any::<u8>(), 0..4096),
        file in 0usize..7,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..16),
    ) {
        let _ = gcode::parse(&Sample::of(&noise).unwrap());
        let mut binary = bgcode(1);
        for (at, byte) in &flips {
            let i = at.index(binary.len());
            binary[i] = *byte;
        }
        let _ = gcode::parse(&Sample::of(&binary).unwrap());
        let _ = parse_package(&noise);
        let names = ["prusa-one-filament.gcode", "prusa-two-filaments.gcode", "bambu-header.gcode",
            "bambu-old-header.gcode", "cura.gcode", "slice-info-two-plates.xml", "slice-info-one-plate.xml"];
        let mut bytes = fixture(names[file]);
        for (at, byte) in &flips {
            let i = at.index(bytes.len());
            bytes[i] = *byte;
        }
        let _ = gcode::parse(&Sample::of(&bytes).unwrap());
        let package = bambu_3mf(&bytes);
        let _ = parse_package(&package);
        let mut mangled = package.clone();
        for (at, byte) in &flips {
            let i = at.index(mangled.len());
            mangled[i] = *byte;
        }
        let _ = parse_package(&mangled);
    }
}
