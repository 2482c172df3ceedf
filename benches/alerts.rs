//! One reading of every alert's condition and of printcost's MQTT levels
//! ([`actors::alerts::conditions::read`], what the alert engine does every 30 s), over a store
//! of N prints: the demo shop and `ALERTS_PRINTS` seeded prints (default 50,000), or the store
//! in `DATA` (a data directory seeded by `examples/seed_prints.rs`, e.g. a million prints).
//!
//!     cargo bench --bench alerts
//!     DATA=/tmp/m1 cargo bench --bench alerts
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../examples/seed_prints.rs"]
#[allow(dead_code)]
mod seed_prints;

use actors::alerts::conditions::{self, Outside};
use actors::backup::nightly::Backups;
use actors::command::Snapshot;
use actors::integrations::health::PeerHealth;
use actors::prints::PrintIndex;
use criterion::{Criterion, criterion_group, criterion_main};
use jiff::tz::TimeZone;
use std::path::PathBuf;
use storage::{Store, StoreOptions, Timestamp};

fn reading(c: &mut Criterion) {
    let seeded = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("DATA").map_or_else(
        || {
            let count = std::env::var("ALERTS_PRINTS")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(50_000);
            seed_prints::seed(seeded.path(), count);
            seeded.path().to_path_buf()
        },
        PathBuf::from,
    );
    let store = Store::open(&dir.join(printcost::DATABASE_FILE), StoreOptions::default()).unwrap();
    let index = PrintIndex::load(&store, TimeZone::UTC).unwrap();
    let prints = index.count().unwrap();
    let outside = Outside {
        peers: PeerHealth::default(),
        sources: None,
        backups: Backups::new(store.clone(), TimeZone::UTC),
        started_at: Timestamp::now(),
    };
    let mut group = c.benchmark_group("alerts");
    group.sample_size(20);
    group.bench_function(format!("conditions at {prints} prints"), |b| {
        b.iter(|| {
            let txn = store.begin_read().unwrap();
            let snapshot = Snapshot {
                txn: &txn,
                index: &index,
            };
            conditions::read(&snapshot, &outside, Timestamp::now()).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, reading);
criterion_main!(benches);
