// SPDX-License-Identifier: GPL-2.0-only
//! A small seeded generator (xorshift64*), so every scheme sees the same flows for one seed.

pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` and a stream number (a query, a worker): distinct streams for
    /// distinct pairs, the same stream for the same pair.
    pub fn new(seed: u64, stream: u64) -> Self {
        // splitmix64 of the pair: xorshift needs a non-zero, well-mixed state.
        let mut z = seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(stream.wrapping_mul(0xBF58_476D_1CE4_E5B9))
            .wrapping_add(0x94D0_49BB_1331_11EB);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 1 } else { z })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform integer in [lo, hi].
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Exponential with the given mean (Poisson inter-arrival times).
    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let a: Vec<u64> = (0..5).map(|_| Rng::new(7, 3).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Rng::new(7, 3).next_u64(), Rng::new(7, 4).next_u64());
    }

    #[test]
    fn exp_has_its_mean() {
        let mut r = Rng::new(1, 0);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exp(2.5)).sum::<f64>() / n as f64;
        assert!((m - 2.5).abs() < 0.05, "mean {m}");
    }

    #[test]
    fn range_is_inclusive_and_bounded() {
        let mut r = Rng::new(2, 0);
        let v: Vec<u64> = (0..10_000).map(|_| r.range(3, 5)).collect();
        assert!(v.iter().all(|&x| (3..=5).contains(&x)));
        assert!(v.contains(&3) && v.contains(&5));
    }
}
