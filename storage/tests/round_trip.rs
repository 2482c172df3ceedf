//! Every stored record type survives its encoding: a record decodes to itself, field by field,
//! and so does a record stored in and read back from a store.
#![allow(clippy::unwrap_used, missing_docs)]

use proptest::collection::vec;
use proptest::option::of;
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde::Serialize;
use serde::de::DeserializeOwned;
use storage::records::*;
use storage::repo;
use storage::repo::get;
use storage::{Id, Timestamp, decode, encode};

fn id() -> impl Strategy<Value = Id> {
    any::<[u8; 16]>().prop_map(Id::from_bytes)
}

fn at() -> impl Strategy<Value = Timestamp> {
    any::<i64>().prop_map(Timestamp)
}

fn decimal() -> impl Strategy<Value = Decimal> {
    (any::<i64>(), 0u32..=18).prop_map(|(mantissa, scale)| Decimal::new(mantissa, scale))
}

fn text() -> impl Strategy<Value = String> {
    ".{0,24}"
}

fn account() -> impl Strategy<Value = Account> {
    let role = prop_oneof![Just(Role::Viewer), Just(Role::Staff), Just(Role::Owner)];
    (
        (id(), text(), text(), text(), text()),
        (role, any::<bool>(), at(), at()),
    )
        .prop_map(
            |(
                (id, email, display_name, password_hash, locale),
                (role, disabled, created_at, updated_at),
            )| Account {
                id,
                email,
                display_name,
                password_hash,
                locale,
                role,
                disabled,
                created_at,
                updated_at,
            },
        )
}

fn session() -> impl Strategy<Value = Session> {
    (id(), at(), at()).prop_map(|(account_id, created_at, expires_at)| Session {
        account_id,
        created_at,
        expires_at,
    })
}

fn settings() -> impl Strategy<Value = Settings> {
    (text(), text(), decimal(), any::<(bool, bool)>()).prop_map(|(c, l, e, (p, s))| Settings {
        currency: c,
        default_language: l,
        electricity_price: e,
        print_series_enabled: p,
        spool_management_enabled: s,
    })
}

fn integrations() -> impl Strategy<Value = Integrations> {
    let setting = || {
        prop_oneof![
            Just(Override::Default),
            text().prop_map(Override::Set),
            Just(Override::Removed)
        ]
    };
    let peer = move || {
        (any::<bool>(), setting(), setting()).prop_map(|(enabled, url, credential)| PeerSettings {
            enabled,
            url,
            credential,
        })
    };
    (peer(), peer()).prop_map(|(spoolmgr, printfleet)| Integrations {
        spoolmgr,
        printfleet,
    })
}

fn customer() -> impl Strategy<Value = Customer> {
    (
        id(),
        text(),
        of(text()),
        of(text()),
        any::<(bool, bool)>(),
        (at(), at()),
        (of(decimal()), billing()),
    )
        .prop_map(
            |(
                id,
                name,
                email,
                note,
                (exclude, archived),
                (created_at, updated_at),
                (discount, billing),
            )| {
                Customer {
                    billing,
                    id,
                    name,
                    email,
                    note,
                    exclude_from_dashboard: exclude,
                    archived,
                    created_at,
                    updated_at,
                    discount_percent: discount,
                }
            },
        )
}

fn address() -> impl Strategy<Value = PostalAddress> {
    (text(), text(), text(), text()).prop_map(|(street, postal_code, city, country)| {
        PostalAddress {
            street,
            postal_code,
            city,
            country,
        }
    })
}

fn company() -> impl Strategy<Value = Company> {
    (
        (text(), of(address()), of(text()), of(text()), of(text())),
        (
            of(text()),
            of(text()),
            of(text()),
            any::<u16>(),
            any::<bool>(),
        ),
        (of(text()), of(text())),
    )
        .prop_map(
            |(
                (name, address, vat_id, tax_number, iban),
                (bic, email, phone, days, small),
                (terms, language),
            )| {
                Company {
                    name,
                    address,
                    vat_id,
                    tax_number,
                    iban,
                    bic,
                    email,
                    phone,
                    payment_terms_days: days,
                    payment_terms_text: terms,
                    language,
                    small_business: small,
                }
            },
        )
}

