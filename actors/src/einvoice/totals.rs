//! An EN 16931 document's totals (docs/invoices.md, "Totals"). Every amount is to the cent,
//! rounded half away from zero once, where it is made:
//!
//! - BT-131, a line's net amount: `quantity × unit price` (the price's base quantity is 1);
//! - BT-106: the sum of the lines; BT-107 and BT-108: of the allowances and of the charges;
//! - BT-109 = BT-106 − BT-107 + BT-108 (BR-CO-13);
//! - per VAT category and rate (BG-23): BT-116, the sum of its lines, plus its charges, less its
//!   allowances (BR-S-08, BR-AE-08 …), and BT-117 = BT-116 × rate / 100 (BR-S-09, BR-CO-17);
//! - BT-110: the sum of BT-117 (BR-CO-14); BT-112 = BT-109 + BT-110 (BR-CO-15);
//!   BT-115 = BT-112 − BT-113 (BR-CO-16).

use super::{Adjustment, Document, Line, Vat};
use crate::money::{self, Overflow};
use rust_decimal::{Decimal, RoundingStrategy};
use std::collections::BTreeMap;

/// BG-23: one VAT category and rate with its base and amount.
#[derive(Debug, Clone, PartialEq)]
pub struct Breakdown {
    /// The category and its rate.
    pub vat: Vat,
    /// BT-116.
    pub basis: Decimal,
    /// BT-117.
    pub amount: Decimal,
}

/// BG-22 with the VAT breakdown: what the document adds up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    /// BT-131 of each line, in order.
    pub lines: Vec<Decimal>,
    /// BT-106.
    pub line_total: Decimal,
    /// BT-107.
    pub allowances: Decimal,
    /// BT-108.
    pub charges: Decimal,
    /// BT-109.
    pub tax_basis: Decimal,
    /// BG-23, by category and rate.
    pub breakdown: Vec<Breakdown>,
    /// BT-110.
    pub tax: Decimal,
    /// BT-112.
    pub grand_total: Decimal,
    /// BT-115.
    pub due: Decimal,
}

