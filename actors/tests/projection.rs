//! The print list projection is kept by the writers: every command that stores a print, on any
//! writer, is in the list as soon as its sender is answered, with no caller updating it.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "support/setup.rs"]
mod support_setup;
use actors::prints::outcome::{CorrectionInput, OutcomeInput};
use actors::prints::query::{Outcome, PrintFilter};
use actors::prints::{
    ArchivePrint, Complete, CopyKind, CopyPrint, CorrectOutcome, CreateDraft, NextRun, PrintIndex,
    PrintInput, RecordOutcome, ReplaceDraft, Retry, SetPaid, SetStatus,
};
use actors::projection::wear;
use actors::runtime::writer::Writers;
use actors::series::{CreateSeries, SeriesInput};
use actors::setup::RunSetup;
use actors::values::{Grams, Seconds};
use std::sync::Arc;
use storage::records;
use storage::records::{OutcomeStatus, Print, PrintStatus};
use storage::{Id, Store, StoreOptions, repo, tables};
use support_setup::demo_setup;

/// Checks that the projection shows `print` as it is now: found by its status, outcome, archive
/// state and name, and under no other status.
fn assert_listed(index: &PrintIndex, print: &Print) {
    let outcome = match print.outcome.as_ref().and_then(|o| o.current()) {
        Some(r) if r.status == OutcomeStatus::Success => Outcome::Success,
        Some(_) => Outcome::Failed,
        None => Outcome::Pending,
    };
    let now = PrintFilter {
        statuses: vec![print.status],
        outcomes: (print.status == PrintStatus::Done)
            .then_some(outcome)
            .into_iter()
            .collect(),
        search: Some(print.name.to_lowercase()),
        include_archived: true,
        ..PrintFilter::default()
    };
    assert!(
        index.ids(&now).unwrap().contains(&print.id),
        "{} not listed as it is",
        print.name
    );
    let others = PrintFilter {
        statuses: [PrintStatus::Draft, PrintStatus::Printing, PrintStatus::Done]
            .into_iter()
            .filter(|s| *s != print.status)
            .collect(),
        include_archived: true,
        ..PrintFilter::default()
    };
    assert!(
        !index.ids(&others).unwrap().contains(&print.id),
        "stale status"
    );
    let active = PrintFilter::default();
    assert_eq!(
        index.ids(&active).unwrap().contains(&print.id),
        !print.archived
    );
}

/// A part's printing time: the sum of its hotends' times.
fn seconds(part: &records::Part) -> u32 {
    part.hotends.iter().map(|h| h.duration_seconds).sum()
}

/// A FAILED outcome of `done` with its planned grams and times.
fn failed_outcome(done: &Print) -> OutcomeInput {
    let grams: Vec<(Id, Grams)> = done
        .parts
        .iter()
        .flat_map(|p| p.usages.iter())
        .map(|u| (u.id, u.used_grams.to_string().parse().unwrap()))
        .collect();
    let time = |s: u32| Seconds::try_from(u64::from(s)).unwrap();
    OutcomeInput {
        status: OutcomeStatus::Failed,
        duration_seconds: Some(time(done.parts.iter().map(seconds).sum())),
        filaments: Vec::new(),
        materials: grams.clone(),
        note: None,
        failure_reason: Some("Spaghetti".into()),
        parts: (done.parts.len() > 1).then(|| {
            done.parts
                .iter()
                .map(|p| (p.id, time(seconds(p))))
                .collect()
        }),
        electricity: Vec::new(),
        work_minutes: Vec::new(),
    }
}

