//! The print-cost appliance, assembled.
//!
//! [`Application::build`] opens the store, starts the writer actors (each on its own arbiter
//! thread), builds the HTTP server and binds it; tests and benchmarks start the application
//! exactly as `printcost` does, on port 0 with a temporary data directory.
//!
//! Threads: actix-web workers (async, never blocked), the blocking pool for reads and password
//! hashing, one arbiter thread per writer actor, and the spool manager's background timer on the
//! system arbiter.

pub mod cli;
pub mod control;

use ::web::release::LatestVersion;
use ::web::state::{AppState, WebConfig};
use actix_web::HttpServer;
use actix_web::dev::Server;
use actix_web::web::Data;
use actors::accounts::new_session_token;
use actors::bridge::{self, BridgeConfig, Running};
use actors::integrations::settings;
use actors::runtime::{self, Appliance};
use control::Control;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::Duration;
use storage::{Store, StoreOptions};

/// File name of the database inside the data directory.
pub const DATABASE_FILE: &str = "printcost.redb";

/// Everything the service is configured with (see `printcost --help`).
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Directory of the database file (created if missing).
    pub data_dir: PathBuf,
    /// Public origins accepted on writes besides the request's own (`https://printcost.lan`).
    pub public_origins: Vec<String>,
    /// Reverse proxies whose `Forwarded` / `X-Forwarded-Host` / `X-Forwarded-Proto` headers say
    /// which origin a request was addressed to; from any other peer they are ignored.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Session lifetime in hours.
    pub session_ttl_hours: u32,
    /// redb page cache, MiB (default 4: reads beyond it come from the kernel's page cache at
    /// the same list latency, and a 1 GB Pi keeps the memory; `benches/http/prints.sh`).
    pub cache_mib: usize,
    /// HTTP worker threads.
    pub workers: usize,
    /// Seconds SIGTERM waits for in-flight requests.
    pub shutdown_timeout_secs: u64,
    /// Release feed asked by `GET /api/version-latest` (none: the answer is null).
    pub release_feed_url: Option<String>,
    /// Defaults of the integrations' URLs and credentials until they are set in the settings.
    pub integrations: settings::Defaults,
    /// Seconds between the spool manager's background rounds (pending operations sent, linked
    /// spools synced).
    pub spoolmgr_interval_secs: u64,
    /// The Modbus-to-MQTT bridge run inside this process (`--bridge-config`), already
    /// validated; its MQTT link also carries printcost's alerts and levels.
    pub bridge: Option<BridgeConfig>,
    /// Seconds between two evaluations of the alerts.
    pub alerts_interval_secs: u64,
    /// The shop's time zone: the day a print counts on, the nightly backup's hour, the times
    /// pages show (default: the system's, `/etc/localtime` or `TZ`).
    pub time_zone: jiff::tz::TimeZone,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: PathBuf::from("data"),
            public_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            session_ttl_hours: 24 * 7,
            cache_mib: 4,
            workers: 2,
            shutdown_timeout_secs: 30,
            release_feed_url: None,
            integrations: Default::default(),
            spoolmgr_interval_secs: 60,
            bridge: None,
            alerts_interval_secs: 30,
            time_zone: jiff::tz::TimeZone::system(),
        }
    }
}

impl Config {
    /// Store options from this configuration.
    pub fn store_options(&self) -> StoreOptions {
        StoreOptions {
            cache_bytes: self.cache_mib * 1024 * 1024,
        }
    }
}

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The data directory could not be created.
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The database could not be opened (locked by another process, corrupt, newer schema).
    #[error("cannot open the database {path}: {source}")]
    Store {
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: storage::Error,
    },
    /// The appliance's actors could not start (the bridge, the webhooks' client).
    #[error("{0}")]
    Appliance(#[from] runtime::StartError),
    /// No control token could be drawn (the random source failed).
    #[error("no control token: {0}")]
    Control(String),
    /// The listen address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address.
        address: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
}

/// Opens the database in `config.data_dir`, creating the directory if needed.
///
/// Errors: [`StartError::DataDir`], [`StartError::Store`].
pub fn open_store(config: &Config) -> Result<Store, StartError> {
    std::fs::create_dir_all(&config.data_dir).map_err(|source| StartError::DataDir {
        path: config.data_dir.clone(),
        source,
    })?;
    let path = config.data_dir.join(DATABASE_FILE);
    Store::open(&path, config.store_options()).map_err(|source| StartError::Store { path, source })
}

/// Threads each HTTP worker may use for blocking work (read transactions, password hashing).
/// Reads are CPU-bound, so more threads than cores only add memory (each thread gets its own
/// allocator arena): actix's default of 512 per machine took RSS from 25 to 100 MiB under 64
/// connections.
pub const BLOCKING_THREADS_PER_WORKER: usize = 2;

/// A built, bound application: run it with [`Application::run_until_stopped`].
pub struct Application {
    server: Server,
    address: SocketAddr,
    arbiters: Vec<actix::Arbiter>,
    bridge: Option<Running>,
    /// Where the control file was written (removed at stop).
    data_dir: PathBuf,
}

impl Application {
    /// Opens the store of `config` and builds the application. Must run inside an actix
    /// `System` (`#[actix_web::main]`, `#[actix_web::test]`).
    ///
    /// Errors: see [`StartError`].
    pub fn build(config: &Config) -> Result<Application, StartError> {
        let store = open_store(config)?;
        Self::build_with_store(config, store)
    }

