//! Route registration that builds the OpenAPI document once, not per worker.
//!
//! utoipa-actix-web collects paths and schemas on every `service` call. Workers do not need them,
//! and building them in every worker cost about 10 MiB of retained memory each. So each API
//! module registers its handlers through [`Routes`]: utoipa's `ServiceConfig` once at start-up
//! (for `/api/openapi.json`), plain actix `ServiceConfig` in the workers.

use crate::roles::Access;
use actix_web::dev::HttpServiceFactory;
use utoipa_actix_web::OpenApiFactory;

/// Somewhere handlers are registered.
pub trait Routes {
    /// Registers `handler` (an annotated actix handler).
    fn add<F: HttpServiceFactory + OpenApiFactory + 'static>(&mut self, handler: F) -> &mut Self;

    /// Registers a group of handlers.
    fn with(&mut self, group: impl FnOnce(&mut Self)) -> &mut Self {
        group(self);
        self
    }

    /// Registers a group of handlers that need `access` ([`crate::roles`]: the role table
    /// records it; the workers and the OpenAPI document's registration need not).
    fn access(&mut self, access: Access, group: impl FnOnce(&mut Self)) -> &mut Self {
        let _ = access;
        group(self);
        self
    }
}

impl Routes for utoipa_actix_web::service_config::ServiceConfig<'_> {
    fn add<F: HttpServiceFactory + OpenApiFactory + 'static>(&mut self, handler: F) -> &mut Self {
        self.service(handler)
    }
}

impl Routes for actix_web::web::ServiceConfig {
    fn add<F: HttpServiceFactory + OpenApiFactory + 'static>(&mut self, handler: F) -> &mut Self {
        self.service(handler)
    }
}
