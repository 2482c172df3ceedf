//! The bridge configuration file (the README's bridge section; examples in `config/`).
//!
//! Formats: `.yml`/`.yaml` (YAML) and `.json`. A parse error names the file, line and column;
//! after parsing, [`BridgeConfig::validate`] reports every problem at once, each with its path
//! (`sources[1].points[4].data_type`).
//!
//! Keys beyond the spec: `publish_mode` on a source and a
//! point, `max_registers_per_request` (1-125) on a source, and a top-level `broker` block that
//! runs an embedded MQTT broker.

use super::classes;
use super::templates;
use serde::Deserialize;
use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Home Assistant's discovery prefix unless `homeassistant.discovery_prefix` says otherwise.
pub const DEFAULT_DISCOVERY_PREFIX: &str = "homeassistant";

/// The whole configuration document.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BridgeConfig {
    /// The MQTT connection (required).
    pub mqtt: MqttConfig,
    /// Modbus TCP endpoints (at least one).
    pub sources: Vec<SourceConfig>,
    /// Logging.
    #[serde(default)]
    pub logging: LoggingConfig,
    /// Embedded broker (beyond the spec); absent: connect to `mqtt.host:port`.
    #[serde(default)]
    pub broker: Option<BrokerConfig>,
    /// Home Assistant MQTT discovery (beyond the spec); off when absent.
    #[serde(default)]
    pub homeassistant: Option<HomeAssistantConfig>,
    /// Where the samples of the points marked `history: true` wait for the broker (beyond the
    /// spec; [`super::history`]).
    #[serde(default)]
    pub history: HistoryConfig,
}

/// The on-disk queue of history samples (beyond the spec; [`super::history`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryConfig {
    /// The queue's file (redb), relative to the working directory unless absolute; made when
    /// a point keeps history.
    #[serde(default = "defaults::history_path")]
    pub path: PathBuf,
    /// At most this many samples wait (1 to 100,000,000); the oldest are dropped first when a
    /// new one would pass it. About 55 bytes a sample on disk: the default million take 52 MiB
    /// (`examples/history_queue.rs`, benches/README.md).
    #[serde(default = "defaults::history_max_samples")]
    pub max_samples: u64,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            path: defaults::history_path(),
            max_samples: defaults::history_max_samples(),
        }
    }
}

/// The most samples [`HistoryConfig::max_samples`] admits.
pub const MAX_HISTORY_SAMPLES: u64 = 100_000_000;

/// Home Assistant MQTT discovery: one retained config per point under the discovery prefix.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HomeAssistantConfig {
    /// Announce the points.
    #[serde(default)]
    pub enabled: bool,
    /// Home Assistant's discovery prefix.
    #[serde(default = "defaults::discovery_prefix")]
    pub discovery_prefix: String,
}

/// The MQTT connection.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MqttConfig {
    /// Broker host name or IP, or a URL: `mqtts://name[:port]` (TLS) or `mqtt://name[:port]`
    /// (beyond the spec; [`MqttConfig::endpoint`]).
    pub host: String,
    /// Broker port (default 1883, 8883 with TLS; a URL's port when `host` gives one).
    #[serde(default)]
    pub port: Option<u16>,
    /// MQTT client id.
    #[serde(default = "defaults::client_id")]
    pub client_id: String,
    /// Broker user.
    #[serde(default)]
    pub username: Option<String>,
    /// Broker password, written in the file (see `password_file` and `password_env`).
    #[serde(default)]
    pub password: Option<Secret>,
    /// A file whose content (without its final line break) is the password (beyond the spec).
    #[serde(default)]
    pub password_file: Option<PathBuf>,
    /// An environment variable that holds the password (beyond the spec).
    #[serde(default)]
    pub password_env: Option<String>,
    /// TLS to the broker (beyond the spec): on when present or when `host` is `mqtts://`.
    #[serde(default)]
    pub tls: Option<TlsConfig>,
    /// First topic level of everything the bridge publishes.
    #[serde(default = "defaults::base_topic")]
    pub base_topic: String,
    /// MQTT keep-alive, seconds.
    #[serde(default = "defaults::keep_alive")]
    pub keep_alive_secs: u64,
    /// Wait before the first reconnection to the broker, seconds; it doubles after every
    /// failed attempt up to [`MAX_RECONNECT_DELAY_SECS`] (or this, when larger).
    #[serde(default = "defaults::reconnect_delay")]
    pub reconnect_delay_secs: u64,
    /// MQTT QoS of the points' states: 0, 1 or 2 (beyond the spec; default 0). QoS 1 makes the
    /// broker acknowledge every state, which costs the broker more CPU per state than relaying
    /// it (benches/README.md, beside modbus2mqtt); a state lost on the way at QoS 0 is replaced by
    /// the next poll's, the latest of every point is published again on reconnection, and a
    /// point that needs every sample keeps history ([`super::history`], QoS 1). Availability,
    /// the last will, discovery and write results keep QoS 1.
    /// To the embedded broker, spoken to in process, everything is QoS 0
    /// ([`super::link::MqttLink::embedded`]).
    #[serde(default = "defaults::state_qos")]
    pub state_qos: u8,
    /// QoS 1 and 2 messages the link lets wait for the broker's acknowledgement at once
    /// (beyond the spec; default 1,000, rumqttc's own default is 100).
    #[serde(default = "defaults::max_inflight")]
    pub max_inflight: u16,
}

/// Longest wait between two reconnection attempts, seconds (unless `reconnect_delay_secs` is
/// longer).
pub const MAX_RECONNECT_DELAY_SECS: u64 = 60;

/// A secret from the configuration: compares and clones as text, never shows in `Debug` (so a
/// logged configuration never carries it).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// TLS to the broker, through rustls. Files are PEM; they are read when the bridge starts.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// The CA certificate(s) the broker's certificate must chain to; absent: the system's
    /// trusted roots.
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// A client certificate (chain) to present, with `client_key_file`.
    #[serde(default)]
    pub client_cert_file: Option<PathBuf>,
    /// The client certificate's private key (PKCS #8, PKCS #1 or SEC1).
    #[serde(default)]
    pub client_key_file: Option<PathBuf>,
}

/// Where the link connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Host name or IP.
    pub host: String,
    /// Port.
    pub port: u16,
    /// Over TLS.
    pub tls: bool,
}

