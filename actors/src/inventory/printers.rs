//! Printers.

use super::{InventoryRecord, Kind, ListQuery, Page, archivable, manufacturers, save};
use crate::inventory;
use crate::money;
use crate::txn::Txn;
use crate::values::{Amount, Name, Note, PositiveAmount, Watts, note_text};
use crate::{Error, Result};
use rust_decimal::Decimal;
use storage::records::{Manufacturer, Printer, PrinterTechnology};
use storage::repo::Tx;
use storage::{Id, Timestamp};

impl InventoryRecord for Printer {
    archivable!(Printer);
}

/// How an input names a manufacturer: by id, or (legacy printer input) by name, which resolves
/// an existing active manufacturer or creates one.
#[derive(Debug, Clone)]
pub enum ManufacturerRef {
    /// `manufacturerId`.
    Id(Id),
    /// Legacy `manufacturer` (a name).
    Name(Name),
}

/// The editable fields of a printer.
#[derive(Debug, Clone)]
pub struct PrinterInput {
    /// Display name.
    pub name: Name,
    /// Its manufacturer.
    pub manufacturer: ManufacturerRef,
    /// Model designation.
    pub model: Option<Note>,
    /// Purchase price, instance currency.
    pub purchase_price: Amount,
    /// Expected lifetime, printing hours.
    pub expected_lifetime_hours: PositiveAmount,
    /// Average power while printing.
    pub average_power_watts: Watts,
    /// Free text.
    pub note: Option<Note>,
    /// FDM or MSLA, FDM when left out; fixed once the printer exists (its prints' parts are
    /// made for it): left out on a replace, the printer's own.
    pub technology: Option<PrinterTechnology>,
}

/// A printer with what responses show beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct PrinterView {
    /// The record.
    pub printer: Printer,
    /// Its manufacturer's name.
    pub manufacturer: String,
    /// Depreciation per printing hour: `purchasePrice / expectedLifetimeHours` (see [`money`]).
    pub hourly_rate: Decimal,
}

fn write(
    txn: &Txn,
    mut printer: Printer,
    input: &PrinterInput,
    now: Timestamp,
) -> Result<PrinterView> {
    let manufacturer: Manufacturer = match &input.manufacturer {
        ManufacturerRef::Id(id) => inventory::require_active(txn, *id, "manufacturerId")?,
        ManufacturerRef::Name(name) => manufacturers::resolve_by_name(txn, name, now)?,
    };
    printer.name = input.name.get().clone();
    printer.manufacturer_id = manufacturer.id;
    printer.model = note_text(input.model.clone());
    printer.purchase_price = *input.purchase_price.get();
    printer.expected_lifetime_hours = *input.expected_lifetime_hours.get();
    printer.average_power_watts = input.average_power_watts.get();
    printer.note = note_text(input.note.clone());
    printer.updated_at = now;
    save(txn, &printer)?;
    Ok(view(printer, manufacturer.name))
}

/// Sets printer `id`'s average power to `watts` (a measured figure adopted), as any change to
/// the printer: frozen snapshots keep the watts they were priced with.
/// Errors: `NOT_FOUND`; the store fails.
pub fn set_average_power(txn: &Txn, id: Id, watts: Watts, now: Timestamp) -> Result<PrinterView> {
    let old: Printer = inventory::get(txn, id)?;
    let mut printer = old.clone();
    printer.average_power_watts = watts.get();
    printer.updated_at = now;
    save(txn, &printer)?;
    let manufacturer: Manufacturer = inventory::get(txn, printer.manufacturer_id)?;
    Ok(view(printer, manufacturer.name))
}

/// The view of `printer` made by `manufacturer`.
pub fn view(printer: Printer, manufacturer: String) -> PrinterView {
    let hourly_rate = money::rate(printer.purchase_price, printer.expected_lifetime_hours);
    PrinterView {
        printer,
        manufacturer,
        hourly_rate,
    }
}

/// The printers resource's rules (see [`Kind`]).
pub struct Printers;

impl Kind for Printers {
    type Record = Printer;
    type Input = PrinterInput;
    type View = PrinterView;
    type Filter = ();

    fn create(txn: &Txn, input: &Self::Input, now: Timestamp) -> Result<PrinterView> {
        let printer = Printer {
            id: Id::new(),
            name: String::new(),
            manufacturer_id: Id::from_bytes([0; 16]),
            model: None,
            purchase_price: Decimal::ZERO,
            expected_lifetime_hours: Decimal::ONE,
            average_power_watts: 0,
            note: None,
            archived: false,
            created_at: now,
            updated_at: now,
            technology: input.technology.unwrap_or(PrinterTechnology::Fdm),
        };
        write(txn, printer, input, now)
    }

    /// Errors as [`Kind::create`]'s, and `errors.immutable` at `technology` for another
    /// technology than the printer's.
    fn replace(txn: &Txn, id: Id, input: &Self::Input, now: Timestamp) -> Result<PrinterView> {
        let old: Printer = inventory::get(txn, id)?;
        if input.technology.is_some_and(|t| t != old.technology) {
            return Err(Error::field("technology", "errors.immutable"));
        }
        write(txn, old, input, now)
    }

    fn get(tx: &impl Tx, id: Id) -> Result<PrinterView> {
        let printer: Printer = inventory::get(tx, id)?;
        let manufacturer: Manufacturer = inventory::get(tx, printer.manufacturer_id)?;
        Ok(view(printer, manufacturer.name))
    }

    fn list(tx: &impl Tx, query: &ListQuery, _: &()) -> Result<Page<PrinterView>> {
        let names = inventory::manufacturer_names(tx)?;
        inventory::list(
            tx,
            query,
            |p: Printer| {
                let manufacturer = names.get(&p.manufacturer_id).cloned().unwrap_or_default();
                view(p, manufacturer)
            },
            |v| {
                query.matches(&[
                    &v.printer.name,
                    v.printer.model.as_deref().unwrap_or(""),
                    &v.manufacturer,
                ])
            },
            |v| v.printer.name.clone(),
        )
    }
}
