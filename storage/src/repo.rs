//! Typed repositories. Every function takes the caller's transaction, so a command can read and
//! write several aggregates atomically.
//!
//! [`Tx`] abstracts over read and write transactions for the read side; functions that change
//! data take a [`WriteTransaction`].

use crate::records::{
    Account, AlertSettings, BackupSchedule, Charge, Company, Component, Customer, Filament,
    Integrations, Invoice, LabourRate, LogLink, MaintenanceTask, Manufacturer, MeterHour,
    MeterLink, Movement, Numbering, PostProcessingStep, Pricing, Print, PrintSource, Printer,
    PrinterLink, Quote, Series, Session, Settings, Spool, SpoolLink, SpoolmgrOperation,
    StandingAlerts, Wear,
};
use crate::{Error, Id, Result, Timestamp, WriteTxn, decode, encode};
use crate::{hex, tables, write};
use redb::{
    Key, ReadOnlyTable, ReadTransaction, ReadableMultimapTable, ReadableTable,
    ReadableTableMetadata, Table, TableDefinition, Value, WriteTransaction,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::ops::ControlFlow;

/// A transaction tables can be read through: a [`ReadTransaction`] (MVCC snapshot) or a
/// [`WriteTransaction`] (sees its own uncommitted writes).
pub trait Tx {
    /// The table handle this transaction opens.
    type Table<'a, K: Key + 'static, V: Value + 'static>: ReadableTable<K, V>
    where
        Self: 'a;

    /// Opens `def` for reading. Errors: the table is missing or already open in this transaction.
    fn table<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<Self::Table<'_, K, V>>;
}

impl Tx for ReadTransaction {
    type Table<'a, K: Key + 'static, V: Value + 'static> = ReadOnlyTable<K, V>;

    fn table<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<ReadOnlyTable<K, V>> {
        Ok(self.open_table(def)?)
    }
}

impl Tx for WriteTxn {
    type Table<'a, K: Key + 'static, V: Value + 'static> = Table<'a, K, V>;

    fn table<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<Table<'_, K, V>> {
        Ok(self.open_table(def)?)
    }
}

impl Tx for WriteTransaction {
    type Table<'a, K: Key + 'static, V: Value + 'static> = Table<'a, K, V>;

    fn table<K: Key + 'static, V: Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<Table<'_, K, V>> {
        Ok(self.open_table(def)?)
    }
}

/// A record stored in its own table under its 16-byte id.
///
/// The records it refers to ([`Record::references`]) are the one place the safe delete is
/// derived from: [`put`] and [`remove`] keep the `references` edges in step with them, so a
/// record that any other record refers to answers [`is_referenced`], whichever command wrote
/// the referrer.
pub trait Record: Serialize + DeserializeOwned {
    /// Its table.
    const TABLE: TableDefinition<'static, [u8; 16], &'static [u8]>;
    /// The table's name, for error messages.
    const NAME: &'static str;
    /// Whether records of this kind refer to others (so [`put`] reads what it replaces).
    const REFERS: bool = false;
    /// Its id.
    fn id(&self) -> Id;
    /// The records this one refers to, sorted and without repeats (none unless
    /// [`Record::REFERS`]): none of them can be deleted while this one exists.
    fn references(&self) -> Vec<Id> {
        Vec::new()
    }
}

macro_rules! record {
    ($t:ty, $table:ident, $name:literal) => {
        impl Record for $t {
            const TABLE: TableDefinition<'static, [u8; 16], &'static [u8]> = tables::$table;
            const NAME: &'static str = $name;
            fn id(&self) -> Id {
                self.id
            }
        }
    };
    ($t:ty, $table:ident, $name:literal, |$r:ident| $refs:expr) => {
        impl Record for $t {
            const TABLE: TableDefinition<'static, [u8; 16], &'static [u8]> = tables::$table;
            const NAME: &'static str = $name;
            const REFERS: bool = true;
            fn id(&self) -> Id {
                self.id
            }
            fn references(&self) -> Vec<Id> {
                let $r = self;
                let mut refs: Vec<Id> = $refs;
                refs.sort();
                refs.dedup();
                refs
            }
        }
    };
}
record!(Account, ACCOUNTS, "accounts");
record!(Customer, CUSTOMERS, "customers");
record!(Manufacturer, MANUFACTURERS, "manufacturers");
record!(Printer, PRINTERS, "printers", |p| vec![p.manufacturer_id]);
record!(Component, COMPONENTS, "components", |c| c
    .manufacturer_id
    .into_iter()
    .chain(c.printer_ids.iter().copied())
    .collect());
