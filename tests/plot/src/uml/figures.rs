// SPDX-License-Identifier: GPL-2.0-only
//! SVG charts of the virtual-time results: lines with 95% interval bars, and CDFs. Every scheme
//! keeps one color across all charts (the order of `load::SCHEMES`).

use super::load::scheme_rank;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// One line: (x, y, lo, hi) points, the bar from lo to hi (lo == hi draws no bar).
pub use crate::charts::Series;

const COLORS: [RGBColor; 11] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(127, 127, 127),
    RGBColor(0, 0, 0),
];

fn color(name: &str, i: usize) -> RGBColor {
    let k = scheme_rank(name);
    COLORS[if k < COLORS.len() - 1 { k } else { i } % COLORS.len()]
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A number the paper states in its text, drawn beside ours ("paper, from text"): a black
/// cross at (x, y), or, without y, a dashed vertical line at x (a fanout the text names) with
/// its tag written beside it (below the legend).
pub struct Mark {
    pub x: f64,
    pub y: Option<f64>,
    pub label: String,
    pub tag: String,
}

pub fn lines(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
    marks: &[Mark],
) -> Result<(), String> {
    draw_lines(path, title, xlabel, ylabel, series, marks, false)
}

/// As `lines`, for ratios to a baseline: the y axis is cut above far outliers (`clip_top`).
pub fn ratio_lines(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
    marks: &[Mark],
) -> Result<(), String> {
    draw_lines(path, title, xlabel, ylabel, series, marks, true)
}

fn draw_lines(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
    marks: &[Mark],
    clip: bool,
) -> Result<(), String> {
    let pts = || series.iter().flat_map(|s| s.points.iter());
    if pts().next().is_none() {
        return Err(format!("{}: no data", path.display()));
    }
    let xs = || pts().map(|p| p.0).chain(marks.iter().map(|m| m.x));
    let x0 = xs().fold(f64::MAX, f64::min);
    let x1 = xs().fold(f64::MIN, f64::max);
    let (x0, x1) = if x0 == x1 {
        (x0 - 1.0, x1 + 1.0)
    } else {
        (x0, x1)
    };
    let pad = (x1 - x0) * 0.04;
    let full = pts()
        .map(|p| p.3.max(p.1))
        .chain(marks.iter().filter_map(|m| m.y))
        .fold(0.0, f64::max);
    // A few very large values (Linux pie's ratios reach ~1000) would flatten every other line
    // and the paper's crosses: the axis stops at clip_top, and what lies above is drawn at the
    // top edge, a point as a triangle with its value written beside it, a bar cut there.
    let cut = clip
        .then(|| {
            clip_top(
                &pts().map(|p| p.1).collect::<Vec<_>>(),
                &marks.iter().filter_map(|m| m.y).collect::<Vec<_>>(),
                full,
            )
        })
        .flatten();
    let y1 = cut.unwrap_or(full) * 1.1;
    let y1 = if y1 > 0.0 { y1 } else { 1.0 };
    let top = |y: f64| if y > y1 { y1 } else { y };
    let ylabel = match cut {
        Some(c) => format!("{ylabel} (axis cut at {c:.2}; above: triangle, value)"),
        None => ylabel.to_string(),
    };
    let root = SVGBackend::new(path, (860, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 19))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x0 - pad..x1 + pad, 0.0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(xlabel)
        .y_desc(ylabel.as_str())
        .draw()
        .map_err(err)?;
    for (i, s) in series.iter().enumerate() {
        let c = color(&s.name, i);
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|p| (p.0, top(p.1))),
                c.stroke_width(2),
            ))
            .map_err(err)?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart
            .draw_series(
                s.points
                    .iter()
                    .filter(|p| p.1 <= y1)
                    .map(|p| Circle::new((p.0, p.1), 3, c.filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(
                s.points
                    .iter()
                    .filter(|p| p.2 != p.3 && p.2 <= y1)
                    .map(|p| ErrorBar::new_vertical(p.0, p.2, top(p.1), top(p.3), c.filled(), 6)),
            )
            .map_err(err)?;
        let above = || s.points.iter().filter(|p| p.1 > y1);
        chart
            .draw_series(above().map(|p| TriangleMarker::new((p.0, y1), 6, c.filled())))
            .map_err(err)?;
        let style = TextStyle::from(("sans-serif", 12).into_font())
            .color(&c)
            .pos(Pos::new(HPos::Left, VPos::Top));
        chart
            .draw_series(above().map(|p| {
                Text::new(
                    format!("  {}", short(p.1)),
                    (p.0, y1 - y1 * 0.01 * (1 + i) as f64),
                    style.clone(),
                )
            }))
            .map_err(err)?;
    }
    for m in marks {
        let label = m.label.clone();
        match m.y {
            Some(y) => {
                chart
                    .draw_series(std::iter::once(Cross::new(
                        (m.x, y),
                        7,
                        BLACK.stroke_width(2),
                    )))
                    .map_err(err)?
                    .label(label)
                    .legend(|(x, y)| Cross::new((x + 10, y), 5, BLACK.stroke_width(2)));
            }
            None => {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(m.x, 0.0), (m.x, y1)],
                        6,
                        4,
                        BLACK.stroke_width(1),
                    ))
                    .map_err(err)?
                    .label(label)
                    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
                // Right of the line in the chart's left half, left of it in its right half.
                let right = m.x > (x0 + x1) / 2.0;
                let style = TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(
                    if right { HPos::Right } else { HPos::Left },
                    VPos::Center,
                ));
                let text = if right {
                    format!("{} ", m.tag)
                } else {
                    format!(" {}", m.tag)
                };
                chart
                    .draw_series(std::iter::once(Text::new(text, (m.x, y1 * 0.62), style)))
                    .map_err(err)?;
            }
        }
    }
    chart
        .configure_series_labels()
        // With the axis cut, the legend starts lower, clear of the values written at the top.
        .position(if cut.is_some() {
            SeriesLabelPosition::Coordinate(10, 36)
        } else {
            SeriesLabelPosition::UpperLeft
        })
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Where a lines chart's y axis stops: None (at the data's top, `full`) unless some values lie
/// far above the rest, then 2.5 times the larger of the central values' 75th percentile and the
/// paper's marks, when the top is more than five times that.
fn clip_top(central: &[f64], marks: &[f64], full: f64) -> Option<f64> {
    let mut c: Vec<f64> = central.iter().copied().filter(|v| v.is_finite()).collect();
    if c.is_empty() {
        return None;
    }
    c.sort_by(f64::total_cmp);
    let q75 = c[(c.len() * 3 / 4).min(c.len() - 1)];
    let cap = 2.5 * marks.iter().copied().fold(q75, f64::max);
    (cap > 0.0 && full > 5.0 * cap).then_some(cap)
}

