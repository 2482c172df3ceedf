//! The journal: an append-only, hash-chained record of every committed change.
//!
//! Every command that changes the shop appends one [`Entry`] in the same write transaction as
//! its change (so an entry exists exactly when its command committed): when (UTC and the shop's
//! time), who ([`Who`]: an account, or a part of the appliance acting on its own), what (the
//! command's name) and the records it touched with the fields that changed before and after
//! ([`Touched`], made by [`crate::WriteTxn::take_changes`]; secrets only say "changed").
//!
//! Layout: `JOURNAL` maps the entry's sequence number (1, 2, …, no gaps) to the entry's SHA-256
//! (32 bytes) followed by its canonical encoding: compact JSON (RFC 8259) of [`Entry`], its
//! members in the order declared below, no white space. An entry holds the hash of the one before
//! it (`prev`; 64 zeros for the first), and key 0 the head (the last entry's number and hash), so
//! [`verify`] finds an entry whose bytes changed (its hash), a broken link, a missing entry (a
//! gap, or a tail shorter than the head) and an unreadable one, and names the first. Entries are
//! never changed or removed: this module has no function that would. `JOURNAL_INDEX` finds the
//! entries of a touched record and of an account. Two trees, both written once per batch: a
//! durable commit writes every page a batch dirtied, so each more tree costs each booking.
//!
//! An auditor checks an export without this code: SHA-256 of each entry's `canonical` text is
//! its `hash`, and equals the next entry's `prev` (docs/journal.md).

use crate::repo::Tx;
use crate::store::side_builder;
pub use crate::write::{Change, FieldChange, Touched};
use crate::{Error, Id, Result, WriteTxn, hex, tables};
use redb::{ReadTransaction, ReadableTable};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Who made a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Who {
    /// A signed-in account (`{"account": "<uuid>"}`).
    Account(Id),
    /// A part of the appliance acting on its own (`{"system": "spoolman"}`): a background round
    /// (`spoolman`, `bambuddy`), the backup `scheduler`, the `meters` recorder, the `alerts`
    /// engine, a command-line tool (`cli`), or a request without a session (`web`: setup, login).
    System(String),
}

/// One entry of the journal, as encoded and hashed (member order is the canonical order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Its number: 1 for the first, then one more than the one before.
    pub seq: u64,
    /// The SHA-256 of the entry before it, in lower-case hex (64 zeros for the first).
    pub prev: String,
    /// When its command committed, UTC, RFC 3339 with milliseconds (`2026-11-28T12:00:00.000Z`).
    pub at: String,
    /// The same moment in the shop's time zone, RFC 3339 with its offset.
    pub local: String,
    /// Who made the change.
    pub who: Who,
    /// The command's name (`BookMovement`, `CreateRecord<Customer>`).
    pub command: String,
    /// The records it touched.
    pub records: Vec<Touched>,
}

/// An entry as read back: the entry, its hash, and its canonical encoding.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The entry.
    pub entry: Entry,
    /// Its SHA-256 as stored, lower-case hex.
    pub hash: String,
    /// Its canonical encoding, the bytes the hash is taken over.
    pub canonical: String,
}

/// What a new entry says beyond what the chain gives it.
#[derive(Debug, Clone)]
pub struct Draft {
    /// When, UTC.
    pub at: jiff::Timestamp,
    /// The shop's time zone.
    pub time_zone: jiff::tz::TimeZone,
    /// Who.
    pub who: Who,
    /// The command's name.
    pub command: String,
    /// The records it touched (none: nothing is appended).
    pub records: Vec<Touched>,
}

/// The hash before the first entry.
pub const GENESIS: [u8; 32] = [0; 32];
/// The key of the head in `JOURNAL` (entries are numbered from 1).
const HEAD_KEY: u64 = 0;

/// The last entry's number and hash (`(0, GENESIS)` while the journal is empty).
pub fn head(tx: &impl Tx) -> Result<(u64, [u8; 32])> {
    let table = tx.table(tables::JOURNAL)?;
    let found = table.get(HEAD_KEY)?;
    Ok(found
        .and_then(|v| read_head(v.value()))
        .unwrap_or((0, GENESIS)))
}

