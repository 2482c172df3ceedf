//! The whole error body of every code a request can provoke cheaply, pinned as a snapshot
//! (`tests/api/snapshots/`): status, code, message key, English message and field errors. The
//! request id is checked against the response header, then replaced by a placeholder.

use crate::support::{EMAIL, TestApp, setup_body};
use crate::support::{draft, shop};
use reqwest::Response;
use serde_json::{Value, json};

/// The body of `res`, with its request id checked and replaced.
async fn pinned(res: Response) -> Value {
    let header = res.headers()["x-request-id"].to_str().unwrap().to_string();
    let mut body: Value = res.json().await.unwrap();
    assert_eq!(body["data"]["requestId"], header.as_str());
    body["data"]["requestId"] = json!("[request id]");
    body
}

#[actix_web::test]
async fn session_and_origin_errors() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let anonymous = reqwest::Client::new();
    let res = anonymous.get(app.url("/api/prints")).send().await.unwrap();
    insta::assert_json_snapshot!("unauthenticated", pinned(res).await);
    let login = json!({"email": EMAIL, "password": "wrong password, surely"});
    let res = anonymous
        .post(app.url("/api/auth/login"))
        .header("Origin", app.url(""))
        .json(&login)
        .send()
        .await
        .unwrap();
    insta::assert_json_snapshot!("invalid_credentials", pinned(res).await);
    let res = anonymous
        .post(app.url("/api/auth/login"))
        .header("Origin", "http://elsewhere.example")
        .json(&login)
        .send()
        .await
        .unwrap();
    insta::assert_json_snapshot!("forbidden_origin", pinned(res).await);
    let res = app.post("/api/auth/setup", &setup_body()).await;
    insta::assert_json_snapshot!("setup_completed", pinned(res).await);
}

#[actix_web::test]
async fn validation_and_lookup_errors() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let res = app
        .get("/api/prints/0190c3d2-7a8b-7c9d-8e0f-112233445566")
        .await;
    insta::assert_json_snapshot!("not_found", pinned(res).await);
    let res = app
        .post("/api/customers", &json!({"name": " ", "nickname": "x"}))
        .await;
    insta::assert_json_snapshot!("validation_failed_body", pinned(res).await);
    let res = app
        .get("/api/components?pageSize=0&type=GEAR&extra=1")
        .await;
    insta::assert_json_snapshot!("validation_failed_query", pinned(res).await);
    app.create("/api/manufacturers", &json!({"name": "Prusa"}))
        .await;
    let res = app
        .post("/api/manufacturers", &json!({"name": "prusa"}))
        .await;
    insta::assert_json_snapshot!("duplicate", pinned(res).await);
}

#[actix_web::test]
async fn rule_errors() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = app.create("/api/prints", &draft(&shop, "Pinned")).await;
    let id = print["id"].as_str().unwrap();

    let mut customers = draft(&shop, "Customer's");
    customers["customerId"] = json!(shop.customer);
    app.create("/api/prints", &customers).await;
    let res = app
        .delete(&format!("/api/customers/{}", shop.customer))
        .await;
    insta::assert_json_snapshot!("referenced", pinned(res).await);

    let settings = json!({"currency": "USD", "defaultLanguage": "en-US", "electricityPrice": "0.32", "spoolManagementEnabled": true});
    let res = app.patch("/api/settings", &settings).await;
    insta::assert_json_snapshot!("currency_locked", pinned(res).await);

    let res = app.get(&format!("/api/prints/{id}/report")).await;
    insta::assert_json_snapshot!("report_not_allowed", pinned(res).await);
    let res = app
        .post(&format!("/api/prints/{id}/retry"), &json!({}))
        .await;
    insta::assert_json_snapshot!("invalid_state", pinned(res).await);

    app.patch(&format!("/api/prints/{id}"), &json!({"status": "PRINTING"}))
        .await;
    let res = app
        .patch(&format!("/api/prints/{id}"), &json!({"status": "DRAFT"}))
        .await;
    insta::assert_json_snapshot!("immutable", pinned(res).await);

    let spools: Value = app
        .get(&format!("/api/spools?filamentId={}", shop.filament))
        .await
        .json()
        .await
        .unwrap();
    let spool = spools["items"][0]["id"].as_str().unwrap();
    let key = "0190c3d2-7a8b-7c9d-8e0f-aabbccddeeff";
    let path = format!("/api/spools/{spool}/movements");
    let receipt = json!({"kind": "RECEIPT", "grams": "10", "operationKey": key});
    assert_eq!(app.post(&path, &receipt).await.status(), 201);
    let other = json!({"kind": "RECEIPT", "grams": "11", "operationKey": key});
    let res = app.post(&path, &other).await;
    insta::assert_json_snapshot!("operation_key_reused", pinned(res).await);

    let off = json!({"spoolManagementEnabled": false, "printSeriesEnabled": false});
    app.patch("/api/settings/features", &off).await;
    let res = app.get("/api/spools").await;
    insta::assert_json_snapshot!("spool_management_disabled", pinned(res).await);
    let res = app.get("/api/series").await;
    insta::assert_json_snapshot!("print_series_disabled", pinned(res).await);
}