impl MqttConfig {
    /// Where to connect: `host`, or the host and port of its `mqtts://`/`mqtt://` URL; TLS
    /// when the URL says `mqtts` or a `tls` block is present; `port` when given, else the
    /// URL's, else 8883 with TLS and 1883 without.
    ///
    /// Errors: a URL of another scheme, without a host, or with a port that is not a number;
    /// `mqtt://` with a `tls` block.
    pub fn endpoint(&self) -> Result<Endpoint, String> {
        let (scheme, rest) = match self.host.split_once("://") {
            Some((scheme, rest)) => (Some(scheme.to_ascii_lowercase()), rest),
            None => (None, self.host.as_str()),
        };
        let tls = match scheme.as_deref() {
            None => self.tls.is_some(),
            Some("mqtts") => true,
            Some("mqtt") if self.tls.is_some() => {
                return Err("mqtt:// is without TLS; write mqtts:// to use the tls block".into());
            }
            Some("mqtt") => false,
            Some(other) => return Err(format!("{other}:// is not mqtt:// or mqtts://")),
        };
        let rest = rest.trim_end_matches('/');
        // `[v6]:port`, `name:port`, or a host alone (a bare IPv6 address has several colons).
        let (host, port) = match rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
            Some((v6, after)) => (v6, after.strip_prefix(':')),
            None => match rest.split_once(':') {
                Some((name, port)) if scheme.is_some() && !port.contains(':') => (name, Some(port)),
                _ => (rest, None),
            },
        };
        let url_port = port
            .map(|p| p.parse::<u16>().map_err(|_| format!("{p:?} is not a port")))
            .transpose()?;
        if host.trim().is_empty() || host.contains('/') {
            return Err("must name a host".into());
        }
        let default = if tls { 8883 } else { 1883 };
        Ok(Endpoint {
            host: host.to_string(),
            port: self.port.or(url_port).unwrap_or(default),
            tls,
        })
    }

    /// The broker password: `password`, or the content of `password_file` without its final
    /// line break, or the value of `password_env`; `None` when none is given.
    ///
    /// Errors: the file cannot be read, or the variable is not set (the message names them,
    /// never the password).
    pub fn password(&self) -> Result<Option<String>, String> {
        if let Some(secret) = &self.password {
            return Ok(Some(secret.0.clone()));
        }
        if let Some(file) = &self.password_file {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("mqtt.password_file: cannot read {}: {e}", file.display()))?;
            let text = text.strip_suffix('\n').unwrap_or(&text);
            return Ok(Some(text.strip_suffix('\r').unwrap_or(text).to_string()));
        }
        if let Some(name) = &self.password_env {
            return std::env::var(name)
                .map(Some)
                .map_err(|_| format!("mqtt.password_env: the variable {name} is not set"));
        }
        Ok(None)
    }
}

/// Logging.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoggingConfig {
    /// trace, debug, info, warn or error.
    #[serde(default = "defaults::level")]
    pub level: String,
    /// One JSON object per line instead of text.
    #[serde(default)]
    pub json: bool,
}

impl Default for LoggingConfig {
    fn default() -> Self {
        LoggingConfig {
            level: defaults::level(),
            json: false,
        }
    }
}

/// The embedded MQTT broker (beyond the spec).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerConfig {
    /// Run it.
    #[serde(default = "defaults::yes")]
    pub enabled: bool,
    /// Where it listens, `host:port`.
    #[serde(default = "defaults::broker_listen")]
    pub listen: String,
}

/// When a point's state is published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PublishMode {
    /// After every poll.
    EveryPoll,
    /// Only when the value changed (and on reconnection).
    OnChange,
}

/// One Modbus TCP endpoint.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// Used in topics.
    pub id: String,
    /// The name Home Assistant shows for its device (beyond the spec; default: `id`).
    #[serde(default)]
    pub name: Option<String>,
    /// Endpoint host name or IP (Modbus TCP, or an RTU gateway with `framing: rtu`); absent
    /// for a `serial` source.
    #[serde(default)]
    pub host: Option<String>,
    /// Endpoint port.
    #[serde(default = "defaults::modbus_port")]
    pub port: u16,
    /// How requests travel over TCP (beyond the spec): `tcp` (Modbus TCP, the default) or
    /// `rtu` (RTU frames over TCP, the Ethernet-to-RS-485 gateways in transparent mode).
    #[serde(default)]
    pub framing: Option<Framing>,
    /// A serial RS-485 line spoken in Modbus RTU, instead of `host` (beyond the spec).
    #[serde(default)]
    pub serial: Option<SerialConfig>,
    /// A Modbus TCP source opens a connection of its own instead of sharing one with the other
    /// sources of its `host` and `port` (beyond the spec; default false: many gateways take
    /// one client connection only). Not for RTU lines, which are one line whatever this says.
    #[serde(default)]
    pub own_connection: bool,
    /// Quiet time before each request on the line, milliseconds (beyond the spec; default 0
    /// over Modbus TCP and 20 over RTU, which RS-485 meters need between two frames).
    #[serde(default)]
    pub inter_request_delay_ms: Option<u64>,
    /// Modbus unit (slave) id, 0 to 255.
    pub unit_id: u8,
    /// Poll period, milliseconds.
    #[serde(default = "defaults::poll_interval")]
    pub poll_interval_ms: u64,
    /// Timeout of one request, milliseconds.
    #[serde(default = "defaults::request_timeout")]
    pub request_timeout_ms: u64,
    /// Additional attempts per read or write.
    #[serde(default)]
    pub modbus_retries: u32,
    /// Base delay of the exponential retry backoff, milliseconds.
    #[serde(default = "defaults::retry_backoff")]
    pub modbus_retry_backoff_ms: u64,
    /// Largest request, registers (1-125; beyond the spec).
    #[serde(default)]
    pub max_registers_per_request: Option<u16>,
    /// Default publish mode of its points (beyond the spec).
    #[serde(default)]
    pub publish_mode: Option<PublishMode>,
    /// A device template (beyond the spec): the points of a known meter
    /// (`config/templates/<name>.yml`, [`super::templates`]) follow the source's own points,
    /// except those a point of the same name among the source's own replaces.
    #[serde(default)]
    pub template: Option<String>,
    /// Its points (at least one, with the template's).
    #[serde(default)]
    pub points: Vec<PointConfig>,
}

/// How requests travel over TCP.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Framing {
    /// Modbus TCP (MBAP header, transaction ids).
    #[default]
    Tcp,
    /// Modbus RTU frames (unit id, PDU, CRC) over a TCP connection.
    Rtu,
}

/// Parity of a serial line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parity {
    /// No parity bit (8N1, the usual with two stop bits per the Modbus spec, or one).
    #[default]
    None,
    /// Even parity (8E1, the Modbus default).
    Even,
    /// Odd parity.
    Odd,
}

/// A serial RS-485 line (Modbus RTU). Sources naming the same `port` share the bus.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerialConfig {
    /// The device path (`/dev/ttyUSB0`, `/dev/serial/by-id/...`).
    pub port: String,
    /// Bits per second.
    #[serde(default = "defaults::baud")]
    pub baud: u32,
    /// Parity.
    #[serde(default)]
    pub parity: Parity,
    /// Data bits, 5 to 8.
    #[serde(default = "defaults::data_bits")]
    pub data_bits: u8,
    /// Stop bits, 1 or 2.
    #[serde(default = "defaults::stop_bits")]
    pub stop_bits: u8,
}

/// Modbus object kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Read-write bit.
    Coil,
    /// Read-only bit.
    DiscreteInput,
    /// Read-write register.
    Holding,
    /// Read-only register.
    Input,
}

impl Kind {
    /// True for coils and discrete inputs.
    pub fn is_bit(self) -> bool {
        matches!(self, Kind::Coil | Kind::DiscreteInput)
    }

    /// The access a point of this kind has when none is given (input registers and discrete inputs read-only; coils and holding registers read-write).
    pub fn default_access(self) -> Access {
        match self {
            Kind::Coil | Kind::Holding => Access::ReadWrite,
            Kind::DiscreteInput | Kind::Input => Access::ReadOnly,
        }
    }
}

/// How a point's registers are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataType {
    /// A bit, or a register that is nonzero.
    Bool,
    /// Unsigned 16-bit.
    U16,
    /// Signed 16-bit.
    I16,
    /// Unsigned 32-bit over two registers.
    U32,
    /// Signed 32-bit over two registers.
    I32,
    /// IEEE 754 single over two registers.
    F32,
    /// Unsigned 64-bit over four registers (beyond the spec; word order reverses all four).
    U64,
    /// Signed 64-bit over four registers (beyond the spec).
    I64,
    /// IEEE 754 double over four registers (beyond the spec).
    F64,
    /// Two characters per register.
    String,
    /// Registers as they are.
    RawU16,
}

impl DataType {
    /// Registers a point of this type uses when `count` is not set (spec).
    pub fn inferred_count(self) -> u16 {
        match self {
            DataType::U32 | DataType::I32 | DataType::F32 => 2,
            DataType::U64 | DataType::I64 | DataType::F64 => 4,
            _ => 1,
        }
    }

