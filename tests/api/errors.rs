//! Cross-cutting error paths: Origin, sessions, unknown routes, malformed input, headers.

use crate::support;
use crate::support::{TestApp, assert_error, assert_field_error, draft, shop};
use serde_json::json;

#[actix_web::test]
async fn writes_need_a_matching_origin() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let body = json!({"name": "Jane"});
    let missing = reqwest::Client::new()
        .post(app.url("/api/customers"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_error(missing, 403, "FORBIDDEN_ORIGIN").await;
    let foreign = app
        .client
        .post(app.url("/api/customers"))
        .header("Origin", "http://evil.example")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_error(foreign, 403, "FORBIDDEN_ORIGIN").await;
    let other_port = app
        .client
        .delete(app.url("/api/customers/x"))
        .header("Origin", "http://127.0.0.1:1")
        .send()
        .await
        .unwrap();
    assert_error(other_port, 403, "FORBIDDEN_ORIGIN").await;
    let login = reqwest::Client::new()
        .post(app.url("/api/auth/login"))
        .json(&json!({"email": "ada@example.com", "password": "x"}))
        .send()
        .await
        .unwrap();
    assert_error(login, 403, "FORBIDDEN_ORIGIN").await;
    let list: serde_json::Value = app.get("/api/customers").await.json().await.unwrap();
    assert_eq!(list["total"], 0, "refused writes wrote nothing");
    let read = reqwest::Client::new()
        .get(app.url("/api/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200, "reads need no Origin");
}

/// A write whose Origin is what `X-Forwarded-Host` / `Forwarded` claim, and the QR code of a
/// spool asked for with those headers: (write status, QR code with the headers, without).
async fn forwarded(app: &TestApp) -> (u16, String, String) {
    let write = app
        .client
        .post(app.url("/api/customers"))
        .header("Origin", "http://evil.example")
        .header("X-Forwarded-Host", "evil.example")
        .header("Forwarded", "host=evil.example;proto=http")
        .json(&json!({"name": "Forwarded"}))
        .send()
        .await
        .unwrap();
    let shop = shop(app).await;
    let spool = support::first_spool(app, &shop.filament).await;
    let qr = format!("/api/spools/{}/qr", spool["id"].as_str().unwrap());
    let claimed = app
        .client
        .get(app.url(&qr))
        .header("X-Forwarded-Host", "evil.example")
        .send()
        .await
        .unwrap();
    let plain = app.get(&qr).await.text().await.unwrap();
    (
        write.status().as_u16(),
        claimed.text().await.unwrap(),
        plain,
    )
}

#[actix_web::test]
async fn forwarding_headers_count_only_from_a_trusted_proxy() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let (status, claimed, plain) = forwarded(&app).await;
    assert_eq!(status, 403, "an untrusted peer cannot name its origin");
    assert_eq!(claimed, plain, "the QR code ignores the claim");
    let proxied =
        TestApp::spawn_with(|c| c.trusted_proxies = vec!["127.0.0.1".parse().unwrap()]).await;
    proxied.setup().await;
    let (status, claimed, plain) = forwarded(&proxied).await;
    assert_eq!(status, 201, "the trusted proxy's headers name the origin");
    assert_ne!(claimed, plain, "the QR code follows the proxy");
}

#[actix_web::test]
async fn protected_routes_need_a_session() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let stranger = app.browser();
    for path in [
        "/api/customers",
        "/api/manufacturers",
        "/api/printers",
        "/api/components",
        "/api/filaments",
        "/api/settings",
    ] {
        assert_error(
            stranger.get(app.url(path)).send().await.unwrap(),
            401,
            "UNAUTHENTICATED",
        )
        .await;
    }
    let forged = stranger
        .get(app.url("/api/customers"))
        .header("Cookie", "print-cost-session=00ff")
        .send()
        .await
        .unwrap();
    assert_error(forged, 401, "UNAUTHENTICATED").await;
    let create = stranger
        .post(app.url("/api/customers"))
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_error(create, 401, "UNAUTHENTICATED").await;
}

#[actix_web::test]
async fn unknown_routes_and_ids_are_404() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_error(app.get("/api/nothing-here").await, 404, "NOT_FOUND").await;
    assert_error(app.get("/nothing-here").await, 404, "NOT_FOUND").await;
    assert_error(app.get("/api/customers/not-a-uuid").await, 404, "NOT_FOUND").await;
    assert_error(
        app.get("/api/customers/01a1fca8-547d-7442-9d4e-aa020ca898c4")
            .await,
        404,
        "NOT_FOUND",
    )
    .await;
    assert_error(
        app.delete("/api/printers/01a1fca8-547d-7442-9d4e-aa020ca898c4")
            .await,
        404,
        "NOT_FOUND",
    )
    .await;
}

