//! The printer-fleet integration over HTTP against the Bambuddy double of `support::bambuddy`:
//! link, sync and tray mapping, attach, import of SUCCESS and FAILED logs into a two-part print
//! with one manual part, every refusal with its code, the peer's faults, and stock booked once.

use crate::materials;
use crate::spoolmgr::{self, linked_app};
use crate::support;
use crate::support::bambuddy::{self, Fault, Fleet, log_json};
use crate::support::spoolman::Double;
use crate::support::{Shop, TestApp, assert_error, assert_field_error, part, shop};
use serde_json::{Value, json};

async fn enable(app: &TestApp, url: &str, key: &str) {
    let change = json!({"printfleet": {"enabled": true, "url": url, "apiKey": key}});
    assert_eq!(
        app.patch("/api/settings/integrations", &change)
            .await
            .status(),
        200
    );
}

async fn fleet_app(fleet: &Fleet) -> TestApp {
    let app = TestApp::spawn().await;
    app.setup().await;
    enable(&app, &fleet.url, bambuddy::KEY).await;
    app
}

async fn action(app: &TestApp, name: &str, data: Value) -> reqwest::Response {
    support::act(app, "/api/integrations/printfleet", name, data).await
}

/// Asserts that action `name` with `data` is refused with `status` and `code`; the body.
async fn refused(app: &TestApp, name: &str, data: Value, status: u16, code: &str) -> Value {
    assert_error(action(app, name, data).await, status, code).await
}

async fn ok(app: &TestApp, name: &str, data: Value) -> Value {
    let res = action(app, name, data).await;
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert_eq!(status, 200, "{name}: {body}");
    body
}

