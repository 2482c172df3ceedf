//! Ledger throughput: movements booked per second through the ledger writer actor, with 1, 8 and
//! 64 concurrent senders, every batch durable when answered (one redb durable commit per batch,
//! as in the service). After each group it prints how many write transactions 1,000 movements
//! took: group commit makes that fall as concurrency rises, and the journal's size per entry
//! (one entry per movement).
//!
//!     cargo bench --bench ledger
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::command::LedgerWriter;
use actors::ledger;
use actors::prints::PrintIndex;
use actors::runtime::writer::WriterHandle;
use actors::stock::BookMovement;
use actors::txn;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use std::time::{Duration, Instant};
use storage::journal;
use storage::records::MovementKind;
use storage::records::{Filament, MaterialKind, Settings, StockUnit};
use storage::{Id, Store, StoreOptions, Timestamp, repo, tables};

/// A store with one filament and one spool per sender.
fn store(dir: &std::path::Path, spools: usize) -> (Store, Vec<Id>) {
    let store = Store::open(&dir.join("bench.redb"), StoreOptions::default()).unwrap();
    let txn = txn::Txn::new(store.begin_write().unwrap());
    let filament = Filament {
        id: Id::new(),
        manufacturer_id: Id::new(),
        material: "PLA".into(),
        color_name: "Bench".into(),
        color_hex: "#000000".into(),
        purchase_price: "20".parse().unwrap(),
        net_weight_grams: "1000".parse().unwrap(),
        minimum_stock_grams: None,
        note: None,
        archived: false,
        created_at: Timestamp::now(),
        updated_at: Timestamp::now(),
        kind: MaterialKind::Filament,
        unit: StockUnit::Gram,
        density_grams_per_millilitre: None,
    };
    repo::put(&txn, &filament).unwrap();
    let settings = Settings {
        currency: "EUR".into(),
        default_language: "en-US".into(),
        electricity_price: "0.32".parse().unwrap(),
        print_series_enabled: true,
        spool_management_enabled: true,
    };
    repo::put_settings(&txn, &settings).unwrap();
    let ids = (0..spools)
        .map(|n| {
            let input = ledger::SpoolInput {
                code: Some(format!("B-{n}")),
                filament_id: filament.id,
                purchase_price: "20".parse().unwrap(),
                initial_net_weight_grams: "100000000".parse().unwrap(),
                unit: StockUnit::Gram,
                purchase_lot: None,
                location: None,
                acquired_at: None,
            };
            ledger::open_spool(&txn, &input, Timestamp::now())
                .unwrap()
                .id
        })
        .collect();
    txn.commit().unwrap();
    (store, ids)
}

/// How many entries the journal holds and their stored bytes (hash and canonical text).
fn journal_size(store: &Store) -> (u64, u64) {
    let txn = store.begin_read().unwrap();
    let table = txn.open_table(tables::JOURNAL).unwrap();
    let mut bytes = 0;
    for row in table.range(1..).unwrap() {
        bytes += row.unwrap().1.value().len() as u64;
    }
    (journal::count(&txn).unwrap(), bytes)
}

fn bench_ledger(c: &mut Criterion) {
    let mut group = c.benchmark_group("ledger");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    for senders in [1usize, 8, 64] {
        let dir = tempfile::tempdir().unwrap();
        let (store, spools) = store(dir.path(), senders);
        let system = actix_rt::System::new();
        let index = Arc::new(PrintIndex::load(&store, jiff::tz::TimeZone::UTC).unwrap());
        let (writer, _arbiter) = system.block_on(async {
            WriterHandle::<LedgerWriter>::start("ledger", store.clone(), index)
        });
        let per_sender = 2000 / senders;
        let movements = (per_sender * senders) as u64;
        group.throughput(Throughput::Elements(movements));
        let (commits_before, commands_before) =
            (writer.stats().commits(), writer.stats().commands());
        group.bench_function(format!("{senders} senders"), |b| {
            b.iter_custom(|iters| {
                let started = Instant::now();
                for _ in 0..iters {
                    system.block_on(async {
                        let tasks = spools.iter().map(|spool| {
                            let (writer, spool) = (writer.clone(), *spool);
                            async move {
                                for _ in 0..per_sender {
                                    let movement = BookMovement {
                                        spool_id: spool,
                                        kind: MovementKind::Correction,
                                        grams: "-0.5".parse().unwrap(),
                                        unit: StockUnit::Gram,
                                        note: None,
                                        operation_key: Some(Id::new()),
                                    };
                                    writer.send(movement).await.unwrap();
                                }
                            }
                        });
                        futures_util::future::join_all(tasks).await;
                    });
                }
                started.elapsed()
            })
        });
        let commits = writer.stats().commits() - commits_before;
        let commands = writer.stats().commands() - commands_before;
        println!(
            "ledger/{senders} senders: {commands} movements in {commits} commits = {:.0} commits per 1,000 movements",
            commits as f64 * 1000.0 / commands.max(1) as f64
        );
        let (entries, bytes) = journal_size(&store);
        println!(
            "ledger/{senders} senders: the journal holds {entries} entries, {} bytes each on average (hash and canonical text; without the indexes)",
            bytes / entries.max(1)
        );
    }
    group.finish();
}

criterion_group!(benches, bench_ledger);
criterion_main!(benches);
