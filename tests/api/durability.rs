//! The real binary as a child process: acknowledged writes survive SIGKILL, invoices issued at
//! once while the service is killed keep their numbers gapless, SIGTERM shuts down cleanly, and
//! `printcost reset-password` works on the box.

use crate::invoices::{company, customer, done};
use crate::support::{EMAIL, PASSWORD, TestApp, setup_body, shop};
use reqwest::Client;
use reqwest::header::{HeaderMap, HeaderValue, ORIGIN};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

pub struct Service {
    child: Child,
    pub base: String,
    pub client: Client,
    /// Every line it wrote to standard output (its log) so far.
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Service {
    /// A failing test must not leave the service running.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Service {
    /// Starts `printcost` on a free port with its data in `dir`, and waits until it listens.
    pub fn start(dir: &Path) -> Service {
        Self::start_with(dir, &[])
    }

    /// As [`Service::start`], with environment variables `env` set.
    pub fn start_with(dir: &Path, env: &[(&str, &str)]) -> Service {
        let mut child = Command::new(env!("CARGO_BIN_EXE_printcost"))
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir)
            .env("NO_COLOR", "1")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (found, address) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line.clone());
                if let Some(rest) = line.split("address=").nth(1) {
                    let _ = found.send(
                        rest.split_whitespace()
                            .next()
                            .unwrap_or_default()
                            .to_string(),
                    );
                }
            }
        });
        let address = address
            .recv_timeout(Duration::from_secs(20))
            .expect("service did not start");
        let base = format!("http://{address}");
        let mut headers = HeaderMap::new();
        headers.insert(ORIGIN, HeaderValue::from_str(&base).unwrap());
        let client = Client::builder()
            .cookie_store(true)
            .default_headers(headers)
            .build()
            .unwrap();
        Service {
            child,
            base,
            client,
            log,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Runs the first setup (its client is then signed in as the owner).
    pub async fn set_up(&self) {
        let res = self
            .client
            .post(self.url("/api/auth/setup"))
            .json(&setup_body())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }

    pub async fn login(&self, password: &str) -> reqwest::StatusCode {
        let body = json!({"email": EMAIL, "password": password});
        self.client
            .post(self.url("/api/auth/login"))
            .json(&body)
            .send()
            .await
            .unwrap()
            .status()
    }

    /// The process id (for `/proc`).
    /// The JSON body of a GET of `path`, with the service's session.
    pub async fn json(&self, path: &str) -> Value {
        let res = self.client.get(self.url(path)).send().await.unwrap();
        res.json().await.unwrap()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn kill_9(mut self) {
        self.child.kill().unwrap();
        assert!(!self.child.wait().unwrap().success());
    }

    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        for _ in 0..100 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        self.child.kill().unwrap();
        panic!("SIGTERM did not stop the service within 10 s");
    }
}

