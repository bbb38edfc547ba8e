// SPDX-License-Identifier: GPL-2.0-only
//! One parameter set for the whole qdisc, with the ECN# paper's testbed defaults.
//!
//! Plain data with public fields: the kernel glue, the helper and the tc plugin all fill and read
//! it. [`Config::validate`] checks every bound and names the attribute at fault, so that a bad
//! value becomes `-EINVAL` plus an extack message in the kernel and a clear error in userspace.

use core::ffi::CStr;
use core::fmt;

use crate::band::MAX_BANDS;
use crate::time::{us, Nanos};
use crate::uapi::Attr;

/// Marking schemes, as bit flags that users may combine; a packet is marked if any asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Modes(pub u32);

impl Modes {
    /// Instantaneous sojourn marking above `ins_target` (TCN).
    pub const INSTANTANEOUS: Modes = Modes(1 << 0);
    /// Persistent-queue marking, Algorithm 1 of ECN# (CoDel-like on its own).
    pub const PERSISTENT: Modes = Modes(1 << 1);
    /// Queue length above K at enqueue (DCTCP-RED).
    pub const QUEUE_ENQUEUE: Modes = Modes(1 << 2);
    /// Band length, the leaving packet included, at or above K at dequeue (Wu et al. 4.2).
    pub const QUEUE_DEQUEUE: Modes = Modes(1 << 3);
    /// Probabilistic sojourn marking between `tmin` and `tmax` (TCN 4.3, for DCQCN).
    pub const PROBABILISTIC: Modes = Modes(1 << 4);
    /// Every flag this version knows.
    pub const ALL: Modes = Modes(0b1_1111);
    /// ECN#: instantaneous OR persistent, the default.
    pub const ECN_SHARP: Modes = Modes(Self::INSTANTANEOUS.0 | Self::PERSISTENT.0);

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Modes) -> bool {
        self.0 & other.0 == other.0
    }

    /// The union of both sets of flags.
    pub const fn union(self, other: Modes) -> Modes {
        Modes(self.0 | other.0)
    }
}

/// How `marking_next` advances once Algorithm 1 is in its marking state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ControlLaw {
    /// `marking_next += pst_interval / sqrt(count)`: the CoNEXT'19 paper, the default.
    InvSqrt,
    /// `marking_next += pst_interval / count`: the journal version.
    Linear,
    /// `marking_next = now + pst_interval / sqrt(count)`: the authors' ns-3 code.
    Ns3,
}

/// What to do with a non-ECT packet that a rule wants marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum NonEctPolicy {
    /// Let it through unmarked, as a datacenter switch marking ECT only does (the default).
    Pass,
    /// Drop it, as an AQM would.
    Drop,
}

/// Unit of the queue-length threshold K and of queue lengths compared with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum QueueUnit {
    /// K counts packets.
    Packets,
    /// K counts bytes (`qdisc_pkt_len` units).
    Bytes,
}

/// Marking parameters, the same for every band (the state is per band).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MarkingParams {
    /// Which schemes run.
    pub modes: Modes,
    /// Instantaneous threshold: mark when sojourn > `ins_target`.
    pub ins_target: Nanos,
    /// Persistent threshold: sojourn at or above it counts as "above" in Algorithm 1.
    pub pst_target: Nanos,
    /// Time above `pst_target` before a persistent queue is declared; also the first marking gap.
    pub pst_interval: Nanos,
    /// How the gap between persistent marks shrinks.
    pub control_law: ControlLaw,
    /// Clear the persistent state when a band runs empty (see `docs/algorithm.md`).
    pub idle_reset: bool,
    /// Queue-length threshold K for the DCTCP-RED and dequeue-marking modes.
    pub k: u32,
    /// Unit of `k`.
    pub k_unit: QueueUnit,
    /// Probabilistic marking: never below `tmin`.
    pub tmin: Nanos,
    /// Probabilistic marking: always above `tmax`.
    pub tmax: Nanos,
    /// Probabilistic marking: probability reached at `tmax`, in parts per million.
    pub pmax_ppm: u32,
    /// PRNG seed for probabilistic marking; 0 lets the kernel pick a random one.
    pub seed: u32,
}

