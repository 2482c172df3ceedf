//! The optional integrations: a spool manager (Spoolman) and a printer-fleet manager
//! (Bambuddy). [`settings`] holds what they are configured with, [`peer`] the HTTP rules every
//! call to a peer follows, [`spoolmgr`] the spool manager's client, [`operations`] the
//! consumption sent to the spool manager, [`import`] the preview, import, sync and unlink of
//! its spools. The printer fleet's: [`printfleet`] its client, [`fleet`] its commands and
//! queries. The rules the aggregates below need stand beside them: who owns a linked spool's
//! stock and the consumption queued for the spool manager (`crate::ledger::remote`), the rules
//! of attached print logs (`crate::prints::fleet_logs`).
//! [`health`] keeps whether each peer answers. What runs the remote calls outside every write
//! transaction (the requests' and the background timer's) is on the runtime floor
//! (`crate::runtime::spoolmgr`, `crate::runtime::printfleet`, `crate::runtime::timer`).

pub mod fleet;
pub mod health;
pub mod import;
pub mod operations;
pub mod peer;
pub mod printfleet;
pub mod settings;
pub mod spoolmgr;
