//! The manual pages rendered from the command lines: a page per program and per visible
//! command, each carrying every option that `--help` shows, and nothing hidden.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use clap::CommandFactory;
use printcost::cli::{Bridge, Cli, write_manual_pages};

#[test]
fn every_program_and_command_has_its_page_with_every_option_of_its_help() {
    let dir = tempfile::tempdir().unwrap();
    write_manual_pages(dir.path()).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "modbus-mqtt-bridge.1",
            "printcost-backup.1",
            "printcost-journal-verify.1",
            "printcost-journal.1",
            "printcost-reset-password.1",
            "printcost-restore.1",
            "printcost-serve.1",
            "printcost.1",
        ],
        "no page for the hidden manual-pages command, none for help"
    );
    for command in [Cli::command(), Bridge::command()] {
        let name = command.get_name().to_string();
        let text = std::fs::read_to_string(dir.path().join(format!("{name}.1"))).unwrap();
        assert!(text.contains(&format!(".TH {name} 1")), "{name}: {text}");
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                // roff escapes the dashes: \-\-listen
                let escaped = format!("\\-\\-{}", long.replace('-', "\\-"));
                assert!(text.contains(&escaped), "{name}: --{long} missing");
            }
        }
    }
}
