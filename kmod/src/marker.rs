// SPDX-License-Identifier: GPL-2.0-only
//! Per-band marking: every rule the configured modes enable, on every packet. ECN# §3.2: "a packet
//! is marked when either one of the following conditions decides to mark it" (instantaneous or
//! persistent); the queue-length and probabilistic rules of DCTCP, Wu et al. and TCN §4.3 join in.
//!
//! The marker only says which rules fired; whether a non-ECT packet is passed or dropped, and
//! whether that spends a persistent mark, is the engine's call (see `docs/algorithm.md`).

use crate::config::{MarkingParams, Modes};
use crate::ecn::{CauseSet, MarkCause};
use crate::instantaneous::{instantaneous, ProbLaw};
use crate::persistent::PersistentState;
use crate::prng::Prng;
use crate::queue_mark::{dequeue_mark, enqueue_mark, queue_len};
use crate::time::Nanos;

/// One packet leaving a band, as the marker needs to see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Departure {
    /// When it left, read once per dequeue.
    pub now: Nanos,
    /// How long it waited in the band, including any wait for the shaper's tokens.
    pub sojourn: Nanos,
    /// Packets left in the band after it was taken out.
    pub qlen: u32,
    /// Bytes (`qdisc_pkt_len` units) left in the band after it was taken out.
    pub backlog: u64,
    /// Its own length in bytes (`qdisc_pkt_len`): dequeue marking counts the leaving packet.
    pub pkt_len: u32,
}

/// The marking state of one band.
///
/// Only Algorithm 1 keeps state between packets; the other rules decide from the packet alone.
/// All zero is valid ([`BandMarker::new`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BandMarker {
    /// Algorithm 1's variables for this band (the ns-3 code ran one ECN# instance per class too).
    pub persistent: PersistentState,
}

impl BandMarker {
    /// A band that has seen no packet. All fields zero.
    pub const fn new() -> Self {
        BandMarker {
            persistent: PersistentState::new(),
        }
    }

    /// At enqueue: DCTCP-RED, if [`Modes::QUEUE_ENQUEUE`] is on. `qlen` and `backlog` are the
    /// band's packets and bytes BEFORE the arriving packet ("upon its arrival").
    #[inline]
    pub fn on_enqueue(&self, p: &MarkingParams, qlen: u32, backlog: u64) -> CauseSet {
        if p.modes.contains(Modes::QUEUE_ENQUEUE)
            && enqueue_mark(queue_len(p.k_unit, qlen, backlog), p.k)
        {
            CauseSet::only(MarkCause::QueueEnqueue)
        } else {
            CauseSet::EMPTY
        }
    }

    /// At dequeue, after the packet left the band: the sojourn rules and dequeue marking.
    ///
    /// Every enabled rule is evaluated, so Algorithm 1's state advances even on packets the
    /// instantaneous rule marks anyway; the result holds every cause that fired. Dequeue marking
    /// compares `pkt.qlen + 1` packets or `pkt.backlog + pkt.pkt_len` bytes (the queue with the
    /// leaving packet still in it) with K. `rng` is drawn from only inside the probabilistic ramp.
    #[inline(always)]
    pub fn on_dequeue(
        &mut self,
        p: &MarkingParams,
        prob: &ProbLaw,
        rng: &mut Prng,
        pkt: &Departure,
    ) -> CauseSet {
        let mut causes = CauseSet::EMPTY;
        if p.modes.contains(Modes::INSTANTANEOUS) && instantaneous(pkt.sojourn, p.ins_target) {
            causes = causes.with(MarkCause::Instantaneous);
        }
        if p.modes.contains(Modes::PERSISTENT)
            && self.persistent.should_mark(pkt.now, pkt.sojourn, p)
        {
            causes = causes.with(MarkCause::Persistent);
        }
        // One test for the two rules ECN# does not use, which stay out of line (taking scalars,
        // so that the usual path need not build the departure in memory).
        if p.modes.0 & (Modes::QUEUE_DEQUEUE.0 | Modes::PROBABILISTIC.0) != 0 {
            if p.modes.contains(Modes::QUEUE_DEQUEUE)
                && dequeue_rule(p, pkt.qlen, pkt.backlog, pkt.pkt_len)
            {
                causes = causes.with(MarkCause::QueueDequeue);
            }
            if p.modes.contains(Modes::PROBABILISTIC) && probabilistic_rule(prob, rng, pkt.sojourn)
            {
                causes = causes.with(MarkCause::Probabilistic);
            }
        }
        causes
    }

    /// The band ran empty: forget the persistent state if `p.idle_reset` (the default), so that a
    /// new burst must again stay above `pst_target` for `pst_interval` before it is marked.
    #[inline]
    pub fn on_idle(&mut self, p: &MarkingParams) {
        if p.idle_reset {
            self.persistent.reset();
        }
    }
}

