// SPDX-License-Identifier: GPL-2.0-only
//! Hostile requests for one ecnsharp qdisc slot: `RTM_NEWQDISC`/`RTM_DELQDISC` mostly, and
//! class (`RTM_NEWTCLASS`, `RTM_DELTCLASS`, `RTM_GETTCLASS`) and filter (`RTM_NEWTFILTER`,
//! `RTM_DELTFILTER`, a `matchall` on ecnsharp's block) requests.
//!
//! Each qdisc request is built from a plausible configuration (known attributes, right sizes,
//! values from a list of edge cases) and then, most of the time, damaged: inside `TCA_OPTIONS`
//! (wrong sizes, flags, duplicates, unknown numbers, truncated or leftover headers, nests where
//! scalars belong, flipped bytes) or around it (no `NLA_F_NESTED`, wrong kind, short `tcmsg`,
//! overrunning lengths, size tables, blocks). The label says where the damage is, so the caller
//! knows which answers must carry an extack message, and the shape ([`Shape`]) tells the oracle
//! what was asked.

use ecnsharp::uapi::{self, Attr, NLA_F_NESTED, NLA_F_NET_BYTEORDER};

use crate::nl::NLMSG_HDRLEN;
use crate::oracle::Shape;
use crate::rng::Rng;
use crate::tc::{
    self, NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE, NLM_F_REQUEST, RTM_DELQDISC,
    RTM_DELTCLASS, RTM_DELTFILTER, RTM_GETTCLASS, RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER,
    TCA_KIND, TCA_OPTIONS, TCMSG_LEN,
};

const TCA_STAB: u16 = 8;
const TCA_STAB_BASE: u16 = 1;
const TCA_INGRESS_BLOCK: u16 = 13;
/// `TCA_MATCHALL_CLASSID`.
const TCA_MATCHALL_CLASSID: u16 = 1;
/// `ETH_P_ALL`, as `tcm_info` carries it (network byte order in the low 16 bits).
const PROTO_ALL: u32 = 0x0003u16.to_be() as u32;

/// What a request does to the slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `NLM_F_CREATE | NLM_F_EXCL`.
    Add,
    /// No create flag: change what is there.
    Change,
    /// `NLM_F_CREATE | NLM_F_REPLACE`.
    Replace,
    /// `RTM_DELQDISC`.
    Delete,
    /// A class request on the qdisc's classes.
    Class,
    /// A filter request on the qdisc's block.
    Filter,
}

/// Where a request is damaged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// Nowhere: well formed (values may still be out of range).
    None,
    /// Only inside the `TCA_OPTIONS` nest: only the qdisc's own parser can object.
    Options,
    /// In the message around the options: the core may object first.
    Outer,
}

/// One request and how it was made.
#[derive(Clone, Debug)]
pub struct Request {
    /// The netlink message as sent.
    pub bytes: Vec<u8>,
    /// Its sequence number.
    pub seq: u32,
    /// What it does.
    pub op: Op,
    /// Where it is damaged.
    pub defect: Defect,
    /// The damage done, for the log of a failure.
    pub what: String,
    /// What it asks, for the oracle.
    pub shape: Shape,
}

/// The slot the requests aim at.
#[derive(Clone, Debug)]
pub struct Target {
    /// Interface index.
    pub ifindex: u32,
    /// Parents to pick from (`TC_H_ROOT` or a class of a parent qdisc).
    pub parents: Vec<u32>,
    /// The qdisc handle to use (e.g. `0x10000` for `1:`, `0x100000` for `10:`).
    pub handle: u32,
}

/// Interesting 32-bit values: zero, one, powers of two and their neighbours, limits.
const EDGE_U32: [u32; 20] = [
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    15,
    16,
    17,
    255,
    256,
    1000,
    1500,
    65535,
    65536,
    1_000_000,
    0x7fff_ffff,
    0x8000_0000,
    u32::MAX,
];

fn value_u32(r: &mut Rng) -> u32 {
    match r.below(10) {
        0..=5 => *r.pick(&EDGE_U32),
        6 => u32::MAX - r.u32() % 4,
        7 => r.u32() % 64,
        _ => r.u32(),
    }
}

