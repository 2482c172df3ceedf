//! Money arithmetic: exact decimals, one rounding rule, and a bound that keeps every sum in range.
//!
//! Rule (docs/api-contract.md, "Money arithmetic"): each derived amount is one fraction,
//! multiplications first and a single division last, rounded half-even to [`SCALE`] decimal
//! places, then normalised (no trailing zeros) for the wire. Every step is checked: a result
//! beyond the decimal range is an [`Overflow`], never a panic.
//!
//! **Why sums cannot overflow.** Every amount a print stores (each cost line, its total and cost
//! per unit, each actual costing, its sales value) is at most [`MAX_AMOUNT`] in magnitude, the
//! contract's limit for money input (15 whole and 10 fractional digits): [`bounded`] refuses a
//! larger one before anything is stored. A `Decimal` holds magnitudes up to about 7.9 × 10^28,
//! so a sum (or a difference of sums) of `n` stored amounts stays in range for `n` up to
//! 3.9 × 10^13: a store of that many prints, at well over 100 bytes each, would take petabytes,
//! so the projection's, the dashboard's, the histories' and the CSV's sums can use plain
//! addition. A sum beyond 7.9 × 10^18 keeps fewer than 10 decimal places (rust_decimal rescales
//! instead of overflowing); no shop's figures come near.

use rust_decimal::{Decimal, RoundingStrategy};

/// Decimal places kept by every derived amount.
pub const SCALE: u32 = 10;

/// The largest amount a print may store: 999,999,999,999,999.9999999999 (15 whole and
/// [`SCALE`] fractional digits, the contract's limit for money input).
pub const MAX_AMOUNT: Decimal =
    Decimal::from_parts(0x49FF_FFFF, 0x1614_0148, 0x0008_4595, false, SCALE);

/// An amount beyond exact decimal range, or beyond [`MAX_AMOUNT`] where it is to be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the amount is too large to compute exactly")]
pub struct Overflow;

/// `numerator / denominator` rounded half-even to [`SCALE`] places and normalised.
/// A zero denominator yields zero (validation keeps lifetimes and weights positive).
///
/// Errors: [`Overflow`] when the quotient is beyond the decimal range.
pub fn divide(numerator: Decimal, denominator: Decimal) -> Result<Decimal, Overflow> {
    if denominator.is_zero() {
        return Ok(Decimal::ZERO);
    }
    numerator
        .checked_div(denominator)
        .map(round)
        .ok_or(Overflow)
}

/// `a × b`. Errors: [`Overflow`] beyond the decimal range.
pub fn multiply(a: Decimal, b: Decimal) -> Result<Decimal, Overflow> {
    a.checked_mul(b).ok_or(Overflow)
}

/// `amount` itself when it may be stored: |amount| ≤ [`MAX_AMOUNT`], with at most [`SCALE`]
/// decimal places once normalised (what the contract's input limit and [`round`] give; the
/// print projection holds amounts in that fixed form).
///
/// Errors: [`Overflow`] beyond either.
pub fn bounded(amount: Decimal) -> Result<Decimal, Overflow> {
    if amount.abs() <= MAX_AMOUNT && amount.normalize().scale() <= SCALE {
        Ok(amount)
    } else {
        Err(Overflow)
    }
}

/// Rounds half-even to [`SCALE`] places and normalises.
pub fn round(value: Decimal) -> Decimal {
    value
        .round_dp_with_strategy(SCALE, RoundingStrategy::MidpointNearestEven)
        .normalize()
}

/// The canonical text of a decimal (docs/api-contract.md, "Values on the wire"): no trailing zeros, no
/// exponent, and zero as `0` (never `-0` or `0.00`).
pub fn canonical(value: Decimal) -> String {
    if value.is_zero() {
        "0".to_string()
    } else {
        value.normalize().to_string()
    }
}

/// A rate as shown: `price / per` (currency per hour of a lifetime, or per gram of a weight).
/// Validated inputs keep it in range (a price below 10^15 over a lifetime of at least 10^-10 h is
/// below 10^25); [`MAX_AMOUNT`] stands in should a stored record ever exceed them, so a read
/// never fails on it.
pub fn rate(price: Decimal, per: Decimal) -> Decimal {
    divide(price, per).unwrap_or(MAX_AMOUNT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn rates_are_exact_and_normalised() {
        assert_eq!(rate(d("1200"), d("6000")).to_string(), "0.2");
        assert_eq!(rate(d("100"), d("3")).to_string(), "33.3333333333");
        assert_eq!(rate(d("1"), d("0")).to_string(), "0");
    }

    #[test]
    fn a_quotient_beyond_the_range_is_an_overflow_not_a_panic() {
        let price = d("999999999999999.9999999999");
        assert_eq!(
            divide(price, d("0.0000000001")).unwrap().to_string(),
            "9999999999999999999999999"
        );
        assert_eq!(divide(Decimal::MAX, d("0.0000000001")), Err(Overflow));
        assert_eq!(multiply(Decimal::MAX, d("2")), Err(Overflow));
    }

    #[test]
    fn the_bound_is_fifteen_whole_and_ten_fractional_digits() {
        assert_eq!(MAX_AMOUNT.to_string(), "999999999999999.9999999999");
        assert_eq!(bounded(MAX_AMOUNT), Ok(MAX_AMOUNT));
        assert_eq!(bounded(-MAX_AMOUNT), Ok(-MAX_AMOUNT));
        assert_eq!(bounded(d("1000000000000000")), Err(Overflow));
        assert_eq!(bounded(d("0.12345678900")), Ok(d("0.12345678900")));
        assert_eq!(bounded(d("0.00000000001")), Err(Overflow));
    }

    #[test]
    fn sums_of_many_bounded_amounts_stay_in_range() {
        let many = MAX_AMOUNT
            .checked_mul(Decimal::from(39_000_000_000_000_u64))
            .unwrap();
        assert!(many.checked_add(MAX_AMOUNT).is_some());
        assert!(many.checked_sub(MAX_AMOUNT).is_some());
        assert_eq!(
            Decimal::MAX.checked_add(MAX_AMOUNT),
            None,
            "the range does end"
        );
        // Beyond 10^19 at ten places the sum rescales instead of overflowing.
        let big = d("7000000000000000000.0000000001");
        assert_eq!(
            big.checked_add(big).unwrap().to_string(),
            "14000000000000000000.000000000"
        );
    }

    #[test]
    fn rounding_is_half_even_at_ten_places() {
        assert_eq!(round(d("0.00000000005")).to_string(), "0");
        assert_eq!(round(d("0.00000000015")).to_string(), "0.0000000002");
        assert_eq!(round(d("2.50")).to_string(), "2.5");
    }
}
