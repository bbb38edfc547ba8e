// SPDX-License-Identifier: GPL-2.0

//! The `ecnsharp` qdisc: the kernel side of the ECN# engine, in safe Rust.
//!
//! Principles: the engine (`kmod/src/engine`, the same code the host tests run) decides band,
//! limits, marks, drops, scheduling and shaping; this file only moves packets between the stack
//! and one FIFO per band, reads the facts the engine needs (length, priority, DS field, enqueue
//! time) and carries out its verdicts (set CE, drop, arm the watchdog). Nothing here sleeps:
//! enqueue and dequeue run under the root lock. Nothing here allocates per packet; the kernel's
//! helpers it calls may, atomically (segmenting a GSO packet with `split_gso`, pulling a header
//! to read the DS field).

use crate::band::{Band, MAX_BANDS};
use crate::config::Config;
use crate::ecn::Ecn;
use crate::engine::{DequeueVerdict, Engine, EnqueueVerdict, Head, PacketInfo, PacketNote};
use crate::net_sched::{
    self, ClassStats, Enqueued, ExtAck, FilterVerdict, NlAttr, Qdisc, QdiscOps, Skb, SkbCb,
    SkbFifo, SkbRef, ToFree,
};
use crate::token_bucket::Device;
use crate::uapi;
use kernel::init::Zeroable;
use kernel::prelude::*;

/// Most packets one dequeue drops (`non_ect drop`) before it lets the stack run again: the root
/// lock is held meanwhile, and a standing non-ECT queue could otherwise be freed in one call.
const MAX_DROPS_PER_DEQUEUE: u32 = 64;

/// One ecnsharp qdisc: the engine and the packets it accounts for, one FIFO per band.
pub(crate) struct EcnSharp {
    engine: Engine,
    fifos: [SkbFifo; MAX_BANDS],
    /// The band whose head a parent's peek was shown, plus one (0: none). That packet stays in
    /// its FIFO, counted by the engine and the limits, and is what the next dequeue sends.
    promised: u8,
}

// SAFETY: every field is valid all-zero. `SkbFifo` is documented so (null head and tail);
// `promised` is a plain integer; the engine holds only integers, booleans, arrays of them and
// `#[repr(u8)]` enums whose first variant has discriminant 0 (their fields valid at zero), which
// `kmod/tests/zeroed.rs` checks by building an engine from zeroed memory and running it. A
// zeroed engine has nothing queued and a configuration that `init` replaces before any use.
unsafe impl Zeroable for EcnSharp {}

/// The device under `sch` as the shaper needs it: read at init, change, and when a packet
/// longer than the MTU known waits for tokens (an MTU raised under a running qdisc).
fn device(sch: &Qdisc<'_>) -> Device {
    Device {
        mtu: sch.mtu(),
        tx_queue_len: sch.tx_queue_len(),
    }
}

impl EcnSharp {
    /// The configuration that `opt` makes of `base`, validated; on error the extack names the
    /// attribute at fault (for a duplicate, the second copy) and `base` is untouched.
    fn parse(base: &Config, opt: NlAttr<'_>, extack: &mut ExtAck<'_>) -> Result<Config> {
        if !opt.is_nested() {
            extack.set(
                Some(&opt),
                c"ecnsharp: TCA_OPTIONS must be a nest (NLA_F_NESTED)",
            );
            return Err(EINVAL);
        }
        let mut cfg = *base;
        if let Err(err) = uapi::decode_options_located(opt.payload(), &mut cfg) {
            let bad = err.offset.and_then(|offset| opt.nested_at(offset));
            extack.set(bad.as_ref().or(Some(&opt)), err.error.reason);
            return Err(EINVAL);
        }
        Ok(cfg)
    }

    /// The promised band, if a parent's peek was shown its head.
    fn promised_band(&self) -> Option<Band> {
        usize::from(self.promised)
            .checked_sub(1)
            .and_then(Band::new)
    }

