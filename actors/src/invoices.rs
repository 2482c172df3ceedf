//! Invoices and credit notes (issue 47): a customer's DONE prints billed at their sales values
//! (each print's lines spread as a quote's are, [`offer::lines`]), extra lines (shipping) and
//! allowances (a discount), with the VAT the seller and the buyer call for ([`vat_for`]).
//!
//! An invoice is a DRAFT until it is issued: issuing takes the next number of its year's gapless
//! range (`2026-0001`, shared with the credit notes) in the transaction that freezes it with both
//! parties, the dates and the terms ([`Issued`]); from then on it never changes and is never
//! deleted. A wrong invoice is corrected by a credit note (381) that names it (BT-25), made from
//! it and issued the same way. Its XML is XRechnung 3.0 ([`einvoice::cii`]).

use crate::command::{Command, PrintsWriter, Query, Snapshot};
use crate::einvoice::cii::Guideline;
use crate::einvoice::{self, Adjustment, Document, Kind, Line, Vat};
use crate::list::{ListQuery, Page};
use crate::money::Overflow;
use crate::quotes::offer;
use crate::txn::Txn;
use crate::values::{Day, Name, Note, PositiveAmount, note_text};
use crate::{Error, FieldError, Result, numbering, prints, settings};
use jiff::civil::Date;
use rust_decimal::Decimal;
use storage::records::{
    Company, Customer, Invoice, InvoiceAdjustment, InvoiceKind, InvoiceLine, InvoiceParty, Issued,
    Payment, PaymentMethod, Print, PrintStatus, VatCategory,
};
use storage::repo::{self, Tx};
use storage::{Id, Timestamp};

/// The most prints one invoice bills.
pub const MAX_PRINTS: usize = 100;

/// The member states of the European Union (ISO 3166-1 alpha-2), for reverse charge.
const EU: [&str; 27] = [
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT",
    "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
];

/// An extra line (shipping, a setup fee not on a print): one at `amount`, net.
#[derive(Debug, Clone)]
pub struct ExtraInput {
    /// What it is.
    pub name: Name,
    /// Net amount.
    pub amount: PositiveAmount,
}

/// A new invoice's fields.
#[derive(Debug, Clone)]
pub struct InvoiceInput {
    /// The customer billed.
    pub customer_id: Id,
    /// 1 to [`MAX_PRINTS`] DONE prints of the customer with a sales value, on no other invoice.
    pub print_ids: Vec<Id>,
    /// Extra lines.
    pub extras: Vec<ExtraInput>,
    /// Allowances (a discount), each with its reason.
    pub allowances: Vec<ExtraInput>,
    /// Free text.
    pub note: Option<Note>,
}

/// The VAT the seller `company` charges `customer` at the shop's rate `rate`: exempt for a
/// small business (§ 19 UStG); the shop's rate in its own country and for a private buyer in
/// the EU (Z when the rate is 0); reverse charge for a buyer in another EU country with a VAT
/// id; export for a buyer outside the EU.
pub fn vat_for(company: &Company, customer: &Customer, rate: Decimal) -> (VatCategory, Decimal) {
    let seller = company
        .address
        .as_ref()
        .map_or("DE", |a| a.country.as_str());
    let buyer = customer
        .billing
        .address
        .as_ref()
        .map_or(seller, |a| a.country.as_str());
    let standard = match rate.is_zero() {
        true => (VatCategory::Zero, Decimal::ZERO),
        false => (VatCategory::Standard, rate),
    };
    match (company.small_business, buyer == seller, EU.contains(&buyer)) {
        (true, _, _) => (VatCategory::SmallBusiness, Decimal::ZERO),
        (false, true, _) => standard,
        (false, false, true) if customer.billing.vat_id.is_some() => {
            (VatCategory::ReverseCharge, Decimal::ZERO)
        }
        (false, false, true) => standard,
        (false, false, false) => (VatCategory::Export, Decimal::ZERO),
    }
}

/// The invoice `id`. Errors: [`Error::NotFound`].
pub fn get(tx: &impl Tx, id: Id) -> Result<Invoice> {
    repo::get(tx, id)?.ok_or(Error::NotFound)
}

