//! Inventory pages for customers, manufacturers, printers, components and filaments, labour
//! rates, charges and post-processing steps: list with
//! search and archive filter, create, edit, archive or restore, and delete (refused with a clear
//! message while another record refers to it).
//!
//! One set of handlers and two templates serve all five: each resource describes its columns
//! and form controls in a [`Screen`], and its records are read and written through the API's
//! own [`Resource`] functions, so the rules and field errors are the API's.

use super::Chrome;
use super::changes::{self, ChangeRow};
use super::choices::{Choice, Choices, LoadChoices};
use super::forms::{Faults, Submitted};
use super::guard::{at_least, staff};
use super::meters::{self, MeterCard};
use super::page::{Ctx, Page, back_to_form_page, html, see_other};
use super::paths;
use crate::api::inventory::{self as api, Resource};
use crate::api::maintenance::Replacement;
use crate::api::{
    charges, components, customers, filaments, labour_rates, manufacturers, materials,
    post_processing_steps as steps, printers,
};
use crate::error::{ApiError, Code, Rendered};
use crate::input::parse;
use crate::wire;
use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes};
use actors::FieldError;
use actors::inventory::commands::{GetRecord, ListRecords};
use actors::inventory::{Kind, ListQuery};
use actors::maintenance::{GetWear, ReplaceComponent, SubjectWear};
use askama::Template;
use serde_json::Value;
use storage::Id;
use storage::records::Role;