record!(Filament, FILAMENTS, "filaments", |f| vec![
    f.manufacturer_id
]);
record!(LabourRate, LABOUR_RATES, "labour_rates");
record!(Charge, CHARGES, "charges");
record!(
    PostProcessingStep,
    POST_PROCESSING_STEPS,
    "post_processing_steps",
    |s| vec![s.labour_rate_id]
);
record!(
    MaintenanceTask,
    MAINTENANCE_TASKS,
    "maintenance_tasks",
    |t| t.component_id.into_iter().chain([t.printer_id]).collect()
);
record!(Print, PRINTS, "prints", |p| print_references(p));
record!(Series, SERIES, "series", |s| s
    .customer_id
    .into_iter()
    .collect());
record!(Spool, SPOOLS, "spools", |s| vec![s.filament_id]);
record!(Invoice, INVOICES, "invoices", |i| i
    .print_ids
    .iter()
    .copied()
    .chain([i.customer_id])
    .chain(i.corrects)
    .collect());
record!(Quote, QUOTES, "quotes", |q| q
    .print_ids
    .iter()
    .copied()
    .chain([q.customer_id])
    .collect());
record!(Movement, MOVEMENTS, "movements");

/// What a print refers to: its customer and series, each part's printer, build plate,
/// hotends and other components, every material it uses (its parts' and its own), and what
/// its work lines price.
fn print_references(print: &Print) -> Vec<Id> {
    let mut refs: Vec<Id> = print
        .customer_id
        .into_iter()
        .chain(print.series_id)
        .collect();
    for part in &print.parts {
        refs.push(part.printer_id);
        refs.push(part.build_plate_id);
        refs.extend(part.hotends.iter().map(|h| h.component_id));
        refs.extend(part.other_component_ids.iter().copied());
    }
    refs.extend(print.usages().map(|u| u.filament_id));
    refs.extend(print.work.iter().map(|w| w.source.id()));
    refs
}
record!(
    SpoolmgrOperation,
    SPOOLMGR_OPERATIONS,
    "spoolmgr_operations"
);

impl Record for PrinterLink {
    const TABLE: TableDefinition<'static, [u8; 16], &'static [u8]> = tables::PRINTER_LINKS;
    const NAME: &'static str = "printer_links";
    fn id(&self) -> Id {
        self.printer_id
    }
}

impl Record for LogLink {
    const TABLE: TableDefinition<'static, [u8; 16], &'static [u8]> = tables::LOG_LINKS;
    const NAME: &'static str = "log_links";
    fn id(&self) -> Id {
        self.part_id
    }
}

impl Record for SpoolLink {
    const TABLE: TableDefinition<'static, [u8; 16], &'static [u8]> = tables::SPOOL_LINKS;
    const NAME: &'static str = "spool_links";
    fn id(&self) -> Id {
        self.spool_id
    }
}

/// The record with `id`, if any.
pub fn get<R: Record>(tx: &impl Tx, id: Id) -> Result<Option<R>> {
    let table = tx.table(R::TABLE)?;
    let found = table.get(id.bytes())?;
    found.map(|v| decode(R::NAME, v.value())).transpose()
}

/// Every record of the table, in id (creation) order.
pub fn all<R: Record>(tx: &impl Tx) -> Result<Vec<R>> {
    let table = tx.table(R::TABLE)?;
    let mut out = Vec::with_capacity(table.len()? as usize);
    for entry in table.iter()? {
        let (_, v) = entry?;
        out.push(decode(R::NAME, v.value())?);
    }
    Ok(out)
}

/// Calls `visit` with every record of the table in id order, decoding one at a time (a full
/// table never sits in memory at once).
pub fn for_each<R: Record>(tx: &impl Tx, mut visit: impl FnMut(R)) -> Result<()> {
    let table = tx.table(R::TABLE)?;
    for entry in table.iter()? {
        let (_, v) = entry?;
        visit(decode(R::NAME, v.value())?);
    }
    Ok(())
}

/// Calls `visit` with the records of the table newest first (ids are time-ordered, so in
/// reverse creation order), decoding one at a time, until it answers [`ControlFlow::Break`].
pub fn newest_first<R: Record>(
    tx: &impl Tx,
    mut visit: impl FnMut(R) -> ControlFlow<()>,
) -> Result<()> {
    let table = tx.table(R::TABLE)?;
    for entry in table.iter()?.rev() {
        let (_, v) = entry?;
        if visit(decode(R::NAME, v.value())?).is_break() {
            break;
        }
    }
    Ok(())
}

/// Inserts or replaces `record`, and keeps its reference edges in step with
/// [`Record::references`] (the replaced record's edges give way to the new one's).
pub fn put<R: Record>(tx: &WriteTxn, record: &R) -> Result<()> {
    let bytes = encode(R::NAME, record)?;
    let old_refs = {
        let mut table = tx.open_table(R::TABLE)?;
        let old = table.insert(record.id().bytes(), bytes.as_slice())?;
        let old = match old {
            Some(old) if R::REFERS || tx.is_recording() => Some(decode::<R>(R::NAME, old.value())?),
            _ => None,
        };
        tx.note(R::NAME, record.id(), old.as_ref(), Some(record));
        old.map(|o| o.references()).unwrap_or_default()
    };
    if R::REFERS {
        let new_refs = record.references();
        if new_refs != old_refs {
            set_references(tx, record.id(), &old_refs, &new_refs)?;
        }
    }
    Ok(())
}

