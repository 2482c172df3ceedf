//! Every UI route, in one place: the patterns the routes are registered under, and builders of
//! the addresses pages link and redirect to.

use storage::Id;

/// The home page (redirects to the dashboard, the login or the setup).
pub const HOME: &str = "/";
/// First-run setup.
pub const SETUP: &str = "/setup";
/// Login form.
pub const LOGIN: &str = "/login";
/// Logout (POST).
pub const LOGOUT: &str = "/logout";
/// Dashboard.
pub const DASHBOARD: &str = "/dashboard";
/// Prints list (GET), new draft (POST).
pub const PRINTS: &str = "/prints";
/// The editor of a new draft.
pub const PRINT_NEW: &str = "/prints/new";
/// The prints list's DONE prints as a spreadsheet in the owner's language (CSV).
pub const PRINTS_SHEET: &str = "/prints/export.csv";
/// A sliced file made into a draft (POST, multipart).
pub const PRINT_SLICED: &str = "/prints/sliced";
/// A print's page.
pub const PRINT: &str = "/prints/{id}";
/// A draft's editor (GET) and save (POST).
pub const PRINT_EDIT: &str = "/prints/{id}/edit";
/// A print command (POST): status, paid, archive, complete, duplicate, repeat, retry.
pub const PRINT_ACTION: &str = "/prints/{id}/actions/{action}";
/// Records an outcome (POST).
pub const PRINT_OUTCOME: &str = "/prints/{id}/outcome";
/// Corrects an outcome (POST).
pub const PRINT_CORRECTION: &str = "/prints/{id}/outcome/correct";
/// A DONE print's A4 report.
pub const REPORT: &str = "/reports/prints/{id}";
/// Invoices (GET), a new invoice (POST).
pub const INVOICES: &str = "/invoices";
/// The form of a new invoice.
pub const INVOICE_NEW: &str = "/invoices/new";
/// An invoice's page.
pub const INVOICE: &str = "/invoices/{id}";
/// An invoice command (POST): issue, delete, credit-note.
pub const INVOICE_ACTION: &str = "/invoices/{id}/actions/{action}";
/// Quotes (GET), a new quote (POST).
pub const QUOTES: &str = "/quotes";
/// The form of a new quote.
pub const QUOTE_NEW: &str = "/quotes/new";
/// A quote's page.
pub const QUOTE: &str = "/quotes/{id}";
/// A DRAFT quote's form (GET) and save (POST).
pub const QUOTE_EDIT: &str = "/quotes/{id}/edit";
/// A quote command (POST): send, accept, decline, delete.
pub const QUOTE_ACTION: &str = "/quotes/{id}/actions/{action}";
/// A quote's A4 document in the customer's language.
pub const QUOTE_DOCUMENT: &str = "/quotes/{id}/document";
/// Settings.
pub const SETTINGS: &str = "/settings";
/// The account's language (POST).
pub const SETTINGS_LANGUAGE: &str = "/settings/language";
/// The integrations' settings.
pub const SETTINGS_INTEGRATIONS: &str = "/settings/integrations";
/// Backup: download, last download, restore command.
pub const SETTINGS_BACKUP: &str = "/settings/backup";
/// Settings › Backup: write a backup to the folder now.
pub const SETTINGS_BACKUP_NOW: &str = "/settings/backup/now";
/// Maintenance tasks; POST creates one.
pub const MAINTENANCE: &str = "/maintenance";
/// A maintenance task's page: where it stands, when it was done, who changed what.
pub const MAINTENANCE_TASK: &str = "/maintenance/{id}";
/// Marks a task done (POST).
pub const MAINTENANCE_DONE: &str = "/maintenance/{id}/done";
/// Settings › Alerts; POST saves the thresholds.
pub const SETTINGS_ALERTS: &str = "/settings/alerts";
/// Adds a webhook (POST).
pub const ALERT_WEBHOOKS: &str = "/settings/alerts/webhooks";
/// Removes a webhook (POST).
pub const ALERT_WEBHOOK_DELETE: &str = "/settings/alerts/webhooks/{id}/delete";
/// Sends a webhook a test (POST).
pub const ALERT_WEBHOOK_TEST: &str = "/settings/alerts/webhooks/{id}/test";
/// Publishes a test on MQTT (POST).
pub const ALERT_MQTT_TEST: &str = "/settings/alerts/mqtt/test";
/// The metrics token (POST).
pub const SETTINGS_METRICS: &str = "/settings/metrics";
/// Settings › Company: the shop as its quotes name it.
pub const SETTINGS_COMPANY: &str = "/settings/company";
/// Settings › Numbers.
pub const SETTINGS_NUMBERING: &str = "/settings/numbering";
/// Settings › Accounts: the accounts and their roles (an owner's).
pub const SETTINGS_ACCOUNTS: &str = "/settings/accounts";
/// Settings › Journal: every change, filtered and paged; the chain's check (`?verify=1`).
pub const SETTINGS_JOURNAL: &str = "/settings/journal";
/// One account's role and state (POST).
pub const SETTINGS_ACCOUNT: &str = "/settings/accounts/{id}";
/// Ends one session of an account (`POST`).
pub const SETTINGS_ACCOUNT_SESSION_END: &str = "/settings/accounts/{id}/sessions/{session}/end";
/// Settings › Pricing: the shop's price rule.
pub const SETTINGS_PRICING: &str = "/settings/pricing";
/// Feature flags (POST).
pub const SETTINGS_FEATURES: &str = "/settings/features";
/// Filament stock.
pub const STOCK: &str = "/stock";
/// The spool manager: its status, import preview and operations (GET), its actions (POST).
pub const SPOOLMGR: &str = "/stock/spoolmgr";
/// A printer's printer-fleet page: its link, trays and mapped spools (GET), its actions (POST).
pub const PRINTER_FLEET: &str = "/printers/{id}/fleet";
/// A print's log import from the printer fleet (POST): attach, sync, import.
pub const PRINT_FLEET: &str = "/prints/{id}/fleet";
/// Opens a spool (POST).
pub const SPOOLS: &str = "/spools";
/// The form of a new spool.
pub const SPOOL_NEW: &str = "/spools/new";
/// A spool's page with its ledger (GET); its details' change (POST).
pub const SPOOL: &str = "/spools/{id}";
/// Books a movement (POST).
pub const SPOOL_MOVEMENTS: &str = "/spools/{id}/movements";
/// Archives or restores a spool (POST).
pub const SPOOL_ARCHIVE: &str = "/spools/{id}/archive";
/// A spool's printable label.
pub const SPOOL_LABEL: &str = "/spools/{id}/label";
/// Series list (GET), new series (POST).
pub const SERIES_LIST: &str = "/series";
/// A series' page with its history.
pub const SERIES: &str = "/series/{id}";
/// A series' next run (POST).
pub const SERIES_NEXT_RUN: &str = "/series/{id}/next-run";
/// A series' state (POST).
pub const SERIES_STATE: &str = "/series/{id}/state";
/// Archives or restores a series (POST).
pub const SERIES_ARCHIVE: &str = "/series/{id}/archive";
/// A customer's print history.
pub const CUSTOMER_HISTORY: &str = "/customers/{id}/history";
/// Global search.
pub const SEARCH: &str = "/search";
/// Static assets.
pub const STATIC: &str = "/static/{file:.*}";

