// SPDX-License-Identifier: GPL-2.0-only
//! Odd Ethernet frames, built byte by byte, and the parser the tap uses to read ECN back.

/// The frame kinds `craft` knows (`gso` and `gso6` are TCP super-packets, see [`gso_frame`]).
pub const KINDS: [&str; 18] = [
    "ipv4",
    "ipv4-opts",
    "ipv6-ext",
    "vlan",
    "qinq",
    "vlan6",
    "nonip",
    "arp",
    "trunc4",
    "trunc6",
    "ce",
    "badihl",
    "runt",
    "jumbo",
    "frag4",
    "frag6",
    "gso",
    "gso6",
];

/// Addresses of the test network (tests/vm/guest/lib.sh pg_pair).
pub struct Addrs {
    /// Source MAC.
    pub src_mac: [u8; 6],
    /// Destination MAC.
    pub dst_mac: [u8; 6],
}

const SRC4: [u8; 4] = [10, 1, 0, 1];
const DST4: [u8; 4] = [10, 1, 0, 2];
const SRC6: [u8; 16] = [0xfd, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const DST6: [u8; 16] = [0xfd, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
/// ECT(0).
pub const ECT0: u8 = 2;
/// CE.
pub const CE: u8 = 3;

/// The Internet checksum of `data`.
pub fn csum(data: &[u8]) -> u16 {
    let mut sum: u32 = data
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn ether(a: &Addrs, ethertype: u16) -> Vec<u8> {
    let mut f = Vec::with_capacity(1514);
    f.extend(a.dst_mac);
    f.extend(a.src_mac);
    f.extend(ethertype.to_be_bytes());
    f
}

/// A UDP datagram to port 9 (discard) with `len` payload bytes; checksum 0 (none, IPv4 only).
fn udp(len: usize) -> Vec<u8> {
    let mut u = Vec::with_capacity(8 + len);
    u.extend(4000u16.to_be_bytes());
    u.extend(9u16.to_be_bytes());
    u.extend(((8 + len) as u16).to_be_bytes());
    u.extend(0u16.to_be_bytes());
    u.extend(std::iter::repeat_n(0x5a, len));
    u
}

/// An IPv4 header with `opt_words` 32-bit words of NOP options, TOS `tos`, protocol `proto`,
/// for `payload` bytes of payload; `ihl` overrides the header-length field when given.
fn ipv4(tos: u8, opt_words: usize, proto: u8, payload: usize, ihl: Option<u8>) -> Vec<u8> {
    let hl = 20 + 4 * opt_words;
    let mut h = vec![0u8; hl];
    h[0] = 0x40 | ihl.unwrap_or((hl / 4) as u8);
    h[1] = tos;
    h[2..4].copy_from_slice(&((hl + payload) as u16).to_be_bytes());
    h[6] = 0x40; // DF
    h[8] = 64;
    h[9] = proto;
    h[12..16].copy_from_slice(&SRC4);
    h[16..20].copy_from_slice(&DST4);
    for b in &mut h[20..] {
        *b = 1; // NOP
    }
    let c = csum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h
}

/// An IPv6 header (traffic class `tc`) followed by a hop-by-hop and a destination-options
/// header (PadN), then UDP.
fn ipv6_ext(tc: u8, payload: usize) -> Vec<u8> {
    let u = udp(payload);
    let ext_len = 8 + 8;
    let mut h = vec![0u8; 40];
    h[0] = 0x60 | (tc >> 4);
    h[1] = tc << 4;
    h[4..6].copy_from_slice(&((ext_len + u.len()) as u16).to_be_bytes());
    h[6] = 0; // hop-by-hop
    h[7] = 64;
    h[8..24].copy_from_slice(&SRC6);
    h[24..40].copy_from_slice(&DST6);
    // Hop-by-hop: next header 60 (destination options), length 0 (8 bytes), PadN of 4.
    h.extend([60, 0, 1, 4, 0, 0, 0, 0]);
    // Destination options: next header 17 (UDP), PadN of 4.
    h.extend([17, 0, 1, 4, 0, 0, 0, 0]);
    let mut pseudo = Vec::new();
    pseudo.extend(SRC6);
    pseudo.extend(DST6);
    pseudo.extend((u.len() as u32).to_be_bytes());
    pseudo.extend([0, 0, 0, 17]);
    pseudo.extend(&u);
    let c = csum(&pseudo);
    let mut u = u;
    u[6..8].copy_from_slice(&c.to_be_bytes());
    h.extend(u);
    h
}

/// A UDP/IPv6 packet (traffic class `tc`) with `payload` bytes, checksum computed.
fn ipv6_udp(tc: u8, payload: usize) -> Vec<u8> {
    let mut u = udp(payload);
    let mut h = vec![0u8; 40];
    h[0] = 0x60 | (tc >> 4);
    h[1] = tc << 4;
    h[4..6].copy_from_slice(&(u.len() as u16).to_be_bytes());
    h[6] = 17;
    h[7] = 64;
    h[8..24].copy_from_slice(&SRC6);
    h[24..40].copy_from_slice(&DST6);
    let mut pseudo = Vec::new();
    pseudo.extend(SRC6);
    pseudo.extend(DST6);
    pseudo.extend((u.len() as u32).to_be_bytes());
    pseudo.extend([0, 0, 0, 17]);
    pseudo.extend(&u);
    let c = csum(&pseudo);
    u[6..8].copy_from_slice(&c.to_be_bytes());
    h.extend(u);
    h
}

/// Half of a UDP datagram of 2 x 256 payload bytes cut into two IPv4 fragments: the first
/// (more-fragments set) for even `variant`, the second (offset 264) for odd, the pair with
/// identification `variant / 2`, so the receiver can reassemble each pair.
fn frag4(tos: u8, variant: usize) -> Vec<u8> {
    let datagram = udp(512 - 8);
    let (part, off, mf) = if variant.is_multiple_of(2) {
        (&datagram[..264], 0u16, 0x2000u16)
    } else {
        (&datagram[264..], 264 / 8, 0)
    };
    let mut h = ipv4(tos, 0, 17, part.len(), None);
    h[4..6].copy_from_slice(&((variant / 2) as u16 + 1).to_be_bytes());
    h[6..8].copy_from_slice(&(mf | off).to_be_bytes());
    h[10..12].copy_from_slice(&[0, 0]);
    let c = csum(&h);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h.extend(part);
    h
}

/// As [`frag4`] for IPv6: a fragment header (44) after the fixed header.
fn frag6(tc: u8, variant: usize) -> Vec<u8> {
    let whole = ipv6_udp(tc, 512 - 8);
    let datagram = &whole[40..];
    let (part, off, m) = if variant.is_multiple_of(2) {
        (&datagram[..264], 0u16, 1u16)
    } else {
        (&datagram[264..], 264 / 8, 0)
    };
    let mut h = whole[..40].to_vec();
    h[4..6].copy_from_slice(&((8 + part.len()) as u16).to_be_bytes());
    h[6] = 44;
    h.extend([17, 0]);
    h.extend(((off << 3) | m).to_be_bytes());
    h.extend(((variant / 2) as u32 + 1).to_be_bytes());
    h.extend(part);
    h
}

/// A frame of `kind` with ECN field `ecn` where the kind has one, `size` bytes of payload.
/// `None` for an unknown kind. (`gso` is built by [`gso_frame`].)
pub fn frame(kind: &str, a: &Addrs, ecn: u8, size: usize, variant: usize) -> Option<Vec<u8>> {
    let v4_sized = |tos: u8, payload: usize| {
        let u = udp(payload);
        let mut p = ipv4(tos, 0, 17, u.len(), None);
        p.extend(u);
        p
    };
    let v4 = |tos: u8, words: usize| {
        let u = udp(size);
        let mut p = ipv4(tos, words, 17, u.len(), None);
        p.extend(u);
        p
    };
    let f = match kind {
        "ipv4" => [ether(a, 0x0800), v4(ecn, 0)].concat(),
        "ce" => [ether(a, 0x0800), v4(CE, 0)].concat(),
        "ipv4-opts" => [ether(a, 0x0800), v4(ecn, 1 + variant % 10)].concat(),
        "ipv6-ext" => [ether(a, 0x86dd), ipv6_ext(ecn, size)].concat(),
        "vlan" => {
            let mut f = ether(a, 0x8100);
            f.extend(5u16.to_be_bytes());
            f.extend(0x0800u16.to_be_bytes());
            [f, v4(ecn, 0)].concat()
        }
        "qinq" => {
            let mut f = ether(a, 0x88a8);
            f.extend(7u16.to_be_bytes());
            f.extend(0x8100u16.to_be_bytes());
            f.extend(5u16.to_be_bytes());
            f.extend(0x0800u16.to_be_bytes());
            [f, v4(ecn, 0)].concat()
        }
        "vlan6" => {
            let mut f = ether(a, 0x8100);
            f.extend(5u16.to_be_bytes());
            f.extend(0x86ddu16.to_be_bytes());
            [f, ipv6_udp(ecn, size)].concat()
        }
        "nonip" => {
            let mut f = ether(a, 0x88b5);
            f.extend(std::iter::repeat_n(ecn, size.max(46)));
            f
        }
        "arp" => {
            // A request for 10.1.0.2 from 10.1.0.1, as the stack would broadcast it.
            let mut f = ether(a, 0x0806);
            f.extend([0, 1, 8, 0, 6, 4, 0, 1]);
            f.extend(a.src_mac);
            f.extend(SRC4);
            f.extend([0u8; 6]);
            f.extend(DST4);
            f
        }
        // IPv4/UDP with no payload: a 42-byte frame, below Ethernet's 60-byte minimum.
        "runt" => [ether(a, 0x0800), v4_sized(ecn, 0)].concat(),
        // IPv4/UDP filling a 9000-byte MTU: `size` is ignored.
        "jumbo" => [ether(a, 0x0800), v4_sized(ecn, 9000 - 28)].concat(),
        "frag4" => [ether(a, 0x0800), frag4(ecn, variant)].concat(),
        "frag6" => [ether(a, 0x86dd), frag6(ecn, variant)].concat(),
        "trunc4" => {
            let mut f = ether(a, 0x0800);
            let full = v4(ecn, 0);
            f.extend(&full[..1 + variant % 19]);
            f
        }
        "trunc6" => {
            let mut f = ether(a, 0x86dd);
            let full = ipv6_ext(ecn, size);
            f.extend(&full[..1 + variant % 39]);
            f
        }
        "badihl" => {
            let u = udp(size);
            let mut p = ipv4(ecn, 0, 17, u.len(), Some((variant % 5) as u8));
            p.extend(u);
            [ether(a, 0x0800), p].concat()
        }
        _ => return None,
    };
    Some(f)
}

/// `struct virtio_net_hdr` then a TCP super-packet (IPv4, or IPv6 with `v6`) of `segments` x
/// `mss` bytes that the stack segments after the qdisc (the tap and the receiver see `segments`
/// packets).
pub fn gso_frame(a: &Addrs, ecn: u8, segments: usize, mss: usize) -> Vec<u8> {
    gso_frame_of(a, ecn, segments, mss, false)
}

/// [`gso_frame`], over IPv6 when `v6`.
pub fn gso_frame_of(a: &Addrs, ecn: u8, segments: usize, mss: usize, v6: bool) -> Vec<u8> {
    if v6 {
        return gso6_frame(a, ecn, segments, mss);
    }
    let payload = segments * mss;
    let mut tcp = vec![0u8; 20];
    tcp[0..2].copy_from_slice(&4000u16.to_be_bytes());
    tcp[2..4].copy_from_slice(&9u16.to_be_bytes());
    tcp[4..8].copy_from_slice(&1u32.to_be_bytes());
    tcp[12] = 5 << 4;
    tcp[13] = 0x18; // PSH ACK
    tcp[14..16].copy_from_slice(&65535u16.to_be_bytes());
    // The pseudo-header sum, as CHECKSUM_PARTIAL wants it in the check field.
    let mut pseudo = Vec::new();
    pseudo.extend(SRC4);
    pseudo.extend(DST4);
    pseudo.extend([0, 6]);
    pseudo.extend(((20 + payload) as u16).to_be_bytes());
    let partial = !csum(&pseudo);
    tcp[16..18].copy_from_slice(&partial.to_be_bytes());
    let ip = ipv4(ecn, 0, 6, 20 + payload, None);
    let mut vnet = [0u8; 10];
    vnet[0] = 1; // VIRTIO_NET_HDR_F_NEEDS_CSUM
    vnet[1] = 1; // VIRTIO_NET_HDR_GSO_TCPV4
    vnet[2..4].copy_from_slice(&((14 + 20 + 20) as u16).to_ne_bytes());
    vnet[4..6].copy_from_slice(&(mss as u16).to_ne_bytes());
    vnet[6..8].copy_from_slice(&((14 + 20) as u16).to_ne_bytes());
    vnet[8..10].copy_from_slice(&16u16.to_ne_bytes());
    let mut f = vnet.to_vec();
    f.extend(ether(a, 0x0800));
    f.extend(ip);
    f.extend(tcp);
    f.extend(std::iter::repeat_n(0x33, payload));
    f
}

/// The IPv6 twin of [`gso_frame`]: `VIRTIO_NET_HDR_GSO_TCPV6`.
fn gso6_frame(a: &Addrs, ecn: u8, segments: usize, mss: usize) -> Vec<u8> {
    let payload = segments * mss;
    let mut tcp = vec![0u8; 20];
    tcp[0..2].copy_from_slice(&4000u16.to_be_bytes());
    tcp[2..4].copy_from_slice(&9u16.to_be_bytes());
    tcp[4..8].copy_from_slice(&1u32.to_be_bytes());
    tcp[12] = 5 << 4;
    tcp[13] = 0x18; // PSH ACK
    tcp[14..16].copy_from_slice(&65535u16.to_be_bytes());
    let mut pseudo = Vec::new();
    pseudo.extend(SRC6);
    pseudo.extend(DST6);
    pseudo.extend(((20 + payload) as u32).to_be_bytes());
    pseudo.extend([0, 0, 0, 6]);
    let partial = !csum(&pseudo);
    tcp[16..18].copy_from_slice(&partial.to_be_bytes());
    let mut ip = vec![0u8; 40];
    ip[0] = 0x60 | (ecn >> 4);
    ip[1] = ecn << 4;
    ip[4..6].copy_from_slice(&((20 + payload) as u16).to_be_bytes());
    ip[6] = 6;
    ip[7] = 64;
    ip[8..24].copy_from_slice(&SRC6);
    ip[24..40].copy_from_slice(&DST6);
    let mut vnet = [0u8; 10];
    vnet[0] = 1; // VIRTIO_NET_HDR_F_NEEDS_CSUM
    vnet[1] = 4; // VIRTIO_NET_HDR_GSO_TCPV6
    vnet[2..4].copy_from_slice(&((14 + 40 + 20) as u16).to_ne_bytes());
    vnet[4..6].copy_from_slice(&(mss as u16).to_ne_bytes());
    vnet[6..8].copy_from_slice(&((14 + 40) as u16).to_ne_bytes());
    vnet[8..10].copy_from_slice(&16u16.to_ne_bytes());
    let mut f = vnet.to_vec();
    f.extend(ether(a, 0x86dd));
    f.extend(ip);
    f.extend(tcp);
    f.extend(std::iter::repeat_n(0x33, payload));
    f
}

/// What the tap learned from one frame: its IP version (after any VLAN tags) and ECN field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// 4, 6, or 0 for anything else (or a header too short to read).
    pub ip: u8,
    /// VLAN tags skipped.
    pub tags: u8,
    /// The ECN field when `ip` is 4 or 6.
    pub ecn: u8,
}

/// Reads an Ethernet frame as the tap sees it.
pub fn parse(f: &[u8]) -> Seen {
    let mut seen = Seen {
        ip: 0,
        tags: 0,
        ecn: 0,
    };
    let mut at = 12;
    loop {
        let Some(t) = f.get(at..at + 2) else {
            return seen;
        };
        match u16::from_be_bytes([t[0], t[1]]) {
            0x8100 | 0x88a8 => {
                seen.tags += 1;
                at += 4;
            }
            0x0800 => {
                if let Some(h) = f.get(at + 2..at + 22) {
                    seen.ip = 4;
                    seen.ecn = h[1] & 3;
                }
                return seen;
            }
            0x86dd => {
                if let Some(h) = f.get(at + 2..at + 42) {
                    seen.ip = 6;
                    seen.ecn = ((u16::from_be_bytes([h[0], h[1]]) >> 4) & 3) as u8;
                }
                return seen;
            }
            _ => return seen,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs() -> Addrs {
        Addrs {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [2, 0, 0, 0, 0, 2],
        }
    }

    #[test]
    fn checksums_verify() {
        let h = ipv4(ECT0, 3, 17, 100, None);
        assert_eq!(h.len(), 32);
        assert_eq!(csum(&h), 0);
        assert_eq!(csum(&[0xff, 0xff]), 0);
    }

    #[test]
    fn every_kind_builds_and_reads_back() {
        let a = addrs();
        for kind in KINDS.iter().filter(|k| !k.starts_with("gso")) {
            for variant in 0..40 {
                let f = frame(kind, &a, ECT0, 64, variant).unwrap();
                let seen = parse(&f);
                match *kind {
                    "ipv4" | "ipv4-opts" | "badihl" | "runt" | "jumbo" | "frag4" => {
                        assert_eq!((seen.ip, seen.ecn), (4, ECT0))
                    }
                    "frag6" => assert_eq!((seen.ip, seen.ecn), (6, ECT0)),
                    "vlan6" => assert_eq!((seen.ip, seen.tags, seen.ecn), (6, 1, ECT0)),
                    "ce" => assert_eq!((seen.ip, seen.ecn), (4, CE)),
                    "ipv6-ext" => assert_eq!((seen.ip, seen.ecn), (6, ECT0)),
                    "vlan" => assert_eq!((seen.ip, seen.tags, seen.ecn), (4, 1, ECT0)),
                    "qinq" => assert_eq!((seen.ip, seen.tags, seen.ecn), (4, 2, ECT0)),
                    _ => assert_eq!(seen.ip, 0, "{kind}"),
                }
            }
        }
        assert!(frame("nope", &a, 0, 1, 0).is_none());
        assert_eq!(frame("runt", &a, ECT0, 64, 0).unwrap().len(), 42);
        assert_eq!(frame("jumbo", &a, ECT0, 64, 0).unwrap().len(), 9014);
        // Fragments: valid header checksums, the pair's payloads add up to the datagram.
        let (f0, f1) = (frag4(ECT0, 0), frag4(ECT0, 1));
        assert_eq!((csum(&f0[..20]), csum(&f1[..20])), (0, 0));
        assert_eq!(f0.len() - 20 + f1.len() - 20, 512);
        assert_eq!(frag6(ECT0, 0)[6], 44);
        let g6 = gso_frame_of(&a, ECT0, 8, 1000, true);
        assert_eq!(g6.len(), 10 + 14 + 40 + 20 + 8000);
        assert_eq!(parse(&g6[10..]).ip, 6);
        let g = gso_frame(&a, ECT0, 8, 1000);
        assert_eq!(g.len(), 10 + 14 + 20 + 20 + 8000);
        assert_eq!(
            parse(&g[10..]),
            Seen {
                ip: 4,
                tags: 0,
                ecn: ECT0
            }
        );
    }
}
