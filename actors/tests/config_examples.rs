//! Every example configuration in `config/` (the README points at them) parses and validates,
//! and the starter configuration the bridge writes is `config/starter.yml`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::bridge::config::{self, STARTER};
use std::path::Path;

#[test]
fn every_example_configuration_parses_and_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let loaded = config::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(loaded.validate(), Ok(()), "{}", path.display());
        assert!(!loaded.sources.is_empty(), "{}", path.display());
        names.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    names.sort();
    assert_eq!(
        names,
        [
            "dryer.yml",
            "energy-meter.yml",
            "external-broker.yml",
            "starter.yml"
        ]
    );
    let starter = std::fs::read_to_string(dir.join("starter.yml")).unwrap();
    assert_eq!(starter, STARTER);
}
