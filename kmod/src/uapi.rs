// SPDX-License-Identifier: GPL-2.0-only
//! What the kernel module, the helper and the tc plugin must agree on, as an include/uapi header
//! would hold it: the `TCA_ECNSHARP_*` attributes inside `TCA_OPTIONS` (the parameters of the
//! ECN# paper's Table 2 plus TCN, DCTCP, scheduler and shaper), their codec, and the xstats layout.
//!
//! Netlink is host byte order, so every value here is native-endian. Numbers are append-only.

use core::ffi::CStr;
use core::fmt;

use crate::band::MAX_BANDS;
use crate::config::{
    ClassifyMode, Config, ConfigError, ControlLaw, Modes, NonEctPolicy, QueueUnit, SchedKind,
    DEFAULT_QUANTUM,
};
use crate::histogram::{
    SojournHist, SOJOURN_BUCKETS, SOJOURN_FIRST_EDGE_NS, SOJOURN_STEPS_PER_OCTAVE,
};

/// A `&'static CStr` from a literal ending in NUL; used in const context only.
const fn cstr(s: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(c) => c,
        Err(_) => c"invalid ecnsharp attribute",
    }
}

macro_rules! attributes {
    ($($(#[$doc:meta])* $variant:ident = $number:literal, $constant:ident, $keyword:literal;)*) => {
        /// The attributes nested in `TCA_OPTIONS`. Append-only: never renumber or reuse one.
        #[repr(u16)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Attr {
            $($(#[$doc])* $variant = $number,)*
        }

        $(
            #[doc = concat!("[`Attr::", stringify!($variant), "`] as a number (uapi name).")]
            pub const $constant: u16 = $number;
        )*

        impl Attr {
            /// Every attribute, in numeric order.
            pub const ALL: [Attr; [$($number),*].len()] = [$(Attr::$variant),*];

            /// The attribute numbered `number`, if this version knows it.
            pub const fn from_u16(number: u16) -> Option<Attr> {
                match number {
                    $($number => Some(Attr::$variant),)*
                    _ => None,
                }
            }

            /// The tc keyword of the option this attribute carries (`""` for UNSPEC and PAD).
            pub const fn keyword(self) -> &'static str {
                match self {
                    $(Attr::$variant => $keyword,)*
                }
            }

            /// Error message for a payload of the wrong size.
            const fn length_message(self) -> &'static CStr {
                match self {
                    $(Attr::$variant => {
                        const { cstr(concat!($keyword, ": attribute has the wrong length\0")) }
                    })*
                }
            }

            /// Error message for an attribute given twice in one message.
            const fn duplicate_message(self) -> &'static CStr {
                match self {
                    $(Attr::$variant => {
                        const { cstr(concat!($keyword, ": attribute given twice\0")) }
                    })*
                }
            }

            /// Error message for an enumerated value this version does not know.
            const fn value_message(self) -> &'static CStr {
                match self {
                    $(Attr::$variant => {
                        const { cstr(concat!($keyword, ": unknown value\0")) }
                    })*
                }
            }
        }
    };
}

attributes! {
    /// Never sent; 0 is reserved by netlink convention.
    Unspec = 0, TCA_ECNSHARP_UNSPEC, "";
    /// Padding before a 64-bit payload (`nla_put_u64_64bit`); skipped when decoding.
    Pad = 1, TCA_ECNSHARP_PAD, "";
    /// `u32` packets: `limit`.
    Limit = 2, TCA_ECNSHARP_LIMIT, "limit";
    /// `u32` bytes, 0 for none: `limit_bytes`.
    LimitBytes = 3, TCA_ECNSHARP_LIMIT_BYTES, "limit_bytes";
    /// `u32`: `bands`.
    Bands = 4, TCA_ECNSHARP_BANDS, "bands";
    /// `u32` flags ([`Modes`]): `mode`.
    Modes = 5, TCA_ECNSHARP_MODES, "mode";
    /// `u32` ns: `ins_target`.
    InsTarget = 6, TCA_ECNSHARP_INS_TARGET, "ins_target";
    /// `u32` ns: `pst_target`.
    PstTarget = 7, TCA_ECNSHARP_PST_TARGET, "pst_target";
    /// `u32` ns: `pst_interval`.
    PstInterval = 8, TCA_ECNSHARP_PST_INTERVAL, "pst_interval";
    /// `u32` enum ([`CONTROL_LAW_INV_SQRT`]...): `control_law`.
    ControlLaw = 9, TCA_ECNSHARP_CONTROL_LAW, "control_law";
    /// `u32` 0 or 1: `idle_reset`.
    IdleReset = 10, TCA_ECNSHARP_IDLE_RESET, "idle_reset";
    /// `u32` in the unit of [`Attr::KUnit`]: `k`.
    K = 11, TCA_ECNSHARP_K, "k";
    /// `u32` enum ([`K_UNIT_PACKETS`], [`K_UNIT_BYTES`]): `k_unit`.
    KUnit = 12, TCA_ECNSHARP_K_UNIT, "k_unit";
    /// `u32` ns: `tmin`.
    Tmin = 13, TCA_ECNSHARP_TMIN, "tmin";
    /// `u32` ns: `tmax`.
    Tmax = 14, TCA_ECNSHARP_TMAX, "tmax";
    /// `u32` parts per million: `pmax`.
    Pmax = 15, TCA_ECNSHARP_PMAX, "pmax";
    /// `u32`, 0 for a random seed: `seed`.
    Seed = 16, TCA_ECNSHARP_SEED, "seed";
    /// `u32` enum ([`SCHED_SP`]...): `sched`.
    Sched = 17, TCA_ECNSHARP_SCHED, "sched";
    /// `u32`: `strict`.
    StrictBands = 18, TCA_ECNSHARP_STRICT_BANDS, "strict";
    /// `u32` bytes per band, 1 to 16 of them: `quanta`.
    Quanta = 19, TCA_ECNSHARP_QUANTA, "quanta";
    /// `u32` per band, 1 to 16 of them: `weights`.
    Weights = 20, TCA_ECNSHARP_WEIGHTS, "weights";
    /// `u32` enum ([`CLASSIFY_PRIORITY`], [`CLASSIFY_DSCP`]): `classify`.
    Classify = 21, TCA_ECNSHARP_CLASSIFY, "classify";
    /// 16 bytes, the band of each `skb->priority & 15`: `priomap`.
    Priomap = 22, TCA_ECNSHARP_PRIOMAP, "priomap";
    /// 64 bytes, the band of each DSCP: `dscpmap`.
    Dscpmap = 23, TCA_ECNSHARP_DSCPMAP, "dscpmap";
    /// `u64` bits per second, 0 for no shaper: `rate`.
    Rate = 24, TCA_ECNSHARP_RATE, "rate";
    /// `u32` bytes, 0 to derive from the rate: `burst`.
    Burst = 25, TCA_ECNSHARP_BURST, "burst";
    /// `u32` enum ([`NON_ECT_PASS`], [`NON_ECT_DROP`]): `non_ect`.
    NonEct = 26, TCA_ECNSHARP_NON_ECT, "non_ect";
    /// `u32` 0 or 1: `split_gso`.
    SplitGso = 27, TCA_ECNSHARP_SPLIT_GSO, "split_gso";
}

/// The highest attribute number this version knows (the kernel's policy table size minus one).
pub const TCA_ECNSHARP_MAX: u16 = TCA_ECNSHARP_SPLIT_GSO;

/// [`ControlLaw::InvSqrt`] on the wire.
pub const CONTROL_LAW_INV_SQRT: u32 = 0;
/// [`ControlLaw::Linear`] on the wire.
pub const CONTROL_LAW_LINEAR: u32 = 1;
/// [`ControlLaw::Ns3`] on the wire.
pub const CONTROL_LAW_NS3: u32 = 2;
/// [`QueueUnit::Packets`] on the wire.
pub const K_UNIT_PACKETS: u32 = 0;
/// [`QueueUnit::Bytes`] on the wire.
pub const K_UNIT_BYTES: u32 = 1;
/// [`SchedKind::Sp`] on the wire.
pub const SCHED_SP: u32 = 0;
/// [`SchedKind::Dwrr`] on the wire.
pub const SCHED_DWRR: u32 = 1;
/// [`SchedKind::Wfq`] on the wire.
pub const SCHED_WFQ: u32 = 2;
/// [`ClassifyMode::Priority`] on the wire.
pub const CLASSIFY_PRIORITY: u32 = 0;
/// [`ClassifyMode::Dscp`] on the wire.
pub const CLASSIFY_DSCP: u32 = 1;
/// [`NonEctPolicy::Pass`] on the wire.
pub const NON_ECT_PASS: u32 = 0;
/// [`NonEctPolicy::Drop`] on the wire.
pub const NON_ECT_DROP: u32 = 1;

impl ControlLaw {
    /// The uapi number.
    pub const fn to_uapi(self) -> u32 {
        match self {
            ControlLaw::InvSqrt => CONTROL_LAW_INV_SQRT,
            ControlLaw::Linear => CONTROL_LAW_LINEAR,
            ControlLaw::Ns3 => CONTROL_LAW_NS3,
        }
    }

    /// The control law numbered `v`, if known.
    pub const fn from_uapi(v: u32) -> Option<ControlLaw> {
        match v {
            CONTROL_LAW_INV_SQRT => Some(ControlLaw::InvSqrt),
            CONTROL_LAW_LINEAR => Some(ControlLaw::Linear),
            CONTROL_LAW_NS3 => Some(ControlLaw::Ns3),
            _ => None,
        }
    }
}

impl QueueUnit {
    /// The uapi number.
    pub const fn to_uapi(self) -> u32 {
        match self {
            QueueUnit::Packets => K_UNIT_PACKETS,
            QueueUnit::Bytes => K_UNIT_BYTES,
        }
    }

    /// The unit numbered `v`, if known.
    pub const fn from_uapi(v: u32) -> Option<QueueUnit> {
        match v {
            K_UNIT_PACKETS => Some(QueueUnit::Packets),
            K_UNIT_BYTES => Some(QueueUnit::Bytes),
            _ => None,
        }
    }
}

impl SchedKind {
    /// The uapi number.
    pub const fn to_uapi(self) -> u32 {
        match self {
            SchedKind::Sp => SCHED_SP,
            SchedKind::Dwrr => SCHED_DWRR,
            SchedKind::Wfq => SCHED_WFQ,
        }
    }

    /// The scheduler numbered `v`, if known.
    pub const fn from_uapi(v: u32) -> Option<SchedKind> {
        match v {
            SCHED_SP => Some(SchedKind::Sp),
            SCHED_DWRR => Some(SchedKind::Dwrr),
            SCHED_WFQ => Some(SchedKind::Wfq),
            _ => None,
        }
    }
}

impl ClassifyMode {
    /// The uapi number.
    pub const fn to_uapi(self) -> u32 {
        match self {
            ClassifyMode::Priority => CLASSIFY_PRIORITY,
            ClassifyMode::Dscp => CLASSIFY_DSCP,
        }
    }