/// The lines of `prints` and the extras, and the allowances, at `vat`.
///
/// Errors: `errors.outOfRange` at `printIds` beyond the money bound.
fn lines_of(
    prints: &[Print],
    input: &InvoiceInput,
    (vat, vat_rate): (VatCategory, Decimal),
) -> Result<(Vec<InvoiceLine>, Vec<InvoiceAdjustment>)> {
    let out_of_range = |_: Overflow| Error::field("printIds", "errors.outOfRange");
    let mut lines = Vec::new();
    for print in prints {
        for l in offer::lines(print)
            .map_err(out_of_range)?
            .unwrap_or_default()
        {
            lines.push(InvoiceLine {
                print_id: Some(print.id),
                name: l.description,
                quantity: Decimal::from(l.quantity),
                unit: "C62".into(),
                unit_price: l.unit_price,
                vat,
                vat_rate,
            });
        }
    }
    for extra in &input.extras {
        lines.push(InvoiceLine {
            print_id: None,
            name: extra.name.get().clone(),
            quantity: Decimal::ONE,
            unit: "C62".into(),
            unit_price: einvoice::totals::cents(*extra.amount.get()),
            vat,
            vat_rate,
        });
    }
    let adjustments = input
        .allowances
        .iter()
        .map(|a| InvoiceAdjustment {
            charge: false,
            amount: einvoice::totals::cents(*a.amount.get()),
            reason: a.name.get().clone(),
            vat,
            vat_rate,
        })
        .collect();
    Ok((lines, adjustments))
}

/// The prints an invoice bills already.
fn invoiced(tx: &impl Tx) -> Result<Vec<Id>> {
    Ok(repo::all::<Invoice>(tx)?
        .into_iter()
        .filter(|i| i.kind == InvoiceKind::Invoice)
        .flat_map(|i| i.print_ids)
        .collect())
}

/// Checks `input`; answers its customer and prints.
///
/// Errors: [`Error::Validation`]: `customerId` `errors.notFound`; `printIds` `errors.tooFew` or
/// `errors.tooMany`; `printIds[i]` `errors.notFound`, `errors.duplicate`,
/// `errors.otherCustomer`, `errors.notDone`, `errors.unpriced`, `errors.invoiced` (on another
/// invoice).
fn check(tx: &impl Tx, input: &InvoiceInput) -> Result<(Customer, Vec<Print>)> {
    let mut faults = Vec::new();
    let customer = repo::get::<Customer>(tx, input.customer_id)?;
    if customer.is_none() {
        faults.push(FieldError::new("customerId", "errors.notFound"));
    }
    match input.print_ids.len() {
        0 => faults.push(FieldError::new("printIds", "errors.tooFew")),
        n if n > MAX_PRINTS => faults.push(FieldError::new("printIds", "errors.tooMany")),
        _ => {}
    }
    let billed = invoiced(tx)?;
    let mut found = Vec::new();
    for (i, id) in input.print_ids.iter().enumerate().take(MAX_PRINTS) {
        let fault = match repo::get::<Print>(tx, *id)? {
            _ if input.print_ids[..i].contains(id) => Some("errors.duplicate"),
            None => Some("errors.notFound"),
            Some(p) if p.customer_id != Some(input.customer_id) => Some("errors.otherCustomer"),
            Some(p) if p.status != PrintStatus::Done => Some("errors.notDone"),
            Some(p) if p.sales_value.is_none() => Some("errors.unpriced"),
            Some(_) if billed.contains(id) => Some("errors.invoiced"),
            Some(p) => {
                found.push(p);
                None
            }
        };
        if let Some(key) = fault {
            faults.push(FieldError::new(format!("printIds[{i}]"), key));
        }
    }
    match (customer, faults.is_empty()) {
        (Some(customer), true) => Ok((customer, found)),
        _ => Err(Error::Validation(faults)),
    }
}

/// Creates a DRAFT invoice. Errors: as [`check`]; `errors.outOfRange` at `extras` (or at
/// `printIds` without extras) when its totals leave the money bound.
pub fn create(txn: &Txn, input: &InvoiceInput, now: Timestamp) -> Result<Invoice> {
    let (customer, prints) = check(txn, input)?;
    let vat = vat_for(
        &repo::company(txn)?,
        &customer,
        repo::pricing(txn)?.vat_percent,
    );
    let (lines, adjustments) = lines_of(&prints, input, vat)?;
    let invoice = Invoice {
        id: Id::new(),
        kind: InvoiceKind::Invoice,
        customer_id: customer.id,
        print_ids: input.print_ids.clone(),
        corrects: None,
        lines,
        adjustments,
        note: note_text(input.note.clone()),
        issued: None,
        payments: Vec::new(),
        archived: false,
        created_at: now,
        updated_at: now,
    };
    // Beyond the money bound with extra lines, they are what to lower.
    if let Err(e) = totals(&invoice) {
        return Err(match input.extras.is_empty() {
            true => e,
            false => Error::field("extras", "errors.outOfRange"),
        });
    }
    repo::put(txn, &invoice)?;
    Ok(invoice)
}

