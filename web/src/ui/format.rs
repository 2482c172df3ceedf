//! Formatters the UI's pages share: durations as the forms and tables show them, and the wire
//! names of enum values.

use rust_decimal::Decimal;

/// `h:mm` of a duration in seconds.
pub fn clock(seconds: u64) -> String {
    let minutes = seconds.div_ceil(60);
    format!("{}:{:02}", minutes / 60, minutes % 60)
}

pub use crate::wire::name as wire;

/// Seconds as minutes, exactly (`5430` → `"90.5"`), as the forms' `…Minutes` fields take them.
pub fn minutes(seconds: u64) -> String {
    (Decimal::from(seconds) / Decimal::from(60))
        .normalize()
        .to_string()
}
