//! Series, histories, next runs, the series flag, and the export limit.

use crate::support::{self, PASSWORD, TestApp, assert_error, assert_field_error};
use crate::support::{Shop, draft, shop};
use actors::accounts;
use actors::passwords;
use actors::prints;
use actors::prints::{FilamentInput, HotendInput, PartInput, PrintInput};
use actors::setup;
use actors::txn;
use actors::values::Seconds;
use serde_json::{Value, json};
use storage::records;
use storage::records::{PrintStatus, Role};
use storage::repo::all;
use storage::{Store, StoreOptions, Timestamp};

/// A set-up box with a shop and an auto-completing series of 5 units for the shop's customer
/// whose first run (3 units) is DONE. Returns the app, the shop, the series and the run.
async fn series_with_first_run() -> (TestApp, Shop, String, String) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let series = app.create("/api/series", &json!({"name": "Trophies", "customerId": shop.customer, "target": 5, "autoComplete": true})).await;
    assert_eq!(series["status"], "OPEN");
    let sid = series["id"].as_str().unwrap().to_string();
    let mut run = draft(&shop, "Run 1");
    run["seriesId"] = json!(sid);
    run["quantity"] = json!(3);
    let first = app.create("/api/prints", &run).await;
    let fid = first["id"].as_str().unwrap().to_string();
    app.patch(&format!("/api/prints/{fid}"), &json!({"status": "DONE"}))
        .await;
    (app, shop, sid, fid)
}

/// [`series_with_first_run`] and its next run completed: 6 of 5 units.
async fn completed_series() -> (TestApp, Shop, String) {
    let (app, shop, sid, fid) = series_with_first_run().await;
    let next = app
        .create(
            &format!("/api/series/{sid}/next-run"),
            &json!({"sourcePrintId": fid}),
        )
        .await;
    let nid = next["id"].as_str().unwrap();
    app.post(&format!("/api/prints/{nid}/complete"), &json!({}))
        .await;
    (app, shop, sid)
}

#[actix_web::test]
async fn prints_inherit_their_series_customer() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let other = app
        .create("/api/customers", &json!({"name": "Someone else"}))
        .await;
    let series = app
        .create(
            "/api/series",
            &json!({"name": "Trophies", "customerId": shop.customer}),
        )
        .await;
    let mut run = draft(&shop, "Run 1");
    run["seriesId"] = json!(series["id"]);
    let first = app.create("/api/prints", &run).await;
    assert_eq!(first["customerId"], shop.customer.as_str(), "inherited");
    run["customerId"] = json!(other["id"]);
    assert_field_error(
        app.post("/api/prints", &run).await,
        "customerId",
        "errors.seriesCustomerConflict",
    )
    .await;
}

