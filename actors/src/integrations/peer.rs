//! The HTTP rules both peers are called by: a 3 s timeout, a 2 MB body cap, no redirects
//! followed, no `Origin` header, and every failure classified into one of the contract's codes
//! without the peer's body or URL in it (docs/api-contract.md, "Integrations").

use super::health::PeerHealth;
use super::settings::{PeerUrl, Secret};
use crate::metrics::metrics;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use std::time::Duration;

/// Longest wait for a peer's answer.
pub const TIMEOUT: Duration = Duration::from_secs(3);
/// Largest body read from a peer, bytes.
pub const MAX_BODY: usize = 2 * 1024 * 1024;

/// Why a call to a peer failed. It never carries the peer's body, URL or credential; the log
/// line of a failure names the peer's status only.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeerError {
    /// The peer refused our credential (401 or 403): `INTEGRATION_CONFIG`.
    #[error("the peer refused the credential")]
    Refused,
    /// No usable answer: connection refused, a timeout, a redirect, a body over 2 MB, a 5xx
    /// (`INTEGRATION_UNAVAILABLE`).
    #[error("the peer is unavailable")]
    Unavailable,
    /// The connection was never made (refused, no route, no such host): nothing was sent
    /// (`INTEGRATION_UNAVAILABLE`).
    #[error("the peer is unreachable")]
    Unreachable,
    /// An answer the peer's contract does not allow: shape, types, a status it should not
    /// give (`INTEGRATION_CONTRACT`).
    #[error("the peer broke its contract")]
    Contract,
}

/// What a call answered: its status and its body, at most [`MAX_BODY`] bytes.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Vec<u8>,
}

impl PeerError {
    /// The contract's code of this failure (`INTEGRATION_CONFIG`, `INTEGRATION_UNAVAILABLE`,
    /// `INTEGRATION_CONTRACT`), as stored on a spool or an operation.
    pub fn code(&self) -> &'static str {
        match self {
            PeerError::Refused => "INTEGRATION_CONFIG",
            PeerError::Unavailable | PeerError::Unreachable => "INTEGRATION_UNAVAILABLE",
            PeerError::Contract => "INTEGRATION_CONTRACT",
        }
    }

    /// The domain error this failure answers as.
    pub fn into_error(self) -> crate::Error {
        match self {
            PeerError::Refused => crate::Error::IntegrationConfig,
            PeerError::Unavailable | PeerError::Unreachable => crate::Error::IntegrationUnavailable,
            PeerError::Contract => crate::Error::IntegrationContract,
        }
    }
}

impl Answer {
    /// The body as `T`. Errors: [`PeerError::Contract`] when it is not.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, PeerError> {
        serde_json::from_slice(&self.body).map_err(|_| PeerError::Contract)
    }
}

/// The failure a status classifies as, or `None` for a success (2xx) or a status the caller
/// judges (404 and the other 4xx).
pub fn classify(status: StatusCode) -> Option<PeerError> {
    match status.as_u16() {
        200..=299 => None,
        401 | 403 => Some(PeerError::Refused),
        300..=399 | 500..=599 => Some(PeerError::Unavailable),
        400..=499 => None,
        _ => Some(PeerError::Contract),
    }
}

/// A client of one peer: its base URL and the header that carries its credential.
#[derive(Debug, Clone)]
pub struct PeerClient {
    http: reqwest::Client,
    base: PeerUrl,
    peer: &'static str,
    health: Option<PeerHealth>,
}

impl PeerClient {
    /// A client of the peer named `peer` (in logs) at `base`, sending `credential` in header
    /// `header` on every call.
    ///
    /// Errors: [`PeerError::Refused`] when the credential cannot be a header value.
    pub fn new(
        peer: &'static str,
        base: PeerUrl,
        header: HeaderName,
        credential: Option<&Secret>,
    ) -> Result<PeerClient, PeerError> {
        let mut headers = HeaderMap::new();
        if let Some(secret) = credential {
            let mut value =
                HeaderValue::from_str(secret.expose()).map_err(|_| PeerError::Refused)?;
            value.set_sensitive(true);
            headers.insert(header, value);
        }
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .default_headers(headers)
            .build()
            .map_err(|_| PeerError::Unavailable)?;
        Ok(PeerClient {
            http,
            base,
            peer,
            health: None,
        })
    }

