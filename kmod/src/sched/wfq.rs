// SPDX-License-Identifier: GPL-2.0-only
//! Weighted fair queueing (TCN section 5, WFQ: "a virtual time for the head packet of each
//! queue", smallest first), self-clocked as in Golestani's SCFQ: the system virtual time is the
//! finish tag of the packet last served, so no fluid GPS simulation is needed.
//!
//! A band that becomes backlogged gets `V + len * cost`; its next head gets the previous tag plus
//! `len * cost`, where `cost` is precomputed from the weight so the per-packet path never divides.

use crate::band::{Band, MAX_BANDS};
use crate::sched::BandSet;

/// Virtual time of one byte at weight 1. `len * cost` fits a `u64` for any `u32` length, and the
/// cost of weights up to 65536 keeps 16 significant bits.
const COST_SCALE: u64 = 1 << 32;

/// Largest advance of one tag. Backlogged tags all lie within one step of the virtual time, so
/// keeping a step below 2^63 makes the wrapping comparison exact when tags wrap around `u64`.
const MAX_TAG_STEP: u64 = 1 << 62;

/// SCFQ state for up to [`MAX_BANDS`] bands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wfq {
    /// Virtual time per byte of each band: `COST_SCALE / weight`.
    cost: [u64; MAX_BANDS],
    /// Virtual finish tag of each backlogged band's head packet.
    finish: [u64; MAX_BANDS],
    /// System virtual time: the finish tag of the packet last served.
    vtime: u64,
    /// Backlogged bands.
    members: BandSet,
}

impl Wfq {
    /// No band backlogged, with the given weights (0 is taken as 1).
    pub const fn new(weights: &[u32; MAX_BANDS]) -> Self {
        let mut w = Wfq {
            cost: [COST_SCALE; MAX_BANDS],
            finish: [0; MAX_BANDS],
            vtime: 0,
            members: BandSet::EMPTY,
        };
        w.set_weights(weights);
        w
    }

    /// New weights (at `change()`); tags already given are kept.
    pub const fn set_weights(&mut self, weights: &[u32; MAX_BANDS]) {
        let mut i = 0;
        while let Some(band) = Band::new(i) {
            let weight = weights[band.index()];
            let weight = if weight == 0 { 1 } else { weight as u64 };
            // The one division, at configuration time; never 0 since weight < 2^32.
            self.cost[band.index()] = COST_SCALE / weight;
            i += 1;
        }
    }

    /// Virtual time `len` bytes of `band` take.
    #[inline]
    fn step(&self, band: Band, len: u32) -> u64 {
        let step = u64::from(len).saturating_mul(self.cost[band.index()]);
        if step > MAX_TAG_STEP {
            MAX_TAG_STEP
        } else {
            step
        }
    }

    /// `band` became backlogged with a head packet of `head_len` bytes: its tag is the current
    /// virtual time plus the packet's cost. Ignored if already backlogged.
    #[inline]
    pub fn activate(&mut self, band: Band, head_len: u32) {
        if self.members.contains(band) {
            return;
        }
        self.finish[band.index()] = self.vtime.wrapping_add(self.step(band, head_len));
        self.members = self.members.with(band);
    }

    /// The backlogged band whose head has the smallest finish tag (the lowest band on a tie).
    /// A scan of at most 16 bands; changes nothing, so it is idempotent.
    #[inline]
    pub fn select(&self) -> Option<Band> {
        let mut best: Option<(Band, u64)> = None;
        for band in self.members.iter() {
            let tag = self.finish[band.index()];
            if best.map_or(true, |(_, best_tag)| before(tag, best_tag)) {
                best = Some((band, tag));
            }
        }
        best.map(|(band, _)| band)
    }