fn quote() -> impl Strategy<Value = Quote> {
    let status = prop_oneof![
        Just(QuoteStatus::Draft),
        Just(QuoteStatus::Sent),
        Just(QuoteStatus::Accepted),
        Just(QuoteStatus::Declined),
        Just(QuoteStatus::Expired),
    ];
    let line = (id(), of(id()), text(), any::<u32>(), decimal(), decimal()).prop_map(
        |(print_id, work_line_id, description, quantity, unit_price, net)| QuoteLine {
            print_id,
            work_line_id,
            description,
            quantity,
            unit_price,
            net,
        },
    );
    let offer = (vec(line, 0..4), decimal(), decimal(), decimal(), decimal()).prop_map(
        |(lines, net, vat_percent, vat, gross)| Offer {
            lines,
            net,
            vat_percent,
            vat,
            gross,
        },
    );
    (
        (id(), id(), vec(id(), 0..4), text(), of(text()), status),
        (of(text()), of(offer), of(at()), of(at()), at(), at()),
    )
        .prop_map(
            |(
                (id, customer_id, print_ids, valid_until, note, status),
                (number, offer, sent_at, decided_at, created_at, updated_at),
            )| Quote {
                id,
                customer_id,
                print_ids,
                valid_until,
                note,
                status,
                number,
                offer,
                sent_at,
                decided_at,
                created_at,
                updated_at,
            },
        )
}

fn billing() -> impl Strategy<Value = Billing> {
    (
        (of(address()), of(text()), of(text())),
        (of(text()), of(text()), of(any::<u16>())),
    )
        .prop_map(
            |(
                (address, vat_id, buyer_reference),
                (invoice_email, language, payment_terms_days),
            )| {
                Billing {
                    address,
                    vat_id,
                    buyer_reference,
                    invoice_email,
                    language,
                    payment_terms_days,
                }
            },
        )
}

fn manufacturer() -> impl Strategy<Value = Manufacturer> {
    (id(), text(), of(text()), any::<bool>(), at(), at()).prop_map(
        |(id, name, note, archived, created_at, updated_at)| Manufacturer {
            id,
            name,
            note,
            archived,
            created_at,
            updated_at,
        },
    )
}

fn printer() -> impl Strategy<Value = Printer> {
    (
        (id(), text(), id(), of(text())),
        (decimal(), decimal(), any::<u32>()),
        (of(text()), any::<bool>(), at(), at()),
        prop_oneof![Just(PrinterTechnology::Fdm), Just(PrinterTechnology::Msla)],
    )
        .prop_map(
            |(
                (id, name, maker, model),
                (price, hours, watts),
                (note, archived, c, u),
                technology,
            )| Printer {
                id,
                name,
                manufacturer_id: maker,
                model,
                purchase_price: price,
                expected_lifetime_hours: hours,
                average_power_watts: watts,
                note,
                archived,
                created_at: c,
                updated_at: u,
                technology,
            },
        )
}

fn component() -> impl Strategy<Value = Component> {
    let kind = prop_oneof![
        Just(ComponentType::Hotend),
        Just(ComponentType::Vat),
        Just(ComponentType::BuildPlate),
        Just(ComponentType::Other)
    ];
    (
        (id(), kind, text(), of(id()), of(text())),
        (decimal(), lifetime(), any::<bool>(), vec(id(), 0..4)),
        (of(text()), any::<bool>(), at(), at()),
    )
        .prop_map(
            |(
                (id, kind, name, maker, model),
                (price, lifetime, always, printers),
                (note, a, c, u),
            )| {
                Component {
                    id,
                    kind,
                    name,
                    manufacturer_id: maker,
                    model,
                    purchase_price: price,
                    lifetime,
                    always_used: always,
                    printer_ids: printers,
                    note,
                    archived: a,
                    created_at: c,
                    updated_at: u,
                }
            },
        )
}

