// SPDX-License-Identifier: GPL-2.0-only
//! Allocation failures injected into the qdisc's requests, one at a time: for N = 1, 2, ...
//! the Nth allocation the request makes in this task fails (`/proc/thread-self/fail-nth`, with
//! failslab and fail_page_alloc armed by the caller), until a request completes before its Nth
//! allocation. Each request is sent on a fresh socket (a dump that failed may leave its socket
//! busy) and checked: it got an answer, and the device holds exactly the configuration before
//! or the one asked for, never a mixture. Operations: create (add), change (to 16 bands, so the
//! notification is large), class dump, qdisc dump, filter add, and GSO packets sent through the
//! qdisc while it splits them (`--dst-mac`).
//!
//! ```text
//! ecnsharp-nlfuzz faults --dev DEV --parent P --handle H [--max N] [--dst-mac MAC]
//! ```
//! Prints one line per operation, `faults: op=OP tried=N injected=N errors=N lost_acks=N
//! mismatches=N`, and a total `faults: injected=N mismatches=N`; exits 1 on any mismatch.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::FileExt;
use std::time::Duration;

use ecnsharp::config::Config;
use ecnsharp::uapi;

use crate::nl::Socket;
use crate::oracle::{child_at, dumped, normalize};
use crate::tc::{
    self, Tc, NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL, NLM_F_REQUEST, RTM_DELQDISC, RTM_DELTFILTER,
    RTM_NEWQDISC, RTM_NEWTFILTER, TCA_KIND, TCA_OPTIONS,
};
use crate::{frames, handle, mac, nl, packet, Args};

const FAIL_NTH: &str = "/proc/thread-self/fail-nth";

/// This thread's fail-nth, opened once: arming and reading it through the open file allocates
/// nothing (opening it would, and would count against the fault armed).
struct FailNth(fs::File);

impl FailNth {
    fn open() -> Result<FailNth, String> {
        fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(FAIL_NTH)
            .map(FailNth)
            .map_err(|e| format!("{FAIL_NTH}: {e}"))
    }

    /// Arms the Nth fault of this task (the file cannot seek: written and read at offset 0).
    fn arm(&mut self, n: u64) -> Result<(), String> {
        self.0
            .write_all_at(n.to_string().as_bytes(), 0)
            .map_err(|e| format!("{FAIL_NTH}: {e}"))
    }

    /// Whether the fault armed last fired (fail-nth counted down to 0); disarms it if not.
    fn disarm(&mut self) -> Result<bool, String> {
        let mut buf = [0u8; 32];
        let n = self
            .0
            .read_at(&mut buf, 0)
            .map_err(|e| format!("{FAIL_NTH}: {e}"))?;
        let fired = String::from_utf8_lossy(&buf[..n]).trim() == "0";
        if !fired {
            self.arm(0)?;
        }
        Ok(fired)
    }
}

/// How one request ended.
enum Answer {
    /// An ack with this errno (0: success).
    Ack(i32),
    /// No ack: the socket reported an error instead (the ack itself could not be allocated).
    Lost,
}

/// Options of a 16-band qdisc, and a 2-band one, as the change goes between them.
fn options(bands: u32, limit: u32) -> Vec<u8> {
    let mut o = tc::nla(uapi::TCA_ECNSHARP_BANDS, &bands.to_ne_bytes());
    o.extend(tc::nla(uapi::TCA_ECNSHARP_LIMIT, &limit.to_ne_bytes()));
    o.extend(tc::nla(
        uapi::TCA_ECNSHARP_SCHED,
        &uapi::SCHED_DWRR.to_ne_bytes(),
    ));
    o
}

fn config(opts: &[u8]) -> Config {
    let mut cfg = Config::DEFAULT;
    // The options above are valid by construction (checked in the tests below).
    let _ = uapi::decode_options(opts, &mut cfg);
    normalize(cfg)
}

struct Target {
    ifindex: u32,
    parent: u32,
    handle: u32,
}

