// SPDX-License-Identifier: GPL-2.0-only
//! The engine: the per-qdisc state that the kernel glue drives from enqueue and dequeue. It puts
//! ECN# marking (§3, per band) together with TCN's classifier, scheduler and rate limiter (§5).
//!
//! The glue owns the packets (one FIFO per band) and reads packet facts; the engine decides the
//! band, the limits, marks and drops, which band sends and when, and keeps the statistics. See
//! `docs/engine.md` for the call sequence and the reasons behind each rule.

mod stats;

pub use self::stats::{BandStats, DropReason, QdiscStats};

use crate::band::{Band, MAX_BANDS};
use crate::classify::Classifier;
use crate::config::{Config, Modes, NonEctPolicy};
use crate::ecn::{CauseSet, Ecn};
use crate::instantaneous::ProbLaw;
use crate::marker::{BandMarker, Departure};
use crate::persistent::PersistentState;
use crate::prng::Prng;
use crate::sched::Scheduler;
use crate::time::Nanos;
use crate::token_bucket::{Device, TokenBucket};

/// MTU (plus link-layer header) assumed by [`Engine::new`] for the shaper's default burst.
pub const DEFAULT_MTU: u32 = Device::DEFAULT.mtu;

/// What the engine needs to know about an arriving packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketInfo {
    /// `qdisc_pkt_len`, so that `stab` overhead counts.
    pub len: u32,
    /// `skb->priority`.
    pub priority: u32,
    /// The IPv4 TOS or IPv6 traffic class byte; `None` if the packet is neither (not ECN-capable).
    pub dsfield: Option<u8>,
}

impl PacketInfo {
    /// The packet's ECN codepoint; a packet that is not IP is not ECN-capable.
    pub const fn ecn(&self) -> Ecn {
        match self.dsfield {
            Some(ds) => Ecn::from_dsfield(ds),
            None => Ecn::NotEct,
        }
    }
}

/// What the glue does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnqueueVerdict {
    /// Queue the packet at the tail of `band`'s FIFO, stamped with the time for its sojourn. If
    /// `mark` is not empty, set CE now (DCTCP-RED marks at enqueue); it is only ever non-empty
    /// for ECT(0) and ECT(1) packets.
    Queue {
        /// The band the packet joins.
        band: Band,
        /// The rules that marked it; empty: leave the packet alone.
        mark: CauseSet,
        /// What the glue keeps with the packet and hands back to [`Engine::dequeue_head`].
        note: PacketNote,
    },
    /// Drop the packet (`qdisc_drop`); the engine has counted the drop.
    Drop {
        /// The band it was classified into (its counters hold the drop).
        band: Band,
        /// Why.
        reason: DropReason,
    },
}

/// What the engine remembers of one queued packet: a few bits the glue keeps with it (in the
/// skb's control block) from enqueue to dequeue, so no per-packet state lives in the engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketNote(u8);

impl PacketNote {
    /// A non-ECT packet a rule fired on at enqueue and that was passed: counted in
    /// `nonect_passed` already, so a rule firing again at dequeue does not count it twice.
    const NONECT_PASSED: u8 = 1;

    /// The note as bits, for the glue to store.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// A note the glue stored with [`PacketNote::bits`].
    pub const fn from_bits(bits: u8) -> PacketNote {
        PacketNote(bits & Self::NONECT_PASSED)
    }

    const fn nonect_passed(self) -> bool {
        self.0 & Self::NONECT_PASSED != 0
    }
}

/// The packet the glue took out of a band for [`Engine::dequeue_head`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// `qdisc_pkt_len`, as at enqueue.
    pub len: u32,
    /// The enqueue time the glue stamped.
    pub enqueued_at: Nanos,
    /// The ECN field as it is now.
    pub ecn: Ecn,
    /// The note [`EnqueueVerdict::Queue`] gave.
    pub note: PacketNote,
    /// What the kernel's packet counters count it as: `gso_segs` of a GSO packet queued whole,
    /// else 1. Class packet counters count these, so that they add up to the qdisc's.
    pub segs: u32,
}

/// What the glue does with the head packet it took out of the band for [`Engine::dequeue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DequeueVerdict {
    /// Send it; if `mark` is not empty, set CE first (only ever non-empty for ECT packets).
    Send {
        /// The rules that marked it; empty: leave the packet alone.
        mark: CauseSet,
    },
    /// Drop it (`qdisc_drop`) and try the next packet; the engine has counted the drop and the
    /// shaper charged nothing for it.
    Drop {
        /// Why (only [`DropReason::NonEct`] at dequeue).
        reason: DropReason,
    },
}

/// What the marking rules' verdict means for one packet ([`Engine::apply_marks`]).
#[derive(Clone, Copy)]
enum Applied {
    /// Send, with these marks (empty unless the packet is ECT).
    Send(CauseSet),
    /// A non-ECT packet a rule fired on, passed by `non_ect pass` (and counted).
    PassedNonEct,
}

/// The state of one qdisc: configuration, marking state and scheduler state per band, the
/// shaper, and the counters.
///
/// Plain data with no allocation and no pointers, so it can live in the qdisc's private area.
/// The kernel calls it under the qdisc root lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Engine {
    /// The configuration in force (validated by the caller).
    cfg: Config,
    /// `cfg.classify` prepared for the bands in use.
    classifier: Classifier,
    /// The probabilistic law derived from `cfg.marking`.
    prob: ProbLaw,
    /// Draws for probabilistic marking.
    rng: Prng,
    /// The device: its MTU floors the shaper's default burst, its queue bounds the late credit.
    dev: Device,
    /// Which band sends next.
    sched: Scheduler,
    /// The optional rate limiter.
    shaper: TokenBucket,
    /// Marking state of each band.
    markers: [BandMarker; MAX_BANDS],
    /// Counters and queue length of each band.
    bands: [BandStats; MAX_BANDS],
    /// Qdisc-wide counters and totals.
    stats: QdiscStats,
}

impl Engine {
    /// An engine for `cfg` with nothing queued: the PRNG seeded with `cfg.marking.seed` (0 stands
    /// for a fixed seed) and a shaper for a [`Device::DEFAULT`] device. For host tools and tests.
    pub const fn new(cfg: &Config) -> Engine {
        Engine::new_on(cfg, 0, Device::DEFAULT)
    }

    /// [`Engine::new_on`] a device of `mtu` with Linux's default queue (`txqueuelen` 1000).
    pub const fn new_seeded(cfg: &Config, random_seed: u32, mtu: u32) -> Engine {
        Engine::new_on(
            cfg,
            random_seed,
            Device {
                mtu,
                tx_queue_len: Device::DEFAULT.tx_queue_len,
            },
        )
    }

    /// An engine for `cfg`, as the kernel creates it: `random_seed` (from `get_random_u32()`)
    /// seeds the PRNG when `cfg.marking.seed` is 0, and `dev` (`psched_mtu()`, `txqueuelen`)
    /// shapes the shaper's default burst and late credit.
    pub const fn new_on(cfg: &Config, random_seed: u32, dev: Device) -> Engine {
        let seed = if cfg.marking.seed != 0 {
            cfg.marking.seed
        } else {
            random_seed
        };
        Engine {
            cfg: *cfg,
            classifier: Classifier::new(&cfg.classify, cfg.bands),
            prob: ProbLaw::new(&cfg.marking),
            rng: Prng::new(seed),
            dev,
            sched: Scheduler::new(&cfg.sched, cfg.bands),
            shaper: TokenBucket::new(&cfg.shaper, dev),
            markers: [BandMarker::new(); MAX_BANDS],
            bands: [BandStats::new(); MAX_BANDS],
            stats: QdiscStats::new(),
        }
    }

    /// [`Engine::new_on`] in place, field by field: what the kernel's `init` calls. The
    /// engine (7 KiB with the bands' sojourn histograms) must not be built on the kernel stack
    /// and copied, as `*self = Engine::new_on(..)` would (the 16 KiB stack overflowed).
    pub fn init_seeded(&mut self, cfg: &Config, random_seed: u32, dev: Device) {
        let seed = if cfg.marking.seed != 0 {
            cfg.marking.seed
        } else {
            random_seed
        };
        self.cfg = *cfg;
        self.classifier = Classifier::new(&cfg.classify, cfg.bands);
        self.prob = ProbLaw::new(&cfg.marking);
        self.rng = Prng::new(seed);
        self.dev = dev;
        self.sched = Scheduler::new(&cfg.sched, cfg.bands);
        self.shaper = TokenBucket::new(&cfg.shaper, dev);
        for marker in self.markers.iter_mut() {
            *marker = BandMarker::new();
        }
        for band in self.bands.iter_mut() {
            *band = BandStats::new();
        }
        self.stats = QdiscStats::new();
    }

    /// The configuration in force.
    pub const fn config(&self) -> &Config {
        &self.cfg
    }