    /// The head of `band` left: virtual time moves to its tag, and the next head (if any) gets
    /// that tag plus its own cost.
    #[inline]
    pub fn complete(&mut self, band: Band, next_head_len: Option<u32>) {
        if !self.members.contains(band) {
            return;
        }
        let i = band.index();
        self.vtime = self.finish[i];
        match next_head_len {
            Some(len) => self.finish[i] = self.finish[i].wrapping_add(self.step(band, len)),
            None => self.deactivate(band),
        }
    }

    /// The head of `band` (`len` bytes) left without being sent (dropped at dequeue): virtual
    /// time stays, and the next head is tagged from the dropped head's start tag, so the band is
    /// charged only for what it sends.
    #[inline]
    pub fn discard_head(&mut self, band: Band, len: u32, next_head_len: Option<u32>) {
        if !self.members.contains(band) {
            return;
        }
        let i = band.index();
        match next_head_len {
            Some(next) => {
                // The tag was start + step(len): the same `step` undoes it exactly (wrapping).
                let start = self.finish[i].wrapping_sub(self.step(band, len));
                self.finish[i] = start.wrapping_add(self.step(band, next));
            }
            None => self.deactivate(band),
        }
    }

    /// `band` was flushed.
    #[inline]
    pub fn deactivate(&mut self, band: Band) {
        self.members = self.members.without(band);
    }

    /// Whether `band` is backlogged.
    #[inline]
    pub fn is_active(&self, band: Band) -> bool {
        self.members.contains(band)
    }

    /// The backlogged bands.
    #[inline]
    pub fn backlogged(&self) -> BandSet {
        self.members
    }

    /// The current virtual time.
    pub const fn vtime(&self) -> u64 {
        self.vtime
    }
}

