//! Home Assistant MQTT discovery (beyond the spec; off unless `homeassistant.enabled`): one
//! retained config per point at `<prefix>/<component>/<node>/<object>/config`, published on every
//! connection and again whenever `<prefix>/status` says `online` (Home Assistant restarted).
//!
//! - Components: read-only numbers and strings → `sensor`; coils, discrete inputs and `bool`
//!   register points → `switch` when writable, else `binary_sensor`; writable numeric holding
//!   registers → `number`, `min`/`max` the data type's range after scale and offset, `step` the
//!   scale. Write-only points are not announced (they have no state).
//! - Ids are sanitised to `[a-zA-Z0-9_-]`: node `<base>_<source>`, object `<topic>`, `unique_id`
//!   `<base>_<source>_<topic>`.
//! - Availability lists `<base>/status` and `<base>/<source>/status`, `availability_mode: all`.
//! - Every source is a device (model "Modbus TCP" or "Modbus RTU", named by the source's `name`, else its id)
//!   reached through the bridge (`via_device`). The bridge is announced too, as a device with
//!   one diagnostic `connectivity` binary sensor on `<base>/status`, so `via_device` names a
//!   device Home Assistant knows.
//! - Sensors read their state through `value_template: "{{ value_json }}"`: a value the codec
//!   cannot give (a NaN float) is published as JSON `null`, which the template reads as no value
//!   (`unknown`) rather than as the text `null`.
//! - A `raw_u16` point whose state can be longer than Home Assistant's 255 characters (more
//!   than 42 registers) shows its first 255 characters as its state and carries the whole value
//!   in the attribute `value` (`json_attributes_topic` on its state topic), instead of a state
//!   Home Assistant drops. (A string has at most 125 registers, 250 characters.)
//! - Every config carries the discovery `origin` (this software and its version).
//! - What a point passes through (`device_class`, `state_class`, `unit_of_measurement`) was
//!   checked against its component when the configuration was loaded ([`super::classes`]).

use super::config::{BridgeConfig, DataType, PointConfig, SourceConfig};
use serde_json::{Map, Value, json};

