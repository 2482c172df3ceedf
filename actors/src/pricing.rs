//! The shop's price rule (Settings › Pricing; docs/costing.md, "Price"): from a print's cost
//! to its suggested net price, and the VAT on a net price.
//!
//! With `p` the rule's percent and `d` the customer's discount (0 without one):
//! - markup: `cost × (100 + p) × (100 − d) / (100 × 100)`;
//! - margin: `cost × 100 × (100 − d) / ((100 − p) × 100)`;
//!
//! each one fraction, then raised to the minimum per job, then rounded once as the rule says:
//! to the cent (half away from zero, as prices are written), to the nearest 0.05 (likewise), or
//! up to the next price ending in .90. VAT is `net × vatPercent / 100`, to the cent.

use crate::command::{Command, Query, SettingsWriter, Snapshot};
use crate::txn::Txn;
use crate::{Error, FieldError, Result, money};
use rust_decimal::{Decimal, RoundingStrategy};
use storage::records::{PriceBasis, Pricing, Rounding};
use storage::repo;

const HUNDRED: Decimal = Decimal::ONE_HUNDRED;

/// The rule's suggested net price of a run costing `cost`, for a customer with `discount`
/// percent off (both percents below 100, as [`check`] keeps them).
///
/// Errors: [`money::Overflow`] when the price leaves [`money::MAX_AMOUNT`].
pub fn suggest(
    cost: Decimal,
    pricing: &Pricing,
    discount: Option<Decimal>,
) -> std::result::Result<Decimal, money::Overflow> {
    let kept = HUNDRED - discount.unwrap_or_default();
    let (numerator, denominator) = match pricing.basis {
        PriceBasis::Markup => (
            money::multiply(money::multiply(cost, HUNDRED + pricing.percent)?, kept)?,
            HUNDRED * HUNDRED,
        ),
        PriceBasis::Margin => (
            money::multiply(money::multiply(cost, HUNDRED)?, kept)?,
            money::multiply(HUNDRED - pricing.percent, HUNDRED)?,
        ),
    };
    let price = numerator.checked_div(denominator).ok_or(money::Overflow)?;
    let price = match pricing.minimum_per_job {
        Some(minimum) if minimum > price => minimum,
        _ => price,
    };
    money::bounded(round(price, pricing.rounding).normalize())
}

/// `price` rounded as `rounding` says.
fn round(price: Decimal, rounding: Rounding) -> Decimal {
    let commercial = RoundingStrategy::MidpointAwayFromZero;
    match rounding {
        Rounding::Cent => price.round_dp_with_strategy(2, commercial),
        Rounding::FiveCents => {
            (price * Decimal::from(20)).round_dp_with_strategy(0, commercial) / Decimal::from(20)
        }
        Rounding::Ninety => {
            let ninety = Decimal::new(90, 2);
            let whole = (price - ninety).ceil();
            (whole.max(Decimal::ZERO) + ninety).max(ninety)
        }
    }
}

/// The VAT on `net` at `percent`, to the cent. Errors: [`money::Overflow`].
pub fn vat(net: Decimal, percent: Decimal) -> std::result::Result<Decimal, money::Overflow> {
    let vat = money::multiply(net, percent)?
        .checked_div(HUNDRED)
        .ok_or(money::Overflow)?;
    money::bounded(
        vat.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
            .normalize(),
    )
}

/// Checks a rule before it is stored: a margin below 100 %, a VAT rate of at most 100 %, a
/// window of 1 to 1,000 outcomes.
///
/// Errors: [`Error::Validation`] with `errors.outOfRange` at `percent`, `vatPercent` or
/// `failureWindow`.
pub fn check(pricing: &Pricing) -> Result<()> {
    let mut faults = Vec::new();
    if pricing.basis == PriceBasis::Margin && pricing.percent >= HUNDRED {
        faults.push(FieldError::new("percent", "errors.outOfRange"));
    }
    if pricing.vat_percent > HUNDRED {
        faults.push(FieldError::new("vatPercent", "errors.outOfRange"));
    }
    if !(1..=1000).contains(&pricing.failure_window) {
        faults.push(FieldError::new("failureWindow", "errors.outOfRange"));
    }
    match faults.is_empty() {
        true => Ok(()),
        false => Err(Error::Validation(faults)),
    }
}

