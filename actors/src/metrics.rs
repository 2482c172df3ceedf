//! The appliance's metrics, for `GET /metrics` in the Prometheus text format (version 0.0.4),
//! kept and written by the `prometheus` crate (docs/decisions/0007-prometheus-metrics.md): one
//! registry for the process, every name prefixed `printcost_`.
//!
//! Counters and histograms are updated where things happen (the HTTP middleware, the writers,
//! the bridge's pollers, the integrations' calls); the levels (stock per filament, prints per
//! status) are read from the store and the print projection when scraped ([`Levels`]).

use crate::command::{Command, Query, Snapshot};
use crate::error::FieldError;
use crate::inventory::filaments;
use crate::ledger;
use crate::settings;
use crate::txn::Txn;
use crate::writer::SettingsWriter;
use crate::{Error, Result};
use prometheus::{
    Encoder, GaugeVec, HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry,
    TextEncoder,
};
use rust_decimal::prelude::ToPrimitive;
use sha2::{Digest, Sha256};
use std::sync::LazyLock;
use storage::records::{Filament, PrintStatus};
use storage::repo;

/// Every metric of the process.
pub struct Metrics {
    registry: Registry,
    /// `printcost_http_requests_total{route, method, status}`: answered requests, by route
    /// pattern (`/api/prints/{id}`; `unmatched` for none).
    pub http_requests: IntCounterVec,
    /// `printcost_http_request_duration_seconds{route, method}`: time to the response's head.
    pub http_duration: HistogramVec,
    /// `printcost_writer_queue_depth{writer}`: commands sent to a writer and not yet answered.
    pub writer_queue: IntGaugeVec,
    /// `printcost_writer_commit_duration_seconds{writer}`: one batch, from the write
    /// transaction's start to its durable commit.
    pub writer_commit: HistogramVec,
    /// `printcost_filament_stock_grams{filament_id, filament}`: grams on a filament's active
    /// spools (with spool management on).
    pub stock_grams: GaugeVec,
    /// `printcost_prints{status}`: prints per status, archived included.
    pub prints: IntGaugeVec,
    /// `printcost_bridge_polls_total{source, result}`: polls of a Modbus source, `ok` or
    /// `error` (the source did not answer).
    pub bridge_polls: IntCounterVec,
    /// `printcost_bridge_poll_duration_seconds{source}`: one poll of every due point.
    pub bridge_poll_duration: HistogramVec,
    /// `printcost_integration_calls_total{integration, outcome}`: HTTP calls to Spoolman
    /// (`spoolmgr`) and Bambuddy (`printfleet`), by outcome: `ok` (an answer, judged later),
    /// `refused` (the credential), `unavailable` (a timeout, a 5xx, a redirect, too large) or
    /// `unreachable` (no connection).
    pub integration_calls: IntCounterVec,
}

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

/// Buckets of request and commit latencies, seconds: 0.5 ms to about 4 s.
fn fast_buckets() -> Vec<f64> {
    prometheus::exponential_buckets(0.000_5, 2.0, 14).unwrap_or_default()
}

impl Metrics {
    fn new() -> Metrics {
        let registry = Registry::new_custom(Some("printcost".into()), None).unwrap_or_default();
        let counter = |name: &str, help: &str, labels: &[&str]| {
            let metric = IntCounterVec::new(Opts::new(name, help), labels)
                .unwrap_or_else(|e| unreachable!("a fixed metric is valid: {e}"));
            registry
                .register(Box::new(metric.clone()))
                .unwrap_or_else(|e| unreachable!("registered once: {e}"));
            metric
        };
        let int_gauge = |name: &str, help: &str, labels: &[&str]| {
            let metric = IntGaugeVec::new(Opts::new(name, help), labels)
                .unwrap_or_else(|e| unreachable!("a fixed metric is valid: {e}"));
            registry
                .register(Box::new(metric.clone()))
                .unwrap_or_else(|e| unreachable!("registered once: {e}"));
            metric
        };
        let histogram = |name: &str, help: &str, labels: &[&str], buckets: Vec<f64>| {
            let opts = HistogramOpts::new(name, help).buckets(buckets);
            let metric = HistogramVec::new(opts, labels)
                .unwrap_or_else(|e| unreachable!("a fixed metric is valid: {e}"));
            registry
                .register(Box::new(metric.clone()))
                .unwrap_or_else(|e| unreachable!("registered once: {e}"));
            metric
        };
        let stock_grams = GaugeVec::new(
            Opts::new(
                "filament_stock_grams",
                "Grams on a filament's active spools.",
            ),
            &["filament_id", "filament"],
        )
        .unwrap_or_else(|e| unreachable!("a fixed metric is valid: {e}"));
        registry
            .register(Box::new(stock_grams.clone()))
            .unwrap_or_else(|e| unreachable!("registered once: {e}"));
        Metrics {
            http_requests: counter(
                "http_requests_total",
                "HTTP requests answered, by route pattern, method and status.",
                &["route", "method", "status"],
            ),
            http_duration: histogram(
                "http_request_duration_seconds",
                "Time from a request to its response's head.",
                &["route", "method"],
                fast_buckets(),
            ),
            writer_queue: int_gauge(
                "writer_queue_depth",
                "Commands sent to a writer and not yet answered.",
                &["writer"],
            ),
            writer_commit: histogram(
                "writer_commit_duration_seconds",
                "One write batch, from its transaction's start to its durable commit.",
                &["writer"],
                fast_buckets(),
            ),
            stock_grams,
            prints: int_gauge(
                "prints",
                "Prints per status, archived included.",
                &["status"],
            ),
            bridge_polls: counter(
                "bridge_polls_total",
                "Polls of a Modbus source, ok or error (the source did not answer).",
                &["source", "result"],
            ),
            bridge_poll_duration: histogram(
                "bridge_poll_duration_seconds",
                "One poll of a Modbus source's due points.",
                &["source"],
                prometheus::exponential_buckets(0.001, 2.0, 14).unwrap_or_default(),
            ),
            integration_calls: counter(
                "integration_calls_total",
                "Calls to the spool manager and the printer fleet, by outcome.",
                &["integration", "outcome"],
            ),
            registry,
        }
    }

