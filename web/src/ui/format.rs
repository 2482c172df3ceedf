//! Formatters the UI's pages share: durations as the forms and tables show them, and the wire
//! names of enum values.

use rust_decimal::{Decimal, RoundingStrategy};

/// `h:mm` of a duration in seconds, the seconds dropped as a slicer's "3 h 31 min" drops them
/// (12,685 s → `3:31`).
pub fn clock(seconds: u64) -> String {
    let minutes = seconds / 60;
    format!("{}:{:02}", minutes / 60, minutes % 60)
}

pub use crate::wire::name as wire;

/// Seconds as minutes to at most two decimals (`5430` → `"90.5"`, `12685` → `"211.42"`), as the
/// forms' `…Minutes` fields take them. A hundredth of a minute is 0.6 s, so the form's whole
/// seconds (minutes × 60, rounded: [`super::forms::Submitted::document`]) come back exactly.
pub fn minutes(seconds: u64) -> String {
    (Decimal::from(seconds) / Decimal::from(60))
        .round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
        .normalize()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slicers_time_reads_as_it_does_and_its_minutes_come_back_to_the_second() {
        assert_eq!(clock(12_685), "3:31", "3 h 31 min 25 s");
        assert_eq!(clock(59), "0:00");
        assert_eq!(clock(3_600), "1:00");
        assert_eq!(minutes(12_685), "211.42");
        assert_eq!(minutes(5_430), "90.5");
        for seconds in (0..200_000u64).step_by(7) {
            let typed: f64 = minutes(seconds).parse().unwrap();
            assert_eq!((typed * 60.0).round() as u64, seconds, "{seconds}");
        }
    }
}
