//! The edges of the cost engine and the outcome figures over HTTP (issue 27): every input that
//! prices a print (printer, hotend, build plate and other component prices, lifetimes and
//! power; filament prices and net weights; electricity price; durations, grams and quantities;
//! an outcome's duration and grams) is driven with values at and beyond their documented limits
//! (15 whole and 10 fractional digits, lifetimes down to 1e-10 h, durations up to 2^31-1 s and
//! beyond, grams at 12 whole and 6 fractional digits, the quantity's maximum). Every answer is
//! 2xx or 4xx, never 5xx, and afterwards the list, the dashboard, the CSV export and health still
//! answer 200 over everything that was stored.
//!
//! `PROPTEST_CASES` sets the number of cases (default 300, each about ten requests).

use crate::outcomes::outcome;
use crate::support;
use crate::support::{TestApp, shop};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use reqwest::Response;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Amounts and lifetimes: the largest and smallest legal values, one beyond, and any legal one.
fn amount() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just("999999999999999.9999999999".to_string()),
        1 => Just("0.0000000001".to_string()),
        1 => Just("1000000000000000".to_string()),
        1 => Just("0.00000000001".to_string()),
        1 => Just("0".to_string()),
        1 => Just("-0.01".to_string()),
        2 => (0u64..=999_999_999_999_999, 0u64..=9_999_999_999)
            .prop_map(|(w, f)| format!("{w}.{f:010}")),
        6 => (1u64..10_000, 0u64..100).prop_map(|(w, f)| format!("{w}.{f:02}")),
    ]
}

/// Grams: 12 whole and 6 fractional digits at most.
fn grams() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just("999999999999.999999".to_string()),
        1 => Just("0.000001".to_string()),
        1 => Just("1000000000000".to_string()),
        1 => Just("0.0000001".to_string()),
        1 => Just("0".to_string()),
        2 => (0u64..=999_999_999_999, 0u64..=999_999).prop_map(|(w, f)| format!("{w}.{f:06}")),
        6 => (1u64..2000).prop_map(|g| g.to_string()),
    ]
}

/// Seconds: up to 2^31-1, and beyond.
fn seconds() -> impl Strategy<Value = u64> {
    prop_oneof![
        1 => Just(0),
        1 => Just(1),
        1 => Just(2_147_483_647),
        1 => Just(2_147_483_648),
        1 => Just(u64::from(u32::MAX)),
        6 => 0u64..1_000_000,
    ]
}

fn watts() -> impl Strategy<Value = u64> {
    prop_oneof![
        1 => Just(0),
        1 => Just(100_000),
        1 => Just(100_001),
        1 => Just(u64::from(u32::MAX) + 1),
        6 => 0u64..2000,
    ]
}

fn quantity() -> impl Strategy<Value = u64> {
    prop_oneof![
        1 => Just(1),
        1 => Just(1_000_000),
        1 => Just(1_000_001),
        3 => 1u64..100,
    ]
}

/// One case's inputs.
#[derive(Debug, Clone)]
struct Edge {
    printer: (String, String, u64),
    /// Price and lifetime of the hotend, the build plate and another component.
    components: [(String, String); 3],
    filament: (String, String),
    electricity: String,
    draft: (u64, String, u64),
    outcome: (u64, String),
    /// A labour rate and a fixed charge, and the draft's work: labour minutes, the charge's
    /// count, per piece or per job, and the outcome's actual minutes.
    work: ((String, String), (String, String, bool, String)),
    /// The price rule: a margin (else a markup) of this percent, a minimum per job, VAT.
    price: (bool, String, String, String),
}

fn edge() -> impl Strategy<Value = Edge> {
    (
        (amount(), amount(), watts()),
        [
            (amount(), amount()),
            (amount(), amount()),
            (amount(), amount()),
        ],
        (amount(), grams()),
        amount(),
        (seconds(), grams(), quantity()),
        (seconds(), grams()),
        (
            (amount(), amount()),
            (amount(), amount(), any::<bool>(), amount()),
        ),
        (
            any::<bool>(),
            prop_oneof![3 => (0u32..100).prop_map(|p| p.to_string()), 1 => amount()],
            amount(),
            prop_oneof![3 => (0u32..=100).prop_map(|p| p.to_string()), 1 => amount()],
        ),
    )
        .prop_map(
            |(printer, components, filament, electricity, draft, outcome, work, price)| Edge {
                printer,
                components,
                filament,
                electricity,
                draft,
                outcome,
                work,
                price,
            },
        )
}

