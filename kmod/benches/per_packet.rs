// SPDX-License-Identifier: GPL-2.0-only
//! Cost per packet: the marker alone, the engine's enqueue + dequeue with 1 band, 8 bands DWRR
//! and 8 bands WFQ, each driven like the kernel glue drives it with `VecDeque` FIFOs standing in
//! for the skb queues, against the same FIFO pushes and pops with no engine.
//!
//! Criterion first; then a self-contained table from plain `Instant` loops, the best of 7 rounds
//! of 4 million packets per case (`cargo +1.95.0 bench -p ecnsharp --bench per_packet`; add
//! `-- nomatch` to skip criterion and print only the table). `PER_PACKET_PROFILE` runs one case
//! alone, for callgrind.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use ecnsharp::config::{Config, MarkingParams, Modes, SchedKind};
use ecnsharp::ecn::Ecn;
use ecnsharp::engine::{DequeueVerdict, Engine, EnqueueVerdict, PacketInfo};
use ecnsharp::instantaneous::ProbLaw;
use ecnsharp::marker::{BandMarker, Departure};
use ecnsharp::prng::Prng;
use ecnsharp::time::Nanos;

// The harness's own arithmetic wraps, so that `-C overflow-checks=on` changes only the engine's
// code: the FIFO reference is the same loop in both builds.

/// Packets in the queue in steady state (all bands together).
const DEPTH: u64 = 64;
/// Packet sizes, cycled so that every band sees every size.
const LENS: [u32; 8] = [1_500, 64, 1_500, 576, 1_500, 1_200, 64, 1_500];
/// Packets per run in the summary table.
const TABLE_PACKETS: u64 = 4_000_000;
/// Runs per case in the summary table, one round of every case after another; the best counts.
const TABLE_RUNS: u32 = 7;

/// Time between packets: 1 us for 2048 packets, then 3 us for 2048, so that with `DEPTH`
/// packets queued the sojourn alternates between 64 us (below every ECN# threshold) and 192 us
/// (above pst_target): persistent marking detects, marks and stops again, as under real load.
#[inline(always)]
fn step(k: u64) -> Nanos {
    if (k >> 11) & 1 == 0 {
        1_000
    } else {
        3_000
    }
}

/// A queued packet as the glue keeps it in the skb and its control block.
#[derive(Clone, Copy)]
struct Pkt {
    len: u32,
    at: Nanos,
    ecn: Ecn,
}

/// The glue's fast path around the engine.
struct Glue {
    engine: Engine,
    fifos: Vec<VecDeque<Pkt>>,
    /// log2 of the number of bands the packets are spread over (1 or 8), so that spreading
    /// packets costs no division.
    bands_log2: u32,
    /// Nanoseconds from a packet's enqueue to its dequeue when the queue is empty between
    /// packets (0 with a standing queue, whose packets wait `DEPTH` steps).
    lag: Nanos,
    now: Nanos,
    k: u64,
}

impl Glue {
    /// `bands` bands under `kind`, ECN# marking, the packets spread over every band and a
    /// standing queue of `DEPTH` packets.
    fn new(kind: SchedKind, bands: u8) -> Self {
        let mut cfg = Config::DEFAULT;
        cfg.bands = bands;
        cfg.sched.kind = kind;
        cfg.marking.modes = Modes::ECN_SHARP;
        cfg.classify.priomap = core::array::from_fn(|i| i as u8);
        let mut g = Glue {
            engine: Engine::new(&cfg),
            fifos: (0..16).map(|_| VecDeque::with_capacity(128)).collect(),
            bands_log2: bands.trailing_zeros(),
            lag: 0,
            now: 1_000_000,
            k: 0,
        };
        for _ in 0..DEPTH {
            g.enqueue();
        }
        g
    }

    /// As `make bench` drives the module (tests/uml/cpu-cost.sh): `bands` bands under DWRR,
    /// ECN# with the defaults, every packet of priority 0 (the priomap's band 1, clamped) and
    /// ECT(0), the queue empty between packets, each dequeued 300 ns after its enqueue. With
    /// `mark_all`, `ins_target 0 pst_target 0` as there: the instantaneous rule marks every
    /// packet; without, no rule fires.
    fn one_deep(bands: u8, mark_all: bool) -> Self {
        let mut cfg = Config::DEFAULT;
        cfg.bands = bands;
        if mark_all {
            cfg.marking.ins_target = 0;
            cfg.marking.pst_target = 0;
        }
        Glue {
            engine: Engine::new(&cfg),
            fifos: (0..16).map(|_| VecDeque::with_capacity(128)).collect(),
            bands_log2: 0,
            lag: 300,
            now: 1_000_000,
            k: 0,
        }
    }

