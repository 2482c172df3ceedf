//! The words of every alert, in the instance's default language (`de-DE`, else English), taken
//! from the one message catalogue ([`crate::words`], keys `alert.*`). Numbers and dates in them
//! follow the language (`1.234,5 g`, `27.11.2026`).

use crate::words::{self, Lang};
use rust_decimal::Decimal;
use storage::records::{Interval, StockUnit};

/// The alerts' words in one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    lang: Lang,
}

impl Words {
    /// The words of the language `tag` (`de-DE` or any other for English).
    pub fn of(tag: &str) -> Words {
        Words {
            lang: Lang::of(tag),
        }
    }

    /// The title and the message under `key` (`alert.<key>.title`, `alert.<key>.message`).
    fn pair(&self, key: &str, values: &[(&str, &str)]) -> (String, String) {
        (
            self.lang.fill(&format!("alert.{key}.title"), values),
            self.lang.fill(&format!("alert.{key}.message"), values),
        )
    }

    /// `value` at most one decimal, grouped by thousands as the language writes it
    /// (`1.234,5` in German, `1,234.5` in English).
    pub fn number(&self, value: Decimal) -> String {
        self.lang
            .decimal_mark()
            .grouped(&value.round_dp(1).normalize().to_string())
    }

    /// `date` as the language writes it.
    pub fn date(&self, date: jiff::civil::Date) -> String {
        match self.lang {
            Lang::DeDe => date.strftime("%d.%m.%Y").to_string(),
            Lang::EnUs => date.to_string(),
        }
    }

    /// `LOW_STOCK`.
    ///
    /// `left` and `minimum` are in `unit`, written with its sign (`g`, `ml`, `pcs`/`Stk.`).
    pub fn low_stock(
        &self,
        filament: &str,
        left: Decimal,
        minimum: Decimal,
        unit: StockUnit,
    ) -> (String, String) {
        let (left, minimum) = (self.number(left), self.number(minimum));
        let unit = self.lang.text(words::unit_key(unit));
        let (title, message) = self.pair(
            "lowStock",
            &[
                ("filament", filament),
                ("left", &left),
                ("minimum", &minimum),
                ("unit", unit),
            ],
        );
        (title, one_full_stop(message))
    }

    /// `SPOOL_EMPTY`.
    pub fn spool_empty(&self, code: &str, filament: &str) -> (String, String) {
        self.pair("spoolEmpty", &[("code", code), ("filament", filament)])
    }

    /// `MAINTENANCE_DUE` (`overdue` false) or `MAINTENANCE_OVERDUE`.
    pub fn maintenance(
        &self,
        overdue: bool,
        task: &str,
        subject: &str,
        used: Decimal,
        every: Interval,
    ) -> (String, String) {
        let (length, unit) = match every {
            Interval::Hours(n) => (n, "alert.unit.hours"),
            Interval::Prints(n) => (n, "alert.unit.prints"),
            Interval::Days(n) => (n, "alert.unit.days"),
        };
        let (used, length) = (self.number(used), length.to_string());
        let values = [
            ("task", task),
            ("subject", subject),
            ("used", used.as_str()),
            ("length", length.as_str()),
            ("unit", self.lang.text(unit)),
        ];
        let title = if overdue {
            "alert.maintenanceOverdue.title"
        } else {
            "alert.maintenanceDue.title"
        };
        (
            self.lang.fill(title, &values),
            self.lang.fill("alert.maintenance.message", &values),
        )
    }

    /// `PRINT_FAILED`.
    pub fn print_failed(
        &self,
        print: &str,
        day: jiff::civil::Date,
        reason: Option<&str>,
    ) -> (String, String) {
        let day = self.date(day);
        let because = reason.map_or_else(String::new, |r| format!(" {r}"));
        self.pair(
            "printFailed",
            &[("print", print), ("day", &day), ("because", &because)],
        )
    }

    /// `INVOICE_OVERDUE`: invoice `number` to `buyer`, due on `due`, `outstanding` (in
    /// `currency`) still open.
    pub fn invoice_overdue(
        &self,
        number: &str,
        buyer: &str,
        due: jiff::civil::Date,
        (outstanding, currency): (Decimal, &str),
    ) -> (String, String) {
        let amount = self
            .lang
            .decimal_mark()
            .grouped(&format!("{:.2}", outstanding.round_dp(2)));
        let due = self.date(due);
        self.pair(
            "invoiceOverdue",
            &[
                ("number", number),
                ("buyer", buyer),
                ("due", &due),
                ("amount", &amount),
                ("currency", currency),
            ],
        )
    }

    /// `INTEGRATION_FAILING` of the peer shown as `peer` (Spoolman, Bambuddy).
    pub fn integration_failing(&self, peer: &str, since: &str) -> (String, String) {
        self.pair("integrationFailing", &[("peer", peer), ("since", since)])
    }