/// Which discipline picks the band to serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SchedKind {
    /// Strict priority: band 0 first.
    Sp,
    /// Deficit weighted round robin with per-band quanta in bytes.
    Dwrr,
    /// Weighted fair queueing with per-band weights (self-clocked virtual finish times).
    Wfq,
}

/// Scheduler parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SchedParams {
    /// The discipline.
    pub kind: SchedKind,
    /// With DWRR or WFQ, the first `strict_bands` bands are served first, in strict priority.
    pub strict_bands: u8,
    /// DWRR quantum of each band, in bytes.
    pub quanta: [u32; MAX_BANDS],
    /// WFQ weight of each band.
    pub weights: [u32; MAX_BANDS],
}

/// How packets are sorted into bands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ClassifyMode {
    /// `skb->priority` (its low 4 bits) through `priomap`, as `sch_prio` does.
    Priority,
    /// The DSCP of IPv4 and IPv6 packets through `dscpmap` (as the TCN prototype did).
    Dscp,
}

/// Classification parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClassifyParams {
    /// What to classify on.
    pub mode: ClassifyMode,
    /// Band of each `skb->priority & 15`.
    pub priomap: [u8; 16],
    /// Band of each DSCP value.
    pub dscpmap: [u8; 64],
}

/// The optional token-bucket shaper that makes the qdisc the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShaperParams {
    /// Rate in bits per second; 0 means no shaper (work-conserving).
    pub rate_bps: u64,
    /// Bucket size in bytes; 0 derives it from the rate (never below two MTUs).
    pub burst_bytes: u32,
}

/// The whole configuration of one qdisc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// Number of bands in use, 1 to [`MAX_BANDS`].
    pub bands: u8,
    /// Most packets queued in all bands together.
    pub limit_packets: u32,
    /// Most bytes queued in all bands together; 0 means no byte limit.
    pub limit_bytes: u32,
    /// Non-ECT packets that would be marked.
    pub non_ect: NonEctPolicy,
    /// Whether a GSO super-packet is segmented at enqueue, so each segment is queued, timed and
    /// marked alone (as on a switch), rather than as one packet of up to 64 KB.
    pub split_gso: bool,
    /// Marking.
    pub marking: MarkingParams,
    /// Scheduling.
    pub sched: SchedParams,
    /// Classification.
    pub classify: ClassifyParams,
    /// Shaping.
    pub shaper: ShaperParams,
}

/// `sch_prio`'s default priority map (TC_PRIO_* to band), clamped to the bands in use.
pub const DEFAULT_PRIOMAP: [u8; 16] = [1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1];

/// Default DWRR quantum: one Ethernet frame.
pub const DEFAULT_QUANTUM: u32 = 1514;

impl Config {
    /// The ECN# paper's testbed defaults: ECN# marking with ins_target 200us, pst_target 85us,
    /// pst_interval 200us; one band; 1000 packets; no shaper.
    pub const DEFAULT: Config = Config {
        bands: 1,
        limit_packets: 1000,
        limit_bytes: 0,
        non_ect: NonEctPolicy::Pass,
        split_gso: true,
        marking: MarkingParams {
            modes: Modes::ECN_SHARP,
            ins_target: us(200),
            pst_target: us(85),
            pst_interval: us(200),
            control_law: ControlLaw::InvSqrt,
            idle_reset: true,
            k: 65,
            k_unit: QueueUnit::Packets,
            tmin: us(100),
            tmax: us(400),
            pmax_ppm: 100_000,
            seed: 0,
        },
        sched: SchedParams {
            kind: SchedKind::Dwrr,
            strict_bands: 0,
            quanta: [DEFAULT_QUANTUM; MAX_BANDS],
            weights: [1; MAX_BANDS],
        },
        classify: ClassifyParams {
            mode: ClassifyMode::Priority,
            priomap: DEFAULT_PRIOMAP,
            dscpmap: default_dscpmap(),
        },
        shaper: ShaperParams {
            rate_bps: 0,
            burst_bytes: 0,
        },
    };
}

