//! Materials of every kind over HTTP (issue 51): resins in millilitres and consumables in
//! pieces or millilitres beside filaments in grams, each kind's rules, one ledger for all with
//! each movement in its material's unit, and the filaments' routes showing filaments only.

use crate::durability::Service;
use crate::outcomes::outcome;
use crate::spools::key;
use crate::support::{
    TestApp, assert_error, assert_field_error, draft, logged_in, page, shop, signed_in, submit,
};
use redb::ReadableTable;
use serde_json::{Value, json};
use storage::legacy;
use storage::records::{
    Component, Filament, Lifetime, MaterialKind, Print, Printer, PrinterTechnology, StockUnit,
};
use storage::tables;

pub async fn resin(app: &TestApp, maker: &str) -> Value {
    let body = json!({"kind": "RESIN", "manufacturerId": maker, "material": "Standard", "colorName": "Grey", "colorHex": "#808080", "purchasePrice": "39.90", "netQuantity": "1000", "densityGramsPerMillilitre": "1.1", "minimumStock": "500"});
    app.create("/api/materials", &body).await
}

pub async fn gloves(app: &TestApp, maker: &str) -> Value {
    let body = json!({"kind": "CONSUMABLE", "unit": "PIECE", "manufacturerId": maker, "material": "Nitrile gloves", "purchasePrice": "12", "netQuantity": "100"});
    app.create("/api/materials", &body).await
}

