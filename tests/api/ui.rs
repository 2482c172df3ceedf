//! The browser UI over a real socket: redirects without a session, first-run setup and login
//! through forms, field errors next to the field, the dashboard and prints list in both
//! languages, the Origin guard on forms, and the embedded assets under the CSP.

use crate::support;
use crate::support::{EMAIL, PASSWORD, TestApp, browser, location, page, submit};
use reqwest::Client;
use reqwest::header::{CONTENT_TYPE, ORIGIN};

const SETUP_FORM: [(&str, &str); 7] = [
    ("displayName", "Ada"),
    ("email", EMAIL),
    ("password", PASSWORD),
    ("locale", "en-US"),
    ("currency", "EUR"),
    ("electricityPrice", "0.32"),
    ("createDemoData", "on"),
];

#[actix_web::test]
async fn a_fresh_box_leads_to_setup_and_setup_signs_in() {
    let app = TestApp::spawn().await;
    let client = browser(&app);
    let res = client.get(app.url("/")).send().await.unwrap();
    assert_eq!((res.status().as_u16(), location(&res)), (303, "/setup"));
    let res = client.get(app.url("/dashboard")).send().await.unwrap();
    assert_eq!((res.status().as_u16(), location(&res)), (303, "/login"));

    // A short password is refused next to its field, and the other values are kept.
    let mut short = SETUP_FORM;
    short[2] = ("password", "short");
    let res = submit(&client, &app, "/setup", &short).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="password-fault""#), "{body}");
    assert!(body.contains("at least 12 characters"), "{body}");
    assert!(body.contains(r#"value="ada@example.com""#));

    let res = submit(&client, &app, "/setup", &SETUP_FORM).await;
    assert_eq!((res.status().as_u16(), location(&res)), (303, "/dashboard"));
    let (status, dashboard) = page(&client, &app, "/dashboard").await;
    assert_eq!(status, 200);
    assert!(dashboard.contains("Prints done"), "{dashboard}");
    assert!(dashboard.contains("<svg"), "charts are inline SVG");
    assert!(
        !dashboard.contains("style="),
        "no inline styles under the CSP"
    );
    assert!(
        !dashboard.contains("<script>"),
        "no inline scripts under the CSP"
    );

    // Setup runs once.
    let res = submit(&client, &app, "/setup", &SETUP_FORM).await;
    assert_eq!((res.status().as_u16(), location(&res)), (303, "/login"));
}

#[actix_web::test]
async fn login_logout_and_a_wrong_password() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let client = browser(&app);
    let res = submit(
        &client,
        &app,
        "/login",
        &[("email", EMAIL), ("password", "wrong password!")],
    )
    .await;
    assert_eq!(res.status().as_u16(), 401);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains("Email or password is wrong.")
    );

    let res = submit(
        &client,
        &app,
        "/login",
        &[("email", EMAIL), ("password", PASSWORD)],
    )
    .await;
    assert_eq!((res.status().as_u16(), location(&res)), (303, "/dashboard"));
    assert_eq!(page(&client, &app, "/prints").await.0, 200);

    let res = submit(&client, &app, "/logout", &[]).await;
    assert_eq!((res.status().as_u16(), location(&res)), (303, "/login"));
    let res = client.get(app.url("/prints")).send().await.unwrap();
    assert_eq!(
        (res.status().as_u16(), location(&res)),
        (303, "/login?next=%2Fprints")
    );
}

#[actix_web::test]
async fn forms_from_another_origin_are_refused() {
    let app = TestApp::spawn().await;
    let res = Client::new()
        .post(app.url("/setup"))
        .header(ORIGIN, "http://evil.example")
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(serde_urlencoded::to_string(SETUP_FORM).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 403);
    let client = browser(&app);
    let res = client.get(app.url("/")).send().await.unwrap();
    assert_eq!(location(&res), "/setup", "nothing was set up");
}

