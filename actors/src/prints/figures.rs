//! The money of a print beyond its cost: units, planned margin and, once an outcome is known,
//! the realized revenue and margin.

use crate::money;
use rust_decimal::Decimal;
use storage::records::Print;

/// Whether every amount `print` stores is within [`crate::money::MAX_AMOUNT`]: its planned and
/// actual costings and its sales value. The write rules refuse any other print; one written by
/// an earlier build without that rule is left out of every sum (and logged), so that sums over
/// the store stay in range (the bound's argument in [`crate::money`]).
pub fn in_range(print: &Print) -> bool {
    let costings = std::iter::once(&print.costing).chain(
        print
            .outcome
            .iter()
            .flat_map(|o| o.revisions.iter().map(|r| &r.actual)),
    );
    let amounts = costings
        .flat_map(|c| {
            [c.total, c.cost_per_unit]
                .into_iter()
                .chain(c.lines.iter().map(|l| l.cost))
        })
        .chain(print.sales_value);
    let fits = amounts.into_iter().all(|a| money::bounded(a).is_ok());
    if !fits {
        tracing::warn!(print = %print.id, "a print's amounts exceed the limit; it is left out of sums");
    }
    fits
}

/// Sum of the units of `prints`.
pub fn units(prints: &[Print]) -> u64 {
    prints.iter().map(|p| u64::from(p.quantity)).sum()
}

/// The sales value minus the planned total, when a sales value exists.
pub fn planned_margin(print: &Print) -> Option<Decimal> {
    print
        .sales_value
        .map(|s| (s - print.costing.total).normalize())
}

/// Money of a print once its outcome is known (spec, Dashboard: "Realized margin arises only
/// from SUCCESS; FAILED gives zero realized revenue when a sales value was supplied, with failed
/// costs reported separately; pending outcomes have no realized revenue; missing sales values
/// stay null").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Realized {
    /// Actual cost of the current outcome revision.
    pub actual_cost: Option<Decimal>,
    /// Actual cost per unit.
    pub actual_cost_per_unit: Option<Decimal>,
    /// SUCCESS: the sales value; FAILED: 0 when a sales value exists.
    pub revenue: Option<Decimal>,
    /// SUCCESS with a sales value: revenue minus actual cost.
    pub margin: Option<Decimal>,
    /// FAILED: the actual cost of the failed run.
    pub failed_cost: Option<Decimal>,
}

/// The realized money of `print` (all `None` while no outcome is recorded).
pub fn realized(print: &Print) -> Realized {
    use storage::records::OutcomeStatus;
    let Some(current) = print.outcome.as_ref().and_then(|o| o.current()) else {
        return Realized::default();
    };
    let actual = current.actual.total;
    let mut realized = Realized {
        actual_cost: Some(actual),
        actual_cost_per_unit: Some(current.actual.cost_per_unit),
        ..Realized::default()
    };
    match current.status {
        OutcomeStatus::Success => {
            realized.revenue = print.sales_value;
            realized.margin = print.sales_value.map(|s| (s - actual).normalize());
        }
        OutcomeStatus::Failed => {
            realized.revenue = print.sales_value.map(|_| Decimal::ZERO);
            realized.failed_cost = Some(actual);
        }
    }
    realized
}
