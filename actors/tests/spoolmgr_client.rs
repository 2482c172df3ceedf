//! The spool manager's client against a double that plays the peer's faults, and against the
//! real Spoolman backend (`PRINTCOST_SPOOLMAN_RUN`, set by `scripts/test`) where it can start.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::integrations::peer::PeerError;
use actors::integrations::settings::{PeerUrl, Secret};
use actors::integrations::spoolmgr::{Spoolman, UseOutcome};
use rust_decimal::Decimal;
use std::str::FromStr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the double does with a request.
#[derive(Clone)]
enum Reply {
    /// Answers this raw HTTP response.
    Raw(String),
    /// Reads the request, waits, then closes without an answer.
    Silent(Duration),
}

fn http(status: &str, headers: &str, body: &str) -> Reply {
    Reply::Raw(format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{headers}connection: close\r\n\r\n{body}",
        body.len()
    ))
}

/// A one-answer-per-connection peer on 127.0.0.1 that replies `reply` to every request and
/// keeps the requests it read.
async fn double(reply: Reply) -> (PeerUrl, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = PeerUrl::parse(&format!("http://{}", listener.local_addr().unwrap())).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut buffer = vec![0u8; 64 * 1024];
            let n = socket.read(&mut buffer).await.unwrap_or(0);
            kept.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buffer[..n]).to_string());
            match &reply {
                Reply::Raw(text) => {
                    let _ = socket.write_all(text.as_bytes()).await;
                }
                Reply::Silent(wait) => tokio::time::sleep(*wait).await,
            }
        }
    });
    (url, seen)
}

const SPOOL: &str = r#"{"id": 7, "registered": "2026-11-20T10:00:00", "filament": {"id": 2, "name": "Galaxy Black", "vendor": {"id": 1, "name": "Prusament"}, "material": "PLA", "price": 24.99, "density": 1.24, "diameter": 1.75, "weight": 1000.0, "color_hex": "3D3E3D"}, "price": 22.5, "remaining_weight": 987.5, "initial_weight": 1000.0, "used_weight": 12.5, "location": "Shelf A", "lot_nr": "LOT-42", "archived": false, "extra": {}}"#;

#[tokio::test]
async fn spools_are_read_as_exact_validated_records_with_the_credential() {
    let (url, seen) = double(http("200 OK", "", SPOOL)).await;
    let secret = Secret::new("Bearer s3cr3t").unwrap();
    let spool = Spoolman::new(url, Some(&secret))
        .unwrap()
        .spool(7)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        spool.remaining_weight,
        Some(Decimal::from_str("987.5").unwrap())
    );
    assert_eq!(
        spool.filament.price,
        Some(Decimal::from_str("24.99").unwrap())
    );
    assert_eq!(spool.filament.vendor.unwrap().name, "Prusament");
    let request = seen.lock().unwrap()[0].to_lowercase();
    assert!(request.starts_with("get /api/v1/spool/7 "), "{request}");
    assert!(request.contains("authorization: bearer s3cr3t"));
    assert!(
        !request.contains("origin:"),
        "a server-side client sends no Origin"
    );
}

#[tokio::test]
async fn a_list_needs_its_total_and_another_spools_id_breaks_the_contract() {
    let list = format!("[{SPOOL}]");
    let (url, _) = double(http("200 OK", "x-total-count: 41\r\n", &list)).await;
    let page = Spoolman::new(url, None)
        .unwrap()
        .spools(1, 0)
        .await
        .unwrap();
    assert_eq!((page.spools.len(), page.total), (1, 41));
    let (url, _) = double(http("200 OK", "", &list)).await;
    let missing_total = Spoolman::new(url, None).unwrap().spools(1, 0).await;
    assert_eq!(missing_total, Err(PeerError::Contract));
    let (url, _) = double(http("200 OK", "", SPOOL)).await;
    let other = Spoolman::new(url, None).unwrap().spool(8).await;
    assert_eq!(other, Err(PeerError::Contract), "asked 8, answered 7");
}

