//! Lines the appliance writes itself into records people read — a spool's opening receipt,
//! an import's or an unlink's note, the demo shop's names — in the instance's default language
//! at the time of writing (`de-DE`: German, any other: English). Once written they stay as
//! written, as a person's note does.

use crate::Result;
use storage::repo::{self, Tx};

/// The written lines of one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lines {
    german: bool,
}

impl Lines {
    /// The lines of language `tag` (`de-DE`, else English).
    pub fn of(tag: &str) -> Lines {
        Lines {
            german: tag.starts_with("de"),
        }
    }

    /// The lines of the instance's default language (English before setup). Errors: the
    /// settings cannot be read.
    pub fn of_instance(tx: &impl Tx) -> Result<Lines> {
        let settings = repo::settings(tx)?;
        Ok(settings.map_or(Lines::of("en-US"), |s| Lines::of(&s.default_language)))
    }

    /// `english` or `german`, as the language is.
    pub fn pick<'a>(&self, english: &'a str, german: &'a str) -> &'a str {
        if self.german { german } else { english }
    }

    /// The note of a new spool's first movement.
    pub fn opening_receipt(&self) -> &'static str {
        self.pick("Opening receipt", "Anfangsbestand")
    }

    /// The note of a spool imported from Spoolman's filament `filament`.
    pub fn imported_from_spoolman(&self, filament: u64) -> String {
        if self.german {
            format!("Aus Spoolman übernommen (Filament {filament})")
        } else {
            format!("Imported from Spoolman (filament {filament})")
        }
    }

    /// The note of the balance booked when a spool leaves the spool manager.
    pub fn unlinked(&self) -> &'static str {
        self.pick(
            "Unlinked from the spool manager: confirmed balance",
            "Vom Spulenverwalter gelöst: bestätigter Bestand",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_the_language() {
        assert_eq!(Lines::of("de-DE").opening_receipt(), "Anfangsbestand");
        assert_eq!(Lines::of("en-US").opening_receipt(), "Opening receipt");
        assert_eq!(
            Lines::of("de-DE").imported_from_spoolman(7),
            "Aus Spoolman übernommen (Filament 7)"
        );
        assert_eq!(Lines::of("fr-FR").pick("a", "b"), "a");
    }
}