    /// Drops the head packet of `band` (change: band removed or limit shrunk).
    fn drop_head(&mut self, sch: &mut Qdisc<'_>, band: Band) -> bool {
        if self.promised_band() == Some(band) {
            self.promised = 0;
        }
        let fifo = &mut self.fifos[band.index()];
        let Some(skb) = fifo.pop() else {
            return false;
        };
        self.engine
            .drop_queued(band, skb.pkt_len(), fifo.head_len());
        sch.drop_queued(skb);
        true
    }

    /// Queues one packet (a whole one, or one segment of a GSO packet) into `band` if a filter
    /// chose it, else where the classifier says: its length if queued, or what dropping it
    /// returned.
    fn enqueue_one(
        &mut self,
        mut skb: Skb,
        band: Option<Band>,
        to_free: &mut ToFree<'_>,
    ) -> core::result::Result<u32, Enqueued> {
        let len = skb.pkt_len();
        let info = PacketInfo {
            len,
            priority: skb.priority(),
            dsfield: skb.dsfield(),
        };
        let verdict = match band {
            Some(band) => self.engine.enqueue_into(&info, band),
            None => self.engine.enqueue(&info),
        };
        match verdict {
            EnqueueVerdict::Queue { band, mark, note } => {
                // A packet set_ce marked is CE; one it did not is as it came.
                let ecn = if !mark.is_empty() && skb.set_ce() {
                    Ecn::Ce
                } else {
                    info.ecn()
                };
                skb.set_cb(SkbCb {
                    enqueue_time: net_sched::now_ns(),
                    note: note.bits(),
                    ecn: ecn.bits(),
                });
                self.fifos[band.index()].push(skb);
                Ok(len)
            }
            EnqueueVerdict::Drop { .. } => Err(to_free.drop(skb)),
        }
    }

    /// The band to serve next and its head's length, once the shaper lets that head go at
    /// `now`; `None` if nothing may leave now (the watchdog is then armed).
    fn next_band(&mut self, sch: &mut Qdisc<'_>, now: u64) -> Option<(Band, u32)> {
        // Each turn either returns or empties a band the engine wrongly thought backlogged.
        loop {
            let band = self.engine.select()?;
            let Some(head_len) = self.fifos[band.index()].head_len() else {
                // The engine thinks the band is backlogged but it is empty: resynchronise.
                self.engine.flush_band(band);
                continue;
            };
            if head_len > self.engine.device().mtu {
                // The MTU may have been raised since init or the last change (GSO packets queued
                // whole also pass here, at one call each): the default burst follows it.
                self.engine.refresh_device(device(sch), now);
            }
            if let Some(at) = self.engine.shaper_delay(now, head_len) {
                sch.overlimit();
                sch.watchdog_schedule(at);
                return None;
            }
            return Some((band, head_len));
        }
    }
}

impl EcnSharp {
    /// The band whose head a parent's peek is shown, now promised: the scheduler's choice once
    /// the shaper lets it go. A promised packet is always sent, so the `non_ect drop` policy is
    /// applied here, when the packet is chosen: a non-ECT head that a marking rule fires on at
    /// this moment is dropped (as dequeue would drop it) and the next one considered. So the
    /// policy holds under a parent that peeks (tbf, drr, ets, hfsc, qfq) as it does at the root.
    fn choose_for_peek(&mut self, sch: &mut Qdisc<'_>) -> Option<Band> {
        let now = net_sched::now_ns();
        let mut drops = 0;
        loop {
            let (band, head_len) = self.next_band(sch, now)?;
            let fifo = &mut self.fifos[band.index()];
            let cb = fifo.head_cb()?;
            let head = Head {
                len: head_len,
                enqueued_at: cb.enqueue_time,
                ecn: Ecn::from_dsfield(cb.ecn),
                note: PacketNote::from_bits(cb.note),
                segs: 1,
            };
            if !self.engine.nonect_drop_due(now, band, &head) {
                // `Band::index` is below MAX_BANDS (16), so this cannot overflow a u8.
                self.promised = band.index() as u8 + 1;
                return Some(band);
            }
            let skb = fifo.pop()?;
            self.engine.drop_due_head(now, band, &head, fifo.head_len());
            sch.drop_queued(skb);
            drops += 1;
            if drops >= MAX_DROPS_PER_DEQUEUE {
                // Let the stack run; the watchdog brings the parent back at once.
                sch.watchdog_schedule(now);
                return None;
            }
        }
    }
}