/// Answers by request and status.
static ANSWERS: Mutex<BTreeMap<(&'static str, u16), u32>> = Mutex::new(BTreeMap::new());

/// The answer's status, after checking that it is not a server error.
async fn answered(res: Response, what: &'static str, edge: &Edge) -> (u16, Value) {
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert!(status < 500, "{what} answered {status} {body} for {edge:?}");
    *ANSWERS.lock().unwrap().entry((what, status)).or_default() += 1;
    (status, body)
}

/// Creates a record; its id when it was taken, else `fallback`.
async fn made(
    app: &TestApp,
    path: &'static str,
    body: Value,
    edge: &Edge,
    fallback: &str,
) -> String {
    let (status, body) = answered(app.post(path, &body).await, path, edge).await;
    match status {
        201 => body["id"].as_str().unwrap().to_string(),
        _ => fallback.to_string(),
    }
}

async fn run(app: &TestApp, shop: &support::Shop, edge: &Edge) {
    let (price, hours, watts) = &edge.printer;
    let printer = made(
        app,
        "/api/printers",
        json!({"name": "Edge printer", "manufacturerId": shop.maker, "purchasePrice": price, "expectedLifetimeHours": hours, "averagePowerWatts": watts}),
        edge,
        &shop.printer,
    )
    .await;
    let mut ids = Vec::new();
    for ((kind, fallback), (price, hours)) in [
        ("HOTEND", &shop.hotend),
        ("BUILD_PLATE", &shop.plate),
        ("OTHER", &shop.belts),
    ]
    .into_iter()
    .zip(&edge.components)
    {
        let body = json!({"type": kind, "name": "Edge part", "purchasePrice": price, "expectedLifetimeHours": hours});
        ids.push(made(app, "/api/components", body, edge, fallback).await);
    }
    let (price, net) = &edge.filament;
    let filament = made(
        app,
        "/api/filaments",
        json!({"manufacturerId": shop.maker, "material": "PLA", "colorName": "Edge", "colorHex": "#123456", "purchasePrice": price, "netWeightGrams": net}),
        edge,
        &shop.filament,
    )
    .await;
    let settings = json!({"currency": "EUR", "defaultLanguage": "en-US", "electricityPrice": edge.electricity, "spoolManagementEnabled": true});
    answered(
        app.patch("/api/settings", &settings).await,
        "settings",
        edge,
    )
    .await;

    let ((hourly, fee), (minutes, count, per_piece, _)) = &edge.work;
    let rate = json!({"name": "Edge labour", "hourlyRate": hourly});
    let rate = made(app, "/api/labour-rates", rate, edge, "").await;
    let fee = json!({"name": "Edge fee", "amount": fee, "per": "PIECE"});
    let fee = made(app, "/api/charges", fee, edge, "").await;
    let per = if *per_piece { "PIECE" } else { "JOB" };
    let work: Vec<Value> = [
        (!rate.is_empty())
            .then(|| json!({"kind": "LABOUR", "sourceId": rate, "minutes": minutes, "per": per})),
        (!fee.is_empty())
            .then(|| json!({"kind": "CHARGE", "sourceId": fee, "count": count, "per": per})),
    ]
    .into_iter()
    .flatten()
    .collect();
    let (margin, percent, minimum, vat) = &edge.price;
    let rule = json!({"enabled": true, "basis": if *margin { "MARGIN" } else { "MARKUP" },
        "percent": percent, "minimumPerJob": minimum, "rounding": "NINETY", "vatPercent": vat,
        "failureAdjusted": true});
    answered(
        app.patch("/api/settings/pricing", &rule).await,
        "pricing",
        edge,
    )
    .await;
    let (seconds, grams, quantity) = &edge.draft;
    let draft = json!({
        "work": work,
        "name": "Edge job",
        "quantity": quantity,
        "parts": [{
            "printerId": printer,
            "otherComponentIds": [ids[2]],
            "buildPlateId": ids[1],
            "hotends": [{"componentId": ids[0], "durationSeconds": seconds}],
            "filaments": [{"filamentId": filament, "usedGrams": grams}]
        }]
    });
    answered(
        app.post("/api/prints/calculate", &draft).await,
        "calculate",
        edge,
    )
    .await;
    let (status, print) = answered(app.post("/api/prints", &draft).await, "draft", edge).await;
    if status != 201 {
        return;
    }
    let id = print["id"].as_str().unwrap();
    let complete = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await;
    if answered(complete, "complete", edge).await.0 != 200 {
        return;
    }
    let (seconds, grams) = &edge.outcome;
    let mut body = outcome(&print, "SUCCESS", 0, grams);
    body["durationSeconds"] = json!(seconds);
    let actual = &edge.work.1.3;
    if let Some(line) = print["work"][0]["id"].as_str() {
        body["workMinutes"] = json!([{"workLineId": line, "minutes": actual}]);
    }
    let path = format!("/api/prints/{id}/outcome");
    answered(app.post(&path, &body).await, "outcome", edge).await;
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

#[actix_web::test]
async fn inputs_at_and_beyond_their_limits_never_answer_a_server_error() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut runner = TestRunner::new(Config::default());
    let strategy = edge();
    for _ in 0..cases() {
        let edge = strategy.new_tree(&mut runner).unwrap().current();
        run(&app, &shop, &edge).await;
    }
    let answers = ANSWERS.lock().unwrap().clone();
    eprintln!("{} cases: {answers:?}", cases());
    for taken in [
        ("draft", 201),
        ("draft", 422),
        ("outcome", 200),
        ("outcome", 422),
        ("pricing", 200),
        ("pricing", 422),
    ] {
        assert!(
            answers.contains_key(&taken),
            "no {taken:?} among {answers:?}"
        );
    }
    for path in [
        "/api/prints?pageSize=100",
        "/api/prints?status=DONE",
        "/api/dashboard?period=all",
        "/api/prints/export",
        "/api/health",
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status(), 200, "{path}: {:?}", res.text().await);
    }
}
