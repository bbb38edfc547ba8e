// SPDX-License-Identifier: GPL-2.0-only
//! Empirical flow-size distribution (bytes, cumulative probability), sampled with linear
//! interpolation between points, as ns3/workloads/*.cdf are read by the ns-3 scenario.

pub struct Cdf {
    points: Vec<(f64, f64)>,
}

/// The web-search workload of the DCTCP paper (the ECN# paper's Figure 5), shared with ns-3.
pub const WEB_SEARCH: &str = include_str!("../../../ns3/workloads/web-search.cdf");

impl Cdf {
    pub fn parse(text: &str) -> Result<Cdf, String> {
        let mut points = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut it = line.split_whitespace();
            let (Some(x), Some(p)) = (it.next(), it.next()) else {
                return Err(format!("bad CDF line: {line}"));
            };
            let x: f64 = x.parse().map_err(|_| format!("bad size in: {line}"))?;
            let p: f64 = p
                .parse()
                .map_err(|_| format!("bad probability in: {line}"))?;
            if let Some(&(px, pp)) = points.last() {
                if x < px || p < pp {
                    return Err(format!("CDF not monotonic at: {line}"));
                }
            }
            points.push((x, p));
        }
        match (points.first(), points.last()) {
            (Some(_), Some(&(_, p))) if (p - 1.0).abs() < 1e-9 => Ok(Cdf { points }),
            _ => Err("CDF must end at probability 1".into()),
        }
    }

    /// The size at cumulative probability `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> u64 {
        let mut prev = self.points[0];
        for &(x, p) in &self.points {
            if u <= p {
                if p <= prev.1 {
                    return x as u64;
                }
                let f = (u - prev.1) / (p - prev.1);
                return (prev.0 + f * (x - prev.0)).round() as u64;
            }
            prev = (x, p);
        }
        prev.0 as u64
    }

    /// The mean size under linear interpolation (each segment contributes its midpoint).
    pub fn mean(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn web_search_parses_and_has_its_known_mean() {
        let c = Cdf::parse(WEB_SEARCH).unwrap();
        // The web-search mean is about 1.6 MB (DCTCP paper's workload).
        let m = c.mean();
        assert!((1.5e6..1.7e6).contains(&m), "mean {m}");
    }

    #[test]
    fn samples_follow_the_cdf() {
        let c = Cdf::parse(WEB_SEARCH).unwrap();
        let mut r = Rng::new(3, 0);
        let n = 100_000;
        let v: Vec<u64> = (0..n).map(|_| c.quantile(r.unit())).collect();
        let below = |b: u64| v.iter().filter(|&&x| x <= b).count() as f64 / n as f64;
        assert!((below(8760) - 0.15).abs() < 0.01);
        assert!((below(77380) - 0.53).abs() < 0.01);
        assert!((below(4865820) - 0.90).abs() < 0.01);
        let mean = v.iter().sum::<u64>() as f64 / n as f64;
        assert!(
            (mean / c.mean() - 1.0).abs() < 0.05,
            "{mean} vs {}",
            c.mean()
        );
    }

    #[test]
    fn bad_cdfs_are_refused() {
        assert!(Cdf::parse("10 0\n5 1\n").is_err());
        assert!(Cdf::parse("10 0\n20 0.5\n").is_err());
        assert!(Cdf::parse("").is_err());
    }
}