impl QdiscOps for EcnSharp {
    const ID: &'static core::ffi::CStr = c"ecnsharp";
    const OPTIONS_MAX: usize = uapi::OPTIONS_MAX_SIZE;
    const XSTATS_MAX: usize = uapi::XSTATS_MAX_SIZE;
    const XSTATS_MIN: usize = uapi::XSTATS_HEADER_SIZE;
    const CLASSFUL: bool = true;
    const CLASS_XSTATS_MAX: usize = uapi::CLASS_XSTATS_SIZE;

    fn init(
        &mut self,
        sch: &mut Qdisc<'_>,
        opt: Option<NlAttr<'_>>,
        extack: &mut ExtAck<'_>,
    ) -> Result {
        let cfg = match opt {
            Some(opt) => Self::parse(&Config::DEFAULT, opt, extack)?,
            None => Config::DEFAULT,
        };
        // In place: the engine is too large to build on the stack and copy.
        self.engine
            .init_seeded(&cfg, net_sched::random_u32(), device(sch));
        sch.set_classes(u32::from(cfg.bands));
        Ok(())
    }

    fn change(&mut self, sch: &mut Qdisc<'_>, opt: NlAttr<'_>, extack: &mut ExtAck<'_>) -> Result {
        let cfg = Self::parse(self.engine.config(), opt, extack)?;
        let now = net_sched::now_ns();
        // Bands that go away lose their packets (as sch_prio's do), before the engine forgets them.
        let old_bands = usize::from(self.engine.config().bands);
        for index in usize::from(cfg.bands)..old_bands.min(MAX_BANDS) {
            if let Some(band) = Band::new(index) {
                while self.drop_head(sch, band) {}
            }
        }
        self.engine.configure(&cfg, now, device(sch));
        sch.set_classes(u32::from(cfg.bands));
        // A new scheduler or band count may pick another band: a parent peeks afresh.
        self.promised = 0;
        // A smaller limit drops from the head of the band the engine picks.
        while let Some(band) = self.engine.over_limit_victim() {
            if !self.drop_head(sch, band) {
                break;
            }
        }
        // A watchdog set for the old rate or an old debt would hold the queue that long: let the
        // data path decide again now under the new configuration.
        if self.engine.qlen() != 0 {
            sch.watchdog_schedule(now);
        }
        Ok(())
    }

    fn enqueue(&mut self, sch: &mut Qdisc<'_>, skb: Skb, to_free: &mut ToFree<'_>) -> Enqueued {
        // tc filters (or skb->priority naming a class) first, as sch_prio; then our classifier.
        let band = match sch.classify(&skb) {
            FilterVerdict::None => None,
            FilterVerdict::Class(minor) => usize::try_from(minor)
                .ok()
                .and_then(|m| Band::new(m.wrapping_sub(1))),
            FilterVerdict::Drop => return to_free.filter_drop(skb, false),
            FilterVerdict::Stolen => return to_free.filter_drop(skb, true),
        };
        if self.engine.config().split_gso && skb.is_gso() {
            let orig_len = skb.pkt_len();
            return match skb.gso_segment() {
                Ok(segments) => {
                    let (mut packets, mut bytes) = (0u32, 0u32);
                    for seg in segments {
                        // A segment over the limit is dropped and counted like any packet.
                        if let Ok(len) = self.enqueue_one(seg, band, to_free) {
                            packets = packets.saturating_add(1);
                            bytes = bytes.saturating_add(len);
                        }
                    }
                    Enqueued::segments(packets, bytes, orig_len)
                }
                // Could not segment (no memory, or a packet the stack cannot segment): queued
                // whole, as with `split_gso off`; the
                // device segments it after the qdisc. Nothing is lost here, nothing uncounted.
                Err(skb) => match self.enqueue_one(skb, band, to_free) {
                    Ok(len) => Enqueued::queued(len),
                    Err(dropped) => dropped,
                },
            };
        }
        match self.enqueue_one(skb, band, to_free) {
            Ok(len) => Enqueued::queued(len),
            Err(dropped) => dropped,
        }
    }