    #[inline(always)]
    fn enqueue(&mut self) {
        let k = self.k;
        self.k = k.wrapping_add(1);
        self.now = self.now.wrapping_add(step(k));
        // Opaque, as the skb fields the kernel glue reads are: with the engine inlined, the
        // compiler must not fold the constant DS field into the classification and ECN checks.
        let p = black_box(PacketInfo {
            len: LENS[(k.wrapping_shr(self.bands_log2) & 7) as usize],
            priority: (k & (1u64.wrapping_shl(self.bands_log2).wrapping_sub(1))) as u32,
            dsfield: Some(0b10),
        });
        if let EnqueueVerdict::Queue { band, mark, .. } = self.engine.enqueue(&p) {
            let ecn = if mark.is_empty() { Ecn::Ect0 } else { Ecn::Ce };
            self.fifos[band.index()].push_back(Pkt {
                len: p.len,
                at: self.now,
                ecn,
            });
        }
    }

    #[inline(always)]
    fn dequeue(&mut self) {
        let now = self.now.wrapping_add(self.lag);
        while let Some(band) = self.engine.select() {
            let fifo = &mut self.fifos[band.index()];
            let head_len = fifo.front().map_or(0, |p| p.len);
            if self.engine.shaper_delay(now, head_len).is_some() {
                return;
            }
            let Some(pkt) = fifo.pop_front() else { return };
            let next = fifo.front().map(|p| p.len);
            match self
                .engine
                .dequeue(now, band, pkt.len, pkt.at, pkt.ecn, next)
            {
                DequeueVerdict::Send { mark } => {
                    black_box(mark);
                    return;
                }
                DequeueVerdict::Drop { .. } => {}
            }
        }
    }

    #[inline(always)]
    fn packet(&mut self) {
        self.enqueue();
        self.dequeue();
    }
}

/// The same FIFO traffic with no engine: push to the packet's band, pop round robin.
struct Fifos {
    fifos: Vec<VecDeque<Pkt>>,
    bands_log2: u32,
    now: Nanos,
    k: u64,
    next_out: u64,
}

impl Fifos {
    /// `bands` FIFOs holding `depth` packets between packets.
    fn new(bands: u8, depth: u64) -> Self {
        let mut f = Fifos {
            fifos: (0..16).map(|_| VecDeque::with_capacity(128)).collect(),
            bands_log2: bands.trailing_zeros(),
            now: 1_000_000,
            k: 0,
            next_out: 0,
        };
        for _ in 0..depth {
            f.push();
        }
        f
    }

    #[inline(always)]
    fn push(&mut self) {
        let k = self.k;
        self.k = k.wrapping_add(1);
        self.now = self.now.wrapping_add(step(k));
        let band = (k & (1u64.wrapping_shl(self.bands_log2).wrapping_sub(1))) as usize;
        self.fifos[band].push_back(Pkt {
            len: LENS[(k.wrapping_shr(self.bands_log2) & 7) as usize],
            at: self.now,
            ecn: Ecn::Ect0,
        });
    }

    #[inline(always)]
    fn packet(&mut self) {
        self.push();
        let band = (self.next_out & (1u64.wrapping_shl(self.bands_log2).wrapping_sub(1))) as usize;
        self.next_out = self.next_out.wrapping_add(1);
        if let Some(p) = self.fifos[band].pop_front() {
            black_box((p.len, p.at, p.ecn));
        }
    }
}

/// The marker alone: ECN# (instantaneous + persistent) on the sojourns the queue above sees.
struct MarkOnly {
    marker: BandMarker,
    marking: MarkingParams,
    prob: ProbLaw,
    rng: Prng,
    now: Nanos,
    k: u64,
}

impl MarkOnly {
    fn new() -> Self {
        let marking = Config::DEFAULT.marking;
        MarkOnly {
            marker: BandMarker::new(),
            prob: ProbLaw::new(&marking),
            marking,
            rng: Prng::new(1),
            now: 1_000_000,
            k: 0,
        }
    }

