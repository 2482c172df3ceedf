//! Who may do what (issue 48). Every route names what it needs where it is registered, and
//! [`require`] checks it in one place, before the handler runs:
//!
//! - an API route group is registered with its [`Access`] (`api::configure`: who reads, who
//!   writes); [`RoleTable`] collects each operation's role from those registrations once, the
//!   `/api` scope's middleware ([`api_guard`]) looks the request's route up in it, and the OpenAPI
//!   document states it as the scope of the operation's `session` security requirement
//!   (`"security": [{"session": ["STAFF"]}]`, OpenAPI 3.1's role names);
//! - a form of the UI that changes something, and a page only owners see, is registered with
//!   its role (`ui::configure`: [`staff`], [`owner`], [`at_least`]) and refused as the error
//!   page; every other page is any signed-in account's.
//!
//! A request without a session passes on to the handler, which answers 401 (the API) or sends
//! the browser to the login page (the UI): the guard only refuses an account whose role is below
//! the route's, with 403 `FORBIDDEN`.

use crate::error::{ApiError, Code};
use crate::routes::Routes;
use crate::session::CurrentUser;
use crate::ui::page::Ctx;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{HttpServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::{Next, from_fn};
use actix_web::{Error, FromRequest, Route};
use std::collections::HashMap;
use std::sync::LazyLock;
use utoipa::openapi::path::HttpMethod;
use utoipa_actix_web::OpenApiFactory;

pub use storage::records::Role;

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

/// The name of a role in the OpenAPI document and the API (`OWNER`, `STAFF`, `VIEWER`).
pub fn name(role: Role) -> &'static str {
    match role {
        Role::Owner => "OWNER",
        Role::Staff => "STAFF",
        Role::Viewer => "VIEWER",
    }
}

/// Each API operation's role by method and route pattern (`GET /api/prints/{id}`), collected
/// from the registrations of `api::configure` (once per process).
#[derive(Debug, Default)]
pub struct RoleTable {
    roles: HashMap<(String, String), Role>,
    access: Option<Access>,
    unguarded: Vec<String>,
}

/// The table of this build's API, built on first use.
pub static API_ROLES: LazyLock<RoleTable> = LazyLock::new(|| {
    let mut table = RoleTable::default();
    crate::api::configure(&mut table);
    table
});

impl RoleTable {
    /// The role `method` on the route `pattern` (`/api/prints/{id}`) needs; none for a route the
    /// table does not know.
    pub fn get(&self, method: &str, pattern: &str) -> Option<Role> {
        self.roles
            .get(&(method.to_ascii_uppercase(), pattern.to_string()))
            .copied()
    }

    /// Every operation registered outside a group with its access (`METHOD /path`): none in a
    /// correct build (a test holds it).
    pub fn unguarded(&self) -> &[String] {
        &self.unguarded
    }
}

impl Routes for RoleTable {
    fn add<F: HttpServiceFactory + OpenApiFactory + 'static>(&mut self, handler: F) -> &mut Self {
        for (path, item) in handler.paths().paths {
            let path = format!("/api{path}");
            for (method, _) in operations(&item) {
                let key = format!("{} {path}", method_name(&method));
                match self.access {
                    Some(access) => {
                        self.roles
                            .insert((method_name(&method).to_string(), path.clone()), access.role(&method));
                    }
                    None => self.unguarded.push(key),
                }
            }
        }
        self
    }

    fn access(&mut self, access: Access, group: impl FnOnce(&mut Self)) -> &mut Self {
        let outer = self.access.replace(access);
        group(self);
        self.access = outer;
        self
    }
}

/// The operations of a path item with their methods.
fn operations(item: &utoipa::openapi::PathItem) -> Vec<(HttpMethod, ())> {
    [
        (HttpMethod::Get, &item.get),
        (HttpMethod::Put, &item.put),
        (HttpMethod::Post, &item.post),
        (HttpMethod::Delete, &item.delete),
        (HttpMethod::Patch, &item.patch),
        (HttpMethod::Head, &item.head),
        (HttpMethod::Options, &item.options),
    ]
    .into_iter()
    .filter(|(_, operation)| operation.is_some())
    .map(|(method, _)| (method, ()))
    .collect()
}

fn method_name(method: &HttpMethod) -> &'static str {
    match method {
        HttpMethod::Get => "GET",
        HttpMethod::Put => "PUT",
        HttpMethod::Post => "POST",
        HttpMethod::Delete => "DELETE",
        HttpMethod::Patch => "PATCH",
        HttpMethod::Head => "HEAD",
        HttpMethod::Options => "OPTIONS",
        HttpMethod::Trace => "TRACE",
    }
}

/// Whether the request's account (when it has a session) holds `needed`.
/// Errors: 403 `FORBIDDEN` when its role is below; 503 when the session cannot be read.
async fn holds(req: &ServiceRequest, needed: Role) -> Result<(), ApiError> {
    match CurrentUser::extract(req.request()).await {
        Ok(user) if user.account.role < needed => Err(ApiError::new(Code::Forbidden)),
        Ok(_) => Ok(()),
        Err(e) if e.code == Code::Unauthenticated => Ok(()),
        Err(e) => Err(e),
    }
}

/// The `/api` scope's guard: the role of the request's operation from [`API_ROLES`].
pub async fn api_guard(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let needed = req
        .match_pattern()
        .and_then(|pattern| API_ROLES.get(req.method().as_str(), &pattern));
    if let Some(needed) = needed {
        if let Err(e) = holds(&req, needed).await {
            return Ok(req.error_response(e));
        }
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

/// `route` for accounts of `role` and above; a lower one gets the 403 page.
pub fn at_least(role: Role, route: Route) -> Route {
    route.wrap(from_fn(
        move |req: ServiceRequest, next: Next<BoxBody>| async move {
            if let Err(e) = holds(&req, role).await {
                let ctx = Ctx::extract(req.request()).await?;
                return Err(ctx.fail(&e).into());
            }
            next.call(req).await
        },
    ))
}

/// A form that runs the shop: staff and owners.
pub fn staff(route: Route) -> Route {
    at_least(Role::Staff, route)
}

/// A page or form that manages the shop: owners only.
pub fn owner(route: Route) -> Route {
    at_least(Role::Owner, route)
}