impl Target {
    fn qdisc_request(&self, msg: u16, flags: u16, seq: u32, opts: Option<&[u8]>) -> Vec<u8> {
        let mut attrs = tc::nla(TCA_KIND, b"ecnsharp\0");
        if let Some(o) = opts {
            attrs.extend(tc::nla(TCA_OPTIONS | uapi::NLA_F_NESTED, o));
        }
        tc::message(
            msg,
            flags | NLM_F_REQUEST | NLM_F_ACK,
            seq,
            self.ifindex,
            self.handle,
            self.parent,
            0,
            &attrs,
        )
    }

    /// Sends `msg` on a fresh socket and reads its answer.
    fn send(&self, msg: &[u8], seq: u32) -> Result<Answer, String> {
        let mut s = fresh()?;
        Ok(send_on(&mut s, msg, seq))
    }

    /// The configuration of ecnsharp `handle` under `parent`, if it is there.
    fn slot(&self) -> Result<Option<Config>, String> {
        let mut s = Socket::open(Duration::from_secs(20)).map_err(|e| e.to_string())?;
        let q = tc::qdiscs(&mut s, 1, self.ifindex)
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("qdisc dump refused: errno {e}"))?;
        Ok(child_at(&q, self.parent)
            .filter(|q| q.handle == self.handle && q.kind == "ecnsharp")
            .and_then(dumped))
    }

    fn filters(&self) -> Result<BTreeSet<u16>, String> {
        let mut s = Socket::open(Duration::from_secs(20)).map_err(|e| e.to_string())?;
        Ok(tc::filter_prios(&mut s, 1, self.ifindex, self.handle)
            .map_err(|e| e.to_string())?
            .unwrap_or_default())
    }

    /// Brings the slot to `want` (`None`: no qdisc of ours) without faults.
    fn settle(&self, want: Option<&[u8]>) -> Result<(), String> {
        let _ = self.send(&self.qdisc_request(RTM_DELQDISC, 0, 1, None), 1)?;
        if let Some(o) = want {
            match self.send(
                &self.qdisc_request(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, 2, Some(o)),
                2,
            )? {
                Answer::Ack(0) => {}
                Answer::Ack(e) => return Err(format!("setting up the slot: errno {e}")),
                Answer::Lost => return Err(String::from("setting up the slot: no answer")),
            }
        }
        Ok(())
    }
}

fn fresh() -> Result<Socket, String> {
    Socket::open(Duration::from_secs(20)).map_err(|e| e.to_string())
}

/// Sends `msg` on `s` and reads its answer: the errno of a send refused at the system call
/// (the request's own buffer could not be allocated), the ack, or none (the socket reported an
/// error instead of the ack, which could not be allocated).
fn send_on(s: &mut Socket, msg: &[u8], seq: u32) -> Answer {
    if let Err(e) = s.send(msg) {
        return Answer::Ack(e.raw_os_error().unwrap_or(-1));
    }
    match s.ack(seq) {
        Ok(ack) => Answer::Ack(ack.errno),
        Err(_) => Answer::Lost,
    }
}

/// The tally of one operation.
#[derive(Default)]
struct Tally {
    tried: u64,
    injected: u64,
    errors: u64,
    lost: u64,
    mismatches: u64,
}

impl Tally {
    fn note(&mut self, fired: bool, answer: &Answer) {
        self.tried += 1;
        self.injected += u64::from(fired);
        match answer {
            Answer::Ack(0) => {}
            Answer::Ack(_) => self.errors += 1,
            Answer::Lost => self.lost += 1,
        }
    }

    fn mismatch(&mut self, op: &str, n: u64, what: String) {
        self.mismatches += 1;
        if self.mismatches <= 3 {
            println!("faults: MISMATCH op={op} nth={n}: {what}");
        }
    }

    fn print(&self, op: &str) {
        println!(
            "faults: op={op} tried={} injected={} errors={} lost_acks={} mismatches={}",
            self.tried, self.injected, self.errors, self.lost, self.mismatches
        );
    }
}

/// Runs `one(n)` for n = 1, 2, ... until the fault no longer fires (or `max`).
fn sweep(max: u64, mut one: impl FnMut(u64) -> Result<bool, String>) -> Result<(), String> {
    for n in 1..=max {
        if !one(n)? {
            return Ok(());
        }
    }
    Ok(())
}

