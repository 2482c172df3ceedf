//! Prints over HTTP: pricing (the reference example), drafts, parts, lifecycle, copies, lists and
//! filters, CSV export, report data.

use crate::support;
use crate::support::{
    Shop, TestApp, assert_error, assert_field_error, draft, part, shop, urlencode,
};
use serde_json::{Value, json};

async fn set_status(app: &TestApp, id: &str, status: &str) -> reqwest::Response {
    app.patch(&format!("/api/prints/{id}"), &json!({"status": status}))
        .await
}

/// Raises the shop printer's price from 1200 to 2400.
async fn double_the_printer_price(app: &TestApp, shop: &Shop) {
    let path = format!("/api/printers/{}", shop.printer);
    let printer: Value = app.get(&path).await.json().await.unwrap();
    let dearer = json!({"name": "Ref printer", "manufacturerId": printer["manufacturerId"], "purchasePrice": "2400", "expectedLifetimeHours": "6000", "averagePowerWatts": 120});
    assert_eq!(app.patch(&path, &dearer).await.status(), 200);
}

#[actix_web::test]
async fn the_reference_example_prices_to_1_782175_over_http() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let res = app
        .post("/api/prints/calculate", &draft(&shop, "Reference"))
        .await;
    assert_eq!(res.status(), 200);
    let preview: Value = res.json().await.unwrap();
    assert_eq!(preview["totalCost"], "1.782175");
    assert_eq!(preview["costPerUnit"], "1.782175");
    assert_eq!(preview["durationSeconds"], 5400);
    let categories: Vec<&str> = preview["costLines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["category"].as_str().unwrap())
        .collect();
    assert_eq!(
        categories,
        [
            "PRINTER",
            "HOTEND",
            "BUILD_PLATE",
            "FILAMENT",
            "ELECTRICITY"
        ]
    );
    let printer_line = &preview["costLines"][0];
    assert_eq!(printer_line["quantity"], "1.5");
    assert_eq!(printer_line["unitRate"], "0.2");
    assert_eq!(printer_line["cost"], "0.3");
    assert_eq!(preview["usages"][0]["cost"], "1.274575");
    let list: Value = app.get("/api/prints").await.json().await.unwrap();
    assert_eq!(list["total"], 0, "calculate stores nothing");

    let legacy = json!({
        "name": "Legacy flat", "quantity": 5,
        "printerId": shop.printer, "buildPlateId": shop.plate,
        "hotends": [{"componentId": shop.hotend, "durationSeconds": 5400}],
        "filaments": [{"filamentId": shop.filament, "usedGrams": "42.5"}]
    });
    let created = app.create("/api/prints", &legacy).await;
    assert_eq!(created["totalCost"], "1.782175");
    assert_eq!(created["costPerUnit"], "0.356435");
    assert_eq!(created["status"], "DRAFT");
    assert_eq!(created["printerId"], shop.printer.as_str());
    assert_eq!(created["printer"], "Ref printer");
    assert_eq!(created["parts"].as_array().unwrap().len(), 1);
}

