//! `printcost`: the print-cost service. Wires the command line to [`printcost::Application`].

use actors::accounts::ResetPassword;
use actors::backup;
use actors::integrations::settings::{Defaults, PeerUrl, Secret};
use actors::passwords;
use actors::values;
use actors::writer;
use clap::{Parser, Subcommand};
use printcost::{Application, Config, open_store};
use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use storage::backup as store_backup;

/// Self-hosted print-cost appliance: exact 3D print pricing, inventory and filament stock.
///
/// With no command it serves the web UI and the API (reference at /api-reference).
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Address to listen on. Use 0.0.0.0:8080 to serve the LAN.
    #[arg(long, env = "PRINTCOST_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Directory of the database file `printcost.redb` (created if missing).
    #[arg(
        long,
        env = "PRINTCOST_DATA_DIR",
        default_value = "data",
        global = true
    )]
    data_dir: PathBuf,
    /// Public origin(s) browsers use to reach the service through a proxy or a name, e.g.
    /// https://printcost.lan (comma-separated). Writes are accepted from the origin a request was
    /// addressed to and from these. An https origin marks the session cookie Secure.
    #[arg(
        long = "public-origin",
        env = "PRINTCOST_PUBLIC_ORIGINS",
        value_delimiter = ','
    )]
    public_origins: Vec<String>,
    /// Address(es) of the reverse proxy in front of the service (comma-separated): only from these
    /// are `Forwarded`, `X-Forwarded-Host` and `X-Forwarded-Proto` believed (the origin check,
    /// the spool labels' QR codes). Without one they are ignored.
    #[arg(
        long = "trusted-proxy",
        env = "PRINTCOST_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// Session lifetime in hours.
    #[arg(long, env = "PRINTCOST_SESSION_TTL_HOURS", default_value_t = 168)]
    session_ttl_hours: u32,
    /// Log filter: trace, debug, info, warn, error, or a tracing filter such as `web=debug,info`.
    #[arg(long, env = "PRINTCOST_LOG", default_value = "info")]
    log_level: String,
    /// Database page cache in MiB (reads beyond it come from the kernel's page cache).
    #[arg(long, env = "PRINTCOST_CACHE_MIB", default_value_t = 4)]
    cache_mib: usize,
    /// HTTP worker threads.
    #[arg(long, env = "PRINTCOST_WORKERS", default_value_t = 2)]
    workers: usize,
    /// Also run the Modbus-to-MQTT bridge of this configuration file inside this process.
    #[arg(long, env = "PRINTCOST_BRIDGE_CONFIG")]
    bridge_config: Option<PathBuf>,
    /// Release feed for the update notice (plain http JSON with `tag_name` or `version`, e.g. a
    /// LAN mirror). None by default: the appliance never calls out.
    #[arg(long, env = "PRINTCOST_RELEASE_FEED_URL")]
    release_feed_url: Option<String>,
    /// Default URL of the spool manager (Spoolman), until one is set in the settings.
    #[arg(long, env = "PRINTCOST_SPOOLMGR_URL", value_parser = peer_url)]
    spoolmgr_url: Option<PeerUrl>,
    /// Default `Authorization` header value for the spool manager (`Bearer …`), until one is set
    /// in the settings. Never shown or logged.
    #[arg(long, env = "PRINTCOST_SPOOLMGR_AUTHORIZATION", hide_env_values = true, value_parser = secret)]
    spoolmgr_authorization: Option<Secret>,
    /// Default URL of the printer-fleet manager (Bambuddy), until one is set in the settings.
    #[arg(long, env = "PRINTCOST_PRINTFLEET_URL", value_parser = peer_url)]
    printfleet_url: Option<PeerUrl>,
    /// Default API key of the printer-fleet manager, until one is set in the settings. Never
    /// shown or logged.
    #[arg(long, env = "PRINTCOST_PRINTFLEET_API_KEY", hide_env_values = true, value_parser = secret)]
    printfleet_api_key: Option<Secret>,
    /// Seconds between the spool manager's background rounds: pending consumption sent, linked
    /// spools synced.
    #[arg(long, env = "PRINTCOST_SPOOLMGR_INTERVAL", default_value_t = 60)]
    spoolmgr_interval: u64,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
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
}

