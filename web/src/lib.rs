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

/// The OpenAPI document as served: [`openapi()`] written out to `web/openapi.json` (compact: it
/// is generated, and every byte is in the binary) and compiled in, so serving it allocates
/// nothing.
///
/// Building the document takes about 30 MB of short-lived allocations (utoipa's schema maps) for
/// 415 KB of JSON; built in the process, on start-up or on the first request, the allocator kept
/// them and the idle service stayed 28 MiB larger for good. The test
/// `the_served_document_is_the_built_one` fails when the file and [`openapi()`] differ and says
/// how to write it again (`PRINTCOST_WRITE_OPENAPI=1 cargo test -p web openapi`).
pub const OPENAPI_JSON: &str = include_str!("../openapi.json");

/// `GET /api/openapi.json`, for a signed-in user only: the spec's public routes are health, setup
/// status, setup and login. The reference page fetches it with the browser's session cookie.
async fn openapi_json(_user: session::CurrentUser) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(OPENAPI_JSON)
}

/// The whole application for one worker: routes, API reference at `/api-reference/`,
/// middleware.
pub fn app(
    state: Data<state::AppState>,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Where [`OPENAPI_JSON`] is read from.
    const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json");

    #[test]
    fn the_served_document_is_the_built_one() {
        let built = openapi();
        let served: serde_json::Value = serde_json::from_str(OPENAPI_JSON).unwrap_or_default();
        if served == built {
            return;
        }
        if std::env::var_os("PRINTCOST_WRITE_OPENAPI").is_some() {
            let text = built.to_string() + "\n";
            std::fs::write(FILE, text).unwrap();
            panic!("{FILE} written again: build and test once more");
        }
        panic!(
            "{FILE} is not the document the routes build: write it again with \
             `PRINTCOST_WRITE_OPENAPI=1 cargo test -p web openapi` and commit it"
        );
    }
}
