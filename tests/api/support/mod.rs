//! Test support: the real application on a random port with a temporary data directory, and
//! clients that speak to it the way a browser does (cookie jar, same-origin `Origin`).

pub mod bambuddy;
mod browser;
pub mod http_double;
mod shop;
pub mod spoolman;

pub use browser::{browser, created_id, location, logged_in, page, signed_in, submit};
pub use shop::{Shop, draft, part, shop, urlencode};

use printcost::{Application, Config};
use reqwest::header::{HeaderMap, HeaderValue, ORIGIN};
use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};
use std::path::Path;
use storage::Store;
use tempfile::TempDir;

/// Password used by [`TestApp::setup`].
pub const PASSWORD: &str = "correct horse battery staple";
/// Email used by [`TestApp::setup`].
pub const EMAIL: &str = "ada@example.com";

pub struct TestApp {
    pub base: String,
    pub origin: String,
    /// Logged-in client once [`TestApp::setup`] ran.
    pub client: Client,
    /// Keeps the data directory alive as long as the app.
    _dir: TempDir,
}

pub fn config(data_dir: &Path) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        data_dir: data_dir.to_path_buf(),
        workers: 1,
        shutdown_timeout_secs: 1,
        // Days and times as the tests compute them, whatever zone the machine is in.
        time_zone: jiff::tz::TimeZone::UTC,
        ..Config::default()
    }
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let app = Application::build(&config(dir.path())).unwrap();
        Self::run(app, dir)
    }

    /// The app started with `change` applied to its configuration.
    pub async fn spawn_with(change: impl FnOnce(&mut Config)) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        change(&mut config);
        let app = Application::build(&config).unwrap();
        Self::run(app, dir)
    }

    pub async fn spawn_with_store(store: Store) -> TestApp {
        Self::spawn_with_store_and(store, |_| {}).await
    }

    /// The app on `store`, started with `change` applied to its configuration.
    pub async fn spawn_with_store_and(store: Store, change: impl FnOnce(&mut Config)) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        change(&mut config);
        let app = Application::build_with_store(&config, store).unwrap();
        Self::run(app, dir)
    }

    fn run(app: Application, dir: TempDir) -> TestApp {
        let base = format!("http://{}", app.address());
        actix_web::rt::spawn(app.run_until_stopped());
        let origin = base.clone();
        TestApp {
            client: api_client(&origin),
            base,
            origin,
            _dir: dir,
        }
    }

    /// The helpers of a test app for a service running elsewhere at `base` (the real binary as
    /// a child process), with its own client (log in with [`TestApp::login`]).
    pub fn attach(base: &str) -> TestApp {
        TestApp {
            client: api_client(base),
            base: base.to_string(),
            origin: base.to_string(),
            _dir: tempfile::tempdir().unwrap(),
        }
    }

    /// A fresh browser: own cookie jar, same-origin `Origin` on every request.
    pub fn browser(&self) -> Client {
        api_client(&self.origin)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Runs setup with demo data off; the app's client is then logged in.
    pub async fn setup(&self) -> Value {
        let res = self
            .client
            .post(self.url("/api/auth/setup"))
            .json(&setup_body())
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::CREATED);
        res.json().await.unwrap()
    }

    /// Logs the app's client in as the account [`TestApp::setup`] made.
    pub async fn login(&self) {
        let res = self
            .post(
                "/api/auth/login",
                &json!({"email": EMAIL, "password": PASSWORD}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
    }

    pub async fn get(&self, path: &str) -> Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    /// The JSON body of `GET path`.
    pub async fn json(&self, path: &str) -> Value {
        self.get(path).await.json().await.unwrap()
    }

    pub async fn post(&self, path: &str, body: &Value) -> Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap()
    }

    pub async fn put(&self, path: &str, body: &Value) -> Response {
        self.client
            .put(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap()
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Response {
        self.client
            .patch(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap()
    }

    pub async fn delete(&self, path: &str) -> Response {
        self.client.delete(self.url(path)).send().await.unwrap()
    }

    /// POSTs and expects 201; returns the body.
    pub async fn create(&self, path: &str, body: &Value) -> Value {
        let res = self.post(path, body).await;
        let status = res.status();
        let body: Value = res.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body
    }

    /// A manufacturer named `name`; returns its id.
    /// A print made from `body` and completed (DONE).
    pub async fn done(&self, body: &Value) -> Value {
        let print = self.create("/api/prints", body).await;
        let id = print["id"].as_str().unwrap();
        let res = self
            .post(&format!("/api/prints/{id}/complete"), &json!({}))
            .await;
        assert_eq!(res.status(), 200);
        print
    }

    pub async fn manufacturer(&self, name: &str) -> String {
        self.create("/api/manufacturers", &json!({"name": name}))
            .await["id"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// The API client of a test: cookies kept, a same-origin `Origin`. Idle connections are dropped
/// after 2 s, before the server's keep-alive (5 s) closes them: a request sent on a connection
/// the server is closing fails with an incomplete message (a test that waits, say for the
/// e-invoice judge, would meet one).
fn api_client(origin: &str) -> Client {
    let mut headers = HeaderMap::new();
    headers.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
    Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .unwrap()
}

pub fn setup_body() -> Value {
    json!({
        "displayName": "Ada",
        "email": EMAIL,
        "password": PASSWORD,
        "locale": "en-US",
        "currency": "EUR",
        "electricityPrice": "0.32"
    })
}

/// POSTs an integration action, `{action, data}`, to `route`.
pub async fn act(app: &TestApp, route: &str, name: &str, data: Value) -> Response {
    app.post(route, &json!({"action": name, "data": data}))
        .await
}

/// The first spool (by code) of filament `filament`.
pub async fn first_spool(app: &TestApp, filament: &str) -> Value {
    let res = app.get(&format!("/api/spools?filamentId={filament}")).await;
    res.json::<Value>().await.unwrap()["items"][0].clone()
}

/// Asserts the contract error body: status, code, and `requestId` equal to `X-Request-Id`.
/// Returns the body.
pub async fn assert_error(res: Response, status: u16, code: &str) -> Value {
    assert_eq!(res.status().as_u16(), status, "status");
    let header = res
        .headers()
        .get("x-request-id")
        .map(|h| h.to_str().unwrap().to_string());
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["statusCode"], status, "{body}");
    assert_eq!(body["data"]["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(
        body["data"]["messageKey"]
            .as_str()
            .unwrap()
            .starts_with("errors."),
        "{body}"
    );
    assert_eq!(
        Some(body["data"]["requestId"].as_str().unwrap().to_string()),
        header,
        "{body}"
    );
    body
}

/// Asserts a 422 whose field errors include `path` with `key`.
pub async fn assert_field_error(res: Response, path: &str, key: &str) -> Value {
    let body = assert_error(res, 422, "VALIDATION_FAILED").await;
    let fields = body["data"]["fieldErrors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        fields
            .iter()
            .any(|f| f["path"] == path && f["messageKey"] == key),
        "expected {path}: {key} in {body}"
    );
    body
}
