//! Alerts over real sockets: every kind starts once and clears once, told on MQTT (the bridge's
//! embedded broker) and to webhooks (a recording test server, JSON and ntfy forms); printcost's
//! own levels on MQTT and their Home Assistant discovery, read back field by field; the
//! settings' validation, write-only tokens and "send test".

#[path = "../../actors/tests/support/device.rs"]
pub(crate) mod device;

use crate::outcomes::outcome;
use crate::spoolmgr::{action, done_on_spool, import};
use crate::support::http_double::{Reply, json as answer, serve};
use crate::support::spoolman::{Double, Fault};
use crate::support::{
    TestApp, assert_error, assert_field_error, draft, part, shop, signed_in, submit,
};
use actors::alerts::Kind;
use actors::bridge::config::{self, BridgeConfig};
use device::{Device, free_address, serve_at};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use storage::records::{
    Billing, Customer, Invoice, InvoiceKind, InvoiceLine, InvoiceParty, Issued, PostalAddress,
    VatCategory,
};
use storage::{Id, Store, StoreOptions, Timestamp, repo};

/// Writes into `store` an issued invoice of 11.90 (10 at 19 %) due on 2026-10-01, with its
/// customer; its id.
fn overdue_invoice(store: &Store) -> String {
    let address = PostalAddress {
        street: "Am Markt 3".into(),
        postal_code: "80331".into(),
        city: "München".into(),
        country: "DE".into(),
    };
    let customer = Customer {
        id: Id::new(),
        name: "Verein".into(),
        email: None,
        note: None,
        exclude_from_dashboard: false,
        archived: false,
        created_at: Timestamp(0),
        updated_at: Timestamp(0),
        discount_percent: None,
        billing: Billing::default(),
    };
    let party = InvoiceParty {
        name: "Verein".into(),
        address,
        vat_id: None,
        tax_number: None,
        email: "kasse@verein.example".into(),
        phone: None,
    };
    let invoice = Invoice {
        id: Id::new(),
        kind: InvoiceKind::Invoice,
        customer_id: customer.id,
        print_ids: Vec::new(),
        corrects: None,
        lines: vec![InvoiceLine {
            print_id: None,
            name: "Pokalsockel".into(),
            quantity: 1.into(),
            unit: "C62".into(),
            unit_price: 10.into(),
            vat: VatCategory::Standard,
            vat_rate: 19.into(),
        }],
        adjustments: Vec::new(),
        note: None,
        issued: Some(Issued {
            number: "2026-0099".into(),
            issued_on: "2026-09-17".into(),
            due_on: "2026-10-01".into(),
            seller: party.clone(),
            buyer: party,
            buyer_reference: String::new(),
            currency: "EUR".into(),
            payment_terms: String::new(),
            iban: "DE89370400440532013000".into(),
            bic: None,
            language: "en-US".into(),
            preceding: None,
            at: Timestamp(0),
        }),
        payments: Vec::new(),
        archived: false,
        created_at: Timestamp(0),
        updated_at: Timestamp(0),
    };
    let txn = store.begin_write().unwrap();
    repo::put(&txn, &customer).unwrap();
    repo::put(&txn, &invoice).unwrap();
    txn.commit().unwrap();
    invoice.id.to_string()
}

/// A request a webhook received: its headers (names lower-case) and body.
type Received = (BTreeMap<String, String>, String);

/// A webhook that records every request and answers 200.
async fn webhook() -> (String, Arc<Mutex<Vec<Received>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    let (url, _) = serve(move |request| {
        let entry = (request.headers.clone(), request.body.clone());
        kept.lock().unwrap().push(entry);
        answer("200 OK", "{}")
    })
    .await;
    (format!("{url}/hook"), received)
}

/// Every message on `filters`, in order: topic, payload, retain.
type Heard = Arc<Mutex<Vec<(String, String, bool)>>>;

