//! Wire formats shared by every DTO: decimals, timestamps and ids, and the answer of an action
//! that makes nothing.

use actors::values::rfc3339;
use actors::{money, values};
use rust_decimal::Decimal;
use serde::Serialize;
use storage::records::VatCategory;
use storage::{Id, Timestamp};
use utoipa::ToSchema;

/// A decimal as its canonical string: normalised, no exponent, `"0"` for zero.
pub fn dec(value: Decimal) -> String {
    money::canonical(value)
}

/// An optional decimal as its canonical string.
pub fn dec_opt(value: Option<Decimal>) -> Option<String> {
    value.map(dec)
}

/// A timestamp as ISO 8601 UTC, whole seconds: `2026-11-21T10:15:00Z`.
pub fn ts(value: Timestamp) -> String {
    rfc3339(value).unwrap_or_default()
}

/// An id in input JSON: a UUID string. Errors: `errors.invalidId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireId(pub Id);

impl<E: deserr::DeserializeError> deserr::Deserr<E> for WireId {
    fn deserialize_from_value<V: deserr::IntoValue>(
        value: deserr::Value<V>,
        location: deserr::ValuePointerRef,
    ) -> Result<Self, E> {
        values::from_text(value, location, WireId::try_from)
    }
}

impl TryFrom<String> for WireId {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
            .map(WireId)
            .map_err(|_| "errors.invalidId: expected a UUID".to_string())
    }
}

/// A SHA-256 in input JSON: 64 hex digits. Errors: `errors.invalidValue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireSha256(pub [u8; 32]);

impl WireSha256 {
    /// The hash of `text`: 64 hex digits, either case.
    pub fn parse(text: &str) -> Option<WireSha256> {
        if text.len() != 64 {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(WireSha256(bytes))
    }

    /// Lower-case hex.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl<E: deserr::DeserializeError> deserr::Deserr<E> for WireSha256 {
    fn deserialize_from_value<V: deserr::IntoValue>(
        value: deserr::Value<V>,
        location: deserr::ValuePointerRef,
    ) -> Result<Self, E> {
        values::from_text(value, location, |text| {
            WireSha256::parse(&text)
                .ok_or_else(|| "errors.invalidValue: expected 64 hex digits".to_string())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn canonical_decimals_and_timestamps() {
        assert_eq!(dec(Decimal::from_str("1.500").unwrap()), "1.5");
        assert_eq!(dec(Decimal::from_str("-0.00").unwrap()), "0");
        assert_eq!(dec(Decimal::from_str("100").unwrap()), "100");
        assert_eq!(
            dec(Decimal::from_str("1E+2").unwrap_or(Decimal::ONE_HUNDRED)),
            "100"
        );
        assert_eq!(ts(Timestamp(1_795_774_500)), "2026-11-27T10:15:00Z");
    }

    #[test]
    fn sha256_is_64_hex_digits() {
        let hex = "00ff".repeat(16);
        assert_eq!(WireSha256::parse(&hex).map(|h| h.hex()), Some(hex));
        assert_eq!(
            WireSha256::parse(&"AB".repeat(32)).map(|h| h.0[0]),
            Some(0xab)
        );
        for bad in ["", "00", &"0g".repeat(32), &"é".repeat(32), &"0".repeat(65)] {
            assert!(WireSha256::parse(bad).is_none(), "{bad:?}");
        }
    }
}

/// The answer of an action that makes nothing (logout, SYNC, OPERATION, …): `{"ok": true}`,
/// with 200 (docs/api-contract.md, "Statuses").
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OkDto {
    /// Always true.
    pub ok: bool,
}

impl OkDto {
    /// `{"ok": true}`.
    pub const DONE: OkDto = OkDto { ok: true };
}

/// The wire name of a serde enum value (`"DONE"`).
pub fn name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A VAT category (UNCL 5305) by its name.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Vat {
    /// S: the standard or a reduced rate.
    Standard,
    /// Z: zero rated.
    Zero,
    /// E: a small business under § 19 UStG.
    SmallBusiness,
    /// AE: reverse charge to a B2B buyer in another EU country.
    ReverseCharge,
    /// G: export outside the EU.
    Export,
}

impl From<VatCategory> for Vat {
    fn from(v: VatCategory) -> Self {
        match v {
            VatCategory::Standard => Vat::Standard,
            VatCategory::Zero => Vat::Zero,
            VatCategory::SmallBusiness => Vat::SmallBusiness,
            VatCategory::ReverseCharge => Vat::ReverseCharge,
            VatCategory::Export => Vat::Export,
        }
    }
}
