//! Schema version and migrations.
//!
//! The `meta` table holds `schema_version`. Opening a store:
//! - a new file gets every table and the current version in one write transaction;
//! - an older file is migrated step by step, each step one write transaction that rewrites the
//!   affected tables ("new layout + copy"), so a crash mid-upgrade leaves the last good version;
//! - a newer file is refused with [`Error::NewerSchema`] before anything is written.
//!
//! History:
//! - 1: first layout.
//! - 2: customers gained `exclude_from_dashboard` (false for existing customers).
//! - 3: the integrations' tables: the spool manager's (spool links, remote ids, operations;
//!   existing spools stay native) and the printer fleet's (printer and print-log links).
//!   No record changes, but an older build must not open a file whose spools it would book
//!   natively.
//! - 4: the print answers table (outcome and correction replays answer the first body). Tables
//!   only; an older build must not open a file whose replays it would answer differently.
//! - 5: the sliced files prints were made from (`print_sources`, `source_prints`). Tables only.
//! - 6: the print projection's summaries (`print_summaries`), written with every print. The
//!   table starts empty and the first load fills it; an older build must not open a file whose
//!   prints it would change without their summaries.
//! - 7: the wear table (what each printer and component has run), filled by the projection.
//! - 8: printers' energy meters and their readings (`meter_links`, `meter_readings`). Tables
//!   only; an older build must not open a file whose meters' history it would not keep.
//! - 9: metered electricity. Prints gained the times of their move to and on from PRINTING
//!   (none for existing prints), outcome revisions each part's actual electricity (none for
//!   existing revisions: their electricity lines were estimated), and print-fleet logs their
//!   `energy_kwh` (none until the next read). Rewrites `prints`, `print_answers` and
//!   `log_links`.
//! - 10: maintenance tasks refer to their printer and component like every other reference
//!   (the safe delete), derived from `Record::references`. The step removes the tasks whose
//!   printer or component an earlier build let be deleted (they could no longer be shown,
//!   changed or done). (It rebuilt every reference edge too, until schema 11 took that over.)
//! - 11: the work a shop charges. Prints gained work lines (none for existing prints) and
//!   outcome revisions the actual minutes of those lines (none); cost lines may be of the
//!   categories LABOUR, CHARGE, MACHINE and MACHINE_ELECTRICITY; the tables of labour rates,
//!   charges and post-processing steps. The price rule: prints gained its suggestion (none for
//!   existing prints, which keep their sales value), customers a discount on it and their
//!   billing details (none), the
//!   settings Settings › Pricing (key 6, off until set). Rewrites `prints`, `print_answers`
//!   and `customers`, then rebuilds
//!   every reference edge from the records (here rather than in step 10, because it decodes
//!   prints in the newest layout; a file of version 10 has them rebuilt once more).
//! - 12: quotes (`quotes`), invoices and credit notes (`invoices`) and the gapless number
//!   ranges both are numbered from (`number_ranges`), and Settings › Company (key 7, nameless
//!   until set). Tables only; an older build must not open a file whose quotes' and invoices'
//!   prints it would let be deleted.
//! - 13: roles. Accounts gained their role and whether they are disabled: every existing
//!   account becomes an owner (each could do everything before; an owner may demote the
//!   others) and stays enabled. Rewrites `accounts`.
//! - 14: the journal's tables.
//! - 15: materials by kind (issue 51). Filaments gained their kind, the unit their stock is
//!   counted in and a density: every existing one is a filament counted in grams, without a
//!   density, so every figure stays. Rewrites `filaments`.
//! - 16: printers' technology (issue 51): every existing printer is FDM. Rewrites `printers`.
//! - 17: components' lifetime in hours or in prints (issue 51): every existing component keeps
//!   its hours. Rewrites `components`.
//! - 18: a print's own consumables, per piece or per job (issue 51): every existing print has
//!   none. Rewrites `prints` and `print_answers`.

use crate::records::{
    Account, Billing, Component, Customer, Filament, Lifetime, LogLink, MaintenanceTask,
    MaterialKind, Outcome, OutcomeRevision, Print, PrintLog, Printer, PrinterTechnology, Role,
    StockUnit,
};
use crate::repo;
use crate::repo::Tx;
use crate::{Error, Result, WriteTxn, decode, encode, tables};
use redb::{ReadableTable, TableHandle, WriteTransaction};
use serde::Serialize;

/// The layout version this build writes.
pub const SCHEMA_VERSION: u64 = 18;

pub(crate) const VERSION_KEY: &str = "schema_version";

/// Layouts of earlier schema versions, kept for their migrations.
pub mod legacy {
    use crate::records::{
        ComponentType, Costing, Outcome, OutcomeStatus, Part, PartElectricity, PriceSnapshot,
        PrintStatus, UsageGrams, WorkLine,
    };
    use crate::{Id, Timestamp};
    use rust_decimal::Decimal;
    use serde::{Deserialize, Serialize};

