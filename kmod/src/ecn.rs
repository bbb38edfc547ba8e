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
    /// Queue length above K when the packet left (Wu et al. dequeue marking).
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
    }
}
