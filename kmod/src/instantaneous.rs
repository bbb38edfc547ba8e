// SPDX-License-Identifier: GPL-2.0-only
//! Instantaneous sojourn-time marking: TCN (§4.1), ECN#'s `ins_target` rule (§3.2), and the
//! probabilistic Tmin/Tmax/Pmax variant of TCN §4.3 that DCQCN needs (ECN# §3.5).
//!
//! Both decide from the sojourn time of the packet leaving the queue, nothing else.

use crate::config::MarkingParams;
use crate::prng::Prng;
use crate::time::Nanos;

/// TCN / ECN# instantaneous rule: mark when the sojourn time is strictly above `ins_target`.
#[inline]
pub fn instantaneous(sojourn: Nanos, ins_target: Nanos) -> bool {
    sojourn > ins_target
}

/// Fixed-point position of [`ProbLaw`]'s slope: thresholds per nanosecond times 2^31.
///
/// With at most 2^32 threshold units over the whole span, `(sojourn - tmin) * slope` stays below
/// 2^63, and the slope's rounding costs under one threshold unit for spans below 2^31 ns.
const SLOPE_SHIFT: u32 = 31;

/// The probabilistic law of TCN §4.3, prepared at configuration time so that a packet costs one
/// 64-bit multiply and shift.
///
/// Sojourn below `tmin`: never marked. Above `tmax`: always. In `[tmin, tmax]`: marked with
/// probability `pmax * (sojourn - tmin) / (tmax - tmin)`, rising linearly from 0 at `tmin` to
/// exactly `pmax` at `tmax`, decided by comparing a 32-bit draw with a threshold in units of 2^-32
/// (within two units of the exact line for spans below 2 s).
///
/// With `tmin == tmax` the ramp has no width: the law marks exactly when `sojourn > tmax`, the
/// cut-off rule of [`instantaneous`]. A `tmax` below `tmin` (rejected by validation) is treated as
/// `tmin`, and `pmax_ppm` above 1,000,000 as 1,000,000.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbLaw {
    tmin: Nanos,
    tmax: Nanos,
    /// Threshold units (2^-32 of probability) per nanosecond above `tmin`, in Q.31, rounded up
    /// so that `tmax` reaches `pmax_units`.
    slope: u64,
    /// Pmax in units of 2^-32 (at most 2^32: certain marking at `tmax`).
    pmax_units: u64,
}

impl ProbLaw {
    /// The law for `p.tmin`, `p.tmax` and `p.pmax_ppm`; the only divisions are here.
    pub const fn new(p: &MarkingParams) -> ProbLaw {
        let tmax = if p.tmax < p.tmin { p.tmin } else { p.tmax };
        let pmax_ppm = if p.pmax_ppm > 1_000_000 {
            1_000_000
        } else {
            p.pmax_ppm
        };
        let pmax_units = ((pmax_ppm as u64) << 32) / 1_000_000;
        let span = tmax.wrapping_sub(p.tmin); // tmax >= tmin: no wrap
        let scaled = pmax_units << SLOPE_SHIFT; // <= 2^63
        let slope = match (scaled.checked_div(span), scaled.checked_rem(span)) {
            (Some(q), Some(r)) => q + (r != 0) as u64, // q < 2^63: no overflow
            _ => 0,                                    // tmin == tmax: no ramp
        };
        ProbLaw {
            tmin: p.tmin,
            tmax,
            slope,
            pmax_units,
        }
    }

    /// The marking probability at `sojourn`, in units of 2^-32 (2^32 means always).
    #[inline]
    pub fn threshold(&self, sojourn: Nanos) -> u64 {
        if sojourn < self.tmin {
            0
        } else if sojourn > self.tmax {
            1 << 32
        } else {
            // sojourn - tmin <= tmax - tmin, so the product is at most about 2^(32 + SLOPE_SHIFT).
            let ramp = sojourn.wrapping_sub(self.tmin).saturating_mul(self.slope) >> SLOPE_SHIFT;
            if ramp < self.pmax_units {
                ramp
            } else {
                self.pmax_units
            }
        }
    }

