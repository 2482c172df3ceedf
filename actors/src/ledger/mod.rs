//! The spool ledger: spools and their append-only movements. Every stock change goes through
//! [`book`], in the caller's transaction (the ledger actor for movements from the API, the
//! print actor for outcomes), so its rules live here once:
//!
//! - a movement is never changed or deleted; `remaining_grams` of the spool always equals the sum
//!   of its movements, updated in the same transaction;
//! - RECEIPT grams are positive; CORRECTION grams are nonzero and may not take the spool below
//!   zero; PRINT grams are signed (consumption negative, a lowering correction positive);
//! - an operation key books at most once: the same key with the same content returns the first
//!   movement, with other content it is refused ([`Error::OperationKeyReused`]).
//!
//! Unit cost of a spool: `purchasePrice / initialNetWeightGrams` (currency per gram).
//!
//! [`remote`] holds who owns the stock of a spool linked to the spool manager, and the
//! consumption queued for it.

pub mod remote;

use crate::lines::Lines;
use crate::list::{self, Page};
use crate::txn::Txn;
use crate::values::{Note, note_text};
use crate::{Error, FieldError, Result, money};
use jiff::civil::Date;
use redb::ReadableTable;
use remote as links;
use rust_decimal::Decimal;
use storage::ledger;
use storage::ledger::LedgerTables;
use storage::records::{Filament, MaterialKind, Movement, MovementKind, Spool, StockUnit};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp, tables};

/// What a new spool is made of.
#[derive(Debug, Clone)]
pub struct SpoolInput {
    /// Unique code; `None` draws the next `SP-000001`-style code.
    pub code: Option<String>,
    /// Its filament.
    pub filament_id: Id,
    /// What it cost.
    pub purchase_price: Decimal,
    /// Net quantity when bought (> 0), in `unit`; booked as the opening receipt.
    pub initial_net_weight_grams: Decimal,
    /// The unit the quantity was given in: it must be the material's.
    pub unit: StockUnit,
    /// Manufacturer's lot.
    pub purchase_lot: Option<Note>,
    /// Where it is kept.
    pub location: Option<Note>,
    /// Purchase date.
    pub acquired_at: Option<Date>,
}

/// A movement to book.
#[derive(Debug, Clone, PartialEq)]
pub struct MovementInput {
    /// Kind.
    pub kind: MovementKind,
    /// Signed grams.
    pub grams: Decimal,
    /// Free text.
    pub note: Option<String>,
    /// Idempotency key.
    pub operation_key: Option<Id>,
    /// For PRINT movements, the print.
    pub print_id: Option<Id>,
    /// For PRINT movements, the usage.
    pub usage_id: Option<Id>,
}

/// The unit cost of `spool`: `purchasePrice / initialNetWeightGrams`, currency per gram.
pub fn unit_cost(spool: &Spool) -> Decimal {
    money::rate(spool.purchase_price, spool.initial_net_weight_grams)
}

/// The unique-index key of a spool code.
pub fn code_key(code: &str) -> String {
    code.trim().to_lowercase()
}

/// The spool `id`. Errors: [`Error::NotFound`].
pub fn get(tx: &impl Tx, id: Id) -> Result<Spool> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// The next free automatic code, `SP-` and six digits, from a counter in the meta table.
fn next_code(txn: &Txn) -> Result<String> {
    let mut meta = txn.open_table(tables::META).map_err(storage::Error::from)?;
    let mut next = meta
        .get("spool_sequence")
        .map_err(storage::Error::from)?
        .map_or(1, |v| v.value() + 1);
    loop {
        let code = format!("SP-{next:06}");
        if repo::index_get(txn, tables::SPOOL_CODES, &code_key(&code))?.is_none() {
            meta.insert("spool_sequence", next)
                .map_err(storage::Error::from)?;
            return Ok(code);
        }
        next += 1;
    }
}

/// The request field that carries a spool's initial quantity in `unit`:
/// `initialNetWeightGrams`, `initialMillilitres` or `initialPieces`.
pub fn initial_field(unit: StockUnit) -> &'static str {
    match unit {
        StockUnit::Gram => "initialNetWeightGrams",
        StockUnit::Millilitre => "initialMillilitres",
        StockUnit::Piece => "initialPieces",
    }
}

