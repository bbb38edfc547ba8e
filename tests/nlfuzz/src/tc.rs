// SPDX-License-Identifier: GPL-2.0-only
//! Reading a device's traffic control back: its qdiscs, and the classes and filters of one
//! qdisc, from dumps (`RTM_GETQDISC`, `RTM_GETTCLASS`, `RTM_GETTFILTER` with `NLM_F_DUMP`), and
//! building the requests the fuzzer sends.

use std::collections::BTreeSet;
use std::io;

use crate::nl::{Socket, NLMSG_HDRLEN, NLM_F_DUMP};

pub const RTM_NEWQDISC: u16 = 36;
pub const RTM_DELQDISC: u16 = 37;
pub const RTM_GETQDISC: u16 = 38;
pub const RTM_NEWTCLASS: u16 = 40;
pub const RTM_DELTCLASS: u16 = 41;
pub const RTM_GETTCLASS: u16 = 42;
pub const RTM_NEWTFILTER: u16 = 44;
pub const RTM_DELTFILTER: u16 = 45;
pub const RTM_GETTFILTER: u16 = 46;
pub const NLM_F_REQUEST: u16 = 0x1;
pub const NLM_F_ACK: u16 = 0x4;
pub const NLM_F_REPLACE: u16 = 0x100;
pub const NLM_F_EXCL: u16 = 0x200;
pub const NLM_F_CREATE: u16 = 0x400;
pub const TCA_KIND: u16 = 1;
pub const TCA_OPTIONS: u16 = 2;
/// `TC_H_ROOT`.
pub const TC_H_ROOT: u32 = 0xffff_ffff;
/// `struct tcmsg` size.
pub const TCMSG_LEN: usize = 20;

/// One qdisc, class or filter as a dump shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tc {
    /// `tcm_ifindex`.
    pub ifindex: u32,
    /// `tcm_handle`.
    pub handle: u32,
    /// `tcm_parent`.
    pub parent: u32,
    /// `tcm_info` (a filter's priority and protocol).
    pub info: u32,
    /// `TCA_KIND`, without its NUL.
    pub kind: String,
    /// The payload of `TCA_OPTIONS`.
    pub options: Vec<u8>,
}

/// One attribute, padded.
pub fn nla(kind: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(4 + payload.len() + 3);
    v.extend(((4 + payload.len()) as u16).to_ne_bytes());
    v.extend(kind.to_ne_bytes());
    v.extend(payload);
    v.resize((v.len() + 3) & !3, 0);
    v
}

/// A tc request: netlink header, `tcmsg`, then `attrs` (already encoded).
#[allow(clippy::too_many_arguments)]
pub fn message(
    kind: u16,
    flags: u16,
    seq: u32,
    ifindex: u32,
    handle: u32,
    parent: u32,
    info: u32,
    attrs: &[u8],
) -> Vec<u8> {
    let mut body = Vec::with_capacity(TCMSG_LEN + attrs.len());
    body.extend([0u8; 4]);
    body.extend(ifindex.to_ne_bytes());
    body.extend(handle.to_ne_bytes());
    body.extend(parent.to_ne_bytes());
    body.extend(info.to_ne_bytes());
    body.extend(attrs);
    let mut m = Vec::with_capacity(NLMSG_HDRLEN + body.len());
    m.extend(((NLMSG_HDRLEN + body.len()) as u32).to_ne_bytes());
    m.extend(kind.to_ne_bytes());
    m.extend(flags.to_ne_bytes());
    m.extend(seq.to_ne_bytes());
    m.extend(0u32.to_ne_bytes());
    m.extend(body);
    m
}

/// Parses one `RTM_NEW*` message of a dump (header included).
pub fn parse(msg: &[u8]) -> Option<Tc> {
    let tcm = msg.get(NLMSG_HDRLEN..NLMSG_HDRLEN + TCMSG_LEN)?;
    let word = |at: usize| u32::from_ne_bytes(tcm[at..at + 4].try_into().unwrap_or_default());
    let mut tc = Tc {
        ifindex: word(4),
        handle: word(8),
        parent: word(12),
        info: word(16),
        kind: String::new(),
        options: Vec::new(),
    };
    let attrs = msg.get(NLMSG_HDRLEN + TCMSG_LEN..)?;
    for a in ecnsharp::uapi::NlaIter::new(attrs).flatten() {
        match a.kind {
            TCA_KIND => {
                let name = a.payload.split(|&b| b == 0).next().unwrap_or_default();
                tc.kind = String::from_utf8_lossy(name).into_owned();
            }
            TCA_OPTIONS => tc.options = a.payload.to_vec(),
            _ => {}
        }
    }
    Some(tc)
}

/// A dump of `kind` for `ifindex` (and `parent`, for classes and filters); `Err(errno)` if the
/// kernel refused it.
fn dump(
    sock: &mut Socket,
    seq: u32,
    kind: u16,
    ifindex: u32,
    parent: u32,
) -> io::Result<Result<Vec<Tc>, i32>> {
    let m = message(
        kind,
        NLM_F_REQUEST | NLM_F_DUMP,
        seq,
        ifindex,
        0,
        parent,
        0,
        &[],
    );
    Ok(sock.dump(&m, seq)?.map(|msgs| {
        msgs.iter()
            .filter_map(|m| parse(m))
            .filter(|t| t.ifindex == ifindex)
            .collect()
    }))
}

/// The qdiscs of `ifindex` (a handle of 0 is a default qdisc: none of the user's).
pub fn qdiscs(sock: &mut Socket, seq: u32, ifindex: u32) -> io::Result<Result<Vec<Tc>, i32>> {
    dump(sock, seq, RTM_GETQDISC, ifindex, 0)
}

/// The classes of the qdisc `handle` on `ifindex`.
pub fn classes(
    sock: &mut Socket,
    seq: u32,
    ifindex: u32,
    handle: u32,
) -> io::Result<Result<Vec<Tc>, i32>> {
    Ok(dump(sock, seq, RTM_GETTCLASS, ifindex, handle)?.map(|v| {
        v.into_iter()
            .filter(|c| c.handle >> 16 == handle >> 16)
            .collect()
    }))
}

/// The priorities of the filters attached to `parent` on `ifindex` (chain 0).
pub fn filter_prios(
    sock: &mut Socket,
    seq: u32,
    ifindex: u32,
    parent: u32,
) -> io::Result<Result<BTreeSet<u16>, i32>> {
    Ok(dump(sock, seq, RTM_GETTFILTER, ifindex, parent)?
        .map(|v| v.iter().map(|f| (f.info >> 16) as u16).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_and_parse_round_trip() {
        let attrs = [
            nla(TCA_KIND, b"ecnsharp\0"),
            nla(TCA_OPTIONS, &[8, 0, 1, 0, 5, 0, 0, 0]),
        ]
        .concat();
        let m = message(RTM_NEWQDISC, 0, 7, 3, 0x10_0000, TC_H_ROOT, 9, &attrs);
        assert_eq!(
            u32::from_ne_bytes(m[0..4].try_into().unwrap()) as usize,
            m.len()
        );
        let t = parse(&m).unwrap();
        assert_eq!(
            (t.ifindex, t.handle, t.parent, t.info, t.kind.as_str()),
            (3, 0x10_0000, TC_H_ROOT, 9, "ecnsharp")
        );
        assert_eq!(t.options, vec![8, 0, 1, 0, 5, 0, 0, 0]);
        assert!(parse(&m[..20]).is_none());
    }
}