fn peer_url(text: &str) -> Result<PeerUrl, String> {
    PeerUrl::parse(text)
        .map_err(|_| "expected an http(s) URL without user, query or fragment".into())
}

fn secret(text: &str) -> Result<Secret, String> {
    Secret::new(text).ok_or_else(|| "must not be blank".into())
}

impl Cli {
    fn config(&self) -> Config {
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
            ..Config::default()
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    printcost::init_logging(&cli.log_level, false);
    let result = match &cli.command {
        None | Some(Command::Serve) => serve(cli.config(), cli.bridge_config.clone()),
        Some(Command::ResetPassword { email }) => reset_password(&cli.config(), email),
        Some(Command::Backup { file }) => backup(&cli.config(), file),
        Some(Command::Restore { file }) => restore(&cli.config(), file),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("printcost: {message}");
            ExitCode::FAILURE
        }
    }
}

fn serve(config: Config, bridge: Option<PathBuf>) -> Result<(), String> {
    if let Some(path) = bridge.as_ref().filter(|p| !p.exists()) {
        println!("{}", printcost::write_starter_bridge_config(path)?);
        return Ok(());
    }
    actix_web::rt::System::new().block_on(async move {
        let bridge = bridge.map(|path| printcost::start_bridge(&path)).transpose()?;
        let app = Application::build(&config).map_err(|e| e.to_string())?;
        tracing::info!(address = %app.address(), data_dir = %config.data_dir.display(), "printcost serving");
        let served = app.run_until_stopped().await.map_err(|e| e.to_string());
        if let Some(bridge) = bridge {
            bridge.link.close().await;
        }
        served
    })
}

fn reset_password(config: &Config, email: &str) -> Result<(), String> {
    let store = open_store(config).map_err(|e| format!("{e} (stop the service first)"))?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the new password from standard input: {e}"))?;
    let password = values::Password::from_str(line.trim_end_matches(['\r', '\n']))
        .map_err(|_| "the new password must have at least 12 characters".to_string())?;
    let reset = ResetPassword {
        email: email.to_string(),
        password_hash: passwords::hash_password(&password).map_err(|e| e.to_string())?,
    };
    let account = writer::apply_offline(&store, reset).map_err(|e| match e {
        actors::Error::NotFound => format!("no account has the email {email}"),
        e => e.to_string(),
    })?;
    println!(
        "Password of {} reset; every session of the account has ended.",
        account.email
    );
    Ok(())
}

fn backup(config: &Config, file: &std::path::Path) -> Result<(), String> {
    let store = open_store(config).map_err(|e| format!("{e} (stop the service first)"))?;
    store
        .backup_to(file)
        .map_err(|e| format!("cannot write the backup to {}: {e}", file.display()))?;
    println!("Backup written to {}.", file.display());
    Ok(())
}

fn restore(config: &Config, file: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(&config.data_dir)
        .map_err(|e| format!("cannot create {}: {e}", config.data_dir.display()))?;
    let target = config.data_dir.join(printcost::DATABASE_FILE);
    let label = backup::stamp(storage::Timestamp::now());
    let restored = store_backup::restore(file, &target, &label)
        .map_err(|e| format!("{} was not restored, nothing changed: {e}", file.display()))?;
    println!("Restored {} as {}.", file.display(), target.display());
    if let Some(kept) = restored.kept {
        println!("The previous database is kept as {}.", kept.display());
    }
    if restored.credentials_left_out > 0 {
        println!(
            "Backups leave out the integrations' credentials ({} here): enter them again under Settings › Integrations.",
            restored.credentials_left_out
        );
    }
    Ok(())
}
