//! ZUGFeRD / Factur-X PDFs judged by the official rules (issue 47): the seeded mix of
//! documents (`tests/shared/einvoice_mix.rs`) drawn as PDF/A-3 with their EN 16931 XML embedded
//! (`web::sheets::invoice_pdf`), in German and in English, and passed to
//! `../shared/einvoice/validate --profile en16931` in one batch: every PDF carries its markers
//! (PDF/A part 3, `AFRelationship`, the `fx:` metadata naming `factur-x.xml`) and its XML
//! passes the CII schema and CEN's rules. Each embedded XML is the one the PDF was given.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "shared/einvoice_mix.rs"]
mod mix;

use actors::einvoice::cii::{self, Guideline};
use actors::einvoice::totals;
use actors::invoices::PrintedDocument;
use jiff::tz::TimeZone;
use std::process::Command;
use storage::Timestamp;
use web::sheets::invoice_pdf;

/// How many documents of the mix become PDFs: all of them (every fifth is a credit note, every tenth has
/// 200 lines and runs over several pages).
const COUNT: u64 = 1000;

fn printed(n: u64) -> PrintedDocument {
    let document = mix::document(n);
    PrintedDocument {
        totals: totals::of(&document).unwrap(),
        xml: cii::xml(&document, Guideline::En16931).unwrap(),
        language: if n.is_multiple_of(2) {
            "de-DE"
        } else {
            "en-US"
        }
        .into(),
        at: Timestamp(1_795_000_000 + n as i64),
        document,
    }
}

#[test]
fn the_pdfs_of_the_mix_carry_their_xml_and_pass_the_official_rules() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..COUNT {
        let printed = printed(n);
        let pdf = invoice_pdf(&printed, TimeZone::UTC).unwrap();
        let file = dir.path().join(format!("{}.pdf", printed.document.number));
        std::fs::write(&file, &pdf).unwrap();
        if n < 3 {
            let out = Command::new("qpdf")
                .arg("--show-attachment=factur-x.xml")
                .arg(&file)
                .output()
                .expect("qpdf runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), printed.xml);
        }
    }
    let out = Command::new("../shared/einvoice/validate")
        .args(["--profile", "en16931", "--quiet"])
        .arg(dir.path())
        .output()
        .expect("the judge ../shared/einvoice/validate runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert_ne!(out.status.code(), Some(2), "the judge cannot run: {report}");
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains(&format!("{COUNT} files: {COUNT} accepted")),
        "{report}"
    );
}
