// SPDX-License-Identifier: GPL-2.0-only
//! A raw `NETLINK_ROUTE` socket: send one request, read its ack (errno and extack message).
//!
//! Deliberately no netlink library: the requests are malformed on purpose, and the ack is read
//! byte by byte as the kernel writes it (`netlink_ack` in `net/netlink/af_netlink.c`).

use std::io;
use std::time::Duration;

/// `struct nlmsghdr` size.
pub const NLMSG_HDRLEN: usize = 16;
/// `NLMSG_ERROR`: the type of an ack.
const NLMSG_ERROR: u16 = 2;
/// `NLMSG_DONE`: the end of a dump.
const NLMSG_DONE: u16 = 3;
/// `NLM_F_DUMP` (`NLM_F_ROOT | NLM_F_MATCH`).
pub const NLM_F_DUMP: u16 = 0x300;
/// `NLM_F_ACK_TLVS`: the ack carries extack attributes.
const NLM_F_ACK_TLVS: u16 = 0x200;
/// `NLM_F_CAPPED`: the ack carries only the request's header, not its payload.
const NLM_F_CAPPED: u16 = 0x100;
/// `NLMSGERR_ATTR_MSG`: the extack message (a C string).
const NLMSGERR_ATTR_MSG: u16 = 1;
/// `NLMSGERR_ATTR_OFFS`: the offset of the offending attribute in the request.
const NLMSGERR_ATTR_OFFS: u16 = 2;
/// `SOL_NETLINK` socket options.
const SOL_NETLINK: libc::c_int = 270;
const NETLINK_CAP_ACK: libc::c_int = 10;
const NETLINK_EXT_ACK: libc::c_int = 11;

/// What the kernel answered to one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// 0 on success, else the positive errno.
    pub errno: i32,
    /// The extack message, if any.
    pub message: Option<String>,
    /// The extack's offset of the offending attribute, if any.
    pub offset: Option<u32>,
}

/// An open rtnetlink socket.
pub struct Socket {
    fd: libc::c_int,
    buf: Vec<u8>,
}

