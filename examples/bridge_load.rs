//! Load run of the Modbus-to-MQTT bridge: many local test devices, the real bridge binary in its
//! own process, and one MQTT subscriber counting what arrives.
//!
//! ```sh
//! benches/bridge/load.sh            # builds, then runs this with the defaults below
//! ```
//!
//! - Starts `--sources` Modbus TCP test devices (tokio-modbus) on 127.0.0.1, each with
//!   `--points` holding registers read as u16 points (one coalesced request per poll).
//! - Writes a bridge configuration (embedded broker, or `--external-broker PORT`), starts
//!   `--bridge` with it, subscribes to every state, waits for the warm-up, then counts states
//!   per second for `--seconds` and reads the bridge's CPU time and RSS from `/proc`.
//! - Latency: changes one register `--samples` times at spread-out moments of the poll cycle
//!   and measures the time until the subscriber sees the new value.
//! - Writes: publishes `--writes` commands on a point's write topic (`<state>/set`), one at a
//!   time at spread-out moments, and measures the time until the subscriber sees the state the
//!   bridge read back after writing the register (the whole round trip: broker, bridge, device,
//!   broker again).
//!
//! - The peer: with `--peer-python PY` it runs modbus2mqtt 0.73 (one process per device, as it
//!   takes one Modbus TCP endpoint each, publishing every poll) instead of the bridge, against
//!   the same devices and the broker of `--external-broker`; `--broker-pid` adds that broker's
//!   CPU per state (`benches/bridge/peer.sh` runs both side by side).
//!
//! Everything listens on 127.0.0.1 and stops when the run ends.

use clap::Parser;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use std::future;
use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio_modbus::prelude::{ExceptionCode, Request, Response};
use tokio_modbus::server::tcp::{Server, accept_tcp_connection};

#[derive(Debug, Parser)]
struct Args {
    /// The bridge binary.
    #[arg(long, required_unless_present = "peer_python")]
    bridge: Option<PathBuf>,
    /// Run modbus2mqtt 0.73 (spicierModbus2mqtt, one process per device, publishing every
    /// poll) with this Python instead of the bridge; needs `--external-broker`.
    #[arg(long, requires = "external_broker")]
    peer_python: Option<PathBuf>,
    /// The external broker's process: its CPU over the counting window is reported too.
    #[arg(long)]
    broker_pid: Option<u32>,
    #[arg(long, default_value_t = 50)]
    sources: usize,
    #[arg(long, default_value_t = 100)]
    points: u16,
    #[arg(long, default_value_t = 100)]
    interval_ms: u64,
    /// Length of the counting window.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Register changes timed for the latency figure.
    #[arg(long, default_value_t = 50)]
    samples: u32,
    /// Publish to a broker already listening on 127.0.0.1:PORT instead of the embedded one.
    #[arg(long)]
    external_broker: Option<u16>,
    /// The bridge's `mqtt.state_qos` (left to its default when not given, so builds that do not
    /// know the key can be measured alike).
    #[arg(long)]
    state_qos: Option<u8>,
    /// The bridge's `mqtt.max_inflight` (default: left to the bridge's).
    #[arg(long)]
    max_inflight: Option<u16>,
    /// Write commands timed for the write figure.
    #[arg(long, default_value_t = 0)]
    writes: u32,
}

/// A device's holding registers.
struct Bank(Vec<AtomicU16>);

impl tokio_modbus::server::Service for Bank {
    type Request = Request<'static>;
    type Response = Response;
    type Exception = ExceptionCode;
    type Future = future::Ready<Result<Response, ExceptionCode>>;

