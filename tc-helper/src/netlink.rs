// SPDX-License-Identifier: GPL-2.0-only
//! The rtnetlink side of `ecnsharp-tc`: the requests tc would send for `qdisc add`, `change`,
//! `replace`, `del` and `show`, built with netlink-packet-route, and the answers read back
//! (acks with the kernel's extack message, qdisc dumps).
//!
//! All I/O goes through the small [`Netlink`] trait, so the command layer runs against a fake
//! in the host tests, byte for byte (aya's way of testing a syscall layer).

use std::ffi::{CStr, CString};
use std::io;

use ecnsharp::uapi::{NlaIter, NLA_F_NESTED};
use netlink_packet_core::{
    DefaultNla, NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_ACK, NLM_F_ACK_TLVS,
    NLM_F_CAPPED, NLM_F_CREATE, NLM_F_DUMP, NLM_F_EXCL, NLM_F_REPLACE, NLM_F_REQUEST,
};
use netlink_packet_route::tc::{TcAttribute, TcHandle, TcMessage};
use netlink_packet_route::RouteNetlinkMessage;

/// `TCA_OPTIONS` in `linux/rtnetlink.h`.
pub const TCA_OPTIONS: u16 = 2;
/// `NLMSGERR_ATTR_MSG` in `linux/netlink.h`: the extack message of an ack.
const NLMSGERR_ATTR_MSG: u16 = 1;
/// Bytes of a `struct nlmsghdr`.
const NLMSG_HDRLEN: usize = 16;
/// `TC_H_ROOT`: the parent of a root qdisc.
pub const TC_H_ROOT: u32 = 0xffff_ffff;

/// Everything `ecnsharp-tc` needs from the system: one rtnetlink socket and interface names.
pub trait Netlink {
    /// Sends one request message.
    fn send(&mut self, msg: &[u8]) -> io::Result<()>;
    /// Receives one datagram (it may hold several messages).
    fn recv(&mut self) -> io::Result<Vec<u8>>;
    /// The index of interface `name`, if there is one.
    fn ifindex(&mut self, name: &str) -> Option<u32>;
    /// The name of interface `index`, if there is one.
    fn ifname(&mut self, index: u32) -> Option<String>;
    /// The interfaces that are up: each has a root qdisc, so each appears in a complete dump.
    fn up_links(&mut self) -> Vec<u32>;
}

/// The real thing: a `NETLINK_ROUTE` socket, opened at first use (so `tune` needs none), asking
/// for extended acks (the kernel's error messages) and capped acks (as iproute2 does).
#[derive(Default)]
pub struct Socket {
    socket: Option<netlink_sys::Socket>,
}

impl Socket {
    fn socket(&mut self) -> io::Result<&netlink_sys::Socket> {
        if self.socket.is_none() {
            let mut s = netlink_sys::Socket::new(netlink_sys::protocols::NETLINK_ROUTE)?;
            s.bind_auto()?;
            s.connect(&netlink_sys::SocketAddr::new(0, 0))?;
            s.set_ext_ack(true)?;
            s.set_cap_ack(true)?;
            self.socket = Some(s);
        }
        self.socket
            .as_ref()
            .ok_or_else(|| io::Error::other("no netlink socket"))
    }
}

