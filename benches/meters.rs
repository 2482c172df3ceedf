//! Energy meters' history (`actors::meters::history`):
//!
//! - **bytes**: one meter-year at one reading a minute (525,600 readings, a day per commit),
//!   written as the history keeps it (a row per hour, steps between readings) and, beside it
//!   in the same run, as a row per reading (`(meter, second) → counter`, 16-byte decimal): the
//!   store file's growth per reading and per meter-year of each, and their ratio. Printed once,
//!   not timed.
//! - **recording** (criterion): one second of 20 meters read once a second (their seconds
//!   spread over the minute): 20 readings offered to the keeper, and the ones it keeps (one a
//!   minute per meter) stored in one durable commit. The time per second read is the
//!   recorder's share of a second.
//!
//!     cargo bench --bench meters
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::meters::history::{Keeper, Sample, keep};
use criterion::{Criterion, criterion_group, criterion_main};
use redb::TableDefinition;
use rust_decimal::Decimal;
use storage::{Id, Store, StoreOptions, Timestamp};

/// The naive layout the history is compared with: a row per reading.
const PER_READING: TableDefinition<([u8; 16], u64), [u8; 16]> =
    TableDefinition::new("bench_reading_rows");

/// 2026-01-01 00:00:00 UTC.
const YEAR_START: i64 = 1_767_225_600;

/// A counter rising 1–3 Wh a minute, as a printer's plug meter does.
fn counter(minute: i64) -> Decimal {
    Decimal::new(1_234_567 + minute * 2 + minute % 3, 3)
}

fn file_size(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

/// Writes a meter-year both ways, a day per commit; prints bytes per reading and per year.
fn bytes_per_meter_year() {
    let minutes = 365 * 24 * 60;
    let mut grown = Vec::new();
    for layout in ["hour rows of steps", "a row per reading"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.redb");
        let store = Store::open(&path, StoreOptions::default()).unwrap();
        let before = file_size(&path);
        let meter = Id::new();
        let mut keeper = Keeper::default();
        for day in 0..365 {
            let txn = store.begin_write().unwrap();
            for minute in day * 1440..(day + 1) * 1440 {
                let sample = Sample {
                    at: Timestamp(YEAR_START + minute * 60),
                    kwh: counter(minute),
                };
                if layout == "hour rows of steps" {
                    let kept = keeper.offer(&txn, meter, sample).unwrap().unwrap();
                    keep(&txn, meter, kept).unwrap();
                } else {
                    let mut table = txn.open_table(PER_READING).unwrap();
                    let key = (meter.bytes(), sample.at.0 as u64);
                    table.insert(key, sample.kwh.serialize()).unwrap();
                }
            }
            txn.commit().unwrap();
        }
        drop(store);
        let mut db = redb::Database::open(&path).unwrap();
        db.compact().unwrap();
        drop(db);
        let bytes = file_size(&path).saturating_sub(before);
        println!(
            "{layout}: {bytes} bytes for {minutes} readings: {:.1} bytes a reading, {:.2} MB a meter-year",
            bytes as f64 / minutes as f64,
            bytes as f64 / 1e6
        );
        grown.push(bytes as f64);
    }
    println!(
        "a row per reading takes {:.1}× the hour rows",
        grown[1] / grown[0]
    );
}

fn recording(c: &mut Criterion) {
    bytes_per_meter_year();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
    let meters: Vec<Id> = (0..20).map(|_| Id::new()).collect();
    let mut keeper = Keeper::default();
    let mut second = 0i64;
    c.bench_function("one second of 20 meters read once a second", |b| {
        b.iter(|| {
            second += 1;
            // Offers read the store only for a meter not seen yet; a second with nothing kept
            // writes nothing.
            let read = store.begin_read().unwrap();
            let mut kept = Vec::new();
            for (i, meter) in meters.iter().enumerate() {
                let sample = Sample {
                    at: Timestamp(YEAR_START + second + i as i64),
                    kwh: Decimal::new(1_000_000 + second * 30 + i as i64, 6),
                };
                if let Some(sample) = keeper.offer(&read, *meter, sample).unwrap() {
                    kept.push((*meter, sample));
                }
            }
            drop(read);
            if !kept.is_empty() {
                let txn = store.begin_write().unwrap();
                for (meter, sample) in kept {
                    keep(&txn, meter, sample).unwrap();
                }
                txn.commit().unwrap();
            }
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = recording
}
criterion_main!(benches);