    /// Sets the levels read at a scrape.
    pub fn set_levels(&self, levels: &Levels) {
        self.stock_grams.reset();
        for (id, name, grams) in &levels.stock {
            self.stock_grams
                .with_label_values(&[id.as_str(), name.as_str()])
                .set(*grams);
        }
        for (status, count) in &levels.prints {
            self.prints
                .with_label_values(&[status.as_str()])
                .set(i64::try_from(*count).unwrap_or(i64::MAX));
        }
    }

    /// Every metric in the Prometheus text format.
    ///
    /// Errors: [`Error::Storage`] if the encoder refuses a metric (never: the registry holds
    /// only the fixed metrics above).
    pub fn render(&self) -> Result<String> {
        let mut text = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut text)
            .map_err(|e| Error::Storage(storage::Error::Database(e.to_string())))?;
        Ok(String::from_utf8_lossy(&text).into_owned())
    }
}

/// The levels a scrape reads: grams per active filament (id, name), prints per status.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Levels {
    /// `(filament id, filament name, grams)` of every filament with stock records, while spool
    /// management is on.
    pub stock: Vec<(String, String, f64)>,
    /// Prints per status (every status, zero included).
    pub prints: Vec<(String, usize)>,
}

/// Reads the [`Levels`]. Errors: the store or the projection cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct ReadLevels;

impl Query for ReadLevels {
    type Answer = Levels;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Levels> {
        let mut levels = Levels::default();
        if settings::require_spool_management(snapshot).is_ok() {
            let totals = ledger::active_totals(snapshot)?;
            let mut active = Vec::new();
            repo::for_each::<Filament>(snapshot, |f| {
                if !f.archived {
                    active.push(f);
                }
            })?;
            for filament in active {
                let grams = totals.get(&filament.id).copied().unwrap_or_default();
                levels.stock.push((
                    filament.id.to_string(),
                    filaments::display_name(snapshot, &filament)?,
                    grams.to_f64().unwrap_or_default(),
                ));
            }
        }
        let counts = snapshot.index.status_counts()?;
        levels.prints = PrintStatus::ALL
            .iter()
            .map(|s| {
                let n = counts.iter().find(|(c, _)| c == s).map_or(0, |(_, n)| *n);
                (s.as_str().to_string(), n)
            })
            .collect();
        Ok(levels)
    }
}

/// Sets the token `GET /metrics` asks for (`Authorization: Bearer <token>`), or removes it
/// (`None`: every scrape is refused). Only its SHA-256 is stored; replies whether one is set.
///
/// Errors: [`Error::Validation`] at `token`: fewer than 16 characters (`errors.tooShort`),
/// more than 200 (`errors.tooLong`), or a character other than printable ASCII without spaces
/// (`errors.invalidValue`: it travels in a header).
#[derive(Debug, Clone)]
pub struct SetMetricsToken(pub Option<String>);

impl Command for SetMetricsToken {
    type Writer = SettingsWriter;
    type Reply = bool;

    fn apply(&mut self, txn: &Txn) -> Result<bool> {
        let hash = match &self.0 {
            None => None,
            Some(token) => {
                let fault = if token.chars().count() < 16 {
                    Some("errors.tooShort")
                } else if token.chars().count() > 200 {
                    Some("errors.tooLong")
                } else if !token.bytes().all(|b| b.is_ascii_graphic()) {
                    Some("errors.invalidValue")
                } else {
                    None
                };
                if let Some(key) = fault {
                    return Err(Error::Validation(vec![FieldError::new("token", key)]));
                }
                Some(digest(token))
            }
        };
        repo::put_metrics_token_hash(txn, hash)?;
        Ok(hash.is_some())
    }
}

/// Whether a metrics token is set.
#[derive(Debug, Clone, Copy)]
pub struct MetricsTokenSet;

impl Query for MetricsTokenSet {
    type Answer = bool;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<bool> {
        Ok(repo::metrics_token_hash(snapshot)?.is_some())
    }
}

/// Whether `presented` is the metrics token (false while none is set). The stored SHA-256 is
/// compared with the presented token's: a timing difference tells nothing about the token.
#[derive(Debug, Clone)]
pub struct IsMetricsToken(pub String);

impl Query for IsMetricsToken {
    type Answer = bool;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<bool> {
        Ok(repo::metrics_token_hash(snapshot)?.is_some_and(|h| h == digest(&self.0)))
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}
