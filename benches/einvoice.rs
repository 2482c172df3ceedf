//! An e-invoice's documents: how long writing the XRechnung 3.0 CII of a 20-line invoice takes
//! (`actors::einvoice::cii::xml`, totals included), and of a 200-line one; and its ZUGFeRD /
//! Factur-X PDF/A-3 (`web::sheets::invoice_pdf`: the EN 16931 XML, the sheet in German, the
//! PDF drawn and the XML embedded), with the 50th and 99th percentile of 400 single renders
//! after criterion's medians (issue 47's bar: issuing with its PDF under 200 ms for 20 lines).
//!
//!     cargo bench --bench einvoice
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::einvoice::cii::Guideline;
use actors::einvoice::totals;
use actors::einvoice::{Adjustment, Document, Kind, Line, Vat, cii};
use actors::invoices::PrintedDocument;
use criterion::{Criterion, criterion_group};
use jiff::civil::date;
use rust_decimal::Decimal;
use std::time::{Duration, Instant};
use storage::Timestamp;
use storage::records::{InvoiceParty, PostalAddress};
use web::sheets::invoice_pdf;

fn party(name: &str, vat_id: &str) -> InvoiceParty {
    InvoiceParty {
        name: name.into(),
        address: PostalAddress {
            street: "Hauptstraße 1".into(),
            postal_code: "10115".into(),
            city: "Berlin".into(),
            country: "DE".into(),
        },
        vat_id: Some(vat_id.into()),
        tax_number: None,
        email: "rechnung@example.com".into(),
        phone: Some("+49 30 1234567".into()),
    }
}

fn invoice(lines: usize) -> Document {
    Document {
        kind: Kind::Invoice,
        number: "2026-0001".into(),
        issued_on: date(2026, 11, 27),
        due_on: Some(date(2026, 12, 11)),
        payment_terms: Some("Zahlbar innerhalb von 14 Tagen ohne Abzug.".into()),
        currency: "EUR".into(),
        buyer_reference: "991-12345-67".into(),
        preceding: None,
        note: None,
        seller: party("Musterdruck GmbH", "DE123456789"),
        buyer: party("Verein e. V.", "DE987654321"),
        account: ("DE89370400440532013000".into(), Some("COBADEFFXXX".into())),
        lines: (0..lines)
            .map(|i| Line {
                name: format!("Teil {i}"),
                quantity: Decimal::from(1 + i % 7),
                unit: "C62",
                unit_price: Decimal::new(1234 + i as i64, 2),
                vat: Vat::Standard(Decimal::from(if i % 3 == 0 { 7 } else { 19 })),
            })
            .collect(),
        adjustments: vec![Adjustment {
            charge: false,
            amount: Decimal::from(5),
            reason: "Rabatt".into(),
            vat: Vat::Standard(Decimal::from(19)),
        }],
        prepaid: Decimal::ZERO,
    }
}

fn xml(c: &mut Criterion) {
    for lines in [20, 200] {
        let document = invoice(lines);
        c.bench_function(&format!("xrechnung xml, {lines} lines"), |b| {
            b.iter(|| cii::xml(&document, Guideline::XRechnung).unwrap())
        });
    }
}

fn printed(lines: usize) -> PrintedDocument {
    let document = invoice(lines);
    PrintedDocument {
        totals: totals::of(&document).unwrap(),
        xml: cii::xml(&document, Guideline::En16931).unwrap(),
        language: "de-DE".into(),
        at: Timestamp(1_795_000_000),
        document,
    }
}

/// The PDF from the issued record: the XML, the sheet, the drawing.
fn pdf_of(lines: usize) -> Vec<u8> {
    let printed = printed(lines);
    invoice_pdf(&printed, jiff::tz::TimeZone::UTC).unwrap()
}

fn pdf(c: &mut Criterion) {
    for lines in [20, 200] {
        c.bench_function(&format!("zugferd pdf, {lines} lines"), |b| {
            b.iter(|| pdf_of(lines))
        });
    }
}

/// p50 and p99 of `runs` single renders of a `lines`-line invoice's PDF.
fn percentiles(lines: usize, runs: usize) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(pdf_of(lines));
            t.elapsed()
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((runs as f64 * q) as usize).min(runs - 1)];
    println!(
        "zugferd pdf, {lines} lines, {runs} renders: p50 {:.2?}, p99 {:.2?}, max {:.2?}, {} bytes",
        at(0.50),
        at(0.99),
        times[runs - 1],
        pdf_of(lines).len()
    );
}

criterion_group!(benches, xml, pdf);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    percentiles(20, 400);
    percentiles(200, 100);
}
