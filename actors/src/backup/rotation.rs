//! Which nightly backups are kept: the newest of each of the last `keep_days` days and the
//! newest of each of the last `keep_weeks` ISO weeks (calendar days and weeks in the instance
//! time zone; today and this week count as one each). The usual son-and-father rotation: a
//! week's newest backup outlives its days, so `keep_days` 7 and `keep_weeks` 4 keep at most
//! ten files and reach four weeks back.

use jiff::ToSpan;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use std::collections::{BTreeMap, BTreeSet};
use storage::Timestamp;

/// The backups of `taken` (when each was taken) to keep on `today`, with dates in `tz`. A
/// backup dated after today (a clock set back) is kept: the rule cannot place it.
pub fn keep(
    taken: &[Timestamp],
    today: Date,
    tz: &TimeZone,
    keep_days: u16,
    keep_weeks: u16,
) -> BTreeSet<Timestamp> {
    let first_day = today
        .checked_sub(i64::from(keep_days).days())
        .unwrap_or(Date::MIN);
    let this_week = week_start(today);
    let first_week = this_week
        .checked_sub((i64::from(keep_weeks) * 7).days())
        .unwrap_or(Date::MIN);
    let mut newest_of_day = BTreeMap::new();
    let mut newest_of_week = BTreeMap::new();
    let mut kept = BTreeSet::new();
    for &at in taken {
        let day = date_of(at, tz);
        if day > today {
            kept.insert(at);
            continue;
        }
        if day > first_day {
            newest_of_day
                .entry(day)
                .and_modify(|t: &mut Timestamp| *t = (*t).max(at))
                .or_insert(at);
        }
        let week = week_start(day);
        if week > first_week {
            newest_of_week
                .entry(week)
                .and_modify(|t: &mut Timestamp| *t = (*t).max(at))
                .or_insert(at);
        }
    }
    kept.extend(newest_of_day.into_values());
    kept.extend(newest_of_week.into_values());
    kept
}

/// The calendar date of `at` in `tz`.
pub fn date_of(at: Timestamp, tz: &TimeZone) -> Date {
    jiff::Timestamp::from_second(at.0)
        .map(|t| t.to_zoned(tz.clone()).date())
        .unwrap_or_default()
}

/// The Monday of `day`'s ISO week.
fn week_start(day: Date) -> Date {
    let back = i64::from(day.weekday().to_monday_zero_offset());
    day.checked_sub(back.days()).unwrap_or(Date::MIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    const DAY: i64 = 86_400;

    /// One backup a night at 03:00 UTC from 2026-11-02 (a Monday) for `nights` nights.
    fn nightly(nights: i64) -> Vec<Timestamp> {
        let first = date(2026, 11, 2)
            .at(3, 0, 0, 0)
            .to_zoned(TimeZone::UTC)
            .unwrap();
        (0..nights)
            .map(|n| Timestamp(first.timestamp().as_second() + n * DAY))
            .collect()
    }

    fn days(kept: &BTreeSet<Timestamp>) -> Vec<String> {
        kept.iter()
            .map(|t| date_of(*t, &TimeZone::UTC).to_string())
            .collect()
    }

    #[test]
    fn a_week_of_nights_keeps_every_one() {
        let taken = nightly(7);
        let kept = keep(&taken, date(2026, 11, 8), &TimeZone::UTC, 7, 4);
        assert_eq!(kept.len(), 7);
    }

    #[test]
    fn sixty_nights_keep_the_last_seven_days_and_four_weeks_newest() {
        // 2026-11-02 .. 2026-12-31; today is Thursday 2026-12-31.
        let taken = nightly(60);
        let kept = keep(&taken, date(2026, 12, 31), &TimeZone::UTC, 7, 4);
        assert_eq!(
            days(&kept),
            [
                // Sundays closing the three weeks before this one.
                "2026-12-13",
                "2026-12-20",
                "2026-12-27",
                // The last seven days (this week's newest among them).
                "2026-12-25",
                "2026-12-26",
                "2026-12-28",
                "2026-12-29",
                "2026-12-30",
                "2026-12-31",
            ]
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
        );
    }

    #[test]
    fn two_backups_of_one_day_keep_the_newer() {
        let mut taken = nightly(1);
        taken.push(Timestamp(taken[0].0 + 3600));
        let kept = keep(&taken, date(2026, 11, 2), &TimeZone::UTC, 7, 0);
        assert_eq!(kept.into_iter().collect::<Vec<_>>(), [taken[1]]);
    }

    #[test]
    fn no_days_and_no_weeks_keep_only_what_lies_ahead() {
        let taken = nightly(3);
        assert!(keep(&taken, date(2026, 11, 4), &TimeZone::UTC, 0, 0).is_empty());
        let kept = keep(&taken, date(2026, 11, 2), &TimeZone::UTC, 0, 0);
        assert_eq!(kept.len(), 2, "the two dated after today");
    }

    #[test]
    fn days_are_the_time_zones() {
        // 23:30 UTC on 2026-11-02 is 00:30 on 2026-11-03 in Berlin (UTC+1 in November).
        let at = Timestamp(nightly(1)[0].0 + 20 * 3600 + 1800);
        let berlin = TimeZone::fixed(jiff::tz::offset(1));
        assert_eq!(date_of(at, &berlin), date(2026, 11, 3));
        assert_eq!(keep(&[at], date(2026, 11, 3), &berlin, 1, 0).len(), 1);
        assert!(keep(&[at], date(2026, 11, 3), &TimeZone::UTC, 1, 0).is_empty());
    }
}
