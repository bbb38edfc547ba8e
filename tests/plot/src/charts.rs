// SPDX-License-Identifier: GPL-2.0-only
//! SVG charts (plotters) from the measurements: medians joined by lines, min-max bars.

use crate::data::{num, Data};
use plotters::prelude::*;
use std::path::Path;

/// One line of a chart: (x, y, lo, hi) points, a bar from lo to hi (here the median and the
/// min-max; the UML figures' y and 95% interval).
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// One per scheme of `data::SCHEMES` (a test keeps them as many), so no two schemes share one.
const COLORS: [RGBColor; 8] = [
    RGBColor(214, 39, 40),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

pub fn line_chart(
    path: &Path,
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
) -> Result<(), String> {
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0f64);
    for p in pts {
        x0 = x0.min(p.0);
        x1 = x1.max(p.0);
        y1 = y1.max(p.3).max(p.1);
    }
    if x0 > x1 {
        return Err(format!("{}: no data", path.display()));
    }
    if x0 == x1 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let y1 = if y1 > 0.0 { y1 * 1.1 } else { 1.0 };
    let root = SVGBackend::new(path, (800, 480)).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, 0.0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(xlabel)
        .y_desc(ylabel)
        .draw()
        .map_err(e)?;
    for (i, s) in series.iter().enumerate() {
        // One color per scheme across every chart; other series by position.
        let k = crate::data::SCHEMES
            .iter()
            .position(|x| *x == s.name)
            .unwrap_or(i);
        let c = COLORS[k % COLORS.len()];
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|p| (p.0, p.1)),
                c.stroke_width(2),
            ))
            .map_err(e)?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart
            .draw_series(
                s.points
                    .iter()
                    .filter(|p| p.2 != p.3)
                    .map(|p| ErrorBar::new_vertical(p.0, p.2, p.1, p.3, c.filled(), 6)),
            )
            .map_err(e)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

/// Medians over rounds of one metric against the scenario's numeric variant, one line a scheme.
pub fn by_variant(d: &Data, sc: &str, metric: &str, scale: f64) -> Vec<Series> {
    let vars = d.variants(sc);
    let xs: Vec<f64> = vars.iter().map(|v| num(v)).collect();
    let span =
        xs.iter().copied().fold(f64::MIN, f64::max) - xs.iter().copied().fold(f64::MAX, f64::min);
    d.schemes(sc)
        .into_iter()
        .map(|scheme| {
            // Each scheme a little apart on x, so that the min-max bars do not hide each other.
            let k = crate::data::SCHEMES
                .iter()
                .position(|x| *x == scheme)
                .unwrap_or(0);
            let dx = (k as f64 - 2.5) * span.max(1.0) * 0.006;
            Series {
                points: vars
                    .iter()
                    .filter_map(|v| {
                        let s = d.stat(sc, v, &scheme, metric)?;
                        Some((num(v) + dx, s.median * scale, s.min * scale, s.max * scale))
                    })
                    .collect(),
                name: scheme,
            }
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// Sampled series of (scenario, variant), one line a scheme; values scaled.
pub fn over_time(d: &Data, sc: &str, var: &str, scale: f64) -> Vec<Series> {
    let mut v: Vec<Series> = d
        .series
        .iter()
        .filter(|(k, _)| k.0 == sc && k.1 == var)
        .map(|(k, v)| Series {
            name: k.2.clone(),
            points: v
                .iter()
                .filter_map(|(t, s)| {
                    s.parse::<f64>()
                        .ok()
                        .map(|y| (*t, y * scale, y * scale, y * scale))
                })
                .collect(),
        })
        .collect();
    v.sort_by_key(|s| crate::data::SCHEMES.iter().position(|x| *x == s.name));
    v
}

/// Per-band throughput (Mbit/s) over time from cumulative byte counters "b0,b1,b2" per second.
pub fn band_rates(d: &Data, scheme: &str) -> Vec<Series> {
    let Some(v) = d
        .series
        .get(&("sched".into(), "3bands".into(), scheme.into()))
    else {
        return Vec::new();
    };
    let rows: Vec<(f64, Vec<f64>)> = v
        .iter()
        .map(|(t, s)| (*t, s.split(',').filter_map(|x| x.parse().ok()).collect()))
        .collect();
    let bands = rows.first().map_or(0, |r| r.1.len());
    (0..bands)
        .map(|b| Series {
            name: format!("{scheme} band {b}"),
            points: rows
                .windows(2)
                .filter(|w| w[1].0 > w[0].0 && w[0].1.len() > b && w[1].1.len() > b)
                .map(|w| {
                    let r = (w[1].1[b] - w[0].1[b]) * 8.0 / 1e6 / (w[1].0 - w[0].0);
                    (w[1].0, r, r, r)
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_color_for_every_scheme() {
        assert!(super::COLORS.len() >= crate::data::SCHEMES.len());
    }
}
