//! The browser UI end to end in headless Chromium: `tests/e2e/*.mjs` scenarios, driven by
//! playwright-core (npm) against the `printcost` binary on 127.0.0.1. `scripts/test` installs
//! Debian's chromium and the npm packages. Screenshots go to a folder named for the run under
//! cargo's test temp folder; the test prints where.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The service on a free port with a fresh data folder; stopped when dropped.
struct Service {
    child: Child,
    base: String,
    _data: tempfile::TempDir,
}

impl Service {
    fn start() -> Service {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let data = tempfile::tempdir().unwrap();
        let child = Command::new("timeout")
            .args(["-s", "TERM", "300", env!("CARGO_BIN_EXE_printcost")])
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data.path())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the service did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Service {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _data: data,
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// A folder for this run's screenshots.
fn screenshots(scenario: &str) -> PathBuf {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("e2e-{stamp}-{scenario}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tests/e2e/<scenario>.mjs` against a fresh service; fails with its output.
fn scenario(name: &str) {
    let service = Service::start();
    let shots = screenshots(name);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/e2e/{name}.mjs"));
    let output = Command::new("timeout")
        .args(["240", "node"])
        .arg(&script)
        .arg(&service.base)
        .arg(&shots)
        .output()
        .expect("node (scripts/test installs the e2e packages)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{name} failed:\n{text}");
    println!("{text}");
    assert!(
        shots.read_dir().unwrap().count() > 0,
        "no screenshots in {shots:?}"
    );
}

#[test]
fn first_run_dashboard_prints_and_german() {
    scenario("first_run");
}

#[test]
fn inventory_two_part_print_outcomes_ledger_and_german_a4_report() {
    scenario("full_flow");
}
