//! The command lines of `printcost` and `modbus-mqtt-bridge` (clap): the binaries parse them,
//! and their manual pages are rendered from them ([`write_manual_pages`], `printcost
//! manual-pages`),
//! so the pages never drift from `--help`.

use crate::Config;
use actors::integrations::settings::{Defaults, PeerUrl, Secret};
use clap::{CommandFactory, Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

/// Self-hosted print-cost appliance: exact 3D print pricing, inventory and filament stock.
///
/// With no command it serves the web UI and the API (reference at /api-reference).
#[derive(Debug, Parser)]
#[command(name = "printcost", version)]
pub struct Cli {
    /// Address to listen on. Use 0.0.0.0:8080 to serve the LAN.
    #[arg(long, env = "PRINTCOST_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Directory of the database file `printcost.redb` (created if missing).
    #[arg(
        long,
        env = "PRINTCOST_DATA_DIR",
        default_value = "data",
        global = true
    )]
    pub data_dir: PathBuf,
    /// Public origin(s) browsers use to reach the service through a proxy or a name, e.g.
    /// https://printcost.lan (comma-separated). Writes are accepted from the origin a request was
    /// addressed to and from these. An https origin marks the session cookie Secure.
    #[arg(
        long = "public-origin",
        env = "PRINTCOST_PUBLIC_ORIGINS",
        value_delimiter = ','
    )]
    pub public_origins: Vec<String>,
    /// Address(es) of the reverse proxy in front of the service (comma-separated): only from these
    /// are `Forwarded`, `X-Forwarded-Host` and `X-Forwarded-Proto` believed (the origin check,
    /// the spool labels' QR codes). Without one they are ignored.
    #[arg(
        long = "trusted-proxy",
        env = "PRINTCOST_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Session lifetime in hours.
    #[arg(long, env = "PRINTCOST_SESSION_TTL_HOURS", default_value_t = 168)]
    pub session_ttl_hours: u32,
    /// Log filter: trace, debug, info, warn, error, or a tracing filter such as `web=debug,info`.
    #[arg(long, env = "PRINTCOST_LOG", default_value = "info")]
    pub log_level: String,
    /// Database page cache in MiB (reads beyond it come from the kernel's page cache).
    #[arg(long, env = "PRINTCOST_CACHE_MIB", default_value_t = 4)]
    pub cache_mib: usize,
    /// HTTP worker threads.
    #[arg(long, env = "PRINTCOST_WORKERS", default_value_t = 2)]
    pub workers: usize,
    /// Also run the Modbus-to-MQTT bridge of this configuration file inside this process.
    #[arg(long, env = "PRINTCOST_BRIDGE_CONFIG")]
    pub bridge_config: Option<PathBuf>,
    /// Release feed for the update notice (plain http JSON with `tag_name` or `version`, e.g. a
    /// LAN mirror). None by default: the appliance never calls out.
    #[arg(long, env = "PRINTCOST_RELEASE_FEED_URL")]
    pub release_feed_url: Option<String>,
    /// Default URL of the spool manager (Spoolman), until one is set in the settings.
    #[arg(long, env = "PRINTCOST_SPOOLMGR_URL", value_parser = peer_url)]
    pub spoolmgr_url: Option<PeerUrl>,
    /// Default `Authorization` header value for the spool manager (`Bearer …`), until one is set
    /// in the settings. Never shown or logged.
    #[arg(long, env = "PRINTCOST_SPOOLMGR_AUTHORIZATION", hide_env_values = true, value_parser = secret)]
    pub spoolmgr_authorization: Option<Secret>,
    /// Default URL of the printer-fleet manager (Bambuddy), until one is set in the settings.
    #[arg(long, env = "PRINTCOST_PRINTFLEET_URL", value_parser = peer_url)]
    pub printfleet_url: Option<PeerUrl>,
    /// Default API key of the printer-fleet manager, until one is set in the settings. Never
    /// shown or logged.
    #[arg(long, env = "PRINTCOST_PRINTFLEET_API_KEY", hide_env_values = true, value_parser = secret)]
    pub printfleet_api_key: Option<Secret>,
    /// Seconds between the spool manager's background rounds: pending consumption sent, linked
    /// spools synced.
    #[arg(long, env = "PRINTCOST_SPOOLMGR_INTERVAL", default_value_t = 60)]
    pub spoolmgr_interval: u64,
    /// Seconds between two evaluations of the alerts (Settings > Alerts).
    #[arg(long, env = "PRINTCOST_ALERTS_INTERVAL", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub alerts_interval: u64,
    /// The shop's time zone, an IANA name such as Europe/Berlin: the day a print counts on,
    /// the nightly backup's hour and the times pages show. Default: the system's.
    #[arg(long, env = "PRINTCOST_TIME_ZONE", value_parser = time_zone)]
    pub time_zone: Option<jiff::tz::TimeZone>,
    /// What to do; none serves.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What `printcost` does.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the UI and the API (the default).
    Serve,
    /// Set a new password for an account, on the box itself, with the service stopped. Reads the
    /// new password (at least 12 characters) from the first line of standard input and ends
    /// every session of the account.
    ResetPassword {
        /// Email of the account.
        #[arg(long)]
        email: String,
    },
    /// Write a backup of the database to FILE, with the service stopped (for scripts and cron;
    /// while the service runs, download one from Settings > Backup or `GET /api/backup`).
    Backup {
        /// Where the backup goes (written whole or not at all).
        file: PathBuf,
    },
    /// Replace the database with the backup FILE, with the service stopped. The file must be a
    /// printcost database (an older schema is migrated, a newer one refused); the current file
    /// is kept beside it as `printcost.redb.before-restore-<time>`.
    Restore {
        /// The backup to restore.
        file: PathBuf,
    },
    /// The record of every change (Settings › Journal).
    Journal {
        /// What to do with it.
        #[command(subcommand)]
        command: JournalCommand,
    },
    /// Write the manual pages of `printcost`, its commands and `modbus-mqtt-bridge` into DIR
    /// (packaging).
    #[command(hide = true)]
    ManualPages {
        /// The folder.
        dir: PathBuf,
    },
}

