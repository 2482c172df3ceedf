//! The shop's price rule over HTTP (issue 46): Settings › Pricing, a draft's suggested net price
//! with VAT and gross, a reseller's discount, the maker's override kept beside the suggestion,
//! both frozen when the print leaves DRAFT; off by default, so that a print costs and sells as
//! before.

use crate::outcomes::outcome;
use crate::support::{TestApp, assert_field_error, draft, shop};
use serde_json::{Value, json};

fn rule(basis: &str, percent: &str) -> Value {
    json!({"enabled": true, "basis": basis, "percent": percent, "minimumPerJob": null,
           "rounding": "CENT", "vatPercent": "19"})
}

#[actix_web::test]
async fn a_draft_takes_the_rules_price_with_vat_unless_the_maker_gives_one() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let off = app.json("/api/settings/pricing").await;
    assert_eq!(off["enabled"], false);
    let before = app.create("/api/prints", &draft(&shop, "Before")).await;
    assert_eq!(before["price"], Value::Null);
    assert_eq!(before["salesValue"], Value::Null, "off: nothing changes");

    let res = app
        .patch("/api/settings/pricing", &rule("MARGIN", "30"))
        .await;
    assert_eq!(res.status(), 200);
    // 1.782175 / 0.7 = 2.5459642857… → 2.55; VAT 19 % = 0.4845 → 0.48.
    let priced = app.create("/api/prints", &draft(&shop, "Priced")).await;
    assert_eq!(priced["salesValue"], "2.55");
    assert_eq!(priced["price"]["suggestedNet"], "2.55");
    assert_eq!(priced["price"]["overridden"], false);
    assert_eq!(priced["price"]["vat"], "0.48");
    assert_eq!(priced["price"]["gross"], "3.03");

    let mut given = draft(&shop, "Given");
    given["salesValue"] = json!("4.00");
    let given = app.create("/api/prints", &given).await;
    assert_eq!(given["salesValue"], "4");
    assert_eq!(given["price"]["suggestedNet"], "2.55");
    assert_eq!(given["price"]["overridden"], true);
    assert_eq!(given["price"]["gross"], "4.76");

    // A reseller's 10 % off: 2.2913571428… → 2.29.
    let reseller = json!({"name": "Reseller", "discountPercent": "10"});
    let reseller = app.create("/api/customers", &reseller).await;
    assert_eq!(reseller["discountPercent"], "10");
    let mut body = draft(&shop, "Resold");
    body["customerId"] = reseller["id"].clone();
    let resold = app.create("/api/prints", &body).await;
    assert_eq!(resold["salesValue"], "2.29");

    // Frozen: the print leaves DRAFT, the rule changes, the price stays.
    let path = format!("/api/prints/{}", priced["id"].as_str().unwrap());
    assert_eq!(
        app.patch(&path, &json!({"status": "PRINTING"}))
            .await
            .status(),
        200
    );
    let res = app
        .patch("/api/settings/pricing", &rule("MARKUP", "100"))
        .await;
    assert_eq!(res.status(), 200);
    let frozen = app.json(&path).await;
    assert_eq!(frozen["salesValue"], "2.55");
    assert_eq!(frozen["price"]["suggestedNet"], "2.55");
    // A draft saved again takes the new rule: 1.782175 × 2 = 3.56435 → 3.56.
    let draft_path = format!("/api/prints/{}", resold["id"].as_str().unwrap());
    let mut again = draft(&shop, "Resold");
    again["customerId"] = reseller["id"].clone();
    let res = app.patch(&draft_path, &again).await;
    let again: Value = res.json().await.unwrap();
    // 3.56435 × 0.9 = 3.207915 → 3.21.
    assert_eq!(again["salesValue"], "3.21");
}

#[actix_web::test]
async fn a_bad_rule_or_discount_is_refused_at_its_field() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let res = app
        .patch("/api/settings/pricing", &rule("MARGIN", "100"))
        .await;
    assert_field_error(res, "percent", "errors.outOfRange").await;
    let mut vat = rule("MARKUP", "30");
    vat["vatPercent"] = json!("100.01");
    let res = app.patch("/api/settings/pricing", &vat).await;
    assert_field_error(res, "vatPercent", "errors.outOfRange").await;
    let res = app
        .post(
            "/api/customers",
            &json!({"name": "Greedy", "discountPercent": "100"}),
        )
        .await;
    assert_field_error(res, "discountPercent", "errors.outOfRange").await;
    let stored = app.json("/api/settings/pricing").await;
    assert_eq!(stored["enabled"], false, "nothing half-written");
}