/// Settings › Pricing as stored (off until first set).
pub struct GetPricing;

impl Query for GetPricing {
    type Answer = Pricing;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Pricing> {
        Ok(repo::pricing(snapshot)?)
    }
}

/// Replaces Settings › Pricing; replies with it. Errors: as [`check`].
pub struct SetPricing(pub Pricing);

impl Command for SetPricing {
    type Writer = SettingsWriter;
    type Reply = Pricing;

    fn apply(&mut self, txn: &Txn) -> Result<Pricing> {
        check(&self.0)?;
        repo::put_pricing(txn, &self.0)?;
        Ok(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn rule(basis: PriceBasis, percent: &str, rounding: Rounding) -> Pricing {
        Pricing {
            enabled: true,
            basis,
            percent: d(percent),
            minimum_per_job: None,
            rounding,
            vat_percent: d("19"),
            failure_adjusted: false,
            failure_window: 20,
        }
    }

    #[test]
    fn a_markup_and_a_margin_price_the_reference_example_with_work() {
        let cost = d("10.532175");
        let markup = rule(PriceBasis::Markup, "30", Rounding::Cent);
        // 10.532175 × 1.3 = 13.6918275.
        assert_eq!(suggest(cost, &markup, None).unwrap().to_string(), "13.69");
        let margin = rule(PriceBasis::Margin, "30", Rounding::Cent);
        // 10.532175 / 0.7 = 15.0459642857…
        assert_eq!(suggest(cost, &margin, None).unwrap().to_string(), "15.05");
        // A reseller's 10 % off the margin price: 13.5413678571…
        let reseller = suggest(cost, &margin, Some(d("10"))).unwrap();
        assert_eq!(reseller.to_string(), "13.54");
    }

    #[test]
    fn the_minimum_and_the_roundings() {
        let mut pricing = rule(PriceBasis::Markup, "0", Rounding::Cent);
        pricing.minimum_per_job = Some(d("5"));
        assert_eq!(
            suggest(d("1.782175"), &pricing, None).unwrap().to_string(),
            "5"
        );
        assert_eq!(
            suggest(d("7.125"), &pricing, None).unwrap().to_string(),
            "7.13"
        );
        pricing.rounding = Rounding::FiveCents;
        assert_eq!(
            suggest(d("7.125"), &pricing, None).unwrap().to_string(),
            "7.15"
        );
        assert_eq!(
            suggest(d("7.124"), &pricing, None).unwrap().to_string(),
            "7.1"
        );
        pricing.rounding = Rounding::Ninety;
        assert_eq!(
            suggest(d("7.125"), &pricing, None).unwrap().to_string(),
            "7.9"
        );
        assert_eq!(
            suggest(d("7.9"), &pricing, None).unwrap().to_string(),
            "7.9"
        );
        assert_eq!(
            suggest(d("7.91"), &pricing, None).unwrap().to_string(),
            "8.9"
        );
        pricing.minimum_per_job = None;
        assert_eq!(
            suggest(d("0.2"), &pricing, None).unwrap().to_string(),
            "0.9"
        );
    }

    #[test]
    fn vat_is_to_the_cent_and_a_price_beyond_the_bound_is_refused() {
        assert_eq!(vat(d("13.69"), d("19")).unwrap().to_string(), "2.6");
        // docs/costing.md, "Price": 15.05 net at 19 % is 2.8595, so 2.86 and 17.91 gross.
        assert_eq!(vat(d("15.05"), d("19")).unwrap().to_string(), "2.86");
        assert_eq!(vat(d("0.05"), d("7")).unwrap().to_string(), "0");
        assert_eq!(vat(d("0.5"), d("7")).unwrap().to_string(), "0.04");
        let markup = rule(PriceBasis::Markup, "1000", Rounding::Cent);
        assert!(suggest(money::MAX_AMOUNT, &markup, None).is_err());
        let margin = rule(PriceBasis::Margin, "100", Rounding::Cent);
        assert!(check(&margin).is_err());
    }
}
