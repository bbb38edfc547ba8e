// SPDX-License-Identifier: GPL-2.0-only
//! Scheduling across bands: which backlogged band sends next (TCN section 5, "Packet
//! Schedulers": SP, DWRR, WFQ, and SP/DWRR, SP/WFQ with strict bands on top).
//!
//! The kernel glue owns one packet FIFO per band; the scheduler only keeps per-band state and is
//! told each band's head packet length. Nothing here allocates, and every loop is bounded by
//! [`MAX_BANDS`].

pub mod dwrr;
pub mod strict;
pub mod wfq;

use crate::band::{Band, MAX_BANDS};
use crate::config::{SchedKind, SchedParams};

use self::dwrr::Dwrr;
use self::strict::Strict;
use self::wfq::Wfq;

/// A set of bands as a bitmap: bit `i` is band `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BandSet(u16);

impl BandSet {
    /// No band.
    pub const EMPTY: BandSet = BandSet(0);

    /// Bands `0..count` (all of them if `count >= MAX_BANDS`).
    pub const fn below(count: usize) -> BandSet {
        if count >= MAX_BANDS {
            BandSet(u16::MAX)
        } else {
            // count < 16 here, so the shift is in range.
            BandSet((1u16 << count).wrapping_sub(1))
        }
    }

    /// The raw bitmap (bit `i` is band `i`), for dumps.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Whether `band` is in the set.
    pub const fn contains(self, band: Band) -> bool {
        self.0 & (1u16 << band.index()) != 0
    }

    /// This set with `band` added.
    pub const fn with(self, band: Band) -> BandSet {
        BandSet(self.0 | (1u16 << band.index()))
    }

    /// This set without `band`.
    pub const fn without(self, band: Band) -> BandSet {
        BandSet(self.0 & !(1u16 << band.index()))
    }

    /// The bands in both sets.
    pub const fn intersection(self, other: BandSet) -> BandSet {
        BandSet(self.0 & other.0)
    }

    /// The bands in either set.
    pub const fn union(self, other: BandSet) -> BandSet {
        BandSet(self.0 | other.0)
    }

    /// The bands in this set but not in `other`.
    pub const fn difference(self, other: BandSet) -> BandSet {
        BandSet(self.0 & !other.0)
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many bands the set holds.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest-numbered band, which is the highest priority; one instruction.
    pub const fn first(self) -> Option<Band> {
        if self.0 == 0 {
            None
        } else {
            Band::new(self.0.trailing_zeros() as usize)
        }
    }

    /// The bands, lowest first.
    pub fn iter(self) -> impl Iterator<Item = Band> {
        let mut rest = self;
        core::iter::from_fn(move || {
            let band = rest.first()?;
            rest = rest.without(band);
            Some(band)
        })
    }
}

/// The discipline that shares the bands below the strict ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Sharing {
    /// Kind `Sp`: every band is strict, nothing is shared.
    None,
    /// Deficit weighted round robin.
    Dwrr(Dwrr),
    /// Self-clocked weighted fair queueing.
    Wfq(Wfq),
}

/// Picks the band to serve next: strict bands first (lowest index first), then the others by
/// DWRR or WFQ (TCN's SP/DWRR and SP/WFQ); with kind `Sp` every band is strict.
///
/// Cost per packet: O(1) for strict bands; DWRR is O(1) except when a band runs short of deficit
/// (one pass over at most 16 ring entries); WFQ scans at most 16 bits for the smallest tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scheduler {
    /// Bands in use; bands at or above it are dropped at [`Scheduler::configure`].
    bands: u8,
    /// Bands served by strict priority (all of them for kind `Sp`).
    strict_set: BandSet,
    /// State of the strict bands.
    strict: Strict,
    /// State of the shared bands.
    sharing: Sharing,
    /// Head packet length of every backlogged band, kept so a change of discipline can rebuild
    /// the state of bands that stay backlogged.
    head_len: [u32; MAX_BANDS],
}

impl Scheduler {
    /// A scheduler for `bands` bands (clamped to 1..=[`MAX_BANDS`]) with no band backlogged.
    pub const fn new(p: &SchedParams, bands: u8) -> Self {
        let bands = if bands == 0 {
            1
        } else if bands as usize > MAX_BANDS {
            MAX_BANDS as u8
        } else {
            bands
        };
        let (strict_set, sharing) = match p.kind {
            SchedKind::Sp => (BandSet::below(MAX_BANDS), Sharing::None),
            SchedKind::Dwrr => (
                BandSet::below(strict_count(p.strict_bands, bands)),
                Sharing::Dwrr(Dwrr::new(&p.quanta)),
            ),
            SchedKind::Wfq => (
                BandSet::below(strict_count(p.strict_bands, bands)),
                Sharing::Wfq(Wfq::new(&p.weights)),
            ),
        };
        Scheduler {
            bands,
            strict_set,
            strict: Strict::new(),
            sharing,
            head_len: [0; MAX_BANDS],
        }
    }

