// SPDX-License-Identifier: GPL-2.0-only
//! The measurements `make experiments` collected: one row per measurement
//! (scenario, variant, scheme, round, metric, value) and the sampled series.

use std::collections::BTreeMap;

/// Values of one (scenario, variant, scheme, metric) over the rounds, by round.
pub type Key = (String, String, String, String);

#[derive(Default)]
pub struct Data {
    pub values: BTreeMap<Key, BTreeMap<u32, f64>>,
    /// (scenario, variant, scheme) -> (t, value text) in order.
    pub series: BTreeMap<(String, String, String), Vec<(f64, String)>>,
}

/// Median, minimum and maximum of a set of rounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

pub fn spread(v: &[f64]) -> Option<Spread> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    };
    Some(Spread {
        median,
        min: s[0],
        max: s[n - 1],
        n,
    })
}

impl Data {
    pub fn parse(rows: &str, series: &str) -> Result<Data, String> {
        let mut d = Data::default();
        for (i, line) in rows.lines().enumerate() {
            let f: Vec<&str> = line.trim_end_matches('\r').split('\t').collect();
            if f.len() != 6 {
                return Err(format!(
                    "row {}: want 6 fields, got {}: {line}",
                    i + 1,
                    f.len()
                ));
            }
            // A value the guest could not measure ("null", empty) is left out, not made zero.
            let Ok(v) = f[5].parse::<f64>() else { continue };
            let round: u32 = f[3]
                .parse()
                .map_err(|_| format!("row {}: bad round", i + 1))?;
            d.values
                .entry((f[0].into(), f[1].into(), f[2].into(), f[4].into()))
                .or_default()
                .insert(round, v);
        }
        for (i, line) in series.lines().enumerate() {
            let f: Vec<&str> = line.trim_end_matches('\r').split('\t').collect();
            if f.len() != 5 {
                return Err(format!("series {}: want 5 fields: {line}", i + 1));
            }
            let t: f64 = f[3]
                .parse()
                .map_err(|_| format!("series {}: bad time", i + 1))?;
            d.series
                .entry((f[0].into(), f[1].into(), f[2].into()))
                .or_default()
                .push((t, f[4].to_string()));
        }
        Ok(d)
    }

    pub fn rounds(&self, sc: &str, var: &str, scheme: &str, metric: &str) -> Vec<(u32, f64)> {
        self.values
            .get(&(sc.into(), var.into(), scheme.into(), metric.into()))
            .map(|m| m.iter().map(|(&r, &v)| (r, v)).collect())
            .unwrap_or_default()
    }

    pub fn stat(&self, sc: &str, var: &str, scheme: &str, metric: &str) -> Option<Spread> {
        let v: Vec<f64> = self
            .rounds(sc, var, scheme, metric)
            .into_iter()
            .map(|x| x.1)
            .collect();
        spread(&v)
    }

    /// Variants of a scenario, in the order of their numeric value where they have one.
    pub fn variants(&self, sc: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .values
            .keys()
            .filter(|k| k.0 == sc)
            .map(|k| k.1.clone())
            .collect();
        v.dedup();
        v.sort_by(|a, b| num(a).total_cmp(&num(b)).then(a.cmp(b)));
        v.dedup();
        v
    }

    /// Schemes of a scenario, in first-seen order of the standard list.
    pub fn schemes(&self, sc: &str) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for k in self.values.keys().filter(|k| k.0 == sc) {
            if !v.contains(&k.2) {
                v.push(k.2.clone());
            }
        }
        v.sort_by_key(|s| SCHEMES.iter().position(|x| x == s).unwrap_or(usize::MAX));
        v
    }
}

/// The schemes in the order the tables show them.
pub const SCHEMES: &[&str] = &[
    "ecnsharp",
    "tcn_tail",
    "tcn_avg",
    "codel_like",
    "dctcp_red",
    "fq_codel",
    "ecnsharp_pst_avg",
    "ecnsharp_pst_sim",
];

/// The number a variant starts with ("3x" -> 3, "0.5" -> 0.5, "16" -> 16).
pub fn num(s: &str) -> f64 {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    s[..end].parse().unwrap_or(f64::MAX)
}

/// The largest fanout of a round before the first one whose count (drops, timeouts) is above
/// zero: every smaller fanout was free of them. 0 when the smallest fanout already had one. None
/// for a round with no fanout.
pub fn max_before_first(points: &[(f64, f64)]) -> Option<f64> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best = None;
    for (n, drops) in p {
        if drops > 0.0 {
            return Some(best.unwrap_or(0.0));
        }
        best = Some(n);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_range() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
        assert_eq!(spread(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        let s = spread(&[5.0, 1.0, 9.0]).unwrap();
        assert_eq!((s.min, s.max, s.n), (1.0, 9.0, 3));
        assert!(spread(&[]).is_none());
    }

    #[test]
    fn largest_fanout_before_the_first_drop() {
        assert_eq!(
            max_before_first(&[(8.0, 0.0), (16.0, 0.0), (32.0, 3.0), (64.0, 0.0)]),
            Some(16.0)
        );
        assert_eq!(max_before_first(&[(16.0, 0.0), (8.0, 0.0)]), Some(16.0));
        assert_eq!(max_before_first(&[(8.0, 1.0), (16.0, 0.0)]), Some(0.0));
        assert_eq!(max_before_first(&[]), None);
    }

    #[test]
    fn parses_rows_and_skips_unmeasured_values() {
        let d = Data::parse(
            "incast\t16\tecnsharp\t1\tdrops\t0\nincast\t8\tecnsharp\t1\tdrops\t2\nincast\t8\tecnsharp\t2\tqct_mean_us\tnull\n",
            "rtt_variation\t3x\tecnsharp\t0.05\t1200\n",
        )
        .unwrap();
        assert_eq!(d.variants("incast"), vec!["8", "16"]);
        assert_eq!(d.rounds("incast", "8", "ecnsharp", "drops"), vec![(1, 2.0)]);
        assert!(d.stat("incast", "8", "ecnsharp", "qct_mean_us").is_none());
        assert_eq!(d.series.len(), 1);
        assert!(Data::parse("a\tb\n", "").is_err());
    }
}
