//! Roles (issue 48): owners manage, staff run the shop, viewers read. The walk over every
//! operation of the OpenAPI document checks each one's answer against the role it declares.

use crate::durability::Service;
use crate::support::{
    PASSWORD, TestApp, assert_error, location, page, setup_body, signed_in, submit,
};
use reqwest::{Client, Method};
use serde_json::{Value, json};

/// The roles from the lowest up, as the document names them.
const ROLES: [&str; 3] = ["VIEWER", "STAFF", "OWNER"];

/// An account of `role` made by the owner, and a client logged in as it.
pub(crate) async fn member(app: &TestApp, role: &str) -> (Value, Client) {
    let email = format!("{}@example.com", role.to_lowercase());
    let account = app
        .create(
            "/api/accounts",
            &json!({"displayName": role, "email": email, "password": PASSWORD,
                    "locale": "de-DE", "role": role}),
        )
        .await;
    let client = app.browser();
    let login = client
        .post(app.url("/api/auth/login"))
        .json(&json!({"email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200, "{role} logs in");
    (account, client)
}

/// `path` with each `{parameter}` filled: an id names no record, a name no file.
fn concrete(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        out.push_str(if rest[open..close].contains("name") {
            "printcost-20260101-000000.redb"
        } else {
            "0190f5a0-0000-7000-8000-000000000000"
        });
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Every operation of the document answers each role as its declared role says: an account
/// below it 403 `FORBIDDEN` before anything is read or written, an account at or above it
/// anything but that. An operation with a session but no role fails the walk.
#[actix_web::test]
async fn every_operation_answers_each_role_as_the_document_declares() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let mut clients = Vec::new();
    for role in ["VIEWER", "STAFF"] {
        clients.push((role, member(&app, role).await.1));
    }
    clients.push(("OWNER", app.client.clone()));
    let document = app.json("/api/openapi.json").await;
    let mut walked = 0;
    let mut logout = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let security = operation.get("security");
            assert!(
                security.is_none_or(Value::is_array),
                "{method} {path}: security is a list when given"
            );
            let Some(security) = security.and_then(Value::as_array) else {
                continue;
            };
            let Some(session) = security.iter().find_map(|s| s.get("session")) else {
                continue;
            };
            let declared = session.as_array().unwrap();
            assert_eq!(
                declared.len(),
                1,
                "{method} {path} names one role: {session}"
            );
            let needed = ROLES
                .iter()
                .position(|r| declared[0] == *r)
                .unwrap_or_else(|| panic!("{method} {path}: unknown role {session}"));
            let method: Method = method.to_uppercase().parse().unwrap();
            if path == "/api/auth/logout" {
                logout.push(needed);
                continue;
            }
            for (rank, (role, client)) in clients.iter().enumerate() {
                let mut request = client.request(method.clone(), app.url(&concrete(path)));
                if method != Method::GET {
                    request = request.json(&json!({}));
                }
                let res = request.send().await.unwrap();
                let status = res.status().as_u16();
                let text = res.text().await.unwrap();
                let body: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
                if rank < needed {
                    assert_eq!(status, 403, "{role} on {method} {path}: {body}");
                    assert_eq!(
                        body["data"]["code"], "FORBIDDEN",
                        "{role} on {method} {path}"
                    );
                } else {
                    assert!(
                        body["data"]["code"] != "FORBIDDEN" && status != 401,
                        "{role} on {method} {path}: {status} {body}"
                    );
                }
                walked += 1;
            }
        }
    }
    assert_eq!(logout, [0], "every account logs itself out");
    assert!(walked > 300, "walked {walked} answers");
}

/// Owners add accounts with a role, change it and disable them; a disabled account cannot log
/// in and its sessions end; the last owner can be neither demoted nor disabled; nothing below
/// an owner manages accounts.
#[actix_web::test]
async fn owners_manage_accounts_and_the_last_owner_stays() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let (staff, staff_client) = member(&app, "STAFF").await;
    let accounts = app.json("/api/accounts").await;
    let roles: Vec<&str> = accounts
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["OWNER", "STAFF"], "the first account is the owner");
    let session = staff_client.get(app.url("/api/auth/session")).send();
    let session: Value = session.await.unwrap().json().await.unwrap();
    assert_eq!(session["user"]["role"], "STAFF");

    let denied = staff_client
        .post(app.url("/api/accounts"))
        .json(
            &json!({"displayName": "X", "email": "x@example.com", "password": PASSWORD,
                      "locale": "en-US", "role": "OWNER"}),
        )
        .send()
        .await
        .unwrap();
    assert_error(denied, 403, "FORBIDDEN").await;

    let owner_id = accounts[0]["id"].as_str().unwrap();
    let path = format!("/api/accounts/{owner_id}");
    let demoted = app.patch(&path, &json!({"role": "STAFF"})).await;
    assert_error(demoted, 409, "LAST_OWNER").await;
    let disabled = app.patch(&path, &json!({"disabled": true})).await;
    assert_error(disabled, 409, "LAST_OWNER").await;

    let staff_path = format!("/api/accounts/{}", staff["id"].as_str().unwrap());
    let promoted = app.patch(&staff_path, &json!({"role": "OWNER"})).await;
    assert_eq!(promoted.status(), 200);
    let now_owner = staff_client.get(app.url("/api/accounts")).send();
    assert_eq!(
        now_owner.await.unwrap().status(),
        200,
        "the new role holds at once"
    );

    let off = app.patch(&staff_path, &json!({"disabled": true})).await;
    let off: Value = off.json().await.unwrap();
    assert_eq!(off["disabled"], true);
    let gone = staff_client.get(app.url("/api/auth/session")).send();
    let gone: Value = gone.await.unwrap().json().await.unwrap();
    assert_eq!(gone["user"], Value::Null, "its session ended");
    let again = app
        .browser()
        .post(app.url("/api/auth/login"))
        .json(&json!({"email": "staff@example.com", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_error(again, 401, "INVALID_CREDENTIALS").await;
    let duplicate = app
        .post(
            "/api/accounts",
            &json!({"displayName": "Y", "email": "STAFF@example.com", "password": PASSWORD,
                    "locale": "en-US", "role": "VIEWER"}),
        )
        .await;
    assert_error(duplicate, 409, "DUPLICATE").await;
}

/// The UI holds the same roles: a viewer reads the shop's pages but gets the error page, in
/// its language, for an owner's page and for a form that changes something; staff run the shop
/// but cannot change the owner's settings.
#[actix_web::test]
async fn the_pages_and_forms_hold_the_roles() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let (_, viewer) = member(&app, "VIEWER").await;
    let (_, staff) = member(&app, "STAFF").await;
    let page = |client: &Client, path: &str| client.get(app.url(path)).send();
    assert_eq!(page(&viewer, "/prints").await.unwrap().status(), 200);
    let settings = page(&viewer, "/settings")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        settings.contains(r#"action="/settings/language""#),
        "its own language"
    );
    for owners in [r#"href="/settings/backup""#, r#"action="/settings""#] {
        assert!(!settings.contains(owners), "no {owners} for a viewer");
    }
    let owners = page(&viewer, "/settings/backup").await.unwrap();
    let status = owners.status();
    let text = owners.text().await.unwrap();
    assert_eq!(status, 403, "{text}");
    assert!(
        text.contains("Die Rolle Ihres Kontos erlaubt das nicht"),
        "{text}"
    );
    let form = [("name", "Widerrechtlich")];
    let refused = submit(&viewer, &app, "/customers", &form).await;
    let status = refused.status();
    let text = refused.text().await.unwrap();
    assert_eq!(status, 403, "{text}");
    let customers = app.json("/api/customers").await;
    assert_eq!(customers["total"], 0, "nothing written: {customers}");
    let made = submit(&staff, &app, "/customers", &form).await;
    assert_ne!(made.status(), 403, "staff run the shop");
    let customers = app.json("/api/customers").await;
    assert_eq!(customers["total"], 1, "{customers}");
    let settings = submit(&staff, &app, "/settings/pricing", &[("percent", "50")]).await;
    assert_eq!(settings.status(), 403);
}

/// Settings › Accounts: the owner adds a staff account through the form, sees it listed with
/// its role, cannot demote the last owner (the page says why, nothing changes), disables the
/// staff account; staff cannot open the page.
#[actix_web::test]
async fn the_owner_manages_accounts_on_their_page() {
    let (app, owner) = signed_in().await;
    let (_, listed) = page(&owner, &app, "/settings").await;
    assert!(
        listed.contains(r#"href="/settings/accounts""#),
        "linked for owners"
    );
    let form = [
        ("displayName", "Grace"),
        ("email", "grace@example.com"),
        ("password", PASSWORD),
        ("locale", "de-DE"),
        ("role", "STAFF"),
    ];
    let short = submit(&owner, &app, "/settings/accounts", &[("password", "short")]).await;
    assert_eq!(short.status().as_u16(), 422, "the API's field errors");
    let added = submit(&owner, &app, "/settings/accounts", &form).await;
    assert_eq!(added.status().as_u16(), 303);
    assert_eq!(location(&added), "/settings/accounts?added");
    let (status, shown) = page(&owner, &app, location(&added)).await;
    assert_eq!(status, 200);
    assert!(shown.contains("Account added.") && shown.contains("grace@example.com"));
    let accounts = app.json("/api/accounts").await;
    let (ada, grace) = (&accounts[0], &accounts[1]);
    assert_eq!(grace["role"], "STAFF");

    let own = format!("/settings/accounts/{}", ada["id"].as_str().unwrap());
    let refused = submit(&owner, &app, &own, &[("role", "VIEWER")]).await;
    assert_eq!(refused.status().as_u16(), 409);
    let text = refused.text().await.unwrap();
    assert!(text.contains("The shop needs an owner"), "{text}");
    assert_eq!(app.json("/api/accounts").await[0]["role"], "OWNER");

    let theirs = format!("/settings/accounts/{}", grace["id"].as_str().unwrap());
    let off = submit(
        &owner,
        &app,
        &theirs,
        &[("role", "STAFF"), ("disabled", "on")],
    )
    .await;
    assert_eq!(location(&off), "/settings/accounts?saved");
    assert_eq!(app.json("/api/accounts").await[1]["disabled"], true);

    let (_, staff) = member(&app, "STAFF").await;
    let denied = staff
        .get(app.url("/settings/accounts"))
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 403);
}

/// Each request's log line names the account of its session (the real binary's log).
#[actix_web::test]
async fn the_log_names_the_account_of_each_request() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path());
    let setup = service.client.post(service.url("/api/auth/setup"));
    let created: Value = setup
        .json(&setup_body())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["user"]["id"].as_str().unwrap().to_string();
    let missing = service.url("/api/prints/0190f5a0-0000-7000-8000-000000000000");
    assert_eq!(
        service.client.get(missing).send().await.unwrap().status(),
        404
    );
    let named = format!("account={id}");
    for _ in 0..50 {
        if service
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains(&named) && l.contains("404"))
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "no line names {named}:\n{}",
        service.log.lock().unwrap().join("\n")
    );
}