/// Dequeue marking for a packet leaving `qlen` packets and `backlog` bytes behind: the queue
/// with the packet still in it against K.
#[inline(never)]
fn dequeue_rule(p: &MarkingParams, qlen: u32, backlog: u64, pkt_len: u32) -> bool {
    let len_with_packet = queue_len(
        p.k_unit,
        qlen.saturating_add(1),
        backlog.saturating_add(u64::from(pkt_len)),
    );
    dequeue_mark(len_with_packet, p.k)
}

/// The probabilistic rule, out of line.
#[inline(never)]
fn probabilistic_rule(prob: &ProbLaw, rng: &mut Prng, sojourn: Nanos) -> bool {
    prob.should_mark(sojourn, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, QueueUnit};
    use crate::time::us;
    use proptest::prelude::*;

    fn params(modes: Modes) -> MarkingParams {
        MarkingParams {
            modes,
            ..Config::DEFAULT.marking
        }
    }

    fn leaving(now: Nanos, sojourn: Nanos) -> Departure {
        Departure {
            now,
            sojourn,
            ..Departure::default()
        }
    }

    #[test]
    fn all_zero_is_new() {
        assert_eq!(BandMarker::new(), BandMarker::default());
        assert_eq!(BandMarker::new().persistent, PersistentState::new());
    }

    /// ECN#: a standing queue of 300us sojourn is above ins_target (200us) and pst_target (85us).
    /// Both rules fire; Algorithm 1 advances although every packet is marked anyway.
    #[test]
    fn ecn_sharp_evaluates_both_rules() {
        let p = params(Modes::ECN_SHARP);
        let prob = ProbLaw::new(&p);
        let mut rng = Prng::new(1);
        let mut m = BandMarker::new();
        let first = m.on_dequeue(&p, &prob, &mut rng, &leaving(us(10), us(300)));
        assert_eq!(first, CauseSet::only(MarkCause::Instantaneous));
        assert!(m.persistent.above_target);
        let detect = us(10) + p.pst_interval + 1;
        let both = m.on_dequeue(&p, &prob, &mut rng, &leaving(detect, us(300)));
        assert_eq!(
            both,
            CauseSet::only(MarkCause::Instantaneous).with(MarkCause::Persistent)
        );
        assert_eq!(m.persistent.marking_count, 1);
        // Between 85us and 200us only the persistent rule can fire.
        let due = m.persistent.marking_next + 1;
        let only = m.on_dequeue(&p, &prob, &mut rng, &leaving(due, us(150)));
        assert_eq!(only, CauseSet::only(MarkCause::Persistent));
        assert_eq!(m.persistent.marking_count, 2);
        // Below pst_target: nothing, and the marking state ends.
        let none = m.on_dequeue(&p, &prob, &mut rng, &leaving(due + 1, us(50)));
        assert!(none.is_empty());
        assert!(!m.persistent.marking_state);
    }

    #[test]
    fn disabled_rules_neither_fire_nor_keep_state() {
        let p = params(Modes::INSTANTANEOUS);
        let prob = ProbLaw::new(&p);
        let mut rng = Prng::new(1);
        let mut m = BandMarker::new();
        for t in 0..1_000 {
            let causes = m.on_dequeue(&p, &prob, &mut rng, &leaving(us(t), us(300)));
            assert_eq!(causes, CauseSet::only(MarkCause::Instantaneous));
        }
        assert_eq!(m.persistent, PersistentState::new());
        assert_eq!(rng, Prng::new(1));
        assert!(m.on_enqueue(&p, 1_000, 1 << 30).is_empty());
    }

    #[test]
    fn enqueue_rule_packets_and_bytes() {
        let mut p = params(Modes::QUEUE_ENQUEUE);
        p.k = 65;
        let m = BandMarker::new();
        assert!(m.on_enqueue(&p, 65, 0).is_empty());
        assert_eq!(
            m.on_enqueue(&p, 66, 0),
            CauseSet::only(MarkCause::QueueEnqueue)
        );
        p.k_unit = QueueUnit::Bytes;
        p.k = 30_000;
        assert!(m.on_enqueue(&p, 1_000, 30_000).is_empty());
        assert_eq!(
            m.on_enqueue(&p, 1, 30_001),
            CauseSet::only(MarkCause::QueueEnqueue)
        );
    }

    #[test]
    fn dequeue_rule_counts_the_leaving_packet() {
        let mut p = params(Modes::QUEUE_DEQUEUE);
        p.k = 65;
        let prob = ProbLaw::new(&p);
        let mut rng = Prng::new(1);
        let mut m = BandMarker::new();
        let at = |qlen, backlog, pkt_len| Departure {
            now: us(1),
            sojourn: us(1),
            qlen,
            backlog,
            pkt_len,
        };
        // 64 remain: 65 with the leaving packet, which is K: marked. 63 remain: not.
        let marked = m.on_dequeue(&p, &prob, &mut rng, &at(64, 0, 1_500));
        assert_eq!(marked, CauseSet::only(MarkCause::QueueDequeue));
        assert!(m
            .on_dequeue(&p, &prob, &mut rng, &at(63, 0, 1_500))
            .is_empty());
        p.k_unit = QueueUnit::Bytes;
        p.k = 30_000;
        let marked = m.on_dequeue(&p, &prob, &mut rng, &at(0, 28_500, 1_500));
        assert_eq!(marked, CauseSet::only(MarkCause::QueueDequeue));
        assert!(m
            .on_dequeue(&p, &prob, &mut rng, &at(99, 28_499, 1_500))
            .is_empty());
        // Extremes saturate instead of overflowing.
        let marked = m.on_dequeue(&p, &prob, &mut rng, &at(u32::MAX, u64::MAX, u32::MAX));
        assert_eq!(marked, CauseSet::only(MarkCause::QueueDequeue));
    }

    #[test]
    fn probabilistic_rule() {
        let p = params(Modes::PROBABILISTIC); // tmin 100us, tmax 400us, pmax 10%
        let prob = ProbLaw::new(&p);
        let mut rng = Prng::new(5);
        let mut m = BandMarker::new();
        assert!(m
            .on_dequeue(&p, &prob, &mut rng, &leaving(1, us(99)))
            .is_empty());
        let always = m.on_dequeue(&p, &prob, &mut rng, &leaving(1, us(401)));
        assert_eq!(always, CauseSet::only(MarkCause::Probabilistic));
        let marked = (0..100_000)
            .filter(|_| {
                !m.on_dequeue(&p, &prob, &mut rng, &leaving(1, us(250)))
                    .is_empty()
            })
            .count();
        // 5% of 100,000, sd 69: allow 5 sd.
        assert!((4_655..=5_345).contains(&marked), "{marked}");
    }

    #[test]
    fn idle_reset_follows_the_parameter() {
        let mut p = params(Modes::ECN_SHARP);
        let prob = ProbLaw::new(&p);
        let mut rng = Prng::new(1);
        let mut m = BandMarker::new();
        m.on_dequeue(&p, &prob, &mut rng, &leaving(us(1), us(100)));
        m.on_dequeue(&p, &prob, &mut rng, &leaving(us(300), us(100)));
        assert!(m.persistent.marking_state);
        p.idle_reset = false;
        let kept = m;
        m.on_idle(&p);
        assert_eq!(m, kept);
        p.idle_reset = true;
        m.on_idle(&p);
        assert_eq!(m, BandMarker::new());
    }

    proptest! {
        /// The marker is exactly the union of the rules, each evaluated on every packet: a
        /// standalone `PersistentState` and a second PRNG fed the same packets agree with it.
        #[test]
        fn union_of_independent_rules(
            modes in 0u32..32,
            k in 0u32..100,
            bytes in any::<bool>(),
            packets in prop::collection::vec(
                (0u64..100_000, 0u64..500_000, 0u32..200, 0u64..300_000, 64u32..9_000),
                1..300,
            ),
        ) {
            let p = MarkingParams {
                modes: Modes(modes),
                k,
                k_unit: if bytes { QueueUnit::Bytes } else { QueueUnit::Packets },
                ..Config::DEFAULT.marking
            };
            let prob = ProbLaw::new(&p);
            let mut rng = Prng::new(3);
            let mut rng_model = Prng::new(3);
            let mut m = BandMarker::new();
            let mut pst = PersistentState::new();
            let mut now = 0;
            for (dt, sojourn, qlen, backlog, pkt_len) in packets {
                now += dt;
                let pkt = Departure { now, sojourn, qlen, backlog, pkt_len };
                let got = m.on_dequeue(&p, &prob, &mut rng, &pkt);
                let on = |mode| Modes(modes).contains(mode);
                let len = if bytes { backlog + u64::from(pkt_len) } else { u64::from(qlen) + 1 };
                let expected = [
                    (on(Modes::INSTANTANEOUS) && sojourn > p.ins_target, MarkCause::Instantaneous),
                    (on(Modes::PERSISTENT) && pst.should_mark(now, sojourn, &p), MarkCause::Persistent),
                    (on(Modes::QUEUE_DEQUEUE) && len >= u64::from(k), MarkCause::QueueDequeue),
                    (on(Modes::PROBABILISTIC) && prob.should_mark(sojourn, &mut rng_model), MarkCause::Probabilistic),
                ]
                .iter()
                .filter(|(fired, _)| *fired)
                .fold(CauseSet::EMPTY, |set, (_, cause)| set.with(*cause));
                prop_assert_eq!(got, expected);
                prop_assert_eq!(m.persistent, if on(Modes::PERSISTENT) { pst } else { PersistentState::new() });
                prop_assert_eq!(rng, rng_model);
                let enq = m.on_enqueue(&p, qlen, backlog);
                let len_before = if bytes { backlog } else { u64::from(qlen) };
                prop_assert_eq!(!enq.is_empty(), on(Modes::QUEUE_ENQUEUE) && len_before > u64::from(k));
            }
        }
    }
}
