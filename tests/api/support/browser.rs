//! A browser for the UI's pages: cookies kept, redirects not followed, forms submitted.

use super::{EMAIL, PASSWORD, TestApp};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION, ORIGIN};
use reqwest::{Client, Response, redirect};

/// A browser that does not follow redirects (so the tests see them), with a cookie jar and a
/// same-origin `Origin` header; idle connections dropped before the server's keep-alive closes
/// them (as the API client's).
pub fn browser(app: &TestApp) -> Client {
    let mut headers = HeaderMap::new();
    headers.insert(ORIGIN, HeaderValue::from_str(&app.origin).unwrap());
    Client::builder()
        .cookie_store(true)
        .redirect(redirect::Policy::none())
        .default_headers(headers)
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .unwrap()
}

pub async fn submit(client: &Client, app: &TestApp, path: &str, form: &[(&str, &str)]) -> Response {
    client
        .post(app.url(path))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(serde_urlencoded::to_string(form).unwrap())
        .send()
        .await
        .unwrap()
}

pub async fn page(client: &Client, app: &TestApp, path: &str) -> (u16, String) {
    let res = client.get(app.url(path)).send().await.unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

pub fn location(res: &Response) -> &str {
    res.headers()[LOCATION].to_str().unwrap()
}

/// The id a form's redirect names: the last segment of its path (`/printers/<id>?saved`).
pub fn created_id(location: &str) -> String {
    let path = location.split('?').next().unwrap();
    path.rsplit('/').next().unwrap().to_string()
}

/// A set-up box and a signed-in browser that does not follow redirects.
pub async fn signed_in() -> (TestApp, Client) {
    let app = TestApp::spawn().await;
    app.setup().await;
    let client = logged_in(&app).await;
    (app, client)
}

/// A browser signed in to the set-up `app` through the login form.
pub async fn logged_in(app: &TestApp) -> Client {
    let client = browser(app);
    let res = submit(
        &client,
        app,
        "/login",
        &[("email", EMAIL), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(res.status().as_u16(), 303);
    client
}
