// SPDX-License-Identifier: GPL-2.0-only
//! Engine statistics: per-band and qdisc-wide counters, the algorithm half of the qdisc's xstats.
//!
//! Plain `u64`/`u32` fields: event counters wrap as the kernel's own do, sums that could wrap
//! sooner saturate ([`BandStats`]). The books balance: every packet handed to
//! `enqueue` is sent, dropped (for one [`DropReason`]) or still queued, per band and in total.

use crate::ecn::{CauseSet, MarkCause};
use crate::histogram::SojournHist;
use crate::time::Nanos;

/// The causes other than the sojourn rules'.
const QUEUE_OR_PROBABILISTIC: CauseSet = CauseSet::only(MarkCause::QueueEnqueue)
    .with(MarkCause::QueueDequeue)
    .with(MarkCause::Probabilistic);

/// Why the engine dropped a packet (or had the glue drop it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// At enqueue: the qdisc held `limit_packets` packets, or the packet would exceed
    /// `limit_bytes`.
    Limit,
    /// A marking rule fired on a non-ECT packet and the `non_ect` policy is `Drop`.
    NonEct,
    /// Removed by the control path: a limit shrink or a band removed at change, or a reset.
    Config,
}

/// Counters of one band. All zero is a band that has seen nothing ([`BandStats::new`]).
///
/// The per-packet event counters (`enqueued`, `packets`, `bytes`, `marks`...) wrap like the
/// kernel's own u64 byte and packet counters: a wrapping add is one instruction on the packet
/// path, and a u64 of bytes at 400 Gbit/s wraps after 11.7 years. Sums that could wrap sooner
/// (`sojourn_sum_ns`) saturate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BandStats {
    /// Packets handed to `enqueue` for this band, including those it dropped at once.
    pub enqueued: u64,
    /// Bytes (`qdisc_pkt_len`) of the packets counted in `enqueued`.
    pub enqueued_bytes: u64,
    /// Packets sent (returned by `dequeue` as `Send`).
    pub packets: u64,
    /// Those packets as the kernel's own packet counters count them (a GSO packet queued whole
    /// counts its `gso_segs`): the class counters `tc -s class show` prints, which add up to
    /// the qdisc's.
    pub segments: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// Packets queued now.
    pub qlen: u32,
    /// Bytes queued now.
    pub backlog: u64,
    /// Packets dropped at enqueue for the packet or byte limit.
    pub drops_limit: u64,
    /// Non-ECT packets dropped because a rule fired and the policy is `Drop`.
    pub drops_nonect: u64,
    /// Packets removed by the control path (limit shrink, band removal, reset).
    pub drops_config: u64,
    /// Bytes of every dropped packet, whatever the reason.
    pub drops_bytes: u64,
    /// Packets we marked (set CE on an ECT(0) or ECT(1) packet).
    pub marks: u64,
    /// Marked packets per cause, in [`MarkCause::ALL`] order; a packet on which two rules fired
    /// counts once in `marks` and once under each cause.
    pub marks_by_cause: [u64; 5],
    /// Packets admitted that had arrived CE already; never counted as our marks.
    pub ce_already: u64,
    /// Non-ECT packets a rule fired on that were sent unmarked (policy `Pass`).
    pub nonect_passed: u64,
    /// Longest sojourn of a sent packet, in nanoseconds.
    pub sojourn_max_ns: Nanos,
    /// Sum of the sojourns of sent packets (mean: `sojourn_sum_ns / packets`).
    pub sojourn_sum_ns: u64,
    /// The sojourns of sent packets, in log-scale buckets (p50, p99).
    pub sojourn_hist: SojournHist,
}

impl BandStats {
    /// Nothing seen.
    pub const fn new() -> Self {
        BandStats {
            enqueued: 0,
            enqueued_bytes: 0,
            packets: 0,
            segments: 0,
            bytes: 0,
            qlen: 0,
            backlog: 0,
            drops_limit: 0,
            drops_nonect: 0,
            drops_config: 0,
            drops_bytes: 0,
            marks: 0,
            marks_by_cause: [0; 5],
            ce_already: 0,
            nonect_passed: 0,
            sojourn_max_ns: 0,
            sojourn_sum_ns: 0,
            sojourn_hist: SojournHist::new(),
        }
    }

    /// Marks counted under `cause`.
    pub fn marks_for(&self, cause: MarkCause) -> u64 {
        // MarkCause::index() is below 5 by construction; `get` keeps the compiler honest.
        self.marks_by_cause.get(cause.index()).copied().unwrap_or(0)
    }