/// The most lines a partial credit note names.
pub const MAX_CREDITED: usize = 200;

/// One line of a partial credit note: which line of the invoice (0-based) and how much of it.
#[derive(Debug, Clone)]
pub struct CreditLineInput {
    /// The invoice's line, 0-based.
    pub line: usize,
    /// How many of it are credited, at most what no other credit note credits yet.
    pub quantity: PositiveAmount,
}

/// What a credit note credits: `None` whatever of the invoice no other credit note credits yet
/// (its lines and its allowances and charges); else these lines only.
#[derive(Debug, Clone, Default)]
pub struct CreditNoteInput {
    /// The lines credited; `None` for the whole rest.
    pub lines: Option<Vec<CreditLineInput>>,
}

/// Whether `a` and `b` are the same line but for its quantity.
fn same_line(a: &InvoiceLine, b: &InvoiceLine) -> bool {
    a.print_id == b.print_id
        && a.name == b.name
        && a.unit == b.unit
        && a.unit_price == b.unit_price
        && a.vat == b.vat
        && a.vat_rate == b.vat_rate
}

/// What of `invoice` no credit note (DRAFT or issued) credits yet: each line's quantity left,
/// and the allowances and charges left. A credit note's line takes from the first lines it
/// matches ([`same_line`]), so two equal lines are told apart.
fn uncredited(tx: &impl Tx, invoice: &Invoice) -> Result<(Vec<Decimal>, Vec<InvoiceAdjustment>)> {
    let mut left: Vec<Decimal> = invoice.lines.iter().map(|l| l.quantity).collect();
    let mut adjustments = invoice.adjustments.clone();
    let notes = repo::all::<Invoice>(tx)?
        .into_iter()
        .filter(|n| n.corrects == Some(invoice.id));
    for note in notes {
        for credited in &note.lines {
            let mut quantity = credited.quantity;
            for (line, rest) in invoice.lines.iter().zip(left.iter_mut()) {
                if quantity > Decimal::ZERO && same_line(line, credited) {
                    let take = quantity.min(*rest);
                    *rest -= take;
                    quantity -= take;
                }
            }
        }
        for a in &note.adjustments {
            if let Some(i) = adjustments.iter().position(|b| b == a) {
                adjustments.remove(i);
            }
        }
    }
    Ok((left, adjustments))
}

/// The lines `input` credits of `invoice`, `left` of each not credited yet.
/// Errors: [`Error::Validation`]: `lines` `errors.tooFew` or `errors.tooMany` (above
/// [`MAX_CREDITED`]); `lines[i].line` `errors.notFound`
/// (no such line) or `errors.duplicate`; `lines[i].quantity` `errors.overCredited` (more than
/// is left of it).
fn credited_lines(
    invoice: &Invoice,
    input: &[CreditLineInput],
    left: &[Decimal],
) -> Result<Vec<InvoiceLine>> {
    let mut faults = Vec::new();
    match input.len() {
        0 => faults.push(FieldError::new("lines", "errors.tooFew")),
        n if n > MAX_CREDITED => faults.push(FieldError::new("lines", "errors.tooMany")),
        _ => {}
    }
    let mut lines = Vec::new();
    for (i, credit) in input.iter().enumerate().take(MAX_CREDITED) {
        let fault = match invoice.lines.get(credit.line) {
            _ if input[..i].iter().any(|c| c.line == credit.line) => {
                Some(("line", "errors.duplicate"))
            }
            None => Some(("line", "errors.notFound")),
            Some(_) if *credit.quantity.get() > left[credit.line] => {
                Some(("quantity", "errors.overCredited"))
            }
            Some(line) => {
                lines.push(InvoiceLine {
                    quantity: *credit.quantity.get(),
                    ..line.clone()
                });
                None
            }
        };
        if let Some((field, key)) = fault {
            faults.push(FieldError::new(format!("lines[{i}].{field}"), key));
        }
    }
    match faults.is_empty() {
        true => Ok(lines),
        false => Err(Error::Validation(faults)),
    }
}

