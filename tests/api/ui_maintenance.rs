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