/// A client of the broker at `port` subscribed to `filters`; what it hears.
async fn listener(port: u16, filters: &[&str]) -> Heard {
    let id = format!("listener-{}", uuid::Uuid::now_v7().simple());
    let (client, mut events) = AsyncClient::new(MqttOptions::new(id, "127.0.0.1", port), 100);
    for filter in filters {
        client.subscribe(*filter, QoS::AtLeastOnce).await.unwrap();
    }
    let heard: Heard = Arc::default();
    let kept = heard.clone();
    actix_web::rt::spawn(async move {
        let _client = client;
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::Publish(p))) => kept.lock().unwrap().push((
                    p.topic.clone(),
                    String::from_utf8_lossy(&p.payload).into_owned(),
                    p.retain,
                )),
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    });
    heard
}

async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..300 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("waited 30 s for {what}");
}

/// The events (kind, change) told to the JSON webhook and on `printcost/events`.
struct Told {
    hook: Arc<Mutex<Vec<Received>>>,
    mqtt: Heard,
}

impl Told {
    fn hook_events(&self) -> Vec<Value> {
        let received = self.hook.lock().unwrap();
        received
            .iter()
            .map(|(_, body)| serde_json::from_str(body).unwrap())
            .collect()
    }

    fn mqtt_events(&self) -> Vec<Value> {
        let heard = self.mqtt.lock().unwrap();
        heard
            .iter()
            .filter(|(topic, _, _)| topic == "printcost/events")
            .map(|(_, payload, retain)| {
                assert!(!retain, "events are not retained");
                serde_json::from_str(payload).unwrap()
            })
            .collect()
    }

    /// Waits until `kind` has been told `change` on both channels; answers the webhook's event.
    async fn expect(&self, kind: &str, change: &str) -> Value {
        let is = |e: &Value| e["kind"] == kind && e["change"] == change;
        until(&format!("{kind} {change}"), || {
            self.hook_events().iter().any(is) && self.mqtt_events().iter().any(is)
        })
        .await;
        self.hook_events().into_iter().find(is).unwrap()
    }
}

/// The bridge on an embedded broker at `broker` with one source at `device`; Home Assistant
/// discovery of the points on with `points_announced` (printcost's own entities are announced
/// either way).
fn bridge_config(broker: u16, device: u16, points_announced: bool) -> BridgeConfig {
    let discovery = if points_announced {
        "homeassistant:\n  enabled: true\n"
    } else {
        ""
    };
    let yaml = format!(
        "broker:\n  enabled: true\n  listen: 127.0.0.1:{broker}\nmqtt:\n  host: 127.0.0.1\n  port: {broker}\n  base_topic: shop\n  client_id: printcost-alerts-test\n{discovery}sources:\n  - id: meter\n    host: 127.0.0.1\n    port: {device}\n    unit_id: 1\n    poll_interval_ms: 500\n    request_timeout_ms: 2000\n    points:\n      - {{name: Power, topic: power, address: 0, kind: holding, data_type: u16}}\n"
    );
    config::parse("alerts.yml", &yaml).unwrap()
}

async fn json_of(res: reqwest::Response) -> Value {
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    body
}

