//! The two faces every document is set in (Noto Sans regular and bold, `actors/assets/fonts`,
//! SIL OFL 1.1): what krilla embeds, and their advance widths for measuring lines.

use krilla::text::Font;
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};
use std::borrow::Cow;
use std::sync::LazyLock;

static REGULAR: &[u8] = include_bytes!("../../assets/fonts/NotoSans-Regular.ttf");
static BOLD: &[u8] = include_bytes!("../../assets/fonts/NotoSans-Bold.ttf");

/// One face: krilla's font to draw with and skrifa's view of it to measure with.
pub struct Face {
    /// What krilla draws and embeds (subset to the glyphs used).
    pub font: Font,
    data: &'static [u8],
}

/// The regular and the bold face; `None` only when a committed font file does not parse.
static FACES: LazyLock<Option<(Face, Face)>> =
    LazyLock::new(|| Some((Face::new(REGULAR)?, Face::new(BOLD)?)));

/// The regular and the bold face. `None` when a committed font does not parse (a bug).
pub fn faces() -> Option<&'static (Face, Face)> {
    FACES.as_ref()
}

impl Face {
    fn new(data: &'static [u8]) -> Option<Face> {
        FontRef::new(data).ok()?;
        Some(Face {
            font: Font::new(data.into(), 0)?,
            data,
        })
    }

    fn skrifa(&self) -> Option<FontRef<'static>> {
        FontRef::new(self.data).ok()
    }

    /// `text` with every character the face has no glyph for replaced by `?`: PDF/A forbids
    /// drawing the `.notdef` glyph (ISO 19005-3, 6.2.11.8).
    pub fn covered<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(font) = self.skrifa() else {
            return Cow::Borrowed(text);
        };
        let charmap = font.charmap();
        let known = |c: char| c.is_whitespace() || charmap.map(c).is_some();
        match text.chars().all(known) {
            true => Cow::Borrowed(text),
            false => Cow::Owned(
                text.chars()
                    .map(|c| if known(c) { c } else { '?' })
                    .collect(),
            ),
        }
    }

    /// The advance width of `text` at `size` points, in points (kerning left out: a line is
    /// measured at most a few hundredths of a point long).
    pub fn width(&self, text: &str, size: f32) -> f32 {
        let Some(font) = self.skrifa() else {
            return 0.0;
        };
        let charmap = font.charmap();
        let metrics = font.glyph_metrics(Size::new(size), LocationRef::default());
        text.chars()
            .filter_map(|c| charmap.map(c))
            .filter_map(|g| metrics.advance_width(g))
            .sum()
    }
}