fn lifetime() -> impl Strategy<Value = Lifetime> {
    prop_oneof![
        decimal().prop_map(Lifetime::Hours),
        any::<u32>().prop_map(Lifetime::Prints)
    ]
}

fn filament() -> impl Strategy<Value = Filament> {
    (
        (id(), id(), text(), text(), text()),
        (decimal(), decimal(), of(decimal())),
        (of(text()), any::<bool>(), at(), at()),
        (material_kind(), stock_unit(), of(decimal())),
    )
        .prop_map(
            |(
                (id, maker, material, color, hex),
                (price, weight, minimum),
                (note, a, c, u),
                (kind, unit, density),
            )| {
                Filament {
                    id,
                    manufacturer_id: maker,
                    material,
                    color_name: color,
                    color_hex: hex,
                    purchase_price: price,
                    net_weight_grams: weight,
                    minimum_stock_grams: minimum,
                    note,
                    archived: a,
                    created_at: c,
                    updated_at: u,
                    kind,
                    unit,
                    density_grams_per_millilitre: density,
                }
            },
        )
}

fn material_kind() -> impl Strategy<Value = MaterialKind> {
    prop_oneof![
        Just(MaterialKind::Filament),
        Just(MaterialKind::Resin),
        Just(MaterialKind::Consumable),
    ]
}

fn stock_unit() -> impl Strategy<Value = StockUnit> {
    prop_oneof![
        Just(StockUnit::Gram),
        Just(StockUnit::Millilitre),
        Just(StockUnit::Piece),
    ]
}

fn spool() -> impl Strategy<Value = Spool> {
    (
        (id(), text(), id(), decimal(), decimal()),
        (of(text()), of(text()), of(text()), decimal()),
        (any::<bool>(), at(), at()),
    )
        .prop_map(
            |((id, code, filament, price, initial), (lot, place, date, left), (a, c, u))| Spool {
                id,
                code,
                filament_id: filament,
                purchase_price: price,
                initial_net_weight_grams: initial,
                purchase_lot: lot,
                location: place,
                acquired_at: date,
                remaining_grams: left,
                archived: a,
                created_at: c,
                updated_at: u,
            },
        )
}

fn movement() -> impl Strategy<Value = Movement> {
    let kind = prop_oneof![
        Just(MovementKind::Receipt),
        Just(MovementKind::Correction),
        Just(MovementKind::Print)
    ];
    (
        (id(), id(), kind, decimal(), of(text())),
        (of(id()), of(id()), of(id()), at()),
    )
        .prop_map(
            |((id, spool, kind, grams, note), (key, print, usage, at))| Movement {
                id,
                spool_id: spool,
                kind,
                grams,
                note,
                operation_key: key,
                print_id: print,
                usage_id: usage,
                created_at: at,
            },
        )
}

fn cost_line() -> impl Strategy<Value = CostLine> {
    let category = prop_oneof![
        Just(CostCategory::Printer),
        Just(CostCategory::Hotend),
        Just(CostCategory::BuildPlate),
        Just(CostCategory::Component),
        Just(CostCategory::Filament),
        Just(CostCategory::Electricity),
        Just(CostCategory::Labour),
        Just(CostCategory::Charge),
        Just(CostCategory::Machine),
        Just(CostCategory::MachineElectricity),
        Just(CostCategory::Vat),
        Just(CostCategory::Resin),
        Just(CostCategory::Consumable),
        Just(CostCategory::PerPrint)
    ];
    (
        (category, id(), of(id()), of(id()), text()),
        (decimal(), decimal(), decimal(), any::<u32>(), decimal()),
    )
        .prop_map(
            |((category, source, part, usage, label), (q, price, per, watts, cost))| CostLine {
                category,
                source_id: source,
                part_id: part,
                usage_id: usage,
                label,
                quantity: q,
                rate_price: price,
                rate_per: per,
                watts,
                cost,
            },
        )
}

fn costing() -> impl Strategy<Value = Costing> {
    (decimal(), vec(cost_line(), 0..4), decimal(), decimal()).prop_map(|(e, lines, t, u)| Costing {
        electricity_price: e,
        lines,
        total: t,
        cost_per_unit: u,
    })
}