    /// `OPERATION_UNKNOWN`.
    pub fn operation_unknown(&self, grams: Decimal, remote_spool: u64) -> (String, String) {
        let (grams, remote_spool) = (self.number(grams), remote_spool.to_string());
        self.pair(
            "operationUnknown",
            &[("grams", &grams), ("remoteSpool", &remote_spool)],
        )
    }

    /// `SOURCE_OFFLINE`.
    pub fn source_offline(&self, source: &str) -> (String, String) {
        self.pair("sourceOffline", &[("source", source)])
    }

    /// `BACKUP_STALE`: the newest backup's day, or none.
    pub fn backup_stale(&self, newest: Option<jiff::civil::Date>, days: u16) -> (String, String) {
        let days = days.to_string();
        let message = match newest {
            Some(day) => self.lang.fill(
                "alert.backupStale.message",
                &[("day", &self.date(day)), ("days", &days)],
            ),
            None => self.lang.fill("alert.backupStale.none", &[("days", &days)]),
        };
        (
            self.lang.text("alert.backupStale.title").to_string(),
            message,
        )
    }

    /// `BACKUP_FAILED`.
    pub fn backup_failed(&self, error: &str) -> (String, String) {
        (
            self.lang.text("alert.backupFailed.title").to_string(),
            error.to_string(),
        )
    }

    /// The test message.
    pub fn test(&self) -> (String, String) {
        self.pair("test", &[])
    }
}

/// `text` with one full stop where an abbreviation ends its sentence (`50 Stk..` → `50 Stk.`):
/// the abbreviation's point is the sentence's (Duden, "Punkt", rule on abbreviations).
fn one_full_stop(mut text: String) -> String {
    if text.ends_with("..") && !text.ends_with("...") {
        text.pop();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn german_words_use_the_decimal_comma_and_german_dates() {
        let de = Words::of("de-DE");
        let (title, message) = de.low_stock(
            "Prusament PLA",
            Decimal::new(12345, 1),
            2000.into(),
            StockUnit::Gram,
        );
        assert_eq!(title, "Bestand niedrig: Prusament PLA");
        assert_eq!(
            message,
            "Noch 1.234,5 g, unter dem Mindestbestand von 2.000 g."
        );
        assert_eq!(de.number(Decimal::new(-12_345_678, 0)), "-12.345.678");
        assert_eq!(
            Words::of("en-US").number(Decimal::new(1_000_005, 1)),
            "100,000.5"
        );
        let day = jiff::civil::date(2026, 11, 27);
        assert_eq!(de.date(day), "27.11.2026");
        assert_eq!(Words::of("en-US").date(day), "2026-11-27");
        let en = Words::of("en-US");
        let (_, message) = en.low_stock("PLA", Decimal::new(5, 1), 1.into(), StockUnit::Gram);
        assert_eq!(message, "0.5 g left, below the threshold of 1 g.");
        let (_, message) = de.low_stock("Handschuhe", 7.into(), 50.into(), StockUnit::Piece);
        assert_eq!(message, "Noch 7 Stk., unter dem Mindestbestand von 50 Stk.");
        let (_, message) = en.low_stock("Resin", 250.into(), 500.into(), StockUnit::Millilitre);
        assert_eq!(message, "250 ml left, below the threshold of 500 ml.");
    }

    /// Every alert's words come out of the catalogue whole in both languages: no key shown in
    /// place of a missing text, no placeholder left unfilled.
    #[test]
    fn every_alert_is_worded_from_the_catalogue_in_both_languages() {
        let day = jiff::civil::date(2026, 11, 27);
        for tag in ["en-US", "de-DE"] {
            let w = Words::of(tag);
            let all = [
                w.low_stock("PLA", 1.into(), 2.into(), StockUnit::Piece),
                w.spool_empty("S-1", "PLA"),
                w.maintenance(false, "Nozzle", "MK4", 1.into(), Interval::Hours(5)),
                w.maintenance(true, "Belt", "MK4", 1.into(), Interval::Prints(5)),
                w.maintenance(true, "Clean", "MK4", 1.into(), Interval::Days(5)),
                w.print_failed("P-1", day, Some("warped")),
                w.invoice_overdue("R-1", "ACME", day, (Decimal::new(1050, 2), "EUR")),
                w.integration_failing("Spoolman", "10:00"),
                w.operation_unknown(12.into(), 7),
                w.source_offline("plug"),
                w.backup_stale(Some(day), 3),
                w.backup_stale(None, 3),
                w.backup_failed("disk full"),
                w.test(),
            ];
            for (title, message) in all {
                for text in [&title, &message] {
                    assert!(
                        !text.contains("alert.") && !text.contains('{'),
                        "{tag}: {text}"
                    );
                    assert!(!text.is_empty(), "{tag}: {title}");
                }
            }
        }
        let (title, message) = Words::of("en-US").maintenance(
            true,
            "Belt",
            "MK4",
            Decimal::new(55, 1),
            Interval::Prints(5),
        );
        assert_eq!(title, "Maintenance overdue: Belt");
        assert_eq!(message, "Belt on MK4: 5.5 of 5 prints used.");
    }
}