    /// Apply new parameters (at `change()`), keeping backlogged bands backlogged.
    ///
    /// If the discipline and the strict split are unchanged, only quanta or weights are updated
    /// and deficits, ring order and tags survive; otherwise the state is rebuilt and every band
    /// that was backlogged is activated again in band order. Bands at or above the new `bands`
    /// lose their state: the glue flushes their FIFOs, as `sch_prio` does.
    pub fn configure(&mut self, p: &SchedParams, bands: u8) {
        let fresh = Scheduler::new(p, bands);
        let dropped = self
            .backlogged()
            .difference(BandSet::below(fresh.bands as usize));
        for band in dropped.iter() {
            self.deactivate(band);
        }
        let same_split = fresh.strict_set == self.strict_set;
        match (&mut self.sharing, &fresh.sharing) {
            (Sharing::None, Sharing::None) if same_split => {}
            (Sharing::Dwrr(d), Sharing::Dwrr(_)) if same_split => d.set_quanta(&p.quanta),
            (Sharing::Wfq(w), Sharing::Wfq(_)) if same_split => w.set_weights(&p.weights),
            _ => {
                let backlogged = self.backlogged();
                let head_len = self.head_len;
                *self = fresh;
                for band in backlogged.iter() {
                    self.activate(band, head_len[band.index()]);
                }
            }
        }
        self.bands = fresh.bands;
    }

    /// The discipline in force.
    pub const fn kind(&self) -> SchedKind {
        match self.sharing {
            Sharing::None => SchedKind::Sp,
            Sharing::Dwrr(_) => SchedKind::Dwrr,
            Sharing::Wfq(_) => SchedKind::Wfq,
        }
    }

    /// Bands in use.
    pub const fn bands(&self) -> u8 {
        self.bands
    }

    /// The bands served by strict priority.
    pub const fn strict_set(&self) -> BandSet {
        self.strict_set
    }

    /// Band went from empty to backlogged; `head_len` is the length of its (new) head packet.
    ///
    /// Activating a band that is already backlogged changes nothing: a FIFO's head does not
    /// change when a packet is appended.
    #[inline]
    pub fn activate(&mut self, band: Band, head_len: u32) {
        // `is_active` and the choice of discipline in one match on the kind, not two.
        if self.strict.is_active(band) {
            return;
        }
        let strict = self.strict_set.contains(band);
        match &mut self.sharing {
            Sharing::None => {
                self.head_len[band.index()] = head_len;
                self.strict.activate(band);
            }
            Sharing::Dwrr(d) => {
                if d.is_active(band) {
                    return;
                }
                self.head_len[band.index()] = head_len;
                if strict {
                    self.strict.activate(band);
                } else {
                    d.join(band, head_len);
                }
            }
            Sharing::Wfq(w) => {
                if w.is_active(band) {
                    return;
                }
                self.head_len[band.index()] = head_len;
                if strict {
                    self.strict.activate(band);
                } else {
                    w.activate(band, head_len);
                }
            }
        }
    }

    /// The band to serve next, or `None` if none is backlogged.
    ///
    /// Idempotent: asked again without [`Scheduler::complete`] it returns the same band, so the
    /// glue may ask, find the shaper says "not yet", and ask again later.
    #[inline]
    pub fn select(&mut self) -> Option<Band> {
        if let Some(band) = self.strict.select() {
            return Some(band);
        }
        match &mut self.sharing {
            Sharing::None => None,
            Sharing::Dwrr(d) => d.select(),
            Sharing::Wfq(w) => w.select(),
        }
    }

    /// A packet of `len` bytes left `band`; `next_head_len` is the new head's length, or `None`
    /// if the band is now empty. A band that is not backlogged is ignored.
    #[inline]
    pub fn complete(&mut self, band: Band, len: u32, next_head_len: Option<u32>) {
        // Strict and shared bands are disjoint: ask the one discipline that may hold the band.
        if self.strict.is_active(band) {
            self.strict.complete(band, next_head_len);
        } else {
            match &mut self.sharing {
                Sharing::None => return,
                Sharing::Dwrr(d) if d.is_active(band) => d.complete(band, len, next_head_len),
                Sharing::Wfq(w) if w.is_active(band) => w.complete(band, next_head_len),
                Sharing::Dwrr(_) | Sharing::Wfq(_) => return,
            }
        }
        if let Some(next) = next_head_len {
            self.head_len[band.index()] = next;
        }
    }