/// A DRAFT credit note (381) of the issued invoice `id`, naming it: of what no other credit
/// note credits yet, the whole rest (`input.lines` `None`: lines, allowances and charges) or
/// the lines `input` names, each at its quantity.
///
/// Errors: [`Error::NotFound`]; [`Error::InvalidState`] unless `id` is an issued invoice with
/// something left to credit; as [`credited_lines`].
pub fn credit_note(txn: &Txn, id: Id, input: &CreditNoteInput, now: Timestamp) -> Result<Invoice> {
    let corrected = get(txn, id)?;
    if corrected.kind != InvoiceKind::Invoice || corrected.issued.is_none() {
        return Err(Error::InvalidState);
    }
    let (left, adjustments) = uncredited(txn, &corrected)?;
    let (lines, adjustments) = match &input.lines {
        Some(credits) => (credited_lines(&corrected, credits, &left)?, Vec::new()),
        None => {
            let lines: Vec<InvoiceLine> = corrected
                .lines
                .iter()
                .zip(&left)
                .filter(|(_, rest)| **rest > Decimal::ZERO)
                .map(|(line, rest)| InvoiceLine {
                    quantity: *rest,
                    ..line.clone()
                })
                .collect();
            if lines.is_empty() {
                return Err(Error::InvalidState);
            }
            (lines, adjustments)
        }
    };
    let note = Invoice {
        id: Id::new(),
        kind: InvoiceKind::CreditNote,
        print_ids: Vec::new(),
        corrects: Some(corrected.id),
        lines,
        adjustments,
        issued: None,
        payments: Vec::new(),
        archived: false,
        created_at: now,
        updated_at: now,
        ..corrected
    };
    repo::put(txn, &note)?;
    Ok(note)
}

/// Deletes a DRAFT. Errors: [`Error::NotFound`]; [`Error::InvoiceIssued`] once issued.
pub fn delete(txn: &Txn, id: Id) -> Result<()> {
    if get(txn, id)?.issued.is_some() {
        return Err(Error::InvoiceIssued);
    }
    repo::remove::<Invoice>(txn, id)?;
    Ok(())
}

/// The seller as Settings › Company names it, or the fields it lacks for an invoice.
fn seller(company: &Company, missing: &mut Vec<&'static str>) -> Option<InvoiceParty> {
    let mut need = |ok: bool, what| {
        if !ok {
            missing.push(what);
        }
    };
    need(!company.name.is_empty(), "company.name");
    need(company.address.is_some(), "company.address");
    need(company.email.is_some(), "company.email");
    need(company.iban.is_some(), "company.iban");
    need(
        company.vat_id.is_some() || company.tax_number.is_some(),
        "company.vatId",
    );
    Some(InvoiceParty {
        name: company.name.clone(),
        address: company.address.clone()?,
        vat_id: company.vat_id.clone(),
        tax_number: company.tax_number.clone(),
        email: company.email.clone()?,
        phone: company.phone.clone(),
    })
}

/// The buyer as the customer's billing details name it, or the fields it lacks.
fn buyer(customer: &Customer, missing: &mut Vec<&'static str>) -> Option<InvoiceParty> {
    let email = customer
        .billing
        .invoice_email
        .clone()
        .or(customer.email.clone());
    if customer.billing.address.is_none() {
        missing.push("customer.address");
    }
    if email.is_none() {
        missing.push("customer.email");
    }
    Some(InvoiceParty {
        name: customer.name.clone(),
        address: customer.billing.address.clone()?,
        vat_id: customer.billing.vat_id.clone(),
        tax_number: None,
        email: email?,
        phone: None,
    })
}

/// Issues the DRAFT `id` on `today`: the next number of its range ([`numbering::next`]), due after the
/// customer's (else the company's) payment terms, both parties and the terms frozen.
///
/// Errors: [`Error::NotFound`]; [`Error::InvoiceIssued`] when it was; [`Error::InvoiceIncomplete`]
/// naming what the company or the customer lacks (a name, address, e-mail, IBAN, VAT id or tax
/// number); `errors.outOfRange` beyond the money bound.
pub fn issue(txn: &Txn, id: Id, today: Date, now: Timestamp) -> Result<Invoice> {
    let mut invoice = get(txn, id)?;
    if invoice.issued.is_some() {
        return Err(Error::InvoiceIssued);
    }
    let company = repo::company(txn)?;
    let customer: Customer =
        repo::get(txn, invoice.customer_id)?.ok_or(Error::Unexpected("an invoice's customer"))?;
    let mut missing = Vec::new();
    let (seller, buyer) = (
        seller(&company, &mut missing),
        buyer(&customer, &mut missing),
    );
    let (Some(seller), Some(buyer), true) = (seller, buyer, missing.is_empty()) else {
        return Err(Error::InvoiceIncomplete(missing.join(", ")));
    };
    let settings = settings::get(txn)?;
    let days = customer
        .billing
        .payment_terms_days
        .unwrap_or(company.payment_terms_days);
    let due_on = today
        .checked_add(jiff::Span::new().days(i64::from(days)))
        .map_err(|_| Error::Unexpected("a due date"))?;
    let preceding = match invoice.corrects {
        Some(corrected) => get(txn, corrected)?.issued.map(|i| (i.number, i.issued_on)),
        None => None,
    };
    let number = numbering::next(txn, invoice.kind, today.year())?;
    invoice.issued = Some(Issued {
        number,
        issued_on: today.to_string(),
        due_on: due_on.to_string(),
        buyer_reference: customer.billing.buyer_reference.clone().unwrap_or_default(),
        seller,
        buyer,
        currency: settings.currency,
        payment_terms: company.payment_terms_text.clone().unwrap_or_default(),
        iban: company.iban.clone().unwrap_or_default(),
        bic: company.bic.clone(),
        language: customer
            .billing
            .language
            .clone()
            .or(company.language.clone())
            .unwrap_or(settings.default_language),
        preceding,
        at: now,
    });
    invoice.updated_at = now;
    totals(&invoice)?;
    repo::put(txn, &invoice)?;
    Ok(invoice)
}

