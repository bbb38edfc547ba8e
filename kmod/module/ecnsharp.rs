// SPDX-License-Identifier: GPL-2.0

//! The `ecnsharp` qdisc: the kernel side of the ECN# engine, in safe Rust.
//!
//! Principles: the engine (`kmod/src/engine`, the same code the host tests run) decides band,
//! limits, marks, drops, scheduling and shaping; this file only moves packets between the stack
//! and one FIFO per band, reads the facts the engine needs (length, priority, DS field, enqueue
//! time) and carries out its verdicts (set CE, drop, arm the watchdog). Nothing here allocates
//! per packet or sleeps: enqueue and dequeue run under the root lock.

use crate::band::{Band, MAX_BANDS};
use crate::config::Config;
use crate::ecn::Ecn;
use crate::engine::{DequeueVerdict, EnqueueVerdict, Engine, PacketInfo};
use crate::net_sched::{
    self, Enqueued, ExtAck, NlAttr, Qdisc, QdiscOps, Skb, SkbFifo, ToFree,
};
use crate::uapi;
use kernel::init::Zeroable;
use kernel::prelude::*;

/// One ecnsharp qdisc: the engine and the packets it accounts for, one FIFO per band.
pub(crate) struct EcnSharp {
    engine: Engine,
    fifos: [SkbFifo; MAX_BANDS],
}

// SAFETY: every field is valid all-zero: `SkbFifo` is documented so (null head and tail), and the
// engine is plain integers, booleans, arrays of them, and fieldless enums whose zero discriminant
// is a variant (the core's `all_zero_engine_is_valid` test builds one from zeroed memory). A
// zeroed engine has nothing queued and a configuration that is never used before `init`
// replaces it.
unsafe impl Zeroable for EcnSharp {}

/// `-EMSGSIZE`: the dump does not fit the message (the `kernel` crate has no constant for it).
fn emsgsize() -> Error {
    Error::from_errno(-(crate::bindings::ECNSHARP_SHIM_EMSGSIZE as i32))
}

impl EcnSharp {
    /// The configuration that `opt` makes of `base`, validated; on error the extack names the
    /// attribute and `base` is untouched.
    fn parse(base: &Config, opt: NlAttr<'_>, extack: &mut ExtAck<'_>) -> Result<Config> {
        if !opt.is_nested() {
            extack.set(Some(&opt), c"ecnsharp: TCA_OPTIONS must be a nest (NLA_F_NESTED)");
            return Err(EINVAL);
        }
        let payload = opt.payload();
        let mut cfg = *base;
        if let Err(err) = uapi::decode_options(payload, &mut cfg) {
            // Point the extack at the first attribute of the type at fault.
            let bad = uapi::NlaIter::new(payload)
                .filter_map(|nla| nla.ok())
                .find(|nla| nla.kind == err.attr)
                .and_then(|nla| opt.nested_at(nla.offset));
            extack.set(bad.as_ref().or(Some(&opt)), err.reason);
            return Err(EINVAL);
        }
        Ok(cfg)
    }

    /// Drops the head packet of `band` (change: band removed or limit shrunk).
    fn drop_head(&mut self, sch: &mut Qdisc<'_>, band: Band) -> bool {
        let fifo = &mut self.fifos[band.index()];
        let Some(skb) = fifo.pop() else {
            return false;
        };
        self.engine.drop_queued(band, skb.pkt_len(), fifo.head_len());
        sch.drop_queued(skb);
        true
    }
}

impl QdiscOps for EcnSharp {
    const ID: &'static core::ffi::CStr = c"ecnsharp";
    const OPTIONS_MAX: usize = uapi::OPTIONS_MAX_SIZE;
    const XSTATS_MAX: usize = uapi::XSTATS_MAX_SIZE;

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
        self.engine = Engine::new_seeded(&cfg, net_sched::random_u32(), sch.mtu());
        Ok(())
    }

    fn change(&mut self, sch: &mut Qdisc<'_>, opt: NlAttr<'_>, extack: &mut ExtAck<'_>) -> Result {
        let cfg = Self::parse(self.engine.config(), opt, extack)?;
        // Bands that go away lose their packets (as sch_prio's do), before the engine forgets them.
        let old_bands = usize::from(self.engine.config().bands);
        for index in usize::from(cfg.bands)..old_bands.min(MAX_BANDS) {
            if let Some(band) = Band::new(index) {
                while self.drop_head(sch, band) {}
            }
        }
        self.engine.configure(&cfg);
        // A smaller limit drops from the head of the band the engine picks.
        while let Some(band) = self.engine.over_limit_victim() {
            if !self.drop_head(sch, band) {
                break;
            }
        }
        Ok(())
    }

    fn enqueue(&mut self, _sch: &mut Qdisc<'_>, mut skb: Skb, to_free: &mut ToFree<'_>) -> Enqueued {
        let len = skb.pkt_len();
        let info = PacketInfo {
            len,
            priority: skb.priority(),
            dsfield: skb.dsfield(),
        };
        match self.engine.enqueue(&info) {
            EnqueueVerdict::Queue { band, mark } => {
                if !mark.is_empty() {
                    skb.set_ce();
                }
                skb.set_enqueue_time(net_sched::now_ns());
                self.fifos[band.index()].push(skb);
                Enqueued::queued(len)
            }
            EnqueueVerdict::Drop { .. } => to_free.drop(skb),
        }
    }

    fn dequeue(&mut self, sch: &mut Qdisc<'_>) -> Option<Skb> {
        let now = net_sched::now_ns();
        // Each turn either returns or removes a packet, so the loop ends.
        loop {
            let band = self.engine.select()?;
            let fifo = &mut self.fifos[band.index()];
            let Some(head_len) = fifo.head_len() else {
                // The engine thinks the band is backlogged but it is empty: resynchronise.
                self.engine.flush_band(band);
                continue;
            };
            if let Some(at) = self.engine.shaper_delay(now, head_len) {
                sch.overlimit();
                sch.watchdog_schedule(at);
                return None;
            }
            let mut skb = fifo.pop()?;
            let next_head_len = fifo.head_len();
            let ecn = skb.dsfield().map_or(Ecn::NotEct, Ecn::from_dsfield);
            let verdict = self.engine.dequeue(
                now,
                band,
                head_len,
                skb.enqueue_time(),
                ecn,
                next_head_len,
            );
            match verdict {
                DequeueVerdict::Send { mark } => {
                    if !mark.is_empty() {
                        skb.set_ce();
                    }
                    return Some(skb);
                }
                DequeueVerdict::Drop { .. } => sch.drop_queued(skb),
            }
        }
    }

    fn reset(&mut self, _sch: &mut Qdisc<'_>) {
        for fifo in self.fifos.iter_mut() {
            while let Some(skb) = fifo.pop() {
                drop(skb);
            }
        }
        self.engine.reset();
    }

    fn dump(&self, out: &mut [u8]) -> Result<usize> {
        uapi::encode_options(self.engine.config(), out).map_err(|_| emsgsize())
    }

    fn dump_stats(&self, out: &mut [u8]) -> Result<usize> {
        self.engine
            .encode_xstats(net_sched::now_ns(), out)
            .map_err(|_| emsgsize())
    }
}
