//! The UI's side of the roles ([`crate::roles`]): a form or page registered for a role refuses
//! an account below it with the error page (403 `FORBIDDEN`).

use super::page::Ctx;
use crate::roles::holds;
use actix_web::body::BoxBody;
use actix_web::dev::ServiceRequest;
use actix_web::middleware::{Next, from_fn};
use actix_web::{FromRequest, Route};
use storage::records::Role;

/// `route` for accounts of `role` and above; a lower one gets the 403 page.
pub fn at_least(role: Role, route: Route) -> Route {
    route.wrap(from_fn(
        move |req: ServiceRequest, next: Next<BoxBody>| async move {
            if let Err(e) = holds(&req, role).await {
                // As a response carrying the page, which the error middleware keeps.
                let page = Ctx::extract(req.request()).await?.fail(&e);
                return Ok(req.error_response(page));
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