#[actix_web::test]
async fn malformed_bodies_are_422() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let malformed = app
        .client
        .post(app.url("/api/customers"))
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_field_error(malformed, "", "errors.malformedJson").await;
    let not_object = app.post("/api/customers", &json!([1, 2])).await;
    assert_error(not_object, 422, "VALIDATION_FAILED").await;
    assert_field_error(
        app.post("/api/customers", &json!({"name": "Jane", "vip": true}))
            .await,
        "vip",
        "errors.unknownField",
    )
    .await;
    assert_field_error(
        app.post("/api/customers", &json!({"name": 7})).await,
        "name",
        "errors.invalidType",
    )
    .await;
    assert_field_error(
        app.post("/api/customers", &json!({"name": "  "})).await,
        "name",
        "errors.required",
    )
    .await;
    let big = "x".repeat(web::MAX_BODY_BYTES + 1);
    let too_large = app.post("/api/customers", &json!({"name": big})).await;
    assert_error(too_large, 422, "VALIDATION_FAILED").await;
}

#[actix_web::test]
async fn malformed_queries_are_422() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_field_error(
        app.get("/api/customers?pageSize=101").await,
        "pageSize",
        "errors.outOfRange",
    )
    .await;
    assert_field_error(
        app.get("/api/customers?pageSize=0").await,
        "pageSize",
        "errors.outOfRange",
    )
    .await;
    assert_field_error(
        app.get("/api/customers?page=x").await,
        "page",
        "errors.invalidType",
    )
    .await;
    assert_field_error(
        app.get("/api/customers?includeArchived=yes").await,
        "includeArchived",
        "errors.invalidType",
    )
    .await;
}

#[actix_web::test]
async fn queries_refuse_unknown_parameters_and_list_every_fault() {
    let app = TestApp::spawn().await;
    app.setup().await;
    for (path, name) in [
        ("/api/prints?bogus=1", "bogus"),
        ("/api/customers?type=HOTEND", "type"),
        ("/api/spools?availableonly=true", "availableonly"),
        ("/api/dashboard?range=30d", "range"),
        ("/api/search?q=ab&limit=5", "limit"),
        ("/api/series?status=OPEN", "status"),
    ] {
        assert_field_error(app.get(path).await, name, "errors.unknownField").await;
    }
    let body = assert_error(
        app.get("/api/components?pageSize=0&type=GEAR&printerId=x&extra=1")
            .await,
        422,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(
        body["data"]["fieldErrors"],
        json!([
            {"path": "pageSize", "messageKey": "errors.outOfRange"},
            {"path": "type", "messageKey": "errors.invalidValue"},
            {"path": "printerId", "messageKey": "errors.invalidId"},
            {"path": "extra", "messageKey": "errors.unknownField"},
        ]),
        "every fault at once, in the order of the parameters' documentation"
    );
    let res = app
        .get("/api/components?type=HOTEND&alwaysUsed=false")
        .await;
    assert_eq!(res.status(), 200, "documented parameters are taken");
}

#[actix_web::test]
async fn bodies_list_every_fault_at_once() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let body = assert_error(
        app.post(
            "/api/prints",
            &json!({
                "name": " ",
                "quantity": "two",
                "customerId": "nobody",
                "filaments": [
                    {"filamentId": "0190c3d2-7a8b-7c9d-8e0f-112233445566", "usedGrams": "-1"},
                    {"usedGrams": "1e3", "colour": "red"},
                ],
                "discount": "10",
            }),
        )
        .await,
        422,
        "VALIDATION_FAILED",
    )
    .await;
    let mut found: Vec<(String, String)> = body["data"]["fieldErrors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["messageKey"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    let mut wanted: Vec<(String, String)> = [
        ("customerId", "errors.invalidId"),
        ("discount", "errors.unknownField"),
        ("filaments[0].usedGrams", "errors.negative"),
        ("filaments[1].colour", "errors.unknownField"),
        ("filaments[1].filamentId", "errors.required"),
        ("filaments[1].usedGrams", "errors.invalidDecimal"),
        ("name", "errors.required"),
        ("quantity", "errors.invalidType"),
    ]
    .iter()
    .map(|(p, k)| (p.to_string(), k.to_string()))
    .collect();
    wanted.sort();
    assert_eq!(found, wanted, "one entry per fault: {body}");
    assert_eq!(
        app.get("/api/prints")
            .await
            .json::<serde_json::Value>()
            .await
            .unwrap()["total"],
        0,
        "nothing written"
    );
    let res = app
        .post(
            "/api/customers",
            &json!({"name": "Ada", "email": 5, "note": ["x"]}),
        )
        .await;
    let body = assert_error(res, 422, "VALIDATION_FAILED").await;
    assert_eq!(
        body["data"]["fieldErrors"],
        json!([
            {"path": "email", "messageKey": "errors.invalidType"},
            {"path": "note", "messageKey": "errors.invalidType"},
        ]),
        "in the order of the body"
    );
}