    /// Apply a new (validated) configuration under traffic, at `change()`.
    ///
    /// Queued packets stay queued, backlogged bands stay backlogged (the scheduler keeps
    /// deficits or tags when only quanta or weights change), the shaper keeps its debt, and each
    /// band that stays keeps its persistent-marking state (reset when persistent marking is
    /// turned off, so that turning it on again starts clean). The probabilistic law is derived
    /// again; a non-zero seed that differs from the old one restarts the PRNG.
    ///
    /// Bands at or above the new band count should be flushed before ([`Engine::flush_band`]);
    /// any still holding packets are stranded (no longer scheduled) and
    /// [`Engine::over_limit_victim`] names them first, so the glue's drain loop empties them.
    ///
    /// `now` is the time of the change: the shaper's debt is clamped to one bucket at the new
    /// rate, and a persistent mark due later than the new `pst_interval` would schedule it is
    /// brought forward, so both take effect at once. `dev` is the device as it is now (its MTU
    /// or queue may have changed since init).
    pub fn configure(&mut self, cfg: &Config, now: Nanos, dev: Device) {
        let old_seed = self.cfg.marking.seed;
        self.cfg = *cfg;
        self.classifier = Classifier::new(&cfg.classify, cfg.bands);
        self.prob = ProbLaw::new(&cfg.marking);
        if cfg.marking.seed != 0 && cfg.marking.seed != old_seed {
            self.rng = Prng::new(cfg.marking.seed);
        }
        self.sched.configure(&cfg.sched, cfg.bands);
        self.dev = dev;
        self.shaper.configure(&cfg.shaper, dev, now);
        let bands = usize::from(self.sched.bands());
        let persistent_on = cfg.marking.modes.contains(Modes::PERSISTENT);
        for (i, marker) in self.markers.iter_mut().enumerate() {
            if i >= bands {
                *marker = BandMarker::new();
            } else if !persistent_on {
                marker.persistent.reset();
            } else {
                marker.persistent.clamp_next(now, &cfg.marking);
            }
        }
    }

    /// The device the shaper derives from, as last read.
    pub const fn device(&self) -> Device {
        self.dev
    }

    /// The device changed under a running qdisc (its MTU, say, with no `tc change`): the shaper
    /// derives its default burst and late credit again, keeping its level (as at a change).
    /// Returns whether anything changed. Off the packet path: the glue calls it only when a
    /// packet longer than the known MTU waits for tokens.
    #[cold]
    pub fn refresh_device(&mut self, dev: Device, now: Nanos) -> bool {
        if dev == self.dev {
            return false;
        }
        self.dev = dev;
        self.shaper.configure(&self.cfg.shaper, dev, now);
        true
    }

    /// The band `pkt` joins.
    #[inline]
    pub fn classify(&self, pkt: &PacketInfo) -> Band {
        self.classifier.classify(pkt.priority, pkt.dsfield)
    }

    /// A packet arrives: classify it, apply the limits (all bands together, in packets and in
    /// bytes), DCTCP-RED on the band's length before the packet, the non-ECT policy; count it,
    /// and make the band schedulable if it was empty.
    ///
    /// There is no `now`: the glue stamps the packet itself for [`Engine::dequeue`].
    ///
    /// Always inlined: the glue calls it from one place, and a call would cost as much as the
    /// counting (measured with one codegen unit, as the kernel builds the module).
    #[inline(always)]
    pub fn enqueue(&mut self, pkt: &PacketInfo) -> EnqueueVerdict {
        // The classifier's bands are below `cfg.bands` already: no range check to repeat.
        let band = self.classify(pkt);
        self.admit(pkt, band)
    }

    /// [`Engine::enqueue`] into `band`, chosen by the caller (a tc filter, or `skb->priority`
    /// naming a class) instead of the DSCP/priority classifier. A band at or above the bands in
    /// use is taken as the classifier's choice, as `sch_prio` falls back to its priomap.
    #[inline(always)]
    pub fn enqueue_into(&mut self, pkt: &PacketInfo, band: Band) -> EnqueueVerdict {
        let band = if band.index() < usize::from(self.cfg.bands) {
            band
        } else {
            self.classify(pkt)
        };
        self.admit(pkt, band)
    }

    /// [`Engine::enqueue`] into `band`, a band in use.
    #[inline(always)]
    fn admit(&mut self, pkt: &PacketInfo, band: Band) -> EnqueueVerdict {
        let len = pkt.len;
        let i = band.index();
        self.stats.count_arrival(len);
        self.bands[i].count_arrival(len);
        if self.over_limits_with(len) {
            return self.drop_arrival(band, len, DropReason::Limit);
        }
        let ecn = pkt.ecn();
        // DCTCP-RED is the only rule at enqueue: with it off there is nothing to decide.
        let mut note = PacketNote::default();
        let mark = if self.cfg.marking.modes.contains(Modes::QUEUE_ENQUEUE) {
            match self.mark_on_enqueue(band, ecn) {
                Some(Applied::Send(mark)) => mark,
                Some(Applied::PassedNonEct) => {
                    note = PacketNote(PacketNote::NONECT_PASSED);
                    CauseSet::EMPTY
                }
                None => return self.drop_arrival(band, len, DropReason::NonEct),
            }
        } else {
            CauseSet::EMPTY
        };
        if ecn == Ecn::Ce {
            self.bands[i].ce_already = self.bands[i].ce_already.saturating_add(1);
            self.stats.ce_already = self.stats.ce_already.saturating_add(1);
        }
        let was_empty = self.bands[i].qlen == 0;
        self.add_queued(band, len);
        if was_empty {
            self.sched.activate(band, len);
        }
        EnqueueVerdict::Queue { band, mark, note }
    }

    /// The band the glue should serve next, or `None` if nothing is queued. Idempotent until
    /// [`Engine::dequeue`] or [`Engine::drop_queued`] is called.
    #[inline]
    pub fn select(&mut self) -> Option<Band> {
        self.sched.select()
    }

    /// Whether the shaper lets the selected band's head (`head_len` bytes) leave at `now`:
    /// `None` if it may, otherwise the time not before which it may (for the qdisc watchdog).
    /// Every "not yet" counts in [`QdiscStats::throttles`]; nothing else changes.
    #[inline]
    pub fn shaper_delay(&mut self, now: Nanos, head_len: u32) -> Option<Nanos> {
        let delay = self.shaper.earliest(now, head_len);
        if let Some(at) = delay {
            self.stats.throttles = self.stats.throttles.saturating_add(1);
            self.shaper.throttle(at);
        }
        delay
    }