impl Default for Config {
    fn default() -> Self {
        Config::DEFAULT
    }
}

/// DSCP `d` goes to band `d` (clamped to the last band at classification time), so that
/// `tos 0x04` (DSCP 1) lands in band 1, as in the TCN prototype.
const fn default_dscpmap() -> [u8; 64] {
    let mut map = [0u8; 64];
    let mut d = 0;
    while d < 64 {
        map[d] = if d < MAX_BANDS {
            d as u8
        } else {
            (MAX_BANDS - 1) as u8
        };
        d += 1;
    }
    map
}

/// The default DSCP map as a constant, for printers that show only the entries a user changed.
pub const DEFAULT_DSCPMAP: [u8; 64] = default_dscpmap();

/// Longest time the uapi can carry (times travel as `u32` nanoseconds): about 4.29 s.
pub const MAX_TIME_NS: Nanos = u32::MAX as Nanos;

/// Shortest `pst_interval`: below 1us the persistent-queue detector would fire on any queue.
pub const MIN_PST_INTERVAL_NS: Nanos = us(1);

/// Smallest non-zero byte limit: one Ethernet frame, or no full-size packet could ever queue.
pub const MIN_LIMIT_BYTES: u32 = 1514;

/// `pmax_ppm` of a probability of one.
pub const PPM_ONE: u32 = 1_000_000;

/// Smallest DWRR quantum in bytes: below a minimum-size frame a band needs many rounds per packet.
pub const MIN_QUANTUM_BYTES: u32 = 64;

/// Largest DWRR quantum in bytes (1 MiB): beyond it one band starves the others for too long.
pub const MAX_QUANTUM_BYTES: u32 = 1 << 20;

/// Smallest WFQ weight.
pub const MIN_WEIGHT: u32 = 1;

/// Largest WFQ weight, which keeps virtual-time arithmetic far from overflow.
pub const MAX_WEIGHT: u32 = 1 << 16;

/// Slowest shaper rate, 8 kbit/s (1000 bytes/s); 0 (no shaper) is also allowed.
pub const MIN_RATE_BPS: u64 = 8_000;

/// Fastest shaper rate, 10 Tbit/s, well above any NIC and far from byte-time overflow.
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;

/// Smallest explicit bucket: one full frame must fit, or the shaper would never release it.
pub const MIN_BURST_BYTES: u32 = 1514;

/// Largest bucket, 1 GiB.
pub const MAX_BURST_BYTES: u32 = 1 << 30;

/// A configuration value out of bounds, or a malformed netlink attribute carrying one.
///
/// It names the option twice over, for the two audiences: the uapi attribute number, so the
/// kernel can point its extack at the attribute, and the tc keyword, for userspace messages.
/// `reason` is a static C string because the kernel stores the pointer in the extack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The `TCA_ECNSHARP_*` number of the attribute at fault (perhaps one this version does
    /// not know); 0 (`TCA_ECNSHARP_UNSPEC`) when the fault is in the framing of the attributes.
    pub attr: u16,
    /// The tc keyword of the option, or `""` when the fault is not about one option.
    pub keyword: &'static str,
    /// Why, in a sentence naming the option, e.g. `pst_interval must be at least 1us`.
    pub reason: &'static CStr,
}

impl ConfigError {
    /// An error about the option that `attr` carries.
    pub const fn new(attr: Attr, reason: &'static CStr) -> ConfigError {
        ConfigError {
            attr: attr as u16,
            keyword: attr.keyword(),
            reason,
        }
    }

    /// The attribute at fault, if this version knows its number.
    pub const fn attribute(&self) -> Option<Attr> {
        Attr::from_u16(self.attr)
    }

    /// The reason as text (every reason is ASCII).
    pub fn reason_str(&self) -> &'static str {
        self.reason.to_str().unwrap_or("invalid ecnsharp option")
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason_str())?;
        if self.keyword.is_empty() && self.attr != 0 {
            write!(f, " (attribute {})", self.attr)?;
        }
        Ok(())
    }
}