#[actix_web::test]
async fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path());
    service.set_up().await;

    let creates = (0..40).map(|i| {
        let request = service
            .client
            .post(service.url("/api/customers"))
            .json(&json!({"name": format!("Customer {i}")}));
        async move {
            let res = request.send().await.unwrap();
            assert_eq!(res.status(), 201);
            res.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        }
    });
    let ids = futures_util::future::join_all(creates).await;
    // Work records (issue 46): a labour rate, a charge and a step at that rate.
    let mut work = Vec::new();
    let rate = json!({"name": "Sanding", "hourlyRate": "45"});
    let fee = json!({"name": "Setup", "amount": "3.50", "per": "JOB"});
    for (path, body) in [("/api/labour-rates", rate), ("/api/charges", fee)] {
        let res = service
            .client
            .post(service.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
        let created: Value = res.json().await.unwrap();
        work.push(format!("{path}/{}", created["id"].as_str().unwrap()));
    }
    let rate_id = work[0].rsplit('/').next().unwrap().to_string();
    let step = json!({"name": "Supports", "labourRateId": rate_id, "minutes": "5", "per": "PIECE"});
    let res = service
        .client
        .post(service.url("/api/post-processing-steps"))
        .json(&step)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let created: Value = res.json().await.unwrap();
    work.push(format!(
        "/api/post-processing-steps/{}",
        created["id"].as_str().unwrap()
    ));
    let settings = json!({"currency": "USD", "defaultLanguage": "de-DE", "electricityPrice": "0.41", "spoolManagementEnabled": true});
    assert_eq!(
        service
            .client
            .patch(service.url("/api/settings"))
            .json(&settings)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    service.kill_9();

    let service = Service::start(dir.path());
    assert_eq!(service.login(PASSWORD).await, 200);
    for id in &ids {
        let res = service
            .client
            .get(service.url(&format!("/api/customers/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "acknowledged customer {id} lost");
    }
    for path in &work {
        let res = service.client.get(service.url(path)).send().await.unwrap();
        assert_eq!(res.status(), 200, "acknowledged {path} lost");
    }
    let list: Value = service
        .client
        .get(service.url("/api/customers?pageSize=100"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["total"], 40);
    let stored: Value = service
        .client
        .get(service.url("/api/settings"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(stored, settings);
    service.kill_9();
}

/// Movements in every unit, booked at once and acknowledged, survive SIGKILL: a resin's bottle in
/// millilitres and a consumable's pack in pieces hold every receipt and correction after the
/// restart, their balances and their ledgers whole.
#[actix_web::test]
async fn movements_in_every_unit_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path());
    service.set_up().await;
    let client = &service.client;
    let post = |path: &str, body: Value| {
        let request = client.post(service.url(path)).json(&body);
        async move {
            let res = request.send().await.unwrap();
            assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());
            res.json::<Value>().await.unwrap()
        }
    };
    let on = json!({"currency": "EUR", "defaultLanguage": "de-DE", "electricityPrice": "0.32", "spoolManagementEnabled": true});
    let res = client.patch(service.url("/api/settings")).json(&on).send();
    assert_eq!(res.await.unwrap().status(), 200);
    let maker = post("/api/manufacturers", json!({"name": "Anycubic"})).await;
    let materials = [
        json!({"kind": "RESIN", "manufacturerId": maker["id"], "material": "Standard", "colorName": "Grey", "colorHex": "#808080", "purchasePrice": "34.99", "netQuantity": "1000"}),
        json!({"kind": "CONSUMABLE", "unit": "PIECE", "manufacturerId": maker["id"], "material": "Gloves", "purchasePrice": "12", "netQuantity": "100"}),
    ];
    let mut spools = Vec::new();
    for material in materials {
        let made = post("/api/materials", material).await;
        let path = format!("/api/spools?filamentId={}", made["id"].as_str().unwrap());
        let listed = service.json(&path).await;
        spools.push(listed["items"][0]["id"].as_str().unwrap().to_string());
    }
    // 20 receipts and 5 corrections on each, all at once: 1000 + 20 × 1.5 − 5 × 0.5 ml and
    // 100 + 20 × 2 − 5 × 1 pieces.
    let (bottle, pack) = (&spools[0], &spools[1]);
    let mut moves = Vec::new();
    for (spool, field, receipt, correction) in [
        (bottle, "millilitres", "1.5", "-0.5"),
        (pack, "pieces", "2", "-1"),
    ] {
        let path = format!("/api/spools/{spool}/movements");
        for i in 0..25 {
            let (kind, quantity) = if i < 20 {
                ("RECEIPT", receipt)
            } else {
                ("CORRECTION", correction)
            };
            moves.push(post(&path, json!({"kind": kind, field: quantity})));
        }
    }
    futures_util::future::join_all(moves).await;
    service.kill_9();

    let service = Service::start(dir.path());
    assert_eq!(service.login(PASSWORD).await, 200);
    for (spool, left) in [(bottle, "1027.5"), (pack, "135")] {
        let path = format!("/api/spools/{spool}?pageSize=100");
        let detail = service.json(&path).await;
        assert_eq!(detail["spool"]["remainingQuantity"], left, "{detail}");
        // The opening receipt and the 25 acknowledged movements.
        assert_eq!(detail["movements"]["total"], 26, "{detail}");
    }
    service.kill_9();
}

/// The issued numbers of the service at `app` (sorted), and each one's invoice id.
async fn issued(app: &TestApp) -> Vec<(String, String)> {
    let list = app.json("/api/invoices?pageSize=100").await;
    let mut issued: Vec<(String, String)> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["status"] == "ISSUED")
        .map(|i| {
            let number = i["number"].as_str().unwrap().to_string();
            (number, i["id"].as_str().unwrap().to_string())
        })
        .collect();
    issued.sort();
    issued
}

/// Whether `numbers` (sorted) are `YYYY-0001` … `YYYY-000n`.
fn gapless(numbers: &[&str]) -> bool {
    numbers
        .iter()
        .enumerate()
        .all(|(i, n)| n.ends_with(&format!("-{:04}", i + 1)))
}

#[actix_web::test]
async fn invoices_issued_at_once_while_the_service_is_killed_keep_their_numbers_gapless() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path());
    let app = TestApp::attach(&service.base);
    app.setup().await;
    let res = app.patch("/api/settings/company", &company(false)).await;
    assert_eq!(res.status(), 200);
    let buyer = app
        .create("/api/customers", &customer("Verein", "DE", None))
        .await;
    let buyer = buyer["id"].as_str().unwrap().to_string();
    let shop = shop(&app).await;
    let mut drafts = Vec::new();
    for _ in 0..24 {
        let print = done(&app, &shop, &buyer, "12.50").await;
        let invoice = app
            .create(
                "/api/invoices",
                &json!({"customerId": buyer, "printIds": [print]}),
            )
            .await;
        drafts.push(invoice["id"].as_str().unwrap().to_string());
    }
    // 16 issues at once; the service is killed a moment after they start (a different moment
    // each run: the clock's nanoseconds).
    let delay = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
        % 25;
    let issues = drafts[..16].iter().map(|id| {
        let request = app
            .client
            .post(app.url(&format!("/api/invoices/{id}/issue")));
        async move {
            match request.json(&json!({})).send().await {
                Ok(res) if res.status() == 200 => {
                    let issued: Value = res.json().await.ok()?;
                    Some((
                        issued["number"].as_str()?.to_string(),
                        issued["id"].as_str()?.to_string(),
                    ))
                }
                _ => None,
            }
        }
    });
    let killer = async move {
        tokio::time::sleep(Duration::from_millis(u64::from(delay))).await;
        service.kill_9();
    };
    let (acknowledged, ()) =
        futures_util::future::join(futures_util::future::join_all(issues), killer).await;
    let acknowledged: Vec<(String, String)> = acknowledged.into_iter().flatten().collect();
    eprintln!(
        "{} of 16 issues acknowledged, the service killed after {delay} ms",
        acknowledged.len()
    );

    let service = Service::start(dir.path());
    let app = TestApp::attach(&service.base);
    app.login().await;
    let after = issued(&app).await;
    let numbers: Vec<&str> = after.iter().map(|(n, _)| n.as_str()).collect();
    assert!(gapless(&numbers), "{numbers:?} (killed after {delay} ms)");
    for pair in &acknowledged {
        assert!(
            after.contains(pair),
            "acknowledged {pair:?} lost: {after:?}"
        );
    }
    // The rest are issued after the restart: the numbers go on, still gapless.
    for id in &drafts {
        let res = app
            .post(&format!("/api/invoices/{id}/issue"), &json!({}))
            .await;
        assert!(
            [200, 409].contains(&res.status().as_u16()),
            "{}",
            res.status()
        );
    }
    let after = issued(&app).await;
    let numbers: Vec<&str> = after.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(numbers.len(), 24);
    assert!(gapless(&numbers), "{numbers:?}");
    service.kill_9();
}

#[actix_web::test]
async fn sigterm_closes_the_database_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path());
    service.set_up().await;
    let status = service.terminate();
    assert!(status.success(), "exit status {status}");

    let service = Service::start(dir.path());
    assert_eq!(
        service.login(PASSWORD).await,
        200,
        "data and lock released after SIGTERM"
    );
    service.terminate();
}

#[actix_web::test]
async fn reset_password_on_the_box() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path());
    service.set_up().await;

    let reset = |email: &str, password: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_printcost"))
            .args(["--data-dir"])
            .arg(dir.path())
            .args(["reset-password", "--email", email])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The command may refuse (and exit) before it reads: a closed pipe is no failure here.
        let _ = writeln!(child.stdin.take().unwrap(), "{password}");
        child.wait_with_output().unwrap()
    };
    let locked = reset(EMAIL, "a fresh passphrase");
    assert!(
        !locked.status.success(),
        "the running service holds the database"
    );
    assert!(String::from_utf8_lossy(&locked.stderr).contains("stop the service first"));
    service.terminate();

    let short = reset(EMAIL, "short");
    assert!(!short.status.success());
    assert!(String::from_utf8_lossy(&short.stderr).contains("12 characters"));
    let unknown = reset("nobody@example.com", "a fresh passphrase");
    assert!(!unknown.status.success());
    let done = reset(EMAIL, "a fresh passphrase");
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );

    let service = Service::start(dir.path());
    assert_eq!(service.login(PASSWORD).await, 401);
    assert_eq!(service.login("a fresh passphrase").await, 200);
    service.terminate();
}