    /// True when `scale` and `offset` apply.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            DataType::U16
                | DataType::I16
                | DataType::U32
                | DataType::I32
                | DataType::F32
                | DataType::U64
                | DataType::I64
                | DataType::F64
        )
    }
}

/// Who may read and write a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Polled and published; writes refused.
    ReadOnly,
    /// Only written.
    WriteOnly,
    /// Both.
    ReadWrite,
}

/// Byte or word order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Most significant first.
    #[default]
    Big,
    /// Least significant first.
    Little,
}

/// Byte order within a register and word order across registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Encoding {
    /// Byte order within each register.
    #[serde(default)]
    pub byte_order: Order,
    /// Register order of multi-register values.
    #[serde(default)]
    pub word_order: Order,
}

/// One point: a coil, or a value over one or more registers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointConfig {
    /// Human-readable name.
    pub name: String,
    /// Topic segment under `<base_topic>/<source_id>/`.
    pub topic: String,
    /// First register or coil address.
    pub address: u16,
    /// Object kind.
    pub kind: Kind,
    /// How the registers are read.
    pub data_type: DataType,
    /// Access; defaults by kind (read-only for inputs).
    #[serde(default)]
    pub access: Option<Access>,
    /// Registers used; inferred from the data type when absent.
    #[serde(default)]
    pub count: Option<u16>,
    /// Byte and word order.
    #[serde(default)]
    pub encoding: Encoding,
    /// Read: `value = value * scale`.
    #[serde(default)]
    pub scale: Option<f64>,
    /// Read, after scale: `value = value + offset`.
    #[serde(default)]
    pub offset: Option<f64>,
    /// MQTT retain flag of state publishes.
    #[serde(default = "defaults::yes")]
    pub retain: bool,
    /// Publish mode; defaults to the source's.
    #[serde(default)]
    pub publish_mode: Option<PublishMode>,
    /// With `on_change`: a numeric state is published again only when it moved by more than
    /// this from the last one published (beyond the spec).
    #[serde(default)]
    pub deadband: Option<f64>,
    /// A `bool` point of a holding or input register: the bit (0 = least significant) it reads;
    /// a write sets or clears that bit by reading the register and writing it back (beyond the
    /// spec).
    #[serde(default)]
    pub bit: Option<u8>,
    /// Home Assistant: the unit of the state (`W`, `kWh`, `°C`).
    #[serde(default)]
    pub unit_of_measurement: Option<String>,
    /// Home Assistant: the device class (`power`, `energy`, `temperature`).
    #[serde(default)]
    pub device_class: Option<String>,
    /// Home Assistant: the state class (`measurement`, `total_increasing`).
    #[serde(default)]
    pub state_class: Option<String>,
    /// This point's poll period, milliseconds, when it differs from the source's (beyond the
    /// spec): a meter's energy counter every 10 s, its power every second. Every readable
    /// point's period must be a multiple of the shortest of them ([`SourceConfig::tick_ms`]).
    #[serde(default)]
    pub poll_interval_ms: Option<u64>,
    /// Keep every sample read: each goes to `<state topic>/history` as `{"ts", "value"}`,
    /// through an on-disk queue that waits out broker outages and restarts (beyond the spec;
    /// [`super::history`]). Readable points only.
    #[serde(default)]
    pub history: bool,
}

impl PointConfig {
    /// The Home Assistant component the point is announced as, or `None` when it is not
    /// announced: read-only numbers and strings are `sensor`s; `bool` points `switch`es when
    /// writable, else `binary_sensor`s; writable numeric holding registers `number`s;
    /// write-only points are not announced (they have no state).
    pub fn component(&self) -> Option<&'static str> {
        let access = self.access();
        if access == Access::WriteOnly {
            return None;
        }
        let writable = access == Access::ReadWrite;
        Some(match self.data_type {
            DataType::Bool if writable => "switch",
            DataType::Bool => "binary_sensor",
            t if t.is_numeric() && writable && self.kind == Kind::Holding => "number",
            _ => "sensor",
        })
    }

    /// The effective poll period of this point in `source`, milliseconds.
    pub fn interval_ms(&self, source: &SourceConfig) -> u64 {
        self.poll_interval_ms.unwrap_or(source.poll_interval_ms)
    }

    /// The effective access.
    pub fn access(&self) -> Access {
        self.access.unwrap_or(self.kind.default_access())
    }

    /// The registers (or coils) it spans.
    pub fn count(&self) -> u16 {
        self.count.unwrap_or(self.data_type.inferred_count())
    }

    /// True when `value` need not be published again after `last` under `on_change`: equal,
    /// or both numbers within the point's `deadband`.
    pub fn unchanged(&self, last: Option<&serde_json::Value>, value: &serde_json::Value) -> bool {
        let Some(last) = last else { return false };
        match (self.deadband, last.as_f64(), value.as_f64()) {
            (Some(band), Some(a), Some(b)) => (a - b).abs() <= band,
            _ => last == value,
        }
    }
}

impl SourceConfig {
    /// True when the source speaks Modbus RTU (a serial line, or RTU frames over TCP).
    pub fn is_rtu(&self) -> bool {
        self.serial.is_some() || self.framing == Some(Framing::Rtu)
    }

    /// The quiet time before each request, milliseconds ([`SourceConfig::inter_request_delay_ms`]).
    pub fn inter_request_delay(&self) -> u64 {
        self.inter_request_delay_ms
            .unwrap_or(if self.is_rtu() { 20 } else { 0 })
    }

    /// The bus the source shares with others, if any: its serial port, its RTU gateway, or its
    /// Modbus TCP gateway (`host:port`: the devices behind one gateway, by unit id). Sources of
    /// one bus take turns on one line, over one connection; a Modbus TCP source with
    /// `own_connection` has a line of its own (`None`).
    pub fn bus(&self) -> Option<String> {
        match (&self.serial, &self.host) {
            (Some(serial), _) => Some(format!("serial:{}", serial.port)),
            (None, Some(host)) if self.is_rtu() => Some(format!("rtu:{host}:{}", self.port)),
            (None, Some(host)) if !self.own_connection => Some(format!("tcp:{host}:{}", self.port)),
            _ => None,
        }
    }

    /// The poller's tick, milliseconds: the shortest poll period of the readable points (the
    /// source's `poll_interval_ms` when none has its own, or there are none). A point whose
    /// period is `k` ticks is read on every `k`-th tick, together with the points due then.
    pub fn tick_ms(&self) -> u64 {
        self.points
            .iter()
            .filter(|p| p.access() != Access::WriteOnly)
            .map(|p| p.interval_ms(self))
            .min()
            .unwrap_or(self.poll_interval_ms)
    }

    /// The warning to give at start when a poll whose every attempt times out
    /// (`request_timeout_ms × (1 + modbus_retries)`) outlasts the poll interval, if it does.
    pub fn slow_poll_warning(&self) -> Option<String> {
        let worst = self
            .request_timeout_ms
            .saturating_mul(1 + u64::from(self.modbus_retries));
        let tick = self.tick_ms();
        (worst > tick).then(|| {
            format!(
                "source {}: request_timeout_ms × (1 + modbus_retries) = {worst} ms exceeds poll_interval_ms = {tick} ms; a silent device is polled less often than configured",
                self.id
            )
        })
    }
}

mod defaults {
    use super::DEFAULT_DISCOVERY_PREFIX;
    use std::path::PathBuf;

