//! What every page shares: the translator, the signed-in user, the active navigation entry, and
//! the responses pages end in (redirects, error pages).

use super::i18n::{Lang, Tr};
use super::paths;
use crate::error::Code;
use crate::error::{ApiError, Rendered};
use crate::middleware::RequestId;
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::http::{Method, header};
use actix_web::web::Data;
use actix_web::{FromRequest, HttpMessage, HttpRequest, HttpResponse};
use actors::command::Query;
use actors::settings;
use actors::stock::LowStock;
use actors::values::typed_with;
use askama::Template;
use futures_util::future::LocalBoxFuture;
use storage::records::Role;

/// The frame of a page: header, navigation, footer.
#[derive(Debug, Clone)]
pub struct Chrome {
    /// Messages and formats of the page's locale.
    pub t: Tr,
    /// Display name of the signed-in user, if any.
    pub user: Option<String>,
    /// The navigation entry to mark current (a path of [`super::paths`]).
    pub nav: &'static str,
    /// Whether spool management is on (shows the stock entry).
    pub spools: bool,
    /// Whether print series are on (shows the series entry).
    pub series: bool,
    /// Filaments below their threshold (the stock entry's badge), for a signed-in user.
    pub low_stock: usize,
    /// The signed-in user's role: what the page offers ([`crate::roles`]).
    pub role: Option<Role>,
}

impl Chrome {
    /// The frame for `user` (their locale) or, without one, the instance default language.
    /// Before setup, or when the settings cannot be read, it is en-US with EUR: the frame never
    /// fails a page (the page's own read reports a storage error).
    pub async fn load(state: &AppState, user: Option<&CurrentUser>, nav: &'static str) -> Chrome {
        let settings = state.query(settings::GetSettings).await.ok();
        let (currency, default_language, spools, series) = settings.map_or_else(
            || ("EUR".to_string(), "en-US".to_string(), false, false),
            |s| {
                let flags = (s.spool_management_enabled, s.print_series_enabled);
                (s.currency, s.default_language, flags.0, flags.1)
            },
        );
        let tag = user.map_or(default_language.as_str(), |u| u.account.locale.as_str());
        let low_stock = match (spools, user) {
            (true, Some(_)) => state.query(LowStock).await.map_or(0, |low| low.len()),
            _ => 0,
        };
        Chrome {
            low_stock,
            t: Tr::new(Lang::of(tag), &currency, state.index.time_zone().clone()),
            user: user.map(|u| u.account.display_name.clone()),
            nav,
            spools,
            series,
            role: user.map(|u| u.account.role),
        }
    }

    /// Whether the signed-in user holds `role` or one above it (`Viewer < Staff < Owner`): a
    /// page offers a form only to those its route's guard admits ([`super::guard`]).
    pub fn may(&self, role: Role) -> bool {
        self.role.is_some_and(|held| held >= role)
    }

    /// Whether the signed-in user may manage the shop (owner's settings and forms).
    pub fn owner(&self) -> bool {
        self.may(Role::Owner)
    }

    /// Whether the signed-in user may run the shop (staff and owners): the shop's write forms.
    pub fn staff(&self) -> bool {
        self.may(Role::Staff)
    }

    /// `aria-current="page"` when `path` is the current entry.
    pub fn current(&self, path: &str) -> &'static str {
        if self.nav == path { "page" } else { "false" }
    }

    /// `aria-current="page"` on the inventory entry for any of its five sections.
    pub fn current_inventory(&self) -> &'static str {
        if paths::INVENTORY.contains(&self.nav) {
            "page"
        } else {
            "false"
        }
    }
}

/// What a page handler answers: the page, or the error page already rendered in its place
/// ([`Rendered`]). Handlers fail with `?`.
pub type Page = Result<HttpResponse, Rendered>;

/// A signed-in page request: the state, the request and the page frame (its navigation
/// entry from the path). Without a session the extractor answers 303 to the login page.
pub struct Ctx {
    /// Shared state.
    pub state: Data<AppState>,
    /// The request.
    pub req: HttpRequest,
    /// The signed-in user.
    pub user: CurrentUser,
    /// The page frame.
    pub chrome: Chrome,
}

impl FromRequest for Ctx {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, actix_web::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let user = Option::<CurrentUser>::from_request(req, payload);
        let state = req.app_data::<Data<AppState>>().cloned();
        let req = req.clone();
        Box::pin(async move {
            let (Some(user), Some(state)) = (user.await.ok().flatten(), state) else {
                return Err(Rendered::redirect(&paths::login_then(&req)).into());
            };
            let chrome = Chrome::load(&state, Some(&user), paths::nav_of(req.path())).await;
            Ok(Ctx {
                state,
                req,
                user,
                chrome,
            })
        })
    }
}

