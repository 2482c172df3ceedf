//! The optional integrations: a spool manager (Spoolman) and a printer-fleet manager
//! (Bambuddy). [`settings`] holds what they are configured with, [`peer`] the HTTP rules every
//! call to a peer follows, [`spoolmgr`] the spool manager's client.

pub mod peer;
pub mod settings;
pub mod spoolmgr;