    /// A printer as schema versions 1 to 15 stored it (no technology: every one FDM).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct PrinterV15 {
        pub id: Id,
        pub name: String,
        pub manufacturer_id: Id,
        pub model: Option<String>,
        #[serde(with = "rust_decimal::serde::str")]
        pub purchase_price: Decimal,
        #[serde(with = "rust_decimal::serde::str")]
        pub expected_lifetime_hours: Decimal,
        pub average_power_watts: u32,
        pub note: Option<String>,
        pub archived: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }

    /// A print as schema versions 11 to 17 stored it (no consumables of its own).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct PrintV17 {
        pub id: Id,
        pub version: u64,
        pub name: String,
        pub customer_id: Option<Id>,
        pub series_id: Option<Id>,
        pub quantity: u32,
        #[serde(with = "rust_decimal::serde::str_option")]
        pub sales_value: Option<Decimal>,
        pub notes: Option<String>,
        pub status: PrintStatus,
        pub paid: bool,
        pub paid_at: Option<Timestamp>,
        pub archived: bool,
        pub archived_at: Option<Timestamp>,
        pub parts: Vec<Part>,
        pub costing: Costing,
        pub finalized_at: Option<Timestamp>,
        pub printing_started_at: Option<Timestamp>,
        pub printing_ended_at: Option<Timestamp>,
        pub completed_at: Option<Timestamp>,
        pub repeat_of_id: Option<Id>,
        pub retried_from_id: Option<Id>,
        pub retry_ids: Vec<Id>,
        pub outcome: Option<Outcome>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub work: Vec<WorkLine>,
        pub price: Option<PriceSnapshot>,
    }

    /// A component as schema versions 1 to 16 stored it (its lifetime in hours only).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct ComponentV16 {
        pub id: Id,
        pub kind: ComponentType,
        pub name: String,
        pub manufacturer_id: Option<Id>,
        pub model: Option<String>,
        #[serde(with = "rust_decimal::serde::str")]
        pub purchase_price: Decimal,
        #[serde(with = "rust_decimal::serde::str")]
        pub expected_lifetime_hours: Decimal,
        pub always_used: bool,
        pub printer_ids: Vec<Id>,
        pub note: Option<String>,
        pub archived: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }

    /// A filament as schema versions 1 to 14 stored it (no kind, unit or density).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct FilamentV14 {
        pub id: Id,
        pub manufacturer_id: Id,
        pub material: String,
        pub color_name: String,
        pub color_hex: String,
        #[serde(with = "rust_decimal::serde::str")]
        pub purchase_price: Decimal,
        #[serde(with = "rust_decimal::serde::str")]
        pub net_weight_grams: Decimal,
        #[serde(with = "rust_decimal::serde::str_option")]
        pub minimum_stock_grams: Option<Decimal>,
        pub note: Option<String>,
        pub archived: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }

    /// An account as schema versions 1 to 12 stored it (no role; none disabled).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct AccountV12 {
        pub id: Id,
        pub email: String,
        pub display_name: String,
        pub password_hash: String,
        pub locale: String,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }

    /// A customer as schema versions 2 to 10 stored it (no discount).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct CustomerV10 {
        pub id: Id,
        pub name: String,
        pub email: Option<String>,
        pub note: Option<String>,
        pub exclude_from_dashboard: bool,
        pub archived: bool,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }

    /// A customer as schema version 1 stored it.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct CustomerV1 {
        /// Record id.
        pub id: Id,
        /// Display name.
        pub name: String,
        /// Contact email.
        pub email: Option<String>,
        /// Free text.
        pub note: Option<String>,
        /// Archive state.
        pub archived: bool,
        /// Creation time.
        pub created_at: Timestamp,
        /// Last change.
        pub updated_at: Timestamp,
    }

    /// An outcome revision as schema versions up to 8 stored it (no electricity).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct OutcomeRevisionV8 {
        pub revision: u32,
        pub status: OutcomeStatus,
        pub duration_seconds: u32,
        pub part_durations: Vec<(Id, u32)>,
        pub grams: Vec<UsageGrams>,
        pub note: Option<String>,
        pub failure_reason: Option<String>,
        pub correction_note: Option<String>,
        pub operation_key: Option<Id>,
        pub recorded_at: Timestamp,
        pub actual: Costing,
    }

    /// A print as schema versions up to 8 stored it (no PRINTING times; v8 revisions).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct PrintV8 {
        pub id: Id,
        pub version: u64,
        pub name: String,
        pub customer_id: Option<Id>,
        pub series_id: Option<Id>,
        pub quantity: u32,
        #[serde(with = "rust_decimal::serde::str_option")]
        pub sales_value: Option<Decimal>,
        pub notes: Option<String>,
        pub status: PrintStatus,
        pub paid: bool,
        pub paid_at: Option<Timestamp>,
        pub archived: bool,
        pub archived_at: Option<Timestamp>,
        pub parts: Vec<Part>,
        pub costing: Costing,
        pub finalized_at: Option<Timestamp>,
        pub completed_at: Option<Timestamp>,
        pub repeat_of_id: Option<Id>,
        pub retried_from_id: Option<Id>,
        pub retry_ids: Vec<Id>,
        /// The outcome's revisions (an `Outcome` is encoded as its one field).
        pub outcome: Option<Vec<OutcomeRevisionV8>>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }

    /// An outcome revision as schema versions 9 and 10 stored it (no work minutes).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct OutcomeRevisionV10 {
        pub revision: u32,
        pub status: OutcomeStatus,
        pub duration_seconds: u32,
        pub part_durations: Vec<(Id, u32)>,
        pub grams: Vec<UsageGrams>,
        pub note: Option<String>,
        pub failure_reason: Option<String>,
        pub correction_note: Option<String>,
        pub operation_key: Option<Id>,
        pub recorded_at: Timestamp,
        pub actual: Costing,
        pub electricity: Vec<PartElectricity>,
    }

    /// A print as schema versions 9 and 10 stored it (no work lines; v10 revisions).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct PrintV10 {
        pub id: Id,
        pub version: u64,
        pub name: String,
        pub customer_id: Option<Id>,
        pub series_id: Option<Id>,
        pub quantity: u32,
        #[serde(with = "rust_decimal::serde::str_option")]
        pub sales_value: Option<Decimal>,
        pub notes: Option<String>,
        pub status: PrintStatus,
        pub paid: bool,
        pub paid_at: Option<Timestamp>,
        pub archived: bool,
        pub archived_at: Option<Timestamp>,
        pub parts: Vec<Part>,
        pub costing: Costing,
        pub finalized_at: Option<Timestamp>,
        pub printing_started_at: Option<Timestamp>,
        pub printing_ended_at: Option<Timestamp>,
        pub completed_at: Option<Timestamp>,
        pub repeat_of_id: Option<Id>,
        pub retried_from_id: Option<Id>,
        pub retry_ids: Vec<Id>,
        /// The outcome's revisions (an `Outcome` is encoded as its one field).
        pub outcome: Option<Vec<OutcomeRevisionV10>>,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
    }

    /// A print-fleet log entry as schema versions up to 8 stored it (no `energy_kwh`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct PrintLogV8 {
        pub id: u64,
        pub printer_id: Option<u64>,
        pub print_name: Option<String>,
        pub status: String,
        pub started_at: Option<Timestamp>,
        pub completed_at: Option<Timestamp>,
        pub duration_seconds: Option<u32>,
        #[serde(with = "rust_decimal::serde::str_option")]
        pub filament_used_grams: Option<Decimal>,
        pub failure_reason: Option<String>,
    }

    /// A part's log link as schema versions up to 8 stored it.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[allow(missing_docs)]
    pub struct LogLinkV8 {
        pub part_id: Id,
        pub print_id: Id,
        pub remote_log_id: u64,
        pub log: Option<PrintLogV8>,
        pub synced_at: Option<Timestamp>,
        pub error: Option<String>,
        pub imported_at: Option<Timestamp>,
    }
}

