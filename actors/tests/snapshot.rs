//! Property: once a print leaves DRAFT, no inventory price change alters its cost snapshot,
//! while a draft priced after the change does see it.
#![allow(clippy::unwrap_used, missing_docs)]

use actors::inventory::Kind;
use actors::inventory::components::{ComponentInput, Components, LifetimeInput};
use actors::inventory::filaments::{FilamentInput, Filaments};
use actors::inventory::manufacturers::{ManufacturerInput, Manufacturers};
use actors::inventory::printers::{ManufacturerRef, PrinterInput, Printers};
use actors::prints::{self, HotendInput, PartInput, PrintInput};
use actors::txn;
use actors::values::{Seconds, Watts};
use proptest::prelude::*;
use storage::records;
use storage::records::{ComponentType, PrintStatus};
use storage::repo;
use storage::{Store, StoreOptions, Timestamp};

fn setup_settings(store: &Store) {
    let txn = txn::Txn::new(store.begin_write().unwrap());
    repo::put_settings(
        &txn,
        &records::Settings {
            currency: "EUR".into(),
            default_language: "en-US".into(),
            electricity_price: "0.32".parse().unwrap(),
            print_series_enabled: true,
            spool_management_enabled: false,
        },
    )
    .unwrap();
    txn.commit().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn a_finalized_snapshot_ignores_later_prices(
        printer_price in 1u32..10_000,
        plate_price in 1u32..500,
        filament_price in 1u32..200,
        seconds in 60u32..200_000,
        grams in 1u32..2_000,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        setup_settings(&store);
        let now = Timestamp::now();
        let txn = txn::Txn::new(store.begin_write().unwrap());
        let maker = Manufacturers::create(&txn, &ManufacturerInput { name: "M".parse().unwrap(), note: None }, now).unwrap().id;
        let printer_input = |price: u32| PrinterInput {
            name: "P".parse().unwrap(),
            manufacturer: ManufacturerRef::Id(maker),
            model: None,
            purchase_price: price.to_string().parse().unwrap(),
            expected_lifetime_hours: "6000".parse().unwrap(),
            average_power_watts: Watts::try_from(120).unwrap(),
            note: None,
            technology: None,
        };
        let printer = Printers::create(&txn, &printer_input(1200), now).unwrap().printer.id;
        let component_input = |kind, price: u32| ComponentInput {
            kind,
            name: "C".parse().unwrap(),
            manufacturer_id: None,
            model: None,
            purchase_price: price.to_string().parse().unwrap(),
            lifetime: LifetimeInput::Hours("1200".parse().unwrap()),
            always_used: false,
            printer_ids: vec![],
            note: None,
        };
        let plate = Components::create(&txn, &component_input(ComponentType::BuildPlate, 60), now).unwrap().component.id;
        let hotend = Components::create(&txn, &component_input(ComponentType::Hotend, 100), now).unwrap().component.id;
        let filament_input = |price: u32| FilamentInput {
            manufacturer_id: maker,
            material: "PLA".parse().unwrap(),
            color_name: "Black".parse().unwrap(),
            color_hex: "#000000".parse().unwrap(),
            purchase_price: price.to_string().parse().unwrap(),
            net_weight_grams: "1000".parse().unwrap(),
            minimum_stock_grams: None,
            note: None,
            opening_spool: true,
        };
        let filament = Filaments::create(&txn, &filament_input(30), now).unwrap().filament.id;
        let input = PrintInput {
            name: "Frozen".parse().unwrap(),
            customer_id: None,
            series_id: None,
            quantity: 1,
            sales_value: None,
            notes: None,
            parts: vec![PartInput {
                id: None,
                printer_id: printer,
                build_plate_id: plate,
                hotends: vec![HotendInput { component_id: hotend, duration_seconds: Seconds::try_from(u64::from(seconds)).unwrap() }],
                vat: None,
                other_component_ids: vec![],
                filaments: vec![prints::FilamentInput { filament_id: filament, used_grams: grams.to_string().parse().unwrap(), spool_id: None }],
                materials: vec![],
            }],
            work: vec![],
            materials: vec![],
            flat: false,
        };
        let print = prints::create(&txn, &input, now).unwrap();
        let frozen = prints::set_status(&txn, print.id, PrintStatus::Printing, None, now).unwrap();
        txn.commit().unwrap();

        let txn = txn::Txn::new(store.begin_write().unwrap());
        Printers::replace(&txn, printer, &printer_input(printer_price), now).unwrap();
        Components::replace(&txn, plate, &component_input(ComponentType::BuildPlate, plate_price), now).unwrap();
        Filaments::replace(&txn, filament, &filament_input(filament_price), now).unwrap();
        txn.commit().unwrap();

        let txn = store.begin_read().unwrap();
        let reread = prints::get(&txn, print.id).unwrap();
        prop_assert_eq!(&reread.costing, &frozen.costing);
        let repriced = prints::calculate(&txn, &input).unwrap();
        let changed = printer_price != 1200 || plate_price != 60 || filament_price != 30;
        prop_assert_eq!(repriced.costing.total != frozen.costing.total, changed);
    }
}
