// SPDX-License-Identifier: GPL-2.0-only
//! Deficit weighted round robin (TCN section 5, DWRR; Shreedhar and Varghese's DRR with a
//! quantum per band): backlogged bands wait in a ring; the head band sends while its deficit
//! covers its head packet, otherwise it gets its quantum and goes to the tail.
//!
//! The ring is a circular singly linked list in fixed arrays indexed by band. Choosing a band
//! never loops over rounds: when the head is short and the band after it cannot send either, one
//! pass over the ring computes how many rounds every band needs and applies them at once, exactly
//! as the round-by-round loop would.

use crate::band::{Band, MAX_BANDS};
use crate::sched::BandSet;

/// DWRR state for up to [`MAX_BANDS`] bands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dwrr {
    /// Bytes added to a band's deficit per round; never 0 (0 is taken as 1).
    quantum: [u32; MAX_BANDS],
    /// Bytes a band may still send this round.
    deficit: [u32; MAX_BANDS],
    /// Length of each backlogged band's head packet.
    head_len: [u32; MAX_BANDS],
    /// Ring successor of each band in the ring.
    next: [Band; MAX_BANDS],
    /// Last band of the ring; its successor is the head. Meaningless when the ring is empty.
    tail: Band,
    /// Bands in the ring, i.e. backlogged.
    members: BandSet,
}

impl Dwrr {
    /// An empty ring with the given quanta in bytes.
    pub const fn new(quanta: &[u32; MAX_BANDS]) -> Self {
        let mut d = Dwrr {
            quantum: [1; MAX_BANDS],
            deficit: [0; MAX_BANDS],
            head_len: [0; MAX_BANDS],
            next: [Band::ZERO; MAX_BANDS],
            tail: Band::ZERO,
            members: BandSet::EMPTY,
        };
        d.set_quanta(quanta);
        d
    }

    /// New quanta (at `change()`); deficits and ring order are kept.
    pub const fn set_quanta(&mut self, quanta: &[u32; MAX_BANDS]) {
        let mut i = 0;
        while let Some(band) = Band::new(i) {
            let q = quanta[band.index()];
            // Validation rejects 0; should one slip through, 1 keeps every loop finite.
            self.quantum[band.index()] = if q == 0 { 1 } else { q };
            i += 1;
        }
    }

    /// The quantum of `band` in bytes.
    pub const fn quantum(&self, band: Band) -> u32 {
        self.quantum[band.index()]
    }

    /// The current deficit of `band` in bytes (0 when not backlogged).
    pub const fn deficit(&self, band: Band) -> u32 {
        self.deficit[band.index()]
    }

    /// `band` became backlogged with a head packet of `head_len` bytes: it joins the tail of the
    /// ring with a full quantum of deficit, as `sch_drr` does. Ignored if already in the ring.
    #[inline]
    pub fn activate(&mut self, band: Band, head_len: u32) {
        if self.members.contains(band) {
            return;
        }
        self.join(band, head_len);
    }

    /// [`Dwrr::activate`] for a band the caller found not in the ring. Always inlined: the
    /// scheduler calls it once per packet that finds its band empty.
    #[inline(always)]
    pub(super) fn join(&mut self, band: Band, head_len: u32) {
        let i = band.index();
        self.head_len[i] = head_len;
        self.deficit[i] = self.quantum[i];
        if self.members.is_empty() {
            self.next[i] = band;
        } else {
            self.next[i] = self.next[self.tail.index()];
            self.next[self.tail.index()] = band;
        }
        self.tail = band;
        self.members = self.members.with(band);
    }