#[actix_web::test]
async fn the_language_switch_localizes_words_numbers_and_money() {
    let app = TestApp::spawn().await;
    let client = browser(&app);
    submit(&client, &app, "/setup", &SETUP_FORM).await;
    let (_, english) = page(&client, &app, "/prints?status=DONE").await;
    assert!(english.contains(r#"<html lang="en-US">"#));
    assert!(english.contains("Total cost"));
    assert!(english.contains('€'));
    assert!(
        english.contains(r#"href="/api/prints/export?status=DONE" download"#),
        "{english}"
    );

    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert_eq!(
        (res.status().as_u16(), location(&res)),
        (303, "/settings?saved")
    );
    let (_, german) = page(&client, &app, "/prints?status=DONE").await;
    assert!(german.contains(r#"<html lang="de-DE">"#));
    assert!(german.contains("Gesamtkosten"), "{german}");
    assert!(german.contains("Fertig"));
    assert!(
        german.contains(r#"href="/prints/export.csv?status=DONE" download id="export-sheet""#),
        "German spreadsheets get the owner's export (semicolons, German words): {german}"
    );
    let (_, board) = page(&client, &app, "/dashboard?period=all").await;
    assert!(board.contains("Fertige Drucke"));
    let money = regex_free_money(&board);
    assert!(money.ends_with(" €") && money.contains(','), "{money}");

    // A bad filter shows a readable message, not a JSON body.
    let (status, refused) = page(&client, &app, "/prints?status=LOST").await;
    assert_eq!(status, 422);
    assert!(
        refused.contains("Bitte die markierten Felder prüfen.")
            || refused.contains("Kein gültiger Wert."),
        "{refused}"
    );
}

/// The first planned-cost tile's amount.
fn regex_free_money(html: &str) -> String {
    let tile = html.split("Geplante Kosten</span><strong>").nth(1).unwrap();
    tile.split("</strong>").next().unwrap().to_string()
}

#[actix_web::test]
async fn assets_are_embedded_and_pages_carry_the_csp() {
    let app = TestApp::spawn().await;
    let client = browser(&app);
    let res = client.get(app.url("/static/app.css")).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(res.headers()[CONTENT_TYPE], "text/css");
    assert!(res.text().await.unwrap().contains(":focus-visible"));
    let res = client.get(app.url("/static/app.js")).send().await.unwrap();
    assert!(
        res.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    let miss = client
        .get(app.url("/static/nope.css"))
        .send()
        .await
        .unwrap();
    support::assert_error(miss, 404, "NOT_FOUND").await;
    let res = client.get(app.url("/setup")).send().await.unwrap();
    let csp = res.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"));
}

#[actix_web::test]
async fn after_login_the_user_lands_where_they_were_going() {
    let (app, _) = support::signed_in().await;
    let stranger = browser(&app);
    let wanted = "/prints?status=DONE&page=1";
    let res = stranger.get(app.url(wanted)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 303);
    let login = location(&res).to_string();
    assert_eq!(login, "/login?next=%2Fprints%3Fstatus%3DDONE%26page%3D1");
    let (_, form) = page(&stranger, &app, &login).await;
    assert!(
        form.contains(r#"name="next" value="/prints?status=DONE&#38;page=1""#),
        "{form}"
    );
    let signed = submit(
        &stranger,
        &app,
        "/login",
        &[
            ("email", EMAIL),
            ("password", PASSWORD),
            ("next", "/prints?status=DONE&page=1"),
        ],
    )
    .await;
    assert_eq!((signed.status().as_u16(), location(&signed)), (303, wanted));

    // Never elsewhere: a foreign next goes to the dashboard.
    let other = browser(&app);
    let res = submit(
        &other,
        &app,
        "/login",
        &[
            ("email", EMAIL),
            ("password", PASSWORD),
            ("next", "//evil.example/"),
        ],
    )
    .await;
    assert_eq!(location(&res), "/dashboard");
}

#[actix_web::test]
async fn the_setup_page_follows_the_browsers_language() {
    let app = TestApp::spawn().await;
    let asked = |language: &'static str| {
        let app = &app;
        async move {
            let res = browser(app)
                .get(app.url("/setup"))
                .header("Accept-Language", language)
                .send()
                .await
                .unwrap();
            res.text().await.unwrap()
        }
    };
    let german = asked("fr-CH, de-AT;q=0.9, en;q=0.8").await;
    assert!(german.contains(r#"<html lang="de-DE">"#), "{german}");
    assert!(
        german.contains(r#"value="0,30""#),
        "the price with the decimal comma"
    );
    let english = asked("en-GB,de;q=0.5").await;
    assert!(english.contains(r#"<html lang="en-US">"#));
    let unknown = asked("ja").await;
    assert!(unknown.contains(r#"<html lang="en-US">"#));
}