    fn call(&self, request: Request<'static>) -> Self::Future {
        future::ready(match request {
            Request::WriteSingleRegister(address, value) => self
                .0
                .get(usize::from(address))
                .map(|r| {
                    r.store(value, Ordering::Relaxed);
                    Response::WriteSingleRegister(address, value)
                })
                .ok_or(ExceptionCode::IllegalDataAddress),
            Request::ReadHoldingRegisters(address, count) => (address..address + count)
                .map(|a| {
                    self.0
                        .get(usize::from(a))
                        .map(|r| r.load(Ordering::Relaxed))
                })
                .collect::<Option<Vec<u16>>>()
                .map(Response::ReadHoldingRegisters)
                .ok_or(ExceptionCode::IllegalDataAddress),
            _ => Err(ExceptionCode::IllegalFunction),
        })
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(StdListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

async fn serve(bank: Arc<Bank>) -> std::io::Result<u16> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        let new_service = move |_| Ok(Some(bank.clone()));
        let on_connected = move |stream, address| {
            let new_service = new_service.clone();
            async move { accept_tcp_connection(stream, address, new_service) }
        };
        let _ = Server::new(listener).serve(&on_connected, |_| {}).await;
    });
    Ok(port)
}

fn config(args: &Args, mqtt: u16, devices: &[u16]) -> String {
    let broker = match args.external_broker {
        Some(_) => String::new(),
        None => format!("broker:\n  listen: 127.0.0.1:{mqtt}\n"),
    };
    let mut yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {mqtt}\n  base_topic: load\n  client_id: load-bridge\n{qos}{inflight}{broker}logging:\n  level: warn\nsources:\n",
        qos = args
            .state_qos
            .map(|q| format!("  state_qos: {q}\n"))
            .unwrap_or_default(),
        inflight = args
            .max_inflight
            .map(|n| format!("  max_inflight: {n}\n"))
            .unwrap_or_default()
    );
    for (s, port) in devices.iter().enumerate() {
        yaml.push_str(&format!(
            "  - id: s{s}\n    host: 127.0.0.1\n    port: {port}\n    unit_id: 1\n    poll_interval_ms: {}\n    points:\n",
            args.interval_ms
        ));
        for p in 0..args.points {
            yaml.push_str(&format!(
                "      - {{name: p{p}, topic: p{p}, address: {p}, kind: holding, data_type: u16}}\n"
            ));
        }
    }
    yaml
}

/// modbus2mqtt's configuration (CSV) for one device of `points` holding registers polled every
/// `interval_ms`: one poller of them all, one u16 reference per register.
fn peer_config(source: usize, points: u16, interval_ms: u64) -> String {
    let mut csv = String::from("type,topic,col2,col3,col4,col5,col6\n");
    csv.push_str(&format!(
        "poll,s{source},1,0,{points},holding_register,{}\n",
        interval_ms as f64 / 1000.0
    ));
    for p in 0..points {
        csv.push_str(&format!("ref,p{p},{p},r,uint16,\n"));
    }
    csv
}

/// The state topic of point `point` of source `source`: the bridge's, or modbus2mqtt's.
fn state_topic(args: &Args, source: usize, point: u16) -> String {
    match args.peer_python {
        Some(_) => format!("load/s{source}/state/p{point}"),
        None => format!("load/s{source}/p{point}"),
    }
}

/// The contestant's processes: the bridge, or one modbus2mqtt per device.
fn contestants(args: &Args, mqtt: u16, ports: &[u16], dir: &Path) -> std::io::Result<Vec<Stop>> {
    let Some(python) = &args.peer_python else {
        let config_path = dir.join("bridge.yml");
        std::fs::write(&config_path, config(args, mqtt, ports))?;
        let bridge = args
            .bridge
            .as_deref()
            .unwrap_or(Path::new("modbus-mqtt-bridge"));
        let child = Command::new(bridge)
            .arg("--config")
            .arg(&config_path)
            .stdin(Stdio::null())
            .spawn()?;
        return Ok(vec![Stop(child)]);
    };
    let mut peers = Vec::new();
    for (s, port) in ports.iter().enumerate() {
        let csv = dir.join(format!("s{s}.csv"));
        std::fs::write(&csv, peer_config(s, args.points, args.interval_ms))?;
        let child = Command::new(python)
            .args([
                "-m",
                "modbus2mqtt",
                "--mqtt-host",
                "127.0.0.1",
                "--mqtt-topic",
                "load/",
            ])
            .args(["--mqtt-port", &mqtt.to_string(), "--tcp", "127.0.0.1"])
            .args([
                "--tcp-port",
                &port.to_string(),
                "--always-publish",
                "--verbosity",
                "0",
            ])
            .arg("--config")
            .arg(&csv)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()?;
        peers.push(Stop(child));
    }
    Ok(peers)
}

