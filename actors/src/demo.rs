//! Demo data for setup's `createDemoData`: a small, realistic print shop, created through the same
//! rule functions as user input, in the setup transaction.

use crate::inventory::Kind;
use crate::inventory::components::{ComponentInput, Components};
use crate::inventory::customers::{CustomerInput, Customers};
use crate::inventory::filaments::{FilamentInput, Filaments};
use crate::inventory::manufacturers::{ManufacturerInput, Manufacturers};
use crate::inventory::printers::{ManufacturerRef, PrinterInput, Printers};
use crate::{Error, Result};
use std::str::FromStr;
use storage::records::ComponentType;
use storage::{Id, Timestamp, WriteTransaction};

/// Parses a demo literal; a refusal is a bug in this file, reported on `createDemoData`.
fn v<T: FromStr<Err = String>>(text: &str) -> Result<T> {
    T::from_str(text).map_err(|_| Error::field("createDemoData", "errors.demoData"))
}

fn manufacturer(txn: &WriteTransaction, name: &str, now: Timestamp) -> Result<Id> {
    let input = ManufacturerInput {
        name: v(name)?,
        note: None,
    };
    Ok(Manufacturers::create(txn, &input, now)?.id)
}

fn printer(
    txn: &WriteTransaction,
    name: &str,
    maker: Id,
    price: &str,
    hours: &str,
    watts: u32,
    now: Timestamp,
) -> Result<Id> {
    let input = PrinterInput {
        name: v(name)?,
        manufacturer: ManufacturerRef::Id(maker),
        model: Some(v(name)?),
        purchase_price: v(price)?,
        expected_lifetime_hours: v(hours)?,
        average_power_watts: watts,
        note: None,
    };
    Ok(Printers::create(txn, &input, now)?.printer.id)
}

#[allow(clippy::too_many_arguments)]
fn component(
    txn: &WriteTransaction,
    kind: ComponentType,
    name: &str,
    maker: Option<Id>,
    price: &str,
    hours: &str,
    always_used: bool,
    printer_ids: Vec<Id>,
    now: Timestamp,
) -> Result<()> {
    let input = ComponentInput {
        kind,
        name: v(name)?,
        manufacturer_id: maker,
        model: None,
        purchase_price: v(price)?,
        expected_lifetime_hours: v(hours)?,
        always_used,
        printer_ids,
        note: None,
    };
    Components::create(txn, &input, now).map(|_| ())
}

fn filament(txn: &WriteTransaction, maker: Id, spec: [&str; 5], now: Timestamp) -> Result<()> {
    let [material, color_name, color_hex, price, grams] = spec;
    let input = FilamentInput {
        manufacturer_id: maker,
        material: v(material)?,
        color_name: v(color_name)?,
        color_hex: v(color_hex)?,
        purchase_price: v(price)?,
        net_weight_grams: v(grams)?,
        minimum_stock_grams: Some(v("500")?),
        note: None,
    };
    Filaments::create(txn, &input, now).map(|_| ())
}

fn customer(
    txn: &WriteTransaction,
    name: &str,
    email: Option<&str>,
    own: bool,
    now: Timestamp,
) -> Result<()> {
    let input = CustomerInput {
        name: v(name)?,
        email: email.map(v).transpose()?,
        note: None,
        exclude_from_dashboard: own,
    };
    Customers::create(txn, &input, now).map(|_| ())
}

/// Creates the demo inventory: three manufacturers, two printers, their hotends and build plates,
/// an always-used maintenance component, four filaments and three customers.
pub fn create(txn: &WriteTransaction, now: Timestamp) -> Result<()> {
    let prusa = manufacturer(txn, "Prusa Research", now)?;
    let bambu = manufacturer(txn, "Bambu Lab", now)?;
    let polymaker = manufacturer(txn, "Polymaker", now)?;

    let mk4s = printer(txn, "Original Prusa MK4S", prusa, "1099", "6000", 120, now)?;
    let p1s = printer(txn, "Bambu Lab P1S", bambu, "699", "5000", 110, now)?;

    use ComponentType::{BuildPlate, Hotend, Other};
    component(
        txn,
        Hotend,
        "Nextruder hotend 0.4 mm",
        Some(prusa),
        "100",
        "2000",
        false,
        vec![mk4s],
        now,
    )?;
    component(
        txn,
        Hotend,
        "P1S hotend 0.4 mm hardened",
        Some(bambu),
        "32.99",
        "1500",
        false,
        vec![p1s],
        now,
    )?;
    component(
        txn,
        BuildPlate,
        "Satin spring steel sheet",
        Some(prusa),
        "60",
        "1200",
        false,
        vec![mk4s],
        now,
    )?;
    component(
        txn,
        BuildPlate,
        "Textured PEI plate",
        Some(bambu),
        "39.99",
        "1000",
        false,
        vec![p1s],
        now,
    )?;
    component(
        txn,
        Other,
        "Belts, fans and lubrication",
        None,
        "45",
        "3000",
        true,
        vec![mk4s, p1s],
        now,
    )?;

    filament(
        txn,
        prusa,
        ["PLA", "Galaxy Black", "#3D3D3D", "29.99", "1000"],
        now,
    )?;
    filament(
        txn,
        prusa,
        ["PETG", "Prusa Orange", "#FA6831", "29.99", "1000"],
        now,
    )?;
    filament(
        txn,
        polymaker,
        ["PLA", "Cotton White", "#F2EFE6", "24.99", "1000"],
        now,
    )?;
    filament(
        txn,
        bambu,
        ["PLA Matte", "Charcoal", "#000000", "24.99", "1000"],
        now,
    )?;

    customer(txn, "Own projects", None, true, now)?;
    customer(
        txn,
        "Müller Modellbau GmbH",
        Some("einkauf@mueller-modellbau.example"),
        false,
        now,
    )?;
    customer(txn, "Jane Doe", Some("jane@example.com"), false, now)?;
    Ok(())
}
