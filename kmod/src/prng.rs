// SPDX-License-Identifier: GPL-2.0-only
//! A small deterministic PRNG for probabilistic marking (TCN §4.3, ECN# §3.5).
//!
//! PCG-XSH-RR: a 64-bit linear congruential state with a permuted 32-bit output. Seedable so that
//! host tests and simulations repeat exactly; the kernel seeds it from `get_random_u32()` when the
//! configured seed is 0. Not cryptographic: it only spreads marks, as RED's random draws do.

/// The LCG multiplier (Knuth's MMIX constant, the usual choice for PCG).
const MULTIPLIER: u64 = 6_364_136_223_846_793_005;
/// The LCG increment; any odd number gives the full 2^64 period.
const INCREMENT: u64 = 1_442_695_040_888_963_407;
/// The seed used in place of 0, so that "no seed" is still one fixed, well-mixed sequence.
const ZERO_SEED: u32 = 0x9e37_79b9;

/// A seedable pseudo-random number generator with a period of 2^64.
///
/// Every state, including all-zero, is valid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prng {
    state: u64,
}

impl Prng {
    /// A generator seeded with `seed`; seed 0 stands for a fixed non-zero seed.
    pub const fn new(seed: u32) -> Prng {
        let seed = if seed == 0 { ZERO_SEED } else { seed };
        // PCG's seeding: step once from 0, add the seed, step again, so that nearby seeds start
        // far apart.
        let mut rng = Prng { state: 0 };
        rng.step();
        rng.state = rng.state.wrapping_add(seed as u64);
        rng.step();
        rng
    }

    const fn step(&mut self) {
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT);
    }

    /// The next 32 uniformly distributed bits.
    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.step();
        // Xorshift the high bits down, then rotate by the top 5 bits: the low bits of an LCG are
        // weak, the high ones are not.
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rotation = (old >> 59) as u32;
        xorshifted.rotate_right(rotation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_seed_dependent() {
        let mut a = Prng::new(42);
        let mut b = Prng::new(42);
        let mut c = Prng::new(43);
        let xs: std::vec::Vec<u32> = (0..100).map(|_| a.next_u32()).collect();
        let ys: std::vec::Vec<u32> = (0..100).map(|_| b.next_u32()).collect();
        let zs: std::vec::Vec<u32> = (0..100).map(|_| c.next_u32()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        // Neighbouring seeds do not share outputs position by position.
        assert!(xs.iter().zip(&zs).all(|(x, z)| x != z));
    }

    #[test]
    fn seed_zero_is_fixed_and_not_degenerate() {
        assert_eq!(Prng::new(0), Prng::new(ZERO_SEED));
        assert_ne!(Prng::new(0).state, 0);
        let mut rng = Prng::new(0);
        let first: std::vec::Vec<u32> = (0..8).map(|_| rng.next_u32()).collect();
        let mut distinct = first.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 8, "{first:?}");
        // The all-zero state (a zero-filled kernel struct) also produces varied output.
        let mut zero = Prng::default();
        let a = zero.next_u32();
        let b = zero.next_u32();
        let c = zero.next_u32();
        assert!(a != b || b != c);
    }

    /// A chi-square test over 64 buckets of the top bits, and a balance test of every bit.
    #[test]
    fn roughly_uniform() {
        const DRAWS: u32 = 640_000;
        for seed in [0u32, 1, 0xdead_beef] {
            let mut rng = Prng::new(seed);
            let mut buckets = [0u32; 64];
            let mut ones = [0u32; 32];
            for _ in 0..DRAWS {
                let x = rng.next_u32();
                buckets[(x >> 26) as usize] += 1;
                for (bit, count) in ones.iter_mut().enumerate() {
                    *count += (x >> bit) & 1;
                }
            }
            let expected = f64::from(DRAWS) / 64.0;
            let chi2: f64 = buckets
                .iter()
                .map(|&o| (f64::from(o) - expected).powi(2) / expected)
                .sum();
            // 63 degrees of freedom: the 99.99th percentile is about 117.
            assert!(chi2 < 117.0, "seed {seed}: chi2 {chi2}");
            // Each bit is 1 half of the time: sd = sqrt(DRAWS)/2 = 400; allow 5 sd.
            for (bit, &count) in ones.iter().enumerate() {
                let dev = (f64::from(count) - f64::from(DRAWS) / 2.0).abs();
                assert!(dev < 2_000.0, "seed {seed} bit {bit}: {count}");
            }
        }
    }
}