/// Brings the open file to [`SCHEMA_VERSION`] and makes sure every table exists.
pub(crate) fn prepare(db: &redb::Database) -> Result<()> {
    let found = {
        let txn = db.begin_write()?;
        let version = txn
            .table(tables::META)?
            .get(VERSION_KEY)?
            .map(|v| v.value());
        txn.abort()?;
        version
    };
    match found {
        Some(v) if v > SCHEMA_VERSION => {
            return Err(Error::NewerSchema {
                found: v,
                supported: SCHEMA_VERSION,
            });
        }
        Some(v) => {
            for from in v..SCHEMA_VERSION {
                let txn = WriteTxn::plain(db.begin_write()?);
                migrate_step(&txn, from)?;
                if from + 1 == SCHEMA_VERSION {
                    // The reference edges, made from the records in the layout they now have,
                    // with the last step: a step reads earlier steps' records in their own
                    // layouts only, never as today's types.
                    repo::rebuild_references(&txn)?;
                }
                set_version(&txn, from + 1)?;
                txn.commit()?;
                tracing::info!(from, to = from + 1, "database migrated");
            }
        }
        None => {}
    }
    let txn = db.begin_write()?;
    create_tables(&txn)?;
    if found.is_none() {
        set_version(&txn, SCHEMA_VERSION)?;
    }
    txn.commit()?;
    Ok(())
}

fn set_version(txn: &WriteTransaction, version: u64) -> Result<()> {
    txn.open_table(tables::META)?.insert(VERSION_KEY, version)?;
    Ok(())
}

fn create_tables(txn: &WriteTransaction) -> Result<()> {
    tables::visit_all(&mut Create(txn))
}

/// Opens (so creates) every table in a write transaction.
struct Create<'t>(&'t WriteTransaction);

impl tables::Visit for Create<'_> {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &mut self,
        def: redb::TableDefinition<K, V>,
    ) -> Result<()> {
        self.0.open_table(def)?;
        Ok(())
    }

    fn multimap<K: redb::Key + 'static, V: redb::Key + 'static>(
        &mut self,
        def: redb::MultimapTableDefinition<K, V>,
    ) -> Result<()> {
        self.0.open_multimap_table(def)?;
        Ok(())
    }
}

fn migrate_step(txn: &WriteTxn, from: u64) -> Result<()> {
    match from {
        1 => customers_v1_to_v2(txn),
        // v2 → v3 up to v7 → v8 add tables only; `create_tables` makes them after the steps
        // (v6's print summaries and v7's wear are filled by the print projection's first load).
        // v7 also keeps a build that does not keep the wear from writing prints into the file.
        2..=7 => Ok(()),
        8 => metered_v8_to_v9(txn),
        9 => tasks_v9_to_v10(txn),
        10 => work_v10_to_v11(txn),
        // v11 → v12 adds tables only.
        11 => Ok(()),
        12 => roles_v12_to_v13(txn),
        // v13 → v14 adds the journal's tables only: it begins empty, with the first change.
        13 => Ok(()),
        14 => materials_v14_to_v15(txn),
        15 => printers_v15_to_v16(txn),
        16 => components_v16_to_v17(txn),
        17 => prints_v17_to_v18(txn),
        other => Err(Error::Database(format!(
            "no migration from schema version {other}"
        ))),
    }
}

/// v17 → v18: every print (and every answer kept for a replay) has no consumables of its own.
fn prints_v17_to_v18(txn: &WriteTxn) -> Result<()> {
    rewrite(txn, (tables::PRINTS, "prints"), print_v18)?;
    rewrite(txn, (tables::PRINT_ANSWERS, "print_answers"), print_v18)
}

fn print_v18(old: legacy::PrintV17) -> Print {
    Print {
        id: old.id,
        version: old.version,
        name: old.name,
        customer_id: old.customer_id,
        series_id: old.series_id,
        quantity: old.quantity,
        sales_value: old.sales_value,
        notes: old.notes,
        status: old.status,
        paid: old.paid,
        paid_at: old.paid_at,
        archived: old.archived,
        archived_at: old.archived_at,
        parts: old.parts,
        costing: old.costing,
        finalized_at: old.finalized_at,
        printing_started_at: old.printing_started_at,
        printing_ended_at: old.printing_ended_at,
        completed_at: old.completed_at,
        repeat_of_id: old.repeat_of_id,
        retried_from_id: old.retried_from_id,
        retry_ids: old.retry_ids,
        outcome: old.outcome,
        created_at: old.created_at,
        updated_at: old.updated_at,
        work: old.work,
        price: old.price,
        materials: Vec::new(),
    }
}

