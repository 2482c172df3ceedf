//! Home Assistant's rules for what discovery passes through: which `device_class` each
//! component takes, which `state_class` goes with which device class, and the units of the
//! common device classes. From Home Assistant's developer documentation (the `sensor`,
//! `binary_sensor`, `number` and `switch` entity pages, 2024.3 to 2025.4); a value outside
//! these lists makes Home Assistant log an error or drop the entity's statistics.

/// Device classes of a `switch`.
const SWITCH: [&str; 2] = ["outlet", "switch"];

/// Device classes of a `binary_sensor`.
const BINARY_SENSOR: [&str; 28] = [
    "battery",
    "battery_charging",
    "carbon_monoxide",
    "cold",
    "connectivity",
    "door",
    "garage_door",
    "gas",
    "heat",
    "light",
    "lock",
    "moisture",
    "motion",
    "moving",
    "occupancy",
    "opening",
    "plug",
    "power",
    "presence",
    "problem",
    "running",
    "safety",
    "smoke",
    "sound",
    "tamper",
    "update",
    "vibration",
    "window",
];

/// Device classes of a numeric `sensor` and of a `number`.
const NUMERIC: [&str; 53] = [
    "apparent_power",
    "aqi",
    "area",
    "atmospheric_pressure",
    "battery",
    "blood_glucose_concentration",
    "carbon_dioxide",
    "carbon_monoxide",
    "conductivity",
    "current",
    "data_rate",
    "data_size",
    "distance",
    "duration",
    "energy",
    "energy_distance",
    "energy_storage",
    "frequency",
    "gas",
    "humidity",
    "illuminance",
    "irradiance",
    "moisture",
    "monetary",
    "nitrogen_dioxide",
    "nitrogen_monoxide",
    "nitrous_oxide",
    "ozone",
    "ph",
    "pm1",
    "pm10",
    "pm25",
    "power_factor",
    "power",
    "precipitation",
    "precipitation_intensity",
    "pressure",
    "reactive_energy",
    "reactive_power",
    "signal_strength",
    "sound_pressure",
    "speed",
    "sulphur_dioxide",
    "temperature",
    "volatile_organic_compounds",
    "volatile_organic_compounds_parts",
    "voltage",
    "volume",
    "volume_flow_rate",
    "volume_storage",
    "water",
    "weight",
    "wind_speed",
];

/// Device classes only a `sensor` takes (text or angle states).
const SENSOR_ONLY: [&str; 4] = ["date", "enum", "timestamp", "wind_direction"];

/// State classes of a `sensor`.
const STATE_CLASSES: [&str; 4] = [
    "measurement",
    "measurement_angle",
    "total",
    "total_increasing",
];

/// Device classes whose value is a rate or a level, never a running total: `measurement` only.
const MEASUREMENT_ONLY: [&str; 17] = [
    "apparent_power",
    "battery",
    "current",
    "frequency",
    "humidity",
    "illuminance",
    "irradiance",
    "moisture",
    "power",
    "power_factor",
    "pressure",
    "reactive_power",
    "signal_strength",
    "speed",
    "temperature",
    "voltage",
    "wind_speed",
];

/// The units of the device classes a meter reports.
const UNITS: [(&str, &[&str]); 11] = [
    (
        "energy",
        &[
            "J", "kJ", "MJ", "GJ", "mWh", "Wh", "kWh", "MWh", "GWh", "TWh", "cal", "kcal", "Mcal",
            "Gcal",
        ],
    ),
    ("power", &["mW", "W", "kW", "MW", "GW", "TW", "BTU/h"]),
    ("reactive_energy", &["varh", "kvarh"]),
    ("reactive_power", &["var", "kvar"]),
    ("apparent_power", &["VA", "kVA"]),
    ("current", &["A", "mA"]),
    ("voltage", &["V", "mV", "µV", "kV", "MV"]),
    ("frequency", &["Hz", "kHz", "MHz", "GHz"]),
    ("temperature", &["°C", "°F", "K"]),
    ("humidity", &["%"]),
    ("power_factor", &["%"]),
];