impl Config {
    /// Checks every bound, returning the first violation (in the order of the uapi attributes).
    ///
    /// The whole parameter set is checked, also parameters the chosen modes do not use, so that a
    /// later `change` of the modes alone can never activate an invalid value. Map entries may
    /// name bands at or past `bands` (they are clamped to the last band when classifying, so the
    /// default maps work with any band count), but not past [`MAX_BANDS`], which is surely a typo.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |attr, reason| Err(ConfigError::new(attr, reason));
        let m = &self.marking;
        if self.limit_packets == 0 {
            return err(Attr::Limit, c"limit must be at least 1 packet");
        }
        if self.limit_bytes != 0 && self.limit_bytes < MIN_LIMIT_BYTES {
            return err(
                Attr::LimitBytes,
                c"limit_bytes must be 0 (no byte limit) or at least 1514 bytes",
            );
        }
        if self.bands == 0 || usize::from(self.bands) > MAX_BANDS {
            return err(Attr::Bands, c"bands must be 1 to 16");
        }
        if m.modes.0 == 0 {
            return err(Attr::Modes, c"mode must enable at least one marking scheme");
        }
        if m.modes.0 & !Modes::ALL.0 != 0 {
            return err(Attr::Modes, c"mode has flags this version does not know");
        }
        if m.ins_target > MAX_TIME_NS {
            return err(
                Attr::InsTarget,
                c"ins_target must be at most 4294967295ns (4.29s)",
            );
        }
        if m.pst_target > MAX_TIME_NS {
            return err(
                Attr::PstTarget,
                c"pst_target must be at most 4294967295ns (4.29s)",
            );
        }
        if m.pst_interval < MIN_PST_INTERVAL_NS {
            return err(Attr::PstInterval, c"pst_interval must be at least 1us");
        }
        if m.pst_interval > MAX_TIME_NS {
            return err(
                Attr::PstInterval,
                c"pst_interval must be at most 4294967295ns (4.29s)",
            );
        }
        if m.k == 0 {
            return err(Attr::K, c"k must be at least 1");
        }
        if m.tmin > MAX_TIME_NS {
            return err(Attr::Tmin, c"tmin must be at most 4294967295ns (4.29s)");
        }
        if m.tmax > MAX_TIME_NS {
            return err(Attr::Tmax, c"tmax must be at most 4294967295ns (4.29s)");
        }
        if m.tmin > m.tmax {
            return err(Attr::Tmin, c"tmin must not exceed tmax");
        }
        if m.pmax_ppm > PPM_ONE {
            return err(Attr::Pmax, c"pmax must be at most 100% (1000000 ppm)");
        }
        if self.sched.strict_bands > self.bands {
            return err(Attr::StrictBands, c"strict must not exceed bands");
        }
        // The bands in use, as a slice: `Iterator::take` would bring an overflow-checked
        // subtraction of core's into the module.
        let used = usize::from(self.bands).min(MAX_BANDS);
        let quantum_ok = |q: &u32| (MIN_QUANTUM_BYTES..=MAX_QUANTUM_BYTES).contains(q);
        let quanta = self.sched.quanta.get(..used).unwrap_or(&[]);
        if !quanta.iter().all(quantum_ok) {
            return err(
                Attr::Quanta,
                c"quanta must be 64 to 1048576 bytes for every band",
            );
        }
        let weight_ok = |w: &u32| (MIN_WEIGHT..=MAX_WEIGHT).contains(w);
        let weights = self.sched.weights.get(..used).unwrap_or(&[]);
        if !weights.iter().all(weight_ok) {
            return err(Attr::Weights, c"weights must be 1 to 65536 for every band");
        }
        let band_ok = |b: &u8| usize::from(*b) < MAX_BANDS;
        if !self.classify.priomap.iter().all(band_ok) {
            return err(Attr::Priomap, c"priomap entries must be bands 0 to 15");
        }
        if !self.classify.dscpmap.iter().all(band_ok) {
            return err(Attr::Dscpmap, c"dscpmap entries must be bands 0 to 15");
        }
        let rate = self.shaper.rate_bps;
        if rate != 0 && !(MIN_RATE_BPS..=MAX_RATE_BPS).contains(&rate) {
            return err(Attr::Rate, c"rate must be 0 (no shaper) or 8kbit to 10Tbit");
        }
        let burst = self.shaper.burst_bytes;
        if burst != 0 && !(MIN_BURST_BYTES..=MAX_BURST_BYTES).contains(&burst) {
            return err(
                Attr::Burst,
                c"burst must be 0 (derived from rate) or 1514 bytes to 1Gb",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    /// Applies `change` to the defaults and returns the attribute and reason validation gives.
    fn rejected(change: impl FnOnce(&mut Config)) -> (Attr, &'static str) {
        let mut cfg = Config::DEFAULT;
        change(&mut cfg);
        let e = cfg
            .validate()
            .expect_err("an invalid config passed validation");
        (e.attribute().expect("a known attribute"), e.reason_str())
    }

    #[test]
    fn defaults_are_valid() {
        assert_eq!(Config::DEFAULT.validate(), Ok(()));
        assert_eq!(Config::default(), Config::DEFAULT);
        // The paper's testbed values (section 5, rule of thumb of 3.4).
        assert_eq!(Config::DEFAULT.marking.ins_target, us(200));
        assert_eq!(Config::DEFAULT.marking.pst_target, us(85));
        assert_eq!(Config::DEFAULT.marking.pst_interval, us(200));
        // The default maps are valid with 16 bands and with 1 band alike.
        let mut cfg = Config::DEFAULT;
        cfg.bands = 16;
        assert_eq!(cfg.validate(), Ok(()));
    }

    #[test]
    fn every_bound_is_checked() {
        type Change<'a> = &'a dyn Fn(&mut Config);
        let cases: [(Change, Attr, &str); 26] = [
            (&|c| c.limit_packets = 0, Attr::Limit, "limit"),
            (&|c| c.limit_bytes = 1513, Attr::LimitBytes, "limit_bytes"),
            (&|c| c.bands = 0, Attr::Bands, "bands"),
            (&|c| c.bands = 17, Attr::Bands, "bands"),
            (&|c| c.marking.modes = Modes(0), Attr::Modes, "mode"),
            (&|c| c.marking.modes = Modes(1 << 5), Attr::Modes, "mode"),
            (
                &|c| c.marking.ins_target = MAX_TIME_NS + 1,
                Attr::InsTarget,
                "ins_target",
            ),
            (
                &|c| c.marking.pst_target = MAX_TIME_NS + 1,
                Attr::PstTarget,
                "pst_target",
            ),
            (
                &|c| c.marking.pst_interval = 999,
                Attr::PstInterval,
                "pst_interval",
            ),
            (
                &|c| c.marking.pst_interval = 0,
                Attr::PstInterval,
                "pst_interval",
            ),
            (
                &|c| c.marking.pst_interval = u64::MAX,
                Attr::PstInterval,
                "pst_interval",
            ),
            (&|c| c.marking.k = 0, Attr::K, "k "),
            (&|c| c.marking.tmin = MAX_TIME_NS + 1, Attr::Tmin, "tmin"),
            (&|c| c.marking.tmax = MAX_TIME_NS + 1, Attr::Tmax, "tmax"),
            (&|c| c.marking.tmin = c.marking.tmax + 1, Attr::Tmin, "tmin"),
            (&|c| c.marking.pmax_ppm = PPM_ONE + 1, Attr::Pmax, "pmax"),
            (&|c| c.sched.strict_bands = 2, Attr::StrictBands, "strict"),
            (&|c| c.sched.quanta[0] = 63, Attr::Quanta, "quanta"),
            (
                &|c| c.sched.quanta[0] = MAX_QUANTUM_BYTES + 1,
                Attr::Quanta,
                "quanta",
            ),
            (&|c| c.sched.weights[0] = 0, Attr::Weights, "weights"),
            (
                &|c| c.sched.weights[0] = MAX_WEIGHT + 1,
                Attr::Weights,
                "weights",
            ),
            (&|c| c.classify.priomap[15] = 16, Attr::Priomap, "priomap"),
            (&|c| c.classify.dscpmap[63] = 16, Attr::Dscpmap, "dscpmap"),
            (
                &|c| c.shaper.rate_bps = MIN_RATE_BPS - 1,
                Attr::Rate,
                "rate",
            ),
            (
                &|c| c.shaper.rate_bps = MAX_RATE_BPS + 1,
                Attr::Rate,
                "rate",
            ),
            (
                &|c| c.shaper.burst_bytes = MIN_BURST_BYTES - 1,
                Attr::Burst,
                "burst",
            ),
        ];
        for (change, attr, keyword) in cases {
            let (got, reason) = rejected(change);
            assert_eq!(got, attr, "{reason}");
            // The message names the option, as the kernel's extack shows it alone.
            assert!(
                reason.starts_with(keyword),
                "{reason:?} does not name {keyword:?}"
            );
        }
        let (attr, _) = rejected(|c| c.shaper.burst_bytes = MAX_BURST_BYTES + 1);
        assert_eq!(attr, Attr::Burst);
    }

    #[test]
    fn edges_that_are_valid() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 16;
        cfg.limit_bytes = MIN_LIMIT_BYTES;
        cfg.marking.modes = Modes::ALL;
        cfg.marking.ins_target = 0;
        cfg.marking.pst_target = MAX_TIME_NS;
        cfg.marking.pst_interval = MIN_PST_INTERVAL_NS;
        cfg.marking.tmin = us(300);
        cfg.marking.tmax = us(300);
        cfg.marking.pmax_ppm = PPM_ONE;
        cfg.marking.k = 1;
        cfg.sched.strict_bands = 16;
        cfg.sched.quanta = [MIN_QUANTUM_BYTES; MAX_BANDS];
        cfg.sched.quanta[15] = MAX_QUANTUM_BYTES;
        cfg.sched.weights[15] = MAX_WEIGHT;
        cfg.classify.priomap = [15; 16];
        cfg.shaper.rate_bps = MIN_RATE_BPS;
        cfg.shaper.burst_bytes = MAX_BURST_BYTES;
        assert_eq!(cfg.validate(), Ok(()));
        cfg.shaper.rate_bps = MAX_RATE_BPS;
        cfg.shaper.burst_bytes = MIN_BURST_BYTES;
        assert_eq!(cfg.validate(), Ok(()));
        // Entries of bands not in use are not checked: they may hold anything.
        let mut cfg = Config::DEFAULT;
        cfg.bands = 2;
        cfg.sched.quanta[2] = 0;
        cfg.sched.weights[2] = 0;
        assert_eq!(cfg.validate(), Ok(()));
        cfg.sched.quanta[1] = 0;
        assert!(cfg.validate().is_err());
    }

    #[test]
    fn error_display() {
        let e = ConfigError::new(Attr::PstInterval, c"pst_interval must be at least 1us");
        assert_eq!(e.to_string(), "pst_interval must be at least 1us");
        assert_eq!(e.keyword, "pst_interval");
        assert_eq!(e.attr, crate::uapi::TCA_ECNSHARP_PST_INTERVAL);
        let unknown = ConfigError {
            attr: 99,
            keyword: "",
            reason: c"unknown ecnsharp attribute",
        };
        assert_eq!(unknown.attribute(), None);
        assert_eq!(
            unknown.to_string(),
            "unknown ecnsharp attribute (attribute 99)"
        );
    }
}

/// Proptest strategies for valid configurations, shared by the codec tests of `uapi` and
/// `options`.
#[cfg(test)]
pub(crate) mod arbitrary {
    use super::*;
    use crate::time::ms;
    use proptest::prelude::*;