/// v16 → v17: every component keeps its lifetime in hours.
fn components_v16_to_v17(txn: &WriteTxn) -> Result<()> {
    rewrite(txn, (tables::COMPONENTS, "components"), component_v17)
}

fn component_v17(old: legacy::ComponentV16) -> Component {
    Component {
        id: old.id,
        kind: old.kind,
        name: old.name,
        manufacturer_id: old.manufacturer_id,
        model: old.model,
        purchase_price: old.purchase_price,
        lifetime: Lifetime::Hours(old.expected_lifetime_hours),
        always_used: old.always_used,
        printer_ids: old.printer_ids,
        note: old.note,
        archived: old.archived,
        created_at: old.created_at,
        updated_at: old.updated_at,
    }
}

/// v15 → v16: every printer is an FDM printer.
fn printers_v15_to_v16(txn: &WriteTxn) -> Result<()> {
    rewrite(txn, (tables::PRINTERS, "printers"), printer_v16)
}

fn printer_v16(old: legacy::PrinterV15) -> Printer {
    Printer {
        id: old.id,
        name: old.name,
        manufacturer_id: old.manufacturer_id,
        model: old.model,
        purchase_price: old.purchase_price,
        expected_lifetime_hours: old.expected_lifetime_hours,
        average_power_watts: old.average_power_watts,
        note: old.note,
        archived: old.archived,
        created_at: old.created_at,
        updated_at: old.updated_at,
        technology: PrinterTechnology::Fdm,
    }
}

/// v14 → v15: every material is a filament counted in grams.
fn materials_v14_to_v15(txn: &WriteTxn) -> Result<()> {
    rewrite(txn, (tables::FILAMENTS, "filaments"), filament_v15)
}

fn filament_v15(old: legacy::FilamentV14) -> Filament {
    Filament {
        id: old.id,
        manufacturer_id: old.manufacturer_id,
        material: old.material,
        color_name: old.color_name,
        color_hex: old.color_hex,
        purchase_price: old.purchase_price,
        net_weight_grams: old.net_weight_grams,
        minimum_stock_grams: old.minimum_stock_grams,
        note: old.note,
        archived: old.archived,
        created_at: old.created_at,
        updated_at: old.updated_at,
        kind: MaterialKind::Filament,
        unit: StockUnit::Gram,
        density_grams_per_millilitre: None,
    }
}

/// v12 → v13: every account becomes an owner, enabled.
fn roles_v12_to_v13(txn: &WriteTxn) -> Result<()> {
    rewrite(txn, (tables::ACCOUNTS, "accounts"), account_v13)
}

fn account_v13(old: legacy::AccountV12) -> Account {
    Account {
        id: old.id,
        email: old.email,
        display_name: old.display_name,
        password_hash: old.password_hash,
        locale: old.locale,
        role: Role::Owner,
        disabled: false,
        created_at: old.created_at,
        updated_at: old.updated_at,
    }
}

/// v9 → v10: tasks of a deleted printer or component go (their edges, which tasks did not have
/// yet, come with the last step's rebuild).
fn tasks_v9_to_v10(txn: &WriteTxn) -> Result<()> {
    let mut dangling = Vec::new();
    repo::for_each::<MaintenanceTask>(txn, |t| dangling.push(t))?;
    let mut gone = Vec::new();
    // Whether a record is there, by its key: its bytes are in a later step's layout.
    let printers = txn.open_table(tables::PRINTERS)?;
    let components = txn.open_table(tables::COMPONENTS)?;
    for task in dangling {
        let printer = printers.get(task.printer_id.bytes())?.is_none();
        let component = match task.component_id {
            Some(c) => components.get(c.bytes())?.is_none(),
            None => false,
        };
        if printer || component {
            gone.push(task.id);
        }
    }
    drop((printers, components));
    for id in gone {
        tracing::warn!(task = %id, "a maintenance task of a deleted printer or component was removed");
        repo::remove::<MaintenanceTask>(txn, id)?;
    }
    Ok(())
}

/// A v10 outcome revision in the v11 layout: no actual work minutes.
fn revision_v11(old: legacy::OutcomeRevisionV10) -> OutcomeRevision {
    OutcomeRevision {
        revision: old.revision,
        status: old.status,
        duration_seconds: old.duration_seconds,
        part_durations: old.part_durations,
        grams: old.grams,
        note: old.note,
        failure_reason: old.failure_reason,
        correction_note: old.correction_note,
        operation_key: old.operation_key,
        recorded_at: old.recorded_at,
        actual: old.actual,
        electricity: old.electricity,
        work_minutes: Vec::new(),
    }
}

/// A v10 print in the v11 layout: no work lines.
fn print_v11(old: legacy::PrintV10) -> legacy::PrintV17 {
    legacy::PrintV17 {
        id: old.id,
        version: old.version,
        name: old.name,
        customer_id: old.customer_id,
        series_id: old.series_id,
        quantity: old.quantity,
        sales_value: old.sales_value,
        notes: old.notes,
        status: old.status,
        paid: old.paid,
        paid_at: old.paid_at,
        archived: old.archived,
        archived_at: old.archived_at,
        parts: old.parts,
        costing: old.costing,
        finalized_at: old.finalized_at,
        printing_started_at: old.printing_started_at,
        printing_ended_at: old.printing_ended_at,
        completed_at: old.completed_at,
        repeat_of_id: old.repeat_of_id,
        retried_from_id: old.retried_from_id,
        retry_ids: old.retry_ids,
        outcome: old.outcome.map(|revisions| Outcome {
            revisions: revisions.into_iter().map(revision_v11).collect(),
        }),
        created_at: old.created_at,
        updated_at: old.updated_at,
        work: Vec::new(),
        price: None,
    }
}