    #[inline(always)]
    fn packet(&mut self) {
        let s = step(self.k);
        self.k = self.k.wrapping_add(1);
        self.now = self.now.wrapping_add(s);
        let departure = Departure {
            now: self.now,
            sojourn: s.wrapping_mul(DEPTH),
            qlen: DEPTH as u32,
            backlog: DEPTH * 1_000,
            pkt_len: 1_000,
        };
        let causes = self
            .marker
            .on_dequeue(&self.marking, &self.prob, &mut self.rng, &departure);
        black_box(causes);
    }
}

/// One benchmark case: a fresh state that runs one packet per call. Boxed, so that every state
/// lives on the heap, whose layout is the same in every run; on the stack its offset within a
/// page would change from process to process, and with it 4K aliasing against the FIFO buffers
/// (the FIFO reference took 4 or 10 ns depending on the process).
enum Case {
    Mark(Box<MarkOnly>),
    Engine(Box<Glue>),
    Reference(Box<Fifos>),
}

impl Case {
    #[inline(always)]
    fn packet(&mut self) {
        match self {
            Case::Mark(m) => m.packet(),
            Case::Engine(g) => g.packet(),
            Case::Reference(f) => f.packet(),
        }
    }
}

/// Builds a fresh case.
type MakeCase = fn() -> Case;

/// The cases: name, how to build one, and for an engine case the reference it is compared with.
fn cases() -> Vec<(&'static str, MakeCase, &'static str)> {
    vec![
        (
            REF_1,
            || Case::Reference(Box::new(Fifos::new(1, DEPTH))),
            "",
        ),
        (
            REF_8,
            || Case::Reference(Box::new(Fifos::new(8, DEPTH))),
            "",
        ),
        (
            REF_EMPTY,
            || Case::Reference(Box::new(Fifos::new(1, 0))),
            "",
        ),
        (
            "marking alone (ECN#)",
            || Case::Mark(Box::new(MarkOnly::new())),
            "",
        ),
        (
            "engine: 1 band DWRR",
            || Case::Engine(Box::new(Glue::new(SchedKind::Dwrr, 1))),
            REF_1,
        ),
        (
            "engine: 8 bands DWRR",
            || Case::Engine(Box::new(Glue::new(SchedKind::Dwrr, 8))),
            REF_8,
        ),
        (
            "engine: 1 band SP",
            || Case::Engine(Box::new(Glue::new(SchedKind::Sp, 1))),
            REF_1,
        ),
        (
            "engine: 8 bands WFQ",
            || Case::Engine(Box::new(Glue::new(SchedKind::Wfq, 8))),
            REF_8,
        ),
        (
            "1 deep: 1 band, all marked",
            || Case::Engine(Box::new(Glue::one_deep(1, true))),
            REF_EMPTY,
        ),
        (
            "1 deep: 1 band, none marked",
            || Case::Engine(Box::new(Glue::one_deep(1, false))),
            REF_EMPTY,
        ),
        (
            "1 deep: 8 bands DWRR, all marked",
            || Case::Engine(Box::new(Glue::one_deep(8, true))),
            REF_EMPTY,
        ),
        (
            "1 deep: 8 bands DWRR, none marked",
            || Case::Engine(Box::new(Glue::one_deep(8, false))),
            REF_EMPTY,
        ),
    ]
}

/// The FIFO references: a standing queue of `DEPTH` packets in one FIFO or spread over eight,
/// and one FIFO empty between packets (as the `1 deep` cases and the kernel bench run).
const REF_1: &str = "reference: 1 FIFO push+pop";
const REF_8: &str = "reference: 8 FIFOs push+pop";
const REF_EMPTY: &str = "reference: 1 FIFO, 1 deep";

