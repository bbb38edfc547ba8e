// SPDX-License-Identifier: GPL-2.0-only
//! Bands: the per-class FIFOs of the qdisc, at most [`MAX_BANDS`].
//!
//! Band 0 is the highest priority for strict-priority scheduling, as in `sch_prio`.

/// Most bands one qdisc can have (the TCN prototype and common switch ASICs have 8).
pub const MAX_BANDS: usize = 16;

/// A band index, always `< MAX_BANDS`.
///
/// The invariant lets per-band arrays of `MAX_BANDS` entries be indexed without a bounds check
/// that could panic in the kernel: [`Band::index`] masks, which the compiler sees through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Band(u8);

impl Band {
    /// Band 0, the highest priority.
    pub const ZERO: Band = Band(0);

    /// The band `index`, or `None` if it is not below [`MAX_BANDS`].
    pub const fn new(index: usize) -> Option<Band> {
        if index < MAX_BANDS {
            Some(Band(index as u8))
        } else {
            None
        }
    }

    /// The band `index`, clamped to the last of `bands` bands (`bands` is at least 1).
    pub const fn clamped(index: usize, bands: usize) -> Band {
        let last = if bands == 0 {
            0
        } else if bands > MAX_BANDS {
            MAX_BANDS - 1
        } else {
            bands - 1
        };
        Band(if index > last { last } else { index } as u8)
    }

    /// The index, usable on a `[T; MAX_BANDS]` without a panicking bounds check.
    #[inline(always)]
    pub const fn index(self) -> usize {
        (self.0 as usize) & (MAX_BANDS - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert_eq!(Band::new(15).map(Band::index), Some(15));
        assert_eq!(Band::new(16), None);
        assert_eq!(Band::clamped(7, 3).index(), 2);
        assert_eq!(Band::clamped(1, 3).index(), 1);
        assert_eq!(Band::clamped(5, 0).index(), 0);
        assert_eq!(Band::clamped(40, 99).index(), 15);
    }
}
