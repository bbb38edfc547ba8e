//! `sample`: the root qdisc's queue (backlog bytes, packets, drops) of one device every
//! INTERVAL, read over rtnetlink (RTM_GETQDISC dump, TCA_STATS2/TCA_STATS_QUEUE), so the queue
//! is seen every few milliseconds where a `tc` process per sample takes hundreds of them under
//! TCG. Prints "seconds backlog qlen drops" lines until the file STOP disappears; `--seed S`
//! spaces the samples as a Poisson process of the interval's mean.

use std::io::Write;
use std::time::{Duration, Instant};

const RTM_GETQDISC: u16 = 38;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_DONE: u16 = 3;
const NLMSG_ERROR: u16 = 2;
const TCA_STATS2: u16 = 7;
const TCA_STATS_QUEUE: u16 = 3;
const TC_H_ROOT: u32 = 0xFFFF_FFFF;

/// The root qdisc's (qlen, backlog, drops) from one dump's messages.
pub fn parse_root(buf: &[u8], ifindex: i32) -> Option<(u32, u32, u32)> {
    let mut off = 0;
    while off + 16 <= buf.len() {
        let len = u32::from_ne_bytes(buf[off..off + 4].try_into().ok()?) as usize;
        let ty = u16::from_ne_bytes(buf[off + 4..off + 6].try_into().ok()?);
        if len < 16 || off + len > buf.len() {
            return None;
        }
        let msg = &buf[off + 16..off + len];
        // struct tcmsg: family, pad, pad, ifindex (i32), handle, parent, info (u32 each).
        if ty != NLMSG_DONE && ty != NLMSG_ERROR && msg.len() >= 20 {
            let idx = i32::from_ne_bytes(msg[4..8].try_into().ok()?);
            let parent = u32::from_ne_bytes(msg[12..16].try_into().ok()?);
            if idx == ifindex && parent == TC_H_ROOT {
                let stats = attr(&msg[20..], TCA_STATS2)?;
                let q = attr(stats, TCA_STATS_QUEUE)?;
                // struct gnet_stats_queue: qlen, backlog, drops, requeues, overlimits.
                let f = |i: usize| u32::from_ne_bytes(q[i * 4..i * 4 + 4].try_into().unwrap());
                return (q.len() >= 12).then(|| (f(0), f(1), f(2)));
            }
        }
        off += (len + 3) & !3;
    }
    None
}

/// The payload of the first attribute of type `ty` in a run of netlink attributes.
fn attr(mut a: &[u8], ty: u16) -> Option<&[u8]> {
    while a.len() >= 4 {
        let len = u16::from_ne_bytes([a[0], a[1]]) as usize;
        let t = u16::from_ne_bytes([a[2], a[3]]) & 0x3FFF;
        if len < 4 || len > a.len() {
            return None;
        }
        if t == ty {
            return Some(&a[4..len]);
        }
        a = &a[((len + 3) & !3).min(a.len())..];
    }
    None
}

fn dump(
    fd: i32,
    ifindex: i32,
    seq: u32,
    buf: &mut [u8],
) -> Result<Option<(u32, u32, u32)>, String> {
    let mut req = [0u8; 36];
    req[0..4].copy_from_slice(&36u32.to_ne_bytes());
    req[4..6].copy_from_slice(&RTM_GETQDISC.to_ne_bytes());
    req[6..8].copy_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    req[8..12].copy_from_slice(&seq.to_ne_bytes());
    req[20..24].copy_from_slice(&ifindex.to_ne_bytes());
    // SAFETY: `req` is a valid buffer of the length passed, for the duration of the call.
    if unsafe { libc::send(fd, req.as_ptr().cast(), req.len(), 0) } < 0 {
        return Err(format!("netlink send: {}", std::io::Error::last_os_error()));
    }
    let mut found = None;
    loop {
        // SAFETY: `buf` is writable for its whole length during the call.
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n <= 0 {
            return Err(format!("netlink recv: {}", std::io::Error::last_os_error()));
        }
        let part = &buf[..n as usize];
        if found.is_none() {
            found = parse_root(part, ifindex);
        }
        // The dump ends with NLMSG_DONE (or an error) in the last message of a datagram.
        let mut off = 0;
        let mut done = false;
        while off + 16 <= part.len() {
            let len = u32::from_ne_bytes(part[off..off + 4].try_into().unwrap()) as usize;
            let ty = u16::from_ne_bytes(part[off + 4..off + 6].try_into().unwrap());
            done |= ty == NLMSG_DONE || ty == NLMSG_ERROR;
            if len < 16 {
                break;
            }
            off += (len + 3) & !3;
        }
        if done {
            return Ok(found);
        }
    }
}