/// Nanoseconds per packet over `TABLE_PACKETS` packets of a fresh case, after a warm-up, with
/// the loop monomorphised per case so that the dispatch is outside the timed loop.
fn time_per_packet(make: MakeCase) -> f64 {
    fn run<T>(mut state: Box<T>, f: impl Fn(&mut T)) -> f64 {
        for _ in 0..TABLE_PACKETS / 10 {
            f(&mut state);
        }
        let start = Instant::now();
        for _ in 0..TABLE_PACKETS {
            f(&mut state);
        }
        let elapsed = start.elapsed();
        black_box(&mut state);
        elapsed.as_nanos() as f64 / TABLE_PACKETS as f64
    }
    match make() {
        Case::Mark(m) => run(m, MarkOnly::packet),
        Case::Engine(g) => run(g, Glue::packet),
        Case::Reference(f) => run(f, Fifos::packet),
    }
}

fn summary_table() {
    // Rounds of every case rather than every run of one case in a row: the machine is shared
    // (another vCPU's load moves the FIFO reference alone from 4 to 10 ns), so each case gets
    // its best from whichever rounds were quiet.
    let mut results: Vec<(&str, f64, &str)> = cases()
        .into_iter()
        .map(|(name, _, reference)| (name, f64::INFINITY, reference))
        .collect();
    for _ in 0..TABLE_RUNS {
        for ((_, make, _), (_, best, _)) in cases().into_iter().zip(results.iter_mut()) {
            *best = best.min(time_per_packet(make));
        }
    }
    let best_of = |case: &str| {
        results
            .iter()
            .find(|(name, ..)| *name == case)
            .map_or(f64::NAN, |r| r.1)
    };
    println!();
    println!(
        "ns per packet, best of {TABLE_RUNS} runs of {TABLE_PACKETS} packets, overflow checks {}",
        if overflow_checks_on() { "on" } else { "off" }
    );
    println!(
        "{:<34} {:>8} {:>14} {:>12}",
        "case", "ns/pkt", "- reference", "x reference"
    );
    for (name, ns, reference) in &results {
        if reference.is_empty() {
            println!("{name:<34} {ns:>8.2}");
            continue;
        }
        // Compared with the FIFOs it drives, in the same state (standing queue or empty).
        let base = best_of(reference);
        println!(
            "{name:<34} {ns:>8.2} {:>14.2} {:>12.2}",
            ns - base,
            ns / base
        );
    }
    println!("(target: marking + 8-band DWRR at most 20 ns per packet over the FIFOs)");
}

/// Whether this build panics on integer overflow (as the kernel build does).
fn overflow_checks_on() -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let panicked =
        std::panic::catch_unwind(|| black_box(black_box(u8::MAX) + black_box(1))).is_err();
    std::panic::set_hook(hook);
    panicked
}

/// `PER_PACKET_PROFILE="engine: 8 bands DWRR"` (a case name, or the first case containing it) runs only
/// that case for `PER_PACKET_PACKETS` packets (default 1 million) and exits: a short,
/// deterministic run for `valgrind --tool=callgrind`.
fn profile(name: &str) {
    let packets: u64 = std::env::var("PER_PACKET_PACKETS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let all = cases();
    let exact = all.iter().find(|(n, ..)| *n == name);
    let Some((full, make, _)) = exact.or_else(|| all.iter().find(|(n, ..)| n.contains(name)))
    else {
        eprintln!("no case matches {name:?}");
        std::process::exit(2);
    };
    fn run<T>(mut state: Box<T>, packets: u64, f: impl Fn(&mut T)) -> Duration {
        let start = Instant::now();
        for _ in 0..packets {
            f(&mut state);
        }
        black_box(&mut state);
        start.elapsed()
    }
    let elapsed = match make() {
        Case::Mark(m) => run(m, packets, MarkOnly::packet),
        Case::Engine(g) => run(g, packets, Glue::packet),
        Case::Reference(f) => run(f, packets, Fifos::packet),
    };
    let ns = elapsed.as_nanos() as f64 / packets.max(1) as f64;
    println!("{full}: {packets} packets, {ns:.2} ns/packet");
}

fn main() {
    if let Ok(name) = std::env::var("PER_PACKET_PROFILE") {
        profile(&name);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    {
        let mut group = c.benchmark_group("per_packet");
        group.throughput(Throughput::Elements(1));
        for (name, make, _) in cases() {
            let mut case = make();
            group.bench_function(name, |b| b.iter(|| case.packet()));
        }
        group.finish();
    }
    c.final_summary();
    // `cargo test --benches` runs this binary without `--bench`: no table then.
    if std::env::args().any(|a| a == "--bench") {
        summary_table();
    }
}