fn part() -> impl Strategy<Value = Part> {
    let hotend = (id(), any::<u32>()).prop_map(|(component_id, duration_seconds)| HotendUse {
        component_id,
        duration_seconds,
    });
    (
        id(),
        id(),
        id(),
        vec(hotend, 1..3),
        vec(id(), 0..3),
        vec(usage(), 1..3),
    )
        .prop_map(|(id, printer, plate, hotends, others, usages)| Part {
            id,
            printer_id: printer,
            build_plate_id: plate,
            hotends,
            other_component_ids: others,
            usages,
        })
}

fn usage() -> impl Strategy<Value = Usage> {
    (id(), id(), of(id()), of(text()), decimal()).prop_map(
        |(id, filament_id, spool_id, spool_code, used_grams)| Usage {
            id,
            filament_id,
            spool_id,
            spool_code,
            used_grams,
        },
    )
}

fn print_material() -> impl Strategy<Value = PrintMaterial> {
    (usage(), decimal(), per()).prop_map(|(usage, amount, per)| PrintMaterial {
        usage,
        amount,
        per,
    })
}

fn revision() -> impl Strategy<Value = OutcomeRevision> {
    let status = prop_oneof![Just(OutcomeStatus::Success), Just(OutcomeStatus::Failed)];
    let grams = (id(), decimal()).prop_map(|(usage_id, grams)| UsageGrams { usage_id, grams });
    (
        (
            any::<u32>(),
            status,
            any::<u32>(),
            vec((id(), any::<u32>()), 0..3),
        ),
        (vec(grams, 0..3), of(text()), of(text()), of(text())),
        (of(id()), at(), costing(), vec(electricity(), 0..3)),
        vec(work_minutes(), 0..3),
    )
        .prop_map(
            |(
                (revision, status, seconds, parts),
                (grams, note, why, fix),
                (key, at, actual, electricity),
                work_minutes,
            )| {
                OutcomeRevision {
                    revision,
                    status,
                    duration_seconds: seconds,
                    part_durations: parts,
                    grams,
                    note,
                    failure_reason: why,
                    correction_note: fix,
                    operation_key: key,
                    recorded_at: at,
                    actual,
                    electricity,
                    work_minutes,
                }
            },
        )
}

fn pricing() -> impl Strategy<Value = Pricing> {
    let basis = prop_oneof![Just(PriceBasis::Markup), Just(PriceBasis::Margin)];
    let rounding = prop_oneof![
        Just(Rounding::Cent),
        Just(Rounding::FiveCents),
        Just(Rounding::Ninety)
    ];
    (
        (any::<bool>(), basis, decimal(), of(decimal())),
        (rounding, decimal(), any::<bool>(), any::<u16>()),
    )
        .prop_map(
            |(
                (enabled, basis, percent, minimum_per_job),
                (rounding, vat_percent, failure_adjusted, failure_window),
            )| Pricing {
                enabled,
                basis,
                percent,
                minimum_per_job,
                rounding,
                vat_percent,
                failure_adjusted,
                failure_window,
            },
        )
}

fn per() -> impl Strategy<Value = Per> {
    prop_oneof![Just(Per::Piece), Just(Per::Job)]
}

fn work_minutes() -> impl Strategy<Value = WorkMinutes> {
    (id(), decimal()).prop_map(|(work_line_id, minutes)| WorkMinutes {
        work_line_id,
        minutes,
    })
}

fn work_line() -> impl Strategy<Value = WorkLine> {
    let source = prop_oneof![
        id().prop_map(WorkSource::Labour),
        id().prop_map(WorkSource::Charge),
        id().prop_map(WorkSource::Step),
    ];
    (id(), source, decimal(), per()).prop_map(|(id, source, amount, per)| WorkLine {
        id,
        source,
        amount,
        per,
    })
}

