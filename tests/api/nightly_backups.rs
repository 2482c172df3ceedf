//! Nightly backups over a real socket: the schedule (defaults, every field error, a folder that
//! cannot be written), a backup written now, checked and listed, its download, and a run that
//! fails naming its folder.

use crate::support::{TestApp, assert_error};
use serde_json::{Value, json};
use storage::backup::schema_version;

async fn put_schedule(app: &TestApp, body: &Value) -> reqwest::Response {
    app.client
        .put(app.url("/api/backups/schedule"))
        .json(body)
        .send()
        .await
        .unwrap()
}

fn schedule_in(folder: &std::path::Path) -> Value {
    json!({
        "enabled": true,
        "time": "02:30",
        "folder": folder.display().to_string(),
        "keepDays": 3,
        "keepWeeks": 2
    })
}

#[actix_web::test]
async fn the_schedule_has_defaults_and_names_every_field_at_fault() {
    let app = TestApp::spawn().await;
    assert_error(app.get("/api/backups").await, 401, "UNAUTHENTICATED").await;
    app.setup().await;

    let backups: Value = app.get("/api/backups").await.json().await.unwrap();
    let schedule = &backups["schedule"];
    assert_eq!(schedule["enabled"], true);
    assert_eq!(schedule["time"], "03:00");
    assert_eq!(schedule["folder"], Value::Null);
    assert!(
        schedule["effectiveFolder"]
            .as_str()
            .unwrap()
            .ends_with("/backups"),
        "{schedule}"
    );
    assert_eq!(
        (schedule["keepDays"].clone(), schedule["keepWeeks"].clone()),
        (json!(7), json!(4))
    );
    assert_eq!(backups["files"], json!([]));
    assert_eq!(backups["lastRun"], Value::Null);

    let refused = put_schedule(
        &app,
        &json!({"enabled": true, "time": "3 Uhr", "folder": "usb", "keepDays": 0, "keepWeeks": 999}),
    )
    .await;
    let body = assert_error(refused, 422, "VALIDATION_FAILED").await;
    let mut found: Vec<(String, String)> = body["data"]["fieldErrors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["messageKey"].as_str().unwrap().into(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("folder".to_string(), "errors.notAbsolute".to_string()),
            ("keepDays".into(), "errors.outOfRange".into()),
            ("keepWeeks".into(), "errors.outOfRange".into()),
            ("time".into(), "errors.invalidTime".into()),
        ]
    );

    let blocked = tempfile::tempdir().unwrap();
    let file = blocked.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let body = assert_error(
        put_schedule(&app, &schedule_in(&file.join("inside"))).await,
        422,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(
        body["data"]["fieldErrors"][0]["messageKey"],
        "errors.folderNotWritable"
    );

    // Nothing of the refused schedules was stored.
    let backups: Value = app.get("/api/backups").await.json().await.unwrap();
    assert_eq!(backups["schedule"]["time"], "03:00");

    let usb = tempfile::tempdir().unwrap();
    let res = put_schedule(&app, &schedule_in(usb.path())).await;
    assert_eq!(res.status(), 200);
    let stored: Value = res.json().await.unwrap();
    assert_eq!(stored["time"], "02:30");
    assert_eq!(stored["folder"], usb.path().display().to_string());
    assert_eq!(stored["effectiveFolder"], usb.path().display().to_string());
    assert_eq!(
        (stored["keepDays"].clone(), stored["keepWeeks"].clone()),
        (json!(3), json!(2))
    );
}