/// The head's stored form: the number (big-endian) and the hash.
fn head_value(seq: u64, hash: &[u8; 32]) -> [u8; 40] {
    let mut value = [0; 40];
    value[..8].copy_from_slice(&seq.to_be_bytes());
    value[8..].copy_from_slice(hash);
    value
}

fn read_head(value: &[u8]) -> Option<(u64, [u8; 32])> {
    let seq = u64::from_be_bytes(value.get(..8)?.try_into().ok()?);
    Some((seq, value.get(8..40)?.try_into().ok()?))
}

/// The index key of the entries account `id` made.
fn account_key(id: Id) -> String {
    format!("account:{id}")
}

/// Appends `draft` as the next entry, in `tx`; returns its number (`None`: it touched nothing,
/// and nothing is appended).
///
/// Errors: the store fails; the journal holds `u64::MAX` entries.
pub fn append(tx: &WriteTxn, draft: Draft) -> Result<Option<u64>> {
    Ok(append_all(tx, vec![draft])?.pop())
}

/// Appends `drafts` in order as the next entries, in `tx`, opening the journal's tables once (a
/// writer's batch appends all of its commands' entries at its commit); returns their numbers.
/// A draft that touched nothing is left out.
///
/// Errors: the store fails; the journal holds `u64::MAX` entries.
pub fn append_all(tx: &WriteTxn, drafts: Vec<Draft>) -> Result<Vec<u64>> {
    let drafts: Vec<Draft> = drafts
        .into_iter()
        .filter(|d| !d.records.is_empty())
        .collect();
    if drafts.is_empty() {
        return Ok(Vec::new());
    }
    let (mut last, mut prev) = head(tx)?;
    let mut journal = tx.open_table(tables::JOURNAL)?;
    let mut index = tx.open_table(tables::JOURNAL_INDEX)?;
    let mut appended = Vec::with_capacity(drafts.len());
    for draft in drafts {
        let seq = last
            .checked_add(1)
            .ok_or_else(|| Error::Database("the journal is full".into()))?;
        let entry = Entry {
            seq,
            prev: hex(&prev),
            at: format!("{}", draft.at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")),
            local: draft
                .at
                .to_zoned(draft.time_zone)
                .strftime("%Y-%m-%dT%H:%M:%S%.3f%:z")
                .to_string(),
            who: draft.who,
            command: draft.command,
            records: draft.records,
        };
        let canonical = serde_json::to_vec(&entry)
            .map_err(|e| Error::Database(format!("a journal entry: {e}")))?;
        let hash: [u8; 32] = Sha256::digest(&canonical).into();
        let mut value = Vec::with_capacity(32 + canonical.len());
        value.extend_from_slice(&hash);
        value.extend_from_slice(&canonical);
        journal.insert(seq, value.as_slice())?;
        for touched in &entry.records {
            index.insert((touched.id.as_str(), seq), ())?;
        }
        if let Who::Account(account) = entry.who {
            index.insert((account_key(account).as_str(), seq), ())?;
        }
        (last, prev) = (seq, hash);
        appended.push(seq);
    }
    journal.insert(HEAD_KEY, head_value(last, &prev).as_slice())?;
    Ok(appended)
}

/// Splits a stored value into its hash and canonical bytes; `None` when it is too short.
fn split(value: &[u8]) -> Option<([u8; 32], &[u8])> {
    let hash = value.get(..32)?.try_into().ok()?;
    Some((hash, &value[32..]))
}

/// Reads the stored value of entry `seq`. Errors: it is unreadable ([`Error::Codec`]).
fn read(seq: u64, value: &[u8]) -> Result<Stored> {
    let unreadable = || Error::Codec {
        table: "journal",
        message: format!("entry {seq} cannot be read"),
    };
    let (hash, canonical) = split(value).ok_or_else(unreadable)?;
    let entry: Entry = serde_json::from_slice(canonical).map_err(|_| unreadable())?;
    let canonical = String::from_utf8(canonical.to_vec()).map_err(|_| unreadable())?;
    Ok(Stored {
        entry,
        hash: hex(&hash),
        canonical,
    })
}

/// The numbers of the entries `key` indexes, newest first.
fn indexed(tx: &ReadTransaction, key: &str) -> Result<Vec<u64>> {
    let index = tx.open_table(tables::JOURNAL_INDEX)?;
    let mut seqs = Vec::new();
    for row in index.range((key, 0)..=(key, u64::MAX))?.rev() {
        seqs.push(row?.0.value().1);
    }
    Ok(seqs)
}

/// Which entries a page holds.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only entries that touched this record id.
    pub record: Option<String>,
    /// Only entries made by this account.
    pub account: Option<Id>,
    /// Only entries that touched a record of this kind.
    pub kind: Option<String>,
    /// Only entries at or after this moment.
    pub since: Option<jiff::Timestamp>,
    /// Only entries before this moment.
    pub until: Option<jiff::Timestamp>,
}