/// CPU seconds and RSS in KiB of the processes `pids`, summed.
fn usage_of(pids: &[u32]) -> Option<(f64, u64)> {
    pids.iter().try_fold((0.0, 0), |(cpu, rss), pid| {
        usage(*pid).map(|(c, r)| (cpu + c, rss + r))
    })
}

/// CPU seconds (user + system) and RSS in KiB of a process, from `/proc`.
fn usage(pid: u32) -> Option<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // After the command name: state is field 3, utime 14 and stime 15 (proc(5)).
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches(" kB")
        .parse()
        .ok()?;
    // USER_HZ is 100 on Linux.
    Some((ticks as f64 / 100.0, rss))
}

/// The awaited state: its topic and value, and whom to tell when it arrives.
type Watch = Arc<Mutex<Option<(String, String, oneshot::Sender<Instant>)>>>;

struct Stop(Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The point whose changes are timed: the 38th of source 0 (or its last).
fn watched_point(args: &Args) -> u16 {
    37.min(args.points.saturating_sub(1))
}

/// The point whose writes are timed: the 62nd of source 0 (or its first).
fn written_point(args: &Args) -> u16 {
    61.min(args.points.saturating_sub(1))
}

/// Waits until `watch`'s awaited state arrives (at most 5 s): how long after `since`.
async fn awaited(
    watch: &Watch,
    topic: String,
    value: String,
    act: impl FnOnce(),
) -> Option<Duration> {
    let (tell, told) = oneshot::channel();
    *watch.lock().unwrap_or_else(|e| e.into_inner()) = Some((topic, value, tell));
    let since = Instant::now();
    act();
    match tokio::time::timeout(Duration::from_secs(5), told).await {
        Ok(Ok(seen)) => Some(seen - since),
        _ => None,
    }
}

/// Median, p90, p99 and max of `samples`, milliseconds, in a line.
fn summary(samples: &mut [Duration]) -> String {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!(
        "({} samples): median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        samples.len(),
        ms(percentile(samples, 50)),
        ms(percentile(samples, 90)),
        ms(percentile(samples, 99)),
        ms(samples[samples.len() - 1])
    )
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() - 1) * p / 100]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut banks = Vec::new();
    let mut ports = Vec::new();
    for _ in 0..args.sources {
        let bank = Arc::new(Bank((0..args.points).map(AtomicU16::new).collect()));
        ports.push(serve(bank.clone()).await?);
        banks.push(bank);
    }
    let mqtt = match args.external_broker {
        Some(port) => port,
        None => free_port()?,
    };
    let dir = std::env::temp_dir().join(format!("bridge-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let bridge = contestants(&args, mqtt, &ports, &dir)?;
    let pids: Vec<u32> = bridge.iter().map(|p| p.0.id()).collect();
    tokio::time::sleep(Duration::from_millis(500)).await;

    let counted = Arc::new(AtomicU64::new(0));
    let watch: Watch = Arc::new(Mutex::new(None));
    let mut options = MqttOptions::new("load-watcher", "127.0.0.1", mqtt);
    options.set_keep_alive(Duration::from_secs(30));
    let (client, mut events) = AsyncClient::new(options, 10_000);
    let (count, watched) = (counted.clone(), watch.clone());
    tokio::spawn(async move {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    // A clean session: subscribe on every connection.
                    let _ = client.subscribe("load/#", QoS::AtMostOnce).await;
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    count.fetch_add(1, Ordering::Relaxed);
                    let mut watch = watched.lock().unwrap_or_else(|e| e.into_inner());
                    let arrived = watch
                        .as_ref()
                        .is_some_and(|(t, v, _)| p.topic == *t && p.payload == v.as_bytes());
                    if let Some((_, _, tell)) = watch.take_if(|_| arrived) {
                        let _ = tell.send(Instant::now());
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    eprintln!("subscriber: {e}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    });

    // Python takes a while to start its pollers: about a second of CPU per process.
    let warm_up = match args.peer_python {
        Some(_) => 6 + args.sources as u64,
        None => 3,
    };
    tokio::time::sleep(Duration::from_secs(warm_up)).await;
    let broker = || args.broker_pid.and_then(usage).map(|(cpu, _)| cpu);
    let (cpu0, broker0) = (
        usage_of(&pids).ok_or("the bridge is not running")?.0,
        broker(),
    );
    let (n0, t0) = (counted.load(Ordering::Relaxed), Instant::now());
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let ((cpu1, rss), broker1) = (usage_of(&pids).ok_or("the bridge stopped")?, broker());
    let (n1, elapsed) = (counted.load(Ordering::Relaxed), t0.elapsed().as_secs_f64());
    let expected = args.sources as f64 * f64::from(args.points) * 1000.0 / args.interval_ms as f64;
    println!(
        "{} sources × {} points every {} ms ({} broker)",
        args.sources,
        args.points,
        args.interval_ms,
        if args.external_broker.is_some() {
            "external"
        } else {
            "embedded"
        }
    );
    println!(
        "states received: {:.0}/s (configured rate {expected:.0}/s)",
        (n1 - n0) as f64 / elapsed
    );
    let states = (n1 - n0).max(1) as f64;
    println!(
        "{} CPU: {:.1}% of one core, {:.2} µs a state; RSS {:.1} MiB",
        if args.peer_python.is_some() {
            "modbus2mqtt"
        } else {
            "bridge"
        },
        (cpu1 - cpu0) / elapsed * 100.0,
        (cpu1 - cpu0) / states * 1e6,
        rss as f64 / 1024.0
    );
    if let (Some(before), Some(after)) = (broker0, broker1) {
        println!(
            "broker CPU: {:.1}% of one core, {:.2} µs a state",
            (after - before) / elapsed * 100.0,
            (after - before) / states * 1e6
        );
    }

    let mut latencies = Vec::new();
    let watched = state_topic(&args, 0, watched_point(&args));
    for i in 0..args.samples {
        let phase = u64::from(i * 37) % args.interval_ms.max(1);
        tokio::time::sleep(Duration::from_millis(200 + phase)).await;
        let value = 10_000 + i as u16;
        let register = &banks[0].0[usize::from(watched_point(&args))];
        let change = || register.store(value, Ordering::Relaxed);
        match awaited(&watch, watched.clone(), value.to_string(), change).await {
            Some(latency) => latencies.push(latency),
            None => eprintln!("sample {i}: not seen within 5 s"),
        }
    }
    if !latencies.is_empty() {
        println!("register change to subscriber {}", summary(&mut latencies));
    }

    let mut writes = Vec::new();
    if args.peer_python.is_some() && args.writes > 0 {
        eprintln!("writes are timed for the bridge only");
    }
    let writes_timed = if args.peer_python.is_some() {
        0
    } else {
        args.writes
    };
    let written = state_topic(&args, 0, written_point(&args));
    let (writer, mut writer_events) =
        AsyncClient::new(MqttOptions::new("load-writer", "127.0.0.1", mqtt), 100);
    tokio::spawn(async move { while writer_events.poll().await.is_ok() {} });
    for i in 0..writes_timed {
        let phase = u64::from(i * 37) % args.interval_ms.max(1);
        tokio::time::sleep(Duration::from_millis(100 + phase)).await;
        let value = (20_000 + i % 10_000).to_string();
        let (client, topic, payload) = (writer.clone(), format!("{written}/set"), value.clone());
        let command = move || {
            tokio::spawn(async move {
                client
                    .publish(topic, QoS::AtLeastOnce, false, payload)
                    .await
            });
        };
        match awaited(&watch, written.clone(), value, command).await {
            Some(latency) => writes.push(latency),
            None => eprintln!("write {i}: its state not seen within 5 s"),
        }
    }
    if !writes.is_empty() {
        println!(
            "write command to the state read back {}",
            summary(&mut writes)
        );
    }
    drop(bridge);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
