//! Commands: the named writes of the appliance.
//!
//! A command is a message type defined beside the rules it applies (`ledger::BookMovement`,
//! `prints::RecordOutcome`, `series::SetState`, …). It carries validated data and its
//! [`Command::apply`] owns every rule the write needs: feature switches, immutability,
//! existence checks, the rules of other aggregates it moves. It names the writer that serializes
//! it ([`Command::Writer`], one of the markers below), so a command cannot be sent to the
//! wrong aggregate: the web crate sends it through the writers and maps the reply.
//!
//! Queries are the read side's counterpart: a [`Query`] runs in a read transaction (an MVCC
//! snapshot) with the print projection at hand, and owns the rules of the read (a feature switch,
//! a history scope, the minimum length of a search).

use crate::Result;
use crate::projection::PrintIndex;
use crate::txn::Txn;
use storage::ReadTransaction;
use storage::repo::Tx;

/// A named write, applied by the writer of its aggregate in a batch's transaction.
pub trait Command: Send + 'static {
    /// The writer that serializes this command (one of the markers below).
    type Writer: 'static;
    /// What the sender gets once the batch is durably committed.
    type Reply: Send + 'static;

    /// Applies the command in `txn`: checks its rules, writes, and returns the reply.
    ///
    /// A refused command's writes are discarded with the transaction and the rest of its batch
    /// is applied again in a fresh one, so `apply` may run more than once and must have no
    /// effect outside `txn`.
    ///
    /// Errors: the rule that refused it ([`crate::Error`]).
    fn apply(&mut self, txn: &Txn) -> Result<Self::Reply>;
}

/// What a query reads through: a read transaction (a consistent snapshot of the last commit)
/// and the print list projection.
pub struct Snapshot<'a> {
    /// The read transaction.
    pub txn: &'a ReadTransaction,
    /// The print list projection.
    pub index: &'a PrintIndex,
}

impl Tx for Snapshot<'_> {
    type Table<'a, K: redb::Key + 'static, V: redb::Value + 'static>
        = redb::ReadOnlyTable<K, V>
    where
        Self: 'a;

    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        def: redb::TableDefinition<K, V>,
    ) -> storage::Result<redb::ReadOnlyTable<K, V>> {
        self.txn.table(def)
    }
}

/// A named read with rules, run off the async executor in a [`Snapshot`].
pub trait Query: Send + 'static {
    /// The answer.
    type Answer: Send + 'static;

    /// Runs the query. Errors: the rule that refused it, or the store cannot be read.
    fn run(self, snapshot: &Snapshot<'_>) -> Result<Self::Answer>;
}

// The writers' markers: the aggregate a command belongs to, which `runtime::writer` routes to
// its writer actor.

/// The writer of settings, feature flags, accounts and sessions (and setup's demo data).
#[derive(Debug)]
pub enum SettingsWriter {}
/// The writer of customers, manufacturers, printers, components and filaments.
#[derive(Debug)]
pub enum InventoryWriter {}
/// The writer of prints: drafts, lifecycle, copies, outcomes and corrections (with the PRINT
/// movements they book on spools).
#[derive(Debug)]
pub enum PrintsWriter {}
/// The writer of print series.
#[derive(Debug)]
pub enum SeriesWriter {}
/// The writer of spools and their ledger movements.
#[derive(Debug)]
pub enum LedgerWriter {}

/// The aggregates, each serialized by a writer of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// [`SettingsWriter`].
    Settings,
    /// [`InventoryWriter`].
    Inventory,
    /// [`PrintsWriter`].
    Prints,
    /// [`SeriesWriter`].
    Series,
    /// [`LedgerWriter`].
    Ledger,
}

/// A writer marker: the aggregate whose writer a command is sent to.
pub trait Route: 'static {
    /// The aggregate.
    const WRITER: Aggregate;
}

impl Route for SettingsWriter {
    const WRITER: Aggregate = Aggregate::Settings;
}
impl Route for InventoryWriter {
    const WRITER: Aggregate = Aggregate::Inventory;
}
impl Route for PrintsWriter {
    const WRITER: Aggregate = Aggregate::Prints;
}
impl Route for SeriesWriter {
    const WRITER: Aggregate = Aggregate::Series;
}
impl Route for LedgerWriter {
    const WRITER: Aggregate = Aggregate::Ledger;
}
