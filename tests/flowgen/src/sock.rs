// SPDX-License-Identifier: GPL-2.0-only
//! Socket options std does not offer.

use std::net::TcpStream;
use std::os::fd::AsRawFd;

/// IP_TOS on a connection (its DSCP picks the qdisc band under `classify dscp`; TCP keeps the
/// ECN bits its own).
pub fn set_tos(s: &TcpStream, tos: u32) -> Result<(), String> {
    let v: libc::c_int = tos as libc::c_int;
    // SAFETY: the fd is owned by `s` and open for the call; `v` outlives it and the length
    // passed is its size.
    let rc = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_TOS,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("IP_TOS {tos}: {}", std::io::Error::last_os_error()))
    }
}
