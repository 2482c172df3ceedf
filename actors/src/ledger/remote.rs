//! Stock ownership of spools linked to the spool manager (docs/api-contract.md, "Integrations"):
//!
//! - a spool without a link, or with [`Authority::Native`], is owned by our ledger;
//! - while the spool manager owns a spool's stock ([`Authority::ExternalReadOnly`],
//!   [`Authority::ExternalConsumption`]), native movements and price or metadata changes are
//!   refused ([`Error::StockOwnedExternally`]; archiving stays allowed), and stock figures and
//!   drafts use the remote remaining grams;
//! - a link is stale without a good sync for [`STALE_AFTER_SECONDS`], or after a failed one;
//! - a spool's authority does not change, nor is it unlinked, while it has unresolved
//!   operations ([`unresolved`]).

use crate::txn::Txn;
use crate::{Error, Result};
use redb::ReadableTable;
use rust_decimal::Decimal;
use std::collections::HashMap;
use storage::records::{Authority, OperationState, Spool, SpoolLink, SpoolmgrOperation};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp, tables};

/// A link with no good sync for this long is stale, seconds (5 minutes).
pub const STALE_AFTER_SECONDS: i64 = 300;

/// The link of spool `spool_id`, if it has one. Errors: the store cannot be read.
pub fn of(tx: &impl Tx, spool_id: Id) -> Result<Option<SpoolLink>> {
    Ok(repo::get(tx, spool_id)?)
}

/// Every link by its local spool. Errors: the store cannot be read.
pub fn all(tx: &impl Tx) -> Result<HashMap<Id, SpoolLink>> {
    Ok(repo::all::<SpoolLink>(tx)?
        .into_iter()
        .map(|l| (l.spool_id, l))
        .collect())
}

/// True when the spool manager owns the stock of a spool with `link`.
pub fn owned_externally(link: Option<&SpoolLink>) -> bool {
    link.is_some_and(|l| l.authority != Authority::Native)
}

/// Refuses a native movement or a price or metadata change on spool `spool_id` while the spool
/// manager owns its stock. Errors: [`Error::StockOwnedExternally`].
pub fn require_native(tx: &impl Tx, spool_id: Id) -> Result<()> {
    native(of(tx, spool_id)?.as_ref())
}

/// As [`require_native`], on the spool's `link` as read.
/// Errors: [`Error::StockOwnedExternally`].
pub fn native(link: Option<&SpoolLink>) -> Result<()> {
    if owned_externally(link) {
        return Err(Error::StockOwnedExternally);
    }
    Ok(())
}

/// Grams left on `spool`: the remote remaining grams (zero when the spool manager knows no
/// weight) while the spool manager owns its stock, else the sum of its movements.
pub fn remaining(spool: &Spool, link: Option<&SpoolLink>) -> Decimal {
    match link {
        Some(l) if l.authority != Authority::Native => {
            l.remote_remaining_grams.unwrap_or(Decimal::ZERO)
        }
        _ => spool.remaining_grams,
    }
}

/// True when `link` had no good sync for [`STALE_AFTER_SECONDS`] before `now`, or its last
/// sync failed.
pub fn stale(link: &SpoolLink, now: Timestamp) -> bool {
    link.sync_error.is_some()
        || link
            .synced_at
            .is_none_or(|at| now.0 - at.0 >= STALE_AFTER_SECONDS)
}

/// True when spool `spool_id` has an operation that is not `APPLIED`.
/// Errors: the store cannot be read.
pub fn unresolved(tx: &impl Tx, spool_id: Id) -> Result<bool> {
    let mut found = false;
    repo::for_each::<SpoolmgrOperation>(tx, |op| {
        found |= op.spool_id == spool_id && op.state != OperationState::Applied;
    })?;
    Ok(found)
}

/// Makes the operation of one usage's consumption (`grams` used; negative gives filament back)
/// on the remote spool of `link`, in the transaction recording outcome `revision` of print
/// `print_id`. A second call for the same usage and revision makes nothing.
///
/// Errors: the store cannot be written.
pub fn consume(
    txn: &Txn,
    link: &SpoolLink,
    (print_id, usage_id, revision): (Id, Id, u32),
    grams: Decimal,
    now: Timestamp,
) -> Result<()> {
    let mut keys = txn
        .open_table(tables::SPOOLMGR_OPERATION_KEYS)
        .map_err(storage::Error::from)?;
    if keys
        .get((usage_id.bytes(), revision))
        .map_err(storage::Error::from)?
        .is_some()
    {
        return Ok(());
    }
    let operation = SpoolmgrOperation {
        id: Id::new(),
        spool_id: link.spool_id,
        remote_id: link.remote_id,
        grams: grams.normalize(),
        state: OperationState::Pending,
        error: None,
        print_id,
        usage_id,
        revision,
        created_at: now,
        updated_at: now,
    };
    keys.insert((usage_id.bytes(), revision), operation.id.bytes())
        .map_err(storage::Error::from)?;
    drop(keys);
    repo::put(txn, &operation)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::records::RemoteState;

    fn link(authority: Authority) -> SpoolLink {
        SpoolLink {
            spool_id: Id::new(),
            remote_id: 7,
            authority,
            remote_remaining_grams: Some(Decimal::new(4125, 1)),
            remote_state: RemoteState::Active,
            synced_at: Some(Timestamp(1_000)),
            sync_error: None,
            linked_at: Timestamp(900),
        }
    }

    #[test]
    fn the_owner_of_the_stock_gives_the_remaining_grams() {
        let spool = Spool {
            id: Id::new(),
            code: "SM-7".into(),
            filament_id: Id::new(),
            purchase_price: Decimal::from(20),
            initial_net_weight_grams: Decimal::from(1000),
            purchase_lot: None,
            location: None,
            acquired_at: None,
            remaining_grams: Decimal::from(250),
            archived: false,
            created_at: Timestamp(1),
            updated_at: Timestamp(1),
        };
        let external = link(Authority::ExternalReadOnly);
        assert_eq!(remaining(&spool, Some(&external)), Decimal::new(4125, 1));
        assert_eq!(
            remaining(&spool, Some(&link(Authority::Native))),
            Decimal::from(250)
        );
        assert_eq!(remaining(&spool, None), Decimal::from(250));
        let unknown = SpoolLink {
            remote_remaining_grams: None,
            ..external
        };
        assert_eq!(remaining(&spool, Some(&unknown)), Decimal::ZERO);
    }

    #[test]
    fn a_link_is_stale_after_five_minutes_or_a_failed_sync() {
        let fresh = link(Authority::ExternalConsumption);
        assert!(!stale(&fresh, Timestamp(1_299)));
        assert!(stale(&fresh, Timestamp(1_300)));
        let failed = SpoolLink {
            sync_error: Some("INTEGRATION_UNAVAILABLE".into()),
            ..fresh.clone()
        };
        assert!(stale(&failed, Timestamp(1_001)));
        let never = SpoolLink {
            synced_at: None,
            ..fresh
        };
        assert!(stale(&never, Timestamp(901)));
    }
}
