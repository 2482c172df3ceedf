//! Localization of the browser UI: the formatting of numbers, money and dates for `en-US` and
//! `de-DE` (the locales the API accepts). The words come from the one message catalogue,
//! [`actors::words`].
//!
//! Numbers follow CLDR's symbols: `1,234.5` in en-US, `1.234,5` in de-DE. Money is rounded half
//! away from zero to 2 places for display only (stored values stay exact), with the currency
//! symbol before the amount in en-US (`€1,234.50`) and after it in de-DE (`1.234,50 €`); codes
//! without a common symbol are written out (`CHF 1,234.50`).

use jiff::civil::Date;
use jiff::tz::{Offset, TimeZone};
use jiff::{Timestamp, Zoned};
use rust_decimal::{Decimal, RoundingStrategy};
use std::borrow::Borrow;

pub use actors::words::Lang;

/// The language of those the UI speaks that the request's `Accept-Language` ranks first
/// (`de-AT;q=0.9, en;q=0.8` is German); English without one.
pub fn preferred(req: &actix_web::HttpRequest) -> Lang {
    use actix_web::http::header::{AcceptLanguage, Header, Preference};
    let ranked = AcceptLanguage::parse(req)
        .map(|h| h.ranked())
        .unwrap_or_default();
    ranked
        .iter()
        .find_map(|preference| match preference {
            Preference::Specific(tag) => match tag.primary_language() {
                "de" => Some(Lang::DeDe),
                "en" => Some(Lang::EnUs),
                _ => None,
            },
            Preference::Any => Some(Lang::EnUs),
        })
        .unwrap_or(Lang::EnUs)
}

/// Messages and formats of one locale, the instance currency and the shop's time zone;
/// templates call it as `t`.
#[derive(Debug, Clone)]
pub struct Tr {
    /// The locale.
    pub lang: Lang,
    /// ISO 4217 code of the instance currency.
    pub currency: String,
    /// The shop's time zone, in which timestamps are shown.
    pub zone: TimeZone,
}

impl Tr {
    /// A timestamp (RFC 3339) on the shop's clock in a form a spreadsheet of this language reads
    /// as a date and time: `28.11.2026 14:05` (German), `2026-11-28 14:05` (English); the text
    /// as it is when it is not one.
    pub fn sheet_datetime(&self, value: &str) -> String {
        let Some(at) = self.local(value) else {
            return value.to_string();
        };
        match self.lang {
            Lang::DeDe => at.strftime("%d.%m.%Y %H:%M").to_string(),
            Lang::EnUs => at.strftime("%Y-%m-%d %H:%M").to_string(),
        }
    }

    /// The shop's time zone by its IANA name (`Europe/Berlin`), else its offset (`UTC`, a
    /// fixed `+01:00`): what every page says its times are in.
    pub fn zone_name(&self) -> String {
        self.zone.iana_name().map_or_else(
            || {
                let offset = self.zone.to_offset(Timestamp::now());
                if offset == Offset::UTC {
                    "UTC".to_string()
                } else {
                    offset.to_string()
                }
            },
            str::to_string,
        )
    }

    /// A translator for `lang` showing money in `currency` and times in `zone`.
    pub fn new(lang: Lang, currency: &str, zone: TimeZone) -> Tr {
        Tr {
            lang,
            currency: currency.to_string(),
            zone,
        }
    }

