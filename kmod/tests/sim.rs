// SPDX-License-Identifier: GPL-2.0-only
//! End-to-end simulation of the engine with the glue's FIFOs, a link, a shaper and packet
//! sources (see `sim/harness.rs`): the books balance after every event, and marking,
//! scheduling, shaping, the non-ECT policy and changes under traffic behave as the papers and
//! `docs/engine.md` say.

#[path = "sim/harness.rs"]
mod harness;

use std::vec::Vec;

use ecnsharp::band::MAX_BANDS;
use ecnsharp::config::{
    ClassifyMode, Config, ControlLaw, Modes, NonEctPolicy, QueueUnit, SchedKind,
};
use ecnsharp::ecn::{CauseSet, Ecn, MarkCause};
use ecnsharp::engine::{DropReason, EnqueueVerdict, PacketInfo};
use ecnsharp::persistent::PersistentState;
use ecnsharp::time::{ms, us, Nanos};
use harness::{band, Departed, Sim, Source, CE, ECT0, ECT1, NOT_ECT};
use proptest::prelude::*;

const GBPS: u64 = 1_000_000_000;
/// One 1500-byte packet at 1 Gbit/s.
const PKT_1G: Nanos = us(12);
/// `skb->priority` values that `sch_prio`'s default priomap sends to bands 0, 1 and 2.
const PRIO_BAND: [u32; 3] = [6, 0, 1];

fn config(modes: Modes, bands: u8, rate_bps: u64) -> Config {
    let mut cfg = Config::DEFAULT;
    cfg.marking.modes = modes;
    cfg.bands = bands;
    cfg.limit_packets = 100_000;
    cfg.shaper.rate_bps = rate_bps;
    cfg
}

fn is_marked(d: &Departed) -> bool {
    d.sent_mark.is_some_and(|m| !m.is_empty())
}

/// Bytes sent per band by departures at or after `from`.
fn bytes_by_band(sim: &Sim, from: Nanos) -> [u64; MAX_BANDS] {
    let mut bytes = [0u64; MAX_BANDS];
    for d in sim.sent().filter(|d| d.at >= from) {
        bytes[d.band.index()] += u64::from(d.pkt.len);
    }
    bytes
}

/// Sent bit rate over departures in `(from, to]`, against the time between.
fn rate_between(sim: &Sim, from: Nanos, to: Nanos) -> f64 {
    let sent: Vec<&Departed> = sim.sent().filter(|d| d.at >= from && d.at <= to).collect();
    let (first, last) = (sent.first().unwrap().at, sent.last().unwrap().at);
    let bytes: u64 = sent.iter().skip(1).map(|d| u64::from(d.pkt.len)).sum();
    bytes as f64 * 8e9 / (last - first) as f64
}

/// Random traffic into three bands with every ECN codepoint, overload and small limits; the
/// books balance after every event (the harness checks) and after draining.
#[test]
fn counters_balance_after_every_step_and_after_draining() {
    let mut cfg = config(Modes::ALL, 3, GBPS);
    cfg.limit_packets = 200;
    cfg.limit_bytes = 150_000;
    cfg.marking.k = 20;
    let mut sim = Sim::new(&cfg, 1);
    for (i, ds) in [ECT0, NOT_ECT, CE, ECT1, None].into_iter().enumerate() {
        sim.add(
            Source::cbr(400_000_000, 0, PRIO_BAND[i % 3], ds)
                .sizes(64, 1_500)
                .on_off(ms(3), ms(1)),
        );
    }
    sim.run_until(ms(20));
    assert!(sim.engine.stats().nonect_passed > 0);
    cfg.non_ect = NonEctPolicy::Drop;
    sim.change(&cfg);
    sim.run_until(ms(42));
    let q = *sim.engine.stats();
    assert!(
        q.drops_limit > 0 && q.drops_nonect > 0 && q.marks > 0 && q.ce_already > 0,
        "{q:?}"
    );
    assert!(q.qlen > 0);
    sim.drain();
    let q = *sim.engine.stats();
    assert_eq!((q.qlen, q.backlog), (0, 0));
    assert_eq!(q.enqueued, q.packets + q.drops());
    assert_eq!(q.enqueued_bytes, q.bytes + q.drops_bytes);
    for i in 0..3 {
        let s = sim.engine.band_stats(band(i));
        assert_eq!(s.enqueued, s.packets + s.drops(), "band {i}");
        assert!(s.packets > 0, "band {i}");
    }
    assert!(sim.steps > 10_000, "{}", sim.steps);
}

