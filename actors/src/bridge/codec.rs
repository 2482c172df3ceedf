//! Between Modbus registers and JSON values.
//!
//! Read: registers are put in order (word order reverses the registers of a little-endian value,
//! byte order swaps the two bytes of each register), interpreted as the point's data type, then
//! `value * scale + offset`. A non-finite result is published as `null`, never as invalid JSON.
//! Strings drop trailing NULs; `raw_u16` with more than one register is an array.
//!
//! Write (docs/api-contract.md; the README's bridge section): `raw = (value - offset) / scale`,
//! rounded to the nearest integer (half away from zero) for integer types, range-checked for the
//! data type; nothing out of range is ever wrapped.

use super::config::{Access, DataType, Order, PointConfig};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;
use std::str::FromStr;

/// Why a write was refused (sent back on the write's result topic).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    /// The point is read-only.
    #[error("the point is read-only")]
    ReadOnly,
    /// The payload is not the point's type.
    #[error("expected {0}")]
    WrongType(&'static str),
    /// The value does not fit the data type after scale and offset.
    #[error("{0} is out of range for {1}")]
    OutOfRange(String, &'static str),
}

/// What a write puts on the device.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    /// One coil.
    Coil(bool),
    /// Registers from the point's address.
    Registers(Vec<u16>),
    /// One bit of the register at the point's address: set (`true`) or cleared, by reading
    /// the register and writing it back.
    Bit(u8, bool),
}

/// The register `current` (as the device holds it) with bit `bit` of its value set or cleared;
/// the point's byte order applies as for reading.
pub fn with_bit(point: &PointConfig, current: u16, bit: u8, on: bool) -> u16 {
    let little = point.encoding.byte_order == Order::Little;
    let value = if little {
        current.swap_bytes()
    } else {
        current
    };
    let changed = if on {
        value | 1 << bit
    } else {
        value & !(1 << bit)
    };
    if little {
        changed.swap_bytes()
    } else {
        changed
    }
}

fn words64(raw: u64) -> Vec<u16> {
    (0..4).rev().map(|i| (raw >> (16 * i)) as u16).collect()
}

fn ordered(point: &PointConfig, registers: &[u16]) -> Vec<u16> {
    let mut words: Vec<u16> = registers
        .iter()
        .take(point.count() as usize)
        .copied()
        .collect();
    if point.encoding.word_order == Order::Little {
        words.reverse();
    }
    if point.encoding.byte_order == Order::Little {
        words.iter_mut().for_each(|w| *w = w.swap_bytes());
    }
    words
}

fn combined(words: &[u16]) -> u32 {
    (u32::from(words.first().copied().unwrap_or(0)) << 16)
        | u32::from(words.get(1).copied().unwrap_or(0))
}

/// Four registers, most significant first, as one 64-bit word.
fn combined64(words: &[u16]) -> u64 {
    (0..4).fold(0, |acc, i| {
        (acc << 16) | u64::from(words.get(i).copied().unwrap_or(0))
    })
}

/// A 64-bit integer state: exact when neither scale nor offset applies (JSON integers carry
/// all 64 bits), else scaled in f64.
fn scaled_integer(point: &PointConfig, exact: Value, approximate: f64) -> Value {
    if point.scale.is_none() && point.offset.is_none() {
        return exact;
    }
    scaled(point, approximate)
}

