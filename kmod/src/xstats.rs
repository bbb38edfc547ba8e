// SPDX-License-Identifier: GPL-2.0-only
//! The engine's statistics as the uapi xstats: what `tc -s qdisc show` prints for ecnsharp.
//!
//! Counters are copied as they are; the persistent state of Algorithm 1 is reported per band in
//! the paper's names, with times on the kernel's monotonic clock (the header carries `now_ns`).

use crate::band::Band;
use crate::engine::Engine;
use crate::time::Nanos;
use crate::uapi::{
    encode_xstats_with, EncodeError, XstatsBand, XstatsHeader, XstatsHist, XSTATS_BAND_SIZE,
    XSTATS_HEADER_SIZE, XSTATS_HIST_SIZE, XSTATS_KIND_CLASS,
};

impl Engine {
    /// The qdisc-wide part of the xstats at time `now`.
    pub fn xstats_header(&self, now: Nanos) -> XstatsHeader {
        let stats = self.stats();
        XstatsHeader {
            bands: u32::from(self.config().bands),
            burst_bytes: self.shaper().burst_bytes(),
            now_ns: now,
            rate_bps: self.shaper().rate_bps(),
            throttled: stats.throttles,
            drops: stats.drops(),
            marks: stats.marks,
            late_wakeups: stats.late_wakeups,
            late_max_ns: stats.late_max_ns,
            ..XstatsHeader::default()
        }
    }

    /// The record of one band.
    pub fn xstats_band(&self, band: Band) -> XstatsBand {
        let s = self.band_stats(band);
        let p = self.persistent(band);
        XstatsBand {
            packets: s.packets,
            bytes: s.bytes,
            qlen: s.qlen,
            backlog: u32::try_from(s.backlog).unwrap_or(u32::MAX),
            drops_limit: s.drops_limit,
            drops_nonect: s.drops_nonect,
            marks: s.marks,
            marks_by_cause: s.marks_by_cause,
            ce_already: s.ce_already,
            nonect_passed: s.nonect_passed,
            sojourn_max_ns: s.sojourn_max_ns,
            sojourn_sum_ns: s.sojourn_sum_ns,
            marking_state: u32::from(p.marking_state),
            marking_count: p.marking_count,
            first_above_time_ns: if p.above_target {
                p.first_above_time
            } else {
                0
            },
            marking_next_ns: p.marking_next,
            enqueued: s.enqueued,
            drops_config: s.drops_config,
        }
    }

    /// Writes the xstats of class `band` (`tc -s class show`): the header, marked as a class's,
    /// that band's record and its sojourn histogram. Needs [`crate::uapi::CLASS_XSTATS_SIZE`]
    /// bytes.
    pub fn encode_class_xstats(
        &self,
        now: Nanos,
        band: Band,
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        let header = XstatsHeader {
            kind: XSTATS_KIND_CLASS,
            first_band: u32::try_from(band.index()).unwrap_or(0),
            ..self.xstats_header(now)
        };
        let len = encode_xstats_with(&header, 1, |_| self.xstats_band(band), out)?;
        let hist = XstatsHist::new(&self.band_stats(band).sojourn_hist).to_bytes();
        let end = len
            .checked_add(XSTATS_HIST_SIZE)
            .ok_or(EncodeError::NoSpace)?;
        out.get_mut(len..end)
            .ok_or(EncodeError::NoSpace)?
            .copy_from_slice(&hist);
        Ok(end)
    }

    /// Writes the xstats of the bands in use into `out`; returns the length.
    pub fn encode_xstats(&self, now: Nanos, out: &mut [u8]) -> Result<usize, EncodeError> {
        self.encode_xstats_bands(now, usize::from(self.config().bands), out)
    }

    /// [`Engine::encode_xstats`] with as many band records as `out` holds, the first bands
    /// first (the header's `bands` says how many follow): for a message that must leave room
    /// for another (the kernel's `qdisc_notify` puts the old and the new qdisc of a replace in
    /// one buffer). `NoSpace` only if not even the header fits.
    pub fn encode_xstats_fitting(&self, now: Nanos, out: &mut [u8]) -> Result<usize, EncodeError> {
        let room = out.len().saturating_sub(XSTATS_HEADER_SIZE) / XSTATS_BAND_SIZE;
        let bands = usize::from(self.config().bands).min(room);
        self.encode_xstats_bands(now, bands, out)
    }

