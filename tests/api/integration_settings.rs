//! `GET/PATCH /api/settings/integrations`: enablement, URLs and write-only credentials over the
//! environment's defaults.

use crate::support::{
    TestApp, assert_error, assert_field_error, location, page, signed_in, submit,
};
use actors::integrations::settings::{PeerUrl, Secret};
use serde_json::{Value, json};

const SECRET: &str = "Bearer do-not-leak-7f3a";

async fn settings(app: &TestApp) -> Value {
    let res = app.get("/api/settings/integrations").await;
    assert_eq!(res.status(), 200);
    let text = res.text().await.unwrap();
    assert!(!text.contains("do-not-leak"), "a credential in {text}");
    serde_json::from_str(&text).unwrap()
}

#[actix_web::test]
async fn both_integrations_start_off_and_unconfigured() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_eq!(
        settings(&app).await,
        json!({
            "spoolmgr": {"enabled": false, "url": null, "authorizationConfigured": false},
            "printfleet": {"enabled": false, "url": null, "apiKeyConfigured": false},
        })
    );
}

#[actix_web::test]
async fn the_environment_gives_defaults_until_a_setting_is_changed() {
    let app = TestApp::spawn_with(|config| {
        config.integrations.spoolmgr_url = PeerUrl::parse("http://spoolman.lan:7912").ok();
        config.integrations.spoolmgr_authorization = Secret::new(SECRET);
        config.integrations.printfleet_api_key = Secret::new("fleet-key-do-not-leak");
    })
    .await;
    app.setup().await;
    let found = settings(&app).await;
    assert_eq!(found["spoolmgr"]["url"], "http://spoolman.lan:7912");
    assert_eq!(found["spoolmgr"]["authorizationConfigured"], true);
    assert_eq!(found["printfleet"]["apiKeyConfigured"], true);

    // An omitted credential keeps the environment's; null removes it.
    let change = json!({"spoolmgr": {"enabled": true, "url": "http://other.lan"}});
    let res = app.patch("/api/settings/integrations", &change).await;
    assert_eq!(res.status(), 200);
    let found = settings(&app).await;
    assert_eq!(found["spoolmgr"]["url"], "http://other.lan");
    assert_eq!(found["spoolmgr"]["authorizationConfigured"], true);
    let remove = json!({"printfleet": {"enabled": false, "url": null, "apiKey": null}});
    app.patch("/api/settings/integrations", &remove).await;
    let found = settings(&app).await;
    assert_eq!(found["printfleet"]["apiKeyConfigured"], false);
    assert_eq!(
        found["spoolmgr"]["enabled"], true,
        "the other one unchanged"
    );
}

#[actix_web::test]
async fn credentials_are_write_only_and_replaced_by_text() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let change = json!({
        "spoolmgr": {"enabled": true, "url": "http://spoolman.lan:7912/", "authorization": SECRET},
        "printfleet": {"enabled": true, "url": null, "apiKey": "fleet-key-do-not-leak"},
    });
    let res = app.patch("/api/settings/integrations", &change).await;
    assert_eq!(res.status(), 200);
    assert!(!res.text().await.unwrap().contains("do-not-leak"));
    let found = settings(&app).await;
    assert_eq!(
        found,
        json!({
            "spoolmgr": {"enabled": true, "url": "http://spoolman.lan:7912", "authorizationConfigured": true},
            "printfleet": {"enabled": true, "url": null, "apiKeyConfigured": true},
        }),
        "enabled before its connection is complete"
    );
}

#[actix_web::test]
async fn bad_changes_are_refused_by_field() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let path = "/api/settings/integrations";
    for (url, what) in [
        ("ftp://spoolman.lan", "scheme"),
        ("http://user:pw@spoolman.lan", "user info"),
        ("http://spoolman.lan/?token=1", "query"),
    ] {
        let change = json!({"spoolmgr": {"enabled": false, "url": url}});
        let res = app.patch(path, &change).await;
        assert_eq!(res.status(), 422, "{what}");
        assert_field_error(res, "spoolmgr.url", "errors.invalidUrl").await;
    }
    let missing = json!({"spoolmgr": {"enabled": true}});
    assert_field_error(
        app.patch(path, &missing).await,
        "spoolmgr.url",
        "errors.required",
    )
    .await;
    let unknown = json!({"spoolman": {"enabled": true, "url": null}});
    assert_field_error(
        app.patch(path, &unknown).await,
        "spoolman",
        "errors.unknownField",
    )
    .await;
    let anonymous = reqwest::Client::new();
    let res = anonymous.get(app.url(path)).send().await.unwrap();
    assert_error(res, 401, "UNAUTHENTICATED").await;
}