fn last_error(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

impl Socket {
    /// Opens the socket, asking for extended and capped acks; a reply not read within
    /// `timeout` is an error.
    pub fn open(timeout: Duration) -> io::Result<Socket> {
        // SAFETY: plain syscall with constant arguments; the result is checked.
        let fd = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                libc::NETLINK_ROUTE,
            )
        };
        if fd < 0 {
            return Err(last_error("socket(AF_NETLINK)"));
        }
        let sock = Socket {
            fd,
            buf: vec![0; 65536],
        };
        sock.set_int(SOL_NETLINK, NETLINK_EXT_ACK, 1)?;
        sock.set_int(SOL_NETLINK, NETLINK_CAP_ACK, 1)?;
        let tv = libc::timeval {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_usec: timeout.subsec_micros() as libc::suseconds_t,
        };
        // SAFETY: `tv` is a valid timeval for the duration of the call; its size is passed.
        let rc = unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&tv as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(last_error("SO_RCVTIMEO"));
        }
        Ok(sock)
    }

    fn set_int(&self, level: libc::c_int, name: libc::c_int, value: libc::c_int) -> io::Result<()> {
        // SAFETY: `value` lives across the call and its size is passed.
        let rc = unsafe {
            libc::setsockopt(
                self.fd,
                level,
                name,
                (&value as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(last_error("setsockopt(SOL_NETLINK)"));
        }
        Ok(())
    }

    /// Sends `msg` (one or more netlink messages) to the kernel.
    pub fn send(&self, msg: &[u8]) -> io::Result<()> {
        // SAFETY: an all-zero sockaddr_nl is valid; the family is set below.
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        // SAFETY: `msg` and `addr` are valid for the lengths passed.
        let rc = unsafe {
            libc::sendto(
                self.fd,
                msg.as_ptr().cast(),
                msg.len(),
                0,
                (&addr as *const libc::sockaddr_nl).cast(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            )
        };
        if rc < 0 {
            return Err(last_error("sendto(netlink)"));
        }
        Ok(())
    }

    /// Sends a dump request (sequence `seq`) and returns every message of the reply, headers
    /// included, until `NLMSG_DONE`; an `NLMSG_ERROR` instead ends it with that errno.
    pub fn dump(&mut self, msg: &[u8], seq: u32) -> io::Result<Result<Vec<Vec<u8>>, i32>> {
        self.send(msg)?;
        let mut out = Vec::new();
        loop {
            // SAFETY: `buf` is valid for writes of its length.
            let n = unsafe { libc::recv(self.fd, self.buf.as_mut_ptr().cast(), self.buf.len(), 0) };
            if n < 0 {
                return Err(last_error(&format!("recv(netlink), dump seq {seq}")));
            }
            let data = &self.buf[..n as usize];
            let mut at = 0;
            while let Some(hdr) = data.get(at..at + NLMSG_HDRLEN) {
                let len = u32::from_ne_bytes(hdr[0..4].try_into().unwrap_or_default()) as usize;
                let kind = u16::from_ne_bytes([hdr[4], hdr[5]]);
                let got_seq = u32::from_ne_bytes(hdr[8..12].try_into().unwrap_or_default());
                if len < NLMSG_HDRLEN || at + len > data.len() {
                    return Err(io::Error::other(format!("malformed reply (len {len})")));
                }
                if got_seq == seq {
                    match kind {
                        NLMSG_DONE => return Ok(Ok(out)),
                        NLMSG_ERROR => {
                            let ack = parse_ack(&data[at..at + len], 0)?;
                            return Ok(Err(ack.errno));
                        }
                        _ => out.push(data[at..at + len].to_vec()),
                    }
                }
                at += (len + 3) & !3;
            }
        }
    }

    /// Reads datagrams until the ack of sequence number `seq` arrives.
    pub fn ack(&mut self, seq: u32) -> io::Result<Ack> {
        loop {
            // SAFETY: `buf` is valid for writes of its length.
            let n = unsafe { libc::recv(self.fd, self.buf.as_mut_ptr().cast(), self.buf.len(), 0) };
            if n < 0 {
                return Err(last_error(&format!("recv(netlink), waiting for seq {seq}")));
            }
            let data = &self.buf[..n as usize];
            let mut at = 0;
            while let Some(hdr) = data.get(at..at + NLMSG_HDRLEN) {
                let len = u32::from_ne_bytes(hdr[0..4].try_into().unwrap_or_default()) as usize;
                let kind = u16::from_ne_bytes([hdr[4], hdr[5]]);
                let flags = u16::from_ne_bytes([hdr[6], hdr[7]]);
                let got_seq = u32::from_ne_bytes(hdr[8..12].try_into().unwrap_or_default());
                if len < NLMSG_HDRLEN || at + len > data.len() {
                    return Err(io::Error::other(format!("malformed reply (len {len})")));
                }
                if kind == NLMSG_ERROR && got_seq == seq {
                    return parse_ack(&data[at..at + len], flags);
                }
                at += (len + 3) & !3;
            }
        }
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        // SAFETY: `fd` is ours and closed once.
        unsafe { libc::close(self.fd) };
    }
}

/// Parses one `NLMSG_ERROR` message (header included).
pub fn parse_ack(msg: &[u8], flags: u16) -> io::Result<Ack> {
    let short = || io::Error::other("ack too short");
    let err = msg.get(NLMSG_HDRLEN..NLMSG_HDRLEN + 4).ok_or_else(short)?;
    let error = i32::from_ne_bytes(err.try_into().map_err(|_| short())?);
    let mut ack = Ack {
        errno: error.checked_neg().unwrap_or(i32::MAX),
        ..Ack::default()
    };
    if flags & NLM_F_ACK_TLVS == 0 {
        return Ok(ack);
    }
    // The request's header follows the errno; without NLM_F_CAPPED its payload too.
    let inner = msg
        .get(NLMSG_HDRLEN + 4..NLMSG_HDRLEN + 8)
        .ok_or_else(short)?;
    let inner_len = u32::from_ne_bytes(inner.try_into().map_err(|_| short())?) as usize;
    let echoed = if flags & NLM_F_CAPPED != 0 {
        NLMSG_HDRLEN
    } else {
        inner_len
    };
    let start = (NLMSG_HDRLEN + 4 + echoed + 3) & !3;
    for nla in ecnsharp::uapi::NlaIter::new(msg.get(start..).unwrap_or_default()).flatten() {
        match nla.kind {
            NLMSGERR_ATTR_MSG => {
                let text = nla.payload.split(|&b| b == 0).next().unwrap_or_default();
                ack.message = Some(String::from_utf8_lossy(text).into_owned());
            }
            NLMSGERR_ATTR_OFFS => ack.offset = nla.u32(),
            _ => {}
        }
    }
    Ok(ack)
}

/// The index of network interface `name`.
pub fn ifindex(name: &str) -> io::Result<u32> {
    let c = std::ffi::CString::new(name).map_err(|_| io::Error::other("NUL in name"))?;
    // SAFETY: `c` is a valid C string for the call.
    let index = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if index == 0 {
        return Err(last_error(&format!("no interface {name}")));
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack_bytes(errno: i32, flags: u16, tlvs: &[(u16, &[u8])]) -> Vec<u8> {
        let mut m = vec![0u8; NLMSG_HDRLEN];
        m[4..6].copy_from_slice(&NLMSG_ERROR.to_ne_bytes());
        m[6..8].copy_from_slice(&flags.to_ne_bytes());
        m.extend((-errno).to_ne_bytes());
        let mut echoed = vec![0u8; NLMSG_HDRLEN];
        echoed[0..4].copy_from_slice(&60u32.to_ne_bytes());
        m.extend(echoed);
        for (kind, payload) in tlvs {
            m.extend(((4 + payload.len()) as u16).to_ne_bytes());
            m.extend(kind.to_ne_bytes());
            m.extend(*payload);
            while !m.len().is_multiple_of(4) {
                m.push(0);
            }
        }
        let len = m.len() as u32;
        m[0..4].copy_from_slice(&len.to_ne_bytes());
        m
    }

    #[test]
    fn reads_errno_message_and_offset() {
        let m = ack_bytes(
            22,
            NLM_F_ACK_TLVS | NLM_F_CAPPED,
            &[
                (NLMSGERR_ATTR_MSG, b"limit: bad\0"),
                (NLMSGERR_ATTR_OFFS, &40u32.to_ne_bytes()),
            ],
        );
        let ack = parse_ack(&m, NLM_F_ACK_TLVS | NLM_F_CAPPED).unwrap();
        assert_eq!(ack.errno, 22);
        assert_eq!(ack.message.as_deref(), Some("limit: bad"));
        assert_eq!(ack.offset, Some(40));
        let ok = ack_bytes(0, NLM_F_CAPPED, &[]);
        assert_eq!(parse_ack(&ok, NLM_F_CAPPED).unwrap(), Ack::default());
        assert!(parse_ack(&ok[..18], 0).is_err());
    }
}