/// A burst larger than the limit with no departure: exactly the excess is dropped.
#[test]
fn limit_drops_counted_exactly() {
    let mut cfg = config(Modes::ECN_SHARP, 1, 1_000);
    cfg.limit_packets = 100;
    let mut sim = Sim::new(&cfg, 2);
    let p = PacketInfo {
        len: 1_500,
        priority: 0,
        dsfield: ECT0,
    };
    let verdicts: Vec<EnqueueVerdict> = (0..250).map(|_| sim.offer(p)).collect();
    assert!(verdicts[..100]
        .iter()
        .all(|v| matches!(v, EnqueueVerdict::Queue { .. })));
    assert!(verdicts[100..].iter().all(|v| matches!(
        v,
        EnqueueVerdict::Drop {
            reason: DropReason::Limit,
            ..
        }
    )));
    assert_eq!(sim.engine.stats().drops_limit, 150);
    assert_eq!(sim.engine.stats().drops_bytes, 150 * 1_500);

    // Bytes: 6 x 1500 = 9000 fit in 10000, a 7th does not, a 1000-byte packet still does.
    cfg.limit_bytes = 10_000;
    let mut sim = Sim::new(&cfg, 2);
    let admitted = (0..10)
        .filter(|_| matches!(sim.offer(p), EnqueueVerdict::Queue { .. }))
        .count();
    assert_eq!(admitted, 6);
    let small = PacketInfo { len: 1_000, ..p };
    assert!(matches!(sim.offer(small), EnqueueVerdict::Queue { .. }));
    assert!(matches!(sim.offer(small), EnqueueVerdict::Drop { .. }));
    assert_eq!(sim.engine.stats().drops_limit, 5);
    assert_eq!(sim.engine.backlog(), 10_000);
}

/// Constant overload (1.25 Gbit/s into 1 Gbit/s): sojourn grows by 2.4 us a packet, and
/// instantaneous marks start with the first packet whose sojourn is above ins_target, then
/// every later packet is marked. Both with the shaper (waiting for tokens is sojourn) and with
/// a slow link as the bottleneck.
#[test]
fn instantaneous_marks_start_within_one_packet_of_ins_target() {
    for shaped in [true, false] {
        let cfg = config(Modes::INSTANTANEOUS, 1, if shaped { GBPS } else { 0 });
        let mut sim = Sim::new(&cfg, 3);
        if !shaped {
            sim.line_rate_bps = Some(GBPS);
        }
        sim.add(Source::cbr(1_250_000_000, 1_500, 0, ECT0).between(ms(1), ms(4)));
        sim.run_until(ms(4));
        let sent: Vec<&Departed> = sim.sent().collect();
        let target = cfg.marking.ins_target;
        let crossing = sent.iter().position(|d| d.sojourn > target).unwrap();
        let first_mark = sent.iter().position(|d| is_marked(d)).unwrap();
        assert_eq!(first_mark, crossing, "shaped {shaped}");
        assert!(sent[crossing - 1].sojourn > target - us(3));
        for d in &sent {
            assert_eq!(is_marked(d), d.sojourn > target);
        }
        assert!(sent.len() - crossing > 100);
        let s = sim.engine.band_stats(band(0));
        assert_eq!(s.marks, (sent.len() - crossing) as u64);
        assert_eq!(s.marks_for(MarkCause::Instantaneous), s.marks);
    }
}

/// Algorithm 1 of the CoNEXT'19 paper in f64, the reference for the engine's timing.
#[derive(Default)]
struct Algorithm1 {
    first_above_time: Option<f64>,
    marking_state: bool,
    marking_count: u32,
    marking_next: f64,
}

impl Algorithm1 {
    fn should_mark(&mut self, now: f64, sojourn: f64, target: f64, interval: f64) -> bool {
        let detected = if sojourn < target {
            self.first_above_time = None;
            false
        } else {
            match self.first_above_time {
                None => {
                    self.first_above_time = Some(now);
                    false
                }
                Some(t) => now > t + interval,
            }
        };
        if self.marking_state {
            if !detected {
                self.marking_state = false;
            } else if now > self.marking_next {
                self.marking_count += 1;
                self.marking_next += interval / f64::from(self.marking_count).sqrt();
                return true;
            }
        } else if detected {
            self.marking_state = true;
            self.marking_count = 1;
            self.marking_next = now + interval;
            return true;
        }
        false
    }
}

