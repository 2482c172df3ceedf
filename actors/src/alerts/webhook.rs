//! Webhooks: every start and clear posted to each webhook that takes its kind, in the webhook's
//! form, retried with backoff in a task of its own (a write never waits for it).
//!
//! - ntfy form: `POST <url>` with the message as a `text/plain` body and the headers `X-Title`,
//!   `X-Priority` (1–5) and `X-Tags` (<https://docs.ntfy.sh/publish/>). A title outside ASCII
//!   is sent as RFC 2047 encoded words (`=?UTF-8?Q?…?=`), which ntfy decodes since 2.4.0.
//! - JSON form: `POST <url>` with the [`super::Event`] as `application/json`.
//! - Both send `Authorization: Bearer <token>` when the webhook has a token; the token is never
//!   logged or returned.
//! - A 2xx is delivered. A 408, a 429, a 5xx, a timeout (5 s) or no connection is retried after
//!   1, 2, 4, … s (at most [`MAX_WAIT`] between attempts) up to [`ATTEMPTS`] attempts; any other
//!   status is refused for good. Redirects are not followed.
//! - At most [`MAX_IN_FLIGHT`] attempts are in flight at once, over every webhook.

use super::{Event, TEST};
use reqwest::StatusCode;
use std::sync::Arc;
use std::time::Duration;
use storage::records::{Webhook, WebhookForm};
use tokio::sync::Semaphore;

/// Attempts per delivery.
pub const ATTEMPTS: u32 = 8;
/// The longest wait between two attempts.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// Longest wait for an answer.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Attempts in flight at once, over every webhook: each holds a connection (a file descriptor)
/// until its answer or its timeout, so 12 hanging webhooks told 100 alerts hold at most this
/// many, never 1,200; the other deliveries wait their turn in memory (a few hundred bytes each).
pub const MAX_IN_FLIGHT: usize = 8;

/// The webhooks' HTTP client and the permits that bound the attempts in flight
/// ([`MAX_IN_FLIGHT`]).
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    in_flight: Arc<Semaphore>,
}

/// The HTTP client of every delivery. Errors: TLS cannot be set up (the message says why).
pub fn client() -> Result<Client, String> {
    let http = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    Ok(Client {
        http,
        in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
    })
}

/// Whether `webhook` takes alerts of `kind` (a test goes to every webhook).
pub fn takes(webhook: &Webhook, kind: &str) -> bool {
    kind == TEST || webhook.kinds.is_empty() || webhook.kinds.iter().any(|k| k == kind)
}

/// What went wrong with one attempt, in terms a page can word in its language ([`Why::key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The URL makes no request (`BAD_URL`).
    BadUrl,
    /// No answer within 5 s (`NO_ANSWER`).
    NoAnswer,
    /// No connection was made: refused, no route, no such host (`NO_CONNECTION`).
    NoConnection,
    /// It answered with this status, not a 2xx (`ANSWERED`).
    Answered(u16),
}

impl Why {
    /// The stable key: `BAD_URL`, `NO_ANSWER`, `NO_CONNECTION` or `ANSWERED`.
    pub fn key(self) -> &'static str {
        match self {
            Why::BadUrl => "BAD_URL",
            Why::NoAnswer => "NO_ANSWER",
            Why::NoConnection => "NO_CONNECTION",
            Why::Answered(_) => "ANSWERED",
        }
    }

    /// The status it answered with, if it did.
    pub fn status(self) -> Option<u16> {
        match self {
            Why::Answered(code) => Some(code),
            _ => None,
        }
    }
}

impl std::fmt::Display for Why {
    /// In English, for the log and the API's `error`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::BadUrl => f.write_str("the request cannot be built from this URL"),
            Why::NoAnswer => f.write_str("no answer within 5 s"),
            Why::NoConnection => f.write_str("no connection"),
            Why::Answered(code) => write!(f, "answered {code}"),
        }
    }
}

/// Why one attempt did not deliver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// Worth another attempt: no answer, or a 408, 429 or 5xx.
    #[error("{0}")]
    Transient(Why),
    /// Another attempt would fare no better: any other status, or a request that cannot be
    /// built.
    #[error("{0}")]
    Refused(Why),
}

impl Failure {
    /// What went wrong.
    pub fn why(&self) -> Why {
        match self {
            Failure::Transient(why) | Failure::Refused(why) => *why,
        }
    }
}

/// Posts `event` to `webhook` once, in its turn among the attempts in flight
/// ([`MAX_IN_FLIGHT`]). Answers the status of a 2xx.
///
/// Errors: [`Failure`].
pub async fn send_once(client: &Client, webhook: &Webhook, event: &Event) -> Result<u16, Failure> {
    // The semaphore is never closed, so a permit always comes.
    let _permit = client.in_flight.acquire().await;
    post(client, webhook, event).await
}

/// Posts a test to `webhook` at once, beside the queued deliveries: a person waits for its
/// answer (at most the 5 s timeout), and behind eight hanging deliveries it would wait their
/// turns too. One test per request of a signed-in owner, so it stays bounded.
///
/// Errors: [`Failure`].
pub async fn send_test(client: &Client, webhook: &Webhook, event: &Event) -> Result<u16, Failure> {
    post(client, webhook, event).await
}