/// How a value is shown in a list cell.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    /// As is.
    Text,
    /// Money in the instance currency.
    Money,
    /// A decimal with its unit key (`unit.g`, `unit.h`, `unit.w`).
    Amount(&'static str),
    /// A decimal as the language writes it, its unit in a column of its own.
    Number,
    /// A decimal and its unit key, space-separated in the cell (`200 unit.prints`): a column
    /// whose rows differ in unit.
    Quantity,
    /// A colour swatch with its hex code.
    Color,
    /// A translated enum value: the catalog key prefix (`componentType.`).
    Choice(&'static str),
}

/// A list column: the header's catalog key and the format of its cells.
#[derive(Debug, Clone, Copy)]
pub struct Column(pub &'static str, pub Format);

/// A record as the inventory pages read it: its identity, the raw text of its list cells (in
/// the order of [`Screen::COLUMNS`]) and its form values (one pair per value; a checkbox that is
/// on is `"on"`, a multiple select repeats its name).
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Archive state.
    pub archived: bool,
    /// List cells, unformatted.
    pub cells: Vec<String>,
    /// Form values.
    pub form: Vec<(&'static str, String)>,
}

/// `"on"` for a checked box, else nothing.
fn check(name: &'static str, on: bool) -> Option<(&'static str, String)> {
    on.then(|| (name, "on".to_string()))
}

/// The pair of an optional text.
fn some(name: &'static str, value: &Option<String>) -> Option<(&'static str, String)> {
    value.clone().map(|v| (name, v))
}

/// How a form control is drawn (and which API body key it fills).
#[derive(Debug, Clone, Copy)]
pub enum Control {
    /// One line of text.
    Text,
    /// Several lines.
    LongText,
    /// An email address.
    Email,
    /// A decimal string (shown with a decimal keyboard).
    Decimal,
    /// A whole number.
    Whole,
    /// A colour picker (`#RRGGBB`).
    Color,
    /// A checkbox.
    Check,
    /// A select of manufacturers.
    Manufacturer,
    /// A multiple select of printers.
    Printers,
    /// A select of labour rates.
    LabourRate,
    /// A select of fixed values: the catalog key prefix and the values.
    Choice(&'static str, &'static [&'static str]),
}

/// A form control: the API body key, the label's catalog key, the control, required or not.
#[derive(Debug, Clone, Copy)]
pub struct Input(pub &'static str, pub &'static str, pub Control, pub bool);

/// The page description of an inventory resource.
pub trait Screen: Resource
where
    <Self::Kind as Kind>::Filter: Default,
{
    /// The path segment: `/customers`.
    const PATH: &'static str;
    /// The plural title's catalog key.
    const TITLE: &'static str;
    /// List columns after the name.
    const COLUMNS: &'static [Column];
    /// Form controls, in order.
    const INPUTS: &'static [Input];
    /// Who may create, change, archive and delete them (the API's group for them says the
    /// same, `api::configure`): the shop's records are staff's, the prices of work the owner's.
    const WRITES: Role;

    /// The record of a response body.
    const RECORD: fn(Self::Dto) -> Record;
}

const NOTE: Input = Input("note", "field.note", Control::LongText, false);
const PRICE: Input = Input(
    "purchasePrice",
    "field.purchasePrice",
    Control::Decimal,
    true,
);
const LIFETIME: Input = Input(
    "expectedLifetimeHours",
    "field.expectedLifetimeHours",
    Control::Decimal,
    true,
);
const NAME: Input = Input("name", "field.name", Control::Text, true);

impl Screen for customers::Customers {
    const WRITES: Role = Role::Staff;
    const PATH: &'static str = paths::CUSTOMERS;
    const TITLE: &'static str = "nav.customers";
    const COLUMNS: &'static [Column] = &[Column("field.email", Format::Text)];
    const INPUTS: &'static [Input] = &[
        NAME,
        Input("email", "field.email", Control::Email, false),
        Input(
            "discountPercent",
            "field.discountPercent",
            Control::Decimal,
            false,
        ),
        Input("address.street", "field.street", Control::Text, false),
        Input(
            "address.postalCode",
            "field.postalCode",
            Control::Text,
            false,
        ),
        Input("address.city", "field.city", Control::Text, false),
        Input("address.country", "field.country", Control::Text, false),
        Input("vatId", "field.vatId", Control::Text, false),
        Input(
            "buyerReference",
            "field.buyerReference",
            Control::Text,
            false,
        ),
        Input("invoiceEmail", "field.invoiceEmail", Control::Email, false),
        Input(
            "language",
            "field.documentLanguage",
            Control::Choice("language.", LANGUAGES),
            false,
        ),
        Input(
            "paymentTermsDays",
            "field.paymentTermsDays",
            Control::Whole,
            false,
        ),
        NOTE,
        Input(
            "excludeFromDashboard",
            "field.excludeFromDashboard",
            Control::Check,
            false,
        ),
    ];
    const RECORD: fn(customers::Customer) -> Record = customer_record;
}

impl Screen for manufacturers::Manufacturers {
    const WRITES: Role = Role::Staff;
    const PATH: &'static str = paths::MANUFACTURERS;
    const TITLE: &'static str = "nav.manufacturers";
    const COLUMNS: &'static [Column] = &[Column("field.note", Format::Text)];
    const INPUTS: &'static [Input] = &[NAME, NOTE];
    const RECORD: fn(manufacturers::Manufacturer) -> Record = manufacturer_record;
}

impl Screen for printers::Printers {
    const WRITES: Role = Role::Staff;
    const PATH: &'static str = paths::PRINTERS;
    const TITLE: &'static str = "nav.printers";
    const COLUMNS: &'static [Column] = &[
        Column("field.manufacturer", Format::Text),
        Column("field.technology", Format::Choice("technology.")),
        Column("field.purchasePrice", Format::Money),
        Column("field.lifetime", Format::Amount("unit.h")),
        Column("field.power", Format::Amount("unit.w")),
    ];
    const INPUTS: &'static [Input] = &[
        NAME,
        Input(
            "technology",
            "field.technology",
            Control::Choice("technology.", TECHNOLOGIES),
            false,
        ),
        Input(
            "manufacturerId",
            "field.manufacturer",
            Control::Manufacturer,
            true,
        ),
        Input("model", "field.model", Control::Text, false),
        PRICE,
        LIFETIME,
        Input(
            "averagePowerWatts",
            "field.averagePowerWatts",
            Control::Whole,
            true,
        ),
        NOTE,
    ];
    const RECORD: fn(printers::Printer) -> Record = printer_record;
}

/// Component types on the wire.
const COMPONENT_TYPES: &[&str] = &["HOTEND", "BUILD_PLATE", "VAT", "OTHER"];

/// Printer technologies on the wire.
const TECHNOLOGIES: &[&str] = &["FDM", "MSLA"];

impl Screen for components::Components {
    const WRITES: Role = Role::Staff;
    const PATH: &'static str = paths::COMPONENTS;
    const TITLE: &'static str = "nav.components";
    const COLUMNS: &'static [Column] = &[
        Column("field.type", Format::Choice("componentType.")),
        Column("field.manufacturer", Format::Text),
        Column("field.purchasePrice", Format::Money),
        Column("field.lifetime", Format::Quantity),
    ];
    const INPUTS: &'static [Input] = &[
        Input(
            "type",
            "field.type",
            Control::Choice("componentType.", COMPONENT_TYPES),
            true,
        ),
        NAME,
        Input(
            "manufacturerId",
            "field.manufacturer",
            Control::Manufacturer,
            false,
        ),
        Input("model", "field.model", Control::Text, false),
        PRICE,
        Input(
            "expectedLifetimeHours",
            "field.expectedLifetimeHours",
            Control::Decimal,
            false,
        ),
        Input(
            "expectedLifetimePrints",
            "field.expectedLifetimePrints",
            Control::Whole,
            false,
        ),
        Input("alwaysUsed", "field.alwaysUsed", Control::Check, false),
        Input("printerIds", "field.printerIds", Control::Printers, false),
        NOTE,
    ];
    const RECORD: fn(components::Component) -> Record = component_record;
}