#[actix_web::test]
async fn a_multipart_print_sums_its_parts_and_keeps_part_ids_on_edit() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut second = part(&shop, 1800, "10");
    second["otherComponentIds"] = json!([shop.belts]);
    let body = json!({"name": "Two parts", "quantity": 4, "salesValue": "20", "customerId": shop.customer, "parts": [part(&shop, 5400, "42.5"), second]});
    let print = app.create("/api/prints", &body).await;
    // Part 2: 1800 s: printer 0.1, hotend 0.025, plate 0.025, belts 0.0075, filament 0.2999,
    // electricity 0.0192 = 0.4766; with part 1 (1.782175) = 2.258775.
    assert_eq!(print["totalCost"], "2.258775");
    assert_eq!(print["costPerUnit"], "0.56469375");
    assert_eq!(print["parts"][1]["totalCost"], "0.4766");
    assert_eq!(print["durationSeconds"], 7200);
    assert_eq!(print["usages"].as_array().unwrap().len(), 2);
    assert_eq!(print["financials"]["plannedMargin"], "17.741225");
    assert_eq!(print["financials"]["salesPerUnit"], "5");
    assert_eq!(print["financials"]["realizedRevenue"], Value::Null);

    let id = print["id"].as_str().unwrap();
    let first_part = print["parts"][0]["id"].as_str().unwrap().to_string();
    let mut kept = part(&shop, 3600, "20");
    kept["id"] = json!(first_part);
    let edit = json!({"name": "Two parts, shorter", "quantity": 4, "parts": [kept]});
    let edited: Value = app
        .patch(&format!("/api/prints/{id}"), &edit)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(edited["parts"][0]["id"], first_part.as_str());
    assert_eq!(edited["parts"].as_array().unwrap().len(), 1);
    assert_eq!(
        edited["salesValue"],
        Value::Null,
        "a full replace clears omitted fields"
    );

    let flat_on_multipart = app.create("/api/prints", &body).await;
    let multi = flat_on_multipart["id"].as_str().unwrap();
    let flat = json!({"name": "x", "printerId": shop.printer, "buildPlateId": shop.plate, "hotends": [{"componentId": shop.hotend, "durationSeconds": 1}], "filaments": [{"filamentId": shop.filament, "usedGrams": "1"}]});
    assert_field_error(
        app.patch(&format!("/api/prints/{multi}"), &flat).await,
        "parts",
        "errors.required",
    )
    .await;
    let unknown_part = json!({"name": "x", "parts": [{"id": "01a1fca8-547d-7442-9d4e-aa020ca898c4", "printerId": shop.printer, "buildPlateId": shop.plate, "hotends": [{"componentId": shop.hotend, "durationSeconds": 1}], "filaments": [{"filamentId": shop.filament, "usedGrams": "1"}]}]});
    assert_field_error(
        app.patch(&format!("/api/prints/{multi}"), &unknown_part)
            .await,
        "parts[0].id",
        "errors.notFound",
    )
    .await;
}

#[actix_web::test]
async fn drafts_are_validated_field_by_field() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut none = draft(&shop, "x");
    none["parts"] = json!([]);
    assert_field_error(
        app.post("/api/prints", &none).await,
        "parts",
        "errors.tooFew",
    )
    .await;
    let mut many = draft(&shop, "x");
    many["parts"] = json!(vec![part(&shop, 60, "1"); 101]);
    assert_field_error(
        app.post("/api/prints", &many).await,
        "parts",
        "errors.tooMany",
    )
    .await;
    for quantity in [0, 1_000_001] {
        let mut q = draft(&shop, "x");
        q["quantity"] = json!(quantity);
        assert_field_error(
            app.post("/api/prints", &q).await,
            "quantity",
            "errors.outOfRange",
        )
        .await;
    }
    let mut wrong_kind = draft(&shop, "x");
    wrong_kind["parts"][0]["buildPlateId"] = json!(shop.hotend);
    assert_field_error(
        app.post("/api/prints", &wrong_kind).await,
        "parts[0].buildPlateId",
        "errors.wrongComponentType",
    )
    .await;
    let mut ghost = draft(&shop, "x");
    ghost["parts"][0]["filaments"][0]["filamentId"] = json!("01a1fca8-547d-7442-9d4e-aa020ca898c4");
    assert_field_error(
        app.post("/api/prints", &ghost).await,
        "parts[0].filaments[0].filamentId",
        "errors.notFound",
    )
    .await;
    let mut grams = draft(&shop, "x");
    grams["parts"][0]["filaments"][0]["usedGrams"] = json!("1234567890123");
    assert_field_error(
        app.post("/api/prints", &grams).await,
        "parts[0].filaments[0].usedGrams",
        "errors.outOfRange",
    )
    .await;
    let mut twice = draft(&shop, "x");
    twice["parts"][0]["otherComponentIds"] = json!([shop.belts, shop.belts]);
    assert_field_error(
        app.post("/api/prints/calculate", &twice).await,
        "parts[0].otherComponentIds[1]",
        "errors.duplicate",
    )
    .await;
    let mut no_hotend = draft(&shop, "x");
    no_hotend["parts"][0]["hotends"] = json!([]);
    assert_field_error(
        app.post("/api/prints", &no_hotend).await,
        "parts[0].hotends",
        "errors.required",
    )
    .await;
    let mut both = draft(&shop, "x");
    both["printerId"] = json!(shop.printer);
    assert_field_error(
        app.post("/api/prints", &both).await,
        "parts",
        "errors.mixedPartForms",
    )
    .await;
    let list: Value = app.get("/api/prints").await.json().await.unwrap();
    assert_eq!(list["total"], 0);
}

