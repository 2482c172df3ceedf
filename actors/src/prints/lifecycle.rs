//! The status lifecycle, paid and archive flags.
//!
//! DRAFT → any other status freezes the cost snapshot (repriced once more at current prices);
//! moves among PRINTING, PRINTED, SHIPPED and DONE are free in any order; nothing returns to
//! DRAFT, and a print with an outcome stays DONE (what happened is recorded against DONE). Becoming DONE sets the completion time (cleared when leaving DONE) and may complete the
//! print's series. Moving to PRINTING sets the time its runs started (and clears their end);
//! moving on from PRINTING sets the time they ended: the runs' times when nothing better is
//! known (`electricity`).

use super::draft::{get, priced, save};
use super::plan::PrintInput;
use crate::maintenance::tasks::{self, Override};
use crate::txn::Txn;
use crate::{Error, Result, series};
use rust_decimal::Decimal;
use storage::records::{Print, PrintStatus};
use storage::repo::Tx;
use storage::{Id, Timestamp};

/// The statuses `print` may move to now, the forward ones first (the next step first), then the
/// backward ones (the nearest first): the print lifecycle's one rule, which [`set_status`]
/// applies and pages render. Order `DRAFT → PRINTING → PRINTED → SHIPPED → DONE`;
/// moves are free among the last four, never back to DRAFT, and none once an outcome is recorded
/// (a recorded print stays DONE).
pub fn moves(print: &Print) -> Vec<PrintStatus> {
    if print.outcome.is_some() {
        return Vec::new();
    }
    moves_from(print.status)
}

/// The moves from `status` of a print without an outcome, in [`moves`]'s order.
fn moves_from(status: PrintStatus) -> Vec<PrintStatus> {
    let here = rank(status);
    let later = FLOW.iter().copied().filter(|s| rank(*s) > here);
    let earlier = FLOW.iter().rev().copied().filter(|s| rank(*s) < here);
    later
        .chain(earlier)
        .filter(|s| *s != PrintStatus::Draft)
        .collect()
}

/// The statuses in their forward order.
const FLOW: [PrintStatus; 5] = [
    PrintStatus::Draft,
    PrintStatus::Printing,
    PrintStatus::Printed,
    PrintStatus::Shipped,
    PrintStatus::Done,
];

/// `status`'s place in [`FLOW`].
fn rank(status: PrintStatus) -> usize {
    FLOW.iter().position(|s| *s == status).unwrap_or(0)
}

/// Whether a move from `from` to `to` goes back in the flow (DONE → PRINTED): the UI asks
/// before it.
pub fn is_backward(from: PrintStatus, to: PrintStatus) -> bool {
    rank(to) < rank(from)
}

/// Whether a move from `from` to `to` passes PRINTING without stopping there (DRAFT → DONE):
/// the maintenance gate holds as for PRINTING, no run times are taken (the outcome form asks
/// for them), and the UI asks before it.
pub fn skips_printing(from: PrintStatus, to: PrintStatus) -> bool {
    from == PrintStatus::Draft && rank(to) > rank(PrintStatus::Printing)
}

/// Whether a move from `from` to `to` reaches or passes PRINTING: the moves the maintenance
/// gate holds ([`tasks::check_blocking`]). Every move out of DRAFT does.
pub fn passes_gate(from: PrintStatus, to: PrintStatus) -> bool {
    to == PrintStatus::Printing || skips_printing(from, to)
}

/// Moves print `id` to `status` ([`moves`]; the status it has is answered as done).
/// Errors: [`Error::NotFound`]; [`Error::Immutable`] for a finalized print sent back to DRAFT;
/// [`Error::InvalidState`] for a print with an outcome sent away from DONE;
/// [`Error::Validation`] when a draft can no longer be priced (its inventory is gone);
/// moving to PRINTING or past it from DRAFT ([`passes_gate`]), [`Error::MaintenanceOverdue`]
/// while a blocking task of its printers or components is overdue and `overridden` is none
/// ([`tasks::check_blocking`]; the gate is ours, not the spec's: a print that skips PRINTING
/// is made all the same, so the gate holds for it too).
pub fn set_status(
    txn: &Txn,
    id: Id,
    status: PrintStatus,
    overridden: Option<&Override>,
    now: Timestamp,
) -> Result<Print> {
    let old = get(txn, id)?;
    if old.status == status {
        return Ok(old);
    }
    if !moves(&old).contains(&status) {
        return Err(if status == PrintStatus::Draft {
            Error::Immutable
        } else {
            Error::InvalidState
        });
    }
    if passes_gate(old.status, status) {
        tasks::check_blocking(txn, &old, overridden, now)?;
    }
    let mut print = if old.status == PrintStatus::Draft {
        let input = PrintInput::from_print(txn, &old, old.series_id, true)?;
        let mut frozen = priced(txn, &input, Some(&old), now)?;
        frozen.finalized_at = Some(now);
        frozen
    } else {
        old.clone()
    };
    print.version = old.version + 1;
    print.status = status;
    print.completed_at = (status == PrintStatus::Done).then_some(now);
    if status == PrintStatus::Printing {
        print.printing_started_at = Some(now);
        print.printing_ended_at = None;
    } else if old.status == PrintStatus::Printing {
        print.printing_ended_at = Some(now);
    }
    print.updated_at = now;
    save(txn, Some(&old), &print)?;
    if let (PrintStatus::Done, Some(series_id)) = (status, print.series_id) {
        series::complete_if_reached(txn, series_id, now)?;
    }
    Ok(print)
}

