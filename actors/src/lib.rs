//! The rules of the print-cost appliance and the actors that apply them.
//!
//! Owns: validated domain values ([`values`]), money arithmetic ([`money`]), account and session
//! rules ([`accounts`]), settings and feature flags ([`settings`]), inventory rules
//! ([`inventory`]), demo data ([`demo`]), and the writer actors ([`writer`]) that serialize every
//! write to the store: one actix actor per aggregate, each on its own arbiter thread, committing
//! one redb write transaction per batch of commands.
//!
//! May use: the `storage` crate. Never touches HTTP: the web crate translates requests into calls
//! of the rule functions here, sent through a [`writer::WriterHandle`] for writes and run in a
//! read transaction (off the async executor) for reads.

pub mod accounts;
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
pub mod list;
pub mod money;
pub mod passwords;
pub mod prints;
pub mod search;
pub mod series;
pub mod settings;
pub mod setup;
pub mod stock;
pub mod txn;
pub mod values;
pub mod writer;

pub use error::{Error, FieldError, Result};
