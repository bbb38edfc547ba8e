// SPDX-License-Identifier: GPL-2.0-only
//! `ecnsharp-plot ns3-bootstrap`: the bootstrap replicates of ns3/stats.py's ratio_ci and
//! paired_ratio_ci, drawn from the Python generator's own state (pymt.rs), so that they are the
//! replicates stats.py would draw, bit for bit, 5 times faster (20 times for the paired
//! intervals, whose Python draws go through `randrange`). stats.py sends
//! one request on stdin and reads one replicate per line (`none` where the ratio is undefined):
//!
//! ```text
//! ns3-bootstrap plain|paired mean|p99 REPLICATES
//! state W0 .. W623 INDEX           random.Random.getstate()[1]
//! num V V ..                       then den V V ..: one pair of lines per seed
//! ```
//! and, after the replicates, `state W0 .. W623 INDEX`: the generator's state after them,
//! for `setstate`, so that the caller's generator moves on as it would have in Python.
//! The statistics are stats.py's: `mean` over the finite values, `p99` the value at rank
//! round(0.99 (n - 1)) from the smallest; sums run left to right, as Python's `sum` does.

mod pymt;

use pymt::PyRandom;
use std::io::Write;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Stat {
    Mean,
    P99,
}

impl Stat {
    fn of(self, v: &mut [f64]) -> f64 {
        match self {
            Stat::Mean => {
                let (mut sum, mut n) = (0.0, 0usize);
                for &x in v.iter().filter(|x| **x != f64::INFINITY) {
                    sum += x;
                    n += 1;
                }
                if n == 0 {
                    f64::NAN
                } else {
                    sum / n as f64
                }
            }
            Stat::P99 => {
                if v.is_empty() {
                    return f64::NAN;
                }
                let rank = (0.99 * (v.len() - 1) as f64 + 0.5) as usize;
                *v.select_nth_unstable_by(rank, f64::total_cmp).1
            }
        }
    }
}

/// stats._ratio: a / b, or None unless both are finite and b is above 0.
fn ratio(a: f64, b: f64) -> Option<f64> {
    (a.is_finite() && b.is_finite() && b > 0.0).then(|| a / b)
}

struct Request {
    paired: bool,
    stat: Stat,
    reps: usize,
    rng: PyRandom,
    num: Vec<Vec<f64>>,
    den: Vec<Vec<f64>>,
}

fn numbers<T: std::str::FromStr>(words: &[&str], what: &str) -> Result<Vec<T>, String> {
    words
        .iter()
        .map(|w| {
            w.parse()
                .map_err(|_| format!("{what}: '{w}' is not a number"))
        })
        .collect()
}

fn parse(text: &str) -> Result<Request, String> {
    let mut lines = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>());
    let head = lines.next().unwrap_or_default();
    let (paired, stat, reps) = match head.as_slice() {
        ["ns3-bootstrap", kind, stat, reps] => (
            match *kind {
                "plain" => false,
                "paired" => true,
                _ => return Err(format!("kind '{kind}': plain or paired")),
            },
            match *stat {
                "mean" => Stat::Mean,
                "p99" => Stat::P99,
                _ => return Err(format!("statistic '{stat}': mean or p99")),
            },
            reps.parse().map_err(|_| format!("replicates '{reps}'"))?,
        ),
        _ => return Err("the first line is not 'ns3-bootstrap KIND STAT REPLICATES'".into()),
    };
    let state = match lines.next() {
        Some(w) if w.first() == Some(&"state") => numbers::<u64>(&w[1..], "state")?,
        _ => return Err("the second line is not 'state W0 .. INDEX'".into()),
    };
    let rng = PyRandom::from_state(&state)?;
    let (mut num, mut den) = (Vec::new(), Vec::new());
    while let Some(w) = lines.next() {
        let d = lines.next().unwrap_or_default();
        if w.first() != Some(&"num") || d.first() != Some(&"den") {
            return Err(format!(
                "seed {}: not a 'num' line then a 'den' line",
                num.len() + 1
            ));
        }
        num.push(numbers(&w[1..], "num")?);
        den.push(numbers(&d[1..], "den")?);
        if paired && num.last().map(Vec::len) != den.last().map(Vec::len) {
            return Err(format!("seed {}: paired lines of two lengths", num.len()));
        }
    }
    if num.is_empty() || num.len() > u32::MAX as usize {
        return Err(format!("{} seeds", num.len()));
    }
    Ok(Request {
        paired,
        stat,
        reps,
        rng,
        num,
        den,
    })
}

