//! Independent peers for the bridge, each started on 127.0.0.1 and stopped by its guard: the
//! pymodbus test device, the Debian mosquitto broker, `mosquitto_sub`/`mosquitto_pub`, and the
//! bridge binary itself. `scripts/test` installs them.
//!
//! Every child runs under coreutils `timeout`, so a peer outlives a killed test run by at most
//! five minutes; the guards end them with SIGTERM, which `timeout` passes on.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The longest any peer lives, seconds: `PRINTCOST_PEER_LIFETIME`, 300 by default (a night's
/// soak sets more).
fn lifetime() -> String {
    std::env::var("PRINTCOST_PEER_LIFETIME").unwrap_or_else(|_| "300".into())
}
/// How long a peer has to stop after SIGTERM.
const GRACE: Duration = Duration::from_secs(5);

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `program args…` under `timeout`, with its input piped (some peers stop when it closes).
fn bounded(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new("timeout");
    command
        .args(["-s", "TERM", &lifetime(), program])
        .args(args)
        .stdin(Stdio::piped());
    command
}

/// A running peer; dropping it stops it.
pub struct Peer {
    child: Child,
    name: String,
}

impl Peer {
    fn spawn(name: &str, mut command: Command) -> Peer {
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e} (scripts/test installs it)"));
        Peer {
            child,
            name: name.to_string(),
        }
    }

    /// Stops the peer with SIGTERM and waits for it.
    pub fn stop(mut self) {
        self.terminate();
    }

    /// SIGTERM, then SIGKILL after [`GRACE`]: `mosquitto_sub` reconnecting to a stopped broker
    /// was seen to ignore SIGTERM, and waiting for it held a finished test for 17 minutes.
    fn terminate(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        drop(self.child.stdin.take());
        let deadline = Instant::now() + GRACE;
        while matches!(self.child.try_wait(), Ok(None)) {
            if Instant::now() >= deadline {
                eprintln!("{} ignored SIGTERM; killed", self.name);
                let _ = self.child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Err(e) = self.child.wait() {
            eprintln!("{} did not stop: {e}", self.name);
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.terminate();
        }
    }
}

/// The pymodbus device of `tests/peers/modbus_device.py` on `port`, holding registers from 0
/// starting with `holding`.
pub fn modbus_device(port: u16, holding: &[u16]) -> Peer {
    modbus_device_with_inputs(port, holding, &[])
}

/// As [`modbus_device`], with the input registers `inputs` (address, value) set.
pub fn modbus_device_with_inputs(port: u16, holding: &[u16], inputs: &[(u16, u16)]) -> Peer {
    let python = std::env::var("PRINTCOST_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/modbus_device.py");
    let holding = serde_json::to_string(holding).unwrap();
    let inputs: serde_json::Map<String, serde_json::Value> = inputs
        .iter()
        .map(|(address, value)| (address.to_string(), (*value).into()))
        .collect();
    let inputs = serde_json::Value::Object(inputs).to_string();
    let peer = Peer::spawn(
        "the pymodbus device",
        bounded(
            &python,
            &[
                script.to_str().unwrap(),
                &port.to_string(),
                &holding,
                &inputs,
            ],
        ),
    );
    wait_for_port(port);
    peer
}

/// A pseudo-terminal pair made by socat, standing in for an RS-485 adapter and the bus behind
/// it: the bridge opens `dir/bridge-tty`, the device `dir/device-tty`.
pub fn serial_pair(dir: &Path) -> (Peer, PathBuf, PathBuf) {
    let (bridge_end, device_end) = (dir.join("bridge-tty"), dir.join("device-tty"));
    let end = |path: &Path| format!("pty,raw,echo=0,link={}", path.display());
    let peer = Peer::spawn(
        "socat",
        bounded("socat", &[&end(&bridge_end), &end(&device_end)]),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(bridge_end.exists() && device_end.exists()) {
        assert!(Instant::now() < deadline, "socat made no pseudo-terminals");
        std::thread::sleep(Duration::from_millis(20));
    }
    (peer, bridge_end, device_end)
}

/// `tests/peers/rtu_device.py MODE WHERE`: pymodbus as units 1 and 2 on the serial port or
/// TCP port `where` (`serial`, `tcp`), or a faulty device (`wrong-unit`, `bad-crc`).
pub fn rtu_device(mode: &str, place: &str) -> Peer {
    let python = std::env::var("PRINTCOST_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/rtu_device.py");
    let peer = Peer::spawn(
        "the RTU device",
        bounded(&python, &[script.to_str().unwrap(), mode, place]),
    );
    if mode == "tcp" {
        wait_for_port(place.parse().unwrap());
    }
    peer
}

/// The pymodbus gateway of `tests/peers/modbus_gateway.py` on `port`: units 1, 2 and 3 behind
/// one client connection at a time; it counts the connections it accepted and refused in
/// `counts` (JSON).
pub fn modbus_gateway(port: u16, counts: &Path) -> Peer {
    let python = std::env::var("PRINTCOST_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/modbus_gateway.py");
    let peer = Peer::spawn(
        "the Modbus TCP gateway",
        bounded(
            &python,
            &[
                script.to_str().unwrap(),
                &port.to_string(),
                counts.to_str().unwrap(),
            ],
        ),
    );
    wait_for_port(port);
    peer
}

/// Debian's mosquitto on 127.0.0.1:`port`, anonymous, without persistence (a restart forgets
/// every retained message), its configuration in `dir`.
pub fn mosquitto(port: u16, dir: &Path) -> Peer {
    mosquitto_with(port, dir, "allow_anonymous true\n")
}

/// Debian's mosquitto on 127.0.0.1:`port` with the listener settings `settings` (lines of
/// mosquitto.conf: TLS files, a password file), without persistence, its configuration in `dir`.
pub fn mosquitto_with(port: u16, dir: &Path, settings: &str) -> Peer {
    start_mosquitto(port, dir, &format!("{settings}persistence false\n"))
}

/// Debian's mosquitto on 127.0.0.1:`port`, anonymous, keeping its sessions and retained messages
/// in `dir` across a stop and a start (a persistent subscriber's messages wait for it).
pub fn persistent_mosquitto(port: u16, dir: &Path) -> Peer {
    let settings = format!(
        "allow_anonymous true\npersistence true\npersistence_location {}/\n",
        dir.display()
    );
    start_mosquitto(port, dir, &settings)
}

/// mosquitto on 127.0.0.1:`port` with `settings` after its listener line, its configuration in
/// `dir`.
fn start_mosquitto(port: u16, dir: &Path, settings: &str) -> Peer {
    let config = dir.join(format!("mosquitto-{port}.conf"));
    std::fs::write(&config, format!("listener {port} 127.0.0.1\n{settings}")).unwrap();
    let program = if Path::new("/usr/sbin/mosquitto").exists() {
        "/usr/sbin/mosquitto"
    } else {
        "mosquitto"
    };
    let mut command = bounded(program, &["-c", config.to_str().unwrap()]);
    command.stderr(Stdio::null());
    let peer = Peer::spawn("mosquitto", command);
    wait_for_port(port);
    peer
}

/// The bridge binary with `yaml` as its configuration (written into `dir`).
pub fn bridge(yaml: &str, dir: &Path) -> Peer {
    let config: PathBuf = dir.join("bridge.yml");
    std::fs::write(&config, yaml).unwrap();
    Peer::spawn(
        "the bridge",
        bounded(
            env!("CARGO_BIN_EXE_modbus-mqtt-bridge"),
            &["--config", config.to_str().unwrap()],
        ),
    )
}

/// The bridge binary with `yaml` as its configuration, its log (standard output and error)
/// going to `bridge.log` in `dir`, whose path is returned with it.
pub fn logged_bridge(yaml: &str, dir: &Path) -> (Peer, PathBuf) {
    let config: PathBuf = dir.join("bridge.yml");
    std::fs::write(&config, yaml).unwrap();
    let log = dir.join("bridge.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut command = bounded(
        env!("CARGO_BIN_EXE_modbus-mqtt-bridge"),
        &["--config", config.to_str().unwrap()],
    );
    command
        .stdout(file.try_clone().unwrap())
        .stderr(Stdio::from(file));
    (Peer::spawn("the bridge", command), log)
}

/// The lines of the log at `log` that contain `needle`, once there are at least `count` of
/// them (waiting up to 20 s).
pub fn log_lines(log: &Path, needle: &str, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let lines: Vec<String> = text
            .lines()
            .filter(|l| l.contains(needle))
            .map(str::to_string)
            .collect();
        if lines.len() >= count {
            return lines;
        }
        assert!(
            Instant::now() < deadline,
            "{count} lines with {needle:?} expected in the bridge's log:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One message as `mosquitto_sub` printed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub topic: String,
    pub payload: String,
    pub retained: bool,
    /// The QoS it was delivered at (the subscription asks for 2, so this is the publisher's).
    pub qos: u8,
}

/// `mosquitto_sub` on `filter`, its messages read by a thread.
pub struct Subscriber {
    _peer: Peer,
    messages: Receiver<Message>,
    seen: Vec<Message>,
}

impl Subscriber {
    /// Subscribes to `filter` on the broker at 127.0.0.1:`port`, and returns once the broker
    /// acknowledged the subscription (so nothing published afterwards is missed live).
    pub fn start(port: u16, filter: &str) -> Subscriber {
        Subscriber::start_with(port, filter, &[])
    }

    /// [`Subscriber::start`] with more `mosquitto_sub` options (TLS files, credentials).
    pub fn start_with(port: u16, filter: &str, options: &[&str]) -> Subscriber {
        // Line-buffered, so that the debug line of the SUBACK arrives when it is written.
        let mut command = Command::new("stdbuf");
        command
            .args(["-oL", "mosquitto_sub"])
            .args(["-d", "-h", "127.0.0.1", "-p", &port.to_string(), "-q", "2"])
            .args(["-W", &lifetime(), "-F", "%r %q %t %p", "-t", filter])
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut peer = Peer::spawn("mosquitto_sub", command);
        let stdout = peer.child.stdout.take().unwrap();
        let (sender, messages) = channel();
        let (subscribed, acknowledged) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // `-d` debug lines: the SUBACK is the signal; the rest is noise.
                if line.starts_with("Client ") {
                    if line.contains("received SUBACK") {
                        let _ = subscribed.send(());
                    }
                    continue;
                }
                let mut fields = line.splitn(4, ' ');
                let (Some(retained), Some(qos), Some(topic)) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    continue;
                };
                let message = Message {
                    retained: retained == "1",
                    qos: qos.parse().unwrap_or(u8::MAX),
                    topic: topic.to_string(),
                    payload: fields.next().unwrap_or_default().to_string(),
                };
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        acknowledged
            .recv_timeout(std::time::Duration::from_secs(15))
            .expect("mosquitto_sub subscribed");
        Subscriber {
            _peer: peer,
            messages,
            seen: Vec::new(),
        }
    }

    /// The earliest message not yet taken on `topic` that `wanted` accepts, waiting up to 15 s
    /// for it. Messages that do not match stay for later calls (a broker delivers retained
    /// messages in its own order).
    pub fn expect(&mut self, topic: &str, wanted: impl Fn(&Message) -> bool) -> Message {
        let matches = |m: &Message| m.topic == topic && wanted(m);
        if let Some(at) = self.seen.iter().position(matches) {
            return self.seen.remove(at);
        }
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if matches(&message) => return message,
                Ok(message) => self.seen.push(message),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no wanted message on {topic}; seen: {:#?}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => panic!("mosquitto_sub ended"),
            }
        }
    }

    /// Every message on `topic` received so far and not yet taken (waiting for none).
    pub fn seen_on(&mut self, topic: &str) -> Vec<Message> {
        while let Ok(message) = self.messages.try_recv() {
            self.seen.push(message);
        }
        self.seen
            .iter()
            .filter(|m| m.topic == topic)
            .cloned()
            .collect()
    }

    /// The first message on `topic`, within 15 s.
    pub fn next_on(&mut self, topic: &str) -> Message {
        self.expect(topic, |_| true)
    }
}

/// Publishes `payload` on `topic` with `mosquitto_pub`.
pub fn publish(port: u16, topic: &str, payload: &str) {
    let mut child = Command::new("mosquitto_pub")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-q", "1"])
        .args(["-t", topic, "-s"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("mosquitto_pub (scripts/test installs it)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success(), "mosquitto_pub failed");
}