    /// The classification mode numbered `v`, if known.
    pub const fn from_uapi(v: u32) -> Option<ClassifyMode> {
        match v {
            CLASSIFY_PRIORITY => Some(ClassifyMode::Priority),
            CLASSIFY_DSCP => Some(ClassifyMode::Dscp),
            _ => None,
        }
    }
}

impl NonEctPolicy {
    /// The uapi number.
    pub const fn to_uapi(self) -> u32 {
        match self {
            NonEctPolicy::Pass => NON_ECT_PASS,
            NonEctPolicy::Drop => NON_ECT_DROP,
        }
    }

    /// The policy numbered `v`, if known.
    pub const fn from_uapi(v: u32) -> Option<NonEctPolicy> {
        match v {
            NON_ECT_PASS => Some(NonEctPolicy::Pass),
            NON_ECT_DROP => Some(NonEctPolicy::Drop),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Netlink attributes: a 4-byte header (u16 length including the header, u16 type), the payload,
// then padding to a multiple of 4.

/// Size of an attribute header.
pub const NLA_HDRLEN: usize = 4;
/// Attributes start at multiples of this.
pub const NLA_ALIGNTO: usize = 4;
/// Type flag: the payload is a nest of attributes.
pub const NLA_F_NESTED: u16 = 1 << 15;
/// Type flag: the payload is in network byte order.
pub const NLA_F_NET_BYTEORDER: u16 = 1 << 14;
/// The type bits without the two flags.
pub const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);

/// `len` rounded up to [`NLA_ALIGNTO`] (saturating, never panics).
pub const fn nla_align(len: usize) -> usize {
    len.saturating_add(NLA_ALIGNTO - 1) & !(NLA_ALIGNTO - 1)
}

/// Room one attribute with a `payload`-byte payload takes, padding included.
pub const fn nla_total_size(payload: usize) -> usize {
    nla_align(NLA_HDRLEN.saturating_add(payload))
}

/// One attribute found by [`NlaIter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nla<'a> {
    /// The type, with [`NLA_F_NESTED`] and [`NLA_F_NET_BYTEORDER`] masked off.
    pub kind: u16,
    /// The two flag bits as they were sent.
    pub flags: u16,
    /// The payload, without header or padding.
    pub payload: &'a [u8],
    /// Where the attribute's header starts in the buffer iterated.
    pub offset: usize,
}

impl Nla<'_> {
    /// The payload as a `u32`, if it is exactly 4 bytes.
    pub fn u32(&self) -> Option<u32> {
        self.payload.try_into().ok().map(u32::from_ne_bytes)
    }

    /// The payload as a `u64`, if it is exactly 8 bytes.
    pub fn u64(&self) -> Option<u64> {
        self.payload.try_into().ok().map(u64::from_ne_bytes)
    }
}

/// Malformed framing of a run of attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NlaError {
    /// Fewer than 4 bytes are left where a header should start (`nla_parse`'s "bytes leftover").
    Leftover {
        /// Where the leftover bytes start.
        offset: usize,
    },
    /// A header whose length is below the header's own size.
    BadLength {
        /// Where the header starts.
        offset: usize,
        /// Its type, flags masked.
        kind: u16,
    },
    /// A header announcing more bytes than are left.
    Truncated {
        /// Where the header starts.
        offset: usize,
        /// Its type, flags masked.
        kind: u16,
    },
}

impl NlaError {
    /// As a [`ConfigError`] naming the attribute when the header could be read.
    pub const fn to_config_error(self) -> ConfigError {
        match self {
            NlaError::Leftover { .. } => ConfigError {
                attr: TCA_ECNSHARP_UNSPEC,
                keyword: "",
                reason: c"ecnsharp options: bytes left over after the last attribute",
            },
            NlaError::BadLength { kind, .. } => framing_error(kind, c"attribute length too short"),
            NlaError::Truncated { kind, .. } => framing_error(kind, c"attribute is truncated"),
        }
    }
}

/// A framing error about attribute `kind`, with its own message if this version knows it.
const fn framing_error(kind: u16, unknown: &'static CStr) -> ConfigError {
    match Attr::from_u16(kind) {
        Some(attr) => ConfigError::new(attr, attr.length_message()),
        None => ConfigError {
            attr: kind,
            keyword: "",
            reason: unknown,
        },
    }
}

impl fmt::Display for NlaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NlaError::Leftover { offset } => write!(f, "bytes left over at offset {offset}"),
            NlaError::BadLength { offset, kind } => {
                write!(f, "attribute {kind} at offset {offset}: length below 4")
            }
            NlaError::Truncated { offset, kind } => {
                write!(f, "attribute {kind} at offset {offset}: truncated")
            }
        }
    }
}

/// Whether a whole attribute starts `offset` bytes into `buf`: a header of at least 4 bytes and
/// all the payload it announces, inside `buf`. The kernel glue checks it before it hands an
/// attribute found by its offset to the extack, so that what it points at is never read past
/// the request.
pub fn whole_attr_at(buf: &[u8], offset: usize) -> bool {
    let Some(rest) = buf.get(offset..) else {
        return false;
    };
    let [l0, l1, _, _, ..] = *rest else {
        return false;
    };
    let len = usize::from(u16::from_ne_bytes([l0, l1]));
    len >= NLA_HDRLEN && len <= rest.len()
}

/// Iterates the attributes of a buffer (a nest payload), without allocating.
///
/// Stops after the first error. Like the kernel's `nla_for_each_attr`, the last attribute may
/// lack its trailing padding.
#[derive(Clone, Debug)]
pub struct NlaIter<'a> {
    rest: &'a [u8],
    offset: usize,
    failed: bool,
}

impl<'a> NlaIter<'a> {
    /// Iterates the attributes in `buf`.
    pub const fn new(buf: &'a [u8]) -> NlaIter<'a> {
        NlaIter {
            rest: buf,
            offset: 0,
            failed: false,
        }
    }
}

impl<'a> Iterator for NlaIter<'a> {
    type Item = Result<Nla<'a>, NlaError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let offset = self.offset;
        let [l0, l1, t0, t1, ..] = *self.rest else {
            self.failed = true;
            return Some(Err(NlaError::Leftover { offset }));
        };
        let len = usize::from(u16::from_ne_bytes([l0, l1]));
        let raw_kind = u16::from_ne_bytes([t0, t1]);
        let kind = raw_kind & NLA_TYPE_MASK;
        if len < NLA_HDRLEN {
            self.failed = true;
            return Some(Err(NlaError::BadLength { offset, kind }));
        }
        let Some(payload) = self.rest.get(NLA_HDRLEN..len) else {
            self.failed = true;
            return Some(Err(NlaError::Truncated { offset, kind }));
        };
        let step = nla_align(len);
        self.rest = self.rest.get(step..).unwrap_or(&[]);
        self.offset = offset.saturating_add(step);
        Some(Ok(Nla {
            kind,
            flags: raw_kind & !NLA_TYPE_MASK,
            payload,
            offset,
        }))
    }
}

/// Why an encoder stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The output buffer is too small (the kernel answers `-EMSGSIZE`).
    NoSpace,
    /// One attribute would exceed the 65535 bytes its length field can hold.
    TooLong,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodeError::NoSpace => "output buffer too small",
            EncodeError::TooLong => "attribute longer than 65535 bytes",
        })
    }
}

/// Writes attributes into a caller's buffer, without allocating. Padding is zeroed.
#[derive(Debug)]
pub struct NlaWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
}

/// An open nest started by [`NlaWriter::begin_nest`].
#[derive(Debug)]
#[must_use = "a nest must be closed with end_nest"]
pub struct Nest {
    start: usize,
}

/// Copies `parts` in sequence into `dst`, then zeroes the rest of `dst`.
fn fill(dst: &mut [u8], parts: &[&[u8]]) {
    let mut src = parts.iter().flat_map(|p| p.iter().copied());
    for d in dst.iter_mut() {
        *d = src.next().unwrap_or(0);
    }
}