    /// Any time the uapi carries, biased to round values so every printing unit is exercised.
    pub(crate) fn time() -> impl Strategy<Value = Nanos> {
        prop_oneof![
            0..=MAX_TIME_NS,
            (0..=MAX_TIME_NS / 1_000).prop_map(us),
            (0..=MAX_TIME_NS / 1_000_000).prop_map(ms),
            (0..=4u64).prop_map(crate::time::secs),
        ]
    }

    fn marking() -> impl Strategy<Value = MarkingParams> {
        (
            (1..=Modes::ALL.0, time(), time(), time()),
            (0..3u8, any::<bool>(), 1..=u32::MAX, any::<bool>()),
            (time(), time(), 0..=PPM_ONE, any::<u32>()),
        )
            .prop_map(|(a, b, c)| {
                let (modes, ins_target, pst_target, interval) = a;
                let (law, idle_reset, k, k_in_bytes) = b;
                let (t1, t2, pmax_ppm, seed) = c;
                MarkingParams {
                    modes: Modes(modes),
                    ins_target,
                    pst_target,
                    pst_interval: interval.max(MIN_PST_INTERVAL_NS),
                    control_law: [ControlLaw::InvSqrt, ControlLaw::Linear, ControlLaw::Ns3]
                        [usize::from(law)],
                    idle_reset,
                    k,
                    k_unit: if k_in_bytes {
                        QueueUnit::Bytes
                    } else {
                        QueueUnit::Packets
                    },
                    tmin: t1.min(t2),
                    tmax: t1.max(t2),
                    pmax_ppm,
                    seed,
                }
            })
    }

