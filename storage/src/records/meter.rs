//! An energy meter's readings, one hour per row: the history a print's metered electricity is
//! read from after the fact.
//!
//! Stored under `(meter id, hour since the Unix epoch)` in [`crate::tables::METER_READINGS`],
//! encoded compactly ([`crate::encode_compact`]) as steps: the first reading's second in the hour
//! and counter, then each reading's seconds and counter change from the one before, every
//! counter at the hour's one scale. A counter that rises by a few Wh a minute then takes about
//! three bytes a reading (`benches/meters.rs` measures it), where a row per reading would take
//! forty.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Where a printer's energy meter is read: a counter (kWh or Wh) in an MQTT message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MeterSource {
    /// A numeric point of the bridge running in this process: its source's and point's ids
    /// (the message is the bridge's bare value on the point's topic).
    BridgePoint {
        /// The bridge source's `id`.
        source: String,
        /// The point's `name`.
        point: String,
    },
    /// A topic on the bridge's broker (embedded or external), and where the counter is in the
    /// message: a dotted path into its JSON (`ENERGY.Total`), or none for a bare number.
    Mqtt {
        /// The topic (no wildcards).
        topic: String,
        /// The path of the counter in the JSON message; none: the message is the number.
        json_path: Option<String>,
    },
}

/// The unit a meter's counter counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EnergyUnit {
    /// Kilowatt-hours (Tasmota's `ENERGY.Total`, the SDM120's import energy).
    Kwh,
    /// Watt-hours (Shelly Gen2's `aenergy.total`).
    Wh,
}

/// A printer's energy meter: where it is read and in which unit. Stored under the printer's id
/// in [`crate::tables::METER_LINKS`]; the readings are kept under the same id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeterLink {
    /// Where it is read.
    pub source: MeterSource,
    /// Its counter's unit.
    pub unit: EnergyUnit,
    /// When it was linked or last changed.
    pub updated_at: crate::Timestamp,
}

/// The most decimals a counter is kept with: 0.000001 kWh (1 mWh), finer than any meter's
/// register. Finer readings are rounded half to even.
pub const MAX_SCALE: u32 = 6;

/// One reading: when (seconds into its hour, 0–3599) and the cumulative counter, kWh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// Seconds into the hour.
    pub second: u16,
    /// The counter, kWh, at most [`MAX_SCALE`] decimals.
    pub kwh: Decimal,
}

/// An hour of one meter's readings, in time order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MeterHour {
    /// The readings, seconds strictly increasing.
    pub readings: Vec<Reading>,
}

/// What is stored: steps from reading to reading at one scale.
#[derive(Debug, Serialize, Deserialize)]
struct Steps {
    scale: u8,
    seconds: Vec<u16>,
    mantissas: Vec<i64>,
}

/// The row could not be written or read as [`MeterHour`]: a counter beyond ±9.2 × 10¹⁸ at its
/// scale, or bytes that are not a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange;

impl MeterHour {
    /// The row's steps: seconds and counters as differences from the reading before.
    ///
    /// Errors: [`OutOfRange`] when a counter does not fit an `i64` at the hour's scale.
    fn steps(&self) -> Result<Steps, OutOfRange> {
        let scale = self
            .readings
            .iter()
            .map(|r| r.kwh.scale())
            .max()
            .unwrap_or(0)
            .min(MAX_SCALE);
        let mut steps = Steps {
            scale: scale as u8,
            seconds: Vec::with_capacity(self.readings.len()),
            mantissas: Vec::with_capacity(self.readings.len()),
        };
        let (mut second, mut mantissa) = (0u16, 0i64);
        for reading in &self.readings {
            let mut kwh = reading.kwh.round_dp(scale);
            kwh.rescale(scale);
            let value = i64::try_from(kwh.mantissa()).map_err(|_| OutOfRange)?;
            steps.seconds.push(reading.second.wrapping_sub(second));
            steps
                .mantissas
                .push(value.checked_sub(mantissa).ok_or(OutOfRange)?);
            (second, mantissa) = (reading.second, value);
        }
        Ok(steps)
    }