impl Netlink for Socket {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        let n = self.socket()?.send(msg, 0)?;
        if n != msg.len() {
            return Err(io::Error::other("short netlink send"));
        }
        Ok(())
    }

    fn recv(&mut self) -> io::Result<Vec<u8>> {
        Ok(self.socket()?.recv_from_full()?.0)
    }

    fn ifindex(&mut self, name: &str) -> Option<u32> {
        let name = CString::new(name).ok()?;
        // SAFETY: `name` is a valid NUL-terminated string for the duration of the call.
        let index = unsafe { libc::if_nametoindex(name.as_ptr()) };
        (index != 0).then_some(index)
    }

    fn ifname(&mut self, index: u32) -> Option<String> {
        let mut buf = [0 as libc::c_char; libc::IF_NAMESIZE];
        // SAFETY: `buf` has the IF_NAMESIZE bytes if_indextoname may write.
        let p = unsafe { libc::if_indextoname(index, buf.as_mut_ptr()) };
        if p.is_null() {
            return None;
        }
        // SAFETY: on success if_indextoname wrote a NUL-terminated name into `buf`.
        let name = unsafe { CStr::from_ptr(buf.as_ptr()) };
        Some(name.to_string_lossy().into_owned())
    }

    fn up_links(&mut self) -> Vec<u32> {
        let mut up = Vec::new();
        // SAFETY: plain socket(2); the descriptor is closed below.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return up;
        }
        // SAFETY: if_nameindex returns null or an array ended by a zero entry, freed below.
        let list = unsafe { libc::if_nameindex() };
        if !list.is_null() {
            let mut entry = list;
            // SAFETY: every entry up to the terminator is valid (if_nameindex(3)).
            while unsafe { (*entry).if_index } != 0 {
                // SAFETY: as above; `ifr` is a zeroed ifreq whose name we fill (NUL-terminated,
                // IF_NAMESIZE at most) before SIOCGIFFLAGS, which writes only the flags.
                unsafe {
                    let mut ifr: libc::ifreq = std::mem::zeroed();
                    let name = CStr::from_ptr((*entry).if_name).to_bytes();
                    for (dst, src) in ifr
                        .ifr_name
                        .iter_mut()
                        .zip(name.iter().take(libc::IF_NAMESIZE - 1))
                    {
                        *dst = *src as libc::c_char;
                    }
                    if libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut ifr) == 0
                        && i32::from(ifr.ifr_ifru.ifru_flags) & libc::IFF_UP != 0
                    {
                        up.push((*entry).if_index);
                    }
                    entry = entry.add(1);
                }
            }
            // SAFETY: `list` came from if_nameindex.
            unsafe { libc::if_freenameindex(list) };
        }
        // SAFETY: `fd` is ours.
        unsafe { libc::close(fd) };
        up
    }
}

/// A [`Netlink`] that also appends every datagram received to a file, each behind its length
/// (`u32`, little-endian): `ECNSHARP_TC_RECORD=FILE` records what the kernel said, for a bug
/// report or a test fixture ([`replay`] reads it back).
pub struct Recording<N> {
    /// The real thing.
    pub inner: N,
    /// Where the datagrams go.
    pub file: std::fs::File,
}

impl<N: Netlink> Netlink for Recording<N> {
    fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.inner.send(msg)
    }

    fn recv(&mut self) -> io::Result<Vec<u8>> {
        use std::io::Write;
        let datagram = self.inner.recv()?;
        let len = u32::try_from(datagram.len()).map_err(io::Error::other)?;
        self.file.write_all(&len.to_le_bytes())?;
        self.file.write_all(&datagram)?;
        Ok(datagram)
    }

    fn ifindex(&mut self, name: &str) -> Option<u32> {
        self.inner.ifindex(name)
    }

    fn ifname(&mut self, index: u32) -> Option<String> {
        self.inner.ifname(index)
    }

    fn up_links(&mut self) -> Vec<u32> {
        self.inner.up_links()
    }
}

/// The datagrams of a recording made with [`Recording`].
#[cfg(test)]
pub fn replay(mut recording: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    while let Some((len, rest)) = recording.split_first_chunk::<4>() {
        let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
        out.push(rest.get(..len)?.to_vec());
        recording = rest.get(len..)?;
    }
    recording.is_empty().then_some(out)
}

/// A change to a qdisc, as tc's verbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// `add`: create, fail if it exists.
    Add,
    /// `change`: modify the existing qdisc.
    Change,
    /// `replace`: create or replace.
    Replace,
    /// `del`: delete.
    Delete,
}

impl Verb {
    /// The netlink flags tc sends with this verb (tc's `rtnl_talk` adds `NLM_F_ACK`).
    pub fn flags(self) -> u16 {
        NLM_F_REQUEST
            | NLM_F_ACK
            | match self {
                Verb::Add => NLM_F_CREATE | NLM_F_EXCL,
                Verb::Replace => NLM_F_CREATE | NLM_F_REPLACE,
                Verb::Change | Verb::Delete => 0,
            }
    }
}