/// The request field that carries a movement's quantity in `unit`: `grams`, `millilitres` or
/// `pieces`.
pub fn quantity_field(unit: StockUnit) -> &'static str {
    match unit {
        StockUnit::Gram => "grams",
        StockUnit::Millilitre => "millilitres",
        StockUnit::Piece => "pieces",
    }
}

/// `quantity` in `unit`, refused at `path` (`errors.wholeNumber`) when `unit` counts whole
/// pieces and it has a fraction.
pub fn require_whole(unit: StockUnit, quantity: Decimal, path: &str) -> Result<()> {
    if unit == StockUnit::Piece && !quantity.fract().is_zero() {
        return Err(Error::field(path, "errors.wholeNumber"));
    }
    Ok(())
}

/// Refuses `spool` where only filament goes (the spool manager, a printer-fleet tray):
/// [`Error::MaterialNotFilament`] when it holds a resin or a consumable.
pub fn require_filament(tx: &impl Tx, spool: &Spool) -> Result<()> {
    match repo::get::<Filament>(tx, spool.filament_id)? {
        Some(material) if material.kind != MaterialKind::Filament => {
            Err(Error::MaterialNotFilament)
        }
        _ => Ok(()),
    }
}

/// Whether material `id` has any spool (bottle, pack), archived ones included.
pub fn has_spools(tx: &impl Tx, id: Id) -> Result<bool> {
    Ok(repo::all::<Spool>(tx)?.iter().any(|s| s.filament_id == id))
}

/// Creates a spool (a resin's bottle, a consumable's pack) and books its opening RECEIPT of
/// `initial_net_weight_grams`, atomically.
///
/// Errors: [`Error::Duplicate`] on `code`; [`Error::Validation`] for an unknown `filamentId`,
/// a quantity that is not positive, in another unit than the material's (`errors.wrongUnit` at
/// the field of the unit it was sent in, [`initial_field`]) or a fraction of a piece.
pub fn open_spool(txn: &Txn, input: &SpoolInput, now: Timestamp) -> Result<Spool> {
    let Some(material) = repo::get::<Filament>(txn, input.filament_id)? else {
        return Err(Error::field("filamentId", "errors.notFound"));
    };
    let field = initial_field(input.unit);
    if material.unit != input.unit {
        return Err(Error::field(field, "errors.wrongUnit"));
    }
    if input.initial_net_weight_grams <= Decimal::ZERO {
        return Err(Error::field(field, "errors.notPositive"));
    }
    if !within_limits(input.initial_net_weight_grams) {
        return Err(Error::field(field, "errors.outOfRange"));
    }
    require_whole(material.unit, input.initial_net_weight_grams, field)?;
    let code = match &input.code {
        Some(code) => {
            if repo::index_get(txn, tables::SPOOL_CODES, &code_key(code))?.is_some() {
                return Err(Error::Duplicate(FieldError::new(
                    "code",
                    "errors.duplicate",
                )));
            }
            code.trim().to_string()
        }
        None => next_code(txn)?,
    };
    let spool = Spool {
        id: Id::new(),
        code,
        filament_id: input.filament_id,
        purchase_price: input.purchase_price,
        initial_net_weight_grams: input.initial_net_weight_grams,
        purchase_lot: note_text(input.purchase_lot.clone()),
        location: note_text(input.location.clone()),
        acquired_at: input.acquired_at.map(|d| d.to_string()),
        remaining_grams: Decimal::ZERO,
        archived: false,
        created_at: now,
        updated_at: now,
    };
    repo::put(txn, &spool)?;
    repo::index_put(txn, tables::SPOOL_CODES, &code_key(&spool.code), spool.id)?;
    let opening = MovementInput {
        kind: MovementKind::Receipt,
        grams: spool.initial_net_weight_grams,
        note: Some(Lines::of_instance(txn)?.opening_receipt().into()),
        operation_key: None,
        print_id: None,
        usage_id: None,
    };
    book(txn, spool.id, &opening, now)?;
    get(txn, spool.id)
}

