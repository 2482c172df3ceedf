//! The spool-manager integration against the real Spoolman backend (`PRINTCOST_SPOOLMAN_RUN`, set by `scripts/test`),
//! started on a free port and stopped by its PID. Where it is absent these tests say so loudly
//! and pass on the double's tests alone (`spoolmgr.rs`).

use crate::spoolmgr::{action, consume, import, linked_app, operations, preview, spool};
use crate::support::{TestApp, assert_error};
use serde_json::{Value, json};
use std::time::Instant;

#[path = "../peers/real_spoolman.rs"]
pub mod real_spoolman;
use real_spoolman::RealSpoolman;

/// Spoolman's own API, as a maker's other tools use it.
struct Peer {
    spoolman: RealSpoolman,
    http: reqwest::Client,
}

impl Peer {
    fn start() -> Option<Peer> {
        Some(Peer {
            spoolman: RealSpoolman::start()?,
            http: reqwest::Client::new(),
        })
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let url = format!("{}{path}", self.spoolman.url);
        let res = self
            .http
            .request(method, url)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success(), "{path}: {}", res.status());
        res.json().await.unwrap()
    }

    /// A vendor, a filament and `count` spools of it; answers the spools' ids.
    async fn stock(&self, count: usize) -> Vec<u64> {
        use reqwest::Method;
        self.call(
            Method::POST,
            "/api/v1/vendor",
            json!({"name": "Prusament", "empty_spool_weight": 201}),
        )
        .await;
        self.call(Method::POST, "/api/v1/filament", json!({"name": "Galaxy Black", "vendor_id": 1, "material": "PLA", "price": 24.99, "density": 1.24, "diameter": 1.75, "weight": 1000, "spool_weight": 201, "color_hex": "3D3E3D"}))
            .await;
        let mut ids = Vec::new();
        for n in 0..count {
            let spool = json!({"filament_id": 1, "initial_weight": 1000, "price": 22.5, "location": "Shelf A", "lot_nr": format!("LOT-{n}")});
            ids.push(
                self.call(Method::POST, "/api/v1/spool", spool).await["id"]
                    .as_u64()
                    .unwrap(),
            );
        }
        ids
    }

    async fn spool(&self, id: u64) -> Value {
        self.call(
            reqwest::Method::GET,
            &format!("/api/v1/spool/{id}"),
            Value::Null,
        )
        .await
    }
}

fn send(op: &Value) -> Value {
    json!({"operationId": op["id"], "action": "SEND"})
}

#[actix_web::test]
async fn a_spoolman_spool_is_previewed_imported_synced_and_unlinked() {
    let Some(peer) = Peer::start() else { return };
    let remote = peer.stock(1).await[0];
    let app = linked_app(&peer.spoolman.url).await;
    let item = preview(&app, 1).await["items"][0].clone();
    assert_eq!(
        (item["id"].as_u64(), item["remainingWeight"].as_str()),
        (Some(remote), Some("1000"))
    );
    assert_eq!(item["filament"]["vendor"]["name"], "Prusament");

    // A change made in Spoolman after the preview: the old fingerprint is refused.
    peer.call(
        reqwest::Method::PATCH,
        &format!("/api/v1/spool/{remote}"),
        json!({"location": "Shelf B"}),
    )
    .await;
    let stale = action(
        &app,
        "IMPORT",
        json!({"remoteId": remote, "previewHash": item["previewHash"]}),
    )
    .await;
    assert_error(stale, 409, "INTEGRATION_CONFLICT").await;
    let id = import(&app, remote, "EXTERNAL_READ_ONLY").await;
    let local = spool(&app, &id).await;
    assert_eq!(
        (local["code"].as_str(), local["location"].as_str()),
        (Some("SM-1"), Some("Shelf B"))
    );

    // Consumption booked in Spoolman by another tool shows after a SYNC.
    peer.call(
        reqwest::Method::PUT,
        &format!("/api/v1/spool/{remote}/use"),
        json!({"use_weight": 120.25}),
    )
    .await;
    assert_eq!(
        action(&app, "SYNC", json!({"spoolId": id})).await.status(),
        200
    );
    let synced = spool(&app, &id).await;
    assert_eq!(
        (
            synced["remainingGrams"].as_str(),
            synced["syncError"].as_str()
        ),
        (Some("879.75"), None)
    );

    let unlink = json!({"spoolId": id, "ownership": "NATIVE", "openingBalance": "879.75"});
    assert_eq!(action(&app, "UNLINK", unlink).await.status(), 200);
    let movement = json!({"kind": "CORRECTION", "grams": "-9.75"});
    let res = app
        .post(&format!("/api/spools/{id}/movements"), &movement)
        .await;
    assert_eq!(res.status(), 201);
    assert_eq!(spool(&app, &id).await["remainingGrams"], "870");
    assert_eq!(
        peer.spool(remote).await["used_weight"],
        120.25,
        "Spoolman left alone"
    );
}