#[actix_web::test]
async fn a_series_completes_itself_when_its_done_units_reach_the_target() {
    let (app, _, sid, fid) = series_with_first_run().await;
    let sid = sid.as_str();
    let fid = fid.as_str();
    let still_open: Value = app
        .get(&format!("/api/series/{sid}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(still_open["status"], "OPEN", "3 of 5 units");

    let next = app
        .create(
            &format!("/api/series/{sid}/next-run"),
            &json!({"sourcePrintId": fid}),
        )
        .await;
    assert_eq!(next["status"], "DRAFT");
    assert_eq!(next["seriesId"], sid);
    assert_eq!(next["repeatOfId"], fid);
    let nid = next["id"].as_str().unwrap();
    app.post(&format!("/api/prints/{nid}/complete"), &json!({}))
        .await;
    let completed: Value = app
        .get(&format!("/api/series/{sid}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(completed["status"], "COMPLETED", "6 of 5 units");
}

#[actix_web::test]
async fn histories_total_the_whole_filtered_set() {
    let (app, shop, sid) = completed_series().await;
    let history: Value = app
        .get(&format!(
            "/api/series/{sid}/history?pageSize=1&seriesId=01a1fca8-547d-7442-9d4e-aa020ca898c4"
        ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(history["total"], 2, "the route's scope overrides the query");
    assert_eq!(history["items"].as_array().unwrap().len(), 1);
    assert_eq!(history["totals"]["prints"], 2);
    assert_eq!(history["totals"]["units"], 6);
    assert_eq!(history["totals"]["totalCost"], "3.56435");

    let customer_history: Value = app
        .get(&format!(
            "/api/customers/{}/history?status=DONE",
            shop.customer
        ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(customer_history["total"], 2);
    assert_error(
        app.get("/api/customers/01a1fca8-547d-7442-9d4e-aa020ca898c4/history")
            .await,
        404,
        "NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn a_series_reopens_changes_and_archives() {
    let (app, shop, sid) = completed_series().await;
    let reopened = app
        .post(
            &format!("/api/series/{sid}/state"),
            &json!({"status": "OPEN"}),
        )
        .await;
    assert_eq!(reopened.json::<Value>().await.unwrap()["status"], "OPEN");
    let renamed = app.patch(&format!("/api/series/{sid}"), &json!({"name": "Trophies 2026", "customerId": shop.customer, "target": 10, "autoComplete": true})).await;
    assert_eq!(
        renamed.json::<Value>().await.unwrap()["name"],
        "Trophies 2026"
    );
    assert_field_error(
        app.patch(
            &format!("/api/series/{sid}"),
            &json!({"name": "x", "target": 0}),
        )
        .await,
        "target",
        "errors.notPositive",
    )
    .await;
    let archived = app
        .post(
            &format!("/api/series/{sid}/archive"),
            &json!({"archived": true}),
        )
        .await;
    assert_eq!(archived.json::<Value>().await.unwrap()["archived"], true);
    let listed: Value = app.get("/api/series").await.json().await.unwrap();
    assert_eq!(listed["total"], 0);
    let listed: Value = app
        .get("/api/series?includeArchived=true&search=troph")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["total"], 1);
    assert_error(
        app.delete(&format!("/api/customers/{}", shop.customer))
            .await,
        409,
        "REFERENCED",
    )
    .await;
}

#[actix_web::test]
async fn series_routes_refuse_while_series_are_off() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let series = app
        .create("/api/series", &json!({"name": "Soon off"}))
        .await;
    let sid = series["id"].as_str().unwrap();
    app.patch(
        "/api/settings/features",
        &json!({"printSeriesEnabled": false}),
    )
    .await;
    assert_error(app.get("/api/series").await, 409, "PRINT_SERIES_DISABLED").await;
    assert_error(
        app.post("/api/series", &json!({"name": "x"})).await,
        409,
        "PRINT_SERIES_DISABLED",
    )
    .await;
    assert_error(
        app.get(&format!("/api/series/{sid}")).await,
        409,
        "PRINT_SERIES_DISABLED",
    )
    .await;
    assert_error(
        app.patch(&format!("/api/series/{sid}"), &json!({"name": "x"}))
            .await,
        409,
        "PRINT_SERIES_DISABLED",
    )
    .await;
    assert_error(
        app.post(
            &format!("/api/series/{sid}/state"),
            &json!({"status": "COMPLETED"}),
        )
        .await,
        409,
        "PRINT_SERIES_DISABLED",
    )
    .await;
    assert_error(
        app.post(
            &format!("/api/series/{sid}/archive"),
            &json!({"archived": true}),
        )
        .await,
        409,
        "PRINT_SERIES_DISABLED",
    )
    .await;
    assert_error(
        app.get(&format!("/api/series/{sid}/history")).await,
        409,
        "PRINT_SERIES_DISABLED",
    )
    .await;
    let next = app
        .post(
            &format!("/api/series/{sid}/next-run"),
            &json!({"sourcePrintId": sid}),
        )
        .await;
    assert_error(next, 409, "PRINT_SERIES_DISABLED").await;
}

/// Writes an account, the reference inventory and `count` DONE prints straight into a store
/// through the rule functions, in one transaction.
fn seeded_store(dir: &std::path::Path, count: usize) -> Store {
    let store = Store::open(&dir.join("seed.redb"), StoreOptions::default()).unwrap();
    let txn = txn::Txn::new(store.begin_write().unwrap());
    let now = Timestamp::now();
    let setup: setup::Setup = setup::Setup {
        account: accounts::NewAccount {
            display_name: "Seed".into(),
            email: support::EMAIL.parse().unwrap(),
            password_hash: passwords::hash_password(&PASSWORD.parse().unwrap()).unwrap(),
            locale: "en-US".parse().unwrap(),
            role: Role::Owner,
        },
        currency: "EUR".parse().unwrap(),
        electricity_price: "0.32".parse().unwrap(),
        create_demo_data: true,
    };
    setup::setup(&txn, &setup, [0; 32], 60, now).unwrap();
    let source = prints::get(&txn, all::<records::Print>(&txn).unwrap()[0].id).unwrap();
    let part = &source.parts[0];
    let input = PrintInput {
        name: "Bulk".parse().unwrap(),
        customer_id: None,
        series_id: None,
        quantity: 1,
        sales_value: None,
        notes: None,
        parts: vec![PartInput {
            id: None,
            printer_id: part.printer_id,
            build_plate_id: part.build_plate_id,
            hotends: vec![HotendInput {
                component_id: part.hotends[0].component_id,
                duration_seconds: Seconds::try_from(60).unwrap(),
            }],
            vat: None,
            other_component_ids: vec![],
            filaments: vec![FilamentInput {
                filament_id: part.usages[0].filament_id,
                used_grams: "1".parse().unwrap(),
                spool_id: None,
            }],
            materials: vec![],
        }],
        work: vec![],
        materials: vec![],
        flat: false,
    };
    for _ in 0..count {
        let print = prints::create(&txn, &input, now).unwrap();
        prints::set_status(&txn, print.id, PrintStatus::Done, None, now).unwrap();
    }
    txn.commit().unwrap();
    store
}

#[actix_web::test]
async fn an_export_above_5000_prints_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = seeded_store(dir.path(), 5_001);
    let app = TestApp::spawn_with_store(store).await;
    let login = app
        .post(
            "/api/auth/login",
            &json!({"email": support::EMAIL, "password": PASSWORD}),
        )
        .await;
    assert_eq!(login.status(), 200);
    assert_error(app.get("/api/prints/export").await, 422, "EXPORT_TOO_LARGE").await;
    let narrowed = app.get("/api/prints/export?search=robot").await;
    assert_eq!(narrowed.status(), 200);
    assert_eq!(
        narrowed.text().await.unwrap().matches("\r\n").count(),
        2,
        "header and the demo robot"
    );
}

#[actix_web::test]
async fn a_series_holding_prints_keeps_their_customer() {
    let (app, shop, sid, _) = series_with_first_run().await;
    let other = app
        .create("/api/customers", &json!({"name": "Someone else"}))
        .await;
    let change = |customer: &Value| json!({"name": "Trophies", "customerId": customer, "target": 5, "autoComplete": true});
    assert_field_error(
        app.patch(&format!("/api/series/{sid}"), &change(&other["id"]))
            .await,
        "customerId",
        "errors.seriesCustomerConflict",
    )
    .await;
    // No customer, or the same one, is fine; an empty series takes any customer.
    let none = app
        .patch(&format!("/api/series/{sid}"), &change(&Value::Null))
        .await;
    assert_eq!(none.status(), 200);
    let same = app
        .patch(
            &format!("/api/series/{sid}"),
            &change(&json!(shop.customer)),
        )
        .await;
    assert_eq!(same.status(), 200);
    let empty = app.create("/api/series", &json!({"name": "Empty"})).await;
    let eid = empty["id"].as_str().unwrap();
    let res = app
        .patch(&format!("/api/series/{eid}"), &change(&other["id"]))
        .await;
    assert_eq!(res.status(), 200);
}

#[actix_web::test]
async fn patch_archived_archives_series_and_spools() {
    let (app, shop, sid, _) = series_with_first_run().await;
    let spool = support::first_spool(&app, &shop.filament).await;
    let spool_id = spool["id"].as_str().unwrap();
    for path in [
        format!("/api/series/{sid}"),
        format!("/api/spools/{spool_id}"),
    ] {
        for archived in [true, false] {
            let res = app.patch(&path, &json!({"archived": archived})).await;
            let status = res.status();
            let body: Value = res.json().await.unwrap();
            assert_eq!(status, 200, "{path}: {body}");
            assert_eq!(body["archived"], archived, "{path}");
        }
    }
}