    pub fn client_id() -> String {
        "modbus-mqtt-bridge".into()
    }
    pub fn base_topic() -> String {
        "modbus".into()
    }
    pub fn discovery_prefix() -> String {
        DEFAULT_DISCOVERY_PREFIX.into()
    }
    pub fn keep_alive() -> u64 {
        30
    }
    pub fn reconnect_delay() -> u64 {
        5
    }
    pub fn state_qos() -> u8 {
        0
    }
    pub fn max_inflight() -> u16 {
        1000
    }
    pub fn level() -> String {
        "info".into()
    }
    pub fn yes() -> bool {
        true
    }
    pub fn history_path() -> PathBuf {
        PathBuf::from("bridge-history.redb")
    }
    pub fn history_max_samples() -> u64 {
        1_000_000
    }
    pub fn broker_listen() -> String {
        "127.0.0.1:1883".into()
    }
    pub fn modbus_port() -> u16 {
        502
    }
    pub fn baud() -> u32 {
        9600
    }
    pub fn data_bits() -> u8 {
        8
    }
    pub fn stop_bits() -> u8 {
        1
    }
    pub fn poll_interval() -> u64 {
        1000
    }
    pub fn request_timeout() -> u64 {
        3000
    }
    pub fn retry_backoff() -> u64 {
        250
    }
}

/// Why a configuration cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{file}: {message}")]
    Unreadable {
        /// The file.
        file: String,
        /// The cause.
        message: String,
    },
    /// The file is not valid YAML or JSON of this shape: where and why.
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The file's extension is none of `.yml`, `.yaml`, `.json`.
    #[error("{file}: unknown configuration format: name the file .yml, .yaml or .json")]
    Extension {
        /// The file.
        file: String,
    },
    /// Every rule the parsed document breaks, each `path: problem`.
    #[error("{file}: invalid configuration:\n  {}", .problems.join("\n  "))]
    Invalid {
        /// The file.
        file: String,
        /// `sources[1].points[4].data_type: ...`
        problems: Vec<String>,
    },
}

/// Reads and validates the configuration at `path` (`.yml`, `.yaml` or `.json`).
///
/// Errors: [`ConfigError`] naming the file, and for parse errors the line and column.
pub fn load(path: &Path) -> Result<BridgeConfig, ConfigError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Unreadable {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let config = parse(&file, &text)?;
    config
        .validate()
        .map_err(|problems| ConfigError::Invalid { file, problems })?;
    Ok(config)
}

/// The formats a configuration file may have, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.yml`, `.yaml`.
    Yaml,
    /// `.json`.
    Json,
}

/// The format of `file` by its extension (case-insensitive).
/// Errors: [`ConfigError::Extension`] for any other.
pub fn format_of(file: &str) -> Result<Format, ConfigError> {
    let extension = Path::new(file)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase());
    match extension.as_deref() {
        Some("yml" | "yaml") => Ok(Format::Yaml),
        Some("json") => Ok(Format::Json),
        _ => Err(ConfigError::Extension {
            file: file.to_string(),
        }),
    }
}

/// The starter configuration for a file named `file`: [`STARTER`] as it is for YAML, and the
/// same document as indented JSON (without the comments) for `.json`.
/// Errors: [`ConfigError::Extension`].
pub fn starter(file: &str) -> Result<String, ConfigError> {
    match format_of(file)? {
        Format::Yaml => Ok(STARTER.to_string()),
        Format::Json => {
            let document: serde_json::Value =
                serde_yaml::from_str(STARTER).map_err(|e| ConfigError::Unreadable {
                    file: file.to_string(),
                    message: e.to_string(),
                })?;
            serde_json::to_string_pretty(&document)
                .map(|text| text + "\n")
                .map_err(|e| ConfigError::Unreadable {
                    file: file.to_string(),
                    message: e.to_string(),
                })
        }
    }
}

/// Parses `text` as JSON when `file` ends in `.json`, as YAML for `.yml` and `.yaml`, and
/// expands every source's `template` into its points.
///
/// Errors: [`ConfigError::Extension`]; [`ConfigError::Parse`] with line and column;
/// [`ConfigError::Invalid`] naming each unknown template.
pub fn parse(file: &str, text: &str) -> Result<BridgeConfig, ConfigError> {
    let mut config = parse_document(file, text)?;
    let mut problems = Vec::new();
    for (s, source) in config.sources.iter_mut().enumerate() {
        if let Err(problem) = expand_template(source) {
            problems.push(format!("sources[{s}].template: {problem}"));
        }
    }
    match problems.is_empty() {
        true => Ok(config),
        false => Err(ConfigError::Invalid {
            file: file.to_string(),
            problems,
        }),
    }
}

/// A device template's document (`config/templates/*.yml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Template {
    /// The device's points.
    points: Vec<PointConfig>,
}

/// Adds the points of `source`'s template after its own points, but for those one of its own
/// points of the same name replaces. Errors: the template is unknown (the message lists the
/// known ones), or its file does not parse (a build without its test).
fn expand_template(source: &mut SourceConfig) -> Result<(), String> {
    let Some(name) = source.template.as_deref() else {
        return Ok(());
    };
    let text = templates::text(name).ok_or_else(|| {
        let known: Vec<&str> = templates::names().collect();
        format!("unknown template {name:?}; known: {}", known.join(", "))
    })?;
    let template: Template =
        serde_yaml::from_str(text).map_err(|e| format!("template {name}: {e}"))?;
    let own: std::collections::HashSet<String> =
        source.points.iter().map(|p| p.name.clone()).collect();
    source.points.extend(
        template
            .points
            .into_iter()
            .filter(|p| !own.contains(&p.name)),
    );
    Ok(())
}

/// The document in `text`, as it is written.
fn parse_document(file: &str, text: &str) -> Result<BridgeConfig, ConfigError> {
    let parse_error = |line, column, message: String| ConfigError::Parse {
        file: file.to_string(),
        line,
        column,
        message,
    };
    if format_of(file)? == Format::Json {
        serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m)
                .to_string();
            parse_error(e.line(), e.column(), message)
        })
    } else {
        serde_yaml::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m)
                .to_string();
            parse_error(line, column, message)
        })
    }
}

/// What is wrong with a serial line's settings: `(field, problem)`.
fn serial_problems(serial: &SerialConfig) -> Vec<(&'static str, &'static str)> {
    let mut found = Vec::new();
    if serial.port.trim().is_empty() {
        found.push(("port", "must name the serial device, e.g. /dev/ttyUSB0"));
    }
    if serial.baud == 0 {
        found.push(("baud", "must be greater than 0"));
    }
    if !(5..=8).contains(&serial.data_bits) {
        found.push(("data_bits", "must be 5 to 8"));
    }
    if !(1..=2).contains(&serial.stop_bits) {
        found.push(("stop_bits", "must be 1 or 2"));
    }
    found
}

/// A topic level: non-empty, without `/`, `+`, `#`.
fn level_problem(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        Some("must not be empty")
    } else if text.contains(['/', '+', '#']) {
        Some("must not contain '/', '+' or '#'")
    } else {
        None
    }
}

/// A topic below a source: levels separated by `/`, none empty, no wildcards, not `status`, not
/// ending in `/set`, `/result` or `/history`.
fn topic_problem(topic: &str) -> Option<&'static str> {
    if topic.is_empty() || topic.split('/').any(str::is_empty) {
        Some("must be levels separated by single '/', none empty")
    } else if topic.contains(['+', '#']) {
        Some("must not contain '+' or '#'")
    } else if topic == "status" {
        Some("'status' is reserved for the source's availability")
    } else if topic == "set" || topic.ends_with("/set") || topic.ends_with("/result") {
        Some("must not end in '/set' or '/result' (reserved for writes)")
    } else if topic == "history" || topic.ends_with("/history") {
        Some("must not end in '/history' (reserved for the samples kept)")
    } else {
        None
    }
}

