// SPDX-License-Identifier: GPL-2.0-only
//! The summary (JSON), the tables (Markdown) and the one-line-per-scenario verdicts.

use crate::data::{max_before_first, Data, Spread};
use std::fmt::Write;

/// The summary as JSON: scenario -> variant -> scheme -> metric -> {median, min, max, n, rounds}.
pub fn json(d: &Data) -> String {
    let mut out = String::from("{\n");
    let mut first_sc = true;
    let mut scenarios: Vec<&String> = d.values.keys().map(|k| &k.0).collect();
    scenarios.dedup();
    for sc in scenarios {
        if !first_sc {
            out.push_str(",\n");
        }
        first_sc = false;
        let _ = write!(out, "  \"{sc}\": {{");
        let mut first_var = true;
        for var in d.variants(sc) {
            if !first_var {
                out.push(',');
            }
            first_var = false;
            let _ = write!(out, "\n    \"{var}\": {{");
            let mut first_s = true;
            for scheme in d.schemes(sc) {
                let metrics: Vec<&String> = d
                    .values
                    .keys()
                    .filter(|k| k.0 == *sc && k.1 == var && k.2 == scheme)
                    .map(|k| &k.3)
                    .collect();
                if metrics.is_empty() {
                    continue;
                }
                if !first_s {
                    out.push(',');
                }
                first_s = false;
                let _ = write!(out, "\n      \"{scheme}\": {{");
                for (i, m) in metrics.iter().enumerate() {
                    let s = d.stat(sc, &var, &scheme, m).expect("a metric with values");
                    let rounds: Vec<String> = d
                        .rounds(sc, &var, &scheme, m)
                        .iter()
                        .map(|(_, v)| fmt(*v))
                        .collect();
                    let _ = write!(
                        out,
                        "{}\n        \"{m}\": {{\"median\": {}, \"min\": {}, \"max\": {}, \"n\": {}, \"rounds\": [{}]}}",
                        if i > 0 { "," } else { "" },
                        fmt(s.median),
                        fmt(s.min),
                        fmt(s.max),
                        s.n,
                        rounds.join(", ")
                    );
                }
                out.push_str("\n      }");
            }
            out.push_str("\n    }");
        }
        out.push_str("\n  }");
    }
    out.push_str("\n}\n");
    out
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// "median (min-max)" for a table cell, or "-".
pub fn cell(s: Option<Spread>) -> String {
    match s {
        Some(s) if s.n > 1 => format!("{} ({}-{})", short(s.median), short(s.min), short(s.max)),
        Some(s) => short(s.median),
        None => "-".into(),
    }
}

fn short(v: f64) -> String {
    if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// One Markdown table: a row per scheme, a column per (variant, metric, header).
pub fn table(d: &Data, sc: &str, cols: &[(&str, &str, String)]) -> String {
    let mut t = String::from("| scheme |");
    for (_, _, label) in cols {
        let _ = write!(t, " {label} |");
    }
    t.push_str("\n| --- |");
    for _ in cols {
        t.push_str(" --- |");
    }
    t.push('\n');
    for scheme in d.schemes(sc) {
        let cells: Vec<String> = cols
            .iter()
            .map(|(var, metric, _)| cell(d.stat(sc, var, &scheme, metric)))
            .collect();
        // A scheme that did not run in these columns (a subset ran) gets no row.
        if cells.iter().all(|c| c == "-") {
            continue;
        }
        let _ = writeln!(t, "| {scheme} | {} |", cells.join(" | "));
    }
    t
}

/// Per scheme: the median over rounds of the largest fanout free of `metric` (`drops` at the
/// qdisc, or RTO `timeouts` at the senders, the paper's measure), with its range.
pub fn incast_max_fanout(d: &Data, scheme: &str, metric: &str) -> Option<Spread> {
    let mut by_round: std::collections::BTreeMap<u32, Vec<(f64, f64)>> = Default::default();
    for var in d.variants("incast") {
        for (r, v) in d.rounds("incast", &var, scheme, metric) {
            by_round
                .entry(r)
                .or_default()
                .push((crate::data::num(&var), v));
        }
    }
    let v: Vec<f64> = by_round
        .values()
        .filter_map(|p| max_before_first(p))
        .collect();
    crate::data::spread(&v)
}

fn ratio(d: &Data, sc: &str, var: &str, metric: &str, a: &str, b: &str) -> String {
    match (d.stat(sc, var, a, metric), d.stat(sc, var, b, metric)) {
        (Some(x), Some(y)) if y.median != 0.0 => format!("{:.3}", x.median / y.median),
        _ => "n/a".into(),
    }
}

/// The lines `make experiments` ends with, one per scenario that ran.
pub fn verdicts(d: &Data) -> Vec<String> {
    let mut v = Vec::new();
    for sc in ["rtt_variation", "rtt_variation_host"] {
        if d.variants(sc).iter().any(|x| x == "3x") {
            v.push(format!(
                "{sc}: sojourn_mean ecnsharp/tcn_tail={} goodput ecnsharp/tcn_tail={}",
                ratio(d, sc, "3x", "sojourn_mean_us", "ecnsharp", "tcn_tail"),
                ratio(d, sc, "3x", "goodput_mbps", "ecnsharp", "tcn_tail")
            ));
        }
    }
    // ECN# with other pst_targets against TCN-Tail, when they ran (3x).
    let pst: Vec<String> = d
        .schemes("rtt_variation")
        .into_iter()
        .filter(|s| s.starts_with("ecnsharp_pst_"))
        .collect();
    if !pst.is_empty() {
        let mut line = String::from("rtt_variation_pst_target:");
        for (metric, label) in [
            ("sojourn_mean_us", "sojourn_mean/tcn_tail"),
            ("goodput_mbps", "goodput/tcn_tail"),
        ] {
            let _ = write!(line, " {label}");
            for s in std::iter::once("ecnsharp").chain(pst.iter().map(String::as_str)) {
                let name = s.strip_prefix("ecnsharp_").unwrap_or("pst_dctcp");
                let r = ratio(d, "rtt_variation", "3x", metric, s, "tcn_tail");
                let _ = write!(line, " {name}={r}");
            }
        }
        v.push(line);
    }
    if !d.variants("incast").is_empty() {
        let mut line = String::from("incast:");
        for (metric, name) in [("drops", "no_drop"), ("timeouts", "no_timeout")] {
            let _ = write!(line, " max_fanout_{name}");
            for scheme in d.schemes("incast") {
                let n =
                    incast_max_fanout(d, &scheme, metric).map_or("n/a".into(), |s| short(s.median));
                let _ = write!(line, " {scheme}={n}");
            }
        }
        v.push(line);
    }
    for load in d.variants("flows") {
        v.push(format!(
            "flows: load {load} short_p99 ecnsharp/tcn_tail={} large_mean ecnsharp/tcn_tail={}",
            ratio(d, "flows", &load, "short_p99_us", "ecnsharp", "tcn_tail"),
            ratio(d, "flows", &load, "large_mean_us", "ecnsharp", "tcn_tail")
        ));
    }
    if !d.variants("sched").is_empty() {
        let shares = |s: &str| {
            let b: Vec<f64> = (0..3)
                .map(|i| {
                    d.stat("sched", "3bands", s, &format!("band{i}_mbps"))
                        .map_or(0.0, |x| x.median)
                })
                .collect();
            let min = b.iter().copied().fold(f64::MAX, f64::min).max(1e-9);
            b.iter()
                .map(|x| format!("{:.2}", x / min))
                .collect::<Vec<_>>()
                .join(":")
        };
        v.push(format!(
            "sched: short_p99 ecnsharp/tcn_tail={} shares ecnsharp={} tcn_tail={}",
            ratio(d, "sched", "3bands", "short_p99_us", "ecnsharp", "tcn_tail"),
            shares("ecnsharp"),
            shares("tcn_tail")
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> Data {
        let mut rows = String::new();
        for r in 1..=3 {
            for (s, soj, gp) in [("ecnsharp", 100, 95), ("tcn_tail", 1000, 96)] {
                rows += &format!("rtt_variation\t3x\t{s}\t{r}\tsojourn_mean_us\t{soj}\n");
                rows += &format!("rtt_variation\t3x\t{s}\t{r}\tgoodput_mbps\t{gp}\n");
            }
            for (n, e, c) in [(8, 0, 0), (16, 0, 4), (32, 2, 9)] {
                rows += &format!("incast\t{n}\tecnsharp\t{r}\tdrops\t{e}\n");
                rows += &format!("incast\t{n}\tcodel_like\t{r}\tdrops\t{c}\n");
                // Timeouts: ECN# none; CoDel from 32 on in round 1 only, from 16 on otherwise.
                let t = u32::from(n >= 32 || (n >= 16 && r > 1));
                rows += &format!("incast\t{n}\tecnsharp\t{r}\ttimeouts\t0\n");
                rows += &format!("incast\t{n}\tcodel_like\t{r}\ttimeouts\t{t}\n");
            }
        }
        Data::parse(&rows, "").unwrap()
    }

    #[test]
    fn verdict_lines_from_medians() {
        let v = verdicts(&data());
        assert_eq!(
            v[0],
            "rtt_variation: sojourn_mean ecnsharp/tcn_tail=0.100 goodput ecnsharp/tcn_tail=0.990"
        );
        assert_eq!(
            v[1],
            "incast: max_fanout_no_drop ecnsharp=16 codel_like=8 \
             max_fanout_no_timeout ecnsharp=32 codel_like=8"
        );
    }

    #[test]
    fn json_and_table_carry_the_spread() {
        let d = data();
        let j = json(&d);
        assert!(j.contains(
            "\"sojourn_mean_us\": {\"median\": 100, \"min\": 100, \"max\": 100, \"n\": 3"
        ));
        let t = table(
            &d,
            "rtt_variation",
            &[("3x", "goodput_mbps", "goodput".into())],
        );
        assert!(t.contains("| ecnsharp | 95 (95-95) |"), "{t}");
    }
}