fn scaled(point: &PointConfig, raw: f64) -> Value {
    let value = raw * point.scale.unwrap_or(1.0) + point.offset.unwrap_or(0.0);
    if point.scale.is_none()
        && point.offset.is_none()
        && value.fract() == 0.0
        && value.abs() < 9.0e15
    {
        return Value::from(value as i64);
    }
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// An f32 state: scaled in f64, then published in the shortest text that round-trips it as
/// an f32 (`3.1415927`, not the f64 widening `3.1415927410125732`), so equal readings compare
/// equal for `on_change` and no precision the device never had is invented.
fn scaled_f32(point: &PointConfig, raw: f32) -> Value {
    let value = f64::from(raw) * point.scale.unwrap_or(1.0) + point.offset.unwrap_or(0.0);
    let narrowed = value as f32;
    if !narrowed.is_finite() {
        return Value::Null;
    }
    narrowed
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

/// The JSON state of a register point read as `registers` (at least `point.count()` of them).
pub fn decode_registers(point: &PointConfig, registers: &[u16]) -> Value {
    if point.data_type == DataType::RawU16 {
        let raw: Vec<u16> = registers
            .iter()
            .take(point.count() as usize)
            .copied()
            .collect();
        return match raw.as_slice() {
            [one] => Value::from(*one),
            many => Value::from(many.to_vec()),
        };
    }
    let words = ordered(point, registers);
    let first = words.first().copied().unwrap_or(0);
    match point.data_type {
        DataType::Bool => Value::Bool(match point.bit {
            Some(bit) => first >> bit & 1 == 1,
            None => first != 0,
        }),
        DataType::U16 => scaled(point, f64::from(first)),
        DataType::I16 => scaled(point, f64::from(first as i16)),
        DataType::U32 => scaled(point, f64::from(combined(&words))),
        DataType::I32 => scaled(point, f64::from(combined(&words) as i32)),
        DataType::F32 => scaled_f32(point, f32::from_bits(combined(&words))),
        DataType::U64 => {
            let raw = combined64(&words);
            scaled_integer(point, Value::from(raw), raw as f64)
        }
        DataType::I64 => {
            let raw = combined64(&words) as i64;
            scaled_integer(point, Value::from(raw), raw as f64)
        }
        DataType::F64 => scaled(point, f64::from_bits(combined64(&words))),
        DataType::String => {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
            let text = String::from_utf8_lossy(&bytes);
            Value::String(text.trim_end_matches('\0').to_string())
        }
        DataType::RawU16 => Value::Null,
    }
}

/// The JSON state of a coil or discrete input.
pub fn decode_bit(bit: bool) -> Value {
    Value::Bool(bit)
}

/// Registers in device order from `words` in value order (the inverse of [`ordered`]).
fn to_device(point: &PointConfig, mut words: Vec<u16>) -> Vec<u16> {
    if point.encoding.byte_order == Order::Little {
        words.iter_mut().for_each(|w| *w = w.swap_bytes());
    }
    if point.encoding.word_order == Order::Little {
        words.reverse();
    }
    words
}

fn integer(
    point: &PointConfig,
    value: f64,
    min: i128,
    max: i128,
    name: &'static str,
) -> Result<i128, WriteError> {
    // Exact decimal arithmetic on the numbers as written (their shortest decimal form), so that
    // 25.55 with scale 0.1 and offset -40 is exactly 655.5 and rounds to 656, not 655.
    let exact = |x: f64| Decimal::from_str(&x.to_string()).ok();
    let out_of_range = || WriteError::OutOfRange(value.to_string(), name);
    let (v, offset, scale) = (
        exact(value).ok_or_else(out_of_range)?,
        exact(point.offset.unwrap_or(0.0)).ok_or_else(out_of_range)?,
        exact(point.scale.unwrap_or(1.0)).ok_or_else(out_of_range)?,
    );
    let raw = v
        .checked_sub(offset)
        .and_then(|d| d.checked_div(scale))
        .map(|d| d.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero))
        .and_then(|d| d.to_i128())
        .ok_or_else(out_of_range)?;
    if raw < min || raw > max {
        return Err(out_of_range());
    }
    Ok(raw)
}

/// A 64-bit integer to write: a JSON integer exactly (all 64 bits) when neither scale nor
/// offset applies, else as [`integer`] computes it.
fn integer64(
    point: &PointConfig,
    value: &Value,
    min: i128,
    max: i128,
    name: &'static str,
) -> Result<i128, WriteError> {
    let exact = value
        .as_u64()
        .map(i128::from)
        .or_else(|| value.as_i64().map(i128::from));
    match exact {
        Some(n) if point.scale.is_none() && point.offset.is_none() => {
            if (min..=max).contains(&n) {
                Ok(n)
            } else {
                Err(WriteError::OutOfRange(value.to_string(), name))
            }
        }
        _ => {
            let number = value.as_f64().ok_or(WriteError::WrongType("a number"))?;
            integer(point, number, min, max, name)
        }
    }
}

/// What writing `value` (a bare JSON value, already unwrapped from `{"value": v}`) to `point`
/// puts on the device.
///
/// Errors: [`WriteError`] without touching the device.
pub fn encode(point: &PointConfig, value: &Value) -> Result<Written, WriteError> {
    if point.access() == Access::ReadOnly {
        return Err(WriteError::ReadOnly);
    }
    let number = || value.as_f64().ok_or(WriteError::WrongType("a number"));
    let words = match point.data_type {
        DataType::Bool => {
            let bit = match value {
                Value::Bool(b) => *b,
                Value::Number(n) if n.as_u64() == Some(0) => false,
                Value::Number(n) if n.as_u64() == Some(1) => true,
                _ => return Err(WriteError::WrongType("true or false")),
            };
            if point.kind.is_bit() {
                return Ok(Written::Coil(bit));
            }
            if let Some(index) = point.bit {
                return Ok(Written::Bit(index, bit));
            }
            vec![u16::from(bit)]
        }
        DataType::U16 => vec![integer(point, number()?, 0, 65_535, "u16")? as u16],
        DataType::I16 => vec![integer(point, number()?, -32_768, 32_767, "i16")? as i16 as u16],
        DataType::U32 => {
            let raw = integer(point, number()?, 0, 4_294_967_295, "u32")? as u32;
            vec![(raw >> 16) as u16, raw as u16]
        }
        DataType::I32 => {
            let raw =
                integer(point, number()?, -2_147_483_648, 2_147_483_647, "i32")? as i32 as u32;
            vec![(raw >> 16) as u16, raw as u16]
        }
        DataType::F32 => {
            let value = number()?;
            let raw = (value - point.offset.unwrap_or(0.0)) / point.scale.unwrap_or(1.0);
            if !raw.is_finite() || raw.abs() > f64::from(f32::MAX) {
                return Err(WriteError::OutOfRange(value.to_string(), "f32"));
            }
            let bits = (raw as f32).to_bits();
            vec![(bits >> 16) as u16, bits as u16]
        }
        DataType::U64 => words64(integer64(point, value, 0, i128::from(u64::MAX), "u64")? as u64),
        DataType::I64 => {
            let (min, max) = (i128::from(i64::MIN), i128::from(i64::MAX));
            words64(integer64(point, value, min, max, "i64")? as i64 as u64)
        }
        DataType::F64 => {
            let value = number()?;
            let raw = (value - point.offset.unwrap_or(0.0)) / point.scale.unwrap_or(1.0);
            if !raw.is_finite() {
                return Err(WriteError::OutOfRange(value.to_string(), "f64"));
            }
            words64(raw.to_bits())
        }
        DataType::String => {
            let text = value.as_str().ok_or(WriteError::WrongType("a string"))?;
            let capacity = point.count() as usize * 2;
            if text.len() > capacity {
                return Err(WriteError::OutOfRange(
                    format!("{} bytes", text.len()),
                    "this string's registers",
                ));
            }
            let mut bytes = text.as_bytes().to_vec();
            bytes.resize(capacity, 0);
            bytes
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect()
        }
        DataType::RawU16 => {
            let values: Vec<&Value> = match value {
                Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            if values.len() != point.count() as usize {
                return Err(WriteError::WrongType("one number per register"));
            }
            return values
                .iter()
                .map(|v| {
                    v.as_u64()
                        .filter(|n| *n <= 65_535)
                        .map(|n| n as u16)
                        .ok_or(WriteError::OutOfRange(v.to_string(), "raw_u16"))
                })
                .collect::<Result<Vec<u16>, _>>()
                .map(Written::Registers);
        }
    };
    Ok(Written::Registers(to_device(point, words)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::config::{Encoding, Kind};
    use proptest::prelude::*;
    use serde_json::json;

    fn point(kind: Kind, data_type: DataType, byte: Order, word: Order) -> PointConfig {
        PointConfig {
            name: "p".into(),
            topic: "p".into(),
            address: 0,
            kind,
            data_type,
            access: None,
            count: None,
            encoding: Encoding {
                byte_order: byte,
                word_order: word,
            },
            scale: None,
            offset: None,
            retain: true,
            publish_mode: None,
            deadband: None,
            bit: None,
            unit_of_measurement: None,
            device_class: None,
            state_class: None,
            poll_interval_ms: None,
            history: false,
        }
    }

    const ORDERS: [(Order, Order); 4] = [
        (Order::Big, Order::Big),
        (Order::Big, Order::Little),
        (Order::Little, Order::Big),
        (Order::Little, Order::Little),
    ];

    #[test]
    fn known_register_layouts() {
        let p = point(Kind::Holding, DataType::U32, Order::Big, Order::Big);
        assert_eq!(decode_registers(&p, &[0x0001, 0x0002]), json!(65538));
        let p = point(Kind::Holding, DataType::U32, Order::Big, Order::Little);
        assert_eq!(decode_registers(&p, &[0x0002, 0x0001]), json!(65538));
        let p = point(Kind::Holding, DataType::U16, Order::Little, Order::Big);
        assert_eq!(decode_registers(&p, &[0x3412]), json!(0x1234));
        let p = point(Kind::Holding, DataType::I16, Order::Big, Order::Big);
        assert_eq!(decode_registers(&p, &[0xFFFE]), json!(-2));
        let p = point(Kind::Input, DataType::F32, Order::Big, Order::Big);
        assert_eq!(
            decode_registers(&p, &[0x4049, 0x0FDB]).to_string(),
            "3.1415927",
            "the shortest text that round-trips the f32"
        );
        let mut scaled = point(Kind::Input, DataType::F32, Order::Big, Order::Big);
        scaled.scale = Some(10.0);
        assert_eq!(
            decode_registers(&scaled, &[0x4049, 0x0FDB]),
            json!(31.415928)
        );
        let nan = point(Kind::Input, DataType::F32, Order::Big, Order::Big);
        assert_eq!(
            decode_registers(&nan, &[0x7FC0, 0x0000]),
            Value::Null,
            "NaN is null, not invalid JSON"
        );
        let mut text = point(Kind::Holding, DataType::String, Order::Big, Order::Big);
        text.count = Some(3);
        assert_eq!(
            decode_registers(&text, &[0x4142, 0x4300, 0x0000]),
            json!("ABC")
        );
        let mut raw = point(Kind::Holding, DataType::RawU16, Order::Big, Order::Big);
        assert_eq!(decode_registers(&raw, &[7]), json!(7));
        raw.count = Some(2);
        assert_eq!(decode_registers(&raw, &[7, 8]), json!([7, 8]));
        assert_eq!(
            decode_registers(
                &point(Kind::Holding, DataType::Bool, Order::Big, Order::Big),
                &[2]
            ),
            json!(true)
        );
    }

    #[test]
    fn scale_and_offset_both_ways() {
        let mut p = point(Kind::Holding, DataType::I16, Order::Big, Order::Big);
        p.scale = Some(0.1);
        p.offset = Some(-40.0);
        assert_eq!(decode_registers(&p, &[655]), json!(25.5));
        assert_eq!(encode(&p, &json!(25.5)), Ok(Written::Registers(vec![655])));
        assert_eq!(
            encode(&p, &json!(25.54)),
            Ok(Written::Registers(vec![655])),
            "rounded to nearest"
        );
        assert_eq!(
            encode(&p, &json!(25.55)),
            Ok(Written::Registers(vec![656])),
            "half away from zero"
        );
        assert!(
            matches!(encode(&p, &json!(4000)), Err(WriteError::OutOfRange(..))),
            "never wrapped"
        );
    }

    #[test]
    fn writes_are_refused_without_touching_anything() {
        let input = point(Kind::Input, DataType::U16, Order::Big, Order::Big);
        assert_eq!(encode(&input, &json!(1)), Err(WriteError::ReadOnly));
        let holding = point(Kind::Holding, DataType::U16, Order::Big, Order::Big);
        assert_eq!(
            encode(&holding, &json!("one")),
            Err(WriteError::WrongType("a number"))
        );
        assert!(matches!(
            encode(&holding, &json!(-1)),
            Err(WriteError::OutOfRange(..))
        ));
        assert!(matches!(
            encode(&holding, &json!(65536)),
            Err(WriteError::OutOfRange(..))
        ));
        let coil = point(Kind::Coil, DataType::Bool, Order::Big, Order::Big);
        assert_eq!(encode(&coil, &json!(true)), Ok(Written::Coil(true)));
        assert_eq!(encode(&coil, &json!(0)), Ok(Written::Coil(false)));
        assert_eq!(
            encode(&coil, &json!("on")),
            Err(WriteError::WrongType("true or false"))
        );
        let mut text = point(Kind::Holding, DataType::String, Order::Big, Order::Big);
        assert!(
            matches!(
                encode(&text, &json!("ABC")),
                Err(WriteError::OutOfRange(..))
            ),
            "two characters per register"
        );
        text.count = Some(2);
        assert_eq!(
            encode(&text, &json!("ABC")),
            Ok(Written::Registers(vec![0x4142, 0x4300]))
        );
    }

    #[test]
    fn a_bit_of_a_register_reads_alone_and_writes_back_the_others() {
        let mut p = point(Kind::Holding, DataType::Bool, Order::Big, Order::Big);
        p.bit = Some(3);
        assert_eq!(decode_registers(&p, &[0b1000]), json!(true));
        assert_eq!(decode_registers(&p, &[0b0111]), json!(false));
        assert_eq!(encode(&p, &json!(true)), Ok(Written::Bit(3, true)));
        assert_eq!(with_bit(&p, 0b1_0001, 3, true), 0b1_1001);
        assert_eq!(with_bit(&p, 0b1_1001, 3, false), 0b1_0001);
        p.encoding.byte_order = Order::Little;
        assert_eq!(
            decode_registers(&p, &[0x0800]),
            json!(true),
            "bit 3 of the swapped register"
        );
        assert_eq!(with_bit(&p, 0x0100, 3, true), 0x0900);
        let mut input = point(Kind::Input, DataType::Bool, Order::Big, Order::Big);
        input.bit = Some(0);
        assert_eq!(
            encode(&input, &json!(true)),
            Err(WriteError::ReadOnly),
            "an input register's bit"
        );
    }

    #[test]
    fn sixty_four_bit_values_keep_every_bit() {
        let p = point(Kind::Holding, DataType::U64, Order::Big, Order::Big);
        let max = json!(u64::MAX);
        let Ok(Written::Registers(words)) = encode(&p, &max) else {
            panic!("u64")
        };
        assert_eq!(words, vec![0xFFFF; 4]);
        assert_eq!(decode_registers(&p, &words), max);
        assert!(matches!(
            encode(&p, &json!(-1)),
            Err(WriteError::OutOfRange(..))
        ));
        let reversed = point(Kind::Holding, DataType::I64, Order::Big, Order::Little);
        assert_eq!(
            decode_registers(&reversed, &[0xFFFE, 0xFFFF, 0xFFFF, 0xFFFF]),
            json!(-2)
        );
        let double = point(Kind::Input, DataType::F64, Order::Big, Order::Big);
        assert_eq!(
            decode_registers(&double, &[0x4009, 0x21FB, 0x5444, 0x2D18]),
            json!(std::f64::consts::PI)
        );
    }

    #[test]
    fn a_deadband_holds_back_small_moves() {
        let mut p = point(Kind::Input, DataType::F32, Order::Big, Order::Big);
        assert!(p.unchanged(Some(&json!(20.0)), &json!(20.0)));
        assert!(!p.unchanged(Some(&json!(20.0)), &json!(20.1)));
        assert!(!p.unchanged(None, &json!(20.0)));
        p.deadband = Some(0.5);
        assert!(p.unchanged(Some(&json!(20.0)), &json!(20.5)));
        assert!(!p.unchanged(Some(&json!(20.0)), &json!(20.6)));
        assert!(
            !p.unchanged(Some(&json!(20.0)), &Value::Null),
            "null always goes out"
        );
    }

    proptest! {
        #[test]
        fn sixty_four_bits_round_trip_in_every_order(unsigned in any::<u64>(), signed in any::<i64>(), double in -1.0e300f64..1.0e300) {
            for (byte, word) in ORDERS {
                for (data_type, v) in [(DataType::U64, json!(unsigned)), (DataType::I64, json!(signed)), (DataType::F64, json!(double))] {
                    let p = point(Kind::Holding, data_type, byte, word);
                    let Ok(Written::Registers(registers)) = encode(&p, &v) else { panic!("encode {v}") };
                    prop_assert_eq!(decode_registers(&p, &registers), v);
                }
            }
        }

        #[test]
        fn integers_round_trip_in_every_order(value in any::<i32>(), unsigned in any::<u32>(), short in any::<i16>()) {
            for (byte, word) in ORDERS {
                for (data_type, v) in [(DataType::I32, f64::from(value)), (DataType::U32, f64::from(unsigned)), (DataType::I16, f64::from(short)), (DataType::U16, f64::from(short as u16))] {
                    let p = point(Kind::Holding, data_type, byte, word);
                    let Ok(Written::Registers(registers)) = encode(&p, &json!(v)) else { panic!("encode {v}") };
                    prop_assert_eq!(decode_registers(&p, &registers), json!(v as i64));
                }
            }
        }

        #[test]
        fn floats_round_trip_in_every_order(value in -1.0e30f32..1.0e30) {
            for (byte, word) in ORDERS {
                let p = point(Kind::Holding, DataType::F32, byte, word);
                let Ok(Written::Registers(registers)) = encode(&p, &json!(value)) else { panic!("encode {value}") };
                let back = decode_registers(&p, &registers).as_f64().unwrap();
                prop_assert_eq!(back as f32, value);
            }
        }
    }
}