#[actix_rt::test]
async fn every_command_that_stores_a_print_keeps_the_list_current() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
    let index = Arc::new(PrintIndex::load(&store, jiff::tz::TimeZone::UTC).unwrap());
    let (writers, _arbiters) = Writers::start(&store, &index);

    // Demo data is written by the settings writer.
    let setup = RunSetup {
        setup: demo_setup("Ada"),
        session_hash: [7; 32],
        session_ttl_seconds: 60,
    };
    writers.send(setup).await.unwrap();
    let demo: Vec<Print> = repo::all(&store.begin_read().unwrap()).unwrap();
    assert!(!demo.is_empty());
    assert_eq!(
        index.count().unwrap(),
        demo.len(),
        "demo prints listed at once"
    );
    demo.iter().for_each(|p| assert_listed(&index, p));

    let read = store.begin_read().unwrap();
    let mut input = PrintInput::from_print(&read, &demo[0], None, false).unwrap();
    drop(read);
    input.name = "Projected".parse().unwrap();
    for part in &mut input.parts {
        part.filaments.iter_mut().for_each(|f| f.spool_id = None);
    }
    let print = writers
        .send(CreateDraft {
            input: input.clone(),
            source: None,
        })
        .await
        .unwrap();
    assert_listed(&index, &print);
    let id = print.id;
    input.name = "Renamed".parse().unwrap();
    let print = writers.send(ReplaceDraft { id, input }).await.unwrap();
    assert_listed(&index, &print);

    let print = writers
        .send(SetStatus {
            id,
            status: PrintStatus::Printing,
            maintenance_override: None,
        })
        .await
        .unwrap();
    assert_listed(&index, &print);
    assert_listed(
        &index,
        &writers.send(SetPaid { id, paid: true }).await.unwrap(),
    );
    let archive = |archived| ArchivePrint { id, archived };
    assert_listed(&index, &writers.send(archive(true)).await.unwrap());
    assert_listed(&index, &writers.send(archive(false)).await.unwrap());
    let done = writers.send(Complete { id }).await.unwrap();
    assert_listed(&index, &done);
    for kind in [CopyKind::Duplicate, CopyKind::Repeat] {
        assert_listed(&index, &writers.send(CopyPrint { id, kind }).await.unwrap());
    }

    let failed = failed_outcome(&done);
    let recorded = RecordOutcome {
        id,
        input: failed.clone(),
    };
    assert_listed(&index, &writers.send(recorded).await.unwrap());
    let retry = writers.send(Retry { id }).await.unwrap();
    assert_listed(&index, &retry);
    let correction = CorrectionInput {
        outcome: OutcomeInput {
            status: OutcomeStatus::Success,
            failure_reason: None,
            ..failed
        },
        correction_note: "It held".into(),
        expected_revision: 1,
        operation_key: Id::new(),
    };
    let corrected = CorrectOutcome {
        id,
        input: correction,
    };
    assert_listed(&index, &writers.send(corrected).await.unwrap());

    let series = SeriesInput {
        name: "Runs".parse().unwrap(),
        customer_id: None,
        target: None,
        notes: None,
        auto_complete: false,
    };
    let series = writers.send(CreateSeries(series)).await.unwrap();
    let run = NextRun {
        series_id: series.id,
        source_print_id: id,
    };
    assert_listed(&index, &writers.send(run).await.unwrap());

    // And the list agrees with the store, print by print.
    let stored: Vec<Print> = repo::all(&store.begin_read().unwrap()).unwrap();
    assert_eq!(index.count().unwrap(), stored.len());
    stored.iter().for_each(|p| assert_listed(&index, p));

    // Every command stored its print's summary, and a projection loaded from the summaries
    // (as the next start does) is the one the writers kept.
    let summaries = {
        use redb::ReadableTableMetadata;
        let txn = store.begin_read().unwrap();
        txn.open_table(tables::PRINT_SUMMARIES)
            .unwrap()
            .len()
            .unwrap()
    };
    assert_eq!(summaries, stored.len() as u64);
    let loaded = PrintIndex::load(&store, jiff::tz::TimeZone::UTC).unwrap();
    assert_eq!(
        loaded.with_board(Clone::clone).unwrap(),
        index.with_board(Clone::clone).unwrap()
    );
    let every = PrintFilter {
        include_archived: true,
        ..PrintFilter::default()
    };
    assert_eq!(loaded.ids(&every).unwrap(), index.ids(&every).unwrap());
    assert_eq!(
        loaded.totals(&every).unwrap(),
        index.totals(&every).unwrap()
    );
    stored.iter().for_each(|p| assert_listed(&loaded, p));

    // The wear every write kept is what the prints add up to, as a rebuild sums it.
    let wear_in = |tx: &dyn Fn() -> Vec<([u8; 16], Vec<u8>)>| tx();
    let kept = wear_in(&|| {
        rows(
            &store
                .begin_read()
                .unwrap()
                .open_table(tables::WEAR)
                .unwrap(),
        )
    });
    assert!(!kept.is_empty(), "the prints ran on something");
    let txn = store.begin_write().unwrap();
    let mut rebuilt = wear::Rebuild::default();
    stored.iter().for_each(|p| rebuilt.add(p));
    rebuilt.write(&txn).unwrap();
    let summed = rows(&txn.open_table(tables::WEAR).unwrap());
    txn.abort();
    assert_eq!(kept, summed);
}

/// Every row of a wear table, in key order.
fn rows(table: &impl redb::ReadableTable<[u8; 16], &'static [u8]>) -> Vec<([u8; 16], Vec<u8>)> {
    table
        .iter()
        .unwrap()
        .map(|row| {
            let (k, v) = row.unwrap();
            (k.value(), v.value().to_vec())
        })
        .collect()
}