fn same_content(m: &Movement, spool_id: Id, input: &MovementInput) -> bool {
    m.spool_id == spool_id
        && m.kind == input.kind
        && m.grams == input.grams.normalize()
        && m.note == input.note
        && m.print_id == input.print_id
        && m.usage_id == input.usage_id
}

/// Whether `grams` fits the ledger: at most 12 whole and 6 fractional digits (spec, Limits; the
/// API's grams fields, [`crate::values::Grams`], parse to the same limits). Every movement is
/// checked here, the opening receipt and consumption included.
pub fn within_limits(grams: Decimal) -> bool {
    let grams = grams.normalize();
    grams.scale() <= 6 && grams.abs() < Decimal::from(1_000_000_000_000_u64)
}

/// Books `input` on spool `spool_id` and updates its remaining grams, in `txn`.
///
/// Errors: [`Error::NotFound`]; [`Error::OperationKeyReused`]; [`Error::Validation`] on `grams`
/// (`errors.outOfRange` beyond [`within_limits`], `errors.notPositive` for a receipt,
/// `errors.zero` for a correction, `errors.belowZero` when a correction takes grams away and
/// would leave the spool below zero; one that adds grams is taken on a spool that prints took
/// below zero, as it moves the balance toward what is on the shelf).
pub fn book(txn: &Txn, spool_id: Id, input: &MovementInput, now: Timestamp) -> Result<Movement> {
    txn.with_ledger(|ledger| book_in(ledger, spool_id, input, now))
}

/// [`book`] in the ledger's open tables.
fn book_in(
    ledger: &mut LedgerTables<'_>,
    spool_id: Id,
    input: &MovementInput,
    now: Timestamp,
) -> Result<Movement> {
    let mut spool = ledger.spool(spool_id)?.ok_or(Error::NotFound)?;
    if let Some(key) = input.operation_key
        && let Some(first) = ledger.movement_by_key(key)?
    {
        return if same_content(&first, spool_id, input) {
            Ok(first)
        } else {
            Err(Error::OperationKeyReused)
        };
    }
    let grams = input.grams.normalize();
    if !within_limits(grams) {
        return Err(Error::field("grams", "errors.outOfRange"));
    }
    match input.kind {
        MovementKind::Receipt if grams <= Decimal::ZERO => {
            return Err(Error::field("grams", "errors.notPositive"));
        }
        MovementKind::Correction if grams.is_zero() => {
            return Err(Error::field("grams", "errors.zero"));
        }
        MovementKind::Correction
            if grams < Decimal::ZERO && spool.remaining_grams + grams < Decimal::ZERO =>
        {
            return Err(Error::field("grams", "errors.belowZero"));
        }
        _ => {}
    }
    let movement = Movement {
        id: Id::new(),
        spool_id,
        kind: input.kind,
        grams,
        note: input.note.clone(),
        operation_key: input.operation_key,
        print_id: input.print_id,
        usage_id: input.usage_id,
        created_at: now,
    };
    ledger.append(&movement)?;
    spool.remaining_grams = (spool.remaining_grams + grams).normalize();
    spool.updated_at = now;
    ledger.put_spool(&spool)?;
    Ok(movement)
}

/// Page `page` of spool `spool_id`'s movements, newest first.
pub fn movements(tx: &impl Tx, spool_id: Id, page: u32, page_size: u32) -> Result<Page<Movement>> {
    let skip = list::offset(page, page_size);
    let (ids, total) = ledger::movement_page(tx, spool_id, skip, page_size as usize)?;
    let mut items = Vec::with_capacity(ids.len());
    for id in ids {
        items.push(repo::get::<Movement>(tx, id)?.ok_or(Error::NotFound)?);
    }
    Ok(Page {
        items,
        total,
        page,
        page_size,
    })
}

/// Every movement of every spool, for balance checks: `(spool id, sum of grams, count)`.
pub fn balances(tx: &impl Tx) -> Result<Vec<(Id, Decimal, usize)>> {
    let mut sums: std::collections::BTreeMap<Id, (Decimal, usize)> = Default::default();
    repo::for_each::<Movement>(tx, |m| {
        let entry = sums.entry(m.spool_id).or_default();
        entry.0 += m.grams;
        entry.1 += 1;
    })?;
    Ok(sums
        .into_iter()
        .map(|(id, (sum, n))| (id, sum.normalize(), n))
        .collect())
}