/// A value for `attr` that is usually acceptable (so configurations do change) and sometimes not.
fn plausible_u32(r: &mut Rng, attr: Attr) -> u32 {
    if r.chance(25) {
        return value_u32(r);
    }
    match attr {
        Attr::Bands => 1 + r.below(16) as u32,
        Attr::StrictBands => r.below(4) as u32,
        Attr::Modes => r.u32() & 0x7f,
        Attr::ControlLaw | Attr::KUnit | Attr::Sched => r.below(3) as u32,
        Attr::IdleReset | Attr::Classify | Attr::NonEct => r.below(2) as u32,
        Attr::Limit => *r.pick(&[1, 2, 10, 100, 1000, 10_000, u32::MAX]),
        Attr::LimitBytes | Attr::Burst => *r.pick(&[0, 1, 1500, 3000, 65536, 1 << 20, u32::MAX]),
        Attr::InsTarget | Attr::PstTarget | Attr::PstInterval | Attr::Tmin | Attr::Tmax => {
            *r.pick(&[
                0,
                1,
                1000,
                100_000,
                1_000_000,
                20_000_000,
                1_000_000_000,
                u32::MAX,
            ])
        }
        Attr::Pmax => *r.pick(&[0, 1, 500_000, 1_000_000, 1_000_001]),
        Attr::K => *r.pick(&[0, 1, 10, 65, 1000, u32::MAX]),
        _ => value_u32(r),
    }
}

/// An attribute header and payload, padded.
fn nla(kind: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(uapi::nla_total_size(payload.len()));
    v.extend(((uapi::NLA_HDRLEN + payload.len()) as u16).to_ne_bytes());
    v.extend(kind.to_ne_bytes());
    v.extend(payload);
    v.resize(uapi::nla_align(v.len()), 0);
    v
}

/// The right payload for `attr` with plausible content.
fn payload(r: &mut Rng, attr: Attr) -> Vec<u8> {
    match attr {
        Attr::Unspec | Attr::Pad => Vec::new(),
        Attr::Rate => {
            let v: u64 = match r.below(6) {
                0 => 0,
                1 => *r.pick(&[1, 8, 1000, 64_000]),
                2 => *r.pick(&[1_000_000, 20_000_000, 1_000_000_000]),
                3 => *r.pick(&[u64::MAX, u64::MAX - 1, 1 << 63, 100_000_000_000_000]),
                4 => u64::from(r.u32()),
                _ => r.u64(),
            };
            v.to_ne_bytes().to_vec()
        }
        Attr::Priomap | Attr::Dscpmap => {
            let n = if attr == Attr::Priomap { 16 } else { 64 };
            let top = if r.chance(80) { 4 } else { 256 };
            (0..n).map(|_| r.below(top) as u8).collect()
        }
        Attr::Quanta | Attr::Weights => {
            let n = 1 + r.below(16);
            (0..n)
                .flat_map(|_| {
                    let v = if r.chance(70) {
                        *r.pick(&[1, 64, 1500, 3000, 65536])
                    } else {
                        value_u32(r)
                    };
                    u32::to_ne_bytes(v)
                })
                .collect()
        }
        _ => plausible_u32(r, attr).to_ne_bytes().to_vec(),
    }
}

/// A plausible options payload: a few known attributes, each once, right sizes.
fn options(r: &mut Rng) -> Vec<(u16, Vec<u8>)> {
    let n = r.below(7);
    let mut attrs: Vec<(u16, Vec<u8>)> = Vec::new();
    for _ in 0..n {
        // Skip UNSPEC; PAD is legal anywhere.
        let attr = Attr::ALL[1 + r.below(Attr::ALL.len() - 1)];
        if attrs.iter().any(|(k, _)| *k == attr as u16) {
            continue;
        }
        attrs.push((attr as u16, payload(r, attr)));
    }
    attrs
}

fn encode(attrs: &[(u16, Vec<u8>)]) -> Vec<u8> {
    attrs.iter().flat_map(|(k, p)| nla(*k, p)).collect()
}