#[actix_web::test]
async fn a_backup_now_is_checked_listed_and_downloadable_and_a_failed_one_names_its_folder() {
    let app = TestApp::spawn().await;
    assert_error(
        app.post("/api/backups", &json!({})).await,
        401,
        "UNAUTHENTICATED",
    )
    .await;
    app.setup().await;
    let usb = tempfile::tempdir().unwrap();
    assert_eq!(
        put_schedule(&app, &schedule_in(usb.path())).await.status(),
        200
    );

    let written = app.create("/api/backups", &json!({})).await;
    let name = written["name"].as_str().unwrap().to_string();
    assert!(
        name.starts_with("printcost-") && name.ends_with(".redb"),
        "{name}"
    );
    let on_disk = std::fs::read(usb.path().join(&name)).unwrap();
    assert_eq!(written["sizeBytes"], on_disk.len());
    // A store of this schema that holds the setup's account.
    let copy = tempfile::tempdir().unwrap();
    std::fs::write(copy.path().join("printcost.redb"), &on_disk).unwrap();
    assert_eq!(
        schema_version(&copy.path().join("printcost.redb")).unwrap(),
        storage::SCHEMA_VERSION
    );

    let backups: Value = app.get("/api/backups").await.json().await.unwrap();
    assert_eq!(backups["files"][0]["name"], name.as_str());
    assert_eq!(backups["files"][0]["takenAt"], written["takenAt"]);
    assert_eq!(backups["lastRun"]["ok"], true);
    assert_eq!(backups["lastRun"]["file"], name.as_str());

    let download = app.get(&format!("/api/backups/{name}")).await;
    assert_eq!(download.status(), 200);
    assert!(
        download.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(&name)
    );
    assert_eq!(download.bytes().await.unwrap().as_ref(), on_disk.as_slice());

    // Only kept backups are served: nothing else of the folder, nothing beyond it.
    std::fs::write(usb.path().join("notes.txt"), b"private").unwrap();
    for other in [
        "notes.txt",
        "printcost-20000101-000000.redb",
        "..%2Fprintcost.redb",
    ] {
        assert_error(
            app.get(&format!("/api/backups/{other}")).await,
            404,
            "NOT_FOUND",
        )
        .await;
    }

    // The folder turns into a file (a stick pulled and something else mounted there).
    std::fs::remove_dir_all(usb.path()).unwrap();
    std::fs::write(usb.path(), b"").unwrap();
    let body = assert_error(
        app.post("/api/backups", &json!({})).await,
        503,
        "DATABASE_UNAVAILABLE",
    )
    .await;
    let folder = usb.path().display().to_string();
    assert!(
        body["message"].as_str().unwrap().contains(&folder),
        "{body}"
    );
    // The stick back: the page lists what is there and the failed run, until a run succeeds.
    std::fs::remove_file(usb.path()).unwrap();
    std::fs::create_dir(usb.path()).unwrap();
    let backups: Value = app.get("/api/backups").await.json().await.unwrap();
    assert_eq!(backups["files"], json!([]));
    assert_eq!(backups["lastRun"]["ok"], false);
    assert!(
        backups["lastRun"]["error"]
            .as_str()
            .unwrap()
            .contains(&folder),
        "{backups}"
    );
}

/// A set-up box whose backups go to a folder of their own (answered with it).
async fn backing_up_to_a_folder() -> (TestApp, tempfile::TempDir) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let usb = tempfile::tempdir().unwrap();
    assert_eq!(
        put_schedule(&app, &schedule_in(usb.path())).await.status(),
        200
    );
    (app, usb)
}

/// True when `needle` occurs anywhere in `haystack`.
fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[actix_web::test]
async fn a_webhook_token_on_a_box_without_integration_settings_is_left_out_of_a_checked_backup() {
    let (app, usb) = backing_up_to_a_folder().await;
    // The integrations' settings were never saved; a webhook holds a token.
    app.create(
        "/api/settings/alerts/webhooks",
        &json!({"name": "ntfy", "url": "http://127.0.0.1:9/alerts", "form": "NTFY", "kinds": ["LOW_STOCK"], "token": "tk_only-webhook-secret"}),
    )
    .await;
    let written = app.create("/api/backups", &json!({})).await;
    let name = written["name"].as_str().unwrap();
    let on_disk = std::fs::read(usb.path().join(name)).unwrap();
    assert!(!holds(&on_disk, "tk_only-webhook-secret"));
    let backups: Value = app.get("/api/backups").await.json().await.unwrap();
    assert_eq!(backups["lastRun"]["ok"], true, "{backups}");
}

#[actix_web::test]
async fn a_backup_holds_no_byte_of_a_credential_however_often_it_was_changed() {
    let (app, usb) = backing_up_to_a_folder().await;
    let mut secrets = Vec::new();
    for round in 0..5 {
        let header = format!("Bearer spoolman-secret-{round}");
        let key = format!("fleet-key-secret-{round}");
        let token = format!("tk_hook-secret-{round}");
        let change = json!({
            "spoolmgr": {"enabled": false, "url": "http://spoolman.lan:7912", "authorization": header},
            "printfleet": {"enabled": false, "url": "http://bambuddy.lan:8000", "apiKey": key},
        });
        assert_eq!(
            app.patch("/api/settings/integrations", &change)
                .await
                .status(),
            200
        );
        app.create(
            "/api/settings/alerts/webhooks",
            &json!({"name": format!("hook {round}"), "url": "http://127.0.0.1:9/alerts", "form": "NTFY", "kinds": ["LOW_STOCK"], "token": token}),
        )
        .await;
        secrets.extend([header, key, token]);
    }
    let written = app.create("/api/backups", &json!({})).await;
    let on_disk = std::fs::read(usb.path().join(written["name"].as_str().unwrap())).unwrap();
    for secret in &secrets {
        assert!(!holds(&on_disk, secret), "{secret} is in the backup");
    }
    // The download of a backup is the same copy.
    let download = app.get("/api/backup").await;
    assert_eq!(download.status(), 200);
    let downloaded = download.bytes().await.unwrap();
    for secret in &secrets {
        assert!(!holds(&downloaded, secret), "{secret} is in the download");
    }
    // The URLs stay.
    assert!(holds(&on_disk, "bambuddy.lan"));
}