async fn status(app: &TestApp, query: &str) -> Value {
    let res = app
        .get(&format!("/api/integrations/printfleet{query}"))
        .await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// The shop, its printer linked to remote printer 1.
async fn linked_shop(app: &TestApp) -> Shop {
    let shop = shop(app).await;
    let link = json!({"printerId": shop.printer, "remoteId": 1});
    ok(app, "LINK_PRINTER", link).await;
    shop
}

/// A printer of the shop's manufacturer that is never linked (a manual part's printer).
async fn manual_printer(app: &TestApp) -> String {
    let maker = app
        .manufacturer(&format!("Manual Works {}", uuid::Uuid::now_v7()))
        .await;
    let body = json!({"name": "Bench printer", "manufacturerId": maker, "purchasePrice": "800", "expectedLifetimeHours": "4000", "averagePowerWatts": 90});
    app.create("/api/printers", &body).await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A DONE two-part print: part 0 on the shop's (linked) printer, 3,600 s and 20 g; part 1 on
/// the manual printer, 1,800 s and 10 g.
async fn two_parts(app: &TestApp, shop: &Shop, manual: &str) -> Value {
    let mut second = part(shop, 1800, "10");
    second["printerId"] = json!(manual);
    let body = json!({"name": "Two plates", "parts": [part(shop, 3600, "20"), second]});
    app.done(&body).await
}

/// The outcome of `two_parts` with `grams` on part 0's usage and 10 g on part 1's.
fn outcome(print: &Value, status: &str, seconds: [u32; 2], grams: &str) -> Value {
    let usages = print["usages"].as_array().unwrap();
    let parts = print["parts"].as_array().unwrap();
    let mut body = json!({
        "status": status, "durationSeconds": seconds[0] + seconds[1],
        "filaments": [{"usageId": usages[0]["id"], "usedGrams": grams}, {"usageId": usages[1]["id"], "usedGrams": "10"}],
        "parts": [{"partId": parts[0]["id"], "durationSeconds": seconds[0]}, {"partId": parts[1]["id"], "durationSeconds": seconds[1]}]
    });
    if status == "FAILED" {
        body["failureReason"] = json!("Spaghetti at layer 40");
    }
    body
}

/// A fleet double, an app linked to it, the shop, and `log` attached to part 0 of a DONE
/// two-part print (see [`attached`]): the print and part 0's previewHash.
async fn scenario(log: Value) -> (Fleet, TestApp, Shop, Value, String) {
    let fleet = Fleet::start().await;
    let app = fleet_app(&fleet).await;
    let shop = shop(&app).await;
    let (print, hash) = attached(&app, &fleet, &shop, log).await;
    (fleet, app, shop, print, hash)
}

/// A linked shop printer (remote 1), a manual printer and a DONE two-part print with log
/// `log` attached to part 0; answers the print and part 0's previewHash.
async fn attached(app: &TestApp, fleet: &Fleet, shop: &Shop, log: Value) -> (Value, String) {
    ok(
        app,
        "LINK_PRINTER",
        json!({"printerId": shop.printer, "remoteId": 1}),
    )
    .await;
    let manual = manual_printer(app).await;
    let print = two_parts(app, shop, &manual).await;
    let log_id = log["id"].clone();
    fleet.log(log);
    let (pid, part0) = (print["id"].clone(), print["parts"][0]["id"].clone());
    ok(
        app,
        "ATTACH",
        json!({"printId": pid, "partId": part0, "remoteLogId": log_id}),
    )
    .await;
    let query = format!(
        "?printId={}&partId={}",
        pid.as_str().unwrap(),
        part0.as_str().unwrap()
    );
    let hash = status(app, &query).await["link"]["previewHash"]
        .as_str()
        .unwrap()
        .to_string();
    (print, hash)
}

/// A correction of `two_parts` to `status` with `grams` on part 0, of revision 1.
fn correction(print: &Value, status: &str, seconds: [u32; 2], grams: &str) -> Value {
    let mut body = outcome(print, status, seconds, grams);
    body["correctionNote"] = json!("Weighed the purge");
    body["expectedRevision"] = json!(1);
    body["operationKey"] = json!(uuid::Uuid::now_v7().to_string());
    body
}

fn import_body(print: &Value, hash: &str, outcome: Value) -> Value {
    json!({"printId": print["id"], "previews": [{"partId": print["parts"][0]["id"], "previewHash": hash}], "outcome": outcome})
}

async fn remaining(app: &TestApp, print: &Value) -> String {
    spoolmgr::spool(app, print["usages"][0]["spoolId"].as_str().unwrap()).await["remainingGrams"]
        .as_str()
        .unwrap()
        .to_string()
}

#[actix_web::test]
async fn a_linked_printer_shows_its_trays_and_a_remote_printer_links_once() {
    let fleet = Fleet::start().await;
    let app = fleet_app(&fleet).await;
    let found = status(&app, "").await;
    assert_eq!(
        (found["configured"].as_bool(), found["version"].as_str()),
        (Some(true), Some("1.2.5.2"))
    );
    assert_eq!(
        found["remotePrinters"],
        json!([{"id": 1, "name": "X1C Left"}, {"id": 2, "name": "P1S Right"}])
    );
    let shop = linked_shop(&app).await;
    let printer = status(&app, "").await["printers"][0].clone();
    assert_eq!(
        (printer["remoteId"].as_u64(), printer["state"].as_str()),
        (Some(1), Some("IDLE"))
    );
    let slots: Vec<&str> = printer["trays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["slot"].as_str().unwrap())
        .collect();
    assert_eq!(slots, ["0:0", "0:1", "0:2", "255:254"]);
    assert_eq!(
        printer["trays"][2]["material"],
        Value::Null,
        "an empty tray"
    );
    assert_eq!(
        (printer["stale"].as_bool(), printer["error"].as_str()),
        (Some(false), None)
    );
    let other = manual_printer(&app).await;
    let taken = action(
        &app,
        "LINK_PRINTER",
        json!({"printerId": other, "remoteId": 1}),
    )
    .await;
    assert_error(taken, 409, "INTEGRATION_CONFLICT").await;
    let unknown = action(
        &app,
        "LINK_PRINTER",
        json!({"printerId": other, "remoteId": 99}),
    )
    .await;
    assert_field_error(unknown, "remoteId", "errors.notFound").await;
    ok(
        &app,
        "LINK_PRINTER",
        json!({"printerId": shop.printer, "remoteId": null}),
    )
    .await;
    assert_eq!(status(&app, "").await["printers"], json!([]));
    ok(
        &app,
        "LINK_PRINTER",
        json!({"printerId": other, "remoteId": 1}),
    )
    .await;
}

#[actix_web::test]
async fn the_background_round_syncs_linked_printers() {
    let fleet = Fleet::start().await;
    let app = TestApp::spawn_with(|c| c.spoolmgr_interval_secs = 1).await;
    app.setup().await;
    enable(&app, &fleet.url, bambuddy::KEY).await;
    linked_shop(&app).await;
    fleet.state.lock().unwrap().printer_state = "PAUSE";
    let shop_printer = status(&app, "").await["printers"][0]["id"].clone();
    ok(&app, "SYNC_PRINTER", json!({"printerId": shop_printer})).await;
    assert_eq!(
        status(&app, "").await["printers"][0]["state"],
        "PAUSE",
        "synced on demand"
    );
    fleet.state.lock().unwrap().printer_state = "RUNNING";
    for _ in 0..50 {
        if status(&app, "").await["printers"][0]["state"] == "RUNNING" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status(&app, "").await["printers"][0]["state"], "RUNNING");
}

#[actix_web::test]
async fn a_tray_maps_to_an_active_spool_only() {
    let fleet = Fleet::start().await;
    let app = fleet_app(&fleet).await;
    let shop = linked_shop(&app).await;
    let spool = support::first_spool(&app, &shop.filament).await;
    ok(
        &app,
        "MAP_TRAY",
        json!({"printerId": shop.printer, "slot": "255:254", "spoolId": spool["id"]}),
    )
    .await;
    let tray = status(&app, "").await["printers"][0]["trays"][3].clone();
    assert_eq!(
        (tray["source"].as_str(), tray["spoolCode"].as_str()),
        (Some("MAPPED"), spool["code"].as_str())
    );
    assert_eq!(tray["unavailable"], false);
    let missing = action(
        &app,
        "MAP_TRAY",
        json!({"printerId": shop.printer, "slot": "3:1", "spoolId": spool["id"]}),
    )
    .await;
    assert_field_error(missing, "slot", "errors.notFound").await;
    let unknown = json!({"printerId": shop.printer, "slot": "0:0", "spoolId": "01890a5d-ac96-774b-bcce-b302099a8057"});
    refused(&app, "MAP_TRAY", unknown, 422, "INVALID_SPOOL").await;
    // A tray holds filament: a resin's bottle is refused.
    let resin = materials::resin(&app, &shop.maker).await;
    let bottle = support::first_spool(&app, resin["id"].as_str().unwrap()).await;
    let bottle = json!({"printerId": shop.printer, "slot": "0:0", "spoolId": bottle["id"]});
    refused(&app, "MAP_TRAY", bottle, 409, "MATERIAL_NOT_FILAMENT").await;
    let id = spool["id"].as_str().unwrap();
    assert_eq!(
        app.post(
            &format!("/api/spools/{id}/archive"),
            &json!({"archived": true})
        )
        .await
        .status(),
        200
    );
    let archived = json!({"printerId": shop.printer, "slot": "0:0", "spoolId": id});
    refused(&app, "MAP_TRAY", archived, 422, "INVALID_SPOOL").await;
    assert_eq!(
        status(&app, "").await["printers"][0]["trays"][3]["unavailable"],
        true
    );
    let off = app
        .patch(
            "/api/settings/features",
            &json!({"spoolManagementEnabled": false}),
        )
        .await;
    assert_eq!(off.status(), 200);
    let cleared = json!({"printerId": shop.printer, "slot": "0:0", "spoolId": null});
    refused(&app, "MAP_TRAY", cleared, 409, "SPOOL_MANAGEMENT_DISABLED").await;
}

#[actix_web::test]
async fn a_success_log_imports_into_a_two_part_print_once_and_a_repeat_keeps_a_correction() {
    let (_fleet, app, _shop, print, hash) =
        scenario(log_json(501, 1, "completed", 3600, 21.5)).await;
    let link = status(
        &app,
        &format!(
            "?printId={}&partId={}",
            print["id"].as_str().unwrap(),
            print["parts"][0]["id"].as_str().unwrap()
        ),
    )
    .await["link"]
        .clone();
    assert_eq!(
        (
            link["terminal"].as_str(),
            link["log"]["completedAt"].as_str()
        ),
        (Some("SUCCESS"), Some("2026-11-20T11:30:00Z"))
    );
    let before = remaining(&app, &print).await;
    let body = import_body(
        &print,
        &hash,
        outcome(&print, "SUCCESS", [3600, 1800], "21.5"),
    );
    let imported = ok(&app, "IMPORT", body.clone()).await;
    assert_eq!(imported["outcome"]["status"], "SUCCESS");
    let after = remaining(&app, &print).await;
    let used = before.parse::<f64>().unwrap() - after.parse::<f64>().unwrap();
    assert_eq!(used, 31.5, "both parts' grams, booked once");
    assert_eq!(
        ok(&app, "IMPORT", body.clone()).await["outcome"]["revision"],
        1
    );
    assert_eq!(
        remaining(&app, &print).await,
        after,
        "a repeat books nothing"
    );

    let pid = print["id"].as_str().unwrap();
    let correction = correction(&print, "SUCCESS", [3600, 1800], "22");
    assert_eq!(
        app.post(&format!("/api/prints/{pid}/outcome/correct"), &correction)
            .await
            .status(),
        200
    );
    let repeated = ok(&app, "IMPORT", body).await;
    assert_eq!(repeated["outcome"]["revision"], 2, "the correction stays");
    let link = status(
        &app,
        &format!(
            "?printId={pid}&partId={}",
            print["parts"][0]["id"].as_str().unwrap()
        ),
    )
    .await["link"]
        .clone();
    assert!(link["importedAt"].is_string());
}

#[actix_web::test]
async fn a_failed_log_makes_the_outcome_failed_in_corrections_too() {
    let (_fleet, app, _shop, print, hash) = scenario(log_json(502, 1, "failed", 1200, 7.25)).await;
    let success = import_body(
        &print,
        &hash,
        outcome(&print, "SUCCESS", [1200, 1800], "7.25"),
    );
    refused(&app, "IMPORT", success, 409, "INTEGRATION_CONFLICT").await;
    let failed = import_body(
        &print,
        &hash,
        outcome(&print, "FAILED", [1200, 1800], "7.25"),
    );
    assert_eq!(
        ok(&app, "IMPORT", failed).await["outcome"]["status"],
        "FAILED"
    );
    let pid = print["id"].as_str().unwrap();
    let correction = correction(&print, "SUCCESS", [1200, 1800], "7.25");
    let res = app
        .post(&format!("/api/prints/{pid}/outcome/correct"), &correction)
        .await;
    assert_error(res, 409, "INTEGRATION_CONFLICT").await;
}

#[actix_web::test]
async fn every_refusal_of_an_import_has_its_code() {
    let (fleet, app, shop, print, hash) = scenario(log_json(503, 1, "completed", 3600, 20.0)).await;
    let good = || outcome(&print, "SUCCESS", [3600, 1800], "20");
    let cases = [
        ("a stale hash", import_body(&print, &"0".repeat(64), good())),
        (
            "a duration other than the log's",
            import_body(
                &print,
                &hash,
                outcome(&print, "SUCCESS", [3500, 1800], "20"),
            ),
        ),
        (
            "grams other than the log's",
            import_body(
                &print,
                &hash,
                outcome(&print, "SUCCESS", [3600, 1800], "19"),
            ),
        ),
    ];
    for (why, body) in cases {
        refused(&app, "IMPORT", body, 409, "INTEGRATION_CONFLICT").await;
        eprintln!("refused: {why}");
    }
    let no_previews = json!({"printId": print["id"], "outcome": good()});
    assert_field_error(
        action(&app, "IMPORT", no_previews).await,
        "previews",
        "errors.required",
    )
    .await;
    let mut missing_manual = good();
    missing_manual["filaments"].as_array_mut().unwrap().pop();
    let res = action(&app, "IMPORT", import_body(&print, &hash, missing_manual)).await;
    assert_eq!(res.status(), 422, "the manual part's actuals are required");
    // The log changes after the preview: the old fingerprint no longer matches.
    fleet.state.lock().unwrap().logs[0]["filament_used_grams"] = json!(20.5);
    assert_error(
        action(&app, "IMPORT", import_body(&print, &hash, good())).await,
        409,
        "INTEGRATION_CONFLICT",
    )
    .await;
    // A log Bambuddy no longer has is read with an error: no import.
    let gone = fleet.state.lock().unwrap().logs.remove(0);
    let body = import_body(&print, &hash, good());
    refused(&app, "IMPORT", body, 409, "INTEGRATION_CONFLICT").await;
    fleet.log(gone);
    // A log that is not terminal never imports.
    let (other, other_hash) =
        attached(&app, &fleet, &shop, log_json(504, 1, "skipped", 3600, 20.0)).await;
    let body = import_body(
        &other,
        &other_hash,
        outcome(&other, "SUCCESS", [3600, 1800], "20"),
    );
    refused(&app, "IMPORT", body, 409, "INTEGRATION_CONFLICT").await;
}

#[actix_web::test]
async fn attach_keeps_one_log_per_part_and_one_part_per_log() {
    let (fleet, app, shop, print, _) = scenario(log_json(601, 1, "completed", 3600, 20.0)).await;
    fleet.log(log_json(602, 1, "completed", 1800, 10.0));
    fleet.log(log_json(603, 2, "completed", 1800, 10.0));
    let (pid, parts) = (print["id"].clone(), print["parts"].clone());
    let conflicts = [
        json!({"printId": pid, "partId": parts[0]["id"], "remoteLogId": 602}),
        json!({"printId": pid, "partId": parts[0]["id"], "remoteLogId": 603}),
        json!({"printId": pid, "partId": parts[1]["id"], "remoteLogId": 602}),
    ];
    for data in conflicts {
        refused(&app, "ATTACH", data, 409, "INTEGRATION_CONFLICT").await;
    }
    let no_part = json!({"printId": pid, "remoteLogId": 602});
    assert_field_error(
        action(&app, "ATTACH", no_part).await,
        "partId",
        "errors.required",
    )
    .await;
    let relink = json!({"printerId": shop.printer, "remoteId": 2});
    refused(&app, "LINK_PRINTER", relink, 409, "INTEGRATION_CONFLICT").await;
    let another = support::draft(&shop, "Another");
    let second = app.create("/api/prints", &another).await;
    let data = json!({"printId": second["id"], "remoteLogId": 601});
    refused(&app, "ATTACH", data, 409, "INTEGRATION_CONFLICT").await;
    ok(
        &app,
        "ATTACH",
        json!({"printId": second["id"], "remoteLogId": 602}),
    )
    .await;
    ok(&app, "SYNC_PRINT", json!({"printId": second["id"]})).await;
    let logs: Value = app
        .get(&format!(
            "/api/integrations/printfleet?view=logs&printerId={}",
            shop.printer
        ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (logs["total"].as_u64(), logs["items"][0]["id"].as_u64()),
        (Some(2), Some(602))
    );
    let manual = manual_printer(&app).await;
    let res = app
        .get(&format!(
            "/api/integrations/printfleet?view=logs&printerId={manual}"
        ))
        .await;
    assert_error(res, 409, "INTEGRATION_CONFLICT").await;
}

#[actix_web::test]
async fn every_peer_fault_and_credential_refusal_has_its_code() {
    let fleet = Fleet::start().await;
    let app = fleet_app(&fleet).await;
    let shop = shop(&app).await;
    let link = json!({"printerId": shop.printer, "remoteId": 1});
    let cases = [
        (Fault::Redirect, 502, "INTEGRATION_UNAVAILABLE"),
        (Fault::Offline, 502, "INTEGRATION_UNAVAILABLE"),
        (Fault::Malformed, 502, "INTEGRATION_CONTRACT"),
        (Fault::ContractBreak, 502, "INTEGRATION_CONTRACT"),
        (Fault::Timeout, 502, "INTEGRATION_UNAVAILABLE"),
    ];
    for (fault, code, name) in cases {
        fleet.fault(fault);
        let body = assert_error(action(&app, "LINK_PRINTER", link.clone()).await, code, name).await;
        assert!(
            !body.to_string().contains("peer-body-marker")
                && !body.to_string().contains(bambuddy::KEY)
        );
        assert_eq!(status(&app, "").await["error"], name, "{fault:?}");
    }
    let sent = fleet.seen.lock().unwrap().bodies.clone();
    assert!(
        sent.iter().any(|b| b.contains("peer-body-marker")),
        "the faults were played"
    );
    fleet.fault(Fault::None);
    for key in ["wrong-key", bambuddy::READLESS_KEY] {
        enable(&app, &fleet.url, key).await;
        refused(
            &app,
            "LINK_PRINTER",
            link.clone(),
            409,
            "INTEGRATION_CONFIG",
        )
        .await;
    }
    let off = json!({"printfleet": {"enabled": false, "url": fleet.url}});
    assert_eq!(
        app.patch("/api/settings/integrations", &off).await.status(),
        200
    );
    assert_error(
        app.get("/api/integrations/printfleet").await,
        409,
        "INTEGRATION_DISABLED",
    )
    .await;
    let no_key = json!({"printfleet": {"enabled": true, "url": fleet.url, "apiKey": null}});
    assert_eq!(
        app.patch("/api/settings/integrations", &no_key)
            .await
            .status(),
        200
    );
    assert_eq!(status(&app, "").await["configured"], false);
    refused(&app, "LINK_PRINTER", link, 409, "INTEGRATION_CONFIG").await;
}

/// A part on a spool whose stock Spoolman keeps, where Bambuddy already reported the part's
/// consumption to Spoolman: the import makes no operation and no native movement.
#[actix_web::test]
async fn consumption_the_fleet_reported_to_the_spool_manager_is_not_sent_again() {
    let (fleet, spoolman) = (Fleet::start().await, Double::start(1).await);
    let app = linked_app(&spoolman.url).await;
    enable(&app, &fleet.url, bambuddy::KEY).await;
    let spool = spoolmgr::import(&app, 1, "EXTERNAL_CONSUMPTION").await;
    fleet.state.lock().unwrap().assignments = Some(vec![
        json!({"printer_id": 1, "printer_name": "X1C Left", "ams_id": 0, "tray_id": 0, "spoolman_spool_id": 1, "ams_label": "A1"}),
    ]);
    let shop = linked_shop(&app).await;
    let print = spoolmgr::done_on_spool(&app, &shop, &spool, "20").await;
    let pid = print["id"].as_str().unwrap();
    fleet.log(log_json(701, 1, "completed", 5400, 20.0));
    ok(&app, "ATTACH", json!({"printId": pid, "remoteLogId": 701})).await;
    let hash = status(&app, &format!("?printId={pid}")).await["link"]["previewHash"].clone();
    let usage = print["usages"][0]["id"].clone();
    let outcome = json!({"status": "SUCCESS", "durationSeconds": 5400, "filaments": [{"usageId": usage, "usedGrams": "20"}]});
    ok(
        &app,
        "IMPORT",
        json!({"printId": pid, "previewHash": hash, "outcome": outcome}),
    )
    .await;
    assert_eq!(spoolmgr::operations(&app).await, Vec::<Value>::new());
    let ledger: Value = app
        .get(&format!("/api/spools/{spool}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ledger["movements"]["items"], json!([]));
}

/// The UI: a printer's fleet page links it and maps a tray; a DONE print's page attaches a
/// Bambuddy job, prefills the outcome form from it, and imports.
#[actix_web::test]
async fn the_pages_link_map_attach_and_import() {
    use crate::support::{location, logged_in, page, submit};
    let fleet = Fleet::start().await;
    let app = fleet_app(&fleet).await;
    let client = logged_in(&app).await;
    let shop = shop(&app).await;
    let fleet_page = format!("/printers/{}/fleet", shop.printer);
    let (code, html) = page(&client, &app, &fleet_page).await;
    assert!(code == 200 && html.contains("X1C Left (#1)"), "{html}");
    let res = submit(
        &client,
        &app,
        &fleet_page,
        &[("action", "LINK_PRINTER"), ("data.remoteId", "1")],
    )
    .await;
    assert_eq!(location(&res), format!("{fleet_page}?did=LINK_PRINTER"));
    let (_, linked) = page(&client, &app, location(&res)).await;
    assert!(
        linked.contains(r#"id="notice">Ref printer: linked to the chosen Bambuddy printer."#),
        "{linked}"
    );
    let spool = support::first_spool(&app, &shop.filament).await;
    let map = [
        ("action", "MAP_TRAY"),
        ("data.slot", "255:254"),
        ("data.spoolId", spool["id"].as_str().unwrap()),
    ];
    assert_eq!(submit(&client, &app, &fleet_page, &map).await.status(), 303);
    let (_, html) = page(&client, &app, &fleet_page).await;
    assert!(html.contains("255:254") && html.contains("TPU"), "{html}");
    assert_eq!(status_tray(&app).await, spool["code"]);
    let (_, editor) = page(&client, &app, "/prints/new").await;
    let suggested = format!(r#"data-mapped="{}""#, spool["id"].as_str().unwrap());
    assert!(
        editor.contains(&suggested),
        "the editor suggests the mapped spool"
    );

    let print = app.done(&support::draft(&shop, "Bracket")).await;
    let (pid, part) = (
        print["id"].as_str().unwrap(),
        print["parts"][0]["id"].as_str().unwrap(),
    );
    fleet.log(log_json(801, 1, "completed", 5400, 41.75));
    let print_page = format!("/prints/{pid}");
    let (_, html) = page(&client, &app, &print_page).await;
    assert!(
        html.contains("fleet-jobs") && html.contains("Job 801"),
        "{html}"
    );
    let attach = [
        ("fleetAction", "ATTACH"),
        ("attach.partId", part),
        ("attach.remoteLogId", "801"),
    ];
    let res = submit(&client, &app, &format!("/prints/{pid}/fleet"), &attach).await;
    assert_eq!(location(&res), format!("{print_page}?did=fleetAttach"));
    let (_, html) = page(&client, &app, location(&res)).await;
    assert!(
        html.contains(r#"id="notice">Bracket: the Bambuddy job is attached."#),
        "{html}"
    );
    assert!(
        html.contains("fleet-import") && html.contains(r#"value="41.75""#),
        "prefilled from the job: {html}"
    );
    let hash = status(&app, &format!("?printId={pid}")).await["link"]["previewHash"]
        .as_str()
        .unwrap()
        .to_string();
    let usage = print["usages"][0]["id"].as_str().unwrap();
    let import = [
        ("status", "SUCCESS"),
        ("durationMinutes", "90"),
        ("filaments[0].usageId", usage),
        ("filaments[0].usedGrams", "41.75"),
        ("previews[0].partId", part),
        ("previews[0].previewHash", hash.as_str()),
        ("fleetAction", "IMPORT"),
    ];
    let res = submit(&client, &app, &format!("/prints/{pid}/fleet"), &import).await;
    assert_eq!(res.status(), 303);
    let detail: Value = app
        .get(&format!("/api/prints/{pid}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["outcome"]["status"], "SUCCESS");
}

async fn status_tray(app: &TestApp) -> Value {
    status(app, "").await["printers"][0]["trays"][3]["spoolCode"].clone()
}

#[actix_web::test]
async fn with_the_integration_off_no_action_is_carried_out() {
    let fleet = Fleet::start().await;
    let app = fleet_app(&fleet).await;
    let shop = linked_shop(&app).await;
    let spool = support::first_spool(&app, &shop.filament).await;
    let off = json!({"printfleet": {"enabled": false, "url": fleet.url, "apiKey": bambuddy::KEY}});
    assert_eq!(
        app.patch("/api/settings/integrations", &off).await.status(),
        200
    );
    let map = json!({"printerId": shop.printer, "slot": "255:254", "spoolId": spool["id"]});
    refused(&app, "MAP_TRAY", map, 409, "INTEGRATION_DISABLED").await;
    let unlink = json!({"printerId": shop.printer, "remoteId": null});
    refused(&app, "LINK_PRINTER", unlink, 409, "INTEGRATION_DISABLED").await;
    enable(&app, &fleet.url, bambuddy::KEY).await;
    let printer = status(&app, "").await["printers"][0].clone();
    assert_eq!(printer["remoteId"], 1, "still linked");
    assert_ne!(printer["trays"][3]["source"], "MAPPED", "nothing mapped");
}

/// A log whose smart plug measured the job's energy (`energy_kwh`): the imported part's
/// electricity is that figure, named PRINTFLEET, over the log's times; the part without a log
/// (on a printer without a meter) is estimated.
#[actix_web::test]
async fn a_logs_energy_kwh_is_the_imported_parts_electricity() {
    let mut log = log_json(601, 1, "completed", 3600, 21.5);
    log["energy_kwh"] = json!(0.42);
    let (_fleet, app, _shop, print, hash) = scenario(log).await;
    let query = format!(
        "?printId={}&partId={}",
        print["id"].as_str().unwrap(),
        print["parts"][0]["id"].as_str().unwrap()
    );
    assert_eq!(
        status(&app, &query).await["link"]["log"]["energyKwh"],
        "0.42"
    );
    let body = import_body(
        &print,
        &hash,
        outcome(&print, "SUCCESS", [3600, 1800], "21.5"),
    );
    let imported = ok(&app, "IMPORT", body).await;
    let electricity = &imported["outcome"]["electricity"];
    assert_eq!(electricity[0]["source"], "PRINTFLEET", "{electricity}");
    assert_eq!(electricity[0]["kwh"], "0.42");
    assert_eq!(
        electricity[0]["cost"], "0.1344",
        "0.42 kWh at the frozen 0.32"
    );
    assert_eq!(
        (
            electricity[0]["startedAt"].as_str(),
            electricity[0]["endedAt"].as_str()
        ),
        (Some("2026-11-20T10:00:00Z"), Some("2026-11-20T11:30:00Z"))
    );
    assert_eq!(electricity[1]["source"], "ESTIMATED");
    assert_eq!(electricity[1]["reason"], "NO_METER");
    assert_eq!(electricity[1]["kwh"], "0.045", "1,800 s at 90 W");
}