/// A standing queue of about 12 packets (sojourn about 140 us: above pst_target, below
/// ins_target) at 1 Gbit/s: the first persistent mark comes with the first departure more than
/// pst_interval after the sojourn first reached pst_target; then mark k+1 comes with the first
/// departure after the schedule `marking_next`, which advances by pst_interval/sqrt(k). Every
/// decision matches the f64 reference; the engine's own counters agree.
#[test]
fn persistent_marking_timing_follows_algorithm_1() {
    let mut cfg = config(Modes::ECN_SHARP, 1, GBPS);
    cfg.shaper.burst_bytes = 1_500;
    let m = cfg.marking;
    let mut sim = Sim::new(&cfg, 4);
    let t0 = ms(1);
    sim.run_until(t0);
    for _ in 0..12 {
        sim.offer(PacketInfo {
            len: 1_500,
            priority: 0,
            dsfield: ECT0,
        });
    }
    sim.add(Source::cbr(GBPS, 1_500, 0, ECT0).between(t0 + PKT_1G, ms(7)));
    sim.run_until(ms(6));
    let sent: Vec<&Departed> = sim.sent().collect();
    assert!(sent
        .iter()
        .skip(12)
        .all(|d| d.sojourn >= m.pst_target && d.sojourn <= m.ins_target));

    let mut reference = Algorithm1::default();
    let (target, interval) = (m.pst_target as f64, m.pst_interval as f64);
    for d in &sent {
        let expected = reference.should_mark(d.at as f64, d.sojourn as f64, target, interval);
        let marks = d.sent_mark.unwrap();
        assert_eq!(
            marks.contains(MarkCause::Persistent),
            expected,
            "at {}",
            d.at
        );
        assert!(!marks.contains(MarkCause::Instantaneous));
    }
    let marks: Vec<Nanos> = sent.iter().filter(|d| is_marked(d)).map(|d| d.at).collect();
    let s = sim.engine.band_stats(band(0));
    let state = sim.engine.persistent(band(0));
    assert_eq!(s.marks_for(MarkCause::Persistent), marks.len() as u64);
    assert_eq!(state.marking_count, reference.marking_count);
    assert!(state.marking_state);
    // Within the accumulated fixed-point bound of docs/algorithm.md: per gap 1.25e-7 + 0.5 ns.
    let bound = 1.0 + marks.len() as f64 * (interval * 1.25e-7 + 0.5);
    assert!((state.marking_next as f64 - reference.marking_next).abs() <= bound);

    // The schedule itself, from the departure times alone.
    let first_above = sent.iter().find(|d| d.sojourn >= m.pst_target).unwrap().at;
    let detect = sent
        .iter()
        .find(|d| d.at > first_above + m.pst_interval)
        .unwrap()
        .at;
    assert_eq!(marks[0], detect);
    let mut next = detect as f64 + interval;
    for (k, &at) in marks.iter().enumerate().skip(1) {
        // Mark k+1 (index k) is the first departure after `next`: at most one packet later.
        assert!(
            at as f64 > next && at as f64 <= next + PKT_1G as f64,
            "mark {}",
            k + 1
        );
        let gap = at - marks[k - 1];
        let law = interval / (k as f64).sqrt();
        assert!(
            (gap as f64 - law).abs() <= PKT_1G as f64 + 1.0,
            "gap {k}: {gap} vs {law}"
        );
        next += interval / ((k + 1) as f64).sqrt();
    }
    // Gaps shrink from 200 us towards one packet time within the run.
    assert!(marks.len() > 100, "{}", marks.len());
    assert_eq!(marks[1] - marks[0], 204_000); // the first departure after 200 us
}

/// The schedule under the other control laws: linear (journal) and ns-3 `now +`.
#[test]
fn persistent_control_laws_through_the_engine() {
    for law in [ControlLaw::Linear, ControlLaw::Ns3] {
        let mut cfg = config(Modes::PERSISTENT, 1, GBPS);
        cfg.shaper.burst_bytes = 1_500;
        cfg.marking.control_law = law;
        let mut sim = Sim::new(&cfg, 5);
        sim.run_until(ms(1));
        for _ in 0..12 {
            sim.offer(PacketInfo {
                len: 1_500,
                priority: 0,
                dsfield: ECT0,
            });
        }
        sim.add(Source::cbr(GBPS, 1_500, 0, ECT0).between(ms(1) + PKT_1G, ms(4)));
        sim.run_until(ms(4));
        let marks: Vec<Nanos> = sim.sent().filter(|d| is_marked(d)).map(|d| d.at).collect();
        let interval = cfg.marking.pst_interval as f64;
        let mut next = marks[0] as f64 + interval;
        let mut checked = 0;
        for (k, &at) in marks.iter().enumerate().skip(1) {
            assert!(at as f64 > next, "{law:?} mark {}", k + 1);
            let count = (k + 1) as f64;
            let gap = match law {
                ControlLaw::Linear => interval / count,
                _ => interval / count.sqrt(),
            };
            // Once the law's gaps are shorter than a packet, `+=` lags and marks every packet.
            if gap < PKT_1G as f64 && law == ControlLaw::Linear {
                break;
            }
            assert!(at as f64 <= next + PKT_1G as f64, "{law:?} mark {}", k + 1);
            next = match law {
                ControlLaw::Linear => next + gap,
                _ => at as f64 + gap,
            };
            checked += 1;
        }
        assert!(checked > 10, "{law:?}: {checked}");
    }
}