    /// The head of `band` (`len` bytes) was taken out and dropped instead of sent (the `non_ect
    /// drop` policy at dequeue): unlike [`Scheduler::complete`] nothing is charged, so a band
    /// whose packets are dropped keeps its share for the ones it sends.
    #[inline]
    pub fn discard_head(&mut self, band: Band, len: u32, next_head_len: Option<u32>) {
        if self.strict.is_active(band) {
            self.strict.complete(band, next_head_len);
        } else {
            match &mut self.sharing {
                Sharing::None => return,
                Sharing::Dwrr(d) if d.is_active(band) => d.discard_head(band, next_head_len),
                Sharing::Wfq(w) if w.is_active(band) => w.discard_head(band, len, next_head_len),
                Sharing::Dwrr(_) | Sharing::Wfq(_) => return,
            }
        }
        if let Some(next) = next_head_len {
            self.head_len[band.index()] = next;
        }
    }

    /// The band was flushed (reset, or a band removed at change).
    pub fn deactivate(&mut self, band: Band) {
        self.strict.deactivate(band);
        match &mut self.sharing {
            Sharing::None => {}
            Sharing::Dwrr(d) => d.deactivate(band),
            Sharing::Wfq(w) => w.deactivate(band),
        }
    }

    /// Forget every band (qdisc reset).
    pub fn reset(&mut self) {
        for band in self.backlogged().iter() {
            self.deactivate(band);
        }
    }

    /// Whether a band is backlogged (for tests and dumps).
    #[inline]
    pub fn is_active(&self, band: Band) -> bool {
        self.backlogged().contains(band)
    }

    /// Every backlogged band.
    #[inline]
    pub fn backlogged(&self) -> BandSet {
        let shared = match &self.sharing {
            Sharing::None => BandSet::EMPTY,
            Sharing::Dwrr(d) => d.backlogged(),
            Sharing::Wfq(w) => w.backlogged(),
        };
        self.strict.backlogged().union(shared)
    }
}

