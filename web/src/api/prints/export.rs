//! `GET /api/prints/export`: DONE prints as CSV (UTF-8 with a byte-order mark, CRLF, every cell
//! quoted; `,` and decimal points, or with `separator=SEMICOLON` `;` and decimal commas as German
//! spreadsheets read them), named `prints-YYYY-MM-DD.csv` (today in the instance time zone),
//! columns
//! `id,name,customer,printer,series,completed_at,archived_at,currency,quantity,duration_seconds,
//! planned_cost,planned_cost_per_unit,outcome,outcome_at,actual_duration_seconds,actual_cost,
//! actual_cost_per_unit,failure_reason,spool_codes,sales_value,planned_margin,revenue,
//! realized_margin,parts,planned_kwh,actual_kwh,actual_electricity_cost,electricity_sources`
//! (the last four the issue of metered electricity added after the spec's: kWh and cost over
//! the print's parts, and the distinct sources of its actual kWh, `METERED; ESTIMATED`), then
//! `work_cost,suggested_price,vat,gross` (work and price: the planned cost of the work lines,
//! the price rule's suggestion, and VAT and gross on the sales value; empty without a rule). Text cells starting with `=`, `+`, `-` or `@` get a leading `'` so that
//! spreadsheets do not run them as formulas.

use super::dto::{PriceDto, duration};
use super::filters;
use super::outcome_dto::EnergySourceName;
use crate::error::{ApiError, Code, ErrorBody};
use crate::extract::{ListParams, StrictQuery};
use crate::input::Faults;
use crate::input::query::Params;
use crate::session::CurrentUser;
use crate::state::AppState;
use crate::wire::{dec, dec_opt, name, ts};
use actix_web::web::Data;
use actix_web::{HttpResponse, get};
use actors::costing;
use actors::prints::{self, Export, ExportData, Outcome};
use deserr::Deserr;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use storage::Id;
use storage::records::{CostCategory, Print};
use utoipa::{IntoParams, ToSchema};

/// The columns, in order.
pub const COLUMNS: [&str; 32] = [
    "id",
    "name",
    "customer",
    "printer",
    "series",
    "completed_at",
    "archived_at",
    "currency",
    "quantity",
    "duration_seconds",
    "planned_cost",
    "planned_cost_per_unit",
    "outcome",
    "outcome_at",
    "actual_duration_seconds",
    "actual_cost",
    "actual_cost_per_unit",
    "failure_reason",
    "spool_codes",
    "sales_value",
    "planned_margin",
    "revenue",
    "realized_margin",
    "parts",
    "planned_kwh",
    "actual_kwh",
    "actual_electricity_cost",
    "electricity_sources",
    "work_cost",
    "suggested_price",
    "vat",
    "gross",
];

/// The cells' separator, and with it the decimal mark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Separator {
    /// `,` between cells, decimal points (`12.5`).
    #[default]
    Comma,
    /// `;` between cells, decimal commas (`12,5`): what a spreadsheet in German opens as
    /// columns of numbers.
    Semicolon,
}

crate::input::deserr_by_name!(Separator);

impl Separator {
    /// The delimiter byte.
    pub fn byte(self) -> u8 {
        match self {
            Separator::Comma => b',',
            Separator::Semicolon => b';',
        }
    }

    /// A decimal cell (canonical text, `12.5`) with this separator's decimal mark.
    fn decimal(self, text: String) -> String {
        match self {
            Separator::Comma => text,
            Separator::Semicolon => text.replace('.', ","),
        }
    }
}

/// The export's own query.
#[derive(Debug, Default, Deserr, IntoParams)]
#[deserr(error = Faults, rename_all = camelCase)]
#[into_params(parameter_in = Query)]
pub struct CsvParams {
    /// `COMMA` (default: `,` and decimal points) or `SEMICOLON` (`;` and decimal commas).
    #[deserr(default)]
    #[param(value_type = Option<Separator>)]
    pub separator: Option<Separator>,
}