/// Settings › Accounts lists each account's live sessions, and an owner ends one (the API and
/// the page): that browser must sign in again, and the journal names who ended it.
#[actix_web::test]
async fn an_owner_sees_and_ends_an_accounts_sessions() {
    let (app, owner_browser) = signed_in().await;
    let (staff, staff_client) = member(&app, "STAFF").await;
    let staff_id = staff["id"].as_str().unwrap();
    let listed: Value = app
        .json(&format!("/api/accounts/{staff_id}/sessions"))
        .await;
    let sessions = listed.as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{listed}");
    assert_eq!(sessions[0]["current"], false);
    let handle = sessions[0]["id"].as_str().unwrap().to_string();
    assert_eq!(handle.len(), 16);
    let session: Value = app.get("/api/auth/session").await.json().await.unwrap();
    let own = app
        .json(&format!(
            "/api/accounts/{}/sessions",
            session["user"]["id"].as_str().unwrap()
        ))
        .await;
    assert!(
        own.as_array().unwrap().iter().any(|s| s["current"] == true),
        "{own}"
    );

    let (_, html) = page(&owner_browser, &app, "/settings/accounts").await;
    assert!(html.contains(&format!(
        "/settings/accounts/{staff_id}/sessions/{handle}/end"
    )));

    let unknown = app
        .delete(&format!(
            "/api/accounts/{staff_id}/sessions/0000000000000000"
        ))
        .await;
    assert_error(unknown, 404, "NOT_FOUND").await;
    let ended = app
        .delete(&format!("/api/accounts/{staff_id}/sessions/{handle}"))
        .await;
    assert_eq!(ended.status(), 204);
    let after = staff_client
        .get(app.url("/api/customers"))
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 401, "the ended session no longer signs in");
    let entry = &app.json("/api/journal?kind=sessions&pageSize=1").await["items"][0];
    assert_eq!(entry["command"], "EndSession");
    assert_eq!(entry["who"]["account"], session["user"]["id"]);
    assert_eq!(entry["records"][0]["change"], "DELETED");
    assert_eq!(entry["records"][0]["id"], handle.as_str());

    // The page's own form ends a session too.
    let login = staff_client
        .post(app.url("/api/auth/login"))
        .json(&json!({"email": "staff@example.com", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200);
    let listed: Value = app
        .json(&format!("/api/accounts/{staff_id}/sessions"))
        .await;
    let handle = listed[0]["id"].as_str().unwrap();
    let res = submit(
        &owner_browser,
        &app,
        &format!("/settings/accounts/{staff_id}/sessions/{handle}/end"),
        &[],
    )
    .await;
    assert_eq!(res.status(), 303);
    assert_eq!(location(&res), "/settings/accounts?ended");
    let listed: Value = app
        .json(&format!("/api/accounts/{staff_id}/sessions"))
        .await;
    assert_eq!(listed, json!([]));
}