    /// The glue took the head packet (`len` bytes, stamped `enqueued_at`, ECN field `ecn` as it
    /// is now) out of `band`, the band [`Engine::select`] named, after the shaper let it go;
    /// `next_head_len` is the length of the band's new head, `None` if the band is now empty.
    /// [`Engine::dequeue_head`] with no note, for a packet that may be dropped.
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        now: Nanos,
        band: Band,
        len: u32,
        enqueued_at: Nanos,
        ecn: Ecn,
        next_head_len: Option<u32>,
    ) -> DequeueVerdict {
        let head = Head {
            len,
            enqueued_at,
            ecn,
            note: PacketNote::default(),
            segs: 1,
        };
        self.dequeue_head(now, band, &head, next_head_len, false)
    }

    /// The glue took `head` out of `band`, the band [`Engine::select`] named, after the shaper
    /// let it go; `next_head_len` is the length of the band's new head, `None` if the band is
    /// now empty.
    ///
    /// The sojourn (`now - enqueued_at`, including any wait for tokens) goes through the band's
    /// marker, whose state advances on every packet; a band left empty is idle-reset. Marks go on
    /// ECT packets; a CE packet is sent as it is; a non-ECT packet a rule fired on is passed or
    /// dropped as the `non_ect` policy says, except with `must_send` (the packet was promised to
    /// a parent's peek), when it is passed and counted so. Only a sent packet takes tokens and is
    /// charged to the band's scheduler share.
    ///
    /// Always inlined, as [`Engine::enqueue`] is: the glue calls each from one place.
    #[inline(always)]
    pub fn dequeue_head(
        &mut self,
        now: Nanos,
        band: Band,
        head: &Head,
        next_head_len: Option<u32>,
        must_send: bool,
    ) -> DequeueVerdict {
        let i = band.index();
        let len = head.len;
        let (causes, sojourn) = self.take_head(now, band, head, next_head_len);
        let mark = match self.apply_marks(band, causes, head.ecn) {
            Some(Applied::Send(mark)) => mark,
            Some(Applied::PassedNonEct) => {
                if head.note.nonect_passed() {
                    // Counted when a rule fired on it at enqueue.
                    self.uncount_nonect_pass(band);
                }
                CauseSet::EMPTY
            }
            None if must_send => {
                self.count_nonect_pass(band);
                CauseSet::EMPTY
            }
            None => {
                self.sched.discard_head(band, len, next_head_len);
                self.count_drop(band, len, DropReason::NonEct);
                return DequeueVerdict::Drop {
                    reason: DropReason::NonEct,
                };
            }
        };
        self.sched.complete(band, len, next_head_len);
        // A disabled shaper has nothing to take and nothing to idle: only an enabled one is
        // throttled, and enabling or disabling builds it afresh.
        if self.shaper.is_enabled() {
            let late = self.shaper.consume(now, len);
            if late != 0 {
                self.count_late_wakeup(late);
            }
            if self.stats.qlen == 0 {
                self.shaper.idle();
            }
        }
        self.bands[i].count_sent(len, sojourn, head.segs);
        self.stats.count_sent(len);
        DequeueVerdict::Send { mark }
    }

    /// Whether [`Engine::dequeue_head`] would drop `head` if the glue took it out of `band` at
    /// `now`: a non-ECT packet a marking rule fires on, under `non_ect drop`. Changes nothing
    /// (the band's marking state and the PRNG are run on copies).
    ///
    /// For a parent that peeks: the packet shown to its peek is promised (always sent), so the
    /// `non_ect drop` policy is applied when the head is chosen for the peek, with the clock of
    /// the peek; the glue then drops it for real through `dequeue_head`, which decides the same
    /// from the same state.
    pub fn nonect_drop_due(&self, now: Nanos, band: Band, head: &Head) -> bool {
        if self.cfg.non_ect != NonEctPolicy::Drop || head.ecn != Ecn::NotEct {
            return false;
        }
        let b = &self.bands[band.index()];
        let departure = Departure {
            now,
            sojourn: now.saturating_sub(head.enqueued_at),
            qlen: b.qlen.saturating_sub(1),
            backlog: b.backlog.saturating_sub(u64::from(head.len)),
            pkt_len: head.len,
        };
        let mut marker = self.markers[band.index()];
        let mut rng = self.rng;
        !marker
            .on_dequeue(&self.cfg.marking, &self.prob, &mut rng, &departure)
            .is_empty()
    }

    /// `head` leaves `band` at `now` (sent or dropped): it is no longer queued, the band's
    /// marker sees its departure (idle-reset if the band is now empty). The causes that fired,
    /// and its sojourn.
    #[inline(always)]
    fn take_head(
        &mut self,
        now: Nanos,
        band: Band,
        head: &Head,
        next_head_len: Option<u32>,
    ) -> (CauseSet, Nanos) {
        let i = band.index();
        self.remove_queued(band, head.len);
        let sojourn = now.saturating_sub(head.enqueued_at);
        let departure = Departure {
            now,
            sojourn,
            qlen: self.bands[i].qlen,
            backlog: self.bands[i].backlog,
            pkt_len: head.len,
        };
        let causes =
            self.markers[i].on_dequeue(&self.cfg.marking, &self.prob, &mut self.rng, &departure);
        if next_head_len.is_none() {
            self.markers[i].on_idle(&self.cfg.marking);
        }
        (causes, sojourn)
    }

    /// The glue dropped `head`, which [`Engine::nonect_drop_due`] named, when choosing the
    /// packet for a parent's peek: accounted as [`Engine::dequeue_head`] accounts a `non_ect
    /// drop` (the marker sees the departure, the scheduler is not charged, a `NonEct` drop).
    #[cold]
    pub fn drop_due_head(
        &mut self,
        now: Nanos,
        band: Band,
        head: &Head,
        next_head_len: Option<u32>,
    ) {
        let _ = self.take_head(now, band, head, next_head_len);
        self.sched.discard_head(band, head.len, next_head_len);
        self.count_drop(band, head.len, DropReason::NonEct);
    }

    /// The glue removed one queued packet of `len` bytes from `band` without sending it (limit
    /// shrink or band removal at change); `next_head_len` is the band's head after the removal,
    /// `None` if the band is now empty. Counted in `drops_config`.
    ///
    /// The band keeps being scheduled with its new head, as a band that just became backlogged
    /// (DWRR: at the tail with a fresh quantum; WFQ: tagged from the current virtual time), so a
    /// dropped packet is never charged as if it had been sent. A band left empty is idle-reset.
    pub fn drop_queued(&mut self, band: Band, len: u32, next_head_len: Option<u32>) {
        self.remove_queued(band, len);
        self.count_drop(band, len, DropReason::Config);
        let was_scheduled = self.sched.is_active(band);
        self.sched.deactivate(band);
        match next_head_len {
            Some(head_len) if was_scheduled => self.sched.activate(band, head_len),
            Some(_) => {}
            None => self.markers[band.index()].on_idle(&self.cfg.marking),
        }
    }

    /// The glue emptied `band`'s FIFO (a band removed at change): every packet the band held is
    /// counted in `drops_config`, and the band is no longer scheduled. Returns the packets and
    /// bytes removed, for `qdisc_tree_reduce_backlog`.
    pub fn flush_band(&mut self, band: Band) -> (u32, u64) {
        let i = band.index();
        let (qlen, backlog) = (self.bands[i].qlen, self.bands[i].backlog);
        self.discard_queued(band);
        self.sched.deactivate(band);
        self.markers[i].on_idle(&self.cfg.marking);
        (qlen, backlog)
    }

    /// After a change: the band to head-drop from while the queue is over its limits, `None`
    /// once it is within them.
    ///
    /// Stranded bands (holding packets but no longer scheduled: bands removed at change and not
    /// flushed) come first. Then, over the packet limit, the band with the most packets; over
    /// only the byte limit, the band with the most bytes; a tie goes to the higher band, the
    /// lower priority under strict priority.
    pub fn over_limit_victim(&self) -> Option<Band> {
        let scheduled = self.sched.backlogged();
        let mut longest: Option<(Band, u64)> = None;
        let over_packets = self.stats.qlen > self.cfg.limit_packets;
        let over_bytes =
            self.cfg.limit_bytes != 0 && self.stats.backlog > u64::from(self.cfg.limit_bytes);
        for (i, b) in self.bands.iter().enumerate() {
            let Some(band) = Band::new(i) else { break };
            if b.qlen == 0 {
                continue;
            }
            if !scheduled.contains(band) {
                return Some(band);
            }
            let size = if over_packets {
                u64::from(b.qlen)
            } else {
                b.backlog
            };
            if longest.map_or(true, |(_, most)| size >= most) {
                longest = Some((band, size));
            }
        }
        if over_packets || over_bytes {
            longest.map(|(band, _)| band)
        } else {
            None
        }
    }

    /// The glue flushed every FIFO (`reset()`): queued packets are counted in `drops_config`, and
    /// the scheduler, every band's marking state and the shaper (full bucket) start afresh. The
    /// cumulative counters and the PRNG are kept.
    pub fn reset(&mut self) {
        for band in (0..MAX_BANDS).filter_map(Band::new) {
            self.discard_queued(band);
        }
        self.sched.reset();
        self.markers = [BandMarker::new(); MAX_BANDS];
        self.shaper.reset();
    }

    /// Packets queued in all bands, to check against the kernel's `sch->q.qlen`.
    pub const fn qlen(&self) -> u32 {
        self.stats.qlen
    }

    /// Bytes queued in all bands, to check against the kernel's `qstats.backlog`.
    pub const fn backlog(&self) -> u64 {
        self.stats.backlog
    }

    /// The counters of `band`.
    pub const fn band_stats(&self, band: Band) -> &BandStats {
        &self.bands[band.index()]
    }

    /// The qdisc-wide counters.
    pub const fn stats(&self) -> &QdiscStats {
        &self.stats
    }

    /// A snapshot of Algorithm 1's variables for `band`.
    pub const fn persistent(&self, band: Band) -> PersistentState {
        self.markers[band.index()].persistent
    }

    /// The scheduler, for dumps (backlogged bands, kind).
    pub const fn scheduler(&self) -> &Scheduler {
        &self.sched
    }

    /// The shaper, for dumps (rate, derived burst).
    pub const fn shaper(&self) -> &TokenBucket {
        &self.shaper
    }

    /// Whether one more packet of `len` bytes would break a limit.
    #[inline]
    fn over_limits_with(&self, len: u32) -> bool {
        self.stats.qlen >= self.cfg.limit_packets
            || (self.cfg.limit_bytes != 0
                && self.stats.backlog.saturating_add(u64::from(len))
                    > u64::from(self.cfg.limit_bytes))
    }

    /// What `causes` mean for a packet with `ecn`: send it (with marks only if it is ECT), pass
    /// it unmarked by the `non_ect pass` policy, or `None` to drop it by `non_ect drop`. Counts
    /// marks and passes.
    #[inline]
    fn apply_marks(&mut self, band: Band, causes: CauseSet, ecn: Ecn) -> Option<Applied> {
        if causes.is_empty() {
            return Some(Applied::Send(CauseSet::EMPTY));
        }
        match ecn {
            Ecn::Ect0 | Ecn::Ect1 => {
                self.bands[band.index()].count_marks(causes);
                self.stats.marks = self.stats.marks.wrapping_add(1);
                Some(Applied::Send(causes))
            }
            // Stays CE; counted once, at arrival, in `ce_already`.
            Ecn::Ce => Some(Applied::Send(CauseSet::EMPTY)),
            Ecn::NotEct => match self.cfg.non_ect {
                NonEctPolicy::Pass => {
                    self.count_nonect_pass(band);
                    Some(Applied::PassedNonEct)
                }
                NonEctPolicy::Drop => None,
            },
        }
    }

    #[cold]
    fn count_late_wakeup(&mut self, late: Nanos) {
        let s = &mut self.stats;
        s.late_wakeups = s.late_wakeups.saturating_add(1);
        if late > s.late_max_ns {
            s.late_max_ns = late;
        }
    }

    #[inline]
    fn count_nonect_pass(&mut self, band: Band) {
        let b = &mut self.bands[band.index()];
        b.nonect_passed = b.nonect_passed.saturating_add(1);
        self.stats.nonect_passed = self.stats.nonect_passed.saturating_add(1);
    }

    /// Takes back a pass counted twice for one packet (a rule at enqueue and one at dequeue).
    #[cold]
    fn uncount_nonect_pass(&mut self, band: Band) {
        let b = &mut self.bands[band.index()];
        b.nonect_passed = b.nonect_passed.saturating_sub(1);
        self.stats.nonect_passed = self.stats.nonect_passed.saturating_sub(1);
    }

    /// DCTCP-RED for an admitted packet with `ecn` arriving in `band`: [`Engine::apply_marks`]
    /// on what `on_enqueue` says. Out of line: most configurations do not mark at enqueue.
    #[inline(never)]
    fn mark_on_enqueue(&mut self, band: Band, ecn: Ecn) -> Option<Applied> {
        let i = band.index();
        let causes = self.markers[i].on_enqueue(
            &self.cfg.marking,
            self.bands[i].qlen,
            self.bands[i].backlog,
        );
        self.apply_marks(band, causes, ecn)
    }

    /// Count an arriving packet as dropped and say so; out of line, off the usual path.
    #[cold]
    #[inline(never)]
    fn drop_arrival(&mut self, band: Band, len: u32, reason: DropReason) -> EnqueueVerdict {
        self.count_drop(band, len, reason);
        EnqueueVerdict::Drop { band, reason }
    }

    #[inline]
    fn count_drop(&mut self, band: Band, len: u32, reason: DropReason) {
        self.bands[band.index()].count_drop(len, reason);
        self.stats.count_drop(len, reason);
    }

    #[inline]
    fn add_queued(&mut self, band: Band, len: u32) {
        let b = &mut self.bands[band.index()];
        // qlen and backlog are bounded by the limits (and at most u32::MAX packets of u32 bytes),
        // so these and the matching subtractions below are exact.
        b.qlen = b.qlen.wrapping_add(1);
        b.backlog = b.backlog.wrapping_add(u64::from(len));
        self.stats.qlen = self.stats.qlen.wrapping_add(1);
        self.stats.backlog = self.stats.backlog.wrapping_add(u64::from(len));
    }

    #[inline]
    fn remove_queued(&mut self, band: Band, len: u32) {
        let b = &mut self.bands[band.index()];
        b.qlen = b.qlen.saturating_sub(1);
        b.backlog = b.backlog.saturating_sub(u64::from(len));
        self.stats.qlen = self.stats.qlen.saturating_sub(1);
        self.stats.backlog = self.stats.backlog.saturating_sub(u64::from(len));
    }

    /// Count everything `band` holds as dropped by the control path and empty it.
    fn discard_queued(&mut self, band: Band) {
        let b = &mut self.bands[band.index()];
        let (qlen, backlog) = (b.qlen, b.backlog);
        b.drops_config = b.drops_config.saturating_add(u64::from(qlen));
        b.drops_bytes = b.drops_bytes.saturating_add(backlog);
        b.qlen = 0;
        b.backlog = 0;
        let s = &mut self.stats;
        s.drops_config = s.drops_config.saturating_add(u64::from(qlen));
        s.drops_bytes = s.drops_bytes.saturating_add(backlog);
        s.qlen = s.qlen.saturating_sub(qlen);
        s.backlog = s.backlog.saturating_sub(backlog);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClassifyMode, QueueUnit, SchedKind};
    use crate::ecn::MarkCause;
    use crate::time::{ms, us};
    use crate::token_bucket::Device;
    use std::collections::VecDeque;
    use std::vec::Vec;

    const ECT0: Option<u8> = Some(0b10);
    const ECT1: Option<u8> = Some(0b01);
    const CE: Option<u8> = Some(0b11);
    const NOT_ECT: Option<u8> = Some(0);

    /// An Ethernet device with this MTU (plus header) and Linux's default queue.
    fn dev(mtu: u32) -> Device {
        Device {
            mtu,
            tx_queue_len: 1000,
        }
    }

    fn band(i: usize) -> Band {
        Band::new(i).unwrap()
    }

    fn cfg_with(modes: Modes) -> Config {
        let mut cfg = Config::DEFAULT;
        cfg.marking.modes = modes;
        cfg
    }

    fn pkt(len: u32, dsfield: Option<u8>) -> PacketInfo {
        PacketInfo {
            len,
            priority: 0,
            dsfield,
        }
    }

    /// A queued packet as the glue keeps it.
    #[derive(Clone, Copy, Debug)]
    struct Queued {
        len: u32,
        at: Nanos,
        ecn: Ecn,
        note: PacketNote,
    }

    /// The glue in miniature: FIFOs, timestamps, and the CE bit.
    struct Glue {
        e: Engine,
        fifos: Vec<VecDeque<Queued>>,
    }

    impl Glue {
        fn new(cfg: &Config) -> Self {
            Glue {
                e: Engine::new(cfg),
                fifos: (0..MAX_BANDS).map(|_| VecDeque::new()).collect(),
            }
        }

        fn enqueue(&mut self, now: Nanos, p: PacketInfo) -> EnqueueVerdict {
            let v = self.e.enqueue(&p);
            if let EnqueueVerdict::Queue { band, mark, note } = v {
                let ecn = if mark.is_empty() { p.ecn() } else { Ecn::Ce };
                self.fifos[band.index()].push_back(Queued {
                    len: p.len,
                    at: now,
                    ecn,
                    note,
                });
            }
            self.check();
            v
        }

        /// Dequeue one packet if the shaper allows: (band, verdict).
        fn dequeue(&mut self, now: Nanos) -> Option<(Band, DequeueVerdict)> {
            let b = self.e.select()?;
            let head = *self.fifos[b.index()]
                .front()
                .expect("selected band is empty");
            if self.e.shaper_delay(now, head.len).is_some() {
                return None;
            }
            self.fifos[b.index()].pop_front();
            let next = self.fifos[b.index()].front().map(|q| q.len);
            let h = Head {
                len: head.len,
                enqueued_at: head.at,
                ecn: head.ecn,
                note: head.note,
                segs: 1,
            };
            let v = self.e.dequeue_head(now, b, &h, next, false);
            self.check();
            Some((b, v))
        }

        fn drop_head(&mut self, b: Band) {
            let head = self.fifos[b.index()].pop_front().unwrap();
            let next = self.fifos[b.index()].front().map(|q| q.len);
            self.e.drop_queued(b, head.len, next);
            self.check();
        }

        fn check(&self) {
            let mut qlen = 0u32;
            let mut backlog = 0u64;
            for i in 0..MAX_BANDS {
                let s = self.e.band_stats(band(i));
                let fifo = &self.fifos[i];
                let bytes: u64 = fifo.iter().map(|q| u64::from(q.len)).sum();
                assert_eq!(s.qlen as usize, fifo.len(), "band {i}");
                assert_eq!(s.backlog, bytes, "band {i}");
                assert!(s.balanced(), "band {i}: {s:?}");
                qlen += s.qlen;
                backlog += bytes;
            }
            assert_eq!(self.e.qlen(), qlen);
            assert_eq!(self.e.backlog(), backlog);
            assert!(self.e.stats().balanced(), "{:?}", self.e.stats());
        }
    }

    #[test]
    fn new_is_const_and_empty() {
        const E: Engine = Engine::new(&Config::DEFAULT);
        let mut e = E;
        assert_eq!(e.config(), &Config::DEFAULT);
        assert_eq!((e.qlen(), e.backlog()), (0, 0));
        assert_eq!(e.stats(), &QdiscStats::new());
        assert_eq!(e.band_stats(band(0)), &BandStats::new());
        assert_eq!(e.persistent(band(0)), PersistentState::new());
        assert_eq!(e.select(), None);
        assert!(!e.shaper().is_enabled());
        assert_eq!(e.scheduler().bands(), 1);
    }

    /// The qdisc's private area holds the engine: 4 KiB of state and counters plus the 16
    /// bands' sojourn histograms (3.2 KiB); within 7.25 KiB, `struct Qdisc`, the shim's part and
    /// the FIFOs still fit the one 8 KiB slab object the kernel allocates for the qdisc.
    #[test]
    fn size_budget() {
        let size = core::mem::size_of::<Engine>();
        assert!(size <= 7_424, "{size}");
    }

    /// `init_seeded` on an engine that has run, and on a zeroed-like default one, gives exactly
    /// what `new_seeded` builds.
    #[test]
    fn init_in_place_is_new_seeded() {
        let mut cfg = cfg_with(Modes::ECN_SHARP);
        cfg.bands = 4;
        let mut e = Engine::new(&Config::DEFAULT);
        for i in 0..100u32 {
            let _ = e.enqueue(&pkt(1_000 + i, Some(0b10)));
        }
        while let Some(b) = e.select() {
            let len = e.band_stats(b).backlog.min(1_000) as u32;
            let next = (e.band_stats(b).qlen > 1).then_some(len);
            let _ = e.dequeue(5_000_000, b, len, 0, Ecn::Ect0, next);
            if e.qlen() == 0 {
                break;
            }
        }
        e.init_seeded(&cfg, 42, dev(9_000));
        assert_eq!(e, Engine::new_on(&cfg, 42, dev(9_000)));
    }

    #[test]
    fn seeds() {
        let mut cfg = cfg_with(Modes::PROBABILISTIC);
        // Seed 0 in the config: the random seed decides; a configured seed wins over it.
        assert_ne!(
            Engine::new_seeded(&cfg, 1, Device::DEFAULT.mtu).rng,
            Engine::new_seeded(&cfg, 2, Device::DEFAULT.mtu).rng
        );
        cfg.marking.seed = 7;
        assert_eq!(
            Engine::new_seeded(&cfg, 1, Device::DEFAULT.mtu).rng,
            Prng::new(7)
        );
        assert_eq!(
            Engine::new_seeded(&cfg, 2, Device::DEFAULT.mtu).rng,
            Prng::new(7)
        );
        // A new non-zero seed at change restarts the sequence; the same seed or 0 keeps it.
        let mut e = Engine::new(&cfg);
        e.rng.next_u32();
        let advanced = e.rng;
        e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(e.rng, advanced);
        cfg.marking.seed = 0;
        e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(e.rng, advanced);
        cfg.marking.seed = 9;
        e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(e.rng, Prng::new(9));
    }

    #[test]
    fn nonect_drop_due_says_what_dequeue_would_do_and_changes_nothing() {
        let mut cfg = cfg_with(Modes::INSTANTANEOUS);
        cfg.marking.ins_target = ms(1);
        cfg.non_ect = NonEctPolicy::Drop;
        let mut e = Engine::new(&cfg);
        let EnqueueVerdict::Queue { band: b, note, .. } = e.enqueue(&pkt(100, NOT_ECT)) else {
            panic!("dropped at enqueue");
        };
        let head = Head {
            len: 100,
            enqueued_at: 0,
            ecn: Ecn::NotEct,
            note,
            segs: 1,
        };
        let before = e.clone();
        assert!(!e.nonect_drop_due(us(500), b, &head));
        assert!(e.nonect_drop_due(ms(5), b, &head));
        assert_eq!(e, before, "a query changed the engine");
        // What dequeue would do at that time agrees, and the glue's drop accounts it so.
        let mut by_dequeue = e.clone();
        assert!(matches!(
            by_dequeue.dequeue_head(ms(5), b, &head, None, false),
            DequeueVerdict::Drop { .. }
        ));
        e.drop_due_head(ms(5), b, &head, None);
        assert_eq!(
            e, by_dequeue,
            "drop_due_head accounts otherwise than dequeue_head"
        );
        assert_eq!(e.band_stats(b).drops_nonect, 1);
        assert!(e.band_stats(b).balanced());
        // ECT packets are marked, never dropped; `non_ect pass` never drops.
        let ect = Head {
            ecn: Ecn::Ect0,
            ..head
        };
        assert!(!before.nonect_drop_due(ms(5), b, &ect));
        cfg.non_ect = NonEctPolicy::Pass;
        let mut e = Engine::new(&cfg);
        let _ = e.enqueue(&pkt(100, NOT_ECT));
        assert!(!e.nonect_drop_due(ms(5), b, &head));
    }

    #[test]
    fn segments_count_what_the_wire_carries() {
        let mut e = Engine::new(&Config::DEFAULT);
        let EnqueueVerdict::Queue { band: b, note, .. } = e.enqueue(&pkt(8_000, ECT0)) else {
            panic!("dropped at enqueue");
        };
        let head = Head {
            len: 8_000,
            enqueued_at: 0,
            ecn: Ecn::Ect0,
            note,
            segs: 8,
        };
        let _ = e.dequeue_head(us(10), b, &head, None, false);
        let s = e.band_stats(b);
        assert_eq!((s.packets, s.segments), (1, 8));
        assert!(s.balanced());
    }

    #[test]
    fn mtu_floors_the_default_burst() {
        let mut cfg = Config::DEFAULT;
        cfg.shaper.rate_bps = 100_000_000;
        assert_eq!(Engine::new(&cfg).shaper().burst_bytes(), 2 * DEFAULT_MTU);
        let mut e = Engine::new_on(&cfg, 0, dev(9_000));
        assert_eq!(e.shaper().burst_bytes(), 18_000);
        // A change reads the device again: its MTU now, not the one at creation.
        cfg.shaper.rate_bps = 200_000_000;
        e.configure(&cfg, 0, dev(1514));
        assert_eq!(e.shaper().burst_bytes(), 2 * 1514);
        // So does a refresh without a change (an MTU raised under a running qdisc), once.
        assert!(e.refresh_device(dev(9_014), 0));
        assert_eq!(e.shaper().burst_bytes(), 18_028);
        assert!(!e.refresh_device(dev(9_014), 0));
        // An explicit burst is the user's, whatever the MTU.
        cfg.shaper.burst_bytes = 5_000;
        e.configure(&cfg, 0, dev(9_014));
        assert_eq!(e.shaper().burst_bytes(), 5_000);
    }

    #[test]
    fn queue_then_send_counts_everything() {
        let mut g = Glue::new(&Config::DEFAULT);
        let v = g.enqueue(0, pkt(1_000, ECT0));
        assert_eq!(
            v,
            EnqueueVerdict::Queue {
                band: band(0),
                mark: CauseSet::EMPTY,
                note: PacketNote::default(),
            }
        );
        g.enqueue(us(1), pkt(500, ECT0));
        assert_eq!((g.e.qlen(), g.e.backlog()), (2, 1_500));
        let (b, v) = g.dequeue(us(10)).unwrap();
        assert_eq!(b, band(0));
        assert_eq!(
            v,
            DequeueVerdict::Send {
                mark: CauseSet::EMPTY
            }
        );
        g.dequeue(us(30)).unwrap();
        assert_eq!(g.dequeue(us(40)), None);
        let s = g.e.band_stats(band(0));
        assert_eq!((s.enqueued, s.enqueued_bytes), (2, 1_500));
        assert_eq!((s.packets, s.bytes, s.qlen, s.backlog), (2, 1_500, 0, 0));
        assert_eq!((s.sojourn_max_ns, s.sojourn_sum_ns), (us(29), us(39)));
        assert_eq!((s.marks, s.drops()), (0, 0));
        let q = g.e.stats();
        assert_eq!(
            (q.enqueued, q.packets, q.bytes, q.drops()),
            (2, 2, 1_500, 0)
        );
    }

    #[test]
    fn classification_through_the_engine() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        let mut e = Engine::new(&cfg);
        let at = |priority, dsfield| PacketInfo {
            len: 100,
            priority,
            dsfield,
        };
        // sch_prio's priomap: 6 (interactive) -> 0, 0 (best effort) -> 1, 2 (bulk) -> 2.
        assert_eq!(e.classify(&at(6, None)), band(0));
        assert_eq!(e.classify(&at(0, None)), band(1));
        assert_eq!(e.classify(&at(2, None)), band(2));
        cfg.classify.mode = ClassifyMode::Dscp;
        e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(e.classify(&at(6, Some(2 << 2))), band(2));
        assert_eq!(e.classify(&at(6, Some(40 << 2))), band(2));
        assert_eq!(e.classify(&at(6, None)), band(0));
        match e.enqueue(&at(0, Some(1 << 2 | 2))) {
            EnqueueVerdict::Queue { band: b, .. } => assert_eq!(b, band(1)),
            v => panic!("{v:?}"),
        }
        assert_eq!(e.band_stats(band(1)).qlen, 1);
    }

    #[test]
    fn packet_limit_drops_and_counts() {
        let mut cfg = Config::DEFAULT;
        cfg.limit_packets = 3;
        let mut g = Glue::new(&cfg);
        for _ in 0..3 {
            assert!(matches!(
                g.enqueue(0, pkt(100, ECT0)),
                EnqueueVerdict::Queue { .. }
            ));
        }
        for _ in 0..2 {
            assert_eq!(
                g.enqueue(0, pkt(100, ECT0)),
                EnqueueVerdict::Drop {
                    band: band(0),
                    reason: DropReason::Limit
                }
            );
        }
        let s = g.e.band_stats(band(0));
        assert_eq!(
            (s.enqueued, s.qlen, s.drops_limit, s.drops_bytes),
            (5, 3, 2, 200)
        );
        assert_eq!(g.e.stats().drops_limit, 2);
        // Room again after one leaves.
        g.dequeue(1).unwrap();
        assert!(matches!(
            g.enqueue(1, pkt(100, ECT0)),
            EnqueueVerdict::Queue { .. }
        ));
    }

    #[test]
    fn byte_limit_counts_the_arriving_packet() {
        let mut cfg = Config::DEFAULT;
        cfg.limit_bytes = 3_000;
        let mut g = Glue::new(&cfg);
        assert!(matches!(
            g.enqueue(0, pkt(1_500, ECT0)),
            EnqueueVerdict::Queue { .. }
        ));
        assert!(matches!(
            g.enqueue(0, pkt(1_500, ECT0)),
            EnqueueVerdict::Queue { .. }
        ));
        // Exactly at the limit was fine; one byte more is not, whatever the packet count.
        assert!(matches!(
            g.enqueue(0, pkt(1, ECT0)),
            EnqueueVerdict::Drop {
                reason: DropReason::Limit,
                ..
            }
        ));
        // A packet larger than the whole limit never fits.
        g.dequeue(0).unwrap();
        g.dequeue(0).unwrap();
        assert!(matches!(
            g.enqueue(0, pkt(3_001, ECT0)),
            EnqueueVerdict::Drop { .. }
        ));
        assert_eq!(g.e.stats().drops_limit, 2);
        assert_eq!(g.e.stats().drops_bytes, 3_002);
    }

    /// DCTCP-RED on the band's length before the packet: with K = 2, arrivals 1 to 3 find 0, 1
    /// and 2 packets and are not marked; the fourth finds 3 > K.
    #[test]
    fn dctcp_red_marks_at_enqueue() {
        let mut cfg = cfg_with(Modes::QUEUE_ENQUEUE);
        cfg.marking.k = 2;
        let mut g = Glue::new(&cfg);
        let marks: Vec<bool> = (0..6)
            .map(|_| match g.enqueue(0, pkt(100, ECT1)) {
                EnqueueVerdict::Queue { mark, .. } => !mark.is_empty(),
                v => panic!("{v:?}"),
            })
            .collect();
        assert_eq!(marks, [false, false, false, true, true, true]);
        let s = *g.e.band_stats(band(0));
        assert_eq!(s.marks, 3);
        assert_eq!(s.marks_for(MarkCause::QueueEnqueue), 3);
        assert_eq!(g.e.stats().marks, 3);
        // Marked at enqueue: the glue set CE, and dequeue neither marks nor counts them again.
        while let Some((_, v)) = g.dequeue(1) {
            assert_eq!(
                v,
                DequeueVerdict::Send {
                    mark: CauseSet::EMPTY
                }
            );
        }
        assert_eq!(g.e.band_stats(band(0)).marks, 3);
        assert_eq!(g.e.band_stats(band(0)).ce_already, 0);
        // Bytes: K = 250 bytes, 100-byte packets: the fourth finds 300 > 250.
        cfg.marking.k_unit = QueueUnit::Bytes;
        cfg.marking.k = 250;
        let mut g = Glue::new(&cfg);
        let marked = (0..4)
            .filter(|_| matches!(g.enqueue(0, pkt(100, ECT0)), EnqueueVerdict::Queue { mark, .. } if !mark.is_empty()))
            .count();
        assert_eq!(marked, 1);
    }

    #[test]
    fn enqueue_rule_on_non_ect_and_ce() {
        let mut cfg = cfg_with(Modes::QUEUE_ENQUEUE);
        cfg.marking.k = 0;
        let mut g = Glue::new(&cfg);
        g.enqueue(0, pkt(100, ECT0)); // not marked: 0 before it
                                      // CE stays CE: not our mark, counted apart.
        assert_eq!(
            g.enqueue(0, pkt(100, CE)),
            EnqueueVerdict::Queue {
                band: band(0),
                mark: CauseSet::EMPTY,
                note: PacketNote::default(),
            }
        );
        // Non-IP and non-ECT: passed.
        for ds in [None, NOT_ECT] {
            assert_eq!(
                g.enqueue(0, pkt(100, ds)),
                EnqueueVerdict::Queue {
                    band: band(0),
                    mark: CauseSet::EMPTY,
                    note: PacketNote::from_bits(1),
                }
            );
        }
        let s = *g.e.band_stats(band(0));
        assert_eq!((s.marks, s.ce_already, s.nonect_passed), (0, 1, 2));
        cfg.non_ect = NonEctPolicy::Drop;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(
            g.enqueue(0, pkt(100, NOT_ECT)),
            EnqueueVerdict::Drop {
                band: band(0),
                reason: DropReason::NonEct
            }
        );
        // An unmarked non-ECT packet is never dropped by the policy.
        cfg.marking.k = 100;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        assert!(matches!(
            g.enqueue(0, pkt(100, NOT_ECT)),
            EnqueueVerdict::Queue { .. }
        ));
        let s = *g.e.band_stats(band(0));
        assert_eq!((s.drops_nonect, s.nonect_passed, s.qlen), (1, 2, 5));
        assert_eq!(g.e.stats().drops_nonect, 1);
    }

    #[test]
    fn instantaneous_marks_ect_strictly_above_ins_target() {
        let mut g = Glue::new(&cfg_with(Modes::INSTANTANEOUS));
        let target = Config::DEFAULT.marking.ins_target;
        g.enqueue(0, pkt(100, ECT0));
        g.enqueue(0, pkt(100, ECT1));
        g.enqueue(1, pkt(100, ECT0));
        let (_, at_target) = g.dequeue(target).unwrap();
        assert_eq!(
            at_target,
            DequeueVerdict::Send {
                mark: CauseSet::EMPTY
            }
        );
        let (_, above) = g.dequeue(target + 1).unwrap();
        assert_eq!(
            above,
            DequeueVerdict::Send {
                mark: CauseSet::only(MarkCause::Instantaneous)
            }
        );
        // Enqueued at 1: sojourn exactly target again.
        assert!(matches!(
            g.dequeue(target + 1).unwrap().1,
            DequeueVerdict::Send { mark } if mark.is_empty()
        ));
        let s = g.e.band_stats(band(0));
        assert_eq!((s.marks, s.marks_for(MarkCause::Instantaneous)), (1, 1));
        assert_eq!(s.sojourn_max_ns, target + 1);
    }

    #[test]
    fn non_ect_at_dequeue_pass_or_drop() {
        let mut cfg = cfg_with(Modes::INSTANTANEOUS);
        cfg.shaper.rate_bps = 8_000_000; // 1 byte per us
        cfg.shaper.burst_bytes = 1_000;
        // The bucket fills from time 0 (kernel time is never that small): start later.
        const T0: Nanos = ms(10);
        let mut g = Glue::new(&cfg);
        for _ in 0..2 {
            g.enqueue(T0, pkt(1_000, NOT_ECT));
        }
        // Passed unmarked, and it took the whole bucket.
        assert_eq!(
            g.dequeue(T0 + us(300)).unwrap().1,
            DequeueVerdict::Send {
                mark: CauseSet::EMPTY
            }
        );
        assert_eq!(g.dequeue(T0 + us(300)), None);
        assert_eq!(g.e.stats().throttles, 1);
        assert_eq!(g.e.band_stats(band(0)).nonect_passed, 1);

        cfg.non_ect = NonEctPolicy::Drop;
        let mut g = Glue::new(&cfg);
        for _ in 0..2 {
            g.enqueue(T0, pkt(1_000, NOT_ECT));
        }
        g.enqueue(T0, pkt(1_000, ECT0));
        assert_eq!(
            g.dequeue(T0 + us(300)).unwrap().1,
            DequeueVerdict::Drop {
                reason: DropReason::NonEct
            }
        );
        // A drop at dequeue takes no tokens: the next packet goes at the same instant.
        assert!(matches!(
            g.dequeue(T0 + us(300)).unwrap().1,
            DequeueVerdict::Drop { .. }
        ));
        assert!(matches!(
            g.dequeue(T0 + us(300)).unwrap().1,
            DequeueVerdict::Send { mark } if !mark.is_empty()
        ));
        assert_eq!(g.e.stats().throttles, 0);
        let s = g.e.band_stats(band(0));
        assert_eq!(
            (s.drops_nonect, s.packets, s.marks, s.nonect_passed),
            (2, 1, 1, 0)
        );
        // Dropped packets add nothing to the sojourn statistics of sent ones.
        assert_eq!(s.sojourn_sum_ns, us(300));
    }

    #[test]
    fn ce_arrivals_are_counted_apart() {
        let mut g = Glue::new(&cfg_with(Modes::INSTANTANEOUS));
        g.enqueue(0, pkt(100, CE));
        g.enqueue(0, pkt(100, CE));
        g.enqueue(0, pkt(100, ECT0));
        assert_eq!(g.e.band_stats(band(0)).ce_already, 2);
        for _ in 0..2 {
            assert_eq!(
                g.dequeue(us(500)).unwrap().1,
                DequeueVerdict::Send {
                    mark: CauseSet::EMPTY
                }
            );
        }
        assert!(
            matches!(g.dequeue(us(500)).unwrap().1, DequeueVerdict::Send { mark } if !mark.is_empty())
        );
        let s = g.e.band_stats(band(0));
        assert_eq!((s.marks, s.ce_already, s.nonect_passed), (1, 2, 0));
        assert_eq!(g.e.stats().ce_already, 2);
        // A CE packet dropped at the limit is not counted as admitted CE.
        let mut cfg = Config::DEFAULT;
        cfg.limit_packets = 1;
        let mut g = Glue::new(&cfg);
        g.enqueue(0, pkt(100, CE));
        g.enqueue(0, pkt(100, CE));
        assert_eq!(g.e.stats().ce_already, 1);
    }

    /// One packet every 10us from `from`, each leaving 100us after it arrived (above pst_target),
    /// the band empty in between: the caller turns idle reset off.
    fn standing_queue(
        g: &mut Glue,
        from: Nanos,
        packets: u64,
        ds: impl Fn(u64) -> Option<u8>,
    ) -> Vec<DequeueVerdict> {
        let mut verdicts = Vec::new();
        for k in 0..packets {
            let t = from + k * us(10);
            g.enqueue(t, pkt(100, ds(k)));
            verdicts.push(g.dequeue(t + us(100)).unwrap().1);
            assert_eq!(g.e.qlen(), 0);
        }
        verdicts
    }

    #[test]
    fn persistent_opportunity_on_non_ect_is_spent() {
        let mut cfg = cfg_with(Modes::PERSISTENT);
        cfg.marking.idle_reset = false;
        let mut g = Glue::new(&cfg);
        // Departures at 100, 110, ... us: detection at the first departure > 100 + 200 us.
        let v = standing_queue(&mut g, 0, 22, |k| if k == 21 { NOT_ECT } else { ECT0 });
        assert!(v[..21]
            .iter()
            .all(|v| matches!(v, DequeueVerdict::Send { mark } if mark.is_empty())));
        // The 22nd (departs at 310us) detects: non-ECT, passed, and the opportunity is spent.
        assert_eq!(
            v[21],
            DequeueVerdict::Send {
                mark: CauseSet::EMPTY
            }
        );
        let p = g.e.persistent(band(0));
        assert!(p.marking_state);
        assert_eq!(p.marking_count, 1);
        assert_eq!(p.marking_next, us(310) + us(200));
        // The next ECT packet is not marked until marking_next.
        let v = standing_queue(&mut g, us(220), 21, |_| ECT0);
        let marked: Vec<usize> = v
            .iter()
            .enumerate()
            .filter(|(_, v)| matches!(v, DequeueVerdict::Send { mark } if !mark.is_empty()))
            .map(|(k, _)| k)
            .collect();
        // Departures at 320 + 10k us: the first after 510 us is k = 20 (520 us).
        assert_eq!(marked, [20]);
        let s = g.e.band_stats(band(0));
        assert_eq!((s.marks, s.nonect_passed), (1, 1));
        assert_eq!(s.marks_for(MarkCause::Persistent), 1);
        assert_eq!(g.e.persistent(band(0)).marking_count, 2);
    }

    #[test]
    fn idle_band_resets_persistent_state() {
        let mut g = Glue::new(&cfg_with(Modes::PERSISTENT));
        g.enqueue(0, pkt(100, ECT0));
        g.enqueue(0, pkt(100, ECT0));
        g.dequeue(us(100)).unwrap();
        // Still backlogged: the stretch above pst_target is remembered.
        assert!(g.e.persistent(band(0)).above_target);
        g.dequeue(us(101)).unwrap();
        assert_eq!(g.e.persistent(band(0)), PersistentState::new());
        let mut cfg = cfg_with(Modes::PERSISTENT);
        cfg.marking.idle_reset = false;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        g.enqueue(us(200), pkt(100, ECT0));
        g.dequeue(us(300)).unwrap();
        assert!(g.e.persistent(band(0)).above_target);
        assert_eq!(g.e.persistent(band(0)).first_above_time, us(300));
    }

    #[test]
    fn sojourn_saturates_when_the_clock_goes_back() {
        let mut g = Glue::new(&cfg_with(Modes::INSTANTANEOUS));
        g.enqueue(us(50), pkt(100, ECT0));
        assert!(
            matches!(g.dequeue(us(10)).unwrap().1, DequeueVerdict::Send { mark } if mark.is_empty())
        );
        assert_eq!(g.e.band_stats(band(0)).sojourn_max_ns, 0);
    }

    #[test]
    fn shaper_throttles_and_charges_sent_packets() {
        let mut cfg = Config::DEFAULT;
        cfg.shaper.rate_bps = 8_000_000_000; // 1 byte per ns
        cfg.shaper.burst_bytes = 2_000;
        const T0: Nanos = us(10);
        let mut g = Glue::new(&cfg);
        for _ in 0..4 {
            g.enqueue(T0, pkt(1_000, ECT0));
        }
        // A full bucket: two packets at once, then one per 1000 ns.
        assert!(g.dequeue(T0).is_some());
        assert!(g.dequeue(T0).is_some());
        assert_eq!(g.e.shaper_delay(T0, 1_000), Some(T0 + 1_000));
        assert_eq!(g.e.shaper_delay(T0 + 999, 1_000), Some(T0 + 1_000));
        assert_eq!(g.e.stats().throttles, 2);
        assert_eq!(g.e.select(), Some(band(0)));
        assert!(g.dequeue(T0 + 999).is_none());
        assert!(g.dequeue(T0 + 1_000).is_some());
        assert!(g.dequeue(T0 + 1_000).is_none());
        assert!(g.dequeue(T0 + 2_000).is_some());
        assert_eq!(g.e.stats().throttles, 4);
        assert_eq!(g.e.stats().packets, 4);
    }

    #[test]
    fn drop_queued_keeps_books_and_schedule() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 2;
        cfg.sched.kind = SchedKind::Sp;
        let mut g = Glue::new(&cfg);
        let to = |priority| PacketInfo {
            len: 300,
            priority,
            dsfield: ECT0,
        };
        g.enqueue(0, to(6)); // band 0
        g.enqueue(0, to(6));
        g.enqueue(0, to(0)); // band 1
        g.drop_head(band(0));
        assert_eq!(g.e.select(), Some(band(0)));
        g.drop_head(band(0));
        assert_eq!(g.e.select(), Some(band(1)));
        let s = g.e.band_stats(band(0));
        assert_eq!(
            (s.drops_config, s.drops_bytes, s.qlen, s.packets),
            (2, 600, 0, 0)
        );
        assert_eq!(g.e.stats().drops_config, 2);
        assert_eq!(g.dequeue(0).unwrap().0, band(1));
        assert_eq!(g.e.select(), None);
    }

    #[test]
    fn flush_band_counts_and_unschedules() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        let mut g = Glue::new(&cfg);
        for priority in [0, 0, 2, 6] {
            g.enqueue(
                0,
                PacketInfo {
                    len: 100,
                    priority,
                    dsfield: ECT0,
                },
            );
        }
        g.fifos[1].clear();
        assert_eq!(g.e.flush_band(band(1)), (2, 200));
        g.check();
        assert!(!g.e.scheduler().is_active(band(1)));
        assert_eq!(g.e.band_stats(band(1)).drops_config, 2);
        assert_eq!((g.e.qlen(), g.e.backlog()), (2, 200));
        // Flushing an empty band changes nothing.
        assert_eq!(g.e.flush_band(band(1)), (0, 0));
        g.check();
    }

    #[test]
    fn over_limit_victims() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        let mut g = Glue::new(&cfg);
        let to = |priority, len| PacketInfo {
            len,
            priority,
            dsfield: ECT0,
        };
        // band 0: 2 x 1000 B; band 1: 3 x 100 B; band 2: 3 x 200 B.
        for (priority, len, n) in [(6, 1_000, 2), (0, 100, 3), (2, 200, 3)] {
            for _ in 0..n {
                g.enqueue(0, to(priority, len));
            }
        }
        assert_eq!(g.e.over_limit_victim(), None);
        // Over the packet limit: the most packets, a tie to the higher band.
        cfg.limit_packets = 6;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(g.e.over_limit_victim(), Some(band(2)));
        g.drop_head(band(2));
        assert_eq!(g.e.over_limit_victim(), Some(band(1)));
        g.drop_head(band(1));
        assert_eq!(g.e.over_limit_victim(), None);
        // Over the byte limit only: the most bytes.
        cfg.limit_bytes = 2_000;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(g.e.over_limit_victim(), Some(band(0)));
        g.drop_head(band(0));
        assert_eq!(g.e.over_limit_victim(), None);
        // Fewer bands without a flush: the stranded band comes first, whatever the limits.
        cfg.bands = 2;
        cfg.limit_packets = 1_000;
        cfg.limit_bytes = 0;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(g.e.over_limit_victim(), Some(band(2)));
        g.drop_head(band(2));
        g.drop_head(band(2));
        assert_eq!(g.e.over_limit_victim(), None);
        assert!(g.e.stats().balanced());
        // What remains is still served, in full.
        let mut sent = 0;
        while g.dequeue(0).is_some() {
            sent += 1;
        }
        assert_eq!(sent, 3);
        assert_eq!(g.e.stats().drops_config, 5);
    }

    #[test]
    fn configure_keeps_queue_and_marking_state() {
        let mut cfg = cfg_with(Modes::ECN_SHARP);
        cfg.bands = 4;
        let mut g = Glue::new(&cfg);
        for priority in [6, 0, 2] {
            for _ in 0..3 {
                g.enqueue(
                    0,
                    PacketInfo {
                        len: 100,
                        priority,
                        dsfield: ECT0,
                    },
                );
            }
        }
        g.dequeue(us(100)).unwrap();
        let kept = g.e.persistent(band(0));
        assert!(kept.above_target);
        cfg.marking.ins_target = us(50);
        cfg.sched.quanta[1] = 3_000;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(g.e.persistent(band(0)), kept);
        assert_eq!((g.e.qlen(), g.e.scheduler().backlogged().len()), (8, 3));
        // New threshold in force at once.
        assert!(
            matches!(g.dequeue(us(100)).unwrap().1, DequeueVerdict::Send { mark } if mark.contains(MarkCause::Instantaneous))
        );
        // Persistent marking off: its state is cleared.
        cfg.marking.modes = Modes::INSTANTANEOUS;
        g.e.configure(&cfg, 0, Device::DEFAULT);
        assert_eq!(g.e.persistent(band(0)), PersistentState::new());
        // Removed bands forget their state.
        let mut cfg_all = cfg;
        cfg_all.marking.modes = Modes::PERSISTENT;
        cfg_all.marking.idle_reset = false;
        g.e.configure(&cfg_all, 0, Device::DEFAULT);
        while g.dequeue(us(200)).is_some() {}
        assert!(g.e.persistent(band(2)).above_target);
        cfg_all.bands = 2;
        g.e.configure(&cfg_all, 0, Device::DEFAULT);
        assert_eq!(g.e.persistent(band(2)), PersistentState::new());
        assert!(g.e.persistent(band(1)).above_target);
    }

    #[test]
    fn reset_flushes_and_keeps_cumulative_counters() {
        let mut cfg = cfg_with(Modes::PERSISTENT);
        cfg.shaper.rate_bps = 8_000_000;
        cfg.shaper.burst_bytes = 1_000;
        cfg.marking.idle_reset = false;
        const T0: Nanos = ms(10);
        let mut g = Glue::new(&cfg);
        for _ in 0..3 {
            g.enqueue(T0, pkt(1_000, ECT0));
        }
        g.dequeue(T0 + us(100)).unwrap();
        assert!(g.dequeue(T0 + us(100)).is_none());
        assert!(g.e.persistent(band(0)).above_target);
        g.e.reset();
        g.fifos.iter_mut().for_each(VecDeque::clear);
        g.check();
        assert_eq!((g.e.qlen(), g.e.backlog(), g.e.select()), (0, 0, None));
        assert_eq!(g.e.persistent(band(0)), PersistentState::new());
        let s = g.e.band_stats(band(0));
        assert_eq!((s.enqueued, s.packets, s.drops_config), (3, 1, 2));
        // The bucket is full again.
        g.enqueue(T0 + us(100), pkt(1_000, ECT0));
        assert!(g.dequeue(T0 + us(100)).is_some());
    }

    #[test]
    fn non_ect_passed_by_two_rules_counts_once() {
        // DCTCP-RED fires at enqueue (K = 0) and TCN at dequeue (sojourn above ins_target).
        let mut cfg = cfg_with(Modes(Modes::QUEUE_ENQUEUE.0 | Modes::INSTANTANEOUS.0));
        cfg.marking.k = 0;
        let mut g = Glue::new(&cfg);
        for _ in 0..3 {
            g.enqueue(0, pkt(100, NOT_ECT));
        }
        while g.dequeue(ms(10)).is_some() {}
        let s = *g.e.band_stats(band(0));
        // The first arrival found 0 packets (not above K = 0): counted only at dequeue.
        assert_eq!((s.packets, s.nonect_passed), (3, 3));
        assert_eq!(g.e.stats().nonect_passed, 3);
    }

    #[test]
    fn promised_non_ect_is_sent_and_counted_passed() {
        let mut cfg = cfg_with(Modes::INSTANTANEOUS);
        cfg.non_ect = NonEctPolicy::Drop;
        let mut e = Engine::new(&cfg);
        let EnqueueVerdict::Queue { band: b, note, .. } = e.enqueue(&pkt(100, NOT_ECT)) else {
            panic!("dropped at enqueue");
        };
        let head = Head {
            len: 100,
            enqueued_at: 0,
            ecn: Ecn::NotEct,
            note,
            segs: 1,
        };
        let v = e.dequeue_head(ms(10), b, &head, None, true);
        assert_eq!(
            v,
            DequeueVerdict::Send {
                mark: CauseSet::EMPTY
            }
        );
        let s = *e.band_stats(b);
        assert_eq!((s.packets, s.drops_nonect, s.nonect_passed), (1, 0, 1));
    }

    #[test]
    fn non_ect_drops_at_dequeue_do_not_spend_the_share() {
        // Two DWRR bands with equal quanta; band 0 carries non-ECT packets that a standing queue
        // drops at dequeue, band 1 ECT ones. Only what is sent may count against a band: band 0
        // sends none of its non-ECT packets, and it still gets half of the bytes sent through
        // its ECT packets interleaved with them.
        for kind in [SchedKind::Dwrr, SchedKind::Wfq] {
            let mut cfg = cfg_with(Modes::INSTANTANEOUS);
            cfg.bands = 2;
            cfg.non_ect = NonEctPolicy::Drop;
            cfg.sched.kind = kind;
            cfg.classify.mode = ClassifyMode::Priority;
            cfg.limit_packets = 10_000;
            let mut g = Glue::new(&cfg);
            // The default priomap: priority 6 is band 0, priority 0 band 1.
            let p0 = |ds| PacketInfo {
                len: 1000,
                priority: 6,
                dsfield: ds,
            };
            let p1 = PacketInfo {
                len: 1000,
                priority: 0,
                dsfield: ECT0,
            };
            let b0 = g.e.classify(&p0(ECT0));
            let b1 = g.e.classify(&p1);
            assert_ne!(b0, b1, "the priomap puts priorities 0 and 1 in one band");
            for i in 0..400 {
                // Band b0: one ECT packet after every non-ECT one.
                g.enqueue(0, p0(if i % 2 == 0 { NOT_ECT } else { ECT0 }));
                g.enqueue(0, p1);
            }
            let mut sent = [0u64; MAX_BANDS];
            for _ in 0..300 {
                match g.dequeue(ms(10)) {
                    Some((b, DequeueVerdict::Send { .. })) => sent[b.index()] += 1,
                    Some(_) => {}
                    None => break,
                }
            }
            let (s0, s1) = (sent[b0.index()], sent[b1.index()]);
            assert!(s0 > 0 && s1 > 0, "{kind:?}: {s0} {s1}");
            // Equal shares of what is sent, within a packet or two.
            assert!(s0.abs_diff(s1) <= 2, "{kind:?}: band shares {s0} vs {s1}");
        }
    }

    #[test]
    fn enqueue_into_a_chosen_band() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        let mut e = Engine::new(&cfg);
        let p = pkt(100, ECT0);
        let natural = e.classify(&p);
        let chosen = band(if natural.index() == 2 { 0 } else { 2 });
        assert!(
            matches!(e.enqueue_into(&p, chosen), EnqueueVerdict::Queue { band: b, .. } if b == chosen)
        );
        assert_eq!(e.band_stats(chosen).enqueued, 1);
        // A band beyond the bands in use falls back to the classifier.
        assert!(
            matches!(e.enqueue_into(&p, band(7)), EnqueueVerdict::Queue { band: b, .. } if b == natural)
        );
    }

    #[test]
    fn misuse_never_panics() {
        let mut e = Engine::new(&Config::DEFAULT);
        // Dequeue and drops on empty or unused bands: counted, saturating, no panic.
        assert!(matches!(
            e.dequeue(0, band(15), u32::MAX, u64::MAX, Ecn::NotEct, None),
            DequeueVerdict::Send { .. }
        ));
        e.drop_queued(band(9), 10, Some(5));
        assert_eq!(e.flush_band(band(15)), (0, 0));
        assert_eq!((e.qlen(), e.backlog()), (0, 0));
        let mut bad = Config::DEFAULT;
        bad.bands = 0;
        bad.limit_packets = 0;
        bad.sched.quanta = [0; MAX_BANDS];
        e.configure(&bad, 0, Device::DEFAULT);
        assert!(matches!(
            e.enqueue(&pkt(100, ECT0)),
            EnqueueVerdict::Drop { .. }
        ));
        bad.bands = 200;
        bad.limit_packets = u32::MAX;
        e.configure(&bad, 0, Device::DEFAULT);
        assert!(matches!(
            e.enqueue(&PacketInfo {
                len: u32::MAX,
                priority: u32::MAX,
                dsfield: Some(0xff)
            }),
            EnqueueVerdict::Queue { .. }
        ));
        e.reset();
        assert_eq!(e.qlen(), 0);
    }
}
