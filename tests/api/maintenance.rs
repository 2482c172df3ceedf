//! Wear and maintenance over a real socket: hours accrued from outcomes and corrections (failed
//! runs too) and planned hours from open prints; tasks every N hours, runs and days; marking
//! done; a blocking task's 409 and its override.

use crate::outcomes::{correction, outcome};
use crate::support::{Shop, TestApp, assert_error, assert_field_error, draft, part, shop};
use serde_json::{Value, json};

async fn wear(app: &TestApp, path: &str) -> Value {
    let res = app.get(path).await;
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

async fn task(
    app: &TestApp,
    shop: &Shop,
    component: Option<&str>,
    every: Value,
    blocking: bool,
) -> Value {
    let body = json!({"printerId": shop.printer, "componentId": component, "name": format!("Every {every}"), "every": every, "blocking": blocking});
    app.create("/api/maintenance", &body).await
}

async fn reread(app: &TestApp, task: &Value) -> Value {
    let id = task["id"].as_str().unwrap();
    app.get(&format!("/api/maintenance/{id}"))
        .await
        .json()
        .await
        .unwrap()
}

/// A DRAFT of one part planned `seconds` on the shop's printer, plate and hotend.
async fn drafted(app: &TestApp, shop: &Shop, seconds: u32) -> Value {
    let mut body = draft(shop, "Bracket");
    body["parts"] = json!([part(shop, seconds, "10")]);
    app.create("/api/prints", &body).await
}

/// `print` completed and recorded as `status` after `seconds`.
async fn recorded(app: &TestApp, print: &Value, status: &str, seconds: u32) -> Value {
    let id = print["id"].as_str().unwrap();
    let done: Value = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await
        .json()
        .await
        .unwrap();
    let res = app
        .post(
            &format!("/api/prints/{id}/outcome"),
            &outcome(&done, status, seconds, "10"),
        )
        .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    done
}

#[actix_web::test]
async fn hours_accrue_from_outcomes_and_corrections_and_plans_from_open_prints() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let printer = format!("/api/printers/{}/wear", shop.printer);
    let plate = format!("/api/components/{}/wear", shop.plate);
    let start = wear(&app, &printer).await;
    assert_eq!(
        (&start["actualHours"], &start["runs"]),
        (&json!("0"), &json!(0))
    );
    assert_eq!(start["remainingHours"], "6000");

    // An open print plans 1.5 h on the printer and the plate.
    let planned = drafted(&app, &shop, 5400).await;
    assert_eq!(wear(&app, &printer).await["plannedHours"], "1.5");
    assert_eq!(wear(&app, &plate).await["plannedHours"], "1.5");

    // Recorded after 2 h: actual, no longer planned.
    let done = recorded(&app, &planned, "SUCCESS", 7200).await;
    let after = wear(&app, &printer).await;
    assert_eq!(
        (
            &after["actualHours"],
            &after["plannedHours"],
            &after["runs"]
        ),
        (&json!("2"), &json!("0"), &json!(1))
    );
    assert_eq!(after["remainingHours"], "5998");

    // A correction to 1.5 h replaces the 2 h.
    let id = done["id"].as_str().unwrap();
    let key = uuid::Uuid::now_v7().to_string();
    let res = app
        .post(
            &format!("/api/prints/{id}/outcome/correct"),
            &correction(&done, "10", 1, &key),
        )
        .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    assert_eq!(wear(&app, &printer).await["actualHours"], "1.5");

    // A failed run of 30 min counts too, on the printer, the plate and the hotend.
    let failed = drafted(&app, &shop, 3600).await;
    recorded(&app, &failed, "FAILED", 1800).await;
    let after = wear(&app, &printer).await;
    assert_eq!(
        (&after["actualHours"], &after["runs"]),
        (&json!("2"), &json!(2))
    );
    assert_eq!(wear(&app, &plate).await["actualHours"], "2");
    let hotend = wear(&app, &format!("/api/components/{}/wear", shop.hotend)).await;
    assert_eq!(hotend["actualHours"], "2");
    assert_eq!(hotend["remainingHours"], "1998");

    assert_error(
        app.get(&format!("/api/printers/{}/wear", uuid::Uuid::now_v7()))
            .await,
        404,
        "NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn each_interval_kind_falls_due_and_done_restarts_it() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let hours = task(
        &app,
        &shop,
        None,
        json!({"unit": "HOURS", "count": 2}),
        false,
    )
    .await;
    let runs = task(
        &app,
        &shop,
        Some(&shop.plate),
        json!({"unit": "PRINTS", "count": 2}),
        false,
    )
    .await;
    let days = task(
        &app,
        &shop,
        Some(&shop.hotend),
        json!({"unit": "DAYS", "count": 30}),
        false,
    )
    .await;
    for t in [&hours, &runs, &days] {
        assert_eq!(
            (&t["state"], &t["used"]),
            (&json!("OK"), &json!("0")),
            "{t}"
        );
    }
    assert_eq!(runs["subjectName"], "Ref plate");
    assert_eq!(hours["remaining"], "2");

    // 1.8 h in one run: the hours task is due (90%), the runs task half used.
    let first = drafted(&app, &shop, 6480).await;
    recorded(&app, &first, "SUCCESS", 6480).await;
    let (h, r) = (reread(&app, &hours).await, reread(&app, &runs).await);
    assert_eq!(
        (&h["state"], &h["used"], &h["remaining"]),
        (&json!("DUE"), &json!("1.8"), &json!("0.2"))
    );
    assert_eq!((&r["state"], &r["used"]), (&json!("OK"), &json!("1")));

    // A second run: both overdue; the list puts them first, the days task last.
    let second = drafted(&app, &shop, 720).await;
    recorded(&app, &second, "SUCCESS", 720).await;
    let listed: Vec<Value> = app.get("/api/maintenance").await.json().await.unwrap();
    let states: Vec<&str> = listed
        .iter()
        .map(|t| t["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["OVERDUE", "OVERDUE", "OK"]);
    assert_eq!(listed[2]["id"], days["id"]);
    assert_eq!(reread(&app, &hours).await["remaining"], "0");

    // Done: recorded with who did it, the interval restarts.
    let id = runs["id"].as_str().unwrap();
    let res = app
        .post(
            &format!("/api/maintenance/{id}/done"),
            &json!({"note": "Washed with soap"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let done: Value = res.json().await.unwrap();
    assert_eq!((&done["state"], &done["used"]), (&json!("OK"), &json!("0")));
    assert_eq!(done["done"][0]["byName"], "Ada");
    assert_eq!(done["done"][0]["note"], "Washed with soap");

    // Bad input names its fields: the body's shape first, then what the store must hold.
    let fields = |body: Value| {
        let app = &app;
        async move {
            let refused = assert_error(
                app.post("/api/maintenance", &body).await,
                422,
                "VALIDATION_FAILED",
            )
            .await;
            let mut paths: Vec<String> = refused["data"]["fieldErrors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].as_str().unwrap().to_string())
                .collect();
            paths.sort();
            paths
        }
    };
    let blank =
        json!({"printerId": shop.printer, "name": " ", "every": {"unit": "WEEKS", "count": 1}});
    assert_eq!(fields(blank).await, ["every.unit", "name"]);
    let unknown = json!({"printerId": uuid::Uuid::now_v7(), "componentId": uuid::Uuid::now_v7(), "name": "Oil", "every": {"unit": "DAYS", "count": 0}});
    assert_eq!(fields(unknown).await, ["componentId", "every", "printerId"]);
}

/// A blocking task every hour of `component` (else the printer), made overdue by one recorded
/// hour-long run.
async fn overdue_blocking(app: &TestApp, shop: &Shop, component: Option<&str>) -> Value {
    let every = json!({"unit": "HOURS", "count": 1});
    let blocking = task(app, shop, component, every, true).await;
    let first = drafted(app, shop, 3600).await;
    recorded(app, &first, "SUCCESS", 3600).await;
    assert_eq!(reread(app, &blocking).await["state"], "OVERDUE");
    blocking
}

#[actix_web::test]
async fn an_overdue_blocking_task_refuses_printing_until_overridden_with_a_reason() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let nozzle = overdue_blocking(&app, &shop, Some(&shop.hotend)).await;

    let next = drafted(&app, &shop, 600).await;
    let id = next["id"].as_str().unwrap();
    let refused = assert_error(
        app.patch(&format!("/api/prints/{id}"), &json!({"status": "PRINTING"}))
            .await,
        409,
        "MAINTENANCE_OVERDUE",
    )
    .await;
    let name = nozzle["name"].as_str().unwrap();
    assert!(
        refused["message"].as_str().unwrap().contains(name),
        "{refused}"
    );
    // Nothing moved.
    let still: Value = app
        .get(&format!("/api/prints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(still["status"], "DRAFT");
    // Other moves are not blocked.
    let status = format!("/api/prints/{id}/status");
    let blank = json!({"status": "PRINTING", "maintenanceOverride": "  "});
    assert_error(app.post(&status, &blank).await, 422, "VALIDATION_FAILED").await;

    let body = json!({"status": "PRINTING", "maintenanceOverride": "Customer deadline; nozzle checked by eye"});
    let res = app.post(&status, &body).await;
    assert_eq!(res.status(), 200);
    let moved: Value = res.json().await.unwrap();
    assert_eq!(moved["status"], "PRINTING");
    let overridden = reread(&app, &nozzle).await;
    assert_eq!(overridden["overrides"][0]["printId"], id);
    assert_eq!(
        overridden["overrides"][0]["reason"],
        "Customer deadline; nozzle checked by eye"
    );

    // Done, it no longer blocks.
    let task_id = nozzle["id"].as_str().unwrap();
    app.post(&format!("/api/maintenance/{task_id}/done"), &json!({}))
        .await;
    let later = drafted(&app, &shop, 600).await;
    let later_id = later["id"].as_str().unwrap();
    let res = app
        .patch(
            &format!("/api/prints/{later_id}"),
            &json!({"status": "PRINTING"}),
        )
        .await;
    assert_eq!(res.status(), 200);
}

/// Every route that takes a DRAFT past PRINTING without stopping there holds at the gate as the
/// move to PRINTING does: the status move and PATCH to PRINTED, SHIPPED or DONE, and the complete
/// action (which carries no override); the status move with a reason passes and records it.
#[actix_web::test]
async fn the_gate_holds_on_every_route_that_skips_printing_and_the_override_passes_it() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let plate = overdue_blocking(&app, &shop, None).await;

    let next = drafted(&app, &shop, 600).await;
    let id = next["id"].as_str().unwrap();
    for to in ["PRINTED", "SHIPPED", "DONE"] {
        let body = json!({"status": to});
        let patched = app.patch(&format!("/api/prints/{id}"), &body).await;
        assert_error(patched, 409, "MAINTENANCE_OVERDUE").await;
        let moved = app.post(&format!("/api/prints/{id}/status"), &body).await;
        assert_error(moved, 409, "MAINTENANCE_OVERDUE").await;
    }
    let completed = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await;
    assert_error(completed, 409, "MAINTENANCE_OVERDUE").await;
    let still = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(still["status"], "DRAFT", "nothing moved: {still}");
    assert!(
        reread(&app, &plate).await["overrides"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let body = json!({"status": "DONE", "maintenanceOverride": "Printed on the spare plate"});
    let res = app.post(&format!("/api/prints/{id}/status"), &body).await;
    assert_eq!(res.status(), 200);
    let done: Value = res.json().await.unwrap();
    assert_eq!(done["status"], "DONE");
    assert!(done["printingStartedAt"].is_null(), "no run times: {done}");
    let overridden = reread(&app, &plate).await;
    assert_eq!(overridden["overrides"][0]["printId"], id);
    assert_eq!(
        overridden["overrides"][0]["reason"],
        "Printed on the spare plate"
    );
    // Moves that neither reach nor pass PRINTING are not held.
    let back = json!({"status": "SHIPPED"});
    let res = app.post(&format!("/api/prints/{id}/status"), &back).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
}

#[actix_web::test]
async fn a_task_is_changed_and_archived_and_an_archived_one_is_not_done() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let created = task(
        &app,
        &shop,
        None,
        json!({"unit": "DAYS", "count": 7}),
        false,
    )
    .await;
    let id = created["id"].as_str().unwrap();
    let path = format!("/api/maintenance/{id}");

    let change = json!({"name": "Lubricate the rods", "every": {"unit": "HOURS", "count": 200}, "blocking": true, "archived": false});
    let res = app.patch(&path, &change).await;
    assert_eq!(res.status(), 200);
    let changed: Value = res.json().await.unwrap();
    assert_eq!(
        (&changed["name"], &changed["every"], &changed["blocking"]),
        (
            &json!("Lubricate the rods"),
            &json!({"unit": "HOURS", "count": 200}),
            &json!(true)
        )
    );
    // Printer and interval start stay.
    assert_eq!(
        (&changed["printerId"], &changed["since"]),
        (&created["printerId"], &created["since"])
    );

    let mut archive = change.clone();
    archive["archived"] = json!(true);
    assert_eq!(app.patch(&path, &archive).await.status(), 200);
    let listed: Vec<Value> = app.get("/api/maintenance").await.json().await.unwrap();
    assert!(listed.is_empty(), "archived tasks are not listed");
    assert_error(
        app.post(&format!("{path}/done"), &json!({})).await,
        409,
        "INVALID_STATE",
    )
    .await;

    let unknown = format!("/api/maintenance/{}", uuid::Uuid::now_v7());
    assert_error(app.patch(&unknown, &change).await, 404, "NOT_FOUND").await;
    assert_error(app.get(&unknown).await, 404, "NOT_FOUND").await;
}

#[actix_web::test]
async fn a_worn_component_is_replaced_keeping_its_history_and_moving_its_tasks() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let ran = drafted(&app, &shop, 7200).await;
    recorded(&app, &ran, "SUCCESS", 7200).await;
    let old = format!("/api/components/{}", shop.hotend);
    let worn = wear(&app, &format!("{old}/wear")).await;
    // The reference hotend: 100 over 2,000 h; two hours run.
    assert_eq!(
        (
            &worn["actualHours"],
            &worn["wearCostPerHour"],
            &worn["realizedWearCost"]
        ),
        (&json!("2"), &json!("0.05"), &json!("0.1"))
    );
    let printer = wear(&app, &format!("/api/printers/{}/wear", shop.printer)).await;
    assert_eq!(printer["wearCostPerHour"], "0.2", "1200 over 6000 h");
    assert_eq!(printer["realizedWearCost"], "0.4");
    let hotend_task = task(
        &app,
        &shop,
        Some(&shop.hotend),
        json!({"unit": "HOURS", "count": 10}),
        false,
    )
    .await;
    assert_eq!(hotend_task["used"], "0");

    let res = app
        .post(&format!("{old}/replace"), &json!({"purchasePrice": "120"}))
        .await;
    assert_eq!(res.status(), 201);
    let new: Value = res.json().await.unwrap();
    let new_id = new["id"].as_str().unwrap();
    assert_ne!(new_id, shop.hotend);
    assert_eq!(
        (
            &new["name"],
            &new["type"],
            &new["purchasePrice"],
            &new["expectedLifetimeHours"],
            &new["archived"]
        ),
        (
            &json!("Ref hotend"),
            &json!("HOTEND"),
            &json!("120"),
            &json!("2000"),
            &json!(false)
        )
    );
    // The old one keeps its history, archived; the new one starts at none.
    let retired: Value = app.get(&old).await.json().await.unwrap();
    assert_eq!(retired["archived"], true);
    assert_eq!(wear(&app, &format!("{old}/wear")).await["actualHours"], "2");
    let fresh = wear(&app, &format!("/api/components/{new_id}/wear")).await;
    assert_eq!(
        (&fresh["actualHours"], &fresh["realizedWearCost"]),
        (&json!("0"), &json!("0"))
    );
    assert_eq!(fresh["wearCostPerHour"], "0.06");
    // Its task moved along and started again.
    let moved = reread(&app, &hotend_task).await;
    assert_eq!(
        (&moved["componentId"], &moved["used"]),
        (&json!(new_id), &json!("0"))
    );

    assert_error(
        app.post(&format!("{old}/replace"), &json!({})).await,
        409,
        "INVALID_STATE",
    )
    .await;
    let unknown = format!("/api/components/{}/replace", uuid::Uuid::now_v7());
    assert_error(app.post(&unknown, &json!({})).await, 404, "NOT_FOUND").await;
    let bad = app
        .post(
            &format!("/api/components/{new_id}/replace"),
            &json!({"purchasePrice": "-1"}),
        )
        .await;
    assert_error(bad, 422, "VALIDATION_FAILED").await;
}

#[actix_web::test]
async fn a_printer_or_component_with_a_task_is_referenced_and_maintenance_still_answers() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    task(
        &app,
        &shop,
        None,
        json!({"unit": "DAYS", "count": 30}),
        true,
    )
    .await;
    task(
        &app,
        &shop,
        Some(&shop.belts),
        json!({"unit": "PRINTS", "count": 10}),
        false,
    )
    .await;

    // Nothing but the tasks refers to the printer and the belts.
    let printer = format!("/api/printers/{}", shop.printer);
    let belts = format!("/api/components/{}", shop.belts);
    assert_error(app.delete(&printer).await, 409, "REFERENCED").await;
    assert_error(app.delete(&belts).await, 409, "REFERENCED").await;
    assert_eq!(app.get(&printer).await.status(), 200);
    assert_eq!(app.get(&belts).await.status(), 200);

    // Maintenance, its tasks, the dashboard and the pages answer.
    let tasks = app.json("/api/maintenance").await;
    let tasks = tasks.as_array().unwrap_or_else(|| panic!("{tasks}"));
    assert_eq!(tasks.len(), 2);
    for t in tasks {
        let id = t["id"].as_str().unwrap();
        assert_eq!(
            app.get(&format!("/api/maintenance/{id}")).await.status(),
            200
        );
    }
    assert_eq!(app.get("/api/dashboard").await.status(), 200);

    // A component whose task moved to its replacement is no longer that task's subject.
    let hotend_task = task(
        &app,
        &shop,
        Some(&shop.hotend),
        json!({"unit": "HOURS", "count": 50}),
        false,
    )
    .await;
    let old = format!("/api/components/{}", shop.hotend);
    assert_error(app.delete(&old).await, 409, "REFERENCED").await;
    let replaced = app
        .create(&format!("{old}/replace"), &json!({"purchasePrice": "120"}))
        .await;
    let new_id = replaced["id"].as_str().unwrap();
    assert_eq!(
        reread(&app, &hotend_task).await["componentId"],
        json!(new_id)
    );
    let deleted = app.delete(&old).await;
    assert_eq!(deleted.status(), 204, "{}", deleted.text().await.unwrap());
    assert_error(
        app.delete(&format!("/api/components/{new_id}")).await,
        409,
        "REFERENCED",
    )
    .await;
}

#[actix_web::test]
async fn a_patch_changes_only_the_fields_it_gives_even_of_an_archived_printers_task() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let made = task(
        &app,
        &shop,
        None,
        json!({"unit": "DAYS", "count": 30}),
        true,
    )
    .await;
    let path = format!("/api/maintenance/{}", made["id"].as_str().unwrap());
    let archived = app
        .patch(
            &format!("/api/printers/{}", shop.printer),
            &json!({"archived": true}),
        )
        .await;
    assert_eq!(archived.status(), 200);

    let res = app.patch(&path, &json!({"archived": true})).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let changed = reread(&app, &made).await;
    assert_eq!(
        (
            &changed["archived"],
            &changed["name"],
            &changed["every"],
            &changed["blocking"]
        ),
        (&json!(true), &made["name"], &made["every"], &json!(true))
    );
    let res = app.patch(&path, &json!({"blocking": false})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(reread(&app, &made).await["blocking"], false);
    assert_eq!(reread(&app, &made).await["archived"], true);
    let blank = app.patch(&path, &json!({"name": " "})).await;
    assert_field_error(blank, "name", "errors.required").await;
}