impl Filter {
    fn is_empty(&self) -> bool {
        self.record.is_none()
            && self.account.is_none()
            && self.kind.is_none()
            && self.since.is_none()
            && self.until.is_none()
    }

    fn admits(&self, entry: &Entry) -> bool {
        let at = entry.at.parse::<jiff::Timestamp>().ok();
        self.kind
            .as_ref()
            .is_none_or(|k| entry.records.iter().any(|r| &r.kind == k))
            && self
                .record
                .as_ref()
                .is_none_or(|id| entry.records.iter().any(|r| &r.id == id))
            && self.account.is_none_or(|a| entry.who == Who::Account(a))
            && self.since.is_none_or(|s| at.is_some_and(|at| at >= s))
            && self.until.is_none_or(|u| at.is_some_and(|at| at < u))
    }

    /// True when no entry older than `entry` can be admitted (the time window is behind).
    fn passed(&self, entry: &Entry) -> bool {
        let at = entry.at.parse::<jiff::Timestamp>().ok();
        self.since.is_some_and(|s| at.is_some_and(|at| at < s))
    }
}

/// The entries `filter` admits, newest first: `take` of them after skipping `skip`, and how many
/// it admits in all.
///
/// Errors: an entry cannot be read ([`Error::Codec`]), or the store fails.
pub fn page(
    tx: &ReadTransaction,
    filter: &Filter,
    skip: usize,
    take: usize,
) -> Result<(Vec<Stored>, u64)> {
    let journal = tx.open_table(tables::JOURNAL)?;
    if filter.is_empty() {
        // Every entry: the page alone is read, the total is the head's number.
        let mut out = Vec::with_capacity(take.min(100));
        for row in journal.range(1..)?.rev().skip(skip).take(take) {
            let (seq, value) = row?;
            out.push(read(seq.value(), value.value())?);
        }
        return Ok((out, head(tx)?.0));
    }
    // Candidates newest first: the index of a record or of an account, or the whole journal.
    let candidates: Vec<u64> = match (&filter.record, filter.account) {
        (Some(id), _) => indexed(tx, id)?,
        (None, Some(account)) => indexed(tx, &account_key(account))?,
        (None, None) => {
            let mut all = Vec::new();
            for row in journal.range(1..)?.rev() {
                all.push(row?.0.value());
            }
            all
        }
    };
    let mut out = Vec::new();
    let mut total = 0;
    for seq in candidates {
        let Some(value) = journal.get(seq)? else {
            continue;
        };
        let stored = read(seq, value.value())?;
        if filter.passed(&stored.entry) {
            break;
        }
        if filter.admits(&stored.entry) {
            if total >= skip as u64 && out.len() < take {
                out.push(stored);
            }
            total += 1;
        }
    }
    Ok((out, total))
}