    /// The header and the records of the first `bands` bands.
    fn encode_xstats_bands(
        &self,
        now: Nanos,
        bands: usize,
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        let header = self.xstats_header(now);
        encode_xstats_with(
            &header,
            bands,
            |i| Band::new(i).map_or_else(XstatsBand::default, |b| self.xstats_band(b)),
            out,
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fitting_xstats_take_what_room_there_is() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 16;
        let e = Engine::new(&cfg);
        let mut buf = [0u8; XSTATS_MAX_SIZE];
        assert_eq!(
            e.encode_xstats_fitting(0, &mut buf),
            Ok(XSTATS_MAX_SIZE),
            "all 16 when they fit"
        );
        let room = XSTATS_HEADER_SIZE + 5 * XSTATS_BAND_SIZE + XSTATS_BAND_SIZE - 1;
        let n = e.encode_xstats_fitting(0, &mut buf[..room]).unwrap();
        assert_eq!(n, XSTATS_HEADER_SIZE + 5 * XSTATS_BAND_SIZE);
        let x = decode_xstats(&buf[..n]).unwrap();
        assert_eq!(x.header.bands, 5);
        assert!(e
            .encode_xstats_fitting(0, &mut buf[..XSTATS_HEADER_SIZE - 1])
            .is_err());
        assert_eq!(
            e.encode_xstats_fitting(0, &mut buf[..XSTATS_HEADER_SIZE]),
            Ok(XSTATS_HEADER_SIZE)
        );
    }

    use crate::config::Config;
    use crate::engine::{DequeueVerdict, Engine, EnqueueVerdict, PacketInfo};
    use crate::uapi::{decode_xstats, XSTATS_BAND_SIZE, XSTATS_HEADER_SIZE, XSTATS_MAX_SIZE};

    #[test]
    fn xstats_carry_the_engine_counters() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        cfg.limit_packets = 2;
        let mut e = Engine::new(&cfg);
        let ect0 = PacketInfo {
            len: 1000,
            priority: 6, // priomap: band 0
            dsfield: Some(0x02),
        };
        let mut queued = 0;
        for _ in 0..3 {
            if let EnqueueVerdict::Queue { .. } = e.enqueue(&ect0) {
                queued += 1;
            }
        }
        assert_eq!(queued, 2);
        let band = e.select().unwrap();
        // A sojourn far above ins_target: an instantaneous mark.
        let v = e.dequeue(1_000_000, band, 1000, 0, crate::ecn::Ecn::Ect0, Some(1000));
        assert!(matches!(v, DequeueVerdict::Send { mark } if !mark.is_empty()));

        let mut buf = [0u8; XSTATS_MAX_SIZE];
        let n = e.encode_xstats(5_000_000, &mut buf).unwrap();
        assert_eq!(n, XSTATS_HEADER_SIZE + 3 * XSTATS_BAND_SIZE);
        let x = decode_xstats(&buf[..n]).unwrap();
        assert_eq!(x.header.bands, 3);
        assert_eq!(x.header.now_ns, 5_000_000);
        assert_eq!((x.header.drops, x.header.marks), (1, 1));
        let b0 = x.bands[0];
        assert_eq!((b0.enqueued, b0.packets, b0.bytes), (3, 1, 1000));
        assert_eq!((b0.qlen, b0.backlog, b0.drops_limit), (1, 1000, 1));
        assert_eq!(
            b0.enqueued,
            b0.packets + b0.drops_limit + u64::from(b0.qlen)
        );
        assert_eq!((b0.marks, b0.marks_by_cause[0]), (1, 1));
        assert_eq!(b0.sojourn_max_ns, 1_000_000);
        assert_eq!(x.bands[1].enqueued, 0);
    }

