//! Where each piece of a [`Sheet`] goes on its A4 pages, before anything is drawn: points, `y`
//! downward from the top edge to the text's baseline, 20 mm margin left, 15 mm right. Rows that
//! do not fit go to the next page under the table's headings again; the foot is left to
//! [`super::render`], which knows how many pages there are.

use super::fonts::Face;
use super::sheet::{Align, Sheet};

/// A4 in points (210 × 297 mm).
pub const PAGE: (f32, f32) = (595.28, 841.89);
/// The left margin (20 mm).
pub const LEFT: f32 = 56.7;
/// The right edge of the text (15 mm from the paper's).
pub const RIGHT: f32 = PAGE.0 - 42.5;
const TOP: f32 = 62.0;
/// Where the body ends: below is the foot.
pub const BOTTOM: f32 = PAGE.1 - 90.0;
/// The body's text size.
const SIZE: f32 = 9.0;
const LEADING: f32 = 12.5;
/// The small print (facts, foot).
pub const SMALL: f32 = 7.5;
const FACTS_LABEL: f32 = 330.0;
const FACTS_VALUE: f32 = 430.0;
const ADDRESS_TOP: f32 = 150.0;
const CELL_GAP: f32 = 6.0;

/// One thing to draw.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Text starting at (`x`, `y`), its baseline at `y`.
    Text {
        /// Left edge.
        x: f32,
        /// Baseline.
        y: f32,
        /// Size in points.
        size: f32,
        /// The bold face (else the regular one).
        bold: bool,
        /// What is written (only characters the face has).
        text: String,
    },
    /// A horizontal hairline at `y` from `x1` to `x2`.
    Rule {
        /// Start.
        x1: f32,
        /// End.
        x2: f32,
        /// Height.
        y: f32,
    },
}

/// The pages being filled, and the pen's height on the last one.
struct Pen<'f> {
    faces: &'f (Face, Face),
    pages: Vec<Vec<Op>>,
    y: f32,
}

impl<'f> Pen<'f> {
    fn face(&self, bold: bool) -> &'f Face {
        match bold {
            true => &self.faces.1,
            false => &self.faces.0,
        }
    }

    fn page(&mut self) -> &mut Vec<Op> {
        if self.pages.is_empty() {
            self.pages.push(Vec::new());
        }
        let last = self.pages.len() - 1;
        &mut self.pages[last]
    }

    fn text(&mut self, x: f32, y: f32, size: f32, bold: bool, text: &str) {
        let text = self.face(bold).covered(text).into_owned();
        if !text.trim().is_empty() {
            self.page().push(Op::Text {
                x,
                y,
                size,
                bold,
                text,
            });
        }
    }

    /// `text` with its right edge at `right`.
    fn text_right(&mut self, right: f32, y: f32, size: f32, bold: bool, text: &str) {
        let width = self.face(bold).width(&self.face(bold).covered(text), size);
        self.text(right - width, y, size, bold, text);
    }

    fn rule(&mut self, x1: f32, x2: f32, y: f32) {
        self.page().push(Op::Rule { x1, x2, y });
    }

    /// Starts a new page when `height` more points do not fit; answers whether it did.
    fn room(&mut self, height: f32) -> bool {
        if self.y + height <= BOTTOM {
            return false;
        }
        self.pages.push(Vec::new());
        self.y = TOP;
        true
    }

    /// `text` broken into lines no wider than `width` at `size` (at spaces, else anywhere).
    fn wrap(&self, text: &str, size: f32, bold: bool, width: f32) -> Vec<String> {
        let face = self.face(bold);
        let mut lines = Vec::new();
        for paragraph in text.lines() {
            let mut line = String::new();
            for word in paragraph.split_whitespace() {
                let candidate = match line.is_empty() {
                    true => word.to_string(),
                    false => format!("{line} {word}"),
                };
                if face.width(&candidate, size) <= width {
                    line = candidate;
                    continue;
                }
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                for c in word.chars() {
                    line.push(c);
                    if face.width(&line, size) > width && line.chars().count() > 1 {
                        line.pop();
                        lines.push(std::mem::replace(&mut line, c.to_string()));
                    }
                }
            }
            lines.push(line);
        }
        lines
    }
}

