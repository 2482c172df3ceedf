//! Settings pages' forms over a real socket: the nightly backup's schedule (a refused form at
//! the page's own path, a saved one), a backup written now and listed for download, and the
//! metrics token (refused beside its field, set, removed).

use crate::support::TestApp;
use crate::support::{location, logged_in, page, signed_in, submit};
use reqwest::Client;
use serde_json::Value;

async fn schedule(app: &TestApp, client: &Client, form: &[(&str, &str)]) -> reqwest::Response {
    submit(client, app, "/settings/backup", form).await
}

#[actix_web::test]
async fn the_backup_page_saves_its_schedule_writes_a_backup_and_lists_it() {
    let (app, client) = signed_in().await;
    let (status, body) = page(&client, &app, "/settings/backup").await;
    assert_eq!(status, 200);
    assert!(body.contains(r#"value="03:00""#), "{body}");
    assert!(body.contains(r#"id="backup-folder""#));

    let usb = tempfile::tempdir().unwrap();
    let folder = usb.path().display().to_string();
    let refused = schedule(
        &app,
        &client,
        &[
            ("enabled", "on"),
            ("time", "25:00"),
            ("folder", "usb"),
            ("keepDays", "0"),
            ("keepWeeks", "4"),
        ],
    )
    .await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    for field in ["time", "folder", "keepDays"] {
        assert!(
            body.contains(&format!(r#"id="{field}-fault""#)),
            "{field}: {body}"
        );
    }
    assert!(body.contains(r#"aria-invalid="true""#));
    assert!(body.contains(r#"value="usb""#), "the values are kept");

    let saved = schedule(
        &app,
        &client,
        &[
            ("time", "04:15"),
            ("folder", &folder),
            ("keepDays", "5"),
            ("keepWeeks", "2"),
        ],
    )
    .await;
    assert_eq!(saved.status().as_u16(), 303);
    assert_eq!(location(&saved), "/settings/backup?saved");
    let stored: Value = app.get("/api/backups").await.json().await.unwrap();
    assert_eq!(
        stored["schedule"]["enabled"], false,
        "the box was not ticked"
    );
    assert_eq!(stored["schedule"]["time"], "04:15");
    assert_eq!(stored["schedule"]["keepDays"], 5);

    let now = submit(&client, &app, "/settings/backup/now", &[]).await;
    assert_eq!(now.status().as_u16(), 303);
    let (_, body) = page(&client, &app, "/settings/backup").await;
    let name = std::fs::read_dir(usb.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name()
        .to_string_lossy()
        .into_owned();
    assert!(
        body.contains(&format!(r#"href="/api/backups/{name}""#)),
        "{body}"
    );
    assert!(body.contains(r#"id="last-run" class="notice""#), "{body}");
}

#[actix_web::test]
async fn the_metrics_token_is_refused_beside_its_field_set_and_removed() {
    let (app, client) = signed_in().await;
    let short = submit(&client, &app, "/settings/metrics", &[("token", "short")]).await;
    assert_eq!(short.status().as_u16(), 422);
    let body = short.text().await.unwrap();
    assert!(body.contains(r#"id="token-fault""#), "{body}");
    assert!(
        !body.contains("short\""),
        "a token is never written back into the page"
    );

    let set = submit(
        &client,
        &app,
        "/settings/metrics",
        &[("token", "a-long-enough-token-1234")],
    )
    .await;
    assert_eq!(set.status().as_u16(), 303);
    let (_, body) = page(&client, &app, "/settings").await;
    assert!(body.contains("A token is set."), "{body}");
    assert!(!body.contains("a-long-enough-token-1234"));

    let removed = submit(&client, &app, "/settings/metrics", &[("remove", "1")]).await;
    assert_eq!(removed.status().as_u16(), 303);
    let state: Value = app.get("/api/settings/metrics").await.json().await.unwrap();
    assert_eq!(state["tokenSet"], false);
}

#[actix_web::test]
async fn times_are_shown_on_the_shops_clock_not_in_utc() {
    // UTC+14: the shown date differs from UTC's for ten hours of every day, the hour always.
    let zone = jiff::tz::TimeZone::get("Pacific/Kiritimati").unwrap();
    let shop = zone.clone();
    let app = TestApp::spawn_with(|config| config.time_zone = shop).await;
    app.setup().await;
    let client = logged_in(&app).await;
    let now = submit(&client, &app, "/settings/backup/now", &[]).await;
    assert_eq!(now.status().as_u16(), 303);
    let (_, body) = page(&client, &app, "/settings/backup").await;
    let run = body.split(r#"id="last-run""#).nth(1).expect("a last run");
    let at = run.split(r#"<time datetime=""#).nth(1).unwrap();
    let (stamp, shown) = at.split_once(r#"">"#).unwrap();
    let shown = shown.split("</time>").next().unwrap();
    let local = stamp
        .parse::<jiff::Timestamp>()
        .unwrap()
        .to_zoned(zone)
        .strftime("%m/%d/%Y, %-I:%M %p")
        .to_string();
    assert_eq!(shown, local, "{stamp} on the shop's clock");
    assert!(!body.contains(" UTC<"), "{body}");
    // Every page says which clock that is, and the backup list that its file names are UTC's.
    assert!(
        body.contains(r#"id="time-zone">Times are shown in Pacific/Kiritimati</footer>"#),
        "{body}"
    );
    assert!(body.contains("named by UTC time, Z"));
    let (_, dashboard) = page(&client, &app, "/dashboard").await;
    assert!(dashboard.contains("Times are shown in Pacific/Kiritimati"));
}