#[actix_web::test]
async fn every_alert_kind_starts_once_and_clears_once_over_mqtt_and_a_webhook() {
    let double = Double::start(1).await;
    let broker = free_address().port();
    let modbus = free_address();
    let meter = Arc::new(Device::default());
    meter.registers.lock().unwrap().insert(0, 230);
    let server = serve_at(meter.clone(), modbus).await;
    // The store stays in the test's hand too: an invoice due long ago is written into it
    // directly (no request can issue one in the past).
    let stored = tempfile::tempdir().unwrap();
    let store = Store::open(
        &stored.path().join("printcost.redb"),
        StoreOptions::default(),
    )
    .unwrap();
    let data_dir = stored.path().to_path_buf();
    let app = TestApp::spawn_with_store_and(store.clone(), |c| {
        c.bridge = Some(bridge_config(broker, modbus.port(), true));
        c.alerts_interval_secs = 1;
        c.data_dir = data_dir.clone();
    })
    .await;
    app.setup().await;
    let link = json!({"spoolmgr": {"enabled": true, "url": double.url, "authorization": "Bearer peer-secret-9c1e"}});
    assert_eq!(
        app.patch("/api/settings/integrations", &link)
            .await
            .status(),
        200
    );
    let mqtt = listener(broker, &["printcost/#", "homeassistant/#"]).await;
    let (hook_url, hook) = webhook().await;
    let (ntfy_url, ntfy) = webhook().await;
    json_of(
        app.put(
            "/api/settings/alerts",
            &json!({"integrationMinutes": 15, "backupDays": 1}),
        )
        .await,
    )
    .await;
    app.create(
        "/api/settings/alerts/webhooks",
        &json!({"name": "Shop JSON", "url": hook_url, "form": "JSON"}),
    )
    .await;
    let ntfy_hook = app
        .create("/api/settings/alerts/webhooks", &json!({"name": "ntfy", "url": ntfy_url, "form": "NTFY", "kinds": ["LOW_STOCK"], "token": "tk_ntfy-secret"}))
        .await;
    assert_eq!(ntfy_hook["tokenSet"], true);
    assert!(
        !ntfy_hook.to_string().contains("tk_ntfy-secret"),
        "write-only"
    );
    let told = Told {
        hook: hook.clone(),
        mqtt: mqtt.clone(),
    };
    let shop = shop(&app).await;

    // LOW_STOCK: a threshold above the opening spool's 1000 g, then none.
    let stock = format!("/api/filaments/{}/stock", shop.filament);
    json_of(
        app.patch(&stock, &json!({"minimumStockGrams": "1500"}))
            .await,
    )
    .await;
    let started = told.expect("LOW_STOCK", "STARTED").await;
    assert_eq!(started["subject"], shop.filament.as_str());
    assert_eq!(started["title"], "Low stock: Reference Works PLA Black");
    assert_eq!(
        started["message"],
        "1,000 g left, below the threshold of 1,500 g."
    );
    assert_eq!(started["priority"], 3);
    let standing = json_of(app.get("/api/alerts").await).await;
    assert!(
        standing
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["kind"] == "LOW_STOCK"),
        "{standing}"
    );
    json_of(app.patch(&stock, &json!({"minimumStockGrams": null})).await).await;
    told.expect("LOW_STOCK", "CLEARED").await;

    // SPOOL_EMPTY: the opening spool corrected to nothing, then a receipt.
    let spools = json_of(
        app.get(&format!("/api/spools?filamentId={}", shop.filament))
            .await,
    )
    .await;
    let spool = spools["items"][0]["id"].as_str().unwrap().to_string();
    let movements = format!("/api/spools/{spool}/movements");
    app.create(
        &movements,
        &json!({"kind": "CORRECTION", "grams": "-1000", "operationKey": uuid::Uuid::now_v7()}),
    )
    .await;
    let started = told.expect("SPOOL_EMPTY", "STARTED").await;
    assert_eq!(started["subject"], spool.as_str());
    app.create(
        &movements,
        &json!({"kind": "RECEIPT", "grams": "1000", "operationKey": uuid::Uuid::now_v7()}),
    )
    .await;
    told.expect("SPOOL_EMPTY", "CLEARED").await;

    // MAINTENANCE_DUE at 90 % of an hour, MAINTENANCE_OVERDUE past it, both gone when done.
    let task = app
        .create("/api/maintenance", &json!({"printerId": shop.printer, "name": "Clean the nozzle", "every": {"unit": "HOURS", "count": 1}}))
        .await;
    let task_id = task["id"].as_str().unwrap();
    let run = async |seconds: u32, status: &str| {
        let mut body = draft(&shop, "Bracket");
        body["parts"] = json!([part(&shop, seconds, "10")]);
        let print = app.done(&body).await;
        let id = print["id"].as_str().unwrap().to_string();
        let outcome = outcome(&print, status, seconds, "10");
        json_of(
            app.post(&format!("/api/prints/{id}/outcome"), &outcome)
                .await,
        )
        .await;
        id
    };
    run(3300, "SUCCESS").await;
    let due = told.expect("MAINTENANCE_DUE", "STARTED").await;
    assert_eq!(due["subject"], task_id);
    assert_eq!(
        due["message"],
        "Clean the nozzle on Ref printer: 0.9 of 1 h used."
    );
    let printer_due = format!("printcost/printers/{}/maintenance_due", shop.printer);
    until("the printer's maintenance flag ON", || {
        last(&mqtt, &printer_due).as_deref() == Some("ON")
    })
    .await;
    run(600, "SUCCESS").await;
    told.expect("MAINTENANCE_DUE", "CLEARED").await;
    let overdue = told.expect("MAINTENANCE_OVERDUE", "STARTED").await;
    assert_eq!(overdue["priority"], 4);
    json_of(
        app.post(&format!("/api/maintenance/{task_id}/done"), &json!({}))
            .await,
    )
    .await;
    told.expect("MAINTENANCE_OVERDUE", "CLEARED").await;
    until("the flag OFF", || {
        last(&mqtt, &printer_due).as_deref() == Some("OFF")
    })
    .await;

    // PRINT_FAILED: a failed run, then its retry.
    let failed = run(600, "FAILED").await;
    let started = told.expect("PRINT_FAILED", "STARTED").await;
    assert_eq!(started["subject"], failed.as_str());
    assert!(
        started["message"]
            .as_str()
            .unwrap()
            .ends_with("Warped off the plate"),
        "{started}"
    );
    json_of(
        app.post(&format!("/api/prints/{failed}/retry"), &json!({}))
            .await,
    )
    .await;
    told.expect("PRINT_FAILED", "CLEARED").await;

    // OPERATION_UNKNOWN: a consumption the spool manager applied without answering; confirmed.
    let remote = import(&app, 1, "EXTERNAL_CONSUMPTION").await;
    let print = done_on_spool(&app, &shop, &remote, "40").await;
    let usage = print["usages"][0]["id"].clone();
    let outcome = json!({"status": "SUCCESS", "durationSeconds": 60, "filaments": [{"usageId": usage, "usedGrams": "42.5"}]});
    let id = print["id"].as_str().unwrap();
    json_of(
        app.post(&format!("/api/prints/{id}/outcome"), &outcome)
            .await,
    )
    .await;
    let operations = json_of(app.get("/api/integrations/spoolmgr").await).await;
    let op = operations["operations"][0]["id"].clone();
    double.fault(Fault::ApplyThenDrop);
    let send = json!({"operationId": op, "action": "SEND"});
    assert_error(
        action(&app, "OPERATION", send).await,
        502,
        "INTEGRATION_UNAVAILABLE",
    )
    .await;
    double.fault(Fault::None);
    let started = told.expect("OPERATION_UNKNOWN", "STARTED").await;
    assert_eq!(started["subject"], op);
    let confirm = json!({"operationId": op, "action": "CONFIRM_APPLIED"});
    json_of(action(&app, "OPERATION", confirm).await).await;
    told.expect("OPERATION_UNKNOWN", "CLEARED").await;

    // INTEGRATION_FAILING: the spool manager answers with a redirect, then properly.
    json_of(app.get("/api/integrations/spoolmgr").await).await;
    json_of(
        app.put(
            "/api/settings/alerts",
            &json!({"integrationMinutes": 0, "backupDays": 1}),
        )
        .await,
    )
    .await;
    double.fault(Fault::Redirect);
    app.get("/api/integrations/spoolmgr").await;
    let started = told.expect("INTEGRATION_FAILING", "STARTED").await;
    assert_eq!(
        (&started["subject"], &started["title"]),
        (&json!("spoolmgr"), &json!("Spoolman does not answer"))
    );
    double.fault(Fault::None);
    json_of(app.get("/api/integrations/spoolmgr").await).await;
    told.expect("INTEGRATION_FAILING", "CLEARED").await;

    // SOURCE_OFFLINE: the meter goes away and comes back.
    server.abort();
    let _ = server.await;
    let started = told.expect("SOURCE_OFFLINE", "STARTED").await;
    assert_eq!(started["subject"], "meter");
    let _server = serve_at(meter.clone(), modbus).await;
    told.expect("SOURCE_OFFLINE", "CLEARED").await;

    // BACKUP_STALE: the newest backup beside the data is years old; a backup now clears it.
    let folder = data_dir.join("backups");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("printcost-20200101-030000.redb"), b"old").unwrap();
    let started = told.expect("BACKUP_STALE", "STARTED").await;
    assert_eq!(
        started["message"],
        "The newest backup is from 2020-01-01, more than 1 days ago."
    );
    assert_eq!(app.post("/api/backups", &json!({})).await.status(), 201);
    told.expect("BACKUP_STALE", "CLEARED").await;

    // BACKUP_FAILED: the folder turns into a file; a later run succeeds.
    let usb = data_dir.join("usb");
    let schedule =
        json!({"enabled": true, "time": "03:00", "folder": usb, "keepDays": 7, "keepWeeks": 4});
    json_of(app.put("/api/backups/schedule", &schedule).await).await;
    std::fs::remove_dir_all(&usb).unwrap();
    std::fs::write(&usb, b"not a folder").unwrap();
    assert_eq!(app.post("/api/backups", &json!({})).await.status(), 503);
    let started = told.expect("BACKUP_FAILED", "STARTED").await;
    assert_eq!(started["priority"], 4);
    std::fs::remove_file(&usb).unwrap();
    assert_eq!(app.post("/api/backups", &json!({})).await.status(), 201);
    told.expect("BACKUP_FAILED", "CLEARED").await;

    // INVOICE_OVERDUE: an invoice due on 1 October, unpaid; paid in full, it clears.
    let invoice = overdue_invoice(&store);
    let started = told.expect("INVOICE_OVERDUE", "STARTED").await;
    assert_eq!(started["subject"], invoice.as_str());
    assert_eq!(started["title"], "Invoice overdue: 2026-0099");
    let owed = app.json("/api/dashboard").await["receivables"].clone();
    assert_eq!(
        owed,
        json!({"open": 1, "openAmount": "11.9", "overdue": 1, "overdueAmount": "11.9"})
    );
    let payment = json!({"paidOn": "2026-10-02", "amount": "11.90", "method": "TRANSFER"});
    let res = app
        .post(&format!("/api/invoices/{invoice}/payments"), &payment)
        .await;
    assert_eq!(res.status(), 201);
    told.expect("INVOICE_OVERDUE", "CLEARED").await;
    let owed = app.json("/api/dashboard").await["receivables"].clone();
    assert_eq!(
        owed,
        json!({"open": 0, "openAmount": "0", "overdue": 0, "overdueAmount": "0"})
    );

    // Each said exactly once on each channel.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let key = |e: &Value| format!("{} {} {}", e["kind"], e["change"], e["subject"]);
    for events in [told.hook_events(), told.mqtt_events()] {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for event in &events {
            *counts.entry(key(event)).or_default() += 1;
        }
        assert!(counts.values().all(|n| *n == 1), "{counts:#?}");
        let kinds: std::collections::BTreeSet<&str> =
            events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
        let every: Vec<&str> = Kind::ALL.iter().map(|k| k.code()).collect();
        assert_eq!(kinds, every.into_iter().collect(), "every kind was told");
    }
    // The ntfy webhook took LOW_STOCK only, in ntfy's form, with its token.
    let received = ntfy.lock().unwrap().clone();
    assert_eq!(received.len(), 2, "started and cleared");
    let (headers, body) = &received[0];
    assert_eq!(headers["authorization"], "Bearer tk_ntfy-secret");
    assert_eq!(headers["x-title"], "Low stock: Reference Works PLA Black");
    assert_eq!(headers["x-priority"], "3");
    assert_eq!(headers["x-tags"], "printcost,package");
    assert_eq!(body, "1,000 g left, below the threshold of 1,500 g.");
    // A standing alert's retained topic was set while it stood and emptied when it cleared.
    let low = format!("printcost/alerts/LOW_STOCK/{}", shop.filament);
    let payloads: Vec<String> = mqtt
        .lock()
        .unwrap()
        .iter()
        .filter(|(t, _, _)| *t == low)
        .map(|(_, p, _)| p.clone())
        .collect();
    assert_eq!(payloads.len(), 2, "{payloads:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&payloads[0]).unwrap()["kind"],
        "LOW_STOCK"
    );
    assert_eq!(payloads[1], "");
}