fn labour_rate() -> impl Strategy<Value = LabourRate> {
    (
        id(),
        text(),
        decimal(),
        of(text()),
        any::<bool>(),
        at(),
        at(),
    )
        .prop_map(
            |(id, name, hourly_rate, note, archived, created_at, updated_at)| LabourRate {
                id,
                name,
                hourly_rate,
                note,
                archived,
                created_at,
                updated_at,
            },
        )
}

fn charge() -> impl Strategy<Value = Charge> {
    (
        (id(), text(), decimal(), per()),
        (of(text()), any::<bool>(), at(), at()),
    )
        .prop_map(
            |((id, name, amount, per), (note, archived, created_at, updated_at))| Charge {
                id,
                name,
                amount,
                per,
                note,
                archived,
                created_at,
                updated_at,
            },
        )
}

fn step() -> impl Strategy<Value = PostProcessingStep> {
    let machine = (text(), decimal(), decimal(), any::<u32>(), decimal()).prop_map(
        |(name, purchase_price, expected_lifetime_hours, average_power_watts, minutes)| {
            StepMachine {
                name,
                purchase_price,
                expected_lifetime_hours,
                average_power_watts,
                minutes,
            }
        },
    );
    (
        (id(), text(), id(), decimal(), per(), of(machine)),
        (of(text()), any::<bool>(), at(), at()),
    )
        .prop_map(
            |(
                (id, name, labour_rate_id, minutes, per, machine),
                (note, archived, created_at, updated_at),
            )| PostProcessingStep {
                id,
                name,
                labour_rate_id,
                minutes,
                per,
                machine,
                note,
                archived,
                created_at,
                updated_at,
            },
        )
}

fn electricity() -> impl Strategy<Value = PartElectricity> {
    let source = prop_oneof![
        Just(EnergySource::Metered),
        Just(EnergySource::PrintFleet),
        Just(EnergySource::Estimated),
        Just(EnergySource::Entered),
    ];
    let unmetered = prop_oneof![
        Just(Unmetered::NoMeter),
        Just(Unmetered::NoRunTimes),
        Just(Unmetered::SilentAtStart),
        Just(Unmetered::SilentAtEnd),
        Just(Unmetered::CounterWentBack),
    ];
    (
        id(),
        of(at()),
        of(at()),
        decimal(),
        source,
        of(unmetered),
        any::<bool>(),
    )
        .prop_map(
            |(part_id, started_at, ended_at, kwh, source, unmetered, overlapped)| PartElectricity {
                part_id,
                started_at,
                ended_at,
                kwh,
                source,
                unmetered,
                overlapped,
            },
        )
}

fn print() -> impl Strategy<Value = Print> {
    let status = prop_oneof![
        Just(PrintStatus::Draft),
        Just(PrintStatus::Printing),
        Just(PrintStatus::Printed),
        Just(PrintStatus::Shipped),
        Just(PrintStatus::Done)
    ];
    let outcome = of(vec(revision(), 1..3).prop_map(|revisions| Outcome { revisions }));
    (
        (id(), any::<u64>(), text(), of(id()), of(id()), any::<u32>()),
        (of(decimal()), of(text()), status, any::<bool>(), of(at())),
        (any::<bool>(), of(at()), vec(part(), 1..3), costing()),
        (of(at()), of(at()), of(id()), of(id()), vec(id(), 0..3)),
        (outcome, at(), at(), of(at()), of(at())),
        (
            vec(work_line(), 0..3),
            of(price()),
            vec(print_material(), 0..3),
        ),
    )
        .prop_map(
            |(
                (id, version, name, customer, series, quantity),
                (sales, notes, status, paid, paid_at),
                (archived, archived_at, parts, costing),
                (finalized, completed, repeat_of, retried_from, retries),
                (outcome, created_at, updated_at, printing_started_at, printing_ended_at),
                (work, price, materials),
            )| Print {
                id,
                version,
                name,
                customer_id: customer,
                series_id: series,
                quantity,
                sales_value: sales,
                notes,
                status,
                paid,
                paid_at,
                archived,
                archived_at,
                parts,
                costing,
                finalized_at: finalized,
                printing_started_at,
                printing_ended_at,
                completed_at: completed,
                repeat_of_id: repeat_of,
                retried_from_id: retried_from,
                retry_ids: retries,
                outcome,
                created_at,
                updated_at,
                work,
                price,
                materials,
            },
        )
}

