//! How issued invoices and credit notes are numbered (Settings › Company, "Numbers"): each range
//! a pattern with the year and a zero-padded counter (`{YYYY}-{NNNN}` → `2026-0001`), restarting
//! each year if set; credit notes in the invoices' range or in their own. A number is taken from
//! the range's counter in the transaction that issues the document (`repo::next_number`), so it
//! is gapless; a number an issued document already carries is never given again (the issue is
//! refused until the pattern is changed).

use crate::command::{Command, Query, SettingsWriter, Snapshot};
use crate::txn::Txn;
use crate::{Error, FieldError, Result};
use storage::records::{Invoice, InvoiceKind, NumberRange, Numbering};
use storage::repo;

/// The longest pattern, in characters.
const MAX_PATTERN: usize = 40;

/// The parts of a pattern: text, the year (4 or 2 digits) and the counter (its minimum digits).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Year(u8),
    Counter(usize),
}

/// `pattern` in parts; `None` unless it has exactly one counter (`{N}` … `{NNNNNNNNN}`), years
/// only as `{YYYY}` or `{YY}`, and otherwise letters, digits and `-/_.` only.
fn parts(pattern: &str) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}')? + open;
        if open > 0 {
            parts.push(Part::Text(rest[..open].to_string()));
        }
        parts.push(match &rest[open + 1..close] {
            "YYYY" => Part::Year(4),
            "YY" => Part::Year(2),
            n if !n.is_empty() && n.len() <= 9 && n.chars().all(|c| c == 'N') => {
                Part::Counter(n.len())
            }
            _ => return None,
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest.to_string()));
    }
    let text_ok = parts.iter().all(|p| match p {
        Part::Text(t) => t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-/_.".contains(c)),
        _ => true,
    });
    let counters = parts
        .iter()
        .filter(|p| matches!(p, Part::Counter(_)))
        .count();
    (text_ok && counters == 1).then_some(parts)
}

/// The faults of `range` at `at` (`invoices`, `creditNotes`): `at.pattern`
/// `errors.invalidPattern` (see [`parts`]) or `errors.tooLong`; `errors.patternYear` when it
/// restarts each year but names no year (its numbers would repeat).
fn faults(range: &NumberRange, at: &str) -> Vec<FieldError> {
    let path = format!("{at}.pattern");
    if range.pattern.chars().count() > MAX_PATTERN {
        return vec![FieldError::new(path, "errors.tooLong")];
    }
    match parts(&range.pattern) {
        None => vec![FieldError::new(path, "errors.invalidPattern")],
        Some(parts) if range.yearly && !parts.iter().any(|p| matches!(p, Part::Year(_))) => {
            vec![FieldError::new(path, "errors.patternYear")]
        }
        Some(_) => Vec::new(),
    }
}

/// `pattern` for counter `n` in `year`; the pattern as it is when it does not parse.
pub fn format(pattern: &str, year: i16, n: u32) -> String {
    let Some(parts) = parts(pattern) else {
        return pattern.to_string();
    };
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.clone(),
            Part::Year(4) => format!("{year:04}"),
            Part::Year(_) => format!("{:02}", year.rem_euclid(100)),
            Part::Counter(digits) => format!("{n:0digits$}"),
        })
        .collect()
}

/// Checks and stores how documents are numbered. Errors: [`Error::Validation`] as [`faults`],
/// `creditNotes.pattern` `errors.duplicate` when it is the invoices' pattern.
pub fn set(txn: &Txn, numbering: Numbering) -> Result<Numbering> {
    let mut all = faults(&numbering.invoices, "invoices");
    if let Some(notes) = &numbering.credit_notes {
        all.extend(faults(notes, "creditNotes"));
        if notes.pattern == numbering.invoices.pattern {
            all.push(FieldError::new("creditNotes.pattern", "errors.duplicate"));
        }
    }
    if !all.is_empty() {
        return Err(Error::Validation(all));
    }
    repo::put_numbering(txn, &numbering)?;
    Ok(numbering)
}

/// The next number for a document of `kind` issued in `year`, taken from its range's counter
/// in `txn` (the invoices' range `R`, the credit notes' own `G`; `-YYYY` added when yearly).
///
/// Errors: [`Error::Duplicate`] at `invoices.pattern` (or `creditNotes.pattern`) when an issued
/// document already carries that number (a pattern changed back, a yearly range made
/// continuous): nothing is taken, and the shop changes the pattern.
pub fn next(txn: &Txn, kind: InvoiceKind, year: i16) -> Result<String> {
    let numbering = repo::numbering(txn)?;
    let (range, key, at) = match (kind, &numbering.credit_notes) {
        (InvoiceKind::CreditNote, Some(own)) => (own, "G", "creditNotes.pattern"),
        _ => (&numbering.invoices, "R", "invoices.pattern"),
    };
    let key = match range.yearly {
        true => format!("{key}-{year:04}"),
        false => key.to_string(),
    };
    let number = format(&range.pattern, year, repo::next_number(txn, &key)?);
    let taken = repo::all::<Invoice>(txn)?
        .iter()
        .any(|i| i.issued.as_ref().is_some_and(|d| d.number == number));
    match taken {
        true => Err(Error::Duplicate(FieldError::new(at, "errors.numberTaken"))),
        false => Ok(number),
    }
}

/// How documents are numbered.
pub struct GetNumbering;

impl Query for GetNumbering {
    type Answer = Numbering;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Numbering> {
        Ok(repo::numbering(snapshot)?)
    }
}

/// Replaces how documents are numbered; replies with it. Errors: as [`set`].
pub struct SetNumbering(pub Numbering);

impl Command for SetNumbering {
    type Writer = SettingsWriter;
    type Reply = Numbering;

    fn apply(&mut self, txn: &Txn) -> Result<Numbering> {
        set(txn, self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(pattern: &str, yearly: bool) -> NumberRange {
        NumberRange {
            pattern: pattern.into(),
            yearly,
        }
    }

    #[test]
    fn a_pattern_gives_the_year_and_the_zero_padded_counter() {
        assert_eq!(format("{YYYY}-{NNNN}", 2026, 1), "2026-0001");
        assert_eq!(format("RE-{YY}{NNNNN}", 2026, 42), "RE-2600042");
        assert_eq!(format("{NNN}", 2026, 12345), "12345");
        assert_eq!(format("GS/{YYYY}/{N}", 2027, 7), "GS/2027/7");
    }

    #[test]
    fn a_pattern_needs_one_counter_and_a_yearly_one_a_year() {
        for (pattern, yearly, key) in [
            ("{YYYY}", true, "errors.invalidPattern"),
            ("{NNN}-{NNN}", false, "errors.invalidPattern"),
            ("{YYYY}-{NNNN", true, "errors.invalidPattern"),
            ("R {NNNN}", false, "errors.invalidPattern"),
            ("{MM}-{NNNN}", false, "errors.invalidPattern"),
            ("RE-{NNNN}", true, "errors.patternYear"),
            ("{NNNNNNNNNN}", false, "errors.invalidPattern"),
        ] {
            let found = faults(&range(pattern, yearly), "invoices");
            assert_eq!(
                found,
                vec![FieldError::new("invoices.pattern", key)],
                "{pattern}"
            );
        }
        assert!(faults(&range("RE-{NNNNNN}", false), "invoices").is_empty());
        assert!(faults(&range("{YY}{NNNN}", true), "invoices").is_empty());
    }
}
