//! The instance settings: one record.

use super::PostalAddress;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Instance-wide settings, written by setup and `PATCH /api/settings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// ISO 4217 code of the instance currency (`EUR`); every money value is in it.
    pub currency: String,
    /// Locale for accounts without a preference (`en-US` or `de-DE`).
    pub default_language: String,
    /// Electricity price in currency per kWh.
    #[serde(with = "rust_decimal::serde::str")]
    pub electricity_price: Decimal,
    /// Feature flag: print series routes and UI.
    pub print_series_enabled: bool,
    /// Feature flag: spools, stock ledger and spool-manager integration.
    pub spool_management_enabled: bool,
}

/// When and where the nightly backup is written, and how many are kept (Settings › Backup).
/// Stored in the settings table under key 2; [`BackupSchedule::default`] until first changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupSchedule {
    /// Whether the nightly backup runs.
    pub enabled: bool,
    /// Minutes after local midnight (instance time zone) at which it runs, 0–1439.
    pub minute_of_day: u16,
    /// The folder the backups go to (an absolute path, e.g. a mounted USB stick); `None` for the
    /// `backups` folder beside the data.
    pub folder: Option<String>,
    /// Days for which the newest backup of each day is kept (today counts as one).
    pub keep_days: u16,
    /// Weeks (ISO weeks, this one counts as one) for which the newest backup of each week is kept.
    pub keep_weeks: u16,
}

impl Default for BackupSchedule {
    /// Every night at 03:00, beside the data, seven days and four weeks kept.
    fn default() -> Self {
        BackupSchedule {
            enabled: true,
            minute_of_day: 3 * 60,
            folder: None,
            keep_days: 7,
            keep_weeks: 4,
        }
    }
}

/// What the shop's price is built on (Settings › Pricing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PriceBasis {
    /// A markup on cost: `price = cost × (100 + percent) / 100`.
    Markup,
    /// A target margin of the price: `price = cost × 100 / (100 − percent)`.
    Margin,
}

/// How a suggested price is rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rounding {
    /// To the cent.
    Cent,
    /// To the nearest 0.05.
    FiveCents,
    /// Up to the next price ending in .90.
    Ninety,
}

/// The shop's price rule (Settings › Pricing), under key 6 of the settings table (schema 11);
/// [`Pricing::default`] (off) until first changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pricing {
    /// Whether drafts get a suggested price (and a draft without a sales value takes it).
    pub enabled: bool,
    /// Markup on cost or margin of price.
    pub basis: PriceBasis,
    /// The markup or margin, percent (a margin below 100).
    #[serde(with = "rust_decimal::serde::str")]
    pub percent: Decimal,
    /// The least a job is sold for, net.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub minimum_per_job: Option<Decimal>,
    /// How the price is rounded.
    pub rounding: Rounding,
    /// The VAT rate, percent, shown on drafts and quotes (0 for a small business, § 19 UStG).
    #[serde(with = "rust_decimal::serde::str")]
    pub vat_percent: Decimal,
    /// Price the expected cost per good part (cost ÷ success rate) instead of the cost.
    pub failure_adjusted: bool,
    /// How many of the latest outcomes per printer and material the success rate counts.
    pub failure_window: u16,
}

impl Default for Pricing {
    /// Off; when switched on, a markup of 30 %, to the cent, 19 % VAT (Germany's standard rate),
    /// on the cost itself (success rates over the latest 20 outcomes shown beside it).
    fn default() -> Self {
        Pricing {
            enabled: false,
            basis: PriceBasis::Markup,
            percent: Decimal::from(30),
            minimum_per_job: None,
            rounding: Rounding::Cent,
            vat_percent: Decimal::from(19),
            failure_adjusted: false,
            failure_window: 20,
        }
    }
}

/// The shop as its quotes and invoices name it (Settings › Company), under key 7 of the settings
/// table; [`Company::default`] (nameless) until first set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Company {
    /// Legal name (`Musterdruck GmbH`).
    pub name: String,
    /// Postal address with country.
    pub address: Option<PostalAddress>,
    /// VAT identification number (USt-IdNr.), upper-case, country prefix first.
    pub vat_id: Option<String>,
    /// Tax number (Steuernummer), as the tax office wrote it.
    pub tax_number: Option<String>,
    /// IBAN, upper-case without spaces, its checksum verified.
    pub iban: Option<String>,
    /// BIC, upper-case.
    pub bic: Option<String>,
    /// Contact e-mail.
    pub email: Option<String>,
    /// Contact phone, as written.
    pub phone: Option<String>,
    /// Days to pay unless a customer has its own, 0 to 365.
    pub payment_terms_days: u16,
    /// The payment terms in words, printed on quotes and invoices (BT-20).
    pub payment_terms_text: Option<String>,
    /// The language quotes and invoices are written in unless the customer has one (`de-DE`,
    /// `en-US`); none: the instance's default language.
    pub language: Option<String>,
    /// A small business under § 19 UStG: no VAT charged, the exemption stated.
    pub small_business: bool,
}

impl Default for Company {
    /// No name or address yet, 14 days to pay, VAT charged.
    fn default() -> Self {
        Company {
            name: String::new(),
            address: None,
            vat_id: None,
            tax_number: None,
            iban: None,
            bic: None,
            email: None,
            phone: None,
            payment_terms_days: 14,
            payment_terms_text: None,
            language: None,
            small_business: false,
        }
    }
}

/// One gapless number range's format: `pattern` with `{YYYY}` or `{YY}` for the year and one run
/// of `N` in braces for the counter, zero-padded to as many digits (`{YYYY}-{NNNN}` gives
/// `2026-0001`); `yearly` restarts the counter at 1 each year.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberRange {
    /// The pattern (`RE-{YY}{NNNNN}`).
    pub pattern: String,
    /// Whether the counter restarts each year.
    pub yearly: bool,
}

/// How issued invoices and credit notes are numbered (key 8 of the settings table):
/// `{YYYY}-{NNNN}` restarting each year, credit notes in the invoices' range, until set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Numbering {
    /// The invoices' range.
    pub invoices: NumberRange,
    /// The credit notes' own range; `None`: they take the invoices' numbers.
    pub credit_notes: Option<NumberRange>,
}

impl Default for Numbering {
    fn default() -> Self {
        Numbering {
            invoices: NumberRange {
                pattern: "{YYYY}-{NNNN}".into(),
                yearly: true,
            },
            credit_notes: None,
        }
    }
}
