//! The HTTP side of the print-cost appliance.
//!
//! Middleware order, outermost first: HEAD served as GET, security headers, request id and error
//! bodies, Origin guard; on `/api`, the role guard ([`roles::api_guard`]).
//!
//! Owns: actix-web routes under `/api` (one module per resource in [`api`]), request and
//! response DTOs (serde and deserr + utoipa), strict input parsing ([`input`], [`extract`]), the session cookie and
//! the authenticated-user extractor ([`session`]), who may do what ([`roles`]: each route's
//! role, declared with its registration, checked in one place), Origin checks, security headers and request
//! ids ([`middleware`]), the one table from error code to HTTP status ([`error`]), and the
//! OpenAPI 3.1 document with its vendored, offline API reference at `/api-reference`.
//!
//! May use: `actors` for rules and writers, `storage` for read transactions. Handlers never run
//! blocking work on the async executor: reads go through [`state::AppState::query`] (the blocking
//! pool), writes through a writer actor, password hashing through `web::block`.

pub mod api;
pub mod body_forms;
pub mod error;
pub mod extract;
pub mod input;
pub mod middleware;
pub mod openapi;
pub mod release;
pub mod roles;
pub mod routes;
pub mod session;
pub mod sessions;
pub mod sheets;
pub mod state;
pub mod throttle;
pub mod ui;
pub mod wire;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::web::{self, Data, PayloadConfig};
use actix_web::{App, HttpResponse};
use utoipa::OpenApi;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::{Config, SwaggerUi};

/// Largest accepted request body: 1 MiB.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The OpenAPI document of every route, served at `/api/openapi.json`. Built by registering
/// every handler once through utoipa-actix-web (see [`routes`]), as JSON, finished where a
/// derive cannot say enough ([`openapi::finish`]).
pub fn openapi() -> serde_json::Value {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(openapi::ApiDoc::openapi())
        .service(utoipa_actix_web::scope("/api").configure(|cfg| api::configure(cfg)))
        .service(api::metrics::scrape)
        .split_for_parts();
    let mut document = serde_json::to_value(api).unwrap_or_default();
    openapi::finish(&mut document);
    document
}

/// The OpenAPI document, serialized on its first request and kept.
///
/// Building it takes about 16 MB of short-lived allocations (utoipa's schema maps); done at
/// start-up, they left the idle process 13 MiB larger for good. Now only a process whose API
/// reference was opened pays, and the build runs on the blocking pool.
#[derive(Debug, Default)]
pub struct OpenApiJson(std::sync::OnceLock<actix_web::web::Bytes>);

impl OpenApiJson {
    /// The serialized [`openapi()`] document (built on the first call; blocking).
    pub fn get(&self) -> actix_web::web::Bytes {
        self.0.get_or_init(|| openapi().to_string().into()).clone()
    }
}

/// `GET /api/openapi.json`, for a signed-in user only: the spec's public routes are health, setup
/// status, setup and login. The reference page fetches it with the browser's session cookie.
async fn openapi_json(
    doc: Data<OpenApiJson>,
    _user: session::CurrentUser,
) -> Result<HttpResponse, error::ApiError> {
    let json = web::block(move || doc.get())
        .await
        .map_err(|_| error::ApiError::new(error::Code::Internal))?;
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .body(json))
}

/// The whole application for one worker: routes, API reference at `/api-reference/`,
/// middleware. `doc` is one [`OpenApiJson`], shared by every worker.
pub fn app(
    state: Data<state::AppState>,
    doc: Data<OpenApiJson>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let api = web::scope("/api")
        .wrap(from_fn(roles::api_guard))
        .app_data(doc)
        .route("/openapi.json", web::get().to(openapi_json))
        .configure(api::configure);
    App::new()
        .app_data(state)
        .app_data(PayloadConfig::new(MAX_BODY_BYTES))
        .service(api)
        .service(api::metrics::scrape)
        .service(
            SwaggerUi::new("/api-reference/{_:.*}").config(
                Config::new(["/api/openapi.json"])
                    .validator_url("none")
                    .try_it_out_enabled(true),
            ),
        )
        .route(
            "/api-reference",
            web::get().to(|| async {
                HttpResponse::PermanentRedirect()
                    .insert_header(("Location", "/api-reference/"))
                    .finish()
            }),
        )
        .configure(ui::configure)
        .default_service(web::to(ui::not_found))
        .wrap(from_fn(middleware::origin_guard))
        .wrap(from_fn(middleware::request_id))
        .wrap(middleware::security_headers())
        .wrap(from_fn(middleware::head_as_get))
}
