//! Outcomes, corrections and retries over HTTP, with their stock bookings.

use crate::support::{TestApp, assert_error, assert_field_error};
use crate::support::{draft, part, shop};
use serde_json::{Value, json};

async fn done_print(app: &TestApp, body: Value) -> Value {
    let print = app.create("/api/prints", &body).await;
    let id = print["id"].as_str().unwrap();
    let done: Value = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(done["status"], "DONE");
    done
}

pub fn outcome(print: &Value, status: &str, seconds: u32, grams: &str) -> Value {
    let filaments: Vec<Value> = print["usages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| json!({"usageId": u["id"], "usedGrams": grams}))
        .collect();
    let mut body = json!({"status": status, "durationSeconds": seconds, "filaments": filaments});
    if status == "FAILED" {
        body["failureReason"] = json!("Warped off the plate");
    }
    body
}

/// A SUCCESS correction of `print` to `grams` of revision `revision` under operation key `key`.
pub fn correction(print: &Value, grams: &str, revision: u32, key: &str) -> Value {
    let mut body = outcome(print, "SUCCESS", 5400, grams);
    body["correctionNote"] = json!("Weighed the leftovers");
    body["expectedRevision"] = json!(revision);
    body["operationKey"] = json!(key);
    body
}

async fn spool_remaining(app: &TestApp, print: &Value) -> String {
    let spool = print["usages"][0]["spoolId"].as_str().unwrap();
    let detail: Value = app
        .get(&format!("/api/spools/{spool}"))
        .await
        .json()
        .await
        .unwrap();
    detail["spool"]["remainingGrams"]
        .as_str()
        .unwrap()
        .to_string()
}

#[actix_web::test]
async fn an_outcome_books_consumption_once_and_prices_the_actuals() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Outcome");
    body["salesValue"] = json!("10");
    let print = done_print(&app, body).await;
    let id = print["id"].as_str().unwrap();
    assert_eq!(spool_remaining(&app, &print).await, "1000");

    let res = app
        .post(
            &format!("/api/prints/{id}/outcome"),
            &outcome(&print, "SUCCESS", 2700, "40"),
        )
        .await;
    assert_eq!(res.status(), 200);
    let recorded: Value = res.json().await.unwrap();
    // Half the time at the frozen rates: (0.3 + 0.075 + 0.075 + 0.0576) / 2 = 0.2538; 40 g of
    // 29.99 / 1000 g = 1.1996.
    assert_eq!(recorded["actualCost"], "1.4534");
    assert_eq!(recorded["totalCost"], "1.782175", "the plan stays");
    assert_eq!(recorded["outcome"]["status"], "SUCCESS");
    assert_eq!(recorded["outcome"]["revision"], 1);
    assert_eq!(recorded["financials"]["realizedRevenue"], "10");
    assert_eq!(recorded["financials"]["realizedMargin"], "8.5466");
    assert_eq!(recorded["failedCost"], Value::Null);
    assert_eq!(spool_remaining(&app, &print).await, "960");

    let again = app
        .post(
            &format!("/api/prints/{id}/outcome"),
            &outcome(&print, "SUCCESS", 2700, "40"),
        )
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(
        again.json::<Value>().await.unwrap(),
        recorded,
        "an identical repeat answers the same"
    );
    assert_eq!(
        spool_remaining(&app, &print).await,
        "960",
        "and books nothing"
    );
    assert_error(
        app.post(
            &format!("/api/prints/{id}/outcome"),
            &outcome(&print, "SUCCESS", 2700, "41"),
        )
        .await,
        409,
        "OUTCOME_CONFLICT",
    )
    .await;

    let list: Value = app
        .get("/api/prints?outcome=SUCCESS")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 1);
    let pending: Value = app
        .get("/api/prints?outcome=PENDING")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(pending["total"], 0);

    let csv = app.get("/api/prints/export").await.text().await.unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[12], "SUCCESS");
    assert_eq!(&row[14], "2700");
    assert_eq!(&row[15], "1.4534");
    assert!(row[18].starts_with("SP-"), "spool codes");
    assert_eq!(&row[21], "10");
    assert_eq!(&row[22], "8.5466");
}

