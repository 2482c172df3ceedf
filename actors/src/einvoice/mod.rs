//! Electronic invoices after EN 16931 (issue 47): the semantic invoice ([`Document`]: BT and BG
//! numbers as the standard names them), its totals ([`totals`]: the calculation EN 16931 fixes
//! in BR-CO-10 … BR-CO-16 and the VAT breakdown of BR-S-08 ff., exact decimals rounded to the
//! cent once each), and its XML in UN/CEFACT CII D16B as XRechnung 3.0 asks for it ([`cii`]).
//!
//! The documents are judged by the official rules, offline: `../shared/einvoice/validate` runs
//! the CII schema, CEN's EN 16931 rules and KoSIT's XRechnung rules (`actors/tests/einvoice.rs`).

pub mod cii;
pub mod totals;

use jiff::civil::Date;
use rust_decimal::Decimal;
use storage::records::{InvoiceParty, VatCategory};

/// BT-3: what the document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A commercial invoice (UNTDID 1001 code 380).
    Invoice,
    /// A credit note (381), correcting or cancelling the invoice it names.
    CreditNote,
}

/// BT-151 / BT-118: a VAT category (UNCL 5305) with its rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vat {
    /// S: the standard or a reduced rate, percent above 0 (19, 7).
    Standard(Decimal),
    /// Z: zero rated goods.
    Zero,
    /// E: exempt; the shop is a small business under § 19 UStG (the reason BT-120 says so).
    SmallBusiness,
    /// AE: reverse charge, a B2B buyer in another EU country with a VAT id (VATEX-EU-AE).
    ReverseCharge,
    /// G: export outside the EU (VATEX-EU-G).
    Export,
}

impl Vat {
    /// The VAT of a stored `category` at `rate` (the rate counts for S only).
    pub fn of(category: VatCategory, rate: Decimal) -> Vat {
        match category {
            VatCategory::Standard => Vat::Standard(rate),
            VatCategory::Zero => Vat::Zero,
            VatCategory::SmallBusiness => Vat::SmallBusiness,
            VatCategory::ReverseCharge => Vat::ReverseCharge,
            VatCategory::Export => Vat::Export,
        }
    }

    /// The stored category.
    pub fn category(self) -> VatCategory {
        match self {
            Vat::Standard(_) => VatCategory::Standard,
            Vat::Zero => VatCategory::Zero,
            Vat::SmallBusiness => VatCategory::SmallBusiness,
            Vat::ReverseCharge => VatCategory::ReverseCharge,
            Vat::Export => VatCategory::Export,
        }
    }

    /// The category code (UNCL 5305).
    pub fn code(self) -> &'static str {
        match self {
            Vat::Standard(_) => "S",
            Vat::Zero => "Z",
            Vat::SmallBusiness => "E",
            Vat::ReverseCharge => "AE",
            Vat::Export => "G",
        }
    }

    /// The rate, percent (0 for every category but S).
    pub fn rate(self) -> Decimal {
        match self {
            Vat::Standard(rate) => rate,
            _ => Decimal::ZERO,
        }
    }

    /// BT-120 and BT-121: why no VAT is charged (none for S and Z).
    pub fn exemption(self) -> Option<(&'static str, Option<&'static str>)> {
        match self {
            Vat::Standard(_) | Vat::Zero => None,
            Vat::SmallBusiness => Some(("Kleinunternehmer gemäß § 19 UStG", None)),
            Vat::ReverseCharge => Some(("Reverse charge", Some("VATEX-EU-AE"))),
            Vat::Export => Some(("Export outside the EU", Some("VATEX-EU-G"))),
        }
    }
}

/// BG-25: one invoice line, `quantity × unit_price` to the cent (BT-131).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// BT-153: what is sold.
    pub name: String,
    /// BT-129: how many.
    pub quantity: Decimal,
    /// BT-130: the unit (UN/ECE Recommendation 20: `C62` one, `HUR` hour).
    pub unit: &'static str,
    /// BT-146: the net price of one.
    pub unit_price: Decimal,
    /// BG-30: its VAT.
    pub vat: Vat,
}

/// BG-20 / BG-21: a document level allowance (a discount) or charge (shipping).
#[derive(Debug, Clone, PartialEq)]
pub struct Adjustment {
    /// Charge (true) or allowance (false).
    pub charge: bool,
    /// BT-92 / BT-99: the amount, net, to the cent.
    pub amount: Decimal,
    /// BT-97 / BT-104: why.
    pub reason: String,
    /// BT-95 / BT-102: its VAT.
    pub vat: Vat,
}

/// An invoice or credit note as EN 16931 names its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// BT-3.
    pub kind: Kind,
    /// BT-1: its number.
    pub number: String,
    /// BT-2.
    pub issued_on: Date,
    /// BT-9: when it is due.
    pub due_on: Option<Date>,
    /// BT-20: the payment terms in words.
    pub payment_terms: Option<String>,
    /// BT-5: ISO 4217.
    pub currency: String,
    /// BT-10: the buyer's reference (a public buyer's Leitweg-ID); XRechnung asks for one.
    pub buyer_reference: String,
    /// BT-25 and BT-26: the invoice a credit note corrects, with its issue date.
    pub preceding: Option<(String, Date)>,
    /// BT-22: a note.
    pub note: Option<String>,
    /// BG-4: name (BT-27), address (BG-5), VAT id (BT-31), tax number (BT-32), electronic
    /// address (BT-34, an e-mail) and the contact's phone (BT-42).
    pub seller: InvoiceParty,
    /// BG-7: name (BT-44), address (BG-8), VAT id (BT-48), electronic address (BT-49).
    pub buyer: InvoiceParty,
    /// BG-16 / BG-17: the seller's IBAN (BT-84) and BIC (BT-86), paid by SEPA credit transfer.
    pub account: (String, Option<String>),
    /// BG-25, at least one.
    pub lines: Vec<Line>,
    /// BG-20 and BG-21.
    pub adjustments: Vec<Adjustment>,
    /// BT-113: paid already.
    pub prepaid: Decimal,
}