    #[inline]
    pub(crate) fn count_marks(&mut self, causes: CauseSet) {
        self.marks = self.marks.wrapping_add(1);
        // Adds of 0 or 1, no branch per cause; the three causes ECN# (the sojourn rules) never
        // fires are looked at only when one of them did, one test in all.
        let [ins, pst, enq, deq, prob] = &mut self.marks_by_cause;
        *ins = ins.wrapping_add(u64::from(causes.contains(MarkCause::Instantaneous)));
        *pst = pst.wrapping_add(u64::from(causes.contains(MarkCause::Persistent)));
        if causes.intersects(QUEUE_OR_PROBABILISTIC) {
            *enq = enq.wrapping_add(u64::from(causes.contains(MarkCause::QueueEnqueue)));
            *deq = deq.wrapping_add(u64::from(causes.contains(MarkCause::QueueDequeue)));
            *prob = prob.wrapping_add(u64::from(causes.contains(MarkCause::Probabilistic)));
        }
    }

    #[inline]
    pub(crate) fn count_sent(&mut self, len: u32, sojourn: Nanos, segs: u32) {
        self.packets = self.packets.wrapping_add(1);
        self.segments = self.segments.wrapping_add(u64::from(segs));
        self.bytes = self.bytes.wrapping_add(u64::from(len));
        self.sojourn_sum_ns = self.sojourn_sum_ns.saturating_add(sojourn);
        if sojourn > self.sojourn_max_ns {
            self.sojourn_max_ns = sojourn;
        }
        self.sojourn_hist.record(sojourn);
    }
}

/// Qdisc-wide counters: the sums of the per-band ones that the packet path needs or a dump
/// shows first, plus what belongs to no band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QdiscStats {
    /// Packets handed to `enqueue`, including those it dropped at once.
    pub enqueued: u64,
    /// Their bytes.
    pub enqueued_bytes: u64,
    /// Packets sent.
    pub packets: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// Packets queued in all bands (what `limit_packets` bounds).
    pub qlen: u32,
    /// Bytes queued in all bands (what `limit_bytes` bounds).
    pub backlog: u64,
    /// Drops at enqueue for the limits.
    pub drops_limit: u64,
    /// Non-ECT packets dropped by the `Drop` policy.
    pub drops_nonect: u64,
    /// Packets removed by the control path.
    pub drops_config: u64,
    /// Bytes of every dropped packet.
    pub drops_bytes: u64,
    /// Packets we marked.
    pub marks: u64,
    /// Admitted packets that had arrived CE.
    pub ce_already: u64,
    /// Non-ECT packets passed unmarked although a rule fired.
    pub nonect_passed: u64,
    /// Times the shaper said "not yet" to the band's head packet (each call counts).
    pub throttles: u64,
    /// Wake-ups after a wait for tokens that came later than asked (the shaper credits the
    /// lateness back, see `TokenBucket::consume`).
    pub late_wakeups: u64,
    /// The latest of those wake-ups, in nanoseconds: how late this machine's watchdog fires.
    pub late_max_ns: u64,
}

impl QdiscStats {
    /// Nothing seen.
    pub const fn new() -> Self {
        QdiscStats {
            enqueued: 0,
            enqueued_bytes: 0,
            packets: 0,
            bytes: 0,
            qlen: 0,
            backlog: 0,
            drops_limit: 0,
            drops_nonect: 0,
            drops_config: 0,
            drops_bytes: 0,
            marks: 0,
            ce_already: 0,
            nonect_passed: 0,
            throttles: 0,
            late_wakeups: 0,
            late_max_ns: 0,
        }
    }

    #[inline]
    pub(crate) fn count_sent(&mut self, len: u32) {
        self.packets = self.packets.wrapping_add(1);
        self.bytes = self.bytes.wrapping_add(u64::from(len));
    }
}