/// `text` with every character outside `[a-zA-Z0-9_-]` made `_`.
pub fn sanitise(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The topic Home Assistant announces its restarts on, when discovery is on.
pub fn status_topic(config: &BridgeConfig) -> Option<String> {
    let ha = config.homeassistant.as_ref().filter(|h| h.enabled)?;
    Some(format!("{}/status", ha.discovery_prefix))
}

/// The raw range of an integer data type.
fn raw_range(data_type: DataType) -> Option<(f64, f64)> {
    Some(match data_type {
        DataType::U16 => (0.0, 65_535.0),
        DataType::I16 => (-32_768.0, 32_767.0),
        DataType::U32 => (0.0, 4_294_967_295.0),
        DataType::I32 => (-2_147_483_648.0, 2_147_483_647.0),
        DataType::U64 => (0.0, u64::MAX as f64),
        DataType::I64 => (i64::MIN as f64, i64::MAX as f64),
        DataType::F32 => (f64::from(f32::MIN), f64::from(f32::MAX)),
        DataType::F64 => (-1.0e300, 1.0e300),
        _ => return None,
    })
}

/// `raw * scale + offset` in exact decimals from the numbers' shortest text where they fit
/// (so 32767 × 0.1 − 40 is 3236.7, not 3236.7000000000003), else in f64.
fn scaled(raw: f64, scale: f64, offset: f64) -> f64 {
    use rust_decimal::Decimal;
    use rust_decimal::prelude::ToPrimitive;
    use std::str::FromStr;
    let exact = |x: f64| Decimal::from_str(&x.to_string()).ok();
    let decimal = match (exact(raw), exact(scale), exact(offset)) {
        (Some(r), Some(s), Some(o)) => r.checked_mul(s).and_then(|m| m.checked_add(o)),
        _ => None,
    };
    decimal
        .and_then(|d| d.to_f64())
        .unwrap_or(raw * scale + offset)
}

/// A `number`'s `(min, max, step)`: the data type's range after scale and offset.
fn number_range(point: &PointConfig) -> Option<(f64, f64, f64)> {
    let (low, high) = raw_range(point.data_type)?;
    let (scale, offset) = (point.scale.unwrap_or(1.0), point.offset.unwrap_or(0.0));
    let (a, b) = (scaled(low, scale, offset), scaled(high, scale, offset));
    Some((a.min(b), a.max(b), scale.abs()))
}

/// The `origin` block of every config: what published it.
fn origin() -> Value {
    json!({"name": "printcost modbus-mqtt-bridge", "sw_version": env!("CARGO_PKG_VERSION")})
}

/// The bridge's device id: `<base>_bridge`, sanitised.
fn bridge_device(config: &BridgeConfig) -> String {
    sanitise(&format!("{}_bridge", config.mqtt.base_topic))
}

/// The bridge's own config: a diagnostic `connectivity` binary sensor on `<base>/status` (no
/// availability of its own: it is the availability), on the device every source names as its
/// `via_device`.
fn bridge_config(config: &BridgeConfig, prefix: &str) -> (String, Value) {
    let base = &config.mqtt.base_topic;
    let device = bridge_device(config);
    let payload = json!({
        "name": "Connectivity",
        "unique_id": format!("{device}_status"),
        "state_topic": format!("{base}/status"),
        "payload_on": "online",
        "payload_off": "offline",
        "device_class": "connectivity",
        "entity_category": "diagnostic",
        "device": {
            "identifiers": [device],
            "name": format!("{base} Modbus bridge"),
            "model": "Modbus-MQTT bridge",
            "manufacturer": "PrintCost",
            "sw_version": env!("CARGO_PKG_VERSION"),
        },
        "origin": origin(),
    });
    (
        format!("{prefix}/binary_sensor/{device}/status/config"),
        payload,
    )
}

/// The longest state Home Assistant keeps, in characters.
const MAX_STATE_CHARS: u32 = 255;

/// For a point whose state can exceed [`MAX_STATE_CHARS`]: the template that keeps its first
/// 255 characters. A `raw_u16` of `n` registers is up to `6n - 1` characters joined by commas;
/// a string of at most 125 registers never exceeds 250.
fn long_state(point: &PointConfig) -> Option<&'static str> {
    let count = u32::from(point.count());
    (point.data_type == DataType::RawU16 && 6 * count > MAX_STATE_CHARS + 1)
        .then_some("{{ (value_json | join(','))[:255] }}")
}

/// The discovery config of one point: its topic and payload.
fn point_config(
    config: &BridgeConfig,
    prefix: &str,
    source: &SourceConfig,
    point: &PointConfig,
) -> Option<(String, Value)> {
    let component = point.component()?;
    let base = &config.mqtt.base_topic;
    let node = sanitise(&format!("{base}_{}", source.id));
    let state = format!("{base}/{}/{}", source.id, point.topic);
    let mut c = Map::new();
    c.insert("name".into(), json!(point.name));
    c.insert(
        "unique_id".into(),
        json!(sanitise(&format!("{base}_{}_{}", source.id, point.topic))),
    );
    c.insert("state_topic".into(), json!(state));
    c.insert(
        "availability".into(),
        json!([{"topic": format!("{base}/status")}, {"topic": format!("{base}/{}/status", source.id)}]),
    );
    c.insert("availability_mode".into(), json!("all"));
    c.insert("payload_available".into(), json!("online"));
    c.insert("payload_not_available".into(), json!("offline"));
    c.insert(
        "device".into(),
        json!({"identifiers": [node], "name": source.name.as_deref().unwrap_or(&source.id),
               "model": if source.is_rtu() { "Modbus RTU" } else { "Modbus TCP" },
               "via_device": bridge_device(config)}),
    );
    c.insert("origin".into(), origin());
    match component {
        "switch" | "binary_sensor" => {
            c.insert("payload_on".into(), json!("true"));
            c.insert("payload_off".into(), json!("false"));
            if component == "switch" {
                c.insert("state_on".into(), json!("true"));
                c.insert("state_off".into(), json!("false"));
                c.insert("command_topic".into(), json!(format!("{state}/set")));
            }
        }
        "number" => {
            let (min, max, step) = number_range(point)?;
            c.insert("command_topic".into(), json!(format!("{state}/set")));
            c.insert("min".into(), json!(min));
            c.insert("max".into(), json!(max));
            c.insert("step".into(), json!(step));
            c.insert("mode".into(), json!("box"));
        }
        _ => match long_state(point) {
            Some(first_255) => {
                c.insert("value_template".into(), json!(first_255));
                c.insert("json_attributes_topic".into(), json!(state));
                c.insert(
                    "json_attributes_template".into(),
                    json!("{{ {'value': value_json} | tojson }}"),
                );
            }
            None => {
                c.insert("value_template".into(), json!("{{ value_json }}"));
            }
        },
    }
    for (key, value) in [
        ("unit_of_measurement", &point.unit_of_measurement),
        ("device_class", &point.device_class),
        ("state_class", &point.state_class),
    ] {
        if let Some(value) = value {
            c.insert(key.into(), json!(value));
        }
    }
    let topic = format!(
        "{prefix}/{component}/{node}/{}/config",
        sanitise(&point.topic)
    );
    Some((topic, Value::Object(c)))
}

