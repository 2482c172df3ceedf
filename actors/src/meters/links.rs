//! A printer's link to its energy meter, and what a meter's MQTT message says: the topic a link
//! is read on, and the counter in a message (Tasmota's `ENERGY.Total` in kWh, Shelly Gen2's
//! `aenergy.total` in Wh, the bridge's bare value).

use super::history::{self, Sample};
use crate::bridge::BridgeConfig;
use crate::command::InventoryWriter;
use crate::command::{Command, Query, Snapshot};
use crate::txn::Txn;
use crate::{Error, Result, inventory};
use rust_decimal::Decimal;
use std::str::FromStr;
use storage::records::{EnergyUnit, MeterLink, MeterSource, Printer};
use storage::repo;
use storage::{Id, Timestamp};

/// The rules of a source's own fields, whatever bridge runs: an MQTT topic has no wildcard
/// (`+`, `#`), no control character (U+0000 is forbidden in a topic name, MQTT 3.1.1
/// section 4.7.3, and a broker drops the connection that sends it; the others are
/// discouraged there and never part of a device's topic) and at most 512 characters; a
/// counter's path at most 200 characters and no empty step; a bridge point's source and point
/// names at most 200 characters (a bridge's ids and names are short; the schema says so).
///
/// Errors: `VALIDATION_FAILED` with `errors.invalidValue` at `topic` or `jsonPath`,
/// `errors.tooLong` at `source` or `point`.
pub fn check(source: &MeterSource) -> Result<()> {
    if let MeterSource::BridgePoint { source, point } = source {
        for (name, value) in [("source", source), ("point", point)] {
            if value.chars().count() > 200 {
                return Err(Error::field(name, "errors.tooLong"));
            }
        }
    }
    if let MeterSource::Mqtt { topic, json_path } = source {
        if topic.is_empty()
            || topic.contains(['+', '#'])
            || topic.chars().any(char::is_control)
            || topic.chars().count() > 512
        {
            return Err(Error::field("topic", "errors.invalidValue"));
        }
        if json_path
            .as_ref()
            .is_some_and(|p| p.chars().count() > 200 || p.split('.').any(str::is_empty))
        {
            return Err(Error::field("jsonPath", "errors.invalidValue"));
        }
    }
    Ok(())
}

/// The topic `source` is read on with the in-process bridge `bridge`, and the path of the
/// counter in its message (none: the message is the number).
///
/// Errors: as [`check`]; `VALIDATION_FAILED` at `kind` without a bridge in this process (no
/// broker to read from), at `source` or `point` when the bridge has no such source or point.
pub fn topic_of(
    source: &MeterSource,
    bridge: Option<&BridgeConfig>,
) -> Result<(String, Option<String>)> {
    check(source)?;
    let bridge = bridge.ok_or_else(|| Error::field("kind", "errors.noBroker"))?;
    match source {
        MeterSource::BridgePoint { source, point } => {
            let found = bridge
                .sources
                .iter()
                .find(|s| s.id == *source)
                .ok_or_else(|| Error::field("source", "errors.notFound"))?;
            let point = found
                .points
                .iter()
                .find(|p| p.name == *point)
                .ok_or_else(|| Error::field("point", "errors.notFound"))?;
            let topic = format!("{}/{}/{}", bridge.mqtt.base_topic, found.id, point.topic);
            Ok((topic, None))
        }
        MeterSource::Mqtt { topic, json_path } => Ok((topic.clone(), json_path.clone())),
    }
}

/// The counter in `payload`, kWh: the number at `json_path` in its JSON (a number or a
/// numeric string), or the payload itself as a number; Wh divided by 1,000 exactly. None when
/// there is none, it is negative, or it is not finite.
pub fn counter_of(payload: &[u8], json_path: Option<&str>, unit: EnergyUnit) -> Option<Decimal> {
    let text = std::str::from_utf8(payload).ok()?.trim();
    let raw = match json_path {
        None => text.trim_matches('"').to_string(),
        Some(path) => {
            let message: serde_json::Value = serde_json::from_str(text).ok()?;
            let node = path
                .split('.')
                .try_fold(&message, |node, step| node.get(step))?;
            match node {
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::String(s) => s.trim().to_string(),
                _ => return None,
            }
        }
    };
    let value = Decimal::from_str(&raw)
        .or_else(|_| Decimal::from_scientific(&raw))
        .ok()?;
    if value.is_sign_negative() && !value.is_zero() {
        return None;
    }
    match unit {
        EnergyUnit::Kwh => Some(value),
        EnergyUnit::Wh => value.checked_div(Decimal::ONE_THOUSAND),
    }
}

