//! Who may do what (issue 48). Every route names what it needs where it is registered, and
//! one guard checks it in one place, before the handler runs:
//!
//! - an API route group is registered with its [`Access`] (`api::configure`: who reads, who
//!   writes); [`RoleTable`] collects each operation's role from those registrations once, the
//!   `/api` scope's middleware ([`api_guard`]) looks the request's route up in it, and the OpenAPI
//!   document states it as the scope of the operation's `session` security requirement
//!   (`"security": [{"session": ["STAFF"]}]`, OpenAPI 3.1's role names);
//! - a form of the UI that changes something, and a page only owners see, is registered with
//!   its role (`ui::configure`, through `ui::guard`) and refused as the error page; every other
//!   page is any signed-in account's.
//!
//! A request without a session passes on to the handler, which answers 401 (the API) or sends
//! the browser to the login page (the UI): the guard only refuses an account whose role is below
//! the route's, with 403 `FORBIDDEN`.

use crate::api;
use crate::error::{ApiError, Code};
use crate::routes::{Access, Routes};
use crate::session::CurrentUser;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{HttpServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, FromRequest};
use std::collections::HashMap;
use std::sync::LazyLock;
use utoipa::openapi::path::HttpMethod;
use utoipa_actix_web::OpenApiFactory;

pub use storage::records::Role;

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
    api::configure(&mut table);
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
            for method in methods(&item) {
                let name = method_name(&method).to_string();
                match self.access {
                    Some(access) => {
                        let role = access.role(&method);
                        self.roles.insert((name, path.clone()), role);
                    }
                    None => self.unguarded.push(format!("{name} {path}")),
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

/// The methods of a path item's operations.
fn methods(item: &utoipa::openapi::PathItem) -> Vec<HttpMethod> {
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
    .map(|(method, _)| method)
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
pub(crate) async fn holds(req: &ServiceRequest, needed: Role) -> Result<(), ApiError> {
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
    // Every account holds VIEWER: only a higher role needs the session read here.
    if let Some(needed) = needed.filter(|&role| role > Role::Viewer)
        && let Err(e) = holds(&req, needed).await
    {
        return Ok(req.error_response(e));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation of the API is registered in a group that names its access, and the
    /// groups give what the issue asks: viewers read the shop, staff run it, owners manage it.
    #[test]
    fn every_operation_has_a_role() {
        assert_eq!(API_ROLES.unguarded(), &[] as &[String]);
        let role = |method: &str, path: &str| API_ROLES.get(method, path);
        assert_eq!(role("GET", "/api/prints"), Some(Role::Viewer));
        assert_eq!(role("POST", "/api/prints"), Some(Role::Staff));
        assert_eq!(role("PATCH", "/api/settings/pricing"), Some(Role::Owner));
        assert_eq!(role("GET", "/api/backups"), Some(Role::Owner));
        assert_eq!(role("POST", "/api/accounts"), Some(Role::Owner));
        assert_eq!(role("PATCH", "/api/auth/password"), Some(Role::Viewer));
        assert_eq!(role("GET", "/api/no-such-route"), None);
    }
}
