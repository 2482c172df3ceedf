//! The rules of the print-cost appliance and the actors that apply them.
//!
//! Two floors. The rules: validated domain values ([`values`]), the words in both languages
//! ([`words`], the one message catalogue), money arithmetic ([`money`]) and
//! the cost formula ([`costing`]), accounts and sessions ([`accounts`]), settings and feature
//! flags ([`settings`]), the inventory ([`inventory`]), prints, their outcomes and the print
//! projection ([`prints`]), series ([`series`]), the spool ledger and stock ([`ledger`],
//! [`stock`]), maintenance ([`maintenance`]), energy meters ([`meters`]), sliced files
//! ([`sliced`]), alerts ([`alerts`]), backups ([`backup`]), the integrations' rules and clients
//! ([`integrations`]), the dashboard, search, metrics and demo data; and the Modbus-to-MQTT
//! bridge ([`bridge`]), a product of its own whose MQTT link the appliance also uses. Above
//! them, what runs ([`runtime`]): the writer actors that serialize every write (one per
//! aggregate, each on its own arbiter thread, one redb write transaction per batch of
//! commands), the one read path, and the background actors, all started by
//! [`runtime::Appliance::start`].
//!
//! Every write is a named command ([`command::Command`]) whose `apply` holds the write's rules,
//! sent to the writer its type names ([`runtime::writer::Writers::send`]); every read is a named
//! query ([`command::Query`]) run through [`runtime::reader::Reader`], in a read transaction off
//! the async executor. `docs/architecture.md` walks one of each from handler to answer.
//!
//! May use: the `storage` crate. Never touches HTTP: the web crate translates requests into
//! commands and queries.

pub mod accounts;
pub mod alerts;
pub mod backup;
pub mod bridge;
pub mod command;
pub mod company;
pub mod costing;
pub mod dashboard;
pub mod demo;
pub mod einvoice;
mod error;
pub mod integrations;
pub mod inventory;
pub mod invoices;
pub mod journal;
pub mod ledger;
pub mod lines;
pub mod list;
pub mod maintenance;
pub mod meters;
pub mod metrics;
pub mod money;
pub mod numbering;
pub mod passwords;
pub mod pdf;
pub mod pricing;
pub mod prints;
pub mod projection;
pub mod quotes;
pub mod runtime;
pub mod scrape;
pub mod search;
pub mod series;
pub mod settings;
pub mod setup;
pub mod sliced;
pub mod stock;
pub mod txn;
pub mod values;
pub mod words;

pub use error::{Error, FieldError, Result};
