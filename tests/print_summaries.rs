//! The error path of the print projection's stored summaries: a summary that does not decode
//! fails the projection (routes answer 503) instead of loading wrong figures.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../actors/tests/support/setup.rs"]
mod support_setup;
use actors::prints::PrintIndex;
use actors::runtime::writer::apply_offline;
use actors::setup::RunSetup;
use redb::ReadableTable;
use storage::{Store, StoreOptions, tables};
use support_setup::demo_setup;

#[test]
fn a_summary_that_does_not_decode_fails_the_projection() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
    let setup = RunSetup {
        setup: demo_setup("Ada"),
        session_hash: [7; 32],
        session_ttl_seconds: 60,
    };
    apply_offline(&store, &jiff::tz::TimeZone::UTC, setup).unwrap();
    // The first load makes the summaries complete; the store holds demo prints.
    let loaded = PrintIndex::load(&store, jiff::tz::TimeZone::UTC).unwrap();
    assert!(loaded.count().unwrap() > 0);

    let txn = store.begin_write().unwrap();
    {
        let mut summaries = txn.open_table(tables::PRINT_SUMMARIES).unwrap();
        let first = summaries.first().unwrap().unwrap().0.value();
        summaries.insert(first, [0xFF_u8; 2].as_slice()).unwrap();
    }
    txn.commit().unwrap();
    let error = PrintIndex::load(&store, jiff::tz::TimeZone::UTC).unwrap_err();
    assert!(
        error.to_string().contains("print_summaries"),
        "the failure names the table: {error}"
    );
}