#[actix_web::test]
async fn only_a_done_print_that_is_not_archived_takes_an_outcome() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let draft_print = app.create("/api/prints", &draft(&shop, "Not done")).await;
    let did = draft_print["id"].as_str().unwrap();
    assert_error(
        app.post(
            &format!("/api/prints/{did}/outcome"),
            &outcome(&draft_print, "SUCCESS", 1, "1"),
        )
        .await,
        409,
        "INVALID_STATE",
    )
    .await;
    let print = done_print(&app, draft(&shop, "Archived")).await;
    let id = print["id"].as_str().unwrap();
    let path = format!("/api/prints/{id}/outcome");
    app.patch(&format!("/api/prints/{id}"), &json!({"archived": true}))
        .await;
    assert_error(
        app.post(&path, &outcome(&print, "SUCCESS", 1, "1")).await,
        409,
        "INVALID_STATE",
    )
    .await;
}

#[actix_web::test]
async fn usage_faults_are_refused_before_any_stock_moves() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = done_print(&app, draft(&shop, "Checked")).await;
    let id = print["id"].as_str().unwrap();
    let path = format!("/api/prints/{id}/outcome");
    let mut unknown = outcome(&print, "SUCCESS", 1, "1");
    unknown["filaments"][0]["usageId"] = json!("01a1fca8-547d-7442-9d4e-aa020ca898c4");
    assert_field_error(
        app.post(&path, &unknown).await,
        "filaments[0].usageId",
        "errors.notFound",
    )
    .await;
    let mut missing = outcome(&print, "SUCCESS", 1, "1");
    missing["filaments"] = json!([]);
    assert_field_error(
        app.post(&path, &missing).await,
        "filaments",
        "errors.missingUsage",
    )
    .await;
    let mut duplicate = outcome(&print, "SUCCESS", 1, "1");
    let first = duplicate["filaments"][0].clone();
    duplicate["filaments"].as_array_mut().unwrap().push(first);
    assert_field_error(
        app.post(&path, &duplicate).await,
        "filaments[1].usageId",
        "errors.duplicate",
    )
    .await;
    let mut no_reason = outcome(&print, "FAILED", 1, "1");
    no_reason.as_object_mut().unwrap().remove("failureReason");
    assert_field_error(
        app.post(&path, &no_reason).await,
        "failureReason",
        "errors.required",
    )
    .await;
    let mut negative = outcome(&print, "SUCCESS", 1, "1");
    negative["filaments"][0]["usedGrams"] = json!("-1");
    assert_field_error(
        app.post(&path, &negative).await,
        "filaments[0].usedGrams",
        "errors.negative",
    )
    .await;
    assert_eq!(
        spool_remaining(&app, &print).await,
        "1000",
        "nothing booked by refused outcomes"
    );
}

#[actix_web::test]
async fn a_multipart_outcome_needs_every_part_and_their_sum() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut two = draft(&shop, "Two parts");
    two["parts"] = json!([part(&shop, 600, "1"), part(&shop, 400, "2")]);
    let multi = done_print(&app, two).await;
    let mid = multi["id"].as_str().unwrap();
    let mpath = format!("/api/prints/{mid}/outcome");
    assert_field_error(
        app.post(&mpath, &outcome(&multi, "SUCCESS", 1000, "1"))
            .await,
        "parts",
        "errors.required",
    )
    .await;
    let mut parts = outcome(&multi, "SUCCESS", 1000, "1");
    parts["parts"] = json!([{"partId": multi["parts"][0]["id"], "durationSeconds": 700}, {"partId": multi["parts"][1]["id"], "durationSeconds": 200}]);
    assert_field_error(
        app.post(&mpath, &parts).await,
        "durationSeconds",
        "errors.partSumMismatch",
    )
    .await;
    parts["parts"][1]["partId"] = multi["parts"][0]["id"].clone();
    assert_field_error(
        app.post(&mpath, &parts).await,
        "parts[1].partId",
        "errors.duplicate",
    )
    .await;
    parts["parts"][1] = json!({"partId": multi["parts"][1]["id"], "durationSeconds": 300});
    assert_eq!(app.post(&mpath, &parts).await.status(), 200);
}

