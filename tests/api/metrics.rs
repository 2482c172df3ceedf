//! `GET /metrics` over a real socket: refused without the token set in the settings, with a
//! wrong one or none; with it, the Prometheus text format that Debian's `promtool check
//! metrics` accepts, holding the requests, writers, stock and prints of this run.

use crate::spools::{filament, spool};
use crate::support::{TestApp, assert_error};
use reqwest::Response;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

const TOKEN: &str = "scrape-token-0123456789";

async fn scrape(app: &TestApp, token: Option<&str>) -> Response {
    let mut request = reqwest::Client::new().get(app.url("/metrics"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn put_token(app: &TestApp, token: Value) -> Response {
    app.client
        .put(app.url("/api/settings/metrics"))
        .json(&json!({ "token": token }))
        .send()
        .await
        .unwrap()
}

/// The value of the sample `name{labels}` (labels as written, in the encoder's order).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// `promtool check metrics` on `text`: its exit status and what it printed.
fn promtool(text: &str) -> (bool, String) {
    let promtool = std::env::var("PRINTCOST_PROMTOOL")
        .expect("PRINTCOST_PROMTOOL names promtool (scripts/test unpacks Debian's)");
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

#[actix_web::test]
async fn metrics_need_the_token_and_pass_promtool() {
    let app = TestApp::spawn().await;
    app.setup().await;
    // No token set: every scrape is refused, with one or without.
    assert_error(scrape(&app, None).await, 401, "UNAUTHENTICATED").await;
    assert_error(scrape(&app, Some(TOKEN)).await, 401, "UNAUTHENTICATED").await;

    for (token, key) in [
        ("short", "errors.tooShort"),
        ("with a space in it ok", "errors.invalidValue"),
    ] {
        let body = assert_error(
            put_token(&app, json!(token)).await,
            422,
            "VALIDATION_FAILED",
        )
        .await;
        assert_eq!(body["data"]["fieldErrors"][0]["path"], "token");
        assert_eq!(body["data"]["fieldErrors"][0]["messageKey"], key);
    }
    let set: Value = put_token(&app, json!(TOKEN)).await.json().await.unwrap();
    assert_eq!(set, json!({"tokenSet": true}));
    let read: Value = app.get("/api/settings/metrics").await.json().await.unwrap();
    assert_eq!(
        read,
        json!({"tokenSet": true}),
        "the token is never returned"
    );

    assert_error(scrape(&app, None).await, 401, "UNAUTHENTICATED").await;
    assert_error(
        scrape(&app, Some("scrape-token-wrong-456789")).await,
        401,
        "UNAUTHENTICATED",
    )
    .await;

    // Something to count: a filament (its first spool of 750 g is opened with it) and a spool
    // of 1,000 g. Counters and histograms are the process's, shared with the tests running
    // beside this one: they are at least what this test did; the levels are this app's.
    let filament = filament(&app).await;
    spool(&app, &filament, "M-1", "20", "1000").await;

    let res = scrape(&app, Some(TOKEN)).await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = res.text().await.unwrap();
    let (passed, said) = promtool(&text);
    assert!(passed, "promtool check metrics: {said}\n{text}");
    // The check can fail: a counter without `_total` is reported.
    let (passed, _) = promtool("# HELP x_requests X.\n# TYPE x_requests counter\nx_requests 1\n");
    assert!(!passed, "promtool accepted a counter without _total");

    let created = sample(
        &text,
        r#"printcost_http_requests_total{method="POST",route="/api/spools",status="201"}"#,
    );
    assert!(created.is_some_and(|n| n >= 1.0), "{text}");
    let refused = sample(
        &text,
        r#"printcost_http_requests_total{method="PUT",route="/api/settings/metrics",status="422"}"#,
    );
    assert!(refused.is_some_and(|n| n >= 2.0), "{text}");
    assert!(
        text.contains(
            r#"printcost_http_request_duration_seconds_bucket{method="POST",route="/api/spools","#
        ),
        "{text}"
    );
    let stock = format!(
        r#"printcost_filament_stock_grams{{filament="Spool Maker PETG Blue",filament_id="{filament}"}}"#
    );
    assert_eq!(sample(&text, &stock), Some(1750.0), "{text}");
    assert_eq!(
        sample(&text, r#"printcost_prints{status="DONE"}"#),
        Some(0.0),
        "{text}"
    );
    let queued = sample(&text, r#"printcost_writer_queue_depth{writer="ledger"}"#);
    assert!(queued.is_some_and(|n| n >= 0.0), "{text}");
    let commits = sample(
        &text,
        r#"printcost_writer_commit_duration_seconds_count{writer="ledger"}"#,
    );
    assert!(commits.is_some_and(|n| n >= 1.0), "{text}");

    // Removed: refused again.
    let cleared: Value = put_token(&app, Value::Null).await.json().await.unwrap();
    assert_eq!(cleared, json!({"tokenSet": false}));
    assert_error(scrape(&app, Some(TOKEN)).await, 401, "UNAUTHENTICATED").await;
}
