//! Middleware, outermost first: HEAD served as GET, security headers, request id and error
//! bodies, the Origin guard.

use crate::error::{ApiError, Code, Rendered};
use crate::state::AppState;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::{DefaultHeaders, Next};
use actix_web::{Error, HttpMessage, web};
use actors::metrics::metrics;
use actors::runtime::acting;
use std::time::Instant;

/// Routes a `HEAD` request as the `GET` of the same path (RFC 9110, 9.3.2: the same status and
/// headers, no body), so that every GET route answers monitors that probe with HEAD. The server
/// leaves the body out because the request arrived as HEAD.
pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if req.method() == Method::HEAD {
        req.head_mut().method = Method::GET;
    }
    next.call(req).await
}

/// Response header carrying the request id (also in every error body and log line).
pub const REQUEST_ID: &str = "x-request-id";

/// The account of the request's session, stored in its extensions by the session's extractor
/// (`session::CurrentUser`), so each request's log line names who made it.
#[derive(Debug, Clone, Copy)]
pub struct SessionAccount(pub storage::Id);

/// The request's id, stored in its extensions by [`request_id`].
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Gives every request an id (UUID v7), renders every error as the contract's body with that id,
/// sets `X-Request-Id`, and logs one line per request (errors at info/error, the rest at debug).
pub async fn request_id(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let started = Instant::now();
    let id = uuid::Uuid::now_v7().simple().to_string();
    req.extensions_mut().insert(RequestId(id.clone()));
    let method = req.method().clone();
    let path = req.path().to_string();

    // Every request acts as "web" until its session names an account (`session::CurrentUser`).
    let mut response = match acting::acting_as(acting::system("web"), next.call(req)).await {
        Ok(res) => match res
            .response()
            .error()
            .filter(|e| e.as_error::<Rendered>().is_none())
            .map(api_error)
        {
            Some(error) => {
                let (request, _) = res.into_parts();
                ServiceResponse::new(request, error.render(&id))
            }
            None => res.map_into_boxed_body(),
        },
        Err(e) => {
            // Without the request (it went into the inner service) the response travels inside
            // the error; actix sends it as it is.
            let mut rendered = api_error(&e).render(&id);
            tag(rendered.headers_mut(), &id);
            tracing::error!(request_id = %id, %method, %path, error = %e, "request failed");
            return Err(InternalError::from_response(e.to_string(), rendered).into());
        }
    };
    tag(response.headers_mut(), &id);

    let status = response.status().as_u16();
    let elapsed = started.elapsed().as_secs_f64();
    count(&response, &method, status, elapsed);
    let ms = elapsed * 1000.0;
    // The session's account, when the request had one (`session::CurrentUser` leaves it).
    let account = response
        .request()
        .extensions()
        .get::<SessionAccount>()
        .map_or_else(String::new, |a| a.0.to_string());
    if status >= 500 {
        tracing::error!(request_id = %id, %method, %path, status, ms, %account, "request");
    } else if status >= 400 {
        tracing::info!(request_id = %id, %method, %path, status, ms, %account, "request");
    } else {
        tracing::debug!(request_id = %id, %method, %path, status, ms, %account, "request");
    }
    Ok(response)
}

/// Counts the request in `printcost_http_requests_total` and its time in
/// `printcost_http_request_duration_seconds`, by route pattern (`unmatched` for none) and
/// method (`OTHER` for one outside HTTP's own, so a client cannot add labels at will).
fn count(response: &ServiceResponse<BoxBody>, method: &Method, status: u16, seconds: f64) {
    let route = response.request().match_pattern();
    let route = route.as_deref().unwrap_or("unmatched");
    let method = match *method {
        Method::GET
        | Method::HEAD
        | Method::POST
        | Method::PUT
        | Method::PATCH
        | Method::DELETE
        | Method::OPTIONS => method.as_str(),
        _ => "OTHER",
    };
    let m = metrics();
    m.http_requests
        .with_label_values(&[route, method, &status.to_string()])
        .inc();
    m.http_duration
        .with_label_values(&[route, method])
        .observe(seconds);
}

fn tag(headers: &mut header::HeaderMap, id: &str) {
    if let Ok(value) = HeaderValue::from_str(id) {
        headers.insert(HeaderName::from_static(REQUEST_ID), value);
    }
}

/// The contract error for any error a response carries: ours as it is, actix's own by status.
fn api_error(error: &Error) -> ApiError {
    if let Some(ours) = error.as_error::<ApiError>() {
        return ours.clone();
    }
    let status = error.as_response_error().status_code();
    let code = match status {
        StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => Code::NotFound,
        s if s.is_client_error() => Code::ValidationFailed,
        StatusCode::SERVICE_UNAVAILABLE => Code::DatabaseUnavailable,
        _ => Code::Internal,
    };
    let api = ApiError::new(code);
    if code == Code::ValidationFailed {
        api.with_message(format!("The request is invalid: {error}."))
    } else {
        api
    }
}

/// Refuses writes (POST, PUT, PATCH, DELETE) whose `Origin` is missing or is neither the origin
/// the request was addressed to (scheme, host and port of its `Host`) nor a configured public
/// origin: 403 `FORBIDDEN_ORIGIN`. Reads pass.
pub async fn origin_guard(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let unsafe_method = matches!(
        *req.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    if unsafe_method && !origin_allowed(&req) {
        return Ok(req.error_response(ApiError::new(Code::ForbiddenOrigin)));
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

fn origin_allowed(req: &ServiceRequest) -> bool {
    let Some(origin) = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
    else {
        return false;
    };
    let origin = origin.trim_end_matches('/').to_ascii_lowercase();
    let Some(state) = req.app_data::<web::Data<AppState>>() else {
        return false;
    };
    origin == request_origin(req.request(), &state.config.trusted_proxies).to_ascii_lowercase()
        || state
            .config
            .public_origins
            .iter()
            .any(|allowed| allowed.trim_end_matches('/').eq_ignore_ascii_case(&origin))
}

/// The origin (`scheme://host[:port]`) `req` was addressed to: from its `Host` (the service
/// speaks plain http), or, when the peer is one of `trusted_proxies`, from the proxy's
/// `Forwarded` / `X-Forwarded-Host` / `X-Forwarded-Proto` headers. Anyone else's forwarding
/// headers are ignored, so a client cannot name its own origin.
pub fn request_origin(
    req: &actix_web::HttpRequest,
    trusted_proxies: &[std::net::IpAddr],
) -> String {
    let info = req.connection_info();
    if req
        .peer_addr()
        .is_some_and(|peer| trusted_proxies.contains(&peer.ip()))
    {
        return format!("{}://{}", info.scheme(), info.host());
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))
        .unwrap_or_else(|| req.app_config().host());
    format!("http://{host}")
}

/// The one Content-Security-Policy: same-origin sources only (`data:` images are inline icons of
/// the vendored API reference's stylesheet), no framing, no plugins.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// Security headers on every response: CSP, nosniff, Referrer-Policy, X-Frame-Options.
pub fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::REFERRER_POLICY, "same-origin"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
}