#[actix_web::test]
async fn corrections_append_revisions_and_book_only_deltas() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = done_print(&app, draft(&shop, "Corrected")).await;
    let id = print["id"].as_str().unwrap();
    let correct_path = format!("/api/prints/{id}/outcome/correct");
    let correction =
        |grams: &str, revision: u32, key: &str| correction(&print, grams, revision, key);
    let key1 = uuid::Uuid::now_v7().to_string();
    assert_error(
        app.post(&correct_path, &correction("40", 1, &key1)).await,
        409,
        "INVALID_STATE",
    )
    .await;
    app.post(
        &format!("/api/prints/{id}/outcome"),
        &outcome(&print, "SUCCESS", 5400, "50"),
    )
    .await;
    assert_eq!(spool_remaining(&app, &print).await, "950");

    let stale = app.post(&correct_path, &correction("40", 7, &key1)).await;
    assert_error(stale, 409, "STALE_REVISION").await;
    let corrected: Value = app
        .post(&correct_path, &correction("40", 1, &key1))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(corrected["outcome"]["revision"], 2);
    assert_eq!(corrected["outcome"]["history"].as_array().unwrap().len(), 2);
    assert_eq!(
        corrected["outcome"]["history"][1]["correctionNote"],
        "Weighed the leftovers"
    );
    assert_eq!(
        spool_remaining(&app, &print).await,
        "960",
        "a lowering correction books +10"
    );

    let replay = app.post(&correct_path, &correction("40", 1, &key1)).await;
    assert_eq!(replay.status(), 200);
    assert_eq!(
        replay.json::<Value>().await.unwrap()["outcome"]["revision"],
        2,
        "a replay appends nothing"
    );
    assert_error(
        app.post(&correct_path, &correction("41", 2, &key1)).await,
        409,
        "OPERATION_KEY_REUSED",
    )
    .await;
    let mut blank = correction("41", 2, &uuid::Uuid::now_v7().to_string());
    blank["correctionNote"] = json!("  ");
    assert_field_error(
        app.post(&correct_path, &blank).await,
        "correctionNote",
        "errors.required",
    )
    .await;
}

