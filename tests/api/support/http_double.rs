//! The HTTP plumbing of the peers' doubles: a server on 127.0.0.1 that reads each request
//! (one per connection, `connection: close`) and answers what the double's handler says,
//! remembering every request line and every body it sent.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the double's handler sees it.
pub struct Request {
    pub method: String,
    /// The path without the query.
    pub path: String,
    pub query: BTreeMap<String, String>,
    /// Header names lower-case.
    pub headers: BTreeMap<String, String>,
    pub body: String,
}

impl Request {
    /// The path's segments (`["api", "v1", "spool", "7"]`).
    pub fn segments(&self) -> Vec<&str> {
        self.path.trim_matches('/').split('/').collect()
    }
}

/// What the double does with a request.
pub enum Reply {
    /// Answers: status line (`200 OK`), extra header lines, body.
    Answer(&'static str, String, String),
    /// Answers nothing for this long, then closes.
    Silent(Duration),
    /// Closes at once without an answer (after doing what the handler did).
    Drop,
}

/// A JSON answer without extra headers.
pub fn json(status: &'static str, body: impl Into<String>) -> Reply {
    Reply::Answer(status, String::new(), body.into())
}

/// What the server saw and sent.
#[derive(Default)]
pub struct Seen {
    pub requests: Vec<String>,
    pub bodies: Vec<String>,
}

/// Starts a double answering with `handler`; returns its base URL and what it saw.
pub async fn serve(
    handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
) -> (String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (handler, kept) = (Arc::new(handler), seen.clone());
    actix_web::rt::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let (handler, seen) = (handler.clone(), kept.clone());
            actix_web::rt::spawn(async move { one(socket, handler.as_ref(), &seen).await });
        }
    });
    (url, seen)
}

async fn one(
    mut socket: TcpStream,
    handler: &(impl Fn(&Request) -> Reply + ?Sized),
    seen: &Mutex<Seen>,
) {
    let Some(request) = read(&mut socket).await else {
        return;
    };
    seen.lock()
        .unwrap()
        .requests
        .push(format!("{} {}", request.method, request.path));
    match handler(&request) {
        Reply::Answer(status, headers, body) => {
            seen.lock().unwrap().bodies.push(body.clone());
            let text = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{headers}connection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(text.as_bytes()).await;
        }
        Reply::Silent(wait) => tokio::time::sleep(wait).await,
        Reply::Drop => {}
    }
}

async fn read(socket: &mut TcpStream) -> Option<Request> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buffer).to_string();
        let Some(end) = text.find("\r\n\r\n") else {
            continue;
        };
        let mut lines = text[..end].lines();
        let mut first = lines.next()?.split_whitespace();
        let (method, target) = (first.next()?.to_string(), first.next()?.to_string());
        let headers: BTreeMap<String, String> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
            .collect();
        let length = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if buffer.len() < end + 4 + length {
            continue;
        }
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        return Some(Request {
            method,
            path: path.to_string(),
            query: query
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            headers,
            body: text[end + 4..].to_string(),
        });
    }
}