/// On/off overload into two DWRR bands; every packet's marks are predicted from what the harness
/// saw (sojourn, band lengths at enqueue and dequeue, a per-band Algorithm 1 with idle reset)
/// and must match exactly: each mode marks when, and only when, it should.
#[test]
fn each_mode_marks_when_and_only_when_it_should() {
    let presets = [
        ("tcn", Modes::INSTANTANEOUS),
        ("codel-like", Modes::PERSISTENT),
        ("red", Modes::QUEUE_ENQUEUE),
        ("dequeue", Modes::QUEUE_DEQUEUE),
        ("prob", Modes::PROBABILISTIC),
        ("ecnsharp", Modes::ECN_SHARP),
    ];
    // At 100 Mbit/s one packet takes up to 120 us of tokens, more than pst_target: a packet that
    // finds its band empty can still wait long enough to count as above target, which is where
    // idle reset (on, the default, or off) shows.
    let runs = [(1, true), (10, true), (10, false)];
    for ((name, modes), (scale, idle_reset)) in presets
        .into_iter()
        .flat_map(|preset| runs.map(|run| (preset, run)))
    {
        let mut cfg = config(modes, 2, GBPS / scale);
        cfg.marking.k = 30;
        cfg.marking.seed = 11;
        cfg.marking.pmax_ppm = 500_000;
        cfg.marking.idle_reset = idle_reset;
        let m = cfg.marking;
        let mut sim = Sim::new(&cfg, 6);
        // On average 0.7 of the rate: queues build in the bursts and drain between.
        sim.add(
            Source::cbr(1_500_000_000 / scale, 0, PRIO_BAND[0], ECT0)
                .sizes(200, 1_500)
                .on_off(us(600) * scale, us(1_400) * scale),
        );
        sim.add(
            Source::cbr(900_000_000 / scale, 0, PRIO_BAND[1], ECT1)
                .sizes(200, 1_500)
                .on_off(ms(1) * scale, ms(2) * scale)
                .between(us(300) * scale, Nanos::MAX),
        );
        sim.run_until(ms(30) * scale);
        let name = std::format!(
            "{name} at {} Mbit/s, idle reset {idle_reset}",
            1_000 / scale
        );

        // The persistent rule's oracle is the paper's pseudo-code in f64 (Algorithm1 above),
        // not the engine's fixed-point PersistentState.
        let mut oracle = [Algorithm1::default(), Algorithm1::default()];
        assert_eq!(m.control_law, ControlLaw::InvSqrt);
        let (pst_target, pst_interval) = (m.pst_target as f64, m.pst_interval as f64);
        let (mut marked, mut unmarked) = (0u64, 0u64);
        let mut by_cause = [0u64; 5];
        let (mut ramp_marks, mut ramp_expected, mut ramp_var) = (0u64, 0f64, 0f64);
        for d in sim.sent() {
            let b = d.band.index();
            let on = |mode| modes.contains(mode);
            // Enqueue: DCTCP-RED on the band's packets before the arrival.
            let red = on(Modes::QUEUE_ENQUEUE) && d.pkt.band_len_before.0 > m.k;
            assert_eq!(!d.pkt.enqueue_mark.is_empty(), red, "{name}");
            // Dequeue: every enabled rule.
            let mut expected = CauseSet::EMPTY;
            if on(Modes::INSTANTANEOUS) && d.sojourn > m.ins_target {
                expected = expected.with(MarkCause::Instantaneous);
            }
            if on(Modes::PERSISTENT)
                && oracle[b].should_mark(d.at as f64, d.sojourn as f64, pst_target, pst_interval)
            {
                expected = expected.with(MarkCause::Persistent);
            }
            if on(Modes::QUEUE_DEQUEUE) && d.band_len_after.0 + 1 >= m.k {
                expected = expected.with(MarkCause::QueueDequeue);
            }
            if d.band_len_after.0 == 0 && idle_reset {
                // A band that runs empty forgets its state (Linux CoDel does the same).
                oracle[b] = Algorithm1::default();
            }
            let got = d.sent_mark.unwrap();
            if red {
                // Already CE: nothing more to mark.
                assert!(got.is_empty(), "{name}");
            } else if on(Modes::PROBABILISTIC) {
                let p = if d.sojourn < m.tmin {
                    0.0
                } else if d.sojourn > m.tmax {
                    1.0
                } else {
                    m.pmax_ppm as f64 / 1e6 * (d.sojourn - m.tmin) as f64 / (m.tmax - m.tmin) as f64
                };
                if p == 0.0 || p == 1.0 {
                    assert_eq!(got.contains(MarkCause::Probabilistic), p == 1.0, "{name}");
                } else {
                    ramp_marks += u64::from(got.contains(MarkCause::Probabilistic));
                    ramp_expected += p;
                    ramp_var += p * (1.0 - p);
                }
            } else {
                assert_eq!(got, expected, "{name} at {}: sojourn {}", d.at, d.sojourn);
            }
            let all = got.union(d.pkt.enqueue_mark);
            for c in all.iter() {
                by_cause[c.index()] += 1;
            }
            if all.is_empty() {
                unmarked += 1;
            } else {
                marked += 1;
            }
        }
        eprintln!("{name}: {marked} marked, {unmarked} not, by cause {by_cause:?}");
        assert!(
            marked > 100 && unmarked > 100,
            "{name}: {marked} marked, {unmarked} not"
        );
        if modes == Modes::PROBABILISTIC {
            assert!(scale != 1 || ramp_expected > 100.0, "{ramp_expected}");
            let off = (ramp_marks as f64 - ramp_expected).abs();
            assert!(
                off < 5.0 * ramp_var.sqrt(),
                "{ramp_marks} vs {ramp_expected}"
            );
        }
        // The engine's own counters, summed over bands, say the same (queued packets aside:
        // DCTCP-RED marks at enqueue also count packets still queued).
        let mut engine_by_cause = [0u64; 5];
        for i in 0..2 {
            let s = sim.engine.band_stats(band(i));
            for c in MarkCause::ALL {
                engine_by_cause[c.index()] += s.marks_for(c);
            }
        }
        let queued_red: u64 = sim
            .fifos
            .iter()
            .flatten()
            .filter(|q| !q.enqueue_mark.is_empty())
            .count() as u64;
        by_cause[MarkCause::QueueEnqueue.index()] += queued_red;
        assert_eq!(engine_by_cause, by_cause, "{name}");
        // Both bands were marked: the state is per band.
        for i in 0..2 {
            assert!(sim.engine.band_stats(band(i)).marks > 0, "{name} band {i}");
        }
    }
}

