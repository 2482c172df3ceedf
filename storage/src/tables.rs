//! Every redb table of the store, in one place. All of them are created by the transaction that
//! opens the store (see `schema.rs`), so readers never meet a missing table.
//!
//! Record tables map a 16-byte id to a bincode value; index tables map a normalised key to an id.

use redb::{MultimapTableDefinition, TableDefinition};

/// Key-value facts about the file itself: `schema_version`, and `last_backup_at` (seconds since
/// the Unix epoch of the last backup the service handed out).
pub const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// The journal (`journal.rs`): entry number to the entry's SHA-256 and canonical encoding; key 0
/// holds the head, the last entry's number (8 bytes, big-endian) and SHA-256 (schema 14).
pub const JOURNAL: TableDefinition<u64, &[u8]> = TableDefinition::new("journal");
/// Index of the journal: (a touched record's id as the journal writes it, or `account:<uuid>`
/// for the entries an account made; the entry's number) (schema 14).
pub const JOURNAL_INDEX: TableDefinition<(&str, u64), ()> = TableDefinition::new("journal_index");

/// Accounts by id.
pub const ACCOUNTS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("accounts");
/// Unique index: lower-case email to account id.
pub const ACCOUNT_EMAILS: TableDefinition<&str, [u8; 16]> = TableDefinition::new("account_emails");
/// Sessions by SHA-256 of their token.
pub const SESSIONS: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("sessions");
/// The settings record under key 0, the integrations' settings under key 1, the nightly
/// backup's schedule under key 2, the SHA-256 of the metrics token under key 3, the alert
/// settings and standing alerts under keys 4 and 5, the price rule under key 6, the company
/// under key 7.
pub const SETTINGS: TableDefinition<u8, &[u8]> = TableDefinition::new("settings");

/// Customers by id.
pub const CUSTOMERS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("customers");
/// Manufacturers by id.
pub const MANUFACTURERS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("manufacturers");
/// Unique index: lower-case trimmed manufacturer name to id.
pub const MANUFACTURER_NAMES: TableDefinition<&str, [u8; 16]> =
    TableDefinition::new("manufacturer_names");
/// Printers by id.
pub const PRINTERS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("printers");
/// Components by id.
pub const COMPONENTS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("components");
/// Filaments by id.
pub const FILAMENTS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("filaments");

/// Labour rates by id (schema 11).
pub const LABOUR_RATES: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("labour_rates");
/// Fixed charges by id (schema 11).
pub const CHARGES: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("charges");
/// Post-processing steps by id (schema 11).
pub const POST_PROCESSING_STEPS: TableDefinition<[u8; 16], &[u8]> =
    TableDefinition::new("post_processing_steps");

/// Prints by id. The currency lock reads it too (no currency change once any print exists).
pub const PRINTS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("prints");
/// Print series by id.
pub const SERIES: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("series");

/// Spools by id.
pub const SPOOLS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("spools");
/// Unique index: lower-case spool code to spool id.
pub const SPOOL_CODES: TableDefinition<&str, [u8; 16]> = TableDefinition::new("spool_codes");
/// Ledger movements by id.
pub const MOVEMENTS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("movements");
/// A spool's movements in booking order: (spool id, movement id).
pub const SPOOL_MOVEMENTS: TableDefinition<([u8; 16], [u8; 16]), ()> =
    TableDefinition::new("spool_movements");
/// Idempotency: operation key to the movement it booked.
pub const MOVEMENT_KEYS: TableDefinition<[u8; 16], [u8; 16]> =
    TableDefinition::new("movement_keys");

/// Idempotency of outcome corrections: operation key to the print it corrected.
pub const CORRECTION_KEYS: TableDefinition<[u8; 16], [u8; 16]> =
    TableDefinition::new("correction_keys");

/// Spool-manager links by local spool id.
pub const SPOOL_LINKS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("spool_links");
/// Remote spool id to the local spool it was linked to; an entry is never moved or removed (an
/// external id stays reserved after an unlink).
pub const REMOTE_SPOOLS: TableDefinition<u64, [u8; 16]> = TableDefinition::new("remote_spools");
/// Remote filament id to the local filament made or matched for it.
pub const REMOTE_FILAMENTS: TableDefinition<u64, [u8; 16]> =
    TableDefinition::new("remote_filaments");
/// Remote vendor id to the local manufacturer made or matched for it.
pub const REMOTE_VENDORS: TableDefinition<u64, [u8; 16]> = TableDefinition::new("remote_vendors");
/// Spool-manager operations by id (time-ordered).
pub const SPOOLMGR_OPERATIONS: TableDefinition<[u8; 16], &[u8]> =
    TableDefinition::new("spoolmgr_operations");
/// One operation per usage and outcome revision: (usage id, revision) to the operation.
pub const SPOOLMGR_OPERATION_KEYS: TableDefinition<([u8; 16], u32), [u8; 16]> =
    TableDefinition::new("spoolmgr_operation_keys");

