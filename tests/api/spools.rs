//! Spools and the stock ledger over HTTP: creation with the opening receipt, movements and their
//! idempotency, stock, the spool-management switch, spool-priced drafts, concurrency and crashes.

use crate::durability::Service;
use crate::support::{PASSWORD, TestApp, assert_error, assert_field_error};
use crate::support::{Shop, draft, shop};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

pub fn key() -> String {
    uuid::Uuid::now_v7().to_string()
}

pub async fn filament(app: &TestApp) -> String {
    let maker = app.manufacturer("Spool Maker").await;
    let body = json!({"manufacturerId": maker, "material": "PETG", "colorName": "Blue", "colorHex": "#0000FF", "purchasePrice": "20", "netWeightGrams": "750"});
    app.create("/api/filaments", &body).await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

pub async fn spool(app: &TestApp, filament: &str, code: &str, price: &str, grams: &str) -> Value {
    let body = json!({"code": code, "filamentId": filament, "purchasePrice": price, "initialNetWeightGrams": grams, "location": "Shelf A", "acquiredAt": "2026-11-01"});
    app.create("/api/spools", &body).await
}

async fn movement(app: &TestApp, spool: &str, body: &Value) -> reqwest::Response {
    app.post(&format!("/api/spools/{spool}/movements"), body)
        .await
}

#[actix_web::test]
async fn a_spool_opens_with_its_receipt_and_keeps_an_exact_ledger() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let filament = filament(&app).await;
    let created = spool(&app, &filament, "PETG-BLU-01", "22.50", "1000").await;
    assert_eq!(created["remainingGrams"], "1000");
    assert_eq!(created["unitCost"], "0.0225");
    assert_eq!(created["filament"], "Spool Maker PETG Blue");
    assert_eq!(created["acquiredAt"], "2026-11-01");
    let id = created["id"].as_str().unwrap();
    assert_error(app.post("/api/spools", &json!({"code": "petg-blu-01", "filamentId": filament, "purchasePrice": "1", "initialNetWeightGrams": "1"})).await, 409, "DUPLICATE").await;

    let receipt: Value = movement(
        &app,
        id,
        &json!({"kind": "RECEIPT", "grams": "250.5", "note": "top-up"}),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(receipt["kind"], "RECEIPT");
    let correction = movement(
        &app,
        id,
        &json!({"kind": "CORRECTION", "grams": "-0.000001"}),
    )
    .await;
    assert_eq!(correction.status(), 201);
    let detail: Value = app
        .get(&format!("/api/spools/{id}?pageSize=2"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["spool"]["remainingGrams"], "1250.499999");
    assert_eq!(detail["movements"]["total"], 3);
    assert_eq!(
        detail["movements"]["items"][0]["grams"], "-0.000001",
        "newest first"
    );
    let last: Value = app
        .get(&format!("/api/spools/{id}?page=2&pageSize=2"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(last["movements"]["items"][0]["note"], "Opening receipt");
    assert_eq!(last["movements"]["items"][0]["grams"], "1000");
}

#[actix_web::test]
async fn movements_outside_the_ledger_rules_are_refused() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let filament = filament(&app).await;
    let created = spool(&app, &filament, "PETG-BLU-01", "22.50", "1000").await;
    let id = created["id"].as_str().unwrap();
    for (body, path, code) in [
        (
            json!({"kind": "RECEIPT", "grams": "0"}),
            "grams",
            "errors.notPositive",
        ),
        (
            json!({"kind": "RECEIPT", "grams": "-5"}),
            "grams",
            "errors.notPositive",
        ),
        (
            json!({"kind": "CORRECTION", "grams": "0"}),
            "grams",
            "errors.zero",
        ),
        (
            json!({"kind": "CORRECTION", "grams": "-99999"}),
            "grams",
            "errors.belowZero",
        ),
        (
            json!({"kind": "CORRECTION", "grams": "1234567890123"}),
            "grams",
            "errors.outOfRange",
        ),
        (
            json!({"kind": "CORRECTION", "grams": "1.1234567"}),
            "grams",
            "errors.outOfRange",
        ),
        (
            json!({"kind": "CORRECTION", "grams": 5}),
            "grams",
            "errors.invalidType",
        ),
        (
            json!({"kind": "PRINT", "grams": "-5"}),
            "kind",
            "errors.invalidValue",
        ),
        (
            json!({"kind": "LOSS", "grams": "-5"}),
            "kind",
            "errors.invalidValue",
        ),
    ] {
        assert_field_error(movement(&app, id, &body).await, path, code).await;
    }
    let widest = movement(
        &app,
        id,
        &json!({"kind": "RECEIPT", "grams": "123456789012.123456"}),
    )
    .await;
    assert_eq!(widest.status(), 201, "12 whole and 6 fractional digits fit");
    assert_error(
        movement(
            &app,
            "01a1fca8-547d-7442-9d4e-aa020ca898c4",
            &json!({"kind": "RECEIPT", "grams": "1"}),
        )
        .await,
        404,
        "NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn an_operation_key_books_once() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let filament = filament(&app).await;
    let id = spool(&app, &filament, "K-1", "20", "1000").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let body = json!({"kind": "CORRECTION", "grams": "-10", "operationKey": key()});
    let first = movement(&app, &id, &body).await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.unwrap();
    let again = movement(&app, &id, &body).await;
    assert_eq!(
        again.status(),
        201,
        "an identical retry answers like the first call"
    );
    assert_eq!(again.json::<Value>().await.unwrap(), first);
    let mut other = body.clone();
    other["grams"] = json!("-11");
    assert_error(
        movement(&app, &id, &other).await,
        409,
        "OPERATION_KEY_REUSED",
    )
    .await;
    let detail: Value = app
        .get(&format!("/api/spools/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["spool"]["remainingGrams"], "990");
    assert_eq!(detail["movements"]["total"], 2);
}

/// A set-up box with a filament, its opening spool, and the spool LIST-A booked empty.
/// Returns the app, the filament and LIST-A.
async fn emptied_spool() -> (TestApp, String, String) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let filament = filament(&app).await;
    let a = spool(&app, &filament, "LIST-A", "20", "500").await;
    let a_id = a["id"].as_str().unwrap().to_string();
    movement(&app, &a_id, &json!({"kind": "CORRECTION", "grams": "-500"})).await;
    (app, filament, a_id)
}

#[actix_web::test]
async fn spools_list_by_filament_availability_and_search() {
    let (app, filament, _) = emptied_spool().await;
    let list: Value = app
        .get(&format!("/api/spools?filamentId={filament}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 2, "the opening spool and LIST-A");
    let available: Value = app
        .get(&format!(
            "/api/spools?filamentId={filament}&availableOnly=true"
        ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(available["total"], 1);
    let search: Value = app
        .get("/api/spools?search=list-a")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(search["items"][0]["code"], "LIST-A");
}

#[actix_web::test]
async fn a_spool_changes_its_metadata_but_not_its_fixed_fields() {
    let (app, filament, a_id) = emptied_spool().await;
    let a_id = a_id.as_str();
    let change = json!({"purchasePrice": "18", "location": "Dry box", "code": "LIST-A", "filamentId": filament});
    let changed: Value = app
        .patch(&format!("/api/spools/{a_id}"), &change)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(changed["purchasePrice"], "18");
    assert_eq!(changed["location"], "Dry box");
    assert_eq!(changed["initialNetWeightGrams"], "500");
    assert_error(
        app.patch(
            &format!("/api/spools/{a_id}"),
            &json!({"purchasePrice": "18", "code": "OTHER"}),
        )
        .await,
        409,
        "IMMUTABLE",
    )
    .await;
    assert_error(
        app.patch(
            &format!("/api/spools/{a_id}"),
            &json!({"purchasePrice": "18", "initialNetWeightGrams": "1"}),
        )
        .await,
        409,
        "IMMUTABLE",
    )
    .await;
    assert_field_error(
        app.patch(
            &format!("/api/spools/{a_id}"),
            &json!({"purchasePrice": "18", "acquiredAt": "yesterday"}),
        )
        .await,
        "acquiredAt",
        "errors.invalidDate",
    )
    .await;
    assert_field_error(
        app.patch(
            &format!("/api/spools/{a_id}"),
            &json!({"purchasePrice": "18", "acquiredAt": "2026-02-30"}),
        )
        .await,
        "acquiredAt",
        "errors.invalidDate",
    )
    .await;
    let leap = app
        .patch(
            &format!("/api/spools/{a_id}"),
            &json!({"purchasePrice": "18", "acquiredAt": "2024-02-29"}),
        )
        .await;
    assert_eq!(
        leap.json::<Value>().await.unwrap()["acquiredAt"],
        "2024-02-29"
    );
}

#[actix_web::test]
async fn an_archived_spool_leaves_stock_and_keeps_its_label() {
    let (app, filament, a_id) = emptied_spool().await;
    let a_id = a_id.as_str();
    let stock: Value = app
        .get(&format!("/api/filaments/{filament}/stock"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(stock["activeTotalGrams"], "750");
    let archived: Value = app
        .post(
            &format!("/api/spools/{a_id}/archive"),
            &json!({"archived": true}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(archived["archived"], true);
    let hidden: Value = app
        .get(&format!("/api/spools?filamentId={filament}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(hidden["total"], 1);

    let qr = app.get(&format!("/api/spools/{a_id}/qr")).await;
    assert_eq!(qr.headers().get("content-type").unwrap(), "image/svg+xml");
    let svg = qr.text().await.unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("<path"),
        "{}",
        &svg[..100.min(svg.len())]
    );
    assert_error(
        app.get("/api/spools/01a1fca8-547d-7442-9d4e-aa020ca898c4/qr")
            .await,
        404,
        "NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn drafts_draw_from_spools_while_spool_management_is_on() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let single: Value = app
        .post("/api/prints/calculate", &draft(&shop, "One spool"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        single["totalCost"], "1.782175",
        "the opening spool carries the catalog price"
    );
    assert!(
        single["usages"][0]["spoolCode"]
            .as_str()
            .unwrap()
            .starts_with("SP-")
    );

    let dear = spool(&app, &shop.filament, "DEAR", "59.98", "1000").await;
    assert_field_error(
        app.post("/api/prints/calculate", &draft(&shop, "Which?"))
            .await,
        "parts[0].filaments[0].spoolId",
        "errors.spoolRequired",
    )
    .await;
    let mut chosen = draft(&shop, "Dear spool");
    chosen["parts"][0]["filaments"][0]["spoolId"] = dear["id"].clone();
    let priced: Value = app.post("/api/prints", &chosen).await.json().await.unwrap();
    assert_eq!(priced["totalCost"], "3.05675", "42.5 g at 59.98 / 1000 g");
    assert_eq!(priced["usages"][0]["spoolId"], dear["id"]);
    assert_eq!(priced["usages"][0]["spoolCode"], "DEAR");

    let other = json!({"manufacturerId": app.manufacturer("Other").await, "material": "ASA", "colorName": "Grey", "colorHex": "#888888", "purchasePrice": "30", "netWeightGrams": "1000"});
    let other = app.create("/api/filaments", &other).await;
    let foreign = app
        .get(&format!(
            "/api/spools?filamentId={}",
            other["id"].as_str().unwrap()
        ))
        .await
        .json::<Value>()
        .await
        .unwrap()["items"][0]["id"]
        .clone();
    chosen["parts"][0]["filaments"][0]["spoolId"] = foreign;
    assert_field_error(
        app.post("/api/prints", &chosen).await,
        "parts[0].filaments[0].spoolId",
        "errors.wrongFilament",
    )
    .await;
}

/// A set-up box with a shop, and spool management switched off. Returns the app, the shop and
/// the shop filament's spool.
async fn spools_off() -> (TestApp, Shop, String) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let spool_id = app.get("/api/spools").await.json::<Value>().await.unwrap()["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.patch(
        "/api/settings/features",
        &json!({"spoolManagementEnabled": false}),
    )
    .await;
    (app, shop, spool_id)
}

#[actix_web::test]
async fn every_spool_route_is_refused_while_spool_management_is_off() {
    let (app, shop, spool_id) = spools_off().await;

    assert_error(
        app.get("/api/spools").await,
        409,
        "SPOOL_MANAGEMENT_DISABLED",
    )
    .await;
    assert_error(app.post("/api/spools", &json!({"filamentId": shop.filament, "purchasePrice": "1", "initialNetWeightGrams": "1"})).await, 409, "SPOOL_MANAGEMENT_DISABLED").await;
    assert_error(
        app.get(&format!("/api/spools/{spool_id}")).await,
        409,
        "SPOOL_MANAGEMENT_DISABLED",
    )
    .await;
    assert_error(
        app.patch(
            &format!("/api/spools/{spool_id}"),
            &json!({"purchasePrice": "1"}),
        )
        .await,
        409,
        "SPOOL_MANAGEMENT_DISABLED",
    )
    .await;
    assert_error(
        app.post(
            &format!("/api/spools/{spool_id}/archive"),
            &json!({"archived": true}),
        )
        .await,
        409,
        "SPOOL_MANAGEMENT_DISABLED",
    )
    .await;
    assert_error(
        movement(&app, &spool_id, &json!({"kind": "RECEIPT", "grams": "1"})).await,
        409,
        "SPOOL_MANAGEMENT_DISABLED",
    )
    .await;
    assert_error(
        app.get(&format!("/api/spools/{spool_id}/qr")).await,
        409,
        "SPOOL_MANAGEMENT_DISABLED",
    )
    .await;
}

#[actix_web::test]
async fn drafts_use_catalog_prices_while_spool_management_is_off() {
    let (app, shop, spool_id) = spools_off().await;
    let mut with_spool = draft(&shop, "Spool ignored");
    with_spool["parts"][0]["filaments"][0]["spoolId"] = json!(spool_id);
    let print: Value = app
        .post("/api/prints", &with_spool)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(print["usages"][0]["spoolId"], Value::Null);
    assert_eq!(print["usages"][0]["spoolCode"], Value::Null);
    assert_eq!(print["totalCost"], "1.782175", "catalog price");
}

#[actix_web::test]
async fn switching_spool_management_on_stocks_filaments_without_a_spool() {
    let (app, shop, _) = spools_off().await;
    let maker = app.manufacturer("Later").await;
    let late = app.create("/api/filaments", &json!({"manufacturerId": maker, "material": "TPU", "colorName": "Red", "colorHex": "#FF0000", "purchasePrice": "35", "netWeightGrams": "500"})).await;
    app.patch(
        "/api/settings/features",
        &json!({"spoolManagementEnabled": true}),
    )
    .await;
    let stocked: Value = app
        .get(&format!(
            "/api/spools?filamentId={}",
            late["id"].as_str().unwrap()
        ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        stocked["total"], 1,
        "switching on opens a spool for a filament without one"
    );
    assert_eq!(stocked["items"][0]["remainingGrams"], "500");
    let existing: Value = app
        .get(&format!("/api/spools?filamentId={}", shop.filament))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        existing["total"], 1,
        "a filament with an active spool gets none"
    );
}

/// Books movements and outcomes from many clients at once, some retrying with the same key or
/// the same outcome; checks the ledger.
#[actix_web::test]
async fn concurrent_bookings_keep_the_ledger_balanced() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let filament = filament(&app).await;
    let mut spools = Vec::new();
    for n in 0..4 {
        let created = spool(&app, &filament, &format!("C-{n}"), "20", "100000").await;
        spools.push(created["id"].as_str().unwrap().to_string());
    }
    let mut outcomes = Vec::new();
    for n in 0..8 {
        let mut body = draft(&shop, &format!("Concurrent {n}"));
        body["parts"][0]["filaments"][0] =
            json!({"filamentId": filament, "usedGrams": "10", "spoolId": spools[n % 4]});
        let print = app.create("/api/prints", &body).await;
        let id = print["id"].as_str().unwrap().to_string();
        app.post(&format!("/api/prints/{id}/complete"), &json!({}))
            .await;
        let grams = format!("{}.25", 5 + n);
        let outcome = json!({"status": "SUCCESS", "durationSeconds": 5400, "filaments": [{"usageId": print["usages"][0]["id"], "usedGrams": grams}]});
        outcomes.push((id, spools[n % 4].clone(), grams, outcome));
    }
    let outcome_sends = outcomes.iter().flat_map(|(id, _, _, body)| {
        let url = app.url(&format!("/api/prints/{id}/outcome"));
        let client = app.client.clone();
        (0..2).map(move |_| {
            let (client, url, body) = (client.clone(), url.clone(), body.clone());
            async move {
                let res = client.post(url).json(&body).send().await.unwrap();
                assert_eq!(
                    res.status(),
                    200,
                    "an identical repeat answers like the first"
                );
            }
        })
    });
    let recorded = actix_web::rt::spawn(futures_util::future::join_all(
        outcome_sends.collect::<Vec<_>>(),
    ));
    let bookings: Vec<(String, Value)> = (0..200)
        .map(|i| {
            let body = json!({"kind": if i % 3 == 0 { "RECEIPT" } else { "CORRECTION" }, "grams": if i % 3 == 0 { "1.5" } else { "-0.25" }, "operationKey": key()});
            (spools[i % spools.len()].clone(), body)
        })
        .collect();
    let clients: Vec<_> = (0..16).map(|_| app.client.clone()).collect();
    let sends = bookings.iter().enumerate().flat_map(|(i, (spool, body))| {
        let copies = if i % 5 == 0 { 3 } else { 1 };
        (0..copies).map(move |c| (i, c, spool.clone(), body.clone()))
    });
    let requests = sends.map(|(i, c, spool, body)| {
        let client = clients[(i + c) % clients.len()].clone();
        let url = app.url(&format!("/api/spools/{spool}/movements"));
        async move {
            let res = client.post(url).json(&body).send().await.unwrap();
            assert_eq!(res.status(), 201);
            res.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        }
    });
    let answered: Vec<String> = futures_util::future::join_all(requests).await;
    recorded.await.unwrap();
    let distinct: HashSet<&String> = answered.iter().collect();
    assert_eq!(
        distinct.len(),
        bookings.len(),
        "a retried key answered the same movement"
    );

    let mut expected: HashMap<&str, f64> = spools.iter().map(|s| (s.as_str(), 100000.0)).collect();
    for (spool, body) in &bookings {
        *expected.get_mut(spool.as_str()).unwrap() +=
            body["grams"].as_str().unwrap().parse::<f64>().unwrap();
    }
    for (_, spool, grams, _) in &outcomes {
        *expected.get_mut(spool.as_str()).unwrap() -= grams.parse::<f64>().unwrap();
    }
    for spool in &spools {
        assert_balanced(&app, spool, expected[spool.as_str()]).await;
    }
}

/// Checks that spool `spool`'s remaining grams equal the sum of its movements and `expected`.
async fn assert_balanced(app: &TestApp, spool: &str, expected: f64) {
    let remaining = balanced_ledger(app, spool).await.0;
    assert!(
        (remaining - expected).abs() < 1e-9,
        "remaining {remaining} != booked"
    );
}

/// Spool `spool`'s remaining grams and the ids of all its movements, read page by page, after
/// checking that the remaining grams equal the sum of the movements.
pub async fn balanced_ledger(app: &TestApp, spool: &str) -> (f64, HashSet<String>) {
    let detail: Value = app
        .get(&format!("/api/spools/{spool}?pageSize=100"))
        .await
        .json()
        .await
        .unwrap();
    let mut sum = 0.0;
    let mut ids = HashSet::new();
    let mut page = 1;
    loop {
        let movements: Value = app
            .get(&format!("/api/spools/{spool}?page={page}&pageSize=100"))
            .await
            .json()
            .await
            .unwrap();
        let items = movements["movements"]["items"].as_array().unwrap().clone();
        if items.is_empty() {
            break;
        }
        for m in &items {
            sum += m["grams"].as_str().unwrap().parse::<f64>().unwrap();
            ids.insert(m["id"].as_str().unwrap().to_string());
        }
        page += 1;
    }
    let remaining: f64 = detail["spool"]["remainingGrams"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        ids.len() as u64,
        detail["movements"]["total"].as_u64().unwrap()
    );
    assert!(
        (remaining - sum).abs() < 1e-9,
        "remaining {remaining} != sum of movements {sum}"
    );
    (remaining, ids)
}

/// Under booking load the process is killed with SIGKILL; every acknowledged movement survives
/// and the ledger balances.
/// A service process on `dir`, set up, with a filament of 100 kg and its opening spool.
/// The opening spool (bottle) of the material `body` makes through `service`.
async fn opened(service: &Service, path: &str, body: &Value) -> String {
    let material: Value = service
        .client
        .post(service.url(path))
        .json(body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let spools: Value = service
        .client
        .get(service.url(&format!(
            "/api/spools?filamentId={}",
            material["id"].as_str().unwrap()
        )))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    spools["items"][0]["id"].as_str().unwrap().to_string()
}

/// A service on `dir` with a filament's spool and a resin's bottle, both of 100,000 (grams,
/// millilitres).
async fn crash_spools(dir: &std::path::Path) -> (Service, [(String, &'static str); 2]) {
    let service = Service::start(dir);
    service.set_up().await;
    let maker = service
        .client
        .post(service.url("/api/manufacturers"))
        .json(&json!({"name": "Crash"}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let body = json!({"manufacturerId": maker["id"], "material": "PLA", "colorName": "Red", "colorHex": "#FF0000", "purchasePrice": "20", "netWeightGrams": "100000"});
    let spool = opened(&service, "/api/filaments", &body).await;
    let body = json!({"kind": "RESIN", "manufacturerId": maker["id"], "material": "Standard", "colorName": "Grey", "colorHex": "#808080", "purchasePrice": "40", "netQuantity": "100000"});
    let bottle = opened(&service, "/api/materials", &body).await;
    (service, [(spool, "grams"), (bottle, "millilitres")])
}

/// Every movement of spool `id` after a restart: their ids, the sum of their quantities and
/// the spool's remaining quantity.
async fn ledger_of(service: &Service, id: &str) -> (HashSet<String>, f64, f64) {
    let mut stored = HashSet::new();
    let mut sum = 0.0;
    let mut page = 1;
    loop {
        let detail: Value = service
            .client
            .get(service.url(&format!("/api/spools/{id}?page={page}&pageSize=100")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let items = detail["movements"]["items"].as_array().unwrap();
        if items.is_empty() {
            let remaining = detail["spool"]["remainingQuantity"].as_str().unwrap();
            return (stored, sum, remaining.parse().unwrap());
        }
        for m in items {
            stored.insert(m["id"].as_str().unwrap().to_string());
            sum += m["quantity"].as_str().unwrap().parse::<f64>().unwrap();
        }
        page += 1;
    }
}

/// `kill -9` under a load of movements in grams on a filament's spool and in millilitres on a
/// resin's bottle: every acknowledged movement is there after the restart, and each ledger
/// balances in its own unit.
#[actix_web::test]
async fn acknowledged_movements_survive_sigkill_under_load() {
    let dir = tempfile::tempdir().unwrap();
    let (service, spools) = crash_spools(dir.path()).await;

    let acknowledged = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(usize, String)>::new()));
    let senders: Vec<_> = (0..8)
        .map(|n| {
            let which = n % 2;
            let (spool, field) = spools[which].clone();
            let url = service.url(&format!("/api/spools/{spool}/movements"));
            let (client, acknowledged) = (service.client.clone(), acknowledged.clone());
            actix_web::rt::spawn(async move {
                for _ in 0..10_000 {
                    let body = json!({"kind": "CORRECTION", field: "-0.5", "operationKey": key()});
                    match client.post(&url).json(&body).send().await {
                        Ok(res) if res.status() == 201 => {
                            let id = res
                                .json::<Value>()
                                .await
                                .map(|v| v["id"].as_str().unwrap_or_default().to_string());
                            if let Ok(id) = id {
                                acknowledged.lock().unwrap().push((which, id));
                            }
                        }
                        _ => break,
                    }
                }
            })
        })
        .collect();
    while acknowledged.lock().unwrap().len() < 300 {
        actix_web::rt::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    service.kill_9();
    for sender in senders {
        let _ = sender.await;
    }
    let acknowledged = acknowledged.lock().unwrap().clone();

    let service = Service::start(dir.path());
    assert_eq!(service.login(PASSWORD).await, 200);
    for (which, (spool, _)) in spools.iter().enumerate() {
        let (stored, sum, remaining) = ledger_of(&service, spool).await;
        let mine: Vec<&String> = acknowledged
            .iter()
            .filter(|(w, _)| *w == which)
            .map(|(_, id)| id)
            .collect();
        assert!(!mine.is_empty(), "the load reached spool {which}");
        for id in &mine {
            assert!(stored.contains(*id), "acknowledged movement {id} lost");
        }
        assert!(
            (remaining - sum).abs() < 1e-9,
            "remaining {remaining} != sum {sum}"
        );
        assert!(
            stored.len() > mine.len(),
            "at least the opening receipt besides the load"
        );
    }
    service.kill_9();
}
