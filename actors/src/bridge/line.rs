//! A source's line to its device: a Modbus TCP connection, RTU frames over TCP (the
//! Ethernet-to-RS-485 gateways in transparent mode), or a serial RS-485 bus (Modbus RTU).
//!
//! Sources on one bus (the same serial port, the same RTU gateway, or the same Modbus TCP host
//! and port: the devices behind one gateway) share one [`Line`], one connection, behind a fair
//! lock ([`SharedLine`]): a poll or a write holds it from its first request to its last, so
//! devices on one bus never talk over each other and a gateway that takes one client
//! connection serves them all; each request first waits out the quiet gap the previous one
//! left (`inter_request_delay_ms`). A Modbus TCP source with `own_connection` has a line of its
//! own.
//!
//! - The connection persists between requests. After a timeout or a protocol error it is
//!   dropped (a late reply would poison the next transaction or frame) and made again on the
//!   next attempt.
//! - Each request is tried `1 + modbus_retries` times, waiting `modbus_retry_backoff_ms × 2^n`
//!   between attempts, and addressed to its source's unit id (the line's connection may have
//!   been made by another source on the bus).

use super::config::{Framing, Kind, Parity, SerialConfig, SourceConfig};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tokio_modbus::client::{Context as Modbus, Reader, Writer as _};
use tokio_modbus::slave::SlaveContext;
use tokio_modbus::{ExceptionCode, Slave};

/// What a request read (or that a write went through).
pub enum Data {
    /// Registers read.
    Registers(Vec<u16>),
    /// Coils or discrete inputs read.
    Bits(Vec<bool>),
    /// A write went through.
    Written,
}

/// One Modbus request.
#[derive(Debug, Clone)]
pub enum Op {
    /// Read `count` objects of `kind` from `address`.
    Read(Kind, u16, u16),
    /// FC5.
    WriteCoil(u16, bool),
    /// FC6 for one register, FC16 for several.
    WriteRegisters(u16, Vec<u16>),
}

/// A line and the moment it is quiet enough for the next request.
#[derive(Default)]
pub struct Line {
    connection: Option<Modbus>,
    quiet_at: Option<Instant>,
}

/// A line behind a fair (first come, first served) lock, shared by the sources of one bus.
pub type SharedLine = Arc<tokio::sync::Mutex<Line>>;

impl Line {
    /// A new, unconnected line.
    pub fn shared() -> SharedLine {
        Arc::new(tokio::sync::Mutex::new(Line::default()))
    }
}

async fn connect(source: &SourceConfig) -> std::io::Result<Modbus> {
    let slave = Slave(source.unit_id);
    if let Some(serial) = &source.serial {
        let port = tokio_serial::SerialStream::open(&serial_builder(serial))?;
        return Ok(tokio_modbus::client::rtu::attach_slave(port, slave));
    }
    let host = source.host.as_deref().unwrap_or_default();
    let address = tokio::net::lookup_host((host, source.port))
        .await?
        .next()
        .ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no address for the host")
        })?;
    match source.framing.unwrap_or_default() {
        Framing::Tcp => tokio_modbus::client::tcp::connect_slave(address, slave).await,
        Framing::Rtu => {
            let stream = tokio::net::TcpStream::connect(address).await?;
            Ok(tokio_modbus::client::rtu::attach_slave(stream, slave))
        }
    }
}

/// The serial port settings of `serial`.
fn serial_builder(serial: &SerialConfig) -> tokio_serial::SerialPortBuilder {
    let parity = match serial.parity {
        Parity::None => tokio_serial::Parity::None,
        Parity::Even => tokio_serial::Parity::Even,
        Parity::Odd => tokio_serial::Parity::Odd,
    };
    let data_bits = match serial.data_bits {
        5 => tokio_serial::DataBits::Five,
        6 => tokio_serial::DataBits::Six,
        7 => tokio_serial::DataBits::Seven,
        _ => tokio_serial::DataBits::Eight,
    };
    let stop_bits = match serial.stop_bits {
        2 => tokio_serial::StopBits::Two,
        _ => tokio_serial::StopBits::One,
    };
    tokio_serial::new(&serial.port, serial.baud)
        .parity(parity)
        .data_bits(data_bits)
        .stop_bits(stop_bits)
}

async fn execute(
    modbus: &mut Modbus,
    op: &Op,
) -> Result<Result<Data, ExceptionCode>, tokio_modbus::Error> {
    Ok(match op {
        Op::Read(Kind::Holding, address, count) => modbus
            .read_holding_registers(*address, *count)
            .await?
            .map(Data::Registers),
        Op::Read(Kind::Input, address, count) => modbus
            .read_input_registers(*address, *count)
            .await?
            .map(Data::Registers),
        Op::Read(Kind::Coil, address, count) => {
            modbus.read_coils(*address, *count).await?.map(Data::Bits)
        }
        Op::Read(Kind::DiscreteInput, address, count) => modbus
            .read_discrete_inputs(*address, *count)
            .await?
            .map(Data::Bits),
        Op::WriteCoil(address, bit) => modbus
            .write_single_coil(*address, *bit)
            .await?
            .map(|()| Data::Written),
        Op::WriteRegisters(address, words) if words.len() == 1 => modbus
            .write_single_register(*address, words[0])
            .await?
            .map(|()| Data::Written),
        Op::WriteRegisters(address, words) => modbus
            .write_multiple_registers(*address, words)
            .await?
            .map(|()| Data::Written),
    })
}

/// One request of `source` on `line`, with connection handling, the quiet gap, timeout and
/// retries. `Err` (why) when every attempt failed; `Ok(Err(code))` when the device answered
/// with an exception.
pub async fn request(
    line: &mut Line,
    source: &SourceConfig,
    op: &Op,
) -> Result<Result<Data, ExceptionCode>, String> {
    let timeout = Duration::from_millis(source.request_timeout_ms);
    let gap = Duration::from_millis(source.inter_request_delay());
    let mut failure = String::new();
    for attempt in 0..=source.modbus_retries {
        if attempt > 0 {
            let backoff = source
                .modbus_retry_backoff_ms
                .saturating_mul(1 << (attempt - 1).min(16));
            tokio::time::sleep(Duration::from_millis(backoff)).await;
        }
        if line.connection.is_none() {
            match tokio::time::timeout(timeout, connect(source)).await {
                Ok(Ok(made)) => line.connection = Some(made),
                Ok(Err(e)) => {
                    failure = format!("cannot connect: {e}");
                    continue;
                }
                Err(_) => {
                    failure = "connecting timed out".into();
                    continue;
                }
            }
        }
        // Only a line with a gap waits (a timer per request costs a Modbus TCP source for nothing).
        if let Some(quiet) = line.quiet_at.filter(|at| *at > Instant::now()) {
            tokio::time::sleep_until(quiet).await;
        }
        let Some(modbus) = line.connection.as_mut() else {
            continue;
        };
        modbus.set_slave(Slave(source.unit_id));
        let answer = tokio::time::timeout(timeout, execute(modbus, op)).await;
        if !gap.is_zero() {
            line.quiet_at = Some(Instant::now() + gap);
        }
        match answer {
            Ok(Ok(answer)) => return Ok(answer),
            Ok(Err(e)) => failure = format!("protocol error: {e}"),
            Err(_) => failure = "request timed out".into(),
        }
        // A late or broken answer must not meet the next request: start a new connection.
        line.connection = None;
    }
    Err(failure)
}
