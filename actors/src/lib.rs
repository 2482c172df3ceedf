//! The rules of the print-cost appliance and the actors that apply them.
//!
//! Owns: validated domain values ([`values`]), money arithmetic ([`money`]), account and session
//! rules ([`accounts`]), settings and feature flags ([`settings`]), inventory rules
//! ([`inventory`]), demo data ([`demo`]), and the writer actors ([`writer`]) that serialize every
//! write to the store: one actix actor per aggregate, each on its own arbiter thread, committing
//! one redb write transaction per batch of commands.
//!
//! Every write is a named command ([`command::Command`]) whose `apply` holds the write's rules,
//! sent to the writer its type names ([`writer::Writers::send`]); every read is a named query
//! ([`command::Query`]) run in a read transaction off the async executor. `docs/architecture.md`
//! walks one of each from handler to answer.
//!
//! May use: the `storage` crate. Never touches HTTP: the web crate translates requests into
//! commands and queries.

pub mod accounts;
pub mod alerts;
pub mod backup;
pub mod bridge;
pub mod command;
pub mod costing;
pub mod dashboard;
pub mod demo;
mod error;
pub mod integrations;
pub mod inventory;
pub mod ledger;
pub mod lines;
pub mod list;
pub mod maintenance;
pub mod meters;
pub mod metrics;
pub mod money;
pub mod passwords;
pub mod prints;
pub mod scrape;
pub mod search;
pub mod series;
pub mod settings;
pub mod setup;
pub mod sliced;
pub mod stock;
pub mod txn;
pub mod values;
pub mod writer;

pub use error::{Error, FieldError, Result};