    /// The message for `key`, or `key` itself when the catalogue lacks it.
    pub fn t<'a>(&self, key: &'a str) -> &'a str {
        self.lang.text(key)
    }

    /// `value` as a form shows it to be typed over: a canonical decimal (`77.14`) with the
    /// language's mark (`77,14` in German; never grouped, so it reads back as it is); any
    /// other text (a value as the person typed it) as it is.
    pub fn typed(&self, value: &str) -> String {
        let unsigned = value.strip_prefix('-').unwrap_or(value);
        let canonical = unsigned.split_once('.').is_some_and(|(whole, fraction)| {
            [whole, fraction]
                .iter()
                .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        });
        match self.lang {
            Lang::DeDe if canonical => value.replacen('.', ",", 1),
            _ => value.to_string(),
        }
    }

    /// `value` with `places` decimals (half away from zero) and grouped thousands.
    pub fn number(&self, value: impl Borrow<Decimal>, places: u32) -> String {
        let rounded = value
            .borrow()
            .round_dp_with_strategy(places, RoundingStrategy::MidpointAwayFromZero);
        let text = format!("{:.*}", places as usize, rounded.abs());
        let sign = if rounded.is_sign_negative() && !rounded.is_zero() {
            "-"
        } else {
            ""
        };
        self.lang.decimal_mark().grouped(&format!("{sign}{text}"))
    }

    /// A decimal string as the API writes them (`"12.5"`), formatted; unparsable text as it is.
    pub fn number_str(&self, value: &str, places: u32) -> String {
        value
            .parse::<Decimal>()
            .map_or_else(|_| value.to_string(), |v| self.number(v, places))
    }

    /// A decimal string as the API writes them, formatted with all its decimals (`"0.4"` →
    /// `0,4` in de-DE); unparsable text as it is.
    pub fn exact_str(&self, value: &str) -> String {
        value
            .parse::<Decimal>()
            .map_or_else(|_| value.to_string(), |v| self.exact(v))
    }

    /// `value` with all its decimals and grouped thousands (`1927.50` → `1.927,5` in de-DE).
    pub fn exact(&self, value: Decimal) -> String {
        self.number(value, value.normalize().scale())
    }

    /// An amount of the instance currency, 2 decimals.
    pub fn money(&self, value: impl Borrow<Decimal>) -> String {
        let amount = self.number(value, 2);
        let symbol = match self.currency.as_str() {
            "EUR" => Some("€"),
            "USD" => Some("$"),
            "GBP" => Some("£"),
            _ => None,
        };
        match (self.lang, symbol) {
            (Lang::EnUs, Some(symbol)) => match amount.strip_prefix('-') {
                Some(positive) => format!("-{symbol}{positive}"),
                None => format!("{symbol}{amount}"),
            },
            (Lang::EnUs, None) => format!("{} {amount}", self.currency),
            (Lang::DeDe, symbol) => format!("{amount} {}", symbol.unwrap_or(&self.currency)),
        }
    }

    /// A decimal string from the API as money; an empty or null value as a dash.
    pub fn money_str(&self, value: &str) -> String {
        value
            .parse::<Decimal>()
            .map_or_else(|_| "–".to_string(), |v| self.money(v))
    }

    /// A calendar date: `11/21/2026` in en-US, `21.11.2026` in de-DE. A timestamp (RFC 3339,
    /// as the API writes them) is first taken to the shop's time zone, so a print completed at
    /// 23:30 UTC counts on the next day in Berlin; a `YYYY-MM-DD` date is shown as it is; other
    /// text is returned unchanged.
    pub fn date(&self, value: &str) -> String {
        match self.local(value) {
            Some(at) => self.civil_date(at.date()),
            None => value
                .parse::<Date>()
                .map_or_else(|_| value.to_string(), |day| self.civil_date(day)),
        }
    }

    /// A timestamp (RFC 3339) as the shop's wall clock shows it: `11/21/2026, 2:05 PM` in
    /// en-US, `21.11.2026, 14:05` in de-DE (CLDR's medium date with short time). Other text is
    /// returned unchanged.
    pub fn datetime(&self, value: &str) -> String {
        let Some(at) = self.local(value) else {
            return value.to_string();
        };
        let clock = match self.lang {
            Lang::EnUs => at.strftime("%-I:%M %p").to_string(),
            Lang::DeDe => at.strftime("%H:%M").to_string(),
        };
        format!("{}, {clock}", self.civil_date(at.date()))
    }

    /// A chart's bucket, short: a day (`YYYY-MM-DD`) as `11/21` in en-US and `21.11.` in
    /// de-DE, a month (`YYYY-MM`) as `11/2026` and `11.2026` (CLDR's `Md` and `yM`
    /// skeletons); other text as it is.
    pub fn bucket(&self, value: &str) -> String {
        if let Ok(day) = value.parse::<Date>() {
            return match self.lang {
                Lang::EnUs => day.strftime("%m/%d").to_string(),
                Lang::DeDe => day.strftime("%d.%m.").to_string(),
            };
        }
        match value.split_once('-') {
            Some((year, month)) if year.len() == 4 && month.len() == 2 => match self.lang {
                Lang::EnUs => format!("{month}/{year}"),
                Lang::DeDe => format!("{month}.{year}"),
            },
            _ => value.to_string(),
        }
    }

    /// A day as the locale writes it (numeric, four-digit year).
    fn civil_date(&self, day: Date) -> String {
        match self.lang {
            Lang::EnUs => day.strftime("%m/%d/%Y").to_string(),
            Lang::DeDe => day.strftime("%d.%m.%Y").to_string(),
        }
    }

    /// A timestamp (RFC 3339) as a `datetime-local` field's value in the shop's time zone, to
    /// the second (`2026-11-20T11:00:07`): a run's start and end sent back as shown stay the
    /// times the meter was read at, not the minute before; empty when it is not one.
    pub fn field_datetime(&self, value: &str) -> String {
        self.local(value)
            .map(|at| at.strftime("%Y-%m-%dT%H:%M:%S").to_string())
            .unwrap_or_default()
    }

    /// A `datetime-local` field's value (`2026-11-20T11:00`), a wall-clock time in the shop's
    /// time zone, as the API's RFC 3339 timestamp; `None` when it is not one.
    pub fn from_field_datetime(&self, value: &str) -> Option<String> {
        let civil = value.trim().parse::<jiff::civil::DateTime>().ok()?;
        let zoned = civil.to_zoned(self.zone.clone()).ok()?;
        Some(zoned.timestamp().to_string())
    }

    /// `value` read as a timestamp and taken to the shop's time zone.
    fn local(&self, value: &str) -> Option<Zoned> {
        let at = value.parse::<Timestamp>().ok()?;
        Some(at.to_zoned(self.zone.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actors::values::DecimalMark;

    #[test]
    fn forms_show_canonical_decimals_with_the_languages_mark_and_typed_text_as_it_is() {
        let (de, en) = (
            Tr::new(Lang::DeDe, "EUR", TimeZone::UTC),
            Tr::new(Lang::EnUs, "EUR", TimeZone::UTC),
        );
        assert_eq!(de.typed("77.14"), "77,14");
        assert_eq!(de.typed("-2.5"), "-2,5");
        assert_eq!(de.typed("1000"), "1000");
        assert_eq!(de.typed("1.299,50"), "1.299,50", "as typed");
        assert_eq!(de.typed("12,5"), "12,5");
        assert_eq!(en.typed("77.14"), "77.14");
        assert_eq!(Lang::DeDe.decimal_mark(), DecimalMark::Comma);
    }

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn numbers_money_and_dates_follow_the_locale() {
        let en = Tr::new(Lang::EnUs, "EUR", TimeZone::UTC);
        let de = Tr::new(Lang::DeDe, "EUR", TimeZone::UTC);
        assert_eq!(en.number(d("1234567.125"), 2), "1,234,567.13");
        assert_eq!(de.number(d("1234567.125"), 2), "1.234.567,13");
        assert_eq!(en.number(d("-0.004"), 2), "0.00");
        assert_eq!(de.number(d("-999.5"), 0), "-1.000");
        assert_eq!(en.money(d("-12.5")), "-€12.50");
        assert_eq!(de.money(d("1234.5")), "1.234,50 €");
        assert_eq!(
            Tr::new(Lang::EnUs, "CHF", TimeZone::UTC).money(d("3")),
            "CHF 3.00"
        );
        assert_eq!(
            Tr::new(Lang::DeDe, "CHF", TimeZone::UTC).money(d("3")),
            "3,00 CHF"
        );
        assert_eq!(en.date("2026-11-21T08:00:00Z"), "11/21/2026");
        assert_eq!(de.date("2026-11-21"), "21.11.2026");
        assert_eq!(en.money_str(""), "–");
        assert_eq!(de.date("not a date"), "not a date");
    }

    #[test]
    fn timestamps_are_shown_on_the_shops_wall_clock() {
        let berlin = TimeZone::get("Europe/Berlin").unwrap();
        let de = Tr::new(Lang::DeDe, "EUR", berlin.clone());
        let en = Tr::new(Lang::EnUs, "EUR", berlin);
        // 23:30 UTC in November is 00:30 the next day in Berlin (CET, UTC+1).
        assert_eq!(de.date("2026-11-21T23:30:00Z"), "22.11.2026");
        assert_eq!(de.datetime("2026-11-21T23:30:00Z"), "22.11.2026, 00:30");
        assert_eq!(en.datetime("2026-07-01T12:05:00Z"), "07/01/2026, 2:05 PM");
        // A calendar date has no zone to move it: it stays the day it names.
        assert_eq!(de.date("2026-11-21"), "21.11.2026");
        assert_eq!(de.datetime("2026-11-21"), "2026-11-21");
        assert_eq!(de.bucket("2026-11-21"), "21.11.");
        assert_eq!(en.bucket("2026-11"), "11/2026");
        assert_eq!(de.bucket("2026-11"), "11.2026");
    }
}
