//! An e-invoice's XML (`actors::einvoice::cii::xml`, totals included): how long writing the
//! XRechnung 3.0 CII of a 20-line invoice takes, and of a 200-line one (the bar is
//! issuing with its PDF under 200 ms for 20 lines; the PDF comes later).
//!
//!     cargo bench --bench einvoice
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::einvoice::{Adjustment, Document, Kind, Line, Vat, cii};
use criterion::{Criterion, criterion_group, criterion_main};
use jiff::civil::date;
use rust_decimal::Decimal;
use storage::records::{InvoiceParty, PostalAddress};

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
            b.iter(|| cii::xml(&document).unwrap())
        });
    }
}

criterion_group!(benches, xml);
criterion_main!(benches);