/// `printcost journal …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum JournalCommand {
    /// Check the journal's hash chain, service stopped or running: every entry whole, numbered in
    /// turn and linked to the one before, the last one the head. Names the first broken entry
    /// and exits 1 when there is one. While the service runs, it is asked (through the data
    /// folder's `control.json`).
    Verify {
        /// Check this database file (a backup, a copy) instead of the data folder's.
        #[arg(long)]
        file: Option<PathBuf>,
    },
}

/// Writes the manual pages of both programs into `dir`, rendered from their command lines
/// (clap_mangen): `printcost.1`, a page per visible subcommand (`printcost-backup.1`, …) and
/// `modbus-mqtt-bridge.1`.
///
/// Errors: a page cannot be written.
pub fn write_manual_pages(dir: &std::path::Path) -> std::io::Result<()> {
    clap_mangen::generate_to(Cli::command(), dir)?;
    clap_mangen::generate_to(Bridge::command(), dir)
}

fn peer_url(text: &str) -> Result<PeerUrl, String> {
    PeerUrl::parse(text)
        .map_err(|_| "expected an http(s) URL without user, query or fragment".into())
}

fn time_zone(name: &str) -> Result<jiff::tz::TimeZone, String> {
    jiff::tz::TimeZone::get(name).map_err(|e| format!("not a known time zone: {e}"))
}

fn secret(text: &str) -> Result<Secret, String> {
    Secret::new(text).ok_or_else(|| "must not be blank".into())
}

impl Cli {
    /// The service's configuration from the command line (and its environment variables).
    pub fn config(&self) -> Config {
        Config {
            listen: self.listen,
            data_dir: self.data_dir.clone(),
            public_origins: self.public_origins.clone(),
            trusted_proxies: self.trusted_proxies.clone(),
            session_ttl_hours: self.session_ttl_hours,
            cache_mib: self.cache_mib,
            workers: self.workers,
            release_feed_url: self.release_feed_url.clone(),
            integrations: Defaults {
                spoolmgr_url: self.spoolmgr_url.clone(),
                spoolmgr_authorization: self.spoolmgr_authorization.clone(),
                printfleet_url: self.printfleet_url.clone(),
                printfleet_api_key: self.printfleet_api_key.clone(),
            },
            spoolmgr_interval_secs: self.spoolmgr_interval,
            alerts_interval_secs: self.alerts_interval,
            time_zone: self
                .time_zone
                .clone()
                .unwrap_or_else(jiff::tz::TimeZone::system),
            ..Config::default()
        }
    }
}

/// Modbus (TCP, RTU over TCP, RTU on RS-485) to MQTT bridge.
///
/// When the configuration file does not exist, a starter configuration is written there in the
/// format of its extension (commented YAML, or JSON), using the embedded broker, and the bridge
/// exits: edit it, then start again.
#[derive(Debug, Parser)]
#[command(name = "modbus-mqtt-bridge", version)]
pub struct Bridge {
    /// Configuration file: .yml, .yaml or .json.
    #[arg(long, default_value = "config/config.yml")]
    pub config: PathBuf,
}
