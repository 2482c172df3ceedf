//! The Modbus (TCP, RTU over TCP, RTU on RS-485) to MQTT bridge: its configuration, the codec
//! between Modbus registers and JSON values, read planning (coalescing), the lines to the
//! devices. Source pollers and the MQTT link build on these.
//!
//! The bridge is a product of its own (`modbus-mqtt-bridge`), and the appliance runs it inside
//! its process (`printcost --bridge-config`, `docs/decisions/0008-the-bridge-apart.md`). The
//! appliance reaches it only through what this module re-exports below: its configuration,
//! starting it, its MQTT link (which also carries the alerts and reads the meters), its
//! sources' availability and the discovery ids' rule. `scripts/module-cycles` refuses an
//! import of a submodule from outside the bridge.

pub mod broker;
pub mod classes;
pub mod codec;
pub mod config;
pub mod discovery;
pub mod history;
pub mod line;
pub mod link;
pub mod plan;
pub mod poller;
pub mod run;
pub mod templates;
pub mod tls;

pub use config::{BridgeConfig, DEFAULT_DISCOVERY_PREFIX, load, starter};
pub use discovery::sanitise;
pub use link::{Incoming, MqttLink};
pub use poller::SourceStates;
pub use run::{RunError, Running, start};