impl<'a> NlaWriter<'a> {
    /// A writer filling `buf` from its start.
    pub fn new(buf: &'a mut [u8]) -> NlaWriter<'a> {
        NlaWriter { buf, len: 0 }
    }

    /// Bytes written so far.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written yet.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Consumes the writer, returning the number of bytes written.
    pub const fn finish(self) -> usize {
        self.len
    }

    /// Appends attribute `kind` with `payload`.
    pub fn put(&mut self, kind: u16, payload: &[u8]) -> Result<(), EncodeError> {
        let total = NLA_HDRLEN.saturating_add(payload.len());
        let len = u16::try_from(total).map_err(|_| EncodeError::TooLong)?;
        let end = self.len.saturating_add(nla_align(total));
        let dst = self
            .buf
            .get_mut(self.len..end)
            .ok_or(EncodeError::NoSpace)?;
        fill(dst, &[&len.to_ne_bytes(), &kind.to_ne_bytes(), payload]);
        self.len = end;
        Ok(())
    }

    /// Appends a `u32` attribute.
    pub fn put_u32(&mut self, kind: u16, value: u32) -> Result<(), EncodeError> {
        self.put(kind, &value.to_ne_bytes())
    }

    /// Appends a `u64` attribute (unpadded: readers here copy it, never cast the pointer).
    pub fn put_u64(&mut self, kind: u16, value: u64) -> Result<(), EncodeError> {
        self.put(kind, &value.to_ne_bytes())
    }

    /// Opens a nest of type `kind` (sent with [`NLA_F_NESTED`], as 6.12's strict parser wants).
    pub fn begin_nest(&mut self, kind: u16) -> Result<Nest, EncodeError> {
        let start = self.len;
        self.put(kind | NLA_F_NESTED, &[])?;
        Ok(Nest { start })
    }

    /// Closes `nest`, writing its final length.
    pub fn end_nest(&mut self, nest: Nest) -> Result<(), EncodeError> {
        let total = self.len.saturating_sub(nest.start);
        let len = u16::try_from(total).map_err(|_| EncodeError::TooLong)?;
        let end = nest.start.saturating_add(2);
        let dst = self
            .buf
            .get_mut(nest.start..end)
            .ok_or(EncodeError::NoSpace)?;
        fill(dst, &[&len.to_ne_bytes()]);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// TCA_OPTIONS

/// Most bytes [`encode_options`] writes: every attribute, with 16 quanta and weights.
pub const OPTIONS_MAX_SIZE: usize = 21 * nla_total_size(4)
    + nla_total_size(8)
    + 2 * nla_total_size(4 * MAX_BANDS)
    + nla_total_size(16)
    + nla_total_size(64);

/// A `u32` payload, or the attribute's wrong-length error.
fn get_u32(nla: &Nla<'_>, attr: Attr) -> Result<u32, ConfigError> {
    nla.u32()
        .ok_or(ConfigError::new(attr, attr.length_message()))
}

/// An enumerated `u32` payload through `from`, or the attribute's error.
fn get_enum<T>(nla: &Nla<'_>, attr: Attr, from: fn(u32) -> Option<T>) -> Result<T, ConfigError> {
    from(get_u32(nla, attr)?).ok_or(ConfigError::new(attr, attr.value_message()))
}

/// A `u32` time payload in ns as [`crate::time::Nanos`].
fn get_time(nla: &Nla<'_>, attr: Attr) -> Result<u64, ConfigError> {
    get_u32(nla, attr).map(u64::from)
}

/// A `u32` count narrowed to `u8`, saturating so that validation names the bound.
fn get_u8_count(nla: &Nla<'_>, attr: Attr) -> Result<u8, ConfigError> {
    get_u32(nla, attr).map(|v| u8::try_from(v).unwrap_or(u8::MAX))
}

/// A per-band `u32` array of 1 to 16 entries; the entries not given take `rest`, so that an
/// attribute describes the whole array whatever the configuration it is applied to.
fn get_band_array(nla: &Nla<'_>, attr: Attr, rest: u32) -> Result<[u32; MAX_BANDS], ConfigError> {
    let n = nla.payload.len();
    if n == 0 || n % 4 != 0 || n > 4 * MAX_BANDS {
        return Err(ConfigError::new(attr, attr.length_message()));
    }
    let mut out = [rest; MAX_BANDS];
    for (slot, chunk) in out.iter_mut().zip(nla.payload.chunks_exact(4)) {
        if let Ok(bytes) = chunk.try_into() {
            *slot = u32::from_ne_bytes(bytes);
        }
    }
    Ok(out)
}

/// A fixed-size byte array payload.
fn get_bytes<const N: usize>(nla: &Nla<'_>, attr: Attr) -> Result<[u8; N], ConfigError> {
    nla.payload
        .try_into()
        .map_err(|_| ConfigError::new(attr, attr.length_message()))
}

/// Applies the attributes of a `TCA_OPTIONS` nest payload to `cfg`, then validates.
///
/// Attributes absent keep their value in `cfg` (start from [`Config::DEFAULT`] for a new qdisc,
/// from the running configuration for a change). Strict: an unknown type, a wrong length, an
/// unknown enumerated value, a duplicate or broken framing is an error naming the attribute.
/// `cfg` is changed only when everything, validation included, succeeded. Never panics.
pub fn decode_options(payload: &[u8], cfg: &mut Config) -> Result<(), ConfigError> {
    decode_options_located(payload, cfg).map_err(|e| e.error)
}

/// A [`decode_options`] error with the attribute at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocatedError {
    /// What is wrong, naming the attribute type.
    pub error: ConfigError,
    /// Offset in the payload of the attribute at fault (for a duplicate, the second copy);
    /// `None` when no single attribute is (a framing error past the last one, or a rule between
    /// several options that [`Config::validate`] checks).
    pub offset: Option<usize>,
}

/// [`decode_options`], telling where the attribute at fault is, so that the kernel's extack
/// points at it.
pub fn decode_options_located(payload: &[u8], cfg: &mut Config) -> Result<(), LocatedError> {
    let at = |offset, error| LocatedError {
        error,
        offset: Some(offset),
    };
    let mut new = *cfg;
    let mut seen: u32 = 0;
    for nla in NlaIter::new(payload) {
        let nla = nla.map_err(|e| LocatedError {
            error: e.to_config_error(),
            offset: match e {
                NlaError::Leftover { .. } => None,
                NlaError::BadLength { offset, .. } | NlaError::Truncated { offset, .. } => {
                    Some(offset)
                }
            },
        })?;
        let Some(attr) = Attr::from_u16(nla.kind) else {
            return Err(at(
                nla.offset,
                ConfigError {
                    attr: nla.kind,
                    keyword: "",
                    reason: c"unknown ecnsharp attribute",
                },
            ));
        };
        match attr {
            Attr::Pad => continue,
            Attr::Unspec => {
                return Err(at(
                    nla.offset,
                    ConfigError::new(attr, c"attribute type 0 is reserved"),
                ));
            }
            _ => {}
        }
        // Every known number is below 32 (see the uapi_numbers test).
        let bit = attr_bit(nla.kind);
        if seen & bit != 0 {
            return Err(at(
                nla.offset,
                ConfigError::new(attr, attr.duplicate_message()),
            ));
        }
        seen |= bit;
        apply(&nla, attr, &mut new).map_err(|e| at(nla.offset, e))?;
    }
    new.validate().map_err(|error| {
        // A rule between options: point at the option it names, if it was given.
        let offset = NlaIter::new(payload)
            .filter_map(|nla| nla.ok())
            .find(|nla| nla.kind == error.attr)
            .map(|nla| nla.offset);
        LocatedError { error, offset }
    })?;
    *cfg = new;
    Ok(())
}

/// `1 << kind`, the attribute's bit in a set of attributes (every known number is below 32; 0
/// for any other).
fn attr_bit(kind: u16) -> u32 {
    1u32.checked_shl(u32::from(kind)).unwrap_or(0)
}

/// What [`decode_options_shown`] could not read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unshown {
    /// Attributes left out: of a type this version does not know, or known but unreadable
    /// (length, enumerated value), or past broken framing (counted as one).
    pub count: u32,
    /// `1 << n` for each known attribute `n` left out: its option keeps its default.
    pub defaulted: u32,
    /// Why the first was left out.
    pub first: Option<ConfigError>,
}

impl Unshown {
    /// The tc keywords of the known options left out, in attribute order.
    pub fn defaulted_keywords(&self) -> impl Iterator<Item = &'static str> + '_ {
        Attr::ALL
            .into_iter()
            .filter(|a| self.defaulted & attr_bit(*a as u16) != 0)
            .map(Attr::keyword)
    }
}

/// `2 options cannot be read (a newer module?): sched: unknown value; shown at their defaults:
/// sched`: what the front ends warn, naming every option whose value is not the qdisc's.
impl fmt::Display for Unshown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.count == 1 { "" } else { "s" };
        write!(
            f,
            "{} option{s} cannot be read (a newer module?)",
            self.count
        )?;
        if let Some(first) = self.first {
            write!(f, ": {first}")?;
        }
        let mut sep = "; shown at their defaults: ";
        for keyword in self.defaulted_keywords() {
            write!(f, "{sep}{keyword}")?;
            sep = ", ";
        }
        Ok(())
    }
}

/// Reads a dumped `TCA_OPTIONS` payload for showing, as tc reads other qdiscs' options: what
/// it can, onto [`Config::DEFAULT`]. A newer module's attribute or value must not hide the whole
/// configuration from `tc qdisc show`, so an attribute that cannot be read is left out (a known
/// option then keeps its default, named in [`Unshown`]) and counted, broken framing ends the reading there, and the result is not validated (the kernel
/// accepted it). Configuring stays strict ([`decode_options`]). Never panics.
pub fn decode_options_shown(payload: &[u8]) -> (Config, Unshown) {
    let mut cfg = Config::DEFAULT;
    let mut unshown = Unshown::default();
    let mut skip = |e: ConfigError| {
        unshown.count = unshown.count.saturating_add(1);
        if e.attribute().is_some() {
            unshown.defaulted |= attr_bit(e.attr);
        }
        unshown.first.get_or_insert(e);
    };
    for nla in NlaIter::new(payload) {
        let nla = match nla {
            Ok(nla) => nla,
            Err(e) => {
                skip(e.to_config_error());
                break;
            }
        };
        match Attr::from_u16(nla.kind) {
            Some(Attr::Pad | Attr::Unspec) => {}
            Some(attr) => {
                if let Err(e) = apply(&nla, attr, &mut cfg) {
                    skip(e);
                }
            }
            None => skip(ConfigError {
                attr: nla.kind,
                keyword: "",
                reason: c"unknown ecnsharp attribute",
            }),
        }
    }
    (cfg, unshown)
}

/// Applies one attribute.
fn apply(nla: &Nla<'_>, attr: Attr, cfg: &mut Config) -> Result<(), ConfigError> {
    let m = &mut cfg.marking;
    match attr {
        Attr::Unspec | Attr::Pad => {}
        Attr::Limit => cfg.limit_packets = get_u32(nla, attr)?,
        Attr::LimitBytes => cfg.limit_bytes = get_u32(nla, attr)?,
        Attr::Bands => cfg.bands = get_u8_count(nla, attr)?,
        Attr::Modes => m.modes = Modes(get_u32(nla, attr)?),
        Attr::InsTarget => m.ins_target = get_time(nla, attr)?,
        Attr::PstTarget => m.pst_target = get_time(nla, attr)?,
        Attr::PstInterval => m.pst_interval = get_time(nla, attr)?,
        Attr::ControlLaw => m.control_law = get_enum(nla, attr, ControlLaw::from_uapi)?,
        Attr::IdleReset => {
            m.idle_reset = get_enum(nla, attr, |v| match v {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            })?
        }
        Attr::K => m.k = get_u32(nla, attr)?,
        Attr::KUnit => m.k_unit = get_enum(nla, attr, QueueUnit::from_uapi)?,
        Attr::Tmin => m.tmin = get_time(nla, attr)?,
        Attr::Tmax => m.tmax = get_time(nla, attr)?,
        Attr::Pmax => m.pmax_ppm = get_u32(nla, attr)?,
        Attr::Seed => m.seed = get_u32(nla, attr)?,
        Attr::Sched => cfg.sched.kind = get_enum(nla, attr, SchedKind::from_uapi)?,
        Attr::StrictBands => cfg.sched.strict_bands = get_u8_count(nla, attr)?,
        Attr::Quanta => cfg.sched.quanta = get_band_array(nla, attr, DEFAULT_QUANTUM)?,
        Attr::Weights => cfg.sched.weights = get_band_array(nla, attr, 1)?,
        Attr::Classify => cfg.classify.mode = get_enum(nla, attr, ClassifyMode::from_uapi)?,
        Attr::Priomap => cfg.classify.priomap = get_bytes(nla, attr)?,
        Attr::Dscpmap => cfg.classify.dscpmap = get_bytes(nla, attr)?,
        Attr::Rate => {
            cfg.shaper.rate_bps = nla
                .u64()
                .ok_or(ConfigError::new(attr, attr.length_message()))?
        }
        Attr::Burst => cfg.shaper.burst_bytes = get_u32(nla, attr)?,
        Attr::NonEct => cfg.non_ect = get_enum(nla, attr, NonEctPolicy::from_uapi)?,
        Attr::SplitGso => {
            cfg.split_gso = get_enum(nla, attr, |v| match v {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            })?
        }
    }
    Ok(())
}

/// A time as its `u32` uapi value (valid configurations never saturate).
fn time_u32(ns: u64) -> u32 {
    u32::try_from(ns).unwrap_or(u32::MAX)
}

/// Writes the per-band array of the bands in use.
fn put_band_array(
    w: &mut NlaWriter<'_>,
    kind: u16,
    values: &[u32; MAX_BANDS],
    bands: u8,
) -> Result<(), EncodeError> {
    let mut bytes = [0u8; 4 * MAX_BANDS];
    let used = usize::from(bands).clamp(1, MAX_BANDS);
    for (chunk, v) in bytes.chunks_exact_mut(4).zip(values.iter()) {
        fill(chunk, &[&v.to_ne_bytes()]);
    }
    w.put(kind, bytes.get(..4 * used).unwrap_or(&bytes))
}

