//! What every page shares: the translator, the signed-in user, the active navigation entry, and
//! the responses pages end in (redirects, error pages).

use super::i18n::{Lang, Tr};
use crate::error::ApiError;
use crate::middleware::RequestId;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpMessage, HttpRequest, HttpResponse};
use askama::Template;

/// The frame of a page: header, navigation, footer.
#[derive(Debug, Clone)]
pub struct Chrome {
    /// Messages and formats of the page's locale.
    pub t: Tr,
    /// Display name of the signed-in user, if any.
    pub user: Option<String>,
    /// The navigation entry to mark current (a path of [`super::paths`]).
    pub nav: &'static str,
    /// Whether spool management is on (shows the spools entry).
    pub spools: bool,
}

impl Chrome {
    /// The frame for `user` (their locale) or, without one, the instance default language.
    /// Before setup, or when the settings cannot be read, it is en-US with EUR: the frame never
    /// fails a page (the page's own read reports a storage error).
    pub async fn load(state: &AppState, user: Option<&CurrentUser>, nav: &'static str) -> Chrome {
        let settings = state.read(actors::settings::get).await.ok();
        let (currency, default_language, spools) = settings.map_or_else(
            || ("EUR".to_string(), "en-US".to_string(), false),
            |s| (s.currency, s.default_language, s.spool_management_enabled),
        );
        let tag = user.map_or(default_language.as_str(), |u| u.account.locale.as_str());
        Chrome {
            t: Tr::new(Lang::of(tag), &currency),
            user: user.map(|u| u.account.display_name.clone()),
            nav,
            spools,
        }
    }

    /// `aria-current="page"` when `path` is the current entry.
    pub fn current(&self, path: &str) -> &'static str {
        if self.nav == path { "page" } else { "false" }
    }
}

/// 303 See Other to `location` (after a form, or to the login page).
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

/// The error page: the status of `error`, its message in the page's locale, and the request id.
#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    chrome: &'a Chrome,
    message: &'a str,
    detail: &'a str,
    request_id: &'a str,
}

/// Renders `error` as a page with its status.
pub fn error_page(req: &HttpRequest, chrome: &Chrome, error: &ApiError) -> HttpResponse {
    let request_id = request_id(req);
    let page = ErrorPage {
        chrome,
        message: chrome.t.t(error.code.message_key()),
        detail: &error.message,
        request_id: &request_id,
    };
    html(error.code.status(), page.render())
}

/// An HTML response of `status` from a rendered template (500 if rendering failed).
pub fn html(status: actix_web::http::StatusCode, body: askama::Result<String>) -> HttpResponse {
    match body {
        Ok(body) => HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .body(body),
        Err(e) => {
            tracing::error!(error = %e, "template failed");
            HttpResponse::InternalServerError().finish()
        }
    }
}

/// The request id of `req` (for pages that show it).
pub fn request_id(req: &HttpRequest) -> String {
    req.extensions()
        .get::<RequestId>()
        .map(|r| r.0.clone())
        .unwrap_or_default()
}
