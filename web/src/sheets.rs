//! The words of the appliance's PDF documents: an issued invoice or credit note as a
//! [`Sheet`] in its own language (de-DE or en-US, fixed when it was issued), its money in its
//! currency, then drawn as a ZUGFeRD 2.3 / Factur-X 1.07 PDF/A-3 with its CII XML embedded
//! (`actors::pdf`); a sent quote the same way, as a PDF/A-3 of its own. The layout is
//! `actors::pdf::layout`'s; the words are the locale catalogue's (`invoices.pdf.*`,
//! `quotes.*`).

use crate::error::{ApiError, Code};
use crate::ui::i18n::{Lang, Tr};
use crate::wire::{self, Vat as VatName};
use actix_web::HttpResponse;
use actix_web::web::block;
use actors::einvoice::totals::Totals;
use actors::einvoice::{Document, Kind, Vat};
use actors::invoices::PrintedDocument;
use actors::pdf::{Align, Attachment, Column, PdfError, Sheet, Table, render};
use actors::quotes::QuoteView;
use jiff::tz::TimeZone;
use storage::records::{Company, PostalAddress};

/// The Factur-X profile of the embedded XML (its BT-24 is EN 16931's own identifier).
const CONFORMANCE: &str = "EN 16931";

/// `text` with each `{name}` of `values` filled in.
fn fill(text: &str, values: &[(&str, &str)]) -> String {
    values.iter().fold(text.to_string(), |text, (name, value)| {
        text.replace(&format!("{{{name}}}"), value)
    })
}

/// An address's lines: street, postal code and city, country code.
fn address(a: &PostalAddress) -> [String; 3] {
    [
        a.street.clone(),
        format!("{} {}", a.postal_code, a.city),
        a.country.clone(),
    ]
}

/// The wire name of `vat`'s category (`REVERSE_CHARGE`), as the catalogue's keys end.
fn category(vat: Vat) -> String {
    wire::name(&VatName::from(vat.category()))
}

/// A VAT rate as a table cell shows it (`19 %`, `0 %`); why a category charges none is said
/// in the breakdown and the notes.
fn vat(t: &Tr, vat: Vat) -> String {
    format!("{} %", t.exact(vat.rate()))
}

/// A VAT category and rate in words for the breakdown: the rate, and for a category without
/// VAT its name (`0 % (reverse charge)`).
fn vat_words(t: &Tr, v: Vat) -> String {
    match v {
        Vat::Standard(_) => vat(t, v),
        other => format!(
            "{} ({})",
            vat(t, other),
            t.t(&format!("invoices.vat.{}", category(other)))
        ),
    }
}

/// The table's columns: item, description, quantity, unit price, the VAT of each line when
/// `vat` (an invoice's lines may differ; a quote has one rate), net amount.
fn columns(t: &Tr, vat: bool) -> Vec<Column> {
    let column = |key: &str, share: f32, align| Column {
        heading: t.t(key).into(),
        share,
        align,
    };
    let mut columns = vec![
        column("invoices.pdf.position", 0.55, Align::Left),
        column(
            "quotes.description",
            if vat { 4.2 } else { 5.2 },
            Align::Left,
        ),
        column("quotes.quantity", 0.9, Align::Right),
        column("quotes.unitPrice", 1.4, Align::Right),
        column("quotes.net", 1.45, Align::Right),
    ];
    if vat {
        columns.insert(4, column("quotes.vat", 1.0, Align::Right));
    }
    columns
}

fn table(t: &Tr, d: &Document, totals: &Totals) -> Table {
    Table {
        columns: columns(t, true),
        rows: d
            .lines
            .iter()
            .zip(&totals.lines)
            .enumerate()
            .map(|(i, (line, net))| {
                let unit = match line.unit {
                    "HUR" => format!(" {}", t.t("invoices.pdf.hours")),
                    _ => String::new(),
                };
                vec![
                    (i + 1).to_string(),
                    line.name.clone(),
                    format!("{}{unit}", t.exact(line.quantity)),
                    t.money(line.unit_price),
                    vat(t, line.vat),
                    t.money(net),
                ]
            })
            .collect(),
    }
}

fn totals(t: &Tr, d: &Document, totals: &Totals) -> Vec<(String, String, bool)> {
    let mut rows = vec![(
        t.t("invoices.pdf.lineTotal").into(),
        t.money(totals.line_total),
        false,
    )];
    for a in &d.adjustments {
        let (key, amount) = match a.charge {
            true => ("invoices.pdf.charge", t.money(a.amount)),
            false => ("invoices.pdf.allowance", t.money(-a.amount)),
        };
        let label = format!("{}: {} ({})", t.t(key), a.reason, vat(t, a.vat));
        rows.push((label, amount, false));
    }
    if !d.adjustments.is_empty() {
        let basis = t.money(totals.tax_basis);
        rows.push((t.t("invoices.pdf.taxBasis").into(), basis, false));
    }
    for b in &totals.breakdown {
        let label = fill(
            t.t("invoices.pdf.vatOf"),
            &[("rate", &vat_words(t, b.vat)), ("basis", &t.money(b.basis))],
        );
        rows.push((label, t.money(b.amount), false));
    }
    rows.push((
        t.t("invoices.pdf.grandTotal").into(),
        t.money(totals.grand_total),
        true,
    ));
    if !d.prepaid.is_zero() {
        rows.push((
            t.t("invoices.pdf.prepaid").into(),
            t.money(-d.prepaid),
            false,
        ));
        rows.push((t.t("invoices.pdf.due").into(), t.money(totals.due), true));
    }
    rows
}

