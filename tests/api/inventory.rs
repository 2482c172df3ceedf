//! Customers, manufacturers, printers, components and filaments: every route, list behaviour,
//! references, uniqueness, stock.

use crate::support::{TestApp, assert_error, assert_field_error};
use serde_json::{Value, json};

fn printer(manufacturer_id: &str) -> Value {
    json!({
        "name": "Original Prusa MK4S",
        "manufacturerId": manufacturer_id,
        "model": "MK4S",
        "purchasePrice": "1200.00",
        "expectedLifetimeHours": "6000",
        "averagePowerWatts": 120
    })
}

fn filament(manufacturer_id: &str, color: &str) -> Value {
    json!({
        "manufacturerId": manufacturer_id,
        "material": "PLA",
        "colorName": color,
        "colorHex": "#3d3d3d",
        "purchasePrice": "29.99",
        "netWeightGrams": "1000"
    })
}

#[actix_web::test]
async fn customers_full_lifecycle() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let jane = app
        .create(
            "/api/customers",
            &json!({"name": "Jane Doe", "email": "jane@example.com", "note": "pays fast"}),
        )
        .await;
    assert_eq!(jane["excludeFromDashboard"], false);
    assert_eq!(jane["archived"], false);
    assert!(jane["createdAt"].as_str().unwrap().ends_with('Z'));
    let id = jane["id"].as_str().unwrap();
    assert_eq!(id.len(), 36);
    assert_eq!(&id[14..15], "7", "UUID v7");

    let fetched: Value = app
        .get(&format!("/api/customers/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fetched, jane);

    let replaced = app
        .patch(
            &format!("/api/customers/{id}"),
            &json!({"name": "Jane D.", "excludeFromDashboard": true}),
        )
        .await;
    assert_eq!(replaced.status(), 200);
    let replaced: Value = replaced.json().await.unwrap();
    assert_eq!(replaced["name"], "Jane D.");
    assert_eq!(
        replaced["email"],
        Value::Null,
        "full replace clears omitted optional fields"
    );
    assert_eq!(replaced["excludeFromDashboard"], true);

    let read_only = app
        .patch(
            &format!("/api/customers/{id}"),
            &json!({"name": "x", "id": id}),
        )
        .await;
    assert_field_error(read_only, "id", "errors.unknownField").await;
    assert_field_error(
        app.post("/api/customers", &json!({"name": "x", "email": "nope"}))
            .await,
        "email",
        "errors.invalidEmail",
    )
    .await;

    let archived = app
        .patch(&format!("/api/customers/{id}"), &json!({"archived": true}))
        .await;
    assert_eq!(archived.status(), 200);
    let archived: Value = archived.json().await.unwrap();
    assert_eq!(archived["archived"], true);
    assert_eq!(
        archived["name"], "Jane D.",
        "archive alone keeps the fields"
    );

    let list: Value = app.get("/api/customers").await.json().await.unwrap();
    assert_eq!(list["total"], 0);
    let list: Value = app
        .get("/api/customers?includeArchived=true")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1);

    assert_eq!(
        app.delete(&format!("/api/customers/{id}")).await.status(),
        204
    );
    assert_error(
        app.get(&format!("/api/customers/{id}")).await,
        404,
        "NOT_FOUND",
    )
    .await;
    assert_error(
        app.delete(&format!("/api/customers/{id}")).await,
        404,
        "NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn lists_filter_before_they_paginate() {
    let app = TestApp::spawn().await;
    app.setup().await;
    for name in ["Delta", "alpha", "Charlie", "bravo", "Echo Alpha"] {
        app.create("/api/customers", &json!({"name": name})).await;
    }
    let page: Value = app
        .get("/api/customers?page=2&pageSize=2")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["total"], 5);
    assert_eq!(page["page"], 2);
    assert_eq!(page["pageSize"], 2);
    let names: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Charlie", "Delta"],
        "sorted by name, case-insensitive"
    );

    let search: Value = app
        .get("/api/customers?search=ALPHA&pageSize=1")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(search["total"], 2, "total counts every match");
    assert_eq!(search["items"].as_array().unwrap().len(), 1);
    let beyond: Value = app.get("/api/customers?page=9").await.json().await.unwrap();
    assert_eq!(beyond["total"], 5);
    assert!(beyond["items"].as_array().unwrap().is_empty());
}