impl Screen for filaments::Filaments {
    const WRITES: Role = Role::Staff;
    const PATH: &'static str = paths::FILAMENTS;
    const TITLE: &'static str = "nav.filaments";
    const COLUMNS: &'static [Column] = &[
        Column("field.material", Format::Text),
        Column("field.colorHex", Format::Color),
        Column("field.purchasePrice", Format::Money),
        Column("field.netWeightGrams", Format::Amount("unit.g")),
    ];
    const INPUTS: &'static [Input] = &[
        Input(
            "manufacturerId",
            "field.manufacturer",
            Control::Manufacturer,
            true,
        ),
        Input("material", "field.material", Control::Text, true),
        Input("colorName", "field.colorName", Control::Text, true),
        Input("colorHex", "field.colorHex", Control::Color, true),
        PRICE,
        Input(
            "netWeightGrams",
            "field.netWeightGrams",
            Control::Decimal,
            true,
        ),
        Input(
            "minimumStockGrams",
            "field.minimumStockGrams",
            Control::Decimal,
            false,
        ),
        NOTE,
        // Asked at creation while spool management is on (unticked: no phantom stock).
        Input("openingSpool", "field.openingSpool", Control::Check, false),
    ];
    const RECORD: fn(filaments::Filament) -> Record = filament_record;
}

/// The kinds of a material, on the wire.
const MATERIAL_KINDS: &[&str] = &["FILAMENT", "RESIN", "CONSUMABLE"];

/// The units a material is counted in, on the wire.
const STOCK_UNITS: &[&str] = &["GRAM", "MILLILITRE", "PIECE"];

impl Screen for materials::Materials {
    const WRITES: Role = Role::Staff;
    const PATH: &'static str = paths::MATERIALS;
    const TITLE: &'static str = "nav.materials";
    const COLUMNS: &'static [Column] = &[
        Column("field.kind", Format::Choice("materialKind.")),
        Column("field.material", Format::Text),
        Column("field.purchasePrice", Format::Money),
        Column("field.netQuantity", Format::Number),
        Column("field.unit", Format::Choice("stockUnit.")),
    ];
    const INPUTS: &'static [Input] = &[
        Input(
            "kind",
            "field.kind",
            Control::Choice("materialKind.", MATERIAL_KINDS),
            true,
        ),
        Input(
            "unit",
            "field.unit",
            Control::Choice("stockUnit.", STOCK_UNITS),
            false,
        ),
        Input(
            "manufacturerId",
            "field.manufacturer",
            Control::Manufacturer,
            true,
        ),
        Input("material", "field.material", Control::Text, true),
        Input("colorName", "field.colorName", Control::Text, false),
        // Text, not a picker: a picker always sends a colour, and a consumable has none.
        Input("colorHex", "field.colorHex", Control::Text, false),
        PRICE,
        Input("netQuantity", "field.netQuantity", Control::Decimal, true),
        Input(
            "minimumStock",
            "field.minimumStock",
            Control::Decimal,
            false,
        ),
        Input(
            "densityGramsPerMillilitre",
            "field.densityGramsPerMillilitre",
            Control::Decimal,
            false,
        ),
        NOTE,
        Input("openingSpool", "field.openingSpool", Control::Check, false),
    ];
    const RECORD: fn(materials::Material) -> Record = material_record;
}

/// The languages quotes and invoices are written in.
const LANGUAGES: &[&str] = &["de-DE", "en-US"];

/// What a charge or a step counts, on the wire.
const PER: &[&str] = &["PIECE", "JOB"];

impl Screen for labour_rates::LabourRates {
    const WRITES: Role = Role::Owner;
    const PATH: &'static str = paths::LABOUR_RATES;
    const TITLE: &'static str = "nav.labourRates";
    const COLUMNS: &'static [Column] = &[Column("field.hourlyRate", Format::Money)];
    const INPUTS: &'static [Input] = &[
        NAME,
        Input("hourlyRate", "field.hourlyRate", Control::Decimal, true),
        NOTE,
    ];
    const RECORD: fn(labour_rates::LabourRate) -> Record = labour_rate_record;
}

impl Screen for charges::Charges {
    const WRITES: Role = Role::Owner;
    const PATH: &'static str = paths::CHARGES;
    const TITLE: &'static str = "nav.charges";
    const COLUMNS: &'static [Column] = &[
        Column("field.amount", Format::Money),
        Column("field.per", Format::Choice("per.")),
    ];
    const INPUTS: &'static [Input] = &[
        NAME,
        Input("amount", "field.amount", Control::Decimal, true),
        Input("per", "field.per", Control::Choice("per.", PER), true),
        NOTE,
    ];
    const RECORD: fn(charges::Charge) -> Record = charge_record;
}

impl Screen for steps::Steps {
    const WRITES: Role = Role::Owner;
    const PATH: &'static str = paths::STEPS;
    const TITLE: &'static str = "nav.steps";
    const COLUMNS: &'static [Column] = &[
        Column("field.labourRate", Format::Text),
        Column("field.minutes", Format::Amount("unit.min")),
        Column("field.per", Format::Choice("per.")),
        Column("field.machine", Format::Text),
    ];
    const INPUTS: &'static [Input] = &[
        NAME,
        Input(
            "labourRateId",
            "field.labourRate",
            Control::LabourRate,
            true,
        ),
        Input("minutes", "field.minutes", Control::Decimal, true),
        Input("per", "field.per", Control::Choice("per.", PER), true),
        Input("machine.name", "field.machine", Control::Text, false),
        Input(
            "machine.purchasePrice",
            "field.purchasePrice",
            Control::Decimal,
            false,
        ),
        Input(
            "machine.expectedLifetimeHours",
            "field.expectedLifetimeHours",
            Control::Decimal,
            false,
        ),
        Input(
            "machine.averagePowerWatts",
            "field.averagePowerWatts",
            Control::Whole,
            false,
        ),
        Input(
            "machine.minutes",
            "field.machineMinutes",
            Control::Decimal,
            false,
        ),
        NOTE,
    ];
    const RECORD: fn(steps::PostProcessingStep) -> Record = step_record;
}

