//! `GET /prints/export.csv`: the prints list's DONE prints as a spreadsheet reads them in the
//! owner's language. Headers and outcomes in words, completion times on the shop's clock
//! (`28.11.2026 14:05`), print times as `h:mm`, money in cents with the language's decimal mark,
//! `;` between cells in German (`,` in English), one printer name per part joined, no JSON.
//! The machine-readable export (`GET /api/prints/export`: UTC, seconds, exact decimals, stable
//! English names) stays as it is, linked beside it.
//!
//! The filters are the prints list's (the API's list parameters); the rows and the 5,000-print
//! limit are the API export's ([`actors::prints::Export`]).

use super::format::clock;
use super::i18n::{Lang, Tr};
use super::page::{Ctx, Page};
use crate::api::prints::export::{self, Named, Separator};
use crate::api::prints::filters;
use crate::error::ApiError;
use crate::wire::ts;
use actix_web::HttpResponse;
use actors::prints::{self, Export, ExportData, Outcome};
use rust_decimal::{Decimal, RoundingStrategy};
use storage::Timestamp;
use storage::records::Print;

/// The columns' label keys, in order.
const COLUMNS: [&str; 15] = [
    "prints.name",
    "field.customer",
    "prints.printer",
    "field.series",
    "sheet.completed",
    "prints.quantity",
    "sheet.printTime",
    "sheet.plannedCost",
    "prints.outcome",
    "detail.actualCost",
    "financials.salesValue",
    "financials.realizedRevenue",
    "financials.realizedMargin",
    "outcome.failureReason",
    "sheet.spools",
];

/// The separator a spreadsheet in `lang` reads as columns with that language's decimal mark.
fn separator(lang: Lang) -> Separator {
    match lang {
        Lang::DeDe => Separator::Semicolon,
        Lang::EnUs => Separator::Comma,
    }
}

/// An amount in cents (two decimals, half away from zero) with `lang`'s decimal mark and no
/// grouping, as a spreadsheet takes it for a number: `1234,50`.
fn cents(lang: Lang, value: Decimal) -> String {
    let rounded = value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    let text = format!("{rounded:.2}");
    match lang {
        Lang::DeDe => text.replace('.', ","),
        Lang::EnUs => text,
    }
}

/// The row of `print`, worded in `t`'s language.
fn row(t: &Tr, print: &Print, names: &ExportData) -> Vec<String> {
    let lang = t.lang;
    let money = |value: Option<Decimal>| value.map(|v| cents(lang, v)).unwrap_or_default();
    let named = Named::of(print, names);
    let current = print.outcome.as_ref().and_then(|o| o.current());
    let outcome = current.map_or(Outcome::Pending, |r| Outcome::recorded(r.status));
    let outcome = format!("outcome.{}", outcome.name());
    let realized = prints::realized(print);
    let seconds = current.map_or_else(
        || {
            print
                .parts
                .iter()
                .flat_map(|p| p.hotends.iter())
                .map(|h| u64::from(h.duration_seconds))
                .sum()
        },
        |r| u64::from(r.duration_seconds),
    );
    vec![
        export::text(&print.name),
        export::text(&named.customer),
        export::text(&named.printers.join(", ")),
        export::text(&named.series),
        print
            .completed_at
            .map(|at| t.sheet_datetime(&ts(at)))
            .unwrap_or_default(),
        print.quantity.to_string(),
        clock(seconds),
        cents(lang, print.costing.total),
        t.t(&outcome).to_string(),
        money(realized.actual_cost),
        money(print.sales_value),
        money(realized.revenue),
        money(realized.margin),
        export::text(
            current
                .and_then(|r| r.failure_reason.as_deref())
                .unwrap_or_default(),
        ),
        export::text(&named.spools.join(", ")),
    ]
}

/// `GET /prints/export.csv?<the prints list's filters>`: the spreadsheet of the DONE prints
/// they match (see the module). Errors: the list's refusal of a filter (422), more than 5,000
/// prints (422 `EXPORT_TOO_LARGE`), as the error page.
pub async fn export(ctx: Ctx) -> Page {
    let (_, filter) = filters::parse_query(ctx.req.query_string()).map_err(|e| ctx.fail(&e))?;
    let data = ctx.query(Export(filter)).await?;
    let t = &ctx.chrome.t;
    let rows: Vec<Vec<String>> = data.prints.iter().map(|p| row(t, p, &data)).collect();
    let header: Vec<&str> = COLUMNS.iter().map(|key| t.t(key)).collect();
    let body =
        export::write(&header, &rows, separator(t.lang)).map_err(|e: ApiError| ctx.fail(&e))?;
    let today = ctx.state.index.date_of(Timestamp::now());
    let file = format!(
        "attachment; filename=\"{}-{today}.csv\"",
        t.t("sheet.fileName")
    );
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Content-Disposition", file))
        .body(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_cents_with_the_languages_mark_and_no_grouping() {
        let value: Decimal = "1234.5049999999".parse().unwrap();
        assert_eq!(cents(Lang::DeDe, value), "1234,50");
        assert_eq!(cents(Lang::EnUs, value), "1234.50");
        assert_eq!(cents(Lang::DeDe, "-0.005".parse().unwrap()), "-0,01");
    }
}
