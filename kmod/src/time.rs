// SPDX-License-Identifier: GPL-2.0-only
//! Time: `u64` nanoseconds everywhere.
//!
//! The kernel's `ktime_get_ns()` and the host tests both hand us nanoseconds; keeping one unit
//! avoids conversions on the per-packet path. A `u64` of nanoseconds wraps after 584 years.

/// A point in time or a duration, in nanoseconds.
pub type Nanos = u64;

/// Nanoseconds in one microsecond.
pub const NSEC_PER_USEC: u64 = 1_000;
/// Nanoseconds in one millisecond.
pub const NSEC_PER_MSEC: u64 = 1_000_000;
/// Nanoseconds in one second.
pub const NSEC_PER_SEC: u64 = 1_000_000_000;

/// `v` microseconds as nanoseconds (saturating, never panics).
pub const fn us(v: u64) -> Nanos {
    v.saturating_mul(NSEC_PER_USEC)
}

/// `v` milliseconds as nanoseconds (saturating, never panics).
pub const fn ms(v: u64) -> Nanos {
    v.saturating_mul(NSEC_PER_MSEC)
}

/// `v` seconds as nanoseconds (saturating, never panics).
pub const fn secs(v: u64) -> Nanos {
    v.saturating_mul(NSEC_PER_SEC)
}

/// Nanoseconds as whole microseconds, rounded down.
pub const fn to_us(ns: Nanos) -> u64 {
    ns / NSEC_PER_USEC
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(us(200), 200_000);
        assert_eq!(ms(1), us(1_000));
        assert_eq!(secs(2), ms(2_000));
        assert_eq!(to_us(85_999), 85);
        assert_eq!(us(u64::MAX), u64::MAX);
    }
}