impl BridgeConfig {
    /// The rule of the stand-alone bridge (`modbus-mqtt-bridge`) beyond [`BridgeConfig::validate`]:
    /// it has a source to poll. Inside printcost (`--bridge-config`) a configuration without
    /// sources is valid: its MQTT link carries the alerts and reads the MQTT plugs' meters.
    ///
    /// Errors: `sources: at least one source is required` when there is none.
    pub fn require_sources(&self) -> Result<(), Vec<String>> {
        if self.sources.is_empty() {
            return Err(vec!["sources: at least one source is required".into()]);
        }
        Ok(())
    }

    /// Checks every rule and returns all problems, each as `path: problem`: the MQTT link's
    /// ([`MqttConfig::check`]), the logging level, the broker's address, the discovery prefix,
    /// then each source's ([`SourceConfig::check`]) with its points' ([`PointConfig::check`]).
    pub fn validate(&self) -> Result<(), Vec<String>> {
        let mut problems = Problems::default();
        self.mqtt.check(&mut problems);
        if !["trace", "debug", "info", "warn", "error"].contains(&self.logging.level.as_str()) {
            problems.add("logging.level", "must be trace, debug, info, warn or error");
        }
        if self
            .broker
            .as_ref()
            .is_some_and(|b| b.listen.parse::<SocketAddr>().is_err())
        {
            problems.add("broker.listen", "must be host:port, e.g. 127.0.0.1:1883");
        }
        if let Some(prefix) = self.homeassistant.as_ref().map(|h| &h.discovery_prefix)
            && topic_problem(prefix).is_some()
        {
            problems.add(
                "homeassistant.discovery_prefix",
                "must be non-empty levels without '+' or '#'",
            );
        }
        if !(1..=MAX_HISTORY_SAMPLES).contains(&self.history.max_samples) {
            problems.add(
                "history.max_samples",
                &format!("must be 1 to {MAX_HISTORY_SAMPLES}"),
            );
        }
        let discovery = self.homeassistant.as_ref().is_some_and(|h| h.enabled);
        let mut ids = HashSet::new();
        for (s, source) in self.sources.iter().enumerate() {
            let earlier = &self.sources[..s];
            source.check(
                &format!("sources[{s}]"),
                earlier,
                discovery,
                &mut ids,
                &mut problems,
            );
        }
        problems.into_result()
    }
}

/// The problems of a configuration, each as `path: problem`, in the order they were found.
#[derive(Debug, Default)]
struct Problems(Vec<String>);

impl Problems {
    /// Notes `text` at `path`.
    fn add(&mut self, path: impl std::fmt::Display, text: &str) {
        self.0.push(format!("{path}: {text}"));
    }

    fn into_result(self) -> Result<(), Vec<String>> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self.0)
        }
    }
}

impl MqttConfig {
    /// The link's rules: a host that makes an endpoint, at most one source of the password
    /// and a username with it, a client certificate with its key, a base topic of non-empty
    /// levels without wildcards, a keep-alive of at least 5 s, a reconnect delay, a QoS of 0
    /// to 2 and room for one message in flight.
    fn check(&self, problems: &mut Problems) {
        if self.host.trim().is_empty() {
            problems.add("mqtt.host", "must not be empty");
        } else if let Err(text) = self.endpoint() {
            problems.add("mqtt.host", &text);
        }
        let passwords = [
            self.password.is_some(),
            self.password_file.is_some(),
            self.password_env.is_some(),
        ];
        if passwords.iter().filter(|given| **given).count() > 1 {
            problems.add(
                "mqtt.password",
                "give one of password, password_file and password_env",
            );
        }
        if passwords.contains(&true) && self.username.is_none() {
            problems.add("mqtt.username", "is required with a password");
        }
        if let Some(tls) = &self.tls
            && tls.client_cert_file.is_some() != tls.client_key_file.is_some()
        {
            problems.add(
                "mqtt.tls",
                "client_cert_file and client_key_file come together",
            );
        }
        if self.base_topic.is_empty()
            || self.base_topic.contains(['+', '#'])
            || self.base_topic.split('/').any(str::is_empty)
        {
            problems.add(
                "mqtt.base_topic",
                "must be non-empty levels without '+' or '#'",
            );
        }
        if self.keep_alive_secs < 5 {
            problems.add("mqtt.keep_alive_secs", "must be at least 5");
        }
        if self.reconnect_delay_secs == 0 {
            problems.add("mqtt.reconnect_delay_secs", "must be greater than 0");
        }
        if self.state_qos > 2 {
            problems.add("mqtt.state_qos", "must be 0, 1 or 2");
        }
        if self.max_inflight == 0 {
            problems.add("mqtt.max_inflight", "must be greater than 0");
        }
    }
}

impl SourceConfig {
    /// The source's rules at `at` (`sources[s]`): a unique, usable id; a host or a serial line
    /// (one line, one set of line settings for every source on a port, given the `earlier`
    /// sources); its periods; then its points' rules ([`PointConfig::check`]), each point's
    /// period a multiple of the source's shortest and its topic unique in the source.
    fn check<'a>(
        &'a self,
        at: &str,
        earlier: &[SourceConfig],
        discovery: bool,
        ids: &mut HashSet<&'a str>,
        problems: &mut Problems,
    ) {
        let field = |name: &str| format!("{at}.{name}");
        if let Some(text) = level_problem(&self.id) {
            problems.add(field("id"), text);
        } else if self.id == "status" {
            problems.add(
                field("id"),
                "'status' is reserved for the bridge's availability",
            );
        } else if !ids.insert(self.id.as_str()) {
            problems.add(field("id"), "is used by another source");
        }
        self.check_line(at, earlier, problems);
        for (name, value) in [
            ("poll_interval_ms", self.poll_interval_ms),
            ("request_timeout_ms", self.request_timeout_ms),
        ] {
            if value == 0 {
                problems.add(field(name), "must be greater than 0");
            }
        }
        if self
            .max_registers_per_request
            .is_some_and(|m| !(1..=125).contains(&m))
        {
            problems.add(field("max_registers_per_request"), "must be 1 to 125");
        }
        if self.points.is_empty() {
            problems.add(field("points"), "at least one point is required");
        }
        let tick = self.tick_ms();
        let source_period_used = self
            .points
            .iter()
            .any(|p| p.poll_interval_ms.is_none() && p.access() != Access::WriteOnly);
        if source_period_used && tick > 0 && !self.poll_interval_ms.is_multiple_of(tick) {
            problems.add(
                field("poll_interval_ms"),
                &format!("must be a multiple of {tick} ms, the shortest poll period of its points"),
            );
        }
        let mut topics = HashSet::new();
        for (p, point) in self.points.iter().enumerate() {
            let point_at = format!("{at}.points[{p}]");
            point.check(&point_at, tick, discovery, &mut topics, problems);
        }
    }

    /// Where the source is reached: a host, or a serial line whose settings agree with every
    /// `earlier` source's on the same port.
    fn check_line(&self, at: &str, earlier: &[SourceConfig], problems: &mut Problems) {
        let field = |name: &str| format!("{at}.{name}");
        match (&self.host, &self.serial) {
            (Some(host), None) if host.trim().is_empty() => {
                problems.add(field("host"), "must not be empty")
            }
            (Some(_), None) if self.own_connection && self.is_rtu() => problems.add(
                field("own_connection"),
                "an RTU gateway is one line: its devices share it",
            ),
            (Some(_), None) => {}
            (None, Some(serial)) => {
                for (name, fault) in serial_problems(serial) {
                    problems.add(field(&format!("serial.{name}")), fault);
                }
                if self.framing.is_some() {
                    problems.add(field("framing"), "a serial line always speaks RTU");
                }
                if self.own_connection {
                    problems.add(field("own_connection"), "a serial line is one line");
                }
                let first = earlier
                    .iter()
                    .filter_map(|o| o.serial.as_ref())
                    .find(|o| o.port == serial.port);
                if first.is_some_and(|o| o != serial) {
                    problems.add(
                        field("serial"),
                        "another source on this port gives other line settings",
                    );
                }
            }
            _ => problems.add(
                field("host"),
                "give host (Modbus TCP, or an RTU gateway) or serial (RS-485), one of them",
            ),
        }
    }
}