/// The pages of `sheet`, set in `faces` (regular, bold); at least one.
pub fn pages(sheet: &Sheet, faces: &(Face, Face)) -> Vec<Vec<Op>> {
    let mut pen = Pen {
        faces,
        pages: vec![Vec::new()],
        y: TOP,
    };
    head(&mut pen, sheet);
    table(&mut pen, sheet);
    totals(&mut pen, sheet);
    notes(&mut pen, sheet);
    pen.pages
}

fn head(pen: &mut Pen, sheet: &Sheet) {
    let mut y = TOP;
    for (i, line) in sheet.seller.iter().enumerate() {
        let (size, bold) = if i == 0 { (13.0, true) } else { (SIZE, false) };
        pen.text(LEFT, y, size, bold, line);
        y += if i == 0 { 15.0 } else { LEADING };
    }
    let mut left = ADDRESS_TOP.max(y + LEADING);
    let top = left;
    pen.text(LEFT, left, SMALL, false, &sheet.sender);
    pen.rule(LEFT, FACTS_LABEL - 20.0, left + 3.0);
    left += 16.0;
    for line in &sheet.buyer {
        pen.text(LEFT, left, 10.0, false, line);
        left += 13.0;
    }
    let mut right = top;
    for (label, value) in &sheet.facts {
        pen.text(FACTS_LABEL, right, SMALL + 0.5, false, label);
        for line in pen.wrap(value, SMALL + 0.5, false, RIGHT - FACTS_VALUE) {
            pen.text(FACTS_VALUE, right, SMALL + 0.5, false, &line);
            right += 11.0;
        }
    }
    pen.y = left.max(right) + 28.0;
    pen.text(LEFT, pen.y, 15.0, true, &sheet.title);
    pen.y += 26.0;
}

/// The left edge of each column: its share of the text width.
fn columns(sheet: &Sheet) -> Vec<(f32, f32)> {
    let total: f32 = sheet.table.columns.iter().map(|c| c.share).sum();
    let width = RIGHT - LEFT;
    let mut x = LEFT;
    sheet
        .table
        .columns
        .iter()
        .map(|c| {
            let w = match total > 0.0 {
                true => width * c.share / total,
                false => 0.0,
            };
            x += w;
            (x - w, w)
        })
        .collect()
}

fn headings(pen: &mut Pen, sheet: &Sheet, at: &[(f32, f32)]) {
    let y = pen.y;
    for (column, (x, w)) in sheet.table.columns.iter().zip(at) {
        match column.align {
            Align::Left => pen.text(*x, y, SMALL + 0.5, true, &column.heading),
            Align::Right => pen.text_right(x + w, y, SMALL + 0.5, true, &column.heading),
        }
    }
    pen.rule(LEFT, RIGHT, y + 4.0);
    pen.y += LEADING + 4.0;
}

fn table(pen: &mut Pen, sheet: &Sheet) {
    let at = columns(sheet);
    headings(pen, sheet, &at);
    for row in &sheet.table.rows {
        let cells: Vec<Vec<String>> = row
            .iter()
            .zip(&at)
            .map(|(cell, (_, w))| pen.wrap(cell, SIZE, false, (w - CELL_GAP).max(SIZE)))
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1) as f32 * LEADING;
        if pen.room(height + 2.0) {
            headings(pen, sheet, &at);
        }
        let y = pen.y;
        for ((lines, column), (x, w)) in cells.iter().zip(&sheet.table.columns).zip(&at) {
            for (i, line) in lines.iter().enumerate() {
                let line_y = y + i as f32 * LEADING;
                match column.align {
                    Align::Left => pen.text(*x, line_y, SIZE, false, line),
                    Align::Right => pen.text_right(x + w, line_y, SIZE, false, line),
                }
            }
        }
        pen.y += height + 2.0;
    }
    pen.rule(LEFT, RIGHT, pen.y - LEADING + 4.0);
    pen.y += 8.0;
}

