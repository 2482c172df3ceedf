//! Stock levels: the grams left on a filament's active spools against its threshold, the
//! threshold itself, and the stock overview.

use super::views::{self, SpoolFilter, SpoolView};
use crate::command::InventoryWriter;
use crate::command::{Command, Query, Snapshot};
use crate::inventory::Kind;
use crate::inventory::filaments::FilamentView;
use crate::inventory::materials::{self, Materials};
use crate::ledger;
use crate::list::{ListQuery, Page};
use crate::txn::Txn;
use crate::values::Amount;
use crate::{Result, settings};
use rust_decimal::Decimal;
use storage::records::{Filament, MaterialKind};
use storage::repo;
use storage::repo::Tx;
use storage::{Id, Timestamp};

/// The stock of a filament (`GET /api/filaments/:id/stock`).
#[derive(Debug, Clone, PartialEq)]
pub struct Stock {
    /// The filament.
    pub filament_id: Id,
    /// Grams remaining on its active spools.
    pub active_total_grams: Decimal,
    /// Threshold, grams.
    pub minimum_stock_grams: Option<Decimal>,
    /// True when a threshold is set and the active total is below it.
    pub below_minimum: bool,
}

/// The stock of filament `id`: the remaining grams of its active spools and the threshold.
///
/// Errors: [`crate::Error::SpoolManagementDisabled`], [`crate::Error::NotFound`] (also for a
/// material of another kind).
pub fn stock(tx: &impl Tx, id: Id) -> Result<Stock> {
    settings::require_spool_management(tx)?;
    let filament = materials::get_of(tx, id, Some(MaterialKind::Filament))?;
    Ok(stock_of(&filament, ledger::active_total(tx, id)?))
}

fn stock_of(filament: &Filament, active_total_grams: Decimal) -> Stock {
    Stock {
        filament_id: filament.id,
        active_total_grams,
        minimum_stock_grams: filament.minimum_stock_grams,
        below_minimum: filament
            .minimum_stock_grams
            .is_some_and(|m| active_total_grams < m),
    }
}

/// Sets the stock threshold of filament `id` (`None` clears it).
/// Errors: as [`stock`].
pub fn set_minimum_stock(
    txn: &Txn,
    id: Id,
    minimum: Option<&Amount>,
    now: Timestamp,
) -> Result<Stock> {
    settings::require_spool_management(txn)?;
    let mut filament = materials::get_of(txn, id, Some(MaterialKind::Filament))?;
    filament.minimum_stock_grams = minimum.map(|m| *m.get());
    filament.updated_at = now;
    repo::put(txn, &filament)?;
    Ok(stock_of(&filament, ledger::active_total(txn, id)?))
}

/// Sets (or with `None` clears) a filament's stock threshold, grams; replies with its stock.
/// Errors: [`crate::Error::SpoolManagementDisabled`]; [`crate::Error::NotFound`].
#[derive(Debug, Clone)]
pub struct SetMinimumStock {
    /// The filament.
    pub filament_id: Id,
    /// The threshold, grams.
    pub minimum: Option<Amount>,
}

impl Command for SetMinimumStock {
    type Writer = InventoryWriter;
    type Reply = Stock;

    fn apply(&mut self, txn: &Txn) -> Result<Stock> {
        set_minimum_stock(
            txn,
            self.filament_id,
            self.minimum.as_ref(),
            Timestamp::now(),
        )
    }
}

/// A filament's stock: the remaining grams of its active spools and the threshold.
/// Errors: [`crate::Error::SpoolManagementDisabled`]; [`crate::Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct FilamentStock(pub Id);

impl Query for FilamentStock {
    type Answer = Stock;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Stock> {
        stock(snapshot, self.0)
    }
}

/// Every active material of every kind (the first 1,000 by name) with its stock, in its unit.
/// Errors: the store fails.
pub fn material_stocks(tx: &impl Tx) -> Result<Vec<(FilamentView, Stock)>> {
    let all = ListQuery {
        page_size: 1000,
        ..ListQuery::default()
    };
    let totals = ledger::active_totals(tx)?;
    Ok(Materials::list(tx, &all, &None)?
        .items
        .into_iter()
        .map(|view| {
            let total = totals.get(&view.filament.id).copied().unwrap_or_default();
            let stock = stock_of(&view.filament, total);
            (view, stock)
        })
        .collect())
}

/// The active materials below their threshold, by name, with their stock; none with spool
/// management off (the menu's badge, the dashboard's list). Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct LowStock;

impl Query for LowStock {
    type Answer = Vec<(FilamentView, Stock)>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<(FilamentView, Stock)>> {
        match settings::require_spool_management(snapshot) {
            Ok(()) => {}
            Err(crate::Error::SpoolManagementDisabled | crate::Error::NotFound) => {
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        }
        let mut low = material_stocks(snapshot)?;
        low.retain(|(_, stock)| stock.below_minimum);
        Ok(low)
    }
}

/// Every active material with its stock, and every spool (archived included).
#[derive(Debug, Clone)]
pub struct Overview {
    /// Active materials of every kind by name, with their stock.
    pub filaments: Vec<(FilamentView, Stock)>,
    /// Every spool, by code.
    pub spools: Page<SpoolView>,
}

/// The stock overview. Errors: [`crate::Error::SpoolManagementDisabled`].
#[derive(Debug, Clone, Copy)]
pub struct StockOverview;

impl Query for StockOverview {
    type Answer = Overview;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Overview> {
        settings::require_spool_management(snapshot)?;
        let spools = ListQuery {
            include_archived: true,
            page_size: 1000,
            ..ListQuery::default()
        };
        Ok(Overview {
            filaments: material_stocks(snapshot)?,
            spools: views::list(snapshot, &spools, &SpoolFilter::default())?,
        })
    }
}
