//! The Modbus TCP to MQTT bridge: its configuration and the codec between Modbus registers and
//! JSON values. (Source pollers and the MQTT link build on these.)

pub mod codec;
pub mod config;
