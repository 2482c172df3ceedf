//! Schemathesis (PyPI, pinned in `tests/requirements.txt`, installed by `scripts/test`) against a
//! live service with a session and a seeded shop, for a bounded time, with the checks
//! `not_a_server_error`, `status_code_conformance`, `response_schema_conformance`,
//! `positive_data_acceptance` and `negative_data_rejection` (the session reaches schemathesis as
//! the document's `session` scheme, so it also checks that each operation refuses a request
//! without one). Any finding fails the test; the summary (case count included) is
//! printed. Configuration: `tests/schemathesis/schemathesis.toml`; ids of the seeded records
//! reach the generated bodies through `tests/schemathesis/hooks.py`.

use crate::support::{EMAIL, PASSWORD, TestApp, draft, first_spool, shop};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// Seconds schemathesis may run (the "about 2 minutes"); `PRINTCOST_FUZZ_SECONDS`
/// gives a longer run, for a night.
const MAX_SECONDS: &str = "120";

/// A fresh session cookie, `print-cost-session=…`, for the account [`TestApp::setup`] made.
async fn session_cookie(app: &TestApp) -> String {
    let res = reqwest::Client::new()
        .post(app.url("/api/auth/login"))
        .header("Origin", &app.origin)
        .json(&json!({"email": EMAIL, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let cookie = res.headers()["set-cookie"].to_str().unwrap();
    cookie.split(';').next().unwrap().to_string()
}

/// A shop with one of everything a body can refer to; returns the seeded ids by field name.
async fn seeded(app: &TestApp) -> Value {
    let shop = shop(app).await;
    let id = |v: &Value| v["id"].as_str().unwrap().to_string();
    let spool = first_spool(app, &shop.filament).await;
    let series = app
        .create(
            "/api/series",
            &json!({"name": "Trophies", "customerId": shop.customer, "target": 5}),
        )
        .await;
    let rate = app
        .create(
            "/api/labour-rates",
            &json!({"name": "Sanding", "hourlyRate": "45"}),
        )
        .await;
    let charge = json!({"name": "Setup", "amount": "3.50", "per": "JOB"});
    let charge = app.create("/api/charges", &charge).await;
    let step =
        json!({"name": "Supports", "labourRateId": id(&rate), "minutes": "5", "per": "PIECE"});
    let step = app.create("/api/post-processing-steps", &step).await;
    // A resin printer, its vat, a resin and a consumable in millilitres, each material with
    // its opening bottle.
    let msla = json!({"name": "Resin printer", "manufacturerId": shop.maker, "purchasePrice": "600", "expectedLifetimeHours": "3000", "averagePowerWatts": 60, "technology": "MSLA"});
    let msla = app.create("/api/printers", &msla).await;
    // Its vat's FEP film counted in prints (`PER_PRINT` lines).
    let vat =
        json!({"type": "VAT", "name": "Vat", "purchasePrice": "30", "expectedLifetimePrints": 200});
    let vat = app.create("/api/components", &vat).await;
    let resin = json!({"kind": "RESIN", "manufacturerId": shop.maker, "material": "Standard", "colorName": "Grey", "colorHex": "#808080", "purchasePrice": "34.99", "netQuantity": "1000"});
    let resin = app.create("/api/materials", &resin).await;
    let alcohol = json!({"kind": "CONSUMABLE", "unit": "MILLILITRE", "manufacturerId": shop.maker, "material": "Isopropyl alcohol", "purchasePrice": "9.50", "netQuantity": "1000"});
    let alcohol = app.create("/api/materials", &alcohol).await;
    let mut body = draft(&shop, "Seeded run");
    body["customerId"] = json!(shop.customer);
    body["seriesId"] = series["id"].clone();
    body["work"] = json!([
        {"kind": "LABOUR", "sourceId": id(&rate), "minutes": "7"},
        {"kind": "STEP", "sourceId": id(&step)}
    ]);
    body["materials"] = json!([{"materialId": id(&alcohol), "amount": "5", "per": "PIECE"}]);
    let print = app.done(&body).await;
    let mut quotable = draft(&shop, "Quoted part");
    quotable["customerId"] = json!(shop.customer);
    quotable["salesValue"] = json!("25");
    let quotable = app.create("/api/prints", &quotable).await;
    let manufacturer = app.manufacturer("Seeded Works").await;
    let account = app.json("/api/auth/session").await["user"]["id"].clone();
    json!({
        "accountId": account,
        "manufacturerId": manufacturer,
        "customerId": shop.customer,
        "printerId": shop.printer,
        "componentId": shop.hotend,
        "buildPlateId": shop.plate,
        "otherComponentId": shop.belts,
        "filamentId": shop.filament,
        "spoolId": id(&spool),
        "localSpoolId": id(&spool),
        "seriesId": id(&series),
        "printId": id(&print),
        "sourcePrintId": id(&print),
        "partId": print["parts"][0]["id"],
        "labourRateId": id(&rate),
        "chargeId": id(&charge),
        "stepId": id(&step),
        "quoteDraftId": id(&quotable),
        "mslaPrinterId": id(&msla),
        "vatId": id(&vat),
        "resinId": id(&resin),
        "resinSpoolId": id(&first_spool(app, &id(&resin)).await),
        "consumableId": id(&alcohol),
        "consumableSpoolId": id(&first_spool(app, &id(&alcohol)).await),
    })
}

#[actix_web::test]
async fn schemathesis_finds_nothing_in_the_api() {
    let Some(schemathesis) = std::env::var_os("PRINTCOST_SCHEMATHESIS") else {
        panic!(
            "PRINTCOST_SCHEMATHESIS is not set: run the tests with scripts/test, which installs schemathesis"
        );
    };
    let app = TestApp::spawn().await;
    app.setup().await;
    let ids = seeded(&app).await;
    let cookie = session_cookie(&app).await;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemathesis");
    // The document is for signed-in users: fetched with the session, handed over as a file.
    let document = app.get("/api/openapi.json").await.bytes().await.unwrap();
    let schema = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(schema.path(), &document).unwrap();
    let mut command = Command::new(schemathesis);
    command
        .current_dir(&dir)
        .env("SCHEMATHESIS_HOOKS", dir.join("hooks.py"))
        .env("PRINTCOST_FUZZ_IDS", ids.to_string())
        .env("PRINTCOST_FUZZ_BASE", &app.base)
        .env("PRINTCOST_FUZZ_COOKIE", &cookie)
        .env("NO_COLOR", "1")
        .args(["--config-file", "schemathesis.toml", "run"])
        .arg(schema.path())
        .env(
            "PRINTCOST_FUZZ_SESSION",
            cookie.split_once('=').map_or("", |(_, value)| value),
        )
        .args(["--url", &app.base, "--max-time"])
        .arg(std::env::var("PRINTCOST_FUZZ_SECONDS").unwrap_or_else(|_| MAX_SECONDS.into()))
        .args(["-H", &format!("Origin: {}", app.origin)]);
    // A failure prints its seed; `PRINTCOST_FUZZ_SEED=<seed>` replays that run's cases.
    if let Some(seed) = std::env::var_os("PRINTCOST_FUZZ_SEED") {
        command.arg("--seed").arg(seed);
    }
    let output = actix_web::rt::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout
        .split_once("SUMMARY")
        .map_or(stdout.as_ref(), |(_, s)| s);
    println!("schemathesis:{summary}");
    // What it found first (a long report is cut where CI shows it), then the whole report.
    let found = stdout.split_once("FAILURES").map_or("", |(_, rest)| {
        rest.split_once("SUMMARY").map_or(rest, |(f, _)| f)
    });
    assert!(
        output.status.success(),
        "schemathesis found something:\n{found}\n\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("generated") && !stdout.contains(" 0 generated"),
        "it ran cases: {summary}"
    );
}
