//! printcost's own MQTT topics, all under [`PREFIX`] (docs/api-contract.md, "Alerts"), and their
//! Home Assistant discovery:
//!
//! | topic | retained | payload |
//! |---|---|---|
//! | `printcost/filaments/<id>/remaining_grams` | yes | grams on the active spools, `1234.5` |
//! | `printcost/prints/active` | yes | prints PRINTING, `2` |
//! | `printcost/printers/<id>/maintenance_due` | yes | `ON` or `OFF` |
//! | `printcost/month/realized_revenue` | yes | this month's realized revenue, `123.45` |
//! | `printcost/month/realized_margin` | yes | its realized margin |
//! | `printcost/alerts/<KIND>/<subject>` | yes | the standing alert (JSON); emptied when it clears |
//! | `printcost/events` | no | every start and clear ([`super::Event`], JSON) |
//!
//! They go out through the bridge's MQTT link (the embedded broker, or the external one), whose
//! `<base>/status` is their availability. With Home Assistant discovery on in the bridge's
//! configuration, every level is announced on the device "printcost": a `weight` sensor per
//! filament, a sensor of active prints, a `problem` binary sensor per printer, and two
//! `monetary` sensors in the instance currency; an entity whose record went away has its
//! config emptied (Home Assistant removes it).

use super::conditions::Levels;
use super::iso;
use crate::bridge::sanitise;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use storage::records::StandingAlert;

/// The first level of every printcost topic.
pub const PREFIX: &str = "printcost";
/// The events' topic.
pub const EVENTS: &str = "printcost/events";

/// The retained topic of a standing alert.
pub fn alert_topic(alert: &StandingAlert) -> String {
    let subject = if alert.subject.is_empty() {
        "instance"
    } else {
        &alert.subject
    };
    format!("{PREFIX}/alerts/{}/{}", alert.kind, sanitise(subject))
}

/// The payload of a standing alert's topic.
pub fn alert_payload(alert: &StandingAlert) -> Vec<u8> {
    json!({
        "kind": alert.kind,
        "subject": alert.subject,
        "title": alert.title,
        "message": alert.message,
        "since": iso(alert.since),
    })
    .to_string()
    .into_bytes()
}

fn filament_topic(id: &storage::Id) -> String {
    format!("{PREFIX}/filaments/{id}/remaining_grams")
}

fn printer_topic(id: &storage::Id) -> String {
    format!("{PREFIX}/printers/{id}/maintenance_due")
}

const ACTIVE: &str = "printcost/prints/active";
const REVENUE: &str = "printcost/month/realized_revenue";
const MARGIN: &str = "printcost/month/realized_margin";

/// Every level's state topic and payload.
pub fn states(levels: &Levels) -> BTreeMap<String, String> {
    let mut states = BTreeMap::new();
    for (id, _, grams) in &levels.filaments {
        states.insert(filament_topic(id), grams.normalize().to_string());
    }
    for (id, _, due) in &levels.printers {
        let flag = if *due { "ON" } else { "OFF" };
        states.insert(printer_topic(id), flag.to_string());
    }
    states.insert(ACTIVE.into(), levels.active_prints.to_string());
    states.insert(REVENUE.into(), levels.month_revenue.round_dp(2).to_string());
    states.insert(MARGIN.into(), levels.month_margin.round_dp(2).to_string());
    states
}

/// The discovery configs of every level, by config topic under `ha_prefix`, each available
/// while `availability` says `online`.
pub fn discovery(levels: &Levels, ha_prefix: &str, availability: &str) -> BTreeMap<String, Value> {
    let entity = |component: &str, object: &str, config: Value| {
        let mut config = config;
        config["unique_id"] = json!(format!("printcost_{object}"));
        config["availability_topic"] = json!(availability);
        config["device"] = json!({
            "identifiers": ["printcost"],
            "name": "printcost",
            "manufacturer": "PrintCost",
            "model": "print-cost appliance",
            "sw_version": env!("CARGO_PKG_VERSION"),
        });
        config["origin"] = json!({"name": "printcost", "sw_version": env!("CARGO_PKG_VERSION")});
        (
            format!("{ha_prefix}/{component}/printcost/{object}/config"),
            config,
        )
    };
    let mut configs = BTreeMap::new();
    for (id, name, _) in &levels.filaments {
        let (topic, config) = entity(
            "sensor",
            &format!("filament_{}_remaining", id),
            json!({
                "name": format!("{name} remaining"),
                "state_topic": filament_topic(id),
                "unit_of_measurement": "g",
                "device_class": "weight",
                "state_class": "measurement",
            }),
        );
        configs.insert(topic, config);
    }
    for (id, name, _) in &levels.printers {
        let (topic, config) = entity(
            "binary_sensor",
            &format!("printer_{}_maintenance_due", id),
            json!({
                "name": format!("{name} maintenance due"),
                "state_topic": printer_topic(id),
                "payload_on": "ON",
                "payload_off": "OFF",
                "device_class": "problem",
            }),
        );
        configs.insert(topic, config);
    }
    let (topic, config) = entity(
        "sensor",
        "active_prints",
        json!({"name": "Active prints", "state_topic": ACTIVE, "state_class": "measurement"}),
    );
    configs.insert(topic, config);
    for (object, name, state_topic) in [
        (
            "month_realized_revenue",
            "Realized revenue this month",
            REVENUE,
        ),
        (
            "month_realized_margin",
            "Realized margin this month",
            MARGIN,
        ),
    ] {
        let (topic, config) = entity(
            "sensor",
            object,
            json!({
                "name": name,
                "state_topic": state_topic,
                "unit_of_measurement": levels.currency,
                "device_class": "monetary",
            }),
        );
        configs.insert(topic, config);
    }
    configs
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;
    use storage::Id;

    #[test]
    fn every_level_has_a_state_and_an_announced_entity_on_it() {
        let (filament, printer) = (Id::new(), Id::new());
        let levels = Levels {
            currency: "EUR".into(),
            filaments: vec![(filament, "Prusament PLA".into(), Decimal::new(12_500, 1))],
            active_prints: 2,
            printers: vec![(printer, "MK4".into(), true)],
            month_revenue: Decimal::new(12_345, 2),
            month_margin: Decimal::new(-5, 1),
        };
        let states = states(&levels);
        assert_eq!(states[&filament_topic(&filament)], "1250");
        assert_eq!(states[&printer_topic(&printer)], "ON");
        assert_eq!(states[ACTIVE], "2");
        assert_eq!(states[REVENUE], "123.45");
        assert_eq!(states[MARGIN], "-0.5");
        let configs = discovery(&levels, "homeassistant", "modbus/status");
        assert_eq!(configs.len(), states.len());
        for config in configs.values() {
            let state = config["state_topic"].as_str().unwrap();
            assert!(states.contains_key(state), "{state} is published");
            assert_eq!(config["availability_topic"], "modbus/status");
        }
    }
}