/// The wire name of what a charge or a step counts.
fn per_name(per: charges::Per) -> String {
    wire::name(&per)
}

/// The record of a labour rate.
fn labour_rate_record(r: labour_rates::LabourRate) -> Record {
    let form = [
        Some(("name", r.name.clone())),
        Some(("hourlyRate", r.hourly_rate.clone())),
        some("note", &r.note),
    ];
    Record {
        cells: vec![r.hourly_rate],
        form: form.into_iter().flatten().collect(),
        id: r.id,
        name: r.name,
        archived: r.archived,
    }
}

/// The record of a charge.
fn charge_record(c: charges::Charge) -> Record {
    let per = per_name(c.per);
    let form = [
        Some(("name", c.name.clone())),
        Some(("amount", c.amount.clone())),
        Some(("per", per.clone())),
        some("note", &c.note),
    ];
    Record {
        cells: vec![c.amount, per],
        form: form.into_iter().flatten().collect(),
        id: c.id,
        name: c.name,
        archived: c.archived,
    }
}

/// The record of a post-processing step.
fn step_record(s: steps::PostProcessingStep) -> Record {
    let per = per_name(s.per);
    let machine = s.machine.as_ref();
    let form = [
        Some(("name", s.name.clone())),
        Some(("labourRateId", s.labour_rate_id)),
        Some(("minutes", s.minutes.clone())),
        Some(("per", per.clone())),
        machine.map(|m| ("machine.name", m.name.clone())),
        machine.map(|m| ("machine.purchasePrice", m.purchase_price.clone())),
        machine.map(|m| {
            (
                "machine.expectedLifetimeHours",
                m.expected_lifetime_hours.clone(),
            )
        }),
        machine.map(|m| {
            (
                "machine.averagePowerWatts",
                m.average_power_watts.to_string(),
            )
        }),
        machine.map(|m| ("machine.minutes", m.minutes.clone())),
        some("note", &s.note),
    ];
    Record {
        cells: vec![
            s.labour_rate_name,
            s.minutes,
            per,
            machine.map(|m| m.name.clone()).unwrap_or_default(),
        ],
        form: form.into_iter().flatten().collect(),
        id: s.id,
        name: s.name,
        archived: s.archived,
    }
}

/// The record of a customer.
fn customer_record(c: customers::Customer) -> Record {
    let form = [
        Some(("name", c.name.clone())),
        some("email", &c.email),
        some("discountPercent", &c.discount_percent),
        c.address
            .as_ref()
            .map(|a| ("address.street", a.street.clone())),
        c.address
            .as_ref()
            .map(|a| ("address.postalCode", a.postal_code.clone())),
        c.address.as_ref().map(|a| ("address.city", a.city.clone())),
        c.address
            .as_ref()
            .map(|a| ("address.country", a.country.clone())),
        some("vatId", &c.vat_id),
        some("buyerReference", &c.buyer_reference),
        some("invoiceEmail", &c.invoice_email),
        some("language", &c.language),
        c.payment_terms_days
            .map(|d| ("paymentTermsDays", d.to_string())),
        some("note", &c.note),
        check("excludeFromDashboard", c.exclude_from_dashboard),
    ];
    Record {
        cells: vec![c.email.unwrap_or_default()],
        form: form.into_iter().flatten().collect(),
        id: c.id,
        name: c.name,
        archived: c.archived,
    }
}

/// The record of a manufacturer.
fn manufacturer_record(m: manufacturers::Manufacturer) -> Record {
    let form = [Some(("name", m.name.clone())), some("note", &m.note)];
    Record {
        cells: vec![m.note.unwrap_or_default()],
        form: form.into_iter().flatten().collect(),
        id: m.id,
        name: m.name,
        archived: m.archived,
    }
}

/// The record of a printer.
fn printer_record(p: printers::Printer) -> Record {
    let technology = match p.technology {
        printers::TechnologyDto::Fdm => "FDM",
        printers::TechnologyDto::Msla => "MSLA",
    };
    let form = [
        Some(("name", p.name.clone())),
        Some(("technology", technology.to_string())),
        Some(("manufacturerId", p.manufacturer_id)),
        some("model", &p.model),
        Some(("purchasePrice", p.purchase_price.clone())),
        Some(("expectedLifetimeHours", p.expected_lifetime_hours.clone())),
        Some(("averagePowerWatts", p.average_power_watts.to_string())),
        some("note", &p.note),
    ];
    Record {
        cells: vec![
            p.manufacturer,
            technology.to_string(),
            p.purchase_price,
            p.expected_lifetime_hours,
            p.average_power_watts.to_string(),
        ],
        form: form.into_iter().flatten().collect(),
        id: p.id,
        name: p.name,
        archived: p.archived,
    }
}