#[actix_web::test]
async fn manufacturer_names_are_unique_and_referenced_ones_stay() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let prusa = app.manufacturer("Prusa Research").await;
    let duplicate = app
        .post("/api/manufacturers", &json!({"name": " prusa research "}))
        .await;
    let body = assert_error(duplicate, 409, "DUPLICATE").await;
    assert_eq!(body["data"]["fieldErrors"][0]["path"], "name");

    let bambu = app.manufacturer("Bambu Lab").await;
    let rename = app
        .patch(
            &format!("/api/manufacturers/{bambu}"),
            &json!({"name": "Prusa Research"}),
        )
        .await;
    assert_error(rename, 409, "DUPLICATE").await;
    let rename = app
        .patch(
            &format!("/api/manufacturers/{bambu}"),
            &json!({"name": "Bambu Lab Inc.", "note": "Shenzhen"}),
        )
        .await;
    assert_eq!(rename.status(), 200);
    app.manufacturer("Bambu Lab").await;

    app.create("/api/printers", &printer(&prusa)).await;
    assert_error(
        app.delete(&format!("/api/manufacturers/{prusa}")).await,
        409,
        "REFERENCED",
    )
    .await;
    assert_eq!(
        app.get(&format!("/api/manufacturers/{prusa}"))
            .await
            .status(),
        200
    );
    assert_eq!(
        app.delete(&format!("/api/manufacturers/{bambu}"))
            .await
            .status(),
        204
    );
    app.manufacturer("Bambu Lab Inc.").await;
}

#[actix_web::test]
async fn printers_resolve_legacy_manufacturer_names_and_show_the_hourly_rate() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let prusa = app.manufacturer("Prusa Research").await;
    let mk4 = app.create("/api/printers", &printer(&prusa)).await;
    assert_eq!(mk4["manufacturerId"], prusa.as_str());
    assert_eq!(mk4["manufacturer"], "Prusa Research");
    assert_eq!(mk4["purchasePrice"], "1200");
    assert_eq!(mk4["hourlyRate"], "0.2");
    assert_eq!(mk4["averagePowerWatts"], 120);

    let mut legacy = printer(&prusa);
    legacy.as_object_mut().unwrap().remove("manufacturerId");
    legacy["manufacturer"] = json!("prusa research");
    let same = app.create("/api/printers", &legacy).await;
    assert_eq!(
        same["manufacturerId"],
        prusa.as_str(),
        "resolves the existing manufacturer"
    );
    legacy["manufacturer"] = json!("Creality");
    let created = app.create("/api/printers", &legacy).await;
    let makers: Value = app
        .get("/api/manufacturers?search=creality")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(makers["total"], 1);
    assert_eq!(created["manufacturerId"], makers["items"][0]["id"]);

    let mut neither = printer(&prusa);
    neither.as_object_mut().unwrap().remove("manufacturerId");
    assert_field_error(
        app.post("/api/printers", &neither).await,
        "manufacturerId",
        "errors.required",
    )
    .await;
    let mut hungry = printer(&prusa);
    hungry["averagePowerWatts"] = json!(100_001);
    assert_field_error(
        app.post("/api/printers", &hungry).await,
        "averagePowerWatts",
        "errors.outOfRange",
    )
    .await;
    let unknown = printer("01a1fca8-547d-7442-9d4e-aa020ca898c4");
    assert_field_error(
        app.post("/api/printers", &unknown).await,
        "manufacturerId",
        "errors.notFound",
    )
    .await;
    let mut zero = printer(&prusa);
    zero["expectedLifetimeHours"] = json!("0");
    assert_field_error(
        app.post("/api/printers", &zero).await,
        "expectedLifetimeHours",
        "errors.notPositive",
    )
    .await;
    let mut watts = printer(&prusa);
    watts["averagePowerWatts"] = json!(-5);
    assert_field_error(
        app.post("/api/printers", &watts).await,
        "averagePowerWatts",
        "errors.invalidValue",
    )
    .await;

    let id = mk4["id"].as_str().unwrap();
    let mut edit = printer(&prusa);
    edit["purchasePrice"] = json!("1500");
    let edited: Value = app
        .patch(&format!("/api/printers/{id}"), &edit)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(edited["hourlyRate"], "0.25");
    let list: Value = app
        .get("/api/printers?search=creality")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1, "search covers the manufacturer name");
    app.patch(
        &format!("/api/manufacturers/{prusa}"),
        &json!({"archived": true}),
    )
    .await;
    assert_field_error(
        app.post("/api/printers", &printer(&prusa)).await,
        "manufacturerId",
        "errors.archived",
    )
    .await;
    assert_eq!(
        app.delete(&format!("/api/printers/{id}")).await.status(),
        204
    );
}