pub fn run(args: &Args) -> Result<bool, String> {
    let ifindex = nl::ifindex(args.get("dev")?).map_err(|e| e.to_string())?;
    let t = Target {
        ifindex,
        parent: handle(args.get("parent")?)?,
        handle: handle(args.get("handle")?)?,
    };
    let max = args.num("max", Some(400))?;
    let small = options(2, 500);
    let big = options(16, 900);
    let (small_cfg, big_cfg) = (config(&small), config(&big));
    let mut total = Tally::default();
    let mut nth = FailNth::open()?;

    // Create: the slot is empty before; afterwards it holds the qdisc asked for, or nothing.
    let mut tally = Tally::default();
    sweep(max, |n| {
        t.settle(None)?;
        let m = t.qdisc_request(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, 10, Some(&small));
        let mut s = fresh()?;
        nth.arm(n)?;
        let answer = send_on(&mut s, &m, 10);
        let fired = nth.disarm()?;
        tally.note(fired, &answer);
        let got = t.slot()?;
        let ok = match answer {
            Answer::Ack(0) => got == Some(small_cfg),
            Answer::Ack(_) => got.is_none(),
            Answer::Lost => got.is_none() || got == Some(small_cfg),
        };
        if !ok {
            tally.mismatch("add", n, format!("slot holds {got:?}"));
        }
        Ok(fired)
    })?;
    tally.print("add");
    total.add(&tally);

    // Change to 16 bands: afterwards the old configuration whole, or the new one whole.
    let mut tally = Tally::default();
    sweep(max, |n| {
        t.settle(Some(&small))?;
        let m = t.qdisc_request(RTM_NEWQDISC, 0, 11, Some(&big));
        let mut s = fresh()?;
        nth.arm(n)?;
        let answer = send_on(&mut s, &m, 11);
        let fired = nth.disarm()?;
        tally.note(fired, &answer);
        let got = t.slot()?;
        let ok = match answer {
            Answer::Ack(0) => got == Some(big_cfg),
            Answer::Ack(_) => got == Some(small_cfg),
            Answer::Lost => got == Some(small_cfg) || got == Some(big_cfg),
        };
        if !ok {
            tally.mismatch("change", n, format!("slot holds {got:?}"));
        }
        Ok(fired)
    })?;
    tally.print("change");
    total.add(&tally);

    // Dumps of the classes and of the qdiscs: an error or a whole answer; nothing changes.
    for (op, kind) in [
        ("class-dump", tc::RTM_GETTCLASS),
        ("qdisc-dump", tc::RTM_GETQDISC),
    ] {
        let mut tally = Tally::default();
        t.settle(Some(&big))?;
        sweep(max, |n| {
            let mut s = Socket::open(Duration::from_secs(20)).map_err(|e| e.to_string())?;
            let parent = if kind == tc::RTM_GETTCLASS {
                t.handle
            } else {
                0
            };
            let m = tc::message(
                kind,
                NLM_F_REQUEST | nl::NLM_F_DUMP,
                12,
                ifindex,
                0,
                parent,
                0,
                &[],
            );
            nth.arm(n)?;
            let res = s.dump(&m, 12);
            let fired = nth.disarm()?;
            let answer = match &res {
                Ok(Ok(_)) => Answer::Ack(0),
                Ok(Err(e)) => Answer::Ack(*e),
                Err(_) => Answer::Lost,
            };
            tally.note(fired, &answer);
            if let Ok(Ok(msgs)) = &res {
                let mine: Vec<Tc> = msgs
                    .iter()
                    .filter_map(|m| tc::parse(m))
                    .filter(|x| x.ifindex == ifindex)
                    .collect();
                let whole = if kind == tc::RTM_GETTCLASS {
                    mine.iter()
                        .filter(|c| c.handle >> 16 == t.handle >> 16)
                        .count()
                        == 16
                } else {
                    child_at(&mine, t.parent).is_some_and(|q| q.handle == t.handle)
                };
                if !whole {
                    tally.mismatch(
                        op,
                        n,
                        format!("a dump that succeeded is not whole: {} entries", mine.len()),
                    );
                }
            }
            if t.slot()? != Some(big_cfg) {
                tally.mismatch(op, n, String::from("the qdisc changed under a dump"));
            }
            Ok(fired)
        })?;
        tally.print(op);
        total.add(&tally);
    }

    // A matchall filter on the qdisc's block: there afterwards if and only if acked.
    let mut tally = Tally::default();
    sweep(max, |n| {
        let del = tc::message(
            RTM_DELTFILTER,
            NLM_F_REQUEST | NLM_F_ACK,
            13,
            ifindex,
            0,
            t.handle,
            0,
            &[],
        );
        let _ = t.send(&del, 13)?;
        let mut attrs = tc::nla(TCA_KIND, b"matchall\0");
        attrs.extend(tc::nla(
            TCA_OPTIONS | uapi::NLA_F_NESTED,
            &tc::nla(1, &(t.handle | 2).to_ne_bytes()),
        ));
        let info = (1u32 << 16) | u32::from(0x0003u16.to_be());
        let m = tc::message(
            RTM_NEWTFILTER,
            NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
            14,
            ifindex,
            0,
            t.handle,
            info,
            &attrs,
        );
        let mut s = fresh()?;
        nth.arm(n)?;
        let answer = send_on(&mut s, &m, 14);
        let fired = nth.disarm()?;
        tally.note(fired, &answer);
        let prios = t.filters()?;
        let ok = match answer {
            Answer::Ack(0) => prios.contains(&1),
            Answer::Ack(_) => prios.is_empty(),
            Answer::Lost => true,
        };
        if !ok || t.slot()? != Some(big_cfg) {
            tally.mismatch("filter-add", n, format!("filters {prios:?}"));
        }
        Ok(fired)
    })?;
    let del = tc::message(
        RTM_DELTFILTER,
        NLM_F_REQUEST | NLM_F_ACK,
        15,
        ifindex,
        0,
        t.handle,
        0,
        &[],
    );
    let _ = t.send(&del, 15)?;
    tally.print("filter-add");
    total.add(&tally);

    // GSO packets cut into segments at enqueue (split_gso on), the Nth allocation of each send
    // failing: every send is answered; the suite checks the books and what arrived.
    if let Some(dst) = args.0.get("dst-mac") {
        let src = fs::read_to_string(format!("/sys/class/net/{}/address", args.get("dev")?))
            .map_err(|e| e.to_string())?;
        let a = frames::Addrs {
            src_mac: mac(src.trim())?,
            dst_mac: mac(dst)?,
        };
        // skb->priority naming class H:16 puts them all in band 15, apart from other traffic.
        let class = (t.handle | 16) as libc::c_int;
        let sock = packet::PacketSocket::sender(ifindex, true, class).map_err(|e| e.to_string())?;
        let f = frames::gso_frame(&a, frames::ECT0, 8, 1000);
        let mut tally = Tally::default();
        let mut sent = 0u64;
        sweep(max, |n| {
            nth.arm(n)?;
            let res = sock.send(&f);
            let fired = nth.disarm()?;
            sent += u64::from(res.is_ok());
            tally.note(
                fired,
                &if res.is_ok() {
                    Answer::Ack(0)
                } else {
                    Answer::Ack(1)
                },
            );
            Ok(fired)
        })?;
        tally.print("gso-split");
        println!("faults: gso sent={sent}");
        total.add(&tally);
    }

    println!(
        "faults: injected={} mismatches={}",
        total.injected, total.mismatches
    );
    Ok(total.mismatches == 0)
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.tried += o.tried;
        self.injected += o.injected;
        self.errors += o.errors;
        self.lost += o.lost;
        self.mismatches += o.mismatches;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_configurations_are_valid_and_differ() {
        for opts in [options(2, 500), options(16, 900)] {
            let mut cfg = Config::DEFAULT;
            uapi::decode_options(&opts, &mut cfg).unwrap();
        }
        assert_ne!(config(&options(2, 500)), config(&options(16, 900)));
        assert_eq!(config(&options(16, 900)).bands, 16);
    }
}