/// Removes the record with `id` and its reference edges; true when it existed.
pub fn remove<R: Record>(tx: &WriteTxn, id: Id) -> Result<bool> {
    let old_refs = {
        let mut table = tx.open_table(R::TABLE)?;
        let Some(old) = table.remove(id.bytes())? else {
            return Ok(false);
        };
        if R::REFERS || tx.is_recording() {
            let old = decode::<R>(R::NAME, old.value())?;
            tx.note(R::NAME, id, Some(&old), None);
            old.references()
        } else {
            Vec::new()
        }
    };
    set_references(tx, id, &old_refs, &[])?;
    Ok(true)
}

/// Rebuilds every reference edge from the records themselves ([`Record::references`]): what a
/// migration runs once when edges were missing (maintenance tasks' before schema 10). Every
/// kind declared with references in `record!` above is named here (a new one joins the list).
pub fn rebuild_references(tx: &WriteTxn) -> Result<()> {
    tx.delete_multimap_table(tables::REFERENCES)?;
    tx.open_multimap_table(tables::REFERENCES)?;
    fn edges<R: Record>(tx: &WriteTxn) -> Result<()> {
        let mut pairs = Vec::new();
        for_each::<R>(tx, |r| pairs.push((r.id(), r.references())))?;
        for (id, refs) in pairs {
            set_references(tx, id, &[], &refs)?;
        }
        Ok(())
    }
    edges::<Printer>(tx)?;
    edges::<Component>(tx)?;
    edges::<Filament>(tx)?;
    edges::<MaintenanceTask>(tx)?;
    edges::<PostProcessingStep>(tx)?;
    edges::<Print>(tx)?;
    edges::<Series>(tx)?;
    edges::<Spool>(tx)?;
    Ok(())
}

/// Decodes every record of the store, each in its own layout, and answers how many there were:
/// what a restore checks before it installs a file, so a file whose bytes are damaged (but
/// whose pages redb still reads) is refused instead of answering 500 later.
///
/// Errors: the first record that does not decode ([`Error::Codec`]), or the store fails.
pub fn decode_all(tx: &impl Tx) -> Result<u64> {
    fn each<R: Record>(tx: &impl Tx, count: &mut u64) -> Result<()> {
        for_each::<R>(tx, |_| *count += 1)
    }
    let mut count = 0;
    each::<Account>(tx, &mut count)?;
    each::<Customer>(tx, &mut count)?;
    each::<Manufacturer>(tx, &mut count)?;
    each::<Printer>(tx, &mut count)?;
    each::<Component>(tx, &mut count)?;
    each::<Filament>(tx, &mut count)?;
    each::<MaintenanceTask>(tx, &mut count)?;
    each::<LabourRate>(tx, &mut count)?;
    each::<Charge>(tx, &mut count)?;
    each::<PostProcessingStep>(tx, &mut count)?;
    each::<Print>(tx, &mut count)?;
    each::<Series>(tx, &mut count)?;
    each::<Spool>(tx, &mut count)?;
    each::<Movement>(tx, &mut count)?;
    each::<SpoolmgrOperation>(tx, &mut count)?;
    each::<PrinterLink>(tx, &mut count)?;
    each::<LogLink>(tx, &mut count)?;
    each::<SpoolLink>(tx, &mut count)?;
    each::<Quote>(tx, &mut count)?;
    each::<Invoice>(tx, &mut count)?;
    settings(tx)?;
    integrations(tx)?;
    backup_schedule(tx)?;
    alert_settings(tx)?;
    standing_alerts(tx)?;
    pricing(tx)?;
    company(tx)?;
    count += meter_links(tx)?.len() as u64;
    count += rows(tx, tables::SESSIONS, |v| {
        decode::<Session>("sessions", v).map(drop)
    })?;
    count += rows(tx, tables::PRINT_ANSWERS, |v| {
        decode::<Print>("print_answers", v).map(drop)
    })?;
    count += rows(tx, tables::PRINT_SOURCES, |v| {
        decode::<PrintSource>("print_sources", v).map(drop)
    })?;
    count += rows(tx, tables::WEAR, |v| decode::<Wear>("wear", v).map(drop))?;
    count += rows(tx, tables::METER_READINGS, |v| meter_row(v).map(drop))?;
    Ok(count)
}

/// Runs `check` on every value of `def`; answers how many there were.
fn rows<K: Key + 'static>(
    tx: &impl Tx,
    def: TableDefinition<K, &'static [u8]>,
    check: impl Fn(&[u8]) -> Result<()>,
) -> Result<u64> {
    let mut count = 0;
    for entry in tx.table(def)?.iter()? {
        let (_, value) = entry?;
        check(value.value())?;
        count += 1;
    }
    Ok(count)
}

