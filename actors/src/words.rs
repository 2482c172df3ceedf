//! The appliance's words in its two languages: one message catalogue per language, used by the
//! browser UI (`web`) and by everything the appliance writes on its own (the alerts' titles and
//! messages).
//!
//! Catalogues are `actors/locales/<locale>.txt`, one `key = text` per line (`#` starts a
//! comment), embedded in the binary and parsed once. Both hold the same keys (a test checks); a
//! key missing at run time renders as the key itself, so a gap shows instead of breaking a page.
//! Placeholders are written `{name}` and filled by [`Lang::fill`].

use crate::values::DecimalMark;
use std::collections::HashMap;
use std::sync::LazyLock;
use storage::records::StockUnit;

/// The message key of `unit`'s sign: `unit.g`, `unit.ml`, `unit.pcs` (`Stk.` in German).
pub fn unit_key(unit: StockUnit) -> &'static str {
    match unit {
        StockUnit::Gram => "unit.g",
        StockUnit::Millilitre => "unit.ml",
        StockUnit::Piece => "unit.pcs",
    }
}

/// A language the appliance speaks: the locales the API accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English (United States), the fallback.
    EnUs,
    /// German (Germany).
    DeDe,
}

impl Lang {
    /// The language of a stored locale tag (`de-DE`, or any `de…`); anything else is en-US.
    pub fn of(tag: &str) -> Lang {
        if tag.starts_with("de") {
            Lang::DeDe
        } else {
            Lang::EnUs
        }
    }

    /// The decimal mark its people write and type.
    pub fn decimal_mark(self) -> DecimalMark {
        match self {
            Lang::EnUs => DecimalMark::Point,
            Lang::DeDe => DecimalMark::Comma,
        }
    }

    /// The BCP 47 tag (`en-US`, `de-DE`).
    pub fn tag(self) -> &'static str {
        match self {
            Lang::EnUs => "en-US",
            Lang::DeDe => "de-DE",
        }
    }

    /// The message for `key`, or `key` itself when the catalogue lacks it.
    pub fn text(self, key: &str) -> &str {
        self.catalogue().get(key).copied().unwrap_or(key)
    }

    /// The message for `key` with each `{name}` replaced by its value, in one pass (a value
    /// that itself reads `{name}` stays as it is); a `{name}` without a value stays too.
    pub fn fill(self, key: &str, values: &[(&str, &str)]) -> String {
        let template = self.text(key);
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let named = after.find('}').and_then(|close| {
                let value = values.iter().find(|(name, _)| *name == &after[..close])?;
                Some((close, value.1))
            });
            match named {
                Some((close, value)) => {
                    out.push_str(value);
                    rest = &after[close + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    fn catalogue(self) -> &'static HashMap<&'static str, &'static str> {
        match self {
            Lang::EnUs => &EN_US,
            Lang::DeDe => &DE_DE,
        }
    }
}

static EN_US: LazyLock<HashMap<&'static str, &'static str>> =
    LazyLock::new(|| parse(include_str!("../locales/en-US.txt")));
static DE_DE: LazyLock<HashMap<&'static str, &'static str>> =
    LazyLock::new(|| parse(include_str!("../locales/de-DE.txt")));

/// `key = text` lines; blank lines and `#` comments skipped.
fn parse(text: &'static str) -> HashMap<&'static str, &'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn both_catalogs_hold_the_same_keys() {
        let en: BTreeSet<_> = EN_US.keys().collect();
        let de: BTreeSet<_> = DE_DE.keys().collect();
        assert!(!en.is_empty());
        assert_eq!(
            en.symmetric_difference(&de).collect::<Vec<_>>(),
            Vec::<&&&str>::new()
        );
    }

    /// The German catalogue addresses the owner as *Sie* throughout: no *du*, *dein*, *dir*,
    /// and no informal imperative of the verbs its instructions use (exportieren, slicen,
    /// speichern, wählen, prüfen, geben).
    #[test]
    fn the_german_catalogue_says_sie() {
        let informal = [
            "du",
            "Du",
            "dein",
            "deine",
            "deinen",
            "dir",
            "dich",
            "Exportiere",
            "exportiere",
            "Speichere",
            "speichere",
            "Wähle",
            "wähle",
            "Prüfe",
            "prüfe",
            "Gib",
            "gib",
        ];
        for (key, text) in DE_DE.iter() {
            let words = text.split(|c: char| !c.is_alphanumeric());
            for word in words {
                assert!(!informal.contains(&word), "{key}: {word} in {text}");
            }
            assert!(!text.contains("Slice es"), "{key}: {text}");
        }
    }

    #[test]
    fn placeholders_are_filled_and_a_missing_key_shows_itself() {
        assert_eq!(
            Lang::EnUs.fill("peer.failed", &[("peer", "Spoolman"), ("url", "http://s")]),
            "Spoolman at http://s could not be reached."
        );
        assert_eq!(
            Lang::EnUs.fill("peer.failed", &[("peer", "{url}"), ("url", "x")]),
            "{url} at x could not be reached.",
            "a value is not filled again"
        );
        assert_eq!(
            Lang::EnUs.fill("peer.failed", &[("peer", "S")]),
            "S at {url} could not be reached."
        );
        assert_eq!(Lang::DeDe.text("no.such.key"), "no.such.key");
        assert_eq!(Lang::of("de-AT"), Lang::DeDe);
        assert_eq!(Lang::of("fr-FR"), Lang::EnUs);
    }
}
