//! `/reports/prints/{id}`: the A4 report of a DONE print for its customer (header, customer,
//! parts, filaments with their grams, cost breakdown, outcome, financials), in the reader's
//! language. "Download PDF" opens the browser's print dialog, whose "Save as PDF" writes the
//! file; the print CSS keeps a two-part print on one A4 page. Its data is the API's report
//! (`GET /api/prints/{id}/report`).

use super::Chrome;
use super::format::{clock, wire};
use super::page::{Ctx, Page, html};
use super::print_detail;
use super::print_detail::Costs;
use crate::api::prints::Report;
use actix_web::http::StatusCode;
use actors::prints;
use askama::Template;
use std::collections::HashMap;
use storage::records::StockUnit;

/// A part line of the report.
struct PartLine {
    number: usize,
    printer: String,
    plate: String,
    hotends: String,
    time: String,
    /// Its actual electricity in words; empty before an outcome.
    electricity: String,
    total: String,
}

#[derive(Template)]
#[template(path = "report.html")]
struct ReportPage {
    chrome: Chrome,
    report: Report,
    costs: Costs,
    parts: Vec<PartLine>,
    usages: Vec<print_detail::UsageRow>,
    /// Whether any filament came from a spool (the spool column is shown).
    has_spools: bool,
    completed: String,
    generated: String,
    outcome: Option<(String, String, String)>,
    failure_reason: String,
    financials: Vec<(String, String)>,
}

/// `GET /reports/prints/{id}`: 409 `REPORT_NOT_ALLOWED` unless the print is DONE.
pub async fn show(ctx: Ctx) -> Page {
    let data = ctx.query(prints::Report(ctx.id()?)).await?;
    let units = data.detail.units.clone();
    let page = ReportPage::of(ctx.chrome, Report::from(data), &units);
    Ok(html(StatusCode::OK, page.render()))
}

impl ReportPage {
    /// The page of `report` in the frame `chrome`; `units` by material id.
    fn of(chrome: Chrome, report: Report, units: &HashMap<storage::Id, StockUnit>) -> ReportPage {
        let t = &chrome.t;
        let print = &report.print;
        let parts = print
            .parts
            .iter()
            .enumerate()
            .map(|(i, p)| PartLine {
                number: i + 1,
                printer: p.printer.clone(),
                plate: p.build_plate.clone(),
                hotends: p
                    .hotends
                    .iter()
                    .map(|h| h.name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
                time: clock(p.duration_seconds),
                electricity: print
                    .outcome
                    .iter()
                    .flat_map(|o| o.electricity.iter())
                    .find(|e| e.part_id == p.id)
                    .map(|e| print_detail::electricity_text(t, e))
                    .unwrap_or_default(),
                total: t.money_str(&p.total_cost),
            })
            .collect();
        let outcome = print.outcome.as_ref().map(|o| {
            (
                t.t(&format!("outcome.{}", wire(&o.status))).to_string(),
                clock(u64::from(o.duration_seconds)),
                print
                    .actual_cost
                    .as_deref()
                    .map(|c| t.money_str(c))
                    .unwrap_or_default(),
            )
        });
        let usages = print_detail::usage_rows(t, print, units);
        ReportPage {
            has_spools: usages.iter().any(|u| !u.spool.is_empty()),
            usages,
            costs: Costs::of(t, print),
            parts,
            completed: t.date(print.completed_at.as_deref().unwrap_or(&print.updated_at)),
            generated: t.date(&report.generated_at),
            outcome,
            failure_reason: print
                .outcome
                .as_ref()
                .and_then(|o| o.failure_reason.clone())
                .unwrap_or_default(),
            financials: print_detail::financials(t, print),
            report,
            chrome,
        }
    }
}