#[actix_web::test]
async fn leaving_draft_freezes_the_snapshot_and_never_returns() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = app.create("/api/prints", &draft(&shop, "Frozen")).await;
    let id = print["id"].as_str().unwrap();
    let usage = print["usages"][0]["id"].clone();

    let printing: Value = set_status(&app, id, "PRINTING").await.json().await.unwrap();
    assert_eq!(printing["status"], "PRINTING");
    assert!(printing["finalizedAt"].is_string());
    assert_eq!(
        printing["usages"][0]["id"], usage,
        "usage ids survive the freeze"
    );

    double_the_printer_price(&app, &shop).await;
    let after: Value = app
        .get(&format!("/api/prints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        after["totalCost"], "1.782175",
        "a finalized snapshot ignores later prices"
    );
    let fresh: Value = app
        .post("/api/prints/calculate", &draft(&shop, "Now"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fresh["totalCost"], "2.082175", "drafts use current prices");
}

/// A set-up box with a shop and a print moved to PRINTING; returns the print's id.
async fn printing() -> (TestApp, support::Shop, String) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = app.create("/api/prints", &draft(&shop, "Frozen")).await;
    let id = print["id"].as_str().unwrap().to_string();
    assert_eq!(set_status(&app, &id, "PRINTING").await.status(), 200);
    (app, shop, id)
}

#[actix_web::test]
async fn a_finalized_print_moves_freely_but_never_back_to_draft() {
    let (app, shop, id) = printing().await;
    let id = id.as_str();
    for status in ["DONE", "SHIPPED", "PRINTED", "DONE"] {
        let moved: Value = set_status(&app, id, status).await.json().await.unwrap();
        assert_eq!(moved["status"], status);
    }
    assert_error(set_status(&app, id, "DRAFT").await, 409, "IMMUTABLE").await;
    assert_error(
        app.patch(&format!("/api/prints/{id}"), &draft(&shop, "Edit"))
            .await,
        409,
        "IMMUTABLE",
    )
    .await;
    assert_field_error(
        set_status(&app, id, "LOST").await,
        "status",
        "errors.invalidValue",
    )
    .await;
}