    /// The band to serve next: the head of the ring once its deficit covers its head packet.
    ///
    /// O(1) while the head may send, and O(1) when it is short but the band after it may: the
    /// head gets its quantum and goes to the tail, one step of the round-by-round loop. With
    /// quanta of at least one packet that is nearly always so, since a band reaching the head was
    /// topped up when it last left it. Otherwise every band in the ring would be visited (and
    /// topped up if short) in ring order until one can send; that band's visit number and
    /// position decide how many quanta each band would have received, so one pass does it all,
    /// whatever the quanta (even 1 byte against a 64 KB packet). The chosen band is left at the
    /// head with enough deficit, so asking again returns it unchanged.
    #[inline]
    pub fn select(&mut self) -> Option<Band> {
        if self.members.is_empty() {
            return None;
        }
        let head = self.next[self.tail.index()];
        let h = head.index();
        if self.deficit[h] >= self.head_len[h] {
            return Some(head);
        }
        // One step of the round-by-round loop: a quantum for the head (saturating, as the walk
        // does), which becomes the tail. Branches, not selects: measured faster here even with
        // random packet sizes, since a predicted branch lets consecutive packets overlap.
        self.deficit[h] = self.deficit[h].saturating_add(self.quantum[h]);
        self.tail = head;
        let next = self.next[h];
        let n = next.index();
        if self.deficit[n] >= self.head_len[n] {
            return Some(next);
        }
        self.select_by_walk()
    }

    /// [`Dwrr::select`] in one pass over the ring, from any state: which band the round-by-round
    /// loop would serve first, with every band given the quanta that loop would give it.
    #[cold]
    #[inline(never)]
    fn select_by_walk(&mut self) -> Option<Band> {
        if self.members.is_empty() {
            return None;
        }
        let head = self.next[self.tail.index()];
        let ring_len = u64::from(self.members.len());
        // The winner: (step at which it is served, band, its ring predecessor, its top-ups,
        // its position). Steps are visit * ring_len + position, distinct for distinct bands.
        let mut best: Option<(u64, Band, Band, u64, u64)> = None;
        let mut prev = self.tail;
        let mut band = head;
        for position in 0..ring_len {
            let i = band.index();
            let visits = rounds_needed(self.head_len[i], self.deficit[i], self.quantum[i]);
            let step = visits.saturating_mul(ring_len).saturating_add(position);
            if best.map_or(true, |(s, ..)| step < s) {
                best = Some((step, band, prev, visits, position));
            }
            prev = band;
            band = self.next[i];
        }
        let (_, winner, winner_prev, winner_visits, winner_position) = best?;
        // Bands ahead of the winner in the ring are visited once more than it before it sends;
        // bands behind it as often as it is. All of those visits find them short.
        let mut band = head;
        for position in 0..ring_len {
            let i = band.index();
            let top_ups = if position < winner_position {
                winner_visits.saturating_add(1)
            } else {
                winner_visits
            };
            let credit = top_ups.saturating_mul(u64::from(self.quantum[i]));
            let deficit = u64::from(self.deficit[i]).saturating_add(credit);
            self.deficit[i] = u32::try_from(deficit).unwrap_or(u32::MAX);
            band = self.next[i];
        }
        // Whole rounds leave the ring order as it was; the partial one makes the winner the head.
        self.tail = winner_prev;
        Some(winner)
    }

    /// A packet of `len` bytes left `band`; `next_head_len` is the new head's length, or `None`
    /// if the band is empty, in which case it leaves the ring and loses its deficit.
    #[inline]
    pub fn complete(&mut self, band: Band, len: u32, next_head_len: Option<u32>) {
        if !self.members.contains(band) {
            return;
        }
        let i = band.index();
        match next_head_len {
            Some(next) => {
                self.deficit[i] = self.deficit[i].saturating_sub(len);
                self.head_len[i] = next;
            }
            // Leaving the ring zeroes the deficit: no charge to make first.
            None => self.deactivate(band),
        }
    }

    /// The head of `band` left without being sent (dropped at dequeue): the band keeps its place
    /// and its deficit, so only packets sent are charged; `next_head_len` as in
    /// [`Dwrr::complete`].
    #[inline]
    pub fn discard_head(&mut self, band: Band, next_head_len: Option<u32>) {
        if !self.members.contains(band) {
            return;
        }
        match next_head_len {
            Some(next) => self.head_len[band.index()] = next,
            None => self.deactivate(band),
        }
    }

