// SPDX-License-Identifier: GPL-2.0-only
//! The kernel glue in miniature, and a deterministic discrete-event simulation around it.
//!
//! `VecDeque` FIFOs stand in for the per-band skb queues, a link drains them when it is free and
//! the shaper lets the head go, and packet sources offer traffic at fixed rates from a seeded
//! generator. After every event the harness checks the engine's books against its own.

use std::collections::VecDeque;
use std::vec::Vec;

use ecnsharp::band::{Band, MAX_BANDS};
use ecnsharp::config::Config;
use ecnsharp::ecn::{CauseSet, Ecn};
use ecnsharp::engine::{
    DequeueVerdict, DropReason, Engine, EnqueueVerdict, Head, PacketInfo, PacketNote,
};
use ecnsharp::time::Nanos;

/// DS field bytes for each codepoint (DSCP 0).
pub const NOT_ECT: Option<u8> = Some(0b00);
/// ECT(1).
pub const ECT1: Option<u8> = Some(0b01);
/// ECT(0), what Linux DCTCP sends.
pub const ECT0: Option<u8> = Some(0b10);
/// CE.
pub const CE: Option<u8> = Some(0b11);

/// SplitMix64: small, seedable, good enough to jitter sizes and gaps.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
}

/// A packet source: constant bit rate from `start` to `stop`, sizes uniform in
/// `len_min..=len_max`, every packet with the same priority and DS field.
#[derive(Clone, Debug)]
pub struct Source {
    pub rate_bps: u64,
    pub len_min: u32,
    pub len_max: u32,
    pub priority: u32,
    pub dsfield: Option<u8>,
    pub start: Nanos,
    pub stop: Nanos,
    /// Optional on/off pattern: on for `on_ns`, then off for `off_ns`, from `start`.
    pub on_ns: Nanos,
    pub off_ns: Nanos,
    next_at: Nanos,
    /// Sub-nanosecond remainder of the gaps, in units of 1/rate_bps of 8e9 ns per byte.
    carry: u128,
}

impl Source {
    /// A source of `rate_bps` with fixed-size packets, always on.
    pub fn cbr(rate_bps: u64, len: u32, priority: u32, dsfield: Option<u8>) -> Self {
        Source {
            rate_bps,
            len_min: len,
            len_max: len,
            priority,
            dsfield,
            start: 0,
            stop: Nanos::MAX,
            on_ns: 0,
            off_ns: 0,
            next_at: 0,
            carry: 0,
        }
    }

    pub fn sizes(mut self, len_min: u32, len_max: u32) -> Self {
        self.len_min = len_min;
        self.len_max = len_max;
        self
    }

    pub fn between(mut self, start: Nanos, stop: Nanos) -> Self {
        self.start = start;
        self.stop = stop;
        self.next_at = start;
        self
    }

    pub fn on_off(mut self, on_ns: Nanos, off_ns: Nanos) -> Self {
        self.on_ns = on_ns;
        self.off_ns = off_ns;
        self
    }

    /// The next arrival time at or after `next_at` that falls in an on period, or `None`.
    fn due(&self) -> Option<Nanos> {
        let mut t = self.next_at.max(self.start);
        if self.on_ns != 0 {
            let period = self.on_ns + self.off_ns;
            let phase = (t - self.start) % period;
            if phase >= self.on_ns {
                t += period - phase;
            }
        }
        (t < self.stop).then_some(t)
    }

    /// Emit the packet due at `t` and schedule the next one after its serialization at the rate.
    fn emit(&mut self, t: Nanos, rng: &mut Rng) -> PacketInfo {
        let len = rng.range(u64::from(self.len_min), u64::from(self.len_max)) as u32;
        let total = u128::from(len) * 8_000_000_000 + self.carry;
        let rate = u128::from(self.rate_bps.max(1));
        self.carry = total % rate;
        self.next_at = t + (total / rate) as u64;
        PacketInfo {
            len,
            priority: self.priority,
            dsfield: self.dsfield,
        }
    }
}

/// A queued packet as the glue keeps it (the skb and its control block).
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub seq: u64,
    pub len: u32,
    pub ecn: Ecn,
    pub enqueued_at: Nanos,
    /// The band's packets and bytes before this packet joined (what DCTCP-RED compares).
    pub band_len_before: (u32, u64),
    /// What the enqueue verdict said to mark.
    pub enqueue_mark: CauseSet,
    /// What the enqueue verdict said to keep with the packet.
    pub note: PacketNote,
}