impl Params for CsvParams {}

/// The UTF-8 byte-order mark, first in the file, by which spreadsheets know the encoding.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A text cell, guarded against formula injection.
pub fn text(value: &str) -> String {
    if value.starts_with(['=', '+', '-', '@']) {
        format!("'{value}")
    } else {
        value.to_string()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PartCell {
    printer: String,
    build_plate: String,
    duration_seconds: u64,
    total_cost: String,
}

/// The label of `part`'s cost line of `category` (its printer's name, its build plate's), as
/// frozen in the print's costing; empty without one.
pub fn label(print: &Print, part: Id, category: CostCategory) -> String {
    let line = print
        .costing
        .lines
        .iter()
        .find(|l| l.part_id == Some(part) && l.category == category);
    line.map(|l| l.label.clone()).unwrap_or_default()
}

/// What a row of either export (this one, the UI's spreadsheet) names of a print: its customer's
/// and series' names (empty without one), its printers' labels and its spools' codes, in part
/// order, a repeat of the one before left out.
pub struct Named<'a> {
    /// The customer's name.
    pub customer: String,
    /// The series' name.
    pub series: String,
    /// The printers' labels, as frozen in the costing.
    pub printers: Vec<String>,
    /// The spools' codes.
    pub spools: Vec<&'a str>,
}

impl<'a> Named<'a> {
    /// What `print` names, looked up in `names`.
    pub fn of(print: &'a Print, names: &ExportData) -> Named<'a> {
        let name_of = |map: &HashMap<Id, String>, id: Option<Id>| {
            id.and_then(|i| map.get(&i).cloned()).unwrap_or_default()
        };
        let mut printers: Vec<String> = print
            .parts
            .iter()
            .map(|p| label(print, p.id, CostCategory::Printer))
            .collect();
        printers.dedup();
        let mut spools: Vec<&str> = print
            .usages()
            .filter_map(|u| u.spool_code.as_deref())
            .collect();
        spools.dedup();
        Named {
            customer: name_of(&names.customers, print.customer_id),
            series: name_of(&names.series, print.series_id),
            printers,
            spools,
        }
    }
}

fn row(print: &Print, names: &ExportData, separator: Separator) -> Vec<String> {
    let decimal = |text: String| separator.decimal(text);
    let currency = &names.currency;
    let parts: Vec<PartCell> = print
        .parts
        .iter()
        .map(|p| PartCell {
            printer: label(print, p.id, CostCategory::Printer),
            build_plate: label(print, p.id, CostCategory::BuildPlate),
            duration_seconds: duration(p),
            total_cost: dec(print
                .costing
                .lines
                .iter()
                .filter(|l| l.part_id == Some(p.id))
                .map(|l| l.cost)
                .sum()),
        })
        .collect();
    let current = print.outcome.as_ref().and_then(|o| o.current());
    let realized = prints::realized(print);
    let named = Named::of(print, names);
    let planned_kwh: Decimal = print
        .costing
        .lines
        .iter()
        .filter(|l| l.category == CostCategory::Electricity)
        .map(|l| l.quantity)
        .sum();
    let by_printer = prints::electricity_by_printer(print);
    let actual_kwh: Decimal = by_printer.values().map(|e| e.actual_kwh).sum();
    let actual_electricity: Decimal = by_printer.values().map(|e| e.actual_cost).sum();
    let mut sources: Vec<String> = current
        .iter()
        .flat_map(|r| r.electricity.iter())
        .map(|e| name(&EnergySourceName::from(e.source)))
        .collect();
    sources.sort_unstable();
    sources.dedup();
    let price = PriceDto::of(print);
    let price = price.as_ref();
    vec![
        print.id.to_string(),
        text(&print.name),
        text(&named.customer),
        text(&named.printers.join("; ")),
        text(&named.series),
        print.completed_at.map(ts).unwrap_or_default(),
        print
            .archived_at
            .filter(|_| print.archived)
            .map(ts)
            .unwrap_or_default(),
        currency.to_string(),
        print.quantity.to_string(),
        print.parts.iter().map(duration).sum::<u64>().to_string(),
        decimal(dec(print.costing.total)),
        decimal(dec(print.costing.cost_per_unit)),
        current
            .map_or(Outcome::Pending, |r| Outcome::recorded(r.status))
            .name()
            .to_string(),
        current.map(|r| ts(r.recorded_at)).unwrap_or_default(),
        current
            .map(|r| r.duration_seconds.to_string())
            .unwrap_or_default(),
        decimal(dec_opt(realized.actual_cost).unwrap_or_default()),
        decimal(dec_opt(realized.actual_cost_per_unit).unwrap_or_default()),
        text(
            current
                .and_then(|r| r.failure_reason.as_deref())
                .unwrap_or_default(),
        ),
        text(&named.spools.join("; ")),
        decimal(dec_opt(print.sales_value).unwrap_or_default()),
        decimal(dec_opt(prints::planned_margin(print)).unwrap_or_default()),
        decimal(dec_opt(realized.revenue).unwrap_or_default()),
        decimal(dec_opt(realized.margin).unwrap_or_default()),
        serde_json::to_string(&parts).unwrap_or_default(),
        decimal(dec(planned_kwh)),
        current
            .map(|_| decimal(dec(actual_kwh)))
            .unwrap_or_default(),
        current
            .map(|_| decimal(dec(actual_electricity)))
            .unwrap_or_default(),
        sources.join("; "),
        decimal(dec(print
            .costing
            .lines
            .iter()
            .filter(|l| costing::is_work(l.category))
            .map(|l| l.cost)
            .sum())),
        decimal(price.map(|p| p.suggested_net.clone()).unwrap_or_default()),
        decimal(price.and_then(|p| p.vat.clone()).unwrap_or_default()),
        decimal(price.and_then(|p| p.gross.clone()).unwrap_or_default()),
    ]
}

/// Writes `header` and `rows` as CSV separated by `separator`, after the byte-order mark (every
/// cell quoted, CRLF). Errors: 500 when the writer fails.
pub fn write(
    header: &[&str],
    rows: &[Vec<String>],
    separator: Separator,
) -> Result<Vec<u8>, ApiError> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .quote_style(csv::QuoteStyle::Always)
        .delimiter(separator.byte())
        .from_writer(BOM.to_vec());
    let internal = |_| ApiError::new(Code::Internal);
    writer.write_record(header).map_err(internal)?;
    for row in rows {
        writer.write_record(row).map_err(internal)?;
    }
    writer
        .into_inner()
        .map_err(|_| ApiError::new(Code::Internal))
}

/// DONE prints matching the list filters as CSV; a header only when none match.
#[utoipa::path(
    tag = "prints",
    params(ListParams, filters::PrintParams, CsvParams),
    responses(
        (status = 200, description = "CSV, `Cache-Control: no-store`", content_type = "text/csv", body = String),
        (status = 401, body = ErrorBody),
        (status = 422, description = "EXPORT_TOO_LARGE above 5,000 prints, or an invalid filter", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/prints/export")]
pub async fn export(
    state: Data<AppState>,
    _user: CurrentUser,
    query: StrictQuery<((ListParams, filters::PrintParams), CsvParams)>,
) -> Result<HttpResponse, ApiError> {
    let (list, csv_params) = query.0;
    let (_, filter) = filters::filter(list);
    let separator = csv_params.separator.unwrap_or_default();
    let data = state.query(Export(filter)).await?;
    let rows: Vec<_> = data
        .prints
        .iter()
        .map(|p| row(p, &data, separator))
        .collect();
    let today = state.index.date_of(storage::Timestamp::now());
    let file = format!("attachment; filename=\"prints-{today}.csv\"");
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Content-Disposition", file))
        .body(write(&COLUMNS, &rows, separator)?))
}