fn shares(kind: SchedKind) -> [f64; 3] {
    let mut cfg = config(Modes::ECN_SHARP, 3, GBPS);
    cfg.sched.kind = kind;
    cfg.sched.quanta[..3].copy_from_slice(&[3_000, 1_500, 1_500]);
    cfg.sched.weights[..3].copy_from_slice(&[2, 1, 1]);
    let mut sim = Sim::new(&cfg, 7);
    // Each band offered 20% more than its share, so every band stays backlogged.
    for (i, rate) in [600_000_000, 300_000_000, 300_000_000]
        .into_iter()
        .enumerate()
    {
        sim.add(Source::cbr(rate, 0, PRIO_BAND[i], ECT0).sizes(64, 1_500));
    }
    sim.run_until(ms(200));
    let bytes = bytes_by_band(&sim, ms(10));
    let total: u64 = bytes.iter().sum();
    [0, 1, 2].map(|i| bytes[i] as f64 / total as f64)
}

/// DWRR with quanta 3000/1500/1500 and WFQ with weights 2:1:1 share the shaped link 2:1:1
/// through the engine, within 1% of each share.
#[test]
fn dwrr_and_wfq_shares_within_one_percent() {
    for kind in [SchedKind::Dwrr, SchedKind::Wfq] {
        let got = shares(kind);
        eprintln!("{kind:?} shares {got:?}");
        for (share, want) in got.iter().zip([0.5, 0.25, 0.25]) {
            assert!((share / want - 1.0).abs() < 0.01, "{kind:?}: {got:?}");
        }
    }
}

/// Strict priority: a band sends only while every higher band is empty, and lower bands are
/// served when the higher ones idle.
#[test]
fn strict_priority_is_strict() {
    let mut cfg = config(Modes::ECN_SHARP, 3, GBPS);
    cfg.sched.kind = SchedKind::Sp;
    let mut sim = Sim::new(&cfg, 8);
    sim.add(
        Source::cbr(600_000_000, 0, PRIO_BAND[0], ECT0)
            .sizes(64, 1_500)
            .on_off(ms(1), ms(1)),
    );
    sim.add(
        Source::cbr(700_000_000, 0, PRIO_BAND[1], ECT0)
            .sizes(64, 1_500)
            .on_off(ms(3), ms(2)),
    );
    sim.add(Source::cbr(500_000_000, 0, PRIO_BAND[2], ECT0).sizes(64, 1_500));
    sim.run_until(ms(50));
    let mut served = [0u64; 3];
    for d in sim.sent() {
        let b = d.band.index();
        assert!(
            d.fifo_lens[..b].iter().all(|&n| n == 0),
            "band {b} sent at {} over a higher band",
            d.at
        );
        served[b] += 1;
    }
    assert!(served.iter().all(|&n| n > 1_000), "{served:?}");
}