/// How many records the table holds (kept by redb, not counted).
pub fn count<R: Record>(tx: &impl Tx) -> Result<u64> {
    Ok(tx.table(R::TABLE)?.len()?)
}

/// True when the table holds no record.
pub fn is_empty(
    tx: &impl Tx,
    def: TableDefinition<'static, [u8; 16], &'static [u8]>,
) -> Result<bool> {
    Ok(tx.table(def)?.is_empty()?)
}

/// The id a unique index maps `key` to.
pub fn index_get(
    tx: &impl Tx,
    def: TableDefinition<&str, [u8; 16]>,
    key: &str,
) -> Result<Option<Id>> {
    let table = tx.table(def)?;
    let found = table.get(key)?;
    Ok(found.map(|v| Id::from_bytes(v.value())))
}

/// Points unique index `def` at `id` under `key`.
pub fn index_put(
    tx: &WriteTxn,
    def: TableDefinition<&str, [u8; 16]>,
    key: &str,
    id: Id,
) -> Result<()> {
    tx.open_table(def)?.insert(key, id.bytes())?;
    Ok(())
}

/// Removes `key` from unique index `def`.
pub fn index_remove(tx: &WriteTxn, def: TableDefinition<&str, [u8; 16]>, key: &str) -> Result<()> {
    tx.open_table(def)?.remove(key)?;
    Ok(())
}

/// The local id a remote-id table (`REMOTE_SPOOLS`, `REMOTE_FILAMENTS`, `REMOTE_VENDORS`) maps
/// `remote` to.
pub fn remote_get(
    tx: &impl Tx,
    def: TableDefinition<u64, [u8; 16]>,
    remote: u64,
) -> Result<Option<Id>> {
    let table = tx.table(def)?;
    let found = table.get(remote)?;
    Ok(found.map(|v| Id::from_bytes(v.value())))
}

/// Maps `remote` to `local` in remote-id table `def`.
pub fn remote_put(
    tx: &WriteTxn,
    def: TableDefinition<u64, [u8; 16]>,
    remote: u64,
    local: Id,
) -> Result<()> {
    tx.open_table(def)?.insert(remote, local.bytes())?;
    Ok(())
}

/// Removes `remote` from remote-id table `def`.
pub fn remote_remove(
    tx: &WriteTxn,
    def: TableDefinition<u64, [u8; 16]>,
    remote: u64,
) -> Result<()> {
    tx.open_table(def)?.remove(remote)?;
    Ok(())
}

/// The newest `limit` records of a table whose ids are time-ordered, newest first.
pub fn newest<R: Record>(tx: &impl Tx, limit: usize) -> Result<Vec<R>> {
    let table = tx.table(R::TABLE)?;
    let mut out = Vec::with_capacity(limit.min(64));
    for entry in table.iter()?.rev().take(limit) {
        let (_, v) = entry?;
        out.push(decode(R::NAME, v.value())?);
    }
    Ok(out)
}

/// Replaces the outgoing reference edges of `referrer`: it stops referring to `old` and refers to
/// `new` (either may overlap). Edges make [`is_referenced`] an index lookup.
pub fn set_references(tx: &WriteTxn, referrer: Id, old: &[Id], new: &[Id]) -> Result<()> {
    let mut table = tx.open_multimap_table(tables::REFERENCES)?;
    for target in old {
        table.remove(target.bytes(), referrer.bytes())?;
    }
    for target in new {
        table.insert(target.bytes(), referrer.bytes())?;
    }
    Ok(())
}

