// SPDX-License-Identifier: GPL-2.0-only
//! `ecnsharp-nlfuzz`: hostile inputs for the ecnsharp qdisc, run inside the bench guest.
//!
//! ```text
//! ecnsharp-nlfuzz fuzz --dev DEV --parents P[,P...] --handle H --seed S --count N
//! ecnsharp-nlfuzz craft --dev DEV --dst-mac MAC --kind KIND --count N [--ecn E] [--size B]
//!                       [--priority PRIO]
//! ecnsharp-nlfuzz tap --dev DEV --stop-file PATH [--seconds MAX]
//! ecnsharp-nlfuzz churn --dev DEV --parent P --handle H --seconds S --seed SEED
//! ecnsharp-nlfuzz faults --dev DEV --parent P --handle H [--max N]
//! ```
//! `fuzz` sends N malformed or extreme qdisc, class and filter requests (seeded: the same seed
//! replays the same requests) and checks every answer: an ack, and on an error that the qdisc
//! itself may have raised (damage inside `TCA_OPTIONS`, or none), an extack message. Its oracle
//! (`oracle.rs`) predicts, from a dump of the device before each request and the core's own
//! decoder, whether the kernel accepts it and what the device holds afterwards, reads it back
//! and flags any disagreement. It prints `nlfuzz: seed=S tried=N accepted=N rejected=N
//! violations=N oracle_predicted=N oracle_mismatches=N ...` and exits 1 on any violation or
//! mismatch.
//! `faults` (`faults.rs`) makes the Nth allocation of a request fail, for N = 1, 2, ...
//! `craft` sends odd frames (see `frames::KINDS`) through DEV's qdisc, with `skb->priority`
//! PRIO (`SO_PRIORITY`, default 0); `tap` counts, like tcpdump on DEV, the frames DEV transmits
//! and their ECN field, from "tap: listening" until PATH exists and a second has passed with
//! nothing more to read (at most MAX seconds, default 60).
//! `churn` changes the qdisc H under P for S seconds, as fast as the kernel answers, with valid
//! options (see `churn.rs`); it prints `churn: changes=N failed=N` and exits 1 if any failed.

mod churn;
mod faults;
mod frames;
mod gen;
mod nl;
mod oracle;
mod packet;
mod rng;
mod tc;

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::time::Duration;

use gen::{Defect, Generator, Target};

use tc::TC_H_ROOT;

/// Parses a tc handle: `root`, `MAJ:MIN`, `MAJ:` (hex, as tc writes them).
pub(crate) fn handle(s: &str) -> Result<u32, String> {
    if s == "root" {
        return Ok(TC_H_ROOT);
    }
    let (maj, min) = s.split_once(':').ok_or_else(|| format!("bad handle {s}"))?;
    let hex = |x: &str| {
        if x.is_empty() {
            Ok(0)
        } else {
            u32::from_str_radix(x, 16).map_err(|_| format!("bad handle {s}"))
        }
    };
    Ok((hex(maj)? << 16) | (hex(min)? & 0xffff))
}

pub(crate) fn mac(s: &str) -> Result<[u8; 6], String> {
    let parts: Vec<u8> = s
        .split(':')
        .map(|p| u8::from_str_radix(p, 16))
        .collect::<Result<_, _>>()
        .map_err(|_| format!("bad MAC {s}"))?;
    parts.try_into().map_err(|_| format!("bad MAC {s}"))
}

/// `--key value` options.
pub(crate) struct Args(pub(crate) BTreeMap<String, String>);

impl Args {
    fn parse(args: &[String]) -> Result<Args, String> {
        let mut map = BTreeMap::new();
        let mut it = args.iter();
        while let Some(k) = it.next() {
            let key = k
                .strip_prefix("--")
                .ok_or_else(|| format!("unexpected {k}"))?;
            let v = it.next().ok_or_else(|| format!("{k} needs a value"))?;
            map.insert(key.to_string(), v.clone());
        }
        Ok(Args(map))
    }

