//! bincode 1.3.3 encoding of record values.

use crate::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Encodes a record for table `table` (the name is only used in the error).
///
/// Errors: [`Error::Codec`] when serde refuses the value (a bug, e.g. an untagged enum).
pub fn encode<T: Serialize>(table: &'static str, value: &T) -> Result<Vec<u8>> {
    bincode::serialize(value).map_err(|e| Error::Codec {
        table,
        message: e.to_string(),
    })
}

/// Decodes a record of table `table`.
///
/// Errors: [`Error::Codec`] when the bytes are not a record of this layout (corruption, or a
/// migration that was not run).
pub fn decode<T: DeserializeOwned>(table: &'static str, bytes: &[u8]) -> Result<T> {
    bincode::deserialize(bytes).map_err(|e| Error::Codec {
        table,
        message: e.to_string(),
    })
}

/// The options of the compact encoding: bincode with variable-length integers (a small number
/// takes one byte), little-endian, no trailing bytes.
fn compact() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_varint_encoding()
        .reject_trailing_bytes()
}

/// Encodes `value` compactly (variable-length integers), for derived values kept in bulk such
/// as the print projection's summaries; records keep [`encode`]'s layout.
///
/// Errors: [`Error::Codec`] when serde refuses the value (a bug).
pub fn encode_compact<T: Serialize>(table: &'static str, value: &T) -> Result<Vec<u8>> {
    use bincode::Options;
    compact().serialize(value).map_err(|e| Error::Codec {
        table,
        message: e.to_string(),
    })
}

/// Decodes what [`encode_compact`] wrote.
///
/// Errors: [`Error::Codec`] when the bytes are not a value of this layout.
pub fn decode_compact<T: DeserializeOwned>(table: &'static str, bytes: &[u8]) -> Result<T> {
    use bincode::Options;
    compact().deserialize(bytes).map_err(|e| Error::Codec {
        table,
        message: e.to_string(),
    })
}

/// Serde for a [`rust_decimal::Decimal`] as its mantissa and scale (`#[serde(with = "decimal_parts")]`):
/// a few bytes in [`encode_compact`] instead of its text, and no parsing to read it back.
/// Errors on reading: a scale beyond 28 or a mantissa beyond 96 bits.
pub mod decimal_parts {
    use rust_decimal::Decimal;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `value` as `(mantissa, scale)`.
    pub fn serialize<S: Serializer>(value: &Decimal, to: S) -> Result<S::Ok, S::Error> {
        (value.mantissa(), value.scale() as u8).serialize(to)
    }

    /// Reads `(mantissa, scale)`.
    pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Decimal, D::Error> {
        let (mantissa, scale) = <(i128, u8)>::deserialize(from)?;
        Decimal::try_from_i128_with_scale(mantissa, u32::from(scale)).map_err(D::Error::custom)
    }

    /// The same for an optional decimal.
    pub mod option {
        use rust_decimal::Decimal;
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        /// Parts of one decimal, borrowed for writing.
        #[derive(Serialize)]
        struct Out<'a>(#[serde(with = "super")] &'a Decimal);

        /// Parts of one decimal, read.
        #[derive(Deserialize)]
        struct In(#[serde(with = "super")] Decimal);

        /// Writes `value` as an optional `(mantissa, scale)`.
        pub fn serialize<S: Serializer>(value: &Option<Decimal>, to: S) -> Result<S::Ok, S::Error> {
            value.as_ref().map(Out).serialize(to)
        }

        /// Reads an optional `(mantissa, scale)`.
        pub fn deserialize<'de, D: Deserializer<'de>>(
            from: D,
        ) -> Result<Option<Decimal>, D::Error> {
            Ok(Option::<In>::deserialize(from)?.map(|In(d)| d))
        }
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Amounts {
        #[serde(with = "decimal_parts")]
        total: Decimal,
        #[serde(with = "decimal_parts::option")]
        sales: Option<Decimal>,
    }

    #[test]
    fn decimals_round_trip_as_mantissa_and_scale() {
        for (total, sales) in [
            (Decimal::new(1_782_175, 6), Some(Decimal::new(-25, 1))),
            (Decimal::MAX, None),
            (Decimal::MIN, Some(Decimal::new(1, 28))),
        ] {
            let amounts = Amounts { total, sales };
            let bytes = encode_compact("t", &amounts).unwrap();
            assert_eq!(decode_compact::<Amounts>("t", &bytes).unwrap(), amounts);
        }
    }

    #[test]
    fn parts_beyond_a_decimal_are_refused() {
        // (mantissa, scale) as another build might have written them, then a sales value.
        let beyond = [
            ((1_i128, 29_u8), None::<(i128, u8)>),
            ((1_i128 << 96, 0), None),
            ((1, 2), Some((1_i128 << 96, 0))),
            ((1, 2), Some((5, 29))),
        ];
        for parts in beyond {
            let bytes = encode_compact("t", &parts).unwrap();
            let refused = decode_compact::<Amounts>("t", &bytes).unwrap_err();
            assert!(
                matches!(&refused, Error::Codec { table: "t", .. }),
                "{parts:?}: {refused}"
            );
        }
    }
}
