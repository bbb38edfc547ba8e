// SPDX-License-Identifier: GPL-2.0-only
//! Statistics for ratios between schemes: means and nearest-rank percentiles, with bootstrap
//! 95% intervals over seeds and, within each seed, over flows (a hierarchical bootstrap: seeds
//! are drawn with replacement, paired between the two schemes as they carry the same arrivals,
//! then each drawn seed's flows with replacement, per scheme).

/// A small seeded generator (xorshift64*), so the intervals are the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Nearest-rank percentile (as flowgen reports): the value at rank ceil(p/100 * n).
pub fn percentile(v: &[f64], p: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    Some(s[rank.clamp(1, s.len()) - 1])
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stat {
    Mean,
    P99,
}

impl Stat {
    pub fn of(self, v: &[f64]) -> Option<f64> {
        match self {
            Stat::Mean => mean(v),
            Stat::P99 => percentile(v, 99.0),
        }
    }
}

/// A ratio with its bootstrap interval.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.lo.is_nan() {
            // One seed: a per-seed metric has no interval to give.
            write!(f, "{:.3} [-,-]", self.value)
        } else {
            write!(f, "{:.3} [{:.3},{:.3}]", self.value, self.lo, self.hi)
        }
    }
}

pub const REPS: usize = 2000;

/// STAT(a) / STAT(b) over pooled samples, with its hierarchical bootstrap interval. `a[k]` and
/// `b[k]` are the samples of the k-th seed both schemes ran.
pub fn ratio(a: &[Vec<f64>], b: &[Vec<f64>], stat: Stat, rng: &mut Rng) -> Option<Ratio> {
    let pool = |v: &[Vec<f64>]| v.iter().flatten().copied().collect::<Vec<f64>>();
    let value = stat.of(&pool(a))? / stat.of(&pool(b))?;
    let k = a.len().min(b.len());
    if k == 0 {
        return None;
    }
    let mut reps = Vec::with_capacity(REPS);
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    for _ in 0..REPS {
        ra.clear();
        rb.clear();
        for _ in 0..k {
            let s = rng.below(k);
            for (src, dst) in [(&a[s], &mut ra), (&b[s], &mut rb)] {
                for _ in 0..src.len() {
                    dst.push(src[rng.below(src.len())]);
                }
            }
        }
        if let (Some(x), Some(y)) = (stat.of(&ra), stat.of(&rb)) {
            if y > 0.0 {
                reps.push(x / y);
            }
        }
    }
    let lo = percentile(&reps, 2.5)?;
    let hi = percentile(&reps, 97.5)?;
    Some(Ratio { value, lo, hi })
}

/// A per-seed metric's ratio of means (one value per seed and scheme), bootstrapped over the
/// seeds both ran.
pub fn ratio_of_seeds(a: &[f64], b: &[f64], rng: &mut Rng) -> Option<Ratio> {
    let wrap = |v: &[f64]| v.iter().map(|x| vec![*x]).collect::<Vec<_>>();
    let r = ratio(&wrap(a), &wrap(b), Stat::Mean, rng)?;
    if a.len().min(b.len()) < 2 {
        return Some(Ratio {
            lo: f64::NAN,
            hi: f64::NAN,
            ..r
        });
    }
    Some(r)
}

/// STAT(a) / STAT(b) for a statistic of a whole set of seeds (one that is not a mean or
/// percentile of pooled samples, such as the largest incast fanout without a timeout in any
/// seed), with the seed level of `ratio`'s bootstrap: REPS replicates, each drawing as many
/// seeds as both ran, with replacement and paired, and the 2.5th and 97.5th percentiles. One
/// seed gives no interval (NaN), as `ratio_of_seeds`.
pub fn ratio_over_seeds<T>(
    a: &[T],
    b: &[T],
    stat: impl Fn(&[&T]) -> Option<f64>,
    rng: &mut Rng,
) -> Option<Ratio> {
    let k = a.len().min(b.len());
    if k == 0 {
        return None;
    }
    let all_a: Vec<&T> = a[..k].iter().collect();
    let all_b: Vec<&T> = b[..k].iter().collect();
    let value = stat(&all_a)? / stat(&all_b)?;
    if k < 2 {
        return Some(Ratio {
            value,
            lo: f64::NAN,
            hi: f64::NAN,
        });
    }
    let mut reps = Vec::with_capacity(REPS);
    let (mut ra, mut rb) = (Vec::with_capacity(k), Vec::with_capacity(k));
    for _ in 0..REPS {
        ra.clear();
        rb.clear();
        for _ in 0..k {
            let s = rng.below(k);
            ra.push(&a[s]);
            rb.push(&b[s]);
        }
        if let (Some(x), Some(y)) = (stat(&ra), stat(&rb)) {
            if y > 0.0 {
                reps.push(x / y);
            }
        }
    }
    let lo = percentile(&reps, 2.5)?;
    let hi = percentile(&reps, 97.5)?;
    Some(Ratio { value, lo, hi })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_is_nearest_rank() {
        let v: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(percentile(&v, 99.0), Some(198.0));
        assert_eq!(percentile(&[3.0], 99.0), Some(3.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn the_interval_covers_the_ratio_and_narrows_with_samples() {
        let mut r = Rng::new(1);
        // Scheme a is twice scheme b, with noise; three seeds.
        let mk = |scale: f64, n: usize, r: &mut Rng| -> Vec<Vec<f64>> {
            (0..3)
                .map(|_| {
                    (0..n)
                        .map(|_| scale * (1.0 + r.below(100) as f64 / 100.0))
                        .collect()
                })
                .collect()
        };
        let (a, b) = (mk(2.0, 50, &mut r), mk(1.0, 50, &mut r));
        let small = ratio(&a, &b, Stat::Mean, &mut r).unwrap();
        assert!(
            small.lo <= small.value && small.value <= small.hi,
            "{small}"
        );
        assert!((small.value - 2.0).abs() < 0.2, "{small}");
        let (a, b) = (mk(2.0, 2000, &mut r), mk(1.0, 2000, &mut r));
        let big = ratio(&a, &b, Stat::Mean, &mut r).unwrap();
        assert!(big.hi - big.lo < small.hi - small.lo, "{big} vs {small}");
        assert!(ratio(&[], &b, Stat::Mean, &mut r).is_none());
        let max = |v: &[&f64]| v.iter().map(|x| **x).reduce(f64::max);
        let m = ratio_over_seeds(&[2.0, 4.0, 3.0], &[1.0, 1.0, 1.0], max, &mut r).unwrap();
        assert!(m.value == 4.0 && m.lo >= 2.0 && m.hi == 4.0, "{m}");
        let one = ratio_over_seeds(&[2.0], &[1.0], max, &mut r).unwrap();
        assert!(one.value == 2.0 && one.lo.is_nan(), "{one}");
        let s = ratio_of_seeds(&[2.0, 2.2, 1.8], &[1.0, 1.0, 1.0], &mut r).unwrap();
        assert!(
            (s.value - 2.0).abs() < 1e-9 && s.lo >= 1.8 && s.hi <= 2.2,
            "{s}"
        );
    }
}