#[actix_web::test]
async fn the_history_keeps_the_original_and_the_latest_20_corrections() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = done_print(&app, draft(&shop, "Corrected often")).await;
    let id = print["id"].as_str().unwrap();
    let correct_path = format!("/api/prints/{id}/outcome/correct");
    let correction =
        |grams: &str, revision: u32, key: &str| correction(&print, grams, revision, key);
    app.post(
        &format!("/api/prints/{id}/outcome"),
        &outcome(&print, "SUCCESS", 5400, "50"),
    )
    .await;
    let key = uuid::Uuid::now_v7().to_string();
    assert_eq!(
        app.post(&correct_path, &correction("40", 1, &key))
            .await
            .status(),
        200
    );
    for revision in 2..24 {
        let grams = format!("{}", 40 + revision);
        let res = app
            .post(
                &correct_path,
                &correction(&grams, revision, &uuid::Uuid::now_v7().to_string()),
            )
            .await;
        assert_eq!(res.status(), 200);
    }
    let latest: Value = app
        .get(&format!("/api/prints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(latest["outcome"]["revision"], 24);
    let history = latest["outcome"]["history"].as_array().unwrap();
    assert_eq!(
        history.len(),
        21,
        "the original plus the latest 20 corrections"
    );
    assert_eq!(history[0]["revision"], 1);
    assert_eq!(
        history[1]["revision"], 5,
        "corrections 2..=24 less the oldest three"
    );
    assert_eq!(
        spool_remaining(&app, &print).await,
        "937",
        "1000 - 63 g after all deltas"
    );
}

#[actix_web::test]
async fn a_failed_print_is_retried_as_a_new_draft() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Will fail");
    body["customerId"] = json!(shop.customer);
    body["quantity"] = json!(2);
    body["salesValue"] = json!("30");
    let print = done_print(&app, body).await;
    let id = print["id"].as_str().unwrap();
    assert_error(
        app.post(&format!("/api/prints/{id}/retry"), &json!({}))
            .await,
        409,
        "INVALID_STATE",
    )
    .await;
    let failed: Value = app
        .post(
            &format!("/api/prints/{id}/outcome"),
            &outcome(&print, "FAILED", 1800, "15"),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(failed["financials"]["realizedRevenue"], "0");
    assert_eq!(failed["financials"]["realizedMargin"], Value::Null);
    assert_eq!(failed["failedCost"], failed["actualCost"]);
    assert_eq!(failed["outcome"]["failureReason"], "Warped off the plate");

    let retry = app
        .post(&format!("/api/prints/{id}/retry"), &json!({}))
        .await;
    assert_eq!(retry.status(), 201);
    let retry: Value = retry.json().await.unwrap();
    assert_eq!(retry["status"], "DRAFT");
    assert_eq!(retry["retriedFromId"], id);
    assert_eq!(retry["quantity"], 2);
    assert_eq!(retry["customerId"], shop.customer.as_str());
    assert_eq!(retry["salesValue"], Value::Null);
    assert_eq!(retry["outcome"], Value::Null);
    let source: Value = app
        .get(&format!("/api/prints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(source["retryIds"], json!([retry["id"]]));
    let failed_list: Value = app
        .get("/api/prints?outcome=FAILED")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(failed_list["total"], 1);
}

#[actix_web::test]
async fn a_correction_that_adds_grams_is_taken_on_a_spool_prints_took_below_zero() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let print = done_print(&app, draft(&shop, "Heavy")).await;
    let res = app
        .post(
            &format!("/api/prints/{}/outcome", print["id"].as_str().unwrap()),
            &outcome(&print, "SUCCESS", 5400, "1500"),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(spool_remaining(&app, &print).await, "-500");
    let spool = print["usages"][0]["spoolId"].as_str().unwrap();
    let movements = format!("/api/spools/{spool}/movements");
    let res = app
        .post(&movements, &json!({"kind": "CORRECTION", "grams": "200"}))
        .await;
    assert_eq!(
        res.status(),
        201,
        "adding grams moves the balance toward zero"
    );
    assert_eq!(spool_remaining(&app, &print).await, "-300");
    assert_field_error(
        app.post(&movements, &json!({"kind": "CORRECTION", "grams": "-1"}))
            .await,
        "grams",
        "errors.belowZero",
    )
    .await;
}

#[actix_web::test]
async fn parts_alone_give_a_multipart_outcome_its_time_and_one_part_needs_it() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Two halves");
    body["parts"] = json!([part(&shop, 1800, "10"), part(&shop, 2400, "20")]);
    let print = app.done(&body).await;
    let id = print["id"].as_str().unwrap();
    let parts: Vec<Value> = print["parts"]
        .as_array()
        .unwrap()
        .iter()
        .zip([1000, 2000])
        .map(|(p, s)| json!({"partId": p["id"], "durationSeconds": s}))
        .collect();
    let mut sent = outcome(&print, "SUCCESS", 0, "5");
    sent.as_object_mut().unwrap().remove("durationSeconds");
    sent["parts"] = json!(parts);
    let res = app.post(&format!("/api/prints/{id}/outcome"), &sent).await;
    let status = res.status();
    let recorded: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "{recorded}");
    assert_eq!(
        recorded["outcome"]["durationSeconds"], 3000,
        "the sum of the parts"
    );

    let single = app.done(&draft(&shop, "Whole")).await;
    let sid = single["id"].as_str().unwrap();
    let mut bare = outcome(&single, "SUCCESS", 0, "5");
    bare.as_object_mut().unwrap().remove("durationSeconds");
    assert_field_error(
        app.post(&format!("/api/prints/{sid}/outcome"), &bare).await,
        "durationSeconds",
        "errors.required",
    )
    .await;
}
