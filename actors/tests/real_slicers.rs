//! The G-code parser against the real slicers (Debian's PrusaSlicer 2.5 and CuraEngine 4.13,
//! installed by `scripts/test`): each slices a model this test writes, and what the parser
//! reads equals what the slicer printed in its own summary, digit for digit. PrusaSlicer's SLA
//! archives likewise, against the archive's own `config.ini`, its layer images and the cube's
//! volume.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::sliced::{Refusal, Sample, Sliced, gcode, package, sla};
use rust_decimal::Decimal;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;

/// A 20 mm cube as ASCII STL.
fn cube(dir: &Path) -> PathBuf {
    let s = 20.0;
    let v = [
        (0.0, 0.0, 0.0),
        (s, 0.0, 0.0),
        (s, s, 0.0),
        (0.0, s, 0.0),
        (0.0, 0.0, s),
        (s, 0.0, s),
        (s, s, s),
        (0.0, s, s),
    ];
    let faces = [
        (0, 2, 1),
        (0, 3, 2),
        (4, 5, 6),
        (4, 6, 7),
        (0, 1, 5),
        (0, 5, 4),
        (1, 2, 6),
        (1, 6, 5),
        (2, 3, 7),
        (2, 7, 6),
        (3, 0, 4),
        (3, 4, 7),
    ];
    let mut stl = String::from("solid cube\n");
    for (a, b, c) in faces {
        stl.push_str(" facet normal 0 0 0\n  outer loop\n");
        for i in [a, b, c] {
            let (x, y, z) = v[i];
            stl.push_str(&format!("   vertex {x} {y} {z}\n"));
        }
        stl.push_str("  endloop\n endfacet\n");
    }
    stl.push_str("endsolid cube\n");
    let path = dir.join("cube.stl");
    std::fs::write(&path, stl).unwrap();
    path
}

/// Runs `program` with `args`; panics with its output when it fails or is missing.
fn run(program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} is missing ({e}): run the tests with scripts/test, which installs it")
        });
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{program} failed: {log}");
    log
}

/// The parse of the file at `path`, streamed in 64 KiB chunks as an upload is.
fn parse(path: &Path) -> Result<Sliced, Refusal> {
    let bytes = std::fs::read(path).unwrap();
    let mut sample = Sample::default();
    for chunk in bytes.chunks(64 * 1024) {
        sample.push(chunk).unwrap();
    }
    gcode::parse(&sample)
}

/// The value of the summary line `; {key} = …` the slicer wrote.
fn summary(path: &Path, key: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let prefix = format!("; {key} = ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` in {}", path.display()))
        .to_string()
}

