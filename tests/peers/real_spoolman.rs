//! A real Spoolman (its backend, MIT, found through `PRINTCOST_SPOOLMAN_RUN`) on a free 127.0.0.1 port,
//! stopped by its PID when dropped. `scripts/test` passes its start script in
//! `PRINTCOST_SPOOLMAN_RUN`; without it the sibling `shared` folder is tried, and where neither
//! exists the tests say so loudly and run against the double only.

/// A running Spoolman.
pub struct RealSpoolman {
    pid: String,
    data: String,
    /// Its base URL, `http://127.0.0.1:PORT`.
    pub url: String,
}

impl RealSpoolman {
    /// Starts one (about 5 s; the first run builds its venv). `None` where it is absent.
    /// Starts are one at a time: `run.sh` sets up its shared cache unguarded.
    pub fn start() -> Option<RealSpoolman> {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let script = std::env::var_os("PRINTCOST_SPOOLMAN_RUN")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../shared/peers/spoolman/run.sh")
            });
        let script = if script.exists() {
            script
        } else {
            // The actors crate sits one level deeper.
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/peers/spoolman/run.sh")
        };
        if !script.exists() {
            eprintln!(
                "\n*** The real Spoolman is absent ({}): only the double ran. ***\n",
                script.display()
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg(port.to_string())
            .env(
                "PEER_TIMEOUT_S",
                std::env::var("PRINTCOST_PEER_LIFETIME").unwrap_or_else(|_| "300".into()),
            )
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let field = |name: &str| {
            text.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{name}=")))
                .unwrap()
                .to_string()
        };
        Some(RealSpoolman {
            pid: field("PID"),
            data: field("DATA"),
            url: field("URL"),
        })
    }
}

impl Drop for RealSpoolman {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill").arg(&self.pid).status();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}