#[actix_web::test]
async fn consumption_reaches_spoolman_exactly_once_and_a_correction_sends_its_delta() {
    let Some(peer) = Peer::start() else { return };
    let remote = peer.stock(1).await[0];
    let app = linked_app(&peer.spoolman.url).await;
    let id = import(&app, remote, "EXTERNAL_CONSUMPTION").await;
    let print = consume(&app, &id, "40", "42.5").await;
    let op = operations(&app).await[0].clone();

    // Two SENDs race, then one repeats: Spoolman books the consumption once.
    let (a, b) = futures_util::future::join(
        action(&app, "OPERATION", send(&op)),
        action(&app, "OPERATION", send(&op)),
    )
    .await;
    let mut statuses = [a.status().as_u16(), b.status().as_u16()];
    statuses.sort_unstable();
    assert!(
        statuses[0] == 200 && (statuses[1] == 200 || statuses[1] == 409),
        "{statuses:?}"
    );
    assert_eq!(action(&app, "OPERATION", send(&op)).await.status(), 200);
    assert_eq!(peer.spool(remote).await["used_weight"], 42.5);
    assert_eq!(operations(&app).await[0]["state"], "APPLIED");
    assert_eq!(spool(&app, &id).await["remainingGrams"], "957.5");

    // A correction to 40 g sends -2.5 g.
    let pid = print["id"].as_str().unwrap();
    let usage = print["usages"][0]["id"].clone();
    let correction = json!({"status": "SUCCESS", "durationSeconds": 5400, "filaments": [{"usageId": usage, "usedGrams": "40"}],
        "correctionNote": "Weighed the leftovers", "expectedRevision": 1, "operationKey": uuid::Uuid::now_v7().to_string()});
    let res = app
        .post(&format!("/api/prints/{pid}/outcome/correct"), &correction)
        .await;
    assert_eq!(res.status(), 200);
    let delta = operations(&app).await[0].clone();
    assert_eq!(
        (delta["grams"].as_str(), delta["state"].as_str()),
        (Some("-2.5"), Some("PENDING"))
    );
    assert_eq!(action(&app, "OPERATION", send(&delta)).await.status(), 200);
    assert_eq!(peer.spool(remote).await["used_weight"], 40.0);
}

/// What a maker does to bring 50 Spoolman spools in: page through the preview and import each
/// spool with its fingerprint. The duration is printed (quoted in the note), never
/// asserted.
#[actix_web::test]
async fn fifty_spoolman_spools_come_in_through_the_preview() {
    let Some(peer) = Peer::start() else { return };
    let remotes = peer.stock(50).await;
    let app: TestApp = linked_app(&peer.spoolman.url).await;
    let started = Instant::now();
    let mut imported = Vec::new();
    for page in 1.. {
        let view = preview(&app, page).await;
        for item in view["items"].as_array().unwrap() {
            let data = json!({"remoteId": item["id"], "previewHash": item["previewHash"]});
            let res = action(&app, "IMPORT", data).await;
            assert_eq!(res.status(), 200);
            imported.push(item["id"].as_u64().unwrap());
        }
        if view["hasMore"] == false {
            break;
        }
    }
    let took = started.elapsed();
    eprintln!(
        "imported {} Spoolman spools in {:.2} s",
        imported.len(),
        took.as_secs_f64()
    );
    assert_eq!(imported, remotes);
    let spools: Value = app
        .get("/api/spools?search=SM-&pageSize=100")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(spools["total"], 50);
}

/// Every field the double renders, at the same place and with the same value as the real
/// Spoolman renders it (timestamps aside).
fn assert_same_fields(double: &Value, real: &Value, at: &str) {
    match double {
        Value::Object(fields) => {
            for (key, value) in fields {
                if key == "registered" {
                    assert!(real[key].is_string(), "{at}.{key}");
                    continue;
                }
                assert_same_fields(value, &real[key], &format!("{at}.{key}"));
            }
        }
        _ => assert_eq!(double, real, "{at}"),
    }
}

/// The double of `support::spoolman` checked against the real Spoolman: a spool, a page with
/// its total, a use and an unknown spool answer alike.
#[actix_web::test]
async fn the_double_answers_as_the_real_spoolman_does() {
    use crate::support::spoolman::{Double, spool_json};
    let Some(peer) = Peer::start() else { return };
    let remote = peer.stock(1).await[0];
    let double = Double::start(1).await;
    let http = reqwest::Client::new();
    let get = |base: String, path: String| {
        let request = http.get(format!("{base}{path}"));
        async move {
            let res = request.send().await.unwrap();
            let total = res
                .headers()
                .get("x-total-count")
                .map(|v| v.to_str().unwrap().to_string());
            (
                res.status().as_u16(),
                total,
                res.json::<Value>().await.unwrap(),
            )
        }
    };
    let mut expected = spool_json(remote, 0.0);
    expected["lot_nr"] = json!("LOT-0");
    double
        .state
        .lock()
        .unwrap()
        .spools
        .insert(1, expected.clone());
    let (status, _, real) = get(peer.spoolman.url.clone(), format!("/api/v1/spool/{remote}")).await;
    assert_eq!(status, 200);
    assert_same_fields(&expected, &real, "spool");
    let (_, real_total, real_page) = get(
        peer.spoolman.url.clone(),
        "/api/v1/spool?limit=10&offset=0&allow_archived=true".into(),
    )
    .await;
    let (_, double_total, double_page) = get(
        double.url.clone(),
        "/api/v1/spool?limit=10&offset=0&allow_archived=true".into(),
    )
    .await;
    assert_eq!(
        (real_total, double_total),
        (Some("1".into()), Some("1".into()))
    );
    assert_same_fields(&double_page[0], &real_page[0], "page[0]");
    let missing = format!("/api/v1/spool/{}", remote + 100);
    let (real_status, _, real_body) = get(peer.spoolman.url.clone(), missing.clone()).await;
    let (double_status, _, double_body) =
        get(double.url.clone(), format!("/api/v1/spool/{}", 101)).await;
    assert_eq!((real_status, double_status), (404, 404));
    assert!(real_body["message"].is_string() && double_body["message"].is_string());
    let used = peer
        .call(
            reqwest::Method::PUT,
            &format!("/api/v1/spool/{remote}/use"),
            json!({"use_weight": 12.25}),
        )
        .await;
    let mut after = spool_json(remote, 12.25);
    after["lot_nr"] = json!("LOT-0");
    assert_same_fields(&after, &used, "use");
}