/// A packet that left, and what the engine said about it.
#[derive(Clone, Copy, Debug)]
pub struct Departed {
    pub at: Nanos,
    pub band: Band,
    pub pkt: Queued,
    pub sojourn: Nanos,
    /// Packets and bytes left in the band after it.
    pub band_len_after: (u32, u64),
    /// `Some(mark)` if sent, `None` if dropped at dequeue (non-ECT policy).
    pub sent_mark: Option<CauseSet>,
    /// Packets in every band's FIFO right after it left.
    pub fifo_lens: [u32; MAX_BANDS],
}

/// The harness's own books, per band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Books {
    pub enqueued: u64,
    pub sent: u64,
    pub sent_bytes: u64,
    pub drops_limit: u64,
    pub drops_nonect: u64,
    pub drops_config: u64,
    pub marks: u64,
    pub ce_admitted: u64,
}

pub struct Sim {
    pub engine: Engine,
    pub fifos: Vec<VecDeque<Queued>>,
    /// Bytes in each FIFO, kept as packets come and go (summing the FIFOs at every check would
    /// make long overloaded runs quadratic).
    fifo_bytes: [u64; MAX_BANDS],
    pub now: Nanos,
    /// Link speed; `None`: infinitely fast, only the shaper limits.
    pub line_rate_bps: Option<u64>,
    /// How late the qdisc watchdog fires after the time the shaper asked for.
    pub watchdog_slack_ns: Nanos,
    pub sources: Vec<Source>,
    pub departed: Vec<Departed>,
    pub books: [Books; MAX_BANDS],
    /// Enqueue drops, as (time, band, reason).
    pub enqueue_drops: Vec<(Nanos, Band, DropReason)>,
    link_free: Nanos,
    wake: Nanos,
    seq: u64,
    last_seq: [Option<u64>; MAX_BANDS],
    rng: Rng,
    pub steps: u64,
}

pub fn band(i: usize) -> Band {
    Band::new(i).unwrap()
}

impl Sim {
    pub fn new(cfg: &Config, seed: u64) -> Self {
        Sim {
            engine: Engine::new(cfg),
            fifos: (0..MAX_BANDS).map(|_| VecDeque::new()).collect(),
            fifo_bytes: [0; MAX_BANDS],
            now: 0,
            line_rate_bps: None,
            watchdog_slack_ns: 0,
            sources: Vec::new(),
            departed: Vec::new(),
            books: [Books::default(); MAX_BANDS],
            enqueue_drops: Vec::new(),
            link_free: 0,
            wake: 0,
            seq: 0,
            last_seq: [None; MAX_BANDS],
            rng: Rng::new(seed),
            steps: 0,
        }
    }

    pub fn add(&mut self, source: Source) -> usize {
        self.sources.push(source);
        self.sources.len() - 1
    }

    /// Offer one packet now, as the kernel's enqueue would.
    pub fn offer(&mut self, p: PacketInfo) -> EnqueueVerdict {
        let b = self.engine.classify(&p);
        let before = (self.fifos[b.index()].len() as u32, self.fifo_bytes(b));
        let v = self.engine.enqueue(&p);
        let books = &mut self.books[b.index()];
        books.enqueued += 1;
        match v {
            EnqueueVerdict::Queue {
                band: vb,
                mark,
                note,
            } => {
                assert_eq!(vb, b, "classify and enqueue disagree");
                let mut ecn = p.ecn();
                if !mark.is_empty() {
                    assert!(matches!(ecn, Ecn::Ect0 | Ecn::Ect1), "marked {ecn:?}");
                    books.marks += 1;
                    ecn = Ecn::Ce;
                } else if ecn == Ecn::Ce {
                    books.ce_admitted += 1;
                }
                self.seq += 1;
                self.fifo_bytes[b.index()] += u64::from(p.len);
                self.fifos[b.index()].push_back(Queued {
                    seq: self.seq,
                    len: p.len,
                    ecn,
                    enqueued_at: self.now,
                    band_len_before: before,
                    enqueue_mark: mark,
                    note,
                });
            }
            EnqueueVerdict::Drop { band: vb, reason } => {
                assert_eq!(vb, b);
                match reason {
                    DropReason::Limit => books.drops_limit += 1,
                    DropReason::NonEct => books.drops_nonect += 1,
                    DropReason::Config => panic!("config drop at enqueue"),
                }
                self.enqueue_drops.push((self.now, b, reason));
            }
        }
        self.check();
        v
    }

