//! The rate every cost line keeps: an exact fraction, so that later costs reuse it.

use rust_decimal::Decimal;
use storage::Id;

/// A rate as an exact fraction: `price / per` currency per hour (lifetime or labour), per gram
/// (weight) or per piece (a charge).
#[derive(Debug, Clone, PartialEq)]
pub struct Rate {
    /// The priced record.
    pub source_id: Id,
    /// Its label at pricing time.
    pub label: String,
    /// Numerator: the purchase price.
    pub price: Decimal,
    /// Denominator: lifetime hours or net grams (> 0).
    pub per: Decimal,
}