/// Which qdisc: device, parent and handle as tc numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// Interface index.
    pub ifindex: u32,
    /// Parent classid ([`TC_H_ROOT`] for `root`), 0 for none given.
    pub parent: u32,
    /// Handle (`major << 16`), 0 for none given.
    pub handle: u32,
}

fn header(flags: u16, seq: u32) -> NetlinkHeader {
    let mut h = NetlinkHeader::default();
    h.flags = flags;
    h.sequence_number = seq;
    h
}

fn serialize(header: NetlinkHeader, msg: RouteNetlinkMessage) -> Vec<u8> {
    let mut nl = NetlinkMessage::new(header, NetlinkPayload::InnerMessage(msg));
    nl.finalize();
    let mut buf = vec![0u8; nl.buffer_len()];
    nl.serialize(&mut buf);
    buf
}

/// The request for `verb` on an ecnsharp qdisc at `target`: kind `ecnsharp` and, unless
/// deleting, one `TCA_OPTIONS | NLA_F_NESTED` attribute around `options` (the attributes the
/// user gave, as [`ecnsharp::options::Options::encode`] wrote them; possibly none).
pub fn qdisc_request(verb: Verb, target: Target, options: &[u8], seq: u32) -> Vec<u8> {
    let mut tc = TcMessage::with_index(i32::try_from(target.ifindex).unwrap_or(0));
    tc.header.parent = TcHandle::from(target.parent);
    tc.header.handle = TcHandle::from(target.handle);
    tc.attributes
        .push(TcAttribute::Kind("ecnsharp".to_string()));
    if verb != Verb::Delete {
        // netlink-packet-route writes its typed Options without NLA_F_NESTED, which 6.12's
        // strict nla_parse_nested() refuses: send the nest as one attribute with the flag.
        let nest = DefaultNla::new(TCA_OPTIONS | NLA_F_NESTED, options.to_vec());
        tc.attributes.push(TcAttribute::Other(nest));
    }
    let msg = match verb {
        Verb::Delete => RouteNetlinkMessage::DelQueueDiscipline(tc),
        _ => RouteNetlinkMessage::NewQueueDiscipline(tc),
    };
    serialize(header(verb.flags(), seq), msg)
}

/// The dump request of `qdisc show` (with the device's index when filtering by one, as tc).
pub fn dump_request(ifindex: u32, seq: u32) -> Vec<u8> {
    let tc = TcMessage::with_index(i32::try_from(ifindex).unwrap_or(0));
    let msg = RouteNetlinkMessage::GetQueueDiscipline(tc);
    serialize(header(NLM_F_REQUEST | NLM_F_DUMP, seq), msg)
}

/// Why a request failed.
#[derive(Debug)]
pub enum NlError {
    /// The socket failed.
    Io(io::Error),
    /// The kernel refused: errno (positive) and its extack message, if any.
    Kernel {
        /// The errno.
        errno: i32,
        /// `NLMSGERR_ATTR_MSG`.
        message: Option<String>,
    },
    /// An answer that could not be read.
    Decode(String),
}

impl From<io::Error> for NlError {
    fn from(e: io::Error) -> Self {
        NlError::Io(e)
    }
}

/// The extack message of an error or ack message, from the TLVs after the echoed request.
fn extack_message(flags: u16, after_code: &[u8]) -> Option<String> {
    if flags & NLM_F_ACK_TLVS == 0 {
        return None;
    }
    let echoed = if flags & NLM_F_CAPPED != 0 {
        NLMSG_HDRLEN
    } else {
        let len = u32::from_ne_bytes(after_code.get(..4)?.try_into().ok()?);
        usize::try_from(len).ok()?.checked_next_multiple_of(4)?
    };
    for nla in NlaIter::new(after_code.get(echoed..)?) {
        let nla = nla.ok()?;
        if nla.kind == NLMSGERR_ATTR_MSG {
            let text = nla.payload.split(|b| *b == 0).next().unwrap_or(&[]);
            return Some(String::from_utf8_lossy(text).into_owned());
        }
    }
    None
}

/// One message of a datagram: its header and parsed payload, or why it did not parse.
type Parsed = (
    NetlinkHeader,
    Result<NetlinkPayload<RouteNetlinkMessage>, String>,
);