/// Printer-fleet links by local printer id.
pub const PRINTER_LINKS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("printer_links");
/// Remote printer id to the local printer linked to it (one local printer per remote printer).
pub const REMOTE_PRINTERS: TableDefinition<u64, [u8; 16]> = TableDefinition::new("remote_printers");
/// Print-log links by part id.
pub const LOG_LINKS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("log_links");
/// Remote log id to the part it is attached to (one part per log).
pub const REMOTE_LOGS: TableDefinition<u64, [u8; 16]> = TableDefinition::new("remote_logs");

/// Reference edges for safe deletes: referenced record id to the ids of records referring to it.
pub const REFERENCES: MultimapTableDefinition<[u8; 16], [u8; 16]> =
    MultimapTableDefinition::new("references");

/// Each outcome and correction answer by (print id, outcome revision): the print record as the
/// call that made the revision answered it, so that a replay answers the same body.
pub const PRINT_ANSWERS: TableDefinition<([u8; 16], u32), &[u8]> =
    TableDefinition::new("print_answers");

/// The sliced file each print made from one was made from: print id → [`crate::records::PrintSource`].
pub const PRINT_SOURCES: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("print_sources");

/// The prints made from each sliced file: (SHA-256 of the file, print id) → ().
pub const SOURCE_PRINTS: TableDefinition<([u8; 32], [u8; 16]), ()> =
    TableDefinition::new("source_prints");

/// The print projection's summary of each print, kept with it: id → compact bytes (the actors'
/// `prints::summary`); META's `print_summaries` names their format once they are complete.
pub const PRINT_SUMMARIES: TableDefinition<[u8; 16], &[u8]> =
    TableDefinition::new("print_summaries");

/// What each printer and component has run, derived from the prints with each print write:
/// subject id → bincode `Wear` (the actors' `projection::wear`); filled with the print
/// summaries when those are rebuilt.
pub const WEAR: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("wear");
/// Maintenance tasks by id.
pub const MAINTENANCE_TASKS: TableDefinition<[u8; 16], &[u8]> =
    TableDefinition::new("maintenance_tasks");

/// Energy meters' readings, an hour per row: (meter id, hour since the Unix epoch) → the
/// compact steps of `records::MeterHour`.
pub const METER_READINGS: TableDefinition<([u8; 16], u64), &[u8]> =
    TableDefinition::new("meter_readings");

/// Printers' energy meters: printer id → bincode `records::MeterLink`.
pub const METER_LINKS: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("meter_links");

/// Quotes by id (schema 12).
pub const QUOTES: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("quotes");

/// Invoices and credit notes by id (schema 12).
pub const INVOICES: TableDefinition<[u8; 16], &[u8]> = TableDefinition::new("invoices");

/// Gapless number ranges: a range's name with its year (`A-2026`) → the last number given in it
/// (schema 12).
pub const NUMBER_RANGES: TableDefinition<&str, u32> = TableDefinition::new("number_ranges");

/// Something done to every table of the store, typed: creating them when the store opens, copying
/// them into a backup, a test's digest of the whole store. [`visit_all`] names each table once.
pub trait Visit {
    /// Visits a key-value table.
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &mut self,
        def: TableDefinition<K, V>,
    ) -> crate::Result<()>;

    /// Visits a multimap table.
    fn multimap<K: redb::Key + 'static, V: redb::Key + 'static>(
        &mut self,
        def: MultimapTableDefinition<K, V>,
    ) -> crate::Result<()>;
}

/// Runs `visit` over every table above, `META` first.
pub fn visit_all(visit: &mut impl Visit) -> crate::Result<()> {
    visit.table(META)?;
    visit.table(ACCOUNT_EMAILS)?;
    visit.table(SESSIONS)?;
    visit.table(SETTINGS)?;
    visit.table(MANUFACTURER_NAMES)?;
    visit.table(SPOOL_CODES)?;
    visit.table(SPOOL_MOVEMENTS)?;
    visit.table(MOVEMENT_KEYS)?;
    visit.table(CORRECTION_KEYS)?;
    visit.table(REMOTE_SPOOLS)?;
    visit.table(REMOTE_FILAMENTS)?;
    visit.table(REMOTE_VENDORS)?;
    visit.table(SPOOLMGR_OPERATION_KEYS)?;
    visit.table(REMOTE_PRINTERS)?;
    visit.table(REMOTE_LOGS)?;
    visit.table(PRINT_ANSWERS)?;
    visit.table(PRINT_SOURCES)?;
    visit.table(SOURCE_PRINTS)?;
    visit.table(METER_READINGS)?;
    visit.table(NUMBER_RANGES)?;
    visit.table(JOURNAL)?;
    visit.table(JOURNAL_INDEX)?;
    for def in [
        ACCOUNTS,
        CUSTOMERS,
        MANUFACTURERS,
        PRINTERS,
        COMPONENTS,
        FILAMENTS,
        LABOUR_RATES,
        CHARGES,
        POST_PROCESSING_STEPS,
        PRINTS,
        PRINT_SUMMARIES,
        WEAR,
        MAINTENANCE_TASKS,
        METER_LINKS,
        SERIES,
        SPOOLS,
        MOVEMENTS,
        SPOOL_LINKS,
        SPOOLMGR_OPERATIONS,
        PRINTER_LINKS,
        LOG_LINKS,
        QUOTES,
        INVOICES,
    ] {
        visit.table(def)?;
    }
    visit.multimap(REFERENCES)
}
