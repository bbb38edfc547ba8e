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
