//! Where connections go: round robin over `--servers`, or drawn per connection from a weighted
//! list (`--targets FILE`, lines "WEIGHT ADDR:PORT"). In the virtual-time testbed an address
//! stands for one sender and one RTT class, so a weighted draw gives every flow its RTT from
//! the testbed's distribution.

use crate::rng::Rng;

pub enum Dest {
    RoundRobin(Vec<String>),
    Weighted { addrs: Vec<String>, cum: Vec<f64> },
}

impl Dest {
    pub fn parse_targets(text: &str) -> Result<Dest, String> {
        let (mut addrs, mut cum) = (Vec::new(), Vec::new());
        let mut total = 0.0;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut it = line.split_whitespace();
            let (Some(w), Some(a), None) = (it.next(), it.next(), it.next()) else {
                return Err(format!("bad targets line (want WEIGHT ADDR:PORT): {line}"));
            };
            let w: f64 = w.parse().map_err(|_| format!("bad weight in: {line}"))?;
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!("bad weight in: {line}"));
            }
            total += w;
            addrs.push(a.to_string());
            cum.push(total);
        }
        if addrs.is_empty() || total <= 0.0 {
            return Err("targets: no address with a positive weight".into());
        }
        Ok(Dest::Weighted {
            addrs,
            cum: cum.into_iter().map(|c| c / total).collect(),
        })
    }

    /// The destination of connection `k`; a weighted draw takes one number from `rng`.
    pub fn pick(&self, k: usize, rng: &mut Rng) -> String {
        match self {
            Dest::RoundRobin(v) => v[k % v.len()].clone(),
            Dest::Weighted { addrs, cum } => {
                let u = rng.unit();
                let i = cum.iter().position(|&c| u < c).unwrap_or(addrs.len() - 1);
                addrs[i].clone()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_draws_follow_the_weights() {
        let d = Dest::parse_targets("# class 1\n3 a:1\n1 b:1\n0 c:1\n").unwrap();
        let mut r = Rng::new(5, 0);
        let n = 40_000;
        let a = (0..n).filter(|&k| d.pick(k, &mut r) == "a:1").count();
        let c = (0..n).filter(|&k| d.pick(k, &mut r) == "c:1").count();
        assert!((a as f64 / n as f64 - 0.75).abs() < 0.01, "{a}");
        assert_eq!(c, 0);
    }

    #[test]
    fn round_robin_cycles() {
        let d = Dest::RoundRobin(vec!["x".into(), "y".into()]);
        let mut r = Rng::new(1, 0);
        let v: Vec<String> = (0..4).map(|k| d.pick(k, &mut r)).collect();
        assert_eq!(v, ["x", "y", "x", "y"]);
    }

    #[test]
    fn bad_targets_are_refused() {
        assert!(Dest::parse_targets("").is_err());
        assert!(Dest::parse_targets("0 a:1\n").is_err());
        assert!(Dest::parse_targets("x a:1\n").is_err());
        assert!(Dest::parse_targets("1 a:1 extra\n").is_err());
        assert!(Dest::parse_targets("-1 a:1\n2 b:2\n").is_err());
    }
}
