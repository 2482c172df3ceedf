//! The `/api` routes, one module per resource. Handlers extract, send one command or run one
//! read, and map the answer; the rules live in the `actors` crate.

pub mod accounts;
pub mod address;
pub mod alerts;
pub mod auth;
pub mod backup;
pub mod charges;
pub mod company;
pub mod components;
pub mod customers;
pub mod dashboard;
pub mod filaments;
pub mod health;
pub mod integration_settings;
pub mod inventory;
pub mod invoices;
pub mod journal;
pub mod labour_rates;
pub mod maintenance;
pub mod manufacturers;
pub mod materials;
pub mod meters;
pub mod metrics;
pub mod numbering;
pub mod post_processing_steps;
pub mod power;
pub mod pricing;
pub mod printers;
pub mod printfleet;
pub mod prints;
pub mod quotes;
pub mod search;
pub mod series;
pub mod settings;
pub mod spoolmgr;
pub mod spools;
pub mod version;

use crate::routes;
use crate::routes::Access;
use actors::inventory::Page;
use serde::Serialize;
use utoipa::ToSchema;

/// A page of a list: `items`, `total` (matches after filters, before pagination), `page`,
/// `pageSize`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResponse<T> {
    /// The page's items.
    pub items: Vec<T>,
    /// Matches in all pages.
    pub total: u64,
    /// One-based page number.
    pub page: u32,
    /// Items per page.
    pub page_size: u32,
}

impl<T> ListResponse<T> {
    /// The wire form of `page`, with `dto` applied to each item.
    pub fn of<V>(page: Page<V>, dto: impl FnMut(V) -> T) -> Self {
        let page = page.map(dto);
        ListResponse {
            items: page.items,
            total: page.total,
            page: page.page,
            page_size: page.page_size,
        }
    }
}

/// Registers every `/api` route (the caller mounts this under `/api`), each group with who may
/// read and who may write it ([`Access`], checked by `crate::roles::api_guard`).
pub fn configure(cfg: &mut impl routes::Routes) {
    // Routes are matched in registration order, each dynamic one by a regex: the hottest routes
    // (ledger movements, print pages) come first.
    cfg.access(Access::SHOP, |cfg| {
        cfg.with(spools::configure).with(prints::configure);
    })
    .access(Access::ANYONE, |cfg| {
        cfg.add(health::health).with(auth::configure);
    })
    .access(Access::MANAGED, |cfg| {
        cfg.with(settings::configure)
            .with(pricing::configure)
            .with(company::configure)
            .with(numbering::configure);
    })
    .access(Access::OWNER, |cfg| {
        cfg.with(metrics::configure)
            .with(alerts::configure)
            .with(integration_settings::configure);
    })
    .access(Access::SHOP, |cfg| {
        cfg.with(spoolmgr::configure)
            .with(printfleet::configure)
            .with(customers::configure)
            .with(manufacturers::configure)
            .with(printers::configure)
            .with(components::configure)
            .with(filaments::configure)
            .with(materials::configure);
    })
    .access(Access::MANAGED, |cfg| {
        cfg.with(labour_rates::configure)
            .with(charges::configure)
            .with(post_processing_steps::configure);
    })
    .access(Access::SHOP, |cfg| {
        cfg.with(series::configure)
            .with(quotes::configure)
            .with(invoices::configure)
            .with(maintenance::configure)
            .with(meters::configure)
            .with(power::configure)
            .with(journal::configure);
    })
    .access(Access::ANYONE, |cfg| {
        cfg.add(search::search)
            .add(dashboard::get_dashboard)
            .add(version::version_latest);
    })
    .access(Access::OWNER, |cfg| {
        cfg.with(backup::configure)
            .with(accounts::configure)
            .with(journal::configure_export);
    });
}