/// The bookkeeping `BandStats` and `QdiscStats` share: both count arrivals, drops and what is
/// queued the same way, and must balance the same way.
macro_rules! tally {
    ($ty:ty) => {
        impl $ty {
            /// Dropped packets, every reason together.
            pub const fn drops(&self) -> u64 {
                self.drops_limit
                    .saturating_add(self.drops_nonect)
                    .saturating_add(self.drops_config)
            }

            /// Whether `enqueued = sent + dropped + queued`, in packets and in bytes (modulo
            /// 2^64, as the event counters wrap).
            pub const fn balanced(&self) -> bool {
                let out = self
                    .packets
                    .wrapping_add(self.drops())
                    .wrapping_add(self.qlen as u64);
                let out_bytes = self
                    .bytes
                    .wrapping_add(self.drops_bytes)
                    .wrapping_add(self.backlog);
                out == self.enqueued && out_bytes == self.enqueued_bytes
            }

            #[inline]
            pub(crate) fn count_arrival(&mut self, len: u32) {
                self.enqueued = self.enqueued.wrapping_add(1);
                self.enqueued_bytes = self.enqueued_bytes.wrapping_add(u64::from(len));
            }

            /// Drops are rare and off the fast path: they saturate.
            #[inline]
            pub(crate) fn count_drop(&mut self, len: u32, reason: DropReason) {
                let counter = match reason {
                    DropReason::Limit => &mut self.drops_limit,
                    DropReason::NonEct => &mut self.drops_nonect,
                    DropReason::Config => &mut self.drops_config,
                };
                *counter = counter.saturating_add(1);
                self.drops_bytes = self.drops_bytes.saturating_add(u64::from(len));
            }
        }
    };
}
tally!(BandStats);
tally!(QdiscStats);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_zero_is_new() {
        assert_eq!(BandStats::new(), BandStats::default());
        assert_eq!(QdiscStats::new(), QdiscStats::default());
        assert!(BandStats::new().balanced() && QdiscStats::new().balanced());
    }

    #[test]
    fn drops_by_reason_and_balance() {
        let mut b = BandStats::new();
        let mut q = QdiscStats::new();
        for (len, reason) in [
            (100, DropReason::Limit),
            (200, DropReason::NonEct),
            (300, DropReason::Config),
            (400, DropReason::Config),
        ] {
            b.count_arrival(len);
            q.count_arrival(len);
            assert!(!b.balanced() && !q.balanced());
            b.count_drop(len, reason);
            q.count_drop(len, reason);
            assert!(b.balanced() && q.balanced());
        }
        assert_eq!((b.drops_limit, b.drops_nonect, b.drops_config), (1, 1, 2));
        assert_eq!((q.drops_limit, q.drops_nonect, q.drops_config), (1, 1, 2));
        assert_eq!((b.drops(), b.drops_bytes), (4, 1_000));
        assert_eq!((q.drops(), q.drops_bytes), (4, 1_000));
        b.count_arrival(1_500);
        b.count_sent(1_500, 7, 1);
        assert!(b.balanced());
        // Bytes must balance too, not only packets.
        b.count_arrival(10);
        b.qlen = 1;
        b.backlog = 9;
        assert!(!b.balanced());
    }

    #[test]
    fn marks_and_sojourn() {
        let mut b = BandStats::new();
        b.count_marks(CauseSet::only(MarkCause::Instantaneous).with(MarkCause::Persistent));
        b.count_marks(CauseSet::only(MarkCause::Persistent));
        assert_eq!(b.marks, 2);
        assert_eq!(b.marks_by_cause, [1, 2, 0, 0, 0]);
        assert_eq!(b.marks_for(MarkCause::Persistent), 2);
        assert_eq!(b.marks_for(MarkCause::Probabilistic), 0);
        b.count_sent(100, 50, 1);
        b.count_sent(100, 30, 1);
        assert_eq!((b.sojourn_max_ns, b.sojourn_sum_ns), (50, 80));
    }

    #[test]
    fn counters_at_their_limits_never_panic() {
        let mut b = BandStats {
            enqueued: u64::MAX,
            enqueued_bytes: u64::MAX,
            packets: u64::MAX,
            bytes: u64::MAX,
            drops_config: u64::MAX,
            drops_bytes: u64::MAX,
            marks: u64::MAX,
            marks_by_cause: [u64::MAX; 5],
            sojourn_sum_ns: u64::MAX,
            ..BandStats::new()
        };
        b.count_arrival(u32::MAX);
        b.count_drop(u32::MAX, DropReason::Config);
        b.count_marks(CauseSet::only(MarkCause::QueueDequeue));
        b.count_sent(u32::MAX, u64::MAX, 1);
        // Per-packet event counters wrap, as the kernel's u64 packet and byte counters do.
        assert_eq!((b.enqueued, b.packets, b.marks), (0, 0, 0));
        assert_eq!(b.enqueued_bytes, u64::from(u32::MAX) - 1);
        assert_eq!(b.marks_for(MarkCause::QueueDequeue), 0);
        assert_eq!(b.marks_for(MarkCause::Instantaneous), u64::MAX);
        // Drops (rare, off the fast path) and the sojourn sum saturate.
        assert_eq!(b.drops(), u64::MAX);
        assert_eq!((b.sojourn_max_ns, b.sojourn_sum_ns), (u64::MAX, u64::MAX));
        let mut q = QdiscStats {
            packets: u64::MAX,
            drops_limit: u64::MAX,
            ..QdiscStats::new()
        };
        q.count_sent(1);
        q.count_drop(1, DropReason::Limit);
        assert_eq!((q.packets, q.drops()), (0, u64::MAX));
    }
}