/// Customers.
pub const CUSTOMERS: &str = "/customers";
/// Manufacturers.
pub const MANUFACTURERS: &str = "/manufacturers";
/// Printers.
pub const PRINTERS: &str = "/printers";
/// A printer's page (its form, wear and meter).
pub const PRINTER: &str = "/printers/{id}";
/// Links, changes or unlinks a printer's energy meter (POST).
pub const PRINTER_METER: &str = "/printers/{id}/meter";
/// Adopts a power learned from the printer's meter as its average power (POST).
pub const PRINTER_POWER: &str = "/printers/{id}/power";
/// Components.
pub const COMPONENTS: &str = "/components";
/// A component's page.
pub const COMPONENT: &str = "/components/{id}";
/// Replaces a worn component (POST).
pub const COMPONENT_REPLACE: &str = "/components/{id}/replace";
/// Filaments.
pub const FILAMENTS: &str = "/filaments";
/// Materials of every kind: filaments, resins, consumables.
pub const MATERIALS: &str = "/materials";
/// Labour rates.
pub const LABOUR_RATES: &str = "/labour-rates";
/// Fixed charges.
pub const CHARGES: &str = "/charges";
/// Post-processing steps.
pub const STEPS: &str = "/post-processing-steps";
/// The inventory sections, in navigation order.
pub const INVENTORY: [&str; 9] = [
    CUSTOMERS,
    MANUFACTURERS,
    PRINTERS,
    COMPONENTS,
    FILAMENTS,
    MATERIALS,
    LABOUR_RATES,
    CHARGES,
    STEPS,
];

/// Each POST-only form address with the page its form is on, where a GET of it goes
/// (`page::back_to_form_page`); the inventory's archive and delete forms are beside
/// their routes.
pub const FORM_PAGES: [(&str, &str); 25] = [
    (LOGOUT, HOME),
    (PRINT_SLICED, PRINTS),
    (PRINT_ACTION, PRINT),
    (PRINT_OUTCOME, PRINT),
    (PRINT_CORRECTION, PRINT),
    (PRINT_FLEET, PRINT),
    (SETTINGS_LANGUAGE, SETTINGS),
    (SETTINGS_FEATURES, SETTINGS),
    (SETTINGS_METRICS, SETTINGS),
    (SETTINGS_BACKUP_NOW, SETTINGS_BACKUP),
    (SETTINGS_ACCOUNT, SETTINGS_ACCOUNTS),
    (SETTINGS_ACCOUNT_SESSION_END, SETTINGS_ACCOUNTS),
    (MAINTENANCE_DONE, MAINTENANCE),
    (ALERT_WEBHOOKS, SETTINGS_ALERTS),
    (ALERT_WEBHOOK_DELETE, SETTINGS_ALERTS),
    (ALERT_WEBHOOK_TEST, SETTINGS_ALERTS),
    (ALERT_MQTT_TEST, SETTINGS_ALERTS),
    (SPOOLS, STOCK),
    (SPOOL_MOVEMENTS, SPOOL),
    (SPOOL_ARCHIVE, SPOOL),
    (SERIES_NEXT_RUN, SERIES),
    (SERIES_STATE, SERIES),
    (SERIES_ARCHIVE, SERIES),
    (PRINTER_METER, PRINTER),
    (PRINTER_POWER, PRINTER),
];

