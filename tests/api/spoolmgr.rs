//! The spool-manager integration over HTTP against the double of `support::spoolman`: the
//! faults the real Spoolman cannot play, every error code of the integration with its status,
//! and stock ownership (`authority`) at the spool routes.

use crate::durability;
use crate::materials;
use crate::support;
use crate::support::spoolman;
use crate::support::spoolman::{Double, Fault};
use crate::support::{Shop, TestApp, assert_error, draft, shop};
use serde_json::{Value, json};

/// An app with the spool manager switched on at `url`.
pub async fn linked_app(url: &str) -> TestApp {
    linked_app_with(url, |_| {}).await
}

/// As [`linked_app`], with `change` applied to the configuration.
pub async fn linked_app_with(url: &str, change: impl FnOnce(&mut printcost::Config)) -> TestApp {
    let app = TestApp::spawn_with(change).await;
    app.setup().await;
    let change = json!({"spoolmgr": {"enabled": true, "url": url, "authorization": "Bearer peer-secret-9c1e"}});
    let res = app.patch("/api/settings/integrations", &change).await;
    assert_eq!(res.status(), 200);
    app
}

pub async fn action(app: &TestApp, name: &str, data: Value) -> reqwest::Response {
    support::act(app, "/api/integrations/spoolmgr", name, data).await
}

/// Asserts that action `name` with `data` is refused with `status` and `code`; the body.
async fn refused(app: &TestApp, name: &str, data: Value, status: u16, code: &str) -> Value {
    assert_error(action(app, name, data).await, status, code).await
}