/// The last payload heard on `topic`.
fn last(heard: &Heard, topic: &str) -> Option<String> {
    let heard = heard.lock().unwrap();
    heard
        .iter()
        .rev()
        .find(|(t, _, _)| t == topic)
        .map(|(_, p, _)| p.clone())
}

#[actix_web::test]
async fn home_assistant_discovers_printcosts_own_entities_field_by_field() {
    let broker = free_address().port();
    let modbus = free_address();
    // No `homeassistant` block in the bridge's configuration: printcost announces itself anyway.
    let app = TestApp::spawn_with(|c| {
        c.bridge = Some(bridge_config(broker, modbus.port(), false));
        c.alerts_interval_secs = 1;
    })
    .await;
    app.setup().await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Bracket");
    body["salesValue"] = json!("25.00");
    let print = app.done(&body).await;
    let id = print["id"].as_str().unwrap();
    let outcome = outcome(&print, "SUCCESS", 3600, "10");
    json_of(
        app.post(&format!("/api/prints/{id}/outcome"), &outcome)
            .await,
    )
    .await;
    let printing = app
        .create("/api/prints", &draft(&shop, "On the plate"))
        .await;
    let printing_id = printing["id"].as_str().unwrap();
    let moved = app
        .post(
            &format!("/api/prints/{printing_id}/status"),
            &json!({"status": "PRINTING"}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    let dashboard = json_of(app.get("/api/dashboard?period=30d").await).await;

    // A Home Assistant that subscribes later reads the retained configs and states.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let heard = listener(
        broker,
        &["homeassistant/+/printcost/+/config", "printcost/#"],
    )
    .await;
    let filament_config = format!(
        "homeassistant/sensor/printcost/filament_{}_remaining/config",
        shop.filament
    );
    let printer_config = format!(
        "homeassistant/binary_sensor/printcost/printer_{}_maintenance_due/config",
        shop.printer
    );
    let config = async |topic: &str| {
        until(topic, || last(&heard, topic).is_some()).await;
        let retained = heard
            .lock()
            .unwrap()
            .iter()
            .any(|(t, _, r)| t == topic && *r);
        assert!(retained, "{topic} is retained");
        serde_json::from_str::<Value>(&last(&heard, topic).unwrap()).unwrap()
    };
    let device = json!({"identifiers": ["printcost"], "name": "printcost", "manufacturer": "PrintCost", "model": "print-cost appliance", "sw_version": env!("CARGO_PKG_VERSION")});

    let filament = config(&filament_config).await;
    assert_eq!(filament["name"], "Reference Works PLA Black remaining");
    assert_eq!(
        filament["unique_id"],
        format!("printcost_filament_{}_remaining", shop.filament)
    );
    let state_topic = format!("printcost/filaments/{}/remaining_grams", shop.filament);
    assert_eq!(filament["state_topic"], state_topic.as_str());
    assert_eq!(filament["unit_of_measurement"], "g");
    assert_eq!(filament["device_class"], "weight");
    assert_eq!(filament["state_class"], "measurement");
    assert_eq!(filament["availability_topic"], "shop/status");
    assert_eq!(filament["device"], device);
    let stock = json_of(
        app.get(&format!("/api/filaments/{}/stock", shop.filament))
            .await,
    )
    .await;
    until("the filament's state", || {
        last(&heard, &state_topic).is_some()
    })
    .await;
    assert_eq!(
        last(&heard, &state_topic).unwrap(),
        stock["activeTotalGrams"].as_str().unwrap()
    );

    let printer = config(&printer_config).await;
    assert_eq!(printer["name"], "Ref printer maintenance due");
    assert_eq!(printer["device_class"], "problem");
    assert_eq!(
        (&printer["payload_on"], &printer["payload_off"]),
        (&json!("ON"), &json!("OFF"))
    );
    let flag = printer["state_topic"].as_str().unwrap().to_string();
    until("the printer's flag", || last(&heard, &flag).is_some()).await;
    assert_eq!(last(&heard, &flag).unwrap(), "OFF");

    let active = config("homeassistant/sensor/printcost/active_prints/config").await;
    assert_eq!(active["state_topic"], "printcost/prints/active");
    until("active prints", || {
        last(&heard, "printcost/prints/active").is_some()
    })
    .await;
    assert_eq!(last(&heard, "printcost/prints/active").unwrap(), "1");

    for (object, kpi) in [
        ("month_realized_revenue", "realizedRevenue"),
        ("month_realized_margin", "realizedMargin"),
    ] {
        let sensor = config(&format!("homeassistant/sensor/printcost/{object}/config")).await;
        assert_eq!(sensor["device_class"], "monetary");
        assert_eq!(sensor["unit_of_measurement"], "EUR");
        let topic = sensor["state_topic"].as_str().unwrap().to_string();
        until(&topic, || last(&heard, &topic).is_some()).await;
        let published: rust_decimal::Decimal = last(&heard, &topic).unwrap().parse().unwrap();
        let expected: rust_decimal::Decimal =
            dashboard["kpis"][kpi].as_str().unwrap().parse().unwrap();
        assert_eq!(published, expected.round_dp(2), "{object}");
    }
}

#[actix_web::test]
async fn alert_settings_validate_keep_tokens_write_only_and_send_tests() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let settings = json_of(app.get("/api/settings/alerts").await).await;
    assert_eq!(
        (&settings["integrationMinutes"], &settings["backupDays"]),
        (&json!(15), &json!(2))
    );
    assert_eq!(settings["kinds"].as_array().unwrap().len(), 11);
    assert_eq!(settings["mqtt"]["configured"], false);
    assert_eq!(settings["mqtt"]["prefix"], "printcost");

    let res = app
        .put(
            "/api/settings/alerts",
            &json!({"integrationMinutes": 1441, "backupDays": 1}),
        )
        .await;
    assert_field_error(res, "integrationMinutes", "errors.outOfRange").await;
    let res = app
        .put(
            "/api/settings/alerts",
            &json!({"integrationMinutes": 5, "backupDays": 0}),
        )
        .await;
    assert_field_error(res, "backupDays", "errors.outOfRange").await;
    let res = app
        .post(
            "/api/settings/alerts/webhooks",
            &json!({"name": "x", "url": "http://user:pw@ntfy.lan/t", "form": "JSON"}),
        )
        .await;
    assert_field_error(res, "url", "errors.invalidUrl").await;
    let res = app
        .post(
            "/api/settings/alerts/webhooks",
            &json!({"name": "x", "url": "http://ntfy.lan/t", "form": "JSON", "kinds": ["NOPE"]}),
        )
        .await;
    assert_error(res, 422, "VALIDATION_FAILED").await;
    let res = app
        .post(
            "/api/settings/alerts/webhooks",
            &json!({"name": "x", "url": "http://ntfy.lan/t", "form": "JSON", "token": "has space"}),
        )
        .await;
    assert_field_error(res, "token", "errors.invalidValue").await;

    let (url, received) = webhook().await;
    let hook = app
        .create(
            "/api/settings/alerts/webhooks",
            &json!({"name": "Test", "url": url, "form": "JSON", "token": "t0ken"}),
        )
        .await;
    let id = hook["id"].as_str().unwrap();
    let path = format!("/api/settings/alerts/webhooks/{id}");
    // Omitted keeps the token, null removes it.
    let kept = json_of(
        app.put(
            &path,
            &json!({"name": "Renamed", "url": url, "form": "NTFY"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (&kept["name"], &kept["tokenSet"], &kept["form"]),
        (&json!("Renamed"), &json!(true), &json!("NTFY"))
    );
    let tested = json_of(app.post(&format!("{path}/test"), &json!({})).await).await;
    assert_eq!(
        tested,
        json!({"delivered": true, "status": 200, "error": null, "reason": null})
    );
    let (headers, body) = received.lock().unwrap()[0].clone();
    assert_eq!(headers["authorization"], "Bearer t0ken");
    assert_eq!(headers["x-title"], "printcost test alert");
    assert_eq!(body, "printcost reaches this channel.");
    let removed = json_of(
        app.put(
            &path,
            &json!({"name": "Renamed", "url": url, "form": "JSON", "token": null}),
        )
        .await,
    )
    .await;
    assert_eq!(removed["tokenSet"], false);

    // A webhook that answers 500 is reported, not retried by the test.
    let (down, _) =
        serve(|_| Reply::Answer("500 Internal Server Error", String::new(), "{}".into())).await;
    let broken = app
        .create(
            "/api/settings/alerts/webhooks",
            &json!({"name": "Down", "url": down, "form": "JSON"}),
        )
        .await;
    let tested = json_of(
        app.post(
            &format!(
                "/api/settings/alerts/webhooks/{}/test",
                broken["id"].as_str().unwrap()
            ),
            &json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(
        tested,
        json!({"delivered": false, "status": 500, "error": "answered 500", "reason": "ANSWERED"})
    );

    let mqtt = json_of(app.post("/api/settings/alerts/mqtt/test", &json!({})).await).await;
    assert_eq!(mqtt["delivered"], false);
    assert_eq!(
        mqtt["error"],
        "MQTT is not configured (printcost --bridge-config)"
    );
    assert_eq!(mqtt["reason"], "MQTT_NOT_CONFIGURED");

    assert_eq!(app.delete(&path).await.status(), 204);
    assert_error(app.delete(&path).await, 404, "NOT_FOUND").await;
    let gone = json!({"name": "Gone", "url": "http://ntfy.lan/t", "form": "JSON"});
    assert_error(app.put(&path, &gone).await, 404, "NOT_FOUND").await;
    assert_error(
        app.post(&format!("{path}/test"), &json!({})).await,
        404,
        "NOT_FOUND",
    )
    .await;
    let anonymous = reqwest::get(app.url("/api/settings/alerts")).await.unwrap();
    assert_eq!(anonymous.status(), 401);
}

/// The alerts page in German words a failed webhook test in German (no English "no
/// connection"), and the MQTT channel that is not set up names no command-line flag.
#[actix_web::test]
async fn the_alerts_page_words_a_failed_test_in_the_owners_language() {
    let (app, client) = signed_in().await;
    let german = [("locale", "de-DE")];
    let res = submit(&client, &app, "/settings/language", &german).await;
    assert_eq!(res.status().as_u16(), 303);
    let closed = free_address();
    let body = json!({"name": "Werkstatt", "url": format!("http://{closed}/t"), "form": "JSON"});
    let webhook = app.create("/api/settings/alerts/webhooks", &body).await;
    let id = webhook["id"].as_str().unwrap();
    let path = format!("/settings/alerts/webhooks/{id}/test");
    let tested = submit(&client, &app, &path, &[]).await;
    let page = tested.text().await.unwrap();
    let said = page.split(r#"id="test-result""#).nth(1).unwrap();
    let said = said.split("</p>").next().unwrap();
    assert!(said.contains("keine Verbindung"), "{said}");
    assert!(!said.contains("no connection"), "{said}");
    assert!(
        !page.contains("--bridge-config"),
        "no command-line flag for the owner"
    );
}