    pub(crate) fn get(&self, key: &str) -> Result<&str, String> {
        self.0
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| format!("--{key} is required"))
    }

    pub(crate) fn num(&self, key: &str, default: Option<u64>) -> Result<u64, String> {
        match (self.0.get(key), default) {
            (Some(v), _) => v.parse().map_err(|_| format!("--{key}: not a number: {v}")),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("--{key} is required")),
        }
    }
}

/// Sequence numbers of the fuzzer's own dumps, apart from the requests'.
const DUMP_SEQ: u32 = 0x4000_0000;

/// The qdiscs of the device, for the oracle.
fn state(sock: &mut nl::Socket, seq: &mut u32, ifindex: u32) -> Result<Vec<tc::Tc>, String> {
    *seq = seq.wrapping_add(1);
    match tc::qdiscs(sock, *seq, ifindex).map_err(|e| e.to_string())? {
        Ok(q) => Ok(q),
        Err(errno) => Err(format!("qdisc dump refused: errno {errno}")),
    }
}

/// The filter priorities on ecnsharp's block `handle` (none if it is not there).
fn prios(
    sock: &mut nl::Socket,
    seq: &mut u32,
    ifindex: u32,
    handle: u32,
) -> Result<BTreeSet<u16>, String> {
    *seq = seq.wrapping_add(1);
    Ok(tc::filter_prios(sock, *seq, ifindex, handle)
        .map_err(|e| e.to_string())?
        .unwrap_or_default())
}