/// `amount` to the cent, half away from zero.
pub fn cents(amount: Decimal) -> Decimal {
    amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// BT-131 of `line`. Errors: [`Overflow`] beyond the bound.
pub fn line_amount(line: &Line) -> Result<Decimal, Overflow> {
    money::bounded(cents(money::multiply(line.quantity, line.unit_price)?))
}

fn add(a: Decimal, b: Decimal) -> Result<Decimal, Overflow> {
    money::bounded(a.checked_add(b).ok_or(Overflow)?)
}

/// The totals of `document`. Errors: [`Overflow`] when an amount leaves the bound.
pub fn of(document: &Document) -> Result<Totals, Overflow> {
    sum(&document.lines, &document.adjustments, document.prepaid)
}

/// The totals of `lines` and `adjustments` with `prepaid` paid already.
/// Errors: [`Overflow`] when an amount leaves the bound.
pub fn sum(
    document_lines: &[Line],
    adjustments: &[Adjustment],
    prepaid: Decimal,
) -> Result<Totals, Overflow> {
    let mut bases: BTreeMap<Vat, Decimal> = BTreeMap::new();
    let mut lines = Vec::with_capacity(document_lines.len());
    let mut line_total = Decimal::ZERO;
    for line in document_lines {
        let amount = line_amount(line)?;
        line_total = add(line_total, amount)?;
        let basis = bases.entry(line.vat).or_default();
        *basis = add(*basis, amount)?;
        lines.push(amount);
    }
    let (mut allowances, mut charges) = (Decimal::ZERO, Decimal::ZERO);
    for adjustment in adjustments {
        let amount = cents(adjustment.amount);
        let basis = bases.entry(adjustment.vat).or_default();
        match adjustment.charge {
            true => {
                charges = add(charges, amount)?;
                *basis = add(*basis, amount)?;
            }
            false => {
                allowances = add(allowances, amount)?;
                *basis = add(*basis, -amount)?;
            }
        }
    }
    let mut breakdown = Vec::with_capacity(bases.len());
    let mut tax = Decimal::ZERO;
    for (vat, basis) in bases {
        let amount = money::bounded(cents(
            money::multiply(basis, vat.rate())?
                .checked_div(Decimal::ONE_HUNDRED)
                .ok_or(Overflow)?,
        ))?;
        tax = add(tax, amount)?;
        breakdown.push(Breakdown { vat, basis, amount });
    }
    let tax_basis = add(add(line_total, -allowances)?, charges)?;
    let grand_total = add(tax_basis, tax)?;
    Ok(Totals {
        lines,
        line_total,
        allowances,
        charges,
        tax_basis,
        breakdown,
        tax,
        grand_total,
        due: add(grand_total, -cents(prepaid))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::einvoice::{Adjustment, Kind};
    use storage::records::{InvoiceParty, PostalAddress};

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn party() -> InvoiceParty {
        InvoiceParty {
            name: "A".into(),
            address: PostalAddress {
                street: "S 1".into(),
                postal_code: "10115".into(),
                city: "Berlin".into(),
                country: "DE".into(),
            },
            vat_id: Some("DE123456789".into()),
            tax_number: None,
            email: "a@example.com".into(),
            phone: None,
        }
    }

    fn line(quantity: &str, price: &str, vat: Vat) -> Line {
        Line {
            name: "x".into(),
            quantity: d(quantity),
            unit: "C62",
            unit_price: d(price),
            vat,
        }
    }

    #[test]
    fn the_totals_are_each_rounded_once_where_the_standard_makes_them() {
        let (s19, s7) = (Vat::Standard(d("19")), Vat::Standard(d("7")));
        let document = Document {
            kind: Kind::Invoice,
            number: "1".into(),
            issued_on: jiff::civil::date(2026, 11, 27),
            due_on: None,
            payment_terms: None,
            currency: "EUR".into(),
            buyer_reference: "r".into(),
            preceding: None,
            note: None,
            seller: party(),
            buyer: party(),
            account: ("DE89370400440532013000".into(), None),
            lines: vec![
                line("3", "12.3456", s19),
                line("2.5", "45", s19),
                line("1", "9.99", s7),
            ],
            adjustments: vec![
                Adjustment {
                    charge: false,
                    amount: d("5"),
                    reason: "Rabatt".into(),
                    vat: s19,
                },
                Adjustment {
                    charge: true,
                    amount: d("4.90"),
                    reason: "Versand".into(),
                    vat: s7,
                },
            ],
            prepaid: d("20"),
        };
        let t = of(&document).unwrap();
        // 3 × 12.3456 = 37.0368 → 37.04; 2.5 × 45 = 112.50; 9.99.
        assert_eq!(t.lines, [d("37.04"), d("112.50"), d("9.99")]);
        assert_eq!(t.line_total, d("159.53"));
        assert_eq!((t.allowances, t.charges), (d("5"), d("4.90")));
        assert_eq!(t.tax_basis, d("159.43"));
        // 19 %: (37.04 + 112.50 − 5) × 0.19 = 27.4626 → 27.46; 7 %: 14.89 × 0.07 = 1.0423 → 1.04.
        assert_eq!(
            t.breakdown
                .iter()
                .map(|b| (b.vat, b.basis, b.amount))
                .collect::<Vec<_>>(),
            [(s7, d("14.89"), d("1.04")), (s19, d("144.54"), d("27.46"))]
        );
        assert_eq!(t.tax, d("28.50"));
        assert_eq!(t.grand_total, d("187.93"));
        assert_eq!(t.due, d("167.93"));
    }

    #[test]
    fn an_amount_beyond_the_bound_is_refused_not_wrapped() {
        let huge = line("999999999999", "999999999999", Vat::Zero);
        assert_eq!(line_amount(&huge), Err(Overflow));
    }
}
