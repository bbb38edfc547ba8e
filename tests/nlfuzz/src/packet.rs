// SPDX-License-Identifier: GPL-2.0-only
//! `AF_PACKET` sockets: one that sends hand-built frames through the device's qdisc, and a
//! tcpdump-like tap (`ETH_P_ALL`) that clones every frame the device transmits.

use std::io;
use std::time::{Duration, Instant};

use crate::frames;

const ETH_P_ALL: u16 = 0x0003;
const PACKET_VNET_HDR: libc::c_int = 15;
const PACKET_OUTGOING: u8 = 4;

fn last_error(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// A raw packet socket bound to one interface.
pub struct PacketSocket {
    fd: libc::c_int,
    ifindex: i32,
}

impl PacketSocket {
    /// Opens a socket on `ifindex`; `protocol` 0 sends only, `ETH_P_ALL` also receives all.
    fn open(ifindex: u32, protocol: u16) -> io::Result<PacketSocket> {
        // SAFETY: plain syscall; the result is checked.
        let fd = unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                i32::from(protocol.to_be()),
            )
        };
        if fd < 0 {
            return Err(last_error("socket(AF_PACKET)"));
        }
        let s = PacketSocket {
            fd,
            ifindex: ifindex as i32,
        };
        let addr = s.addr(protocol);
        // SAFETY: `addr` is a valid sockaddr_ll of the size passed.
        let rc = unsafe {
            libc::bind(
                fd,
                (&addr as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(last_error("bind(AF_PACKET)"));
        }
        Ok(s)
    }

    fn addr(&self, protocol: u16) -> libc::sockaddr_ll {
        // SAFETY: an all-zero sockaddr_ll is valid; the fields that matter are set below.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = protocol.to_be();
        addr.sll_ifindex = self.ifindex;
        addr
    }

    /// A sender on `ifindex` whose frames get `skb->priority` `priority`; with `vnet` each
    /// frame starts with a `virtio_net_hdr` (GSO).
    pub fn sender(ifindex: u32, vnet: bool, priority: libc::c_int) -> io::Result<PacketSocket> {
        let s = PacketSocket::open(ifindex, 0)?;
        // SAFETY: `priority` lives across the call and its size is passed.
        let rc = unsafe {
            libc::setsockopt(
                s.fd,
                libc::SOL_SOCKET,
                libc::SO_PRIORITY,
                (&priority as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(last_error("SO_PRIORITY"));
        }
        if vnet {
            let one: libc::c_int = 1;
            // SAFETY: `one` lives across the call and its size is passed.
            let rc = unsafe {
                libc::setsockopt(
                    s.fd,
                    libc::SOL_PACKET,
                    PACKET_VNET_HDR,
                    (&one as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
            if rc != 0 {
                return Err(last_error("PACKET_VNET_HDR"));
            }
        }
        Ok(s)
    }

    /// Sends one frame through the device's qdisc. Protocol 0: the kernel reads the ethertype
    /// from the frame (and finds the network header behind VLAN tags).
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        let addr = self.addr(0);
        // SAFETY: `frame` and `addr` are valid for the lengths passed.
        let rc = unsafe {
            libc::sendto(
                self.fd,
                frame.as_ptr().cast(),
                frame.len(),
                0,
                (&addr as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if rc < 0 {
            return Err(last_error("sendto(AF_PACKET)"));
        }
        Ok(())
    }
}

impl Drop for PacketSocket {
    fn drop(&mut self) {
        // SAFETY: `fd` is ours and closed once.
        unsafe { libc::close(self.fd) };
    }
}

/// What a tap counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct TapCounts {
    /// Frames the device transmitted.
    pub frames: u64,
    /// Of those, IPv4 and IPv6 (after VLAN tags).
    pub ip: u64,
    /// With VLAN tags.
    pub tagged: u64,
    /// IP with CE.
    pub ce: u64,
    /// IP with ECT(0) or ECT(1).
    pub ect: u64,
    /// Longer than 1518 bytes: GSO packets sent whole, jumbo frames.
    pub big: u64,
}

/// Taps `ifindex` and counts what the device transmits (`PACKET_OUTGOING`) until `stop` exists
/// (then what is already queued on the socket is still read) or `duration` has passed. Calls
/// `ready` once the socket is bound: from then on every frame sent is seen.
pub fn tap(
    ifindex: u32,
    duration: Duration,
    stop: &std::path::Path,
    ready: impl FnOnce(),
) -> io::Result<TapCounts> {
    let s = PacketSocket::open(ifindex, ETH_P_ALL)?;
    // Room for a few thousand frames, so none is lost before they are read.
    let size: libc::c_int = 8 << 20;
    // SAFETY: `size` lives across the call and its size is passed.
    let rc = unsafe {
        libc::setsockopt(
            s.fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            (&size as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(last_error("SO_RCVBUFFORCE"));
    }
    ready();
    let tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 100_000,
    };
    // SAFETY: `tv` is a valid timeval for the call; its size is passed.
    let rc = unsafe {
        libc::setsockopt(
            s.fd,
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&tv as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(last_error("SO_RCVTIMEO"));
    }
    let mut counts = TapCounts::default();
    let mut buf = vec![0u8; 65536];
    let end = Instant::now() + duration;
    // Empty reads (100 ms each) since the stop file appeared: a frame the qdisc has just
    // dequeued reaches the tap a moment later, later still on a guest its host starves.
    let mut quiet_after_stop = 0;
    while Instant::now() < end {
        // SAFETY: an all-zero sockaddr_ll is valid; the kernel fills it.
        let mut from: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        let mut from_len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        // SAFETY: `buf` and `from` are valid for writes of the lengths passed.
        let n = unsafe {
            libc::recvfrom(
                s.fd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                0,
                (&mut from as *mut libc::sockaddr_ll).cast(),
                &mut from_len,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
            ) {
                // Nothing queued for 100 ms: stop if asked, after a second of empty reads.
                if stop.exists() {
                    quiet_after_stop += 1;
                    if quiet_after_stop >= 10 {
                        break;
                    }
                }
                continue;
            }
            return Err(e);
        }
        if from.sll_pkttype != PACKET_OUTGOING {
            continue;
        }
        counts.frames += 1;
        // Longer than an Ethernet frame at MTU 1500 (with a VLAN tag): a GSO packet the qdisc
        // held whole, or a jumbo frame.
        if n > 1518 {
            counts.big += 1;
        }
        let seen = frames::parse(&buf[..n as usize]);
        if seen.tags > 0 {
            counts.tagged += 1;
        }
        if seen.ip != 0 {
            counts.ip += 1;
            match seen.ecn {
                3 => counts.ce += 1,
                1 | 2 => counts.ect += 1,
                _ => {}
            }
        }
    }
    Ok(counts)
}