    /// Whether to mark a packet that waited `sojourn`; draws from `rng` only inside the ramp.
    #[inline]
    pub fn should_mark(&self, sojourn: Nanos, rng: &mut Prng) -> bool {
        if sojourn < self.tmin {
            false
        } else if sojourn > self.tmax {
            true
        } else {
            u64::from(rng.next_u32()) < self.threshold(sojourn)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::time::us;
    use proptest::prelude::*;

    fn params(tmin: Nanos, tmax: Nanos, pmax_ppm: u32) -> MarkingParams {
        MarkingParams {
            tmin,
            tmax,
            pmax_ppm,
            ..Config::DEFAULT.marking
        }
    }

    #[test]
    fn instantaneous_is_strict() {
        assert!(!instantaneous(us(200), us(200)));
        assert!(instantaneous(us(200) + 1, us(200)));
        assert!(!instantaneous(0, 0));
        assert!(instantaneous(1, 0));
        assert!(!instantaneous(u64::MAX, u64::MAX));
    }

    #[test]
    fn never_below_tmin_always_above_tmax() {
        let law = ProbLaw::new(&params(us(100), us(400), 1_000_000));
        let mut rng = Prng::new(7);
        for _ in 0..10_000 {
            assert!(!law.should_mark(us(100) - 1, &mut rng));
            assert!(!law.should_mark(0, &mut rng));
            assert!(law.should_mark(us(400) + 1, &mut rng));
            assert!(law.should_mark(u64::MAX, &mut rng));
        }
        // Outside the ramp nothing is drawn.
        let mut untouched = Prng::new(7);
        assert_eq!(rng.next_u32(), untouched.next_u32());
    }

    #[test]
    fn threshold_is_linear() {
        let law = ProbLaw::new(&params(us(100), us(400), 100_000));
        let pmax_units = (100_000u64 << 32) / 1_000_000;
        assert_eq!(law.threshold(us(100)), 0);
        assert_eq!(law.threshold(us(400)), pmax_units);
        let half = law.threshold(us(250));
        assert!(half.abs_diff(pmax_units / 2) <= 1, "{half}");
        let third = law.threshold(us(200));
        assert!(third.abs_diff(pmax_units / 3) <= 1, "{third}");
        assert_eq!(law.threshold(us(400) + 1), 1 << 32);
        // Pmax 100% reaches certainty at tmax.
        let full = ProbLaw::new(&params(us(100), us(400), 1_000_000));
        assert_eq!(full.threshold(us(400)), 1 << 32);
    }

    /// At the midpoint the mark fraction is pmax/2 = 5%: 200,000 draws give a standard deviation
    /// of sqrt(0.05 * 0.95 / 200000) = 0.049%; allow 5 of them.
    #[test]
    fn midpoint_fraction() {
        const DRAWS: u32 = 200_000;
        let law = ProbLaw::new(&params(us(100), us(400), 100_000));
        for seed in [1u32, 2, 3] {
            let mut rng = Prng::new(seed);
            let marked = (0..DRAWS)
                .filter(|_| law.should_mark(us(250), &mut rng))
                .count();
            let fraction = marked as f64 / f64::from(DRAWS);
            let sd = (0.05f64 * 0.95 / f64::from(DRAWS)).sqrt();
            assert!(
                (fraction - 0.05).abs() < 5.0 * sd,
                "seed {seed}: {fraction}"
            );
        }
        // And at three quarters of the ramp with pmax 80%: 60%.
        let law = ProbLaw::new(&params(us(100), us(500), 800_000));
        let mut rng = Prng::new(9);
        let marked = (0..DRAWS)
            .filter(|_| law.should_mark(us(400), &mut rng))
            .count();
        let fraction = marked as f64 / f64::from(DRAWS);
        let sd = (0.6f64 * 0.4 / f64::from(DRAWS)).sqrt();
        assert!((fraction - 0.6).abs() < 5.0 * sd, "{fraction}");
    }

    #[test]
    fn tmin_equal_tmax_is_a_cut_off() {
        let law = ProbLaw::new(&params(us(300), us(300), 500_000));
        let mut rng = Prng::new(1);
        for _ in 0..1_000 {
            assert!(!law.should_mark(us(300), &mut rng));
            assert!(!law.should_mark(us(300) - 1, &mut rng));
            assert!(law.should_mark(us(300) + 1, &mut rng));
        }
        assert_eq!(law.threshold(us(300)), 0);
    }

    #[test]
    fn invalid_parameters_are_tamed() {
        // tmax < tmin acts as tmax == tmin.
        let law = ProbLaw::new(&params(us(300), us(100), 500_000));
        assert_eq!(law, ProbLaw::new(&params(us(300), us(300), 500_000)));
        // pmax above 100% is 100%.
        let law = ProbLaw::new(&params(us(100), us(200), u32::MAX));
        assert_eq!(law, ProbLaw::new(&params(us(100), us(200), 1_000_000)));
        // pmax 0 never marks inside the ramp.
        let law = ProbLaw::new(&params(us(100), us(200), 0));
        let mut rng = Prng::new(1);
        assert!((0..1_000).all(|_| !law.should_mark(us(150), &mut rng)));
        // The all-zero law marks any positive sojourn.
        assert!(ProbLaw::default().should_mark(1, &mut rng));
        assert!(!ProbLaw::default().should_mark(0, &mut rng));
    }

    proptest! {
        /// Never panics; the threshold is monotonic in sojourn and bounded by pmax in the ramp.
        #[test]
        fn threshold_monotonic(tmin in any::<u64>(), tmax in any::<u64>(),
                               pmax_ppm in 0u32..=2_000_000, a in any::<u64>(), b in any::<u64>()) {
            let law = ProbLaw::new(&params(tmin, tmax, pmax_ppm));
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(law.threshold(lo) <= law.threshold(hi));
            let pmax_units = (u64::from(pmax_ppm.min(1_000_000)) << 32) / 1_000_000;
            if lo >= tmin && lo <= tmax.max(tmin) {
                prop_assert!(law.threshold(lo) <= pmax_units);
            }
            let mut rng = Prng::new(pmax_ppm);
            let _ = law.should_mark(a, &mut rng);
        }

        /// The documented accuracy: within two units of 2^-32 of the exact line for spans up to
        /// 2^31 ns, and exactly pmax at tmax.
        #[test]
        fn threshold_accuracy(tmin in 0u64..1 << 40, span in 1u64..=1 << 31,
                              pmax_ppm in 0u32..=1_000_000, at in 0.0f64..=1.0) {
            let law = ProbLaw::new(&params(tmin, tmin + span, pmax_ppm));
            let offset = (span as f64 * at) as u64;
            let exact = f64::from(pmax_ppm) / 1e6 * 4_294_967_296.0 * offset as f64 / span as f64;
            let got = law.threshold(tmin + offset) as f64;
            prop_assert!((got - exact).abs() <= 2.0, "{} vs {}", got, exact);
            prop_assert_eq!(law.threshold(tmin + span), (u64::from(pmax_ppm) << 32) / 1_000_000);
        }
    }
}
