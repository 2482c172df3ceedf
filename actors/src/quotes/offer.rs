//! What a quote offers (docs/costing.md, "Quotes"): each print's sales value spread over its
//! item and its work lines in proportion to their cost, each line `quantity × unit price` to the
//! cent, and the totals with VAT.
//!
//! For a print of sales value `P` and cost total `C`, a line of cost `c` is worth `c × P / C`
//! (the item: every line of the parts; a work line: its own lines), one fraction; its unit price
//! is that over its quantity (the print's quantity, or 1 for a line per job) rounded half away
//! from zero to the cent, and its net amount `quantity × unit price`. What the cents leave over
//! goes to the print's first line of quantity 1, so the print's lines add up to `P` whenever it
//! has one. A print that costs nothing puts `P` on its item.

use crate::costing::is_work;
use crate::money::{self, Overflow};
use crate::pricing;
use rust_decimal::{Decimal, RoundingStrategy};
use storage::Id;
use storage::records::{Offer, Per, Print, QuoteLine};

/// The lines of `print`, or `None` when it has no sales value to offer.
///
/// Errors: [`Overflow`] when an amount leaves the bound (a sales value near it, spread).
pub fn lines(print: &Print) -> Result<Option<Vec<QuoteLine>>, Overflow> {
    let Some(price) = print.sales_value else {
        return Ok(None);
    };
    let item_cost: Decimal = print
        .costing
        .lines
        .iter()
        .filter(|l| !is_work(l.category))
        .map(|l| l.cost)
        .sum();
    let mut shares = vec![(None, print.name.clone(), print.quantity, item_cost)];
    for work in &print.work {
        let mine = print
            .costing
            .lines
            .iter()
            .filter(|l| is_work(l.category) && l.usage_id == Some(work.id));
        let label = mine
            .clone()
            .next()
            .map(|l| l.label.clone())
            .unwrap_or_default();
        let quantity = match work.per {
            Per::Piece => print.quantity,
            Per::Job => 1,
        };
        shares.push((Some(work.id), label, quantity, mine.map(|l| l.cost).sum()));
    }
    let total = print.costing.total;
    let mut lines = Vec::with_capacity(shares.len());
    for (index, (work_line_id, description, quantity, cost)) in shares.into_iter().enumerate() {
        let worth = match total.is_zero() {
            true if index == 0 => price,
            true => Decimal::ZERO,
            false => money::multiply(cost, price)?
                .checked_div(total)
                .ok_or(Overflow)?,
        };
        let unit_price = cents(worth.checked_div(Decimal::from(quantity)).ok_or(Overflow)?);
        lines.push(QuoteLine {
            print_id: print.id,
            work_line_id,
            description,
            quantity,
            unit_price,
            net: money::bounded(money::multiply(unit_price, Decimal::from(quantity))?)?,
        });
    }
    let offered: Decimal = lines.iter().map(|l| l.net).sum();
    if let Some(single) = lines.iter_mut().find(|l| l.quantity == 1) {
        let settled = single.net + (price - offered);
        if settled >= Decimal::ZERO {
            single.unit_price = settled;
            single.net = settled;
        }
    }
    Ok(Some(lines))
}

/// `amount` to the cent, half away from zero, normalised.
fn cents(amount: Decimal) -> Decimal {
    amount
        .round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
        .normalize()
}

/// The offer of `lines` at `vat_percent`: their net sum, its VAT to the cent, and the gross.
///
/// Errors: [`Overflow`] beyond the bound.
pub fn offer(lines: Vec<QuoteLine>, vat_percent: Decimal) -> Result<Offer, Overflow> {
    let net = money::bounded(lines.iter().map(|l| l.net).sum())?;
    let vat = pricing::vat(net, vat_percent)?;
    Ok(Offer {
        lines,
        net,
        vat_percent,
        vat,
        gross: money::bounded(net + vat)?,
    })
}

/// The net sum of the lines `offer` gives print `print_id`: its agreed sales value once
/// accepted.
pub fn net_of(offer: &Offer, print_id: Id) -> Decimal {
    offer
        .lines
        .iter()
        .filter(|l| l.print_id == print_id)
        .map(|l| l.net)
        .sum()
}