fn day(text: &str) -> Result<Date> {
    text.parse().map_err(|_| Error::Unexpected("a stored date"))
}

/// The EN 16931 document of the issued `invoice` (none while DRAFT). The buyer's reference
/// (BT-10, which XRechnung asks for) is the customer's, else the invoice's number.
pub fn document(invoice: &Invoice) -> Result<Option<Document>> {
    let Some(issued) = &invoice.issued else {
        return Ok(None);
    };
    let preceding = match &issued.preceding {
        Some((number, on)) => Some((number.clone(), day(on)?)),
        None => None,
    };
    let (lines, adjustments) = parts(invoice);
    Ok(Some(Document {
        kind: match invoice.kind {
            InvoiceKind::Invoice => Kind::Invoice,
            InvoiceKind::CreditNote => Kind::CreditNote,
        },
        number: issued.number.clone(),
        issued_on: day(&issued.issued_on)?,
        due_on: Some(day(&issued.due_on)?),
        payment_terms: Some(issued.payment_terms.clone()).filter(|t| !t.is_empty()),
        currency: issued.currency.clone(),
        buyer_reference: Some(issued.buyer_reference.clone())
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| issued.number.clone()),
        preceding,
        note: invoice.note.clone(),
        seller: issued.seller.clone(),
        buyer: issued.buyer.clone(),
        account: (issued.iban.clone(), issued.bic.clone()),
        lines,
        adjustments,
        prepaid: Decimal::ZERO,
    }))
}

/// The EN 16931 lines and allowances of `invoice`.
fn parts(invoice: &Invoice) -> (Vec<Line>, Vec<Adjustment>) {
    let lines = invoice
        .lines
        .iter()
        .map(|l| Line {
            name: l.name.clone(),
            quantity: l.quantity,
            unit: if l.unit == "HUR" { "HUR" } else { "C62" },
            unit_price: l.unit_price,
            vat: Vat::of(l.vat, l.vat_rate),
        })
        .collect();
    let adjustments = invoice
        .adjustments
        .iter()
        .map(|a| Adjustment {
            charge: a.charge,
            amount: a.amount,
            reason: a.reason.clone(),
            vat: Vat::of(a.vat, a.vat_rate),
        })
        .collect();
    (lines, adjustments)
}

/// The totals of `invoice`'s lines and allowances.
/// Errors: `errors.outOfRange` at `printIds` beyond the money bound.
pub fn totals(invoice: &Invoice) -> Result<einvoice::totals::Totals> {
    let (lines, adjustments) = parts(invoice);
    einvoice::totals::sum(&lines, &adjustments, Decimal::ZERO)
        .map_err(|_| Error::field("printIds", "errors.outOfRange"))
}

/// A payment as given.
#[derive(Debug, Clone)]
pub struct PaymentInput {
    /// The day it was paid, today or before.
    pub paid_on: Day,
    /// The amount, at most what is still due.
    pub amount: PositiveAmount,
    /// How it came.
    pub method: PaymentMethod,
    /// Free text.
    pub note: Option<Note>,
}

/// Where an invoice's payments stand on a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settlement {
    /// Not issued yet.
    Draft,
    /// Issued, nothing paid, not due yet.
    Open,
    /// Part of it paid, not due yet.
    PartlyPaid,
    /// Paid in full.
    Paid,
    /// Past its due day and not paid in full.
    Overdue,
}

/// The sum of `invoice`'s payments.
pub fn paid(invoice: &Invoice) -> Decimal {
    invoice.payments.iter().map(|p| p.amount).sum()
}

