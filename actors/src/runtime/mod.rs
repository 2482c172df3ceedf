//! What runs: the floor above the rules, where the appliance's actors live and are started.
//!
//! The rules (`inventory`, `prints`, `stock`, `meters`, `alerts`, `integrations`, …) are pure
//! functions, commands and queries over a transaction; nothing below this floor starts a
//! thread, holds a timer or keeps a connection. Here:
//!
//! - [`writer`]: the writer actors, one per aggregate, the only code that commits; each command
//!   appends its journal entry in its transaction, on behalf of whoever is [`acting`]; after
//!   each commit they tell their subscribers what changed ([`writer::Subscriber`]);
//! - [`reader`]: the one read path, every query in a fresh snapshot on the blocking pool;
//! - [`spoolmgr`] and [`printfleet`]: the integrations' remote work (Spoolman, Bambuddy),
//!   between a read and the command that records what the peer said, and [`timer`], which runs
//!   their rounds in the background;
//! - [`recorder`]: reads the energy meters from the bridge's broker and keeps their readings;
//! - [`alerts`]: the alert engine, every 30 s;
//! - [`scheduler`]: the nightly backup.
//!
//! [`Appliance::start`] starts them all, in one place, over an open store; `docs/architecture.md`
//! ("What runs") says what each reads, which writer it sends to and how it stops.

pub mod acting;
pub mod alerts;
pub mod printfleet;
pub mod reader;
pub mod recorder;
pub mod scheduler;
pub mod spoolmgr;
pub mod timer;
pub mod writer;

use crate::alerts::channels::{Channels, MqttTarget};
use crate::alerts::conditions::Outside;
use crate::backup::nightly::Backups;
use crate::bridge::{self, BridgeConfig, DEFAULT_DISCOVERY_PREFIX, RunError, Running};
use crate::integrations::health::PeerHealth;
use crate::integrations::settings::Defaults;
use crate::projection::PrintIndex;
use actix::{Actor, Arbiter};
use printfleet::Printfleet;
use reader::Reader;
use recorder::Recorder;
use spoolmgr::Spoolmgr;
use std::sync::Arc;
use std::time::Duration;
use storage::{Store, Timestamp};
use writer::Writers;

/// What the appliance's actors are configured with (`printcost --help`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The shop's time zone: the day a print counts on, the nightly backup's hour.
    pub time_zone: jiff::tz::TimeZone,
    /// Defaults of the integrations' URLs and credentials until they are set in the settings.
    pub integrations: Defaults,
    /// Time between the integrations' background rounds.
    pub integrations_interval: Duration,
    /// The Modbus-to-MQTT bridge run in this process, already validated: its MQTT link carries
    /// the alerts and the meters are read from its broker.
    pub bridge: Option<BridgeConfig>,
    /// Time between two readings of the alerts' conditions.
    pub alerts_interval: Duration,
}

/// Why the appliance could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The bridge could not start (its broker's address, its TLS files).
    #[error("{0}")]
    Bridge(#[from] RunError),
    /// The webhooks' HTTP client could not be built.
    #[error("the webhooks' HTTP client: {0}")]
    Webhooks(String),
}

/// The running appliance: the handles the HTTP side uses, and what [`stop`] stops.
pub struct Appliance {
    /// The store, for read transactions that are a snapshot by nature (a backup's copy).
    pub store: Store,
    /// The print projection (loaded in the background; kept by the writers).
    pub index: Arc<PrintIndex>,
    /// The writers.
    pub writers: Writers,
    /// The one read path.
    pub reader: Reader,
    /// The spool manager's remote work.
    pub spoolmgr: Spoolmgr,
    /// The printer fleet's remote work.
    pub printfleet: Printfleet,
    /// The nightly backups (their schedule, folder and last run).
    pub backups: Backups,
    /// Where alerts go.
    pub alerts: Channels,
    /// The meters' recorder, while a bridge runs in this process.
    pub meters: Option<Recorder>,
    /// The bridge running in this process, if any.
    pub bridge: Option<Running>,
    /// The writers' arbiters: [`stop`] them once the last sender is done (the HTTP server
    /// drained).
    pub arbiters: Vec<Arbiter>,
}

impl Appliance {
    /// Starts every actor over `store`: the print projection's load (on a thread of its own:
    /// health answers at once), the writers (each on its own arbiter thread), the backup
    /// scheduler, the integrations' timer, the bridge and its meters' recorder when configured,
    /// and the alert engine. Must run inside an actix `System` with a tokio runtime.
    ///
    /// Errors: [`StartError`].
    pub fn start(store: Store, settings: &Settings) -> Result<Appliance, StartError> {
        let index = PrintIndex::load_in_background(&store, settings.time_zone.clone());
        let backups = Backups::new(store.clone(), settings.time_zone.clone());
        let (writers, arbiters) = Writers::start(&store, &index);
        let reader = Reader::new(store.clone(), index.clone());
        scheduler::Scheduler::new(backups.clone(), reader.clone(), writers.clone()).start();
        let peers = PeerHealth::default();
        let defaults = settings.integrations.clone();
        let spoolmgr = Spoolmgr::new(reader.clone(), writers.clone(), defaults.clone())
            .with_health(peers.clone());
        let printfleet =
            Printfleet::new(reader.clone(), writers.clone(), defaults).with_health(peers.clone());
        let interval = settings.integrations_interval.max(Duration::from_secs(1));
        timer::Timer::new(spoolmgr.clone(), printfleet.clone(), interval).start();
        let bridge = settings.bridge.as_ref().map(bridge::start).transpose()?;
        let mqtt = bridge
            .as_ref()
            .zip(settings.bridge.as_ref())
            .map(|(running, config)| MqttTarget {
                link: running.link.clone(),
                // printcost's own entities are announced unless the configuration switches
                // discovery off explicitly (`homeassistant: {enabled: false}`).
                discovery_prefix: match &config.homeassistant {
                    None => Some(DEFAULT_DISCOVERY_PREFIX.to_string()),
                    Some(h) => h.enabled.then(|| h.discovery_prefix.clone()),
                },
            });
        let alerts = Channels::new(mqtt).map_err(StartError::Webhooks)?;
        // Meters are read from the bridge's broker; without a bridge in the process there is
        // none to read them from. The recorder hears every commit (a run's start and end).
        let meters = settings.bridge.as_ref().map(|config| {
            let recorder = Recorder::start(reader.clone(), writers.clone(), config);
            writers.subscribe(Arc::new(recorder.clone()));
            recorder
        });
        let outside = Outside {
            peers,
            sources: bridge.as_ref().map(|b| b.sources.clone()),
            backups: backups.clone(),
            started_at: Timestamp::now(),
        };
        let every = settings.alerts_interval.max(Duration::from_secs(1));
        alerts::Engine::new(
            reader.clone(),
            writers.clone(),
            outside,
            alerts.clone(),
            every,
        )
        .start();
        Ok(Appliance {
            store,
            index,
            writers,
            reader,
            spoolmgr,
            printfleet,
            backups,
            alerts,
            meters,
            bridge,
            arbiters,
        })
    }
}

/// Stops what [`Appliance::start`] started that must end cleanly: the bridge's MQTT link says
/// goodbye (its last will is not sent), then each writer stops once its mailbox is empty and
/// its thread is joined (the database closes with the last store handle).
pub async fn stop(bridge: Option<&Running>, arbiters: Vec<Arbiter>) {
    if let Some(bridge) = bridge {
        bridge.link.close().await;
    }
    for arbiter in arbiters {
        arbiter.stop();
        let _ = tokio::task::spawn_blocking(move || arbiter.join()).await;
    }
}
