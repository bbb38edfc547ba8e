// SPDX-License-Identifier: GPL-2.0-only
//! The sojourn histogram of a band: how long its sent packets waited, in log-scale buckets, so
//! that percentiles (p50, p99) come from what the qdisc itself saw.
//!
//! Fixed size and no allocation: [`SOJOURN_BUCKETS`] `u32` counts. Bucket 0 holds sojourns
//! below [`SOJOURN_FIRST_EDGE_NS`] (1024 ns); then every octave of nanoseconds from 2^10 to
//! 2^34 is split in two at its middle (so a bucket spans at most half its lower edge: 1024,
//! 1536, 2048, 3072, 4096 ns...); the last bucket holds everything from 2^34 ns (17.2 s) up.
//! Recording is a leading-zeros count, two shifts and an add, at dequeue.
//!
//! Counts are `u32`: when one would wrap (after 4.3 billion packets in one bucket) every bucket
//! of the band is halved, which keeps the shape, hence the percentiles; until then the counts
//! add up to the band's sent packets exactly.

use crate::time::Nanos;

/// Buckets per band: one below 1024 ns, two per octave from 2^10 to 2^34 ns, one above.
pub const SOJOURN_BUCKETS: usize = 2 + 2 * SOJOURN_OCTAVES as usize;
/// Upper edge of bucket 0, the first octave's lower edge: 2^10 ns.
pub const SOJOURN_FIRST_EDGE_NS: u32 = 1 << FIRST_LOG2;
/// Buckets per octave.
pub const SOJOURN_STEPS_PER_OCTAVE: u32 = 2;
/// Octaves split into buckets, 2^10 to 2^34 ns.
const SOJOURN_OCTAVES: u32 = 24;
/// log2 of [`SOJOURN_FIRST_EDGE_NS`].
const FIRST_LOG2: u32 = 10;

/// One band's sojourn histogram. All zero: nothing recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SojournHist {
    /// Packets per bucket ([`bucket_of`]).
    pub counts: [u32; SOJOURN_BUCKETS],
}

impl Default for SojournHist {
    fn default() -> Self {
        Self::new()
    }
}

/// The bucket of a sojourn of `ns` nanoseconds.
#[inline]
pub const fn bucket_of(ns: Nanos) -> usize {
    if ns < SOJOURN_FIRST_EDGE_NS as u64 {
        return 0;
    }
    let log2 = 63 - ns.leading_zeros();
    let octave = log2 - FIRST_LOG2;
    if octave >= SOJOURN_OCTAVES {
        return SOJOURN_BUCKETS - 1;
    }
    // The bit below the leading one: upper or lower half of the octave.
    let half = ((ns >> (log2 - 1)) & 1) as usize;
    1 + 2 * octave as usize + half
}

/// The sojourns bucket `b` holds, `[lower, upper)` in ns; `upper` is `None` for the last bucket
/// (no upper edge) and for any `b` past it.
pub const fn bucket_bounds(b: usize) -> (Nanos, Option<Nanos>) {
    if b == 0 {
        return (0, Some(SOJOURN_FIRST_EDGE_NS as u64));
    }
    if b >= SOJOURN_BUCKETS - 1 {
        return (1 << (FIRST_LOG2 + SOJOURN_OCTAVES), None);
    }
    let octave = ((b - 1) / 2) as u32;
    let half = ((b - 1) % 2) as u64;
    let base: u64 = 1 << (FIRST_LOG2 + octave);
    // The halves of [base, 2 base): [base, 1.5 base) and [1.5 base, 2 base).
    let lower = base + half * (base / 2);
    (lower, Some(lower + base / 2))
}

impl SojournHist {
    /// Nothing recorded.
    pub const fn new() -> Self {
        SojournHist {
            counts: [0; SOJOURN_BUCKETS],
        }
    }

    /// Counts one sent packet that waited `ns`.
    #[inline]
    pub fn record(&mut self, ns: Nanos) {
        // `bucket_of` is below SOJOURN_BUCKETS by construction; `get_mut` keeps it panic-free.
        if let Some(c) = self.counts.get_mut(bucket_of(ns)) {
            match c.checked_add(1) {
                Some(n) => *c = n,
                None => self.halve_and_record(ns),
            }
        }
    }

    /// A bucket is full: halve them all (the shape stays), then count the packet.
    #[cold]
    fn halve_and_record(&mut self, ns: Nanos) {
        for c in self.counts.iter_mut() {
            *c /= 2;
        }
        if let Some(c) = self.counts.get_mut(bucket_of(ns)) {
            *c = c.saturating_add(1);
        }
    }

    /// Packets recorded (since the last halving, if any).
    pub fn total(&self) -> u64 {
        // At most 50 x (2^32 - 1): no u64 overflow.
        self.counts
            .iter()
            .fold(0u64, |sum, &c| sum.wrapping_add(u64::from(c)))
    }