/// The exemption notes (one per category without VAT), the credit note's reference, the
/// payment request and terms, and the invoice's own note.
fn notes(t: &Tr, d: &Document, totals: &Totals) -> Vec<String> {
    let mut notes = Vec::new();
    let mut said = Vec::new();
    for b in &totals.breakdown {
        let category = category(b.vat);
        if b.vat.exemption().is_some() && !said.contains(&category) {
            notes.push(t.t(&format!("invoices.pdf.note.{category}")).to_string());
            said.push(category);
        }
    }
    if let Some((number, on)) = &d.preceding {
        let on = t.date(&on.to_string());
        notes.push(fill(
            t.t("invoices.pdf.corrects"),
            &[("number", number), ("date", &on)],
        ));
    }
    let amount = t.money(totals.due);
    match d.kind {
        Kind::Invoice => {
            let due = d.due_on.map(|d| t.date(&d.to_string())).unwrap_or_default();
            notes.push(fill(
                t.t("invoices.pdf.transfer"),
                &[
                    ("amount", &amount),
                    ("due", &due),
                    ("iban", &d.account.0),
                    ("number", &d.number),
                ],
            ));
        }
        Kind::CreditNote => notes.push(fill(t.t("invoices.pdf.refund"), &[("amount", &amount)])),
    }
    notes.extend(d.payment_terms.clone());
    notes.extend(d.note.clone());
    notes
}

fn facts(t: &Tr, d: &Document) -> Vec<(String, String)> {
    let mut facts = vec![
        (t.t("invoices.pdf.number").to_string(), d.number.clone()),
        (
            t.t("invoices.issuedOn").to_string(),
            t.date(&d.issued_on.to_string()),
        ),
    ];
    if let (Kind::Invoice, Some(due)) = (d.kind, d.due_on) {
        facts.push((t.t("invoices.dueOn").into(), t.date(&due.to_string())));
    }
    if d.buyer_reference != d.number {
        let reference = d.buyer_reference.clone();
        facts.push((t.t("invoices.pdf.buyerReference").into(), reference));
    }
    if let Some(vat_id) = &d.buyer.vat_id {
        facts.push((t.t("invoices.pdf.buyerVatId").into(), vat_id.clone()));
    }
    facts
}

/// The seller as a document's head and foot name it.
struct Seller<'a> {
    name: &'a str,
    address: Option<&'a PostalAddress>,
    email: Option<&'a str>,
    phone: Option<&'a str>,
    vat_id: Option<&'a str>,
    tax_number: Option<&'a str>,
    iban: Option<&'a str>,
    bic: Option<&'a str>,
}

impl<'a> Seller<'a> {
    /// The seller an issued invoice froze.
    fn of_document(d: &'a Document) -> Seller<'a> {
        let s = &d.seller;
        Seller {
            name: &s.name,
            address: Some(&s.address),
            email: Some(&s.email),
            phone: s.phone.as_deref(),
            vat_id: s.vat_id.as_deref(),
            tax_number: s.tax_number.as_deref(),
            iban: Some(&d.account.0),
            bic: d.account.1.as_deref(),
        }
    }

    /// The seller as Settings › Company names it now.
    fn of_company(c: &'a Company) -> Seller<'a> {
        Seller {
            name: &c.name,
            address: c.address.as_ref(),
            email: c.email.as_deref(),
            phone: c.phone.as_deref(),
            vat_id: c.vat_id.as_deref(),
            tax_number: c.tax_number.as_deref(),
            iban: c.iban.as_deref(),
            bic: c.bic.as_deref(),
        }
    }

    /// The head: the name, then the address lines.
    fn head(&self) -> Vec<String> {
        let mut lines = vec![self.name.to_string()];
        lines.extend(self.address.map(address).into_iter().flatten());
        lines
    }

    /// The one-line return address over the buyer's.
    fn sender(&self) -> String {
        match self.address.map(address) {
            Some([street, city, _]) => format!("{} · {street} · {city}", self.name),
            None => self.name.to_string(),
        }
    }

    /// The foot of every page: address, contacts, bank and tax numbers.
    fn footer(&self, t: &Tr) -> Vec<String> {
        let join = |parts: Vec<String>| {
            parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" · ")
        };
        let mut first = vec![self.name.to_string()];
        first.extend(self.address.map(address).into_iter().flatten());
        let owned = |v: Option<&str>| v.unwrap_or_default().to_string();
        let labelled =
            |label: &str, v: Option<&str>| v.map(|v| format!("{label} {v}")).unwrap_or_default();
        vec![
            join(first),
            join(vec![owned(self.email), owned(self.phone)]),
            join(vec![
                labelled("IBAN", self.iban),
                labelled("BIC", self.bic),
                labelled(t.t("field.vatId"), self.vat_id),
                labelled(t.t("company.taxNumber"), self.tax_number),
            ]),
        ]
    }
}

/// The sheet of `printed` in its language, times in `zone`.
pub fn invoice_sheet(printed: &PrintedDocument, zone: TimeZone) -> Sheet {
    let d = &printed.document;
    let t = Tr::new(Lang::of(&printed.language), &d.currency, zone);
    let kind = match d.kind {
        Kind::Invoice => "INVOICE",
        Kind::CreditNote => "CREDIT_NOTE",
    };
    let seller = Seller::of_document(d);
    let mut buyer = vec![d.buyer.name.clone()];
    buyer.extend(address(&d.buyer.address));
    Sheet {
        language: printed.language.clone(),
        title: format!("{} {}", t.t(&format!("invoices.kind.{kind}")), d.number),
        seller: seller.head(),
        sender: seller.sender(),
        buyer,
        facts: facts(&t, d),
        table: table(&t, d, &printed.totals),
        totals: totals(&t, d, &printed.totals),
        notes: notes(&t, d, &printed.totals),
        footer: seller.footer(&t),
        page_label: t.t("invoices.pdf.page").into(),
        created: jiff::Timestamp::from_second(printed.at.0).unwrap_or_default(),
    }
}

/// `make`'s PDF, made on the blocking pool, as a download named `{number}.pdf`.
/// Errors: 500 `INTERNAL` when it cannot be made (logged: a bug, never the caller's input).
pub async fn download<F>(number: &str, make: F) -> Result<HttpResponse, ApiError>
where
    F: FnOnce() -> Result<Vec<u8>, PdfError> + Send + 'static,
{
    let pdf = block(make)
        .await
        .map_err(|_| ApiError::new(Code::Internal))?
        .map_err(|e| {
            tracing::error!(error = %e, number, "a PDF");
            ApiError::new(Code::Internal)
        })?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{number}.pdf\""),
        ))
        .body(pdf))
}