/// What Home Assistant would refuse in a point announced as `component` with these classes and
/// unit: `(field, problem)`, the field one of `device_class`, `state_class`,
/// `unit_of_measurement`.
pub fn problems(
    component: &str,
    device_class: Option<&str>,
    state_class: Option<&str>,
    unit: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut found = Vec::new();
    if let Some(class) = device_class {
        let allowed: &[&str] = match component {
            "switch" => &SWITCH,
            "binary_sensor" => &BINARY_SENSOR,
            "number" => &NUMERIC,
            _ => &[],
        };
        let known = match component {
            "sensor" => NUMERIC.contains(&class) || SENSOR_ONLY.contains(&class),
            _ => allowed.contains(&class),
        };
        if !known {
            found.push((
                "device_class",
                format!("{class} is not a device class of a {component}"),
            ));
        }
    }
    if let Some(state) = state_class {
        if component != "sensor" {
            let hint = if component == "number" {
                " (a writable holding register becomes a number, which keeps no statistics: \
                 set access: read_only to keep it a sensor)"
            } else {
                ""
            };
            found.push((
                "state_class",
                format!("a {component} takes no state_class{hint}"),
            ));
        } else if !STATE_CLASSES.contains(&state) {
            found.push(("state_class", format!("{state} is not a state class")));
        } else if state != "measurement"
            && device_class.is_some_and(|c| MEASUREMENT_ONLY.contains(&c))
        {
            let class = device_class.unwrap_or_default();
            found.push((
                "state_class",
                format!("{class} is a measurement, never {state}"),
            ));
        }
    }
    if unit.is_some() && matches!(component, "switch" | "binary_sensor") {
        found.push((
            "unit_of_measurement",
            format!("a {component} takes no unit (Home Assistant refuses the whole entity)"),
        ));
    }
    if let (Some(class), Some(unit)) = (device_class, unit)
        && let Some((_, units)) = UNITS.iter().find(|(c, _)| *c == class)
        && !units.contains(&unit)
    {
        found.push((
            "unit_of_measurement",
            format!(
                "{unit} is not a unit of {class} (one of {})",
                units.join(", ")
            ),
        ));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(found: Vec<(&'static str, String)>) -> Vec<&'static str> {
        found.into_iter().map(|(f, _)| f).collect()
    }

    #[test]
    fn what_home_assistant_takes_passes() {
        assert!(
            problems(
                "sensor",
                Some("energy"),
                Some("total_increasing"),
                Some("kWh")
            )
            .is_empty()
        );
        assert!(problems("sensor", Some("power"), Some("measurement"), Some("W")).is_empty());
        assert!(problems("switch", Some("outlet"), None, None).is_empty());
        assert!(problems("binary_sensor", Some("door"), None, None).is_empty());
        assert!(problems("number", Some("temperature"), None, Some("°C")).is_empty());
        assert!(
            problems("sensor", None, None, Some("rpm")).is_empty(),
            "no class, any unit"
        );
    }

    #[test]
    fn what_it_refuses_names_its_field() {
        assert_eq!(
            fields(problems("switch", Some("power"), None, None)),
            ["device_class"]
        );
        assert_eq!(
            fields(problems("binary_sensor", Some("energy"), None, None)),
            ["device_class"]
        );
        assert_eq!(
            fields(problems(
                "sensor",
                Some("power"),
                Some("total_increasing"),
                None
            )),
            ["state_class"]
        );
        assert_eq!(
            fields(problems("sensor", Some("energy"), None, Some("kvarh"))),
            ["unit_of_measurement"]
        );
        let number = problems("number", Some("energy"), Some("total_increasing"), None);
        assert_eq!(fields(number.clone()), ["state_class"]);
        assert!(number[0].1.contains("access: read_only"), "{number:?}");
        assert_eq!(
            fields(problems("sensor", None, Some("sum"), None)),
            ["state_class"]
        );
        assert_eq!(
            fields(problems("binary_sensor", None, None, Some("W"))),
            ["unit_of_measurement"]
        );
    }
}