/// Damages an options list and encodes it; returns the bytes and what was done.
fn damage_options(r: &mut Rng, mut attrs: Vec<(u16, Vec<u8>)>) -> (Vec<u8>, String) {
    if attrs.is_empty() {
        let attr = Attr::ALL[2 + r.below(Attr::ALL.len() - 2)];
        attrs.push((attr as u16, payload(r, attr)));
    }
    let i = r.below(attrs.len());
    let kind = attrs[i].0;
    match r.below(11) {
        0 => {
            let len = *r.pick(&[0usize, 1, 2, 3, 5, 6, 7, 8, 12, 15, 17, 63, 65, 68, 200]);
            attrs[i].1.resize(len, 0xa5);
            (
                encode(&attrs),
                format!("attr {kind}: payload of {len} bytes"),
            )
        }
        1 => {
            attrs[i].0 |= NLA_F_NESTED;
            (
                encode(&attrs),
                format!("attr {kind}: NLA_F_NESTED on a scalar"),
            )
        }
        2 => {
            attrs[i].0 |= NLA_F_NET_BYTEORDER;
            (encode(&attrs), format!("attr {kind}: NLA_F_NET_BYTEORDER"))
        }
        3 => {
            let dup = attrs[i].clone();
            attrs.insert(r.below(attrs.len() + 1), dup);
            (encode(&attrs), format!("attr {kind}: given twice"))
        }
        4 => {
            let unknown = *r.pick(&[0u16, uapi::TCA_ECNSHARP_MAX + 1, 40, 0x3fff, 0x7fff]);
            let len = r.below(9);
            attrs.insert(r.below(attrs.len() + 1), (unknown, vec![0x11; len]));
            (
                encode(&attrs),
                format!("unknown attr {unknown} ({len} bytes)"),
            )
        }
        5 => {
            // The last header claims more than is there.
            let mut b = encode(&attrs);
            let extra = 1 + r.below(300);
            let at = b.len() - uapi::nla_align(attrs.last().map_or(0, |a| 4 + a.1.len()));
            let len = u16::from_ne_bytes([b[at], b[at + 1]]).saturating_add(extra as u16);
            b[at..at + 2].copy_from_slice(&len.to_ne_bytes());
            (b, format!("last attr's length overruns by {extra}"))
        }
        6 => {
            let mut b = encode(&attrs);
            let tail = 1 + r.below(3);
            b.extend(std::iter::repeat_n(0x42, tail));
            (b, format!("{tail} bytes left over"))
        }
        7 => {
            let mut b = encode(&attrs);
            let short = r.below(4) as u16;
            b.extend(short.to_ne_bytes());
            b.extend(kind.to_ne_bytes());
            (b, format!("a header with length {short}"))
        }
        8 => {
            // Known attributes nested one level too deep, under a known number.
            let inner = encode(&attrs[i..]);
            attrs.truncate(i);
            let mut b = encode(&attrs);
            b.extend(nla(kind | NLA_F_NESTED, &inner));
            (b, format!("attrs nested under {kind}"))
        }
        9 => {
            // Cut the encoding anywhere, possibly mid-header.
            let mut b = encode(&attrs);
            let cut = r.below(b.len().max(1));
            b.truncate(cut);
            (b, format!("cut at byte {cut}"))
        }
        _ => {
            let mut b = encode(&attrs);
            let flips = 1 + r.below(4);
            for _ in 0..flips {
                if !b.is_empty() {
                    let at = r.below(b.len());
                    b[at] ^= 1 << r.below(8);
                }
            }
            (b, format!("{flips} bits flipped"))
        }
    }
}

/// Builds requests for one target; the sequence numbers count up from 1.
pub struct Generator {
    rng: Rng,
    target: Target,
    seq: u32,
}

impl Generator {
    /// A generator for `target` seeded with `seed`.
    pub fn new(seed: u64, target: Target) -> Generator {
        Generator {
            rng: Rng::new(seed),
            target,
            seq: 0,
        }
    }