/// Where `invoice` (of amount due `due`) stands on `today`.
pub fn settlement(invoice: &Invoice, due: Decimal, today: Date) -> Settlement {
    let Some(issued) = &invoice.issued else {
        return Settlement::Draft;
    };
    let paid = paid(invoice);
    let overdue = issued.due_on.parse::<Date>().is_ok_and(|d| d < today);
    match (paid >= due, overdue, paid.is_zero()) {
        (true, _, _) => Settlement::Paid,
        (false, true, _) => Settlement::Overdue,
        (false, false, true) => Settlement::Open,
        (false, false, false) => Settlement::PartlyPaid,
    }
}

/// Records a payment of the issued invoice `id` on `today`; once it is paid in full, its prints
/// are marked paid (the print's paid flag follows its invoice).
///
/// Errors: [`Error::NotFound`]; [`Error::InvalidState`] for a draft or a credit note;
/// [`Error::Validation`]: `paidOn` `errors.inTheFuture`, `amount` `errors.overpaid` (more than
/// is still due).
pub fn record_payment(
    txn: &Txn,
    id: Id,
    input: &PaymentInput,
    today: Date,
    now: Timestamp,
) -> Result<Invoice> {
    let mut invoice = get(txn, id)?;
    if invoice.issued.is_none() || invoice.kind != InvoiceKind::Invoice {
        return Err(Error::InvalidState);
    }
    let mut faults = Vec::new();
    if *input.paid_on.get() > today {
        faults.push(FieldError::new("paidOn", "errors.inTheFuture"));
    }
    let due = totals(&invoice)?.due;
    let amount = einvoice::totals::cents(*input.amount.get());
    let outstanding = due - paid(&invoice);
    if amount > outstanding {
        faults.push(FieldError::new("amount", "errors.overpaid"));
    }
    if !faults.is_empty() {
        return Err(Error::Validation(faults));
    }
    invoice.payments.push(Payment {
        id: Id::new(),
        paid_on: input.paid_on.get().to_string(),
        amount,
        method: input.method,
        note: note_text(input.note.clone()),
        recorded_at: now,
    });
    invoice.updated_at = now;
    repo::put(txn, &invoice)?;
    if amount == outstanding {
        for print in &invoice.print_ids {
            prints::set_paid(txn, *print, true, now)?;
        }
    }
    Ok(invoice)
}

/// An invoice as read: the record, its totals, what is paid and its customer's name.
#[derive(Debug, Clone)]
pub struct InvoiceView {
    /// The record.
    pub invoice: Invoice,
    /// Its totals.
    pub totals: einvoice::totals::Totals,
    /// The sum of its payments.
    pub paid: Decimal,
    /// Its customer's name.
    pub customer: String,
}

/// `invoice` as read.
pub fn view(tx: &impl Tx, invoice: Invoice) -> Result<InvoiceView> {
    let customer: Customer =
        repo::get(tx, invoice.customer_id)?.ok_or(Error::Unexpected("an invoice's customer"))?;
    Ok(InvoiceView {
        totals: totals(&invoice)?,
        paid: paid(&invoice),
        customer: customer.name,
        invoice,
    })
}

/// Invoices and credit notes matching `query` (search covers number and note; `customer`
/// narrows), newest first.
pub fn list(tx: &impl Tx, query: &ListQuery, customer: Option<Id>) -> Result<Page<InvoiceView>> {
    let mut rows: Vec<Invoice> = repo::all::<Invoice>(tx)?
        .into_iter()
        .filter(|i| query.include_archived || !i.archived)
        .filter(|i| customer.is_none_or(|c| i.customer_id == c))
        .filter(|i| {
            let number = i.issued.as_ref().map_or("", |d| d.number.as_str());
            query.matches(&[number, i.note.as_deref().unwrap_or("")])
        })
        .collect();
    rows.sort_by_key(|i| std::cmp::Reverse((i.created_at, i.id)));
    let page = Page::cut(rows, query);
    let mut items = Vec::with_capacity(page.items.len());
    for invoice in page.items {
        items.push(view(tx, invoice)?);
    }
    Ok(Page {
        items,
        total: page.total,
        page: page.page,
        page_size: page.page_size,
    })
}

/// Creates a DRAFT invoice; replies with it. Errors: as [`create`].
#[derive(Debug, Clone)]
pub struct CreateInvoice(pub InvoiceInput);

impl Command for CreateInvoice {
    type Writer = PrintsWriter;
    type Reply = InvoiceView;

    fn apply(&mut self, txn: &Txn) -> Result<InvoiceView> {
        let invoice = create(txn, &self.0, Timestamp::now())?;
        view(txn, invoice)
    }
}