/// Whether tag `a` comes before tag `b`, correct across `u64` wrap while they are less than
/// 2^63 apart.
const fn before(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;
    use std::vec::Vec;

    fn b(i: usize) -> Band {
        Band::new(i).unwrap()
    }

    fn weights(w: &[u32]) -> [u32; MAX_BANDS] {
        let mut all = [1; MAX_BANDS];
        all[..w.len()].copy_from_slice(w);
        all
    }

    /// Deterministic packet sizes between 64 and 1514 bytes.
    struct Sizes(u64);

    impl Sizes {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            64 + (self.0 % 1451) as u32
        }
    }

    fn saturated_shares(w: &[u32], packets: usize, vtime: u64) -> Vec<f64> {
        let mut q = Wfq::new(&weights(w));
        q.vtime = vtime;
        let mut sizes = Sizes(0x2545_f491_4f6c_dd1d);
        let mut heads: Vec<u32> = (0..w.len()).map(|_| sizes.next()).collect();
        for (i, &len) in heads.iter().enumerate() {
            q.activate(b(i), len);
        }
        let mut bytes = std::vec![0u64; w.len()];
        for _ in 0..packets {
            let band = q.select().unwrap();
            let i = band.index();
            bytes[i] += u64::from(heads[i]);
            heads[i] = sizes.next();
            q.complete(band, Some(heads[i]));
        }
        let total: u64 = bytes.iter().sum();
        bytes.iter().map(|&x| x as f64 / total as f64).collect()
    }

    fn assert_shares_follow(w: &[u32], shares: &[f64]) {
        let total: u32 = w.iter().sum();
        let mut worst: f64 = 0.0;
        for (i, (&wi, &share)) in w.iter().zip(shares).enumerate() {
            let want = f64::from(wi) / f64::from(total);
            let err = (share - want).abs() / want;
            assert!(
                err < 0.01,
                "band {i}: share {share:.5}, want {want:.5} ({err:.5})"
            );
            worst = worst.max(err);
        }
        std::eprintln!("worst relative share error {worst:.2e}");
    }

    #[test]
    fn byte_shares_follow_weights_2_1_1() {
        let w = [2, 1, 1];
        assert_shares_follow(&w, &saturated_shares(&w, 100_000, 0));
    }

    #[test]
    fn byte_shares_follow_weights_eight_bands() {
        let w = [1, 2, 3, 4, 5, 6, 7, 8];
        assert_shares_follow(&w, &saturated_shares(&w, 100_000, 0));
    }

    #[test]
    fn byte_shares_survive_tag_wrap() {
        let w = [2, 1, 1];
        // Starts 1 ms of weight-1 traffic at 10G below the wrap point and runs through it.
        let shares = saturated_shares(&w, 100_000, u64::MAX - (1 << 40));
        assert_shares_follow(&w, &shares);
    }

    #[test]
    fn new_band_starts_at_virtual_time() {
        let mut q = Wfq::new(&weights(&[1, 1]));
        q.activate(b(0), 1500);
        for _ in 0..10 {
            assert_eq!(q.select(), Some(b(0)));
            q.complete(b(0), Some(1500));
        }
        // Band 0's head ends at V + 1500 cost; a 100-byte packet of band 1 ends at V + 100 cost.
        let v = q.vtime();
        assert_eq!(v, 10 * 1500 * COST_SCALE);
        q.activate(b(1), 100);
        assert_eq!(q.select(), Some(b(1)));
        q.complete(b(1), Some(1600));
        assert_eq!(q.vtime(), v + 100 * COST_SCALE);
        // Now band 1's head ends at V + 1700 > band 0's V + 1500: band 0 goes.
        assert_eq!(q.select(), Some(b(0)));
        assert_eq!(q.select(), Some(b(0)));
    }

    #[test]
    fn ties_go_to_lowest_band_and_zero_weight_is_one() {
        let mut q = Wfq::new(&weights(&[0, 1, 0]));
        q.activate(b(2), 500);
        q.activate(b(1), 500);
        q.activate(b(0), 500);
        assert_eq!(q.select(), Some(b(0)));
        q.complete(b(0), None);
        assert_eq!(q.select(), Some(b(1)));
        q.deactivate(b(1));
        assert_eq!(q.select(), Some(b(2)));
        q.complete(b(2), None);
        assert_eq!(q.select(), None);
        assert!(q.backlogged().is_empty());
    }

    #[test]
    fn extreme_lengths_and_weights_do_not_overflow() {
        let mut q = Wfq::new(&weights(&[1, u32::MAX]));
        q.vtime = u64::MAX - 5;
        q.activate(b(0), u32::MAX);
        q.activate(b(1), u32::MAX);
        assert_eq!(q.select(), Some(b(1)));
        q.complete(b(1), Some(u32::MAX));
        assert_eq!(q.select(), Some(b(1)));
        q.complete(b(1), Some(1));
        assert_eq!(q.select(), Some(b(1)));
    }

    /// Textbook SCFQ (Golestani 1994), written from the paper rather than from [`Wfq`]: every
    /// packet gets its tag when it arrives, `F = max(F_prev of its flow, v) + len / weight`,
    /// with `v` the tag of the packet last taken into service, and the smallest tag goes next
    /// (the lowest band on a tie). Tags are exact rationals over the common denominator `DEN`.
    struct Scfq {
        /// `DEN / weight` per band: `len / weight` is `len * per_byte / DEN`.
        per_byte: Vec<u128>,
        /// The queued packets of each band: (length, tag).
        queues: Vec<VecDeque<(u32, u128)>>,
        /// The tag of the last packet of each band, queued or served.
        last: Vec<u128>,
        v: u128,
    }

    /// A multiple of every weight used here: 1 to 20 and the powers of two up to 2^8 (the least
    /// common multiple of 1..=20, times 2^8).
    const DEN: u128 = 232_792_560 << 8;

    impl Scfq {
        fn new(w: &[u32]) -> Scfq {
            Scfq {
                per_byte: w.iter().map(|&x| DEN / u128::from(x.max(1))).collect(),
                queues: w.iter().map(|_| VecDeque::new()).collect(),
                last: std::vec![0; w.len()],
                v: 0,
            }
        }

        fn arrive(&mut self, band: usize, len: u32) {
            let tag = self.last[band].max(self.v) + u128::from(len) * self.per_byte[band];
            self.last[band] = tag;
            self.queues[band].push_back((len, tag));
        }

        /// Serves the smallest tag: its band and length.
        fn serve(&mut self) -> Option<(usize, u32)> {
            let (band, _) = (0..self.queues.len())
                .filter_map(|i| self.queues[i].front().map(|&(_, tag)| (i, tag)))
                .min_by_key(|&(i, tag)| (tag, i))?;
            let (len, tag) = self.queues[band].pop_front()?;
            self.v = tag;
            Some((band, len))
        }
    }

    /// Drives [`Wfq`] with FIFOs of lengths, as the engine does.
    fn serve_wfq(q: &mut Wfq, fifos: &mut [VecDeque<u32>]) -> Option<(usize, u32)> {
        let band = q.select()?;
        let i = band.index();
        let len = fifos[i].pop_front()?;
        q.complete(band, fifos[i].front().copied());
        Some((i, len))
    }

    fn enqueue_wfq(q: &mut Wfq, fifos: &mut [VecDeque<u32>], band: usize, len: u32) {
        fifos[band].push_back(len);
        if fifos[band].len() == 1 {
            q.activate(b(band), len);
        }
    }

    proptest! {
        /// With weights whose cost per byte is exact (powers of two), every choice is the
        /// textbook's, from just below the wrap point of the tags.
        #[test]
        fn matches_textbook_scfq_across_wrap(
            w in proptest::collection::vec(0u32..5, 5),
            ops in proptest::collection::vec((0usize..5, 1u32..3000, 0u8..3), 0..400),
        ) {
            let w: Vec<u32> = w.iter().map(|&e| 1 << (e * 2)).collect();
            let mut q = Wfq::new(&weights(&w));
            q.vtime = u64::MAX - 3000 * COST_SCALE * 20;
            let mut model = Scfq::new(&w);
            let mut fifos: Vec<VecDeque<u32>> = (0..5).map(|_| VecDeque::new()).collect();
            for (band, len, what) in ops {
                if what == 0 {
                    prop_assert_eq!(serve_wfq(&mut q, &mut fifos), model.serve());
                } else {
                    enqueue_wfq(&mut q, &mut fifos, band, len);
                    model.arrive(band, len);
                }
            }
        }

        /// Any weights 0 to 20: the cost per byte is rounded down to a multiple of 2^-32, so two
        /// nearly equal tags may be served in the other order; after every choice, no band has
        /// been served more than one packet ahead of or behind the textbook.
        #[test]
        fn within_one_packet_of_textbook_scfq(
            w in proptest::collection::vec(0u32..21, 5),
            ops in proptest::collection::vec((0usize..5, 1u32..3000, 0u8..3), 0..600),
        ) {
            let mut q = Wfq::new(&weights(&w));
            let mut model = Scfq::new(&w);
            let mut fifos: Vec<VecDeque<u32>> = (0..5).map(|_| VecDeque::new()).collect();
            let (mut got, mut want) = ([0i64; 5], [0i64; 5]);
            for (band, len, what) in ops {
                if what == 0 {
                    let g = serve_wfq(&mut q, &mut fifos);
                    let m = model.serve();
                    prop_assert_eq!(g.is_some(), m.is_some());
                    if let (Some((gb, gl)), Some((mb, ml))) = (g, m) {
                        got[gb] += i64::from(gl);
                        want[mb] += i64::from(ml);
                    }
                    for i in 0..5 {
                        prop_assert!((got[i] - want[i]).abs() < 3000, "band {}: {} vs {}", i, got[i], want[i]);
                    }
                } else {
                    enqueue_wfq(&mut q, &mut fifos, band, len);
                    model.arrive(band, len);
                }
            }
        }
    }
}
