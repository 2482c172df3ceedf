//! The words of every alert, in the instance's default language (`de-DE`, else English).
//! Numbers and dates in them follow the language (`1.234,5 g`, `27.11.2026`).

use crate::values::DecimalMark;
use rust_decimal::Decimal;
use storage::records::Interval;

/// The alerts' words in one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    german: bool,
}

impl Words {
    /// The words of the language `tag` (`de-DE` or any other for English).
    pub fn of(tag: &str) -> Words {
        Words {
            german: tag.starts_with("de"),
        }
    }

    fn pick(&self, english: String, german: String) -> String {
        if self.german { german } else { english }
    }

    /// `value` at most one decimal, grouped by thousands as the language writes it
    /// (`1.234,5` in German, `1,234.5` in English).
    pub fn number(&self, value: Decimal) -> String {
        let mark = if self.german {
            DecimalMark::Comma
        } else {
            DecimalMark::Point
        };
        mark.grouped(&value.round_dp(1).normalize().to_string())
    }

    /// `date` as the language writes it.
    pub fn date(&self, date: jiff::civil::Date) -> String {
        if self.german {
            date.strftime("%d.%m.%Y").to_string()
        } else {
            date.to_string()
        }
    }

    /// `LOW_STOCK`.
    pub fn low_stock(&self, filament: &str, left: Decimal, minimum: Decimal) -> (String, String) {
        let (left, minimum) = (self.number(left), self.number(minimum));
        (
            self.pick(
                format!("Low stock: {filament}"),
                format!("Bestand niedrig: {filament}"),
            ),
            self.pick(
                format!("{left} g left, below the threshold of {minimum} g."),
                format!("Noch {left} g, unter dem Mindestbestand von {minimum} g."),
            ),
        )
    }

    /// `SPOOL_EMPTY`.
    pub fn spool_empty(&self, code: &str, filament: &str) -> (String, String) {
        (
            self.pick(
                format!("Spool empty: {code}"),
                format!("Spule leer: {code}"),
            ),
            self.pick(
                format!("Spool {code} ({filament}) has no filament left."),
                format!("Auf der Spule {code} ({filament}) ist kein Filament mehr."),
            ),
        )
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
        let (length, unit_en, unit_de) = match every {
            Interval::Hours(n) => (n, "h", "h"),
            Interval::Prints(n) => (n, "prints", "Drucke"),
            Interval::Days(n) => (n, "days", "Tage"),
        };
        let used = self.number(used);
        let title = match (overdue, self.german) {
            (false, false) => format!("Maintenance due: {task}"),
            (false, true) => format!("Wartung fällig: {task}"),
            (true, false) => format!("Maintenance overdue: {task}"),
            (true, true) => format!("Wartung überfällig: {task}"),
        };
        let message = self.pick(
            format!("{task} on {subject}: {used} of {length} {unit_en} used."),
            format!("{task} an {subject}: {used} von {length} {unit_de} verbraucht."),
        );
        (title, message)
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
        (
            self.pick(
                format!("Print failed: {print}"),
                format!("Druck fehlgeschlagen: {print}"),
            ),
            self.pick(
                format!("{print} failed on {day}.{because}"),
                format!("{print} ist am {day} fehlgeschlagen.{because}"),
            ),
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
        let mark = if self.german {
            DecimalMark::Comma
        } else {
            DecimalMark::Point
        };
        let amount = mark.grouped(&format!("{:.2}", outstanding.round_dp(2)));
        let due = self.date(due);
        (
            self.pick(
                format!("Invoice overdue: {number}"),
                format!("Rechnung überfällig: {number}"),
            ),
            self.pick(
                format!(
                    "{number} to {buyer} was due on {due}; {amount} {currency} are still open."
                ),
                format!(
                    "{number} an {buyer} war am {due} fällig; {amount} {currency} sind noch offen."
                ),
            ),
        )
    }

    /// `INTEGRATION_FAILING` of the peer shown as `peer` (Spoolman, Bambuddy).
    pub fn integration_failing(&self, peer: &str, since: &str) -> (String, String) {
        (
            self.pick(
                format!("{peer} does not answer"),
                format!("{peer} antwortet nicht"),
            ),
            self.pick(
                format!("No answer from {peer} since {since}."),
                format!("Keine Antwort von {peer} seit {since}."),
            ),
        )
    }

    /// `OPERATION_UNKNOWN`.
    pub fn operation_unknown(&self, grams: Decimal, remote_spool: u64) -> (String, String) {
        let grams = self.number(grams);
        (
            self.pick(
                "Spoolman booking unknown".to_string(),
                "Spoolman-Buchung ungewiss".to_string(),
            ),
            self.pick(
                format!(
                    "Whether Spoolman booked {grams} g on its spool {remote_spool} is unknown: check the spool there, then confirm or resend the operation."
                ),
                format!(
                    "Ob Spoolman {grams} g auf seiner Spule {remote_spool} gebucht hat, ist ungewiss: dort prüfen, dann die Buchung bestätigen oder erneut senden."
                ),
            ),
        )
    }

    /// `SOURCE_OFFLINE`.
    pub fn source_offline(&self, source: &str) -> (String, String) {
        (
            self.pick(
                format!("Modbus source offline: {source}"),
                format!("Modbus-Quelle offline: {source}"),
            ),
            self.pick(
                format!("The source {source} does not answer its polls."),
                format!("Die Quelle {source} antwortet nicht auf Abfragen."),
            ),
        )
    }

    /// `BACKUP_STALE`: the newest backup's day, or none.
    pub fn backup_stale(&self, newest: Option<jiff::civil::Date>, days: u16) -> (String, String) {
        let message = match newest {
            Some(day) => {
                let day = self.date(day);
                self.pick(
                    format!("The newest backup is from {day}, more than {days} days ago."),
                    format!("Die neueste Sicherung ist vom {day}, älter als {days} Tage."),
                )
            }
            None => self.pick(
                format!("No backup was written in the last {days} days."),
                format!("In den letzten {days} Tagen wurde keine Sicherung geschrieben."),
            ),
        };
        (
            self.pick("Backup too old".into(), "Sicherung zu alt".into()),
            message,
        )
    }

    /// `BACKUP_FAILED`.
    pub fn backup_failed(&self, error: &str) -> (String, String) {
        (
            self.pick("Backup failed".into(), "Sicherung fehlgeschlagen".into()),
            error.to_string(),
        )
    }

    /// The test message.
    pub fn test(&self) -> (String, String) {
        (
            self.pick("printcost test alert".into(), "printcost-Testalarm".into()),
            self.pick(
                "printcost reaches this channel.".into(),
                "printcost erreicht diesen Kanal.".into(),
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn german_words_use_the_decimal_comma_and_german_dates() {
        let de = Words::of("de-DE");
        let (title, message) = de.low_stock("Prusament PLA", Decimal::new(12345, 1), 2000.into());
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
        let (_, message) = Words::of("en-US").low_stock("PLA", Decimal::new(5, 1), 1.into());
        assert_eq!(message, "0.5 g left, below the threshold of 1 g.");
    }
}
