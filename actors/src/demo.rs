//! Demo data for setup's `createDemoData`: a small, realistic print shop, created through the same
//! rule functions as user input, in the setup transaction.

use crate::inventory::Kind;
use crate::inventory::components::{ComponentInput, Components, LifetimeInput};
use crate::inventory::customers::{CustomerInput, Customers};
use crate::inventory::filaments::{FilamentInput, Filaments};
use crate::inventory::manufacturers::{ManufacturerInput, Manufacturers};
use crate::inventory::printers::{ManufacturerRef, PrinterInput, Printers};
use crate::ledger;
use crate::lines::Lines;
use crate::prints::outcome::{self, CorrectionInput, OutcomeInput};
use crate::prints::{self, HotendInput, PartInput, PrintInput};
use crate::series;
use crate::txn::Txn;
use crate::values;
use crate::{Error, Result};
use rust_decimal::Decimal;
use std::str::FromStr;
use storage::records::MovementKind;
use storage::records::{ComponentType, OutcomeStatus, Print, PrintStatus};
use storage::{Id, Timestamp};

/// Parses a demo literal; a refusal is a bug in this file, reported on `createDemoData`.
fn v<T: FromStr<Err = String>>(text: &str) -> Result<T> {
    T::from_str(text).map_err(|_| Error::field("createDemoData", "errors.demoData"))
}

fn manufacturer(txn: &Txn, name: &str, now: Timestamp) -> Result<Id> {
    let input = ManufacturerInput {
        name: v(name)?,
        note: None,
    };
    Ok(Manufacturers::create(txn, &input, now)?.id)
}

fn printer(
    txn: &Txn,
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
        average_power_watts: values::Watts::try_from(u64::from(watts))
            .map_err(|_| Error::field("createDemoData", "errors.demoData"))?,
        note: None,
        technology: None,
    };
    Ok(Printers::create(txn, &input, now)?.printer.id)
}

#[allow(clippy::too_many_arguments)]
fn component(
    txn: &Txn,
    kind: ComponentType,
    name: &str,
    maker: Option<Id>,
    price: &str,
    hours: &str,
    always_used: bool,
    printer_ids: Vec<Id>,
    now: Timestamp,
) -> Result<Id> {
    let input = ComponentInput {
        kind,
        name: v(name)?,
        manufacturer_id: maker,
        model: None,
        purchase_price: v(price)?,
        lifetime: LifetimeInput::Hours(v(hours)?),
        always_used,
        printer_ids,
        note: None,
    };
    Ok(Components::create(txn, &input, now)?.component.id)
}

fn filament(txn: &Txn, maker: Id, spec: [&str; 5], now: Timestamp) -> Result<Id> {
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
        opening_spool: true,
    };
    Ok(Filaments::create(txn, &input, now)?.filament.id)
}

fn customer(txn: &Txn, name: &str, email: Option<&str>, own: bool, now: Timestamp) -> Result<Id> {
    let input = CustomerInput {
        name: v(name)?,
        email: email.map(v).transpose()?,
        note: None,
        exclude_from_dashboard: own,
        discount_percent: None,
        billing: Default::default(),
    };
    Ok(Customers::create(txn, &input, now)?.id)
}

/// One demo part: printer, plate, hotend with its seconds, other components, filament grams.
struct DemoPart<'a> {
    printer: Id,
    plate: Id,
    hotend: (Id, u32),
    others: &'a [Id],
    filament: (Id, &'a str),
}

fn part(p: &DemoPart<'_>) -> Result<PartInput> {
    Ok(PartInput {
        id: None,
        printer_id: p.printer,
        build_plate_id: p.plate,
        hotends: vec![HotendInput {
            component_id: p.hotend.0,
            duration_seconds: values::Seconds::trusted(p.hotend.1),
        }],
        vat: None,
        other_component_ids: p.others.to_vec(),
        filaments: vec![prints::FilamentInput {
            filament_id: p.filament.0,
            used_grams: v(p.filament.1)?,
            spool_id: None,
        }],
        materials: vec![],
    })
}