fn totals(pen: &mut Pen, sheet: &Sheet) {
    let label = RIGHT - 250.0;
    for (text, amount, strong) in &sheet.totals {
        pen.room(LEADING + 4.0);
        if *strong {
            pen.rule(label, RIGHT, pen.y - LEADING + 3.0);
            pen.y += 2.0;
        }
        pen.text(label, pen.y, SIZE, *strong, text);
        pen.text_right(RIGHT, pen.y, SIZE, *strong, amount);
        pen.y += LEADING + if *strong { 2.0 } else { 0.0 };
    }
    pen.y += 14.0;
}

fn notes(pen: &mut Pen, sheet: &Sheet) {
    for note in &sheet.notes {
        for line in pen.wrap(note, SIZE, false, RIGHT - LEFT) {
            pen.room(LEADING);
            pen.text(LEFT, pen.y, SIZE, false, &line);
            pen.y += LEADING;
        }
        pen.y += 5.0;
    }
}

/// The foot's lines of `sheet` (wrapped to the text width), the last one's right end left for
/// the page label.
pub fn foot(sheet: &Sheet, faces: &(Face, Face), page: usize, pages: usize) -> Vec<Op> {
    let mut pen = Pen {
        faces,
        pages: vec![Vec::new()],
        y: BOTTOM + 30.0,
    };
    pen.rule(LEFT, RIGHT, BOTTOM + 16.0);
    let label = sheet
        .page_label
        .replace("{page}", &page.to_string())
        .replace("{pages}", &pages.to_string());
    pen.text_right(RIGHT, pen.y, SMALL, false, &label);
    let room = RIGHT - LEFT - faces.0.width(&label, SMALL) - 12.0;
    for line in &sheet.footer {
        for part in pen.wrap(line, SMALL, false, room) {
            pen.text(LEFT, pen.y, SMALL, false, &part);
            pen.y += 9.5;
        }
    }
    pen.pages.concat()
}

#[cfg(test)]
mod tests {
    use super::super::fonts::faces;
    use super::super::tests::sheet;
    use super::*;

    fn texts(page: &[Op]) -> Vec<&str> {
        page.iter()
            .filter_map(|op| match op {
                Op::Text { text, .. } => Some(text.as_str()),
                Op::Rule { .. } => None,
            })
            .collect()
    }

    #[test]
    fn rows_that_do_not_fit_go_to_the_next_page_under_the_headings_and_above_the_foot() {
        let faces = faces().unwrap();
        let sheet = sheet(200);
        let pages = pages(&sheet, faces);
        assert!(pages.len() > 3, "{} pages", pages.len());
        for page in &pages {
            for op in page {
                if let Op::Text { y, x, .. } = op {
                    assert!(*y <= BOTTOM && *x >= LEFT - 0.01, "{op:?}");
                }
            }
        }
        // Every row is drawn exactly once, in order, and each page after the first starts
        // with the table's headings.
        let all: Vec<&str> = pages.iter().flat_map(|p| texts(p)).collect();
        let positions: Vec<usize> = (1..=200)
            .map(|i| format!("Teil {i}"))
            .map(|name| all.iter().filter(|t| **t == name).count())
            .collect();
        assert!(positions.iter().all(|n| *n == 1), "{positions:?}");
        for page in &pages[1..] {
            assert_eq!(texts(page)[0], "Pos.");
        }
    }

    #[test]
    fn a_long_description_wraps_inside_its_column_and_a_missing_glyph_is_a_question_mark() {
        let faces = faces().unwrap();
        let mut sheet = sheet(1);
        sheet.table.rows[0][1] =
            "Gehäuse für den Wasserzähler mit Deckel, Dichtung und zwei Schrauben 東".into();
        let pages = pages(&sheet, faces);
        let all = texts(&pages[0]);
        let first = all.iter().position(|t| t.starts_with("Gehäuse"));
        let last = all.iter().position(|t| t.ends_with("Schrauben ?"));
        assert!(first.is_some() && last > first, "{all:?}");
    }
}