/// A value for a label: three significant digits, at most.
fn short(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Empirical CDFs on a logarithmic x axis; each series' values need not be sorted.
pub fn cdfs(
    path: &Path,
    title: &str,
    xlabel: &str,
    series: &[(String, Vec<f64>)],
) -> Result<(), String> {
    let all = || series.iter().flat_map(|s| s.1.iter()).filter(|x| **x > 0.0);
    let x0 = all().copied().fold(f64::MAX, f64::min);
    let x1 = all().copied().fold(f64::MIN, f64::max);
    if x0 > x1 {
        return Err(format!("{}: no data", path.display()));
    }
    let root = SVGBackend::new(path, (860, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 19))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0 * 0.9..x1 * 1.1).log_scale(), 0.0..1.0)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(xlabel)
        .y_desc("CDF")
        .draw()
        .map_err(err)?;
    for (i, (name, v)) in series.iter().enumerate() {
        let mut s: Vec<f64> = v.iter().copied().filter(|x| *x > 0.0).collect();
        s.sort_by(f64::total_cmp);
        let n = s.len() as f64;
        // At most 400 steps per curve: the SVGs stay small, the shape stays.
        let step = (s.len() / 400).max(1);
        let pts: Vec<(f64, f64)> = s
            .iter()
            .enumerate()
            .filter(|(k, _)| k % step == 0 || *k + 1 == s.len())
            .map(|(k, x)| (*x, (k + 1) as f64 / n))
            .collect();
        let c = color(name, i);
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(2)))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_is_cut_only_above_far_outliers() {
        let near: Vec<f64> = (0..20).map(|i| 0.8 + 0.02 * f64::from(i)).collect();
        assert_eq!(clip_top(&near, &[0.62], 1.3), None);
        let mut far = near.clone();
        far.extend([190.0, 980.0]);
        let c = clip_top(&far, &[0.62], 980.0).unwrap();
        assert!(c > 2.0 && c < 3.0, "{c}");
        // A chart whose top is a few times its bulk (incast QCT) keeps its full axis.
        assert_eq!(clip_top(&[2.0, 3.0, 4.0, 50.0], &[], 240.0), None);
        assert_eq!(clip_top(&[], &[], 1.0), None);
        assert_eq!(short(981.7), "982");
        assert_eq!(short(1.234), "1.23");
    }
}
