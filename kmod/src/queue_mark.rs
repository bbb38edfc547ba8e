// SPDX-License-Identifier: GPL-2.0-only
//! Queue-length marking with one threshold K: DCTCP-RED at enqueue (DCTCP §3.1) and dequeue
//! marking (Wu et al., "Tuning ECN for data center networks", §4).
//!
//! Lengths are packets or bytes as `QueueUnit` says; K is in the same unit.

use crate::config::QueueUnit;

/// DCTCP-RED: "an arriving packet is marked with the CE codepoint if the queue occupancy is greater
/// than K upon its arrival" (DCTCP §3.1).
///
/// `len_before` is the band's length before the arriving packet is counted, so with K packets
/// queued the (K+1)-th arrival is not marked and the (K+2)-th is. (The authors' ns-3 code used
/// `>= K`; the TCN prototype counted the arriving packet: both mark one packet earlier.)
#[inline]
pub fn enqueue_mark(len_before: u64, k: u32) -> bool {
    len_before > u64::from(k)
}

/// Dequeue marking: "when an ECN-capable packet is about to be dequeued, we check the instant queue
/// length and the ECN threshold. If the instant queue length is larger or equal to the ECN
/// threshold, then the packet is marked" (Wu et al. §4.2).
///
/// "About to be dequeued" means the packet is still in the queue: `len_with_packet` includes the
/// leaving packet (what remains plus one packet, or plus its bytes), compared with `>=`. So the
/// rule marks exactly when more than K-1 packets remain, "until the queue length is less than the
/// threshold". (The TCN prototype compared what remained after removal.)
#[inline]
pub fn dequeue_mark(len_with_packet: u64, k: u32) -> bool {
    len_with_packet >= u64::from(k)
}

/// The length that K is compared with: `qlen` packets or `backlog` bytes.
#[inline]
pub fn queue_len(unit: QueueUnit, qlen: u32, backlog: u64) -> u64 {
    match unit {
        QueueUnit::Packets => u64::from(qlen),
        QueueUnit::Bytes => backlog,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enqueue_boundary() {
        // K itself is not "greater than K".
        assert!(!enqueue_mark(65, 65));
        assert!(enqueue_mark(66, 65));
        assert!(!enqueue_mark(0, 65));
        assert!(!enqueue_mark(0, 0));
        assert!(enqueue_mark(1, 0));
        assert!(!enqueue_mark(u64::from(u32::MAX), u32::MAX));
        assert!(enqueue_mark(u64::MAX, u32::MAX));
    }

    #[test]
    fn dequeue_boundary() {
        // Length K including the leaving packet: marked; K-1: not.
        assert!(dequeue_mark(65, 65));
        assert!(dequeue_mark(66, 65));
        assert!(!dequeue_mark(64, 65));
        assert!(dequeue_mark(0, 0));
        assert!(!dequeue_mark(u64::from(u32::MAX) - 1, u32::MAX));
    }

    #[test]
    fn units() {
        assert_eq!(queue_len(QueueUnit::Packets, 7, 9_000), 7);
        assert_eq!(queue_len(QueueUnit::Bytes, 7, 9_000), 9_000);
        // 100 KB threshold in bytes: 100,000 bytes queued is not above it, 100,001 is.
        assert!(!enqueue_mark(
            queue_len(QueueUnit::Bytes, 67, 100_000),
            100_000
        ));
        assert!(enqueue_mark(
            queue_len(QueueUnit::Bytes, 67, 100_001),
            100_000
        ));
    }
}
