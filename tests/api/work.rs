//! Work over HTTP (issue 46): labour rates, fixed charges and post-processing steps in the
//! inventory; work lines priced with the parts (the reference example with work, 10.532175),
//! frozen when the print leaves DRAFT, repriced from an outcome's actual minutes; field errors.

use crate::support::{Shop, TestApp, assert_error, assert_field_error, draft, shop};
use serde_json::{Value, json};

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

/// A labour rate of 45 per hour and a setup fee of 3.50 per job.
pub(crate) async fn rate_and_fee(app: &TestApp) -> (String, String) {
    let rate = json!({"name": "Nachbearbeitung", "hourlyRate": "45"});
    let rate = app.create("/api/labour-rates", &rate).await;
    let fee = json!({"name": "Grundgebühr", "amount": "3.50", "per": "JOB"});
    let fee = app.create("/api/charges", &fee).await;
    (id(&rate), id(&fee))
}

/// The reference draft with 7 minutes of labour per piece and the setup fee.
pub(crate) fn worked(shop: &Shop, rate: &str, fee: &str) -> Value {
    let mut body = draft(shop, "Worked");
    body["work"] = json!([
        {"kind": "LABOUR", "sourceId": rate, "minutes": "7", "per": "PIECE"},
        {"kind": "CHARGE", "sourceId": fee}
    ]);
    body
}

fn categories(print: &Value) -> Vec<String> {
    print["costLines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["category"].as_str().unwrap().to_string())
        .collect()
}

#[actix_web::test]
async fn the_reference_example_with_labour_and_a_setup_fee_prices_to_10_532175() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let (rate, fee) = rate_and_fee(&app).await;
    let res = app
        .post("/api/prints/calculate", &worked(&shop, &rate, &fee))
        .await;
    assert_eq!(res.status(), 200);
    let preview: Value = res.json().await.unwrap();
    assert_eq!(preview["totalCost"], "10.532175");
    assert_eq!(
        categories(&preview),
        [
            "PRINTER",
            "HOTEND",
            "BUILD_PLATE",
            "FILAMENT",
            "ELECTRICITY",
            "LABOUR",
            "CHARGE"
        ]
    );
    let work = preview["work"].as_array().unwrap();
    assert_eq!(work[0]["cost"], "5.25");
    assert_eq!(work[0]["per"], "PIECE");
    assert_eq!(work[1]["cost"], "3.5");
    assert_eq!(
        work[1]["per"], "JOB",
        "a charge's own per when none is given"
    );
    assert_eq!(work[1]["amount"], "1");
    assert_eq!(preview["costLines"][5]["workLineId"], work[0]["id"]);
    assert_eq!(preview["costLines"][5]["partId"], Value::Null);

    // Four pieces: the labour counts four times, the setup fee once.
    let mut four = worked(&shop, &rate, &fee);
    four["quantity"] = json!(4);
    let priced: Value = app
        .post("/api/prints/calculate", &four)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(priced["work"][0]["cost"], "21");
    assert_eq!(priced["totalCost"], "26.282175");

    // Without work lines a print costs what it did.
    let plain: Value = app
        .post("/api/prints/calculate", &draft(&shop, "Plain"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(plain["totalCost"], "1.782175");
    assert_eq!(plain["work"], json!([]));
}

#[actix_web::test]
async fn a_steps_labour_and_machine_are_priced_and_its_defaults_taken() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let (rate, _) = rate_and_fee(&app).await;
    let step = json!({
        "name": "Waschen und Härten", "labourRateId": rate, "minutes": "2", "per": "PIECE",
        "machine": {"name": "Wash & Cure", "purchasePrice": "250", "expectedLifetimeHours": "1000", "averagePowerWatts": 60, "minutes": "6"}
    });
    let step = app.create("/api/post-processing-steps", &step).await;
    assert_eq!(step["labourRateName"], "Nachbearbeitung");
    assert_eq!(step["machine"]["averagePowerWatts"], 60);
    let mut body = draft(&shop, "Cured");
    body["quantity"] = json!(4);
    body["work"] = json!([{"kind": "STEP", "sourceId": id(&step)}]);
    let print = app.create("/api/prints", &body).await;
    // 2 min × 4 × 45 / 60 = 6; 24 min × 250 / 60,000 = 0.1; 24 × 60 W × 0.32 / 60,000.
    let lines: Vec<(&str, &str)> = print["costLines"].as_array().unwrap()[5..]
        .iter()
        .map(|l| (l["category"].as_str().unwrap(), l["cost"].as_str().unwrap()))
        .collect();
    assert_eq!(
        lines,
        [
            ("LABOUR", "6"),
            ("MACHINE", "0.1"),
            ("MACHINE_ELECTRICITY", "0.00768")
        ]
    );
    assert_eq!(print["work"][0]["amount"], "2");
    assert_eq!(print["work"][0]["cost"], "6.10768");
    assert_eq!(print["totalCost"], "7.889855");
}

#[actix_web::test]
async fn work_lines_freeze_with_the_print_and_an_outcome_reprices_labour_from_its_minutes() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let (rate, fee) = rate_and_fee(&app).await;
    let print = app.create("/api/prints", &worked(&shop, &rate, &fee)).await;
    let path = format!("/api/prints/{}", id(&print));
    let kept = print["work"][0]["id"].clone();
    let edited = app.patch(&path, &worked(&shop, &rate, &fee)).await;
    let edited: Value = edited.json().await.unwrap();
    assert_eq!(edited["work"][0]["id"], kept, "an edit keeps a line's id");

    let res = app.patch(&path, &json!({"status": "DONE"})).await;
    assert_eq!(res.status(), 200);
    let dearer = json!({"name": "Nachbearbeitung", "hourlyRate": "90"});
    let res = app
        .patch(&format!("/api/labour-rates/{rate}"), &dearer)
        .await;
    assert_eq!(res.status(), 200);
    let frozen = app.json(&path).await;
    assert_eq!(
        frozen["totalCost"], "10.532175",
        "a rate change after DRAFT changes nothing"
    );

    let usage = frozen["usages"][0]["id"].clone();
    let outcome = |minutes: Value| {
        json!({"status": "SUCCESS", "durationSeconds": 5400,
               "filaments": [{"usageId": usage, "usedGrams": "42.5"}],
               "workMinutes": minutes})
    };
    let wrong = outcome(json!([{"workLineId": print["parts"][0]["id"], "minutes": "1"}]));
    let res = app.post(&format!("{path}/outcome"), &wrong).await;
    assert_field_error(res, "workMinutes[0].workLineId", "errors.notFound").await;
    let twice = outcome(json!([
        {"workLineId": kept, "minutes": "1"},
        {"workLineId": kept, "minutes": "2"}
    ]));
    let res = app.post(&format!("{path}/outcome"), &twice).await;
    assert_field_error(res, "workMinutes[1].workLineId", "errors.duplicate").await;

    let res = app
        .post(
            &format!("{path}/outcome"),
            &outcome(json!([{"workLineId": kept, "minutes": "12"}])),
        )
        .await;
    assert_eq!(res.status(), 200);
    let done: Value = res.json().await.unwrap();
    // 12 minutes at the frozen 45 per hour: 9 instead of 5.25.
    assert_eq!(done["actualCost"], "14.282175");
    assert_eq!(done["outcome"]["workMinutes"][0]["minutes"], "12");
    assert_eq!(done["outcome"]["workMinutes"][0]["workLineId"], kept);
}

