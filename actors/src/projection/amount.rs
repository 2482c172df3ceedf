//! An amount of money in 12 bytes, for the print projection's entries: a million prints hold
//! two amounts each, and `Option<Decimal>` takes 20 bytes where this takes 12.

use crate::money::{self, SCALE};
use rust_decimal::Decimal;

/// Sign bit, the top bit of the high word.
const NEGATIVE: u32 = 1 << 31;
/// "No amount", the high word's next bit.
const ABSENT: u32 = 1 << 30;

/// A storable amount ([`money::bounded`]: at most 15 whole and [`SCALE`] fractional digits), or
/// none. Held as its magnitude in units of 10^-[`SCALE`] (at most 10^25, 84 bits) in the low
/// bits of three little-endian words, the sign in the high word's top bit and "none" in the
/// next: exact, and read back as a `Decimal` without arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount([u32; 3]);

impl Amount {
    /// No amount (a print without a sales value).
    pub const NONE: Amount = Amount([0, 0, ABSENT]);
    /// Zero.
    pub const ZERO: Amount = Amount([0, 0, 0]);

    /// `value` exactly; `None` when it may not be stored ([`money::bounded`]).
    pub fn of(value: Decimal) -> Option<Amount> {
        let mut fixed = money::bounded(value).ok()?;
        // Exact: the value has at most SCALE places, so rescaling only appends zeros.
        fixed.rescale(SCALE);
        let magnitude = fixed.mantissa().unsigned_abs();
        let sign = if fixed.is_sign_negative() && magnitude != 0 {
            NEGATIVE
        } else {
            0
        };
        // Below 2^84, so the high word keeps its two flag bits clear; the casts take the words.
        Some(Amount([
            magnitude as u32,
            (magnitude >> 32) as u32,
            (magnitude >> 64) as u32 | sign,
        ]))
    }

    /// `value`'s amount, [`Amount::NONE`] for none or one that may not be stored.
    pub fn of_option(value: Option<Decimal>) -> Amount {
        value.and_then(Amount::of).unwrap_or(Amount::NONE)
    }

    /// The amount, at scale [`SCALE`] (equal to the value given, trailing zeros aside); `None`
    /// for [`Amount::NONE`].
    pub fn decimal(self) -> Option<Decimal> {
        let [lo, mid, hi] = self.0;
        (hi & ABSENT == 0)
            .then(|| Decimal::from_parts(lo, mid, hi & !NEGATIVE, hi & NEGATIVE != 0, SCALE))
    }

    /// The amount, zero for none.
    pub fn or_zero(self) -> Decimal {
        self.decimal().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::MAX_AMOUNT;
    use std::str::FromStr;

    fn d(text: &str) -> Decimal {
        Decimal::from_str(text).unwrap()
    }

    #[test]
    fn every_storable_amount_reads_back_equal() {
        for text in [
            "0",
            "-0",
            "1.782175",
            "-2.5",
            "0.0000000001",
            "77.14",
            "1299.50",
        ] {
            let amount = Amount::of(d(text)).unwrap();
            assert_eq!(amount.decimal(), Some(d(text)), "{text}");
        }
        for value in [MAX_AMOUNT, -MAX_AMOUNT] {
            assert_eq!(Amount::of(value).unwrap().decimal(), Some(value));
        }
        assert_eq!(Amount::of(d("-0")).unwrap(), Amount::ZERO);
    }

    #[test]
    fn what_may_not_be_stored_has_no_amount() {
        assert_eq!(Amount::of(MAX_AMOUNT + d("0.0000000001")), None);
        assert_eq!(Amount::of(d("0.00000000001")), None);
        assert_eq!(
            Amount::of_option(Some(d("100000000000000000000"))),
            Amount::NONE
        );
        assert_eq!(Amount::of_option(None).decimal(), None);
        assert_eq!(Amount::NONE.or_zero(), Decimal::ZERO);
    }
}
