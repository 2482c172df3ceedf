//! Setup, login, session, logout, preferences, password change, throttling.

use crate::support::{EMAIL, PASSWORD, TestApp, assert_error, assert_field_error, setup_body};
use serde_json::{Value, json};
use web::throttle;

#[actix_web::test]
async fn setup_runs_once_and_logs_the_account_in() {
    let app = TestApp::spawn().await;
    let status: Value = app
        .get("/api/auth/setup-status")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(status, json!({"initialized": false}));
    assert_eq!(
        app.get("/api/auth/session")
            .await
            .json::<Value>()
            .await
            .unwrap(),
        json!({"user": null})
    );

    let res = app.post("/api/auth/setup", &setup_body()).await;
    assert_eq!(res.status(), 201);
    let cookie = res
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(cookie.starts_with("print-cost-session="), "{cookie}");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="] {
        assert!(
            cookie.contains(attribute),
            "{attribute} missing in {cookie}"
        );
    }
    assert!(
        !cookie.contains("Secure"),
        "plain http origin must not set Secure: {cookie}"
    );
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["user"]["email"], EMAIL);
    assert_eq!(body["user"]["displayName"], "Ada");
    assert_eq!(body["user"]["locale"], "en-US");
    assert!(body["user"].get("passwordHash").is_none());

    let status: Value = app
        .get("/api/auth/setup-status")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(status, json!({"initialized": true}));
    let session: Value = app.get("/api/auth/session").await.json().await.unwrap();
    assert_eq!(session["user"]["email"], EMAIL);

    let again = app
        .browser()
        .post(app.url("/api/auth/setup"))
        .json(&setup_body())
        .send()
        .await
        .unwrap();
    assert_error(again, 409, "SETUP_COMPLETED").await;
}

#[actix_web::test]
async fn setup_validates_its_input() {
    let app = TestApp::spawn().await;
    let mut short = setup_body();
    short["password"] = json!("elevenchars");
    assert_field_error(
        app.post("/api/auth/setup", &short).await,
        "password",
        "errors.passwordTooShort",
    )
    .await;
    let mut locale = setup_body();
    locale["locale"] = json!("fr-FR");
    assert_field_error(
        app.post("/api/auth/setup", &locale).await,
        "locale",
        "errors.unsupportedLocale",
    )
    .await;
    let mut missing = setup_body();
    missing.as_object_mut().unwrap().remove("email");
    assert_field_error(
        app.post("/api/auth/setup", &missing).await,
        "email",
        "errors.required",
    )
    .await;
    let mut number = setup_body();
    number["electricityPrice"] = json!(0.32);
    assert_field_error(
        app.post("/api/auth/setup", &number).await,
        "electricityPrice",
        "errors.invalidType",
    )
    .await;
    let status: Value = app
        .get("/api/auth/setup-status")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        status,
        json!({"initialized": false}),
        "a refused setup must write nothing"
    );
}

#[actix_web::test]
async fn demo_data_fills_the_inventory() {
    let app = TestApp::spawn().await;
    let mut body = setup_body();
    body["createDemoData"] = json!(true);
    assert_eq!(app.post("/api/auth/setup", &body).await.status(), 201);
    for (path, at_least) in [
        ("/api/manufacturers", 3),
        ("/api/printers", 2),
        ("/api/components", 5),
        ("/api/filaments", 4),
        ("/api/customers", 3),
    ] {
        let list: Value = app.get(path).await.json().await.unwrap();
        assert!(
            list["total"].as_u64().unwrap() >= at_least,
            "{path}: {list}"
        );
    }
    let hotends: Value = app
        .get("/api/components?type=HOTEND")
        .await
        .json()
        .await
        .unwrap();
    assert!(
        hotends["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["type"] == "HOTEND")
    );
}

#[actix_web::test]
async fn demo_data_and_the_lines_the_appliance_writes_are_in_the_language_chosen_at_setup() {
    let app = TestApp::spawn().await;
    let mut body = setup_body();
    body["createDemoData"] = json!(true);
    body["locale"] = json!("de-DE");
    assert_eq!(app.post("/api/auth/setup", &body).await.status(), 201);
    let prints = app
        .json("/api/prints?includeArchived=true&pageSize=50")
        .await;
    let names: Vec<&str> = prints["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"Roboter-Chassis"), "{names:?}");
    assert!(!names.contains(&"Robot chassis"), "{names:?}");
    let failed = prints["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Roboter-Chassis")
        .unwrap();
    let failed = app
        .json(&format!("/api/prints/{}", failed["id"].as_str().unwrap()))
        .await;
    assert_eq!(
        failed["outcome"]["failureReason"],
        "Schichtversatz bei 60 %"
    );
    // A spool opened now writes its opening receipt in German too.
    let spools = app.json("/api/spools?pageSize=50").await;
    let spool = spools["items"][0]["id"].as_str().unwrap();
    let ledger = app.json(&format!("/api/spools/{spool}")).await;
    let notes: Vec<&str> = ledger["movements"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["note"].as_str())
        .collect();
    assert!(notes.contains(&"Anfangsbestand"), "{notes:?}");
}

#[actix_web::test]
async fn login_failures_are_uniform_and_throttled() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let stranger = app.browser();
    let login = |email: &str, password: &str| json!({"email": email, "password": password});

    let wrong = stranger
        .post(app.url("/api/auth/login"))
        .json(&login(EMAIL, "wrong password!"))
        .send()
        .await
        .unwrap();
    let wrong = assert_error(wrong, 401, "INVALID_CREDENTIALS").await;
    let unknown = stranger
        .post(app.url("/api/auth/login"))
        .json(&login("nobody@example.com", "wrong password!"))
        .send()
        .await
        .unwrap();
    let unknown = assert_error(unknown, 401, "INVALID_CREDENTIALS").await;
    assert_eq!(wrong["message"], unknown["message"]);
    assert_eq!(wrong["data"]["messageKey"], unknown["data"]["messageKey"]);

    let ok = stranger
        .post(app.url("/api/auth/login"))
        .json(&login(EMAIL, PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.json::<Value>().await.unwrap()["user"]["email"], EMAIL);

    for _ in 0..5 {
        let res = stranger
            .post(app.url("/api/auth/login"))
            .json(&login(EMAIL, "wrong password!"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 401);
    }
    let blocked = stranger
        .post(app.url("/api/auth/login"))
        .json(&login(EMAIL, PASSWORD))
        .send()
        .await
        .unwrap();
    let retry_after: u64 = blocked
        .headers()
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry_after));
    assert_error(blocked, 429, "RATE_LIMITED").await;
}

#[actix_web::test]
async fn logout_ends_the_session() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_eq!(app.get("/api/customers").await.status(), 200);
    let res = app.post("/api/auth/logout", &json!({})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"ok": true}));
    assert_eq!(
        app.get("/api/auth/session")
            .await
            .json::<Value>()
            .await
            .unwrap(),
        json!({"user": null})
    );
    assert_error(app.get("/api/customers").await, 401, "UNAUTHENTICATED").await;
    assert_error(
        app.post("/api/auth/logout", &json!({})).await,
        401,
        "UNAUTHENTICATED",
    )
    .await;
}