pub async fn preview(app: &TestApp, page: u32) -> Value {
    let res = app
        .get(&format!(
            "/api/integrations/spoolmgr?view=preview&page={page}"
        ))
        .await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// Imports remote spool `remote_id` as the preview shows it; answers the local spool's id.
pub async fn import(app: &TestApp, remote_id: u64, authority: &str) -> String {
    let items = preview(app, 1).await["items"].as_array().unwrap().clone();
    let item = items.iter().find(|i| i["id"] == remote_id).unwrap();
    let res = action(
        app,
        "IMPORT",
        json!({"remoteId": remote_id, "previewHash": item["previewHash"], "authority": authority}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    body["id"].as_str().unwrap().to_string()
}

pub async fn spool(app: &TestApp, id: &str) -> Value {
    let detail: Value = app
        .get(&format!("/api/spools/{id}"))
        .await
        .json()
        .await
        .unwrap();
    detail["spool"].clone()
}

pub async fn operations(app: &TestApp) -> Vec<Value> {
    let status: Value = app
        .get("/api/integrations/spoolmgr")
        .await
        .json()
        .await
        .unwrap();
    status["operations"].as_array().unwrap().clone()
}

/// A double with one spool, an app linked to it, and that spool imported with `authority`:
/// the double, the app and the local spool's id.
pub async fn imported(authority: &str) -> (Double, TestApp, String) {
    let double = Double::start(1).await;
    let app = linked_app(&double.url).await;
    let id = import(&app, 1, authority).await;
    (double, app, id)
}

/// A DONE print of `grams` grams drawn from spool `spool_id` with an outcome of `actual`
/// grams; answers the print.
pub async fn consume(app: &TestApp, spool_id: &str, grams: &str, actual: &str) -> Value {
    let shop = shop(app).await;
    let print = done_on_spool(app, &shop, spool_id, grams).await;
    let id = print["id"].as_str().unwrap();
    let usage = print["usages"][0]["id"].clone();
    let outcome = json!({"status": "SUCCESS", "durationSeconds": 5400, "filaments": [{"usageId": usage, "usedGrams": actual}]});
    let res = app
        .post(&format!("/api/prints/{id}/outcome"), &outcome)
        .await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// A DONE one-part print of the shop drawing `grams` from spool `spool_id`.
pub async fn done_on_spool(app: &TestApp, shop: &Shop, spool_id: &str, grams: &str) -> Value {
    let filament = spool(app, spool_id).await["filamentId"].clone();
    let mut body = draft(shop, "Consumes remote filament");
    body["parts"][0]["filaments"][0] =
        json!({"filamentId": filament, "spoolId": spool_id, "usedGrams": grams});
    app.done(&body).await
}

fn op_action(id: &Value, action: &str) -> Value {
    json!({"operationId": id, "action": action})
}

#[actix_web::test]
async fn the_status_shows_the_version_and_a_preview_fingerprints_each_spool() {
    let double = Double::start(30).await;
    let app = linked_app(&double.url).await;
    let status: Value = app
        .get("/api/integrations/spoolmgr")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(status["configured"], true);
    assert_eq!(status["version"], "0.26.1");
    assert_eq!(status["error"], Value::Null);
    assert_eq!(status["operations"], json!([]));
    let first = preview(&app, 1).await;
    assert_eq!(first["items"].as_array().unwrap().len(), 25);
    assert_eq!(first["hasMore"], true);
    let second = preview(&app, 2).await;
    assert_eq!(second["items"].as_array().unwrap().len(), 5);
    assert_eq!(second["hasMore"], false);
    let item = &first["items"][0];
    assert_eq!(item["remainingWeight"], "1000");
    assert_eq!(item["price"], "22.5");
    assert_eq!(item["localSpoolId"], Value::Null);
    assert_eq!(item["conflicts"], json!([]));
    assert_eq!(item["previewHash"].as_str().unwrap().len(), 64);
}

#[actix_web::test]
async fn an_import_makes_sm_spools_without_a_receipt_and_repeating_it_keeps_the_id() {
    let double = Double::start(2).await;
    let app = linked_app(&double.url).await;
    let id = import(&app, 1, "EXTERNAL_READ_ONLY").await;
    let spool = spool(&app, &id).await;
    assert_eq!(spool["code"], "SM-1");
    assert_eq!(spool["authority"], "EXTERNAL_READ_ONLY");
    assert_eq!(spool["remoteId"], 1);
    assert_eq!(spool["remainingGrams"], "1000", "the remote figure");
    assert_eq!(spool["remoteState"], "ACTIVE");
    assert_eq!(spool["stale"], false);
    let ledger: Value = app
        .get(&format!("/api/spools/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        ledger["movements"]["items"],
        json!([]),
        "no opening receipt"
    );
    assert_eq!(
        import(&app, 1, "EXTERNAL_READ_ONLY").await,
        id,
        "same local id"
    );
    let other = import(&app, 2, "EXTERNAL_READ_ONLY").await;
    let second = self::spool(&app, &other).await;
    assert_eq!(
        second["filamentId"], spool["filamentId"],
        "filament matched by remote id"
    );
    let item = &preview(&app, 1).await["items"][0];
    assert_eq!(item["localSpoolId"], id.as_str());
    assert_eq!(item["localCode"], "SM-1");
    assert_eq!(item["authority"], "EXTERNAL_READ_ONLY");
}

#[actix_web::test]
async fn a_remote_id_never_moves_and_a_stale_hash_is_refused() {
    let double = Double::start(2).await;
    let app = linked_app(&double.url).await;
    let item = preview(&app, 1).await["items"][0].clone();
    double
        .state
        .lock()
        .unwrap()
        .spools
        .insert(1, spoolman::spool_json(1, 5.0));
    let stale = action(
        &app,
        "IMPORT",
        json!({"remoteId": 1, "previewHash": item["previewHash"]}),
    )
    .await;
    assert_error(stale, 409, "INTEGRATION_CONFLICT").await;
    let first = import(&app, 1, "EXTERNAL_READ_ONLY").await;
    let second = import(&app, 2, "EXTERNAL_READ_ONLY").await;
    let hash = preview(&app, 1).await["items"][0]["previewHash"].clone();
    let moved = action(
        &app,
        "IMPORT",
        json!({"remoteId": 1, "previewHash": hash, "localSpoolId": second}),
    )
    .await;
    assert_error(moved, 409, "INTEGRATION_CONFLICT").await;
    let unlinked = action(
        &app,
        "UNLINK",
        json!({"spoolId": first, "ownership": "NATIVE", "openingBalance": "990"}),
    )
    .await;
    assert_eq!(unlinked.status(), 200);
    let again = action(
        &app,
        "IMPORT",
        json!({"remoteId": 1, "previewHash": hash, "localSpoolId": second}),
    )
    .await;
    assert_error(again, 409, "INTEGRATION_CONFLICT").await;
}

#[actix_web::test]
async fn a_native_spool_of_the_linked_filament_can_take_a_remote_spool() {
    let double = Double::start(3).await;
    let app = linked_app(&double.url).await;
    let first = import(&app, 1, "EXTERNAL_READ_ONLY").await;
    let filament = spool(&app, &first).await["filamentId"].clone();
    let mine =
        json!({"filamentId": filament, "purchasePrice": "22.5", "initialNetWeightGrams": "1000"});
    let native = app.create("/api/spools", &mine).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let hashes: Vec<Value> = preview(&app, 1).await["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["previewHash"].clone())
        .collect();
    let link = json!({"remoteId": 2, "previewHash": hashes[1], "localSpoolId": native, "authority": "EXTERNAL_CONSUMPTION"});
    let res = action(&app, "IMPORT", link).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["id"], native.as_str());
    let linked = spool(&app, &native).await;
    assert_eq!(
        (linked["remoteId"].as_u64(), linked["authority"].as_str()),
        (Some(2), Some("EXTERNAL_CONSUMPTION"))
    );
    let taken = json!({"remoteId": 3, "previewHash": hashes[2], "localSpoolId": native});
    refused(&app, "IMPORT", taken, 409, "INTEGRATION_CONFLICT").await;
    let shop = shop(&app).await;
    let others = support::first_spool(&app, &shop.filament).await;
    let other = json!({"remoteId": 3, "previewHash": hashes[2], "localSpoolId": others["id"]});
    refused(&app, "IMPORT", other, 409, "INTEGRATION_CONFLICT").await;
    let unknown = json!({"remoteId": 3, "previewHash": hashes[2], "localSpoolId": "01890a5d-ac96-774b-bcce-b302099a8057"});
    support::assert_field_error(
        action(&app, "IMPORT", unknown).await,
        "localSpoolId",
        "errors.notFound",
    )
    .await;
}

/// The spool manager keeps filament only: a resin's bottle is never linked to a remote spool.
#[actix_web::test]
async fn a_resins_bottle_cannot_take_a_remote_spool() {
    let double = Double::start(1).await;
    let app = linked_app(&double.url).await;
    let maker = app.manufacturer("Elegoo").await;
    let resin = materials::resin(&app, &maker).await;
    let bottle =
        json!({"filamentId": resin["id"], "purchasePrice": "39.90", "initialMillilitres": "1000"});
    let bottle = app.create("/api/spools", &bottle).await["id"].clone();
    let hash = preview(&app, 1).await["items"][0]["previewHash"].clone();
    let link = json!({"remoteId": 1, "previewHash": hash, "localSpoolId": bottle});
    refused(&app, "IMPORT", link, 409, "MATERIAL_NOT_FILAMENT").await;
    assert_eq!(
        spool(&app, bottle.as_str().unwrap()).await["remoteId"],
        Value::Null,
        "not linked"
    );
}

#[actix_web::test]
async fn an_external_spool_refuses_native_movements_and_changes_but_archives() {
    let (_double, app, id) = imported("EXTERNAL_READ_ONLY").await;
    let movement = json!({"kind": "CORRECTION", "grams": "-5"});
    let res = app
        .post(&format!("/api/spools/{id}/movements"), &movement)
        .await;
    assert_error(res, 409, "STOCK_OWNED_EXTERNALLY").await;
    let res = app
        .patch(&format!("/api/spools/{id}"), &json!({"purchasePrice": "1"}))
        .await;
    assert_error(res, 409, "STOCK_OWNED_EXTERNALLY").await;
    let res = app
        .post(
            &format!("/api/spools/{id}/archive"),
            &json!({"archived": true}),
        )
        .await;
    assert_eq!(res.status(), 200, "archiving stays allowed");
}

#[actix_web::test]
async fn a_read_only_spool_books_nothing_for_an_outcome() {
    let (double, app, id) = imported("EXTERNAL_READ_ONLY").await;
    consume(&app, &id, "40", "42.5").await;
    assert_eq!(operations(&app).await, Vec::<Value>::new());
    let ledger: Value = app
        .get(&format!("/api/spools/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ledger["movements"]["items"], json!([]));
    assert_eq!(double.uses(), 0);
}

#[actix_web::test]
async fn applied_then_dropped_is_unknown_and_never_resent_until_confirmed() {
    let (double, app, id) = imported("EXTERNAL_CONSUMPTION").await;
    consume(&app, &id, "40", "42.5").await;
    let op = operations(&app).await[0].clone();
    assert_eq!(
        (op["state"].as_str(), op["grams"].as_str()),
        (Some("PENDING"), Some("42.5"))
    );
    double.fault(Fault::ApplyThenDrop);
    let res = action(&app, "OPERATION", op_action(&op["id"], "SEND")).await;
    assert_error(res, 502, "INTEGRATION_UNAVAILABLE").await;
    assert_eq!(double.used(1), 42.5, "applied once");
    assert_eq!(operations(&app).await[0]["state"], "UNKNOWN");
    double.fault(Fault::None);
    let res = action(&app, "OPERATION", op_action(&op["id"], "SEND")).await;
    assert_error(res, 409, "INTEGRATION_CONFLICT").await;
    assert_eq!(double.uses(), 1, "nothing resent");
    let res = action(&app, "OPERATION", op_action(&op["id"], "CONFIRM_APPLIED")).await;
    assert_eq!(res.status(), 200);
    assert_eq!(operations(&app).await[0]["state"], "APPLIED");
    let res = action(&app, "OPERATION", op_action(&op["id"], "SEND")).await;
    assert_eq!(res.status(), 200, "an applied operation is done");
    assert_eq!((double.uses(), double.used(1)), (1, 42.5));
}

#[actix_web::test]
async fn the_background_round_sends_pending_consumption_and_syncs() {
    let double = Double::start(1).await;
    let app = linked_app_with(&double.url, |c| c.spoolmgr_interval_secs = 1).await;
    let id = import(&app, 1, "EXTERNAL_CONSUMPTION").await;
    consume(&app, &id, "40", "30").await;
    for _ in 0..100 {
        if operations(&app).await[0]["state"] == "APPLIED" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(operations(&app).await[0]["state"], "APPLIED");
    assert_eq!((double.uses(), double.used(1)), (1, 30.0));
    double.state.lock().unwrap().spools.remove(&1);
    for _ in 0..50 {
        if spool(&app, &id).await["remoteState"] == "MISSING" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        spool(&app, &id).await["remoteState"],
        "MISSING",
        "synced by the round"
    );
    assert_eq!(double.uses(), 1, "nothing sent twice");
}

#[actix_web::test]
async fn a_refused_use_fails_and_confirm_not_applied_sends_it_again() {
    let (double, app, id) = imported("EXTERNAL_CONSUMPTION").await;
    consume(&app, &id, "40", "12").await;
    let op = operations(&app).await[0].clone();
    double.state.lock().unwrap().spools.remove(&1);
    let res = action(&app, "OPERATION", op_action(&op["id"], "SEND")).await;
    assert_eq!(res.status(), 200, "a 4xx is recorded, not thrown");
    let failed = operations(&app).await[0].clone();
    assert_eq!(
        (failed["state"].as_str(), failed["error"].as_str()),
        (Some("FAILED"), Some("HTTP 404"))
    );
    double
        .state
        .lock()
        .unwrap()
        .spools
        .insert(1, spoolman::spool_json(1, 0.0));
    let res = action(
        &app,
        "OPERATION",
        op_action(&op["id"], "CONFIRM_NOT_APPLIED"),
    )
    .await;
    assert_eq!(res.status(), 200);
    assert_eq!(operations(&app).await[0]["state"], "PENDING");
    let res = action(&app, "OPERATION", op_action(&op["id"], "SEND")).await;
    assert_eq!(res.status(), 200);
    assert_eq!(double.used(1), 12.0);
    let spool = spool(&app, &id).await;
    assert_eq!(spool["remainingGrams"], "988", "synced from the answer");
}

#[actix_web::test]
async fn unlink_waits_for_unresolved_operations_then_books_one_correction() {
    let (_double, app, id) = imported("EXTERNAL_CONSUMPTION").await;
    consume(&app, &id, "40", "10").await;
    let unlink = json!({"spoolId": id, "ownership": "NATIVE", "openingBalance": "985.5"});
    refused(&app, "UNLINK", unlink.clone(), 409, "INTEGRATION_CONFLICT").await;
    let op = operations(&app).await[0].clone();
    assert_eq!(
        action(&app, "OPERATION", op_action(&op["id"], "SEND"))
            .await
            .status(),
        200
    );
    let res = action(&app, "UNLINK", unlink).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["id"], id.as_str());
    let detail: Value = app
        .get(&format!("/api/spools/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["spool"]["authority"], "NATIVE");
    assert_eq!(detail["spool"]["remainingGrams"], "985.5");
    let movements = detail["movements"]["items"].as_array().unwrap();
    assert_eq!(movements.len(), 1);
    assert_eq!(
        (
            movements[0]["kind"].as_str(),
            movements[0]["grams"].as_str()
        ),
        (Some("CORRECTION"), Some("985.5"))
    );
    let native = json!({"kind": "CORRECTION", "grams": "-5.5"});
    let res = app
        .post(&format!("/api/spools/{id}/movements"), &native)
        .await;
    assert_eq!(res.status(), 201);
    assert_eq!(spool(&app, &id).await["remainingGrams"], "980");
}

#[actix_web::test]
async fn a_failed_sync_is_stored_on_the_spool_and_a_remote_404_is_missing() {
    let (double, app, id) = imported("EXTERNAL_READ_ONLY").await;
    double.fault(Fault::Malformed);
    let res = action(&app, "SYNC", json!({"spoolId": id})).await;
    assert_eq!(res.status(), 200, "stored, not thrown");
    let failed = spool(&app, &id).await;
    assert_eq!(
        (failed["syncError"].as_str(), failed["stale"].as_bool()),
        (Some("INTEGRATION_CONTRACT"), Some(true))
    );
    double.fault(Fault::None);
    double.state.lock().unwrap().spools.remove(&1);
    assert_eq!(
        action(&app, "SYNC", json!({"spoolId": id})).await.status(),
        200
    );
    let missing = spool(&app, &id).await;
    assert_eq!(
        (
            missing["remoteState"].as_str(),
            missing["syncError"].as_str()
        ),
        (Some("MISSING"), None)
    );
}

/// Every fault the double plays, classified, with neither the peer's body nor its URL nor our
/// credential in any answer.
#[actix_web::test]
async fn every_peer_fault_is_classified_without_the_peers_body() {
    let double = Double::start(1).await;
    let app = linked_app(&double.url).await;
    let port = double.url.rsplit(':').next().unwrap().to_string();
    let cases = [
        (Fault::Refused, 409, "INTEGRATION_CONFIG"),
        (Fault::Redirect, 502, "INTEGRATION_UNAVAILABLE"),
        (Fault::Timeout, 502, "INTEGRATION_UNAVAILABLE"),
        (Fault::Malformed, 502, "INTEGRATION_CONTRACT"),
        (Fault::ContractBreak, 502, "INTEGRATION_CONTRACT"),
    ];
    for (fault, status, code) in cases {
        double.fault(fault);
        let res = app.get("/api/integrations/spoolmgr?view=preview").await;
        let text = format!("{:?}", res.headers());
        let body = assert_error(res, status, code).await.to_string();
        for leak in ["peer-body-marker", "peer-secret", "elsewhere", &port] {
            assert!(
                !body.contains(leak) && !text.contains(leak),
                "{fault:?}: {leak} in {body}"
            );
        }
        let status: Value = app
            .get("/api/integrations/spoolmgr")
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(status["version"], Value::Null, "{fault:?}");
        assert_eq!(status["error"], code, "{fault:?}");
        assert!(!status.to_string().contains("peer-body-marker"));
    }
    let seen = double.seen.lock().unwrap();
    assert!(seen.bodies.iter().any(|b| b.contains("peer-body-marker")));
}

#[actix_web::test]
async fn disabled_unconfigured_and_unreachable_have_their_codes() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let res = app.get("/api/integrations/spoolmgr").await;
    assert_error(res, 409, "INTEGRATION_DISABLED").await;
    let res = action(
        &app,
        "SYNC",
        json!({"spoolId": "01890a5d-ac96-774b-bcce-b302099a8057"}),
    )
    .await;
    assert_error(res, 409, "INTEGRATION_DISABLED").await;
    let on = json!({"spoolmgr": {"enabled": true, "url": null}});
    assert_eq!(
        app.patch("/api/settings/integrations", &on).await.status(),
        200
    );
    let status: Value = app
        .get("/api/integrations/spoolmgr")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (status["configured"].as_bool(), status["version"].as_str()),
        (Some(false), None)
    );
    let res = app.get("/api/integrations/spoolmgr?view=preview").await;
    assert_error(res, 409, "INTEGRATION_CONFIG").await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let on = json!({"spoolmgr": {"enabled": true, "url": url}});
    assert_eq!(
        app.patch("/api/settings/integrations", &on).await.status(),
        200
    );
    let res = app.get("/api/integrations/spoolmgr?view=preview").await;
    assert_error(res, 502, "INTEGRATION_UNAVAILABLE").await;
    let res = action(&app, "FETCH", json!({})).await;
    assert_error(res, 422, "VALIDATION_FAILED").await;
    let res = app.get("/api/integrations/spoolmgr?view=everything").await;
    assert_error(res, 422, "VALIDATION_FAILED").await;
}

#[actix_web::test]
async fn unknown_operations_and_unlinked_spools_are_refused() {
    let double = Double::start(1).await;
    let app = linked_app(&double.url).await;
    let unknown = json!({"operationId": "01890a5d-ac96-774b-bcce-b302099a8057", "action": "SEND"});
    refused(&app, "OPERATION", unknown, 404, "NOT_FOUND").await;
    let shop = shop(&app).await;
    let native = support::first_spool(&app, &shop.filament).await["id"].clone();
    refused(
        &app,
        "SYNC",
        json!({"spoolId": native}),
        409,
        "INTEGRATION_CONFLICT",
    )
    .await;
    let unlink = json!({"spoolId": native, "ownership": "NATIVE", "openingBalance": "1"});
    refused(&app, "UNLINK", unlink, 409, "INTEGRATION_CONFLICT").await;
    let negative = json!({"spoolId": native, "ownership": "NATIVE", "openingBalance": "-1"});
    refused(&app, "UNLINK", negative, 422, "VALIDATION_FAILED").await;
}

/// The real binary's log while the peer refuses, redirects, breaks its contract and loses an
/// applied answer: no line holds the credential (an environment default here) or the peer's body.
#[actix_web::test]
async fn no_log_line_holds_the_credential_or_the_peers_body() {
    let double = Double::start(1).await;
    let dir = tempfile::tempdir().unwrap();
    let secret = "Bearer log-secret-4b7d";
    let env = [
        ("PRINTCOST_SPOOLMGR_URL", double.url.as_str()),
        ("PRINTCOST_SPOOLMGR_AUTHORIZATION", secret),
    ];
    let service = durability::Service::start_with(dir.path(), &env);
    let (client, url) = (&service.client, |path: &str| service.url(path));
    let setup = client
        .post(url("/api/auth/setup"))
        .json(&support::setup_body())
        .send()
        .await
        .unwrap();
    assert_eq!(setup.status(), 201);
    let on = json!({"spoolmgr": {"enabled": true, "url": double.url}});
    assert_eq!(
        client
            .patch(url("/api/settings/integrations"))
            .json(&on)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let mut answers = String::new();
    for fault in [
        Fault::Refused,
        Fault::Redirect,
        Fault::Malformed,
        Fault::ContractBreak,
        Fault::None,
    ] {
        double.fault(fault);
        for path in [
            "/api/integrations/spoolmgr",
            "/api/integrations/spoolmgr?view=preview",
        ] {
            answers.push_str(
                &client
                    .get(url(path))
                    .send()
                    .await
                    .unwrap()
                    .text()
                    .await
                    .unwrap(),
            );
        }
    }
    let preview: Value = client
        .get(url("/api/integrations/spoolmgr?view=preview"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let import = json!({"action": "IMPORT", "data": {"remoteId": 1, "previewHash": preview["items"][0]["previewHash"], "authority": "EXTERNAL_CONSUMPTION"}});
    let res = client
        .post(url("/api/integrations/spoolmgr"))
        .json(&import)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    double.fault(Fault::Refused);
    let sync =
        json!({"action": "SYNC", "data": {"spoolId": res.json::<Value>().await.unwrap()["id"]}});
    answers.push_str(
        &client
            .post(url("/api/integrations/spoolmgr"))
            .json(&sync)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    );
    let settings = client
        .get(url("/api/settings/integrations"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    answers.push_str(&settings);
    let log = service.log.lock().unwrap().join("\n");
    assert!(
        log.contains("status=401"),
        "the log names the peer's status:\n{log}"
    );
    for leak in ["log-secret", "peer-body-marker", "elsewhere.invalid"] {
        assert!(!answers.contains(leak), "{leak} in an answer: {answers}");
        assert!(!log.contains(leak), "{leak} in the log:\n{log}");
    }
}

/// Asserts a refused form's page: its status and a text it shows.
async fn refused_page(res: reqwest::Response, status: u16, shows: &str) {
    assert_eq!(res.status().as_u16(), status);
    let html = res.text().await.unwrap();
    assert!(html.contains(shows), "{shows} not in {html}");
}

/// The UI: Stock › Spoolman imports from the preview and sends and confirms operations; a
/// spool's page shows who keeps its stock, syncs it and unlinks it.
#[actix_web::test]
async fn the_spoolman_page_imports_sends_confirms_and_the_spool_page_unlinks() {
    use crate::support::{location, logged_in, page, submit};
    let double = Double::start(2).await;
    let app = linked_app(&double.url).await;
    let client = logged_in(&app).await;
    let (status, html) = page(&client, &app, "/stock/spoolmgr").await;
    assert_eq!(status, 200);
    assert!(
        html.contains("0.26.1") && html.contains("remote-spools"),
        "{html}"
    );
    let hash = preview(&app, 1).await["items"][0]["previewHash"]
        .as_str()
        .unwrap()
        .to_string();
    let form = [
        ("action", "IMPORT"),
        ("data.remoteId", "1"),
        ("data.previewHash", hash.as_str()),
        ("data.authority", "EXTERNAL_CONSUMPTION"),
    ];
    let res = submit(&client, &app, "/stock/spoolmgr", &form).await;
    assert_eq!(res.status().as_u16(), 303);
    assert!(location(&res).starts_with("/stock/spoolmgr?imported="));
    let (_, imported) = page(&client, &app, location(&res)).await;
    assert!(
        imported.contains(r#"id="notice">SM-1 imported."#),
        "{imported}"
    );
    let stale = [
        ("action", "IMPORT"),
        ("data.remoteId", "2"),
        ("data.previewHash", hash.as_str()),
    ];
    let res = submit(&client, &app, "/stock/spoolmgr", &stale).await;
    refused_page(res, 409, "conflicts with the integration").await;

    let id = preview(&app, 1).await["items"][0]["localSpoolId"]
        .as_str()
        .unwrap()
        .to_string();
    consume(&app, &id, "40", "25").await;
    let (_, html) = page(&client, &app, "/stock/spoolmgr").await;
    assert!(html.contains("Send now"), "{html}");
    let op = operations(&app).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    double.fault(Fault::ApplyThenDrop);
    let send = [
        ("action", "OPERATION"),
        ("data.operationId", op.as_str()),
        ("data.action", "SEND"),
    ];
    let res = submit(&client, &app, "/stock/spoolmgr", &send).await;
    refused_page(res, 502, "It was applied").await;
    double.fault(Fault::None);
    let confirm = [
        ("action", "OPERATION"),
        ("data.operationId", op.as_str()),
        ("data.action", "CONFIRM_APPLIED"),
    ];
    let res = submit(&client, &app, "/stock/spoolmgr", &confirm).await;
    assert_eq!(res.status(), 303);
    assert_eq!(operations(&app).await[0]["state"], "APPLIED");
    let (_, confirmed) = page(&client, &app, location(&res)).await;
    assert!(
        confirmed.contains("to Spoolman spool #1: recorded as you confirmed."),
        "{confirmed}"
    );

    let spool_page = format!("/spools/{id}");
    let (_, html) = page(&client, &app, &spool_page).await;
    assert!(
        html.contains("Spoolman (sends consumption)") && !html.contains("movement-form"),
        "{html}"
    );
    let sync = [("action", "SYNC"), ("data.spoolId", id.as_str())];
    let res = submit(&client, &app, "/stock/spoolmgr", &sync).await;
    assert_eq!(location(&res), format!("{spool_page}?synced"));
    let (_, synced) = page(&client, &app, &format!("{spool_page}?synced")).await;
    assert!(
        synced.contains(r#"id="notice">SM-1: synced with Spoolman."#),
        "{synced}"
    );
    let bad = [
        ("action", "UNLINK"),
        ("data.spoolId", id.as_str()),
        ("data.ownership", "NATIVE"),
        ("data.openingBalance", "-3"),
    ];
    let res = submit(&client, &app, "/stock/spoolmgr", &bad).await;
    refused_page(res, 422, "data.openingBalance-fault").await;
    let unlink = [
        ("action", "UNLINK"),
        ("data.spoolId", id.as_str()),
        ("data.ownership", "NATIVE"),
        ("data.openingBalance", "975"),
    ];
    assert_eq!(
        submit(&client, &app, "/stock/spoolmgr", &unlink)
            .await
            .status(),
        303
    );
    let (_, html) = page(&client, &app, &spool_page).await;
    assert!(
        html.contains("movement-form") && !html.contains("spoolmgr-link"),
        "{html}"
    );
}

#[actix_web::test]
async fn with_spool_management_or_the_integration_off_no_action_is_carried_out() {
    let (double, app, id) = imported("EXTERNAL_CONSUMPTION").await;
    consume(&app, &id, "40", "10").await;
    let op = operations(&app).await[0].clone();
    let actions = [
        ("IMPORT", json!({"remoteId": 1, "previewHash": "00"})),
        ("SYNC", json!({"spoolId": id})),
        (
            "UNLINK",
            json!({"spoolId": id, "ownership": "NATIVE", "openingBalance": "1"}),
        ),
        ("OPERATION", op_action(&op["id"], "SEND")),
        ("OPERATION", op_action(&op["id"], "CONFIRM_APPLIED")),
        ("OPERATION", op_action(&op["id"], "CONFIRM_NOT_APPLIED")),
    ];
    let features = |on: bool| json!({"spoolManagementEnabled": on});
    let off = app.patch("/api/settings/features", &features(false)).await;
    assert_eq!(off.status(), 200);
    for path in [
        "/api/integrations/spoolmgr",
        "/api/integrations/spoolmgr?view=preview",
    ] {
        assert_error(app.get(path).await, 409, "SPOOL_MANAGEMENT_DISABLED").await;
    }
    for (name, data) in &actions {
        refused(&app, name, data.clone(), 409, "SPOOL_MANAGEMENT_DISABLED").await;
    }
    // Spool management back on leaves the integration off (switching it off switched it off).
    let on = app.patch("/api/settings/features", &features(true)).await;
    assert_eq!(on.status(), 200);
    assert_error(
        app.get("/api/integrations/spoolmgr").await,
        409,
        "INTEGRATION_DISABLED",
    )
    .await;
    for (name, data) in &actions {
        refused(&app, name, data.clone(), 409, "INTEGRATION_DISABLED").await;
    }
    let on = json!({"spoolmgr": {"enabled": true, "url": double.url}});
    assert_eq!(
        app.patch("/api/settings/integrations", &on).await.status(),
        200
    );
    let ops = operations(&app).await;
    assert_eq!(
        (ops.len(), &ops[0]["state"]),
        (1, &json!("PENDING")),
        "nothing was sent or confirmed"
    );
    assert_eq!(spool(&app, &id).await["authority"], "EXTERNAL_CONSUMPTION");
}