    /// This client, recording every call's outcome in `health`.
    pub fn watched(mut self, health: PeerHealth) -> PeerClient {
        self.health = Some(health);
        self
    }

    /// Calls `method` on `path` (below the base URL) with an optional JSON body and reads the
    /// answer. Statuses are not judged here, except that a redirect, a 5xx and a refused
    /// credential are failures ([`classify`]).
    ///
    /// Errors: [`PeerError::Unreachable`] when no connection was made; [`PeerError::Unavailable`]
    /// without an answer or with a body over [`MAX_BODY`];
    /// [`PeerError::Refused`]; [`PeerError::Unavailable`] for a redirect or a 5xx.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<Answer, PeerError> {
        let answered = self.exchange(method, path, body).await;
        let outcome = match &answered {
            Ok(_) => "ok",
            Err(PeerError::Refused) => "refused",
            Err(PeerError::Unavailable) => "unavailable",
            Err(PeerError::Unreachable) => "unreachable",
            Err(PeerError::Contract) => "contract",
        };
        metrics()
            .integration_calls
            .with_label_values(&[self.peer, outcome])
            .inc();
        if let Some(health) = &self.health {
            let answered = !matches!(
                answered,
                Err(PeerError::Unavailable | PeerError::Unreachable)
            );
            health.record(self.peer, answered, storage::Timestamp::now());
        }
        answered
    }

    /// One call, as [`PeerClient::call`] describes, uncounted.
    async fn exchange(
        &self,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<Answer, PeerError> {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base.as_str()));
        if let Some(body) = body {
            request = request.json(body);
        }
        let mut response = request.send().await.map_err(|e| {
            tracing::warn!(
                peer = self.peer,
                timeout = e.is_timeout(),
                connect = e.is_connect(),
                "peer unreachable"
            );
            if e.is_connect() && !e.is_timeout() {
                PeerError::Unreachable
            } else {
                PeerError::Unavailable
            }
        })?;
        let status = response.status();
        if let Some(failure) = classify(status) {
            tracing::warn!(
                peer = self.peer,
                status = status.as_u16(),
                "peer call failed"
            );
            return Err(failure);
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|_| PeerError::Unavailable)? {
            if bytes.len() + chunk.len() > MAX_BODY {
                tracing::warn!(peer = self.peer, "peer body over the limit");
                return Err(PeerError::Unavailable);
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Answer {
            status,
            headers: response.headers().clone(),
            body: bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::AUTHORIZATION;

    #[test]
    fn statuses_are_classified_by_the_contract() {
        let of = |code: u16| classify(StatusCode::from_u16(code).unwrap());
        assert_eq!(of(200), None);
        assert_eq!(of(204), None);
        assert_eq!(of(401), Some(PeerError::Refused));
        assert_eq!(of(403), Some(PeerError::Refused));
        assert_eq!(of(302), Some(PeerError::Unavailable));
        assert_eq!(of(503), Some(PeerError::Unavailable));
        assert_eq!(of(404), None, "the caller judges a missing record");
        assert_eq!(of(422), None);
    }

    #[actix_rt::test]
    async fn every_call_is_counted_by_its_outcome() {
        // A port nothing listens on: the connection is refused.
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", free.local_addr().unwrap());
        drop(free);
        let base = PeerUrl::parse(&url).unwrap();
        let client = PeerClient::new("spoolmgr", base, AUTHORIZATION, None).unwrap();
        let counted = || {
            metrics()
                .integration_calls
                .with_label_values(&["spoolmgr", "unreachable"])
                .get()
        };
        let before = counted();
        let answered = client.call(Method::GET, "/api/v1/info", None).await;
        assert_eq!(answered.err(), Some(PeerError::Unreachable));
        // Other tests may call too; this one's call is among the counted.
        assert!(counted() > before);
    }
}