/// How many of `bands` bands are strict under DWRR or WFQ.
const fn strict_count(strict_bands: u8, bands: u8) -> usize {
    if strict_bands < bands {
        strict_bands as usize
    } else {
        bands as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use proptest::prelude::*;
    use std::collections::VecDeque;
    use std::vec::Vec;

    /// The glue's side in miniature: one FIFO of packet lengths per band.
    struct Glue {
        sched: Scheduler,
        fifos: Vec<VecDeque<u32>>,
    }

    impl Glue {
        fn new(p: &SchedParams, bands: u8) -> Self {
            Glue {
                sched: Scheduler::new(p, bands),
                fifos: (0..MAX_BANDS).map(|_| VecDeque::new()).collect(),
            }
        }

        fn enqueue(&mut self, band: usize, len: u32) {
            let fifo = &mut self.fifos[band];
            fifo.push_back(len);
            if fifo.len() == 1 {
                self.sched.activate(Band::new(band).unwrap(), len);
            }
        }

        fn dequeue(&mut self) -> Option<(Band, u32)> {
            let band = self.sched.select()?;
            let fifo = &mut self.fifos[band.index()];
            let len = fifo.pop_front().expect("scheduler chose an empty band");
            self.sched.complete(band, len, fifo.front().copied());
            Some((band, len))
        }

        fn flush(&mut self, band: usize) {
            self.fifos[band].clear();
            self.sched.deactivate(Band::new(band).unwrap());
        }

        fn model_backlogged(&self) -> BandSet {
            (0..MAX_BANDS)
                .filter(|&b| !self.fifos[b].is_empty())
                .fold(BandSet::EMPTY, |s, b| s.with(Band::new(b).unwrap()))
        }
    }

    fn params(kind: SchedKind, strict_bands: u8) -> SchedParams {
        SchedParams {
            kind,
            strict_bands,
            ..Config::DEFAULT.sched
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Enqueue(usize, u32),
        Dequeue,
        Flush(usize),
    }

    fn ops(bands: usize) -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            4 => (0..bands, 1u32..3000).prop_map(|(b, l)| Op::Enqueue(b, l)),
            4 => Just(Op::Dequeue),
            1 => (0..bands).prop_map(Op::Flush),
        ];
        proptest::collection::vec(op, 0..300)
    }

    fn kind_strategy() -> impl Strategy<Value = SchedKind> {
        prop_oneof![
            Just(SchedKind::Sp),
            Just(SchedKind::Dwrr),
            Just(SchedKind::Wfq)
        ]
    }

    #[test]
    fn band_set_basics() {
        let b = |i| Band::new(i).unwrap();
        let s = BandSet::EMPTY.with(b(3)).with(b(9)).with(b(15));
        assert_eq!(s.len(), 3);
        assert_eq!(s.first(), Some(b(3)));
        assert_eq!(s.iter().collect::<Vec<_>>(), [b(3), b(9), b(15)]);
        assert!(s.contains(b(9)) && !s.contains(b(8)));
        assert_eq!(s.without(b(3)).first(), Some(b(9)));
        assert_eq!(BandSet::below(3).bits(), 0b111);
        assert_eq!(BandSet::below(0), BandSet::EMPTY);
        assert_eq!(BandSet::below(16).len(), 16);
        assert_eq!(BandSet::below(99).len(), 16);
        assert_eq!(s.intersection(BandSet::below(10)).len(), 2);
        assert_eq!(s.difference(BandSet::below(10)).first(), Some(b(15)));
        assert_eq!(BandSet::EMPTY.first(), None);
    }

    proptest! {
        /// Kind Sp: the served band is always the lowest backlogged one, every backlogged band
        /// is reported active, and nothing is served when nothing is queued.
        #[test]
        fn sp_serves_highest_backlogged_band(ops in ops(8)) {
            let mut g = Glue::new(&params(SchedKind::Sp, 0), 8);
            for op in ops {
                match op {
                    Op::Enqueue(b, l) => g.enqueue(b, l),
                    Op::Flush(b) => g.flush(b),
                    Op::Dequeue => {
                        let expected = g.model_backlogged().first();
                        prop_assert_eq!(g.dequeue().map(|(b, _)| b), expected);
                    }
                }
                prop_assert_eq!(g.sched.backlogged(), g.model_backlogged());
            }
        }

        /// SP/DWRR and SP/WFQ: while a strict band is backlogged only the highest strict band is
        /// served; otherwise some backlogged shared band is, and the scheduler never idles with
        /// packets queued.
        #[test]
        fn strict_bands_on_top(
            kind in prop_oneof![Just(SchedKind::Dwrr), Just(SchedKind::Wfq)],
            strict in 0u8..5,
            ops in ops(6),
        ) {
            let mut g = Glue::new(&params(kind, strict), 6);
            for op in ops {
                match op {
                    Op::Enqueue(b, l) => g.enqueue(b, l),
                    Op::Flush(b) => g.flush(b),
                    Op::Dequeue => {
                        let model = g.model_backlogged();
                        let strict_backlogged = model.intersection(BandSet::below(strict as usize));
                        match g.dequeue() {
                            None => prop_assert!(model.is_empty()),
                            Some((b, _)) => {
                                prop_assert!(model.contains(b));
                                if let Some(top) = strict_backlogged.first() {
                                    prop_assert_eq!(b, top);
                                }
                            }
                        }
                    }
                }
                prop_assert_eq!(g.sched.backlogged(), g.model_backlogged());
            }
        }

        /// Asking twice without completing gives the same band, for every discipline.
        #[test]
        fn select_is_idempotent(kind in kind_strategy(), strict in 0u8..3, ops in ops(5)) {
            let mut p = params(kind, strict);
            p.quanta = [700, 1, 0, 2500, 100, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];
            p.weights = [3, 1, 0, 7, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];
            let mut g = Glue::new(&p, 5);
            for op in ops {
                match op {
                    Op::Enqueue(b, l) => g.enqueue(b, l),
                    Op::Flush(b) => g.flush(b),
                    Op::Dequeue => {
                        let first = g.sched.select();
                        prop_assert_eq!(g.sched.select(), first);
                        prop_assert_eq!(g.sched.select(), first);
                        prop_assert_eq!(g.dequeue().map(|(b, _)| b), first);
                    }
                }
            }
        }

        /// Whatever happened before, draining serves every queued packet exactly once.
        #[test]
        fn drains_completely(kind in kind_strategy(), strict in 0u8..4, ops in ops(4)) {
            let mut g = Glue::new(&params(kind, strict), 4);
            for op in ops {
                match op {
                    Op::Enqueue(b, l) => g.enqueue(b, l),
                    Op::Flush(b) => g.flush(b),
                    Op::Dequeue => { g.dequeue(); }
                }
            }
            let queued: usize = g.fifos.iter().map(VecDeque::len).sum();
            let mut served = 0;
            while g.dequeue().is_some() {
                served += 1;
                prop_assert!(served <= queued);
            }
            prop_assert_eq!(served, queued);
            prop_assert!(g.sched.backlogged().is_empty());
        }
    }

    #[test]
    fn band_empties_and_refills() {
        for kind in [SchedKind::Sp, SchedKind::Dwrr, SchedKind::Wfq] {
            let mut g = Glue::new(&params(kind, 0), 3);
            let b1 = Band::new(1).unwrap();
            g.enqueue(1, 1000);
            assert!(g.sched.is_active(b1));
            assert_eq!(g.dequeue(), Some((b1, 1000)));
            assert!(!g.sched.is_active(b1), "{kind:?}");
            assert_eq!(g.sched.select(), None);
            g.enqueue(1, 200);
            g.enqueue(1, 300);
            assert!(g.sched.is_active(b1));
            assert_eq!(g.dequeue(), Some((b1, 200)));
            assert_eq!(g.dequeue(), Some((b1, 300)));
            assert_eq!(g.dequeue(), None);
        }
    }

    #[test]
    fn strict_band_starves_shared_bands() {
        for kind in [SchedKind::Dwrr, SchedKind::Wfq] {
            let mut g = Glue::new(&params(kind, 1), 3);
            for _ in 0..100 {
                g.enqueue(0, 1500);
                g.enqueue(1, 64);
                g.enqueue(2, 64);
            }
            for _ in 0..100 {
                assert_eq!(g.dequeue().unwrap().0.index(), 0, "{kind:?}");
            }
            let rest: Vec<usize> = (0..200).map(|_| g.dequeue().unwrap().0.index()).collect();
            assert_eq!(rest.iter().filter(|&&b| b == 1).count(), 100);
            assert!(rest.iter().all(|&b| b == 1 || b == 2));
        }
    }

    #[test]
    fn strict_bands_beyond_band_count_make_everything_strict() {
        let mut g = Glue::new(&params(SchedKind::Wfq, 9), 3);
        assert_eq!(g.sched.strict_set(), BandSet::below(3));
        g.enqueue(2, 100);
        g.enqueue(1, 100);
        assert_eq!(g.dequeue().unwrap().0.index(), 1);
    }

    #[test]
    fn configure_keeps_backlogged_bands() {
        let mut g = Glue::new(&params(SchedKind::Dwrr, 0), 4);
        for b in 0..4 {
            g.enqueue(b, 100 + b as u32);
            g.enqueue(b, 100);
        }
        // Change of discipline: state rebuilt from the remembered head lengths.
        g.sched.configure(&params(SchedKind::Wfq, 1), 4);
        assert_eq!(g.sched.kind(), SchedKind::Wfq);
        assert_eq!(g.sched.backlogged(), BandSet::below(4));
        assert_eq!(g.dequeue().unwrap().0.index(), 0);
        // Same discipline, new quanta: state kept.
        let mut p = params(SchedKind::Wfq, 1);
        p.weights[2] = 50;
        g.sched.configure(&p, 4);
        assert_eq!(g.sched.backlogged(), BandSet::below(4));
        // Fewer bands: the removed band is dropped (the glue flushes its FIFO).
        g.sched.configure(&p, 3);
        g.fifos[3].clear();
        assert_eq!(g.sched.bands(), 3);
        assert!(!g.sched.is_active(Band::new(3).unwrap()));
        let mut served = 0;
        while g.dequeue().is_some() {
            served += 1;
        }
        assert_eq!(served, 5);
        // To strict priority and back.
        g.enqueue(2, 10);
        g.enqueue(1, 10);
        g.sched.configure(&params(SchedKind::Sp, 0), 3);
        assert_eq!(g.sched.kind(), SchedKind::Sp);
        assert_eq!(g.dequeue().unwrap().0.index(), 1);
        g.sched.configure(&params(SchedKind::Dwrr, 0), 3);
        assert_eq!(g.dequeue().unwrap().0.index(), 2);
        assert_eq!(g.dequeue(), None);
    }

    #[test]
    fn reset_forgets_everything() {
        let mut g = Glue::new(&params(SchedKind::Dwrr, 1), 4);
        for b in 0..4 {
            g.enqueue(b, 500);
        }
        g.sched.reset();
        assert!(g.sched.backlogged().is_empty());
        assert_eq!(g.sched.select(), None);
    }

    #[test]
    fn zero_bands_means_one() {
        let s = Scheduler::new(&params(SchedKind::Dwrr, 0), 0);
        assert_eq!(s.bands(), 1);
        let s = Scheduler::new(&params(SchedKind::Dwrr, 0), 200);
        assert_eq!(s.bands() as usize, MAX_BANDS);
    }
}