    /// A change that removes a band takes its record out of the xstats, but not what it sent
    /// out of the qdisc's totals (nor the kernel's generic packet count, which counts the same
    /// packets): after bands 3 -> 1 the records in use no longer add up to the qdisc, though
    /// each still balances. A guest check that sums band records against the generic counters
    /// after changes under traffic (qdisc-concurrency's churn: 1 to 6 bands, the last one
    /// 1 about one run in six) must not sum the packets. Growing back shows the record again.
    #[test]
    fn a_removed_band_leaves_the_records_not_the_totals() {
        use crate::token_bucket::Device;
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        let mut e = Engine::new(&cfg);
        // Priority 0: band 1 of 3 (the default priomap), band 0 of 1.
        let p = PacketInfo {
            len: 1000,
            priority: 0,
            dsfield: Some(0x02),
        };
        let send = |e: &mut Engine, n: u64| {
            for i in 0..n {
                let EnqueueVerdict::Queue { band, .. } = e.enqueue(&p) else {
                    panic!("dropped at enqueue");
                };
                let v = e.dequeue(i, band, 1000, i, crate::ecn::Ecn::Ect0, None);
                assert!(matches!(v, DequeueVerdict::Send { .. }));
            }
        };
        let records = |e: &Engine| {
            let mut buf = [0u8; XSTATS_MAX_SIZE];
            let n = e.encode_xstats(0, &mut buf).unwrap();
            let x = decode_xstats(&buf[..n]).unwrap();
            for b in x.bands() {
                let out = b.packets + b.drops_limit + b.drops_nonect + b.drops_config;
                assert_eq!(b.enqueued, out + u64::from(b.qlen), "{b:?}");
            }
            x.bands().iter().map(|b| b.packets).sum::<u64>()
        };
        send(&mut e, 5);
        assert_eq!((records(&e), e.stats().packets), (5, 5));
        cfg.bands = 1;
        e.configure(&cfg, 10, Device::DEFAULT);
        send(&mut e, 2);
        assert_eq!(
            (records(&e), e.stats().packets),
            (2, 7),
            "band 1's five packets left the records, not the totals"
        );
        assert!(e.stats().balanced());
        cfg.bands = 3;
        e.configure(&cfg, 20, Device::DEFAULT);
        assert_eq!((records(&e), e.stats().packets), (7, 7));
    }

    #[test]
    fn class_xstats_carry_one_band() {
        use crate::band::Band;
        use crate::report::XstatsText;
        use crate::uapi::{CLASS_XSTATS_SIZE, XSTATS_KIND_CLASS};
        use std::format;
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        let mut e = Engine::new(&cfg);
        let p = PacketInfo {
            len: 700,
            priority: 0, // priomap: band 1
            dsfield: Some(0x02),
        };
        assert!(matches!(e.enqueue(&p), EnqueueVerdict::Queue { .. }));
        let mut buf = [0u8; CLASS_XSTATS_SIZE];
        let band = Band::new(1).unwrap();
        let n = e.encode_class_xstats(7, band, &mut buf).unwrap();
        assert_eq!(n, CLASS_XSTATS_SIZE);
        let x = decode_xstats(&buf[..n]).unwrap();
        assert_eq!(
            (x.header.kind, x.header.first_band, x.header.bands),
            (XSTATS_KIND_CLASS, 1, 1)
        );
        assert_eq!(
            (x.bands[0].enqueued, x.bands[0].qlen, x.bands[0].backlog),
            (1, 1, 700)
        );
        let text = format!("{}", XstatsText(&x));
        assert!(
            text.starts_with("  enqueued 1 packets 0 bytes 0 qlen 1p backlog 700b\n   drops"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 4);
        assert!(text.ends_with("\n   sojourn p50 - p99 - hist"), "{text}");
        assert_eq!(x.hist.map(|h| h.hist().total()), Some(0));

        // Sent after 10 us: counted in the 8192-12288 ns bucket, the percentiles capped by the
        // maximum.
        let v = e.dequeue(10_007, band, 700, 7, crate::ecn::Ecn::Ect0, None);
        assert!(matches!(v, DequeueVerdict::Send { .. }));
        let n = e.encode_class_xstats(20_000, band, &mut buf).unwrap();
        let x = decode_xstats(&buf[..n]).unwrap();
        let hist = x.hist.unwrap().hist();
        assert_eq!(
            (
                hist.total(),
                hist.counts[crate::histogram::bucket_of(10_000)]
            ),
            (1, 1)
        );
        let text = format!("{}", XstatsText(&x));
        assert!(
            text.ends_with("\n   sojourn p50 10us p99 10us hist 8.1us+ 1"),
            "{text}"
        );
        // A writer without the histogram (before it existed): none decoded.
        let old = decode_xstats(&buf[..n - crate::uapi::XSTATS_HIST_SIZE]).unwrap();
        assert_eq!(old.hist, None);
        assert_eq!(format!("{}", XstatsText(&old)).lines().count(), 3);
        // A histogram of other buckets than ours: not shown rather than misread.
        let mut other = buf;
        other[n - crate::uapi::XSTATS_HIST_SIZE] ^= 1;
        assert_eq!(decode_xstats(&other[..n]).unwrap().hist, None);
    }
}
