//! Memory of a crafted 3MF whose central directory lists a million empty entries (a 50 MB
//! upload): the `zip` crate parsing that directory as it is, beside the appliance's package
//! reader, which bounds the directory before the crate reads it
//! (`actors/src/sliced/package/directory.rs`). Peak RSS growth of this process after each, from
//! `/proc/self/status` (`VmHWM`), the bounded reader first. Not a timed test: run it by hand,
//! `cargo bench --bench zip_directory` (`ENTRIES=N` for another count).

use actors::sliced::package;
use std::io::{Cursor, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

#[path = "support/proc_status.rs"]
mod proc_status;

/// Reads the zip at `path` the way `how` says, in this process: answers the outcome and how
/// much the peak resident set grew, KiB.
fn read(how: &str, path: &str) -> (String, u64) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let before = proc_status::kib("VmHWM:");
    let outcome = match how {
        "bounded" => format!(
            "{:?}",
            package::parse(Cursor::new(&bytes), bytes.len() as u64).err()
        ),
        _ => format!(
            "{:?} entries read",
            ZipArchive::new(Cursor::new(&bytes)).map(|a| a.len()).ok()
        ),
    };
    (outcome, proc_status::kib("VmHWM:") - before)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, how, path, ..] = args.as_slice()
        && mode == "read"
    {
        let (outcome, grew) = read(how, path);
        println!("{outcome}; peak RSS grew {grew} KiB");
        return;
    }
    let entries: usize = std::env::var("ENTRIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    for k in 0..entries {
        zip.start_file(format!("{k:07}"), stored)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    zip.write_all(b"").unwrap_or_else(|e| panic!("{e}"));
    let bytes = zip.finish().unwrap_or_else(|e| panic!("{e}")).into_inner();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("crafted.gcode.3mf");
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    println!("a zip of {entries} empty entries: {} bytes", bytes.len());
    // Each reader in a process of its own, so that neither's peak hides the other's.
    let me = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    for (how, what) in [
        ("bounded", "the package reader"),
        ("zip", "the zip crate alone"),
    ] {
        let out = std::process::Command::new(&me)
            .args(["read", how])
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        print!("{what}: {}", String::from_utf8_lossy(&out.stdout));
    }
}
