//! The journal's read side: a page of entries, an export, the chain's check.
//!
//! Entries are appended by the writers, one per committed command (`runtime::writer`,
//! [`crate::txn::Txn::journal`]); their layout, hashing and check live in `storage::journal`.
//! Here are the queries the HTTP side and the command line run through the one read path, and
//! those of the pages that show a record's history and who made each movement of a spool.

use crate::Result;
use crate::command::{Query, Snapshot};
use crate::list::Page;
use std::collections::HashMap;
use storage::journal::{self, Filter, Stored, Verdict, Who};
use storage::records::Account;
use storage::repo;
use storage::{Id, hex};

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

/// A [`JournalPage`] with the display names of the accounts (the owner's journal page names
/// who made each entry, and offers the accounts as a filter).
#[derive(Debug, Clone)]
pub struct NamedPage(pub JournalPage);

impl Query for NamedPage {
    type Answer = (Page<Stored>, HashMap<Id, String>);

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Self::Answer> {
        Ok((self.0.run(snapshot)?, account_names(snapshot)?))
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

/// A record's history as its page shows it: its newest entries (at most `limit`), with the
/// display names of the accounts that made them.
#[derive(Debug, Clone)]
pub struct RecordHistory {
    /// The record's id as the journal names it.
    pub id: String,
    /// At most this many entries.
    pub limit: u32,
}

/// Entries with the names of the accounts they name.
#[derive(Debug, Clone, Default)]
pub struct Authored {
    /// The entries, newest first.
    pub entries: Vec<Stored>,
    /// Each account's display name (accounts are never deleted: every id has one).
    pub names: HashMap<Id, String>,
}

fn account_names(snapshot: &Snapshot<'_>) -> Result<HashMap<Id, String>> {
    let mut names = HashMap::new();
    repo::for_each::<Account>(snapshot, |a| {
        names.insert(a.id, a.display_name);
    })?;
    Ok(names)
}

impl Query for RecordHistory {
    type Answer = Authored;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Authored> {
        let filter = Filter {
            record: Some(self.id),
            ..Filter::default()
        };
        let (entries, _) = journal::page(snapshot.txn, &filter, 0, self.limit as usize)?;
        Ok(Authored {
            entries,
            names: account_names(snapshot)?,
        })
    }
}

/// Who made each of `ids` (records the journal names, such as a spool's movements): the entry
/// that created it, if the journal holds one (records older than the journal have none).
#[derive(Debug, Clone)]
pub struct Creators {
    /// The records' ids.
    pub ids: Vec<String>,
}

/// [`Creators`]' answer: each id's creating entry's author, and the accounts' names.
#[derive(Debug, Clone, Default)]
pub struct Created {
    /// Who created each record.
    pub by: HashMap<String, Who>,
    /// Each account's display name.
    pub names: HashMap<Id, String>,
}

impl Query for Creators {
    type Answer = Created;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Created> {
        let mut by = HashMap::new();
        for id in self.ids {
            if let Some(who) = journal::creator(snapshot.txn, &id)? {
                by.insert(id, who);
            }
        }
        Ok(Created {
            by,
            names: account_names(snapshot)?,
        })
    }
}
