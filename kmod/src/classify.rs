// SPDX-License-Identifier: GPL-2.0-only
//! Classification: which band a packet joins (TCN section 5, "Packet Classifier", which used the
//! DSCP; `skb->priority` through a priomap, as `sch_prio` does, is the default).
//!
//! One table lookup and a clamp to the bands in use; nothing can index out of bounds.

use crate::band::Band;
use crate::config::{ClassifyMode, ClassifyParams};

/// The band of a packet with `skb->priority` `priority` and DS field `dsfield` (the IPv4 TOS or
/// IPv6 traffic class byte, `None` for packets that are neither), clamped to the last of `bands`.
///
/// - [`ClassifyMode::Priority`]: `priomap[priority & 15]`, as `sch_prio` does for priorities
///   without a matching major number.
/// - [`ClassifyMode::Dscp`]: `dscpmap[dsfield >> 2]`; the ECN bits are ignored. Packets without
///   a DS field (ARP, LLDP and other non-IP traffic) go to band 0: that is where DSCP 0 goes with
///   the default map, and this control traffic must not starve behind strict bands.
#[inline]
pub fn classify(p: &ClassifyParams, bands: u8, priority: u32, dsfield: Option<u8>) -> Band {
    let mapped = match p.mode {
        ClassifyMode::Priority => p.priomap.get((priority & 15) as usize).copied(),
        ClassifyMode::Dscp => match dsfield {
            Some(ds) => p.dscpmap.get(usize::from(ds >> 2)).copied(),
            None => Some(0),
        },
    };
    Band::clamped(usize::from(mapped.unwrap_or(0)), usize::from(bands))
}

/// [`classify`] with the maps prepared at configuration time: the map of the mode in force with
/// every entry already clamped to the bands in use, so that a packet costs one lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classifier {
    /// What to classify on.
    mode: ClassifyMode,
    /// The band of each map index: `priority & 15` (the first 16 entries) or the DSCP.
    band_of: [Band; 64],
}

impl Classifier {
    /// The classifier for `p` with `bands` bands in use.
    pub const fn new(p: &ClassifyParams, bands: u8) -> Classifier {
        let mut band_of = [Band::ZERO; 64];
        let mut i = 0;
        while i < 64 {
            // The masks keep every index in range (i < 64 already), so nothing can panic.
            let mapped = match p.mode {
                ClassifyMode::Priority => p.priomap[i & 15],
                ClassifyMode::Dscp => p.dscpmap[i & 63],
            };
            band_of[i & 63] = Band::clamped(mapped as usize, bands as usize);
            i += 1;
        }
        Classifier {
            mode: p.mode,
            band_of,
        }
    }

