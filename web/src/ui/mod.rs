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

mod accounts;
mod alerts;
pub mod assets;
mod auth;
mod backup;
mod changes;
pub mod chart;
mod choices;
mod company;
mod customer_prints;
mod dashboard;
mod format;
mod forms;
mod guard;
mod history;
pub mod i18n;
mod integrations;
mod inventory;
mod invoices;
mod journal;
mod maintenance;
mod meters;
mod numbering;
mod page;
mod peer_state;
mod pricing;
mod print_detail;
mod print_editor;
mod print_fleet;
mod print_fleet_form;
mod print_sheet;
mod printer_fleet;
mod prints;
mod quotes;
mod report;
mod search;
mod settings;
mod settings_form;
mod spoolmgr;
mod spools;

pub use page::{Chrome, not_found};

use actix_web::web;
use guard::{owner, staff};

pub mod paths;

/// Registers every UI route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    use paths::*;
    cfg.route(HOME, web::get().to(auth::home))
        .route(SETUP, web::get().to(auth::setup_form))
        .route(SETUP, web::post().to(auth::setup))
        .route(LOGIN, web::get().to(auth::login_form))
        .route(LOGIN, web::post().to(auth::login))
        .route(LOGOUT, web::post().to(auth::logout))
        .route(DASHBOARD, web::get().to(dashboard::show))
        .route(PRINTS, web::get().to(prints::list))
        .route(PRINTS, staff(web::post().to(print_editor::create)))
        .route(PRINT_NEW, staff(web::get().to(print_editor::new_form)))
        .route(PRINTS_SHEET, web::get().to(print_sheet::export))
        .route(
            PRINT_SLICED,
            staff(web::post().to(print_editor::from_sliced)),
        )
        .route(PRINT, web::get().to(print_detail::show))
        .route(PRINT_EDIT, staff(web::get().to(print_editor::edit_form)))
        .route(PRINT_EDIT, staff(web::post().to(print_editor::save)))
        .route(PRINT_ACTION, staff(web::post().to(print_detail::act)))
        .route(PRINT_OUTCOME, staff(web::post().to(print_detail::record)))
        .route(
            PRINT_CORRECTION,
            staff(web::post().to(print_detail::correct)),
        )
        .route(SETTINGS, web::get().to(settings::show))
        .route(SETTINGS, owner(web::post().to(settings::save_settings)))
        .route(SETTINGS_LANGUAGE, web::post().to(settings::language))
        .route(SETTINGS_FEATURES, owner(web::post().to(settings::features)))
        .route(
            SETTINGS_METRICS,
            owner(web::post().to(settings::metrics_token)),
        )
        .route(SETTINGS_PRICING, web::get().to(pricing::show))
        .route(SETTINGS_PRICING, owner(web::post().to(pricing::save)))
        .route(SETTINGS_COMPANY, web::get().to(company::show))
        .route(SETTINGS_COMPANY, owner(web::post().to(company::save)))
        .route(SETTINGS_NUMBERING, web::get().to(numbering::show))
        .route(SETTINGS_NUMBERING, owner(web::post().to(numbering::save)))
        .route(SETTINGS_ACCOUNTS, owner(web::get().to(accounts::show)))
        .route(SETTINGS_JOURNAL, owner(web::get().to(journal::show)))
        .route(SETTINGS_ACCOUNTS, owner(web::post().to(accounts::create)))
        .route(SETTINGS_ACCOUNT, owner(web::post().to(accounts::change)))
        .route(
            SETTINGS_ACCOUNT_SESSION_END,
            owner(web::post().to(accounts::end_session)),
        )
        .route(INVOICES, web::get().to(invoices::list))
        .route(INVOICES, staff(web::post().to(invoices::create)))
        .route(INVOICE_NEW, staff(web::get().to(invoices::new_form)))
        .route(INVOICE, web::get().to(invoices::show))
        .route(INVOICE_ACTION, staff(web::post().to(invoices::act)))
        .route(QUOTES, web::get().to(quotes::list))
        .route(QUOTES, staff(web::post().to(quotes::create)))
        .route(QUOTE_NEW, staff(web::get().to(quotes::new_form)))
        .route(QUOTE, web::get().to(quotes::show))
        .route(QUOTE_EDIT, staff(web::get().to(quotes::edit_form)))
        .route(QUOTE_EDIT, staff(web::post().to(quotes::update)))
        .route(QUOTE_ACTION, staff(web::post().to(quotes::act)))
        .route(QUOTE_DOCUMENT, web::get().to(quotes::document))
        .route(MAINTENANCE, web::get().to(maintenance::show))
        .route(MAINTENANCE, staff(web::post().to(maintenance::create)))
        .route(MAINTENANCE_TASK, web::get().to(maintenance::task))
        .route(MAINTENANCE_DONE, staff(web::post().to(maintenance::done)))
        .route(
            SETTINGS_INTEGRATIONS,
            owner(web::get().to(integrations::show)),
        )
        .route(SETTINGS_BACKUP, owner(web::get().to(backup::show)))
        .route(SETTINGS_BACKUP, owner(web::post().to(backup::save)))
        .route(SETTINGS_BACKUP_NOW, owner(web::post().to(backup::now)))
        .route(SETTINGS_ALERTS, owner(web::get().to(alerts::show)))
        .route(SETTINGS_ALERTS, owner(web::post().to(alerts::save)))
        .route(ALERT_WEBHOOKS, owner(web::post().to(alerts::add)))
        .route(ALERT_WEBHOOK_DELETE, owner(web::post().to(alerts::remove)))
        .route(
            ALERT_WEBHOOK_TEST,
            owner(web::post().to(alerts::test_webhook)),
        )
        .route(ALERT_MQTT_TEST, owner(web::post().to(alerts::test_mqtt)))
        .route(
            SETTINGS_INTEGRATIONS,
            owner(web::post().to(integrations::save)),
        )
        .route(STOCK, web::get().to(spools::stock))
        .route(PRINTER_FLEET, web::get().to(printer_fleet::show))
        .route(PRINTER_FLEET, staff(web::post().to(printer_fleet::act)))
        .route(PRINTER_METER, staff(web::post().to(inventory::save_meter)))
        .route(PRINTER_POWER, staff(web::post().to(meters::adopt)))
        .route(PRINT_FLEET, staff(web::post().to(print_fleet_form::act)))
        .route(SPOOLMGR, web::get().to(spoolmgr::show))
        .route(SPOOLMGR, staff(web::post().to(spoolmgr::act)))
        .route(SPOOL_NEW, staff(web::get().to(spools::new_form)))
        .route(SPOOLS, staff(web::post().to(spools::create)))
        .route(SPOOL, web::get().to(spools::show))
        .route(SPOOL, staff(web::post().to(spools::save)))
        .route(SPOOL_MOVEMENTS, staff(web::post().to(spools::book)))
        .route(SPOOL_ARCHIVE, staff(web::post().to(spools::archive)))
        .route(SPOOL_LABEL, web::get().to(spools::label))
        .route(SERIES_LIST, web::get().to(history::list))
        .route(SERIES_LIST, staff(web::post().to(history::create)))
        .route(SERIES, web::get().to(history::series_page))
        .route(SERIES_NEXT_RUN, staff(web::post().to(history::next_run)))
        .route(SERIES_STATE, staff(web::post().to(history::set_state)))
        .route(SERIES_ARCHIVE, staff(web::post().to(history::archive)))
        .route(CUSTOMER_HISTORY, web::get().to(history::customer))
        .route(SEARCH, web::get().to(search::search))
        .route(REPORT, web::get().to(report::show))
        .route(STATIC, web::get().to(assets::serve))
        .configure(inventory::configure);
    for (form, page) in FORM_PAGES {
        cfg.route(
            form,
            web::get().to(move |req| page::back_to_form_page(req, page)),
        );
    }
}