/// Links printer `printer` to `link`, or unlinks it (`None`; its readings stay). The link was
/// checked with [`topic_of`] by the caller, which knows the bridge.
///
/// Errors: `NOT_FOUND` for an unknown printer.
#[derive(Debug, Clone)]
pub struct LinkMeter {
    /// The printer.
    pub printer: Id,
    /// Its meter, or none.
    pub link: Option<MeterLink>,
}

impl Command for LinkMeter {
    type Writer = InventoryWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        inventory::get::<Printer>(txn, self.printer)?;
        repo::put_meter_link(txn, self.printer, self.link.as_ref())?;
        Ok(())
    }
}

/// Stores readings the keeper chose ([`super::history::Keeper`]): (meter, reading).
#[derive(Debug, Clone)]
pub struct KeepReadings(pub Vec<(Id, Sample)>);

impl Command for KeepReadings {
    type Writer = InventoryWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        for (meter, sample) in &self.0 {
            history::keep(txn, *meter, *sample)?;
        }
        Ok(())
    }
}

/// A printer's meter and its last kept reading: `NOT_FOUND` for an unknown printer.
#[derive(Debug, Clone, Copy)]
pub struct MeterOf(pub Id);

impl Query for MeterOf {
    type Answer = Option<(MeterLink, Option<Sample>)>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Self::Answer> {
        inventory::get::<Printer>(snapshot, self.0)?;
        let Some(link) = repo::meter_link(snapshot, self.0)? else {
            return Ok(None);
        };
        Ok(Some((link, history::last_kept(snapshot, self.0)?)))
    }
}

/// A printer's kept readings from `from` to `to`: `NOT_FOUND` for an unknown printer.
#[derive(Debug, Clone, Copy)]
pub struct MeterReadings {
    /// The printer.
    pub printer: Id,
    /// From, inclusive.
    pub from: Timestamp,
    /// To, inclusive.
    pub to: Timestamp,
}

impl Query for MeterReadings {
    type Answer = Vec<Sample>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<Sample>> {
        inventory::get::<Printer>(snapshot, self.printer)?;
        history::readings(snapshot, self.printer, self.from, self.to)
    }
}

/// Every linked meter: (printer, link).
#[derive(Debug, Clone, Copy)]
pub struct MeterLinks;

impl Query for MeterLinks {
    type Answer = Vec<(Id, MeterLink)>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Self::Answer> {
        Ok(repo::meter_links(snapshot)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn a_topic_with_a_wildcard_or_a_path_with_an_empty_step_is_refused() {
        let mqtt = |topic: &str, path: Option<&str>| MeterSource::Mqtt {
            topic: topic.into(),
            json_path: path.map(Into::into),
        };
        assert!(check(&mqtt("tele/plug/SENSOR", Some("ENERGY.Total"))).is_ok());
        for refused in [
            mqtt("tele/+/SENSOR", None),
            mqtt("a/#", None),
            mqtt("tele/plug\0/SENSOR", None),
            mqtt("tele/plug\n/SENSOR", None),
            mqtt("tele/plug\u{85}/SENSOR", None),
            mqtt("a", Some("ENERGY..Total")),
        ] {
            assert!(check(&refused).is_err(), "{refused:?}");
        }
        let nowhere = topic_of(&mqtt("tele/plug/SENSOR", None), None);
        assert!(nowhere.is_err(), "no bridge, no broker");
    }

    #[test]
    fn counters_are_read_from_tasmota_shelly_and_bare_messages() {
        let tasmota = br#"{"Time":"2026-11-27T10:00:00","ENERGY":{"TotalStartTime":"2026-01-01T00:00:00","Total":12.345,"Yesterday":0.1,"Today":0.2,"Power":95}}"#;
        assert_eq!(
            counter_of(tasmota, Some("ENERGY.Total"), EnergyUnit::Kwh),
            Some(d("12.345"))
        );
        let shelly = br#"{"id":0,"apower":101.2,"aenergy":{"total":45678.9,"by_minute":[1,2,3]}}"#;
        assert_eq!(
            counter_of(shelly, Some("aenergy.total"), EnergyUnit::Wh),
            Some(d("45.6789"))
        );
        assert_eq!(
            counter_of(b"1234.5", None, EnergyUnit::Kwh),
            Some(d("1234.5"))
        );
        assert_eq!(
            counter_of(b"\"7.25\"", None, EnergyUnit::Kwh),
            Some(d("7.25"))
        );
        assert_eq!(counter_of(b"-3", None, EnergyUnit::Kwh), None);
        assert_eq!(counter_of(b"null", None, EnergyUnit::Kwh), None);
        assert_eq!(
            counter_of(tasmota, Some("ENERGY.Missing"), EnergyUnit::Kwh),
            None
        );
        assert_eq!(counter_of(b"{not json", Some("a"), EnergyUnit::Kwh), None);
    }
}