    fn fifo_bytes(&self, b: Band) -> u64 {
        self.fifo_bytes[b.index()]
    }

    fn clear(&mut self, b: Band) {
        self.fifos[b.index()].clear();
        self.fifo_bytes[b.index()] = 0;
    }

    fn pop(&mut self, b: Band) -> (Queued, Option<u32>) {
        let q = self.fifos[b.index()]
            .pop_front()
            .expect("engine named an empty band");
        self.fifo_bytes[b.index()] -= u64::from(q.len);
        let last = &mut self.last_seq[b.index()];
        assert!(last.map_or(true, |l| q.seq > l), "band {b:?} reordered");
        *last = Some(q.seq);
        (q, self.fifos[b.index()].front().map(|n| n.len))
    }

    /// One dequeue attempt now: `true` if a packet left (sent or dropped), `false` if nothing is
    /// queued or the shaper said "not yet" (then `wake` is set).
    pub fn dequeue_one(&mut self) -> bool {
        let Some(b) = self.engine.select() else {
            assert_eq!(self.engine.qlen(), 0);
            assert!(
                self.fifos.iter().all(VecDeque::is_empty),
                "queued but no band selected"
            );
            return false;
        };
        assert_eq!(self.engine.select(), Some(b), "select is not idempotent");
        let head_len = self.fifos[b.index()]
            .front()
            .expect("selected band is empty")
            .len;
        if let Some(t) = self.engine.shaper_delay(self.now, head_len) {
            assert!(t > self.now);
            self.wake = t + self.watchdog_slack_ns;
            return false;
        }
        let (q, next) = self.pop(b);
        let head = Head {
            len: q.len,
            enqueued_at: q.enqueued_at,
            ecn: q.ecn,
            note: q.note,
            segs: 1,
        };
        let v = self.engine.dequeue_head(self.now, b, &head, next, false);
        let after = (self.fifos[b.index()].len() as u32, self.fifo_bytes(b));
        let sojourn = self.now.saturating_sub(q.enqueued_at);
        let books = &mut self.books[b.index()];
        let sent_mark = match v {
            DequeueVerdict::Send { mark } => {
                if !mark.is_empty() {
                    assert!(matches!(q.ecn, Ecn::Ect0 | Ecn::Ect1), "marked {:?}", q.ecn);
                    books.marks += 1;
                }
                books.sent += 1;
                books.sent_bytes += u64::from(q.len);
                if let Some(rate) = self.line_rate_bps {
                    let tx = (u128::from(q.len) * 8_000_000_000 / u128::from(rate)) as u64;
                    self.link_free = self.now + tx;
                }
                Some(mark)
            }
            DequeueVerdict::Drop { reason } => {
                assert_eq!(reason, DropReason::NonEct);
                assert_eq!(q.ecn, Ecn::NotEct);
                books.drops_nonect += 1;
                None
            }
        };
        self.departed.push(Departed {
            at: self.now,
            band: b,
            pkt: q,
            sojourn,
            band_len_after: after,
            sent_mark,
            fifo_lens: core::array::from_fn(|i| self.fifos[i].len() as u32),
        });
        self.check();
        true
    }

    /// Run the event loop until `end` (arrivals first on a tie with the link).
    pub fn run_until(&mut self, end: Nanos) {
        loop {
            let arrival = self.sources.iter().filter_map(Source::due).min();
            let link =
                (self.engine.qlen() > 0).then(|| self.link_free.max(self.wake).max(self.now));
            let next = match (arrival, link) {
                (Some(a), Some(l)) => a.min(l),
                (Some(a), None) => a,
                (None, Some(l)) => l,
                (None, None) => break,
            };
            if next > end {
                break;
            }
            self.now = next;
            self.steps += 1;
            if arrival == Some(next) {
                for i in 0..self.sources.len() {
                    if self.sources[i].due() == Some(next) {
                        let p = self.sources[i].emit(next, &mut self.rng);
                        self.offer(p);
                    }
                }
                continue;
            }
            // The link is free: send one packet (a drop at dequeue lets the next one go at once).
            while self.dequeue_one() {
                let sent = self.departed.last().is_some_and(|d| d.sent_mark.is_some());
                if sent && self.line_rate_bps.is_some() {
                    break;
                }
            }
        }
        self.now = self.now.max(end);
    }

