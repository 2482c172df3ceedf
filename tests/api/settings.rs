//! Settings and feature flags.

use crate::support::{TestApp, assert_error, assert_field_error};
use serde_json::{Value, json};

#[actix_web::test]
async fn settings_read_and_replace() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let settings: Value = app.get("/api/settings").await.json().await.unwrap();
    assert_eq!(
        settings,
        json!({"currency": "EUR", "defaultLanguage": "en-US", "electricityPrice": "0.32", "spoolManagementEnabled": true})
    );
    let replaced = json!({"currency": "chf", "defaultLanguage": "de-DE", "electricityPrice": "0.2750", "spoolManagementEnabled": false});
    let res = app.patch("/api/settings", &replaced).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body,
        json!({"currency": "CHF", "defaultLanguage": "de-DE", "electricityPrice": "0.275", "spoolManagementEnabled": false}),
        "currency upper-cased, decimal canonical"
    );
    assert_eq!(
        app.get("/api/settings")
            .await
            .json::<Value>()
            .await
            .unwrap(),
        body
    );

    let partial = app
        .patch("/api/settings", &json!({"currency": "EUR"}))
        .await;
    assert_field_error(partial, "defaultLanguage", "errors.required").await;
    let mut negative = replaced.clone();
    negative["electricityPrice"] = json!("-1");
    assert_field_error(
        app.patch("/api/settings", &negative).await,
        "electricityPrice",
        "errors.negative",
    )
    .await;
    let mut currency = replaced.clone();
    currency["currency"] = json!("EURO");
    assert_field_error(
        app.patch("/api/settings", &currency).await,
        "currency",
        "errors.invalidCurrency",
    )
    .await;
    let anonymous = app
        .browser()
        .get(app.url("/api/settings"))
        .send()
        .await
        .unwrap();
    assert_error(anonymous, 401, "UNAUTHENTICATED").await;
}

#[actix_web::test]
async fn feature_flags_change_one_at_a_time() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let flags: Value = app
        .get("/api/settings/features")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        flags,
        json!({"printSeriesEnabled": true, "spoolManagementEnabled": true})
    );
    let res = app
        .patch(
            "/api/settings/features",
            &json!({"printSeriesEnabled": false}),
        )
        .await;
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"printSeriesEnabled": false, "spoolManagementEnabled": true})
    );
    let res = app
        .patch(
            "/api/settings/features",
            &json!({"spoolManagementEnabled": false}),
        )
        .await;
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"printSeriesEnabled": false, "spoolManagementEnabled": false})
    );
    let settings: Value = app.get("/api/settings").await.json().await.unwrap();
    assert_eq!(settings["spoolManagementEnabled"], false);
    let unknown = app
        .patch("/api/settings/features", &json!({"spools": true}))
        .await;
    assert_field_error(unknown, "spools", "errors.unknownField").await;
    let wrong_type = app
        .patch(
            "/api/settings/features",
            &json!({"printSeriesEnabled": "yes"}),
        )
        .await;
    assert_field_error(wrong_type, "printSeriesEnabled", "errors.invalidType").await;
    assert_error(
        app.browser()
            .get(app.url("/api/settings/features"))
            .send()
            .await
            .unwrap(),
        401,
        "UNAUTHENTICATED",
    )
    .await;
}