impl PointConfig {
    /// The point's rules at `at` (`sources[s].points[p]`): its period a multiple of the
    /// source's shortest (`tick` ms), a name, a topic unique among `topics`, a kind, type,
    /// access and count that go together, an address range inside the register map, scale,
    /// offset and deadband for numbers only, what discovery passes through, and a bit of a
    /// register.
    fn check<'a>(
        &'a self,
        at: &str,
        tick: u64,
        discovery: bool,
        topics: &mut HashSet<&'a str>,
        problems: &mut Problems,
    ) {
        let field = |name: &str| format!("{at}.{name}");
        match self.poll_interval_ms {
            Some(0) => problems.add(field("poll_interval_ms"), "must be greater than 0"),
            Some(every) if tick > 0 && every % tick != 0 && self.access() != Access::WriteOnly => {
                problems.add(
                    field("poll_interval_ms"),
                    &format!("must be a multiple of {tick} ms, the source's shortest poll period"),
                )
            }
            _ => {}
        }
        if self.name.trim().is_empty() {
            problems.add(field("name"), "must not be empty");
        }
        if let Some(text) = topic_problem(&self.topic) {
            problems.add(field("topic"), text);
        } else if !topics.insert(self.topic.as_str()) {
            problems.add(field("topic"), "is used by another point of this source");
        }
        self.check_shape(at, problems);
        if discovery && let Some(component) = self.component() {
            let found = classes::problems(
                component,
                self.device_class.as_deref(),
                self.state_class.as_deref(),
                self.unit_of_measurement.as_deref(),
            );
            for (name, text) in found {
                problems.add(field(name), &text);
            }
        }
        if self.history && self.access() == Access::WriteOnly {
            problems.add(
                field("history"),
                "a write-only point has no samples to keep",
            );
        }
        if let Some(bit) = self.bit {
            let register = matches!(self.kind, Kind::Holding | Kind::Input);
            if !register || self.data_type != DataType::Bool || bit > 15 {
                problems.add(
                    field("bit"),
                    "0 to 15, on a bool point of a holding or input register",
                );
            }
        }
    }

    /// What the point reads and how: kind, type, access and count that go together, its
    /// registers inside the map, and scale, offset and deadband for numbers only.
    fn check_shape(&self, at: &str, problems: &mut Problems) {
        let field = |name: &str| format!("{at}.{name}");
        if self.kind.is_bit() && self.data_type != DataType::Bool {
            problems.add(field("data_type"), "coils and discrete inputs are bool");
        }
        if matches!(self.kind, Kind::DiscreteInput | Kind::Input)
            && self.access.is_some_and(|a| a != Access::ReadOnly)
        {
            problems.add(
                field("access"),
                "discrete inputs and input registers are read_only",
            );
        }
        let count = self.count();
        let fixed =
            self.kind.is_bit() || self.data_type.is_numeric() || self.data_type == DataType::Bool;
        if self.count.is_some() && fixed && count != self.data_type.inferred_count() {
            problems.add(field("count"), "a fixed-width type takes its own count");
        }
        if count == 0 || count > 125 {
            problems.add(field("count"), "must be 1 to 125");
        }
        if u32::from(self.address) + u32::from(count) > 65_536 {
            problems.add(field("address"), "the point runs past address 65535");
        }
        if !self.data_type.is_numeric() && (self.scale.is_some() || self.offset.is_some()) {
            problems.add(
                field("scale"),
                "scale and offset apply to numeric types only",
            );
        }
        if self.scale.is_some_and(|s| s == 0.0 || !s.is_finite()) {
            problems.add(field("scale"), "must be a finite number other than 0");
        }
        if self.offset.is_some_and(|o| !o.is_finite()) {
            problems.add(field("offset"), "must be a finite number");
        }
        if let Some(band) = self.deadband
            && (!self.data_type.is_numeric() || !band.is_finite() || band < 0.0)
        {
            problems.add(
                field("deadband"),
                "a number of at least 0, for numeric types only",
            );
        }
    }
}