#[actix_web::test]
async fn a_whole_number_written_with_a_fraction_is_an_integer() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Stand");
    body["quantity"] = json!(3.0);
    body["parts"][0]["hotends"][0]["durationSeconds"] = json!(36e2);
    let res = app.post("/api/prints", &body).await;
    assert_eq!(res.status(), 201, "JSON Schema's integer 3.0 is taken");
    let print: serde_json::Value = res.json().await.unwrap();
    assert_eq!(print["quantity"], 3);
    assert_eq!(print["parts"][0]["hotends"][0]["durationSeconds"], 3600);
    body["quantity"] = json!(2.5);
    assert_field_error(
        app.post("/api/prints", &body).await,
        "quantity",
        "errors.invalidType",
    )
    .await;
}

#[actix_web::test]
async fn every_response_carries_the_security_headers_and_a_request_id() {
    let app = TestApp::spawn().await;
    for path in ["/api/health", "/api/nothing", "/api-reference/"] {
        let res = app.get(path).await;
        let headers = res.headers();
        let csp = headers
            .get("content-security-policy")
            .unwrap()
            .to_str()
            .unwrap();
        assert!(
            csp.contains("default-src 'self'")
                && csp.contains("script-src 'self'")
                && csp.contains("frame-ancestors 'none'"),
            "{path}: {csp}"
        );
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(headers.get("x-content-type-options").unwrap(), "nosniff");
        assert_eq!(headers.get("referrer-policy").unwrap(), "same-origin");
        assert_eq!(headers.get("x-frame-options").unwrap(), "DENY");
        assert_eq!(headers.get("x-request-id").unwrap().len(), 32, "{path}");
    }
}

/// What the document's schemas refuse, the server refuses (schemathesis' negative checks found
/// these): an empty id, choice or instant in the query, a page beyond int32, a series target
/// and a step's machine power above their maxima. A UI filter form's empty fields stay no
/// filter.
#[actix_web::test]
async fn values_the_schemas_refuse_are_refused() {
    let app = TestApp::spawn().await;
    app.setup().await;
    for (path, at) in [
        ("/api/components?printerId=", "printerId"),
        ("/api/dashboard?period=", "period"),
        ("/api/journal?until=", "until"),
        ("/api/prints?status=", "status"),
        ("/api/customers?page=2147483648", "page"),
    ] {
        let key = match at {
            "page" => "errors.outOfRange",
            _ => "",
        };
        let body = assert_error(app.get(path).await, 422, "VALIDATION_FAILED").await;
        let fault = &body["data"]["fieldErrors"][0];
        assert_eq!(fault["path"], at, "{path}: {body}");
        if !key.is_empty() {
            assert_eq!(fault["messageKey"], key, "{path}: {body}");
        }
    }
    assert_eq!(
        app.get("/api/customers?page=2147483647").await.status(),
        200
    );
    assert_eq!(
        app.get("/api/customers?search=").await.status(),
        200,
        "an empty search"
    );
    let on = json!({"printSeriesEnabled": true});
    assert_eq!(app.patch("/api/settings/features", &on).await.status(), 200);
    let series = json!({"name": "Pokale", "target": 1_000_001});
    assert_field_error(
        app.post("/api/series", &series).await,
        "target",
        "errors.outOfRange",
    )
    .await;
    let rate = app
        .create(
            "/api/labour-rates",
            &json!({"name": "Sanding", "hourlyRate": "45"}),
        )
        .await;
    let step = json!({"name": "Cure", "labourRateId": rate["id"], "minutes": "5", "per": "PIECE",
                      "machine": {"name": "UV", "purchasePrice": "90", "expectedLifetimeHours": "1000",
                                  "averagePowerWatts": 100_001, "minutes": "10"}});
    let res = app.post("/api/post-processing-steps", &step).await;
    assert_field_error(res, "machine.averagePowerWatts", "errors.outOfRange").await;
    let client = support::logged_in(&app).await;
    let (status, _) = support::page(&client, &app, "/prints?status=&printerId=").await;
    assert_eq!(status, 200, "a form's empty fields are no filter");
}
