//! A4 documents as PDF/A-3b (ISO 19005-3), and the ZUGFeRD 2.3 / Factur-X 1.07 hybrid invoice:
//! a PDF/A-3 whose visual invoice carries its EN 16931 CII XML as the embedded file
//! `factur-x.xml` (relationship `Alternative`, listed in the catalog's `/AF`) and says so in its
//! XMP metadata (the `fx:` extension schema, Factur-X 1.07 specification, section 6).
//!
//! A [`Sheet`] holds words only, already in the document's language and number format; this
//! module places them ([`layout`]) and draws them with krilla, which embeds and subsets the
//! fonts ([`fonts`]) and checks PDF/A-3b as it writes. krilla writes no custom XMP yet
//! (krilla#209), so [`facturx`] adds the `fx:` properties to the metadata stream with lopdf
//! (docs/decisions/0009-pdf-library.md).

mod facturx;
mod fonts;
pub mod layout;
mod sheet;

use fonts::faces;
use krilla::Document;
use krilla::SerializeSettings;
use krilla::configure::{Archival, ConfigurationBuilder, PdfVersion};
use krilla::embed::{AssociationKind, EmbeddedFile, MimeType};
use krilla::geom::{PathBuilder, Point};
use krilla::metadata::{DateTime, Metadata};
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::surface::Surface;
use krilla::text::TextDirection;
use layout::{Op, PAGE};
pub use sheet::{Align, Attachment, Column, PdfError, Sheet, Table};

/// The PDF/A-3b of `sheet`, with `attachment` embedded as a Factur-X invoice when given.
/// The same input gives the same bytes (ids and dates come from the sheet).
///
/// Errors: [`PdfError`] when krilla refuses the document as PDF/A-3b or lopdf cannot read back
/// what krilla wrote.
pub fn render(sheet: &Sheet, attachment: Option<&Attachment>) -> Result<Vec<u8>, PdfError> {
    let faces = faces().ok_or_else(|| PdfError("a font does not parse".into()))?;
    let configuration = ConfigurationBuilder::new()
        .with_archival_validator(Archival::A3_B)
        .with_version(PdfVersion::Pdf17)
        .finish()
        .map_err(|e| PdfError(format!("{e:?}")))?;
    let mut document = Document::new_with(SerializeSettings {
        configuration,
        ..SerializeSettings::default()
    });
    let created = date(sheet.created);
    let language = sheet.language.split('-').next().unwrap_or("de").to_string();
    document.set_metadata(
        Metadata::new()
            .title(sheet.title.clone())
            .language(language)
            .creator("printcost".into())
            .producer("printcost".into())
            .creation_date(created),
    );
    let pages = layout::pages(sheet, faces);
    let count = pages.len();
    let size =
        PageSettings::from_wh(PAGE.0, PAGE.1).ok_or_else(|| PdfError("the page size".into()))?;
    for (i, ops) in pages.iter().enumerate() {
        let mut page = document.start_page_with(size.clone());
        let mut surface = page.surface();
        draw(&mut surface, faces, ops);
        draw(
            &mut surface,
            faces,
            &layout::foot(sheet, faces, i + 1, count),
        );
        surface.finish();
        page.finish();
    }
    if let Some(attachment) = attachment {
        document.embed_file(EmbeddedFile {
            path: facturx::FILE_NAME.into(),
            mime_type: MimeType::new("text/xml"),
            description: Some("Factur-X / ZUGFeRD invoice (EN 16931)".into()),
            association_kind: AssociationKind::Alternative,
            data: attachment.xml.clone().into(),
            modification_date: Some(created),
            compress: Some(true),
            location: None,
        });
    }
    let pdf = document.finish().map_err(|e| PdfError(format!("{e:?}")))?;
    match attachment {
        Some(attachment) => facturx::declare(&pdf, attachment),
        None => Ok(pdf),
    }
}