    fn size() -> impl Strategy<Value = u32> {
        prop_oneof![
            MIN_BURST_BYTES..=MAX_BURST_BYTES,
            (2..=1u32 << 20).prop_map(|k| k * 1024),
        ]
    }

    /// Valid configurations whose quanta and weights past `bands` are the defaults (entries the
    /// dumps do not carry).
    pub(crate) fn valid_config() -> impl Strategy<Value = Config> {
        (1..=MAX_BANDS as u8)
            .prop_flat_map(|bands| {
                (
                    (Just(bands), 0..=bands, 0..3u8),
                    proptest::array::uniform16(MIN_QUANTUM_BYTES..=MAX_QUANTUM_BYTES),
                    proptest::array::uniform16(MIN_WEIGHT..=MAX_WEIGHT),
                    (
                        any::<bool>(),
                        proptest::array::uniform16(0..MAX_BANDS as u8),
                        any::<bool>(),
                    ),
                    proptest::collection::vec(0..MAX_BANDS as u8, 64),
                    marking(),
                    (1..=u32::MAX, prop_oneof![Just(0), size()], any::<bool>()),
                    (
                        prop_oneof![Just(0), MIN_RATE_BPS..=MAX_RATE_BPS],
                        prop_oneof![Just(0), size()],
                    ),
                )
            })
            .prop_map(
                |(s, mut quanta, mut weights, c, dscp, marking, q, shaper)| {
                    let (bands, strict_bands, kind) = s;
                    for (i, (q, w)) in quanta.iter_mut().zip(weights.iter_mut()).enumerate() {
                        if i >= usize::from(bands) {
                            *q = DEFAULT_QUANTUM;
                            *w = 1;
                        }
                    }
                    // Half of them keep the default maps, which printers treat apart.
                    let (mut priomap, mut dscpmap) = (DEFAULT_PRIOMAP, DEFAULT_DSCPMAP);
                    if c.2 {
                        priomap = c.1;
                        dscpmap.copy_from_slice(&dscp);
                    }
                    Config {
                        bands,
                        limit_packets: q.0,
                        limit_bytes: q.1,
                        non_ect: if q.2 {
                            NonEctPolicy::Drop
                        } else {
                            NonEctPolicy::Pass
                        },
                        // Both settings, from a bit of the limit.
                        split_gso: q.0 % 3 != 0,
                        marking,
                        sched: SchedParams {
                            kind: [SchedKind::Sp, SchedKind::Dwrr, SchedKind::Wfq]
                                [usize::from(kind)],
                            strict_bands,
                            quanta,
                            weights,
                        },
                        classify: ClassifyParams {
                            mode: if c.0 {
                                ClassifyMode::Dscp
                            } else {
                                ClassifyMode::Priority
                            },
                            priomap,
                            dscpmap,
                        },
                        shaper: ShaperParams {
                            rate_bps: shaper.0,
                            burst_bytes: shaper.1,
                        },
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn strategy_gives_valid_configs(cfg in valid_config()) {
            prop_assert_eq!(cfg.validate(), Ok(()));
        }
    }
}
