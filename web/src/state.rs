//! Shared state of the HTTP side: the store's read side, the writers, configuration.

use crate::error::ApiError;
use crate::release;
use crate::sessions;
use crate::throttle::LoginThrottle;
use actors::alerts::channels::Channels;
use actors::backup::nightly::Backups;
use actors::bridge::BridgeConfig;
use actors::command::{Command, Query, Route};
use actors::integrations::settings;
use actors::prints;
use actors::runtime::printfleet::Printfleet;
use actors::runtime::reader::Reader;
use actors::runtime::recorder::Recorder;
use actors::runtime::spoolmgr::Spoolmgr;
use actors::runtime::writer::Writers;
use storage::{Store, Timestamp};

/// What the HTTP side is configured with.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// Origins (`https://printcost.local`) accepted on writes besides the one each request was
    /// addressed to.
    pub public_origins: Vec<String>,
    /// Reverse proxies whose forwarding headers are believed ([`crate::middleware::request_origin`]).
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Session lifetime, seconds.
    pub session_ttl_seconds: i64,
    /// Mark the session cookie `Secure` (a public origin is https).
    pub secure_cookies: bool,
    /// The environment's defaults of the integrations' URLs and credentials.
    pub integrations: settings::Defaults,
    /// SHA-256 of this run's control token: what `printcost journal verify` on the box presents
    /// (`Authorization: Bearer`) while the service holds the store; it reads the token from the
    /// data folder's `control.json`, which only the service's user can read. `None`: no token.
    pub control_token_hash: Option<[u8; 32]>,
}

/// Everything handlers share, behind `web::Data` (one `Arc` for all workers).
pub struct AppState {
    /// The store, for read transactions.
    pub store: Store,
    /// Runs queries off the async executor.
    pub reader: Reader,
    /// The spool manager's remote work.
    pub spoolmgr: Spoolmgr,
    /// The printer fleet's remote work.
    pub printfleet: Printfleet,
    /// The writer actors; commands reach them through [`AppState::send`].
    pub writers: Writers,
    /// The in-memory projection of every print, for filtered lists (kept by the writers).
    pub index: std::sync::Arc<prints::PrintIndex>,
    /// The nightly backups (their schedule, folder and last run).
    pub backups: Backups,
    /// Where alerts go (MQTT through the bridge's link, the webhooks' client).
    pub alerts: Channels,
    /// The meters' recorder, while a bridge runs in this process (meters are read from its
    /// broker).
    pub meters: Option<Recorder>,
    /// The bridge running in this process, if any (a meter's bridge point is one of its).
    pub bridge: Option<BridgeConfig>,
    /// The cached latest release version.
    pub latest_version: release::LatestVersion,
    /// Configuration.
    pub config: WebConfig,
    /// Failed-login throttle.
    pub throttle: LoginThrottle,
    /// Recently resolved sessions.
    pub sessions: sessions::SessionCache,
}

impl AppState {
    /// Sends `command` to the writer of its aggregate and waits for its durable answer.
    ///
    /// Errors: the command's refusal, or 503 when the store cannot be written.
    pub async fn send<C>(&self, command: C) -> Result<C::Reply, ApiError>
    where
        C: Command,
        C::Writer: Route,
    {
        Ok(self.writers.send(command).await?)
    }

    /// Runs `query` in a read transaction on the blocking pool (never on the async executor).
    ///
    /// Errors: the query's refusal, or 503 when the store cannot be read.
    pub async fn query<Q: Query>(&self, query: Q) -> Result<Q::Answer, ApiError> {
        Ok(self.reader.query(query).await?)
    }

    /// Today in the shop's time zone (a quote's validity is a day there).
    pub fn today(&self) -> jiff::civil::Date {
        self.index.date_of(Timestamp::now())
    }
}