#[tokio::test]
async fn every_fault_is_classified() {
    let missing = http(
        "404 Not Found",
        "",
        r#"{"message":"No spool with ID 9 found."}"#,
    );
    let cases = [
        (http("401 Unauthorized", "", "{}"), Err(PeerError::Refused)),
        (http("403 Forbidden", "", "{}"), Err(PeerError::Refused)),
        (
            http("302 Found", "location: http://elsewhere/\r\n", ""),
            Err(PeerError::Unavailable),
        ),
        (
            http("503 Service Unavailable", "", ""),
            Err(PeerError::Unavailable),
        ),
        (http("200 OK", "", "{not json"), Err(PeerError::Contract)),
        (
            http("200 OK", "", r#"{"id": "seven", "used_weight": "x"}"#),
            Err(PeerError::Contract),
        ),
        (missing, Ok(None)),
    ];
    for (reply, expected) in cases {
        let (url, _) = double(reply).await;
        let got = Spoolman::new(url, None).unwrap().spool(9).await;
        assert_eq!(got.map(|s| s.map(|s| s.id)), expected);
    }
}

#[tokio::test]
async fn no_answer_in_time_and_an_oversized_body_are_unavailable() {
    let (url, _) = double(Reply::Silent(Duration::from_secs(5))).await;
    let started = std::time::Instant::now();
    let got = Spoolman::new(url, None).unwrap().version().await;
    assert_eq!(got, Err(PeerError::Unavailable));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the 3 s timeout"
    );
    let huge = format!(r#"{{"version": "{}"}}"#, "9".repeat(3 * 1024 * 1024));
    let (url, _) = double(http("200 OK", "", &huge)).await;
    let got = Spoolman::new(url, None).unwrap().version().await;
    assert_eq!(got, Err(PeerError::Unavailable));
}

#[tokio::test]
async fn a_use_that_loses_its_answer_is_unavailable_and_a_refusal_is_told_apart() {
    let (url, seen) = double(Reply::Silent(Duration::from_millis(50))).await;
    let got = Spoolman::new(url, None)
        .unwrap()
        .use_weight(7, Decimal::from_str("12.50").unwrap())
        .await;
    assert_eq!(got, Err(PeerError::Unavailable), "applied or not: unknown");
    let request = seen.lock().unwrap()[0].clone();
    assert!(request.starts_with("PUT /api/v1/spool/7/use "), "{request}");
    assert!(request.ends_with(r#"{"use_weight":12.5}"#), "{request}");
    let (url, _) = double(http("400 Bad Request", "", r#"{"message":"x"}"#)).await;
    let got = Spoolman::new(url, None)
        .unwrap()
        .use_weight(7, Decimal::ONE)
        .await;
    assert_eq!(got, Ok(UseOutcome::Refused(400)));
}

#[path = "../../tests/peers/real_spoolman.rs"]
mod real_spoolman;
use real_spoolman::RealSpoolman;

#[tokio::test(flavor = "multi_thread")]
async fn the_real_spoolman_answers_as_the_client_expects() {
    let Some(peer) = tokio::task::spawn_blocking(RealSpoolman::start)
        .await
        .unwrap()
    else {
        return;
    };
    let http = reqwest::Client::new();
    let post = |path: &str, body: serde_json::Value| {
        let request = http.post(format!("{}{path}", peer.url)).json(&body);
        async move {
            let res = request.send().await.unwrap();
            assert!(res.status().is_success(), "{}", res.status());
            res.json::<serde_json::Value>().await.unwrap()
        }
    };
    post(
        "/api/v1/vendor",
        serde_json::json!({"name": "Prusament", "empty_spool_weight": 201}),
    )
    .await;
    post("/api/v1/filament", serde_json::json!({"name": "Galaxy Black", "vendor_id": 1, "material": "PLA", "price": 24.99, "density": 1.24, "diameter": 1.75, "weight": 1000, "spool_weight": 201, "color_hex": "3D3E3D"})).await;
    let made = post("/api/v1/spool", serde_json::json!({"filament_id": 1, "initial_weight": 1000, "price": 22.5, "location": "Shelf A", "lot_nr": "LOT-42"})).await;
    let id = made["id"].as_u64().unwrap();

    let client = Spoolman::new(PeerUrl::parse(&peer.url).unwrap(), None).unwrap();
    assert_eq!(client.version().await.unwrap(), "0.26.1");
    let page = client.spools(50, 0).await.unwrap();
    assert_eq!(page.total, 1);
    let spool = &page.spools[0];
    assert_eq!(spool.price, Some(Decimal::from_str("22.5").unwrap()));
    assert_eq!(spool.remaining_weight, Some(Decimal::from(1000)));
    assert_eq!(spool.filament.vendor.as_ref().unwrap().name, "Prusament");
    let used = client
        .use_weight(id, Decimal::from_str("12.25").unwrap())
        .await
        .unwrap();
    let UseOutcome::Applied(after) = used else {
        panic!("refused: {used:?}")
    };
    assert_eq!(after.used_weight, Decimal::from_str("12.25").unwrap());
    assert_eq!(
        after.remaining_weight,
        Some(Decimal::from_str("987.75").unwrap())
    );
    assert_eq!(client.spool(id + 100).await.unwrap(), None, "unknown: 404");
}