/// The shaper's long-run rate within 0.1%, from 10 Mbit/s to 40 Gbit/s, packets of 64 to 1500
/// bytes, with an exact watchdog and with one firing 20 us late (the default burst covers it).
#[test]
fn shaper_long_run_rate_within_a_tenth_of_a_percent() {
    for rate in [10_000_000, GBPS, 10 * GBPS, 40 * GBPS] {
        for slack in [0, us(20)] {
            let cfg = config(Modes::ECN_SHARP, 1, rate);
            let mut sim = Sim::new(&cfg, 9);
            sim.watchdog_slack_ns = slack;
            sim.add(Source::cbr(rate / 5 * 6, 0, 0, ECT0).sizes(64, 1_500));
            // About 60,000 packets of 782 bytes on average.
            let duration = 60_000 * 782 * 8 * 1_000_000_000 / rate;
            sim.run_until(duration);
            // Backlogged from time 0 with an empty bucket and a watchdog never later than the
            // bucket lasts: no token is lost, so the bytes sent by the last departure are the
            // rate times its time, less the tokens left (under one packet's worth).
            let last = sim.departed.last().unwrap().at;
            let measured = sim.engine.stats().bytes as f64 * 8e9 / last as f64;
            let error = measured / rate as f64 - 1.0;
            eprintln!("shaper {rate} bit/s, watchdog {slack} ns late: error {error:e}");
            assert!(error.abs() < 1e-3, "{rate} bit/s, slack {slack}: {error:e}");
            assert!(sim.engine.stats().throttles > 0);
        }
    }
}

fn non_ect_run(policy: NonEctPolicy) -> Sim {
    let mut cfg = config(Modes::INSTANTANEOUS, 1, GBPS);
    cfg.non_ect = policy;
    let mut sim = Sim::new(&cfg, 10);
    sim.add(Source::cbr(700_000_000, 1_500, 0, ECT0));
    sim.add(Source::cbr(500_000_000, 1_000, 0, NOT_ECT));
    sim.run_until(ms(20));
    sim
}

/// Non-ECT packets a rule fires on: passed unmarked and counted, or dropped at dequeue, and a
/// drop takes no tokens (the link stays at the shaper's rate).
#[test]
fn non_ect_pass_and_drop() {
    let target = Config::DEFAULT.marking.ins_target;
    let sim = non_ect_run(NonEctPolicy::Pass);
    let over = |d: &&Departed| d.sojourn > target;
    let passed = sim
        .departed
        .iter()
        .filter(over)
        .filter(|d| d.pkt.ecn == Ecn::NotEct)
        .count();
    let marked = sim
        .departed
        .iter()
        .filter(over)
        .filter(|d| d.pkt.ecn == Ecn::Ect0)
        .count();
    assert!(passed > 100 && marked > 100);
    for d in &sim.departed {
        let mark = d.sent_mark.unwrap();
        assert_eq!(
            !mark.is_empty(),
            d.pkt.ecn == Ecn::Ect0 && d.sojourn > target
        );
    }
    let s = sim.engine.stats();
    assert_eq!(
        (s.nonect_passed, s.drops_nonect, s.marks),
        (passed as u64, 0, marked as u64)
    );

    let sim = non_ect_run(NonEctPolicy::Drop);
    let mut dropped = 0u64;
    for d in &sim.departed {
        let should_drop = d.pkt.ecn == Ecn::NotEct && d.sojourn > target;
        assert_eq!(d.sent_mark.is_none(), should_drop);
        dropped += u64::from(should_drop);
    }
    let s = sim.engine.stats();
    assert!(dropped > 100);
    assert_eq!((s.drops_nonect, s.nonect_passed), (dropped, 0));
    // Drops at dequeue cost no tokens: the sent rate is the shaper's.
    let first_drop = sim
        .departed
        .iter()
        .find(|d| d.sent_mark.is_none())
        .unwrap()
        .at;
    let measured = rate_between(&sim, first_drop, ms(20));
    assert!((measured / GBPS as f64 - 1.0).abs() < 2e-3, "{measured}");
}

/// Packets that arrive CE are counted in `ce_already`, never carry our mark, and never count as
/// ours; ECT packets around them are marked as usual.
#[test]
fn ce_arrivals_counted_apart() {
    let mut sim = Sim::new(&config(Modes::INSTANTANEOUS, 1, GBPS), 12);
    sim.add(Source::cbr(700_000_000, 1_500, 0, ECT0));
    sim.add(Source::cbr(500_000_000, 1_500, 0, CE));
    sim.run_until(ms(10));
    let target = Config::DEFAULT.marking.ins_target;
    let mut ours = 0u64;
    for d in sim.sent() {
        let mark = d.sent_mark.unwrap();
        if d.pkt.ecn == Ecn::Ce {
            assert!(mark.is_empty());
        } else {
            assert_eq!(!mark.is_empty(), d.sojourn > target);
            ours += u64::from(!mark.is_empty());
        }
    }
    let ce_admitted = sim.sent().filter(|d| d.pkt.ecn == Ecn::Ce).count() as u64
        + sim.fifos[0].iter().filter(|q| q.ecn == Ecn::Ce).count() as u64;
    let s = sim.engine.band_stats(band(0));
    assert!(ours > 100 && ce_admitted > 100);
    assert_eq!((s.marks, s.ce_already), (ours, ce_admitted));
    assert_eq!(s.marks_for(MarkCause::Instantaneous), ours);
}

