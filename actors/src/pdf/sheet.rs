//! What a document says, placed by [`super::layout`] and drawn by [`super::render`]: words only,
//! already in the document's language and number format.

/// How a column's cells sit in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text (descriptions).
    Left,
    /// Figures, aligned on their last digit.
    Right,
}

/// A column of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Its heading.
    pub heading: String,
    /// Its share of the text width (relative to the other columns').
    pub share: f32,
    /// How its cells sit.
    pub align: Align,
}

/// The table of lines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Its columns.
    pub columns: Vec<Column>,
    /// Its rows, one cell per column, each wrapped to its column's width.
    pub rows: Vec<Vec<String>>,
}

/// A document's words, placed by [`super::layout`]: the head (the seller; the buyer's address under
/// the seller's one-line return address; facts such as number and dates beside it), a title,
/// the table, totals, notes, and a foot on every page.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    /// Its language, BCP 47 (`de-DE`): the PDF's `/Lang` and `dc:language`.
    pub language: String,
    /// Its heading and the PDF's title (`Rechnung 2026-0001`).
    pub title: String,
    /// The seller's name (set large), then lines under it.
    pub seller: Vec<String>,
    /// The seller's address in one line, over the buyer's (DIN 5008's return address).
    pub sender: String,
    /// The buyer's name and address lines.
    pub buyer: Vec<String>,
    /// (label, value) beside the buyer's address.
    pub facts: Vec<(String, String)>,
    /// The lines.
    pub table: Table,
    /// (label, amount, strong) under the table, the strong ones bold over a rule.
    pub totals: Vec<(String, String, bool)>,
    /// Paragraphs after the totals.
    pub notes: Vec<String>,
    /// The foot of every page (the seller's contacts, bank, tax numbers).
    pub footer: Vec<String>,
    /// The page label with `{page}` and `{pages}` in it (`Seite {page} von {pages}`).
    pub page_label: String,
    /// When it was made (its issue): the PDF's creation and modification date, UTC.
    pub created: jiff::Timestamp,
}

/// The e-invoice a PDF carries (Factur-X 1.07 / ZUGFeRD 2.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    /// The CII XML (`rsm:CrossIndustryInvoice`), embedded as `factur-x.xml`.
    pub xml: Vec<u8>,
    /// `fx:ConformanceLevel`: the Factur-X profile its BT-24 names (`EN 16931`).
    pub conformance: &'static str,
}

/// Why no PDF was written: always a bug (the sheet is words, the fonts are ours), never the
/// caller's input.
#[derive(Debug, thiserror::Error)]
#[error("the PDF could not be written: {0}")]
pub struct PdfError(pub(super) String);