/// The record of a component.
fn component_record(c: components::Component) -> Record {
    let kind = match c.kind {
        components::ComponentType::Hotend => "HOTEND",
        components::ComponentType::BuildPlate => "BUILD_PLATE",
        components::ComponentType::Other => "OTHER",
        components::ComponentType::Vat => "VAT",
    };
    let form = [
        Some(("type", kind.to_string())),
        Some(("name", c.name.clone())),
        some("manufacturerId", &c.manufacturer_id),
        some("model", &c.model),
        Some(("purchasePrice", c.purchase_price.clone())),
        some("expectedLifetimeHours", &c.expected_lifetime_hours),
        c.expected_lifetime_prints
            .map(|n| ("expectedLifetimePrints", n.to_string())),
        check("alwaysUsed", c.always_used),
        some("note", &c.note),
    ];
    let printers = c.printer_ids.into_iter().map(|p| ("printerIds", p));
    Record {
        cells: vec![
            kind.to_string(),
            c.manufacturer.unwrap_or_default(),
            c.purchase_price,
            match (c.expected_lifetime_hours, c.expected_lifetime_prints) {
                (_, Some(prints)) => format!("{prints} unit.prints"),
                (hours, None) => format!("{} unit.h", hours.unwrap_or_default()),
            },
        ],
        form: form.into_iter().flatten().chain(printers).collect(),
        id: c.id,
        name: c.name,
        archived: c.archived,
    }
}

/// The record of a filament.
fn filament_record(f: filaments::Filament) -> Record {
    let form = [
        Some(("manufacturerId", f.manufacturer_id)),
        Some(("material", f.material.clone())),
        Some(("colorName", f.color_name)),
        Some(("colorHex", f.color_hex.clone())),
        Some(("purchasePrice", f.purchase_price.clone())),
        Some(("netWeightGrams", f.net_weight_grams.clone())),
        some("minimumStockGrams", &f.minimum_stock_grams),
        some("note", &f.note),
    ];
    Record {
        cells: vec![
            f.material,
            f.color_hex,
            f.purchase_price,
            f.net_weight_grams,
        ],
        form: form.into_iter().flatten().collect(),
        id: f.id,
        name: f.name,
        archived: f.archived,
    }
}

fn material_record(m: materials::Material) -> Record {
    let (kind, unit) = (wire::name(&m.kind), wire::name(&m.unit));
    let form = [
        Some(("kind", kind.clone())),
        Some(("unit", unit.clone())),
        Some(("manufacturerId", m.manufacturer_id)),
        Some(("material", m.material.clone())),
        some("colorName", &m.color_name),
        some("colorHex", &m.color_hex),
        Some(("purchasePrice", m.purchase_price.clone())),
        Some(("netQuantity", m.net_quantity.clone())),
        some("minimumStock", &m.minimum_stock),
        some("densityGramsPerMillilitre", &m.density_grams_per_millilitre),
        some("note", &m.note),
    ];
    Record {
        cells: vec![kind, m.material, m.purchase_price, m.net_quantity, unit],
        form: form.into_iter().flatten().collect(),
        id: m.id,
        name: m.name,
        archived: m.archived,
    }
}

/// Registers the pages of every inventory resource.
pub fn configure(cfg: &mut web::ServiceConfig) {
    // Who may change them: each screen's `WRITES`.
    routes::<customers::Customers>(cfg);
    routes::<manufacturers::Manufacturers>(cfg);
    routes::<printers::Printers>(cfg);
    routes::<components::Components>(cfg);
    routes::<filaments::Filaments>(cfg);
    routes::<materials::Materials>(cfg);
    routes::<labour_rates::LabourRates>(cfg);
    routes::<charges::Charges>(cfg);
    routes::<steps::Steps>(cfg);
    cfg.route(paths::COMPONENT_REPLACE, staff(web::post().to(replace)))
        .route(
            paths::COMPONENT_REPLACE,
            web::get().to(|req| back_to_form_page(req, paths::COMPONENT)),
        );
}

fn routes<R: Screen>(cfg: &mut web::ServiceConfig)
where
    <R::Kind as Kind>::Filter: Default,
{
    let writes = R::WRITES;
    let item = format!("{}/{{id}}", R::PATH);
    cfg.route(R::PATH, web::get().to(list::<R>))
        .route(
            &format!("{}/new", R::PATH),
            at_least(writes, web::get().to(new_form::<R>)),
        )
        .route(R::PATH, at_least(writes, web::post().to(create::<R>)))
        .route(&item, web::get().to(edit_form::<R>))
        .route(&item, at_least(writes, web::post().to(save::<R>)))
        .route(
            &format!("{item}/archive"),
            at_least(writes, web::post().to(archive::<R>)),
        )
        .route(
            &format!("{item}/delete"),
            at_least(writes, web::post().to(delete::<R>)),
        );
    // A GET of a form's POST-only address opens the record's page.
    for form in ["archive", "delete"] {
        let page = item.clone();
        cfg.route(
            &format!("{item}/{form}"),
            web::get().to(move |req| {
                let page = page.clone();
                async move { back_to_form_page(req, &page).await }
            }),
        );
    }
}