/// Writes every option of `cfg` as `TCA_ECNSHARP_*` attributes (the payload of `TCA_OPTIONS`,
/// without the nest header), returning the length. `decode_options` of the result onto any
/// configuration gives back `cfg`, except entries of quanta and weights past `bands`, which
/// the dump does not carry (they come back as the defaults). Needs [`OPTIONS_MAX_SIZE`] bytes.
pub fn encode_options(cfg: &Config, out: &mut [u8]) -> Result<usize, EncodeError> {
    let mut w = NlaWriter::new(out);
    let m = &cfg.marking;
    w.put_u32(TCA_ECNSHARP_LIMIT, cfg.limit_packets)?;
    w.put_u32(TCA_ECNSHARP_LIMIT_BYTES, cfg.limit_bytes)?;
    w.put_u32(TCA_ECNSHARP_BANDS, u32::from(cfg.bands))?;
    w.put_u32(TCA_ECNSHARP_MODES, m.modes.0)?;
    w.put_u32(TCA_ECNSHARP_INS_TARGET, time_u32(m.ins_target))?;
    w.put_u32(TCA_ECNSHARP_PST_TARGET, time_u32(m.pst_target))?;
    w.put_u32(TCA_ECNSHARP_PST_INTERVAL, time_u32(m.pst_interval))?;
    w.put_u32(TCA_ECNSHARP_CONTROL_LAW, m.control_law.to_uapi())?;
    w.put_u32(TCA_ECNSHARP_IDLE_RESET, u32::from(m.idle_reset))?;
    w.put_u32(TCA_ECNSHARP_K, m.k)?;
    w.put_u32(TCA_ECNSHARP_K_UNIT, m.k_unit.to_uapi())?;
    w.put_u32(TCA_ECNSHARP_TMIN, time_u32(m.tmin))?;
    w.put_u32(TCA_ECNSHARP_TMAX, time_u32(m.tmax))?;
    w.put_u32(TCA_ECNSHARP_PMAX, m.pmax_ppm)?;
    w.put_u32(TCA_ECNSHARP_SEED, m.seed)?;
    w.put_u32(TCA_ECNSHARP_SCHED, cfg.sched.kind.to_uapi())?;
    w.put_u32(TCA_ECNSHARP_STRICT_BANDS, u32::from(cfg.sched.strict_bands))?;
    put_band_array(&mut w, TCA_ECNSHARP_QUANTA, &cfg.sched.quanta, cfg.bands)?;
    put_band_array(&mut w, TCA_ECNSHARP_WEIGHTS, &cfg.sched.weights, cfg.bands)?;
    w.put_u32(TCA_ECNSHARP_CLASSIFY, cfg.classify.mode.to_uapi())?;
    w.put(TCA_ECNSHARP_PRIOMAP, &cfg.classify.priomap)?;
    w.put(TCA_ECNSHARP_DSCPMAP, &cfg.classify.dscpmap)?;
    w.put_u64(TCA_ECNSHARP_RATE, cfg.shaper.rate_bps)?;
    w.put_u32(TCA_ECNSHARP_BURST, cfg.shaper.burst_bytes)?;
    w.put_u32(TCA_ECNSHARP_NON_ECT, cfg.non_ect.to_uapi())?;
    w.put_u32(TCA_ECNSHARP_SPLIT_GSO, u32::from(cfg.split_gso))?;
    Ok(w.finish())
}

// ---------------------------------------------------------------------------------------------
// xstats: one header, then one record per band in use. Versioned and append-only: a reader
// copies what it knows into a zeroed struct, so old tools read new kernels and the reverse.

/// First word of the xstats, `"ECN#"` read as a big-endian number; tells our xstats apart.
pub const XSTATS_TAG: u32 = 0x4543_4e23;
/// Layout version this code writes; new fields only ever go at the end of either struct.
pub const XSTATS_VERSION: u32 = 1;
/// Bytes of the header prefix a reader needs: `tag` through `bands`.
pub const XSTATS_MIN_HEADER_SIZE: usize = 20;

/// The qdisc-wide part of the xstats. `#[repr(C)]` with no implicit padding (checked by tests).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XstatsHeader {
    /// [`XSTATS_TAG`].
    pub tag: u32,
    /// [`XSTATS_VERSION`] of the writer.
    pub version: u32,
    /// Size of this header as written; band records start there.
    pub header_size: u32,
    /// Size of one band record as written.
    pub band_size: u32,
    /// Band records that follow.
    pub bands: u32,
    /// Bucket size the shaper uses, derived when the configured burst is 0.
    pub burst_bytes: u32,
    /// Time of the dump, on the clock of `first_above_time_ns` and `marking_next_ns`.
    pub now_ns: u64,
    /// Shaper rate, 0 when not shaping.
    pub rate_bps: u64,
    /// Times the shaper armed its watchdog to wait for tokens.
    pub throttled: u64,
    /// Packets dropped, all bands and causes.
    pub drops: u64,
    /// Packets marked CE by us, all bands.
    pub marks: u64,
    /// Wake-ups after a wait for tokens that came later than the shaper asked (its lateness is
    /// credited back; see docs/module.md).
    pub late_wakeups: u64,
    /// The latest such wake-up, in nanoseconds after the time asked for.
    pub late_max_ns: u64,
    /// [`XSTATS_KIND_QDISC`]: the qdisc's, one record per band; [`XSTATS_KIND_CLASS`]: one
    /// class's (`tc -s class show`), the record of band `first_band` alone.
    pub kind: u32,
    /// The band of the first record.
    pub first_band: u32,
}

/// [`XstatsHeader::kind`] of the qdisc's xstats.
pub const XSTATS_KIND_QDISC: u32 = 0;
/// [`XstatsHeader::kind`] of a class's xstats.
pub const XSTATS_KIND_CLASS: u32 = 1;

/// Counters and persistent-marking state of one band. `#[repr(C)]`, no implicit padding.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XstatsBand {
    /// Packets sent.
    pub packets: u64,
    /// Bytes sent (`qdisc_pkt_len`).
    pub bytes: u64,
    /// Packets queued now.
    pub qlen: u32,
    /// Bytes queued now.
    pub backlog: u32,
    /// Packets dropped because the qdisc was full.
    pub drops_limit: u64,
    /// Non-ECT packets dropped instead of marked (`non_ect drop`).
    pub drops_nonect: u64,
    /// Packets we marked CE (counted once however many rules asked).
    pub marks: u64,
    /// Marks asked for by each rule, in [`crate::ecn::MarkCause::ALL`] order.
    pub marks_by_cause: [u64; 5],
    /// Packets that arrived CE already.
    pub ce_already: u64,
    /// Non-ECT packets a rule wanted marked, let through (`non_ect pass`).
    pub nonect_passed: u64,
    /// Longest sojourn seen.
    pub sojourn_max_ns: u64,
    /// Sum of sojourns; the mean is `sojourn_sum_ns / packets`.
    pub sojourn_sum_ns: u64,
    /// Algorithm 1's `marking_state`: 1 while marking a persistent queue.
    pub marking_state: u32,
    /// Algorithm 1's `marking_count`.
    pub marking_count: u32,
    /// Algorithm 1's `first_above_time`, 0 when the sojourn is below `pst_target`.
    pub first_above_time_ns: u64,
    /// Algorithm 1's `marking_next`.
    pub marking_next_ns: u64,
    /// Packets offered to this band, dropped ones included: `enqueued = packets + drops + qlen`.
    pub enqueued: u64,
    /// Packets removed by the control path (a limit shrink or band removal at change).
    pub drops_config: u64,
}

/// The sojourn histogram of a class's band, after its record in a class's xstats
/// ([`XSTATS_KIND_CLASS`]): the buckets of [`crate::histogram`], described by their parameters
/// so that a reader can tell a layout it does not know. `#[repr(C)]`, no implicit padding.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XstatsHist {
    /// Buckets that follow ([`SOJOURN_BUCKETS`]).
    pub buckets: u32,
    /// Upper edge of bucket 0 in ns ([`SOJOURN_FIRST_EDGE_NS`]).
    pub first_edge_ns: u32,
    /// Buckets per octave after bucket 0 ([`SOJOURN_STEPS_PER_OCTAVE`]).
    pub steps_per_octave: u32,
    /// Zero.
    pub reserved: u32,
    /// Packets per bucket.
    pub counts: [u32; SOJOURN_BUCKETS],
}

impl XstatsHist {
    /// The record of `hist`.
    pub const fn new(hist: &SojournHist) -> XstatsHist {
        XstatsHist {
            buckets: SOJOURN_BUCKETS as u32,
            first_edge_ns: SOJOURN_FIRST_EDGE_NS,
            steps_per_octave: SOJOURN_STEPS_PER_OCTAVE,
            reserved: 0,
            counts: hist.counts,
        }
    }

    /// The histogram it carries.
    pub const fn hist(&self) -> SojournHist {
        SojournHist {
            counts: self.counts,
        }
    }

    /// The record as bytes, field by field.
    pub fn to_bytes(&self) -> [u8; XSTATS_HIST_SIZE] {
        let mut rec = [0u8; XSTATS_HIST_SIZE];
        let mut p = Put(rec.iter_mut());
        for v in [
            self.buckets,
            self.first_edge_ns,
            self.steps_per_octave,
            self.reserved,
        ] {
            p.u32(v);
        }
        for v in self.counts {
            p.u32(v);
        }
        rec
    }

    /// The histogram at the start of `src`, or `None` if `src` holds none, or one with other
    /// buckets than ours (a newer layout: this reader shows no percentiles rather than wrong ones).
    pub fn from_bytes(src: &[u8]) -> Option<XstatsHist> {
        let rec = src.get(..XSTATS_HIST_SIZE)?;
        let mut g = Get(rec);
        let (buckets, first_edge_ns, steps_per_octave, reserved) =
            (g.u32(), g.u32(), g.u32(), g.u32());
        if buckets != SOJOURN_BUCKETS as u32
            || first_edge_ns != SOJOURN_FIRST_EDGE_NS
            || steps_per_octave != SOJOURN_STEPS_PER_OCTAVE
        {
            return None;
        }
        let mut counts = [0u32; SOJOURN_BUCKETS];
        for c in counts.iter_mut() {
            *c = g.u32();
        }
        Some(XstatsHist {
            buckets,
            first_edge_ns,
            steps_per_octave,
            reserved,
            counts,
        })
    }
}

/// Size of [`XstatsHist`] in bytes.
pub const XSTATS_HIST_SIZE: usize = 16 + 4 * SOJOURN_BUCKETS;
const _: [(); XSTATS_HIST_SIZE] = [(); core::mem::size_of::<XstatsHist>()];