#[actix_web::test]
async fn the_csv_carries_work_and_price_after_the_specs_columns() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let res = app
        .patch("/api/settings/pricing", &rule("MARKUP", "30"))
        .await;
    assert_eq!(res.status(), 200);
    let fee = json!({"name": "Setup", "amount": "3.50", "per": "JOB"});
    let fee = app.create("/api/charges", &fee).await;
    let mut body = draft(&shop, "Exported");
    body["work"] = json!([{"kind": "CHARGE", "sourceId": fee["id"]}]);
    let done = app.done(&body).await;
    // (1.782175 + 3.5) × 1.3 = 6.8668275 → 6.87; VAT 1.3053 → 1.31; gross 8.18.
    assert_eq!(done["salesValue"], "6.87");
    let text = app
        .get("/api/prints/export?separator=SEMICOLON")
        .await
        .text()
        .await
        .unwrap();
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let row = reader.records().next().unwrap().unwrap();
    let cell = |name: &str| row[headers.iter().position(|h| h == name).unwrap()].to_string();
    assert_eq!(cell("work_cost"), "3,5");
    assert_eq!(cell("suggested_price"), "6,87");
    assert_eq!(cell("vat"), "1,31");
    assert_eq!(cell("gross"), "8,18");
    assert_eq!(cell("planned_cost"), "5,282175");
}

#[actix_web::test]
async fn a_seeded_history_gives_the_success_rate_and_the_failure_adjusted_price() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    // Ten runs of the printer with PLA, the two oldest failed: 8 of 10 succeeded.
    for n in 0..10 {
        let done = app.done(&draft(&shop, &format!("Run {n}"))).await;
        let status = if n < 2 { "FAILED" } else { "SUCCESS" };
        let path = format!("/api/prints/{}/outcome", done["id"].as_str().unwrap());
        let res = app.post(&path, &outcome(&done, status, 5400, "42.5")).await;
        assert_eq!(res.status(), 200);
    }
    let res = app
        .patch("/api/settings/pricing", &rule("MARGIN", "30"))
        .await;
    assert_eq!(res.status(), 200);
    let shown = app.create("/api/prints", &draft(&shop, "Shown")).await;
    assert_eq!(shown["price"]["successRate"], "0.8");
    assert_eq!(shown["price"]["successSample"], 10);
    // 1.782175 / 0.8.
    assert_eq!(shown["price"]["costPerGoodPart"], "2.22771875");
    assert_eq!(shown["price"]["failureAdjusted"], false);
    assert_eq!(
        shown["salesValue"], "2.55",
        "the switch is off: the cost itself"
    );

    let mut adjusted = rule("MARGIN", "30");
    adjusted["failureAdjusted"] = json!(true);
    let res = app.patch("/api/settings/pricing", &adjusted).await;
    assert_eq!(res.status(), 200);
    let priced = app.create("/api/prints", &draft(&shop, "Adjusted")).await;
    // 2.22771875 / 0.7 = 3.1824553571… → 3.18.
    assert_eq!(priced["salesValue"], "3.18");
    assert_eq!(priced["price"]["failureAdjusted"], true);

    // Only the latest five count: all of them succeeded.
    adjusted["failureWindow"] = json!(5);
    let res = app.patch("/api/settings/pricing", &adjusted).await;
    assert_eq!(res.status(), 200);
    let recent = app.create("/api/prints", &draft(&shop, "Recent")).await;
    assert_eq!(recent["price"]["successRate"], "1");
    assert_eq!(recent["price"]["successSample"], 5);
    assert_eq!(recent["salesValue"], "2.55");
    adjusted["failureWindow"] = json!(0);
    let res = app.patch("/api/settings/pricing", &adjusted).await;
    assert_field_error(res, "failureWindow", "errors.outOfRange").await;
}