#[actix_web::test]
async fn the_spool_manager_follows_spool_management() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let path = "/api/settings/integrations";
    let on = json!({"spoolmgr": {"enabled": true, "url": "http://spoolman.lan", "authorization": SECRET}});
    assert_eq!(app.patch(path, &on).await.status(), 200);
    let off = json!({"spoolManagementEnabled": false});
    app.patch("/api/settings/features", &off).await;
    let found = settings(&app).await;
    assert_eq!(
        found["spoolmgr"],
        json!({"enabled": false, "url": "http://spoolman.lan", "authorizationConfigured": true}),
        "switched off with spool management; URL and credential stay"
    );
    assert_error(app.patch(path, &on).await, 409, "SPOOL_MANAGEMENT_DISABLED").await;
    let fleet = json!({"printfleet": {"enabled": true, "url": "http://fleet.lan"}});
    assert_eq!(
        app.patch(path, &fleet).await.status(),
        200,
        "the printer fleet does not need spool management"
    );
    app.patch(
        "/api/settings/features",
        &json!({"spoolManagementEnabled": true}),
    )
    .await;
    assert_eq!(
        settings(&app).await["spoolmgr"]["enabled"],
        false,
        "switching spool management on again does not switch the spool manager on"
    );
}

#[actix_web::test]
async fn the_integrations_page_sets_urls_and_credentials_without_showing_them() {
    let (app, client) = signed_in().await;
    let (status, body) = page(&client, &app, "/settings/integrations").await;
    assert_eq!(status, 200);
    assert!(
        body.contains(r#"name="spoolmgr.url""#) && body.contains(r#"name="printfleet.apiKey""#)
    );

    let bad = [("spoolmgr.enabled", "on"), ("spoolmgr.url", "ftp://nope")];
    let res = submit(&client, &app, "/settings/integrations", &bad).await;
    assert_eq!(res.status().as_u16(), 422);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains(r#"id="spoolmgr.url-fault""#)
    );
    assert_eq!(
        settings(&app).await["spoolmgr"]["enabled"],
        false,
        "nothing stored"
    );

    let good = [
        ("spoolmgr.enabled", "on"),
        ("spoolmgr.url", "http://spoolman.lan:7912"),
        ("spoolmgr.authorization", SECRET),
        ("printfleet.url", ""),
    ];
    let res = submit(&client, &app, "/settings/integrations", &good).await;
    assert_eq!(location(&res), "/settings/integrations?saved");
    let found = settings(&app).await;
    assert_eq!(found["spoolmgr"]["authorizationConfigured"], true);
    assert_eq!(found["spoolmgr"]["url"], "http://spoolman.lan:7912");
    let (_, body) = page(&client, &app, "/settings/integrations").await;
    assert!(
        !body.contains("do-not-leak"),
        "the page shows no credential"
    );
    assert!(body.contains(r#"name="spoolmgr.removeCredential""#));

    let keep = [
        ("spoolmgr.enabled", "on"),
        ("spoolmgr.url", "http://spoolman.lan:7912"),
    ];
    submit(&client, &app, "/settings/integrations", &keep).await;
    assert_eq!(
        settings(&app).await["spoolmgr"]["authorizationConfigured"],
        true,
        "empty keeps"
    );
    let remove = [
        ("spoolmgr.url", "http://spoolman.lan:7912"),
        ("spoolmgr.removeCredential", "on"),
    ];
    submit(&client, &app, "/settings/integrations", &remove).await;
    let found = settings(&app).await;
    assert_eq!(found["spoolmgr"]["authorizationConfigured"], false);
    assert_eq!(found["spoolmgr"]["enabled"], false);
}
