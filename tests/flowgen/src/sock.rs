// SPDX-License-Identifier: GPL-2.0-only
//! Socket options std does not offer.

use std::net::TcpStream;
use std::os::fd::AsRawFd;

fn set_int(s: &TcpStream, level: libc::c_int, name: libc::c_int, v: libc::c_int) -> bool {
    // SAFETY: the fd is owned by `s` and open for the call; `v` outlives it and the length
    // passed is its size.
    let rc = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            level,
            name,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    rc == 0
}

/// IP_TOS on a connection (its DSCP picks the qdisc band under `classify dscp`; TCP keeps the
/// ECN bits its own).
pub fn set_tos(s: &TcpStream, tos: u32) -> Result<(), String> {
    if set_int(s, libc::IPPROTO_IP, libc::IP_TOS, tos as libc::c_int) {
        Ok(())
    } else {
        Err(format!("IP_TOS {tos}: {}", std::io::Error::last_os_error()))
    }
}

/// SO_RCVLOWAT: TCP wakes the reader only once this many bytes are queued (or the connection
/// ends). In the virtual-time bench the reader otherwise runs after every arriving segment,
/// and each wakeup of a guest process costs the host far more than the packet itself.
pub fn set_rcvlowat(s: &TcpStream, bytes: u64) -> Result<(), String> {
    let v = bytes.clamp(1, i32::MAX as u64) as libc::c_int;
    if set_int(s, libc::SOL_SOCKET, libc::SO_RCVLOWAT, v) {
        Ok(())
    } else {
        Err(format!(
            "SO_RCVLOWAT {bytes}: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Waits until `s` is readable (POLLIN), or fails with TimedOut after `timeout`.
pub fn wait_readable(s: &TcpStream, timeout: Option<std::time::Duration>) -> std::io::Result<()> {
    let ms = timeout.map_or(-1, |t| {
        t.as_millis().clamp(1, i32::MAX as u128) as libc::c_int
    });
    let mut p = libc::pollfd {
        fd: s.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one pollfd, valid for the call.
        let rc = unsafe { libc::poll(&mut p, 1, ms) };
        match rc {
            0 => return Err(std::io::ErrorKind::TimedOut.into()),
            r if r > 0 => return Ok(()),
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}