fn fuzz(args: &Args) -> Result<bool, String> {
    let seed = args.num("seed", None)?;
    let count = args.num("count", None)?;
    let ifindex = nl::ifindex(args.get("dev")?).map_err(|e| e.to_string())?;
    let parents = args
        .get("parents")?
        .split(',')
        .map(handle)
        .collect::<Result<Vec<_>, _>>()?;
    let target = Target {
        ifindex,
        parents,
        handle: handle(args.get("handle")?)?,
    };
    let h = target.handle;
    let mut sock = nl::Socket::open(Duration::from_secs(20)).map_err(|e| e.to_string())?;
    let mut g = Generator::new(seed, target);
    let mut oracle = oracle::Oracle::default();
    let mut dseq = DUMP_SEQ;
    let (mut accepted, mut rejected, mut violations) = (0u64, 0u64, 0u64);
    let (mut predicted, mut mismatches, mut classes, mut filters) = (0u64, 0u64, 0u64, 0u64);
    let mut stab_half_applied = 0u64;
    let mut errnos: BTreeMap<i32, u64> = BTreeMap::new();
    let mut without_extack: BTreeMap<i32, u64> = BTreeMap::new();
    let mut before = state(&mut sock, &mut dseq, ifindex)?;
    for i in 0..count {
        let req = g.next_request();
        let filter_req = req.op == gen::Op::Filter;
        classes += u64::from(req.op == gen::Op::Class);
        filters += u64::from(filter_req);
        let f_before = if filter_req {
            prios(&mut sock, &mut dseq, ifindex, h)?
        } else {
            BTreeSet::new()
        };
        let expect = oracle.predict(&req.shape, &before, &f_before);
        let by_options = req
            .shape
            .stab
            .then(|| oracle.options_effect(&req.shape, &before))
            .flatten();
        predicted += u64::from(expect != oracle::Expect::Unknown);
        let answer = sock.send(&req.bytes).and_then(|()| sock.ack(req.seq));
        let mut problems: Vec<String> = Vec::new();
        let errno = match &answer {
            Err(e) => {
                problems.push(format!("no answer: {e}"));
                -1
            }
            Ok(ack) if ack.errno == 0 => {
                accepted += 1;
                0
            }
            Ok(ack) => {
                rejected += 1;
                *errnos.entry(ack.errno).or_default() += 1;
                if ack.message.as_deref().unwrap_or("").is_empty() {
                    *without_extack.entry(ack.errno).or_default() += 1;
                    if req.defect != Defect::Outer {
                        problems.push(format!("errno {} without an extack message", ack.errno));
                    }
                } else if !(1..4096).contains(&ack.errno) {
                    problems.push(format!("errno {} out of range", ack.errno));
                }
                ack.errno
            }
        };
        violations += u64::from(!problems.is_empty());
        let after = state(&mut sock, &mut dseq, ifindex)?;
        let f_after = if filter_req {
            prios(&mut sock, &mut dseq, ifindex, h)?
        } else {
            BTreeSet::new()
        };
        if errno >= 0 {
            let mut verdict = oracle.check(&expect, errno, &before, &after, &f_after);
            if verdict.is_err() && errno != 0 && req.shape.stab {
                // The kernel applied the options, then refused the size table (qdisc_change
                // in net/sched/sch_api.c): allowed only as exactly what the options make.
                let slot = oracle::child_at(&after, req.shape.parent)
                    .filter(|q| q.handle == req.shape.handle)
                    .and_then(oracle::dumped);
                let others = |v: &[tc::Tc]| -> Vec<tc::Tc> {
                    v.iter()
                        .filter(|q| q.handle != req.shape.handle)
                        .cloned()
                        .collect()
                };
                // What the options make is known only from a qdisc the oracle is certain of;
                // otherwise (it predicted Unknown) the half-applied change is allowed on that
                // qdisc alone, its kind and place kept.
                let options_ok = match by_options {
                    Some(c) => slot == Some(oracle::normalize(c)),
                    None => {
                        expect == oracle::Expect::Unknown
                            && oracle::child_at(&after, req.shape.parent).is_some_and(|q| {
                                q.handle == req.shape.handle && q.kind == "ecnsharp"
                            })
                    }
                };
                if options_ok && others(&before) == others(&after) {
                    stab_half_applied += 1;
                    verdict = Ok(());
                }
            }
            if verdict.is_ok() && req.op == gen::Op::Class {
                // ecnsharp's classes are its bands, whatever was asked of them.
                let bands = oracle::lookup(&after, h)
                    .filter(|q| q.kind == "ecnsharp")
                    .and_then(oracle::dumped)
                    .map(|c| usize::from(c.bands));
                if let Some(bands) = bands {
                    dseq = dseq.wrapping_add(1);
                    let got = tc::classes(&mut sock, dseq, ifindex, h)
                        .map_err(|e| e.to_string())?
                        .map(|c| c.len());
                    if got != Ok(bands) {
                        verdict = Err(format!("class dump {got:?}, bands {bands}"));
                    }
                }
            }
            if verdict.is_ok() && errno != 0 && filter_req && f_before != f_after {
                verdict = Err(format!(
                    "refused, but the filters went from {f_before:?} to {f_after:?}"
                ));
            }
            if let Err(e) = verdict {
                mismatches += 1;
                problems.push(format!("oracle: {e}"));
            }
        }
        if !problems.is_empty() && violations + mismatches <= 6 {
            let hex: String = req.bytes.iter().map(|b| format!("{b:02x}")).collect();
            println!(
                "nlfuzz: VIOLATION seed={seed} request={i} op={:?} defect={:?} ({}): {}\nnlfuzz:   expected {:?}\nnlfuzz:   bytes {hex}",
                req.op,
                req.defect,
                req.what,
                problems.join("; "),
                expect
            );
        }
        before = after;
    }
    let fmt = |m: &BTreeMap<i32, u64>| {
        m.iter()
            .map(|(e, n)| format!("{e}:{n}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    println!(
        "nlfuzz: seed={seed} tried={count} accepted={accepted} rejected={rejected} violations={violations} oracle_predicted={predicted} oracle_mismatches={mismatches} classes={classes} filters={filters} stab_refused_after_change={stab_half_applied} errnos={} no_extack={}",
        fmt(&errnos),
        fmt(&without_extack)
    );
    Ok(violations == 0 && mismatches == 0)
}

fn craft(args: &Args) -> Result<bool, String> {
    let dev = args.get("dev")?;
    let ifindex = nl::ifindex(dev).map_err(|e| e.to_string())?;
    let src = std::fs::read_to_string(format!("/sys/class/net/{dev}/address"))
        .map_err(|e| format!("{dev}: {e}"))?;
    let a = frames::Addrs {
        src_mac: mac(src.trim())?,
        dst_mac: mac(args.get("dst-mac")?)?,
    };
    let kind = args.get("kind")?;
    let count = args.num("count", None)?;
    let ecn = args.num("ecn", Some(u64::from(frames::ECT0)))? as u8 & 3;
    let size = args.num("size", Some(100))? as usize;
    let gso = kind == "gso" || kind == "gso6";
    let priority = args.num("priority", Some(0))? as libc::c_int;
    let sock = packet::PacketSocket::sender(ifindex, gso, priority).map_err(|e| e.to_string())?;
    let (mut sent, mut refused) = (0u64, 0u64);
    for i in 0..count as usize {
        let f = if gso {
            frames::gso_frame_of(&a, ecn, 8, 1000, kind == "gso6")
        } else {
            frames::frame(kind, &a, ecn, size, i)
                .ok_or_else(|| format!("unknown kind {kind} (known: {:?})", frames::KINDS))?
        };
        // A qdisc drop comes back as an error (ENOBUFS); count it, go on.
        match sock.send(&f) {
            Ok(()) => sent += 1,
            Err(_) => refused += 1,
        }
    }
    println!("craft: kind={kind} sent={sent} refused={refused}");
    Ok(true)
}

fn tap(args: &Args) -> Result<bool, String> {
    let ifindex = nl::ifindex(args.get("dev")?).map_err(|e| e.to_string())?;
    let secs = args.num("seconds", Some(60))?;
    let stop = std::path::PathBuf::from(args.get("stop-file")?);
    let ready = || {
        println!("tap: listening");
        let _ = std::io::Write::flush(&mut std::io::stdout());
    };
    let c =
        packet::tap(ifindex, Duration::from_secs(secs), &stop, ready).map_err(|e| e.to_string())?;
    println!(
        "tap: frames={} ip={} tagged={} ce={} ect={} big={}",
        c.frames, c.ip, c.tagged, c.ce, c.ect, c.big
    );
    Ok(true)
}

fn churn(args: &Args) -> Result<bool, String> {
    let ifindex = nl::ifindex(args.get("dev")?).map_err(|e| e.to_string())?;
    let parent = handle(args.get("parent")?)?;
    let qdisc = handle(args.get("handle")?)?;
    let secs = args.num("seconds", None)?;
    let mut r = rng::Rng::new(args.num("seed", Some(1))?);
    let mut sock = nl::Socket::open(Duration::from_secs(20)).map_err(|e| e.to_string())?;
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    let (mut changes, mut failed, mut seq) = (0u64, 0u64, 0u32);
    while std::time::Instant::now() < end {
        seq = seq.wrapping_add(1);
        let m = churn::change_request(&mut r, ifindex, parent, qdisc, seq);
        let ack = sock
            .send(&m)
            .and_then(|()| sock.ack(seq))
            .map_err(|e| e.to_string())?;
        if ack.errno == 0 {
            changes += 1;
        } else {
            failed += 1;
            if failed <= 3 {
                println!(
                    "churn: change refused: errno {} {:?}",
                    ack.errno, ack.message
                );
            }
        }
    }
    println!("churn: changes={changes} failed={failed}");
    Ok(failed == 0)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = argv.split_first() else {
        eprintln!("usage: ecnsharp-nlfuzz fuzz|craft|tap|churn --key value ...");
        return ExitCode::from(2);
    };
    let run = Args::parse(rest).and_then(|a| match cmd.as_str() {
        "fuzz" => fuzz(&a),
        "craft" => craft(&a),
        "tap" => tap(&a),
        "churn" => churn(&a),
        "faults" => faults::run(&a),
        _ => Err(format!("unknown command {cmd}")),
    });
    match run {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("ecnsharp-nlfuzz: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_and_macs() {
        assert_eq!(handle("root"), Ok(TC_H_ROOT));
        assert_eq!(handle("1:1"), Ok(0x10001));
        assert_eq!(handle("10:"), Ok(0x100000));
        assert_eq!(handle("ffff:fff2"), Ok(0xffff_fff2));
        assert!(handle("x").is_err());
        assert_eq!(mac("02:00:0a:ff:00:01"), Ok([2, 0, 10, 255, 0, 1]));
        assert!(mac("02:00").is_err());
    }
}
