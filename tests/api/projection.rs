//! The print list projection follows every path that changes a print: the list is read right
//! after each write, through a filter that only matches the print as it now is.

use crate::support;
use crate::support::{EMAIL, PASSWORD, TestApp, setup_body};
use crate::support::{browser, created_id, location, submit};
use crate::support::{draft, shop};
use serde_json::{Value, json};

/// Checks that the list, read now, shows print `id` as it is stored: found by its status,
/// outcome, archive state and name, and not found under another status.
async fn assert_listed(app: &TestApp, id: &str) {
    let print: Value = app
        .get(&format!("/api/prints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    let (status, name) = (
        print["status"].as_str().unwrap(),
        print["name"].as_str().unwrap(),
    );
    let outcome = print["outcome"]["status"].as_str().unwrap_or("PENDING");
    let mut query = format!(
        "/api/prints?includeArchived=true&status={status}&search={}",
        support::urlencode(name)
    );
    if status == "DONE" {
        query.push_str(&format!("&outcome={outcome}"));
    }
    let ids = |list: Value| -> Vec<String> {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect()
    };
    let listed = ids(app.get(&query).await.json().await.unwrap());
    assert!(
        listed.contains(&id.to_string()),
        "{id} not listed by {query}"
    );
    let other = if status == "DRAFT" {
        "PRINTING"
    } else {
        "DRAFT"
    };
    let elsewhere = ids(app
        .get(&format!("/api/prints?includeArchived=true&status={other}"))
        .await
        .json()
        .await
        .unwrap());
    assert!(
        !elsewhere.contains(&id.to_string()),
        "{id} still listed as {other}"
    );
    let active = ids(app
        .get("/api/prints?pageSize=100")
        .await
        .json()
        .await
        .unwrap());
    assert_eq!(
        active.contains(&id.to_string()),
        print["archived"] == false,
        "archive state of {id}"
    );
}

/// POSTs `body` to `path` and returns the answered print.
async fn post_print(app: &TestApp, path: &str, body: Value) -> Value {
    let res = app.post(path, &body).await;
    assert!(res.status().is_success(), "{path}: {}", res.status());
    res.json().await.unwrap()
}

#[actix_web::test]
async fn every_api_path_that_changes_a_print_keeps_the_list_current() {
    let app = TestApp::spawn().await;
    app.setup().await;
    app.patch(
        "/api/settings/features",
        &json!({"printSeriesEnabled": true}),
    )
    .await;
    let shop = shop(&app).await;
    let print = app.create("/api/prints", &draft(&shop, "Projected")).await;
    let id = print["id"].as_str().unwrap().to_string();
    assert_listed(&app, &id).await;

    let mut renamed = draft(&shop, "Renamed");
    renamed["quantity"] = json!(2);
    let res = app.patch(&format!("/api/prints/{id}"), &renamed).await;
    assert_eq!(res.status(), 200);
    assert_listed(&app, &id).await;

    for body in [
        json!({"status": "PRINTING"}),
        json!({"paid": true}),
        json!({"archived": true}),
        json!({"archived": false}),
    ] {
        let res = app.patch(&format!("/api/prints/{id}"), &body).await;
        assert_eq!(res.status(), 200, "{body}");
        assert_listed(&app, &id).await;
    }
    let done = post_print(&app, &format!("/api/prints/{id}/complete"), json!({})).await;
    assert_listed(&app, &id).await;

    for action in ["duplicate", "repeat"] {
        let copy = post_print(&app, &format!("/api/prints/{id}/{action}"), json!({})).await;
        assert_listed(&app, copy["id"].as_str().unwrap()).await;
    }

    let filaments: Vec<Value> = done["usages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| json!({"usageId": u["id"], "usedGrams": "40"}))
        .collect();
    let failed = json!({"status": "FAILED", "durationSeconds": 600, "filaments": filaments, "failureReason": "Spaghetti"});
    post_print(&app, &format!("/api/prints/{id}/outcome"), failed).await;
    assert_listed(&app, &id).await;

    let retry = post_print(&app, &format!("/api/prints/{id}/retry"), json!({})).await;
    assert_listed(&app, retry["id"].as_str().unwrap()).await;

    let correction = json!({
        "status": "SUCCESS", "durationSeconds": 600, "filaments": filaments,
        "correctionNote": "It was fine", "expectedRevision": 1,
        "operationKey": "0190c3d2-7a8b-7c9d-8e0f-112233445566",
    });
    post_print(
        &app,
        &format!("/api/prints/{id}/outcome/correct"),
        correction,
    )
    .await;
    assert_listed(&app, &id).await;

    let series = app.create("/api/series", &json!({"name": "Runs"})).await;
    let series_id = series["id"].as_str().unwrap();
    let run = post_print(
        &app,
        &format!("/api/series/{series_id}/next-run"),
        json!({"sourcePrintId": id}),
    )
    .await;
    assert_listed(&app, run["id"].as_str().unwrap()).await;
}

#[actix_web::test]
async fn the_ui_and_demo_data_keep_the_list_current() {
    let app = TestApp::spawn().await;
    let res = app
        .post("/api/auth/setup", &{
            let mut body = setup_body();
            body["createDemoData"] = json!(true);
            body
        })
        .await;
    assert_eq!(res.status(), 201);
    let all: Value = app
        .get("/api/prints?includeArchived=true&pageSize=100")
        .await
        .json()
        .await
        .unwrap();
    let demo = all["items"].as_array().unwrap();
    assert!(!demo.is_empty(), "the demo prints are listed at once");
    for print in demo {
        assert_listed(&app, print["id"].as_str().unwrap()).await;
    }

    let client = browser(&app);
    let login = submit(
        &client,
        &app,
        "/login",
        &[("email", EMAIL), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(login.status().as_u16(), 303);
    let shop = shop(&app).await;
    let form = [
        ("name", "From the editor"),
        ("parts[0].printerId", shop.printer.as_str()),
        ("parts[0].buildPlateId", shop.plate.as_str()),
        ("parts[0].hotends[0].componentId", shop.hotend.as_str()),
        ("parts[0].hotends[0].durationMinutes", "30"),
        ("parts[0].filaments[0].filamentId", shop.filament.as_str()),
        ("parts[0].filaments[0].usedGrams", "12"),
    ];
    let res = submit(&client, &app, "/prints", &form).await;
    assert_eq!(res.status().as_u16(), 303);
    let id = created_id(location(&res));
    assert_listed(&app, &id).await;

    let path = format!("/prints/{id}/actions/status");
    let shipped = [("status", "SHIPPED"), ("confirmed", "yes")];
    let res = submit(&client, &app, &path, &shipped).await;
    assert_eq!(res.status().as_u16(), 303);
    assert_listed(&app, &id).await;
    let path = format!("/prints/{id}/actions/archive");
    let res = submit(&client, &app, &path, &[("value", "true")]).await;
    assert_eq!(res.status().as_u16(), 303);
    assert_listed(&app, &id).await;
}
