//! The session cookie and the authenticated-user extractor.
//!
//! Cookie `print-cost-session`: HttpOnly, SameSite=Lax, Path=/, Max-Age = session lifetime, and
//! Secure when the instance's public origin is https. Its value is the session token; the store
//! only knows the token's SHA-256 (see `actors::accounts`).

use crate::error::{ApiError, Code};
use crate::state::AppState;
use actix_web::cookie::{Cookie, SameSite, time::Duration};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use actors::accounts;
use futures_util::future::LocalBoxFuture;
use storage::Timestamp;
use storage::records::Account;

/// Name of the session cookie (spec, Authentication 1).
pub const SESSION_COOKIE: &str = "print-cost-session";

/// The session cookie carrying `token`.
pub fn session_cookie(token: String, config: &crate::state::WebConfig) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, token)
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .secure(config.secure_cookies)
        .max_age(Duration::seconds(config.session_ttl_seconds))
        .finish()
}

/// A cookie that deletes the session cookie in the browser.
pub fn removal_cookie(config: &crate::state::WebConfig) -> Cookie<'static> {
    let mut cookie = session_cookie(String::new(), config);
    cookie.make_removal();
    cookie
}

/// Recently resolved sessions, so that an authenticated request needs no store read.
///
/// An entry lives [`SessionCache::TTL`] and never past its session's expiry. Logout removes the
/// session's entry; a password or preference change clears the cache (those change the account
/// or end other sessions). `printcost reset-password` runs with the service stopped.
#[derive(Default)]
pub struct SessionCache {
    entries: std::sync::Mutex<
        std::collections::HashMap<[u8; 32], (Account, Timestamp, std::time::Instant)>,
    >,
}

impl SessionCache {
    /// How long a resolved session is trusted without reading the store.
    pub const TTL: std::time::Duration = std::time::Duration::from_secs(30);
    const MAX_ENTRIES: usize = 1024;

    fn get(&self, token_hash: &[u8; 32], now: Timestamp) -> Option<Account> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let (account, expires_at, cached_at) = entries.get(token_hash)?;
        (*expires_at > now && cached_at.elapsed() < Self::TTL).then(|| account.clone())
    }

    fn put(&self, token_hash: [u8; 32], account: Account, expires_at: Timestamp) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= Self::MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(token_hash, (account, expires_at, std::time::Instant::now()));
    }

    /// Forgets one session (logout).
    pub fn remove(&self, token_hash: &[u8; 32]) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(token_hash);
    }

    /// Forgets every session (an account changed).
    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

/// The logged-in account of a request. Extracting it on a route makes the route protected.
///
/// Errors: 401 `UNAUTHENTICATED` without a live session; 503 when the store cannot be read.
pub struct CurrentUser {
    /// The account.
    pub account: Account,
    /// Store key of the request's session (for logout and password change).
    pub token_hash: [u8; 32],
}

impl FromRequest for CurrentUser {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let token = req.cookie(SESSION_COOKIE).map(|c| c.value().to_string());
        Box::pin(async move {
            let (Some(state), Some(token)) = (state, token) else {
                return Err(ApiError::new(Code::Unauthenticated));
            };
            let token_hash = accounts::token_hash(&token);
            let now = Timestamp::now();
            if let Some(account) = state.sessions.get(&token_hash, now) {
                return Ok(CurrentUser {
                    account,
                    token_hash,
                });
            }
            let found = state
                .query(accounts::LiveSession { token_hash, now })
                .await?;
            let (session, account) = found.ok_or_else(|| ApiError::new(Code::Unauthenticated))?;
            state
                .sessions
                .put(token_hash, account.clone(), session.expires_at);
            Ok(CurrentUser {
                account,
                token_hash,
            })
        })
    }
}
