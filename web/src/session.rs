//! The session cookie and the authenticated-user extractor.
//!
//! Cookie `print-cost-session`: HttpOnly, SameSite=Lax, Path=/, Max-Age = session lifetime, and
//! Secure when the instance's public origin is https. Its value is the session token; the store
//! only knows the token's SHA-256 (see `actors::accounts`).

use crate::error::{ApiError, Code};
use crate::middleware::SessionAccount;
use crate::state;
use crate::state::AppState;
use actix_web::cookie::{Cookie, SameSite, time::Duration};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use actors::accounts;
use actors::runtime::acting;
use futures_util::future::LocalBoxFuture;
use storage::Timestamp;
use storage::journal::Who;
use storage::records::Account;

/// Name of the session cookie (spec, Authentication 1).
pub const SESSION_COOKIE: &str = "print-cost-session";

/// The session cookie carrying `token`.
pub fn session_cookie(token: String, config: &state::WebConfig) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, token)
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .secure(config.secure_cookies)
        .max_age(Duration::seconds(config.session_ttl_seconds))
        .finish()
}

/// A cookie that deletes the session cookie in the browser.
pub fn removal_cookie(config: &state::WebConfig) -> Cookie<'static> {
    let mut cookie = session_cookie(String::new(), config);
    cookie.make_removal();
    cookie
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
        let req = req.clone();
        Box::pin(async move {
            let user = Self::resolve(state, token).await?;
            req.extensions_mut().insert(SessionAccount(user.account.id));
            // The journal names the session's account as the author of what it sends.
            acting::act_as(Who::Account(user.account.id));
            Ok(user)
        })
    }
}

impl CurrentUser {
    /// The live session of `token` and its account.
    async fn resolve(
        state: Option<web::Data<AppState>>,
        token: Option<String>,
    ) -> Result<CurrentUser, ApiError> {
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
    }
}
