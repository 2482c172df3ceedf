//! Invoices and credit notes (issue 47): a DONE print's lines with their VAT, numbered from a
//! gapless range and frozen when issued, everything the XRechnung XML and the A4 page need kept
//! with them.

use super::PostalAddress;
use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// An invoice (UNTDID 1001 code 380) or a credit note (381).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InvoiceKind {
    /// A commercial invoice.
    Invoice,
    /// A credit note correcting or cancelling an issued invoice.
    CreditNote,
}

/// A VAT category (UNCL 5305) as an invoice line carries it; its rate beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VatCategory {
    /// S: the standard or a reduced rate.
    Standard,
    /// Z: zero rated.
    Zero,
    /// E: a small business under § 19 UStG.
    SmallBusiness,
    /// AE: reverse charge, a B2B buyer in another EU country.
    ReverseCharge,
    /// G: export outside the EU.
    Export,
}

/// One line: `quantity × unit_price`, net, at its VAT.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceLine {
    /// The print it bills; none for an extra line (shipping).
    pub print_id: Option<Id>,
    /// What is sold.
    pub name: String,
    /// How many.
    #[serde(with = "rust_decimal::serde::str")]
    pub quantity: Decimal,
    /// UN/ECE Recommendation 20 unit (`C62`).
    pub unit: String,
    /// The net price of one.
    #[serde(with = "rust_decimal::serde::str")]
    pub unit_price: Decimal,
    /// Its VAT category.
    pub vat: VatCategory,
    /// Its VAT rate, percent.
    #[serde(with = "rust_decimal::serde::str")]
    pub vat_rate: Decimal,
}

/// A document level allowance (a discount) or charge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceAdjustment {
    /// A charge (true) or an allowance (false).
    pub charge: bool,
    /// The net amount, to the cent.
    #[serde(with = "rust_decimal::serde::str")]
    pub amount: Decimal,
    /// Why.
    pub reason: String,
    /// Its VAT category.
    pub vat: VatCategory,
    /// Its VAT rate, percent.
    #[serde(with = "rust_decimal::serde::str")]
    pub vat_rate: Decimal,
}

/// The seller or the buyer as the invoice names them, frozen when it is issued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceParty {
    /// Legal name.
    pub name: String,
    /// Postal address.
    pub address: PostalAddress,
    /// VAT identifier.
    pub vat_id: Option<String>,
    /// Tax number (the seller's).
    pub tax_number: Option<String>,
    /// Electronic address, an e-mail.
    pub email: String,
    /// Phone (the seller's contact).
    pub phone: Option<String>,
}

/// What issuing froze: the number, the dates, both parties and the terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Issued {
    /// Its number in its gapless range (`2026-0001`).
    pub number: String,
    /// Issue date, ISO 8601 (`2026-11-27`), the shop's time zone.
    pub issued_on: String,
    /// Due date, ISO 8601.
    pub due_on: String,
    /// The seller (Settings › Company then).
    pub seller: InvoiceParty,
    /// The buyer (the customer's billing details then).
    pub buyer: InvoiceParty,
    /// The buyer's reference or Leitweg-ID (BT-10).
    pub buyer_reference: String,
    /// ISO 4217.
    pub currency: String,
    /// The payment terms in words.
    pub payment_terms: String,
    /// The seller's IBAN.
    pub iban: String,
    /// The seller's BIC.
    pub bic: Option<String>,
    /// `de-DE` or `en-US`.
    pub language: String,
    /// The corrected invoice's number and issue date (a credit note's).
    pub preceding: Option<(String, String)>,
    /// When it was issued.
    pub at: Timestamp,
}

/// How a payment came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaymentMethod {
    /// A bank transfer.
    Transfer,
    /// Cash.
    Cash,
    /// A card.
    Card,
    /// Another way (PayPal, a voucher).
    Other,
}

/// A payment received against an issued invoice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Payment {
    /// Payment id.
    pub id: Id,
    /// The day it was paid, ISO 8601.
    pub paid_on: String,
    /// The amount, to the cent.
    #[serde(with = "rust_decimal::serde::str")]
    pub amount: Decimal,
    /// How it came.
    pub method: PaymentMethod,
    /// Free text.
    pub note: Option<String>,
    /// When it was recorded.
    pub recorded_at: Timestamp,
}

/// An invoice or credit note: DRAFT until issued, then frozen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invoice {
    /// Record id.
    pub id: Id,
    /// Invoice or credit note.
    pub kind: InvoiceKind,
    /// The customer billed.
    pub customer_id: Id,
    /// The DONE prints it bills (none for a credit note).
    pub print_ids: Vec<Id>,
    /// The invoice a credit note corrects.
    pub corrects: Option<Id>,
    /// The lines.
    pub lines: Vec<InvoiceLine>,
    /// Document level allowances and charges.
    pub adjustments: Vec<InvoiceAdjustment>,
    /// Free text (BT-22).
    pub note: Option<String>,
    /// What issuing froze; none while DRAFT.
    pub issued: Option<Issued>,
    /// Payments received, in the order recorded (an issued invoice's only).
    pub payments: Vec<Payment>,
    /// Hidden from lists (an issued invoice is never deleted).
    pub archived: bool,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}
