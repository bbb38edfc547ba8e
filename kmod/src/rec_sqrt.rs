// SPDX-License-Identifier: GPL-2.0-only
//! Fixed-point `1/sqrt(marking_count)` for the persistent-marking control law (ECN# §3.2).
//!
//! Algorithm 1 shrinks the gap between persistent marks to `pst_interval / sqrt(marking_count)`.
//! The kernel has no floats, so, as Linux CoDel does, the reciprocal square root is kept in Q0.32
//! next to the count and refined by Newton's method each time the count grows by one.
//!
//! Accuracy (test `error_against_f64`): over `count = 1..=1<<20` the relative error of
//! [`rec_inv_sqrt_next`] against `1/sqrt(count)` in f64 is at most [`MAX_REL_ERROR_PPB`] parts per
//! billion (measured 1.196e-7, the Q0.32 resolution at count 2^20). Beyond 2^20 the resolution
//! dominates: at most `sqrt(count) * 2^-33` plus that, 7.7e-6 at `count = u32::MAX`.
//! [`interval_over_sqrt`] rounds to the nearest nanosecond, so a gap is within
//! `exact * MAX_REL_ERROR_PPB / 1e9 + 0.5 ns` of the real-valued `interval / sqrt(count)`.

use crate::time::Nanos;

/// `1/sqrt(1)` in Q0.32: 1.0 does not fit a `u32`, so one unit less (an error of 2^-32).
pub const REC_INV_SQRT_ONE: u32 = u32::MAX;

/// Bound on the relative error of [`rec_inv_sqrt_next`] for counts up to 2^20, in parts per
/// billion (1.25e-7; measured 1.196e-7 by the test `error_against_f64`).
pub const MAX_REL_ERROR_PPB: u64 = 125;

/// Counts below this take an exact value from a table: Newton's step from `1/sqrt(n-1)` is least
/// accurate for small `n` (its error is about `3/(8 n^2)`), and 64 entries cost 256 bytes.
const CACHE_LEN: usize = 64;

/// `round(2^32 / sqrt(n))` for `n < CACHE_LEN` (entries 0 and 1 are [`REC_INV_SQRT_ONE`]),
/// computed by the compiler.
const CACHE: [u32; CACHE_LEN] = build_cache();

const fn build_cache() -> [u32; CACHE_LEN] {
    let mut table = [0u32; CACHE_LEN];
    let mut n = 0;
    // Evaluated at compile time only: an index out of range would be a build error, not a BUG().
    while n < CACHE_LEN {
        table[n] = rec_inv_sqrt_exact(n as u32);
        n += 1;
    }
    table
}