/// Splits a datagram into messages and parses each one.
fn messages(buf: &[u8]) -> Result<Vec<Parsed>, NlError> {
    let mut out = Vec::new();
    let mut rest = buf;
    while rest.len() >= NLMSG_HDRLEN {
        let len = u32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]);
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        if len < NLMSG_HDRLEN || len > rest.len() {
            return Err(NlError::Decode(format!("bad netlink message length {len}")));
        }
        let (one, tail) = rest.split_at(len);
        let mut header = NetlinkHeader::default();
        header.length = u32::try_from(len).unwrap_or(0);
        header.message_type = u16::from_ne_bytes([one[4], one[5]]);
        header.flags = u16::from_ne_bytes([one[6], one[7]]);
        header.sequence_number = u32::from_ne_bytes([one[8], one[9], one[10], one[11]]);
        let payload = NetlinkMessage::<RouteNetlinkMessage>::deserialize(one)
            .map(|m| m.payload)
            .map_err(|e| e.to_string());
        out.push((header, payload));
        rest = tail.get(len.next_multiple_of(4) - len..).unwrap_or(&[]);
    }
    Ok(out)
}

/// The error code and extack message of an `NLMSG_ERROR`, read from the raw bytes.
fn error_of(header: &NetlinkHeader, raw_after_code: &[u8], code: i32) -> NlError {
    NlError::Kernel {
        errno: code.saturating_neg(),
        message: extack_message(header.flags, raw_after_code),
    }
}

/// Sends `msg` (sequence `seq`) and waits for the kernel's ack: on success, the warning the
/// kernel may have attached to it (an extack message with error 0, which tc prints as
/// `Warning: ...`).
pub fn talk(nl: &mut impl Netlink, msg: &[u8], seq: u32) -> Result<Option<String>, NlError> {
    nl.send(msg)?;
    loop {
        let buf = nl.recv()?;
        for (header, payload) in messages(&buf)? {
            if header.sequence_number != seq {
                continue;
            }
            match payload {
                Ok(NetlinkPayload::Error(e)) => match e.code {
                    None => {
                        let warning = extack_message(header.flags, &e.header);
                        return Ok(warning.filter(|w| !w.is_empty()));
                    }
                    Some(code) => return Err(error_of(&header, &e.header, code.get())),
                },
                Ok(_) => {}
                Err(why) => return Err(NlError::Decode(why)),
            }
        }
    }
}

/// A dump's qdiscs, and warnings for messages that could not be read (skipped).
pub struct Dump {
    /// The qdiscs, in the kernel's order.
    pub qdiscs: Vec<TcMessage>,
    /// One line per message skipped.
    pub warnings: Vec<String>,
}

/// The request for `class show dev DEV`: a dump of the device's classes (the kernel needs the
/// device for class dumps).
pub fn class_dump_request(ifindex: u32, seq: u32) -> Vec<u8> {
    let tc = TcMessage::with_index(i32::try_from(ifindex).unwrap_or(0));
    let msg = RouteNetlinkMessage::GetTrafficClass(tc);
    serialize(header(NLM_F_REQUEST | NLM_F_DUMP, seq), msg)
}

/// Sends a dump request and collects every qdisc (or class) message until `NLMSG_DONE`.
pub fn dump(nl: &mut impl Netlink, msg: &[u8], seq: u32) -> Result<Dump, NlError> {
    nl.send(msg)?;
    let mut out = Dump {
        qdiscs: Vec::new(),
        warnings: Vec::new(),
    };
    loop {
        let buf = nl.recv()?;
        for (header, payload) in messages(&buf)? {
            if header.sequence_number != seq {
                continue;
            }
            match payload {
                Ok(NetlinkPayload::Done(_)) => return Ok(out),
                Ok(NetlinkPayload::Error(e)) => {
                    if let Some(code) = e.code {
                        return Err(error_of(&header, &e.header, code.get()));
                    }
                }
                Ok(NetlinkPayload::InnerMessage(
                    RouteNetlinkMessage::NewQueueDiscipline(tc)
                    | RouteNetlinkMessage::NewTrafficClass(tc),
                )) => out.qdiscs.push(tc),
                Ok(_) => {}
                Err(why) => out.warnings.push(format!("skipped a qdisc message: {why}")),
            }
        }
    }
}