    /// The band of a packet, exactly as [`classify`] with the parameters given to
    /// [`Classifier::new`].
    #[inline]
    pub fn classify(&self, priority: u32, dsfield: Option<u8>) -> Band {
        let index = match self.mode {
            ClassifyMode::Priority => (priority & 15) as usize,
            ClassifyMode::Dscp => match dsfield {
                Some(ds) => usize::from(ds >> 2),
                None => return Band::ZERO,
            },
        };
        // Below 64 by construction; `get` keeps the compiler honest.
        self.band_of.get(index).copied().unwrap_or(Band::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, DEFAULT_PRIOMAP};
    use proptest::prelude::*;

    fn params(mode: ClassifyMode) -> ClassifyParams {
        ClassifyParams {
            mode,
            ..Config::DEFAULT.classify
        }
    }

    #[test]
    fn priority_mode_uses_priomap() {
        let p = params(ClassifyMode::Priority);
        // TC_PRIO_BESTEFFORT 0 -> band 1, TC_PRIO_BULK 2 -> 2, TC_PRIO_INTERACTIVE 6 -> 0.
        assert_eq!(classify(&p, 3, 0, None).index(), 1);
        assert_eq!(classify(&p, 3, 2, Some(0xff)).index(), 2);
        assert_eq!(classify(&p, 3, 6, None).index(), 0);
        // Only the low 4 bits count.
        assert_eq!(classify(&p, 3, 0x10_0006, None).index(), 0);
        assert_eq!(classify(&p, 3, u32::MAX, None).index(), 1);
        for prio in 0..16u32 {
            let want = usize::from(DEFAULT_PRIOMAP[prio as usize]).min(2);
            assert_eq!(classify(&p, 3, prio, Some(0x04)).index(), want);
        }
    }

    #[test]
    fn dscp_mode_uses_dscpmap() {
        let mut p = params(ClassifyMode::Dscp);
        // tos 0x04 is DSCP 1: band 1, as in the TCN prototype.
        assert_eq!(classify(&p, 8, 0, Some(0x04)).index(), 1);
        // ECN bits do not matter.
        assert_eq!(classify(&p, 8, 0, Some(0x07)).index(), 1);
        assert_eq!(classify(&p, 8, 0, Some(0x00)).index(), 0);
        assert_eq!(classify(&p, 8, 0, Some(5 << 2)).index(), 5);
        // Priority is ignored.
        assert_eq!(classify(&p, 8, 6, Some(3 << 2)).index(), 3);
        // Non-IP goes to band 0.
        assert_eq!(classify(&p, 8, 2, None).index(), 0);
        // EF (46) with a custom map.
        p.dscpmap[46] = 0;
        p.dscpmap[10] = 4;
        assert_eq!(classify(&p, 8, 0, Some(0xb8)).index(), 0);
        assert_eq!(classify(&p, 8, 0, Some(10 << 2 | 2)).index(), 4);
    }

    #[test]
    fn results_clamped_to_last_band() {
        let p = params(ClassifyMode::Dscp);
        assert_eq!(classify(&p, 3, 0, Some(63 << 2)).index(), 2);
        assert_eq!(classify(&p, 1, 0, Some(5 << 2)).index(), 0);
        assert_eq!(classify(&p, 0, 0, Some(5 << 2)).index(), 0);
        assert_eq!(classify(&p, 16, 0, Some(40 << 2)).index(), 15);
        let mut p = params(ClassifyMode::Priority);
        p.priomap = [255; 16];
        assert_eq!(classify(&p, 4, 0, None).index(), 3);
        assert_eq!(classify(&p, 200, 0, None).index(), 15);
    }

    proptest! {
        #[test]
        fn always_within_bands(
            dscp in any::<bool>(),
            bands in any::<u8>(),
            priority in any::<u32>(),
            dsfield in any::<Option<u8>>(),
            map in any::<u8>(),
        ) {
            let mut p = params(if dscp { ClassifyMode::Dscp } else { ClassifyMode::Priority });
            p.priomap = [map; 16];
            p.dscpmap = [map; 64];
            let band = classify(&p, bands, priority, dsfield).index();
            prop_assert!(band < usize::from(bands.max(1)));
            let want = if dscp && dsfield.is_none() { 0 } else { usize::from(map) };
            prop_assert_eq!(band, want.min(usize::from(bands.max(1)) - 1).min(15));
        }

        /// The prepared classifier agrees with `classify` for any maps, band count and packet.
        #[test]
        fn classifier_matches_classify(
            dscp in any::<bool>(),
            bands in any::<u8>(),
            priomap in any::<[u8; 16]>(),
            dscpmap in proptest::collection::vec(any::<u8>(), 64),
            packets in proptest::collection::vec((any::<u32>(), any::<Option<u8>>()), 1..64),
        ) {
            let mut p = params(if dscp { ClassifyMode::Dscp } else { ClassifyMode::Priority });
            p.priomap = priomap.map(|b| b % 20);
            for (slot, b) in p.dscpmap.iter_mut().zip(&dscpmap) {
                *slot = b % 20;
            }
            let c = Classifier::new(&p, bands);
            for (priority, dsfield) in packets {
                prop_assert_eq!(c.classify(priority, dsfield), classify(&p, bands, priority, dsfield));
            }
            for prio in 0..16 {
                prop_assert_eq!(c.classify(prio, None), classify(&p, bands, prio, None));
            }
            for ds in 0..=255u8 {
                prop_assert_eq!(c.classify(0, Some(ds)), classify(&p, bands, 0, Some(ds)));
            }
        }
    }
}