/// A v10 customer in the v11 layout: no discount.
fn customer_v11(old: legacy::CustomerV10) -> Customer {
    Customer {
        id: old.id,
        name: old.name,
        email: old.email,
        note: old.note,
        exclude_from_dashboard: old.exclude_from_dashboard,
        archived: old.archived,
        created_at: old.created_at,
        updated_at: old.updated_at,
        discount_percent: None,
        billing: Billing::default(),
    }
}

/// v10 → v11: prints (and the answers kept of them) gain work lines and a price suggestion and
/// their revisions work minutes, customers a discount; then every reference edge is made again
/// from the records.
fn work_v10_to_v11(txn: &WriteTxn) -> Result<()> {
    rewrite(txn, (tables::PRINTS, "prints"), print_v11)?;
    rewrite(txn, (tables::PRINT_ANSWERS, "print_answers"), print_v11)?;
    rewrite(txn, (tables::CUSTOMERS, "customers"), customer_v11)
}

/// v1 → v2: every customer gets `exclude_from_dashboard = false`.
fn customers_v1_to_v2(txn: &WriteTxn) -> Result<()> {
    let mut table = txn.open_table(tables::CUSTOMERS)?;
    let mut upgraded = Vec::new();
    for entry in table.iter()? {
        let (key, value) = entry?;
        let old: legacy::CustomerV1 = decode(tables::CUSTOMERS.name(), value.value())?;
        let new = legacy::CustomerV10 {
            id: old.id,
            name: old.name,
            email: old.email,
            note: old.note,
            exclude_from_dashboard: false,
            archived: old.archived,
            created_at: old.created_at,
            updated_at: old.updated_at,
        };
        upgraded.push((key.value(), encode("customers", &new)?));
    }
    for (key, bytes) in upgraded {
        table.insert(key, bytes.as_slice())?;
    }
    Ok(())
}

/// A v8 outcome revision in the v9 layout: no electricity kept (it was estimated).
fn revision_v9(old: legacy::OutcomeRevisionV8) -> legacy::OutcomeRevisionV10 {
    legacy::OutcomeRevisionV10 {
        revision: old.revision,
        status: old.status,
        duration_seconds: old.duration_seconds,
        part_durations: old.part_durations,
        grams: old.grams,
        note: old.note,
        failure_reason: old.failure_reason,
        correction_note: old.correction_note,
        operation_key: old.operation_key,
        recorded_at: old.recorded_at,
        actual: old.actual,
        electricity: Vec::new(),
    }
}

/// A v8 print in the v9 layout: no PRINTING times known.
fn print_v9(old: legacy::PrintV8) -> legacy::PrintV10 {
    legacy::PrintV10 {
        id: old.id,
        version: old.version,
        name: old.name,
        customer_id: old.customer_id,
        series_id: old.series_id,
        quantity: old.quantity,
        sales_value: old.sales_value,
        notes: old.notes,
        status: old.status,
        paid: old.paid,
        paid_at: old.paid_at,
        archived: old.archived,
        archived_at: old.archived_at,
        parts: old.parts,
        costing: old.costing,
        finalized_at: old.finalized_at,
        printing_started_at: None,
        printing_ended_at: None,
        completed_at: old.completed_at,
        repeat_of_id: old.repeat_of_id,
        retried_from_id: old.retried_from_id,
        retry_ids: old.retry_ids,
        outcome: old
            .outcome
            .map(|revisions| revisions.into_iter().map(revision_v9).collect()),
        created_at: old.created_at,
        updated_at: old.updated_at,
    }
}

/// A v8 log link in the v9 layout: no `energy_kwh` until the next read.
fn log_link_v9(old: legacy::LogLinkV8) -> LogLink {
    LogLink {
        part_id: old.part_id,
        print_id: old.print_id,
        remote_log_id: old.remote_log_id,
        log: old.log.map(|l| PrintLog {
            id: l.id,
            printer_id: l.printer_id,
            print_name: l.print_name,
            status: l.status,
            started_at: l.started_at,
            completed_at: l.completed_at,
            duration_seconds: l.duration_seconds,
            filament_used_grams: l.filament_used_grams,
            failure_reason: l.failure_reason,
            energy_kwh: None,
        }),
        synced_at: old.synced_at,
        error: old.error,
        imported_at: old.imported_at,
    }
}

/// Rewrites every value of `def` (named `name` in errors) from layout `Old` to `New` by
/// `upgrade`.
fn rewrite<K, Old, New>(
    txn: &WriteTransaction,
    (def, name): (redb::TableDefinition<K, &'static [u8]>, &'static str),
    upgrade: fn(Old) -> New,
) -> Result<()>
where
    K: redb::Key + 'static,
    for<'a> K: redb::Value<SelfType<'a> = K>,
    Old: serde::de::DeserializeOwned,
    New: Serialize,
{
    let mut table = txn.open_table(def)?;
    let mut upgraded = Vec::new();
    for entry in table.iter()? {
        let (key, value) = entry?;
        let old: Old = decode(name, value.value())?;
        upgraded.push((key.value(), encode(name, &upgrade(old))?));
    }
    for (key, bytes) in upgraded {
        table.insert(key, bytes.as_slice())?;
    }
    Ok(())
}