    /// Stop every source and run until the queue is empty.
    pub fn drain(&mut self) {
        for s in &mut self.sources {
            s.stop = 0;
        }
        self.run_until(Nanos::MAX - 1);
        assert_eq!(self.engine.qlen(), 0);
        assert_eq!(self.engine.backlog(), 0);
        assert!(self.fifos.iter().all(VecDeque::is_empty));
    }

    /// `change()` as the glue does it: flush removed bands, configure, then head-drop while over
    /// the limits.
    pub fn change(&mut self, cfg: &Config) {
        let old = usize::from(self.engine.config().bands).min(MAX_BANDS);
        for i in usize::from(cfg.bands).max(1)..old {
            let n = self.fifos[i].len() as u32;
            let bytes = self.fifo_bytes(band(i));
            self.clear(band(i));
            self.books[i].drops_config += u64::from(n);
            assert_eq!(self.engine.flush_band(band(i)), (n, bytes));
        }
        self.configure_and_trim(cfg);
    }

    /// `change()` by a careless glue that does not flush removed bands first.
    pub fn configure_and_trim(&mut self, cfg: &Config) {
        self.engine
            .configure(cfg, self.now, ecnsharp::token_bucket::Device::DEFAULT);
        while let Some(b) = self.engine.over_limit_victim() {
            let (q, next) = self.pop(b);
            self.books[b.index()].drops_config += 1;
            self.engine.drop_queued(b, q.len, next);
        }
        assert!(self.engine.qlen() <= cfg.limit_packets);
        if cfg.limit_bytes != 0 {
            assert!(self.engine.backlog() <= u64::from(cfg.limit_bytes));
        }
        self.check();
    }

    /// `reset()`: the glue purges every FIFO, then tells the engine.
    pub fn reset(&mut self) {
        for i in 0..MAX_BANDS {
            self.books[i].drops_config += self.fifos[i].len() as u64;
            self.clear(band(i));
        }
        self.engine.reset();
        self.wake = 0;
        self.check();
    }

    /// The engine's books against the FIFOs and the harness's own, per band and in total.
    pub fn check(&self) {
        let mut qlen = 0u64;
        let mut backlog = 0u64;
        let mut total = Books::default();
        for i in 0..MAX_BANDS {
            let b = band(i);
            let s = self.engine.band_stats(b);
            let k = &self.books[i];
            let bytes = self.fifo_bytes(b);
            assert_eq!(s.qlen as usize, self.fifos[i].len(), "band {i} qlen");
            assert_eq!(s.backlog, bytes, "band {i} backlog");
            assert!(s.balanced(), "band {i} unbalanced: {s:?}");
            assert_eq!(s.enqueued, k.enqueued, "band {i} enqueued");
            assert_eq!(
                (s.packets, s.bytes),
                (k.sent, k.sent_bytes),
                "band {i} sent"
            );
            assert_eq!(s.drops_limit, k.drops_limit, "band {i} drops_limit");
            assert_eq!(s.drops_nonect, k.drops_nonect, "band {i} drops_nonect");
            assert_eq!(s.drops_config, k.drops_config, "band {i} drops_config");
            assert_eq!(s.marks, k.marks, "band {i} marks");
            assert_eq!(s.ce_already, k.ce_admitted, "band {i} ce_already");
            assert_eq!(
                s.enqueued,
                s.packets + s.drops() + u64::from(s.qlen),
                "band {i}: enqueued = sent + dropped + queued"
            );
            qlen += s.qlen as u64;
            backlog += bytes;
            total.enqueued += k.enqueued;
            total.sent += k.sent;
            total.drops_limit += k.drops_limit;
            total.drops_nonect += k.drops_nonect;
            total.drops_config += k.drops_config;
            total.marks += k.marks;
        }
        let q = self.engine.stats();
        assert!(q.balanced(), "qdisc unbalanced: {q:?}");
        assert_eq!(u64::from(self.engine.qlen()), qlen);
        assert_eq!(self.engine.backlog(), backlog);
        assert_eq!((q.enqueued, q.packets), (total.enqueued, total.sent));
        assert_eq!(
            (q.drops_limit, q.drops_nonect, q.drops_config),
            (total.drops_limit, total.drops_nonect, total.drops_config)
        );
        assert_eq!(q.marks, total.marks);
        assert_eq!(q.enqueued, q.packets + q.drops() + u64::from(q.qlen));
    }

    /// Departures that were sent, in order.
    pub fn sent(&self) -> impl Iterator<Item = &Departed> {
        self.departed.iter().filter(|d| d.sent_mark.is_some())
    }
}