/// `POST /api/prints/:id/complete`: moves the print to DONE (from any status). It carries no
/// override: a DRAFT whose printer has an overdue blocking task is refused
/// ([`Error::MaintenanceOverdue`]) and goes through the status move with a reason.
/// Errors: as [`set_status`].
pub fn complete(txn: &Txn, id: Id, now: Timestamp) -> Result<Print> {
    set_status(txn, id, PrintStatus::Done, None, now)
}

/// Sets the paid flag; `paidAt` is set when it becomes true and cleared when it becomes false.
/// Errors: [`Error::NotFound`].
pub fn set_paid(txn: &Txn, id: Id, paid: bool, now: Timestamp) -> Result<Print> {
    let old = get(txn, id)?;
    if old.paid == paid {
        return Ok(old);
    }
    let mut print = old.clone();
    print.version += 1;
    print.paid = paid;
    print.paid_at = paid.then_some(now);
    print.updated_at = now;
    save(txn, Some(&old), &print)?;
    Ok(print)
}

/// Sets the sales value a customer agreed to in an accepted quote (`net`, its lines' sum): the
/// maker's price from then on, the rule's suggestion kept beside it (`overridden`). The sales
/// value is not part of the frozen cost snapshot, so a print that left DRAFT takes it too.
/// Errors: [`Error::NotFound`].
pub fn set_agreed_price(txn: &Txn, id: Id, net: Decimal, now: Timestamp) -> Result<Print> {
    let old = get(txn, id)?;
    let mut print = old.clone();
    print.version += 1;
    print.sales_value = Some(net);
    if let Some(price) = print.price.as_mut() {
        price.overridden = price.suggested != net;
    }
    print.updated_at = now;
    save(txn, Some(&old), &print)?;
    Ok(print)
}

/// The sales value the DRAFT retry `print` may take from the failed print it retries: that
/// print's, while the retry has none (a retry is made without one, spec "Retry"; the failed print
/// earned nothing, so its price is the customer's for the retry). Errors: [`Error::NotFound`].
pub fn retry_price(tx: &impl Tx, print: &Print) -> Result<Option<Decimal>> {
    match (print.status, print.retried_from_id, print.sales_value) {
        (PrintStatus::Draft, Some(failed), None) => Ok(get(tx, failed)?.sales_value),
        _ => Ok(None),
    }
}

/// Gives the DRAFT retry `id` the failed print's sales value ([`retry_price`]), as a price the
/// customer agreed to. Errors: [`Error::NotFound`]; [`Error::InvalidState`] when there is none
/// to take (not a DRAFT retry, one priced already, or a failed print without a sales value).
pub fn take_retry_price(txn: &Txn, id: Id, now: Timestamp) -> Result<Print> {
    let print = get(txn, id)?;
    let price = retry_price(txn, &print)?.ok_or(Error::InvalidState)?;
    set_agreed_price(txn, id, price, now)
}

/// Sets the archive state. Errors: [`Error::NotFound`].
pub fn set_archived(txn: &Txn, id: Id, archived: bool, now: Timestamp) -> Result<Print> {
    let old = get(txn, id)?;
    let mut print = old.clone();
    print.version += 1;
    print.archived = archived;
    print.archived_at = archived.then_some(now);
    print.updated_at = now;
    save(txn, Some(&old), &print)?;
    Ok(print)
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrintStatus::*;

    #[test]
    fn moves_offer_the_next_step_first_then_the_way_back_nearest_first() {
        let order = moves_from;
        assert_eq!(order(Draft), [Printing, Printed, Shipped, Done]);
        assert_eq!(order(Printed), [Shipped, Done, Printing]);
        assert_eq!(order(Done), [Shipped, Printed, Printing]);
        assert!(is_backward(Done, Printed) && is_backward(Shipped, Printing));
        assert!(!is_backward(Printing, Shipped) && !is_backward(Done, Done));
        assert!(skips_printing(Draft, Done) && skips_printing(Draft, Printed));
        assert!(!skips_printing(Draft, Printing) && !skips_printing(Printed, Done));
        assert!(passes_gate(Draft, Printing) && passes_gate(Draft, Shipped));
        assert!(passes_gate(Printed, Printing) && !passes_gate(Printing, Done));
    }
}