    fn dequeue(&mut self, sch: &mut Qdisc<'_>) -> Option<Skb> {
        // The stack calls dequeue until it returns nothing: that call needs no clock (and
        // forgets a promise, as the loop below would).
        if self.engine.qlen() == 0 {
            self.promised = 0;
            return None;
        }
        let now = net_sched::now_ns();
        let mut drops = 0;
        // Each turn returns, or drops a packet and counts it, so the loop ends.
        loop {
            // A head shown to a parent's peek goes first and is sent whatever the rules say:
            // the parent has charged its own budget for it.
            let promised = self
                .promised_band()
                .and_then(|band| Some((band, self.fifos[band.index()].head_len()?)));
            self.promised = 0;
            let (band, head_len) = match promised {
                Some(next) => next,
                None => self.next_band(sch, now)?,
            };
            let fifo = &mut self.fifos[band.index()];
            let mut skb = fifo.pop()?;
            let cb = skb.cb();
            let head = Head {
                len: head_len,
                enqueued_at: cb.enqueue_time,
                // As enqueue left it: nothing else changes a queued packet's header.
                ecn: Ecn::from_dsfield(cb.ecn),
                note: PacketNote::from_bits(cb.note),
                segs: skb.wire_segs(),
            };
            let next_head_len = fifo.head_len();
            let verdict =
                self.engine
                    .dequeue_head(now, band, &head, next_head_len, promised.is_some());
            match verdict {
                DequeueVerdict::Send { mark } => {
                    if !mark.is_empty() {
                        skb.set_ce();
                    }
                    return Some(skb);
                }
                DequeueVerdict::Drop { .. } => {
                    sch.drop_queued(skb);
                    drops += 1;
                    if drops >= MAX_DROPS_PER_DEQUEUE {
                        // Let the stack run; the watchdog brings us back at once.
                        sch.watchdog_schedule(now);
                        return None;
                    }
                }
            }
        }
    }

    fn peek(&mut self, sch: &mut Qdisc<'_>) -> Option<SkbRef<'_>> {
        let promised = self
            .promised_band()
            .filter(|band| !self.fifos[band.index()].is_empty());
        let band = match promised {
            Some(band) => band,
            None => self.choose_for_peek(sch)?,
        };
        self.fifos[band.index()].head()
    }

    fn reset(&mut self, _sch: &mut Qdisc<'_>) {
        for fifo in self.fifos.iter_mut() {
            while let Some(skb) = fifo.pop() {
                drop(skb);
            }
        }
        self.promised = 0;
        self.engine.reset();
    }

    fn dump(&self, out: &mut [u8]) -> Option<usize> {
        uapi::encode_options(self.engine.config(), out).ok()
    }

    fn dump_stats(&self, out: &mut [u8]) -> Option<usize> {
        self.engine
            .encode_xstats_fitting(net_sched::now_ns(), out)
            .ok()
    }

    fn class_stats(&self, class: u32, out: &mut [u8]) -> Option<(ClassStats, usize)> {
        let index = usize::try_from(class).ok()?.checked_sub(1)?;
        let band = Band::new(index).filter(|_| index < usize::from(self.engine.config().bands))?;
        let b = self.engine.band_stats(band);
        let counters = ClassStats {
            bytes: b.bytes,
            // On the wire, as the qdisc's own counter: a GSO packet queued whole counts its
            // segments, so the classes add up to the qdisc.
            packets: b.segments,
            qlen: b.qlen,
            backlog: u32::try_from(b.backlog).unwrap_or(u32::MAX),
            drops: u32::try_from(b.drops()).unwrap_or(u32::MAX),
        };
        let len = self
            .engine
            .encode_class_xstats(net_sched::now_ns(), band, out)
            .ok()?;
        Some((counters, len))
    }
}
