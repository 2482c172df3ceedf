//! Black-box tests of the print-cost service over real sockets. One binary for all of them.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod alerts;
mod auth;
mod backup;
mod bridge_cli;
mod dashboard;
mod durability;
mod edges;
mod error_bodies;
mod errors;
mod fuzz;
mod health;
mod integration_settings;
mod inventory;
mod maintenance;
mod metrics;
mod nightly_backups;
mod openapi;
mod outcomes;
mod printfleet;
mod prints;
mod projection;
mod rules;
mod series;
mod settings;
mod sliced;
mod spoolmgr;
mod spoolmgr_real;
mod spools;
mod support;
mod ui;
mod ui_decimals;
mod ui_maintenance;
mod ui_pages;
mod ui_peers;
mod ui_settings;
