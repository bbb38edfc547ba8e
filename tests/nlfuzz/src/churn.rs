// SPDX-License-Identifier: GPL-2.0-only
//! Valid configuration changes as fast as the kernel takes them: `RTM_NEWQDISC` without create
//! flags (a `tc qdisc change`), each with a new band count (1 to 6), limit, marking mode,
//! scheduler and shaper rate. tc itself needs a few hundred milliseconds per command in the
//! bench guest; this goes through the same kernel path many times a second.

use ecnsharp::config::Modes;
use ecnsharp::uapi;

use crate::rng::Rng;

const RTM_NEWQDISC: u16 = 36;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_ACK: u16 = 0x4;
const TCA_KIND: u16 = 1;
const TCA_OPTIONS: u16 = 2;

fn nla(kind: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend(((uapi::NLA_HDRLEN + payload.len()) as u16).to_ne_bytes());
    v.extend(kind.to_ne_bytes());
    v.extend(payload);
    v.resize(uapi::nla_align(v.len()), 0);
    v
}

/// The mode presets of tc's `mode` keyword.
const MODES: [Modes; 7] = [
    Modes::ECN_SHARP,
    Modes::INSTANTANEOUS,
    Modes::PERSISTENT,
    Modes::QUEUE_ENQUEUE,
    Modes::QUEUE_DEQUEUE,
    Modes::PROBABILISTIC,
    Modes(Modes::ECN_SHARP.0 | Modes::PROBABILISTIC.0),
];

/// A change request for the qdisc `handle` under `parent` on `ifindex`, with sequence `seq`.
pub fn change_request(r: &mut Rng, ifindex: u32, parent: u32, handle: u32, seq: u32) -> Vec<u8> {
    let rate: u64 = *r.pick(&[0, 5_000_000, 30_000_000, 100_000_000, 1_000_000_000]);
    let mut opts = Vec::new();
    opts.extend(nla(
        uapi::TCA_ECNSHARP_BANDS,
        &(1 + r.below(6) as u32).to_ne_bytes(),
    ));
    opts.extend(nla(
        uapi::TCA_ECNSHARP_LIMIT,
        &(5 + r.below(400) as u32).to_ne_bytes(),
    ));
    opts.extend(nla(
        uapi::TCA_ECNSHARP_MODES,
        &r.pick(&MODES).0.to_ne_bytes(),
    ));
    opts.extend(nla(
        uapi::TCA_ECNSHARP_SCHED,
        &(r.below(3) as u32).to_ne_bytes(),
    ));
    opts.extend(nla(uapi::TCA_ECNSHARP_RATE, &rate.to_ne_bytes()));
    let mut body = Vec::new();
    body.extend([0u8; 4]);
    body.extend(ifindex.to_ne_bytes());
    body.extend(handle.to_ne_bytes());
    body.extend(parent.to_ne_bytes());
    body.extend(0u32.to_ne_bytes());
    body.extend(nla(TCA_KIND, b"ecnsharp\0"));
    body.extend(nla(TCA_OPTIONS | uapi::NLA_F_NESTED, &opts));
    let mut m = Vec::new();
    m.extend(((16 + body.len()) as u32).to_ne_bytes());
    m.extend(RTM_NEWQDISC.to_ne_bytes());
    m.extend((NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
    m.extend(seq.to_ne_bytes());
    m.extend(0u32.to_ne_bytes());
    m.extend(body);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_carry_valid_options() {
        let mut r = Rng::new(5);
        for seq in 1..500 {
            let m = change_request(&mut r, 2, 0xffff_ffff, 0x10000, seq);
            assert_eq!(
                u32::from_ne_bytes(m[0..4].try_into().unwrap()) as usize,
                m.len()
            );
            // The options nest starts after the header, the tcmsg and TCA_KIND (4 + 12).
            let opts = &m[16 + 20 + 16 + 4..];
            let mut cfg = ecnsharp::config::Config::DEFAULT;
            uapi::decode_options(opts, &mut cfg).unwrap();
            assert!((1..=6).contains(&cfg.bands));
        }
    }
}