/// One list row: the record's id, name, archive state and formatted cells.
struct Row {
    id: String,
    name: String,
    archived: bool,
    cells: Vec<Cell>,
}

/// A formatted cell: its text, whether it is numeric, and a colour swatch.
struct Cell {
    text: String,
    numeric: bool,
    swatch: Option<String>,
}

#[derive(Template)]
#[template(path = "inventory_list.html")]
struct ListPage {
    chrome: Chrome,
    path: &'static str,
    /// Whether the reader may create records of the kind (its `Screen::WRITES`).
    writes: bool,
    title: &'static str,
    headers: Vec<&'static str>,
    rows: Vec<Row>,
    search: String,
    archived: bool,
    total: u64,
}

fn cell(chrome: &Chrome, raw: String, column: &Column) -> Cell {
    let t = &chrome.t;
    let (text, numeric, swatch) = match column.1 {
        Format::Text => (raw, false, None),
        Format::Money if raw.is_empty() => (raw, true, None),
        Format::Money => (t.money_str(&raw), true, None),
        Format::Amount(_) if raw.is_empty() => (raw, true, None),
        Format::Amount(unit) => (format!("{} {}", t.exact_str(&raw), t.t(unit)), true, None),
        Format::Number => (t.exact_str(&raw), true, None),
        Format::Quantity => match raw.split_once(' ') {
            Some((number, unit)) => (format!("{} {}", t.exact_str(number), t.t(unit)), true, None),
            None => (raw, true, None),
        },
        Format::Color => (raw.clone(), false, Some(raw)),
        Format::Choice(prefix) => (t.t(&format!("{prefix}{raw}")).to_string(), false, None),
    };
    Cell {
        text,
        numeric,
        swatch,
    }
}

/// The list page: `?search=` and `?archived=on` (archived records too).
async fn list<R: Screen>(ctx: Ctx) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let (search, archived) = (ctx.param("search"), ctx.param("archived") == "on");
    let query = ListQuery {
        search: (!search.is_empty()).then(|| search.clone()),
        page: 1,
        page_size: 1000,
        include_archived: archived,
    };
    let filter = Default::default();
    let page = ctx.query(ListRecords::<R::Kind> { query, filter }).await?;
    let rows = page
        .items
        .into_iter()
        .map(|view| (R::RECORD)(R::dto(view)))
        .map(|record| Row {
            cells: (record.cells.into_iter().zip(R::COLUMNS))
                .map(|(raw, c)| cell(&ctx.chrome, raw, c))
                .collect(),
            id: record.id,
            name: record.name,
            archived: record.archived,
        })
        .collect();
    let page = ListPage {
        writes: ctx.chrome.may(R::WRITES),
        headers: R::COLUMNS.iter().map(|c| c.0).collect(),
        path: R::PATH,
        title: R::TITLE,
        rows,
        search,
        archived,
        total: page.total,
        chrome: ctx.chrome,
    };
    Ok(html(StatusCode::OK, page.render()))
}

/// One drawn form control with its value, options and fault.
struct Widget {
    name: &'static str,
    label: &'static str,
    /// `text`, `email`, `decimal`, `whole`, `color`, `textarea`, `check`, `select`, `multi`.
    kind: &'static str,
    required: bool,
    value: String,
    options: Vec<(String, String, bool)>,
    fault: String,
}

#[derive(Template)]
#[template(path = "inventory_form.html")]
struct FormPage {
    chrome: Chrome,
    path: &'static str,
    /// Whether the reader may change the record (its `Screen::WRITES`); otherwise the form
    /// shows it read-only and offers no command.
    writes: bool,
    title: &'static str,
    /// The record's id and name when editing.
    record: Option<(String, String, bool)>,
    controls: Vec<Widget>,
    faults: Faults,
    saved: bool,
    /// A printer's or component's wear, when editing one.
    wear: Option<SubjectWear>,
    /// A printer's energy meter, when editing one.
    meter: Option<MeterCard>,
    /// Who changed what of the record, when editing one.
    changes: Option<Vec<ChangeRow>>,
}

fn options(choices: &[Choice], form: &Submitted, name: &str) -> Vec<(String, String, bool)> {
    choices
        .iter()
        .map(|c| (c.id.clone(), c.label.clone(), form.has(name, &c.id)))
        .collect()
}

fn controls<R: Screen>(
    chrome: &Chrome,
    form: &Submitted,
    faults: &Faults,
    choices: &Choices,
) -> Vec<Widget>
where
    <R::Kind as Kind>::Filter: Default,
{
    R::INPUTS
        .iter()
        .map(|&Input(name, label, control, required)| {
            let (kind, options) = match control {
                Control::Text => ("text", Vec::new()),
                Control::LongText => ("textarea", Vec::new()),
                Control::Email => ("email", Vec::new()),
                Control::Decimal => ("decimal", Vec::new()),
                Control::Whole => ("whole", Vec::new()),
                Control::Color => ("color", Vec::new()),
                Control::Check => ("check", Vec::new()),
                Control::Manufacturer => ("select", options(&choices.manufacturers, form, name)),
                Control::Printers => ("multi", options(&choices.printers, form, name)),
                Control::LabourRate => ("select", options(&choices.work_of("LABOUR"), form, name)),
                Control::Choice(prefix, values) => (
                    "select",
                    values
                        .iter()
                        .map(|v| {
                            let label = chrome.t.t(&format!("{prefix}{v}")).to_string();
                            (v.to_string(), label, form.get(name) == *v)
                        })
                        .collect(),
                ),
            };
            Widget {
                name,
                label,
                kind,
                required,
                value: form.get(name).to_string(),
                options,
                fault: faults.at(name).to_string(),
            }
        })
        .collect()
}

