//! Energy meters: each printer's metered electricity, read from the meter the bridge or an MQTT
//! device already reports. This holds the meters' history ([`history`]: which readings are
//! kept, how they are stored, the energy between two moments) that prints are priced from
//! after the fact. A printer's power learned from its metered runs is a rule of the prints
//! (`crate::prints::power`); the recorder that reads them runs on the runtime floor
//! (`crate::runtime::recorder`).

pub mod history;
pub mod links;