#[actix_web::test]
async fn bad_work_lines_answer_422_at_their_field() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let (rate, fee) = rate_and_fee(&app).await;
    let with = |work: Value| {
        let mut body = draft(&shop, "Bad work");
        body["work"] = work;
        body
    };
    let cases = [
        (
            json!([{"kind": "LABOUR", "sourceId": rate}]),
            "work[0].minutes",
            "errors.required",
        ),
        (
            json!([{"kind": "CHARGE", "sourceId": fee, "minutes": "3"}]),
            "work[0].minutes",
            "errors.invalidValue",
        ),
        (
            json!([{"kind": "LABOUR", "sourceId": rate, "minutes": "3", "count": "2"}]),
            "work[0].count",
            "errors.invalidValue",
        ),
        (
            json!([{"kind": "STEP", "sourceId": rate}]),
            "work[0].sourceId",
            "errors.notFound",
        ),
        (
            json!([{"kind": "CHARGE", "sourceId": fee}, {"kind": "CHARGE", "sourceId": fee, "count": "999999999999999", "per": "PIECE"}]),
            "work[1].count",
            "errors.outOfRange",
        ),
        (
            json!([{"kind": "LABOUR", "sourceId": rate, "minutes": "-1"}]),
            "work[0].minutes",
            "errors.negative",
        ),
    ];
    for (work, path, key) in cases {
        let mut body = with(work);
        body["quantity"] = json!(1_000_000);
        let res = app.post("/api/prints/calculate", &body).await;
        assert_field_error(res, path, key).await;
    }
    let list: Value = app.json("/api/prints").await;
    assert_eq!(list["total"], 0);

    let orphan = json!({"name": "Orphan", "labourRateId": fee, "minutes": "1", "per": "JOB"});
    let res = app.post("/api/post-processing-steps", &orphan).await;
    assert_field_error(res, "labourRateId", "errors.notFound").await;
    let res = app
        .post("/api/charges", &json!({"name": "No per", "amount": "1"}))
        .await;
    assert_error(res, 422, "VALIDATION_FAILED").await;
}

#[actix_web::test]
async fn work_records_list_archive_and_replace_like_the_rest_of_the_inventory() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let (rate, fee) = rate_and_fee(&app).await;
    let res = app
        .patch(&format!("/api/charges/{fee}"), &json!({"archived": true}))
        .await;
    assert_eq!(res.status(), 200);
    let active: Value = app.json("/api/charges").await;
    assert_eq!(active["total"], 0);
    let all: Value = app.json("/api/charges?includeArchived=true").await;
    assert_eq!(all["items"][0]["amount"], "3.5");
    let found: Value = app.json("/api/labour-rates?search=nachbear").await;
    assert_eq!(found["items"][0]["id"], rate.as_str());
    assert_eq!(found["items"][0]["hourlyRate"], "45");
    let res = app.get(&format!("/api/post-processing-steps/{rate}")).await;
    assert_error(res, 404, "NOT_FOUND").await;
}