/// The ZUGFeRD / Factur-X PDF of `printed`: its sheet with its XML embedded.
/// Errors: [`PdfError`] (a bug, never the invoice's content).
pub fn invoice_pdf(printed: &PrintedDocument, zone: TimeZone) -> Result<Vec<u8>, PdfError> {
    let attachment = Attachment {
        xml: printed.xml.clone().into_bytes(),
        conformance: CONFORMANCE,
    };
    render(&invoice_sheet(printed, zone), Some(&attachment))
}

/// The sheet of the sent quote `view` in its language (the customer's, else the company's),
/// the seller as Settings › Company names it, times in `zone`. `None` for a DRAFT (no number,
/// no frozen offer).
pub fn quote_sheet(view: &QuoteView, company: &Company, zone: TimeZone) -> Option<Sheet> {
    let quote = &view.quote;
    let (number, offer, sent) = (
        quote.number.as_ref()?,
        quote.offer.as_ref()?,
        quote.sent_at?,
    );
    let t = Tr::new(Lang::of(&view.language), &view.currency, zone);
    let seller = Seller::of_company(company);
    let mut buyer = vec![view.customer.name.clone()];
    buyer.extend(view.customer.billing.address.iter().flat_map(address));
    let sent_at = jiff::Timestamp::from_second(sent.0).unwrap_or_default();
    let mut facts = vec![
        (t.t("quotes.number").to_string(), number.clone()),
        (t.t("quotes.date").to_string(), t.date(&sent_at.to_string())),
        (
            t.t("quotes.validUntil").to_string(),
            t.date(&quote.valid_until),
        ),
    ];
    if let Some(vat_id) = &view.customer.billing.vat_id {
        facts.push((t.t("invoices.pdf.buyerVatId").into(), vat_id.clone()));
    }
    let vat = format!("{} %", t.exact(offer.vat_percent));
    let mut notes = Vec::new();
    if company.small_business {
        notes.push(t.t("quotes.smallBusiness").to_string());
    }
    notes.extend(quote.note.clone());
    notes.push(t.t("quotes.closing").to_string());
    Some(Sheet {
        language: view.language.clone(),
        title: format!("{} {number}", t.t("quotes.title")),
        seller: seller.head(),
        sender: seller.sender(),
        buyer,
        facts,
        table: Table {
            columns: columns(&t, false),
            rows: offer
                .lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    vec![
                        (i + 1).to_string(),
                        l.description.clone(),
                        l.quantity.to_string(),
                        t.money(l.unit_price),
                        t.money(l.net),
                    ]
                })
                .collect(),
        },
        totals: vec![
            (t.t("quotes.totalNet").into(), t.money(offer.net), false),
            (
                fill(
                    t.t("invoices.pdf.vatOf"),
                    &[("rate", &vat), ("basis", &t.money(offer.net))],
                ),
                t.money(offer.vat),
                false,
            ),
            (t.t("quotes.gross").into(), t.money(offer.gross), true),
        ],
        notes,
        footer: seller.footer(&t),
        page_label: t.t("invoices.pdf.page").into(),
        created: sent_at,
    })
}