#[actix_web::test]
async fn components_reference_printers_and_filter() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let prusa = app.manufacturer("Prusa Research").await;
    let mk4 = app.create("/api/printers", &printer(&prusa)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let hotend = app
        .create(
            "/api/components",
            &json!({"type": "HOTEND", "name": "Nextruder 0.4", "manufacturerId": prusa, "purchasePrice": "100", "expectedLifetimeHours": "2000", "printerIds": [mk4, mk4]}),
        )
        .await;
    assert_eq!(hotend["type"], "HOTEND");
    assert_eq!(hotend["manufacturer"], "Prusa Research");
    assert_eq!(hotend["printerIds"], json!([mk4]), "duplicates folded");
    assert_eq!(hotend["alwaysUsed"], false);
    app.create(
        "/api/components",
        &json!({"type": "OTHER", "name": "Belts", "purchasePrice": "45", "expectedLifetimeHours": "3000", "alwaysUsed": true}),
    )
    .await;
    app.create(
        "/api/components",
        &json!({"type": "BUILD_PLATE", "name": "Satin sheet", "purchasePrice": "60", "expectedLifetimeHours": "1200", "printerIds": [mk4]}),
    )
    .await;

    let hotends: Value = app
        .get("/api/components?type=HOTEND")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(hotends["total"], 1);
    let fitting: Value = app
        .get(&format!("/api/components?printerId={mk4}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fitting["total"], 2);
    let always: Value = app
        .get("/api/components?alwaysUsed=true")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(always["total"], 1);
    assert_eq!(always["items"][0]["manufacturerId"], Value::Null);
    assert_field_error(
        app.get("/api/components?type=NOZZLE").await,
        "type",
        "errors.invalidValue",
    )
    .await;
    assert_field_error(
        app.get("/api/components?printerId=abc").await,
        "printerId",
        "errors.invalidId",
    )
    .await;

    let bad_type = app.post("/api/components", &json!({"type": "NOZZLE", "name": "x", "purchasePrice": "1", "expectedLifetimeHours": "1"})).await;
    assert_field_error(bad_type, "type", "errors.invalidValue").await;
    let ghost = app
        .post(
            "/api/components",
            &json!({"type": "HOTEND", "name": "x", "purchasePrice": "1", "expectedLifetimeHours": "1", "printerIds": [mk4, "01a1fca8-547d-7442-9d4e-aa020ca898c4"]}),
        )
        .await;
    assert_field_error(ghost, "printerIds[1]", "errors.notFound").await;

    assert_error(
        app.delete(&format!("/api/printers/{mk4}")).await,
        409,
        "REFERENCED",
    )
    .await;
    let hotend_id = hotend["id"].as_str().unwrap();
    let unlinked = app
        .patch(&format!("/api/components/{hotend_id}"), &json!({"type": "HOTEND", "name": "Nextruder 0.4", "purchasePrice": "100", "expectedLifetimeHours": "2000"}))
        .await;
    assert_eq!(unlinked.status(), 200);
    let fitting: Value = app
        .get(&format!("/api/components?printerId={mk4}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fitting["total"], 1, "replace dropped the printer link");
}

/// A set-up box with the manufacturer Prusament and its filament Galaxy Black.
async fn galaxy_black() -> (TestApp, String, Value) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let prusa = app.manufacturer("Prusament").await;
    let black = app
        .create("/api/filaments", &filament(&prusa, "Galaxy Black"))
        .await;
    (app, prusa, black)
}

#[actix_web::test]
async fn filaments_derive_their_name_and_refuse_bad_values() {
    let (app, prusa, black) = galaxy_black().await;
    assert_eq!(black["name"], "Prusament PLA Galaxy Black");
    assert_eq!(black["colorHex"], "#3D3D3D");
    assert_eq!(black["manufacturer"], "Prusament");
    assert_eq!(black["purchasePrice"], "29.99");
    assert_eq!(black["minimumStockGrams"], Value::Null);

    let mut bad = filament(&prusa, "Red");
    bad["colorHex"] = json!("red");
    assert_field_error(
        app.post("/api/filaments", &bad).await,
        "colorHex",
        "errors.invalidColor",
    )
    .await;
    let mut number = filament(&prusa, "Red");
    number["purchasePrice"] = json!(29.99);
    assert_field_error(
        app.post("/api/filaments", &number).await,
        "purchasePrice",
        "errors.invalidType",
    )
    .await;
    let mut exponent = filament(&prusa, "Red");
    exponent["netWeightGrams"] = json!("1e3");
    assert_field_error(
        app.post("/api/filaments", &exponent).await,
        "netWeightGrams",
        "errors.invalidDecimal",
    )
    .await;
}

#[actix_web::test]
async fn filaments_keep_a_stock_threshold_while_spool_management_is_on() {
    let (app, _, black) = galaxy_black().await;
    let id = black["id"].as_str().unwrap();
    let stock: Value = app
        .get(&format!("/api/filaments/{id}/stock"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        stock,
        json!({"filamentId": id, "activeTotalGrams": "1000", "minimumStockGrams": null, "belowMinimum": false}),
        "a new filament gets its opening spool while spool management is on"
    );
    let set = app
        .patch(
            &format!("/api/filaments/{id}/stock"),
            &json!({"minimumStockGrams": "1500.0"}),
        )
        .await;
    assert_eq!(set.status(), 200);
    let stock: Value = set.json().await.unwrap();
    assert_eq!(stock["minimumStockGrams"], "1500");
    assert_eq!(stock["belowMinimum"], true);
    let fetched: Value = app
        .get(&format!("/api/filaments/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fetched["minimumStockGrams"], "1500");
    assert_error(
        app.get("/api/filaments/01a1fca8-547d-7442-9d4e-aa020ca898c4/stock")
            .await,
        404,
        "NOT_FOUND",
    )
    .await;

    app.patch(
        "/api/settings/features",
        &json!({"spoolManagementEnabled": false}),
    )
    .await;
    assert_error(
        app.get(&format!("/api/filaments/{id}/stock")).await,
        409,
        "SPOOL_MANAGEMENT_DISABLED",
    )
    .await;
    let refused = app
        .patch(
            &format!("/api/filaments/{id}/stock"),
            &json!({"minimumStockGrams": "1"}),
        )
        .await;
    assert_error(refused, 409, "SPOOL_MANAGEMENT_DISABLED").await;
}

#[actix_web::test]
async fn filaments_are_found_by_name_and_deleted_only_when_unused() {
    let (app, prusa, black) = galaxy_black().await;
    let id = black["id"].as_str().unwrap();
    app.patch(
        "/api/settings/features",
        &json!({"spoolManagementEnabled": false}),
    )
    .await;
    let search: Value = app
        .get("/api/filaments?search=galaxy")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(search["total"], 1);
    assert_error(
        app.delete(&format!("/api/manufacturers/{prusa}")).await,
        409,
        "REFERENCED",
    )
    .await;
    assert_error(
        app.delete(&format!("/api/filaments/{id}")).await,
        409,
        "REFERENCED",
    )
    .await;
    let unstocked = app
        .create(
            "/api/filaments",
            &filament(&prusa, "Made while spools are off"),
        )
        .await;
    let unstocked = unstocked["id"].as_str().unwrap();
    assert_eq!(
        app.delete(&format!("/api/filaments/{unstocked}"))
            .await
            .status(),
        204,
        "a filament without spools or prints can go"
    );
}

#[actix_web::test]
async fn a_legacy_name_of_an_archived_manufacturer_restores_it() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let prusa = app.manufacturer("Prusa Research").await;
    let archive = json!({"archived": true});
    let res = app
        .patch(&format!("/api/manufacturers/{prusa}"), &archive)
        .await;
    assert_eq!(res.status(), 200);
    let mut legacy = printer(&prusa);
    legacy.as_object_mut().unwrap().remove("manufacturerId");
    legacy["manufacturer"] = json!("PRUSA research");
    let made = app.create("/api/printers", &legacy).await;
    assert_eq!(
        made["manufacturerId"],
        prusa.as_str(),
        "the one of that name"
    );
    let maker: Value = app
        .get(&format!("/api/manufacturers/{prusa}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(maker["archived"], false, "active again");
}

/// Issue 46: what a quote and an invoice need of a customer, in one place, each validated.
#[actix_web::test]
async fn a_customer_carries_its_billing_details_each_checked_at_its_field() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let body = json!({
        "name": "Stadt Musterhausen",
        "address": {"street": "Rathausplatz 1", "postalCode": "12345", "city": "Musterhausen", "country": "de"},
        "vatId": "de 123 456 789",
        "buyerReference": "991-12345-67",
        "invoiceEmail": "rechnung@musterhausen.de",
        "language": "de-DE",
        "paymentTermsDays": 30
    });
    let created = app.create("/api/customers", &body).await;
    assert_eq!(created["address"]["country"], "DE");
    assert_eq!(created["vatId"], "DE123456789");
    assert_eq!(created["buyerReference"], "991-12345-67");
    assert_eq!(created["paymentTermsDays"], 30);
    let again = app
        .json(&format!(
            "/api/customers/{}",
            created["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(again["address"], created["address"]);

    for (change, path, key) in [
        (
            json!({"address": {"street": "A", "postalCode": "1", "city": "B", "country": "XX"}}),
            "address.country",
            "errors.invalidCountry",
        ),
        (
            json!({"address": {"street": "A", "postalCode": "1", "country": "DE"}}),
            "address.city",
            "errors.required",
        ),
        (json!({"vatId": "D1"}), "vatId", "errors.invalidVatId"),
        (
            json!({"vatId": "DÉ123456789"}),
            "vatId",
            "errors.invalidVatId",
        ),
        (
            json!({"language": "fr-FR"}),
            "language",
            "errors.unsupportedLocale",
        ),
        (
            json!({"paymentTermsDays": 366}),
            "paymentTermsDays",
            "errors.outOfRange",
        ),
    ] {
        let mut bad = json!({"name": "Bad"});
        for (k, v) in change.as_object().unwrap() {
            bad[k] = v.clone();
        }
        let res = app.post("/api/customers", &bad).await;
        assert_field_error(res, path, key).await;
    }
}

/// A filament created with `openingSpool: false` gets no catalog spool (its first roll is
/// received as a spool, and counts once); without the field it gets one, as before it was asked.
#[actix_web::test]
async fn a_filament_asked_for_no_opening_spool_counts_its_first_roll_once() {
    let (app, prusa, _) = galaxy_black().await;
    let mut body = filament(&prusa, "Jet Black");
    body["openingSpool"] = json!(false);
    let jet = app.create("/api/filaments", &body).await;
    let id = jet["id"].as_str().unwrap();
    let path = format!("/api/filaments/{id}/stock");
    assert_eq!(
        app.json(&path).await["activeTotalGrams"],
        "0",
        "no phantom spool"
    );
    let roll = json!({"code": "JET-1", "filamentId": id, "purchasePrice": "8.50", "initialNetWeightGrams": "338"});
    app.create("/api/spools", &roll).await;
    assert_eq!(
        app.json(&path).await["activeTotalGrams"],
        "338",
        "the one real roll, once"
    );
}

/// Archiving a filament archives its untouched spools with it (its catalog spool, a roll never
/// opened): an archived filament leaves no phantom stock. A spool with movements keeps its real
/// grams until it is archived itself; restoring the filament restores none.
#[actix_web::test]
async fn an_archived_filament_takes_its_untouched_spools_with_it() {
    let (app, _, black) = galaxy_black().await;
    let id = black["id"].as_str().unwrap();
    let path = format!("/api/spools?filamentId={id}&includeArchived=true&pageSize=100");
    let opening = app.json(&path).await["items"].as_array().unwrap().clone();
    assert_eq!(opening.len(), 1, "the catalog spool it was made with");
    let used = json!({"code": "USED-1", "filamentId": id, "purchasePrice": "20", "initialNetWeightGrams": "1000"});
    let used = app.create("/api/spools", &used).await;
    let used_id = used["id"].as_str().unwrap();
    let movement = json!({"kind": "CORRECTION", "grams": "-100", "note": "Weighed"});
    let res = app
        .post(&format!("/api/spools/{used_id}/movements"), &movement)
        .await;
    assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());

    let res = app
        .patch(&format!("/api/filaments/{id}"), &json!({"archived": true}))
        .await;
    assert_eq!(res.status(), 200);
    let after = app.json(&path).await["items"].as_array().unwrap().clone();
    let archived = |code: &str| {
        after
            .iter()
            .find(|s| s["code"] == code)
            .map(|s| s["archived"].clone())
            .unwrap()
    };
    assert_eq!(archived(opening[0]["code"].as_str().unwrap()), true);
    assert_eq!(archived("USED-1"), false, "real grams stay in stock");
}
