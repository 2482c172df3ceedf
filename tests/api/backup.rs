//! Backup and restore, black-box: `GET /api/backup` while clients book movements, then
//! `printcost restore` (the real binary) into a fresh directory and the restored service's ledger.

use crate::durability::Service;
use crate::invoices::{company, customer, done};
use crate::spools::{balanced_ledger, filament, key, spool};
use crate::support::{TestApp, assert_error, page, setup_body, shop, signed_in};
use serde_json::json;
use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use storage::repo::decode_all;
use storage::{Store, StoreOptions, tables};

/// Runs the real `printcost` with `args` on `data_dir`.
pub(crate) fn printcost(args: &[&str], data_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_printcost"))
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .unwrap()
}

/// The names in `dir` with each file's bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

#[actix_web::test]
async fn a_backup_taken_under_load_restores_every_acknowledged_movement() {
    let app = Arc::new(TestApp::spawn().await);
    assert_error(app.get("/api/backup").await, 401, "UNAUTHENTICATED").await;
    app.setup().await;
    let filament = filament(&app).await;
    let mut spools = Vec::new();
    for n in 0..3 {
        let created = spool(&app, &filament, &format!("B-{n}"), "20", "100000").await;
        spools.push(created["id"].as_str().unwrap().to_string());
    }

    // Eight clients book movements until told to stop; each acknowledged id is noted.
    let acknowledged = Arc::new(Mutex::new(Vec::<(String, String)>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let bookers: Vec<_> = (0..8)
        .map(|c| {
            let (app, acknowledged, stop) = (app.clone(), acknowledged.clone(), stop.clone());
            let spool = spools[c % spools.len()].clone();
            actix_web::rt::spawn(async move {
                let url = app.url(&format!("/api/spools/{spool}/movements"));
                let client = app.client.clone();
                while !stop.load(Ordering::Relaxed) {
                    let body =
                        json!({"kind": "CORRECTION", "grams": "-0.5", "operationKey": key()});
                    let res = client.post(&url).json(&body).send().await.unwrap();
                    assert_eq!(res.status(), 201);
                    let id = res.json::<serde_json::Value>().await.unwrap()["id"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    acknowledged.lock().unwrap().push((spool.clone(), id));
                }
            })
        })
        .collect();
    while acknowledged.lock().unwrap().len() < 100 {
        actix_web::rt::time::sleep(std::time::Duration::from_millis(10)).await;
    }

    let before: Vec<(String, String)> = acknowledged.lock().unwrap().clone();
    let res = app.get("/api/backup").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/octet-stream");
    let disposition = res.headers()["content-disposition"].to_str().unwrap();
    let name = disposition
        .strip_prefix("attachment; filename=\"printcost-")
        .and_then(|rest| rest.strip_suffix(".redb\""))
        .unwrap_or_else(|| panic!("{disposition}"));
    assert!(
        name.len() == 15 && name.as_bytes()[8] == b'-',
        "YYYYMMDD-HHMMSS: {name}"
    );
    let bytes = res.bytes().await.unwrap();
    let during = acknowledged.lock().unwrap().len() - before.len();
    stop.store(true, Ordering::Relaxed);
    for booker in bookers {
        booker.await.unwrap();
    }
    assert!(
        during > 0,
        "movements were booked while the backup was taken"
    );
    eprintln!(
        "backup: {} movements acknowledged before, {during} during; {} bytes",
        before.len(),
        bytes.len()
    );

    let backups = tempfile::tempdir().unwrap();
    let file = backups.path().join("printcost-backup.redb");
    std::fs::write(&file, &bytes).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let out = printcost(&["restore", file.to_str().unwrap()], fresh.path());
    assert!(out.status.success(), "{out:?}");
    let restored_state = contents(fresh.path());
    assert_eq!(restored_state.len(), 1, "only printcost.redb");

    // A junk file and a file of a newer schema are refused, and nothing changes.
    let junk = backups.path().join("junk.redb");
    std::fs::write(&junk, b"this is not a database").unwrap();
    let out = printcost(&["restore", junk.to_str().unwrap()], fresh.path());
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("not a printcost database"), "{said}");
    assert!(said.contains("nothing changed"), "{said}");
    let newer = backups.path().join("newer.redb");
    {
        let db = redb::Database::create(&newer).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(tables::META)
            .unwrap()
            .insert("schema_version", storage::SCHEMA_VERSION + 1)
            .unwrap();
        txn.commit().unwrap();
    }
    let out = printcost(&["restore", newer.to_str().unwrap()], fresh.path());
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("newer printcost"), "{said}");
    assert!(
        contents(fresh.path()) == restored_state,
        "a refused restore changed the data directory"
    );

    let restored = TestApp::spawn_with(|c| c.data_dir = fresh.path().to_path_buf()).await;
    restored.login().await;
    let mut held = HashSet::new();
    for spool in &spools {
        held.extend(balanced_ledger(&restored, spool).await.1);
    }
    for (spool, id) in &before {
        assert!(held.contains(id), "movement {id} of spool {spool} was lost");
    }
}

#[actix_web::test]
async fn a_restored_backup_keeps_its_invoices_and_their_numbering() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_eq!(
        app.patch("/api/settings/company", &company(false))
            .await
            .status(),
        200
    );
    let shop = shop(&app).await;
    let buyer = app
        .create("/api/customers", &customer("Verein", "DE", None))
        .await;
    let buyer = buyer["id"].as_str().unwrap().to_string();
    let mut drafts = Vec::new();
    for _ in 0..2 {
        let print = done(&app, &shop, &buyer, "10").await;
        let body = json!({"customerId": buyer, "printIds": [print]});
        let draft = app.create("/api/invoices", &body).await;
        drafts.push(draft["id"].as_str().unwrap().to_string());
    }
    let first = format!("/api/invoices/{}", drafts[0]);
    assert_eq!(
        app.post(&format!("{first}/issue"), &json!({}))
            .await
            .status(),
        200
    );
    let xml = app
        .get(&format!("{first}/xrechnung.xml"))
        .await
        .text()
        .await
        .unwrap();
    let bytes = app.get("/api/backup").await.bytes().await.unwrap();

    let backups = tempfile::tempdir().unwrap();
    let file = backups.path().join("printcost-backup.redb");
    std::fs::write(&file, &bytes).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let out = printcost(&["restore", file.to_str().unwrap()], fresh.path());
    assert!(out.status.success(), "{out:?}");
    let restored = TestApp::spawn_with(|c| c.data_dir = fresh.path().to_path_buf()).await;
    restored.login().await;
    let again = restored
        .get(&format!("{first}/xrechnung.xml"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(again, xml, "the issued invoice, byte for byte");
    let second = format!("/api/invoices/{}/issue", drafts[1]);
    let res = restored.post(&second, &json!({})).await;
    assert_eq!(res.status(), 200);
    let issued: serde_json::Value = res.json().await.unwrap();
    assert!(
        issued["number"].as_str().unwrap().ends_with("-0002"),
        "the numbering goes on: {issued}"
    );
}

#[actix_web::test]
async fn the_offline_backup_command_writes_a_restorable_file() {
    let source = tempfile::tempdir().unwrap();
    let service = Service::start(source.path());
    let setup = service.client.post(service.url("/api/auth/setup"));
    assert_eq!(
        setup.json(&setup_body()).send().await.unwrap().status(),
        201
    );
    let res = service
        .client
        .post(service.url("/api/customers"))
        .json(&json!({"name": "Kept"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let customer: serde_json::Value = res.json().await.unwrap();
    let out = printcost(&["backup", "refused.redb"], source.path());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("stop the service"),
        "{said}"
    );
    service.kill_9();
    let file = source.path().join("nightly.redb");
    let out = printcost(&["backup", file.to_str().unwrap()], source.path());
    assert!(out.status.success(), "{out:?}");
    let fresh = tempfile::tempdir().unwrap();
    std::fs::write(fresh.path().join("printcost.redb"), b"a damaged file").unwrap();
    let out = printcost(&["restore", file.to_str().unwrap()], fresh.path());
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("printcost.redb.before-restore-"), "{said}");
    let restored = TestApp::spawn_with(|c| c.data_dir = fresh.path().to_path_buf()).await;
    restored.login().await;
    let id = customer["id"].as_str().unwrap();
    assert_eq!(
        restored.get(&format!("/api/customers/{id}")).await.status(),
        200
    );
}

#[actix_web::test]
async fn the_backup_page_offers_the_download_and_shows_the_last_one() {
    let (app, browser) = signed_in().await;
    let (status, html) = page(&browser, &app, "/settings/backup").await;
    assert_eq!(status, 200);
    assert!(html.contains(r#"href="/api/backup""#), "{html}");
    assert!(
        html.contains("Last backup downloaded:\n    never"),
        "{html}"
    );
    assert!(
        html.contains("printcost restore FILE --data-dir /"),
        "the restore command names the data directory: {html}"
    );
    let res = browser.get(app.url("/api/backup")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let today = jiff::Timestamp::now().strftime("%m/%d/%Y").to_string();
    let (_, html) = page(&browser, &app, "/settings/backup").await;
    let last = html.split("id=\"last-backup\">").nth(1).unwrap();
    let last = last.split("</").next().unwrap();
    assert!(
        last.contains(&format!("{today}, ")) && !last.contains("UTC"),
        "{last}"
    );
}

/// A small deterministic generator (xorshift64*): the same mutations on every run.
struct Mutations(u64);

impl Mutations {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }
}

/// `printcost restore` over damaged backups: truncated, bit-flipped, pages swapped. Each is
/// refused with exit 1 and a message, the data directory byte for byte as it was, or (a
/// mutation the file does not notice, in a free page) restored into a store whose every
/// record decodes. Never a panic (exit 101), never a half-installed file.
#[actix_web::test]
async fn restore_refuses_damaged_backups_and_changes_nothing() {
    let (app, _client) = signed_in().await;
    let filament = filament(&app).await;
    for k in 0..3 {
        spool(&app, &filament, &format!("FZ-{k}"), "24.99", "1000").await;
    }
    let backup = app.get("/api/backup").await;
    assert_eq!(backup.status(), 200);
    let good = backup.bytes().await.unwrap().to_vec();
    let target = tempfile::tempdir().unwrap();
    std::fs::write(target.path().join("printcost.redb"), &good).unwrap();
    let before = contents(target.path());
    let files = tempfile::tempdir().unwrap();
    let page = 4096;
    let mut random = Mutations(0x5eed_cafe_f00d_0001);
    let mut damaged: Vec<(String, Vec<u8>)> = Vec::new();
    for eighth in 1..8 {
        let cut = good.len() * eighth / 8;
        damaged.push((format!("truncated at {cut}"), good[..cut].to_vec()));
    }
    damaged.push(("one byte short".into(), good[..good.len() - 1].to_vec()));
    // Half the flips in the first two pages (redb's header and the tables' roots), where the
    // engine looks first; the rest anywhere.
    for flip in 0..160 {
        let range = if flip % 2 == 0 { 2 * page } else { good.len() };
        let (at, bit) = (random.below(range), random.below(8));
        let mut flipped = good.clone();
        flipped[at] ^= 1 << bit;
        damaged.push((format!("bit {bit} of byte {at} flipped"), flipped));
    }
    let pages = good.len() / page;
    for _ in 0..40 {
        let (a, b) = (random.below(pages), random.below(pages));
        let mut swapped = good.clone();
        let (first, second) = (a.min(b) * page, a.max(b) * page);
        if first == second {
            continue;
        }
        let (low, high) = swapped.split_at_mut(second);
        low[first..first + page].swap_with_slice(&mut high[..page]);
        damaged.push((format!("pages {a} and {b} swapped"), swapped));
    }
    let (mut refused, mut restored) = (0, 0);
    for (what, bytes) in &damaged {
        let file = files.path().join("damaged.redb");
        std::fs::write(&file, bytes).unwrap();
        let out = printcost(&["restore", file.to_str().unwrap()], target.path());
        let said = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(1) => {
                refused += 1;
                assert!(said.contains("was not restored"), "{what}: {said}");
                assert!(
                    contents(target.path()) == before,
                    "{what}: the directory changed"
                );
            }
            Some(0) => {
                assert!(
                    !what.contains("truncated"),
                    "{what}: a truncated file was restored"
                );
                restored += 1;
                let path = target.path().join("printcost.redb");
                let store = Store::open(&path, StoreOptions::default())
                    .unwrap_or_else(|e| panic!("{what}: restored but does not open: {e}"));
                let txn = store.begin_read().unwrap();
                decode_all(&txn).unwrap_or_else(|e| panic!("{what}: restored but damaged: {e}"));
                drop((txn, store));
                for entry in std::fs::read_dir(target.path()).unwrap() {
                    std::fs::remove_file(entry.unwrap().path()).unwrap();
                }
                for (name, bytes) in &before {
                    std::fs::write(target.path().join(name), bytes).unwrap();
                }
            }
            other => panic!("{what}: exit {other:?}: {said}"),
        }
    }
    assert!(refused > 8, "{refused} of {} refused", damaged.len());
    eprintln!("{refused} damaged backups refused, {restored} restored whole");
}
