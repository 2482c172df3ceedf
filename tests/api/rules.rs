//! The rules of prints, outcomes and the ledger at their edges (issue 14), black-box: each test
//! failed on the code before its rule was put in one place.

use crate::outcomes::{self, correction};
use crate::spools::{filament, key, spool};
use crate::support::{TestApp, assert_error, assert_field_error, draft, logged_in, page, shop};
use serde_json::{Value, json};

/// A SUCCESS outcome of `print`'s one usage: 5,400 s and `grams`.
fn outcome(print: &Value, grams: &str) -> Value {
    outcomes::outcome(print, "SUCCESS", 5400, grams)
}

#[actix_web::test]
async fn archiving_freezes_an_outcome_and_a_print_with_an_outcome_stays_done() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = app.done(&draft(&shop, "Frozen")).await;
    let id = print["id"].as_str().unwrap();
    let recorded = app
        .post(&format!("/api/prints/{id}/outcome"), &outcome(&print, "40"))
        .await;
    assert_eq!(recorded.status(), 200);

    for status in ["PRINTING", "PRINTED", "SHIPPED"] {
        let moved = app
            .patch(&format!("/api/prints/{id}"), &json!({"status": status}))
            .await;
        assert_error(moved, 409, "INVALID_STATE").await;
    }

    app.patch(&format!("/api/prints/{id}"), &json!({"archived": true}))
        .await;
    let correct = format!("/api/prints/{id}/outcome/correct");
    let refused = app
        .post(&correct, &correction(&print, "41", 1, &key()))
        .await;
    assert_error(refused, 409, "INVALID_STATE").await;

    app.patch(&format!("/api/prints/{id}"), &json!({"archived": false}))
        .await;
    let thawed = app
        .post(&correct, &correction(&print, "41", 1, &key()))
        .await;
    assert_eq!(thawed.status(), 200);
    let after: Value = app
        .get(&format!("/api/prints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(after["status"], "DONE");
    assert_eq!(after["outcome"]["revision"], 2);
}

#[actix_web::test]
async fn a_replay_answers_the_body_of_the_first_call() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = app.done(&draft(&shop, "Replayed")).await;
    let id = print["id"].as_str().unwrap();
    let outcome_path = format!("/api/prints/{id}/outcome");
    let first = app.post(&outcome_path, &outcome(&print, "40")).await;
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.unwrap();

    let correct = format!("/api/prints/{id}/outcome/correct");
    let key1 = key();
    let corrected = app
        .post(&correct, &correction(&print, "41", 1, &key1))
        .await;
    assert_eq!(corrected.status(), 200);
    let corrected: Value = corrected.json().await.unwrap();
    let again = app
        .post(&correct, &correction(&print, "43", 2, &key()))
        .await;
    assert_eq!(again.status(), 200);

    let replayed = app.post(&outcome_path, &outcome(&print, "40")).await;
    assert_eq!(replayed.status(), 200);
    assert_eq!(replayed.json::<Value>().await.unwrap(), first);
    let replayed = app
        .post(&correct, &correction(&print, "41", 1, &key1))
        .await;
    assert_eq!(replayed.status(), 200);
    assert_eq!(replayed.json::<Value>().await.unwrap(), corrected);
}

async fn archive(app: &TestApp, spool: &str) {
    let res = app
        .post(
            &format!("/api/spools/{spool}/archive"),
            &json!({"archived": true}),
        )
        .await;
    assert_eq!(res.status(), 200);
}

#[actix_web::test]
async fn copies_never_fail_for_their_source_spool() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = app.create("/api/prints", &draft(&shop, "Copied")).await;
    let id = print["id"].as_str().unwrap();
    let source_spool = print["usages"][0]["spoolId"].as_str().unwrap().to_string();
    let small = spool(&app, &shop.filament, "SMALL", "10", "200").await;
    let large = spool(&app, &shop.filament, "LARGE", "30", "3000").await;
    archive(&app, &source_spool).await;

    let copy = app
        .create(&format!("/api/prints/{id}/duplicate"), &json!({}))
        .await;
    assert_eq!(
        copy["usages"][0]["spoolId"], large["id"],
        "the active spool with the most grams left"
    );

    for spool in [&small, &large] {
        archive(&app, spool["id"].as_str().unwrap()).await;
    }
    let copy = app
        .create(&format!("/api/prints/{id}/duplicate"), &json!({}))
        .await;
    assert_eq!(copy["status"], "DRAFT");
    assert_eq!(copy["usages"][0]["spoolId"], Value::Null);
    let copy_id = copy["id"].as_str().unwrap();
    // Starting it asks for a spool at the line.
    let started = app
        .patch(
            &format!("/api/prints/{copy_id}"),
            &json!({"status": "PRINTING"}),
        )
        .await;
    assert_field_error(
        started,
        "parts[0].filaments[0].spoolId",
        "errors.noActiveSpool",
    )
    .await;
    // The editor explains it beside the line.
    let browser = logged_in(&app).await;
    let (status, html) = page(&browser, &app, &format!("/prints/{copy_id}/edit")).await;
    assert_eq!(status, 200);
    assert!(html.contains(NO_ACTIVE_SPOOL), "{html}");
}

/// `errors.noActiveSpool` in en-US.
const NO_ACTIVE_SPOOL: &str = "No active spool for this filament.";

#[actix_web::test]
async fn an_opening_receipt_obeys_the_ledgers_limits() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let filament = filament(&app).await;
    let body = json!({"code": "HUGE", "filamentId": filament, "purchasePrice": "20", "initialNetWeightGrams": "1000000000000", "acquiredAt": "2026-11-01"});
    let res = app.post("/api/spools", &body).await;
    assert_field_error(res, "initialNetWeightGrams", "errors.outOfRange").await;
    let body = json!({"code": "FINE", "filamentId": filament, "purchasePrice": "20", "initialNetWeightGrams": "1.0000001", "acquiredAt": "2026-11-01"});
    let res = app.post("/api/spools", &body).await;
    assert_field_error(res, "initialNetWeightGrams", "errors.outOfRange").await;
    let maker = app.manufacturer("Limits").await;
    let body = json!({"manufacturerId": maker, "material": "PLA", "colorName": "Huge", "colorHex": "#000000", "purchasePrice": "20", "netWeightGrams": "1000000000000"});
    let res = app.post("/api/filaments", &body).await;
    assert_field_error(res, "netWeightGrams", "errors.outOfRange").await;
    let widest = json!({"code": "WIDEST", "filamentId": filament, "purchasePrice": "20", "initialNetWeightGrams": "999999999999.999999", "acquiredAt": "2026-11-01"});
    let created = app.create("/api/spools", &widest).await;
    assert_eq!(created["remainingGrams"], "999999999999.999999");
}
