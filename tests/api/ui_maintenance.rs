//! The maintenance page over a real socket: a refused task form at the page's own path, a task
//! added, the dashboard listing it once overdue, and marking it done.

use crate::outcomes::outcome;
use crate::support::{draft, location, page, part, shop, signed_in, submit};
use serde_json::{Value, json};

#[actix_web::test]
async fn the_maintenance_page_adds_a_task_marks_it_done_and_the_dashboard_lists_what_is_due() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let (status, body) = page(&client, &app, "/maintenance").await;
    assert_eq!(status, 200);
    assert!(body.contains(r#"id="new-task""#));

    let refused = submit(
        &client,
        &app,
        "/maintenance",
        &[
            ("name", " "),
            ("printerId", &shop.printer),
            ("every.count", "20"),
            ("every.unit", "PRINTS"),
        ],
    )
    .await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    assert!(body.contains(r#"id="name-fault""#), "{body}");

    let created = submit(
        &client,
        &app,
        "/maintenance",
        &[
            ("name", "Clean the build plate"),
            ("printerId", &shop.printer),
            ("componentId", &shop.plate),
            ("every.count", "1"),
            ("every.unit", "PRINTS"),
            ("blocking", "on"),
        ],
    )
    .await;
    assert_eq!(created.status().as_u16(), 303);
    let (_, body) = page(&client, &app, location(&created)).await;
    assert!(body.contains("Task added: Clean the build plate"), "{body}");

    // One run makes it overdue: the dashboard lists it.
    let mut print = draft(&shop, "Plate user");
    print["parts"] = json!([part(&shop, 600, "5")]);
    let done = app.done(&print).await;
    let id = done["id"].as_str().unwrap();
    let outcome = outcome(&done, "SUCCESS", 600, "5");
    let res = app
        .post(&format!("/api/prints/{id}/outcome"), &outcome)
        .await;
    assert_eq!(res.status(), 200);
    let (_, body) = page(&client, &app, "/dashboard").await;
    assert!(body.contains(r#"id="maintenance-due""#), "{body}");
    assert!(body.contains("Clean the build plate"));

    let tasks: Value = app.get("/api/maintenance").await.json().await.unwrap();
    let task = tasks[0]["id"].as_str().unwrap();
    let marked = submit(&client, &app, &format!("/maintenance/{task}/done"), &[]).await;
    assert_eq!(marked.status().as_u16(), 303);
    let (_, body) = page(&client, &app, location(&marked)).await;
    assert!(
        body.contains("Marked done: Clean the build plate"),
        "{body}"
    );
    let (_, body) = page(&client, &app, "/dashboard").await;
    assert!(!body.contains(r#"id="maintenance-due""#));
}

#[actix_web::test]
async fn a_components_page_shows_its_wear_and_replaces_it() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Bracket");
    body["parts"] = json!([part(&shop, 5400, "10")]);
    let print = app.done(&body).await;
    let id = print["id"].as_str().unwrap();
    let res = app
        .post(
            &format!("/api/prints/{id}/outcome"),
            &outcome(&print, "SUCCESS", 5400, "10"),
        )
        .await;
    assert_eq!(res.status(), 200);

    let (status, page_body) = page(&client, &app, &format!("/components/{}", shop.plate)).await;
    assert_eq!(status, 200);
    assert!(page_body.contains(r#"id="wear""#), "{page_body}");
    assert!(
        page_body.contains("1.5 of 1,200 h"),
        "hours against the lifetime: {page_body}"
    );
    assert!(page_body.contains("1,198.5 h"), "remaining: {page_body}");
    assert!(page_body.contains("€0.05"), "60 over 1,200 h: {page_body}");
    assert!(page_body.contains("€0.08"), "1.5 h of it: {page_body}");
    let (_, printer_page) = page(&client, &app, &format!("/printers/{}", shop.printer)).await;
    assert!(printer_page.contains(r#"id="wear""#));
    assert!(
        !printer_page.contains(r#"id="replace""#),
        "printers are not replaced here"
    );

    let replaced = submit(
        &client,
        &app,
        &format!("/components/{}/replace", shop.plate),
        &[("purchasePrice", "")],
    )
    .await;
    assert_eq!(replaced.status().as_u16(), 303);
    let to = location(&replaced).to_string();
    assert!(
        to.starts_with("/components/") && to.ends_with("?replaced"),
        "{to}"
    );
    assert!(!to.contains(&shop.plate), "a new component");
    let old: Value = app
        .get(&format!("/api/components/{}", shop.plate))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(old["archived"], true);
    let (_, retired) = page(&client, &app, &format!("/components/{}", shop.plate)).await;
    assert!(
        !retired.contains(r#"id="replace""#),
        "an archived part is not replaced again"
    );
}

/// The maintenance gate on a print's page, in German: an overdue blocking task names itself
/// beside the override's reason field; "Als fertig markieren" on a DRAFT asks first (it skips
/// PRINTING) and is then held at the gate; the refusal shows the form with the move preselected
/// and an empty reason marked; a reason moves the print and is recorded on the task.
#[actix_web::test]
async fn a_blocked_print_offers_the_override_on_its_page_and_on_the_refusal() {
    let (app, client) = signed_in().await;
    let german = client
        .patch(app.url("/api/auth/preferences"))
        .json(&json!({"locale": "de-DE"}))
        .send()
        .await
        .unwrap();
    assert_eq!(german.status(), 200);
    let shop = shop(&app).await;
    let body = json!({"printerId": shop.printer, "name": "Düse reinigen", "every": {"unit": "PRINTS", "count": 1}, "blocking": true});
    let task = app.create("/api/maintenance", &body).await;
    let mut first = draft(&shop, "Halter");
    first["parts"] = json!([part(&shop, 600, "5")]);
    let done = app.done(&first).await;
    let first_id = done["id"].as_str().unwrap();
    let recorded = app
        .post(
            &format!("/api/prints/{first_id}/outcome"),
            &outcome(&done, "SUCCESS", 600, "5"),
        )
        .await;
    assert_eq!(recorded.status(), 200);

    let next = app.create("/api/prints", &draft(&shop, "Halter 2")).await;
    let id = next["id"].as_str().unwrap();
    let (_, body) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(body.contains(r#"id="maintenance-override""#), "{body}");
    assert!(body.contains(r#"id="blocking-task">Düse reinigen</a>"#));
    assert!(body.contains("Grund, trotzdem zu drucken"));

    let complete = submit(
        &client,
        &app,
        &format!("/prints/{id}/actions/complete"),
        &[],
    )
    .await;
    assert_eq!(
        location(&complete),
        format!("/prints/{id}?confirmMove=DONE")
    );
    let (_, asked) = page(&client, &app, location(&complete)).await;
    assert!(
        asked.contains("Drucken überspringen") && asked.contains("Wirklich weiter auf Fertig?"),
        "{asked}"
    );
    let status = format!("/prints/{id}/actions/status");
    let yes = [("status", "DONE"), ("confirmed", "yes")];
    let refused = submit(&client, &app, &status, &yes).await;
    assert_eq!(refused.status().as_u16(), 409);
    let body = refused.text().await.unwrap();
    assert!(body.contains(r#"<option value="DONE" selected>"#), "{body}");
    assert!(body.contains("Wartungsaufgabe dieses Druckers ist überfällig"));

    let blank = [
        ("status", "DONE"),
        ("confirmed", "yes"),
        ("maintenanceOverride", " "),
    ];
    let refused = submit(&client, &app, &status, &blank).await;
    assert_eq!(refused.status().as_u16(), 422);
    let body = refused.text().await.unwrap();
    assert!(body.contains(r#"<span class="fault">"#), "{body}");
    let stored = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(stored["status"], "DRAFT");

    let reason = "Kunde wartet, Düse per Sicht geprüft";
    let given = [
        ("status", "DONE"),
        ("confirmed", "yes"),
        ("maintenanceOverride", reason),
    ];
    let moved = submit(&client, &app, &status, &given).await;
    assert_eq!(moved.status().as_u16(), 303);
    let stored = app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(stored["status"], "DONE");
    let task_id = task["id"].as_str().unwrap();
    let task = app.json(&format!("/api/maintenance/{task_id}")).await;
    assert_eq!(task["overrides"][0]["reason"], reason);
    let (_, body) = page(&client, &app, location(&moved)).await;
    assert!(
        !body.contains(r#"id="maintenance-override""#),
        "a DONE print is not held"
    );
}

/// A task's own page: where it stands, each time it was done (by whom, with the note, newest
/// first) and who changed what; a note over 10,000 characters is refused and nothing is marked.
#[actix_web::test]
async fn a_tasks_page_shows_when_it_was_done_by_whom_and_who_changed_what() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let task = app
        .create(
            "/api/maintenance",
            &json!({"printerId": shop.printer, "name": "Grease the rods",
                    "every": {"unit": "DAYS", "count": 30}}),
        )
        .await;
    let path = format!("/maintenance/{}", task["id"].as_str().unwrap());
    let (status, body) = page(&client, &app, "/maintenance").await;
    assert_eq!(status, 200);
    assert!(body.contains(&format!(r#"href="{path}""#)), "{body}");
    let (status, body) = page(&client, &app, &path).await;
    assert_eq!(status, 200);
    assert!(body.contains("Grease the rods") && body.contains("Counting since"));
    assert!(body.contains("Not done yet"), "{body}");

    let long = "x".repeat(10_001);
    let refused = submit(&client, &app, &format!("{path}/done"), &[("note", &long)]).await;
    assert_eq!(refused.status().as_u16(), 422);
    let api = format!("/api{path}");
    assert_eq!(app.json(&api).await["done"], json!([]), "nothing marked");

    for note in ["oiled", "greased"] {
        let marked = submit(&client, &app, &format!("{path}/done"), &[("note", note)]).await;
        assert_eq!(marked.status().as_u16(), 303);
    }
    let (_, body) = page(&client, &app, &path).await;
    let done = &body[body.find(r#"id="done""#).unwrap()..body.find(r#"id="changes""#).unwrap()];
    let greased = done.find("greased").expect("the second time");
    let oiled = done.find("oiled").expect("the first time");
    assert!(greased < oiled, "newest first: {done}");
    assert!(done.contains("<td>Ada</td>"), "{done}");
    let changes = &body[body.find(r#"id="changes""#).unwrap()..];
    assert!(
        changes.contains("MarkDone") && changes.contains("CreateTask") && changes.contains("Ada"),
        "{changes}"
    );
    let (status, _) = page(
        &client,
        &app,
        "/maintenance/0190f5a0-0000-7000-8000-000000000000",
    )
    .await;
    assert_eq!(status, 404);
}
