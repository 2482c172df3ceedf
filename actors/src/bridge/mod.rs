//! The Modbus (TCP, RTU over TCP, RTU on RS-485) to MQTT bridge: its configuration, the codec
//! between Modbus registers and JSON values, read planning (coalescing), the lines to the
//! devices. Source pollers and the MQTT link build on these.

pub mod broker;
pub mod classes;
pub mod codec;
pub mod config;
pub mod discovery;
pub mod line;
pub mod link;
pub mod plan;
pub mod poller;
pub mod run;
pub mod templates;
pub mod tls;
