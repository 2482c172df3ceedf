//! `GET /api/health`, with a healthy store and with a store whose device fails.

use crate::support::{TestApp, assert_error};
use redb::StorageBackend;
use redb::backends::FileBackend;
use serde_json::{Value, json};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use storage::tables;
use storage::{Store, StoreOptions};

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