    /// The next request: 85% for the qdisc, 15% for its classes or filters.
    pub fn next_request(&mut self) -> Request {
        self.seq = self.seq.wrapping_add(1);
        if self.rng.chance(15) {
            return self.class_or_filter();
        }
        let r = &mut self.rng;
        let op = *r.pick(&[
            Op::Add,
            Op::Change,
            Op::Change,
            Op::Replace,
            Op::Replace,
            Op::Delete,
        ]);
        let parent = *r.pick(&self.target.parents);
        let mut handle = self.target.handle;
        let mut ifindex = self.target.ifindex;
        let mut kind: Vec<u8> = b"ecnsharp\0".to_vec();
        let mut defect = Defect::None;
        let mut what = String::from("well formed");

        let attrs = options(r);
        let (mut opts, mut opts_flag) = (encode(&attrs), NLA_F_NESTED);
        let mut with_options = op != Op::Delete && !r.chance(5);
        if op != Op::Delete && r.chance(70) {
            let (b, w) = damage_options(r, attrs);
            opts = b;
            defect = Defect::Options;
            what = w;
        }
        let mut extra: Vec<u8> = Vec::new();
        let mut stab = false;
        let mut tcm_cut = None;
        let mut overrun = 0usize;
        if r.chance(15) {
            defect = Defect::Outer;
            match r.below(8) {
                0 => {
                    opts_flag = 0;
                    with_options = true;
                    what = String::from("TCA_OPTIONS without NLA_F_NESTED");
                }
                1 => {
                    kind = r
                        .pick(&[&b"ecnsharpX\0"[..], b"ecnsharp", b"\0", b"ecnshar\0", b""])
                        .to_vec();
                    what = format!("kind {:?}", String::from_utf8_lossy(&kind));
                }
                2 => {
                    let cut = r.below(TCMSG_LEN);
                    tcm_cut = Some(cut);
                    what = format!("tcmsg cut to {cut} bytes");
                }
                3 => {
                    overrun = 1 + r.below(64);
                    with_options = true;
                    what = format!("TCA_OPTIONS overruns the message by {overrun}");
                }
                4 => {
                    let random = r.u32();
                    handle = *r.pick(&[0, 0xffff_ffff, 0xffff_0000, random]);
                    what = format!("handle {handle:#x}");
                }
                5 => {
                    ifindex = *r.pick(&[0, 9999, u32::MAX]);
                    what = format!("ifindex {ifindex}");
                }
                6 => {
                    extra = nla(TCA_INGRESS_BLOCK, &r.u32().to_ne_bytes());
                    what = String::from("TCA_INGRESS_BLOCK");
                }
                _ => {
                    // A size table (tc's `stab`): valid overhead-only, or garbage.
                    let mut spec = [0u8; 24];
                    spec[4..8].copy_from_slice(&(r.below(200) as i32 - 100).to_ne_bytes());
                    if r.chance(50) {
                        spec[20..24].copy_from_slice(&r.u32().to_ne_bytes());
                    }
                    extra = nla(TCA_STAB | NLA_F_NESTED, &nla(TCA_STAB_BASE, &spec));
                    stab = true;
                    what = String::from("size table");
                }
            }
        }
        if op == Op::Delete && defect == Defect::Options {
            defect = Defect::None;
        }

        let mut body = Vec::new();
        body.push(0u8); // tcm_family AF_UNSPEC
        body.extend([0u8; 3]);
        body.extend(ifindex.to_ne_bytes());
        body.extend(handle.to_ne_bytes());
        body.extend(parent.to_ne_bytes());
        body.extend(0u32.to_ne_bytes());
        if let Some(cut) = tcm_cut {
            body.truncate(cut);
        } else {
            if !kind.is_empty() || r.chance(50) {
                body.extend(nla(TCA_KIND, &kind));
            }
            body.extend(&extra);
            if with_options {
                let mut o = nla(TCA_OPTIONS | opts_flag, &opts);
                if overrun > 0 {
                    let len = u16::from_ne_bytes([o[0], o[1]]).saturating_add(overrun as u16);
                    o[0..2].copy_from_slice(&len.to_ne_bytes());
                }
                body.extend(o);
            }
        }
        let (kind_nl, flags) = match op {
            Op::Add => (RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL),
            Op::Replace => (RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE),
            Op::Delete => (RTM_DELQDISC, 0),
            _ => (RTM_NEWQDISC, 0),
        };
        let shape = Shape {
            msg: kind_nl,
            flags,
            parent,
            handle,
            info: 0,
            options: (with_options && op != Op::Delete).then(|| opts.clone()),
            intact: defect != Defect::Outer,
            stab,
        };
        let mut bytes = Vec::with_capacity(NLMSG_HDRLEN + body.len());
        bytes.extend(((NLMSG_HDRLEN + body.len()) as u32).to_ne_bytes());
        bytes.extend(kind_nl.to_ne_bytes());
        bytes.extend((flags | NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
        bytes.extend(self.seq.to_ne_bytes());
        bytes.extend(0u32.to_ne_bytes());
        bytes.extend(body);
        Request {
            bytes,
            seq: self.seq,
            op,
            defect,
            what,
            shape,
        }
    }

    /// A class request (`tc class` on ecnsharp's classes, which it has but cannot change or
    /// delete) or a `matchall` filter on its block (`tc filter add dev X parent H: prio P
    /// matchall classid H:N`), sometimes damaged.
    fn class_or_filter(&mut self) -> Request {
        let r = &mut self.rng;
        let h = self.target.handle;
        let mut intact = true;
        let mut what = String::from("well formed");
        let mut attrs = Vec::new();
        let (msg, flags, mut parent, handle, info, op);
        if r.chance(60) {
            op = Op::Filter;
            msg = *r.pick(&[RTM_NEWTFILTER, RTM_NEWTFILTER, RTM_DELTFILTER]);
            let prio = if msg == RTM_DELTFILTER {
                r.below(5) as u32
            } else {
                1 + r.below(4) as u32
            };
            // A class has no block: the kernel refuses a filter there.
            parent = if r.chance(85) {
                h
            } else {
                h | (1 + r.below(20) as u32)
            };
            // A flush (priority 0) must name no protocol; half of them do, and are refused.
            info = if prio == 0 && r.chance(50) {
                0
            } else {
                (prio << 16) | PROTO_ALL
            };
            handle = 0;
            flags = if msg == RTM_NEWTFILTER {
                NLM_F_CREATE | NLM_F_EXCL
            } else {
                0
            };
            if msg == RTM_NEWTFILTER {
                let class = h | (1 + r.below(18) as u32);
                let mut opts = tc::nla(TCA_MATCHALL_CLASSID, &class.to_ne_bytes());
                let mut kind: &[u8] = b"matchall\0";
                if r.chance(20) {
                    intact = false;
                    match r.below(4) {
                        0 => {
                            kind = b"matchal\0";
                            what = String::from("filter kind matchal");
                        }
                        1 => {
                            opts.truncate(6);
                            what = String::from("matchall options cut");
                        }
                        2 => {
                            opts.extend(tc::nla(0x7ff, &[1, 2, 3]));
                            what = String::from("matchall option 0x7ff");
                        }
                        _ => {
                            opts = r.u64().to_ne_bytes().to_vec();
                            what = String::from("matchall options garbage");
                        }
                    }
                }
                attrs.extend(tc::nla(TCA_KIND, kind));
                attrs.extend(tc::nla(TCA_OPTIONS | NLA_F_NESTED, &opts));
            }
        } else {
            op = Op::Class;
            msg = *r.pick(&[RTM_NEWTCLASS, RTM_NEWTCLASS, RTM_DELTCLASS, RTM_GETTCLASS]);
            flags = if msg == RTM_NEWTCLASS {
                *r.pick(&[
                    0,
                    NLM_F_CREATE,
                    NLM_F_CREATE | NLM_F_EXCL,
                    NLM_F_CREATE | NLM_F_REPLACE,
                ])
            } else {
                0
            };
            parent = h;
            handle = h | r.below(21) as u32;
            info = 0;
            if r.chance(50) {
                attrs.extend(tc::nla(TCA_KIND, b"ecnsharp\0"));
            }
            if r.chance(50) {
                let opts = encode(&options(r));
                attrs.extend(tc::nla(TCA_OPTIONS | NLA_F_NESTED, &opts));
            }
        }
        if r.chance(10) {
            intact = false;
            let random = r.u32();
            parent = *r.pick(&[0, 0xffff_0000, 0x1_0000, random]);
            what = format!("parent {parent:#x}");
        }
        let bytes = tc::message(
            msg,
            flags | NLM_F_REQUEST | NLM_F_ACK,
            self.seq,
            self.target.ifindex,
            handle,
            parent,
            info,
            &attrs,
        );
        Request {
            bytes,
            seq: self.seq,
            op,
            // Not the qdisc's options: an error may come from the core or a classifier.
            defect: Defect::Outer,
            what,
            shape: Shape {
                msg,
                flags,
                parent,
                handle,
                info,
                options: None,
                intact,
                stab: false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            ifindex: 3,
            parents: vec![0xffff_ffff, 0x10001],
            handle: 0x100000,
        }
    }

    #[test]
    fn replays_from_the_seed() {
        let (mut a, mut b) = (Generator::new(42, target()), Generator::new(42, target()));
        for _ in 0..500 {
            let (x, y) = (a.next_request(), b.next_request());
            assert_eq!((x.bytes, x.what), (y.bytes, y.what));
        }
    }

    #[test]
    fn messages_are_framed_and_varied() {
        let mut g = Generator::new(1, target());
        let (mut options, mut outer, mut none, mut deletes) = (0, 0, 0, 0);
        for i in 1..=5000u32 {
            let req = g.next_request();
            let len = u32::from_ne_bytes(req.bytes[0..4].try_into().unwrap()) as usize;
            assert_eq!(len, req.bytes.len());
            assert_eq!(req.seq, i);
            match req.defect {
                Defect::Options => options += 1,
                Defect::Outer => outer += 1,
                Defect::None => none += 1,
            }
            deletes += usize::from(req.op == Op::Delete);
        }
        assert!(options > 1500 && outer > 400 && none > 800 && deletes > 500);
    }

    #[test]
    fn undamaged_options_decode() {
        // The plausible payloads are really the attributes' sizes: without damage, the host
        // decoder objects only to values, never to framing.
        let mut r = Rng::new(3);
        for _ in 0..2000 {
            let bytes = encode(&options(&mut r));
            let mut cfg = ecnsharp::config::Config::DEFAULT;
            if let Err(e) = uapi::decode_options(&bytes, &mut cfg) {
                let reason = e.reason.to_str().unwrap_or_default();
                assert!(!reason.contains("length"), "{reason}");
                assert!(!reason.contains("twice"), "{reason}");
            }
        }
    }
}
