//! The journal's read side: a page of entries, an export, the chain's check.
//!
//! Entries are appended by the writers, one per committed command (`runtime::writer`,
//! [`crate::txn::Txn::journal`]); their layout, hashing and check live in `storage::journal`.
//! Here are the queries the HTTP side and the command line run through the one read path.

use crate::Result;
use crate::command::{Query, Snapshot};
use crate::list::Page;
use storage::hex;
use storage::journal::{self, Filter, Stored, Verdict};

/// A page of the journal, newest first: `page` (one-based) of `page_size` entries that `filter`
/// admits.
#[derive(Debug, Clone)]
pub struct JournalPage {
    /// Which entries.
    pub filter: Filter,
    /// One-based page number.
    pub page: u32,
    /// Entries per page.
    pub page_size: u32,
}

impl Query for JournalPage {
    type Answer = Page<Stored>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Page<Stored>> {
        let skip = (self.page.saturating_sub(1) as usize).saturating_mul(self.page_size as usize);
        let (items, total) =
            journal::page(snapshot.txn, &self.filter, skip, self.page_size as usize)?;
        Ok(Page {
            items,
            total,
            page: self.page,
            page_size: self.page_size,
        })
    }
}

/// The entries of a time range, oldest first, with the chain's head (number and hash) at the
/// moment of the export: what a tax auditor is handed.
#[derive(Debug, Clone)]
pub struct JournalExport {
    /// At or after (none: from the first entry).
    pub since: Option<jiff::Timestamp>,
    /// Before (none: up to the last).
    pub until: Option<jiff::Timestamp>,
}

/// What [`JournalExport`] answers.
#[derive(Debug, Clone)]
pub struct Export {
    /// The entries, oldest first.
    pub entries: Vec<Stored>,
    /// The number of the journal's last entry.
    pub head_seq: u64,
    /// Its hash, lower-case hex.
    pub head_hash: String,
}

impl Query for JournalExport {
    type Answer = Export;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Export> {
        let entries = journal::range(snapshot.txn, self.since, self.until)?;
        let (head_seq, head_hash) = journal::head(snapshot.txn)?;
        Ok(Export {
            entries,
            head_seq,
            head_hash: hex(&head_hash),
        })
    }
}

/// Checks the chain ([`journal::verify`]).
#[derive(Debug, Clone, Copy)]
pub struct VerifyJournal;

impl Query for VerifyJournal {
    type Answer = Verdict;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Verdict> {
        Ok(journal::verify(snapshot.txn)?)
    }
}
