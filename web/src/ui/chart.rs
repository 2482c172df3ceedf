//! Plain SVG charts for the dashboard, laid out here and drawn by the template with presentation
//! attributes only (the CSP allows no inline styles). Coordinates are SVG user units.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

/// One rectangle of a bar chart, with its tooltip.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// CSS class (`planned`, `actual`, `category`).
    pub class: &'static str,
    /// Text of the `<title>` (label and value).
    pub title: String,
}

/// A text label at a point.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// Anchor x.
    pub x: f64,
    /// Baseline y.
    pub y: f64,
    /// The text.
    pub text: String,
}

/// A laid-out bar chart of `width` × `height`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BarChart {
    /// View box width.
    pub width: f64,
    /// View box height.
    pub height: f64,
    /// The bars.
    pub bars: Vec<Bar>,
    /// Axis labels.
    pub labels: Vec<Label>,
}

fn share(value: Decimal, max: Decimal) -> f64 {
    if max <= Decimal::ZERO || value <= Decimal::ZERO {
        0.0
    } else {
        (value / max).to_f64().unwrap_or(0.0)
    }
}

/// Grouped columns: for each bucket a planned and an actual column, scaled to the largest value.
/// `text` formats a value for the tooltips.
pub fn columns(
    series: &[(String, Decimal, Decimal)],
    text: impl Fn(Decimal) -> String,
) -> BarChart {
    let (width, height, base) = (360.0, 220.0, 200.0);
    let max = series
        .iter()
        .flat_map(|(_, p, a)| [*p, *a])
        .max()
        .unwrap_or_default();
    let slot = width / series.len().max(1) as f64;
    let column = (slot * 0.4).min(24.0);
    let label_every = series.len().div_ceil(8).max(1);
    let mut chart = BarChart {
        width,
        height,
        ..BarChart::default()
    };
    for (i, (bucket, planned, actual)) in series.iter().enumerate() {
        let left = i as f64 * slot + (slot - 2.0 * column) / 2.0;
        for (offset, value, class) in [(0.0, planned, "planned"), (column, actual, "actual")] {
            let h = share(*value, max) * (base - 10.0);
            chart.bars.push(Bar {
                x: round(left + offset),
                y: round(base - h),
                w: round(column),
                h: round(h),
                class,
                title: format!("{bucket}: {}", text(*value)),
            });
        }
        if i % label_every == 0 {
            chart.labels.push(Label {
                x: round(i as f64 * slot + slot / 2.0),
                y: height - 4.0,
                text: bucket.clone(),
            });
        }
    }
    chart
}

/// Horizontal bars, one per row, scaled to the largest value; `rows` are (label, value).
pub fn rows(rows: &[(String, Decimal)], text: impl Fn(Decimal) -> String) -> BarChart {
    let (width, row, label) = (360.0, 24.0, 100.0);
    let max = rows.iter().map(|r| r.1).max().unwrap_or_default();
    let mut chart = BarChart {
        width,
        height: row * rows.len().max(1) as f64,
        ..BarChart::default()
    };
    for (i, (name, value)) in rows.iter().enumerate() {
        let y = i as f64 * row;
        chart.bars.push(Bar {
            x: label,
            y: y + 3.0,
            w: round(share(*value, max) * (width - label - 80.0)),
            h: row - 6.0,
            class: "category",
            title: format!("{name}: {}", text(*value)),
        });
        chart.labels.push(Label {
            x: 0.0,
            y: y + row / 2.0 + 5.0,
            text: name.clone(),
        });
        chart.labels.push(Label {
            x: width - 74.0,
            y: y + row / 2.0 + 5.0,
            text: text(*value),
        });
    }
    chart
}

/// A ring showing `rate` (0 to 1) of its circumference: the `stroke-dasharray` of a circle of
/// radius [`RING_RADIUS`].
pub fn ring(rate: Option<Decimal>) -> String {
    let circumference = 2.0 * std::f64::consts::PI * RING_RADIUS;
    let filled = rate.and_then(|r| r.to_f64()).unwrap_or(0.0).clamp(0.0, 1.0) * circumference;
    format!("{} {}", round(filled), round(circumference - filled))
}

/// Radius of the success-rate ring.
pub const RING_RADIUS: f64 = 40.0;

fn round(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_scale_to_the_largest_value() {
        let series = vec![
            (
                "2026-10".to_string(),
                Decimal::new(50, 0),
                Decimal::new(100, 0),
            ),
            ("2026-11".to_string(), Decimal::ZERO, Decimal::new(25, 0)),
        ];
        let chart = columns(&series, |v| v.to_string());
        assert_eq!(chart.bars.len(), 4);
        assert_eq!(chart.bars[1].h, 190.0, "the largest value fills the height");
        assert_eq!(chart.bars[0].h, 95.0);
        assert_eq!(chart.bars[2].h, 0.0);
        assert_eq!(chart.bars[1].title, "2026-10: 100");
        assert_eq!(chart.labels.len(), 2);
    }

    #[test]
    fn the_ring_fills_its_share() {
        assert_eq!(ring(None), "0 251.3");
        assert_eq!(ring(Some(Decimal::new(5, 1))), "125.7 125.7");
    }
}
