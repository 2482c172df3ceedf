//! Consumption sent to the spool manager as operations (docs/api-contract.md, "Integrations").
//!
//! `PUT /use` adds whatever it is sent, so an operation is sent at most once unless a person
//! says otherwise:
//! - operations are made only inside the transaction that records an outcome or a correction,
//!   one per usage and outcome revision (`ledger::remote::consume`); a correction's is its delta;
//! - a sender claims an operation (`PENDING → SENDING`) in a transaction of its own before the
//!   request ([`ClaimOperation`]), so two senders never both send it;
//! - the answer settles it ([`SettleOperation`]): 2xx → `APPLIED`, a 4xx → `FAILED`, no answer
//!   → `UNKNOWN`; a connection never made, or a refused credential, puts it back to `PENDING`;
//! - `UNKNOWN` and `FAILED` are never resent by themselves: [`ConfirmOperation`] closes them
//!   (`CONFIRM_APPLIED`) or makes them `PENDING` again (`CONFIRM_NOT_APPLIED`);
//! - an operation found `SENDING` when the appliance starts is `UNKNOWN` ([`RecoverSending`]).

use super::import;
use super::settings::{Integration, require_enabled};
use super::spoolmgr::RemoteSpool;
use crate::command::LedgerWriter;
use crate::command::{Command, Query, Snapshot};
use crate::txn::Txn;
use crate::{Error, Result};
use storage::records::{OperationState, SpoolmgrOperation};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// Operations `GET /api/integrations/spoolmgr` lists, newest first.
pub const LATEST: usize = 50;

/// The operation `id`. Errors: [`Error::NotFound`].
pub fn get(tx: &impl Tx, id: Id) -> Result<SpoolmgrOperation> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// What happens to an operation.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A sender claims it to send it now.
    Claim,
    /// Its request came out so.
    Sent(&'a Sent),
    /// A person says it was applied (`true`) or not.
    Confirmed(bool),
    /// The appliance stopped while it was being sent.
    Interrupted,
}

/// The one transition table of operation states: the state `event` takes an operation in
/// `state` to. `PENDING → SENDING` on a claim; a sent one becomes `APPLIED` (2xx), `FAILED` (4xx),
/// `UNKNOWN` (no answer: it may have been applied) or `PENDING` again (certainly not sent); a
/// person's word moves `UNKNOWN` or `FAILED` to `APPLIED` or back to `PENDING`; an interrupted
/// send is `UNKNOWN`. A claim of an `APPLIED` operation, and a word that repeats the state it
/// set, leave the state as it is.
///
/// Errors: [`Error::IntegrationConflict`] for every other pair (a claim of a `SENDING`,
/// `UNKNOWN` or `FAILED` one, a word on one being sent, …).
pub fn on(state: OperationState, event: Event<'_>) -> Result<OperationState> {
    use OperationState::{Applied, Failed, Pending, Sending, Unknown};
    match (state, event) {
        (Pending, Event::Claim) => Ok(Sending),
        (Applied, Event::Claim) => Ok(Applied),
        (Sending, Event::Sent(sent)) => Ok(match sent {
            Sent::Applied(_) => Applied,
            Sent::Refused(_) => Failed,
            Sent::Unknown(_) => Unknown,
            Sent::NotSent(_) => Pending,
        }),
        (Unknown | Failed, Event::Confirmed(true)) | (Applied, Event::Confirmed(true)) => {
            Ok(Applied)
        }
        (Unknown | Failed, Event::Confirmed(false)) | (Pending, Event::Confirmed(false)) => {
            Ok(Pending)
        }
        (Sending, Event::Interrupted) => Ok(Unknown),
        _ => Err(Error::IntegrationConflict),
    }
}

fn store(
    txn: &Txn,
    mut op: SpoolmgrOperation,
    state: OperationState,
    error: Option<String>,
) -> Result<SpoolmgrOperation> {
    op.state = state;
    op.error = error;
    op.updated_at = Timestamp::now();
    repo::put(txn, &op)?;
    Ok(op)
}

/// The latest [`LATEST`] operations, newest first. Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct LatestOperations;

impl Query for LatestOperations {
    type Answer = Vec<SpoolmgrOperation>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<SpoolmgrOperation>> {
        Ok(repo::newest(snapshot, LATEST)?)
    }
}

/// The ids of the `PENDING` operations, oldest first (what the timer sends).
/// Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct PendingOperations;

impl Query for PendingOperations {
    type Answer = Vec<Id>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<Id>> {
        let mut ids = Vec::new();
        repo::for_each::<SpoolmgrOperation>(snapshot, |op| {
            if op.state == OperationState::Pending {
                ids.push(op.id);
            }
        })?;
        Ok(ids)
    }
}

/// What a claim found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// Claimed (`PENDING → SENDING`): this sender, and no other, sends it now.
    Send(SpoolmgrOperation),
    /// Already `APPLIED`: nothing to send.
    Applied,
}

/// Claims a `PENDING` operation for sending. Errors: [`Error::NotFound`];
/// [`Error::IntegrationConflict`] when it is `SENDING` (another sender has it), `UNKNOWN` or
/// `FAILED` (a person must confirm it first).
#[derive(Debug, Clone, Copy)]
pub struct ClaimOperation(pub Id);

impl Command for ClaimOperation {
    type Writer = LedgerWriter;
    type Reply = Claim;

