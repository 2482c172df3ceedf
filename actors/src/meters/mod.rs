//! Energy meters: each printer's metered electricity, read from the meter the bridge or an MQTT
//! device already reports. This holds the meters' history ([`history`]: which readings are
//! kept, how they are stored, the energy between two moments) that prints are priced from
//! after the fact. The recorder that reads them runs on the runtime floor
//! (`crate::runtime::recorder`).

pub mod history;
pub mod links;
pub mod power;