/// The form filled from a record (edit) or empty (new).
fn prefill(record: Option<&Record>) -> Submitted {
    let mut form = Submitted::default();
    match record {
        Some(record) => {
            let values = record.form.iter().map(|(k, v)| (k.to_string(), v.clone()));
            form.0.extend(values);
        }
        None => form.set("colorHex", "#000000"),
    }
    form
}

/// The form back to the API body: empty fields left out, checkboxes `true`, whole numbers as
/// numbers, a multiple select as an array; a name `outer.inner` fills `inner` of the object
/// `outer` (a step's machine), which is left out while all its fields are empty.
fn api_body<R: Screen>(form: &Submitted) -> Value
where
    <R::Kind as Kind>::Filter: Default,
{
    let mut object = serde_json::Map::new();
    for &Input(name, _, control, _) in R::INPUTS {
        let target = match name.split_once('.') {
            Some((outer, inner)) => {
                if form.get(name).trim().is_empty() {
                    continue;
                }
                let nested = object
                    .entry(outer.to_string())
                    .or_insert_with(|| Value::Object(serde_json::Map::new()));
                match nested.as_object_mut() {
                    Some(nested) => (nested, inner),
                    None => continue,
                }
            }
            None => (&mut object, name),
        };
        put(target, form, name, control);
    }
    Value::Object(object)
}

/// Puts the form's value of `name` into `object` at `key`, by its control.
fn put(
    (object, key): (&mut serde_json::Map<String, Value>, &str),
    form: &Submitted,
    name: &str,
    control: Control,
) {
    let value = form.get(name).trim();
    let json = match control {
        Control::Check => Value::Bool(form.checked(name)),
        Control::Printers => form.all(name).into_iter().map(Value::from).collect(),
        _ if value.is_empty() => return,
        Control::Whole => value
            .parse::<u64>()
            .map_or_else(|_| Value::from(value), Value::from),
        _ => Value::from(value),
    };
    object.insert(key.to_string(), json);
}

async fn render_form<R: Screen>(
    ctx: Ctx,
    record: Option<(String, String, bool)>,
    form: Submitted,
    faults: Faults,
    saved: bool,
    status: StatusCode,
) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    render_page::<R>(ctx, record, (form, faults), saved, status, None).await
}

/// [`render_form`], with a printer's refused meter link (its form and faults) in the meter card.
async fn render_page<R: Screen>(
    ctx: Ctx,
    record: Option<(String, String, bool)>,
    (form, faults): (Submitted, Faults),
    saved: bool,
    status: StatusCode,
    meter_refusal: Option<(Submitted, Faults)>,
) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let choices = ctx.query(LoadChoices(ctx.chrome.t.clone())).await?;
    let wear = match (&record, R::PATH) {
        (Some(_), paths::PRINTERS | paths::COMPONENTS) => {
            Some(ctx.query(GetWear(ctx.id()?)).await?)
        }
        _ => None,
    };
    let meter = match (&record, R::PATH) {
        (Some(_), paths::PRINTERS) => {
            Some(meters::card(&ctx, ctx.id()?).await?.refused(meter_refusal))
        }
        _ => None,
    };
    let changes = match &record {
        Some(_) => Some(changes::of(&ctx, ctx.id()?).await?),
        None => None,
    };
    let page = FormPage {
        writes: ctx.chrome.may(R::WRITES),
        wear,
        meter,
        changes,
        controls: controls::<R>(&ctx.chrome, &form, &faults, &choices),
        path: R::PATH,
        title: R::TITLE,
        record,
        faults,
        saved,
        chrome: ctx.chrome,
    };
    Ok(html(status, page.render()))
}

async fn new_form<R: Screen>(ctx: Ctx) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    render_form::<R>(
        ctx,
        None,
        prefill(None),
        Faults::default(),
        false,
        StatusCode::OK,
    )
    .await
}

/// The record `id`.
async fn load<R: Screen>(ctx: &Ctx, id: Id) -> Result<Record, Rendered>
where
    <R::Kind as Kind>::Filter: Default,
{
    let view = ctx.query(GetRecord::<R::Kind>::new(id)).await?;
    Ok((R::RECORD)(R::dto(view)))
}

fn identity(record: &Record) -> (String, String, bool) {
    (record.id.clone(), record.name.clone(), record.archived)
}

async fn edit_form<R: Screen>(ctx: Ctx) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let record = load::<R>(&ctx, ctx.id()?).await?;
    let saved = ctx.flagged("saved");
    let form = prefill(Some(&record));
    render_form::<R>(
        ctx,
        Some(identity(&record)),
        form,
        Faults::default(),
        saved,
        StatusCode::OK,
    )
    .await
}

