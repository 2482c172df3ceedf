//! The failure-adjusted price's success rate (`actors::prints::success::of`): how long a draft
//! waits for the rate of its printer and material over a store of seeded DONE prints with
//! outcomes, when the window fills from the newest prints (the common case, it stops early) and
//! when the pair has no history (it reads every print). `PRINTS=N` (default 20,000).
//!
//!     cargo bench --bench success
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::prints::success;
use criterion::{Criterion, criterion_group, criterion_main};
use rust_decimal::Decimal;
use storage::records::{
    Costing, Filament, HotendUse, MaterialKind, Outcome, OutcomeRevision, OutcomeStatus, Part,
    Print, PrintStatus, StockUnit, Usage,
};
use storage::{Id, Store, StoreOptions, Timestamp, repo};

fn filament(material: &str) -> Filament {
    Filament {
        id: Id::new(),
        manufacturer_id: Id::new(),
        material: material.into(),
        color_name: "Bench".into(),
        color_hex: "#000000".into(),
        purchase_price: Decimal::from(20),
        net_weight_grams: Decimal::from(1000),
        minimum_stock_grams: None,
        note: None,
        archived: false,
        created_at: Timestamp(0),
        updated_at: Timestamp(0),
        kind: MaterialKind::Filament,
        unit: StockUnit::Gram,
        density_grams_per_millilitre: None,
    }
}

fn part(printer: Id, filament: Id) -> Part {
    Part {
        id: Id::new(),
        printer_id: printer,
        build_plate_id: Id::new(),
        hotends: vec![HotendUse {
            component_id: Id::new(),
            duration_seconds: 3600,
        }],
        other_component_ids: vec![],
        usages: vec![Usage {
            id: Id::new(),
            filament_id: filament,
            spool_id: None,
            spool_code: None,
            used_grams: Decimal::from(40),
        }],
    }
}

/// A DONE print of `part` with an outcome, one in seven failed.
fn done(n: usize, part: Part) -> Print {
    let costing = Costing {
        electricity_price: Decimal::ZERO,
        lines: vec![],
        total: Decimal::ONE,
        cost_per_unit: Decimal::ONE,
    };
    let status = if n.is_multiple_of(7) {
        OutcomeStatus::Failed
    } else {
        OutcomeStatus::Success
    };
    Print {
        id: Id::new(),
        version: 1,
        name: format!("Run {n}"),
        customer_id: None,
        series_id: None,
        quantity: 1,
        sales_value: None,
        notes: None,
        status: PrintStatus::Done,
        paid: false,
        paid_at: None,
        archived: false,
        archived_at: None,
        parts: vec![part],
        costing: costing.clone(),
        finalized_at: None,
        printing_started_at: None,
        printing_ended_at: None,
        completed_at: Some(Timestamp(0)),
        repeat_of_id: None,
        retried_from_id: None,
        retry_ids: vec![],
        outcome: Some(Outcome {
            revisions: vec![OutcomeRevision {
                revision: 1,
                status,
                duration_seconds: 3600,
                part_durations: vec![],
                grams: vec![],
                note: None,
                failure_reason: None,
                correction_note: None,
                operation_key: None,
                recorded_at: Timestamp(0),
                actual: costing,
                electricity: vec![],
                work_minutes: vec![],
            }],
        }),
        created_at: Timestamp(0),
        updated_at: Timestamp(0),
        work: vec![],
        price: None,
        materials: vec![],
    }
}

fn bench_success(c: &mut Criterion) {
    let prints: usize = std::env::var("PRINTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("bench.redb"), StoreOptions::default()).unwrap();
    let (pla, petg) = (filament("PLA"), filament("PETG"));
    let printer = Id::new();
    let txn = store.begin_write().unwrap();
    repo::put(&txn, &pla).unwrap();
    repo::put(&txn, &petg).unwrap();
    for n in 0..prints {
        repo::put(&txn, &done(n, part(printer, pla.id))).unwrap();
    }
    txn.commit().unwrap();
    let read = store.begin_read().unwrap();
    let mut group = c.benchmark_group(format!("success rate over {prints} prints"));
    let known = [part(printer, pla.id)];
    group.bench_function("window of 20 filled by the newest", |b| {
        b.iter(|| success::of(&read, &known, 20).unwrap())
    });
    let unknown = [part(printer, petg.id)];
    group.bench_function("a pair without history (every print read)", |b| {
        b.iter(|| success::of(&read, &unknown, 20).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench_success);
criterion_main!(benches);
