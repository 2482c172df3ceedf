//! The journal (issue 48): every committed command appends one entry, naming who made the
//! change and the fields it changed; secrets only "changed"; the chain's hashes link; the
//! export hands an auditor the entries with their canonical text and the head.

use crate::durability::Service;
use crate::invoices::{company, customer, done};
use crate::roles::member;
use crate::spools::{filament, spool};
use crate::support::{
    PASSWORD, TestApp, assert_error, assert_field_error, created_id, location, page, shop,
    signed_in, submit,
};
use redb::ReadableTable;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use storage::journal::{self, Filter, Stored, Who};
use storage::{Store, StoreOptions, tables};

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new spool `code` with 300 g taken off it by a correction noted "weighed"; its id.
async fn booked(app: &TestApp, code: &str) -> String {
    let filament = filament(app).await;
    let spool = spool(app, &filament, code, "20", "1000").await;
    let spool_id = spool["id"].as_str().unwrap().to_string();
    let res = app
        .post(
            &format!("/api/spools/{spool_id}/movements"),
            &json!({"kind": "CORRECTION", "grams": "-300", "note": "weighed"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    spool_id
}

async fn owner_id(app: &TestApp) -> String {
    let session: Value = app.get("/api/auth/session").await.json().await.unwrap();
    session["user"]["id"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn each_change_names_its_author_its_command_and_the_fields_before_and_after() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let owner = owner_id(&app).await;
    let customer = app
        .create("/api/customers", &json!({"name": "Jane Doe"}))
        .await;
    let id = customer["id"].as_str().unwrap();
    let res = app
        .patch(
            &format!("/api/customers/{id}"),
            &json!({"name": "Jane Roe"}),
        )
        .await;
    assert_eq!(res.status(), 200);

    let page = app.json(&format!("/api/journal?record={id}")).await;
    assert_eq!(page["total"], 2, "{page}");
    let (changed, created) = (&page["items"][0], &page["items"][1]);
    assert!(
        changed["seq"].as_u64() > created["seq"].as_u64(),
        "newest first"
    );
    assert_eq!(changed["who"], json!({"account": owner}));
    assert_eq!(changed["command"], "ReplaceRecord<Customers>");
    let touched = &changed["records"][0];
    assert_eq!(
        (touched["kind"].as_str(), touched["change"].as_str()),
        (Some("customers"), Some("CHANGED"))
    );
    let name = touched["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "name")
        .expect("the name's change");
    assert_eq!(
        (&name["before"], &name["after"]),
        (&json!("Jane Doe"), &json!("Jane Roe"))
    );
    assert_eq!(created["records"][0]["change"], "CREATED");
    assert_eq!(created["command"], "CreateRecord<Customers>");
    assert!(changed["at"].as_str().unwrap().ends_with('Z'));
    assert!(!changed["local"].as_str().unwrap().is_empty());

    // A movement names its spool's change and itself; filtered by kind and by account.
    booked(&app, "J-01").await;
    let moved = app.json("/api/journal?kind=movements&pageSize=1").await;
    let entry = &moved["items"][0];
    assert_eq!(entry["command"], "BookMovement");
    assert_eq!(entry["who"]["account"], owner.as_str());
    let kinds: Vec<&str> = entry["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"spools") && kinds.contains(&"movements"),
        "{kinds:?}"
    );
    let mine = app
        .json(&format!("/api/journal?account={owner}&pageSize=100"))
        .await;
    let all = app.json("/api/journal?pageSize=100").await;
    let total = all["total"].as_u64().unwrap();
    assert_eq!(
        mine["total"].as_u64(),
        Some(total - 1),
        "every change but the setup is the owner's"
    );
    let first = &all["items"][total as usize - 1];
    assert_eq!(
        (&first["seq"], &first["command"]),
        (&json!(1), &json!("RunSetup"))
    );
    assert_eq!(
        first["who"],
        json!({"system": "web"}),
        "setup runs before any session"
    );
}

#[actix_web::test]
async fn a_secret_is_only_said_to_have_changed() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let hook = app
        .create(
            "/api/settings/alerts/webhooks",
            &json!({"name": "ntfy", "url": "http://ntfy.lan/shop", "form": "NTFY", "kinds": ["LOW_STOCK"], "token": "tk_journal-secret"}),
        )
        .await;
    assert!(hook["id"].is_string());
    let res = app
        .patch(
            "/api/auth/password",
            &json!({"currentPassword": PASSWORD, "newPassword": "another long password"}),
        )
        .await;
    assert!(res.status().is_success(), "{}", res.status());
    let text = app.get("/api/journal/export").await.text().await.unwrap();
    assert!(
        !text.contains("tk_journal-secret"),
        "the token is in the journal"
    );
    assert!(
        !text.contains("$argon2"),
        "a password hash is in the journal"
    );
    let all = app.json("/api/journal?kind=accounts").await;
    let secret = all["items"][0]["records"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "password_hash")
        .cloned()
        .expect("the password's change");
    assert_eq!(secret, json!({"path": "password_hash", "secret": true}));
}

#[actix_web::test]
async fn the_export_links_every_entry_to_the_one_before_and_names_the_head() {
    let app = TestApp::spawn().await;
    app.setup().await;
    for name in ["A", "B", "C"] {
        app.create("/api/customers", &json!({"name": name})).await;
    }
    let export: Value = app.json("/api/journal/export").await;
    let entries = export["entries"].as_array().unwrap();
    assert!(entries.len() >= 4, "setup and three customers");
    let mut prev = "0".repeat(64);
    for (n, entry) in entries.iter().enumerate() {
        assert_eq!(entry["seq"], n as u64 + 1);
        assert_eq!(entry["prev"], prev.as_str(), "entry {} links", n + 1);
        let canonical = entry["canonical"].as_str().unwrap();
        assert_eq!(entry["hash"], sha256_hex(canonical).as_str());
        prev = sha256_hex(canonical);
    }
    assert_eq!(export["head"], json!({"seq": entries.len(), "hash": prev}));

    let csv = app.get("/api/journal/export?format=csv").await;
    assert_eq!(csv.status(), 200);
    let head = csv.headers()["x-journal-head"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(head, format!("{} {prev}", entries.len()));
    let body = csv.text().await.unwrap();
    assert_eq!(
        body.lines().count(),
        entries.len() + 1,
        "a header and a row each"
    );

    // A range: only the entries of it.
    let none = app
        .json("/api/journal/export?until=2000-01-01T00:00:00Z")
        .await;
    assert_eq!(none["entries"], json!([]));
    assert_eq!(
        none["head"]["seq"],
        entries.len(),
        "the head is the journal's"
    );
    assert_field_error(
        app.get("/api/journal?since=yesterday").await,
        "since",
        "errors.invalidDate",
    )
    .await;
}

fn printcost(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_printcost"))
        .args(args)
        .output()
        .unwrap()
}

/// Flips one byte of entry `seq`'s canonical text in the database file `path`, as an editor of
/// the file would, leaving the stored hash as it was.
fn flip_a_byte(path: &std::path::Path, seq: u64) {
    let db = redb::Database::open(path).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut table = txn.open_table(tables::JOURNAL).unwrap();
        let mut value = table.get(seq).unwrap().unwrap().value().to_vec();
        let at = 32 + value[32..].iter().position(|&b| b == b'Z').unwrap();
        value[at] = b'Y';
        table.insert(seq, value.as_slice()).unwrap();
    }
    txn.commit().unwrap();
}

/// `printcost journal verify` checks the chain of a running service (through its control file)
/// and of a stopped one's file, and names the first entry whose bytes changed in a copy.
#[actix_web::test]
async fn verify_checks_a_running_service_and_names_the_entry_a_flipped_byte_broke() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let service = Service::start(dir.path());
    service.set_up().await;
    customers(&service, &["A", "B", "C"]).await;
    let running = printcost(&["journal", "verify", "--data-dir", data]);
    let said = String::from_utf8_lossy(&running.stdout);
    assert!(
        running.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&running.stderr)
    );
    assert!(said.contains("intact: 4 entries"), "{said}");
    // Without the control file's token the service does not answer.
    let anonymous = reqwest::get(service.url("/api/journal/verify"))
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert!(service.terminate().success());
    assert!(
        !dir.path().join("control.json").exists(),
        "the control file goes with the service"
    );

    let stopped = printcost(&["journal", "verify", "--data-dir", data]);
    assert!(stopped.status.success());
    assert!(String::from_utf8_lossy(&stopped.stdout).contains("intact: 4 entries"));

    let copy = dir.path().join("copy.redb");
    std::fs::copy(dir.path().join("printcost.redb"), &copy).unwrap();
    flip_a_byte(&copy, 3);
    let broken = printcost(&["journal", "verify", "--file", copy.to_str().unwrap()]);
    assert_eq!(broken.status.code(), Some(1));
    let said = String::from_utf8_lossy(&broken.stderr);
    assert!(
        said.contains("broken at entry 3: entry 3 was changed"),
        "{said}"
    );
    // The original is untouched.
    let original = printcost(&["journal", "verify", "--data-dir", data]);
    assert!(original.status.success());
}

async fn customers(service: &Service, names: &[&str]) {
    for name in names {
        let res = service
            .client
            .post(service.url("/api/customers"))
            .json(&json!({"name": name}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }
}

/// The newest entry of the data folder's journal, and how many there are (service stopped).
fn newest(dir: &std::path::Path) -> (Stored, u64) {
    let store = Store::open(&dir.join("printcost.redb"), StoreOptions::default()).unwrap();
    let txn = store.begin_read().unwrap();
    let (mut page, total) = journal::page(&txn, &Filter::default(), 0, 1).unwrap();
    (page.remove(0), total)
}

/// A backup carries the journal with its chain; a restore keeps it and is itself its newest
/// entry, made by the command line and naming the file.
#[actix_web::test]
async fn a_restore_keeps_the_chain_of_its_backup_and_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let data_arg = data.to_str().unwrap();
    let service = Service::start(&data);
    service.set_up().await;
    customers(&service, &["A", "B"]).await;
    assert!(service.terminate().success());
    let (backed_up, in_backup) = newest(&data);
    let file = dir.path().join("shop.redb");
    let backup = printcost(&["backup", file.to_str().unwrap(), "--data-dir", data_arg]);
    assert!(
        backup.status.success(),
        "{}",
        String::from_utf8_lossy(&backup.stderr)
    );

    let service = Service::start(&data);
    assert_eq!(service.login(PASSWORD).await, 200);
    customers(&service, &["C"]).await;
    assert!(service.terminate().success());
    let restore = printcost(&["restore", file.to_str().unwrap(), "--data-dir", data_arg]);
    assert!(
        restore.status.success(),
        "{}",
        String::from_utf8_lossy(&restore.stderr)
    );

    let verified = printcost(&["journal", "verify", "--data-dir", data_arg]);
    let said = String::from_utf8_lossy(&verified.stdout);
    assert!(verified.status.success(), "{said}");
    assert!(
        said.contains(&format!("intact: {} entries", in_backup + 1)),
        "{said}"
    );
    let (restored, total) = newest(&data);
    assert_eq!(
        total,
        in_backup + 1,
        "the entries after the backup went with the file they were in"
    );
    assert_eq!(
        restored.entry.prev, backed_up.hash,
        "the restore follows the backup's head"
    );
    assert_eq!(restored.entry.command, "RecordRestore");
    assert_eq!(restored.entry.who, Who::System("cli".into()));
    let touched = &restored.entry.records[0];
    assert_eq!(touched.kind, "restores");
    assert!(
        touched
            .fields
            .iter()
            .any(|f| f.path == "file" && f.after == Some(json!("shop.redb"))),
        "{touched:?}"
    );
}

/// A record's page shows who changed what (the customer's edit form, a print, a spool), and a
/// spool's ledger who booked each movement, in the page's language.
#[actix_web::test]
async fn record_pages_show_who_changed_what_and_the_ledger_who_booked() {
    let (app, client) = signed_in().await;
    let customer = app
        .create("/api/customers", &json!({"name": "Jane Doe"}))
        .await;
    let id = customer["id"].as_str().unwrap();
    app.patch(
        &format!("/api/customers/{id}"),
        &json!({"name": "Jane Roe"}),
    )
    .await;
    let (status, html) = page(&client, &app, &format!("/customers/{id}")).await;
    assert_eq!(status, 200);
    let changes = &html[html.find("id=\"changes\"").expect("the changes' section")..];
    assert!(changes.contains("Who changed what"), "{changes}");
    assert!(
        changes.contains("Ada") && changes.contains("Jane Doe → Jane Roe"),
        "{changes}"
    );
    assert!(changes.contains("Created") && changes.contains("Changed"));

    let spool_id = booked(&app, "W-01").await;
    let (_, html) = page(&client, &app, &format!("/spools/{spool_id}")).await;
    let ledger = &html[html.find("id=\"ledger\"").unwrap()..];
    let ledger = &ledger[..ledger.find("</table>").unwrap()];
    assert!(ledger.contains("<th scope=\"col\">By</th>"), "{ledger}");
    assert!(ledger.contains("weighed</td><td>Ada</td>"), "{ledger}");

    let res = app
        .patch("/api/auth/preferences", &json!({"locale": "de-DE"}))
        .await;
    assert!(res.status().is_success());
    let (_, html) = page(&client, &app, &format!("/customers/{id}")).await;
    assert!(
        html.contains("Wer hat was geändert") && html.contains("Geändert"),
        "German"
    );

    // A series' page too.
    let on = json!({"printSeriesEnabled": true});
    assert_eq!(app.patch("/api/settings/features", &on).await.status(), 200);
    let series = app.create("/api/series", &json!({"name": "Pokale"})).await;
    let series = series["id"].as_str().unwrap();
    let res = app
        .patch(
            &format!("/api/series/{series}"),
            &json!({"name": "Trophäen"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let (status, html) = page(&client, &app, &format!("/series/{series}")).await;
    assert_eq!(status, 200);
    let changes = &html[html.find("id=\"changes\"").expect("the series' changes")..];
    assert!(changes.contains("Pokale → Trophäen"), "{changes}");

    // A form of the pages writes as the signed-in account too.
    let res = submit(&client, &app, "/customers", &[("name", "Form Kunde")]).await;
    assert_eq!(res.status().as_u16(), 303);
    let made = created_id(location(&res));
    let entry = &app.json(&format!("/api/journal?record={made}")).await["items"][0];
    assert_eq!(entry["who"]["account"], owner_id(&app).await.as_str());
    assert_eq!(entry["command"], "CreateRecord<Customers>");
}

/// Retention: what an issued invoice references stays: its customer cannot be deleted, nor
/// the invoice (prints have no delete at all); the journal records the issue with who issued it.
#[actix_web::test]
async fn an_issued_invoice_keeps_its_prints_and_customer_and_its_issue_is_recorded() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_eq!(
        app.patch("/api/settings/company", &company(false))
            .await
            .status(),
        200
    );
    let buyer = app
        .create(
            "/api/customers",
            &customer("Atelier Lumière", "FR", Some("FR40303265045")),
        )
        .await;
    let buyer_id = buyer["id"].as_str().unwrap();
    let shop = shop(&app).await;
    let print = done(&app, &shop, buyer_id, "60").await;
    let invoice = app
        .create(
            "/api/invoices",
            &json!({"customerId": buyer_id, "printIds": [print]}),
        )
        .await;
    let path = format!("/api/invoices/{}", invoice["id"].as_str().unwrap());
    let issued = app.post(&format!("{path}/issue"), &json!({})).await;
    assert_eq!(issued.status(), 200);

    // Prints are never deleted (no route does); the print's customer and the invoice stay.
    assert_error(
        app.delete(&format!("/api/customers/{buyer_id}")).await,
        409,
        "REFERENCED",
    )
    .await;
    assert_error(app.delete(&path).await, 409, "INVOICE_ISSUED").await;
    let owner = owner_id(&app).await;
    let history = app
        .json(&format!(
            "/api/journal?record={}",
            invoice["id"].as_str().unwrap()
        ))
        .await;
    let commands: Vec<&str> = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["IssueInvoice", "CreateInvoice"], "{history}");
    assert_eq!(history["items"][0]["who"]["account"], owner.as_str());
}

/// Settings › Journal: the owner reads every change newest first, filters by record, account,
/// kind and days, pages through them, and checks the chain; a filter that is not valid is 422
/// and staff cannot open the page.
#[actix_web::test]
async fn the_owners_journal_page_filters_pages_and_checks_the_chain() {
    let (app, client) = signed_in().await;
    let owner = owner_id(&app).await;
    let spool_id = booked(&app, "J-01").await;
    let customer = app
        .create("/api/customers", &json!({"name": "Jane Doe"}))
        .await;
    let customer = customer["id"].as_str().unwrap().to_string();
    let (status, html) = page(&client, &app, "/settings").await;
    assert_eq!(status, 200);
    assert!(html.contains(r#"href="/settings/journal""#), "linked");

    let (status, html) = page(&client, &app, "/settings/journal").await;
    assert_eq!(status, 200);
    let entries = &html[html.find(r#"id="journal-entries""#).unwrap()..];
    let created = entries
        .find("CreateRecord")
        .unwrap_or_else(|| panic!("{entries}"));
    let booked_at = entries.find("BookMovement").unwrap();
    assert!(created < booked_at, "newest first: {entries}");
    assert!(entries.contains("Ada"), "who, by name");

    let only = |query: String| {
        let client = client.clone();
        let url = format!("/settings/journal?{query}");
        let app = &app;
        async move {
            let (status, html) = page(&client, app, &url).await;
            assert_eq!(status, 200, "{url}: {html}");
            html[html.find(r#"id="journal-entries""#).unwrap()..].to_string()
        }
    };
    let mine = only(format!("record={customer}")).await;
    assert!(
        mine.contains("Jane Doe") && !mine.contains("BookMovement"),
        "{mine}"
    );
    let spools = only("kind=spools".into()).await;
    assert!(spools.contains(&spool_id) && !spools.contains("Jane Doe"));
    let by_owner = only(format!("account={owner}")).await;
    assert!(by_owner.contains("Jane Doe"), "{by_owner}");
    // Days in the shop's zone: two days on holds nothing, yesterday to tomorrow everything.
    let today = jiff::Zoned::now().date();
    let later = today.checked_add(jiff::Span::new().days(2)).unwrap();
    let none = only(format!("from={later}")).await;
    assert!(none.contains("No entry matches."), "{none}");
    let (yesterday, tomorrow) = (today.yesterday().unwrap(), today.tomorrow().unwrap());
    let around = only(format!("from={yesterday}&to={tomorrow}")).await;
    assert!(around.contains("Jane Doe"), "{around}");

    for _ in 0..50 {
        app.create("/api/customers", &json!({"name": "Filler"}))
            .await;
    }
    let (_, html) = page(&client, &app, "/settings/journal").await;
    assert!(
        html.contains(r#"rel="next""#) && html.contains("1 / 2"),
        "paged"
    );
    let (_, html) = page(&client, &app, "/settings/journal?page=2").await;
    assert!(html.contains(r#"rel="prev""#) && html.contains("BookMovement"));

    let (_, html) = page(&client, &app, "/settings/journal?verify=true").await;
    let verdict = &html[html.find(r#"id="journal-verdict""#).expect("the verdict")..];
    assert!(verdict.contains("The chain is intact"), "{verdict}");

    let (status, _) = page(&client, &app, "/settings/journal?from=2026-13-01").await;
    assert_eq!(status, 422);
    let (_, staff) = member(&app, "STAFF").await;
    let (status, _) = page(&staff, &app, "/settings/journal").await;
    assert_eq!(status, 403);
}
