//! `GET /api/health`, with a healthy store, with a store whose device fails, and while the first
//! start after an upgrade rebuilds the print summaries.

use crate::durability::Service;
use crate::support::{TestApp, assert_error};
use redb::StorageBackend;
use redb::backends::FileBackend;
use serde_json::{Value, json};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use storage::records::Print;
use storage::tables;
use storage::{Store, StoreOptions, repo};

#[path = "../../examples/seed_prints.rs"]
#[allow(dead_code)]
mod seed_prints;

/// A file backend whose every operation fails while `failing` is set (file permissions do not
/// stop root, so the failure is injected here).
#[derive(Debug)]
struct FailingBackend {
    inner: FileBackend,
    failing: Arc<AtomicBool>,
}

impl FailingBackend {
    fn check(&self) -> io::Result<()> {
        if self.failing.load(Ordering::SeqCst) {
            Err(io::Error::other("injected device failure"))
        } else {
            Ok(())
        }
    }
}

impl StorageBackend for FailingBackend {
    fn len(&self) -> io::Result<u64> {
        self.check()?;
        self.inner.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.check()?;
        self.inner.read(offset, out)
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.check()?;
        self.inner.set_len(len)
    }
    fn sync_data(&self) -> io::Result<()> {
        self.check()?;
        self.inner.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.check()?;
        self.inner.write(offset, data)
    }
}

#[actix_web::test]
async fn health_reports_ok_and_the_version() {
    let app = TestApp::spawn().await;
    // A list waits for the projection's load; health does not, and says when it is over.
    app.setup().await;
    assert_eq!(app.get("/api/prints").await.status(), 200);
    let res = app.get("/api/health").await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body,
        json!({"status": "ok", "database": "ok", "version": env!("CARGO_PKG_VERSION"), "loading": null})
    );
}

#[actix_web::test]
async fn an_unreadable_database_answers_503_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.path().join("failing.redb"))
        .unwrap();
    let failing = Arc::new(AtomicBool::new(false));
    let backend = FailingBackend {
        inner: FileBackend::new(file).unwrap(),
        failing: failing.clone(),
    };
    let store = Store::open_with_backend(backend, StoreOptions::default()).unwrap();
    let app = TestApp::spawn_with_store(store).await;
    app.setup().await;
    assert_eq!(app.get("/api/health").await.status(), 200);

    failing.store(true, Ordering::SeqCst);
    assert_error(app.get("/api/health").await, 503, "DATABASE_UNAVAILABLE").await;
    let write = app.post("/api/customers", &json!({"name": "Lost?"})).await;
    assert_error(write, 503, "DATABASE_UNAVAILABLE").await;

    failing.store(false, Ordering::SeqCst);
    assert_eq!(app.get("/api/health").await.status(), 200);
}

#[actix_web::test]
async fn a_projection_that_cannot_load_answers_503_and_says_why_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("printcost.redb"), StoreOptions::default()).unwrap();
    // A print record no build can read: the projection cannot be loaded from it.
    let txn = store.begin_write().unwrap();
    txn.open_table(tables::PRINTS)
        .unwrap()
        .insert(storage::Id::new().bytes(), &b"\xff\xff not a print"[..])
        .unwrap();
    txn.commit().unwrap();
    let app = TestApp::spawn_with_store(store).await;
    let health = tokio::time::timeout(std::time::Duration::from_secs(10), app.get("/api/health"))
        .await
        .expect("health answers");
    let body = assert_error(health, 503, "DATABASE_UNAVAILABLE").await;
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("print projection"),
        "{body}"
    );
    app.setup().await;
    let list = tokio::time::timeout(std::time::Duration::from_secs(10), app.get("/api/prints"))
        .await
        .expect("the list answers");
    assert_error(list, 503, "DATABASE_UNAVAILABLE").await;
    let dashboard = app.get("/api/dashboard").await;
    assert_error(dashboard, 503, "DATABASE_UNAVAILABLE").await;
    assert_eq!(
        app.get("/api/customers").await.status(),
        200,
        "the rest serves"
    );
}

/// Prints seeded beside the demo shop's, without their summaries (as a build before them left
/// its store): enough that their rebuild at the first start (tens of microseconds a print in a
/// debug build) outlasts the first answers of health, and a rebuild of 10,000 or more logs its
/// tenths.
const SEEDED_PRINTS: usize = 12_000;

/// The lines of `service`'s log so far that hold `text`.
fn logged(service: &Service, text: &str) -> Vec<String> {
    let log = service.log.lock().unwrap();
    log.iter().filter(|l| l.contains(text)).cloned().collect()
}

#[actix_web::test]
async fn a_first_start_that_rebuilds_the_summaries_says_so_in_health_and_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let seeding = dir.path().to_path_buf();
    actix_web::rt::task::spawn_blocking(move || seed_prints::seed(&seeding, SEEDED_PRINTS))
        .await
        .unwrap();
    let total = {
        let store = Store::open(
            &dir.path().join(printcost::DATABASE_FILE),
            StoreOptions::default(),
        )
        .unwrap();
        repo::count::<Print>(&store.begin_read().unwrap()).unwrap()
    };

    let service = Service::start(dir.path());
    let mut seen = Vec::new();
    let loaded = loop {
        let res = service.client.get(service.url("/api/health")).send().await;
        let body: Value = res.unwrap().json().await.unwrap();
        assert_eq!(body["status"], "ok", "{body}");
        if body["loading"].is_null() {
            break body;
        }
        assert!(seen.len() < 100_000, "the load never ended: {body}");
        seen.push(body["loading"].clone());
    };
    assert_eq!(loaded["database"], "ok");
    println!(
        "health answered {} times while {total} prints were rebuilt",
        seen.len()
    );
    assert!(
        !seen.is_empty(),
        "health was read while the summaries were rebuilt"
    );
    let mut before = 0;
    for loading in &seen {
        assert_eq!(loading["step"], "REBUILDING_SUMMARIES", "{loading}");
        assert_eq!(loading["total"], total, "{loading}");
        let done = loading["done"].as_u64().unwrap();
        assert!(before <= done && done <= total, "{seen:?}");
        before = done;
    }
    // What it does, in the log: its start with the count, tenths of the way, its end.
    let started = logged(&service, "rebuilding the print summaries from the prints");
    assert_eq!(started.len(), 1, "{started:?}");
    assert!(
        started[0].contains(&format!("prints={total}")),
        "{started:?}"
    );
    let tenths = logged(&service, "rebuilding the print summaries: ");
    let percents: Vec<&str> = tenths
        .iter()
        .filter_map(|l| l.split("summaries: ").nth(1)?.split('%').next())
        .collect();
    let every_tenth: Vec<String> = (1..=10).map(|k| (k * 10).to_string()).collect();
    assert_eq!(percents, every_tenth, "{tenths:?}");
    let ended = logged(&service, "print summaries rebuilt from the prints");
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert!(ended[0].contains(&format!("prints={total}")), "{ended:?}");
    drop(service);

    // The next start reads the summaries it wrote: nothing to rebuild, nothing said of it.
    let service = Service::start(dir.path());
    loop {
        let res = service.client.get(service.url("/api/health")).send().await;
        let body: Value = res.unwrap().json().await.unwrap();
        if body["loading"].is_null() {
            break;
        }
        assert_eq!(body["loading"]["step"], "READING_SUMMARIES", "{body}");
    }
    assert!(
        logged(&service, "rebuilding").is_empty(),
        "{:?}",
        service.log.lock().unwrap()
    );
}
