//! The integrations' pages when a peer cannot be reached: Settings › Integrations, Stock ›
//! Spoolman and a printer's fleet page name the address, the cause and the next step, and the
//! tables below say the peer's data could not be read.

use crate::support::spoolman::{Double, Fault};
use crate::support::{location, page, signed_in, submit};
use serde_json::json;
use std::net::TcpListener;

/// The part of `html` from the element with id `id` to the end of its `</div>` or `</p>`.
fn state(html: &str, id: &str) -> String {
    let from = html
        .split(&format!(r#"id="{id}""#))
        .nth(1)
        .unwrap_or_else(|| panic!("no #{id} in {html}"));
    from.split("</div>").next().unwrap().to_string()
}

#[actix_web::test]
async fn an_unreachable_or_refusing_spoolman_is_named_with_its_cause_and_next_step() {
    let (app, client) = signed_in().await;
    let features = json!({"spoolManagementEnabled": true});
    assert_eq!(
        app.patch("/api/settings/features", &features)
            .await
            .status(),
        200
    );
    // A port nothing listens on: the connection is refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let form = [("spoolmgr.enabled", "on"), ("spoolmgr.url", url.as_str())];
    let saved = submit(&client, &app, "/settings/integrations", &form).await;
    assert_eq!(location(&saved), "/settings/integrations?saved");
    let (_, settings) = page(&client, &app, "/settings/integrations?saved").await;
    let said = state(&settings, "spoolmgr-state");
    assert!(said.contains(&url), "names the address: {said}");
    assert!(said.contains("no connection could be made"), "{said}");
    assert!(said.contains("Check that Spoolman is running"), "{said}");
    assert!(
        !settings.contains(r#"id="printfleet-state""#),
        "Bambuddy is off"
    );

    let (_, stock) = page(&client, &app, "/stock/spoolmgr").await;
    assert!(state(&stock, "spoolmgr-state").contains(&url), "{stock}");
    let remote = stock.split(r#"id="remote-spools""#).nth(1).unwrap();
    let remote = remote.split("</table>").next().unwrap();
    assert!(
        remote.contains("Could not be read from Spoolman"),
        "{remote}"
    );
    assert!(!remote.contains("Nothing"), "{remote}");

    // One that answers 401: the credential is at fault.
    let double = Double::start(1).await;
    double.fault(Fault::Refused);
    let form = [
        ("spoolmgr.enabled", "on"),
        ("spoolmgr.url", double.url.as_str()),
        ("spoolmgr.authorization", "Bearer wrong-secret-1"),
    ];
    submit(&client, &app, "/settings/integrations", &form).await;
    let (_, settings) = page(&client, &app, "/settings/integrations").await;
    let said = state(&settings, "spoolmgr-state");
    assert!(said.contains("refused the credential"), "{said}");
    assert!(said.contains("Enter a valid credential"), "{said}");

    // And one that answers: connected, with its version.
    double.fault(Fault::None);
    let (_, settings) = page(&client, &app, "/settings/integrations").await;
    let said = settings.split(r#"id="spoolmgr-state">"#).nth(1).unwrap();
    assert!(said.starts_with("Connected to Spoolman"), "{said}");
}