    /// Builds the application over an already open store (tests use failing backends).
    ///
    /// Errors: [`StartError::Appliance`], [`StartError::Listen`].
    pub fn build_with_store(config: &Config, store: Store) -> Result<Application, StartError> {
        let settings = runtime::Settings {
            time_zone: config.time_zone.clone(),
            integrations: config.integrations.clone(),
            integrations_interval: Duration::from_secs(config.spoolmgr_interval_secs),
            bridge: config.bridge.clone(),
            alerts_interval: Duration::from_secs(config.alerts_interval_secs),
        };
        let mut appliance = Appliance::start(store, &settings)?;
        let (bridge, arbiters) = (
            appliance.bridge.take(),
            std::mem::take(&mut appliance.arbiters),
        );
        let (control_token, control_hash) =
            new_session_token().map_err(|e| StartError::Control(e.to_string()))?;
        let secure_cookies = config
            .public_origins
            .iter()
            .any(|o| o.starts_with("https://"));
        let state = Data::new(AppState {
            store: appliance.store,
            reader: appliance.reader,
            spoolmgr: appliance.spoolmgr,
            printfleet: appliance.printfleet,
            writers: appliance.writers,
            index: appliance.index,
            backups: appliance.backups,
            alerts: appliance.alerts,
            meters: appliance.meters,
            bridge: config.bridge.clone(),
            latest_version: LatestVersion::new(config.release_feed_url.clone()),
            config: WebConfig {
                public_origins: config.public_origins.clone(),
                trusted_proxies: config.trusted_proxies.clone(),
                session_ttl_seconds: i64::from(config.session_ttl_hours) * 3600,
                secure_cookies,
                integrations: config.integrations.clone(),
                control_token_hash: Some(control_hash),
            },
            throttle: Default::default(),
            sessions: Default::default(),
        });
        let listener = TcpListener::bind(config.listen).map_err(|source| StartError::Listen {
            address: config.listen,
            source,
        })?;
        let listen_error = |source| StartError::Listen {
            address: config.listen,
            source,
        };
        let address = listener.local_addr().map_err(listen_error)?;
        let control = Control {
            url: control::local_url(address),
            token: control_token,
        };
        if let Err(e) = control::write(&config.data_dir, &control) {
            // Only `printcost journal verify` beside a running service needs it.
            tracing::warn!(dir = %config.data_dir.display(), error = %e, "no control file");
        }
        let server = HttpServer::new(move || ::web::app(state.clone()))
            .workers(config.workers.max(1))
            .worker_max_blocking_threads(BLOCKING_THREADS_PER_WORKER)
            .shutdown_timeout(config.shutdown_timeout_secs)
            .listen(listener)
            .map_err(listen_error)?
            .run();
        Ok(Application {
            server,
            address,
            arbiters,
            bridge,
            data_dir: config.data_dir.clone(),
        })
    }

    /// The bound address (the real port when the configured one was 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// A handle that stops the server gracefully.
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// Serves until SIGTERM or Ctrl-C (or [`Application::handle`]'s stop): in-flight requests
    /// finish, then the writers stop and the database closes.
    ///
    /// Errors: the server's I/O error.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        runtime::stop(self.bridge.as_ref(), self.arbiters).await;
        control::remove(&self.data_dir);
        tracing::info!("stopped; database closed");
        served
    }
}

/// Sets up logging on standard output: `level` is a tracing filter (`info`, `web=debug,info`);
/// `json` writes one JSON object per line. Colours only on a terminal without `NO_COLOR`.
///
/// The embedded broker's spans are never recorded: rumqttd opens an `ERROR`-level span for every
/// message it routes (`incoming_payload`, `publish`), which passes any level filter, and the
/// formatter wrote each one's fields (the topic, the packet id) into a string that no log line
/// ever printed: about a quarter of the broker's CPU at 50,000 states/s (`benches/README.md`).
/// Its events are still logged, without that span context.
pub fn init_logging(level: &str, json: bool) {
    use std::io::IsTerminal;
    use tracing_subscriber::filter::{FilterExt, filter_fn};
    use tracing_subscriber::prelude::*;
    let filter = tracing_subscriber::EnvFilter::new(level).and(filter_fn(|meta| {
        !(meta.is_span() && meta.target().starts_with("rumqttd"))
    }));
    let layer = tracing_subscriber::fmt::layer();
    if json {
        let layer = layer.json().with_filter(filter);
        tracing_subscriber::registry().with(layer).init();
    } else {
        let ansi = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let layer = layer.with_ansi(ansi).with_filter(filter);
        tracing_subscriber::registry().with(layer).init();
    }
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn stopped() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => return std::mem::drop(interrupt.await),
            };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

/// Writes the bridge's starter configuration to `path` in the format of its extension (YAML
/// with comments, or JSON), creating its folder; answers what to tell the user.
///
/// Errors: an extension other than `.yml`, `.yaml`, `.json`; the file or folder cannot be
/// written.
pub fn write_starter_bridge_config(path: &std::path::Path) -> Result<String, String> {
    let text = bridge::starter(&path.display().to_string()).map_err(|e| e.to_string())?;
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(cannot)?;
    }
    std::fs::write(path, text).map_err(cannot)?;
    Ok(format!(
        "wrote a starter configuration to {}: edit it (sources, points), then start the bridge again",
        path.display()
    ))
}

/// Loads and validates the bridge's configuration file at `path` (`printcost --bridge-config`).
///
/// Errors: the file cannot be read, or is invalid (the message says where).
pub fn load_bridge_config(path: &std::path::Path) -> Result<BridgeConfig, String> {
    bridge::load(path).map_err(|e| e.to_string())
}