#[actix_web::test]
async fn preferences_set_the_locale() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let res = app
        .patch("/api/auth/preferences", &json!({"locale": "de-DE"}))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["locale"], "de-DE");
    let session: Value = app.get("/api/auth/session").await.json().await.unwrap();
    assert_eq!(session["user"]["locale"], "de-DE");
    let bad = app
        .patch("/api/auth/preferences", &json!({"locale": "xx"}))
        .await;
    assert_field_error(bad, "locale", "errors.unsupportedLocale").await;
    let anonymous = app
        .browser()
        .patch(app.url("/api/auth/preferences"))
        .json(&json!({"locale": "de-DE"}))
        .send()
        .await
        .unwrap();
    assert_error(anonymous, 401, "UNAUTHENTICATED").await;
}

#[actix_web::test]
async fn a_password_change_ends_every_other_session() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let other = app.browser();
    let login = json!({"email": EMAIL, "password": PASSWORD});
    assert_eq!(
        other
            .post(app.url("/api/auth/login"))
            .json(&login)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );

    let wrong = app
        .patch(
            "/api/auth/password",
            &json!({"currentPassword": "not it at all", "newPassword": "a brand new passphrase"}),
        )
        .await;
    assert_error(wrong, 401, "INVALID_CREDENTIALS").await;
    let short = app
        .patch(
            "/api/auth/password",
            &json!({"currentPassword": PASSWORD, "newPassword": "short"}),
        )
        .await;
    assert_field_error(short, "newPassword", "errors.passwordTooShort").await;

    let res = app
        .patch(
            "/api/auth/password",
            &json!({"currentPassword": PASSWORD, "newPassword": "a brand new passphrase"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        app.get("/api/customers").await.status(),
        200,
        "the changing session stays"
    );
    assert_error(
        other.get(app.url("/api/customers")).send().await.unwrap(),
        401,
        "UNAUTHENTICATED",
    )
    .await;

    let old = other
        .post(app.url("/api/auth/login"))
        .json(&login)
        .send()
        .await
        .unwrap();
    assert_error(old, 401, "INVALID_CREDENTIALS").await;
    let new = other
        .post(app.url("/api/auth/login"))
        .json(&json!({"email": EMAIL, "password": "a brand new passphrase"}))
        .send()
        .await
        .unwrap();
    assert_eq!(new.status(), 200);
}

#[actix_web::test]
async fn wrong_current_passwords_are_throttled_like_logins() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let wrong =
        json!({"currentPassword": "not it at all", "newPassword": "a brand new passphrase"});
    for _ in 0..throttle::FREE_FAILURES {
        let res = app.patch("/api/auth/password", &wrong).await;
        assert_error(res, 401, "INVALID_CREDENTIALS").await;
    }
    let right = json!({"currentPassword": PASSWORD, "newPassword": "a brand new passphrase"});
    let blocked = app.patch("/api/auth/password", &right).await;
    let retry: u64 = blocked.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 0);
    assert_error(blocked, 429, "RATE_LIMITED").await;
    // The account's logins wait too: one count for the email.
    let login = json!({"email": EMAIL, "password": PASSWORD});
    assert_error(
        app.post("/api/auth/login", &login).await,
        429,
        "RATE_LIMITED",
    )
    .await;
}
