// SPDX-License-Identifier: GPL-2.0-only
//! `-n NETNS` (`-netns NETNS`): run in a named network namespace, as `tc -n` and `ip netns exec`
//! do. The name is looked up where `ip netns add` bind-mounts namespaces.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// Where iproute2 keeps named network namespaces (`/var/run` is its older spelling).
const NETNS_DIRS: [&str; 2] = ["/run/netns", "/var/run/netns"];

/// Moves this process into the network namespace `name`. Must run before the netlink socket
/// is opened and before any interface name is looked up: both belong to the namespace they
/// were made in.
pub fn enter(name: &str) -> io::Result<()> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a namespace name",
        ));
    }
    let mut last = io::Error::from(io::ErrorKind::NotFound);
    for dir in NETNS_DIRS {
        match File::open(format!("{dir}/{name}")) {
            Ok(file) => {
                // SAFETY: `file` is an open descriptor for the whole call; setns only reads it.
                let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
                return if rc == 0 {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                };
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_paths_and_missing_names() {
        for bad in ["", "a/b", "..", "."] {
            assert_eq!(
                enter(bad).unwrap_err().kind(),
                io::ErrorKind::InvalidInput,
                "{bad:?}"
            );
        }
        assert_eq!(
            enter("ecnsharp-no-such-namespace").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