/// v8 → v9: prints (and the answers kept of them) gain their PRINTING times and their outcome
/// revisions each part's electricity; log links' entries gain `energy_kwh`.
fn metered_v8_to_v9(txn: &WriteTxn) -> Result<()> {
    rewrite(txn, (tables::PRINTS, "prints"), print_v9)?;
    rewrite(txn, (tables::PRINT_ANSWERS, "print_answers"), print_v9)?;
    rewrite(txn, (tables::LOG_LINKS, "log_links"), log_link_v9)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::records::{Company, ComponentType, Interval, Mark};
    use crate::{Id, Timestamp};
    use crate::{Store, StoreOptions, repo};

    fn write_v1_file(path: &std::path::Path, customer: &legacy::CustomerV1) {
        let db = redb::Database::create(path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(tables::META)
            .unwrap()
            .insert(VERSION_KEY, 1)
            .unwrap();
        let bytes = encode("customers", customer).unwrap();
        txn.open_table(tables::CUSTOMERS)
            .unwrap()
            .insert(customer.id.bytes(), bytes.as_slice())
            .unwrap();
        txn.commit().unwrap();
    }

    #[test]
    fn a_v1_customer_is_upgraded_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        let old = legacy::CustomerV1 {
            id: Id::new(),
            name: "Old Customer".into(),
            email: Some("old@example.com".into()),
            note: None,
            archived: true,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_100),
        };
        write_v1_file(&path, &old);

        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        let customer: Customer = repo::get(&txn, old.id).unwrap().unwrap();
        assert_eq!(customer.name, "Old Customer");
        assert_eq!(customer.email.as_deref(), Some("old@example.com"));
        assert!(customer.archived);
        assert!(!customer.exclude_from_dashboard);
        assert_eq!(customer.updated_at, Timestamp(1_700_000_100));
        let version = stored_version(&txn);
        assert_eq!(version, SCHEMA_VERSION);
    }

    /// The schema version stored in the file `txn` reads.
    fn stored_version(txn: &redb::ReadTransaction) -> u64 {
        txn.table(tables::META)
            .unwrap()
            .get(VERSION_KEY)
            .unwrap()
            .unwrap()
            .value()
    }

    fn printer(id: Id) -> legacy::PrinterV15 {
        legacy::PrinterV15 {
            id,
            name: "Ref printer".into(),
            manufacturer_id: Id::new(),
            model: None,
            purchase_price: 1200.into(),
            expected_lifetime_hours: 6000.into(),
            average_power_watts: 120,
            note: None,
            archived: false,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_000),
        }
    }

    fn task(printer_id: Id) -> MaintenanceTask {
        MaintenanceTask {
            id: Id::new(),
            printer_id,
            component_id: None,
            name: "Lubricate the rods".into(),
            every: Interval::Days(30),
            blocking: false,
            since: Mark {
                at: Timestamp(1_700_000_000),
                actual_seconds: 0,
                runs: 0,
            },
            done: Vec::new(),
            overrides: Vec::new(),
            archived: false,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_000),
        }
    }

    #[test]
    fn a_v9_file_loses_the_tasks_of_deleted_printers_and_gains_the_tasks_edges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        let kept_printer = printer(Id::new());
        let filament = v14_filament(kept_printer.manufacturer_id);
        let plate = v16_component(kept_printer.id);
        let (kept, dangling) = (task(kept_printer.id), task(Id::new()));
        {
            let store = Store::open(&path, StoreOptions::default()).unwrap();
            let txn = store.begin_write().unwrap();
            repo::put(&txn, &printer_v16(kept_printer.clone())).unwrap();
            // As a v9 build wrote it: without a technology.
            txn.open_table(tables::PRINTERS)
                .unwrap()
                .insert(
                    kept_printer.id.bytes(),
                    encode("p", &kept_printer).unwrap().as_slice(),
                )
                .unwrap();
            // A filament as builds before schema 15 wrote it.
            txn.open_table(tables::FILAMENTS)
                .unwrap()
                .insert(
                    filament.id.bytes(),
                    encode("f", &filament).unwrap().as_slice(),
                )
                .unwrap();
            // A component as builds before schema 17 wrote it (a lifetime in hours only).
            txn.open_table(tables::COMPONENTS)
                .unwrap()
                .insert(plate.id.bytes(), encode("c", &plate).unwrap().as_slice())
                .unwrap();
            // As a v9 build wrote them: rows without reference edges.
            for t in [&kept, &dangling] {
                txn.open_table(tables::MAINTENANCE_TASKS)
                    .unwrap()
                    .insert(t.id.bytes(), encode("t", t).unwrap().as_slice())
                    .unwrap();
            }
            set_version(&txn, 9).unwrap();
            txn.commit().unwrap();
        }
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        assert_eq!(stored_version(&store.begin_read().unwrap()), SCHEMA_VERSION);
        let txn = store.begin_write().unwrap();
        assert_eq!(
            repo::get::<MaintenanceTask>(&txn, kept.id).unwrap(),
            Some(kept.clone())
        );
        assert_eq!(
            repo::get::<MaintenanceTask>(&txn, dangling.id).unwrap(),
            None
        );
        assert!(repo::is_referenced(&txn, kept_printer.manufacturer_id).unwrap());
        // v16: the printer is an FDM printer with every figure it had, the filament a
        // filament in grams, and both are in the rebuilt edges.
        assert_eq!(
            repo::get::<Printer>(&txn, kept_printer.id).unwrap(),
            Some(printer_v16(kept_printer.clone()))
        );
        assert_eq!(
            repo::get::<Filament>(&txn, filament.id).unwrap(),
            Some(filament_v15(filament.clone()))
        );
        // v17: the component keeps its lifetime in hours, and fits its printer still.
        assert_eq!(
            repo::get::<Component>(&txn, plate.id).unwrap(),
            Some(component_v17(plate.clone()))
        );
        assert_eq!(
            component_v17(plate.clone()).lifetime,
            Lifetime::Hours(plate.expected_lifetime_hours)
        );
        let mut fits = repo::referrers(&txn, kept_printer.id).unwrap();
        fits.sort();
        let mut expected = vec![kept.id, plate.id];
        expected.sort();
        assert_eq!(fits, expected);
        let mut makes = repo::referrers(&txn, kept_printer.manufacturer_id).unwrap();
        makes.sort();
        let mut expected = vec![kept_printer.id, filament.id];
        expected.sort();
        assert_eq!(makes, expected);
    }

    fn v16_component(printer_id: Id) -> legacy::ComponentV16 {
        legacy::ComponentV16 {
            id: Id::new(),
            kind: ComponentType::BuildPlate,
            name: "Textured PEI".into(),
            manufacturer_id: None,
            model: None,
            purchase_price: 60.into(),
            expected_lifetime_hours: 1200.into(),
            always_used: true,
            printer_ids: vec![printer_id],
            note: None,
            archived: false,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_000),
        }
    }

    fn v14_filament(manufacturer_id: Id) -> legacy::FilamentV14 {
        legacy::FilamentV14 {
            id: Id::new(),
            manufacturer_id,
            material: "PLA".into(),
            color_name: "Black".into(),
            color_hex: "#000000".into(),
            purchase_price: 25.into(),
            net_weight_grams: 1000.into(),
            minimum_stock_grams: None,
            note: None,
            archived: false,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_000),
        }
    }

    /// A file holding nothing but schema version `version`.
    pub(crate) fn file_at_version(path: &std::path::Path, version: u64) {
        let db = redb::Database::create(path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(tables::META)
            .unwrap()
            .insert(VERSION_KEY, version)
            .unwrap();
        txn.commit().unwrap();
    }

    #[test]
    fn a_v2_file_gains_the_spool_managers_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        file_at_version(&path, 2);
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        let version = stored_version(&txn);
        assert_eq!(version, SCHEMA_VERSION);
        assert!(repo::is_empty(&txn, tables::SPOOL_LINKS).unwrap());
        assert_eq!(
            repo::remote_get(&txn, tables::REMOTE_SPOOLS, 1).unwrap(),
            None
        );
    }

    #[test]
    fn a_v11_file_gains_the_quotes_and_their_number_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        file_at_version(&path, 11);
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        assert_eq!(stored_version(&txn), SCHEMA_VERSION);
        assert!(repo::is_empty(&txn, tables::QUOTES).unwrap());
        assert_eq!(repo::company(&txn).unwrap(), Company::default());
        let write = store.begin_write().unwrap();
        assert_eq!(repo::next_number(&write, "A-2026").unwrap(), 1);
    }

    /// Every account of a file from before roles becomes an owner, enabled, and keeps the rest.
    #[test]
    fn a_v12_files_accounts_become_owners() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        file_at_version(&path, 12);
        let old = |email: &str| legacy::AccountV12 {
            id: Id::new(),
            email: email.into(),
            display_name: "Old".into(),
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$x$y".into(),
            locale: "de-DE".into(),
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_100),
        };
        let accounts = [old("a@example.com"), old("b@example.com")];
        {
            let db = redb::Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            let mut table = txn.open_table(tables::ACCOUNTS).unwrap();
            for account in &accounts {
                let bytes = encode("accounts", account).unwrap();
                table.insert(account.id.bytes(), bytes.as_slice()).unwrap();
            }
            drop(table);
            txn.commit().unwrap();
        }
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        assert_eq!(stored_version(&txn), SCHEMA_VERSION);
        for old in accounts {
            let account: Account = repo::get(&txn, old.id).unwrap().unwrap();
            assert_eq!(account.role, Role::Owner);
            assert!(!account.disabled);
            assert_eq!(
                (account.email, account.locale, account.updated_at),
                (old.email, old.locale, old.updated_at)
            );
        }
    }

    /// Every filament of a file from before material kinds stays a filament in grams with
    /// every figure it had.
    #[test]
    fn a_v14_files_filaments_stay_filaments_in_grams() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        file_at_version(&path, 14);
        let old = legacy::FilamentV14 {
            id: Id::new(),
            manufacturer_id: Id::new(),
            material: "PETG".into(),
            color_name: "Jet Black".into(),
            color_hex: "#101010".into(),
            purchase_price: "24.99".parse().unwrap(),
            net_weight_grams: "1000".parse().unwrap(),
            minimum_stock_grams: Some("250.5".parse().unwrap()),
            note: Some("dry first".into()),
            archived: true,
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_100),
        };
        {
            let db = redb::Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            let mut table = txn.open_table(tables::FILAMENTS).unwrap();
            let bytes = encode("filaments", &old).unwrap();
            table.insert(old.id.bytes(), bytes.as_slice()).unwrap();
            drop(table);
            txn.commit().unwrap();
        }
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        assert_eq!(stored_version(&txn), SCHEMA_VERSION);
        let filament: Filament = repo::get(&txn, old.id).unwrap().unwrap();
        assert_eq!(filament, filament_v15(old.clone()));
        assert_eq!(
            (
                filament.kind,
                filament.unit,
                filament.density_grams_per_millilitre
            ),
            (MaterialKind::Filament, StockUnit::Gram, None)
        );
        assert_eq!(
            (filament.net_weight_grams, filament.minimum_stock_grams),
            (old.net_weight_grams, old.minimum_stock_grams)
        );
    }

    fn v8_print(id: Id) -> legacy::PrintV8 {
        use crate::records::{Costing, OutcomeStatus, PrintStatus};
        let costing = Costing {
            electricity_price: "0.32".parse().unwrap(),
            lines: Vec::new(),
            total: "1.5".parse().unwrap(),
            cost_per_unit: "1.5".parse().unwrap(),
        };
        let revision = legacy::OutcomeRevisionV8 {
            revision: 1,
            status: OutcomeStatus::Success,
            duration_seconds: 3600,
            part_durations: vec![(Id::new(), 3600)],
            grams: Vec::new(),
            note: Some("fine".into()),
            failure_reason: None,
            correction_note: None,
            operation_key: None,
            recorded_at: Timestamp(1_700_000_500),
            actual: costing.clone(),
        };
        legacy::PrintV8 {
            id,
            version: 4,
            name: "Bracket".into(),
            customer_id: None,
            series_id: None,
            quantity: 2,
            sales_value: Some("9.90".parse().unwrap()),
            notes: None,
            status: PrintStatus::Done,
            paid: false,
            paid_at: None,
            archived: false,
            archived_at: None,
            parts: Vec::new(),
            costing,
            finalized_at: Some(Timestamp(1_700_000_100)),
            completed_at: Some(Timestamp(1_700_000_400)),
            repeat_of_id: None,
            retried_from_id: None,
            retry_ids: Vec::new(),
            outcome: Some(vec![revision]),
            created_at: Timestamp(1_700_000_000),
            updated_at: Timestamp(1_700_000_500),
        }
    }

    #[test]
    fn a_v8_file_gains_printing_times_and_electricity_fields() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        let (id, part) = (Id::new(), Id::new());
        let old = v8_print(id);
        let link = legacy::LogLinkV8 {
            part_id: part,
            print_id: id,
            remote_log_id: 41,
            log: Some(legacy::PrintLogV8 {
                id: 41,
                printer_id: Some(1),
                print_name: Some("Bracket".into()),
                status: "completed".into(),
                started_at: Some(Timestamp(1_700_000_000)),
                completed_at: Some(Timestamp(1_700_003_600)),
                duration_seconds: Some(3600),
                filament_used_grams: Some("42.5".parse().unwrap()),
                failure_reason: None,
            }),
            synced_at: None,
            error: None,
            imported_at: None,
        };
        file_at_version(&path, 8);
        {
            let db = redb::Database::open(&path).unwrap();
            let txn = db.begin_write().unwrap();
            let bytes = encode("prints", &old).unwrap();
            txn.open_table(tables::PRINTS)
                .unwrap()
                .insert(id.bytes(), bytes.as_slice())
                .unwrap();
            txn.open_table(tables::PRINT_ANSWERS)
                .unwrap()
                .insert((id.bytes(), 1), bytes.as_slice())
                .unwrap();
            let bytes = encode("log_links", &link).unwrap();
            txn.open_table(tables::LOG_LINKS)
                .unwrap()
                .insert(part.bytes(), bytes.as_slice())
                .unwrap();
            txn.commit().unwrap();
        }
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        assert_eq!(stored_version(&txn), SCHEMA_VERSION);
        let print: Print = repo::get(&txn, id).unwrap().unwrap();
        assert_eq!(print.printing_started_at, None);
        assert_eq!(print.sales_value, old.sales_value);
        let revision = print.outcome.as_ref().unwrap().current().unwrap();
        assert_eq!(revision.note.as_deref(), Some("fine"));
        assert!(revision.electricity.is_empty());
        assert_eq!(repo::answer(&txn, id, 1).unwrap(), Some(print.clone()));
        let link: LogLink = repo::get(&txn, part).unwrap().unwrap();
        let log = link.log.unwrap();
        assert_eq!((log.energy_kwh, log.duration_seconds), (None, Some(3600)));
    }

    #[test]
    fn a_v10_file_gains_work_lines_and_its_prints_edges_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        let (id, customer) = (Id::new(), Id::new());
        let old = legacy::PrintV10 {
            customer_id: Some(customer),
            ..print_v9(v8_print(id))
        };
        file_at_version(&path, 10);
        {
            let db = redb::Database::open(&path).unwrap();
            let txn = db.begin_write().unwrap();
            let bytes = encode("prints", &old).unwrap();
            txn.open_table(tables::PRINTS)
                .unwrap()
                .insert(id.bytes(), bytes.as_slice())
                .unwrap();
            txn.open_table(tables::PRINT_ANSWERS)
                .unwrap()
                .insert((id.bytes(), 1), bytes.as_slice())
                .unwrap();
            let old_customer = legacy::CustomerV10 {
                id: customer,
                name: "Jane".into(),
                email: None,
                note: None,
                exclude_from_dashboard: true,
                archived: false,
                created_at: Timestamp(1),
                updated_at: Timestamp(2),
            };
            let bytes = encode("customers", &old_customer).unwrap();
            txn.open_table(tables::CUSTOMERS)
                .unwrap()
                .insert(customer.bytes(), bytes.as_slice())
                .unwrap();
            txn.commit().unwrap();
        }
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        assert_eq!(stored_version(&txn), SCHEMA_VERSION);
        let upgraded: Customer = repo::get(&txn, customer).unwrap().unwrap();
        assert_eq!(upgraded.discount_percent, None);
        assert!(upgraded.exclude_from_dashboard);
        let print: Print = repo::get(&txn, id).unwrap().unwrap();
        assert!(print.work.is_empty());
        assert_eq!(print.price, None);
        assert_eq!((print.customer_id, print.version), (Some(customer), 4));
        let revision = print.outcome.as_ref().unwrap().current().unwrap();
        assert!(revision.work_minutes.is_empty());
        assert_eq!(revision.note.as_deref(), Some("fine"));
        assert_eq!(repo::answer(&txn, id, 1).unwrap(), Some(print));
        drop(txn);
        let txn = store.begin_write().unwrap();
        assert!(repo::is_referenced(&txn, customer).unwrap());
    }

    #[test]
    fn a_newer_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("printcost.redb");
        file_at_version(&path, SCHEMA_VERSION + 1);
        let err = Store::open(&path, StoreOptions::default()).unwrap_err();
        assert!(matches!(err, Error::NewerSchema { found, .. } if found == SCHEMA_VERSION + 1));
        assert!(err.to_string().contains("newer printcost"));
        let db = redb::Database::open(&path).unwrap();
        assert_eq!(
            stored_version(&redb::ReadableDatabase::begin_read(&db).unwrap()),
            SCHEMA_VERSION + 1
        );
    }

    #[test]
    fn a_new_file_gets_the_current_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let txn = store.begin_read().unwrap();
        let version = stored_version(&txn);
        assert_eq!(version, SCHEMA_VERSION);
        assert!(repo::is_empty(&txn, tables::PRINTS).unwrap());
    }
}
