//! The browser UI: server-rendered pages (one askama template struct per page, templates in
//! `web/templates/`), static assets embedded in the binary ([`assets`]), and localization
//! ([`i18n`]).
//!
//! Pages read the actors' read side directly, as the API handlers do, and forms send the same
//! commands to the same writers; form fields are checked by the API's own input types, so a
//! field error reads the same in both. The session cookie and the Origin guard of the API apply
//! to every form. Without a session a page redirects to `/login` (or `/setup` on a fresh box).
//!
//! Every route string of the UI is in [`paths`].

pub mod assets;
mod auth;
pub mod chart;
mod choices;
mod dashboard;
mod forms;
mod history;
pub mod i18n;
mod inventory;
mod page;
mod print_detail;
mod print_editor;
mod prints;
mod report;
mod search;
mod settings;
mod spools;

pub use page::Chrome;

use actix_web::web;

/// Every UI route, in one place.
pub mod paths {
    /// First-run setup.
    pub const SETUP: &str = "/setup";
    /// Login form.
    pub const LOGIN: &str = "/login";
    /// Logout (POST).
    pub const LOGOUT: &str = "/logout";
    /// Dashboard.
    pub const DASHBOARD: &str = "/dashboard";
    /// Prints list.
    pub const PRINTS: &str = "/prints";
    /// Settings.
    pub const SETTINGS: &str = "/settings";
    /// The account's language (POST).
    pub const SETTINGS_LANGUAGE: &str = "/settings/language";
    /// Static assets.
    pub const STATIC: &str = "/static/{file:.*}";

    /// The navigation entry of a page path: the entry whose section the path is in.
    pub fn nav_of(path: &str) -> &'static str {
        const SECTIONS: [(&str, &str); 12] = [
            ("/prints", "/prints"),
            ("/reports", "/prints"),
            ("/series", "/series"),
            ("/customers", "/customers"),
            ("/manufacturers", "/manufacturers"),
            ("/printers", "/printers"),
            ("/components", "/components"),
            ("/filaments", "/filaments"),
            ("/stock", "/stock"),
            ("/spools", "/stock"),
            ("/search", "/search"),
            ("/settings", "/settings"),
        ];
        SECTIONS
            .iter()
            .find(|(section, _)| {
                path.strip_prefix(section)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
            .map_or(DASHBOARD, |(_, entry)| entry)
    }
}

/// Registers every UI route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(auth::home))
        .route(paths::SETUP, web::get().to(auth::setup_form))
        .route(paths::SETUP, web::post().to(auth::setup))
        .route(paths::LOGIN, web::get().to(auth::login_form))
        .route(paths::LOGIN, web::post().to(auth::login))
        .route(paths::LOGOUT, web::post().to(auth::logout))
        .route(paths::DASHBOARD, web::get().to(dashboard::show))
        .route(paths::PRINTS, web::get().to(prints::list))
        .route(paths::PRINTS, web::post().to(print_editor::create))
        .route("/prints/new", web::get().to(print_editor::new_form))
        .route("/prints/{id}", web::get().to(print_detail::show))
        .route("/prints/{id}/edit", web::get().to(print_editor::edit_form))
        .route("/prints/{id}/edit", web::post().to(print_editor::save))
        .route(
            "/prints/{id}/actions/{action}",
            web::post().to(print_detail::act),
        )
        .route("/prints/{id}/outcome", web::post().to(print_detail::record))
        .route(
            "/prints/{id}/outcome/correct",
            web::post().to(print_detail::correct),
        )
        .route(paths::SETTINGS, web::get().to(settings::show))
        .route(paths::SETTINGS, web::post().to(settings::save_settings))
        .route(paths::SETTINGS_LANGUAGE, web::post().to(settings::language))
        .route("/settings/features", web::post().to(settings::features))
        .route("/stock", web::get().to(spools::stock))
        .route("/spools/new", web::get().to(spools::new_form))
        .route("/spools", web::post().to(spools::create))
        .route("/spools/{id}", web::get().to(spools::show))
        .route("/spools/{id}/movements", web::post().to(spools::book))
        .route("/spools/{id}/archive", web::post().to(spools::archive))
        .route("/spools/{id}/label", web::get().to(spools::label))
        .route("/series", web::get().to(history::list))
        .route("/series", web::post().to(history::create))
        .route("/series/{id}", web::get().to(history::series_page))
        .route("/series/{id}/next-run", web::post().to(history::next_run))
        .route("/series/{id}/state", web::post().to(history::set_state))
        .route("/series/{id}/archive", web::post().to(history::archive))
        .route("/customers/{id}/history", web::get().to(history::customer))
        .route("/search", web::get().to(search::search))
        .route("/reports/prints/{id}", web::get().to(report::show))
        .route(paths::STATIC, web::get().to(assets::serve))
        .configure(inventory::configure);
}
