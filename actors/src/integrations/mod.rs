//! The optional integrations: a spool manager (Spoolman) and a printer-fleet manager
//! (Bambuddy). [`settings`] holds what they are configured with.

pub mod settings;