/// `pattern` with its `{id}` filled in.
fn with_id(pattern: &str, id: Id) -> String {
    pattern.replace("{id}", &id.to_string())
}

/// The page of print `id`.
pub fn print(id: Id) -> String {
    with_id(PRINT, id)
}

/// The page of invoice `id`.
pub fn invoice(id: Id) -> String {
    with_id(INVOICE, id)
}

/// The page of quote `id`.
pub fn quote(id: Id) -> String {
    with_id(QUOTE, id)
}

/// The A4 document of quote `id`.
pub fn quote_document(id: Id) -> String {
    with_id(QUOTE_DOCUMENT, id)
}

/// The page of maintenance task `id`.
pub fn maintenance_task(id: Id) -> String {
    with_id(MAINTENANCE_TASK, id)
}

/// The page of series `id`.
pub fn series(id: Id) -> String {
    with_id(SERIES, id)
}

/// The printer-fleet page of printer `id`.
pub fn printer_fleet(id: Id) -> String {
    with_id(PRINTER_FLEET, id)
}

/// The page of spool `id`.
pub fn spool(id: Id) -> String {
    with_id(SPOOL, id)
}

/// The login page, sending the person on to the page `req` asked for once signed in (a GET's
/// path and query; the dashboard, where a login goes anyway, and any other request: none).
pub fn login_then(req: &actix_web::HttpRequest) -> String {
    if req.method() != actix_web::http::Method::GET || req.path() == DASHBOARD {
        return LOGIN.to_string();
    }
    let wanted = match req.query_string() {
        "" => req.path().to_string(),
        query => format!("{}?{query}", req.path()),
    };
    let next: String = url_encoded(&wanted);
    format!("{LOGIN}?next={next}")
}

/// `text` percent-encoded as one query value.
fn url_encoded(text: &str) -> String {
    serde_urlencoded::to_string([("", text)])
        .map(|pair| pair.trim_start_matches('=').to_string())
        .unwrap_or_default()
}

/// Where a login goes on to: `next` when it is a path of this site (one leading `/`, no scheme,
/// host or backslash, not the login page itself), else the dashboard.
pub fn after_login(next: &str) -> &str {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control)
        && !next.starts_with(LOGIN);
    if local { next } else { DASHBOARD }
}

/// The navigation entry of a page path: the entry whose section the path is in.
pub fn nav_of(path: &str) -> &'static str {
    const SECTIONS: [(&str, &str); 19] = [
        (PRINTS, PRINTS),
        (QUOTES, QUOTES),
        (INVOICES, INVOICES),
        ("/reports", PRINTS),
        (SERIES_LIST, SERIES_LIST),
        (CUSTOMERS, CUSTOMERS),
        (MANUFACTURERS, MANUFACTURERS),
        (PRINTERS, PRINTERS),
        (COMPONENTS, COMPONENTS),
        (FILAMENTS, FILAMENTS),
        (MATERIALS, MATERIALS),
        (LABOUR_RATES, LABOUR_RATES),
        (CHARGES, CHARGES),
        (STEPS, STEPS),
        (STOCK, STOCK),
        (SPOOLS, STOCK),
        (SEARCH, SEARCH),
        (SETTINGS, SETTINGS),
        (MAINTENANCE, MAINTENANCE),
    ];
    SECTIONS
        .iter()
        .find(|(section, _)| {
            path.strip_prefix(section)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
        .map_or(DASHBOARD, |(_, entry)| entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_fill_the_patterns() {
        let id = Id::new();
        assert_eq!(print(id), format!("/prints/{id}"));
        assert_eq!(series(id), format!("/series/{id}"));
        assert_eq!(maintenance_task(id), format!("/maintenance/{id}"));
        assert_eq!(spool(id), format!("/spools/{id}"));
    }

    #[test]
    fn a_login_goes_on_only_to_a_page_of_this_site() {
        assert_eq!(after_login("/spools/x/label"), "/spools/x/label");
        assert_eq!(after_login("/prints?status=DONE"), "/prints?status=DONE");
        for elsewhere in [
            "",
            "https://evil.example/",
            "//evil.example",
            "/\\evil",
            "/login?next=/x",
            "dashboard",
        ] {
            assert_eq!(after_login(elsewhere), DASHBOARD, "{elsewhere}");
        }
    }

    #[test]
    fn pages_mark_their_section() {
        assert_eq!(nav_of("/reports/prints/x"), PRINTS);
        assert_eq!(nav_of("/spools/x/label"), STOCK);
        assert_eq!(nav_of("/printers/x"), PRINTERS);
        assert_eq!(nav_of("/printersx"), DASHBOARD);
    }
}
