//! Decimals as people type them, over a real socket: in German the decimal comma is taken in
//! every form (the point keeps working), forms are prefilled with it, and a thousands separator
//! is refused beside its field in words; in English a comma is refused the same way. The API
//! itself takes the canonical point only.

use crate::outcomes::outcome;
use crate::support::{
    TestApp, assert_field_error, created_id, draft, location, logged_in, page, part, shop,
    signed_in, submit,
};
use reqwest::Client;
use serde_json::json;

async fn in_german(app: &TestApp, client: &Client) {
    let res = submit(client, app, "/settings/language", &[("locale", "de-DE")]).await;
    assert_eq!(res.status().as_u16(), 303);
}

#[actix_web::test]
async fn german_forms_take_the_decimal_comma_and_show_it_back() {
    let (app, client) = signed_in().await;
    in_german(&app, &client).await;
    let shop = shop(&app).await;

    let mut printer = vec![
        ("name", "MK4S"),
        ("manufacturerId", shop.maker.as_str()),
        ("purchasePrice", "1.299,50"),
        ("expectedLifetimeHours", "6000,5"),
        ("averagePowerWatts", "120"),
    ];
    let refused = submit(&client, &app, "/printers", &printer).await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    assert!(body.contains(r#"id="purchasePrice-fault""#), "{body}");
    assert!(
        body.contains("Bitte ohne Tausenderpunkt schreiben"),
        "{body}"
    );
    assert!(body.contains(r#"value="1.299,50""#), "the value as typed");
    printer[2] = ("purchasePrice", "1299,50");
    let saved = submit(&client, &app, "/printers", &printer).await;
    assert_eq!(saved.status().as_u16(), 303);
    let id = created_id(location(&saved));
    let stored = app.json(&format!("/api/printers/{id}")).await;
    assert_eq!(
        (&stored["purchasePrice"], &stored["expectedLifetimeHours"]),
        (&json!("1299.5"), &json!("6000.5")),
        "the API keeps its canonical strings"
    );
    let (_, form) = page(&client, &app, &format!("/printers/{id}")).await;
    assert!(
        form.contains(r#"value="1299,5""#),
        "prefilled with the comma: {form}"
    );

    // The point keeps working; settings are prefilled with the comma.
    let settings = [
        ("currency", "EUR"),
        ("defaultLanguage", "de-DE"),
        ("electricityPrice", "0.35"),
        ("spoolManagementEnabled", "on"),
    ];
    let res = submit(&client, &app, "/settings", &settings).await;
    assert_eq!(res.status().as_u16(), 303);
    let (_, settings_page) = page(&client, &app, "/settings").await;
    assert!(settings_page.contains(r#"value="0,35""#), "{settings_page}");

    // A correction of -2,5 g on the shop's opening spool.
    let spools = app
        .json(&format!("/api/spools?filamentId={}", shop.filament))
        .await;
    let spool = spools["items"][0]["id"].as_str().unwrap();
    let booking = [
        ("kind", "CORRECTION"),
        ("grams", "-2,5"),
        ("operationKey", "01937f6e-0000-7000-8000-0000000000bb"),
    ];
    let res = submit(
        &client,
        &app,
        &format!("/spools/{spool}/movements"),
        &booking,
    )
    .await;
    assert_eq!(res.status().as_u16(), 303);
    let detail = app.json(&format!("/api/spools/{spool}")).await;
    assert_eq!(detail["spool"]["remainingGrams"], "997.5");
}

#[actix_web::test]
async fn an_english_comma_is_a_thousands_separator_refused_in_words() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let printer = [
        ("name", "MK4S"),
        ("manufacturerId", shop.maker.as_str()),
        ("purchasePrice", "1,299.50"),
        ("expectedLifetimeHours", "6000"),
        ("averagePowerWatts", "120"),
    ];
    let refused = submit(&client, &app, "/printers", &printer).await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    assert!(body.contains("without a thousands separator"), "{body}");

    // The API never takes the comma, whatever the account's language.
    let res = app
        .post(
            "/api/printers",
            &json!({"name": "X", "manufacturerId": shop.maker, "purchasePrice": "12,5", "expectedLifetimeHours": "1", "averagePowerWatts": 1}),
        )
        .await;
    assert_field_error(res, "purchasePrice", "errors.invalidDecimal").await;
}

#[actix_web::test]
async fn an_error_page_speaks_german_and_names_the_field_in_words() {
    let (app, client) = signed_in().await;
    in_german(&app, &client).await;
    let shop = shop(&app).await;
    let res = submit(
        &client,
        &app,
        &format!("/components/{}/replace", shop.hotend),
        &[("purchasePrice", "zwölf")],
    )
    .await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(
        body.contains("Bitte die markierten Felder prüfen."),
        "{body}"
    );
    assert!(body.contains("Kaufpreis: Keine Zahl."), "{body}");
    assert!(
        !body.contains("expected"),
        "never the API's English: {body}"
    );
}

/// A slicer's 3 h 31 min 25 s (12,685 s) reads `3:31` on the print's page (the seconds dropped,
/// as the slicer says it) and `211,42` minutes in the editor and the outcome form (not
/// `211,4166…`), and saving the form as shown keeps the 12,685 s.
#[actix_web::test]
async fn a_slicers_print_time_reads_as_hours_and_minutes_and_short_minutes() {
    let (app, client) = signed_in().await;
    in_german(&app, &client).await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Halter");
    body["parts"] = json!([part(&shop, 12_685, "41")]);
    let id = app.create("/api/prints", &body).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, editor) = page(&client, &app, &format!("/prints/{id}/edit")).await;
    assert!(editor.contains(r#"value="211,42""#), "{editor}");
    assert!(!editor.contains("211,4166"));
    let (_, detail) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(detail.contains("<strong>3:31"), "{detail}");

    let done = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await;
    assert_eq!(done.status(), 200);
    let (_, form) = page(&client, &app, &format!("/prints/{id}")).await;
    let field = form.split(r#"name="durationMinutes""#).nth(1).unwrap();
    assert!(field.contains(r#"value="211,42""#), "{field}");
    let print = app.json(&format!("/api/prints/{id}")).await;
    let usage = print["usages"][0]["id"].as_str().unwrap();
    let as_shown = [
        ("status", "SUCCESS"),
        ("durationMinutes", "211,42"),
        ("filaments[0].usageId", usage),
        ("filaments[0].usedGrams", "41"),
    ];
    let saved = submit(&client, &app, &format!("/prints/{id}/outcome"), &as_shown).await;
    assert_eq!(saved.status().as_u16(), 303);
    let stored = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(stored["outcome"]["durationSeconds"], 12_685);
}

/// The prints list's export reads as a German spreadsheet: `;` between cells, German headers and
/// outcome words, the completion on the shop's clock, h:mm, money in cents with the decimal
/// comma, no JSON; the machine-readable export beside it keeps its form.
#[actix_web::test]
async fn the_spreadsheet_export_speaks_the_owners_language() {
    let berlin = jiff::tz::TimeZone::get("Europe/Berlin").unwrap();
    let zone = berlin.clone();
    let app = TestApp::spawn_with(|config| config.time_zone = zone).await;
    app.setup().await;
    let client = logged_in(&app).await;
    in_german(&app, &client).await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Halter");
    body["parts"] = json!([part(&shop, 12_685, "41")]);
    body["salesValue"] = json!("45");
    body["customerId"] = json!(shop.customer);
    let done = app.done(&body).await;
    let id = done["id"].as_str().unwrap();
    let print = app.json(&format!("/api/prints/{id}")).await;
    let recorded = app
        .post(
            &format!("/api/prints/{id}/outcome"),
            &outcome(&print, "SUCCESS", 12_685, "41"),
        )
        .await;
    assert_eq!(recorded.status(), 200);
    let print = app.json(&format!("/api/prints/{id}")).await;

    let (_, list) = page(&client, &app, "/prints").await;
    assert!(
        list.contains(r#"href="/prints/export.csv?" download id="export-sheet""#),
        "{list}"
    );
    assert!(list.contains(r#"id="export-machine""#));
    let res = client
        .get(app.url("/prints/export.csv?status=DONE"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let disposition = res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(disposition.contains("drucke-"), "{disposition}");
    let sheet = res.text().await.unwrap();
    let mut lines = sheet.trim_start_matches('\u{feff}').lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with(r#""Name";"Kunde";"Drucker""#),
        "{header}"
    );
    assert!(header.contains(r#""Druckzeit (h:mm)""#));
    let row = lines.next().unwrap();
    let cents = |text: &str| {
        let value: rust_decimal::Decimal = text.parse().unwrap();
        format!("{:.2}", value.round_dp(2)).replace('.', ",")
    };
    let completed = print["completedAt"]
        .as_str()
        .unwrap()
        .parse::<jiff::Timestamp>()
        .unwrap()
        .to_zoned(berlin)
        .strftime("%d.%m.%Y %H:%M")
        .to_string();
    for cell in [
        "Halter".to_string(),
        "Jane Doe".to_string(),
        completed,
        "3:31".to_string(),
        cents(print["totalCost"].as_str().unwrap()),
        "Erfolg".to_string(),
        cents(print["actualCost"].as_str().unwrap()),
        "45,00".to_string(),
    ] {
        assert!(row.contains(&format!(r#""{cell}""#)), "{cell} in {row}");
    }
    assert!(!row.contains('{'), "no JSON: {row}");
    let machine = app.get("/api/prints/export").await.text().await.unwrap();
    assert!(
        machine.contains("duration_seconds"),
        "the machine's form stays"
    );
}
