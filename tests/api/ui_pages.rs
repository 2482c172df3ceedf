//! The browser UI's record pages over a real socket: inventory forms (field errors, duplicates,
//! archive, a refused delete of a referenced record), the print editor's field errors at their
//! JSON paths and a saved two-part draft, the print commands and outcome forms, the A4 report,
//! stock and spools with movement booking, series, customer history and search.

use crate::support::TestApp;
use crate::support::{Shop, draft, part, shop};
use crate::support::{created_id, location, page, signed_in, submit};
use reqwest::Client;
use serde_json::{Value, json};

/// The id at the end of a `303` location such as `/printers/<id>?saved`.
/// The manufacturer Prusa Research, made through its form; returns its id.
async fn prusa(app: &TestApp, client: &Client) -> String {
    let res = submit(client, app, "/manufacturers", &[("name", "Prusa Research")]).await;
    assert_eq!(res.status().as_u16(), 303);
    created_id(location(&res))
}

/// A signed-in browser that made the manufacturer Prusa Research and its printer MK4S through
/// the forms. Returns the app, the browser, both ids and the printer's form.
async fn printer_made_by_forms() -> (TestApp, Client, String, String, Vec<(&'static str, String)>) {
    let (app, client) = signed_in().await;
    let manufacturer = prusa(&app, &client).await;
    let form = vec![
        ("name", "MK4S".to_string()),
        ("manufacturerId", manufacturer.clone()),
        ("purchasePrice", "1099".to_string()),
        ("expectedLifetimeHours", "6000".to_string()),
        ("averagePowerWatts", "120".to_string()),
    ];
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let res = submit(&client, &app, "/printers", &fields).await;
    assert_eq!(res.status().as_u16(), 303);
    let printer_id = created_id(location(&res));
    (app, client, manufacturer, printer_id, form)
}

#[actix_web::test]
async fn inventory_forms_create_and_refuse_a_duplicate_name() {
    let (app, client) = signed_in().await;
    let res = submit(
        &client,
        &app,
        "/manufacturers",
        &[("name", "Prusa Research")],
    )
    .await;
    assert_eq!(res.status().as_u16(), 303);
    let manufacturer = created_id(location(&res));
    assert_eq!(
        location(&res),
        format!("/manufacturers/{manufacturer}?saved")
    );

    // The same name again: the API's DUPLICATE, shown on the form.
    let res = submit(
        &client,
        &app,
        "/manufacturers",
        &[("name", "prusa research")],
    )
    .await;
    assert_eq!(res.status().as_u16(), 409);
    assert!(res.text().await.unwrap().contains("This already exists."));
}

#[actix_web::test]
async fn a_form_fault_is_shown_beside_its_field_with_the_values_kept() {
    let (app, client) = signed_in().await;
    let manufacturer = prusa(&app, &client).await;
    // A bad price is refused next to its field; the values are kept.
    let mut printer = vec![
        ("name", "MK4S"),
        ("manufacturerId", manufacturer.as_str()),
        ("purchasePrice", "12,5"),
        ("expectedLifetimeHours", "6000"),
        ("averagePowerWatts", "120"),
    ];
    let res = submit(&client, &app, "/printers", &printer).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="purchasePrice-fault""#), "{body}");
    assert!(
        body.contains(r#"aria-invalid="true" aria-describedby="purchasePrice-fault""#),
        "the faulty field is marked: {body}"
    );
    assert!(
        body.contains("Purchase price (EUR)"),
        "the currency beside the price"
    );
    assert!(body.contains(r#"<a class="button" href="/printers" id="cancel">Cancel</a>"#));
    assert!(body.contains(r#"value="MK4S""#));
    printer[2] = ("purchasePrice", "1099");
    let res = submit(&client, &app, "/printers", &printer).await;
    assert_eq!(res.status().as_u16(), 303);
    let printer_id = created_id(location(&res));
    let stored = app.json(&format!("/api/printers/{printer_id}")).await;
    assert_eq!(
        (&stored["purchasePrice"], &stored["averagePowerWatts"]),
        (&json!("1099"), &json!(120))
    );
}

#[actix_web::test]
async fn a_referenced_delete_is_refused_with_its_reason() {
    let (app, client, manufacturer, _, _) = printer_made_by_forms().await;
    // Referenced by the printer: the delete is refused with the reason, nothing is gone.
    let res = submit(
        &client,
        &app,
        &format!("/manufacturers/{manufacturer}/delete"),
        &[],
    )
    .await;
    assert_eq!(res.status().as_u16(), 409);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains("Still in use; archive it instead.")
    );
    assert_eq!(
        app.get(&format!("/api/manufacturers/{manufacturer}"))
            .await
            .status()
            .as_u16(),
        200
    );
}

#[actix_web::test]
async fn records_are_edited_archived_and_deleted_through_forms() {
    let (app, client, _, printer_id, form) = printer_made_by_forms().await;
    let printer: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // Edit, archive (gone from the list unless asked for), delete an unreferenced one.
    let mut renamed = printer.clone();
    renamed[0] = ("name", "MK4S Studio");
    let res = submit(&client, &app, &format!("/printers/{printer_id}"), &renamed).await;
    assert_eq!(location(&res), format!("/printers/{printer_id}?saved"));
    let path = format!("/printers/{printer_id}/archive");
    submit(&client, &app, &path, &[("archived", "true")]).await;
    let (_, list) = page(&client, &app, "/printers").await;
    assert!(!list.contains("MK4S Studio"), "{list}");
    let (_, list) = page(&client, &app, "/printers?archived=on").await;
    assert!(list.contains("MK4S Studio"), "{list}");
    let res = submit(
        &client,
        &app,
        &format!("/printers/{printer_id}/delete"),
        &[],
    )
    .await;
    assert_eq!(location(&res), "/printers");
    let (status, _) = page(&client, &app, &format!("/printers/{printer_id}")).await;
    assert_eq!(status, 404);
    let (status, body) = page(&client, &app, "/printers/not-an-id").await;
    assert_eq!(status, 404);
    assert!(body.contains("Request id:"), "{body}");
}

#[actix_web::test]
async fn the_print_editor_shows_field_errors_at_their_paths_and_saves_two_parts() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let (status, editor) = page(&client, &app, "/prints/new").await;
    assert_eq!(status, 200);
    assert!(editor.contains(r#"name="parts[0].hotends[0].durationMinutes""#));
    assert!(editor.contains(r#"data-preview="/api/prints/calculate""#));

    let mut form = vec![
        ("name", "Phone stand"),
        ("quantity", "2"),
        ("parts[0].printerId", shop.printer.as_str()),
        ("parts[0].buildPlateId", shop.plate.as_str()),
        ("parts[0].hotends[0].componentId", shop.hotend.as_str()),
        ("parts[0].hotends[0].durationMinutes", "90"),
        ("parts[0].filaments[0].filamentId", shop.filament.as_str()),
        ("parts[0].filaments[0].usedGrams", "42.5"),
        ("parts[1].buildPlateId", shop.plate.as_str()),
        ("parts[1].hotends[0].componentId", shop.hotend.as_str()),
        ("parts[1].hotends[0].durationMinutes", "30"),
        ("parts[1].filaments[0].filamentId", shop.filament.as_str()),
        ("parts[1].filaments[0].usedGrams", "-1"),
    ];
    // One submit shows every fault beside its field: the negative grams and the missing printer.
    let res = submit(&client, &app, "/prints", &form).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(r#"data-fault-for="parts[1].filaments[0].usedGrams">Must not be negative."#),
        "{body}"
    );
    assert!(
        body.contains(r#"data-fault-for="parts[1].printerId""#),
        "{body}"
    );
    assert!(body.contains(r#"value="42.5""#), "kept values");
    form.retain(|(name, _)| *name != "parts[1].filaments[0].usedGrams");
    form.push(("parts[1].filaments[0].usedGrams", "10"));
    assert_eq!(
        app.get("/api/prints").await.json::<Value>().await.unwrap()["total"],
        0
    );

    form.push(("parts[1].printerId", shop.printer.as_str()));
    let res = submit(&client, &app, "/prints", &form).await;
    assert_eq!(res.status().as_u16(), 303);
    let id = created_id(location(&res));
    let print = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(print["quantity"], 2);
    assert_eq!(print["parts"].as_array().unwrap().len(), 2);
    assert_eq!(print["parts"][0]["hotends"][0]["durationSeconds"], 5400);

    // The detail page shows the stored total.
    let (_, detail) = page(&client, &app, &format!("/prints/{id}")).await;
    let total = print["totalCost"].as_str().unwrap();
    let shown = format!("€{:.2}", total.parse::<f64>().unwrap());
    assert!(detail.contains(&shown), "{shown} in {detail}");
    let (_, edit) = page(&client, &app, &format!("/prints/{id}/edit")).await;
    assert!(edit.contains(r#"value="90""#), "minutes from seconds");
    assert!(edit.contains(&format!(
        r#"value="{}""#,
        print["parts"][1]["id"].as_str().unwrap()
    )));
    assert!(
        !edit.contains(r#"role="alert""#),
        "a saved draft opens without a fault: {edit}"
    );
}

/// A signed-in browser, a shop and the draft "Bracket" with a sales value of 20. Returns the
/// app, the browser, the shop and the print's id.
async fn bracket() -> (TestApp, Client, Shop, String) {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Bracket");
    body["salesValue"] = json!("20");
    let id = app.create("/api/prints", &body).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    (app, client, shop, id)
}

/// [`bracket`], moved to DONE.
async fn done_bracket() -> (TestApp, Client, Shop, String) {
    let (app, client, shop, id) = bracket().await;
    let done = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await;
    assert_eq!(done.status(), 200);
    (app, client, shop, id)
}

#[actix_web::test]
async fn detail_commands_move_the_status_and_set_paid() {
    let (app, client, _, id) = bracket().await;
    let (status, refused) = page(&client, &app, &format!("/reports/prints/{id}")).await;
    assert_eq!(status, 409);
    assert!(refused.contains("Reports exist for finished prints only."));

    let act = |action: &'static str| format!("/prints/{id}/actions/{action}");
    let res = submit(&client, &app, &act("status"), &[("status", "DRAFT")]).await;
    assert_eq!(res.status().as_u16(), 422, "no move back to DRAFT offered");
    let res = submit(&client, &app, &act("status"), &[("status", "DONE")]).await;
    assert_eq!(
        location(&res),
        format!("/prints/{id}?confirmMove=DONE"),
        "a skip asks"
    );
    let yes = [("status", "DONE"), ("confirmed", "yes")];
    let res = submit(&client, &app, &act("status"), &yes).await;
    assert_eq!(location(&res), format!("/prints/{id}?did=status&from={id}"));
    let (_, moved) = page(&client, &app, location(&res)).await;
    assert!(
        moved.contains(r#"id="notice">Moved to Done.</p>"#),
        "{moved}"
    );
    let res = submit(&client, &app, &act("paid"), &[("value", "true")]).await;
    assert_eq!(res.status().as_u16(), 303);
    let (_, paid_page) = page(&client, &app, location(&res)).await;
    assert!(paid_page.contains("Marked paid."));
    let res = submit(&client, &app, &act("duplicate"), &[]).await;
    let (_, copy) = page(&client, &app, location(&res)).await;
    assert!(
        copy.contains(r#"id="notice">Bracket duplicated as Bracket"#),
        "the message names both prints: {copy}"
    );
    let paid = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(paid["paid"], true);
    let res = submit(&client, &app, &act("launch"), &[]).await;
    assert_eq!(res.status().as_u16(), 404, "unknown action");
}

#[actix_web::test]
async fn the_editor_refuses_a_finalized_print() {
    let (app, client, shop, id) = done_bracket().await;
    // A finalized print has no editor: its page says why (and offers no dead move form).
    let edit = format!("/prints/{id}/edit");
    let opened = client.get(app.url(&edit)).send().await.unwrap();
    assert_eq!(opened.status().as_u16(), 303);
    assert_eq!(location(&opened), format!("/prints/{id}?did=frozen"));
    let (_, said) = page(&client, &app, location(&opened)).await;
    assert!(said.contains("This print has left draft"), "{said}");
    // A form sent all the same is refused, the print stays.
    let renamed = [
        ("name", "Renamed"),
        ("parts[0].printerId", shop.printer.as_str()),
        ("parts[0].buildPlateId", shop.plate.as_str()),
        ("parts[0].hotends[0].componentId", shop.hotend.as_str()),
        ("parts[0].hotends[0].durationMinutes", "60"),
        ("parts[0].filaments[0].filamentId", shop.filament.as_str()),
        ("parts[0].filaments[0].usedGrams", "20"),
    ];
    let res = submit(&client, &app, &edit, &renamed).await;
    assert_eq!(res.status().as_u16(), 409);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains("This value cannot change.")
    );
    let kept = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(kept["name"], "Bracket");
}

#[actix_web::test]
async fn outcome_forms_record_retry_correct_once_and_report() {
    let (app, client, _, id) = done_bracket().await;
    let act = |action: &'static str| format!("/prints/{id}/actions/{action}");
    let print = app.json(&format!("/api/prints/{id}")).await;
    let usage = print["usages"][0]["id"].as_str().unwrap().to_string();
    let outcome = |status: &'static str, reason: &'static str| {
        vec![
            ("status", status.to_string()),
            ("durationMinutes", "100".to_string()),
            ("filaments[0].usageId", usage.clone()),
            ("filaments[0].usedGrams", "40".to_string()),
            ("failureReason", reason.to_string()),
        ]
    };
    let send = |form: Vec<(&'static str, String)>, path: String| {
        let client = client.clone();
        let url = app.url(&path);
        async move {
            client
                .post(url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(serde_urlencoded::to_string(&form).unwrap())
                .send()
                .await
                .unwrap()
        }
    };
    let res = send(outcome("FAILED", ""), format!("/prints/{id}/outcome")).await;
    assert_eq!(res.status().as_u16(), 422);
    assert!(
        res.text()
            .await
            .unwrap()
            .contains(r#"id="failureReason-fault""#)
    );
    let res = send(outcome("FAILED", "Warped"), format!("/prints/{id}/outcome")).await;
    assert_eq!(res.status().as_u16(), 303);

    let res = submit(&client, &app, &act("retry"), &[]).await;
    let retry = created_id(location(&res));
    assert_ne!(retry, id);
    let copy = app.json(&format!("/api/prints/{retry}")).await;
    assert_eq!(copy["retriedFromId"], json!(id));
    // The retry is made without a price (the spec); its page offers the failed print's in one
    // click, once.
    assert!(copy["salesValue"].is_null());
    let retry_page = format!("/prints/{retry}");
    let (_, shown) = page(&client, &app, &retry_page).await;
    assert!(
        shown.contains(r#"id="retry-price""#) && shown.contains("20.00"),
        "{shown}"
    );
    let take = format!("{retry_page}/actions/retryPrice");
    let res = submit(&client, &app, &take, &[]).await;
    assert_eq!(
        location(&res),
        format!("{retry_page}?did=retryPrice&from={retry}")
    );
    assert_eq!(
        app.json(&format!("/api/prints/{retry}")).await["salesValue"],
        "20"
    );
    let (_, shown) = page(&client, &app, location(&res)).await;
    assert!(!shown.contains(r#"id="retry-price""#), "{shown}");
    assert!(shown.contains("takes the failed print"), "{shown}");
    let res = submit(&client, &app, &take, &[]).await;
    assert_eq!(res.status().as_u16(), 409, "nothing left to take");

    let mut correction = outcome("SUCCESS", "");
    correction.push(("correctionNote", "Accepted after all".into()));
    correction.push(("expectedRevision", "1".into()));
    correction.push((
        "operationKey",
        "01937f6e-0000-7000-8000-000000000001".into(),
    ));
    let res = send(correction.clone(), format!("/prints/{id}/outcome/correct")).await;
    assert_eq!(res.status().as_u16(), 303);
    // The same form sent twice (a double click): the operation key makes it one revision.
    let res = send(correction, format!("/prints/{id}/outcome/correct")).await;
    assert_eq!(res.status().as_u16(), 303);
    let print = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(print["outcome"]["revision"], 2);
    assert_eq!(print["outcome"]["status"], "SUCCESS");

    let (status, report) = page(&client, &app, &format!("/reports/prints/{id}")).await;
    assert_eq!(status, 200);
    for text in [
        "Print report",
        "Bracket",
        "Cost breakdown",
        "Success",
        "€20.00",
    ] {
        assert!(report.contains(text), "{text} in {report}");
    }
    assert!(!report.contains("<form"), "the report has no forms");
}

#[actix_web::test]
async fn stock_and_spools_book_movements_and_print_a_label() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    app.patch(
        "/api/settings/features",
        &json!({"spoolManagementEnabled": false}),
    )
    .await;
    let (status, off) = page(&client, &app, "/stock").await;
    assert_eq!(status, 409);
    assert!(off.contains("Spool management is switched off."));
    let res = app
        .patch(
            "/api/settings/features",
            &json!({"spoolManagementEnabled": true}),
        )
        .await;
    assert_eq!(res.status().as_u16(), 200);
    app.patch(
        &format!("/api/filaments/{}/stock", shop.filament),
        &json!({"minimumStockGrams": "5000"}),
    )
    .await;

    let res = submit(
        &client,
        &app,
        "/spools",
        &[
            ("filamentId", shop.filament.as_str()),
            ("code", "PLA-01"),
            ("purchasePrice", "24.99"),
            ("initialNetWeightGrams", "1000"),
            ("acquiredAt", "2026-11-01"),
        ],
    )
    .await;
    assert_eq!(res.status().as_u16(), 303);
    let spool = created_id(location(&res));
    let (_, stock) = page(&client, &app, "/stock").await;
    assert!(stock.contains(r#"id="low-stock""#), "{stock}");
    assert!(stock.contains("PLA-01"));

    let path = format!("/spools/{spool}/movements");
    let res = submit(
        &client,
        &app,
        &path,
        &[("kind", "CORRECTION"), ("grams", "0")],
    )
    .await;
    assert_eq!(res.status().as_u16(), 422);
    assert!(res.text().await.unwrap().contains(r#"id="grams-fault""#));
    let key = "01937f6e-0000-7000-8000-0000000000aa";
    let booking = [
        ("kind", "CORRECTION"),
        ("grams", "-12.5"),
        ("operationKey", key),
    ];
    let res = submit(&client, &app, &path, &booking).await;
    assert_eq!(location(&res), format!("/spools/{spool}?booked"));
    submit(&client, &app, &path, &booking).await;
    let detail = app.json(&format!("/api/spools/{spool}")).await;
    assert_eq!(detail["spool"]["remainingGrams"], "987.5");
    let (_, page_html) = page(&client, &app, &format!("/spools/{spool}")).await;
    assert!(page_html.contains("-12.5 g"), "{page_html}");

    let (status, label) = page(&client, &app, &format!("/spools/{spool}/label")).await;
    assert_eq!(status, 200);
    assert!(label.contains(&format!(r#"src="/api/spools/{spool}/qr""#)));
    assert!(label.contains("PLA-01"));

    // Its details are changed on its page: a refused price stays beside its field, the
    // details form open with what was typed; a good one is saved (code and weight stay).
    let details = format!("/spools/{spool}");
    let (_, shown) = page(&client, &app, &details).await;
    assert!(
        shown.contains(r#"value="2026-11-01""#),
        "prefilled: {shown}"
    );
    let refused = submit(
        &client,
        &app,
        &details,
        &[("purchasePrice", "lots"), ("location", "Shelf B")],
    )
    .await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    assert!(body.contains(r#"id="purchasePrice-fault""#), "{body}");
    assert!(body.contains(r#"id="spool-details" open"#), "{body}");
    assert!(body.contains(r#"value="Shelf B""#), "{body}");
    let change = [
        ("purchasePrice", "19.99"),
        ("location", "Shelf B"),
        ("purchaseLot", ""),
        ("acquiredAt", "2026-10-30"),
    ];
    let saved = submit(&client, &app, &details, &change).await;
    assert_eq!(location(&saved), format!("/spools/{spool}?saved"));
    let changed = app.json(&format!("/api/spools/{spool}")).await;
    assert_eq!(changed["spool"]["purchasePrice"], "19.99");
    assert_eq!(changed["spool"]["location"], "Shelf B");
    assert_eq!(changed["spool"]["acquiredAt"], "2026-10-30");
    assert_eq!(changed["spool"]["code"], "PLA-01");
    assert_eq!(changed["spool"]["initialNetWeightGrams"], "1000");
}

/// A signed-in browser and a shop, print series on and the series "Club trophies" made
/// through the form with its first print "Trophy" (4 units). Returns the app, the browser, the
/// shop, the series id and the print.
async fn club_trophies() -> (TestApp, Client, Shop, String, Value) {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let res = submit(
        &client,
        &app,
        "/settings/features",
        &[("printSeriesEnabled", "on")],
    )
    .await;
    assert_eq!(location(&res), "/settings?saved");
    let res = submit(
        &client,
        &app,
        "/series",
        &[
            ("name", "Club trophies"),
            ("customerId", shop.customer.as_str()),
            ("target", "10"),
        ],
    )
    .await;
    assert_eq!(res.status().as_u16(), 303);
    let series = created_id(location(&res));
    let mut body =
        json!({"name": "Trophy", "seriesId": series, "parts": [part(&shop, 3600, "20")]});
    body["quantity"] = json!(4);
    let first = app.create("/api/prints", &body).await;
    (app, client, shop, series, first)
}

/// Submits the series page's next-run form for `series` from print `first`.
async fn next_run(
    app: &TestApp,
    client: &Client,
    series: &str,
    first: &Value,
) -> reqwest::Response {
    let source = [("sourcePrintId", first["id"].as_str().unwrap())];
    submit(client, app, &format!("/series/{series}/next-run"), &source).await
}

#[actix_web::test]
async fn a_short_search_says_so() {
    let (app, client) = signed_in().await;
    let (status, short) = page(&client, &app, "/search?q=a").await;
    assert_eq!(status, 422);
    assert!(short.contains("Too short."));
}

#[actix_web::test]
async fn a_series_page_starts_the_next_run() {
    let (app, client, _, series, first) = club_trophies().await;
    let (_, history) = page(&client, &app, &format!("/series/{series}")).await;
    assert!(
        history.contains("Trophy") && history.contains(r#"id="next-run""#),
        "{history}"
    );
    let res = next_run(&app, &client, &series, &first).await;
    let next = created_id(location(&res));
    let next = app.json(&format!("/api/prints/{next}")).await;
    assert_eq!(
        (&next["seriesId"], &next["repeatOfId"]),
        (&json!(series), &first["id"])
    );
}

#[actix_web::test]
async fn a_series_is_completed_and_archived_from_its_page() {
    let (app, client, _, series, _) = club_trophies().await;
    let res = submit(
        &client,
        &app,
        &format!("/series/{series}/state"),
        &[("status", "COMPLETED")],
    )
    .await;
    assert_eq!(location(&res), format!("/series/{series}"));
    submit(
        &client,
        &app,
        &format!("/series/{series}/archive"),
        &[("value", "true")],
    )
    .await;
    let stored = app.json(&format!("/api/series/{series}")).await;
    assert_eq!(
        (&stored["status"], &stored["archived"]),
        (&json!("COMPLETED"), &json!(true))
    );
}

#[actix_web::test]
async fn customer_history_and_search_find_the_prints() {
    let (app, client, shop, series, first) = club_trophies().await;
    let res = next_run(&app, &client, &series, &first).await;
    assert_eq!(res.status().as_u16(), 303);
    let (status, customer) = page(
        &client,
        &app,
        &format!("/customers/{}/history", shop.customer),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        customer.matches(r#"href="/prints/"#).count(),
        2,
        "{customer}"
    );

    let (status, found) = page(&client, &app, "/search?q=troph").await;
    assert_eq!(status, 200);
    assert!(found.contains(&format!(
        r#"href="/prints/{}""#,
        first["id"].as_str().unwrap()
    )));
}

#[actix_web::test]
async fn low_stock_shows_on_the_dashboard_and_as_a_badge_in_the_menu() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let (_, calm) = page(&client, &app, "/dashboard").await;
    assert!(!calm.contains(r#"id="low-stock-badge""#));
    assert!(!calm.contains(r#"id="low-stock-due""#));

    let res = app
        .patch(
            &format!("/api/filaments/{}/stock", shop.filament),
            &json!({"minimumStockGrams": "1500"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let (_, board) = page(&client, &app, "/dashboard").await;
    assert!(board.contains(r#"id="low-stock-badge""#), "{board}");
    assert!(board.contains(r#"id="low-stock-badge" title="filaments below their threshold">1<"#));
    let card = board.split(r#"id="low-stock-due""#).nth(1).unwrap();
    assert!(
        card.contains("Reference Works PLA Black · 1,000 g / 1,500 g"),
        "{card}"
    );
    let (_, prints) = page(&client, &app, "/prints").await;
    assert!(
        prints.contains(r#"id="low-stock-badge""#),
        "the badge is in every page's menu"
    );
}

#[actix_web::test]
async fn a_move_back_asks_first_and_the_next_step_is_offered_first() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let print = app.done(&draft(&shop, "Bracket")).await;
    let id = print["id"].as_str().unwrap();
    let (_, detail) = page(&client, &app, &format!("/prints/{id}")).await;
    let options = detail.split(r#"<select name="status">"#).nth(1).unwrap();
    let first = options.split("<option value=\"").nth(1).unwrap();
    assert!(
        first.starts_with("SHIPPED"),
        "the nearest step first: {options}"
    );

    let path = format!("/prints/{id}/actions/status");
    let asked = submit(&client, &app, &path, &[("status", "PRINTED")]).await;
    assert_eq!(
        location(&asked),
        format!("/prints/{id}?confirmMove=PRINTED")
    );
    let stored = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(stored["status"], "DONE", "nothing moved before the answer");
    let (_, question) = page(&client, &app, location(&asked)).await;
    assert!(question.contains(r#"id="confirm-move""#), "{question}");
    assert!(
        question.contains("Really move back to Printed?"),
        "{question}"
    );

    let confirmed = [("status", "PRINTED"), ("confirmed", "yes")];
    let moved = submit(&client, &app, &path, &confirmed).await;
    assert_eq!(
        location(&moved),
        format!("/prints/{id}?did=status&from={id}")
    );
    let stored = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(stored["status"], "PRINTED");
    // Forward needs no question.
    let forward = submit(&client, &app, &path, &[("status", "SHIPPED")]).await;
    assert_eq!(
        location(&forward),
        format!("/prints/{id}?did=status&from={id}")
    );
}

#[actix_web::test]
async fn an_empty_shops_dashboard_says_what_to_create_first() {
    let (app, client) = signed_in().await;
    let (_, empty) = page(&client, &app, "/dashboard").await;
    let card = empty.split(r#"id="first-steps""#).nth(1).expect("the card");
    for link in [
        r#"<a href="/manufacturers/new">Manufacturers</a>"#,
        r#"<a href="/printers/new">Printers</a>"#,
        r#"<a href="/components/new">Hotend</a>"#,
        r#"<a href="/filaments/new">Filaments</a>"#,
    ] {
        assert!(card.contains(link), "{link}: {card}");
    }
    // A form that needs a manufacturer, with none yet, links to creating one.
    for form in ["/printers/new", "/filaments/new"] {
        let (_, html) = page(&client, &app, form).await;
        let hint = html.split(r#"id="no-manufacturer""#).nth(1).expect(form);
        assert!(
            hint.contains(r#"<a href="/manufacturers/new">"#),
            "{form}: {hint}"
        );
    }
    shop(&app).await;
    let (_, printer_form) = page(&client, &app, "/printers/new").await;
    assert!(!printer_form.contains(r#"id="no-manufacturer""#));
    let (_, stocked) = page(&client, &app, "/dashboard").await;
    assert!(!stocked.contains(r#"id="first-steps""#), "nothing missing");
}

#[actix_web::test]
async fn a_forms_post_only_address_opened_by_get_leads_to_the_forms_page() {
    let (app, client, shop, id) = bracket().await;
    let customer = &shop.customer;
    for (form, page) in [
        (format!("/prints/{id}/outcome"), format!("/prints/{id}")),
        (
            format!("/prints/{id}/outcome/correct"),
            format!("/prints/{id}"),
        ),
        (
            format!("/prints/{id}/actions/status"),
            format!("/prints/{id}"),
        ),
        (
            format!("/customers/{customer}/delete"),
            format!("/customers/{customer}"),
        ),
        ("/settings/language".into(), "/settings".into()),
        ("/spools".into(), "/stock".into()),
    ] {
        let res = client.get(app.url(&form)).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 303, "{form}");
        assert_eq!(location(&res), page, "{form}");
    }
    // A malformed id and an address that is no page: the error page, never raw JSON.
    for missing in ["/prints/not-an-id/outcome", "/no/such/page"] {
        let res = client
            .get(app.url(missing))
            .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let body = res.text().await.unwrap();
        assert_eq!(status, 404, "{missing}");
        assert!(body.starts_with("<!doctype html>"), "{missing}: {body}");
    }
    let api = client
        .get(app.url("/api/no-such-thing"))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status().as_u16(), 404);
    let body: Value = api.json().await.unwrap();
    assert_eq!(body["data"]["code"], "NOT_FOUND");
}

#[actix_web::test]
async fn a_new_draft_in_a_one_printer_shop_starts_on_it_with_what_it_preselects() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let (status, editor) = page(&client, &app, "/prints/new").await;
    assert_eq!(status, 200);
    for (what, id) in [
        ("printer", &shop.printer),
        ("build plate", &shop.plate),
        ("hotend", &shop.hotend),
    ] {
        let option = editor
            .split(&format!(r#"<option value="{id}""#))
            .nth(1)
            .unwrap_or_else(|| panic!("no {what} option: {editor}"));
        let option = option.split('>').next().unwrap();
        assert!(option.contains(" selected"), "{what}: {option}");
    }
    // The printer's option carries what a part on it preselects, for the editor's script.
    assert!(
        editor.contains(&format!(r#"data-plate="{}""#, shop.plate)),
        "{editor}"
    );
}

#[actix_web::test]
async fn a_printers_meter_is_linked_and_unlinked_on_its_page() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let printer = format!("/printers/{}", shop.printer);
    let (_, html) = page(&client, &app, &printer).await;
    assert!(html.contains(r#"id="meter""#), "{html}");
    assert!(html.contains("No meter linked"), "{html}");
    let form = [
        ("kind", "MQTT"),
        ("topic", "shellyplug-mk4/status/switch:0"),
        ("jsonPath", "aenergy.total"),
        ("source", ""),
        ("point", ""),
        ("unit", "WH"),
    ];
    let meter = format!("{printer}/meter");
    let res = submit(&client, &app, &meter, &form).await;
    assert_eq!(location(&res), format!("{printer}?saved"));
    let linked = app.json(&format!("/api{printer}/meter")).await;
    assert_eq!(linked["meter"]["topic"], "shellyplug-mk4/status/switch:0");
    assert_eq!(linked["meter"]["unit"], "WH");
    let (_, html) = page(&client, &app, &printer).await;
    assert!(
        html.contains(r#"<code id="meter-topic-shown">shellyplug-mk4/status/switch:0</code>"#),
        "{html}"
    );
    // A topic with a wildcard is refused, naming the field.
    let wild = [("kind", "MQTT"), ("topic", "tele/#"), ("unit", "KWH")];
    let refused = submit(&client, &app, &meter, &wild).await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    assert!(body.contains(r#"id="meter-topic-fault""#), "{body}");
    assert!(
        body.contains(r#"value="tele/#""#),
        "the form keeps what was typed"
    );
    // A bridge point without its point: the printer's page again, the field marked, not an
    // error page.
    let no_point = [
        ("kind", "BRIDGE_POINT"),
        ("source", "sdm120"),
        ("unit", "KWH"),
    ];
    let refused = submit(&client, &app, &meter, &no_point).await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    assert!(body.contains(r#"id="meter-point-fault""#), "{body}");
    assert!(body.contains(r#"id="meter-refused""#));
    assert!(body.contains(r#"<option value="BRIDGE_POINT" selected>"#));
    assert!(body.contains(r#"value="sdm120""#));
    assert!(
        body.contains(r#"href="/printers" id="cancel""#) && body.contains(r#"id="meter""#),
        "the printer's page"
    );
    let unlink = submit(&client, &app, &meter, &[("unlink", "1")]).await;
    assert_eq!(unlink.status().as_u16(), 303);
    assert_eq!(
        app.json(&format!("/api{printer}/meter")).await["meter"],
        Value::Null
    );
}

/// "Done, with this outcome" at PRINTED (and the hint at PRINTING): one form moves the print to
/// DONE and records its outcome, each by its own rule; a refused outcome leaves it PRINTED. A
/// DONE print without an outcome says its realized figures wait, and the dashboard counts it.
#[actix_web::test]
async fn the_outcome_is_taken_from_printed_and_the_dashboard_counts_what_waits() {
    let (app, client, shop, id) = bracket().await;
    let status = |to: &'static str| json!({"status": to});
    let path = format!("/api/prints/{id}");
    assert_eq!(app.patch(&path, &status("PRINTING")).await.status(), 200);
    let (_, printing) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(printing.contains(r#"id="outcome-soon""#), "{printing}");
    assert!(!printing.contains(r#"id="outcome-form""#));
    assert_eq!(app.patch(&path, &status("PRINTED")).await.status(), 200);
    let (_, printed) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(
        printed.contains(r#"name="finish" value="yes""#),
        "{printed}"
    );
    assert!(printed.contains("Done, with this outcome"));

    let print = app.json(&path).await;
    let usage = print["usages"][0]["id"].as_str().unwrap();
    let form = |grams: &'static str| {
        vec![
            ("finish", "yes"),
            ("status", "SUCCESS"),
            ("durationMinutes", "90"),
            ("filaments[0].usageId", usage),
            ("filaments[0].usedGrams", grams),
        ]
    };
    let outcome = format!("/prints/{id}/outcome");
    let refused = submit(&client, &app, &outcome, &form("-3")).await;
    assert_eq!(refused.status().as_u16(), 422);
    let kept = app.json(&path).await;
    assert_eq!(kept["status"], "PRINTED", "nothing half-written: {kept}");
    assert!(kept["outcome"].is_null());

    let done = submit(&client, &app, &outcome, &form("41.5")).await;
    assert_eq!(done.status().as_u16(), 303);
    assert_eq!(location(&done), format!("/prints/{id}?did=finished"));
    let stored = app.json(&path).await;
    assert_eq!(stored["status"], "DONE");
    assert_eq!(stored["outcome"]["status"], "SUCCESS");
    assert_eq!(stored["outcome"]["filaments"][0]["usedGrams"], "41.5");
    let (_, shown) = page(&client, &app, location(&done)).await;
    assert!(
        shown.contains("Done, with its outcome recorded."),
        "{shown}"
    );
    assert!(!shown.contains(r#"id="outcome-waits""#));
    assert!(
        !shown.contains(r#"id="move-status""#),
        "a recorded print has nowhere to move: no dead control"
    );
    // From any status but PRINTED and SHIPPED the form is refused whole (409 INVALID_STATE):
    // this one is DONE already, and its outcome stays as recorded.
    let again = submit(&client, &app, &outcome, &form("40")).await;
    assert_eq!(again.status().as_u16(), 409);
    let unchanged = app.json(&path).await;
    assert_eq!(unchanged["outcome"]["filaments"][0]["usedGrams"], "41.5");
    assert_eq!(unchanged["status"], "DONE");

    // Another one moved to DONE without an outcome: its page and the dashboard say it waits.
    let other = app.done(&draft(&shop, "Hook")).await;
    let other_id = other["id"].as_str().unwrap();
    let (_, waits) = page(&client, &app, &format!("/prints/{other_id}")).await;
    assert!(waits.contains(r#"id="outcome-waits""#), "{waits}");
    let (_, board) = page(&client, &app, "/dashboard").await;
    let card = board.split(r#"id="waiting-outcome""#).nth(1).unwrap();
    assert!(
        card.contains("Finished prints waiting for their outcome: 1</a>"),
        "{card}"
    );
    let (_, listed) = page(&client, &app, "/prints?status=DONE&outcome=PENDING").await;
    assert!(
        listed.contains("Hook") && !listed.contains(">Bracket<"),
        "{listed}"
    );
}

/// A new filament's form asks whether a spool is on hand (unticked: no phantom catalog spool);
/// its page offers to receive a spool, whose form is prefilled from the filament's catalog; the
/// one roll booked counts once on the stock page.
#[actix_web::test]
async fn a_new_filament_asks_for_its_spool_and_the_first_roll_counts_once() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let (_, form) = page(&client, &app, "/filaments/new").await;
    assert!(
        form.contains(r#"<input type="checkbox" name="openingSpool">"#),
        "asked, unticked: {form}"
    );
    let created = submit(
        &client,
        &app,
        "/filaments",
        &[
            ("manufacturerId", shop.maker.as_str()),
            ("material", "PETG"),
            ("colorName", "Teal"),
            ("colorHex", "#008080"),
            ("purchasePrice", "24.90"),
            ("netWeightGrams", "1000"),
        ],
    )
    .await;
    assert_eq!(created.status().as_u16(), 303);
    let id = created_id(location(&created)).to_string();
    let stock = format!("/api/filaments/{id}/stock");
    assert_eq!(app.json(&stock).await["activeTotalGrams"], "0");
    let (_, saved) = page(&client, &app, location(&created)).await;
    let receive = format!("/spools/new?filamentId={id}");
    assert!(
        saved.contains(&format!(r#"href="{receive}" id="receive-spool""#)),
        "{saved}"
    );
    let (_, spool_form) = page(&client, &app, &receive).await;
    assert!(spool_form.contains(r#"name="purchasePrice""#));
    assert!(spool_form.contains(r#"value="24.9""#), "{spool_form}");
    assert!(spool_form.contains(r#"value="1000""#), "{spool_form}");
    let booked = submit(
        &client,
        &app,
        "/spools",
        &[
            ("filamentId", id.as_str()),
            ("code", "TEAL-1"),
            ("purchasePrice", "24.90"),
            ("initialNetWeightGrams", "338"),
        ],
    )
    .await;
    assert_eq!(booked.status().as_u16(), 303);
    assert_eq!(app.json(&stock).await["activeTotalGrams"], "338");
}

/// The empty printer form is refused with every fault in the first round, the manufacturer
/// among them (it is required, and a shop with two makers preselects none).
#[actix_web::test]
async fn the_empty_printer_form_flags_every_field_the_manufacturer_too_at_once() {
    let (app, client) = signed_in().await;
    prusa(&app, &client).await;
    app.manufacturer("Bambu Lab").await;
    let empty = [
        ("name", ""),
        ("manufacturerId", ""),
        ("model", ""),
        ("purchasePrice", ""),
        ("expectedLifetimeHours", ""),
        ("averagePowerWatts", ""),
        ("note", ""),
    ];
    let res = submit(&client, &app, "/printers", &empty).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    for field in [
        "name",
        "manufacturerId",
        "purchasePrice",
        "expectedLifetimeHours",
        "averagePowerWatts",
    ] {
        assert!(
            body.contains(&format!(r#"id="{field}-fault""#)),
            "{field}: {body}"
        );
    }
}

/// Two prints PRINTING on one printer: each page names the other (one was likely left behind);
/// a spool that holds more than its net weight after a receipt says so.
#[actix_web::test]
async fn a_second_print_on_a_busy_printer_and_an_overfull_spool_are_said() {
    let (app, client, shop, first) = bracket().await;
    let printing = json!({"status": "PRINTING"});
    let res = app.patch(&format!("/api/prints/{first}"), &printing).await;
    assert_eq!(res.status(), 200);
    let (_, alone) = page(&client, &app, &format!("/prints/{first}")).await;
    assert!(!alone.contains(r#"id="also-printing""#), "{alone}");
    let second = app.create("/api/prints", &draft(&shop, "Hook")).await;
    let second = second["id"].as_str().unwrap();
    let res = app.patch(&format!("/api/prints/{second}"), &printing).await;
    assert_eq!(res.status(), 200);
    let (_, busy) = page(&client, &app, &format!("/prints/{second}")).await;
    let said = busy.split(r#"id="also-printing""#).nth(1).unwrap();
    assert!(
        said.contains(&format!(r#"<a href="/prints/{first}">Bracket</a>"#)),
        "{said}"
    );

    let spool = json!({"code": "FULL-1", "filamentId": shop.filament, "purchasePrice": "20", "initialNetWeightGrams": "1000"});
    let spool = app.create("/api/spools", &spool).await;
    let id = spool["id"].as_str().unwrap();
    let (_, fresh) = page(&client, &app, &format!("/spools/{id}")).await;
    assert!(!fresh.contains(r#"id="over-net-weight""#));
    let receipt = [("kind", "RECEIPT"), ("grams", "250")];
    let booked = submit(&client, &app, &format!("/spools/{id}/movements"), &receipt).await;
    assert_eq!(booked.status().as_u16(), 303);
    let (_, over) = page(&client, &app, location(&booked)).await;
    assert!(over.contains(r#"id="over-net-weight""#), "{over}");
}
