//! The dashboard over the demo shop.

use crate::outcomes::outcome;
use crate::support::{TestApp, assert_field_error, draft, logged_in, page, setup_body, shop};
use serde_json::{Value, json};

/// A box set up with the demo shop.
async fn demo() -> TestApp {
    let app = TestApp::spawn().await;
    let mut body = setup_body();
    body["createDemoData"] = json!(true);
    assert_eq!(app.post("/api/auth/setup", &body).await.status(), 201);
    app
}

#[actix_web::test]
async fn the_dashboard_sums_the_period() {
    let app = demo().await;
    let board: Value = app
        .get("/api/dashboard?period=30d")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(board["period"], "30d");
    assert_eq!(board["currency"], "EUR");
    assert_eq!(board["kpis"]["prints"], 2, "the two DONE demo prints");
    assert_eq!(board["kpis"]["units"], 11);
    assert_eq!(board["outcomes"]["success"], 1);
    assert_eq!(board["outcomes"]["failed"], 1);
    assert_eq!(board["outcomes"]["pending"], 0);
    assert_eq!(board["outcomes"]["successRate"], "0.5");
    assert_eq!(board["drafts"]["count"], 1);
    assert_eq!(
        board["kpis"]["realizedRevenue"], "150",
        "SUCCESS realizes its sales value, FAILED zero"
    );
    let categories: Vec<&str> = board["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["category"].as_str().unwrap())
        .collect();
    for category in [
        "PRINTER",
        "HOTEND",
        "BUILD_PLATE",
        "COMPONENT",
        "FILAMENT",
        "ELECTRICITY",
    ] {
        assert!(
            categories.contains(&category),
            "{category} missing in {categories:?}"
        );
    }
    assert_eq!(
        board["costSeries"].as_array().unwrap().len(),
        1,
        "everything completed today"
    );
    let planned: f64 = board["kpis"]["plannedCost"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let actual: f64 = board["kpis"]["actualCost"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let variance: f64 = board["outcomes"]["variance"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (actual - planned - variance).abs() < 1e-9,
        "variance = actual - planned over recorded outcomes"
    );
}

#[actix_web::test]
async fn the_dashboard_leaves_out_excluded_customers() {
    let app = demo().await;
    let prints: Value = app
        .get("/api/prints?includeArchived=true&pageSize=100")
        .await
        .json()
        .await
        .unwrap();
    let chassis = prints["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Robot chassis")
        .unwrap();
    assert_eq!(chassis["outcome"]["revision"], 2, "the demo's correction");
    let own = app
        .get("/api/customers?search=own")
        .await
        .json::<Value>()
        .await
        .unwrap()["items"][0]["id"]
        .clone();
    let clips = prints["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Cable clips")
        .unwrap();
    assert_eq!(clips["customerId"], own);
    let clip_id = clips["id"].as_str().unwrap();
    app.post(&format!("/api/prints/{clip_id}/complete"), &json!({}))
        .await;
    let after: Value = app.get("/api/dashboard").await.json().await.unwrap();
    assert_eq!(
        after["kpis"]["prints"], 2,
        "prints of an excluded customer are left out"
    );
}

#[actix_web::test]
async fn all_time_has_monthly_buckets_and_other_periods_are_refused() {
    let app = demo().await;
    let all: Value = app
        .get("/api/dashboard?period=all")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(all["from"], Value::Null);
    assert_eq!(
        all["costSeries"][0]["bucket"].as_str().unwrap().len(),
        7,
        "monthly buckets"
    );
    assert_field_error(
        app.get("/api/dashboard?period=7d").await,
        "period",
        "errors.invalidValue",
    )
    .await;
}

/// The amount in the dashboard page's tile `id`.
fn tile(html: &str, id: &str) -> String {
    let tile = html.split(&format!(r#"id="{id}""#)).nth(1).unwrap();
    let amount = tile.split("<strong>").nth(1).unwrap();
    amount.split("</strong>").next().unwrap().to_string()
}

#[actix_web::test]
async fn the_dashboard_page_shows_realized_revenue_and_margin_beside_the_sales_value_and_failures_apart()
 {
    let app = demo().await;
    let client = logged_in(&app).await;
    let board = app.json("/api/dashboard?period=all").await;
    let (status, html) = page(&client, &app, "/dashboard?period=all").await;
    assert_eq!(status, 200);
    for (id, field) in [
        ("kpi-sales-value", "salesValue"),
        ("kpi-realized-revenue", "realizedRevenue"),
        ("kpi-realized-margin", "realizedMargin"),
        ("kpi-failed-cost", "failedCost"),
    ] {
        let value: f64 = board["kpis"][field].as_str().unwrap().parse().unwrap();
        assert_eq!(tile(&html, id), format!("€{value:.2}"), "{field}");
    }
    assert!(
        html.contains(r#"class="tile loss" id="kpi-failed-cost""#),
        "the demo's failed print marks its cost apart"
    );
}

/// A 45 € order that failed and its retry, which took the price and succeeded: the dashboard's
/// sales value and the customer's history count the order once (45, not 90); the failed print
/// keeps its own sales value.
#[actix_web::test]
async fn a_failed_order_and_its_retry_count_their_price_once() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Bracket");
    body["salesValue"] = json!("45");
    body["customerId"] = json!(shop.customer);
    let failed = app.done(&body).await;
    let id = failed["id"].as_str().unwrap();
    let done = app.json(&format!("/api/prints/{id}")).await;
    let outcome = outcome(&done, "FAILED", 600, "10");
    let res = app
        .post(&format!("/api/prints/{id}/outcome"), &outcome)
        .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let retry: Value = app
        .post(&format!("/api/prints/{id}/retry"), &json!({}))
        .await
        .json()
        .await
        .unwrap();
    let retry_id = retry["id"].as_str().unwrap();
    // The retry is made without a price (the spec); the owner gives it the order's.
    assert!(retry["salesValue"].is_null());
    let res = app.patch(&format!("/api/prints/{retry_id}"), &body).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let res = app
        .post(&format!("/api/prints/{retry_id}/complete"), &json!({}))
        .await;
    assert_eq!(res.status(), 200);

    let board = app.json("/api/dashboard?period=30d").await;
    assert_eq!(board["kpis"]["salesValue"], "45", "{board}");
    let customer = &shop.customer;
    let history = app
        .json(&format!("/api/customers/{customer}/history"))
        .await;
    assert_eq!(history["totals"]["salesValue"], "45", "{history}");
    assert_eq!(history["totals"]["prints"], 2);
    assert_eq!(
        app.json(&format!("/api/prints/{id}")).await["salesValue"],
        "45",
        "the failed print keeps its own"
    );
}