/// Who made the first entry that touched record `id` (the one that created it, for a record
/// the journal saw created); `None` when no entry names it.
///
/// Errors: the entry cannot be read, or the store fails.
pub fn creator(tx: &ReadTransaction, id: &str) -> Result<Option<Who>> {
    let index = tx.open_table(tables::JOURNAL_INDEX)?;
    let Some(first) = index.range((id, 0)..=(id, u64::MAX))?.next().transpose()? else {
        return Ok(None);
    };
    let seq = first.0.value().1;
    let journal = tx.open_table(tables::JOURNAL)?;
    let Some(value) = journal.get(seq)? else {
        return Ok(None);
    };
    Ok(Some(read(seq, value.value())?.entry.who))
}

/// The entries at or after `since` and before `until`, oldest first (an export).
///
/// Errors: as [`page`].
pub fn range(
    tx: &impl Tx,
    since: Option<jiff::Timestamp>,
    until: Option<jiff::Timestamp>,
) -> Result<Vec<Stored>> {
    let filter = Filter {
        since,
        until,
        ..Filter::default()
    };
    let journal = tx.table(tables::JOURNAL)?;
    let mut out = Vec::new();
    for row in journal.range(1..)? {
        let (seq, value) = row?;
        let stored = read(seq.value(), value.value())?;
        if filter.admits(&stored.entry) {
            out.push(stored);
        }
    }
    Ok(out)
}

/// How many entries the journal holds (the head's number).
pub fn count(tx: &impl Tx) -> Result<u64> {
    Ok(head(tx)?.0)
}

/// What [`verify`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every entry is whole and linked; the last one's number and hash (hex).
    Intact {
        /// How many entries.
        entries: u64,
        /// The head's hash, lower-case hex.
        head: String,
    },
    /// The first broken entry and what is wrong with it.
    Broken {
        /// Its number.
        seq: u64,
        /// What is wrong, in English.
        reason: String,
    },
}

/// Checks the whole chain, oldest first: each entry readable and numbered in turn, its bytes
/// hashing to its stored hash, its `prev` the hash of the entry before it, and the last one the
/// head. Names the first entry that is not.
///
/// Errors: the store fails.
pub fn verify(tx: &impl Tx) -> Result<Verdict> {
    let journal = tx.table(tables::JOURNAL)?;
    let broken = |seq: u64, reason: String| Ok(Verdict::Broken { seq, reason });
    let mut expected = 1;
    let mut prev = GENESIS;
    for row in journal.range(1..)? {
        let (key, value) = row?;
        let seq = key.value();
        if seq != expected {
            return broken(expected, format!("entry {expected} is missing"));
        }
        let Some((stored, canonical)) = split(value.value()) else {
            return broken(seq, format!("entry {seq} cannot be read"));
        };
        let hash: [u8; 32] = Sha256::digest(canonical).into();
        if hash != stored {
            return broken(
                seq,
                format!("entry {seq} was changed (its hash does not match its bytes)"),
            );
        }
        let Ok(entry) = serde_json::from_slice::<Entry>(canonical) else {
            return broken(seq, format!("entry {seq} cannot be read"));
        };
        if entry.seq != seq {
            return broken(seq, format!("entry {seq} carries the number {}", entry.seq));
        }
        if entry.prev != hex(&prev) {
            return broken(
                seq,
                format!("entry {seq} does not link to entry {}", seq - 1),
            );
        }
        prev = hash;
        expected += 1;
    }
    let (head_seq, head_hash) = head(tx)?;
    let last = expected - 1;
    if head_seq > last {
        return broken(
            last + 1,
            format!(
                "entry {} is missing (the journal ends at {last}, its head names {head_seq})",
                last + 1
            ),
        );
    }
    if head_seq != last || head_hash != prev {
        return broken(
            last,
            format!("entry {last} is not the head the journal names"),
        );
    }
    Ok(Verdict::Intact {
        entries: last,
        head: hex(&prev),
    })
}