/// Replaces component `{id}` (at the price given, or the old one's) and opens the new one.
pub async fn replace(ctx: Ctx, body: Bytes) -> Page {
    let form = Submitted::parse(&body);
    let input = ctx
        .typed(|| parse::<Replacement>(form.tree(&[])))
        .map_err(|e| ctx.fail(&e))?;
    let purchase_price = input.purchase_price.map(|p| *p.get());
    let command = ReplaceComponent {
        id: ctx.id()?,
        purchase_price,
    };
    let new = ctx.state.send(command).await.map_err(|e| ctx.fail(&e))?;
    let path = format!("{}/{}?replaced", paths::COMPONENTS, new.component.id);
    Ok(see_other(&path))
}

/// The API input of `form`. A refused form names every fault in one round: a required field
/// left empty is marked `errors.required` beside the parser's faults even where the API checks
/// it only after parsing (a printer's manufacturer, which may come as an id or a name).
///
/// Errors: the API's `VALIDATION_FAILED` with field errors.
fn form_input<R: Screen>(form: &Submitted) -> Result<R::Input, ApiError>
where
    <R::Kind as Kind>::Filter: Default,
{
    parse::<R::Input>(api_body::<R>(form)).map_err(|mut e| {
        for &Input(name, _, control, required) in R::INPUTS {
            let empty = !matches!(control, Control::Check) && form.get(name).trim().is_empty();
            if required && empty && !e.field_errors.iter().any(|f| f.path == name) {
                e.field_errors
                    .push(FieldError::new(name, "errors.required"));
            }
        }
        e
    })
}

async fn create<R: Screen>(ctx: Ctx, body: Bytes) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let form = Submitted::parse(&body);
    let input = ctx.typed(|| form_input::<R>(&form));
    let result = match input {
        Ok(input) => api::add::<R>(&ctx.state, input).await,
        Err(e) => Err(e),
    };
    match result.map(|view| (R::RECORD)(R::dto(view))) {
        Ok(created) => Ok(see_other(&format!("{}/{}?saved", R::PATH, created.id))),
        Err(e) => {
            let status = e.code.status();
            render_form::<R>(ctx, None, form, Faults::of(&e), false, status).await
        }
    }
}

async fn save<R: Screen>(ctx: Ctx, body: Bytes) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let id = ctx.id()?;
    let form = Submitted::parse(&body);
    let input = ctx.typed(|| form_input::<R>(&form));
    let result = match input {
        Ok(input) => api::replace::<R>(&ctx.state, id, input).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => Ok(see_other(&format!("{}/{id}?saved", R::PATH))),
        Err(e) => refuse::<R>(ctx, id, form, &e).await,
    }
}

/// Shows the edit form of `id` again with `form` and the faults of `error`.
async fn refuse<R: Screen>(ctx: Ctx, id: Id, form: Submitted, error: &ApiError) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let body = load::<R>(&ctx, id).await?;
    let status = error.code.status();
    render_form::<R>(
        ctx,
        Some(identity(&body)),
        form,
        Faults::of(error),
        false,
        status,
    )
    .await
}

/// `POST /printers/{id}/meter`: links the meter the form names (`unlink=1` unlinks it) and
/// goes back to the printer's page; a refused link shows the page again with the typed values
/// and each fault beside its field in the meter card.
pub async fn save_meter(ctx: Ctx, body: Bytes) -> Page {
    let printer = ctx.id()?;
    let form = Submitted::parse(&body);
    match meters::link(&ctx, printer, &form).await {
        Ok(()) => {
            let page = paths::PRINTER.replace("{id}", &printer.to_string());
            Ok(see_other(&format!("{page}?saved")))
        }
        Err(error) => {
            let record = load::<printers::Printers>(&ctx, printer).await?;
            let shown = prefill(Some(&record));
            let refusal = Some((form, Faults::of(&error)));
            let status = error.code.status();
            let faults = Faults::default();
            let identity = Some(identity(&record));
            render_page::<printers::Printers>(
                ctx,
                identity,
                (shown, faults),
                false,
                status,
                refusal,
            )
            .await
        }
    }
}

async fn archive<R: Screen>(ctx: Ctx, body: Bytes) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let id = ctx.id()?;
    let archived = Submitted::parse(&body).get("archived") == "true";
    api::archive::<R>(&ctx.state, id, archived)
        .await
        .map_err(|e| ctx.fail(&e))?;
    Ok(see_other(&format!("{}/{id}?saved", R::PATH)))
}

async fn delete<R: Screen>(ctx: Ctx) -> Page
where
    <R::Kind as Kind>::Filter: Default,
{
    let id = ctx.id()?;
    match api::remove::<R>(&ctx.state, id).await {
        Ok(()) => Ok(see_other(R::PATH)),
        Err(e) if e.code == Code::NotFound => Err(ctx.fail(&e)),
        Err(e) => {
            let form = prefill(Some(&load::<R>(&ctx, id).await?));
            refuse::<R>(ctx, id, form, &e).await
        }
    }
}