impl Ctx {
    /// Runs a form's parse with decimals read as the user types them (`12,5` in German; the
    /// API takes `12.5` only).
    pub fn typed<R>(&self, read: impl FnOnce() -> R) -> R {
        typed_with(self.chrome.t.lang.decimal_mark(), read)
    }

    /// The error page for `error`, in the page's locale.
    pub fn fail(&self, error: &ApiError) -> Rendered {
        error_page(&self.req, &self.chrome, error)
    }

    /// The `{id}` of the path. Errors: the 404 page for a malformed one.
    pub fn id(&self) -> Result<storage::Id, Rendered> {
        self.req
            .match_info()
            .get("id")
            .and_then(|id| id.parse().ok())
            .ok_or_else(|| self.fail(&ApiError::new(Code::NotFound)))
    }

    /// Whether the redirect after a form left the bare flag `flag` in the query (`?saved`):
    /// the one reader of a redirect's notice ([`Ctx::notice`]).
    pub fn flagged(&self, flag: &str) -> bool {
        self.req.query_string().split('&').any(|pair| pair == flag)
    }

    /// The message key of the first of `notices` (flag, message key) whose flag the redirect
    /// left in the query, if any: what the page says the action did.
    pub fn notice(&self, notices: &[(&str, &'static str)]) -> Option<&'static str> {
        notices
            .iter()
            .find(|(flag, _)| self.flagged(flag))
            .map(|(_, key)| *key)
    }

    /// The trimmed value of query parameter `name`, or `""`.
    pub fn param(&self, name: &str) -> String {
        serde_urlencoded::from_str::<Vec<(String, String)>>(self.req.query_string())
            .unwrap_or_default()
            .into_iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    }

    /// Runs `query` (see [`AppState::query`]). Errors: its refusal as the error page.
    pub async fn query<Q: Query>(&self, query: Q) -> Result<Q::Answer, Rendered> {
        self.state.query(query).await.map_err(|e| self.fail(&e))
    }
}

/// 303 See Other to `location` (after a form, or to the login page).
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

/// The default service: an unknown route is 404 `NOT_FOUND`, in the contract's body for the
/// API and any client that does not ask for HTML, as the error page for a browser's GET of a
/// page address (so a mistyped or stale page address never shows raw JSON; without a
/// session, the login first).
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, actix_web::Error> {
    let wants_html = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|accept| accept.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    let page = wants_html && req.method() == Method::GET && !req.path().starts_with("/api");
    if !page {
        return Err(ApiError::new(Code::NotFound).into());
    }
    let ctx = Ctx::extract(&req).await?;
    Err(ctx.fail(&ApiError::new(Code::NotFound)).into())
}

/// A GET of a form's POST-only address (a reload of a refused form, a bookmark): 303 to the
/// page the form is on, `page` with the request's `{id}` filled in; the 404 page when that id
/// is not one. So the address bar after a form never leads to a dead end or raw JSON.
pub async fn back_to_form_page(ctx: Ctx, page: &str) -> Page {
    let target = match ctx.req.match_info().get("id") {
        None => page.to_string(),
        Some(_) => page.replace("{id}", &ctx.id()?.to_string()),
    };
    Ok(see_other(&target))
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

/// What the fields at fault of `error` say, in the page's language, each named in words where
/// the catalog names its field (`field.<name>` of the path's last name: "Purchase price: Not a
/// number."); never the API's English message.
fn localized_faults(t: &Tr, error: &ApiError) -> String {
    error
        .field_errors
        .iter()
        .map(|fault| {
            let said = t.t(&fault.message_key);
            let name = fault
                .path
                .rsplit('.')
                .next()
                .map(|last| last.split('[').next().unwrap_or(last))
                .filter(|last| !last.is_empty())
                .map(|last| format!("field.{last}"));
            match name.as_deref().map(|key| (key, t.t(key))) {
                Some((key, words)) if words != key => format!("{words}: {said}"),
                _ => said.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Renders `error` as a page with its status.
pub fn error_page(req: &HttpRequest, chrome: &Chrome, error: &ApiError) -> Rendered {
    let request_id = request_id(req);
    let detail = localized_faults(&chrome.t, error);
    let page = ErrorPage {
        chrome,
        message: chrome.t.t(error.code.message_key()),
        detail: &detail,
        request_id: &request_id,
    };
    let body = page.render().unwrap_or_else(|e| {
        tracing::error!(error = %e, "template failed");
        String::new()
    });
    Rendered {
        status: error.code.status(),
        body,
        location: None,
    }
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