/// Size of [`XstatsHeader`] in bytes.
pub const XSTATS_HEADER_SIZE: usize = 88;
/// Size of [`XstatsBand`] in bytes.
pub const XSTATS_BAND_SIZE: usize = 160;
/// Most bytes [`encode_xstats`] writes.
pub const XSTATS_MAX_SIZE: usize = XSTATS_HEADER_SIZE + MAX_BANDS * XSTATS_BAND_SIZE;
/// Bytes of a class's xstats: the header, one record and its sojourn histogram.
pub const CLASS_XSTATS_SIZE: usize = XSTATS_HEADER_SIZE + XSTATS_BAND_SIZE + XSTATS_HIST_SIZE;

/// What one `RTM_NEWQDISC` of an ecnsharp qdisc may take, stats included: the kernel builds
/// notifications (`tc monitor`, the reply to a change) and `tc qdisc show dev X` replies in one
/// `NLMSG_GOODSIZE` buffer (3776 bytes on x86-64 with 4 KB pages), and a qdisc that does not fit
/// silently vanishes from dumps. The xstats are written once, as `TCA_STATS_APP` (not again as
/// the legacy `TCA_XSTATS`), so 16 bands fit; the `dump_fits_with_room_at_16_bands` test keeps
/// [`DUMP_ROOM`] bytes free for what comes next.
pub const NLMSG_GOODSIZE_X86_64: usize = 3776;
/// Bytes of an `RTM_NEWQDISC` besides our options and xstats, as `tc_fill_qdisc` writes them on
/// x86-64 (no 64-bit padding attributes there): the netlink and tc headers (16 + 20), `TCA_KIND`
/// (`"ecnsharp"`: 16), `TCA_HW_OFFLOAD` (8), `TCA_DUMP_INVISIBLE` (4), the `TCA_STATS2` nest's
/// header (4), and what the kernel glue's `ECNSHARP_STATS_TRAILER` keeps after the xstats (216:
/// basic, 64-bit packets, rate estimator and its 64-bit twin, queue, the legacy `TCA_STATS` and a
/// warning).
pub const DUMP_OVERHEAD: usize = 16 + 20 + 16 + 8 + 4 + 4 + 216;
/// Bytes kept free at 16 bands for growth.
pub const DUMP_ROOM: usize = 384;

// The structs are exactly their fields: a mismatch fails to compile.
const _: [(); XSTATS_HEADER_SIZE] = [(); core::mem::size_of::<XstatsHeader>()];
const _: [(); XSTATS_BAND_SIZE] = [(); core::mem::size_of::<XstatsBand>()];

/// Sequential native-endian writer into a fixed record.
struct Put<'a>(core::slice::IterMut<'a, u8>);

impl Put<'_> {
    fn bytes(&mut self, src: &[u8]) {
        // `src` drives the zip: the other order would consume one extra output byte per call.
        for (s, d) in src.iter().zip(&mut self.0) {
            *d = *s;
        }
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_ne_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_ne_bytes());
    }
}

/// Sequential native-endian reader; reads past the end give 0.
struct Get<'a>(&'a [u8]);

impl Get<'_> {
    fn array<const N: usize>(&mut self) -> [u8; N] {
        // (No `split_at_checked`: the module must build with the kernel's minimum rustc, 1.78.)
        let (head, tail) = if self.0.len() >= N {
            self.0.split_at(N)
        } else {
            (&[][..], &[][..])
        };
        self.0 = tail;
        head.try_into().unwrap_or([0; N])
    }
    fn u32(&mut self) -> u32 {
        u32::from_ne_bytes(self.array())
    }
    fn u64(&mut self) -> u64 {
        u64::from_ne_bytes(self.array())
    }
}

/// `src`'s first bytes in a zeroed record of `N`: how C copies a shorter or longer struct.
fn zero_extended<const N: usize>(src: &[u8]) -> [u8; N] {
    let mut rec = [0u8; N];
    fill(&mut rec, &[src]);
    rec
}

impl XstatsHeader {
    /// The header as bytes, field by field (no padding bytes exist, none can leak).
    pub fn to_bytes(&self) -> [u8; XSTATS_HEADER_SIZE] {
        let mut rec = [0u8; XSTATS_HEADER_SIZE];
        let mut p = Put(rec.iter_mut());
        for v in [
            self.tag,
            self.version,
            self.header_size,
            self.band_size,
            self.bands,
            self.burst_bytes,
        ] {
            p.u32(v);
        }
        for v in [
            self.now_ns,
            self.rate_bps,
            self.throttled,
            self.drops,
            self.marks,
            self.late_wakeups,
            self.late_max_ns,
        ] {
            p.u64(v);
        }
        p.u32(self.kind);
        p.u32(self.first_band);
        rec
    }

    /// A header from the first bytes of `src`; fields past its end are 0, bytes past ours ignored.
    pub fn from_bytes(src: &[u8]) -> XstatsHeader {
        let rec: [u8; XSTATS_HEADER_SIZE] = zero_extended(src);
        let mut g = Get(&rec);
        XstatsHeader {
            tag: g.u32(),
            version: g.u32(),
            header_size: g.u32(),
            band_size: g.u32(),
            bands: g.u32(),
            burst_bytes: g.u32(),
            now_ns: g.u64(),
            rate_bps: g.u64(),
            throttled: g.u64(),
            drops: g.u64(),
            marks: g.u64(),
            late_wakeups: g.u64(),
            late_max_ns: g.u64(),
            kind: g.u32(),
            first_band: g.u32(),
        }
    }
}

impl XstatsBand {
    /// The record as bytes, field by field.
    pub fn to_bytes(&self) -> [u8; XSTATS_BAND_SIZE] {
        let mut rec = [0u8; XSTATS_BAND_SIZE];
        let mut p = Put(rec.iter_mut());
        p.u64(self.packets);
        p.u64(self.bytes);
        p.u32(self.qlen);
        p.u32(self.backlog);
        p.u64(self.drops_limit);
        p.u64(self.drops_nonect);
        p.u64(self.marks);
        for v in self.marks_by_cause {
            p.u64(v);
        }
        p.u64(self.ce_already);
        p.u64(self.nonect_passed);
        p.u64(self.sojourn_max_ns);
        p.u64(self.sojourn_sum_ns);
        p.u32(self.marking_state);
        p.u32(self.marking_count);
        p.u64(self.first_above_time_ns);
        p.u64(self.marking_next_ns);
        p.u64(self.enqueued);
        p.u64(self.drops_config);
        rec
    }

    /// A record from the first bytes of `src`; fields past its end are 0.
    pub fn from_bytes(src: &[u8]) -> XstatsBand {
        let rec: [u8; XSTATS_BAND_SIZE] = zero_extended(src);
        let mut g = Get(&rec);
        XstatsBand {
            packets: g.u64(),
            bytes: g.u64(),
            qlen: g.u32(),
            backlog: g.u32(),
            drops_limit: g.u64(),
            drops_nonect: g.u64(),
            marks: g.u64(),
            marks_by_cause: [g.u64(), g.u64(), g.u64(), g.u64(), g.u64()],
            ce_already: g.u64(),
            nonect_passed: g.u64(),
            sojourn_max_ns: g.u64(),
            sojourn_sum_ns: g.u64(),
            marking_state: g.u32(),
            marking_count: g.u32(),
            first_above_time_ns: g.u64(),
            marking_next_ns: g.u64(),
            enqueued: g.u64(),
            drops_config: g.u64(),
        }
    }
}

/// Writes the xstats: `header` (its tag, version, sizes and band count are filled in here),
/// then one record per entry of `bands` (at most [`MAX_BANDS`] are written). Returns the length.
pub fn encode_xstats(
    header: &XstatsHeader,
    bands: &[XstatsBand],
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    let bands = bands.get(..MAX_BANDS).unwrap_or(bands);
    encode_xstats_with(
        header,
        bands.len(),
        |i| bands.get(i).copied().unwrap_or_default(),
        out,
    )
}

/// As [`encode_xstats`], with the records made one at a time by `band(i)` for `i < count`
/// (`count` is capped at [`MAX_BANDS`]): the kernel fills them from its state without a
/// multi-kilobyte array on its stack.
pub fn encode_xstats_with(
    header: &XstatsHeader,
    count: usize,
    band: impl Fn(usize) -> XstatsBand,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    let count = count.min(MAX_BANDS);
    let len = XSTATS_HEADER_SIZE.saturating_add(count.saturating_mul(XSTATS_BAND_SIZE));
    let out = out.get_mut(..len).ok_or(EncodeError::NoSpace)?;
    let mut h = *header;
    h.tag = XSTATS_TAG;
    h.version = XSTATS_VERSION;
    h.header_size = XSTATS_HEADER_SIZE as u32;
    h.band_size = XSTATS_BAND_SIZE as u32;
    h.bands = u32::try_from(count).unwrap_or(0);
    if out.len() < XSTATS_HEADER_SIZE {
        return Err(EncodeError::NoSpace);
    }
    let (head, records) = out.split_at_mut(XSTATS_HEADER_SIZE);
    fill(head, &[&h.to_bytes()]);
    for (i, dst) in records.chunks_exact_mut(XSTATS_BAND_SIZE).enumerate() {
        fill(dst, &[&band(i).to_bytes()]);
    }
    Ok(len)
}

/// Decoded xstats: the header and the records of `header.bands` bands (the rest zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Xstats {
    /// The header, as the writer filled it.
    pub header: XstatsHeader,
    /// One record per band; only the first `header.bands` were sent.
    pub bands: [XstatsBand; MAX_BANDS],
    /// A class's sojourn histogram, after its record (none from older writers).
    pub hist: Option<XstatsHist>,
}

impl Xstats {
    /// The records that were sent.
    pub fn bands(&self) -> &[XstatsBand] {
        let n = usize::try_from(self.header.bands).unwrap_or(MAX_BANDS);
        self.bands.get(..n).unwrap_or(&self.bands)
    }
}

/// Why xstats could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XstatsError {
    /// Fewer bytes than [`XSTATS_MIN_HEADER_SIZE`].
    Short,
    /// The first word is not [`XSTATS_TAG`]: not ecnsharp xstats.
    BadTag,
    /// Version 0, which no writer uses.
    BadVersion,
    /// `header_size` below the minimal header, or past the end of the data.
    BadHeaderSize,
    /// More band records announced than [`MAX_BANDS`].
    TooManyBands,
    /// The band records announced run past the end of the data.
    Truncated,
}

impl fmt::Display for XstatsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            XstatsError::Short => "ecnsharp xstats too short",
            XstatsError::BadTag => "not ecnsharp xstats (bad tag)",
            XstatsError::BadVersion => "ecnsharp xstats with version 0",
            XstatsError::BadHeaderSize => "ecnsharp xstats with a bad header size",
            XstatsError::TooManyBands => "ecnsharp xstats with more than 16 bands",
            XstatsError::Truncated => "ecnsharp xstats truncated",
        })
    }
}