fn price() -> impl Strategy<Value = PriceSnapshot> {
    let success = (decimal(), any::<u32>()).prop_map(|(rate, sample)| SuccessRate { rate, sample });
    (
        (decimal(), decimal(), any::<bool>()),
        (of(success), any::<bool>()),
    )
        .prop_map(
            |((suggested, vat_percent, overridden), (success, failure_adjusted))| PriceSnapshot {
                suggested,
                vat_percent,
                overridden,
                success,
                failure_adjusted,
            },
        )
}

fn series() -> impl Strategy<Value = Series> {
    let status = prop_oneof![Just(SeriesStatus::Open), Just(SeriesStatus::Completed)];
    (
        (id(), text(), of(id()), of(any::<u32>()), of(text())),
        (any::<bool>(), status, any::<bool>(), at(), at()),
    )
        .prop_map(
            |((id, name, customer, target, notes), (auto, status, a, c, u))| Series {
                id,
                name,
                customer_id: customer,
                target,
                notes,
                auto_complete: auto,
                status,
                archived: a,
                created_at: c,
                updated_at: u,
            },
        )
}

/// Encodes `record` as the store does and decodes it again.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(record: &T) {
    let bytes = encode("test", record).unwrap();
    let back: T = decode("test", &bytes).unwrap();
    assert_eq!(&back, record);
}

fn spool_link() -> impl Strategy<Value = SpoolLink> {
    let authority = prop_oneof![
        Just(Authority::Native),
        Just(Authority::ExternalReadOnly),
        Just(Authority::ExternalConsumption),
    ];
    let state = prop_oneof![
        Just(RemoteState::Active),
        Just(RemoteState::Archived),
        Just(RemoteState::Missing),
    ];
    (
        id(),
        any::<u64>(),
        authority,
        of(decimal()),
        state,
        of(at()),
        of(text()),
        at(),
    )
        .prop_map(
            |(
                spool_id,
                remote_id,
                authority,
                grams,
                remote_state,
                synced_at,
                sync_error,
                linked_at,
            )| {
                SpoolLink {
                    spool_id,
                    remote_id,
                    authority,
                    remote_remaining_grams: grams,
                    remote_state,
                    synced_at,
                    sync_error,
                    linked_at,
                }
            },
        )
}

fn operation() -> impl Strategy<Value = SpoolmgrOperation> {
    let state = prop_oneof![
        Just(OperationState::Pending),
        Just(OperationState::Sending),
        Just(OperationState::Applied),
        Just(OperationState::Unknown),
        Just(OperationState::Failed),
    ];
    (
        (id(), id(), any::<u64>(), decimal(), state),
        (of(text()), id(), id(), any::<u32>(), at(), at()),
    )
        .prop_map(
            |(
                (id, spool_id, remote_id, grams, state),
                (error, print_id, usage_id, revision, c, u),
            )| {
                SpoolmgrOperation {
                    id,
                    spool_id,
                    remote_id,
                    grams,
                    state,
                    error,
                    print_id,
                    usage_id,
                    revision,
                    created_at: c,
                    updated_at: u,
                }
            },
        )
}

fn printer_link() -> impl Strategy<Value = PrinterLink> {
    let tray = (text(), of(text()), of(text())).prop_map(|(slot, material, color)| Tray {
        slot,
        material,
        color,
    });
    (
        (id(), any::<u64>(), of(text()), any::<bool>(), of(text())),
        (
            vec(tray, 0..4),
            vec((text(), id()), 0..3),
            of(at()),
            of(text()),
            at(),
        ),
    )
        .prop_map(
            |(
                (printer_id, remote_id, remote_name, connected, state),
                (trays, mapped, synced_at, sync_error, linked_at),
            )| {
                PrinterLink {
                    printer_id,
                    remote_id,
                    remote_name,
                    connected,
                    state,
                    trays,
                    mapped,
                    synced_at,
                    sync_error,
                    linked_at,
                }
            },
        )
}