#[cfg(test)]
pub mod fake {
    //! A kernel that answers from a script, recording what it was sent.

    use super::*;
    use std::collections::{BTreeMap, VecDeque};

    /// The fake: interfaces, the datagrams to answer with, the requests seen.
    #[derive(Default)]
    pub struct Kernel {
        /// Interfaces by name.
        pub links: BTreeMap<String, u32>,
        /// What `recv` returns, in order.
        pub answers: VecDeque<Vec<u8>>,
        /// What `send` was given.
        pub sent: Vec<Vec<u8>>,
        /// Interfaces that are up (none unless a test says so).
        pub up: Vec<u32>,
    }

    impl Netlink for Kernel {
        fn send(&mut self, msg: &[u8]) -> io::Result<()> {
            self.sent.push(msg.to_vec());
            Ok(())
        }
        fn recv(&mut self) -> io::Result<Vec<u8>> {
            self.answers
                .pop_front()
                .ok_or_else(|| io::Error::other("fake kernel has no more answers"))
        }
        fn ifindex(&mut self, name: &str) -> Option<u32> {
            self.links.get(name).copied()
        }
        fn ifname(&mut self, index: u32) -> Option<String> {
            self.links
                .iter()
                .find(|(_, i)| **i == index)
                .map(|(n, _)| n.clone())
        }
        fn up_links(&mut self) -> Vec<u32> {
            self.up.clone()
        }
    }

    /// One netlink message: header fields and payload.
    pub fn message(kind: u16, flags: u16, seq: u32, payload: &[u8]) -> Vec<u8> {
        let len = NLMSG_HDRLEN + payload.len();
        let mut m = Vec::new();
        m.extend_from_slice(&(len as u32).to_ne_bytes());
        m.extend_from_slice(&kind.to_ne_bytes());
        m.extend_from_slice(&flags.to_ne_bytes());
        m.extend_from_slice(&seq.to_ne_bytes());
        m.extend_from_slice(&0u32.to_ne_bytes());
        m.extend_from_slice(payload);
        while !m.len().is_multiple_of(4) {
            m.push(0);
        }
        m
    }

    /// An ack (`errno` 0) or error, capped, with an extack message when given, as 6.12 sends.
    pub fn ack(seq: u32, errno: i32, extack: Option<&str>) -> Vec<u8> {
        let mut p = Vec::new();
        p.extend_from_slice(&(-errno).to_ne_bytes());
        // The echoed request header (capped: the header only).
        p.extend_from_slice(&message(36, NLM_F_REQUEST | NLM_F_ACK, seq, &[])[..16]);
        let mut flags = NLM_F_CAPPED;
        if let Some(text) = extack {
            flags |= NLM_F_ACK_TLVS;
            let mut s = text.as_bytes().to_vec();
            s.push(0);
            p.extend_from_slice(&((4 + s.len()) as u16).to_ne_bytes());
            p.extend_from_slice(&NLMSGERR_ATTR_MSG.to_ne_bytes());
            p.extend_from_slice(&s);
            while !p.len().is_multiple_of(4) {
                p.push(0);
            }
        }
        message(2, flags, seq, &p)
    }