    /// The row's bytes.
    ///
    /// Errors: [`OutOfRange`] when a counter does not fit an `i64` at the hour's scale.
    pub fn encode(&self) -> Result<Vec<u8>, OutOfRange> {
        crate::encode_compact("meter_readings", &self.steps()?).map_err(|_| OutOfRange)
    }

    /// The row of `bytes`.
    ///
    /// Errors: [`OutOfRange`] for bytes that are not a row.
    pub fn decode(bytes: &[u8]) -> Result<MeterHour, OutOfRange> {
        let steps: Steps =
            crate::decode_compact("meter_readings", bytes).map_err(|_| OutOfRange)?;
        if steps.seconds.len() != steps.mantissas.len() || u32::from(steps.scale) > MAX_SCALE {
            return Err(OutOfRange);
        }
        let (mut second, mut mantissa) = (0u16, 0i64);
        let mut readings = Vec::with_capacity(steps.seconds.len());
        for (step, change) in steps.seconds.iter().zip(&steps.mantissas) {
            second = second.checked_add(*step).ok_or(OutOfRange)?;
            mantissa = mantissa.checked_add(*change).ok_or(OutOfRange)?;
            let kwh =
                Decimal::try_from_i128_with_scale(i128::from(mantissa), u32::from(steps.scale))
                    .map_err(|_| OutOfRange)?;
            readings.push(Reading { second, kwh });
        }
        Ok(MeterHour { readings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn an_hour_of_minute_readings_takes_a_few_bytes_each() {
        let readings = (0..60u16)
            .map(|minute| Reading {
                second: minute * 60,
                kwh: d("12345.678") + Decimal::new(i64::from(minute) * 2, 3),
            })
            .collect();
        let hour = MeterHour { readings };
        let bytes = hour.encode().unwrap();
        assert!(bytes.len() < 60 * 4, "{} bytes", bytes.len());
        assert_eq!(MeterHour::decode(&bytes).unwrap(), hour);
    }

    #[test]
    fn counters_keep_their_decimals_up_to_the_millionth_and_are_rounded_beyond() {
        let hour = MeterHour {
            readings: vec![
                Reading {
                    second: 0,
                    kwh: d("1.5"),
                },
                Reading {
                    second: 60,
                    kwh: d("1.500001"),
                },
                Reading {
                    second: 120,
                    kwh: d("1.50000149"),
                },
            ],
        };
        let back = MeterHour::decode(&hour.encode().unwrap()).unwrap();
        let values: Vec<Decimal> = back.readings.iter().map(|r| r.kwh.normalize()).collect();
        assert_eq!(values, vec![d("1.5"), d("1.500001"), d("1.500001")]);
    }

    #[test]
    fn a_counter_beyond_the_range_is_refused_and_garbage_is_not_a_row() {
        let huge = MeterHour {
            readings: vec![Reading {
                second: 0,
                kwh: Decimal::MAX,
            }],
        };
        assert_eq!(huge.encode(), Err(OutOfRange));
        assert_eq!(MeterHour::decode(&[0xff; 7]), Err(OutOfRange));
    }

    proptest! {
        #[test]
        fn rows_read_back_as_written(
            start in 0i64..10_000_000_000,
            steps in proptest::collection::vec((1u16..60, -5_000i64..50_000), 0..60),
            scale in 0u32..=MAX_SCALE,
        ) {
            let mut second = 0u16;
            let mut mantissa = start;
            let mut readings = Vec::new();
            for (gap, change) in steps {
                readings.push(Reading { second, kwh: Decimal::new(mantissa, scale) });
                second += gap;
                mantissa += change;
            }
            let hour = MeterHour { readings };
            prop_assert_eq!(MeterHour::decode(&hour.encode().unwrap()).unwrap(), hour);
        }
    }
}