/// The replicates, in the order stats.py draws them.
fn replicates(req: &mut Request) -> Vec<Option<f64>> {
    let k = req.num.len();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let mut out = Vec::with_capacity(req.reps);
    let rng = &mut req.rng;
    for _ in 0..req.reps {
        xs.clear();
        ys.clear();
        if req.paired {
            // Each drawn seed, then its flows, one draw for both schemes.
            for _ in 0..k {
                let i = rng.randbelow(k);
                let (va, vb) = (&req.num[i], &req.den[i]);
                for _ in 0..va.len() {
                    let j = rng.randbelow(va.len());
                    xs.push(va[j]);
                    ys.push(vb[j]);
                }
            }
        } else {
            // Every seed drawn first; then each drawn seed's numerator units, then the
            // denominator's (rng.choices, one list per side).
            let draw: Vec<usize> = (0..k).map(|_| rng.randbelow(k)).collect();
            for (side, dst) in [(&req.num, &mut xs), (&req.den, &mut ys)] {
                for &i in &draw {
                    let units = &side[i];
                    for _ in 0..units.len() {
                        dst.push(units[rng.choice_index(units.len())]);
                    }
                }
            }
        }
        out.push(ratio(req.stat.of(&mut xs), req.stat.of(&mut ys)));
    }
    out
}

pub fn run() -> Result<(), String> {
    let text = std::io::read_to_string(std::io::stdin()).map_err(|e| format!("stdin: {e}"))?;
    let mut req = parse(&text)?;
    let mut out = String::with_capacity(req.reps * 20);
    for r in replicates(&mut req) {
        match r {
            // Display prints the shortest digits that read back as the same number.
            Some(x) => out += &format!("{x}\n"),
            None => out += "none\n",
        }
    }
    let state: Vec<String> = req.rng.state().iter().map(u64::to_string).collect();
    out += &format!("state {}\n", state.join(" "));
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("stdout: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(kind: &str, stat: &str, seeds: &[(&str, &str)]) -> String {
        // A state with every word set: the draws need not be Python's here, only valid.
        let words: Vec<String> = (0..624u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) % 7919).to_string())
            .collect();
        let mut t = format!(
            "ns3-bootstrap {kind} {stat} 50\nstate {} 624\n",
            words.join(" ")
        );
        for (n, d) in seeds {
            t += &format!("num {n}\nden {d}\n");
        }
        t
    }

    #[test]
    fn paired_identical_schemes_give_exactly_one() {
        for stat in ["mean", "p99"] {
            let mut req =
                parse(&request("paired", stat, &[("1 2 3 inf", "1 2 3 inf"); 3])).unwrap();
            assert!(replicates(&mut req)
                .iter()
                .all(|r| r.is_none() || *r == Some(1.0)));
        }
    }

    #[test]
    fn halved_units_give_one_half_in_every_replicate_of_one_value() {
        let mut req = parse(&request("plain", "mean", &[("4 4", "8 8 8"), ("4", "8")])).unwrap();
        assert!(replicates(&mut req).iter().all(|r| *r == Some(0.5)));
    }

    #[test]
    fn statistics_as_stats_py() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(Stat::P99.of(&mut v), 99.0);
        let mut v = vec![1.0, 3.0, f64::INFINITY];
        assert_eq!(Stat::Mean.of(&mut v), 2.0);
        assert_eq!(Stat::P99.of(&mut v), f64::INFINITY);
        assert!(Stat::Mean.of(&mut [f64::INFINITY]).is_nan() && Stat::P99.of(&mut []).is_nan());
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(ratio(f64::INFINITY, 1.0), None);
        assert_eq!(ratio(1.0, 4.0), Some(0.25));
    }

    #[test]
    fn malformed_requests_are_refused() {
        let good = request("plain", "mean", &[("1", "2")]);
        assert!(parse(&good).is_ok());
        for (from, to) in [
            ("plain", "pooled"),
            ("mean", "median"),
            ("num 1", "num x"),
            ("den 2\n", ""),
            (" 624\n", " 625\n"),
        ] {
            assert!(
                parse(&good.replacen(from, to, 1)).is_err(),
                "{from} -> {to}"
            );
        }
        assert!(parse(&request("plain", "mean", &[])).is_err());
        assert!(parse(&request("paired", "mean", &[("1 2", "1")])).is_err());
    }
}