/// Active (not archived) spools of `filament_id`.
pub fn active_spools(tx: &impl Tx, filament_id: Id) -> Result<Vec<Spool>> {
    Ok(repo::all::<Spool>(tx)?
        .into_iter()
        .filter(|s| s.filament_id == filament_id && !s.archived)
        .collect())
}

/// Grams remaining on the active spools of `filament_id`, each by the owner of its stock
/// ([`links::remaining`]).
pub fn active_total(tx: &impl Tx, filament_id: Id) -> Result<Decimal> {
    Ok(active_totals(tx)?
        .remove(&filament_id)
        .unwrap_or(Decimal::ZERO))
}

/// Grams remaining on the active spools of every filament that has one, by filament, each
/// spool counted by the owner of its stock: one pass over the spools and the links.
pub fn active_totals(tx: &impl Tx) -> Result<std::collections::HashMap<Id, Decimal>> {
    let links = links::all(tx)?;
    let mut totals = std::collections::HashMap::new();
    repo::for_each::<Spool>(tx, |s| {
        if !s.archived {
            *totals.entry(s.filament_id).or_insert(Decimal::ZERO) +=
                links::remaining(&s, links.get(&s.id));
        }
    })?;
    Ok(totals
        .into_iter()
        .map(|(f, g)| (f, g.normalize()))
        .collect())
}
/// Gives `filament` an opening spool from its catalog price and net weight, unless it is archived
/// or already has an active spool.
pub fn stock_filament(txn: &Txn, filament: &Filament, now: Timestamp) -> Result<Option<Spool>> {
    if filament.archived || !active_spools(txn, filament.id)?.is_empty() {
        return Ok(None);
    }
    let input = SpoolInput {
        code: None,
        filament_id: filament.id,
        purchase_price: filament.purchase_price,
        initial_net_weight_grams: filament.net_weight_grams,
        unit: filament.unit,
        purchase_lot: None,
        location: None,
        acquired_at: None,
    };
    open_spool(txn, &input, now).map(Some)
}

/// Opens a spool for every active filament without an active spool (spool management switched
/// on). Returns how many were opened.
pub fn stock_all(txn: &Txn, now: Timestamp) -> Result<usize> {
    let mut opened = 0;
    for filament in repo::all::<Filament>(txn)? {
        if stock_filament(txn, &filament, now)?.is_some() {
            opened += 1;
        }
    }
    Ok(opened)
}

/// Changeable fields of a spool (code, filament and initial weight are fixed).
#[derive(Debug, Clone)]
pub struct SpoolChange {
    /// What it cost (future drafts price from it; finalized prints keep their snapshot).
    pub purchase_price: Decimal,
    /// Manufacturer's lot.
    pub purchase_lot: Option<String>,
    /// Where it is kept.
    pub location: Option<String>,
    /// Purchase date.
    pub acquired_at: Option<Date>,
}

/// Changes spool `id`'s metadata and price. Errors: [`Error::NotFound`].
pub fn change(txn: &Txn, id: Id, input: &SpoolChange, now: Timestamp) -> Result<Spool> {
    let mut spool = get(txn, id)?;
    spool.purchase_price = input.purchase_price;
    spool.purchase_lot = input.purchase_lot.clone().filter(|s| !s.trim().is_empty());
    spool.location = input.location.clone().filter(|s| !s.trim().is_empty());
    spool.acquired_at = input.acquired_at.map(|d| d.to_string());
    spool.updated_at = now;
    repo::put(txn, &spool)?;
    Ok(spool)
}

/// Sets the archive state of spool `id`. Errors: [`Error::NotFound`].
pub fn set_archived(txn: &Txn, id: Id, archived: bool, now: Timestamp) -> Result<Spool> {
    let mut spool = get(txn, id)?;
    spool.archived = archived;
    spool.updated_at = now;
    repo::put(txn, &spool)?;
    Ok(spool)
}

/// Number of movements booked in all (for benchmarks and checks).
pub fn movement_count(tx: &impl Tx) -> Result<u64> {
    Ok(ledger::movement_count(tx)?)
}