#[actix_web::test]
async fn paid_and_archived_are_flags_of_any_print() {
    let (app, _, id) = printing().await;
    let id = id.as_str();
    let paid: Value = app
        .patch(&format!("/api/prints/{id}"), &json!({"paid": true}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(paid["paid"], true);
    assert!(paid["paidAt"].is_string());
    let unpaid: Value = app
        .patch(&format!("/api/prints/{id}"), &json!({"paid": false}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(unpaid["paidAt"], Value::Null);
    let archived: Value = app
        .patch(&format!("/api/prints/{id}"), &json!({"archived": true}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(archived["archived"], true);
}

#[actix_web::test]
async fn completing_a_draft_freezes_current_prices() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    double_the_printer_price(&app, &shop).await;
    let other = app.create("/api/prints", &draft(&shop, "Completed")).await;
    let res = app
        .post(
            &format!("/api/prints/{}/complete", other["id"].as_str().unwrap()),
            &json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let done: Value = res.json().await.unwrap();
    assert_eq!(done["status"], "DONE");
    assert!(done["completedAt"].is_string());
    assert_eq!(
        done["totalCost"], "2.082175",
        "completing a draft freezes current prices"
    );
    assert_error(
        app.delete(&format!("/api/printers/{}", shop.printer)).await,
        409,
        "REFERENCED",
    )
    .await;
}

#[actix_web::test]
async fn duplicate_and_repeat_copy_at_current_prices() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Original");
    body["salesValue"] = json!("10");
    body["quantity"] = json!(3);
    let original = app.create("/api/prints", &body).await;
    let id = original["id"].as_str().unwrap();
    set_status(&app, id, "DONE").await;

    let duplicate = app
        .create(&format!("/api/prints/{id}/duplicate"), &json!({}))
        .await;
    assert_eq!(duplicate["status"], "DRAFT");
    assert_eq!(duplicate["salesValue"], "10");
    assert_eq!(duplicate["quantity"], 3);
    assert_eq!(duplicate["repeatOfId"], Value::Null);
    assert_ne!(duplicate["parts"][0]["id"], original["parts"][0]["id"]);

    let repeat = app
        .create(&format!("/api/prints/{id}/repeat"), &json!({}))
        .await;
    assert_eq!(repeat["salesValue"], Value::Null);
    assert_eq!(repeat["repeatOfId"], id);
    assert_eq!(repeat["totalCost"], original["totalCost"]);
    assert_error(
        app.post(
            "/api/prints/01a1fca8-547d-7442-9d4e-aa020ca898c4/duplicate",
            &json!({}),
        )
        .await,
        404,
        "NOT_FOUND",
    )
    .await;
}

/// A set-up box with three prints: a draft for the shop's customer, a DONE one and an archived
/// PRINTING one. Returns the app, the shop and today's date.
async fn three_prints() -> (TestApp, Shop, String) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut mine = draft(&shop, "Bracket for Jane");
    mine["customerId"] = json!(shop.customer);
    let a = app.create("/api/prints", &mine).await;
    let b = app
        .create("/api/prints", &draft(&shop, "Spool holder"))
        .await;
    let c = app.create("/api/prints", &draft(&shop, "Lamp shade")).await;
    set_status(&app, b["id"].as_str().unwrap(), "DONE").await;
    set_status(&app, c["id"].as_str().unwrap(), "PRINTING").await;
    app.patch(
        &format!("/api/prints/{}", c["id"].as_str().unwrap()),
        &json!({"archived": true}),
    )
    .await;
    let today = a["createdAt"].as_str().unwrap()[..10].to_string();
    (app, shop, today)
}

/// The names of a list's prints, in order.
fn names(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

/// `GET /api/prints?{query}`.
async fn list(app: &TestApp, query: String) -> Value {
    app.get(&format!("/api/prints?{query}"))
        .await
        .json()
        .await
        .unwrap()
}

/// The query parameter of a `where` group.
fn group(w: Value) -> String {
    format!("where={}", urlencode(&w.to_string()))
}

#[actix_web::test]
async fn lists_filter_by_every_field() {
    let (app, shop, today) = three_prints().await;
    let get = |q: String| list(&app, q);
    assert_eq!(
        names(&get(String::new()).await),
        ["Spool holder", "Bracket for Jane"],
        "newest first, archived hidden"
    );
    assert_eq!(get("includeArchived=true".into()).await["total"], 3);
    assert_eq!(names(&get("status=DONE".into()).await), ["Spool holder"]);
    assert_eq!(
        names(&get("status=DRAFT,DONE&pageSize=1".into()).await),
        ["Spool holder"]
    );
    assert_eq!(get("status=DRAFT,DONE&pageSize=1".into()).await["total"], 2);
    assert_eq!(
        names(&get("outcome=PENDING".into()).await),
        ["Spool holder"]
    );
    assert_eq!(
        names(&get(format!("customerId={}", shop.customer)).await),
        ["Bracket for Jane"]
    );
    assert_eq!(get(format!("printerId={}", shop.printer)).await["total"], 2);
    assert_eq!(
        names(&get("search=JANE".into()).await),
        ["Bracket for Jane"]
    );
    assert_eq!(
        get("search=ref%20printer".into()).await["total"],
        2,
        "search covers printer names"
    );
    assert_eq!(
        get(format!("dateFrom={today}&dateTo={today}")).await["total"],
        2
    );
    assert_eq!(get("dateTo=2000-01-01".into()).await["total"], 0);
}

#[actix_web::test]
async fn lists_filter_by_a_where_group() {
    let (app, shop, today) = three_prints().await;
    let get = |q: String| list(&app, q);
    let done_or_customer =
        json!({"OR": [{"status": {"in": ["DONE"]}}, {"customerId": {"in": [shop.customer]}}]});
    assert_eq!(get(group(done_or_customer)).await["total"], 2);
    let archived_only = json!({"archived": true});
    assert_eq!(names(&get(group(archived_only)).await), ["Lamp shade"]);
    let not_done = json!({"AND": [{"status": {"notIn": ["DONE"]}}, {"dateFrom": {"gte": today}}]});
    assert_eq!(names(&get(group(not_done)).await), ["Bracket for Jane"]);
}

#[actix_web::test]
async fn invalid_filters_are_refused_by_name() {
    let (app, _, _) = three_prints().await;
    let too_many = json!({"AND": vec![json!({"archived": false}); 21]});
    let too_large_a_set = json!({"status": {"in": vec!["DONE"; 51]}});
    for bad in [
        too_large_a_set,
        json!({"colour": {"in": ["red"]}}),
        json!({"status": {"in": ["LOST"]}}),
        json!({"AND": []}),
        too_many,
        json!({"dateFrom": {"gte": "21.11.2026"}}),
    ] {
        assert_field_error(
            app.get(&format!("/api/prints?{}", group(bad))).await,
            "where",
            "errors.invalidWhere",
        )
        .await;
    }
    assert_field_error(
        app.get("/api/prints?where=%7Bnot%20json").await,
        "where",
        "errors.invalidWhere",
    )
    .await;
    assert_field_error(
        app.get("/api/prints?status=LOST").await,
        "status",
        "errors.invalidValue",
    )
    .await;
    assert_field_error(
        app.get("/api/prints?dateFrom=yesterday").await,
        "dateFrom",
        "errors.invalidDate",
    )
    .await;
}

#[actix_web::test]
async fn the_csv_export_parses_back_with_its_guard() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let empty = app.get("/api/prints/export").await;
    assert_eq!(empty.headers().get("cache-control").unwrap(), "no-store");
    assert!(
        empty
            .headers()
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let header_only = empty.text().await.unwrap();
    assert_eq!(
        header_only.matches("\r\n").count(),
        1,
        "header only: {header_only}"
    );

    let mut evil = draft(&shop, "=HYPERLINK(\"http://x\")");
    evil["customerId"] = json!(shop.customer);
    evil["salesValue"] = json!("1");
    let mut second = part(&shop, 1800, "10");
    second["otherComponentIds"] = json!([shop.belts]);
    evil["parts"] = json!([part(&shop, 5400, "42.5"), second]);
    let print = app.create("/api/prints", &evil).await;
    let id = print["id"].as_str().unwrap();
    app.create("/api/prints", &draft(&shop, "Still a draft"))
        .await;
    set_status(&app, id, "DONE").await;

    let text = app.get("/api/prints/export").await.text().await.unwrap();
    let text = text
        .strip_prefix('\u{feff}')
        .expect("a byte-order mark first");
    assert!(text.ends_with("\r\n"));
    assert!(
        text.lines().all(|l| l.starts_with('"')),
        "every cell quoted"
    );
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        headers,
        [
            "id",
            "name",
            "customer",
            "printer",
            "series",
            "completed_at",
            "archived_at",
            "currency",
            "quantity",
            "duration_seconds",
            "planned_cost",
            "planned_cost_per_unit",
            "outcome",
            "outcome_at",
            "actual_duration_seconds",
            "actual_cost",
            "actual_cost_per_unit",
            "failure_reason",
            "spool_codes",
            "sales_value",
            "planned_margin",
            "revenue",
            "realized_margin",
            "parts",
            "planned_kwh",
            "actual_kwh",
            "actual_electricity_cost",
            "electricity_sources",
            "work_cost",
            "suggested_price",
            "vat",
            "gross"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1, "DONE prints only");
    let row = &rows[0];
    assert_eq!(&row[0], id);
    assert_eq!(&row[1], "'=HYPERLINK(\"http://x\")", "formula guard");
    assert_eq!(&row[2], "Jane Doe");
    assert_eq!(&row[7], "EUR");
    assert_eq!(&row[9], "7200");
    assert_eq!(&row[10], "2.258775");
    assert_eq!(&row[19], "1");
    assert_eq!(&row[20], "-1.258775", "numbers are not guarded");
    let parts: Value = serde_json::from_str(&row[23]).unwrap();
    assert_eq!(
        parts[1],
        json!({"printer": "Ref printer", "buildPlate": "Ref plate", "durationSeconds": 1800, "totalCost": "0.4766"})
    );
    assert_eq!(&row[28], "0", "no work lines");
    assert_eq!(&row[29], "", "no price rule");

    let none = app
        .get("/api/prints/export?status=DRAFT")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(none.matches("\r\n").count(), 1);
}

#[actix_web::test]
async fn reports_exist_for_done_prints_only() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = app.create("/api/prints", &draft(&shop, "Reported")).await;
    let id = print["id"].as_str().unwrap();
    assert_error(
        app.get(&format!("/api/prints/{id}/report")).await,
        409,
        "REPORT_NOT_ALLOWED",
    )
    .await;
    set_status(&app, id, "DONE").await;
    app.patch(&format!("/api/prints/{id}"), &json!({"archived": true}))
        .await;
    let res = app.get(&format!("/api/prints/{id}/report")).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers().get("cache-control").unwrap(), "no-store");
    let report: Value = res.json().await.unwrap();
    assert_eq!(report["print"]["totalCost"], "1.782175");
    assert_eq!(report["currency"], "EUR");
    assert_eq!(report["language"], "en-US");
    assert_error(
        app.get("/api/prints/01a1fca8-547d-7442-9d4e-aa020ca898c4/report")
            .await,
        404,
        "NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn the_currency_is_locked_once_a_print_exists() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let settings = |currency: &str| json!({"currency": currency, "defaultLanguage": "en-US", "electricityPrice": "0.32", "spoolManagementEnabled": true});
    assert_eq!(
        app.patch("/api/settings", &settings("CHF")).await.status(),
        200
    );
    app.create("/api/prints", &draft(&shop, "Locks")).await;
    assert_error(
        app.patch("/api/settings", &settings("EUR")).await,
        409,
        "CURRENCY_LOCKED",
    )
    .await;
    assert_eq!(
        app.patch("/api/settings", &settings("CHF")).await.status(),
        200,
        "same currency is fine"
    );
}

#[actix_web::test]
async fn search_groups_prints_and_inventory() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    app.create("/api/prints", &draft(&shop, "Reference bracket"))
        .await;
    let found: Value = app.get("/api/search?q=ref").await.json().await.unwrap();
    assert_eq!(found["prints"][0]["name"], "Reference bracket");
    assert_eq!(found["prints"][0]["status"], "DRAFT");
    assert_eq!(found["manufacturers"][0]["name"], "Reference Works");
    assert_eq!(found["printers"][0]["name"], "Ref printer");
    assert_eq!(found["components"].as_array().unwrap().len(), 2);
    assert!(found["customers"].as_array().unwrap().is_empty());
    // The opening spool of the shop's filament is found by its filament, and by its code.
    let spool = &found["spools"][0];
    let code = spool["name"]
        .as_str()
        .unwrap()
        .split(" · ")
        .next()
        .unwrap()
        .to_string();
    assert_eq!(spool["name"], format!("{code} · Reference Works PLA Black"));
    let by_code: Value = app
        .get(&format!("/api/search?q={}", code.to_lowercase()))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(by_code["spools"][0]["id"], spool["id"]);
    assert_field_error(app.get("/api/search?q=r").await, "q", "errors.tooShort").await;
    assert_field_error(app.get("/api/search").await, "q", "errors.tooShort").await;
}

#[actix_web::test]
async fn version_latest_is_null_without_a_feed() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let latest: Value = app.get("/api/version-latest").await.json().await.unwrap();
    assert_eq!(latest, Value::Null);
    assert_error(
        app.browser()
            .get(app.url("/api/version-latest"))
            .send()
            .await
            .unwrap(),
        401,
        "UNAUTHENTICATED",
    )
    .await;
}

#[actix_web::test]
async fn the_csv_export_opens_in_a_german_spreadsheet_with_semicolons_and_decimal_commas() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Halter; groß");
    body["salesValue"] = json!("12.5");
    let print = app.create("/api/prints", &body).await;
    set_status(&app, print["id"].as_str().unwrap(), "DONE").await;

    let standard = app.get("/api/prints/export").await;
    let disposition = standard.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        regex::Regex::new(r#"^attachment; filename="prints-\d{4}-\d{2}-\d{2}\.csv"$"#)
            .unwrap()
            .is_match(&disposition),
        "{disposition}"
    );
    let bytes = standard.bytes().await.unwrap();
    assert!(
        bytes.starts_with(b"\xEF\xBB\xBF\"id\",\"name\""),
        "a BOM, then commas"
    );
    let mut reader = csv::Reader::from_reader(&bytes[3..]);
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!((&row[1], &row[19]), ("Halter; groß", "12.5"));
    let planned = row[10].to_string();
    assert!(planned.contains('.'), "{planned}");

    let german = app.get("/api/prints/export?separator=SEMICOLON").await;
    let bytes = german.bytes().await.unwrap();
    assert!(
        bytes.starts_with(b"\xEF\xBB\xBF\"id\";\"name\""),
        "a BOM, then semicolons"
    );
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_reader(&bytes[3..]);
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!((&row[1], &row[19]), ("Halter; groß", "12,5"));
    assert_eq!(row[10], planned.replace('.', ","));
    assert!(
        row[23].contains("\"durationSeconds\""),
        "the parts cell stays JSON"
    );

    let res = app.get("/api/prints/export?separator=TAB").await;
    assert_field_error(res, "separator", "errors.invalidValue").await;
}