/// One attempt. Errors: [`Failure`].
async fn post(client: &Client, webhook: &Webhook, event: &Event) -> Result<u16, Failure> {
    let mut request = client.http.post(&webhook.url);
    if let Some(token) = &webhook.token {
        request = request.bearer_auth(token);
    }
    request = match webhook.form {
        WebhookForm::Json => request.json(event),
        WebhookForm::Ntfy => request
            .header("Content-Type", "text/plain; charset=utf-8")
            .header("X-Title", encoded_words(&event.title))
            .header("X-Priority", event.priority.to_string())
            .header("X-Tags", event.tags().join(","))
            .body(event.message.clone()),
    };
    let response = request.send().await.map_err(|e| {
        if e.is_builder() {
            Failure::Refused(Why::BadUrl)
        } else if e.is_timeout() {
            Failure::Transient(Why::NoAnswer)
        } else {
            Failure::Transient(Why::NoConnection)
        }
    })?;
    let status = response.status();
    match status.as_u16() {
        200..=299 => Ok(status.as_u16()),
        _ if status == StatusCode::REQUEST_TIMEOUT
            || status == StatusCode::TOO_MANY_REQUESTS
            || status.is_server_error() =>
        {
            Err(Failure::Transient(Why::Answered(status.as_u16())))
        }
        code => Err(Failure::Refused(Why::Answered(code))),
    }
}

/// The wait before attempt `attempt + 1` (the first retry waits 1 s).
pub fn backoff(attempt: u32) -> Duration {
    Duration::from_secs(1u64 << attempt.min(16)).min(MAX_WAIT)
}

/// Delivers `event` to `webhook` in a task of its own: attempts as the module says, each
/// failure logged with the webhook's name (never its URL or token). Must run inside a tokio
/// runtime.
pub fn deliver(client: Client, webhook: Webhook, event: Event) {
    tokio::spawn(async move {
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(backoff(attempt - 1)).await;
            }
            match send_once(&client, &webhook, &event).await {
                Ok(_) => return,
                Err(Failure::Refused(why)) => {
                    tracing::warn!(webhook = %webhook.name, kind = %event.kind, %why, "webhook refused the alert");
                    return;
                }
                Err(Failure::Transient(why)) => {
                    tracing::warn!(webhook = %webhook.name, kind = %event.kind, %why, attempt = attempt + 1, "webhook not reached");
                }
            }
        }
        tracing::error!(webhook = %webhook.name, kind = %event.kind, attempts = ATTEMPTS, "alert not delivered: webhook gave up");
    });
}

/// `text` as an HTTP header value: as it is when it is printable ASCII, else as RFC 2047
/// "Q" encoded words of at most 75 characters each, separated by spaces (which a decoder drops
/// between encoded words).
pub fn encoded_words(text: &str) -> String {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return text.to_string();
    }
    const OPEN: &str = "=?UTF-8?Q?";
    const CLOSE: &str = "?=";
    let room = 75 - OPEN.len() - CLOSE.len();
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        let encoded = match c {
            ' ' => "_".to_string(),
            c if c.is_ascii_alphanumeric() => c.to_string(),
            c => {
                let mut bytes = [0u8; 4];
                c.encode_utf8(&mut bytes)
                    .bytes()
                    .map(|b| format!("={b:02X}"))
                    .collect()
            }
        };
        if word.len() + encoded.len() > room {
            words.push(format!("{OPEN}{word}{CLOSE}"));
            word.clear();
        }
        word.push_str(&encoded);
    }
    words.push(format!("{OPEN}{word}{CLOSE}"));
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_titles_pass_and_others_are_q_encoded_in_short_words() {
        assert_eq!(encoded_words("Low stock: PLA"), "Low stock: PLA");
        assert_eq!(
            encoded_words("Wartung fällig"),
            "=?UTF-8?Q?Wartung_f=C3=A4llig?="
        );
        let long = encoded_words(&"ü".repeat(40));
        assert!(long.split(' ').all(|w| w.len() <= 75), "{long}");
        let decoded: usize = long.matches("=C3=BC").count();
        assert_eq!(decoded, 40, "no character is lost at a word's end");
    }

    #[test]
    fn waits_double_up_to_a_minute() {
        let waits: Vec<u64> = (0..8).map(|a| backoff(a).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
    }

    #[test]
    fn a_webhook_without_kinds_takes_every_kind() {
        let mut hook = Webhook {
            id: storage::Id::new(),
            name: "n".into(),
            url: "http://127.0.0.1:1/".into(),
            form: WebhookForm::Json,
            kinds: Vec::new(),
            token: None,
        };
        assert!(takes(&hook, "LOW_STOCK"));
        hook.kinds = vec!["SPOOL_EMPTY".into()];
        assert!(!takes(&hook, "LOW_STOCK"));
        assert!(takes(&hook, "SPOOL_EMPTY"));
        assert!(takes(&hook, "TEST"));
    }
}