/// Sample times: every INTERVAL, or (with a seed) at exponentially distributed gaps of that
/// mean, whose time average is unbiased whatever the queue's own period (Poisson arrivals see
/// time averages); a periodic sampler in virtual time can lock onto the shaper's or the
/// transport's period.
pub enum Spacing {
    Fixed(Duration),
    Poisson(Duration, u64),
}

pub fn run(dev: &str, spacing: Spacing, stop: &str) -> Result<(), String> {
    let (interval, mut rng) = match spacing {
        Spacing::Fixed(d) => (d, None),
        Spacing::Poisson(d, seed) => (d, Some(crate::rng::Rng::new(seed, 7))),
    };
    let cdev = std::ffi::CString::new(dev).map_err(|_| "bad device name")?;
    // SAFETY: a NUL-terminated name valid for the call.
    let ifindex = unsafe { libc::if_nametoindex(cdev.as_ptr()) } as i32;
    if ifindex == 0 {
        return Err(format!("no device {dev}"));
    }
    // SAFETY: plain socket creation; the fd is closed by the kernel at exit.
    let fd = unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW, libc::NETLINK_ROUTE) };
    if fd < 0 {
        return Err(format!(
            "netlink socket: {}",
            std::io::Error::last_os_error()
        ));
    }
    let mut buf = vec![0u8; 1 << 16];
    let t0 = Instant::now();
    let mut seq = 1;
    // Buffered: at microsecond intervals a write per line would cost more than the dump. The
    // stop file is looked at about every 10 ms for the same reason.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let every = (10_000 / interval.as_micros().max(1)).max(1) as u32;
    loop {
        if seq % every == 1 % every && !std::path::Path::new(stop).exists() {
            break;
        }
        if let Some((qlen, backlog, drops)) = dump(fd, ifindex, seq, &mut buf)? {
            writeln!(
                out,
                "{:.6} {backlog} {qlen} {drops}",
                t0.elapsed().as_secs_f64()
            )
            .map_err(|e| e.to_string())?;
        }
        seq += 1;
        match rng.as_mut() {
            Some(r) => std::thread::sleep(Duration::from_secs_f64(r.exp(interval.as_secs_f64()))),
            None => std::thread::sleep(interval),
        }
    }
    out.flush().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nlattr(ty: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = ((4 + payload.len()) as u16).to_ne_bytes().to_vec();
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(payload);
        while !v.len().is_multiple_of(4) {
            v.push(0);
        }
        v
    }

    fn msg(ifindex: i32, parent: u32, qlen: u32, backlog: u32) -> Vec<u8> {
        let mut tc = vec![0u8; 20];
        tc[4..8].copy_from_slice(&ifindex.to_ne_bytes());
        tc[12..16].copy_from_slice(&parent.to_ne_bytes());
        let mut q = Vec::new();
        for v in [qlen, backlog, 7, 0, 0] {
            q.extend_from_slice(&v.to_ne_bytes());
        }
        tc.extend(nlattr(1, b"tbf\0"));
        tc.extend(nlattr(TCA_STATS2, &nlattr(TCA_STATS_QUEUE, &q)));
        let mut m = ((16 + tc.len()) as u32).to_ne_bytes().to_vec();
        m.extend_from_slice(&36u16.to_ne_bytes());
        m.extend_from_slice(&[0u8; 10]);
        m.extend(tc);
        m
    }

    #[test]
    fn finds_the_root_of_the_device() {
        let mut b = msg(3, TC_H_ROOT, 1, 100);
        b.extend(msg(2, 0x10000, 5, 500));
        b.extend(msg(2, TC_H_ROOT, 9, 900));
        assert_eq!(parse_root(&b, 2), Some((9, 900, 7)));
        assert_eq!(parse_root(&b, 4), None);
        assert_eq!(parse_root(&b[..10], 2), None);
    }
}