/// Checks the chain of the database file at `path` without writing to it ([`verify`]), through
/// the side databases' page cache (`store::SIDE_CACHE_BYTES`) whatever the file's size (redb's
/// default would be 1 GiB); `None` when another process (a running service) holds the file. A
/// file written by a build before the journal (schema 13 or older) has an empty, intact journal.
///
/// Errors: the file cannot be read as a database (a file whose last writer was killed is
/// refused as needing repair: open it as a store first, which repairs it).
pub fn verify_file(path: &std::path::Path) -> Result<Option<Verdict>> {
    let db = match side_builder().open_read_only(path) {
        Ok(db) => db,
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let txn = redb::ReadableDatabase::begin_read(&db)?;
    match txn.open_table(tables::JOURNAL) {
        Err(redb::TableError::TableDoesNotExist(_)) => {
            return Ok(Some(Verdict::Intact {
                entries: 0,
                head: hex(&GENESIS),
            }));
        }
        Err(e) => return Err(e.into()),
        Ok(_) => {}
    }
    verify(&txn).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Store, StoreOptions};

    fn draft(n: usize) -> Draft {
        Draft {
            at: jiff::Timestamp::from_second(1_800_000_000 + n as i64).unwrap(),
            time_zone: jiff::tz::TimeZone::UTC,
            who: Who::System("test".into()),
            command: format!("Command{n}"),
            records: vec![Touched {
                kind: "customers".into(),
                id: format!("c{n}"),
                change: Change::Created,
                fields: Vec::new(),
            }],
        }
    }

    /// A store with `n` entries.
    fn journal_of(n: usize) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        for k in 1..=n {
            let txn = store.begin_write().unwrap();
            assert_eq!(append(&txn, draft(k)).unwrap(), Some(k as u64));
            txn.commit().unwrap();
        }
        (dir, store)
    }

    fn verdict(store: &Store) -> Verdict {
        verify(&store.begin_read().unwrap()).unwrap()
    }

    fn remove_entry(store: &Store, seq: u64) {
        let txn = store.begin_write().unwrap();
        txn.open_table(tables::JOURNAL)
            .unwrap()
            .remove(seq)
            .unwrap();
        txn.commit().unwrap();
    }

    #[test]
    fn an_intact_chain_names_its_head_and_an_entry_that_touched_nothing_is_not_appended() {
        let (_dir, store) = journal_of(3);
        let (seq, hash) = head(&store.begin_read().unwrap()).unwrap();
        assert_eq!(
            verdict(&store),
            Verdict::Intact {
                entries: 3,
                head: hex(&hash)
            }
        );
        assert_eq!(seq, 3);
        let txn = store.begin_write().unwrap();
        let mut empty = draft(4);
        empty.records.clear();
        assert_eq!(append(&txn, empty).unwrap(), None);
    }

    #[test]
    fn a_missing_entry_in_the_middle_or_at_the_end_is_named() {
        let (_dir, store) = journal_of(4);
        remove_entry(&store, 2);
        assert!(
            matches!(verdict(&store), Verdict::Broken { seq: 2, reason } if reason.contains("missing"))
        );
        let (_dir, store) = journal_of(4);
        remove_entry(&store, 4);
        assert!(
            matches!(verdict(&store), Verdict::Broken { seq: 4, reason } if reason.contains("missing"))
        );
    }

    #[test]
    fn an_entry_rewritten_with_a_fresh_hash_breaks_the_next_ones_link() {
        let (_dir, store) = journal_of(3);
        let txn = store.begin_write().unwrap();
        {
            let mut table = txn.open_table(tables::JOURNAL).unwrap();
            let value = table.get(2).unwrap().unwrap().value().to_vec();
            let text = String::from_utf8(value[32..].to_vec())
                .unwrap()
                .replace("Command2", "Command9");
            let hash: [u8; 32] = Sha256::digest(text.as_bytes()).into();
            let forged = [hash.as_slice(), text.as_bytes()].concat();
            table.insert(2, forged.as_slice()).unwrap();
        }
        txn.commit().unwrap();
        assert!(
            matches!(verdict(&store), Verdict::Broken { seq: 3, reason } if reason.contains("does not link"))
        );
    }
}
