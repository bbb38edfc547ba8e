//! One parameter set for the whole qdisc, with the ECN# paper's testbed defaults.
//!
//! Plain data with public fields: the kernel glue, the helper and the tc plugin all fill and read
//! it. [`Config::validate`] checks every bound and names the attribute at fault, so that a bad
//! value becomes `-EINVAL` plus an extack message in the kernel and a clear error in userspace.

use crate::band::MAX_BANDS;
use crate::time::{us, Nanos};

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
    /// Queue length above K at dequeue (Wu et al.).
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
pub enum NonEctPolicy {
    /// Let it through unmarked, as a datacenter switch marking ECT only does (the default).
    Pass,
    /// Drop it, as an AQM would.
    Drop,
}

/// Unit of the queue-length threshold K and of queue lengths compared with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