/// Changes every 2 ms under traffic (thresholds, limits, quanta, discipline, strict bands,
/// shaper rate): nothing is lost, nothing reordered (the harness checks sequence numbers per
/// band), and a new rate is in force at once.
#[test]
fn configure_under_traffic_loses_and_reorders_nothing() {
    let base = config(Modes::ECN_SHARP, 3, GBPS);
    let mut sim = Sim::new(&base, 13);
    for (i, rate) in [500_000_000, 400_000_000, 300_000_000]
        .into_iter()
        .enumerate()
    {
        sim.add(Source::cbr(rate, 0, PRIO_BAND[i], ECT0).sizes(64, 1_500));
    }
    let mut cfg = base;
    let steps: [&dyn Fn(&mut Config); 9] = [
        &|c| c.marking.ins_target = us(50),
        &|c| c.marking.pst_target = us(20),
        &|c| c.sched.quanta[..3].copy_from_slice(&[6_000, 1_500, 300]),
        &|c| c.limit_packets = 200_000,
        &|c| c.sched.kind = SchedKind::Wfq,
        &|c| c.sched.weights[..3].copy_from_slice(&[1, 5, 2]),
        &|c| c.sched.strict_bands = 1,
        &|c| c.sched.kind = SchedKind::Sp,
        &|c| c.shaper.rate_bps = 800_000_000,
    ];
    let mut t = ms(2);
    for step in steps {
        sim.run_until(t);
        step(&mut cfg);
        sim.change(&cfg);
        t += ms(2);
    }
    sim.run_until(t + ms(2));
    let rate = rate_between(&sim, t - ms(2) + us(100), t + ms(2));
    assert!((rate / 800e6 - 1.0).abs() < 0.01, "{rate}");
    sim.drain();
    let q = *sim.engine.stats();
    assert_eq!(q.drops(), 0);
    assert_eq!(q.packets, q.enqueued);
    for i in 0..3 {
        let s = sim.engine.band_stats(band(i));
        assert_eq!(s.packets, s.enqueued, "band {i}");
        assert!(s.packets > 500, "band {i}");
    }
}

/// Shrinking the limit and the band count under traffic, with the glue flushing removed bands
/// first and without: the books balance, the limits hold, traffic goes on.
#[test]
fn shrinking_limit_and_bands_keeps_counters_balanced() {
    for flush in [true, false] {
        let mut cfg = config(Modes::ECN_SHARP, 4, GBPS);
        cfg.classify.mode = ClassifyMode::Dscp;
        let mut sim = Sim::new(&cfg, 14);
        for b in 0..4u8 {
            sim.add(Source::cbr(400_000_000, 0, 0, Some(b << 2 | 2)).sizes(64, 1_500));
        }
        sim.run_until(ms(5));
        let queued: Vec<usize> = sim.fifos[..4].iter().map(|f| f.len()).collect();
        assert!(queued.iter().all(|&n| n > 50), "{queued:?}");
        cfg.bands = 2;
        cfg.limit_packets = 50;
        cfg.limit_bytes = 40_000;
        if flush {
            sim.change(&cfg);
        } else {
            sim.configure_and_trim(&cfg);
        }
        assert!(sim.fifos[2..].iter().all(|f| f.is_empty()));
        assert!(sim.engine.qlen() <= 50 && sim.engine.backlog() <= 40_000);
        let removed = sim.engine.stats().drops_config;
        assert_eq!(
            removed,
            (queued.iter().sum::<usize>() - sim.engine.qlen() as usize) as u64
        );
        // Traffic for the removed bands now lands in band 1 (clamped); it all still flows.
        sim.run_until(ms(10));
        sim.drain();
        let q = sim.engine.stats();
        assert_eq!(q.enqueued, q.packets + q.drops());
        assert!(q.drops_limit > 0);
        assert_eq!(q.drops_config, removed);
    }
}

/// A reset mid-run: queued packets are counted as control-path drops, counters stay, traffic
/// resumes.
#[test]
fn reset_under_traffic() {
    let mut sim = Sim::new(&config(Modes::ECN_SHARP, 2, GBPS), 15);
    sim.add(Source::cbr(700_000_000, 1_500, PRIO_BAND[0], ECT0));
    sim.add(Source::cbr(500_000_000, 1_500, PRIO_BAND[1], ECT0));
    sim.run_until(ms(5));
    let before = *sim.engine.stats();
    assert!(before.qlen > 0 && before.marks > 0);
    sim.reset();
    let after = *sim.engine.stats();
    assert_eq!((after.qlen, after.backlog), (0, 0));
    assert_eq!(after.drops_config, u64::from(before.qlen));
    assert_eq!(
        (after.enqueued, after.packets, after.marks),
        (before.enqueued, before.packets, before.marks)
    );
    assert_eq!(sim.engine.persistent(band(0)), PersistentState::new());
    sim.run_until(ms(10));
    assert!(sim.engine.stats().packets > before.packets);
    sim.drain();
}