/// Every point's discovery config, then the bridge's own, as retained messages,
/// `(topic, payload)`; none while discovery is off.
pub fn messages(config: &BridgeConfig) -> Vec<(String, Vec<u8>)> {
    let Some(ha) = config.homeassistant.as_ref().filter(|h| h.enabled) else {
        return Vec::new();
    };
    config
        .sources
        .iter()
        .flat_map(|s| s.points.iter().map(move |p| (s, p)))
        .filter_map(|(s, p)| point_config(config, &ha.discovery_prefix, s, p))
        .chain([bridge_config(config, &ha.discovery_prefix)])
        .map(|(topic, payload)| (topic, payload.to_string().into_bytes()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::config::parse;

    const CONFIG: &str = "mqtt:\n  host: h\n  base_topic: shop\nhomeassistant:\n  enabled: true\nsources:\n  - id: meter.1\n    host: h\n    unit_id: 1\n    points:\n      - {name: Power, topic: power_w, address: 12, kind: input, data_type: f32, unit_of_measurement: W, device_class: power, state_class: measurement}\n      - {name: Setpoint, topic: setpoint, address: 10, kind: holding, data_type: i16, scale: 0.1, offset: -40}\n      - {name: Relay, topic: relay, address: 0, kind: coil, data_type: bool}\n      - {name: Door, topic: door, address: 0, kind: discrete_input, data_type: bool}\n      - {name: Label, topic: label, address: 30, kind: holding, data_type: string, count: 4, access: read_only}\n      - {name: Pulse, topic: pulse, address: 1, kind: coil, data_type: bool, access: write_only}\n";

    fn configs() -> Vec<(String, Value)> {
        let config = parse("c.yml", CONFIG).unwrap();
        messages(&config)
            .into_iter()
            .map(|(t, p)| (t, serde_json::from_slice(&p).unwrap()))
            .collect()
    }

    #[test]
    fn each_point_is_announced_as_its_component() {
        let found = configs();
        let topics: Vec<&str> = found.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            topics,
            [
                "homeassistant/sensor/shop_meter_1/power_w/config",
                "homeassistant/number/shop_meter_1/setpoint/config",
                "homeassistant/switch/shop_meter_1/relay/config",
                "homeassistant/binary_sensor/shop_meter_1/door/config",
                "homeassistant/sensor/shop_meter_1/label/config",
                "homeassistant/binary_sensor/shop_bridge/status/config",
            ],
            "write-only points are not announced; the bridge is"
        );
        let power = &found[0].1;
        assert_eq!(power["unique_id"], "shop_meter_1_power_w");
        assert_eq!(power["state_topic"], "shop/meter.1/power_w");
        assert_eq!(
            (
                power["unit_of_measurement"].as_str(),
                power["device_class"].as_str()
            ),
            (Some("W"), Some("power"))
        );
        assert_eq!(power["availability_mode"], "all");
        assert_eq!(power["availability"][1]["topic"], "shop/meter.1/status");
        assert_eq!(power["device"]["model"], "Modbus TCP");
        let setpoint = &found[1].1;
        assert_eq!(setpoint["command_topic"], "shop/meter.1/setpoint/set");
        assert_eq!(
            (
                setpoint["min"].as_f64(),
                setpoint["max"].as_f64(),
                setpoint["step"].as_f64()
            ),
            (Some(-3316.8), Some(3236.7), Some(0.1))
        );
        assert_eq!(found[2].1["payload_on"], "true");
        assert!(
            found[3].1.get("command_topic").is_none(),
            "a discrete input is read-only"
        );
        assert_eq!(found[4].1["value_template"], "{{ value_json }}");
        assert_eq!(
            power["value_template"], "{{ value_json }}",
            "a NaN's null reads as no value"
        );
        assert_eq!(power["device"]["via_device"], "shop_bridge");
        assert_eq!(
            power["device"]["name"], "meter.1",
            "no display name: the id"
        );
        assert_eq!(power["origin"]["name"], "printcost modbus-mqtt-bridge");
        let bridge = &found[5].1;
        assert_eq!(
            bridge["device"]["identifiers"],
            json!(["shop_bridge"]),
            "the device sources name"
        );
        assert_eq!(
            (
                bridge["state_topic"].as_str(),
                bridge["device_class"].as_str(),
                bridge["entity_category"].as_str()
            ),
            (
                Some("shop/status"),
                Some("connectivity"),
                Some("diagnostic")
            )
        );
        assert!(
            bridge.get("availability").is_none(),
            "it is the availability"
        );
        assert_eq!(bridge["device"]["sw_version"], env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn a_source_s_display_name_names_its_device() {
        let named = CONFIG.replace(
            "  - id: meter.1\n",
            "  - id: meter.1\n    name: Main meter\n",
        );
        let config = parse("c.yml", &named).unwrap();
        let (_, first) = &messages(&config)[0];
        let first: Value = serde_json::from_slice(first).unwrap();
        assert_eq!(first["device"]["name"], "Main meter");
        assert_eq!(
            first["unique_id"], "shop_meter_1_power_w",
            "ids keep the id"
        );
    }

    #[test]
    fn a_state_longer_than_home_assistant_keeps_shows_its_start_and_carries_the_rest() {
        let points = "      - {name: Text, topic: text, address: 0, kind: input, data_type: string, count: 125}\n      - {name: Words, topic: words, address: 400, kind: input, data_type: raw_u16, count: 42}\n      - {name: Many, topic: many, address: 500, kind: input, data_type: raw_u16, count: 43}\n";
        let text = format!(
            "mqtt: {{host: h}}\nhomeassistant: {{enabled: true}}\nsources:\n  - id: m\n    serial: {{port: /dev/ttyUSB0}}\n    unit_id: 1\n    points:\n{points}"
        );
        let config = parse("c.yml", &text).unwrap();
        config.validate().unwrap();
        let found: Vec<Value> = messages(&config)
            .into_iter()
            .map(|(_, p)| serde_json::from_slice(&p).unwrap())
            .collect();
        let template = |i: usize| {
            found[i]["value_template"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(template(0), "{{ value_json }}", "250 characters at most");
        assert_eq!(template(1), "{{ value_json }}", "251 characters at most");
        assert_eq!(template(2), "{{ (value_json | join(','))[:255] }}");
        assert_eq!(found[2]["json_attributes_topic"], "modbus/m/many");
        assert!(found[1].get("json_attributes_topic").is_none());
        assert_eq!(found[0]["device"]["model"], "Modbus RTU");
    }

    #[test]
    fn discovery_is_off_unless_enabled() {
        let off = CONFIG.replace("  enabled: true\n", "  enabled: false\n");
        assert!(messages(&parse("c.yml", &off).unwrap()).is_empty());
        let absent = CONFIG.replace("homeassistant:\n  enabled: true\n", "");
        assert_eq!(status_topic(&parse("c.yml", &absent).unwrap()), None);
        assert_eq!(
            status_topic(&parse("c.yml", CONFIG).unwrap()).as_deref(),
            Some("homeassistant/status")
        );
    }
}
