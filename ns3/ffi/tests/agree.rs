// SPDX-License-Identifier: GPL-2.0-only
//! The kernel side of the ns-3 agreement check: packet schedules driven through the host
//! simulation harness (`kmod/tests/sim/harness.rs`, the kernel glue in miniature), giving the
//! verdict and marks of every packet. `ns3/tests/agree.cc` replays the same schedules through
//! `ns3::EcnSharpQueueDisc` and `make ns3` compares the two traces line for line.
//!
//! With `ECNSHARP_AGREE_DIR` set, each schedule and its trace are written there as
//! `NAME.schedule` and `NAME.expected`.

// The harness is written for the core's minimum rustc (1.78), which has no `Option::is_none_or`.
#[path = "../../../kmod/tests/sim/harness.rs"]
#[allow(dead_code, clippy::unnecessary_map_or)]
mod harness;

use std::fmt::Write as _;

use ecnsharp::config::Config;
use ecnsharp::ecn::{CauseSet, MarkCause};
use ecnsharp::engine::{EnqueueVerdict, PacketInfo};
use ecnsharp::options::Options;
use harness::{Rng, Sim};

/// Schedules: name and tc options (in forms that are also ns-3 attribute values).
const SCHEDULES: [(&str, &str); 4] = [
    (
        "ecnsharp",
        "limit 300 mode ecnsharp ins_target 60us pst_target 8us pst_interval 40us",
    ),
    (
        "red-tcn-sp",
        "bands 3 mode red+ins k 40 ins_target 30us sched sp classify priority",
    ),
    (
        "all-dwrr-shaped",
        "bands 3 mode ins+pst+red+dequeue+prob k 61440 k_unit bytes ins_target 80us pst_target 10us \
         pst_interval 50us tmin 20us tmax 60us pmax 30% seed 77 quanta 3000,1500,1500 \
         classify dscp rate 1000000000 burst 6000 limit 400 limit_bytes 400000 non_ect drop",
    ),
    (
        "codel-wfq-linear",
        "bands 2 mode codel pst_target 5us pst_interval 30us control_law linear idle_reset off \
         sched wfq weights 3,1 limit 200",
    ),
];

fn bits(set: CauseSet) -> u8 {
    MarkCause::ALL
        .iter()
        .enumerate()
        .filter(|(_, c)| set.contains(**c))
        .fold(0, |b, (i, _)| b | (1 << i))
}

/// A schedule: arrivals and dequeue attempts in time order, with phases of overload.
fn schedule(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::new();
    let mut t: u64 = 1_000;
    for i in 0..30_000u64 {
        // 2 ms phases: overload, balance, drain.
        let phase = (t / 2_000_000) % 3;
        let arrival_pct = [70, 50, 30][phase as usize];
        t += rng.range(100, 1_300);
        if rng.range(0, 99) < arrival_pct {
            let len = rng.range(64, 1_500);
            let prio = rng.range(0, 15);
            let dscp = rng.range(0, 3);
            // Mostly ECT(0), some ECT(1), non-ECT and CE.
            let ecn = [2, 2, 2, 2, 2, 2, 1, 0, 3, 2][rng.range(0, 9) as usize];
            writeln!(out, "e {t} {len} {prio} {}", dscp << 2 | ecn).unwrap();
        } else {
            writeln!(out, "d {t}").unwrap();
        }
        if i % 5_000 == 4_999 {
            t += 1_000_000; // idle gap: queues drain, idle reset
            for _ in 0..400 {
                t += 2_000;
                writeln!(out, "d {t}").unwrap();
            }
        }
    }
    out
}

/// The harness's verdicts on `schedule` under `cfg`, in the trace format agree.cc writes.
fn replay(cfg: &Config, schedule: &str) -> (String, [u64; 5], u64) {
    let mut sim = Sim::new(cfg, 1);
    let mut trace = String::new();
    let mut seq = 0u64;
    // The harness numbers queued packets only; the trace numbers every arrival.
    let mut arrival_of_queued = vec![0u64];
    let mut by_cause = [0u64; 5];
    let mut drops = 0u64;
    let count = |m: u8, by_cause: &mut [u64; 5]| {
        for (i, c) in by_cause.iter_mut().enumerate() {
            *c += u64::from(m >> i & 1);
        }
    };
    for line in schedule.lines() {
        let f: Vec<u64> = line[2..].split(' ').map(|w| w.parse().unwrap()).collect();
        sim.now = f[0];
        if line.starts_with('e') {
            seq += 1;
            let p = PacketInfo {
                len: f[1] as u32,
                priority: f[2] as u32,
                dsfield: Some(f[3] as u8),
            };
            match sim.offer(p) {
                EnqueueVerdict::Queue { mark, .. } => {
                    arrival_of_queued.push(seq);
                    count(bits(mark), &mut by_cause);
                    writeln!(trace, "e {seq} q {}", bits(mark)).unwrap();
                }
                EnqueueVerdict::Drop { .. } => {
                    drops += 1;
                    writeln!(trace, "e {seq} drop").unwrap();
                }
            }
            continue;
        }
        // One dequeue of the kernel: packets dropped at dequeue, then one sent or none.
        loop {
            let before = sim.departed.len();
            if !sim.dequeue_one() {
                writeln!(trace, "d {} -", f[0]).unwrap();
                break;
            }
            assert_eq!(sim.departed.len(), before + 1);
            let d = sim.departed[before];
            let arrival = arrival_of_queued[d.pkt.seq as usize];
            match d.sent_mark {
                Some(m) => {
                    count(bits(m), &mut by_cause);
                    writeln!(trace, "d {} {arrival} s {}", f[0], bits(m)).unwrap();
                    break;
                }
                None => {
                    drops += 1;
                    writeln!(trace, "d {} {arrival} x", f[0]).unwrap();
                }
            }
        }
    }
    (trace, by_cause, drops)
}

#[test]
fn schedules_for_the_ns3_agreement_check() {
    let dir = std::env::var_os("ECNSHARP_AGREE_DIR").map(std::path::PathBuf::from);
    let mut total = [0u64; 5];
    for (i, (name, words)) in SCHEDULES.iter().enumerate() {
        let cfg = Options::parse(words.split_whitespace())
            .unwrap()
            .applied(&Config::DEFAULT)
            .unwrap();
        let sched = schedule(1 + i as u64);
        let (trace, by_cause, drops) = replay(&cfg, &sched);
        // Each schedule exercises marking; the limits and the non-ECT policy drop.
        assert!(by_cause.iter().sum::<u64>() > 100, "{name}: {by_cause:?}");
        assert!(drops > 0, "{name}: no drops");
        for (t, c) in total.iter_mut().zip(by_cause) {
            *t += c;
        }
        if let Some(dir) = &dir {
            std::fs::create_dir_all(dir).unwrap();
            let header = format!("config {words}\n");
            std::fs::write(dir.join(format!("{name}.schedule")), header + &sched).unwrap();
            std::fs::write(dir.join(format!("{name}.expected")), trace).unwrap();
        }
    }
    // Every marking rule fires somewhere.
    assert!(total.iter().all(|c| *c > 0), "marks by cause {total:?}");
}