/// Any configuration `Config::validate` accepts (its bounds, written out here).
fn valid_config() -> impl Strategy<Value = Config> {
    let marking = (
        1u32..32,
        0u64..1_000_000,
        0u64..1_000_000,
        1_000u64..2_000_000,
        0usize..3,
        any::<bool>(),
        1u32..200,
        any::<bool>(),
        (0u64..500_000, 0u64..500_000),
        0u32..=1_000_000,
        any::<u32>(),
    );
    let sched = (
        0usize..3,
        0u8..=16,
        prop::array::uniform16(64u32..=1 << 20),
        prop::array::uniform16(1u32..=65_536),
    );
    let rest = (
        1u8..=16,
        1u32..3_000,
        prop_oneof![Just(0u32), 1_514u32..2_000_000],
        any::<bool>(),
        any::<bool>(),
        prop::array::uniform16(0u8..16),
        prop_oneof![Just(0u64), 8_000u64..100_000_000_000],
        prop_oneof![Just(0u32), 1_514u32..1 << 20],
    );
    (marking, sched, rest).prop_map(|(mk, sc, r)| {
        let mut c = Config::DEFAULT;
        let (modes, ins, pst, interval, law, idle, k, bytes, (a, b), pmax, seed) = mk;
        c.marking.modes = Modes(modes);
        c.marking.ins_target = ins;
        c.marking.pst_target = pst;
        c.marking.pst_interval = interval;
        c.marking.control_law = [ControlLaw::InvSqrt, ControlLaw::Linear, ControlLaw::Ns3][law];
        c.marking.idle_reset = idle;
        c.marking.k = if bytes { k * 1_000 } else { k };
        c.marking.k_unit = if bytes {
            QueueUnit::Bytes
        } else {
            QueueUnit::Packets
        };
        c.marking.tmin = a.min(b);
        c.marking.tmax = a.max(b);
        c.marking.pmax_ppm = pmax;
        c.marking.seed = seed;
        let (kind, strict, quanta, weights) = sc;
        let (bands, limit, limit_bytes, dscp, drop, priomap, rate, burst) = r;
        c.bands = bands;
        c.sched.kind = [SchedKind::Sp, SchedKind::Dwrr, SchedKind::Wfq][kind];
        c.sched.strict_bands = strict.min(bands);
        c.sched.quanta = quanta;
        c.sched.weights = weights;
        c.limit_packets = limit;
        c.limit_bytes = limit_bytes;
        c.classify.mode = if dscp {
            ClassifyMode::Dscp
        } else {
            ClassifyMode::Priority
        };
        c.classify.priomap = priomap;
        c.non_ect = if drop {
            NonEctPolicy::Drop
        } else {
            NonEctPolicy::Pass
        };
        c.shaper.rate_bps = rate;
        c.shaper.burst_bytes = burst;
        c
    })
}

#[derive(Clone, Debug)]
enum Op {
    Offer(u32, u32, Option<u8>),
    Advance(Nanos),
    DequeueOne,
    Change(Config),
    CarelessChange(Config),
    Reset,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (0u32..16, 1u32..9_000, prop::option::of(any::<u8>()))
            .prop_map(|(p, l, d)| Op::Offer(p, l, d)),
        6 => (0u64..300_000).prop_map(Op::Advance),
        4 => Just(Op::DequeueOne),
        1 => valid_config().prop_map(Op::Change),
        1 => valid_config().prop_map(Op::CarelessChange),
        1 => Just(Op::Reset),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random operation sequences with random valid configurations: the harness checks the
    /// books after every operation; nothing panics; draining empties everything.
    #[test]
    fn random_operations_keep_the_books(first in valid_config(), ops in prop::collection::vec(op(), 1..200)) {
        let mut sim = Sim::new(&first, 16);
        sim.run_until(ms(1));
        for op in ops {
            match op {
                Op::Offer(priority, len, dsfield) => {
                    sim.offer(PacketInfo { len, priority, dsfield });
                }
                Op::Advance(dt) => {
                    let t = sim.now + dt;
                    sim.run_until(t);
                }
                Op::DequeueOne => {
                    sim.dequeue_one();
                }
                Op::Change(cfg) => sim.change(&cfg),
                Op::CarelessChange(cfg) => sim.configure_and_trim(&cfg),
                Op::Reset => sim.reset(),
            }
            let q = sim.engine.stats();
            let cfg = sim.engine.config();
            prop_assert!(q.balanced());
            prop_assert!(q.qlen <= cfg.limit_packets);
            prop_assert!(cfg.limit_bytes == 0 || q.backlog <= u64::from(cfg.limit_bytes));
        }
        sim.drain();
        let q = sim.engine.stats();
        prop_assert_eq!((q.qlen, q.backlog), (0, 0));
        prop_assert_eq!(q.enqueued, q.packets + q.drops());
        prop_assert_eq!(q.enqueued_bytes, q.bytes + q.drops_bytes);
    }
}