fn draw(surface: &mut Surface, faces: &(fonts::Face, fonts::Face), ops: &[Op]) {
    for op in ops {
        match op {
            Op::Text {
                x,
                y,
                size,
                bold,
                text,
            } => {
                let face = if *bold { &faces.1 } else { &faces.0 };
                surface.draw_text(
                    Point::from_xy(*x, *y),
                    face.font.clone(),
                    *size,
                    text,
                    false,
                    TextDirection::LeftToRight,
                );
            }
            Op::Rule { x1, x2, y } => {
                let mut path = PathBuilder::new();
                path.move_to(*x1, *y);
                path.line_to(*x2, *y);
                if let Some(path) = path.finish() {
                    surface.set_fill(None);
                    surface.set_stroke(Some(Stroke {
                        width: 0.5,
                        ..Stroke::default()
                    }));
                    surface.draw_path(&path);
                    surface.set_stroke(None);
                    surface.set_fill(Some(Fill::default()));
                }
            }
        }
    }
}

/// `at` as krilla's date, UTC.
fn date(at: jiff::Timestamp) -> DateTime {
    let t = at.to_zoned(jiff::tz::TimeZone::UTC);
    let part = |v: i8| u8::try_from(v).unwrap_or(0);
    DateTime::new(u16::try_from(t.year()).unwrap_or(1970))
        .month(part(t.month()))
        .day(part(t.day()))
        .hour(part(t.hour()))
        .minute(part(t.minute()))
        .second(part(t.second()))
        .utc_offset_hour(0)
        .utc_offset_minute(0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A sheet of `rows` lines as an invoice is laid out.
    pub(crate) fn sheet(rows: usize) -> Sheet {
        let column = |heading: &str, share: f32, align| Column {
            heading: heading.into(),
            share,
            align,
        };
        Sheet {
            language: "de-DE".into(),
            title: "Rechnung 2026-0001".into(),
            seller: vec!["Musterdruck GmbH".into(), "Hauptstraße 1".into()],
            sender: "Musterdruck GmbH · Hauptstraße 1 · 10115 Berlin".into(),
            buyer: vec![
                "Verein e. V.".into(),
                "Am Markt 2".into(),
                "1010 Wien".into(),
            ],
            facts: vec![("Rechnungsnummer".into(), "2026-0001".into())],
            table: Table {
                columns: vec![
                    column("Pos.", 0.6, Align::Left),
                    column("Bezeichnung", 4.0, Align::Left),
                    column("Menge", 1.0, Align::Right),
                    column("Einzelpreis", 1.4, Align::Right),
                    column("USt.", 0.8, Align::Right),
                    column("Betrag", 1.4, Align::Right),
                ],
                rows: (1..=rows)
                    .map(|i| {
                        vec![
                            i.to_string(),
                            format!("Teil {i}"),
                            "4".into(),
                            "11,99 €".into(),
                            "19 %".into(),
                            "47,96 €".into(),
                        ]
                    })
                    .collect(),
            },
            totals: vec![
                ("Summe netto".into(), "47,96 €".into(), false),
                ("Gesamt".into(), "57,07 €".into(), true),
            ],
            notes: vec!["Zahlbar innerhalb von 14 Tagen ohne Abzug.".into()],
            footer: vec!["Musterdruck GmbH · IBAN DE89 3704 0044 0532 0130 00".into()],
            page_label: "Seite {page} von {pages}".into(),
            created: jiff::Timestamp::from_second(1_795_000_000).unwrap(),
        }
    }

    #[test]
    fn a_sheet_is_a_pdf_a_3_and_the_same_sheet_gives_the_same_bytes() {
        let pdf = render(&sheet(3), None).unwrap();
        assert!(pdf.starts_with(b"%PDF-1.7"));
        let text = String::from_utf8_lossy(&pdf);
        assert!(
            text.contains("<pdfaid:part>3</pdfaid:part>"),
            "XMP claims PDF/A-3"
        );
        assert!(!text.contains("factur-x.xml"));
        assert_eq!(render(&sheet(3), None).unwrap(), pdf);
    }
}
