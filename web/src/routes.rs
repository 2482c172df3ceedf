//! Route registration that builds the OpenAPI document once, not per worker.
//!
//! utoipa-actix-web collects paths and schemas on every `service` call. Workers do not need them,
//! and building them in every worker cost about 10 MiB of retained memory each. So each API
//! module registers its handlers through [`Routes`]: utoipa's `ServiceConfig` once at start-up
//! (for `/api/openapi.json`), plain actix `ServiceConfig` in the workers.

use actix_web::dev::HttpServiceFactory;
use storage::records::Role;
use utoipa::openapi::path::HttpMethod;
use utoipa_actix_web::OpenApiFactory;

/// What a route group needs: the role that may read (GET) and the role that may change anything
/// (every other method).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Who may read.
    pub reads: Role,
    /// Who may write.
    pub writes: Role,
}

impl Access {
    /// Everyone signed in reads; staff write: running the shop.
    pub const SHOP: Access = Access {
        reads: Role::Viewer,
        writes: Role::Staff,
    };
    /// Everyone signed in reads; owners write: managing the shop.
    pub const MANAGED: Access = Access {
        reads: Role::Viewer,
        writes: Role::Owner,
    };
    /// Owners only, reads included (accounts, backups, integrations' and alerts' settings).
    pub const OWNER: Access = Access {
        reads: Role::Owner,
        writes: Role::Owner,
    };
    /// Every account, for what each does for itself (its session, password, language) and the
    /// routes that need none.
    pub const ANYONE: Access = Access {
        reads: Role::Viewer,
        writes: Role::Viewer,
    };

    /// The role a request of `method` needs.
    pub fn role(self, method: &HttpMethod) -> Role {
        match method {
            HttpMethod::Get | HttpMethod::Head | HttpMethod::Options => self.reads,
            _ => self.writes,
        }
    }
}

/// Somewhere handlers are registered.
pub trait Routes {
    /// Registers `handler` (an annotated actix handler).
    fn add<F: HttpServiceFactory + OpenApiFactory + 'static>(&mut self, handler: F) -> &mut Self;

    /// Registers a group of handlers.
    fn with(&mut self, group: impl FnOnce(&mut Self)) -> &mut Self {
        group(self);
        self
    }

    /// Registers a group of handlers that need `access` ([`crate::roles`]' table records it;
    /// the workers and the OpenAPI document's registration need not).
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
