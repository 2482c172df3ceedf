//! Quotes (issue 46): drafts offered to one customer at a price, numbered and frozen when sent.

use crate::{Id, Timestamp};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Where a quote stands: DRAFT → SENT → ACCEPTED, DECLINED or EXPIRED.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum QuoteStatus {
    /// Being put together: its lines follow the drafts' prices.
    Draft,
    /// Numbered and handed to the customer: its lines are frozen.
    Sent,
    /// The customer took it: its prints carry its prices.
    Accepted,
    /// The customer said no.
    Declined,
    /// Its validity date passed while it was SENT.
    Expired,
}

/// A quote: prints (drafts and series runs) offered to one customer until a date.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// Record id.
    pub id: Id,
    /// The customer it is made out to.
    pub customer_id: Id,
    /// The prints it offers, in the order given (1 to 100).
    pub print_ids: Vec<Id>,
    /// The last day the offer holds, ISO 8601 (`2026-12-31`), in the shop's time zone.
    pub valid_until: String,
    /// Free text printed under the lines.
    pub note: Option<String>,
    /// Where it stands.
    pub status: QuoteStatus,
    /// Its number in the quotes' gapless range (`A-2026-0001`), given when it is sent.
    pub number: Option<String>,
    /// What was offered, frozen when it was sent.
    pub offer: Option<Offer>,
    /// When it was sent.
    pub sent_at: Option<Timestamp>,
    /// When it was accepted, declined or expired.
    pub decided_at: Option<Timestamp>,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
}

/// A quote's lines and totals: derived from its drafts while DRAFT, frozen from SENT on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Offer {
    /// The lines, per print: its item, then its work lines.
    pub lines: Vec<QuoteLine>,
    /// Sum of the lines' net amounts.
    #[serde(with = "rust_decimal::serde::str")]
    pub net: Decimal,
    /// The VAT rate, percent.
    #[serde(with = "rust_decimal::serde::str")]
    pub vat_percent: Decimal,
    /// The VAT on `net`, to the cent.
    #[serde(with = "rust_decimal::serde::str")]
    pub vat: Decimal,
    /// `net + vat`.
    #[serde(with = "rust_decimal::serde::str")]
    pub gross: Decimal,
}

/// One line of a quote: `quantity × unit_price = net`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuoteLine {
    /// The print it prices.
    pub print_id: Id,
    /// The print's work line it prices; none for the printed item itself.
    pub work_line_id: Option<Id>,
    /// What the customer reads: the print's name, or the work line's label.
    pub description: String,
    /// Pieces, or 1 for a per-job line.
    pub quantity: u32,
    /// Net price of one, to the cent.
    #[serde(with = "rust_decimal::serde::str")]
    pub unit_price: Decimal,
    /// `quantity × unit_price`.
    #[serde(with = "rust_decimal::serde::str")]
    pub net: Decimal,
}