/// Issues a DRAFT on `today` (the shop's time zone); replies with it. Errors: as [`issue`].
#[derive(Debug, Clone, Copy)]
pub struct IssueInvoice {
    /// The invoice or credit note.
    pub id: Id,
    /// Today in the shop's time zone.
    pub today: Date,
}

impl Command for IssueInvoice {
    type Writer = PrintsWriter;
    type Reply = InvoiceView;

    fn apply(&mut self, txn: &Txn) -> Result<InvoiceView> {
        let invoice = issue(txn, self.id, self.today, Timestamp::now())?;
        view(txn, invoice)
    }
}

/// Makes a DRAFT credit note of an issued invoice, whole or in part; replies with it.
/// Errors: as [`credit_note`].
#[derive(Debug, Clone)]
pub struct MakeCreditNote {
    /// The issued invoice.
    pub id: Id,
    /// What it credits.
    pub input: CreditNoteInput,
}

impl Command for MakeCreditNote {
    type Writer = PrintsWriter;
    type Reply = InvoiceView;

    fn apply(&mut self, txn: &Txn) -> Result<InvoiceView> {
        let note = credit_note(txn, self.id, &self.input, Timestamp::now())?;
        view(txn, note)
    }
}

/// Records a payment of an issued invoice; replies with it. Errors: as [`record_payment`].
#[derive(Debug, Clone)]
pub struct RecordPayment {
    /// The invoice.
    pub id: Id,
    /// The payment.
    pub input: PaymentInput,
    /// Today in the shop's time zone.
    pub today: Date,
}

impl Command for RecordPayment {
    type Writer = PrintsWriter;
    type Reply = InvoiceView;

    fn apply(&mut self, txn: &Txn) -> Result<InvoiceView> {
        let invoice = record_payment(txn, self.id, &self.input, self.today, Timestamp::now())?;
        view(txn, invoice)
    }
}

/// Archives or restores an invoice (an archived one is left out of lists, never deleted);
/// replies with it. Errors: [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct ArchiveInvoice {
    /// The invoice.
    pub id: Id,
    /// The new archive state.
    pub archived: bool,
}

impl Command for ArchiveInvoice {
    type Writer = PrintsWriter;
    type Reply = InvoiceView;

    fn apply(&mut self, txn: &Txn) -> Result<InvoiceView> {
        let mut invoice = get(txn, self.id)?;
        invoice.archived = self.archived;
        invoice.updated_at = Timestamp::now();
        repo::put(txn, &invoice)?;
        view(txn, invoice)
    }
}

/// Deletes a DRAFT. Errors: as [`delete`].
#[derive(Debug, Clone, Copy)]
pub struct DeleteInvoice(pub Id);

impl Command for DeleteInvoice {
    type Writer = PrintsWriter;
    type Reply = ();

    fn apply(&mut self, txn: &Txn) -> Result<()> {
        delete(txn, self.0)
    }
}

/// One invoice as read. Errors: [`Error::NotFound`].
#[derive(Debug, Clone, Copy)]
pub struct GetInvoice(pub Id);

impl Query for GetInvoice {
    type Answer = InvoiceView;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<InvoiceView> {
        view(snapshot, get(snapshot, self.0)?)
    }
}

/// Invoices matching a list query, newest first.
#[derive(Debug, Clone)]
pub struct ListInvoices {
    /// Search and page.
    pub query: ListQuery,
    /// Only this customer's.
    pub customer: Option<Id>,
}

impl Query for ListInvoices {
    type Answer = Page<InvoiceView>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Page<InvoiceView>> {
        list(snapshot, &self.query, self.customer)
    }
}

/// The XRechnung 3.0 XML of an issued invoice or credit note: its number and the document.
/// Errors: [`Error::NotFound`]; [`Error::InvalidState`] while DRAFT.
#[derive(Debug, Clone, Copy)]
pub struct InvoiceXml(pub Id);

impl Query for InvoiceXml {
    type Answer = (String, String);

    fn run(self, snapshot: &Snapshot<'_>) -> Result<(String, String)> {
        let invoice = get(snapshot, self.0)?;
        let document = document(&invoice)?.ok_or(Error::InvalidState)?;
        let xml = einvoice::cii::xml(&document, Guideline::XRechnung)
            .map_err(|_| Error::Unexpected("an issued invoice's XML"))?;
        Ok((document.number, xml))
    }
}

