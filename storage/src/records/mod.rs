//! Record types as stored. They are separate from the API's DTOs: bincode cannot store `untagged`,
//! `flatten` or `skip_serializing_if`, and the wire may change without a migration.
//!
//! Decimal fields use `rust_decimal::serde::str` (the string form) because bincode cannot drive
//! `deserialize_any`. Changing a record's layout needs a new [`crate::SCHEMA_VERSION`] and a
//! migration in `schema.rs`.

mod account;
mod alerts;
mod fleet;
mod integrations;
mod inventory;
mod invoice;
mod link;
mod maintenance;
mod meter;
mod print;
mod quote;
mod settings;
mod spool;
mod work;

pub use account::{Account, Role, Session};
pub use alerts::{AlertSettings, StandingAlert, StandingAlerts, Webhook, WebhookForm};
pub use fleet::{LogLink, PrintLog, PrinterLink, Tray};
pub use integrations::{Integrations, Override, PeerSettings};
pub use inventory::{
    Billing, Component, ComponentType, Customer, Filament, Lifetime, Manufacturer, MaterialKind,
    PostalAddress, Printer, PrinterTechnology, StockUnit,
};
pub use invoice::{
    Invoice, InvoiceAdjustment, InvoiceKind, InvoiceLine, InvoiceParty, Issued, Payment,
    PaymentMethod, VatCategory,
};
pub use link::{Authority, OperationState, RemoteState, SpoolLink, SpoolmgrOperation};
pub use maintenance::{Done, Interval, MaintenanceTask, Mark, Overridden, Wear};
pub use meter::{EnergyUnit, MAX_SCALE, MeterHour, MeterLink, MeterSource, OutOfRange, Reading};
pub use print::{
    CostCategory, CostLine, Costing, EnergySource, HotendUse, Outcome, OutcomeRevision,
    OutcomeStatus, Part, PartElectricity, PriceSnapshot, Print, PrintMaterial, PrintSource,
    PrintStatus, Series, SeriesStatus, SuccessRate, Unmetered, Usage, UsageGrams,
};
pub use quote::{Offer, Quote, QuoteLine, QuoteStatus};
pub use settings::{
    BackupSchedule, Company, NumberRange, Numbering, PriceBasis, Pricing, Rounding, Settings,
};
pub use spool::{Movement, MovementKind, Spool};
pub use work::{
    Charge, LabourRate, Per, PostProcessingStep, StepMachine, WorkLine, WorkMinutes, WorkSource,
};