/// The one spool (bottle, pack) a material was opened with.
pub async fn opening(app: &TestApp, material: &str) -> Value {
    let listed: Value = app
        .get(&format!("/api/spools?filamentId={material}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["total"], 1, "{listed}");
    listed["items"][0].clone()
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn each_kind_keeps_its_unit_and_its_price_per_unit() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let maker = app.manufacturer("Elegoo").await;
    let resin = resin(&app, &maker).await;
    assert_eq!(
        (&resin["kind"], &resin["unit"], &resin["name"]),
        (
            &json!("RESIN"),
            &json!("MILLILITRE"),
            &json!("Elegoo Standard Grey")
        )
    );
    assert_eq!(resin["pricePerUnit"], "0.0399", "39.90 / 1000 ml");
    assert_eq!(resin["densityGramsPerMillilitre"], "1.1");
    let gloves = gloves(&app, &maker).await;
    assert_eq!(
        (&gloves["unit"], &gloves["colorHex"]),
        (&json!("PIECE"), &Value::Null)
    );
    assert_eq!(
        gloves["name"], "Elegoo Nitrile gloves",
        "no colour in the name"
    );
    assert_eq!(gloves["pricePerUnit"], "0.12");
    let ipa = json!({"kind": "CONSUMABLE", "unit": "MILLILITRE", "manufacturerId": maker, "material": "Isopropyl alcohol 99.9%", "purchasePrice": "8", "netQuantity": "1000"});
    let ipa = app.create("/api/materials", &ipa).await;
    assert_eq!(ipa["pricePerUnit"], "0.008");
    let filament = json!({"kind": "FILAMENT", "manufacturerId": maker, "material": "PLA", "colorName": "Black", "colorHex": "#000000", "purchasePrice": "20", "netQuantity": "1000"});
    let filament = app.create("/api/materials", &filament).await;
    assert_eq!(filament["unit"], "GRAM");

    let listed: Value = app
        .get("/api/materials?kind=CONSUMABLE")
        .await
        .json()
        .await
        .unwrap();
    let names: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["material"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Isopropyl alcohol 99.9%", "Nitrile gloves"]);
    let all: Value = app.get("/api/materials").await.json().await.unwrap();
    assert_eq!(all["total"], 4);

    // The filaments' routes show filaments only: a resin is not found there.
    let filaments: Value = app.get("/api/filaments").await.json().await.unwrap();
    assert_eq!(filaments["total"], 1);
    assert_eq!(filaments["items"][0]["id"], filament["id"]);
    let resin_id = id(&resin);
    for res in [
        app.get(&format!("/api/filaments/{resin_id}")).await,
        app.patch(
            &format!("/api/filaments/{resin_id}"),
            &json!({"archived": true}),
        )
        .await,
        app.delete(&format!("/api/filaments/{resin_id}")).await,
    ] {
        assert_error(res, 404, "NOT_FOUND").await;
    }
    let still: Value = app
        .get(&format!("/api/materials/{resin_id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(still["archived"], false);
}

#[actix_web::test]
async fn each_kind_refuses_what_it_does_not_take_at_its_field() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let maker = app.manufacturer("Anycubic").await;
    let base = |kind: &str| json!({"kind": kind, "manufacturerId": maker, "material": "Thing", "colorName": "Grey", "colorHex": "#808080", "purchasePrice": "10", "netQuantity": "100"});
    let with = |kind: &str, field: &str, value: Value| {
        let mut body = base(kind);
        body[field] = value;
        body
    };
    let cases = [
        (base("CONSUMABLE"), "unit", "errors.required"),
        (
            with("FILAMENT", "unit", json!("MILLILITRE")),
            "unit",
            "errors.wrongUnit",
        ),
        (
            with("RESIN", "unit", json!("PIECE")),
            "unit",
            "errors.wrongUnit",
        ),
        (
            with("CONSUMABLE", "unit", json!("GRAM")),
            "unit",
            "errors.wrongUnit",
        ),
        (
            with("FILAMENT", "densityGramsPerMillilitre", json!("1.2")),
            "densityGramsPerMillilitre",
            "errors.notForKind",
        ),
    ];
    for (body, path, key) in cases {
        assert_field_error(app.post("/api/materials", &body).await, path, key).await;
    }
    let mut colourless = base("RESIN");
    colourless.as_object_mut().unwrap().remove("colorName");
    assert_field_error(
        app.post("/api/materials", &colourless).await,
        "colorName",
        "errors.required",
    )
    .await;
    let mut halves = with("CONSUMABLE", "unit", json!("PIECE"));
    halves["netQuantity"] = json!("2.5");
    assert_field_error(
        app.post("/api/materials", &halves).await,
        "netQuantity",
        "errors.wholeNumber",
    )
    .await;
    halves["netQuantity"] = json!("2.000");
    let pack = app.create("/api/materials", &halves).await;
    assert_eq!(
        pack["netQuantity"], "2",
        "a whole number with zeros after the point"
    );

    // A material keeps its kind.
    let resin = resin(&app, &maker).await;
    let mut as_filament = base("FILAMENT");
    as_filament["manufacturerId"] = json!(maker);
    assert_field_error(
        app.patch(&format!("/api/materials/{}", id(&resin)), &as_filament)
            .await,
        "kind",
        "errors.immutable",
    )
    .await;
    // A consumable keeps its unit once it has a pack.
    let stocked = json!({"kind": "CONSUMABLE", "unit": "PIECE", "manufacturerId": maker, "material": "Gloves", "purchasePrice": "12", "netQuantity": "100"});
    let stocked = app.create("/api/materials", &stocked).await;
    let in_ml = json!({"kind": "CONSUMABLE", "unit": "MILLILITRE", "manufacturerId": maker, "material": "Gloves", "purchasePrice": "12", "netQuantity": "100"});
    assert_field_error(
        app.patch(&format!("/api/materials/{}", id(&stocked)), &in_ml)
            .await,
        "unit",
        "errors.immutable",
    )
    .await;
    let none: Value = app
        .get("/api/materials?kind=FILAMENT")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(none["total"], 0, "nothing half-written");
}

#[actix_web::test]
async fn one_ledger_books_each_kind_in_its_own_unit() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let maker = app.manufacturer("Siraya").await;
    let resin = resin(&app, &maker).await;
    let bottle = opening(&app, &id(&resin)).await;
    assert_eq!(
        (
            &bottle["materialKind"],
            &bottle["unit"],
            &bottle["remainingQuantity"]
        ),
        (&json!("RESIN"), &json!("MILLILITRE"), &json!("1000"))
    );
    assert_eq!(
        bottle["remainingGrams"],
        Value::Null,
        "a bottle holds no grams"
    );
    let bottle = id(&bottle);
    let book = |body: Value| {
        let (app, bottle) = (&app, &bottle);
        async move {
            app.post(&format!("/api/spools/{bottle}/movements"), &body)
                .await
        }
    };
    let wrong = book(json!({"kind": "CORRECTION", "grams": "-10"})).await;
    assert_field_error(wrong, "grams", "errors.wrongUnit").await;
    let two = book(json!({"kind": "CORRECTION", "grams": "-10", "millilitres": "-10"})).await;
    assert_field_error(two, "millilitres", "errors.oneQuantity").await;
    let none = book(json!({"kind": "CORRECTION"})).await;
    assert_field_error(none, "grams", "errors.required").await;
    let taken = json!({"kind": "CORRECTION", "millilitres": "-250.5", "operationKey": key()});
    let res = book(taken.clone()).await;
    assert_eq!(res.status(), 201);
    let movement: Value = res.json().await.unwrap();
    assert_eq!(
        (&movement["quantity"], &movement["unit"], &movement["grams"]),
        (&json!("-250.5"), &json!("MILLILITRE"), &Value::Null)
    );
    let again: Value = book(taken).await.json().await.unwrap();
    assert_eq!(again["id"], movement["id"], "idempotent by its key");
    let below = book(json!({"kind": "CORRECTION", "millilitres": "-800"})).await;
    assert_field_error(below, "millilitres", "errors.belowZero").await;
    let detail: Value = app
        .get(&format!("/api/spools/{bottle}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["spool"]["remainingQuantity"], "749.5");
    assert_eq!(detail["movements"]["items"][0]["quantity"], "-250.5");

    // A second bottle is opened in millilitres, not grams.
    let in_grams = json!({"filamentId": resin["id"], "purchasePrice": "39.90", "initialNetWeightGrams": "1000"});
    assert_field_error(
        app.post("/api/spools", &in_grams).await,
        "initialNetWeightGrams",
        "errors.wrongUnit",
    )
    .await;
    let in_ml =
        json!({"filamentId": resin["id"], "purchasePrice": "39.90", "initialMillilitres": "500"});
    let second = app.create("/api/spools", &in_ml).await;
    assert_eq!(second["initialQuantity"], "500");

    // Pieces are whole.
    let gloves = gloves(&app, &maker).await;
    let pack = id(&opening(&app, &id(&gloves)).await);
    let path = format!("/api/spools/{pack}/movements");
    let half = app
        .post(&path, &json!({"kind": "CORRECTION", "pieces": "-1.5"}))
        .await;
    assert_field_error(half, "pieces", "errors.wholeNumber").await;
    let used = app
        .post(&path, &json!({"kind": "CORRECTION", "pieces": "-2"}))
        .await;
    assert_eq!(used.status(), 201);
    let pack: Value = app
        .get(&format!("/api/spools/{pack}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (&pack["spool"]["remainingQuantity"], &pack["spool"]["unit"]),
        (&json!("98"), &json!("PIECE"))
    );
}

#[actix_web::test]
async fn a_part_takes_filament_only_and_metrics_show_stock_per_kind() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let resin = resin(&app, &shop.maker).await;
    let gloves = gloves(&app, &shop.maker).await;
    let mut body = draft(&shop, "Resin where filament goes");
    body["parts"][0]["filaments"][0] = json!({"filamentId": resin["id"], "usedGrams": "10"});
    assert_field_error(
        app.post("/api/prints", &body).await,
        "parts[0].filaments[0].filamentId",
        "errors.notFilament",
    )
    .await;

    let token = "scrape-token-0123456789";
    let set = app
        .client
        .put(app.url("/api/settings/metrics"))
        .json(&json!({ "token": token }))
        .send()
        .await
        .unwrap();
    assert_eq!(set.status(), 200);
    let text = reqwest::Client::new()
        .get(app.url("/metrics"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let sample = |series: String| {
        text.lines()
            .find_map(|line| line.strip_prefix(series.as_str())?.strip_prefix(' '))
            .map(str::to_string)
    };
    let resin_series = format!(
        r#"printcost_resin_stock_millilitres{{material="Reference Works Standard Grey",material_id="{}"}}"#,
        id(&resin)
    );
    assert_eq!(sample(resin_series), Some("1000".into()), "{text}");
    let gloves_series = format!(
        r#"printcost_consumable_stock_pieces{{material="Reference Works Nitrile gloves",material_id="{}"}}"#,
        id(&gloves)
    );
    assert_eq!(sample(gloves_series), Some("100".into()), "{text}");
    assert!(
        !text.contains(&format!(r#"filament_id="{}""#, id(&resin))),
        "a resin is no filament: {text}"
    );
}

/// A resin under its threshold is low stock in millilitres: an alert worded in its unit, the
/// dashboard's list and the stock page, beside the filaments in grams.
#[actix_web::test]
async fn a_resin_below_its_threshold_is_low_in_millilitres_everywhere() {
    let app = TestApp::spawn_with(|c| c.alerts_interval_secs = 1).await;
    app.setup().await;
    let maker = app.manufacturer("Elegoo").await;
    let mut body = json!({"kind": "RESIN", "manufacturerId": maker, "material": "Standard", "colorName": "Grey", "colorHex": "#808080", "purchasePrice": "39.90", "netQuantity": "1000", "minimumStock": "1500"});
    let resin = app.create("/api/materials", &body).await;
    let mut standing = Value::Null;
    for _ in 0..300 {
        standing = app.get("/api/alerts").await.json().await.unwrap();
        if standing.to_string().contains("LOW_STOCK") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let low = standing
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "LOW_STOCK")
        .unwrap_or_else(|| panic!("no LOW_STOCK in {standing}"))
        .clone();
    assert_eq!(low["subject"], resin["id"]);
    assert_eq!(
        low["message"],
        "1,000 ml left, below the threshold of 1,500 ml."
    );

    let browser = logged_in(&app).await;
    let (status, stock) = page(&browser, &app, "/stock").await;
    assert_eq!(status, 200, "{stock}");
    assert!(stock.contains("Elegoo Standard Grey"), "{stock}");
    assert!(stock.contains("1,000 ml"), "{stock}");
    let (status, dashboard) = page(&browser, &app, "/dashboard").await;
    assert_eq!(status, 200, "{dashboard}");
    assert!(dashboard.contains("1,000 ml / 1,500 ml"), "{dashboard}");
    assert!(dashboard.contains("Resin · 1,000 ml"), "{dashboard}");
    let board: Value = app.get("/api/dashboard").await.json().await.unwrap();
    assert_eq!(
        board["stock"],
        json!([{"kind": "RESIN", "unit": "MILLILITRE", "materials": 1, "quantity": "1000", "low": 1}])
    );

    body["minimumStock"] = json!(null);
    let res = app
        .patch(&format!("/api/materials/{}", id(&resin)), &body)
        .await;
    assert_eq!(res.status(), 200);
}

/// Every figure a shop read before material kinds, read again after the upgrade.
async fn figures(app: &TestApp) -> Vec<Value> {
    let mut read: Vec<Value> = Vec::new();
    for path in [
        "/api/dashboard?period=all",
        "/api/prints?pageSize=100&includeArchived=true",
        "/api/filaments?includeArchived=true",
        "/api/spools?includeArchived=true&pageSize=100",
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 200, "{path}");
        read.push(res.json().await.unwrap());
    }
    let spools = read[3]["items"].as_array().unwrap().clone();
    for spool in spools {
        let path = format!("/api/spools/{}?pageSize=100", id(&spool));
        read.push(app.get(&path).await.json().await.unwrap());
    }
    let prints = read[1]["items"].as_array().unwrap().clone();
    for print in prints {
        read.push(
            app.get(&format!("/api/prints/{}", id(&print)))
                .await
                .json()
                .await
                .unwrap(),
        );
    }
    read
}

/// Rewrites the materials of the store `txn` writes as schemas before 15 stored them (no
/// kind, unit and density: every one of them a filament in grams).
fn as_schema_14_materials(txn: &redb::WriteTransaction) {
    let mut table = txn.open_table(tables::FILAMENTS).unwrap();
    let mut old = Vec::new();
    for entry in table.iter().unwrap() {
        let (key, value) = entry.unwrap();
        let f: Filament = storage::decode("filaments", value.value()).unwrap();
        assert_eq!((f.kind, f.unit), (MaterialKind::Filament, StockUnit::Gram));
        let v14 = legacy::FilamentV14 {
            id: f.id,
            manufacturer_id: f.manufacturer_id,
            material: f.material,
            color_name: f.color_name,
            color_hex: f.color_hex,
            purchase_price: f.purchase_price,
            net_weight_grams: f.net_weight_grams,
            minimum_stock_grams: f.minimum_stock_grams,
            note: f.note,
            archived: f.archived,
            created_at: f.created_at,
            updated_at: f.updated_at,
        };
        old.push((key.value(), storage::encode("filaments", &v14).unwrap()));
    }
    assert!(!old.is_empty());
    for (key, bytes) in old {
        table.insert(key, bytes.as_slice()).unwrap();
    }
}

/// A step back from one schema to the one before, on the records it changed.
type Downgrade = fn(&redb::WriteTransaction);

/// Rewrites the store at `path` as schema `version` (14 to 17) wrote it: every record whose
/// layout changed since, in its layout then, and the version.
fn as_schema(path: &std::path::Path, version: u64) {
    let db = redb::Database::open(path).unwrap();
    let txn = db.begin_write().unwrap();
    let steps: [(u64, Downgrade); 4] = [
        (17, as_schema_17_prints),
        (16, as_schema_16_components),
        (15, as_schema_15_printers),
        (14, as_schema_14_materials),
    ];
    for (before, step) in steps {
        if version <= before {
            step(&txn);
        }
    }
    txn.open_table(tables::META)
        .unwrap()
        .insert("schema_version", version)
        .unwrap();
    txn.commit().unwrap();
}

/// Rewrites the printers of the store `txn` writes as schemas before 16 stored them (no
/// technology; every one of them FDM).
fn as_schema_15_printers(txn: &redb::WriteTransaction) {
    let mut table = txn.open_table(tables::PRINTERS).unwrap();
    let mut old = Vec::new();
    for entry in table.iter().unwrap() {
        let (key, value) = entry.unwrap();
        let p: Printer = storage::decode("printers", value.value()).unwrap();
        assert_eq!(p.technology, PrinterTechnology::Fdm);
        let v15 = legacy::PrinterV15 {
            id: p.id,
            name: p.name,
            manufacturer_id: p.manufacturer_id,
            model: p.model,
            purchase_price: p.purchase_price,
            expected_lifetime_hours: p.expected_lifetime_hours,
            average_power_watts: p.average_power_watts,
            note: p.note,
            archived: p.archived,
            created_at: p.created_at,
            updated_at: p.updated_at,
        };
        old.push((key.value(), storage::encode("printers", &v15).unwrap()));
    }
    for (key, bytes) in old {
        table.insert(key, bytes.as_slice()).unwrap();
    }
}

/// Rewrites the components of the store `txn` writes as schemas before 17 stored them (a
/// lifetime in hours only).
fn as_schema_16_components(txn: &redb::WriteTransaction) {
    let mut table = txn.open_table(tables::COMPONENTS).unwrap();
    let mut old = Vec::new();
    for entry in table.iter().unwrap() {
        let (key, value) = entry.unwrap();
        let c: Component = storage::decode("components", value.value()).unwrap();
        let Lifetime::Hours(hours) = c.lifetime else {
            panic!("a component of an earlier schema counts hours: {c:?}");
        };
        let v16 = legacy::ComponentV16 {
            id: c.id,
            kind: c.kind,
            name: c.name,
            manufacturer_id: c.manufacturer_id,
            model: c.model,
            purchase_price: c.purchase_price,
            expected_lifetime_hours: hours,
            always_used: c.always_used,
            printer_ids: c.printer_ids,
            note: c.note,
            archived: c.archived,
            created_at: c.created_at,
            updated_at: c.updated_at,
        };
        old.push((key.value(), storage::encode("components", &v16).unwrap()));
    }
    assert!(!old.is_empty());
    for (key, bytes) in old {
        table.insert(key, bytes.as_slice()).unwrap();
    }
}

/// Rewrites the prints (and the answers kept for replays) of the store `txn` writes as schemas
/// before 18 stored them (no consumables of their own).
fn as_schema_17_prints(txn: &redb::WriteTransaction) {
    let mut prints = txn.open_table(tables::PRINTS).unwrap();
    let mut old = Vec::new();
    for entry in prints.iter().unwrap() {
        let (key, value) = entry.unwrap();
        let p: Print = storage::decode("prints", value.value()).unwrap();
        old.push((
            key.value(),
            storage::encode("prints", &print_v17(p)).unwrap(),
        ));
    }
    assert!(!old.is_empty());
    for (key, bytes) in old {
        prints.insert(key, bytes.as_slice()).unwrap();
    }
    let mut answers = txn.open_table(tables::PRINT_ANSWERS).unwrap();
    let mut old = Vec::new();
    for entry in answers.iter().unwrap() {
        let (key, value) = entry.unwrap();
        let p: Print = storage::decode("print_answers", value.value()).unwrap();
        old.push((
            key.value(),
            storage::encode("print_answers", &print_v17(p)).unwrap(),
        ));
    }
    for (key, bytes) in old {
        answers.insert(key, bytes.as_slice()).unwrap();
    }
}

/// A print as schema 17 stored it: it must have no consumables of its own.
fn print_v17(p: Print) -> legacy::PrintV17 {
    assert!(
        p.materials.is_empty(),
        "a print of an earlier schema: {p:?}"
    );
    legacy::PrintV17 {
        id: p.id,
        version: p.version,
        name: p.name,
        customer_id: p.customer_id,
        series_id: p.series_id,
        quantity: p.quantity,
        sales_value: p.sales_value,
        notes: p.notes,
        status: p.status,
        paid: p.paid,
        paid_at: p.paid_at,
        archived: p.archived,
        archived_at: p.archived_at,
        parts: p.parts,
        costing: p.costing,
        finalized_at: p.finalized_at,
        printing_started_at: p.printing_started_at,
        printing_ended_at: p.printing_ended_at,
        completed_at: p.completed_at,
        repeat_of_id: p.repeat_of_id,
        retried_from_id: p.retried_from_id,
        retry_ids: p.retry_ids,
        outcome: p.outcome,
        created_at: p.created_at,
        updated_at: p.updated_at,
        work: p.work,
        price: p.price,
    }
}

/// A shop's store of schema 14 (before material kinds) upgrades with every figure unchanged:
/// the projection (prints and their list), the ledger (spools and every movement) and the
/// dashboard read the same before and after, and every material is a filament in grams.
#[actix_web::test]
async fn a_store_of_schema_14_keeps_every_figure() {
    keeps_every_figure(14).await;
}

/// A store of schema 15 (before printer technologies) alike: every printer is an FDM printer.
#[actix_web::test]
async fn a_store_of_schema_15_keeps_every_figure() {
    keeps_every_figure(15).await;
}

/// A store of schema 16 (before lifetimes in prints) alike: every component keeps its hours.
#[actix_web::test]
async fn a_store_of_schema_16_keeps_every_figure() {
    keeps_every_figure(16).await;
}

/// A store of schema 17 (before a print's own consumables) alike: every print has none.
#[actix_web::test]
async fn a_store_of_the_previous_schema_keeps_every_figure() {
    keeps_every_figure(17).await;
}

/// A shop's store, taken back to schema `version` ([`as_schema`]) while the service is
/// stopped, reads the same figures once the service upgrades it.
async fn keeps_every_figure(version: u64) {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path());
    let app = TestApp::attach(&service.base);
    app.setup().await;
    let shop = shop(&app).await;
    let done = app.done(&draft(&shop, "Before the upgrade")).await;
    let res = app
        .post(
            &format!("/api/prints/{}/outcome", id(&done)),
            &outcome(&done, "SUCCESS", 5000, "40.25"),
        )
        .await;
    assert_eq!(res.status(), 200);
    let mut low = draft(&shop, "A draft");
    low["quantity"] = json!(3);
    app.create("/api/prints", &low).await;
    let spool = opening(&app, &shop.filament).await;
    let res = app
        .post(
            &format!("/api/spools/{}/movements", id(&spool)),
            &json!({"kind": "CORRECTION", "grams": "-1.5"}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let before = figures(&app).await;
    assert!(service.terminate().success());

    as_schema(&dir.path().join("printcost.redb"), version);
    let again = Service::start(dir.path());
    let app = TestApp::attach(&again.base);
    app.login().await;
    assert_eq!(figures(&app).await, before);
    let materials: Value = app.get("/api/materials").await.json().await.unwrap();
    for material in materials["items"].as_array().unwrap() {
        assert_eq!(
            (&material["kind"], &material["unit"]),
            (&json!("FILAMENT"), &json!("GRAM"))
        );
    }
    let printers: Value = app.get("/api/printers").await.json().await.unwrap();
    for printer in printers["items"].as_array().unwrap() {
        assert_eq!(printer["technology"], "FDM");
    }
}

/// The materials page in German: a resin and a pack of gloves made through its form, listed
/// with their kind and unit; a form fault beside its field; the bottle's page books in
/// millilitres and the stock page counts pieces in pieces.
#[actix_web::test]
async fn the_materials_page_makes_each_kind_in_german() {
    let (app, client) = signed_in().await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert!(res.status().is_redirection());
    let maker = app.manufacturer("Elegoo").await;
    let resin = [
        ("kind", "RESIN"),
        ("manufacturerId", maker.as_str()),
        ("material", "Standard"),
        ("colorName", "Grau"),
        ("colorHex", "#808080"),
        ("purchasePrice", "39,90"),
        ("netQuantity", "1000"),
        ("densityGramsPerMillilitre", "1,1"),
        ("openingSpool", "on"),
    ];
    let res = submit(&client, &app, "/materials", &resin).await;
    assert_eq!(res.status().as_u16(), 303);
    let gloves = [
        ("kind", "CONSUMABLE"),
        ("manufacturerId", maker.as_str()),
        ("material", "Nitrilhandschuhe"),
        ("purchasePrice", "12"),
        ("netQuantity", "2,5"),
    ];
    let res = submit(&client, &app, "/materials", &gloves).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="unit-fault""#), "{body}");
    let mut gloves = gloves.to_vec();
    gloves[4] = ("netQuantity", "100");
    gloves.push(("unit", "PIECE"));
    gloves.push(("openingSpool", "on"));
    let res = submit(&client, &app, "/materials", &gloves).await;
    assert_eq!(res.status().as_u16(), 303);

    let (status, list) = page(&client, &app, "/materials").await;
    assert_eq!(status, 200, "{list}");
    for shown in [
        "Harz",
        "Verbrauchsmaterial",
        "Elegoo Standard Grau",
        "Stk.",
        "ml",
    ] {
        assert!(list.contains(shown), "{shown} in {list}");
    }
    let (status, stock) = page(&client, &app, "/stock").await;
    assert_eq!(status, 200, "{stock}");
    assert!(stock.contains("100 Stk."), "{stock}");
    assert!(stock.contains("1.000 ml"), "{stock}");

    let bottle: Value = app
        .get("/api/spools?search=Standard")
        .await
        .json()
        .await
        .unwrap();
    let bottle = id(&bottle["items"][0]);
    let (status, spool) = page(&client, &app, &format!("/spools/{bottle}")).await;
    assert_eq!(status, 200, "{spool}");
    assert!(spool.contains(r#"name="millilitres""#), "{spool}");
    let key = key();
    let book = [
        ("kind", "CORRECTION"),
        ("millilitres", "-12,5"),
        ("operationKey", key.as_str()),
    ];
    let res = submit(&client, &app, &format!("/spools/{bottle}/movements"), &book).await;
    assert_eq!(res.status().as_u16(), 303);
    let (_, spool) = page(&client, &app, &format!("/spools/{bottle}")).await;
    assert!(spool.contains("987,5 ml"), "{spool}");

    // A new pack is opened in pieces; a new bottle in millilitres, even from a form drawn for a
    // filament (its quantity field named in grams).
    let listed: Value = app.get("/api/materials").await.json().await.unwrap();
    let named = |material: &str| {
        listed["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["material"] == material)
            .map(id)
            .unwrap()
    };
    let (gloves, resin) = (named("Nitrilhandschuhe"), named("Standard"));
    let (status, form) = page(&client, &app, &format!("/spools/new?filamentId={gloves}")).await;
    assert_eq!(status, 200, "{form}");
    assert!(form.contains(r#"name="initialPieces""#), "{form}");
    assert!(form.contains("Stückzahl"), "{form}");
    let opened = [
        ("filamentId", resin.as_str()),
        ("purchasePrice", "39,90"),
        ("initialNetWeightGrams", "500"),
    ];
    let res = submit(&client, &app, "/spools", &opened).await;
    assert_eq!(res.status().as_u16(), 303);
    let bottles: Value = app
        .get(&format!("/api/spools?filamentId={resin}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(bottles["total"], 2);
    assert!(
        bottles["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["initialQuantity"] == "500" && b["unit"] == "MILLILITRE"),
        "{bottles}"
    );
}