/// True when any record refers to `target` (a delete must then be refused): a record whose
/// [`Record::references`] name it, or a link stored under its id (a printer's energy meter, its
/// printer-fleet link, a spool's spool-manager link), which must be undone first.
pub fn is_referenced(tx: &WriteTxn, target: Id) -> Result<bool> {
    let table = tx.open_multimap_table(tables::REFERENCES)?;
    let mut values = table.get(target.bytes())?;
    if values.next().transpose()?.is_some() {
        return Ok(true);
    }
    for keyed in LINKS_BY_SUBJECT {
        if tx.open_table(keyed)?.get(target.bytes())?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The tables that keep a link under the id of the record it links: the record cannot be
/// deleted while one holds it.
const LINKS_BY_SUBJECT: [TableDefinition<'static, [u8; 16], &'static [u8]>; 3] = [
    tables::METER_LINKS,
    tables::PRINTER_LINKS,
    tables::SPOOL_LINKS,
];

/// The records that refer to `target` (prints of a series, of a customer, …), in id order.
pub fn referrers(tx: &WriteTxn, target: Id) -> Result<Vec<Id>> {
    let table = tx.open_multimap_table(tables::REFERENCES)?;
    let mut ids = Vec::new();
    for value in table.get(target.bytes())? {
        ids.push(Id::from_bytes(value?.value()));
    }
    Ok(ids)
}

/// The settings record, once setup has run.
pub fn settings(tx: &impl Tx) -> Result<Option<Settings>> {
    let table = tx.table(tables::SETTINGS)?;
    let found = table.get(0)?;
    found.map(|v| decode("settings", v.value())).transpose()
}

/// Stores the settings record.
pub fn put_settings(tx: &WriteTxn, settings: &Settings) -> Result<()> {
    put_setting(tx, 0, settings)
}

/// The print as the call that made revision `revision` of its outcome answered it, if kept.
pub fn answer(tx: &impl Tx, print_id: Id, revision: u32) -> Result<Option<Print>> {
    let table = tx.table(tables::PRINT_ANSWERS)?;
    let found = table.get((print_id.bytes(), revision))?;
    found
        .map(|v| decode("print_answers", v.value()))
        .transpose()
}

/// Keeps `print` as the answer of the call that made revision `revision` of its outcome.
pub fn put_answer(tx: &WriteTxn, print_id: Id, revision: u32, print: &Print) -> Result<()> {
    let bytes = encode("print_answers", print)?;
    tx.open_table(tables::PRINT_ANSWERS)?
        .insert((print_id.bytes(), revision), bytes.as_slice())?;
    Ok(())
}

/// Keeps `source` as the sliced file print `print_id` was made from, indexed by its hash.
pub fn put_source(tx: &WriteTxn, print_id: Id, source: &PrintSource) -> Result<()> {
    let bytes = encode("print_sources", source)?;
    tx.open_table(tables::PRINT_SOURCES)?
        .insert(print_id.bytes(), bytes.as_slice())?;
    tx.open_table(tables::SOURCE_PRINTS)?
        .insert((source.sha256, print_id.bytes()), ())?;
    Ok(())
}

/// The sliced file print `print_id` was made from, if any.
pub fn source(tx: &impl Tx, print_id: Id) -> Result<Option<PrintSource>> {
    let table = tx.table(tables::PRINT_SOURCES)?;
    let found = table.get(print_id.bytes())?;
    found
        .map(|v| decode("print_sources", v.value()))
        .transpose()
}

/// The prints made from the sliced file whose SHA-256 is `sha256`, in id order (ids are
/// time-ordered, so oldest first).
pub fn prints_from(tx: &impl Tx, sha256: [u8; 32]) -> Result<Vec<Id>> {
    let table = tx.table(tables::SOURCE_PRINTS)?;
    let mut ids = Vec::new();
    for entry in table.range((sha256, [0u8; 16])..=(sha256, [0xff; 16]))? {
        ids.push(Id::from_bytes(entry?.0.value().1));
    }
    Ok(ids)
}

/// When the service last handed out a backup (`meta` key `last_backup_at`); `None` before the
/// first.
pub fn last_backup(tx: &impl Tx) -> Result<Option<Timestamp>> {
    let table = tx.table(tables::META)?;
    let found = table.get(LAST_BACKUP_KEY)?;
    Ok(found.map(|v| Timestamp(v.value() as i64)))
}

/// Records when the service handed out a backup.
pub fn set_last_backup(tx: &WriteTxn, at: Timestamp) -> Result<()> {
    let old = tx
        .open_table(tables::META)?
        .insert(LAST_BACKUP_KEY, at.0.max(0) as u64)?
        .map(|v| v.value());
    let named = |at: u64| serde_json::json!({ "last_backup_at": at });
    tx.note(
        "backups",
        LAST_BACKUP_KEY,
        old.map(named).as_ref(),
        Some(&named(at.0.max(0) as u64)),
    );
    Ok(())
}

const LAST_BACKUP_KEY: &str = "last_backup_at";

/// Records that the store was restored at `at` from the backup named `file` (`meta` key
/// `last_restore_at`): the journal's entry of a restore, the first in the restored file.
pub fn set_last_restore(tx: &WriteTxn, at: Timestamp, file: &str) -> Result<()> {
    let at = at.0.max(0) as u64;
    let old = tx
        .open_table(tables::META)?
        .insert(LAST_RESTORE_KEY, at)?
        .map(|v| v.value());
    let before = old.map(|old| serde_json::json!({ "restored_at": old }));
    let after = serde_json::json!({ "restored_at": at, "file": file });
    tx.note("restores", LAST_RESTORE_KEY, before.as_ref(), Some(&after));
    Ok(())
}

const LAST_RESTORE_KEY: &str = "last_restore_at";

/// The value stored in the settings table under `key`, or `T::default()` before the first
/// change.
fn setting<T: DeserializeOwned + Default>(tx: &impl Tx, key: u8) -> Result<T> {
    let table = tx.table(tables::SETTINGS)?;
    let found = table.get(key)?;
    Ok(found
        .map(|v| decode("settings", v.value()))
        .transpose()?
        .unwrap_or_default())
}

/// Stores `value` in the settings table under `key`.
fn put_setting<T: Serialize + DeserializeOwned>(tx: &WriteTxn, key: u8, value: &T) -> Result<()> {
    let bytes = encode("settings", value)?;
    let old = write::old_setting(tx, key)?
        .map(|b| decode::<T>("settings", &b))
        .transpose()?;
    tx.open_table(tables::SETTINGS)?
        .insert(key, bytes.as_slice())?;
    let name = write::setting_name(key);
    tx.note(name, name, old.as_ref(), Some(value));
    Ok(())
}

/// The integrations' settings (their defaults before any change), stored in the settings table
/// under key 1.
pub fn integrations(tx: &impl Tx) -> Result<Integrations> {
    setting(tx, INTEGRATIONS_KEY)
}

/// The settings table's key of the integrations' settings.
pub const INTEGRATIONS_KEY: u8 = 1;
/// The settings table's key of Settings › Alerts (the webhooks and their tokens).
pub const ALERT_SETTINGS_KEY: u8 = 4;

/// Stores the integrations' settings.
pub fn put_integrations(tx: &WriteTxn, integrations: &Integrations) -> Result<()> {
    put_setting(tx, INTEGRATIONS_KEY, integrations)
}

/// The nightly backup's schedule ([`BackupSchedule::default`] before any change), stored in the
/// settings table under key 2.
pub fn backup_schedule(tx: &impl Tx) -> Result<BackupSchedule> {
    setting(tx, 2)
}

/// Stores the nightly backup's schedule.
pub fn put_backup_schedule(tx: &WriteTxn, schedule: &BackupSchedule) -> Result<()> {
    put_setting(tx, 2, schedule)
}

/// The SHA-256 of the token that `GET /metrics` asks for (none until one is set), stored in
/// the settings table under key 3.
pub fn metrics_token_hash(tx: &impl Tx) -> Result<Option<[u8; 32]>> {
    setting(tx, 3)
}

/// Stores (or with `None` removes) the metrics token's SHA-256.
pub fn put_metrics_token_hash(tx: &WriteTxn, hash: Option<[u8; 32]>) -> Result<()> {
    let old = write::old_setting(tx, 3)?
        .map(|b| decode::<Option<[u8; 32]>>("settings", &b))
        .transpose()?;
    tx.open_table(tables::SETTINGS)?
        .insert(3, encode("settings", &hash)?.as_slice())?;
    // Under the secret's own name, so the journal says only that it changed.
    let named = |h: Option<[u8; 32]>| serde_json::json!({ "metrics_token": h.is_some() });
    let (before, after) = (named(old.flatten()), named(hash));
    if old.flatten() != hash {
        tx.note_changed("metrics_token", "metrics_token", &before, &after);
    }
    Ok(())
}

/// Settings › Alerts ([`AlertSettings::default`] before any change), under key 4.
pub fn alert_settings(tx: &impl Tx) -> Result<AlertSettings> {
    setting(tx, ALERT_SETTINGS_KEY)
}

/// Stores Settings › Alerts.
pub fn put_alert_settings(tx: &WriteTxn, settings: &AlertSettings) -> Result<()> {
    put_setting(tx, ALERT_SETTINGS_KEY, settings)
}

/// The alerts standing now (none before the first evaluation), under key 5.
pub fn standing_alerts(tx: &impl Tx) -> Result<StandingAlerts> {
    setting(tx, 5)
}

/// Stores the alerts standing now.
pub fn put_standing_alerts(tx: &WriteTxn, alerts: &StandingAlerts) -> Result<()> {
    put_setting(tx, 5, alerts)
}

/// Settings › Pricing ([`Pricing::default`], off, before any change), under key 6.
pub fn pricing(tx: &impl Tx) -> Result<Pricing> {
    setting(tx, 6)
}

/// Stores Settings › Pricing.
pub fn put_pricing(tx: &WriteTxn, pricing: &Pricing) -> Result<()> {
    put_setting(tx, 6, pricing)
}

/// Settings › Company (nameless until set).
pub fn company(tx: &impl Tx) -> Result<Company> {
    setting(tx, 7)
}

/// Stores Settings › Company.
pub fn put_company(tx: &WriteTxn, company: &Company) -> Result<()> {
    put_setting(tx, 7, company)
}

/// How invoices and credit notes are numbered ([`Numbering::default`] until set).
pub fn numbering(tx: &impl Tx) -> Result<Numbering> {
    setting(tx, 8)
}

/// Stores how invoices and credit notes are numbered.
pub fn put_numbering(tx: &WriteTxn, numbering: &Numbering) -> Result<()> {
    put_setting(tx, 8, numbering)
}

/// Takes the next number of the gapless range `range` (`A-2026`): 1 for a new range, then one
/// more than the last taken. In the caller's transaction, so a number is taken exactly when the
/// record that carries it is written. Errors: the range is exhausted (`u32::MAX` taken).
pub fn next_number(tx: &WriteTxn, range: &str) -> Result<u32> {
    let mut table = tx.open_table(tables::NUMBER_RANGES)?;
    let last = table.get(range)?.map_or(0, |v| v.value());
    let next = last
        .checked_add(1)
        .ok_or_else(|| Error::Database(format!("the number range {range} is exhausted")))?;
    table.insert(range, next)?;
    let taken = |n: u32| serde_json::json!({ "last": n });
    let before = (last > 0).then(|| taken(last));
    tx.note("number_ranges", range, before.as_ref(), Some(&taken(next)));
    Ok(next)
}

/// What `subject` (a printer or component) has run (none yet: zero).
pub fn wear(tx: &impl Tx, subject: Id) -> Result<Wear> {
    let table = tx.table(tables::WEAR)?;
    let found = table.get(subject.bytes())?;
    Ok(found
        .map(|v| decode("wear", v.value()))
        .transpose()?
        .unwrap_or_default())
}

/// Stores what `subject` has run (a zero wear removes its row).
pub fn put_wear(tx: &WriteTxn, subject: Id, wear: &Wear) -> Result<()> {
    let mut table = tx.open_table(tables::WEAR)?;
    if *wear == Wear::default() {
        table.remove(subject.bytes())?;
    } else {
        table.insert(subject.bytes(), encode("wear", wear)?.as_slice())?;
    }
    Ok(())
}

/// The session stored under `token_hash`.
pub fn session(tx: &impl Tx, token_hash: [u8; 32]) -> Result<Option<Session>> {
    let table = tx.table(tables::SESSIONS)?;
    let found = table.get(token_hash)?;
    found.map(|v| decode("sessions", v.value())).transpose()
}

/// Stores `session` under `token_hash`.
pub fn put_session(tx: &WriteTxn, token_hash: [u8; 32], session: &Session) -> Result<()> {
    let bytes = encode("sessions", session)?;
    let old = tx
        .open_table(tables::SESSIONS)?
        .insert(token_hash, bytes.as_slice())?
        .map(|v| decode::<Session>("sessions", v.value()))
        .transpose()?;
    tx.note(
        "sessions",
        session_handle(token_hash),
        old.as_ref(),
        Some(session),
    );
    Ok(())
}

/// Removes the session stored under `token_hash` (a logout, an owner ending it); true when
/// there was one.
pub fn remove_session(tx: &WriteTxn, token_hash: [u8; 32]) -> Result<bool> {
    let old = tx
        .open_table(tables::SESSIONS)?
        .remove(token_hash)?
        .map(|v| decode::<Session>("sessions", v.value()))
        .transpose()?;
    tx.note("sessions", session_handle(token_hash), old.as_ref(), None);
    Ok(old.is_some())
}

/// The sessions of `account`, each under its token's hash, oldest first (expired ones
/// included until a login sweeps them).
pub fn sessions_of(tx: &impl Tx, account: Id) -> Result<Vec<([u8; 32], Session)>> {
    let table = tx.table(tables::SESSIONS)?;
    let mut found = Vec::new();
    for row in table.iter()? {
        let (key, value) = row?;
        let session: Session = decode("sessions", value.value())?;
        if session.account_id == account {
            found.push((key.value(), session));
        }
    }
    found.sort_by_key(|(_, s)| s.created_at);
    Ok(found)
}

/// How the journal and Settings › Accounts name a session: the first 8 bytes of its token's
/// SHA-256 in hex (the token cannot be recovered from them).
pub fn session_handle(token_hash: [u8; 32]) -> String {
    hex(&token_hash[..8])
}

/// Removes the sessions for which `doomed` is true; returns how many went.
pub fn remove_sessions_where(
    tx: &WriteTxn,
    mut doomed: impl FnMut(&Session) -> bool,
) -> Result<usize> {
    let mut table = tx.open_table(tables::SESSIONS)?;
    let mut failed = None;
    let mut removed = Vec::new();
    table.retain(|key, v| match decode::<Session>("sessions", v) {
        Ok(s) if doomed(&s) => {
            removed.push((key, s));
            false
        }
        Ok(_) => true,
        Err(e) => {
            failed = Some(e);
            true
        }
    })?;
    match failed {
        Some(e) => Err(e),
        None => {
            for (key, session) in &removed {
                tx.note("sessions", session_handle(*key), Some(session), None);
            }
            Ok(removed.len())
        }
    }
}

/// The readings of `meter` in `hour` (hours since the Unix epoch); none yet: an empty hour.
/// Errors: the row is not a [`MeterHour`].
pub fn meter_hour(tx: &impl Tx, meter: Id, hour: u64) -> Result<MeterHour> {
    let table = tx.table(tables::METER_READINGS)?;
    let found = table.get((meter.bytes(), hour))?;
    match found {
        Some(row) => meter_row(row.value()),
        None => Ok(MeterHour::default()),
    }
}

/// Stores `readings` as `meter`'s `hour`.
/// Errors: a counter beyond the row's range ([`crate::records::OutOfRange`]) as a codec error.
pub fn put_meter_hour(tx: &WriteTxn, meter: Id, hour: u64, readings: &MeterHour) -> Result<()> {
    let bytes = readings.encode().map_err(|_| out_of_range())?;
    let old = tx
        .open_table(tables::METER_READINGS)?
        .insert((meter.bytes(), hour), bytes.as_slice())?
        .map(|v| meter_row(v.value()))
        .transpose()?;
    if tx.is_recording() {
        // The hour's count and its last reading, not the whole hour again each minute.
        let summary = |h: &MeterHour| {
            let last = h.readings.last();
            serde_json::json!({
                "readings": h.readings.len(),
                "last_second": last.map(|r| r.second),
                "last_kwh": last.map(|r| r.kwh.to_string()),
            })
        };
        let id = format!("{meter}/{hour}");
        tx.note(
            "meter_readings",
            id,
            old.as_ref().map(summary).as_ref(),
            Some(&summary(readings)),
        );
    }
    Ok(())
}

/// `meter`'s stored hours from `from` to `to` (inclusive), in time order.
/// Errors: a row is not a [`MeterHour`].
pub fn meter_hours(tx: &impl Tx, meter: Id, from: u64, to: u64) -> Result<Vec<(u64, MeterHour)>> {
    let table = tx.table(tables::METER_READINGS)?;
    let mut hours = Vec::new();
    for row in table.range((meter.bytes(), from)..=(meter.bytes(), to))? {
        let (key, value) = row?;
        hours.push((key.value().1, meter_row(value.value())?));
    }
    Ok(hours)
}

/// `meter`'s latest stored hour at or before `hour`, if any.
/// Errors: the row is not a [`MeterHour`].
pub fn meter_hour_at_or_before(
    tx: &impl Tx,
    meter: Id,
    hour: u64,
) -> Result<Option<(u64, MeterHour)>> {
    let table = tx.table(tables::METER_READINGS)?;
    let mut rows = table.range((meter.bytes(), 0)..=(meter.bytes(), hour))?;
    match rows.next_back() {
        Some(row) => {
            let (key, value) = row?;
            Ok(Some((key.value().1, meter_row(value.value())?)))
        }
        None => Ok(None),
    }
}

/// `meter`'s earliest stored hour at or after `hour`, if any.
/// Errors: the row is not a [`MeterHour`].
pub fn meter_hour_at_or_after(
    tx: &impl Tx,
    meter: Id,
    hour: u64,
) -> Result<Option<(u64, MeterHour)>> {
    let table = tx.table(tables::METER_READINGS)?;
    let mut rows = table.range((meter.bytes(), hour)..=(meter.bytes(), u64::MAX))?;
    match rows.next() {
        Some(row) => {
            let (key, value) = row?;
            Ok(Some((key.value().1, meter_row(value.value())?)))
        }
        None => Ok(None),
    }
}

fn meter_row(bytes: &[u8]) -> Result<MeterHour> {
    MeterHour::decode(bytes).map_err(|_| out_of_range())
}

fn out_of_range() -> Error {
    Error::Codec {
        table: "meter_readings",
        message: "not a meter hour, or a counter beyond its range".into(),
    }
}

/// Printer `printer`'s energy meter, if one is linked.
/// Errors: the row is not a [`MeterLink`].
pub fn meter_link(tx: &impl Tx, printer: Id) -> Result<Option<MeterLink>> {
    let table = tx.table(tables::METER_LINKS)?;
    let found = table.get(printer.bytes())?;
    found.map(|v| decode("meter_links", v.value())).transpose()
}

/// Links `printer` to `link` (none: unlinks it; its readings stay).
pub fn put_meter_link(tx: &WriteTxn, printer: Id, link: Option<&MeterLink>) -> Result<()> {
    let mut table = tx.open_table(tables::METER_LINKS)?;
    let old = match link {
        Some(link) => table.insert(printer.bytes(), encode("meter_links", link)?.as_slice())?,
        None => table.remove(printer.bytes())?,
    };
    let old = old
        .map(|v| decode::<MeterLink>("meter_links", v.value()))
        .transpose()?;
    tx.note("meter_links", printer, old.as_ref(), link);
    Ok(())
}

/// Every linked meter: (printer id, its link).
/// Errors: a row is not a [`MeterLink`].
pub fn meter_links(tx: &impl Tx) -> Result<Vec<(Id, MeterLink)>> {
    let table = tx.table(tables::METER_LINKS)?;
    let mut links = Vec::new();
    for row in table.iter()? {
        let (key, value) = row?;
        links.push((
            Id::from_bytes(key.value()),
            decode("meter_links", value.value())?,
        ));
    }
    Ok(links)
}