    fn apply(&mut self, txn: &Txn) -> Result<Claim> {
        let op = get(txn, self.0)?;
        match on(op.state, Event::Claim)? {
            OperationState::Applied => Ok(Claim::Applied),
            state => Ok(Claim::Send(store(txn, op, state, None)?)),
        }
    }
}

/// How a sent operation came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// 2xx: applied; the remote spool as it now is, when the answer showed it.
    Applied(Option<Box<RemoteSpool>>),
    /// Refused with this 4xx: not applied.
    Refused(u16),
    /// No answer (a timeout, a dropped connection, a 5xx): it may have been applied. The error
    /// code is stored.
    Unknown(&'static str),
    /// Certainly not sent (the connection was never made, or the credential was refused): back to
    /// `PENDING`, with the error code stored.
    NotSent(&'static str),
}

/// Settles a claimed (`SENDING`) operation with how its request came out; an applied one also
/// refreshes its spool's link from the answer. Errors: [`Error::NotFound`];
/// [`Error::IntegrationConflict`] when it is not `SENDING`.
#[derive(Debug, Clone)]
pub struct SettleOperation {
    /// The operation.
    pub id: Id,
    /// How it came out.
    pub sent: Sent,
}

impl Command for SettleOperation {
    type Writer = LedgerWriter;
    type Reply = SpoolmgrOperation;

    fn apply(&mut self, txn: &Txn) -> Result<SpoolmgrOperation> {
        let op = get(txn, self.id)?;
        let state = on(op.state, Event::Sent(&self.sent))?;
        let error = match &self.sent {
            Sent::Applied(fetched) => {
                if let Some(fetched) = fetched {
                    import::refresh(txn, op.spool_id, Ok(Some(fetched.as_ref())))?;
                }
                None
            }
            Sent::Refused(status) => Some(format!("HTTP {status}")),
            Sent::Unknown(code) | Sent::NotSent(code) => Some((*code).to_string()),
        };
        store(txn, op, state, error)
    }
}

/// A person's word on an `UNKNOWN` or `FAILED` operation: applied after all (it becomes
/// `APPLIED`), or not applied (it becomes `PENDING` and will be sent). Repeating the word is
/// answered as done. Errors: as [`require_enabled`]; [`Error::NotFound`];
/// [`Error::IntegrationConflict`] for an operation in another state.
#[derive(Debug, Clone, Copy)]
pub struct ConfirmOperation {
    /// The operation.
    pub id: Id,
    /// True: it was applied.
    pub applied: bool,
}

impl Command for ConfirmOperation {
    type Writer = LedgerWriter;
    type Reply = SpoolmgrOperation;

    fn apply(&mut self, txn: &Txn) -> Result<SpoolmgrOperation> {
        require_enabled(txn, Integration::Spoolmgr)?;
        let op = get(txn, self.id)?;
        match on(op.state, Event::Confirmed(self.applied))? {
            state if state == op.state => Ok(op),
            state => store(txn, op, state, None),
        }
    }
}

/// Marks every operation left `SENDING` (the appliance stopped mid-request) `UNKNOWN`; replies
/// with how many. Errors: the store cannot be written.
#[derive(Debug, Clone, Copy)]
pub struct RecoverSending;

impl Command for RecoverSending {
    type Writer = LedgerWriter;
    type Reply = usize;

    fn apply(&mut self, txn: &Txn) -> Result<usize> {
        let mut stuck = Vec::new();
        repo::for_each::<SpoolmgrOperation>(txn, |op| {
            if op.state == OperationState::Sending {
                stuck.push(op);
            }
        })?;
        let n = stuck.len();
        for op in stuck {
            let state = on(op.state, Event::Interrupted)?;
            store(txn, op, state, Some("INTERRUPTED".into()))?;
        }
        Ok(n)
    }
}

/// Operation `.0` as it now is. Errors: [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct GetOperation(pub Id);

impl Query for GetOperation {
    type Answer = SpoolmgrOperation;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<SpoolmgrOperation> {
        get(snapshot, self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use OperationState::{Applied, Failed, Pending, Sending, Unknown};

    const STATES: [OperationState; 5] = [Pending, Sending, Applied, Unknown, Failed];

    /// Every pair of the table: the allowed moves, and a conflict for the rest.
    #[test]
    fn the_table_allows_exactly_the_documented_moves() {
        let sent = [
            (Sent::Applied(None), Applied),
            (Sent::Refused(409), Failed),
            (Sent::Unknown("TIMEOUT"), Unknown),
            (Sent::NotSent("CONNECTION_REFUSED"), Pending),
        ];
        for state in STATES {
            let claim = on(state, Event::Claim).ok();
            let expected = match state {
                Pending => Some(Sending),
                Applied => Some(Applied),
                _ => None,
            };
            assert_eq!(claim, expected, "claim of {state:?}");
            for (outcome, to) in &sent {
                let moved = on(state, Event::Sent(outcome)).ok();
                assert_eq!(
                    moved,
                    (state == Sending).then_some(*to),
                    "{outcome:?} on {state:?}"
                );
            }
            for applied in [true, false] {
                let moved = on(state, Event::Confirmed(applied)).ok();
                let expected = match (state, applied) {
                    (Unknown | Failed | Applied, true) => Some(Applied),
                    (Unknown | Failed | Pending, false) => Some(Pending),
                    _ => None,
                };
                assert_eq!(moved, expected, "confirmed {applied} on {state:?}");
            }
            let interrupted = on(state, Event::Interrupted).ok();
            assert_eq!(interrupted, (state == Sending).then_some(Unknown));
        }
    }
}