/// Reads xstats written by any version: records shorter than ours are zero-extended, longer ones
/// cut to the fields we know. Never panics.
pub fn decode_xstats(src: &[u8]) -> Result<Xstats, XstatsError> {
    if src.len() < XSTATS_MIN_HEADER_SIZE {
        return Err(XstatsError::Short);
    }
    let mut header = XstatsHeader::from_bytes(src);
    if header.tag != XSTATS_TAG {
        return Err(XstatsError::BadTag);
    }
    if header.version == 0 {
        return Err(XstatsError::BadVersion);
    }
    let header_size = usize::try_from(header.header_size).unwrap_or(usize::MAX);
    if header_size < XSTATS_MIN_HEADER_SIZE || header_size > src.len() {
        return Err(XstatsError::BadHeaderSize);
    }
    // Bytes past the writer's header belong to the band records, not to our newer fields.
    header = XstatsHeader::from_bytes(src.get(..header_size).unwrap_or(src));
    let bands = usize::try_from(header.bands).unwrap_or(usize::MAX);
    if bands > MAX_BANDS {
        return Err(XstatsError::TooManyBands);
    }
    let band_size = usize::try_from(header.band_size).unwrap_or(usize::MAX);
    let end = band_size
        .checked_mul(bands)
        .and_then(|b| b.checked_add(header_size))
        .ok_or(XstatsError::Truncated)?;
    let records = src.get(header_size..end).ok_or(XstatsError::Truncated)?;
    let mut out = Xstats {
        header,
        bands: [XstatsBand::default(); MAX_BANDS],
        hist: None,
    };
    if header.kind == XSTATS_KIND_CLASS {
        out.hist = src.get(end..).and_then(XstatsHist::from_bytes);
    }
    if band_size > 0 {
        for (slot, rec) in out.bands.iter_mut().zip(records.chunks_exact(band_size)) {
            *slot = XstatsBand::from_bytes(rec);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::arbitrary::valid_config;
    use crate::time::us;
    use core::mem::offset_of;
    use proptest::prelude::*;
    use std::vec::Vec;

    #[test]
    fn whole_attributes_only() {
        let mut buf = Vec::new();
        buf.extend(8u16.to_ne_bytes());
        buf.extend(TCA_ECNSHARP_LIMIT.to_ne_bytes());
        buf.extend(5u32.to_ne_bytes());
        assert!(whole_attr_at(&buf, 0));
        // A header whose payload runs past the buffer: the header alone is inside.
        buf.extend(200u16.to_ne_bytes());
        buf.extend(TCA_ECNSHARP_BANDS.to_ne_bytes());
        assert!(
            !whole_attr_at(&buf, 8),
            "truncated attribute taken as whole"
        );
        // A length below the header's own, a cut header, an offset past the end.
        let short = [2u8, 0, 1, 0];
        assert!(!whole_attr_at(&short, 0));
        assert!(!whole_attr_at(&buf[..10], 8));
        assert!(!whole_attr_at(&buf, 100));
        assert!(!whole_attr_at(&buf, usize::MAX));
    }

    /// The C strings of `source` (`c"..."` literals).
    fn c_literals(source: &str) -> Vec<&str> {
        source
            .split("c\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect()
    }

    #[test]
    fn every_extack_message_fits_the_kernels_buffer() {
        // The module sets extack messages with NL_SET_ERR_MSG_ATTR_POL_FMT (its strings are not
        // literals of the C macro), which copies them into a NETLINK_MAX_FMTMSG_LEN (80) byte
        // buffer and warns if one is cut: every message must be at most 79 bytes.
        let mut messages: Vec<&str> = Vec::new();
        for attr in Attr::ALL {
            for m in [
                attr.length_message(),
                attr.duplicate_message(),
                attr.value_message(),
            ] {
                messages.push(m.to_str().unwrap());
            }
        }
        for source in [
            include_str!("uapi.rs"),
            include_str!("config.rs"),
            include_str!("../module/ecnsharp.rs"),
            include_str!("../module/net_sched/adapter.rs"),
        ] {
            messages.extend(c_literals(source));
        }
        assert!(
            messages.len() > 100,
            "only {} messages found",
            messages.len()
        );
        for m in messages {
            assert!(m.len() <= 79, "{} bytes: {m:?}", m.len());
        }
    }

    /// One attribute as raw bytes, padded.
    fn nla(kind: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&((4 + payload.len()) as u16).to_ne_bytes());
        v.extend_from_slice(&kind.to_ne_bytes());
        v.extend_from_slice(payload);
        while v.len() % 4 != 0 {
            v.push(0);
        }
        v
    }

    fn decode(payload: &[u8]) -> Result<Config, ConfigError> {
        let mut cfg = Config::DEFAULT;
        decode_options(payload, &mut cfg).map(|()| cfg)
    }

    #[test]
    fn uapi_numbers() {
        // Consecutive from 0, all below 32 (decode_options tracks duplicates in a u32).
        for (i, attr) in Attr::ALL.iter().enumerate() {
            assert_eq!(*attr as usize, i);
            assert_eq!(Attr::from_u16(i as u16), Some(*attr));
        }
        assert_eq!(Attr::ALL.len(), usize::from(TCA_ECNSHARP_MAX) + 1);
        const { assert!(TCA_ECNSHARP_MAX < 32) };
        assert_eq!(Attr::from_u16(TCA_ECNSHARP_MAX + 1), None);
        // The numbers are frozen: these are the first and a few later ones.
        assert_eq!(
            (TCA_ECNSHARP_UNSPEC, TCA_ECNSHARP_PAD, TCA_ECNSHARP_LIMIT),
            (0, 1, 2)
        );
        assert_eq!((TCA_ECNSHARP_PST_INTERVAL, TCA_ECNSHARP_RATE), (8, 24));
        // Keywords: unique, and empty only for the two that carry no option.
        for a in Attr::ALL {
            let empty = matches!(a, Attr::Unspec | Attr::Pad);
            assert_eq!(a.keyword().is_empty(), empty, "{a:?}");
            let same = Attr::ALL
                .iter()
                .filter(|b| b.keyword() == a.keyword())
                .count();
            assert!(empty || same == 1, "{a:?}");
            let msg = a.length_message().to_str().unwrap();
            assert!(
                msg.starts_with(a.keyword()) && msg.contains("length"),
                "{msg}"
            );
        }
        for v in 0..4 {
            assert_eq!(
                ControlLaw::from_uapi(v).map(ControlLaw::to_uapi),
                (v < 3).then_some(v)
            );
            assert_eq!(
                SchedKind::from_uapi(v).map(SchedKind::to_uapi),
                (v < 3).then_some(v)
            );
            assert_eq!(
                QueueUnit::from_uapi(v).map(QueueUnit::to_uapi),
                (v < 2).then_some(v)
            );
            let c = ClassifyMode::from_uapi(v).map(ClassifyMode::to_uapi);
            assert_eq!(c, (v < 2).then_some(v));
            let n = NonEctPolicy::from_uapi(v).map(NonEctPolicy::to_uapi);
            assert_eq!(n, (v < 2).then_some(v));
        }
    }

    #[test]
    fn reader_framing() {
        let mut buf = nla(5 | NLA_F_NESTED, &7u32.to_ne_bytes());
        buf.extend(nla(3, &[1, 2, 3, 4, 5]));
        let got: Vec<_> = NlaIter::new(&buf).collect();
        assert_eq!(got.len(), 2);
        let first = got[0].unwrap();
        assert_eq!(
            (first.kind, first.flags, first.u32()),
            (5, NLA_F_NESTED, Some(7))
        );
        let second = got[1].unwrap();
        assert_eq!((second.offset, second.payload), (8, &[1u8, 2, 3, 4, 5][..]));
        assert_eq!(second.u32(), None);
        // The last attribute may come without its padding.
        assert_eq!(
            NlaIter::new(&buf[..buf.len() - 3])
                .filter(|r| r.is_ok())
                .count(),
            2
        );
        // Fewer than 4 bytes after an attribute: leftover.
        let mut left = nla(2, &1u32.to_ne_bytes());
        left.extend([0, 0]);
        let r: Vec<_> = NlaIter::new(&left).collect();
        assert_eq!(r[1], Err(NlaError::Leftover { offset: 8 }));
        // A length below the header, and one past the end; iteration stops after an error.
        let bad = [2u8, 0, 4, 0, 8, 0, 4, 0];
        let r: Vec<_> = NlaIter::new(&bad).collect();
        assert_eq!(r, [Err(NlaError::BadLength { offset: 0, kind: 4 })]);
        let long = [12u8, 0, 0x06, 0x80, 0, 0, 0, 0];
        let r: Vec<_> = NlaIter::new(&long).collect();
        assert_eq!(r, [Err(NlaError::Truncated { offset: 0, kind: 6 })]);
        assert_eq!(NlaIter::new(&[]).count(), 0);
    }

    #[test]
    fn writer_and_nests() {
        let mut buf = [0xffu8; 32];
        let mut w = NlaWriter::new(&mut buf);
        let nest = w.begin_nest(2).unwrap();
        w.put(3, &[9, 9, 9]).unwrap();
        w.put_u64(4, 1).unwrap();
        w.end_nest(nest).unwrap();
        assert_eq!(w.len(), 24);
        assert_eq!(w.put_u64(5, 0), Err(EncodeError::NoSpace));
        assert_eq!(w.finish(), 24);
        // Nest header: length of all inside, NLA_F_NESTED set; padding zeroed.
        assert_eq!(buf[..4], [24, 0, 2, 0x80]);
        assert_eq!(buf[4..12], [7, 0, 3, 0, 9, 9, 9, 0]);
        assert_eq!(buf[24..], [0xff; 8]);
        let outer: Vec<_> = NlaIter::new(&buf[..24]).map(Result::unwrap).collect();
        assert_eq!(outer.len(), 1);
        let inner: Vec<_> = NlaIter::new(outer[0].payload).map(Result::unwrap).collect();
        assert_eq!((inner[1].kind, inner[1].u64()), (4, Some(1)));
        let big = [0u8; 70_000];
        let mut huge = std::vec![0u8; 80_000];
        assert_eq!(
            NlaWriter::new(&mut huge).put(2, &big),
            Err(EncodeError::TooLong)
        );
        let mut small = [0u8; 7];
        assert_eq!(
            NlaWriter::new(&mut small).put_u32(2, 1),
            Err(EncodeError::NoSpace)
        );
    }

    #[test]
    fn every_attribute_decodes() {
        type Check = fn(&Config) -> bool;
        let cases: Vec<(Vec<u8>, Check)> = std::vec![
            (nla(2, &7u32.to_ne_bytes()), |c| c.limit_packets == 7),
            (nla(3, &2000u32.to_ne_bytes()), |c| c.limit_bytes == 2000),
            (nla(4, &3u32.to_ne_bytes()), |c| c.bands == 3),
            (nla(5, &4u32.to_ne_bytes()), |c| c.marking.modes
                == Modes::QUEUE_ENQUEUE),
            (nla(6, &1000u32.to_ne_bytes()), |c| c.marking.ins_target
                == us(1)),
            (nla(7, &2000u32.to_ne_bytes()), |c| c.marking.pst_target
                == us(2)),
            (nla(8, &3000u32.to_ne_bytes()), |c| c.marking.pst_interval
                == us(3)),
            (nla(9, &2u32.to_ne_bytes()), |c| c.marking.control_law
                == ControlLaw::Ns3),
            (nla(10, &0u32.to_ne_bytes()), |c| !c.marking.idle_reset),
            (nla(11, &20u32.to_ne_bytes()), |c| c.marking.k == 20),
            (nla(12, &1u32.to_ne_bytes()), |c| c.marking.k_unit
                == QueueUnit::Bytes),
            (nla(13, &0u32.to_ne_bytes()), |c| c.marking.tmin == 0),
            (nla(14, &u32::MAX.to_ne_bytes()), |c| c.marking.tmax
                == u64::from(u32::MAX)),
            (nla(15, &5u32.to_ne_bytes()), |c| c.marking.pmax_ppm == 5),
            (nla(16, &9u32.to_ne_bytes()), |c| c.marking.seed == 9),
            (nla(17, &2u32.to_ne_bytes()), |c| c.sched.kind
                == SchedKind::Wfq),
            (nla(18, &1u32.to_ne_bytes()), |c| c.sched.strict_bands == 1),
            (nla(19, &3000u32.to_ne_bytes()), |c| c.sched.quanta[..2]
                == [3000, 1514]),
            (nla(20, &[4, 0, 0, 0, 5, 0, 0, 0]), |c| {
                c.sched.weights[..3]
                    == [
                        u32::from_ne_bytes([4, 0, 0, 0]),
                        u32::from_ne_bytes([5, 0, 0, 0]),
                        1,
                    ]
            }),
            (nla(21, &1u32.to_ne_bytes()), |c| c.classify.mode
                == ClassifyMode::Dscp),
            (nla(22, &[3; 16]), |c| c.classify.priomap == [3; 16]),
            (nla(23, &[1; 64]), |c| c.classify.dscpmap == [1; 64]),
            (nla(24, &10_000_000_000u64.to_ne_bytes()), |c| c
                .shaper
                .rate_bps
                == 10_000_000_000),
            (nla(25, &4000u32.to_ne_bytes()), |c| c.shaper.burst_bytes
                == 4000),
            (nla(26, &1u32.to_ne_bytes()), |c| c.non_ect
                == NonEctPolicy::Drop),
            (nla(27, &0u32.to_ne_bytes()), |c| !c.split_gso),
        ];
        assert_eq!(cases.len(), Attr::ALL.len() - 2);
        for (bytes, check) in &cases {
            let cfg = decode(bytes).unwrap();
            assert!(check(&cfg), "{bytes:?}");
        }
        // All at once, in any order, with PAD anywhere.
        let mut all: Vec<u8> = nla(1, &[]);
        for (bytes, _) in cases.iter().rev() {
            all.extend(bytes);
        }
        let cfg = decode(&all).unwrap();
        assert!(cases.iter().all(|(_, check)| check(&cfg)));
        assert_eq!(decode(&[]), Ok(Config::DEFAULT));
        // Flags on a scalar's type are masked, as the kernel does.
        assert_eq!(
            decode(&nla(2 | NLA_F_NET_BYTEORDER, &7u32.to_ne_bytes()))
                .unwrap()
                .limit_packets,
            7
        );
    }

    #[test]
    fn decode_rejects_and_names_the_attribute() {
        let e = |bytes: &[u8]| decode(bytes).unwrap_err();
        // Wrong length, for every attribute.
        for attr in Attr::ALL.into_iter().skip(2) {
            let wrong: &[u8] = match attr {
                Attr::Rate => &[0; 4],
                Attr::Quanta | Attr::Weights => &[0; 6],
                _ => &[0; 8],
            };
            let err = e(&nla(attr as u16, wrong));
            assert_eq!((err.attr, err.keyword), (attr as u16, attr.keyword()));
            assert!(err.reason_str().starts_with(attr.keyword()), "{err}");
        }
        for empty_or_long in [0usize, 68] {
            let err = e(&nla(TCA_ECNSHARP_QUANTA, &std::vec![0u8; empty_or_long]));
            assert_eq!(err.attribute(), Some(Attr::Quanta));
        }
        // Unknown enumerated values.
        for attr in [
            Attr::ControlLaw,
            Attr::IdleReset,
            Attr::KUnit,
            Attr::Sched,
            Attr::Classify,
            Attr::NonEct,
        ] {
            let err = e(&nla(attr as u16, &7u32.to_ne_bytes()));
            assert_eq!(err.attribute(), Some(attr));
            assert!(err.reason_str().ends_with("unknown value"), "{err}");
        }
        // Unknown attribute, reserved 0, duplicate, framing.
        let err = e(&nla(TCA_ECNSHARP_MAX + 1, &[0; 4]));
        assert_eq!((err.attr, err.keyword), (TCA_ECNSHARP_MAX + 1, ""));
        assert_eq!(e(&nla(0, &[])).attr, 0);
        let mut twice = nla(TCA_ECNSHARP_K, &3u32.to_ne_bytes());
        twice.extend(nla(TCA_ECNSHARP_K, &3u32.to_ne_bytes()));
        assert_eq!(e(&twice).reason_str(), "k: attribute given twice");
        assert_eq!(e(&[8, 0, 2, 0, 1]).attribute(), Some(Attr::Limit));
        assert_eq!(e(&[8, 0]).attr, 0);
        assert_eq!(e(&[2, 0, 99, 0]).attr, 99);
        // Values that validation refuses: bands beyond u8 saturate and are refused as bands.
        assert_eq!(
            e(&nla(4, &256u32.to_ne_bytes())).attribute(),
            Some(Attr::Bands)
        );
        assert_eq!(
            e(&nla(18, &300u32.to_ne_bytes())).attribute(),
            Some(Attr::StrictBands)
        );
        assert_eq!(
            e(&nla(8, &999u32.to_ne_bytes())).attribute(),
            Some(Attr::PstInterval)
        );
    }

    #[test]
    fn failed_decode_leaves_config_whole() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        let before = cfg;
        // A valid change followed by a bad attribute, and a change that fails validation.
        let mut bad = nla(TCA_ECNSHARP_LIMIT, &5u32.to_ne_bytes());
        bad.extend(nla(TCA_ECNSHARP_SCHED, &9u32.to_ne_bytes()));
        assert!(decode_options(&bad, &mut cfg).is_err());
        assert_eq!(cfg, before);
        let invalid = nla(TCA_ECNSHARP_STRICT_BANDS, &4u32.to_ne_bytes());
        assert!(decode_options(&invalid, &mut cfg).is_err());
        assert_eq!(cfg, before);
        // The same strict 3 is fine as a change of a 3-band qdisc.
        decode_options(
            &nla(TCA_ECNSHARP_STRICT_BANDS, &3u32.to_ne_bytes()),
            &mut cfg,
        )
        .unwrap();
        assert_eq!((cfg.bands, cfg.sched.strict_bands), (3, 3));
    }

    /// Showing reads around what it cannot read: a newer module's attribute or value hides
    /// only itself, and broken framing ends the reading, counted.
    #[test]
    fn shown_options_leave_out_only_what_cannot_be_read() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 4;
        cfg.limit_packets = 77;
        cfg.marking.modes = Modes::INSTANTANEOUS;
        let mut buf = [0u8; OPTIONS_MAX_SIZE];
        let n = encode_options(&cfg, &mut buf).unwrap();
        let whole = buf[..n].to_vec();
        assert_eq!(decode_options_shown(&whole), (cfg, Unshown::default()));
        // An attribute of a newer module, first and last; a control law, a mode bit and a
        // scheduler this version does not know.
        let mut newer = nla(TCA_ECNSHARP_MAX + 1, &[1; 4]);
        newer.extend(&whole);
        newer.extend(nla(TCA_ECNSHARP_CONTROL_LAW, &9u32.to_ne_bytes()));
        newer.extend(nla(TCA_ECNSHARP_MODES, &(1u32 << 7 | 1).to_ne_bytes()));
        newer.extend(nla(TCA_ECNSHARP_SCHED, &9u32.to_ne_bytes()));
        newer.extend(nla(TCA_ECNSHARP_MAX + 2, &[]));
        let (shown, unshown) = decode_options_shown(&newer);
        assert_eq!(unshown.count, 4);
        let defaulted: Vec<_> = unshown.defaulted_keywords().collect();
        assert_eq!(defaulted, ["control_law", "sched"]);
        assert_eq!(
            std::format!("{unshown}"),
            "4 options cannot be read (a newer module?): unknown ecnsharp attribute \
             (attribute 28); shown at their defaults: control_law, sched"
        );
        let first = unshown.first.unwrap();
        assert_eq!((first.attr, first.keyword), (TCA_ECNSHARP_MAX + 1, ""));
        assert_eq!((shown.bands, shown.limit_packets), (4, 77));
        assert_eq!(
            shown.marking.modes,
            Modes(1 << 7 | 1),
            "shown as the kernel holds it"
        );
        assert_eq!(shown.marking.control_law, cfg.marking.control_law);
        assert_eq!(shown.sched.kind, cfg.sched.kind);
        assert!(decode(&newer).is_err(), "configuring stays strict");
        // Framing broken after the limit: the limit is shown, the rest is one left out.
        let mut cut = nla(TCA_ECNSHARP_LIMIT, &5u32.to_ne_bytes());
        cut.extend([200, 0, 4, 0, 1, 0]);
        let (shown, unshown) = decode_options_shown(&cut);
        assert_eq!(shown.limit_packets, 5);
        assert_eq!(unshown.count, 1);
        assert_eq!(unshown.first.unwrap().attribute(), Some(Attr::Bands));
        assert_eq!(
            std::format!("{unshown}"),
            "1 option cannot be read (a newer module?): bands: attribute has the wrong length; \
             shown at their defaults: bands"
        );
    }

    #[test]
    fn encode_sizes() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 16;
        let mut buf = [0u8; OPTIONS_MAX_SIZE + 8];
        assert_eq!(encode_options(&cfg, &mut buf), Ok(OPTIONS_MAX_SIZE));
        // Every shorter buffer fails cleanly.
        for n in 0..OPTIONS_MAX_SIZE {
            assert_eq!(
                encode_options(&cfg, &mut buf[..n]),
                Err(EncodeError::NoSpace)
            );
        }
        let n = encode_options(&Config::DEFAULT, &mut buf).unwrap();
        assert_eq!(n, OPTIONS_MAX_SIZE - 2 * 4 * 15);
        assert_eq!(decode(&buf[..n]), Ok(Config::DEFAULT));
    }

    proptest! {
        #[test]
        fn options_round_trip(cfg in valid_config(), base in valid_config()) {
            let mut buf = [0u8; OPTIONS_MAX_SIZE];
            let n = encode_options(&cfg, &mut buf).unwrap();
            prop_assert_eq!(decode(&buf[..n]), Ok(cfg));
            // The dump is complete: applied to any other configuration it gives the same.
            let mut other = base;
            decode_options(&buf[..n], &mut other).unwrap();
            prop_assert_eq!(other, cfg);
        }

        #[test]
        fn shown_equals_strict_when_strict_reads(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let (shown, unshown) = decode_options_shown(&bytes);
            let mut cfg = Config::DEFAULT;
            if decode_options(&bytes, &mut cfg).is_ok() {
                prop_assert_eq!((shown, unshown), (cfg, Unshown::default()));
            }
        }

        #[test]
        fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut cfg = Config::DEFAULT;
            if decode_options(&bytes, &mut cfg).is_ok() {
                prop_assert_eq!(cfg.validate(), Ok(()));
            } else {
                prop_assert_eq!(cfg, Config::DEFAULT);
            }
        }
    }

    #[test]
    fn xstats_layout() {
        // Field offsets as the serialisation writes them; no holes, so no padding can leak.
        assert_eq!(
            [
                offset_of!(XstatsHeader, tag),
                offset_of!(XstatsHeader, bands),
                offset_of!(XstatsHeader, burst_bytes),
                offset_of!(XstatsHeader, now_ns),
                offset_of!(XstatsHeader, marks),
            ],
            [0, 16, 20, 24, 56]
        );
        assert_eq!(
            [
                offset_of!(XstatsBand, qlen),
                offset_of!(XstatsBand, drops_limit),
                offset_of!(XstatsBand, marks_by_cause),
                offset_of!(XstatsBand, ce_already),
                offset_of!(XstatsBand, marking_state),
                offset_of!(XstatsBand, marking_next_ns),
                offset_of!(XstatsBand, enqueued),
                offset_of!(XstatsBand, drops_config),
            ],
            [16, 24, 48, 88, 120, 136, 144, 152]
        );
        // Serialisation puts each field at its offset: distinct bytes per field show it.
        let band = XstatsBand {
            qlen: 0x0102_0304,
            marks_by_cause: [1, 2, 3, 4, 0x0a0b],
            marking_count: 7,
            marking_next_ns: u64::MAX,
            drops_config: 0x0506,
            ..XstatsBand::default()
        };
        let bytes = band.to_bytes();
        assert_eq!(bytes[16..20], 0x0102_0304u32.to_ne_bytes());
        assert_eq!(bytes[80..88], 0x0a0bu64.to_ne_bytes());
        assert_eq!(bytes[124..128], 7u32.to_ne_bytes());
        assert_eq!(bytes[136..144], [0xff; 8]);
        assert_eq!(bytes[152..], 0x0506u64.to_ne_bytes());
        assert_eq!(XstatsBand::from_bytes(&bytes), band);
    }

    fn sample_band(i: u64) -> XstatsBand {
        XstatsBand {
            packets: 1000 + i,
            bytes: 1_500_000 + i,
            qlen: 3,
            backlog: 4500,
            drops_limit: 2,
            drops_nonect: 1,
            marks: 40 + i,
            marks_by_cause: [30, 12, 0, 0, i],
            ce_already: 5,
            nonect_passed: 6,
            sojourn_max_ns: 900_000,
            sojourn_sum_ns: 77_000_000,
            marking_state: 1,
            marking_count: 4,
            first_above_time_ns: 123_456_789,
            marking_next_ns: 123_556_789,
            enqueued: 1_050 + i,
            drops_config: 7,
        }
    }

    #[test]
    fn xstats_round_trip_and_errors() {
        let header = XstatsHeader {
            burst_bytes: 30_000,
            now_ns: 1 << 40,
            rate_bps: 10_000_000_000,
            throttled: 17,
            drops: 3,
            marks: 100,
            ..XstatsHeader::default()
        };
        let bands = [sample_band(0), sample_band(1), sample_band(2)];
        let mut buf = [0xaau8; XSTATS_MAX_SIZE];
        let n = encode_xstats(&header, &bands, &mut buf).unwrap();
        assert_eq!(n, XSTATS_HEADER_SIZE + 3 * XSTATS_BAND_SIZE);
        let x = decode_xstats(&buf[..n]).unwrap();
        assert_eq!(
            (x.header.tag, x.header.version, x.header.bands),
            (XSTATS_TAG, 1, 3)
        );
        assert_eq!(
            (x.header.rate_bps, x.header.throttled),
            (10_000_000_000, 17)
        );
        assert_eq!(x.bands(), &bands);
        assert_eq!(x.bands[3], XstatsBand::default());
        assert_eq!(
            encode_xstats(&header, &bands, &mut buf[..n - 1]),
            Err(EncodeError::NoSpace)
        );
        let mut max = [0u8; XSTATS_MAX_SIZE];
        let all = [sample_band(9); MAX_BANDS + 1];
        assert_eq!(encode_xstats(&header, &all, &mut max), Ok(XSTATS_MAX_SIZE));

        assert_eq!(decode_xstats(&buf[..19]), Err(XstatsError::Short));
        let mut bad = buf;
        bad[0] ^= 1;
        assert_eq!(decode_xstats(&bad[..n]), Err(XstatsError::BadTag));
        let mut bad = buf;
        bad[4..8].copy_from_slice(&0u32.to_ne_bytes());
        assert_eq!(decode_xstats(&bad[..n]), Err(XstatsError::BadVersion));
        for size in [19u32, 10_000] {
            let mut bad = buf;
            bad[8..12].copy_from_slice(&size.to_ne_bytes());
            assert_eq!(decode_xstats(&bad[..n]), Err(XstatsError::BadHeaderSize));
        }
        let mut bad = buf;
        bad[16..20].copy_from_slice(&17u32.to_ne_bytes());
        assert_eq!(decode_xstats(&bad), Err(XstatsError::TooManyBands));
        assert_eq!(decode_xstats(&buf[..n - 1]), Err(XstatsError::Truncated));
        let mut bad = buf;
        bad[12..16].copy_from_slice(&u32::MAX.to_ne_bytes());
        assert_eq!(decode_xstats(&bad[..n]), Err(XstatsError::Truncated));
    }

    /// Re-lays encoded xstats as a writer with other struct sizes would have sent them.
    fn relayout(x: &[u8], header_size: usize, band_size: usize, bands: usize) -> Vec<u8> {
        let mut v = std::vec![0x5au8; header_size];
        let h = header_size.min(XSTATS_HEADER_SIZE);
        v[..h].copy_from_slice(&x[..h]);
        v[8..12].copy_from_slice(&(header_size as u32).to_ne_bytes());
        v[12..16].copy_from_slice(&(band_size as u32).to_ne_bytes());
        for i in 0..bands {
            let start = XSTATS_HEADER_SIZE + i * XSTATS_BAND_SIZE;
            let mut rec = std::vec![0x5au8; band_size];
            let b = band_size.min(XSTATS_BAND_SIZE);
            rec[..b].copy_from_slice(&x[start..start + b]);
            v.extend(rec);
        }
        v
    }

    #[test]
    fn xstats_older_and_newer_writers() {
        let header = XstatsHeader {
            rate_bps: 5,
            marks: 9,
            ..XstatsHeader::default()
        };
        let bands = [sample_band(0), sample_band(1)];
        let mut buf = [0u8; XSTATS_MAX_SIZE];
        let n = encode_xstats(&header, &bands, &mut buf).unwrap();
        // A newer writer: longer header and records; the extra bytes (0x5a) are ignored.
        let newer = relayout(&buf[..n], XSTATS_HEADER_SIZE + 16, XSTATS_BAND_SIZE + 24, 2);
        let x = decode_xstats(&newer).unwrap();
        assert_eq!(x.bands(), &bands);
        assert_eq!((x.header.rate_bps, x.header.marks), (5, 9));
        // An older writer: records that stop after `marks`, a header that stops after `bands`.
        let older = relayout(&buf[..n], XSTATS_MIN_HEADER_SIZE, 48, 2);
        let x = decode_xstats(&older).unwrap();
        assert_eq!(
            (x.header.bands, x.header.rate_bps, x.header.marks),
            (2, 0, 0)
        );
        for (got, want) in x.bands().iter().zip(&bands) {
            assert_eq!((got.packets, got.marks), (want.packets, want.marks));
            assert_eq!((got.marks_by_cause, got.marking_next_ns), ([0; 5], 0));
        }
        // Zero-sized records are legal (nothing known) and do not divide by zero.
        let empty = relayout(&buf[..n], XSTATS_HEADER_SIZE, 0, 2);
        assert_eq!(
            decode_xstats(&empty).unwrap().bands(),
            &[XstatsBand::default(); 2]
        );
    }

    proptest! {
        #[test]
        fn xstats_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut framed = bytes.clone();
            if framed.len() >= 20 {
                framed[..4].copy_from_slice(&XSTATS_TAG.to_ne_bytes());
            }
            for input in [&bytes, &framed] {
                if let Ok(x) = decode_xstats(input) {
                    prop_assert!(x.bands().len() <= MAX_BANDS);
                }
            }
        }
    }

    #[test]
    fn located_errors_point_at_the_duplicate() {
        let mut buf = [0u8; 64];
        let mut w = NlaWriter::new(&mut buf);
        w.put_u32(TCA_ECNSHARP_LIMIT, 100).unwrap();
        w.put_u32(TCA_ECNSHARP_BANDS, 3).unwrap();
        let second = w.len();
        w.put_u32(TCA_ECNSHARP_LIMIT, 200).unwrap();
        let n = w.len();
        let mut cfg = Config::DEFAULT;
        let e = decode_options_located(&buf[..n], &mut cfg).unwrap_err();
        assert_eq!(e.offset, Some(second));
        assert_eq!(e.error.attr, TCA_ECNSHARP_LIMIT);
        assert_eq!(cfg, Config::DEFAULT);
        // An unknown attribute after a good one: located too.
        let mut buf = [0u8; 64];
        let mut w = NlaWriter::new(&mut buf);
        w.put_u32(TCA_ECNSHARP_LIMIT, 100).unwrap();
        let bad = w.len();
        w.put_u32(200, 1).unwrap();
        let n = w.len();
        let e = decode_options_located(&buf[..n], &mut cfg).unwrap_err();
        assert_eq!(e.offset, Some(bad));
    }

    #[test]
    fn dump_fits_with_room_at_16_bands() {
        let most =
            DUMP_OVERHEAD + nla_total_size(OPTIONS_MAX_SIZE) + nla_total_size(XSTATS_MAX_SIZE);
        std::eprintln!(
            "largest RTM_NEWQDISC: {most} of {NLMSG_GOODSIZE_X86_64} bytes ({} free)",
            NLMSG_GOODSIZE_X86_64 - most
        );
        assert!(most + DUMP_ROOM <= NLMSG_GOODSIZE_X86_64, "{most}");
        // Written twice (TCA_STATS_APP and the legacy TCA_XSTATS), as gnet_stats_copy_app does,
        // 16 bands would not fit: what the kernel glue must avoid.
        assert!(most + nla_total_size(XSTATS_MAX_SIZE) > NLMSG_GOODSIZE_X86_64);
    }
}