#[allow(clippy::too_many_arguments)]
fn print(
    txn: &Txn,
    name: &str,
    parts: &[DemoPart<'_>],
    customer_id: Option<Id>,
    series_id: Option<Id>,
    quantity: u32,
    sales_value: Option<&str>,
    status: PrintStatus,
    now: Timestamp,
) -> Result<Print> {
    let input = PrintInput {
        name: v(name)?,
        customer_id,
        series_id,
        quantity,
        sales_value: sales_value.map(v).transpose()?,
        notes: None,
        parts: parts.iter().map(part).collect::<Result<_>>()?,
        work: Vec::new(),
        materials: Vec::new(),
        flat: false,
    };
    let draft = prints::create(txn, &input, now)?;
    if status == PrintStatus::Draft {
        return Ok(draft);
    }
    prints::set_status(txn, draft.id, status, None, now)
}

/// What really happened to a demo print: every usage at `share` of its planned grams, the whole
/// planned time per part.
fn happened(
    print: &Print,
    status: OutcomeStatus,
    share: &str,
    lines: Lines,
) -> Result<OutcomeInput> {
    let share: Decimal = v::<values::Amount>(share)?.into_inner();
    let usages = print.usages();
    let parts: Vec<(Id, values::Seconds)> = print
        .parts
        .iter()
        .map(|p| {
            let seconds = p.hotends.iter().map(|h| h.duration_seconds).sum();
            (p.id, values::Seconds::trusted(seconds))
        })
        .collect();
    Ok(OutcomeInput {
        status,
        duration_seconds: Some(values::Seconds::trusted(
            parts.iter().map(|(_, s)| s.get()).sum(),
        )),
        filaments: usages
            .map(|u| {
                let grams = (u.used_grams * share).round_dp(2);
                (u.id, values::Grams::trusted(grams))
            })
            .collect(),
        materials: Vec::new(),
        note: None,
        failure_reason: (status == OutcomeStatus::Failed).then(|| {
            lines
                .pick("Layer shift at 60 %", "Schichtversatz bei 60 %")
                .to_string()
        }),
        parts: (parts.len() > 1).then_some(parts),
        electricity: Vec::new(),
        work_minutes: Vec::new(),
    })
}

/// Creates the demo shop: three manufacturers, two printers, their hotends and build plates, an
/// always-used maintenance component, four filaments, three customers, a series, and prints in
/// every status (one of them in two parts, on both printers).
///
/// Names and notes are in the instance's default language (the one chosen at setup); brand
/// and product names stay as their makers write them.
pub fn create(txn: &Txn, now: Timestamp) -> Result<()> {
    let lines = Lines::of_instance(txn)?;
    let say = |english, german| lines.pick(english, german);
    let prusa = manufacturer(txn, "Prusa Research", now)?;
    let bambu = manufacturer(txn, "Bambu Lab", now)?;
    let polymaker = manufacturer(txn, "Polymaker", now)?;

    let mk4s = printer(txn, "Original Prusa MK4S", prusa, "1099", "6000", 120, now)?;
    let p1s = printer(txn, "Bambu Lab P1S", bambu, "699", "5000", 110, now)?;

    use ComponentType::{BuildPlate, Hotend, Other};
    let wear = |kind, name, maker, price, hours, printers| {
        component(txn, kind, name, maker, price, hours, false, printers, now)
    };
    let nextruder = wear(
        Hotend,
        say("Nextruder hotend 0.4 mm", "Nextruder-Hotend 0,4 mm"),
        Some(prusa),
        "100",
        "2000",
        vec![mk4s],
    )?;
    let p1s_hotend = wear(
        Hotend,
        say("P1S hotend 0.4 mm hardened", "P1S-Hotend 0,4 mm gehärtet"),
        Some(bambu),
        "32.99",
        "1500",
        vec![p1s],
    )?;
    let satin = wear(
        BuildPlate,
        say("Satin spring steel sheet", "Satinierte Federstahlplatte"),
        Some(prusa),
        "60",
        "1200",
        vec![mk4s],
    )?;
    let pei = wear(
        BuildPlate,
        say("Textured PEI plate", "Texturierte PEI-Platte"),
        Some(bambu),
        "39.99",
        "1000",
        vec![p1s],
    )?;
    let belts = component(
        txn,
        Other,
        say(
            "Belts, fans and lubrication",
            "Riemen, Lüfter und Schmierung",
        ),
        None,
        "45",
        "3000",
        true,
        vec![mk4s, p1s],
        now,
    )?;

    let black = filament(
        txn,
        prusa,
        ["PLA", "Galaxy Black", "#3D3D3D", "29.99", "1000"],
        now,
    )?;
    let orange = filament(
        txn,
        prusa,
        ["PETG", "Prusa Orange", "#FA6831", "29.99", "1000"],
        now,
    )?;
    let white = filament(
        txn,
        polymaker,
        ["PLA", "Cotton White", "#F2EFE6", "24.99", "1000"],
        now,
    )?;
    let charcoal = filament(
        txn,
        bambu,
        ["PLA Matte", "Charcoal", "#000000", "24.99", "1000"],
        now,
    )?;

    let own = customer(txn, say("Own projects", "Eigene Projekte"), None, true, now)?;
    let mueller = customer(
        txn,
        "Müller Modellbau GmbH",
        Some("einkauf@mueller-modellbau.example"),
        false,
        now,
    )?;
    let jane = customer(
        txn,
        say("Jane Doe", "Erika Mustermann"),
        Some(say("jane@example.com", "erika@example.com")),
        false,
        now,
    )?;

    let trophies = series::create(
        txn,
        &series::SeriesInput {
            name: v(say("Club trophies 2026", "Vereinspokale 2026"))?,
            customer_id: Some(mueller),
            target: Some(40),
            notes: None,
            auto_complete: true,
        },
        now,
    )?
    .id;

    let others = [belts];
    let mk4 = |seconds: u32, filament: Id, grams: &'static str| DemoPart {
        printer: mk4s,
        plate: satin,
        hotend: (nextruder, seconds),
        others: &others,
        filament: (filament, grams),
    };
    let p1 = |seconds: u32, filament: Id, grams: &'static str| DemoPart {
        printer: p1s,
        plate: pei,
        hotend: (p1s_hotend, seconds),
        others: &others,
        filament: (filament, grams),
    };
    use PrintStatus::{Done, Draft, Printed, Printing, Shipped};
    let job = |name, parts: &[DemoPart<'_>], customer, series, quantity, sales, status| {
        print(
            txn, name, parts, customer, series, quantity, sales, status, now,
        )
    };
    job(
        say("Phone stand", "Handyhalter"),
        &[mk4(5400, black, "42.5")],
        Some(jane),
        None,
        1,
        Some("12"),
        Draft,
    )?;
    job(
        say("Cable clips", "Kabelclips"),
        &[p1(7200, charcoal, "85")],
        Some(own),
        None,
        50,
        None,
        Printing,
    )?;
    job(
        say("Gear housing", "Getriebegehäuse"),
        &[mk4(10800, orange, "120")],
        Some(jane),
        None,
        2,
        Some("45"),
        Printed,
    )?;
    job(
        say("Trophy bases, run 1", "Pokalsockel, Lauf 1"),
        &[p1(14400, white, "310")],
        None,
        Some(trophies),
        10,
        Some("150"),
        Shipped,
    )?;
    let run2 = job(
        say("Trophy bases, run 2", "Pokalsockel, Lauf 2"),
        &[p1(14400, white, "305")],
        None,
        Some(trophies),
        10,
        Some("150"),
        Done,
    )?;
    let chassis = [mk4(9000, black, "140.25"), p1(6300, orange, "96.5")];
    let chassis = job(
        say("Robot chassis", "Roboter-Chassis"),
        &chassis,
        Some(jane),
        None,
        1,
        Some("60"),
        Done,
    )?;

    outcome::record(
        txn,
        run2.id,
        &happened(&run2, OutcomeStatus::Success, "0.97", lines)?,
        now,
    )?;
    let failed = happened(&chassis, OutcomeStatus::Failed, "0.6", lines)?;
    outcome::record(txn, chassis.id, &failed, now)?;
    let weighed = CorrectionInput {
        outcome: happened(&chassis, OutcomeStatus::Failed, "0.55", lines)?,
        correction_note: say("Weighed the failed parts", "Fehldruckteile gewogen").into(),
        expected_revision: 1,
        operation_key: Id::new(),
    };
    outcome::correct(txn, chassis.id, &weighed, now)?;
    let spool = ledger::active_spools(txn, white)?
        .pop()
        .ok_or(Error::NotFound)?;
    let weighing = ledger::MovementInput {
        kind: MovementKind::Correction,
        grams: v::<values::SignedGrams>("-12.5")?.into_inner(),
        note: Some(
            say(
                "Weighed: less than the ledger said",
                "Gewogen: weniger als gebucht",
            )
            .into(),
        ),
        operation_key: None,
        print_id: None,
        usage_id: None,
    };
    ledger::book(txn, spool.id, &weighing, now)?;
    Ok(())
}
