//! What a scrape of `GET /metrics` reads ([`ReadLevels`]) and who may scrape: the token set
//! in the settings ([`SetMetricsToken`], [`IsMetricsToken`]). The metrics themselves are
//! [`crate::metrics`].

use crate::command::SettingsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::error::FieldError;
use crate::inventory::filaments;
use crate::ledger;
use crate::metrics::metrics;
use crate::settings;
use crate::txn::Txn;
use crate::{Error, Result};
use rust_decimal::prelude::ToPrimitive;
use sha2::{Digest, Sha256};
use storage::records::{Filament, MaterialKind, PrintStatus, StockUnit};
use storage::repo;

/// One material's stock as a scrape reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct StockLevel {
    /// Filament, resin or consumable.
    pub kind: MaterialKind,
    /// The unit `quantity` is in.
    pub unit: StockUnit,
    /// The material's id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// What its active spools, bottles or packs hold, in `unit`.
    pub quantity: f64,
}

/// The levels a scrape reads: grams per active filament (id, name), prints per status.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Levels {
    /// Every active material's stock while spool management is on: its kind and unit, id,
    /// name and quantity in its unit.
    pub stock: Vec<StockLevel>,
    /// Prints per status (every status, zero included).
    pub prints: Vec<(String, usize)>,
}

impl Levels {
    /// Sets the level gauges of [`metrics()`] to these (filaments no longer listed are removed).
    pub fn record(&self) {
        let m = metrics();
        for gauge in m.stocks() {
            gauge.reset();
        }
        for level in &self.stock {
            if let Some(gauge) = m.stock(level.kind, level.unit) {
                gauge
                    .with_label_values(&[level.id.as_str(), level.name.as_str()])
                    .set(level.quantity);
            }
        }
        for (status, count) in &self.prints {
            m.prints
                .with_label_values(&[status.as_str()])
                .set(i64::try_from(*count).unwrap_or(i64::MAX));
        }
    }
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
            for material in active {
                let quantity = totals.get(&material.id).copied().unwrap_or_default();
                levels.stock.push(StockLevel {
                    kind: material.kind,
                    unit: material.unit,
                    id: material.id.to_string(),
                    name: filaments::display_name(snapshot, &material)?,
                    quantity: quantity.to_f64().unwrap_or_default(),
                });
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
