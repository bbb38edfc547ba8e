// SPDX-License-Identifier: GPL-2.0-only
//! ECN codepoints (RFC 3168) and why a packet was marked.

/// The two ECN bits of the IPv4 TOS / IPv6 traffic class byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecn {
    /// Not ECN-capable transport (`00`).
    NotEct,
    /// ECN-capable, ECT(1) (`01`).
    Ect1,
    /// ECN-capable, ECT(0) (`10`), what Linux DCTCP sends.
    Ect0,
    /// Congestion experienced (`11`): already marked upstream.
    Ce,
}

impl Ecn {
    /// The codepoint as the low two bits of a DS field byte ([`Ecn::from_dsfield`] of it is
    /// `self`).
    pub const fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0b00,
            Ecn::Ect1 => 0b01,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        }
    }

    /// The codepoint in the low two bits of a DS field byte.
    pub const fn from_dsfield(dsfield: u8) -> Ecn {
        match dsfield & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// Whether a mark can be carried by setting CE (ECT(0), ECT(1), or already CE).
    pub const fn is_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }
}

/// Which rule asked for a mark; statistics count marks by cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkCause {
    /// Sojourn time above `ins_target` (TCN, ECN# instantaneous).
    Instantaneous,
    /// Algorithm 1 of ECN#: a persistent queue was detected and a mark is due.
    Persistent,
    /// Queue length above K when the packet arrived (DCTCP-RED).
    QueueEnqueue,
    /// Band length, the leaving packet included, at or above K when it left (Wu et al. dequeue
    /// marking, section 4.2).
    QueueDequeue,
    /// Probabilistic instantaneous marking between Tmin and Tmax (TCN 4.3).
    Probabilistic,
}

impl MarkCause {
    /// Every cause, in the order of the per-cause counters in the xstats.
    pub const ALL: [MarkCause; 5] = [
        MarkCause::Instantaneous,
        MarkCause::Persistent,
        MarkCause::QueueEnqueue,
        MarkCause::QueueDequeue,
        MarkCause::Probabilistic,
    ];

    /// Position of this cause in per-cause counter arrays.
    pub const fn index(self) -> usize {
        match self {
            MarkCause::Instantaneous => 0,
            MarkCause::Persistent => 1,
            MarkCause::QueueEnqueue => 2,
            MarkCause::QueueDequeue => 3,
            MarkCause::Probabilistic => 4,
        }
    }
}

/// A set of [`MarkCause`]s: every rule that asked for a mark on one packet.
///
/// Several rules can fire on the same packet (an instantaneous and a persistent mark, say); each
/// still advances its own state and is counted under its own cause, while the packet is marked once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CauseSet(u8);

impl CauseSet {
    /// No rule asked for a mark.
    pub const EMPTY: CauseSet = CauseSet(0);

    /// The set holding `cause` only.
    pub const fn only(cause: MarkCause) -> CauseSet {
        CauseSet(1 << cause.index())
    }

    /// This set with `cause` added.
    pub const fn with(self, cause: MarkCause) -> CauseSet {
        CauseSet(self.0 | (1 << cause.index()))
    }

    /// The union of two sets.
    pub const fn union(self, other: CauseSet) -> CauseSet {
        CauseSet(self.0 | other.0)
    }

    /// Whether `cause` is in the set.
    pub const fn contains(self, cause: MarkCause) -> bool {
        self.0 & (1 << cause.index()) != 0
    }

    /// Whether the sets have a cause in common.
    pub const fn intersects(self, other: CauseSet) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether no rule asked for a mark.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The causes in the set, in [`MarkCause::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = MarkCause> {
        MarkCause::ALL
            .into_iter()
            .filter(move |c| self.contains(*c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codepoints() {
        assert_eq!(Ecn::from_dsfield(0xb8), Ecn::NotEct);
        assert_eq!(Ecn::from_dsfield(0x02), Ecn::Ect0);
        assert_eq!(Ecn::from_dsfield(0x01), Ecn::Ect1);
        assert_eq!(Ecn::from_dsfield(0xff), Ecn::Ce);
        assert!(!Ecn::NotEct.is_capable());
        assert!(Ecn::Ce.is_capable());
        for (i, c) in MarkCause::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
        let set = CauseSet::only(MarkCause::Persistent).with(MarkCause::Instantaneous);
        assert!(set.contains(MarkCause::Persistent) && !set.contains(MarkCause::QueueEnqueue));
        let v: std::vec::Vec<_> = set.iter().collect();
        assert_eq!(v, [MarkCause::Instantaneous, MarkCause::Persistent]);
        assert!(CauseSet::EMPTY.is_empty() && !set.is_empty());
    }
}