    /// `NLMSG_DONE`.
    pub fn done(seq: u32) -> Vec<u8> {
        message(3, 2, seq, &0i32.to_ne_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::fake::*;
    use super::*;

    /// `qdisc add dev <index 3> root handle 1: ecnsharp bands 3`, laid out as tc's `addattr_l`
    /// lays it out (lengths include the padding; the nest has `NLA_F_NESTED`).
    #[rustfmt::skip]
    const ADD_BANDS_3: [u8; 64] = [
        64, 0, 0, 0,   36, 0,   0x05, 0x06,   1, 0, 0, 0,   0, 0, 0, 0, // nlmsghdr
        0, 0, 0, 0,   3, 0, 0, 0,   0, 0, 1, 0,   0xff, 0xff, 0xff, 0xff,   0, 0, 0, 0, // tcmsg
        13, 0, 1, 0,   b'e', b'c', b'n', b's', b'h', b'a', b'r', b'p', 0, 0, 0, 0, // TCA_KIND
        12, 0, 0x02, 0x80,   8, 0, 4, 0,   3, 0, 0, 0, // TCA_OPTIONS|NESTED { BANDS 3 }
    ];

    #[test]
    fn add_request_bytes() {
        let target = Target {
            ifindex: 3,
            parent: TC_H_ROOT,
            handle: 1 << 16,
        };
        let bands = [8, 0, 4, 0, 3, 0, 0, 0];
        assert_eq!(qdisc_request(Verb::Add, target, &bands, 1), ADD_BANDS_3);
    }

    #[test]
    fn verbs_and_flags() {
        let t = Target::default();
        let flags = |v| {
            let m = qdisc_request(v, t, &[], 9);
            (
                u16::from_ne_bytes([m[4], m[5]]),
                u16::from_ne_bytes([m[6], m[7]]),
            )
        };
        assert_eq!(flags(Verb::Add), (36, 0x605));
        assert_eq!(flags(Verb::Change), (36, 0x005));
        assert_eq!(flags(Verb::Replace), (36, 0x505));
        assert_eq!(flags(Verb::Delete), (37, 0x005));
        // Delete carries the kind but no options; the others an empty nest when none given.
        assert_eq!(qdisc_request(Verb::Delete, t, &[], 9).len(), 16 + 20 + 16);
        let change = qdisc_request(Verb::Change, t, &[], 9);
        assert_eq!(&change[52..], &[4, 0, 2, 0x80]);
        let dump = dump_request(7, 4);
        assert_eq!(dump.len(), 36);
        assert_eq!(&dump[4..12], &[38, 0, 0x01, 0x03, 4, 0, 0, 0]);
        assert_eq!(&dump[20..24], &7u32.to_ne_bytes());
    }

    #[test]
    fn recording_replays() {
        let path = std::env::temp_dir().join(format!("ecnsharp-tc-rec-{}", std::process::id()));
        let file = std::fs::File::create(&path).unwrap();
        let mut k = Kernel::default();
        k.answers.push_back(ack(1, 0, None));
        k.answers.push_back(done(2));
        let mut rec = Recording { inner: k, file };
        assert!(talk(&mut rec, b"a", 1).is_ok());
        assert_eq!(rec.recv().unwrap(), done(2));
        assert!(rec.recv().is_err());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(replay(&bytes).unwrap(), [ack(1, 0, None), done(2)]);
        assert_eq!(replay(&bytes[..bytes.len() - 1]), None);
        assert_eq!(replay(&[]), Some(vec![]));
    }

    #[test]
    fn acks_and_extack() {
        let mut k = Kernel::default();
        k.answers.push_back(ack(5, 0, None));
        assert!(talk(&mut k, b"req", 5).is_ok());
        assert_eq!(k.sent, [b"req".to_vec()]);
        // Messages of other sequence numbers are skipped.
        k.answers.push_back(
            [
                ack(4, 22, None),
                ack(6, 22, Some("tmin must not exceed tmax")),
            ]
            .concat(),
        );
        match talk(&mut k, b"req", 6) {
            Err(NlError::Kernel { errno: 22, message }) => {
                assert_eq!(message.as_deref(), Some("tmin must not exceed tmax"))
            }
            other => panic!("{other:?}"),
        }
        k.answers.push_back(ack(7, 17, None));
        assert!(matches!(
            talk(&mut k, b"req", 7),
            Err(NlError::Kernel {
                errno: 17,
                message: None
            })
        ));
        // Not capped: the whole request is echoed before the TLVs.
        let mut p = (-22i32).to_ne_bytes().to_vec();
        p.extend_from_slice(&message(36, 5, 8, &[1, 2, 3, 4]));
        p.extend_from_slice(&[8, 0, 1, 0, b'n', b'o', 0, 0]);
        let flags = NLM_F_ACK_TLVS;
        assert_eq!(extack_message(flags, &p[4..]).as_deref(), Some("no"));
        assert_eq!(extack_message(0, &p[4..]), None);
        assert_eq!(extack_message(flags, &p[4..10]), None);
        // A broken length is a decode error, not a panic.
        k.answers
            .push_back(vec![200, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(talk(&mut k, b"x", 7), Err(NlError::Decode(_))));
        assert!(matches!(talk(&mut k, b"x", 7), Err(NlError::Io(_))));
    }
}
