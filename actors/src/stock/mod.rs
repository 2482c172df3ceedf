//! Filament stock, over the ledger and the filaments: spools with their filament's name, the
//! spool commands the API and the UI send, and stock levels against their thresholds.

mod commands;
mod levels;
mod views;

pub use commands::{
    ArchiveSpool, BookMovement, ChangeSpool, FixedFields, GetSpool, ListSpools, OpenSpool,
    SpoolLedger,
};
pub use levels::{
    FilamentStock, LowStock, Overview, SetMinimumStock, Stock, StockOverview, material_stocks,
    set_minimum_stock, stock,
};
pub use views::{SpoolFilter, SpoolView, list, view};
