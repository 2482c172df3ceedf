//! Every example configuration in `config/` (the README points at them) parses and validates,
//! the starter configuration the bridge writes is `config/starter.yml`, and every device
//! template in `config/templates/` is built in, loads and validates.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::bridge::config::{self, ConfigError, STARTER};
use actors::bridge::templates;
use std::path::Path;

#[test]
fn every_example_configuration_parses_and_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            continue;
        }
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

/// A configuration of one source `meter` with `lines` under it, Home Assistant discovery on (so
/// classes and units are checked as well).
fn with_source(lines: &str) -> Result<config::BridgeConfig, ConfigError> {
    let text = format!(
        "mqtt: {{host: h}}\nhomeassistant: {{enabled: true}}\nsources:\n  - id: meter\n    host: h\n    unit_id: 1\n{lines}"
    );
    let parsed = config::parse("c.yml", &text)?;
    parsed.validate().map_err(|problems| ConfigError::Invalid {
        file: "c.yml".into(),
        problems,
    })?;
    Ok(parsed)
}

#[test]
fn every_template_is_built_in_loads_and_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/templates");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let built_in: Vec<String> = templates::names().map(|n| format!("{n}.yml")).collect();
    assert_eq!(
        files, built_in,
        "every file in config/templates is built in"
    );
    for name in templates::names() {
        let text = std::fs::read_to_string(dir.join(format!("{name}.yml"))).unwrap();
        assert_eq!(templates::text(name), Some(text.as_str()));
        assert!(
            text.lines().any(|l| l.starts_with("# Register map:")),
            "{name} names its register map"
        );
        let loaded = with_source(&format!("    template: {name}\n"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let points = &loaded.sources[0].points;
        assert!(points.len() >= 4, "{name}: {} points", points.len());
        assert!(
            points
                .iter()
                .any(|p| p.device_class.as_deref() == Some("energy")
                    && p.state_class.as_deref() == Some("total_increasing")),
            "{name} has an energy counter"
        );
    }
}

#[test]
fn a_source_s_own_point_replaces_the_template_s_point_of_that_name() {
    let loaded = with_source(
        "    template: sdm120\n    points:\n      - { name: Energy imported, topic: import_energy, address: 0x0048, kind: input, data_type: f32, poll_interval_ms: 10000, unit_of_measurement: kWh, device_class: energy, state_class: total_increasing }\n      - { name: Relay, topic: relay, address: 0, kind: coil, data_type: bool }\n",
    )
    .unwrap();
    let points = &loaded.sources[0].points;
    let names: Vec<&str> = points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names.len(),
        11,
        "10 of the template, one replaced, one added: {names:?}"
    );
    assert_eq!(
        &names[..3],
        ["Energy imported", "Relay", "Voltage"],
        "own points first"
    );
    let imported: Vec<_> = points
        .iter()
        .filter(|p| p.name == "Energy imported")
        .collect();
    assert_eq!(imported.len(), 1);
    assert_eq!(imported[0].poll_interval_ms, Some(10_000));
}

#[test]
fn an_unknown_template_is_named_with_the_known_ones() {
    let err = with_source("    template: sdm999\n").unwrap_err();
    let ConfigError::Invalid { problems, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        problems,
        vec![format!(
            "sources[0].template: unknown template \"sdm999\"; known: {}",
            templates::names().collect::<Vec<_>>().join(", ")
        )]
    );
}