    /// The sojourn below or at which `permille` / 1000 of the recorded packets lie (p50: 500,
    /// p99: 990), as the upper edge of the bucket where that rank falls, capped by `max_ns`,
    /// the longest sojourn seen (which lies at or above that bucket's lower edge). `None` when
    /// nothing was recorded.
    pub fn percentile(&self, permille: u32, max_ns: Nanos) -> Option<Nanos> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        // The rank of the packet the percentile names, 1-based: ceil(total * permille / 1000).
        let permille = u64::from(permille.min(1000));
        let rank = (total.saturating_mul(permille).saturating_add(999) / 1000).max(1);
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen = seen.wrapping_add(u64::from(c));
            if seen >= rank {
                let (lower, upper) = bucket_bounds(b);
                let value = upper.map_or(max_ns, |u| u.min(max_ns));
                return Some(value.max(lower));
            }
        }
        Some(max_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        assert_eq!(SOJOURN_BUCKETS, 50);
        assert_eq!(SOJOURN_FIRST_EDGE_NS, 1024);
    }

    #[test]
    fn bucket_edges() {
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(1023), 0);
        assert_eq!(bucket_of(1024), 1);
        assert_eq!(bucket_of(1535), 1);
        assert_eq!(bucket_of(1536), 2);
        assert_eq!(bucket_of(2047), 2);
        assert_eq!(bucket_of(2048), 3);
        assert_eq!(bucket_of(3072), 4);
        assert_eq!(bucket_of((1 << 34) - 1), 48);
        assert_eq!(bucket_of(1 << 34), 49);
        assert_eq!(bucket_of(u64::MAX), 49);
        assert_eq!(bucket_bounds(0), (0, Some(1024)));
        assert_eq!(bucket_bounds(1), (1024, Some(1536)));
        assert_eq!(bucket_bounds(2), (1536, Some(2048)));
        assert_eq!(bucket_bounds(48), (3 << 32, Some(1 << 34)));
        assert_eq!(bucket_bounds(49), (1 << 34, None));
        assert_eq!(bucket_bounds(1000), (1 << 34, None));
    }

    /// Every bucket's bounds are contiguous, and every value maps into the bucket whose bounds
    /// hold it: both edges of every bucket, and the values beside them.
    #[test]
    fn bounds_and_buckets_agree() {
        let mut expected_lower = 0;
        for b in 0..SOJOURN_BUCKETS {
            let (lower, upper) = bucket_bounds(b);
            assert_eq!(lower, expected_lower, "bucket {b}");
            assert_eq!(bucket_of(lower), b);
            match upper {
                Some(u) => {
                    assert!(u > lower);
                    assert_eq!(bucket_of(u - 1), b);
                    assert_eq!(bucket_of(u), b + 1);
                    // At most half the lower edge wide.
                    if lower > 0 {
                        assert!((u - lower) * 2 <= lower, "bucket {b}");
                    }
                    expected_lower = u;
                }
                None => assert_eq!(b, SOJOURN_BUCKETS - 1),
            }
        }
    }

    #[test]
    fn percentiles() {
        let mut h = SojournHist::new();
        assert_eq!(h.percentile(500, 0), None);
        // 98 packets at 10 us, 2 at 1 ms: p50 in 10 us's bucket, p99 in 1 ms's.
        for _ in 0..98 {
            h.record(10_000);
        }
        h.record(1_000_000);
        h.record(1_000_000);
        assert_eq!(h.total(), 100);
        let (lo10, hi10) = bucket_bounds(bucket_of(10_000));
        assert_eq!((lo10, hi10), (8192, Some(12_288)));
        assert_eq!(h.percentile(500, 1_000_000), Some(12_288));
        assert_eq!(h.percentile(980, 1_000_000), Some(12_288));
        // Rank 99 is one of the 1 ms packets: capped by the maximum seen.
        assert_eq!(h.percentile(990, 1_000_000), Some(1_000_000));
        assert_eq!(h.percentile(990, 1_100_000), Some(1_048_576));
        assert_eq!(h.percentile(1000, 1_000_000), Some(1_000_000));
        // p0 is the first packet's bucket.
        assert_eq!(h.percentile(0, 1_000_000), Some(12_288));
        // A maximum below the bucket's lower edge (counts from before a reset of it) is not
        // taken: the value stays within the bucket.
        assert_eq!(h.percentile(500, 5), Some(8192));
    }

    #[test]
    fn one_packet_and_the_last_bucket() {
        let mut h = SojournHist::new();
        h.record(20_000_000_000);
        assert_eq!(h.counts[SOJOURN_BUCKETS - 1], 1);
        assert_eq!(h.percentile(500, 20_000_000_000), Some(20_000_000_000));
        let mut h = SojournHist::new();
        h.record(0);
        assert_eq!(h.percentile(990, 0), Some(0));
    }

    #[test]
    fn a_full_bucket_halves_them_all() {
        let mut h = SojournHist::new();
        h.counts[3] = u32::MAX;
        h.counts[5] = 10;
        h.record(2_500);
        assert_eq!(bucket_of(2_500), 3);
        assert_eq!((h.counts[3], h.counts[5]), (u32::MAX / 2 + 1, 5));
    }
}
