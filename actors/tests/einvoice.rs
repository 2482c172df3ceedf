//! Invoices judged by the official rules (issue 47): the seeded mix of 1,000 documents
//! (`tests/shared/einvoice_mix.rs`: German B2B at 19 % and 7 %, private buyers, a § 19 UStG
//! small business, reverse charge to Austria and France, export to Switzerland, zero-rated
//! lines, allowances and charges, credit notes naming their invoice, 1 to 200 lines) and 200
//! random documents of a property test, written as XRechnung 3.0 CII and passed to
//! `../shared/einvoice/validate` in one batch each: every one accepted with 0 errors. And the
//! judge can fail: one line's amount changed is rejected with BR-CO-10.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::einvoice::cii::Guideline;
use actors::einvoice::{cii, totals};
use rust_decimal::Decimal;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../tests/shared/einvoice_mix.rs"]
mod mix;

use actors::einvoice::{Adjustment, Document, Line, Vat};
use mix::document;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn judge() -> PathBuf {
    let judge = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/einvoice/validate");
    assert!(
        judge.exists(),
        "the judge {} is missing: shared/ lies beside the project",
        judge.display()
    );
    judge
}

/// Runs the judge on `dir` (`quiet`: the verdicts only); (accepted, its report).
fn validate(dir: &Path, quiet: bool) -> (bool, String) {
    let out = Command::new(judge())
        .args(["--profile", "xrechnung"])
        .args(quiet.then_some("--quiet"))
        .arg(dir)
        .output()
        .expect("validate runs");
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(2), "the judge cannot run: {report}");
    (out.status.success(), report)
}

#[test]
fn a_seeded_mix_of_invoices_and_credit_notes_passes_the_official_rules() {
    let dir = tempfile::tempdir().unwrap();
    let count = 1000;
    let mut kinds = std::collections::BTreeSet::new();
    for n in 0..count {
        let document = document(n);
        let totals = totals::of(&document).unwrap();
        // The totals add up as BR-CO-10 … BR-CO-16 ask (the judge checks them again).
        assert_eq!(totals.line_total, totals.lines.iter().sum::<Decimal>());
        assert_eq!(totals.grand_total, totals.tax_basis + totals.tax);
        for line in &document.lines {
            kinds.insert(line.vat.code());
        }
        let xml = cii::xml(&document, Guideline::XRechnung).unwrap();
        std::fs::write(dir.path().join(format!("{}.xml", document.number)), xml).unwrap();
    }
    assert_eq!(kinds.len(), 5, "every VAT category of the mix: {kinds:?}");
    let (accepted, report) = validate(dir.path(), true);
    assert!(accepted, "{report}");
    assert!(
        report.contains(&format!("{count} files: {count} accepted")),
        "{report}"
    );
}

#[test]
fn the_judge_rejects_a_line_amount_changed_with_br_co_10() {
    let dir = tempfile::tempdir().unwrap();
    let document = document(2);
    let xml = cii::xml(&document, Guideline::XRechnung).unwrap();
    let totals = totals::of(&document).unwrap();
    let first = format!(
        "<ram:LineTotalAmount>{:.2}</ram:LineTotalAmount>",
        totals.lines[0]
    );
    let changed = format!(
        "<ram:LineTotalAmount>{:.2}</ram:LineTotalAmount>",
        totals.lines[0] + Decimal::new(1, 2)
    );
    assert!(xml.contains(&first), "{xml}");
    std::fs::write(
        dir.path().join("changed.xml"),
        xml.replacen(&first, &changed, 1),
    )
    .unwrap();
    let (accepted, report) = validate(dir.path(), false);
    assert!(!accepted, "{report}");
    assert!(report.contains("BR-CO-10"), "{report}");
}

/// A random document of one of the mix's situations (its seller and buyer, so the VAT category
/// is the one they call for), with 1 to 40 random lines (pieces or hours, prices to 4
/// decimals), up to two allowances or charges no larger than a quarter of the lines, a credit
/// note now and then.
fn random_document() -> impl Strategy<Value = Document> {
    let line = (
        0..6usize,
        1..=4000i64,
        0..=2u32,
        100..=4_000_000i64,
        0..=4u32,
        any::<bool>(),
        0..3u8,
    );
    (
        0..1000u64,
        prop::collection::vec(line, 1..=40),
        prop::collection::vec((any::<bool>(), 1..=2500i64), 0..=2),
    )
        .prop_map(|(n, lines, adjustments)| {
            let mut document = document(n);
            let vat = |pick: u8| match document.lines[0].vat {
                Vat::Standard(_) | Vat::Zero => match pick {
                    0 => Vat::Standard(Decimal::from(19)),
                    1 => Vat::Standard(Decimal::from(7)),
                    _ => Vat::Zero,
                },
                other => other,
            };
            let lines: Vec<Line> = lines
                .into_iter()
                .map(|(name, q, q_scale, price, p_scale, hours, pick)| Line {
                    name: [
                        "Teil",
                        "Stütze <A&B>",
                        "\"Pro\" Gehäuse",
                        "Nachbearbeitung",
                        "Versand",
                        "Ersatz",
                    ][name]
                        .into(),
                    quantity: Decimal::new(q, q_scale),
                    unit: if hours { "HUR" } else { "C62" },
                    unit_price: Decimal::new(price, p_scale),
                    vat: vat(pick),
                })
                .collect();
            let lines_total: Decimal = lines
                .iter()
                .map(|l| totals::cents(l.quantity * l.unit_price))
                .sum();
            let cap = (lines_total / Decimal::from(4)).round_dp(2);
            document.adjustments = adjustments
                .into_iter()
                .map(|(charge, cents)| Adjustment {
                    charge,
                    amount: Decimal::new(cents, 2).min(cap).max(Decimal::new(1, 2)),
                    reason: if charge { "Versand" } else { "Rabatt" }.into(),
                    vat: lines[0].vat,
                })
                .collect();
            document.lines = lines;
            document.prepaid = Decimal::ZERO;
            document
        })
}

#[test]
fn random_documents_add_up_and_pass_the_official_rules() {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = random_document();
    let dir = tempfile::tempdir().unwrap();
    let count = 200;
    for i in 0..count {
        let mut document = strategy.new_tree(&mut runner).unwrap().current();
        document.number = format!("P-{i:04}");
        let t = totals::of(&document).unwrap();
        // BR-CO-10, 13, 14, 15 and the VAT of each rate on the sum of its lines (BR-S-09).
        assert_eq!(t.line_total, t.lines.iter().sum::<Decimal>());
        assert_eq!(t.tax_basis, t.line_total - t.allowances + t.charges);
        assert_eq!(t.tax, t.breakdown.iter().map(|b| b.amount).sum::<Decimal>());
        assert_eq!(t.grand_total, t.tax_basis + t.tax);
        for b in &t.breakdown {
            assert_eq!(
                b.amount,
                totals::cents(b.basis * b.vat.rate() / Decimal::from(100))
            );
        }
        let xml = cii::xml(&document, Guideline::XRechnung).unwrap();
        std::fs::write(dir.path().join(format!("P-{i:04}.xml")), xml).unwrap();
    }
    let (accepted, report) = validate(dir.path(), true);
    assert!(accepted, "{report}");
    assert!(
        report.contains(&format!("{count} files: {count} accepted")),
        "{report}"
    );
}
