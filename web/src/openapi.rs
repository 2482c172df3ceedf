//! The OpenAPI 3.1 document's frame: info, tags (one per domain) and the cookie security scheme.
//! Paths and schemas are collected from the handlers by utoipa-actix-web.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// The document frame.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Print Cost Service API",
        description = "Exact 3D print pricing, inventory and stock for one print shop. Authentication is the `print-cost-session` cookie set by `POST /api/auth/login`; every write also needs an `Origin` matching the instance. Decimals are JSON strings; timestamps are ISO 8601 UTC; ids are UUID strings. Errors share one body: `{statusCode, message, data: {code, messageKey, fieldErrors?, requestId}}`."
    ),
    tags(
        (name = "health", description = "Liveness and database health"),
        (name = "auth", description = "First-run setup, login, sessions, account preferences"),
        (name = "settings", description = "Instance settings and feature flags"),
        (name = "customers", description = "Customers prints are made for"),
        (name = "manufacturers", description = "Makers of printers, components and filament"),
        (name = "printers", description = "Printers and their hourly depreciation"),
        (name = "components", description = "Hotends, build plates and other wear parts"),
        (name = "filaments", description = "Filament products and stock thresholds"),
        (name = "prints", description = "Prints with frozen cost snapshots: pricing, lifecycle, export, reports"),
        (name = "series", description = "Print series and their histories"),
        (name = "spools", description = "Filament spools and their stock ledger"),
        (name = "search", description = "Search across prints and inventory"),
        (name = "dashboard", description = "Money, material and success rates over a period"),
    ),
    modifiers(&SessionCookie)
)]
pub struct ApiDoc;

/// Adds the `session` security scheme: the `print-cost-session` cookie.
struct SessionCookie;

impl Modify for SessionCookie {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(
                crate::session::SESSION_COOKIE,
            ))),
        );
    }
}
