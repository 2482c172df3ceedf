//! The appliance's metrics, for `GET /metrics` in the Prometheus text format (version 0.0.4),
//! kept and written by the `prometheus` crate (docs/decisions/0007-prometheus-metrics.md): one
//! registry for the process, every name prefixed `printcost_`.
//!
//! Counters and histograms are updated where things happen (the HTTP middleware, the writers,
//! the bridge's pollers, the integrations' calls); the levels (stock per filament, prints per
//! status) are read from the store and the print projection when scraped
//! ([`crate::scrape::ReadLevels`]).

use crate::{Error, Result};
use prometheus::{
    Encoder, GaugeVec, HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry,
    TextEncoder,
};
use std::sync::LazyLock;
use storage::records::{MaterialKind, StockUnit};

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
    /// `printcost_resin_stock_millilitres{material_id, material}`: millilitres in a resin's
    /// active bottles (issue 51).
    pub resin_stock_millilitres: GaugeVec,
    /// `printcost_consumable_stock_millilitres{material_id, material}`: millilitres of a
    /// consumable counted in millilitres (isopropyl alcohol).
    pub consumable_stock_millilitres: GaugeVec,
    /// `printcost_consumable_stock_pieces{material_id, material}`: pieces of a consumable
    /// counted in pieces (gloves, FEP films, nozzles, boxes).
    pub consumable_stock_pieces: GaugeVec,
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
    /// The stock gauge of materials of `kind` counted in `unit` (none for a pair no material
    /// has).
    pub fn stock(&self, kind: MaterialKind, unit: StockUnit) -> Option<&GaugeVec> {
        match (kind, unit) {
            (MaterialKind::Filament, StockUnit::Gram) => Some(&self.stock_grams),
            (MaterialKind::Resin, StockUnit::Millilitre) => Some(&self.resin_stock_millilitres),
            (MaterialKind::Consumable, StockUnit::Millilitre) => {
                Some(&self.consumable_stock_millilitres)
            }
            (MaterialKind::Consumable, StockUnit::Piece) => Some(&self.consumable_stock_pieces),
            _ => None,
        }
    }

    /// Every stock gauge.
    pub fn stocks(&self) -> [&GaugeVec; 4] {
        [
            &self.stock_grams,
            &self.resin_stock_millilitres,
            &self.consumable_stock_millilitres,
            &self.consumable_stock_pieces,
        ]
    }

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
        let gauge = |name: &str, help: &str, labels: &[&str]| {
            let metric = GaugeVec::new(Opts::new(name, help), labels)
                .unwrap_or_else(|e| unreachable!("a fixed metric is valid: {e}"));
            registry
                .register(Box::new(metric.clone()))
                .unwrap_or_else(|e| unreachable!("registered once: {e}"));
            metric
        };
        let stock_grams = gauge(
            "filament_stock_grams",
            "Grams on a filament's active spools.",
            &["filament_id", "filament"],
        );
        let material = ["material_id", "material"];
        let resin_stock_millilitres = gauge(
            "resin_stock_millilitres",
            "Millilitres in a resin's active bottles.",
            &material,
        );
        let consumable_stock_millilitres = gauge(
            "consumable_stock_millilitres",
            "Millilitres of a consumable counted in millilitres, in its active packs.",
            &material,
        );
        let consumable_stock_pieces = gauge(
            "consumable_stock_pieces",
            "Pieces of a consumable counted in pieces, in its active packs.",
            &material,
        );
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
            resin_stock_millilitres,
            consumable_stock_millilitres,
            consumable_stock_pieces,
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

    /// Every metric in the Prometheus text format.
    ///
    /// Errors: [`Error::Unexpected`] if the encoder refuses a metric (never: the registry
    /// holds only the fixed metrics above).
    pub fn render(&self) -> Result<String> {
        let mut text = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut text)
            .map_err(|e| {
                tracing::error!(error = %e, "the metrics encoder failed");
                Error::Unexpected("encoding the metrics")
            })?;
        Ok(String::from_utf8_lossy(&text).into_owned())
    }
}
