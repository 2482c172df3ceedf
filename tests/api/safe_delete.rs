//! The safe delete everywhere: every DELETE operation of the OpenAPI document has a case here
//! (a new one without a case fails the walk). A record that another record refers to, by any
//! kind of reference (a print, a series, a spool, a component, a maintenance task, a meter
//! link), answers 409 `REFERENCED`; after the deletes every list and page still answers 200.

use crate::materials;
use crate::support::{TestApp, assert_error, draft, logged_in, page, shop};
use serde_json::{Value, json};

/// The DELETE operations of the document, as `(path template)`.
async fn delete_operations(app: &TestApp) -> Vec<String> {
    let doc: Value = app.get("/api/openapi.json").await.json().await.unwrap();
    let mut found: Vec<String> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| item.get("delete").is_some())
        .map(|(path, _)| path.clone())
        .collect();
    found.sort();
    found
}

#[actix_web::test]
async fn every_delete_refuses_a_referenced_record_and_every_list_answers_after() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let id = |v: &Value| v["id"].as_str().unwrap().to_string();
    let maker = app.manufacturer("Delete Works").await;
    let printer = |name: &str| json!({"name": name, "manufacturerId": maker, "purchasePrice": "500", "expectedLifetimeHours": "5000", "averagePowerWatts": 100});

    // Referrers of every kind.
    let printed = app.create("/api/printers", &printer("Printed on")).await;
    let mut body = draft(&shop, "Referring print");
    body["customerId"] = json!(shop.customer);
    body["parts"][0]["printerId"] = printed["id"].clone();
    app.create("/api/prints", &body).await;
    let maintained = app.create("/api/printers", &printer("Maintained")).await;
    let task = json!({"printerId": id(&maintained), "name": "Oil", "every": {"unit": "DAYS", "count": 30}});
    app.create("/api/maintenance", &task).await;
    let metered = app.create("/api/printers", &printer("Metered")).await;
    let link = json!({"kind": "MQTT", "topic": "tele/plug/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
    let res = app
        .put(&format!("/api/printers/{}/meter", id(&metered)), &link)
        .await;
    assert_eq!(res.status(), 200);
    let free = app.create("/api/printers", &printer("Free")).await;
    let rate = app
        .create(
            "/api/labour-rates",
            &json!({"name": "Sanding", "hourlyRate": "45"}),
        )
        .await;
    let step =
        json!({"name": "Supports", "labourRateId": id(&rate), "minutes": "5", "per": "PIECE"});
    let step = app.create("/api/post-processing-steps", &step).await;
    let charge = json!({"name": "Setup", "amount": "3.50", "per": "JOB"});
    let charge = app.create("/api/charges", &charge).await;
    let mut worked = draft(&shop, "Worked print");
    worked["work"] = json!([
        {"kind": "STEP", "sourceId": id(&step)},
        {"kind": "CHARGE", "sourceId": id(&charge)}
    ]);
    app.create("/api/prints", &worked).await;
    let hook = app
        .create(
            "/api/settings/alerts/webhooks",
            &json!({"name": "ntfy", "url": "http://127.0.0.1:9/a", "form": "NTFY", "kinds": []}),
        )
        .await;

    let mut walked = Vec::new();
    for path in delete_operations(&app).await {
        let at = |id: &str| path.replace("{id}", id);
        match path.as_str() {
            "/api/customers/{id}" => {
                assert_error(app.delete(&at(&shop.customer)).await, 409, "REFERENCED").await;
                let lone = app.create("/api/customers", &json!({"name": "Lone"})).await;
                assert_eq!(app.delete(&at(&id(&lone))).await.status(), 204);
            }
            "/api/manufacturers/{id}" => {
                assert_error(app.delete(&at(&maker)).await, 409, "REFERENCED").await;
                let lone = app.manufacturer("Lone maker").await;
                assert_eq!(app.delete(&at(&lone)).await.status(), 204);
            }
            "/api/printers/{id}" => {
                for referred in [&printed, &maintained, &metered] {
                    assert_error(app.delete(&at(&id(referred))).await, 409, "REFERENCED").await;
                }
                assert_eq!(app.delete(&at(&id(&free))).await.status(), 204);
            }
            "/api/components/{id}" => {
                for referred in [&shop.plate, &shop.hotend] {
                    assert_error(app.delete(&at(referred)).await, 409, "REFERENCED").await;
                }
                let belts_task = json!({"printerId": shop.printer, "componentId": shop.belts, "name": "Belts", "every": {"unit": "PRINTS", "count": 5}});
                app.create("/api/maintenance", &belts_task).await;
                assert_error(app.delete(&at(&shop.belts)).await, 409, "REFERENCED").await;
            }
            "/api/filaments/{id}" => {
                assert_error(app.delete(&at(&shop.filament)).await, 409, "REFERENCED").await;
            }
            "/api/materials/{id}" => {
                // A resin's bottle refers to it; a consumable never stocked is free to go.
                let resin = materials::resin(&app, &maker).await;
                assert_error(app.delete(&at(&id(&resin))).await, 409, "REFERENCED").await;
                let lone = json!({"kind": "CONSUMABLE", "unit": "PIECE", "manufacturerId": maker, "material": "Boxes", "purchasePrice": "5", "netQuantity": "10", "openingSpool": false});
                let lone = app.create("/api/materials", &lone).await;
                assert_eq!(app.delete(&at(&id(&lone))).await.status(), 204);
            }
            "/api/labour-rates/{id}" => {
                assert_error(app.delete(&at(&id(&rate))).await, 409, "REFERENCED").await;
                let lone = json!({"name": "Lone rate", "hourlyRate": "1"});
                let lone = app.create("/api/labour-rates", &lone).await;
                assert_eq!(app.delete(&at(&id(&lone))).await.status(), 204);
            }
            "/api/charges/{id}" => {
                assert_error(app.delete(&at(&id(&charge))).await, 409, "REFERENCED").await;
                let lone = json!({"name": "Lone charge", "amount": "1", "per": "PIECE"});
                let lone = app.create("/api/charges", &lone).await;
                assert_eq!(app.delete(&at(&id(&lone))).await.status(), 204);
            }
            "/api/post-processing-steps/{id}" => {
                assert_error(app.delete(&at(&id(&step))).await, 409, "REFERENCED").await;
                let lone = json!({"name": "Lone step", "labourRateId": id(&rate), "minutes": "1", "per": "JOB"});
                let lone = app.create("/api/post-processing-steps", &lone).await;
                assert_eq!(app.delete(&at(&id(&lone))).await.status(), 204);
            }
            "/api/settings/alerts/webhooks/{id}" => {
                assert_eq!(app.delete(&at(&id(&hook))).await.status(), 204);
            }
            "/api/printers/{id}/meter" => {
                // Unlinking is not a record's delete: it lets the printer go.
                assert_eq!(app.delete(&at(&id(&metered))).await.status(), 204);
                let printers = "/api/printers/{id}".replace("{id}", &id(&metered));
                assert_eq!(app.delete(&printers).await.status(), 204);
            }
            "/api/quotes/{id}" => {
                let mut offered = draft(&shop, "Offered");
                offered["customerId"] = json!(shop.customer);
                offered["salesValue"] = json!("10");
                let offered = app.create("/api/prints", &offered).await;
                let quote = json!({"customerId": shop.customer, "printIds": [id(&offered)], "validUntil": "2099-12-31"});
                let drafted = app.create("/api/quotes", &quote).await;
                assert_eq!(app.delete(&at(&id(&drafted))).await.status(), 204);
                // A sent quote keeps its number: it is declined, never deleted.
                let sent = app.create("/api/quotes", &quote).await;
                let res = app
                    .post(&format!("{}/send", at(&id(&sent))), &json!({}))
                    .await;
                assert_eq!(res.status(), 200);
                assert_error(app.delete(&at(&id(&sent))).await, 409, "INVALID_STATE").await;
            }
            "/api/invoices/{id}" => {
                let mut sold = draft(&shop, "Sold");
                sold["customerId"] = json!(shop.customer);
                sold["salesValue"] = json!("10");
                let sold = app.done(&sold).await;
                let invoice = json!({"customerId": shop.customer, "printIds": [id(&sold)]});
                let drafted = app.create("/api/invoices", &invoice).await;
                assert_eq!(app.delete(&at(&id(&drafted))).await.status(), 204);
                // Its print, billed, cannot go while an invoice names it; it never goes once
                // issued (that takes the company's details: the invoice tests issue one).
                app.create("/api/invoices", &invoice).await;
                let res = app
                    .delete(&format!("/api/customers/{}", shop.customer))
                    .await;
                assert_error(res, 409, "REFERENCED").await;
            }
            "/api/accounts/{id}/sessions/{session}" => {
                // A session is no record anything refers to: ending one is
                // roles::an_owner_sees_and_ends_an_accounts_sessions; an unknown one is 404.
                let session: Value = app.get("/api/auth/session").await.json().await.unwrap();
                let path = at(session["user"]["id"].as_str().unwrap());
                let res = app
                    .delete(&path.replace("{session}", "0000000000000000"))
                    .await;
                assert_error(res, 404, "NOT_FOUND").await;
            }
            other => panic!("DELETE {other} has no case in the safe-delete walk"),
        }
        walked.push(path);
    }
    assert!(walked.len() >= 10, "{walked:?}");

    let browser = logged_in(&app).await;
    for list in [
        "/api/customers",
        "/api/manufacturers",
        "/api/printers",
        "/api/components",
        "/api/filaments",
        "/api/materials",
        "/api/spools",
        "/api/labour-rates",
        "/api/charges",
        "/api/post-processing-steps",
        "/api/prints",
        "/api/maintenance",
        "/api/quotes",
        "/api/invoices",
        "/api/dashboard",
        "/api/settings/alerts",
    ] {
        let res = app.get(list).await;
        assert_eq!(res.status(), 200, "{list}: {}", res.text().await.unwrap());
    }
    for ui in ["/dashboard", "/prints", "/maintenance", "/settings/alerts"] {
        let (status, body) = page(&browser, &app, ui).await;
        assert_eq!(status, 200, "{ui}: {body}");
    }
}
