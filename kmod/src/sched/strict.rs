// SPDX-License-Identifier: GPL-2.0-only
//! Strict priority (TCN section 5, SP and the strict part of SP/DWRR and SP/WFQ): band 0 first.
//!
//! A bitmap of backlogged bands; the next band is its lowest set bit, so every operation is O(1).

use crate::band::Band;
use crate::sched::BandSet;

/// Strict-priority state: which of its bands are backlogged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Strict {
    /// Backlogged bands.
    backlogged: BandSet,
}

impl Strict {
    /// No band backlogged.
    pub const fn new() -> Self {
        Strict {
            backlogged: BandSet::EMPTY,
        }
    }

    /// `band` has packets.
    #[inline]
    pub fn activate(&mut self, band: Band) {
        self.backlogged = self.backlogged.with(band);
    }

    /// The lowest-numbered backlogged band; changes nothing, so it is idempotent.
    #[inline]
    pub fn select(&self) -> Option<Band> {
        self.backlogged.first()
    }

    /// A packet left `band`; `next_head_len` is `None` if the band is now empty.
    #[inline]
    pub fn complete(&mut self, band: Band, next_head_len: Option<u32>) {
        if next_head_len.is_none() {
            self.deactivate(band);
        }
    }

    /// `band` was flushed.
    #[inline]
    pub fn deactivate(&mut self, band: Band) {
        self.backlogged = self.backlogged.without(band);
    }

    /// Whether `band` is backlogged here.
    #[inline]
    pub fn is_active(&self, band: Band) -> bool {
        self.backlogged.contains(band)
    }

    /// The backlogged bands.
    #[inline]
    pub fn backlogged(&self) -> BandSet {
        self.backlogged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(i: usize) -> Band {
        Band::new(i).unwrap()
    }

    #[test]
    fn lowest_band_first() {
        let mut s = Strict::new();
        assert_eq!(s.select(), None);
        s.activate(b(5));
        s.activate(b(2));
        s.activate(b(15));
        assert_eq!(s.select(), Some(b(2)));
        assert_eq!(s.select(), Some(b(2)));
        s.complete(b(2), Some(100));
        assert_eq!(s.select(), Some(b(2)));
        s.complete(b(2), None);
        assert_eq!(s.select(), Some(b(5)));
        s.activate(b(0));
        assert_eq!(s.select(), Some(b(0)));
        s.deactivate(b(0));
        s.deactivate(b(5));
        assert_eq!(s.select(), Some(b(15)));
        assert!(s.is_active(b(15)) && !s.is_active(b(5)));
        s.complete(b(15), None);
        assert_eq!(s.select(), None);
        assert!(s.backlogged().is_empty());
    }
}