/// An issued invoice or credit note as its PDF shows it.
#[derive(Debug, Clone)]
pub struct PrintedDocument {
    /// Its EN 16931 content.
    pub document: Document,
    /// Its totals.
    pub totals: einvoice::totals::Totals,
    /// The language it is written in (`de-DE`, `en-US`).
    pub language: String,
    /// When it was issued.
    pub at: Timestamp,
    /// Its CII XML as the Factur-X EN 16931 profile names it (BT-24 `urn:cen.eu:en16931:2017`),
    /// to embed in the PDF; otherwise the same values as the XRechnung.
    pub xml: String,
}

/// An issued invoice or credit note as its PDF shows it. Errors: [`Error::NotFound`];
/// [`Error::InvalidState`] while a DRAFT.
#[derive(Debug, Clone, Copy)]
pub struct InvoicePdf(pub Id);

impl Query for InvoicePdf {
    type Answer = PrintedDocument;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<PrintedDocument> {
        let invoice = get(snapshot, self.0)?;
        let (Some(document), Some(issued)) = (document(&invoice)?, invoice.issued.as_ref()) else {
            return Err(Error::InvalidState);
        };
        let unexpected = |_| Error::Unexpected("an issued invoice's XML");
        Ok(PrintedDocument {
            totals: einvoice::totals::of(&document).map_err(unexpected)?,
            xml: einvoice::cii::xml(&document, Guideline::En16931).map_err(unexpected)?,
            language: issued.language.clone(),
            at: issued.at,
            document,
        })
    }
}

/// The prints an invoice bills already (a credit note frees none: the print was billed).
#[derive(Debug, Clone, Copy)]
pub struct InvoicedPrints;

impl Query for InvoicedPrints {
    type Answer = Vec<Id>;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Vec<Id>> {
        invoiced(snapshot)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use storage::records::PostalAddress;

    /// An issued invoice `number` of one line (10 at 19 %: 11.90 due), due on `due_on`, with
    /// `payments` (amounts) recorded.
    pub(crate) fn issued(number: &str, due_on: &str, payments: &[&str]) -> Invoice {
        let party = InvoiceParty {
            name: "Verein".into(),
            address: PostalAddress {
                street: "S".into(),
                postal_code: "1".into(),
                city: "C".into(),
                country: "DE".into(),
            },
            vat_id: None,
            tax_number: None,
            email: "a@example.com".into(),
            phone: None,
        };
        Invoice {
            id: Id::new(),
            kind: InvoiceKind::Invoice,
            customer_id: Id::new(),
            print_ids: Vec::new(),
            corrects: None,
            lines: vec![InvoiceLine {
                print_id: None,
                name: "Teil".into(),
                quantity: Decimal::ONE,
                unit: "C62".into(),
                unit_price: Decimal::from(10),
                vat: VatCategory::Standard,
                vat_rate: Decimal::from(19),
            }],
            adjustments: Vec::new(),
            note: None,
            issued: Some(Issued {
                number: number.into(),
                issued_on: "2026-10-01".into(),
                due_on: due_on.into(),
                seller: party.clone(),
                buyer: party,
                buyer_reference: String::new(),
                currency: "EUR".into(),
                payment_terms: String::new(),
                iban: String::new(),
                bic: None,
                language: "de-DE".into(),
                preceding: None,
                at: Timestamp(0),
            }),
            payments: payments
                .iter()
                .map(|a| Payment {
                    id: Id::new(),
                    paid_on: "2026-10-02".into(),
                    amount: a.parse().unwrap(),
                    method: PaymentMethod::Transfer,
                    note: None,
                    recorded_at: Timestamp(0),
                })
                .collect(),
            archived: false,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        }
    }

    #[test]
    fn an_invoice_is_overdue_the_day_after_its_due_day_until_paid_in_full() {
        let due: Decimal = "100".parse().unwrap();
        let on = |d: &str| d.parse::<Date>().unwrap();
        let open = issued("2026-0001", "2026-11-15", &[]);
        assert_eq!(settlement(&open, due, on("2026-11-15")), Settlement::Open);
        assert_eq!(
            settlement(&open, due, on("2026-11-16")),
            Settlement::Overdue
        );
        let part = issued("2026-0001", "2026-11-15", &["30", "20"]);
        assert_eq!(
            settlement(&part, due, on("2026-11-10")),
            Settlement::PartlyPaid
        );
        assert_eq!(
            settlement(&part, due, on("2026-12-01")),
            Settlement::Overdue
        );
        let paid = issued("2026-0001", "2026-11-15", &["30", "70"]);
        assert_eq!(settlement(&paid, due, on("2026-12-01")), Settlement::Paid);
        let mut draft = open;
        draft.issued = None;
        assert_eq!(settlement(&draft, due, on("2026-12-01")), Settlement::Draft);
    }
}
