//! Webhook deliveries are bounded: 12 webhooks that accept a connection and never answer, told
//! 100 alerts, hold at most `webhook::MAX_IN_FLIGHT` connections at once (each delivery waits its
//! turn), so the appliance keeps its file descriptors for its own requests.

use actors::alerts::channels::Channels;
use actors::alerts::webhook::MAX_IN_FLIGHT;
use actors::alerts::{Change, Event};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use storage::Id;
use storage::records::{Webhook, WebhookForm};
use tokio::net::TcpListener;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hanging_webhooks_hold_a_bounded_number_of_connections() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let open = Arc::new(AtomicUsize::new(0));
    let accepted = open.clone();
    // Accepts every connection and holds it, answering nothing (a webhook that hangs).
    let held = tokio::spawn(async move {
        let mut connections = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            accepted.fetch_add(1, Ordering::SeqCst);
            connections.push(socket);
        }
    });
    let channels = Channels::new(None).unwrap();
    let webhooks: Vec<Webhook> = (0..12)
        .map(|k| Webhook {
            id: Id::new(),
            name: format!("hook {k}"),
            url: format!("http://127.0.0.1:{port}/hook/{k}"),
            form: WebhookForm::Json,
            kinds: Vec::new(),
            token: None,
        })
        .collect();
    for k in 0..100 {
        let event = Event {
            kind: "LOW_STOCK".into(),
            change: Change::Started,
            subject: format!("spool {k}"),
            title: format!("Low stock: spool {k}"),
            message: String::new(),
            priority: 3,
            since: "2026-11-27T08:00:00Z".into(),
            at: "2026-11-27T08:00:00Z".into(),
        };
        channels.tell(&event, &webhooks).await;
    }
    // Every attempt would be in flight by now without the bound (1,200 of them); with it, the
    // first ones hold their connections until their 5 s timeout.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let connections = open.load(Ordering::SeqCst);
    assert!(
        (1..=MAX_IN_FLIGHT).contains(&connections),
        "{connections} connections held at once"
    );
    held.abort();
}