fn log_link() -> impl Strategy<Value = LogLink> {
    let log = (
        (any::<u64>(), of(any::<u64>()), of(text()), text()),
        (
            of(at()),
            of(at()),
            of(any::<u32>()),
            of(decimal()),
            of(text()),
            of(decimal()),
        ),
    )
        .prop_map(
            |(
                (id, printer_id, print_name, status),
                (started_at, completed_at, duration_seconds, grams, failure_reason, energy_kwh),
            )| {
                PrintLog {
                    id,
                    printer_id,
                    print_name,
                    status,
                    started_at,
                    completed_at,
                    duration_seconds,
                    filament_used_grams: grams,
                    failure_reason,
                    energy_kwh,
                }
            },
        );
    (
        id(),
        id(),
        any::<u64>(),
        of(log),
        of(at()),
        of(text()),
        of(at()),
    )
        .prop_map(
            |(part_id, print_id, remote_log_id, log, synced_at, error, imported_at)| LogLink {
                part_id,
                print_id,
                remote_log_id,
                log,
                synced_at,
                error,
                imported_at,
            },
        )
}

proptest! {
    #[test]
    fn printer_fleet_records(p in printer_link(), l in log_link()) {
        round_trip(&p);
        round_trip(&l);
    }

    #[test]
    fn spool_manager_records(l in spool_link(), o in operation()) {
        round_trip(&l);
        round_trip(&o);
    }

    #[test]
    fn accounts_and_sessions(a in account(), s in session()) {
        round_trip(&a);
        round_trip(&s);
    }

    #[test]
    fn settings_records(s in settings(), i in integrations(), p in pricing(), c in company()) {
        round_trip(&s);
        round_trip(&i);
        round_trip(&p);
        round_trip(&c);
    }

    #[test]
    fn quotes(q in quote()) {
        round_trip(&q);
    }

    #[test]
    fn inventory_records(
        c in customer(),
        m in manufacturer(),
        p in printer(),
        k in component(),
        f in filament(),
    ) {
        round_trip(&c);
        round_trip(&m);
        round_trip(&p);
        round_trip(&k);
        round_trip(&f);
    }

    #[test]
    fn work_records(r in labour_rate(), c in charge(), s in step()) {
        round_trip(&r);
        round_trip(&c);
        round_trip(&s);
    }

    #[test]
    fn spools_and_movements(s in spool(), m in movement()) {
        round_trip(&s);
        round_trip(&m);
    }

    #[test]
    fn prints_and_series(p in print(), s in series()) {
        round_trip(&p);
        round_trip(&s);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Records stored through the repository and read back in another transaction.
    #[test]
    fn records_read_back_from_the_store(
        p in print(),
        s in spool(),
        m in movement(),
        f in filament(),
        l in spool_link(),
        o in operation(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.redb");
        let store = storage::Store::open(&path, storage::StoreOptions::default()).unwrap();
        let txn = store.begin_write().unwrap();
        repo::put(&txn, &p).unwrap();
        repo::put(&txn, &s).unwrap();
        repo::put(&txn, &m).unwrap();
        repo::put(&txn, &f).unwrap();
        repo::put(&txn, &l).unwrap();
        repo::put(&txn, &o).unwrap();
        txn.commit().unwrap();
        let read = store.begin_read().unwrap();
        prop_assert_eq!(get::<Print>(&read, p.id).unwrap(), Some(p));
        prop_assert_eq!(get::<Spool>(&read, s.id).unwrap(), Some(s));
        prop_assert_eq!(get::<Movement>(&read, m.id).unwrap(), Some(m));
        prop_assert_eq!(get::<Filament>(&read, f.id).unwrap(), Some(f));
        prop_assert_eq!(get::<SpoolLink>(&read, l.spool_id).unwrap(), Some(l));
        prop_assert_eq!(get::<SpoolmgrOperation>(&read, o.id).unwrap(), Some(o));
    }
}
