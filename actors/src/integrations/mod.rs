//! The optional integrations: a spool manager (Spoolman) and a printer-fleet manager
//! (Bambuddy). [`settings`] holds what they are configured with, [`peer`] the HTTP rules every
//! call to a peer follows, [`spoolmgr`] the spool manager's client, [`links`] who owns a linked
//! spool's stock, [`operations`] the consumption sent to the spool manager, [`import`] the
//! preview, import, sync and unlink of its spools. The printer fleet's: [`printfleet`] its
//! client, [`fleet`] its commands and queries, [`logs`] the rules of attached print logs.
//! [`health`] keeps whether each peer answers. What runs the remote calls outside every write
//! transaction (the requests' and the background timer's) is on the runtime floor
//! (`crate::runtime::spoolmgr`, `crate::runtime::printfleet`, `crate::runtime::timer`).

pub mod fleet;
pub mod health;
pub mod import;
pub mod links;
pub mod logs;
pub mod operations;
pub mod peer;
pub mod printfleet;
pub mod settings;
pub mod spoolmgr;