    /// `band` was flushed: it leaves the ring and loses its deficit.
    pub fn deactivate(&mut self, band: Band) {
        if !self.members.contains(band) {
            return;
        }
        // Find the predecessor; the band served, the usual case, is the head, found at once
        // without counting the ring (a popcount is a dozen instructions without POPCNT, which
        // the kernel's target lacks). The walk is the same loop's first step onwards.
        let mut prev = self.tail;
        if self.next[prev.index()] != band {
            for _ in 0..self.members.len() {
                if self.next[prev.index()] == band {
                    break;
                }
                prev = self.next[prev.index()];
            }
        }
        self.next[prev.index()] = self.next[band.index()];
        if self.tail == band {
            self.tail = prev;
        }
        self.members = self.members.without(band);
        self.deficit[band.index()] = 0;
    }

    /// Whether `band` is in the ring.
    #[inline]
    pub fn is_active(&self, band: Band) -> bool {
        self.members.contains(band)
    }

    /// The bands in the ring.
    #[inline]
    pub fn backlogged(&self) -> BandSet {
        self.members
    }
}

/// How many quanta a band with `deficit` must receive before a `head_len` packet fits:
/// `ceil((head_len - deficit) / quantum)`, 0 if it fits already. Divides only when a packet is
/// larger than the quantum, which the default quantum (one frame) makes rare.
fn rounds_needed(head_len: u32, deficit: u32, quantum: u32) -> u64 {
    let short = u64::from(head_len.saturating_sub(deficit));
    let quantum = u64::from(quantum.max(1));
    if short == 0 {
        0
    } else if short <= quantum {
        1
    } else {
        short.div_ceil(quantum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn b(i: usize) -> Band {
        Band::new(i).unwrap()
    }

    fn quanta(q: &[u32]) -> [u32; MAX_BANDS] {
        let mut all = [1514; MAX_BANDS];
        all[..q.len()].copy_from_slice(q);
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

    /// Every band always backlogged with random sizes: bytes served per band.
    fn saturated_shares(q: &[u32], packets: usize) -> Vec<f64> {
        let mut d = Dwrr::new(&quanta(q));
        let mut sizes = Sizes(0x9e37_79b9_7f4a_7c15);
        let mut heads: Vec<u32> = (0..q.len()).map(|_| sizes.next()).collect();
        for (i, &len) in heads.iter().enumerate() {
            d.activate(b(i), len);
        }
        let mut bytes = std::vec![0u64; q.len()];
        for _ in 0..packets {
            let band = d.select().unwrap();
            let i = band.index();
            bytes[i] += u64::from(heads[i]);
            let len = heads[i];
            heads[i] = sizes.next();
            d.complete(band, len, Some(heads[i]));
        }
        let total: u64 = bytes.iter().sum();
        bytes.iter().map(|&x| x as f64 / total as f64).collect()
    }

    fn assert_shares_follow(q: &[u32], shares: &[f64]) {
        let total: u32 = q.iter().sum();
        let mut worst: f64 = 0.0;
        for (i, (&qi, &share)) in q.iter().zip(shares).enumerate() {
            let want = f64::from(qi) / f64::from(total);
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
    fn byte_shares_follow_quanta_2_1_1() {
        let q = [3000, 1500, 1500];
        assert_shares_follow(&q, &saturated_shares(&q, 100_000));
    }

    #[test]
    fn byte_shares_follow_quanta_eight_bands() {
        let q = [1514, 3028, 4542, 6056, 1000, 500, 9000, 1514];
        assert_shares_follow(&q, &saturated_shares(&q, 100_000));
    }

    #[test]
    fn byte_shares_with_quanta_smaller_than_packets() {
        let q = [300, 100, 200];
        assert_shares_follow(&q, &saturated_shares(&q, 100_000));
    }

    /// Linux-style DRR, round by round, as the reference for the one-pass `select`.
    #[derive(Debug)]
    struct Reference {
        quantum: Vec<u32>,
        deficit: Vec<u64>,
        ring: std::collections::VecDeque<usize>,
    }

    impl Reference {
        fn activate(&mut self, i: usize) {
            if !self.ring.contains(&i) {
                self.deficit[i] = u64::from(self.quantum[i].max(1));
                self.ring.push_back(i);
            }
        }

        fn select(&mut self, head_len: &[u32]) -> Option<usize> {
            for _ in 0..10_000_000 {
                let &i = self.ring.front()?;
                if self.deficit[i] >= u64::from(head_len[i]) {
                    return Some(i);
                }
                self.deficit[i] += u64::from(self.quantum[i].max(1));
                self.ring.rotate_left(1);
            }
            panic!("reference did not converge");
        }

        fn complete(&mut self, i: usize, len: u32, empty: bool) {
            self.deficit[i] = self.deficit[i].saturating_sub(u64::from(len));
            if empty {
                self.ring.retain(|&j| j != i);
                self.deficit[i] = 0;
            }
        }
    }

    proptest! {
        /// The one-pass select serves the same bands, in the same order, with the same
        /// deficits as the round-by-round loop, including small quanta and big packets.
        #[test]
        fn matches_round_by_round_reference(
            q in proptest::collection::vec(0u32..400, 6),
            ops in proptest::collection::vec((0usize..6, 1u32..3000, 0u8..4), 0..400),
        ) {
            let mut all = [1; MAX_BANDS];
            all[..6].copy_from_slice(&q);
            let mut d = Dwrr::new(&all);
            let mut r = Reference {
                quantum: q.clone(),
                deficit: std::vec![0; 6],
                ring: Default::default(),
            };
            let mut fifos: Vec<std::collections::VecDeque<u32>> =
                (0..6).map(|_| Default::default()).collect();
            for (band, len, what) in ops {
                if what == 0 {
                    let first = d.select();
                    let heads: Vec<u32> =
                        fifos.iter().map(|f| f.front().copied().unwrap_or(0)).collect();
                    prop_assert_eq!(first.map(Band::index), r.select(&heads));
                    if let Some(sel) = first {
                        let i = sel.index();
                        let len = fifos[i].pop_front().unwrap();
                        let next = fifos[i].front().copied();
                        d.complete(sel, len, next);
                        r.complete(i, len, next.is_none());
                    }
                } else {
                    fifos[band].push_back(len);
                    if fifos[band].len() == 1 {
                        d.activate(b(band), len);
                        r.activate(band);
                    }
                }
                for i in 0..6 {
                    prop_assert_eq!(u64::from(d.deficit(b(i))), r.deficit[i]);
                }
            }
        }
    }

    /// A ring in any state: any bands in any order, any quanta (never 0, as `set_quanta`
    /// ensures), deficits and head lengths, up to `u32::MAX` so that saturation is covered.
    fn any_ring() -> impl Strategy<Value = Dwrr> {
        let big = || prop_oneof![1u32..4_000, any::<u32>(), (u32::MAX - 4_000)..=u32::MAX];
        (
            proptest::sample::subsequence((0..MAX_BANDS).collect::<Vec<_>>(), 0..=MAX_BANDS)
                .prop_shuffle(),
            proptest::collection::vec(big(), MAX_BANDS),
            proptest::collection::vec(prop_oneof![Just(0u32), big()], MAX_BANDS),
            proptest::collection::vec(big(), MAX_BANDS),
        )
            .prop_map(|(order, q, deficits, lens)| {
                let mut d = Dwrr::new(&q.try_into().unwrap());
                for &i in &order {
                    d.activate(b(i), lens[i]);
                    d.deficit[i] = deficits[i];
                }
                d
            })
    }

    proptest! {
        /// The fast path (head short, the next band can send) chooses the band the one-pass walk
        /// chooses and leaves the same state: deficits, ring order and tail. Asking again
        /// changes nothing.
        #[test]
        fn fast_path_matches_the_walk(d in any_ring()) {
            let (mut fast, mut walk) = (d, d);
            let chosen = fast.select();
            prop_assert_eq!(chosen, walk.select_by_walk());
            prop_assert_eq!(fast, walk);
            prop_assert_eq!(chosen.is_none(), d.members.is_empty());
            let again = fast;
            prop_assert_eq!(fast.select(), chosen);
            prop_assert_eq!(fast, again);
        }
    }

    /// Quanta of one MTU and mixed sizes: a short head gives way to the next band, which got
    /// its quantum when it last left the head, in one step.
    #[test]
    fn short_head_hands_over_to_the_next_band() {
        let mut d = Dwrr::new(&quanta(&[1514, 1514, 1514]));
        d.activate(b(0), 1500);
        d.activate(b(1), 1500);
        d.activate(b(2), 64);
        assert_eq!(d.select(), Some(b(0)));
        d.complete(b(0), 1500, Some(576));
        // Band 0 has 14 bytes left: it gets 1514 more and goes behind band 2.
        assert_eq!(d.select(), Some(b(1)));
        assert_eq!(d.deficit(b(0)), 1528);
        assert_eq!(d.deficit(b(1)), 1514);
        d.complete(b(1), 1500, Some(1500));
        assert_eq!(d.select(), Some(b(2)));
        assert_eq!(d.deficit(b(1)), 1528);
        d.complete(b(2), 64, None);
        assert_eq!(d.select(), Some(b(0)));
        assert_eq!(d.backlogged().len(), 2);
    }

    #[test]
    fn zero_quantum_is_one_and_never_hangs() {
        let mut d = Dwrr::new(&[0; MAX_BANDS]);
        assert_eq!(d.quantum(b(3)), 1);
        d.activate(b(0), u32::MAX);
        d.activate(b(1), u32::MAX - 1);
        // 2^32 rounds of one byte each, computed in one pass.
        assert_eq!(d.select(), Some(b(1)));
        assert_eq!(d.deficit(b(1)), u32::MAX - 1);
        assert_eq!(d.deficit(b(0)), u32::MAX);
        assert_eq!(d.select(), Some(b(1)));
    }

    #[test]
    fn empty_band_leaves_ring_and_loses_deficit() {
        let mut d = Dwrr::new(&quanta(&[1000, 1000]));
        d.activate(b(0), 300);
        d.activate(b(1), 300);
        assert_eq!(d.select(), Some(b(0)));
        d.complete(b(0), 300, None);
        assert!(!d.is_active(b(0)));
        assert_eq!(d.deficit(b(0)), 0);
        assert_eq!(d.select(), Some(b(1)));
        // Back in the ring at the tail with a fresh quantum, not the 700 bytes it had left.
        d.activate(b(0), 300);
        assert_eq!(d.deficit(b(0)), 1000);
        assert_eq!(d.select(), Some(b(1)));
        d.complete(b(1), 300, Some(800));
        assert_eq!(d.deficit(b(1)), 700);
        // Band 1 is short (700 < 800): it gets a quantum and band 0 goes first.
        assert_eq!(d.select(), Some(b(0)));
        assert_eq!(d.deficit(b(1)), 1700);
    }

    #[test]
    fn deactivate_anywhere_in_the_ring() {
        let mut d = Dwrr::new(&quanta(&[100, 100, 100, 100]));
        for i in 0..4 {
            d.activate(b(i), 50);
        }
        d.deactivate(b(2));
        d.deactivate(b(3)); // the tail
        d.deactivate(b(9)); // not there
        assert_eq!(d.backlogged().len(), 2);
        let mut order = Vec::new();
        for _ in 0..4 {
            let band = d.select().unwrap();
            order.push(band.index());
            d.complete(band, 50, Some(50));
        }
        assert_eq!(order, [0, 0, 1, 1]);
        // Ring now 1 (head, deficit spent), 0; band 3 joins the tail, then 0 leaves the middle.
        d.activate(b(3), 50);
        d.deactivate(b(0));
        assert_eq!(
            d.backlogged().iter().map(Band::index).collect::<Vec<_>>(),
            [1, 3]
        );
        assert_eq!(d.select(), Some(b(3)));
        assert_eq!(d.deficit(b(1)), 100);
        d.deactivate(b(3)); // the head
        assert_eq!(d.select(), Some(b(1)));
    }

    #[test]
    fn activate_twice_does_not_corrupt_ring() {
        let mut d = Dwrr::new(&quanta(&[100, 100]));
        d.activate(b(0), 60);
        d.activate(b(0), 60);
        d.activate(b(1), 60);
        d.complete(b(0), 60, None);
        assert_eq!(d.select(), Some(b(1)));
        d.complete(b(1), 60, None);
        assert_eq!(d.select(), None);
    }
}