/// `floor(sqrt(v))`, bit by bit (`u64::isqrt` needs rustc 1.84 in a `const fn`; the module builds
/// with the kernel's minimum, 1.78). No division; at most 32 rounds.
const fn isqrt_u64(v: u64) -> u64 {
    let mut rest = v;
    let mut root = 0u64;
    let mut bit = 1u64 << 62;
    while bit > v {
        bit >>= 2;
    }
    while bit != 0 {
        // root + bit <= 2^63 and rest <= v: nothing wraps.
        if rest >= root.wrapping_add(bit) {
            rest = rest.wrapping_sub(root.wrapping_add(bit));
            root = (root >> 1).wrapping_add(bit);
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    root
}

/// `1/sqrt(count)` in Q0.32, correctly rounded; counts 0 and 1 give [`REC_INV_SQRT_ONE`].
///
/// An integer square root (one 64-bit division) and 128-bit multiplications (wrapping, which they
/// provably never do: no overflow-checked 128-bit intrinsic, no 128-bit division). Builds the
/// table at compile time; at run time only reseeds the Newton iteration if it is handed a zero.
pub const fn rec_inv_sqrt_exact(count: u32) -> u32 {
    if count <= 1 {
        return REC_INV_SQRT_ONE;
    }
    let n = count as u128;
    // floor(sqrt(floor((2^64 - 1) / n))) is floor(sqrt(2^64 / n)) or one less (when n is a power
    // of two). r < 2^32 / sqrt(2), so (2r + 3)^2 n < 2^98: nothing below can wrap.
    let mut r = isqrt_u64(u64::MAX / count as u64) as u128;
    let next = r.wrapping_add(1);
    if next.wrapping_mul(next).wrapping_mul(n) <= 1 << 64 {
        r = next;
    }
    // Round to nearest: sqrt(2^64 / n) >= r + 1/2 exactly when (2r + 1)^2 n <= 2^66.
    let twice = r.wrapping_mul(2).wrapping_add(1);
    if twice.wrapping_mul(twice).wrapping_mul(n) <= 1 << 66 {
        r = r.wrapping_add(1);
    }
    r as u32
}

/// `1/sqrt(count)` in Q0.32, given `prev`, the value for `count - 1`.
///
/// Counts below 64 come from an exact table; above, two Newton steps
/// `x' = x (3 - count x^2) / 2` starting from `prev` (one step would leave up to 9.4e-5 at count
/// 64; the second costs a few multiplications once per mark). Never panics; a `prev` far from
/// `1/sqrt(count - 1)` only costs accuracy, and a zero `prev` is reseeded exactly.
pub fn rec_inv_sqrt_next(prev: u32, count: u32) -> u32 {
    if let Some(exact) = CACHE.get(count as usize) {
        return *exact;
    }
    if prev == 0 {
        return rec_inv_sqrt_exact(count);
    }
    newton_step(newton_step(prev, count), count)
}

/// One Newton step towards `1/sqrt(count)` in Q0.32, all in 64-bit arithmetic.
fn newton_step(x: u32, count: u32) -> u32 {
    let x = u64::from(x);
    // x^2 is exact in Q0.64 (< 2^64); shifted to Q2.62, count * x^2 is about 2^62 * count/(count-1)
    // here, far from overflow (saturating all the same).
    let x_sq = x.wrapping_mul(x) >> 2;
    let count_x_sq = u64::from(count).saturating_mul(x_sq);
    // (3 - count x^2) in Q2.62, narrowed to Q2.30 (< 3 * 2^30) so that x times it fits 64 bits.
    let three = 3u64 << 62;
    let factor = three.saturating_sub(count_x_sq) >> 32;
    // x * factor / 2 back to Q0.32, rounded to nearest: x * factor < 2^32 * 3 * 2^30.
    let next = x.saturating_mul(factor).saturating_add(1 << 30) >> 31;
    u32::try_from(next).unwrap_or(REC_INV_SQRT_ONE)
}

/// `interval * rec_inv_sqrt / 2^32` rounded to the nearest nanosecond: `interval / sqrt(count)`
/// when `rec_inv_sqrt` is `1/sqrt(count)` in Q0.32.
///
/// 64-bit only (the product is split at bit 32), exact for every `interval`: never overflows.
pub fn interval_over_sqrt(interval: Nanos, rec_inv_sqrt: u32) -> Nanos {
    let rec = u64::from(rec_inv_sqrt);
    let high = (interval >> 32).wrapping_mul(rec); // < 2^32 * 2^32
    let low = (interval & 0xffff_ffff).wrapping_mul(rec); // <= (2^32 - 1)^2
    high.saturating_add(low.saturating_add(1 << 31) >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isqrt_matches_std() {
        for v in (0..100_000u64).chain([u64::MAX, u64::MAX - 1, 1 << 62, (1 << 62) - 1, 1 << 63]) {
            assert_eq!(isqrt_u64(v), v.isqrt(), "{v}");
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(isqrt_u64(x), x.isqrt(), "{x}");
        }
    }
    use proptest::prelude::*;

    const Q32: f64 = 4_294_967_296.0;

    fn rel_err(rec: u32, count: u32) -> f64 {
        (f64::from(rec) / Q32 * f64::from(count).sqrt() - 1.0).abs()
    }

    #[test]
    fn exact_values() {
        assert_eq!(rec_inv_sqrt_exact(0), REC_INV_SQRT_ONE);
        assert_eq!(rec_inv_sqrt_exact(1), REC_INV_SQRT_ONE);
        // Powers of four have exact answers: 2^32 / 2^k.
        assert_eq!(rec_inv_sqrt_exact(4), 1 << 31);
        assert_eq!(rec_inv_sqrt_exact(16), 1 << 30);
        assert_eq!(rec_inv_sqrt_exact(1 << 20), 1 << 22);
        assert_eq!(rec_inv_sqrt_exact(u32::MAX), 65_536);
        // 2^32 / sqrt(2) = 3037000499.976...
        assert_eq!(rec_inv_sqrt_exact(2), 3_037_000_500);
        for count in 2..5_000u32 {
            let exact = Q32 / f64::from(count).sqrt();
            assert!((f64::from(rec_inv_sqrt_exact(count)) - exact).abs() <= 0.5 + 1e-6);
        }
        for (n, v) in CACHE.iter().enumerate() {
            assert_eq!(*v, rec_inv_sqrt_exact(n as u32));
        }
    }

    /// The documented bound, measured the way Algorithm 1 uses it: one increment at a time.
    #[test]
    fn error_against_f64() {
        let mut rec = REC_INV_SQRT_ONE;
        let mut worst = (0.0f64, 0u32);
        for count in 1..=(1u32 << 20) {
            rec = rec_inv_sqrt_next(rec, count);
            let err = rel_err(rec, count);
            if count >= 2 && err > worst.0 {
                worst = (err, count);
            }
        }
        std::println!(
            "rec_inv_sqrt max rel error {:.4e} at count {}",
            worst.0,
            worst.1
        );
        assert!(worst.0 <= MAX_REL_ERROR_PPB as f64 * 1e-9, "{worst:?}");
        // Not vacuous: the bound is within a factor of two of what we measure.
        assert!(worst.0 > MAX_REL_ERROR_PPB as f64 * 0.5e-9, "{worst:?}");
    }

    /// Near the top of the count range the Q0.32 resolution (2^-16 at u32::MAX) dominates.
    #[test]
    fn error_at_high_counts_and_saturation() {
        let start = u32::MAX - 100_000;
        let mut rec = rec_inv_sqrt_exact(start);
        for count in start + 1..=u32::MAX {
            rec = rec_inv_sqrt_next(rec, count);
            let bound = f64::from(count).sqrt() / Q32 / 2.0 + MAX_REL_ERROR_PPB as f64 * 1e-9;
            assert!(rel_err(rec, count) <= bound, "count {count}");
        }
        // A saturated count keeps refining towards the same fixed point.
        for _ in 0..10 {
            rec = rec_inv_sqrt_next(rec, u32::MAX);
        }
        assert_eq!(rec, rec_inv_sqrt_exact(u32::MAX));
    }

    /// Gaps as `persistent` computes them: within `exact * bound + 0.5 ns`.
    #[test]
    fn gap_error() {
        for interval in [
            crate::time::us(200),
            crate::time::us(1),
            u64::from(u32::MAX),
        ] {
            let mut rec = REC_INV_SQRT_ONE;
            for count in 1..=(1u32 << 16) {
                rec = rec_inv_sqrt_next(rec, count);
                if count < 2 {
                    continue;
                }
                let exact = interval as f64 / f64::from(count).sqrt();
                let gap = interval_over_sqrt(interval, rec) as f64;
                let bound = exact * MAX_REL_ERROR_PPB as f64 * 1e-9 + 0.5;
                assert!(
                    (gap - exact).abs() <= bound,
                    "interval {interval} count {count}"
                );
            }
        }
        assert_eq!(interval_over_sqrt(1_000, 1 << 31), 500);
        assert_eq!(interval_over_sqrt(3, 1 << 31), 2); // 1.5 rounds up
        assert_eq!(interval_over_sqrt(0, REC_INV_SQRT_ONE), 0);
        assert_eq!(interval_over_sqrt(u64::MAX, 0), 0);
        // (2^64 - 1)(1 - 2^-32) = 2^64 - 2^32 - 1 + 2^-32: no overflow at the extremes.
        assert_eq!(
            interval_over_sqrt(u64::MAX, REC_INV_SQRT_ONE),
            u64::MAX - (1 << 32)
        );
    }

    #[test]
    fn zero_prev_is_reseeded() {
        assert_eq!(rec_inv_sqrt_next(0, 1_000), rec_inv_sqrt_exact(1_000));
        assert_eq!(rec_inv_sqrt_next(0, 3), rec_inv_sqrt_exact(3));
    }

    proptest! {
        /// Any input, however far from the invariant, returns without panicking; and from an
        /// exact `prev` the result meets the bound.
        #[test]
        fn never_panics(prev in any::<u32>(), count in any::<u32>(), interval in any::<u64>()) {
            let rec = rec_inv_sqrt_next(prev, count);
            let _ = interval_over_sqrt(interval, rec);
            if (2..=1 << 20).contains(&count) {
                let rec = rec_inv_sqrt_next(rec_inv_sqrt_exact(count - 1), count);
                prop_assert!(rel_err(rec, count) <= MAX_REL_ERROR_PPB as f64 * 1e-9);
            }
        }
    }
}