/// `seconds` as PrusaSlicer writes a duration: `1d 2h 3m 4s` without the leading zero units.
fn prusa_duration(seconds: u32) -> String {
    let parts = [
        (seconds / 86_400, "d"),
        (seconds / 3600 % 24, "h"),
        (seconds / 60 % 60, "m"),
        (seconds % 60, "s"),
    ];
    let first = parts.iter().position(|(n, _)| *n > 0).unwrap_or(3);
    parts[first..]
        .iter()
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn decimals(list: &str) -> Vec<Decimal> {
    list.split(',')
        .map(|v| Decimal::from_str(v.trim()).unwrap())
        .collect()
}

#[test]
fn prusaslicer_one_and_two_filaments() {
    let dir = tempfile::tempdir().unwrap();
    let model = cube(dir.path());
    let one = dir.path().join("one.ini");
    std::fs::write(&one, "filament_density = 1.24\nfilament_colour = #FF8000\nfilament_type = PETG\nprinter_model = MK3S\n").unwrap();
    let two = dir.path().join("two.ini");
    std::fs::write(
        &two,
        "nozzle_diameter = 0.4,0.4\nextruder_offset = 0x0,0x0\nretract_length = 2,2\nretract_lift = 0,0\n\
         retract_speed = 40,40\nderetract_speed = 0,0\nretract_restart_extra = 0,0\nretract_before_travel = 2,2\n\
         retract_layer_change = 1,1\nwipe = 0,0\nretract_length_toolchange = 10,10\n\
         retract_restart_extra_toolchange = 0,0\nmin_layer_height = 0.07,0.07\nmax_layer_height = 0,0\n\
         extruder_colour = \"\";\"\"\nfilament_diameter = 1.75,1.75\nfilament_density = 1.24,1.27\n\
         filament_type = PLA;PETG\nfilament_colour = #FF8000;#FFFFFF\ntemperature = 215,240\n\
         first_layer_temperature = 215,240\nperimeter_extruder = 1\ninfill_extruder = 2\n\
         solid_infill_extruder = 2\nwipe_tower = 0\nprinter_model = MK3S\n",
    )
    .unwrap();
    for (config, materials) in [(&one, vec!["PETG"]), (&two, vec!["PLA", "PETG"])] {
        let out = dir.path().join("out.gcode");
        let args = [
            "--export-gcode",
            "--load",
            config.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            model.to_str().unwrap(),
        ];
        run("prusa-slicer", &args);
        let sliced = parse(&out).unwrap();
        assert_eq!(sliced.slicer, "PrusaSlicer");
        assert_eq!(sliced.printer_model.as_deref(), Some("MK3S"));
        let plate = &sliced.plates[0];
        let seconds = plate.seconds.expect("a time");
        assert_eq!(
            prusa_duration(seconds),
            summary(&out, "estimated printing time (normal mode)")
        );
        let grams: Vec<Decimal> = plate.slots.iter().map(|s| s.grams.unwrap()).collect();
        assert_eq!(
            grams,
            decimals(&summary(&out, "filament used [g]")),
            "as the slicer wrote them"
        );
        let lengths: Vec<Decimal> = plate.slots.iter().map(|s| s.millimetres.unwrap()).collect();
        assert_eq!(lengths, decimals(&summary(&out, "filament used [mm]")));
        let found: Vec<&str> = plate
            .slots
            .iter()
            .map(|s| s.material.as_deref().unwrap())
            .collect();
        assert_eq!(found, materials);
        assert!(plate.slots.iter().all(|s| !s.grams_derived));
    }
}

#[test]
fn curaengine_placeholders_are_refused_and_the_saved_file_is_read() {
    let definitions = std::env::var("PRINTCOST_CURA_DEFINITIONS")
        .expect("PRINTCOST_CURA_DEFINITIONS is not set: run the tests with scripts/test, which unpacks them");
    let dir = tempfile::tempdir().unwrap();
    let model = cube(dir.path());
    let out = dir.path().join("cura.gcode");
    let printer = format!("{definitions}/fdmprinter.def.json");
    let extruder = format!("{definitions}/fdmextruder.def.json");
    let log = run(
        "CuraEngine",
        &[
            "slice",
            "-v",
            "-j",
            &printer,
            "-j",
            &extruder,
            "-s",
            "material_diameter=1.75",
            "-e0",
            "-s",
            "material_diameter=1.75",
            "-l",
            model.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(
        parse(&out),
        Err(Refusal::Placeholders),
        "the command line's placeholders"
    );

    // What Cura does when it saves: the engine's reported time and the filament's length
    // (its volume over the 1.75 mm filament's cross-section) replace the placeholders.
    let reported = |key: &str| {
        log.lines()
            .find_map(|l| l.split_once(key).map(|(_, v)| v.trim().to_string()))
            .unwrap_or_else(|| panic!("no `{key}` in CuraEngine's log"))
    };
    let seconds: u32 = reported("Print time (s):").parse().unwrap();
    let volume = Decimal::from_str(&reported("Filament (mm^3):")).unwrap();
    let area = Decimal::from_str("0.875").unwrap()
        * Decimal::from_str("0.875").unwrap()
        * Decimal::from_str("3.1415926535897932384626433833").unwrap();
    let metres = (volume / area / Decimal::ONE_THOUSAND).round_dp(5);
    let text = std::fs::read_to_string(&out).unwrap();
    let saved = text
        .replacen(";TIME:6666", &format!(";TIME:{seconds}"), 1)
        .replacen(
            ";Filament used: 0m",
            &format!(";Filament used: {metres}m"),
            1,
        );
    std::fs::write(&out, saved).unwrap();

    let sliced = parse(&out).unwrap();
    assert_eq!(
        (sliced.slicer.as_str(), sliced.slicer_version.as_deref()),
        ("Cura", Some("4.13.0"))
    );
    let plate = &sliced.plates[0];
    assert_eq!(plate.seconds, Some(seconds));
    assert_eq!(
        plate.slots[0].millimetres,
        Some((metres * Decimal::ONE_THOUSAND).normalize())
    );
    assert_eq!(
        plate.slots[0].grams, None,
        "Cura writes no grams; they are derived from a chosen filament"
    );
}

/// The value of `key` in the `config.ini` of the SLA archive at `path`, read here on its own.
fn config_value(path: &Path, key: &str) -> String {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut config = String::new();
    archive
        .by_name("config.ini")
        .unwrap()
        .read_to_string(&mut config)
        .unwrap();
    config
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key} in {config}"))
        .to_string()
}

/// PrusaSlicer slices the cube for an SL1S at two layer heights, with and without supports:
/// the archive's resin is the job's millilitres exactly (8 ml for the bare 20 mm cube, more with
/// supports and pad), its time the archive's rounded to the second, and its layers as many as
/// the archive's layer images.
#[test]
fn prusaslicer_sla_archives_give_their_millilitres_seconds_and_layers() {
    let dir = tempfile::tempdir().unwrap();
    let model = cube(dir.path());
    for (name, layer, supports) in [("bare.sl1s", "0.1", "0"), ("supported.sl1", "0.05", "1")] {
        let config = dir.path().join(format!("{name}.ini"));
        std::fs::write(
            &config,
            format!(
                "printer_technology = SLA\nprinter_model = SL1S\nlayer_height = {layer}\n\
                 supports_enable = {supports}\npad_enable = {supports}\n"
            ),
        )
        .unwrap();
        let out = dir.path().join(name);
        let args = [
            "--export-sla",
            "--load",
            config.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
            model.to_str().unwrap(),
        ];
        run("prusa-slicer", &args);
        let file = std::fs::File::open(&out).unwrap();
        let len = file.metadata().unwrap().len();
        // The upload's reader: the archive as a sliced file of one resin plate.
        let plate = package::parse(file, len).unwrap().plates.remove(0);
        let mut archive = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
        let job = sla::from_archive(&mut archive).unwrap();
        let resin = plate.resin.unwrap();
        assert_eq!(
            (resin.millilitres, plate.seconds, plate.slots.len()),
            (job.millilitres, Some(job.seconds), 0)
        );
        let written = Decimal::from_str(&config_value(&out, "usedMaterial")).unwrap();
        assert_eq!(job.millilitres, written.normalize(), "{name}");
        if supports == "0" {
            assert_eq!(job.millilitres, Decimal::from(8), "a 20 mm cube is 8 ml");
        } else {
            assert!(
                job.millilitres > Decimal::from(8),
                "supports and pad add resin"
            );
        }
        let time = Decimal::from_str(&config_value(&out, "printTime")).unwrap();
        assert_eq!(Decimal::from(job.seconds), time.round(), "{name}");
        let archive = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
        let images = archive
            .file_names()
            .filter_map(Result::ok)
            .filter(|n| n.ends_with(".png"))
            .count();
        assert_eq!(job.layers as usize, images, "{name}");
        assert_eq!(job.printer_model.as_deref(), Some("SL1S"));
        assert!(
            job.slicer_version
                .is_some_and(|v| v.starts_with("PrusaSlicer-2."))
        );
    }
}
