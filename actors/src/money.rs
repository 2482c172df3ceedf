//! Money arithmetic: exact decimals, one rounding rule.
//!
//! Rule (API-CONTRACT.md, "Money arithmetic"): each derived amount is one fraction, multiplications
//! first and a single division last, rounded half-even to [`SCALE`] decimal places, then normalised
//! (no trailing zeros) for the wire.

use rust_decimal::{Decimal, RoundingStrategy};

/// Decimal places kept by every derived amount.
pub const SCALE: u32 = 10;

/// `numerator / denominator` rounded half-even to [`SCALE`] places and normalised.
/// A zero denominator yields zero (validation keeps lifetimes and weights positive).
pub fn divide(numerator: Decimal, denominator: Decimal) -> Decimal {
    if denominator.is_zero() {
        return Decimal::ZERO;
    }
    round(numerator / denominator)
}

/// Rounds half-even to [`SCALE`] places and normalises.
pub fn round(value: Decimal) -> Decimal {
    value
        .round_dp_with_strategy(SCALE, RoundingStrategy::MidpointNearestEven)
        .normalize()
}

/// The canonical text of a decimal (API-CONTRACT.md, decimal rules): no trailing zeros, no
/// exponent, and zero as `0` (never `-0` or `0.00`).
pub fn canonical(value: Decimal) -> String {
    if value.is_zero() {
        "0".to_string()
    } else {
        value.normalize().to_string()
    }
}

/// Depreciation per printing hour of a printer or component: `price / lifetime_hours`
/// (currency per hour).
pub fn hourly_rate(purchase_price: Decimal, expected_lifetime_hours: Decimal) -> Decimal {
    divide(purchase_price, expected_lifetime_hours)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn hourly_rate_is_exact_and_normalised() {
        assert_eq!(hourly_rate(d("1200"), d("6000")).to_string(), "0.2");
        assert_eq!(hourly_rate(d("100"), d("3")).to_string(), "33.3333333333");
        assert_eq!(hourly_rate(d("1"), d("0")).to_string(), "0");
    }

    #[test]
    fn rounding_is_half_even_at_ten_places() {
        assert_eq!(round(d("0.00000000005")).to_string(), "0");
        assert_eq!(round(d("0.00000000015")).to_string(), "0.0000000002");
        assert_eq!(round(d("2.50")).to_string(), "2.5");
    }
}