/// The commented starter configuration written when the configured file does not exist: the
/// embedded broker and one example source.
pub const STARTER: &str = include_str!("../../../config/starter.yml");

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "mqtt:\n  host: broker.lan\nsources:\n  - id: meter\n    host: 10.0.0.5\n    unit_id: 3\n    points:\n      - name: Power\n        topic: power\n        address: 10\n        kind: input\n        data_type: u32\n";

    #[test]
    fn what_discovery_passes_through_is_checked_with_its_path() {
        let points = "      - {name: Power, topic: power, address: 10, kind: input, data_type: f32, device_class: power, state_class: total_increasing, unit_of_measurement: W}\n      - {name: Reactive, topic: kvarh, address: 12, kind: input, data_type: f32, device_class: energy, unit_of_measurement: kvarh}\n      - {name: Counter, topic: counter, address: 14, kind: holding, data_type: u32, state_class: total_increasing}\n      - {name: Relay, topic: relay, address: 0, kind: coil, data_type: bool, device_class: power}\n";
        let yaml = MINIMAL.replace(
            "      - name: Power\n        topic: power\n        address: 10\n        kind: input\n        data_type: u32\n",
            points,
        );
        let on = format!("homeassistant:\n  enabled: true\n{yaml}");
        let problems = parse("c.yml", &on).unwrap().validate().unwrap_err();
        let paths: Vec<&str> = problems
            .iter()
            .map(|p| p.split(": ").next().unwrap_or_default())
            .collect();
        assert_eq!(
            paths,
            [
                "sources[0].points[0].state_class",
                "sources[0].points[1].unit_of_measurement",
                "sources[0].points[2].state_class",
                "sources[0].points[3].device_class",
            ],
            "{problems:?}"
        );
        assert!(problems[2].contains("access: read_only"), "{problems:?}");
        assert_eq!(
            parse("c.yml", &yaml).unwrap().validate(),
            Ok(()),
            "discovery off: no check"
        );
    }

    #[test]
    fn defaults_follow_the_spec() {
        let config = parse("c.yml", MINIMAL).unwrap();
        assert_eq!(config.validate(), Ok(()));
        assert_eq!(
            config.mqtt.endpoint(),
            Ok(Endpoint {
                host: "broker.lan".into(),
                port: 1883,
                tls: false
            })
        );
        assert_eq!(config.mqtt.client_id, "modbus-mqtt-bridge");
        assert_eq!(config.mqtt.base_topic, "modbus");
        assert_eq!(
            (
                config.mqtt.keep_alive_secs,
                config.mqtt.reconnect_delay_secs
            ),
            (30, 5)
        );
        assert_eq!((config.mqtt.state_qos, config.mqtt.max_inflight), (0, 1000));
        assert_eq!(
            config.logging,
            LoggingConfig {
                level: "info".into(),
                json: false
            }
        );
        let source = &config.sources[0];
        assert_eq!(
            (
                source.port,
                source.poll_interval_ms,
                source.request_timeout_ms
            ),
            (502, 1000, 3000)
        );
        assert_eq!(
            (source.modbus_retries, source.modbus_retry_backoff_ms),
            (0, 250)
        );
        let point = &source.points[0];
        assert_eq!(point.count(), 2);
        assert_eq!(
            point.access(),
            Access::ReadOnly,
            "input registers default to read_only"
        );
        assert!(point.retain);
        assert_eq!(
            point.encoding,
            Encoding {
                byte_order: Order::Big,
                word_order: Order::Big
            }
        );
    }

    #[test]
    fn a_poll_that_can_outlast_its_interval_is_warned_about() {
        let mut config = parse("c.yml", MINIMAL).unwrap();
        let source = &mut config.sources[0];
        assert_eq!(source.slow_poll_warning(), Some("source meter: request_timeout_ms × (1 + modbus_retries) = 3000 ms exceeds poll_interval_ms = 1000 ms; a silent device is polled less often than configured".into()));
        source.request_timeout_ms = 300;
        source.modbus_retries = 2;
        assert_eq!(source.slow_poll_warning(), None, "900 ms fits 1000 ms");
    }

    #[test]
    fn a_point_s_own_poll_period_is_a_multiple_of_the_source_s_tick() {
        let problems = |periods: [&str; 2]| {
            let points: String = periods
                .iter()
                .enumerate()
                .map(|(i, every)| format!("      - {{name: p{i}, topic: p{i}, address: {i}, kind: input, data_type: u16{every}}}\n"))
                .collect();
            let text = format!(
                "mqtt: {{host: h}}\nsources:\n  - id: m\n    host: h\n    unit_id: 1\n    poll_interval_ms: 1000\n    points:\n{points}"
            );
            parse("c.yml", &text)
                .unwrap()
                .validate()
                .err()
                .unwrap_or_default()
        };
        assert_eq!(
            problems(["", ", poll_interval_ms: 10000"]),
            Vec::<String>::new()
        );
        assert_eq!(
            problems(["", ", poll_interval_ms: 1500"]),
            vec![
                "sources[0].points[1].poll_interval_ms: must be a multiple of 1000 ms, the source's shortest poll period"
            ]
        );
        assert_eq!(
            problems(["", ", poll_interval_ms: 300"]),
            vec![
                "sources[0].poll_interval_ms: must be a multiple of 300 ms, the shortest poll period of its points"
            ]
        );
        assert_eq!(
            problems([", poll_interval_ms: 0", ""]),
            vec!["sources[0].points[0].poll_interval_ms: must be greater than 0"]
        );
    }

    #[test]
    fn the_broker_is_a_host_or_an_mqtt_url_and_tls_picks_its_port() {
        let endpoint = |lines: &str| {
            parse("c.yml", &format!("mqtt:\n{lines}sources: []\n"))
                .unwrap()
                .mqtt
                .endpoint()
                .map(|e| (e.host, e.port, e.tls))
        };
        let ok = |host: &str, port, tls| Ok((host.to_string(), port, tls));
        assert_eq!(endpoint("  host: b.lan\n"), ok("b.lan", 1883, false));
        assert_eq!(endpoint("  host: mqtts://b.lan\n"), ok("b.lan", 8883, true));
        assert_eq!(
            endpoint("  host: mqtts://b.lan:9883/\n"),
            ok("b.lan", 9883, true)
        );
        assert_eq!(
            endpoint("  host: mqtt://[::1]:1884\n"),
            ok("::1", 1884, false)
        );
        assert_eq!(
            endpoint("  host: b.lan\n  tls: {}\n"),
            ok("b.lan", 8883, true)
        );
        assert_eq!(
            endpoint("  host: mqtts://b.lan:9883\n  port: 8884\n"),
            ok("b.lan", 8884, true),
            "port wins"
        );
        assert!(endpoint("  host: ws://b.lan\n").is_err());
        assert!(endpoint("  host: mqtts://b.lan:x\n").is_err());
        assert!(endpoint("  host: mqtt://b.lan\n  tls: {}\n").is_err());
        assert!(endpoint("  host: mqtts://\n").is_err());
    }

    #[test]
    fn a_password_comes_from_the_file_a_file_or_the_environment_and_never_shows() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("password");
        std::fs::write(&file, "from file\n").unwrap();
        let mqtt = |lines: String| {
            parse("c.yml", &format!("mqtt:\n  host: h\n{lines}sources: []\n"))
                .unwrap()
                .mqtt
        };
        let written = mqtt("  username: u\n  password: written\n".into());
        assert_eq!(written.password(), Ok(Some("written".into())));
        assert!(!format!("{written:?}").contains("written"), "{written:?}");
        let from_file = mqtt(format!(
            "  username: u\n  password_file: {}\n",
            file.display()
        ));
        assert_eq!(from_file.password(), Ok(Some("from file".into())));
        let unset = mqtt("  username: u\n  password_env: PRINTCOST_TEST_UNSET_PASSWORD\n".into());
        assert_eq!(
            unset.password(),
            Err("mqtt.password_env: the variable PRINTCOST_TEST_UNSET_PASSWORD is not set".into())
        );
        let problems = parse(
            "c.yml",
            "mqtt:\n  host: h\n  password: a\n  password_env: B\n  tls: {client_cert_file: c.pem}\nsources: []\n",
        )
        .unwrap()
        .validate()
        .unwrap_err();
        for expected in ["mqtt.password:", "mqtt.username:", "mqtt.tls:"] {
            assert!(
                problems.iter().any(|p| p.starts_with(expected)),
                "{expected} missing in {problems:#?}"
            );
        }
    }

    #[test]
    fn a_source_has_a_host_or_a_serial_line_and_one_bus_one_setting() {
        let problems = |sources: &str| {
            let text = format!("mqtt: {{host: h}}\nsources:\n{sources}");
            parse("c.yml", &text)
                .unwrap()
                .validate()
                .err()
                .unwrap_or_default()
        };
        let point = "    points: [{name: a, topic: a, address: 0, kind: input, data_type: u16}]\n";
        let serial = |id: &str, line: &str| {
            format!("  - id: {id}\n    unit_id: 1\n    serial: {line}\n{point}")
        };
        assert_eq!(
            problems(
                &(serial("a", "{port: /dev/ttyUSB0}")
                    + &serial("b", "{port: /dev/ttyUSB0, baud: 9600}"))
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            problems(
                &(serial("a", "{port: /dev/ttyUSB0}")
                    + &serial("b", "{port: /dev/ttyUSB0, baud: 19200}"))
            ),
            vec!["sources[1].serial: another source on this port gives other line settings"]
        );
        assert_eq!(
            problems(&serial(
                "a",
                "{port: '', baud: 0, data_bits: 9, stop_bits: 3}"
            )),
            vec![
                "sources[0].serial.port: must name the serial device, e.g. /dev/ttyUSB0",
                "sources[0].serial.baud: must be greater than 0",
                "sources[0].serial.data_bits: must be 5 to 8",
                "sources[0].serial.stop_bits: must be 1 or 2",
            ]
        );
        assert_eq!(
            problems(&format!("  - id: a\n    unit_id: 1\n{point}")),
            vec![
                "sources[0].host: give host (Modbus TCP, or an RTU gateway) or serial (RS-485), one of them"
            ]
        );
        assert_eq!(
            problems(&format!(
                "  - id: a\n    unit_id: 1\n    host: h\n    serial: {{port: /dev/ttyS0}}\n{point}"
            )),
            vec![
                "sources[0].host: give host (Modbus TCP, or an RTU gateway) or serial (RS-485), one of them"
            ]
        );
        assert_eq!(
            problems(&format!(
                "  - id: a\n    unit_id: 1\n    framing: rtu\n    serial: {{port: /dev/ttyS0}}\n{point}"
            )),
            vec!["sources[0].framing: a serial line always speaks RTU"]
        );
        let config = parse(
            "c.yml",
            &format!("mqtt: {{host: h}}\nsources:\n{}  - id: g\n    unit_id: 2\n    host: gw\n    port: 4196\n    framing: rtu\n{point}  - id: t\n    unit_id: 3\n    host: gw\n{point}  - id: u\n    unit_id: 4\n    host: gw\n{point}  - id: own\n    unit_id: 5\n    host: gw\n    own_connection: true\n{point}", serial("a", "{port: /dev/ttyUSB0}")),
        )
        .unwrap();
        let buses: Vec<Option<String>> = config.sources.iter().map(|s| s.bus()).collect();
        assert_eq!(
            buses,
            [
                Some("serial:/dev/ttyUSB0".to_string()),
                Some("rtu:gw:4196".to_string()),
                Some("tcp:gw:502".to_string()),
                Some("tcp:gw:502".to_string()),
                None
            ],
            "the Modbus TCP units behind one gateway share its connection, unless one opts out"
        );
        let gaps: Vec<u64> = config
            .sources
            .iter()
            .map(|s| s.inter_request_delay())
            .collect();
        assert_eq!(
            gaps,
            [20, 20, 0, 0, 0],
            "RTU lines get a quiet gap by default"
        );
        assert_eq!(
            problems(&format!(
                "  - id: a\n    unit_id: 1\n    serial: {{port: /dev/ttyS0}}\n    own_connection: true\n{point}  - id: g\n    unit_id: 1\n    host: gw\n    framing: rtu\n    own_connection: true\n{point}"
            )),
            vec![
                "sources[0].own_connection: a serial line is one line",
                "sources[1].own_connection: an RTU gateway is one line: its devices share it"
            ]
        );
    }

    #[test]
    fn bits_and_deadbands_are_checked() {
        let text = MINIMAL.replace(
            "data_type: u32\n",
            "data_type: bool\n        bit: 16\n        deadband: 1\n",
        );
        let problems = parse("c.yml", &text).unwrap().validate().unwrap_err();
        assert!(
            problems.iter().any(
                |p| p.ends_with("bit: 0 to 15, on a bool point of a holding or input register")
            ),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("deadband")),
            "{problems:?}"
        );
        let fine = MINIMAL.replace("data_type: u32\n", "data_type: bool\n        bit: 15\n");
        assert_eq!(parse("c.yml", &fine).unwrap().validate(), Ok(()));
        let wide = MINIMAL.replace(
            "data_type: u32\n",
            "data_type: f64\n        deadband: 0.5\n",
        );
        let config = parse("c.yml", &wide).unwrap();
        assert_eq!(
            (config.validate(), config.sources[0].points[0].count()),
            (Ok(()), 4)
        );
    }

    #[test]
    fn the_starter_comes_in_the_format_of_the_extension() {
        let yaml = parse("c.yaml", &starter("c.yaml").unwrap()).unwrap();
        let json_text = starter("config/C.JSON").unwrap();
        assert!(json_text.trim_start().starts_with('{'), "{json_text}");
        let json = parse("c.json", &json_text).unwrap();
        assert_eq!(json.validate(), Ok(()));
        assert_eq!(json.sources[0].points.len(), yaml.sources[0].points.len());
        let refused = starter("config.toml").unwrap_err().to_string();
        assert!(refused.contains(".yml, .yaml or .json"), "{refused}");
        assert!(matches!(
            parse("c.ini", "x: 1"),
            Err(ConfigError::Extension { .. })
        ));
    }

    #[test]
    fn the_starter_config_is_valid() {
        let config = parse("config.yml", STARTER).unwrap();
        assert_eq!(config.validate(), Ok(()));
        assert!(config.broker.is_some());
    }

    #[test]
    fn json_works_too_and_parse_errors_say_where() {
        let json = r#"{"mqtt": {"host": "h"}, "sources": [{"id": "a", "host": "h", "unit_id": 1, "points": [{"name": "c", "topic": "c", "address": 0, "kind": "coil", "data_type": "bool"}]}]}"#;
        assert_eq!(parse("c.json", json).unwrap().validate(), Ok(()));
        let err = parse("c.json", "{\"mqtt\": {\"host\": 5}}").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 1, .. }), "{err}");
        let err = parse(
            "bad.yml",
            "mqtt:\n  host: h\nsources:\n  - id: a\n    unit_id: 300\n",
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("bad.yml:5:"), "{text}");
        let err = parse("bad.yml", "mqtt:\n  host: h\n  colour: blue\nsources: []\n").unwrap_err();
        assert!(err.to_string().contains("colour"), "{err}");
    }

    #[test]
    fn validation_reports_every_problem_with_its_path() {
        let text = "mqtt:\n  host: ''\n  state_qos: 3\n  max_inflight: 0\nsources:\n  - id: status\n    host: h\n    unit_id: 1\n    poll_interval_ms: 0\n    points:\n      - name: a\n        topic: x/set\n        address: 65535\n        kind: coil\n        data_type: u16\n      - name: b\n        topic: dup\n        address: 0\n        kind: input\n        data_type: f32\n        access: read_write\n        count: 1\n      - name: c\n        topic: dup\n        address: 0\n        kind: holding\n        data_type: string\n        scale: 2\n  - id: empty\n    host: h\n    unit_id: 1\n    points: []\n";
        let problems = parse("c.yml", text).unwrap().validate().unwrap_err();
        for expected in [
            "mqtt.host:",
            "mqtt.state_qos:",
            "mqtt.max_inflight:",
            "sources[0].id:",
            "sources[0].poll_interval_ms:",
            "sources[0].points[0].topic:",
            "sources[0].points[0].data_type:",
            "sources[0].points[1].access:",
            "sources[0].points[1].count:",
            "sources[0].points[2].topic:",
            "sources[0].points[2].scale:",
            "sources[1].points:",
        ] {
            assert!(
                problems.iter().any(|p| p.starts_with(expected)),
                "{expected} missing in {problems:#?}"
            );
        }
        let without_sources = parse("c.yml", "mqtt:\n  host: h\nsources: []\n").unwrap();
        assert_eq!(without_sources.history, HistoryConfig::default());
        assert_eq!(without_sources.validate(), Ok(()));
        assert_eq!(
            without_sources.require_sources().unwrap_err(),
            vec!["sources: at least one source is required"]
        );
    }

    #[test]
    fn history_is_kept_of_readable_points_in_a_bounded_queue_on_its_own_topic() {
        let text = "mqtt:\n  host: h\nhistory:\n  path: /var/lib/q.redb\n  max_samples: 0\nsources:\n  - id: m\n    host: h\n    unit_id: 1\n    points:\n      - {name: a, topic: a, address: 0, kind: holding, data_type: u16, access: write_only, history: true}\n      - {name: b, topic: b/history, address: 1, kind: holding, data_type: u16}\n      - {name: c, topic: c, address: 2, kind: input, data_type: u16, history: true}\n";
        let config = parse("c.yml", text).unwrap();
        assert_eq!(config.history.path, PathBuf::from("/var/lib/q.redb"));
        assert!(config.sources[0].points[2].history);
        let problems = config.validate().unwrap_err();
        assert_eq!(
            problems,
            vec![
                "history.max_samples: must be 1 to 100000000".to_string(),
                "sources[0].points[0].history: a write-only point has no samples to keep".into(),
                "sources[0].points[1].topic: must not end in '/history' (reserved for the samples kept)".into(),
            ]
        );
    }
}
