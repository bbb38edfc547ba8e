// SPDX-License-Identifier: GPL-2.0-only
//! The tc-style option grammar: words such as `bands 3 mode ecnsharp pst_target 85us` parsed into
//! [`Options`], and a [`Config`] printed back as canonical text laid out like iproute2's
//! `q_fq_codel`. Units are tc's (`get_time`, `get_rate`, `get_size`), parsed with integer math.
//!
//! Parsing keeps only what the user gave, so the kernel's defaults stay the single source of
//! truth; [`Options::apply`] lays it over a configuration and [`Options::encode`] sends it.

use core::fmt::{self, Write};

use crate::band::MAX_BANDS;
use crate::config::{
    ClassifyMode, Config, ConfigError, ControlLaw, Modes, NonEctPolicy, QueueUnit, SchedKind,
    DEFAULT_DSCPMAP, DEFAULT_PRIOMAP, DEFAULT_QUANTUM,
};
use crate::uapi::{self, EncodeError, NlaWriter};

/// The option summary a front end prints for `help` or after a syntax error.
pub const USAGE: &str = "\
Usage: ... ecnsharp [ limit PACKETS ] [ limit_bytes SIZE ] [ bands 1-16 ]
                    [ mode PRESET | FLAG+FLAG... ]
                    [ ins_target TIME ] [ pst_target TIME ] [ pst_interval TIME ]
                    [ control_law inv_sqrt | linear | ns3 ] [ idle_reset on | off ]
                    [ k PACKETSp | SIZE ] [ k_unit packets | bytes ]
                    [ tmin TIME ] [ tmax TIME ] [ pmax PERCENT% | FRACTION ] [ seed N ]
                    [ sched sp | dwrr | wfq ] [ strict N ]
                    [ quanta SIZE,SIZE,... ] [ weights N,N,... ]
                    [ classify priority | dscp ] [ priomap B0 B1 ... B15 ]
                    [ dscpmap DSCP:BAND,... | default ]
                    [ rate RATE ] [ burst SIZE ] [ non_ect pass | drop ]
                    [ split_gso on | off ]
PRESET := ecnsharp | tcn | codel | red | dequeue | prob | ecnsharp_prob
FLAG := ins | pst | red | dequeue | prob
TIME, RATE, SIZE as tc: 200us, 1.5ms; 10gbit, 1Gbps; 1514, 30kb (a bare TIME is in us)
";

/// Per-band values given as a list of 1 to [`MAX_BANDS`] entries (quanta or weights).
///
/// A list describes the whole array: bands past its end take the default value, so the same
/// words mean the same thing whatever configuration they are applied to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BandValues {
    values: [u32; MAX_BANDS],
    len: u8,
}

impl BandValues {
    /// The list `values`, if it has 1 to [`MAX_BANDS`] entries.
    pub fn from_slice(values: &[u32]) -> Option<BandValues> {
        if values.is_empty() || values.len() > MAX_BANDS {
            return None;
        }
        let mut out = BandValues {
            values: [0; MAX_BANDS],
            len: u8::try_from(values.len()).ok()?,
        };
        for (d, s) in out.values.iter_mut().zip(values) {
            *d = *s;
        }
        Some(out)
    }

    /// The values given.
    pub fn as_slice(&self) -> &[u32] {
        self.values
            .get(..usize::from(self.len))
            .unwrap_or(&self.values)
    }

    /// All [`MAX_BANDS`] entries: those given, then `rest`.
    pub fn filled(&self, rest: u32) -> [u32; MAX_BANDS] {
        let mut out = [rest; MAX_BANDS];
        for (d, s) in out.iter_mut().zip(self.as_slice()) {
            *d = *s;
        }
        out
    }

    /// Appends one value; `None` when the list is full.
    fn push(&mut self, value: u32) -> Option<()> {
        let slot = self.values.get_mut(usize::from(self.len))?;
        *slot = value;
        self.len = self.len.checked_add(1)?;
        Some(())
    }
}

/// The options a user gave, in uapi units (times in `u32` ns, as they travel). `None`: not given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `limit`, packets.
    pub limit: Option<u32>,
    /// `limit_bytes`.
    pub limit_bytes: Option<u32>,
    /// `bands`.
    pub bands: Option<u32>,
    /// `mode`.
    pub modes: Option<Modes>,
    /// `ins_target`, ns.
    pub ins_target_ns: Option<u32>,
    /// `pst_target`, ns.
    pub pst_target_ns: Option<u32>,
    /// `pst_interval`, ns.
    pub pst_interval_ns: Option<u32>,
    /// `control_law`.
    pub control_law: Option<ControlLaw>,
    /// `idle_reset`.
    pub idle_reset: Option<bool>,
    /// `k`, in the unit of `k_unit` (or of the running configuration if that is not given).
    pub k: Option<u32>,
    /// `k_unit`, or the unit suffix of `k`.
    pub k_unit: Option<QueueUnit>,
    /// `tmin`, ns.
    pub tmin_ns: Option<u32>,
    /// `tmax`, ns.
    pub tmax_ns: Option<u32>,
    /// `pmax`, parts per million.
    pub pmax_ppm: Option<u32>,
    /// `seed`.
    pub seed: Option<u32>,
    /// `sched`.
    pub sched: Option<SchedKind>,
    /// `strict`.
    pub strict_bands: Option<u32>,
    /// `quanta`, bytes.
    pub quanta: Option<BandValues>,
    /// `weights`.
    pub weights: Option<BandValues>,
    /// `classify`.
    pub classify: Option<ClassifyMode>,
    /// `priomap`.
    pub priomap: Option<[u8; 16]>,
    /// `dscpmap` (DSCPs not listed keep the default map).
    pub dscpmap: Option<[u8; 64]>,
    /// `rate`, bits per second.
    pub rate_bps: Option<u64>,
    /// `burst`.
    pub burst_bytes: Option<u32>,
    /// `non_ect`.
    pub non_ect: Option<NonEctPolicy>,
    /// `split_gso`.
    pub split_gso: Option<bool>,
}

/// A syntax error, in the words of tc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError<'a> {
    /// A word that is no keyword: `What is "x"?`.
    Unknown {
        /// The word.
        word: &'a str,
    },
    /// A value the keyword does not accept: `Illegal "keyword"`.
    Illegal {
        /// The keyword.
        keyword: &'static str,
        /// The offending value.
        word: &'a str,
    },
    /// A keyword at the end of the words, without its value.
    Missing {
        /// The keyword.
        keyword: &'static str,
    },
    /// A keyword given twice.
    Duplicate {
        /// The keyword.
        keyword: &'static str,
        /// The second value.
        word: &'a str,
    },
}

impl fmt::Display for ParseError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown { word } => write!(f, "What is \"{word}\"?"),
            ParseError::Illegal { keyword, word } => {
                write!(f, "Illegal \"{keyword}\": bad value \"{word}\"")
            }
            ParseError::Missing { keyword } => write!(f, "Missing value for \"{keyword}\""),
            ParseError::Duplicate { keyword, word } => {
                write!(f, "Duplicate \"{keyword}\": \"{word}\" is the second value")
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers and units

/// Time suffixes of tc's `get_time`/`get_time64`, in ns; a bare number is microseconds.
const TIME_UNITS: [(&str, u64); 13] = [
    ("", 1_000),
    ("s", 1_000_000_000),
    ("sec", 1_000_000_000),
    ("secs", 1_000_000_000),
    ("ms", 1_000_000),
    ("msec", 1_000_000),
    ("msecs", 1_000_000),
    ("us", 1_000),
    ("usec", 1_000),
    ("usecs", 1_000),
    ("ns", 1),
    ("nsec", 1),
    ("nsecs", 1),
];

/// Rate suffixes of tc's `get_rate64`, in bits per second; a bare number is bits per second.
/// As in tc, `bps` means bytes per second and the match ignores case.
const RATE_UNITS: [(&str, u64); 19] = [
    ("", 1),
    ("bit", 1),
    ("kibit", 1 << 10),
    ("kbit", 1_000),
    ("mibit", 1 << 20),
    ("mbit", 1_000_000),
    ("gibit", 1 << 30),
    ("gbit", 1_000_000_000),
    ("tibit", 1 << 40),
    ("tbit", 1_000_000_000_000),
    ("bps", 8),
    ("kibps", 8 << 10),
    ("kbps", 8_000),
    ("mibps", 8 << 20),
    ("mbps", 8_000_000),
    ("gibps", 8 << 30),
    ("gbps", 8_000_000_000),
    ("tibps", 8 << 40),
    ("tbps", 8_000_000_000_000),
];

/// Size suffixes of tc's `get_size`, in bytes (binary multiples); a bare number is bytes.
const SIZE_UNITS: [(&str, u64); 11] = [
    ("", 1),
    ("b", 1),
    ("k", 1 << 10),
    ("kb", 1 << 10),
    ("m", 1 << 20),
    ("mb", 1 << 20),
    ("g", 1 << 30),
    ("gb", 1 << 30),
    ("kbit", 1 << 7),
    ("mbit", 1 << 17),
    ("gbit", 1 << 27),
];

/// Splits `word` into its leading number (digits and dots) and its unit suffix.
fn split_number(word: &str) -> (&str, &str) {
    let end = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(word.len());
    (word.get(..end).unwrap_or(""), word.get(end..).unwrap_or(""))
}

/// The value of a decimal digit.
fn digit(b: u8) -> Option<u64> {
    b.is_ascii_digit().then(|| u64::from(b.wrapping_sub(b'0')))
}

/// `num` (digits, optionally with one `.` and more digits) times `scale`, the fraction
/// truncated toward zero as tc's conversion from `double` does; `None` on bad syntax or
/// overflow. Integer math only: the fraction is folded in from its last digit,
/// `part = (digit * scale + part) / 10`, which gives exactly `floor(fraction * scale)`.
fn scaled(num: &str, scale: u64) -> Option<u64> {
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut whole: u64 = 0;
    for b in int.bytes() {
        whole = whole.checked_mul(10)?.checked_add(digit(b)?)?;
    }
    let mut part: u64 = 0;
    for b in frac.bytes().rev() {
        part = digit(b)?.checked_mul(scale)?.checked_add(part)? / 10;
    }
    whole.checked_mul(scale)?.checked_add(part)
}

/// `word` as a number with a unit from `units` (case-insensitive); `None` if it is not one.
fn with_unit(word: &str, units: &[(&str, u64)]) -> Option<u64> {
    let (num, suffix) = split_number(word);
    let &(_, scale) = units
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(suffix))?;
    scaled(num, scale)
}

/// A plain decimal `u32` (no sign, fraction, exponent or unit).
fn parse_u32(word: &str) -> Option<u32> {
    if word.contains('.') {
        return None;
    }
    u32::try_from(scaled(word, 1)?).ok()
}

/// A time as `u32` nanoseconds, the uapi's range.
fn parse_time(word: &str) -> Option<u32> {
    u32::try_from(with_unit(word, &TIME_UNITS)?).ok()
}

/// A size as `u32` bytes.
fn parse_size(word: &str) -> Option<u32> {
    u32::try_from(with_unit(word, &SIZE_UNITS)?).ok()
}

/// A rate in bits per second.
fn parse_rate(word: &str) -> Option<u64> {
    with_unit(word, &RATE_UNITS)
}

/// A probability, `10%` or `0.1`, in parts per million.
fn parse_probability(word: &str) -> Option<u32> {
    let ppm = match word.strip_suffix('%') {
        Some(percent) => scaled(percent, 10_000)?,
        None => scaled(word, 1_000_000)?,
    };
    u32::try_from(ppm).ok()
}

/// `K` with its unit: `65` (unit as configured), `65p` (packets) or a size (bytes).
fn parse_k(word: &str) -> Option<(u32, Option<QueueUnit>)> {
    if let Some(packets) = word.strip_suffix('p') {
        return Some((parse_u32(packets)?, Some(QueueUnit::Packets)));
    }
    let (_, suffix) = split_number(word);
    if suffix.is_empty() {
        return Some((parse_u32(word)?, None));
    }
    Some((parse_size(word)?, Some(QueueUnit::Bytes)))
}

/// Marking presets, in the order printing prefers them.
const MODE_PRESETS: [(&str, Modes); 7] = [
    ("ecnsharp", Modes::ECN_SHARP),
    ("tcn", Modes::INSTANTANEOUS),
    ("codel", Modes::PERSISTENT),
    ("red", Modes::QUEUE_ENQUEUE),
    ("dequeue", Modes::QUEUE_DEQUEUE),
    ("prob", Modes::PROBABILISTIC),
    (
        "ecnsharp_prob",
        Modes(Modes::PROBABILISTIC.0 | Modes::PERSISTENT.0),
    ),
];

/// Single flags, in bit order, for `+` lists.
const MODE_FLAGS: [(&str, Modes); 5] = [
    ("ins", Modes::INSTANTANEOUS),
    ("pst", Modes::PERSISTENT),
    ("red", Modes::QUEUE_ENQUEUE),
    ("dequeue", Modes::QUEUE_DEQUEUE),
    ("prob", Modes::PROBABILISTIC),
];

/// `ecnsharp`, `ins+pst+red`, `ecnsharp+red`...: the union of presets and flags.
fn parse_modes(word: &str) -> Option<Modes> {
    let mut modes = Modes(0);
    for token in word.split('+') {
        let (_, m) = MODE_PRESETS
            .iter()
            .chain(MODE_FLAGS.iter())
            .find(|(name, _)| *name == token)?;
        modes = modes.union(*m);
    }
    Some(modes)
}

/// One of the named values of a keyword.
fn parse_named<T: Copy>(word: &str, names: &[(&str, T)]) -> Option<T> {
    names.iter().find(|(n, _)| *n == word).map(|(_, v)| *v)
}

const CONTROL_LAWS: [(&str, ControlLaw); 3] = [
    ("inv_sqrt", ControlLaw::InvSqrt),
    ("linear", ControlLaw::Linear),
    ("ns3", ControlLaw::Ns3),
];
const ON_OFF: [(&str, bool); 2] = [("on", true), ("off", false)];
const K_UNITS: [(&str, QueueUnit); 2] =
    [("packets", QueueUnit::Packets), ("bytes", QueueUnit::Bytes)];
const SCHEDS: [(&str, SchedKind); 3] = [
    ("sp", SchedKind::Sp),
    ("dwrr", SchedKind::Dwrr),
    ("wfq", SchedKind::Wfq),
];
const CLASSIFY_MODES: [(&str, ClassifyMode); 2] = [
    ("priority", ClassifyMode::Priority),
    ("dscp", ClassifyMode::Dscp),
];
const NON_ECT: [(&str, NonEctPolicy); 2] =
    [("pass", NonEctPolicy::Pass), ("drop", NonEctPolicy::Drop)];

/// A comma-separated list of 1 to 16 values.
fn parse_list(word: &str, each: fn(&str) -> Option<u32>) -> Option<BandValues> {
    let mut out = BandValues {
        values: [0; MAX_BANDS],
        len: 0,
    };
    for item in word.split(',') {
        out.push(each(item)?)?;
    }
    Some(out)
}

/// A band number in a map (validation bounds it to the bands that exist).
fn parse_band(word: &str) -> Option<u8> {
    u8::try_from(parse_u32(word)?).ok()
}

/// `DSCP:BAND,...` over the default map, or `default`. A DSCP listed twice is an error.
fn parse_dscpmap(word: &str) -> Option<[u8; 64]> {
    let mut map = DEFAULT_DSCPMAP;
    if word == "default" {
        return Some(map);
    }
    let mut seen: u64 = 0;
    for pair in word.split(',') {
        let (dscp, band) = pair.split_once(':')?;
        let dscp = parse_u32(dscp)?;
        let bit = 1u64.checked_shl(dscp)?;
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        *map.get_mut(usize::try_from(dscp).ok()?)? = parse_band(band)?;
    }
    Some(map)
}

// ---------------------------------------------------------------------------------------------
// Parsing

/// Stores `value` in a field, refusing a second one.
fn set<'a, T>(
    field: &mut Option<T>,
    value: Option<T>,
    keyword: &'static str,
    word: &'a str,
) -> Result<(), ParseError<'a>> {
    if field.is_some() {
        return Err(ParseError::Duplicate { keyword, word });
    }
    *field = Some(value.ok_or(ParseError::Illegal { keyword, word })?);
    Ok(())
}

impl Options {
    /// Parses tc-style words (as the shell split them), keeping only what they give.
    ///
    /// Keywords match exactly. Each takes one value word, except `priomap`, which takes 16 words
    /// or one comma-separated word. Bounds are left to [`Config::validate`], except that values
    /// must fit their uapi type (so times above 4.29s are refused here).
    pub fn parse<'a, I>(words: I) -> Result<Options, ParseError<'a>>
    where
        I: IntoIterator<Item = &'a str>,
    {
        let mut o = Options::default();
        let mut k_unit_word: Option<&'a str> = None;
        let mut k_suffix_unit: Option<QueueUnit> = None;
        let mut words = words.into_iter();
        while let Some(word) = words.next() {
            let keyword = keyword(word).ok_or(ParseError::Unknown { word })?;
            let w = words.next().ok_or(ParseError::Missing { keyword })?;
            let kw = keyword;
            match keyword {
                "limit" => {
                    let n = w.strip_suffix('p').unwrap_or(w);
                    set(&mut o.limit, parse_u32(n), kw, w)?
                }
                "limit_bytes" => set(&mut o.limit_bytes, parse_size(w), kw, w)?,
                "bands" => set(&mut o.bands, parse_u32(w), kw, w)?,
                "mode" => set(&mut o.modes, parse_modes(w), kw, w)?,
                "ins_target" => set(&mut o.ins_target_ns, parse_time(w), kw, w)?,
                "pst_target" => set(&mut o.pst_target_ns, parse_time(w), kw, w)?,
                "pst_interval" => set(&mut o.pst_interval_ns, parse_time(w), kw, w)?,
                "control_law" => set(&mut o.control_law, parse_named(w, &CONTROL_LAWS), kw, w)?,
                "idle_reset" => set(&mut o.idle_reset, parse_named(w, &ON_OFF), kw, w)?,
                "k" => {
                    let parsed = parse_k(w);
                    set(&mut o.k, parsed.map(|(k, _)| k), kw, w)?;
                    k_suffix_unit = parsed.and_then(|(_, unit)| unit);
                }
                "k_unit" => {
                    set(&mut o.k_unit, parse_named(w, &K_UNITS), kw, w)?;
                    k_unit_word = Some(w);
                }
                "tmin" => set(&mut o.tmin_ns, parse_time(w), kw, w)?,
                "tmax" => set(&mut o.tmax_ns, parse_time(w), kw, w)?,
                "pmax" => set(&mut o.pmax_ppm, parse_probability(w), kw, w)?,
                "seed" => set(&mut o.seed, parse_u32(w), kw, w)?,
                "sched" => set(&mut o.sched, parse_named(w, &SCHEDS), kw, w)?,
                "strict" => set(&mut o.strict_bands, parse_u32(w), kw, w)?,
                "quanta" => set(&mut o.quanta, parse_list(w, parse_size), kw, w)?,
                "weights" => set(&mut o.weights, parse_list(w, parse_u32), kw, w)?,
                "classify" => set(&mut o.classify, parse_named(w, &CLASSIFY_MODES), kw, w)?,
                "priomap" => {
                    let map = parse_priomap(w, &mut words).map_err(|bad| ParseError::Illegal {
                        keyword: kw,
                        word: bad,
                    })?;
                    set(&mut o.priomap, Some(map), kw, w)?
                }
                "dscpmap" => set(&mut o.dscpmap, parse_dscpmap(w), kw, w)?,
                "rate" => set(&mut o.rate_bps, parse_rate(w), kw, w)?,
                "burst" => set(&mut o.burst_bytes, parse_size(w), kw, w)?,
                "non_ect" => set(&mut o.non_ect, parse_named(w, &NON_ECT), kw, w)?,
                "split_gso" => set(&mut o.split_gso, parse_named(w, &ON_OFF), kw, w)?,
                _ => return Err(ParseError::Unknown { word }),
            }
        }
        // `k 65p` or `k 100kb` sets the unit too; an explicit `k_unit` must agree with it.
        if let Some(unit) = k_suffix_unit {
            match (o.k_unit, k_unit_word) {
                (Some(given), Some(word)) if given != unit => {
                    return Err(ParseError::Illegal {
                        keyword: "k_unit",
                        word,
                    });
                }
                _ => o.k_unit = Some(unit),
            }
        }
        Ok(o)
    }

    /// Lays the options given over `cfg` (without validating: see [`Options::applied`]).
    pub fn apply(&self, cfg: &mut Config) {
        let narrow = |v: u32| u8::try_from(v).unwrap_or(u8::MAX);
        let m = &mut cfg.marking;
        macro_rules! put {
            ($src:expr, $dst:expr) => {
                if let Some(v) = $src {
                    $dst = v.into();
                }
            };
        }
        put!(self.limit, cfg.limit_packets);
        put!(self.limit_bytes, cfg.limit_bytes);
        put!(self.bands.map(narrow), cfg.bands);
        put!(self.modes, m.modes);
        put!(self.ins_target_ns, m.ins_target);
        put!(self.pst_target_ns, m.pst_target);
        put!(self.pst_interval_ns, m.pst_interval);
        put!(self.control_law, m.control_law);
        put!(self.idle_reset, m.idle_reset);
        put!(self.k, m.k);
        put!(self.k_unit, m.k_unit);
        put!(self.tmin_ns, m.tmin);
        put!(self.tmax_ns, m.tmax);
        put!(self.pmax_ppm, m.pmax_ppm);
        put!(self.seed, m.seed);
        put!(self.sched, cfg.sched.kind);
        put!(self.strict_bands.map(narrow), cfg.sched.strict_bands);
        put!(
            self.quanta.map(|q| q.filled(DEFAULT_QUANTUM)),
            cfg.sched.quanta
        );
        put!(self.weights.map(|w| w.filled(1)), cfg.sched.weights);
        put!(self.classify, cfg.classify.mode);
        put!(self.priomap, cfg.classify.priomap);
        put!(self.dscpmap, cfg.classify.dscpmap);
        put!(self.rate_bps, cfg.shaper.rate_bps);
        put!(self.burst_bytes, cfg.shaper.burst_bytes);
        put!(self.non_ect, cfg.non_ect);
        put!(self.split_gso, cfg.split_gso);
    }

    /// `base` with the options applied, if the result is valid: what the kernel will say.
    pub fn applied(&self, base: &Config) -> Result<Config, ConfigError> {
        let mut cfg = *base;
        self.apply(&mut cfg);
        cfg.validate()?;
        Ok(cfg)
    }

    /// Writes the options given as `TCA_ECNSHARP_*` attributes (the `TCA_OPTIONS` payload),
    /// returning the length; [`uapi::OPTIONS_MAX_SIZE`] bytes always suffice.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let mut w = NlaWriter::new(out);
        let u32s = [
            (uapi::TCA_ECNSHARP_LIMIT, self.limit),
            (uapi::TCA_ECNSHARP_LIMIT_BYTES, self.limit_bytes),
            (uapi::TCA_ECNSHARP_BANDS, self.bands),
            (uapi::TCA_ECNSHARP_MODES, self.modes.map(|m| m.0)),
            (uapi::TCA_ECNSHARP_INS_TARGET, self.ins_target_ns),
            (uapi::TCA_ECNSHARP_PST_TARGET, self.pst_target_ns),
            (uapi::TCA_ECNSHARP_PST_INTERVAL, self.pst_interval_ns),
            (
                uapi::TCA_ECNSHARP_CONTROL_LAW,
                self.control_law.map(ControlLaw::to_uapi),
            ),
            (
                uapi::TCA_ECNSHARP_IDLE_RESET,
                self.idle_reset.map(u32::from),
            ),
            (uapi::TCA_ECNSHARP_K, self.k),
            (
                uapi::TCA_ECNSHARP_K_UNIT,
                self.k_unit.map(QueueUnit::to_uapi),
            ),
            (uapi::TCA_ECNSHARP_TMIN, self.tmin_ns),
            (uapi::TCA_ECNSHARP_TMAX, self.tmax_ns),
            (uapi::TCA_ECNSHARP_PMAX, self.pmax_ppm),
            (uapi::TCA_ECNSHARP_SEED, self.seed),
            (uapi::TCA_ECNSHARP_SCHED, self.sched.map(SchedKind::to_uapi)),
            (uapi::TCA_ECNSHARP_STRICT_BANDS, self.strict_bands),
        ];
        for (kind, value) in u32s {
            if let Some(v) = value {
                w.put_u32(kind, v)?;
            }
        }
        for (kind, list) in [
            (uapi::TCA_ECNSHARP_QUANTA, self.quanta),
            (uapi::TCA_ECNSHARP_WEIGHTS, self.weights),
        ] {
            if let Some(list) = list {
                let mut bytes = [0u8; 4 * MAX_BANDS];
                for (chunk, v) in bytes.chunks_exact_mut(4).zip(list.as_slice()) {
                    for (d, s) in chunk.iter_mut().zip(v.to_ne_bytes()) {
                        *d = s;
                    }
                }
                let n = list.as_slice().len().saturating_mul(4);
                w.put(kind, bytes.get(..n).unwrap_or(&bytes))?;
            }
        }
        if let Some(c) = self.classify {
            w.put_u32(uapi::TCA_ECNSHARP_CLASSIFY, c.to_uapi())?;
        }
        if let Some(map) = &self.priomap {
            w.put(uapi::TCA_ECNSHARP_PRIOMAP, map)?;
        }
        if let Some(map) = &self.dscpmap {
            w.put(uapi::TCA_ECNSHARP_DSCPMAP, map)?;
        }
        if let Some(rate) = self.rate_bps {
            w.put_u64(uapi::TCA_ECNSHARP_RATE, rate)?;
        }
        if let Some(burst) = self.burst_bytes {
            w.put_u32(uapi::TCA_ECNSHARP_BURST, burst)?;
        }
        if let Some(p) = self.non_ect {
            w.put_u32(uapi::TCA_ECNSHARP_NON_ECT, p.to_uapi())?;
        }
        if let Some(on) = self.split_gso {
            w.put_u32(uapi::TCA_ECNSHARP_SPLIT_GSO, u32::from(on))?;
        }
        Ok(w.finish())
    }
}

/// Every keyword, as `'static` strings for error messages, and for the man page, completions and
/// documentation, whose tests check them against this list.
pub const KEYWORDS: [&str; 26] = [
    "limit",
    "limit_bytes",
    "bands",
    "mode",
    "ins_target",
    "pst_target",
    "pst_interval",
    "control_law",
    "idle_reset",
    "k",
    "k_unit",
    "tmin",
    "tmax",
    "pmax",
    "seed",
    "sched",
    "strict",
    "quanta",
    "weights",
    "classify",
    "priomap",
    "dscpmap",
    "rate",
    "burst",
    "non_ect",
    "split_gso",
];

/// The keyword `word` names (`K` is accepted for `k`, the DCTCP paper's spelling).
fn keyword(word: &str) -> Option<&'static str> {
    let word = if word == "K" { "k" } else { word };
    KEYWORDS.iter().copied().find(|k| *k == word)
}

/// The named values `keyword` takes (empty for numbers, sizes, times and lists): what shell
/// completion offers, and what the man page must list.
pub fn keyword_values(keyword: &str) -> &'static [&'static str] {
    match keyword {
        "mode" => &[
            "ecnsharp",
            "tcn",
            "codel",
            "red",
            "dequeue",
            "prob",
            "ecnsharp_prob",
            "ins",
            "pst",
        ],
        "control_law" => &["inv_sqrt", "linear", "ns3"],
        "idle_reset" | "split_gso" => &["on", "off"],
        "k_unit" => &["packets", "bytes"],
        "sched" => &["sp", "dwrr", "wfq"],
        "classify" => &["priority", "dscp"],
        "dscpmap" => &["default"],
        "non_ect" => &["pass", "drop"],
        _ => &[],
    }
}

/// The 16 entries of `priomap`: `first` is a comma list, or the first of 16 words.
/// On error, the offending word.
fn parse_priomap<'a>(
    first: &'a str,
    rest: &mut impl Iterator<Item = &'a str>,
) -> Result<[u8; 16], &'a str> {
    let mut map = [0u8; 16];
    if first.contains(',') {
        let mut items = first.split(',');
        for slot in map.iter_mut() {
            *slot = items.next().and_then(parse_band).ok_or(first)?;
        }
        return if items.next().is_none() {
            Ok(map)
        } else {
            Err(first)
        };
    }
    let mut word = first;
    for (i, slot) in map.iter_mut().enumerate() {
        if i > 0 {
            word = rest.next().ok_or(word)?;
        }
        *slot = parse_band(word).ok_or(word)?;
    }
    Ok(map)
}

// ---------------------------------------------------------------------------------------------
// Printing

/// `value` in the largest of `units` (scales are powers of ten, largest first) it reaches,
/// with an exact decimal fraction, so that parsing the text gives `value` back.
fn write_exact(f: &mut fmt::Formatter<'_>, value: u64, units: &[(u64, &str)]) -> fmt::Result {
    let (scale, suffix) = units
        .iter()
        .copied()
        .find(|(scale, _)| value >= *scale)
        .or(units.last().copied())
        .unwrap_or((1, ""));
    let whole = value.checked_div(scale).unwrap_or(value);
    let mut rem = value.checked_rem(scale).unwrap_or(0);
    write!(f, "{whole}")?;
    if rem != 0 {
        f.write_char('.')?;
        let mut place = scale / 10;
        while rem != 0 && place != 0 {
            write!(f, "{}", rem / place)?;
            rem %= place;
            place /= 10;
        }
    }
    f.write_str(suffix)
}

/// A time in ns, as `200us`, `1.5ms`, `85ns`.
struct Time(u64);

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = [
            (1_000_000_000, "s"),
            (1_000_000, "ms"),
            (1_000, "us"),
            (1, "ns"),
        ];
        write_exact(f, self.0, &units)
    }
}

/// A rate in bits per second, as `10Gbit`, `1.5Mbit`.
struct Rate(u64);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = [
            (1_000_000_000_000, "Tbit"),
            (1_000_000_000, "Gbit"),
            (1_000_000, "Mbit"),
            (1_000, "Kbit"),
            (1, "bit"),
        ];
        write_exact(f, self.0, &units)
    }
}

/// A probability in ppm, as a percentage: `10%`, `0.0001%`.
struct Percent(u32);

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_exact(f, u64::from(self.0), &[(10_000, "%")])
    }
}

/// A size in bytes, as tc prints it (`30Kb`, `1Mb`, `1514b`), but only when exact.
struct Size(u32);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        for (shift, suffix) in [(30, "Gb"), (20, "Mb"), (10, "Kb")] {
            if v != 0 && v.trailing_zeros() >= shift {
                return write!(f, "{}{suffix}", v >> shift);
            }
        }
        write!(f, "{v}b")
    }
}

/// Modes as a preset name if one matches, else flags joined by `+`.
struct ModesText(Modes);

impl fmt::Display for ModesText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((name, _)) = MODE_PRESETS.iter().find(|(_, m)| *m == self.0) {
            return f.write_str(name);
        }
        let mut sep = "";
        for (name, flag) in MODE_FLAGS {
            if self.0.contains(flag) {
                write!(f, "{sep}{name}")?;
                sep = "+";
            }
        }
        let unknown = self.0 .0 & !Modes::ALL.0;
        if unknown != 0 || self.0 .0 == 0 {
            // Not valid, so not parsable either; shown rather than hidden.
            write!(f, "{sep}{unknown:#x}")?;
        }
        Ok(())
    }
}

/// Comma-joined values.
struct List<'a>(&'a [u32]);

impl fmt::Display for List<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        for v in self.0 {
            write!(f, "{sep}{v}")?;
            sep = ",";
        }
        Ok(())
    }
}

/// The name of `value` in a keyword's table.
fn name_of<T: PartialEq>(value: T, names: &[(&'static str, T)]) -> &'static str {
    names
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("?", |(n, _)| n)
}

/// A [`Config`] printed as canonical tc text by [`fmt::Display`], e.g.
/// `limit 1000p bands 3 mode ecnsharp ins_target 200us ... non_ect pass`.
///
/// Always printed: limit, bands, mode, sched, classify and non_ect. The parameters of the
/// schemes, scheduler and classifier in use are printed too, and so is anything that differs
/// from [`Config::DEFAULT`]; options that are off (byte limit, shaper, fixed seed, strict bands)
/// appear only when set. Hence, for a valid configuration whose quanta and weights past `bands`
/// are the defaults, parsing the text and applying it to the defaults gives it back, and
/// printing is stable.
pub struct ConfigText<'a>(pub &'a Config);

impl fmt::Display for ConfigText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        let d = &Config::DEFAULT;
        let (m, dm) = (&c.marking, &d.marking);
        let modes = m.modes;
        let ins = modes.contains(Modes::INSTANTANEOUS);
        let pst = modes.contains(Modes::PERSISTENT);
        let queue = modes.0 & (Modes::QUEUE_ENQUEUE.0 | Modes::QUEUE_DEQUEUE.0) != 0;
        let prob = modes.contains(Modes::PROBABILISTIC);
        let used = usize::from(c.bands).clamp(1, MAX_BANDS);
        let quanta = c.sched.quanta.get(..used).unwrap_or(&c.sched.quanta);
        let weights = c.sched.weights.get(..used).unwrap_or(&c.sched.weights);

        write!(f, "limit {}p", c.limit_packets)?;
        if c.limit_bytes != 0 {
            write!(f, " limit_bytes {}", Size(c.limit_bytes))?;
        }
        write!(f, " bands {} mode {}", c.bands, ModesText(modes))?;
        if ins || m.ins_target != dm.ins_target {
            write!(f, " ins_target {}", Time(m.ins_target))?;
        }
        if pst || m.pst_target != dm.pst_target {
            write!(f, " pst_target {}", Time(m.pst_target))?;
        }
        if pst || m.pst_interval != dm.pst_interval {
            write!(f, " pst_interval {}", Time(m.pst_interval))?;
        }
        if pst || m.control_law != dm.control_law {
            let law = name_of(m.control_law, &CONTROL_LAWS);
            write!(f, " control_law {law}")?;
        }
        if pst || m.idle_reset != dm.idle_reset {
            write!(f, " idle_reset {}", name_of(m.idle_reset, &ON_OFF))?;
        }
        if queue || m.k != dm.k || m.k_unit != dm.k_unit {
            match m.k_unit {
                QueueUnit::Packets => write!(f, " k {}p", m.k)?,
                QueueUnit::Bytes => write!(f, " k {}", Size(m.k))?,
            }
        }
        if prob || m.tmin != dm.tmin {
            write!(f, " tmin {}", Time(m.tmin))?;
        }
        if prob || m.tmax != dm.tmax {
            write!(f, " tmax {}", Time(m.tmax))?;
        }
        if prob || m.pmax_ppm != dm.pmax_ppm {
            write!(f, " pmax {}", Percent(m.pmax_ppm))?;
        }
        if m.seed != 0 {
            write!(f, " seed {}", m.seed)?;
        }
        write!(f, " sched {}", name_of(c.sched.kind, &SCHEDS))?;
        if c.sched.strict_bands != 0 {
            write!(f, " strict {}", c.sched.strict_bands)?;
        }
        let default_quanta = quanta.iter().all(|q| *q == DEFAULT_QUANTUM);
        if c.sched.kind == SchedKind::Dwrr || !default_quanta {
            write!(f, " quanta {}", List(quanta))?;
        }
        if c.sched.kind == SchedKind::Wfq || weights.iter().any(|w| *w != 1) {
            write!(f, " weights {}", List(weights))?;
        }
        let mode = c.classify.mode;
        write!(f, " classify {}", name_of(mode, &CLASSIFY_MODES))?;
        if mode == ClassifyMode::Priority || c.classify.priomap != DEFAULT_PRIOMAP {
            f.write_str(" priomap")?;
            for band in c.classify.priomap {
                write!(f, " {band}")?;
            }
        }
        if c.classify.dscpmap != DEFAULT_DSCPMAP {
            let mut sep = " dscpmap ";
            let changed = c.classify.dscpmap.iter().zip(DEFAULT_DSCPMAP.iter());
            for (dscp, (band, default)) in changed.enumerate() {
                if band != default {
                    write!(f, "{sep}{dscp}:{band}")?;
                    sep = ",";
                }
            }
        }
        if c.shaper.rate_bps != 0 {
            write!(f, " rate {}", Rate(c.shaper.rate_bps))?;
        }
        if c.shaper.burst_bytes != 0 {
            write!(f, " burst {}", Size(c.shaper.burst_bytes))?;
        }
        write!(f, " non_ect {}", name_of(c.non_ect, &NON_ECT))?;
        if !c.split_gso {
            write!(f, " split_gso off")?;
        }
        Ok(())
    }
}

/// Prints `cfg` as canonical tc text into `w` (see [`ConfigText`]).
pub fn write_config<W: Write>(w: &mut W, cfg: &Config) -> fmt::Result {
    write!(w, "{}", ConfigText(cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::arbitrary::valid_config;
    use crate::time::{ms, us};
    use proptest::prelude::*;
    use std::string::{String, ToString};
    use std::vec::Vec;

    fn parse(text: &str) -> Result<Options, ParseError<'_>> {
        Options::parse(text.split_whitespace())
    }

    /// The configuration `text` gives applied to the defaults.
    fn config(text: &str) -> Config {
        parse(text).unwrap().applied(&Config::DEFAULT).unwrap()
    }

    fn print(cfg: &Config) -> String {
        ConfigText(cfg).to_string()
    }

    fn illegal<'a>(keyword: &'static str, word: &'a str) -> Result<Options, ParseError<'a>> {
        Err(ParseError::Illegal { keyword, word })
    }

    /// The named values offered to completion and the man page are exactly the tables parsing
    /// uses.
    #[test]
    fn keyword_values_are_the_tables() {
        fn names<T>(t: &[(&'static str, T)]) -> Vec<&'static str> {
            t.iter().map(|(n, _)| *n).collect()
        }
        let mut modes = names(&MODE_PRESETS);
        for f in names(&MODE_FLAGS) {
            if !modes.contains(&f) {
                modes.push(f);
            }
        }
        assert_eq!(keyword_values("mode"), modes.as_slice());
        assert_eq!(keyword_values("control_law"), names(&CONTROL_LAWS));
        assert_eq!(keyword_values("idle_reset"), names(&ON_OFF));
        assert_eq!(keyword_values("split_gso"), names(&ON_OFF));
        assert_eq!(keyword_values("k_unit"), names(&K_UNITS));
        assert_eq!(keyword_values("sched"), names(&SCHEDS));
        assert_eq!(keyword_values("classify"), names(&CLASSIFY_MODES));
        assert_eq!(keyword_values("non_ect"), names(&NON_ECT));
        for kw in KEYWORDS {
            for v in keyword_values(kw) {
                assert!(Options::parse([kw, *v]).is_ok(), "{kw} {v}");
            }
        }
    }

    #[test]
    fn times_as_tc() {
        let t = |w: &str| parse_time(w).map(u64::from);
        // A bare number is microseconds, as tc's get_time.
        assert_eq!(t("200"), Some(us(200)));
        assert_eq!(t("85us"), Some(us(85)));
        assert_eq!(t("85usec"), Some(us(85)));
        assert_eq!(t("85USECS"), Some(us(85)));
        assert_eq!(t("1.5ms"), Some(us(1_500)));
        assert_eq!(t("1.5msec"), Some(us(1_500)));
        assert_eq!(t("2msecs"), Some(ms(2)));
        assert_eq!(t(".5ms"), Some(us(500)));
        assert_eq!(t("5.ms"), Some(ms(5)));
        assert_eq!(t("1s"), Some(1_000_000_000));
        assert_eq!(t("1sec"), Some(1_000_000_000));
        assert_eq!(t("4secs"), Some(4_000_000_000));
        assert_eq!(t("4.294967295s"), Some(u64::from(u32::MAX)));
        assert_eq!(t("10ns"), Some(10));
        assert_eq!(t("10nsec"), Some(10));
        assert_eq!(t("10nsecs"), Some(10));
        assert_eq!(t("0"), Some(0));
        // Below a nanosecond, truncated as tc truncates its double.
        assert_eq!(t("1.9ns"), Some(1));
        assert_eq!(t("0.0015us"), Some(1));
        // Invalid: beyond the uapi's u32 ns, bad units, signs, exponents, empty numbers.
        for bad in [
            "4.3s", "5s", "1e3us", "-1ms", "+1ms", "ms", ".", "1..2ms", "1.2.3", "5xs", "5 ms",
            "5m", "", "0x10", "١ms",
        ] {
            assert_eq!(t(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn rates_as_tc() {
        let r = parse_rate;
        // A bare number is bits per second; `bps` is bytes per second, as in tc.
        assert_eq!(r("1000"), Some(1_000));
        assert_eq!(r("1000bit"), Some(1_000));
        assert_eq!(r("8kbit"), Some(8_000));
        assert_eq!(r("1Kibit"), Some(1_024));
        assert_eq!(r("10mbit"), Some(10_000_000));
        assert_eq!(r("1mibit"), Some(1 << 20));
        assert_eq!(r("10gbit"), Some(10_000_000_000));
        assert_eq!(r("10Gbit"), Some(10_000_000_000));
        assert_eq!(r("9.95Gbit"), Some(9_950_000_000));
        assert_eq!(r("1gibit"), Some(1 << 30));
        assert_eq!(r("1tbit"), Some(1_000_000_000_000));
        assert_eq!(r("1tibit"), Some(1 << 40));
        assert_eq!(r("100bps"), Some(800));
        assert_eq!(r("1kbps"), Some(8_000));
        assert_eq!(r("1KiBps"), Some(8_192));
        assert_eq!(r("1mbps"), Some(8_000_000));
        assert_eq!(r("1mibps"), Some(8 << 20));
        assert_eq!(r("1GBps"), Some(8_000_000_000));
        assert_eq!(r("1gibps"), Some(8 << 30));
        assert_eq!(r("1tbps"), Some(8_000_000_000_000));
        assert_eq!(r("1tibps"), Some(8 << 40));
        assert_eq!(r("1.5bit"), Some(1));
        for bad in [
            "10%",
            "10gbits",
            "10g",
            "gbit",
            "-1bit",
            "1e9",
            "99999999999tbit",
            "",
        ] {
            assert_eq!(r(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn sizes_as_tc() {
        let s = parse_size;
        assert_eq!(s("1514"), Some(1514));
        assert_eq!(s("1514b"), Some(1514));
        assert_eq!(s("30k"), Some(30 * 1024));
        assert_eq!(s("30KB"), Some(30 * 1024));
        assert_eq!(s("1.5kb"), Some(1536));
        assert_eq!(s("2m"), Some(2 << 20));
        assert_eq!(s("2mb"), Some(2 << 20));
        assert_eq!(s("1g"), Some(1 << 30));
        assert_eq!(s("3gb"), Some(3 << 30));
        assert_eq!(s("8kbit"), Some(1024));
        assert_eq!(s("8mbit"), Some(1 << 20));
        assert_eq!(s("8gbit"), Some(1 << 30));
        for bad in ["4gb", "5000000000", "1kib", "1p", "kb", "-5", "1e3", ""] {
            assert_eq!(s(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn probabilities() {
        assert_eq!(parse_probability("10%"), Some(100_000));
        assert_eq!(parse_probability("12.5%"), Some(125_000));
        assert_eq!(parse_probability("0.0001%"), Some(1));
        assert_eq!(parse_probability("0.1"), Some(100_000));
        assert_eq!(parse_probability("1"), Some(1_000_000));
        assert_eq!(parse_probability("100%"), Some(1_000_000));
        for bad in ["%", "ten%", "-1%", "0.1%%", "1e-1", "5000"] {
            assert_eq!(parse_probability(bad), None, "{bad:?}");
        }
        // Above 1 parses, but validation refuses it, naming pmax.
        let e = parse("pmax 101%")
            .unwrap()
            .applied(&Config::DEFAULT)
            .unwrap_err();
        assert_eq!(e.keyword, "pmax");
    }

    #[test]
    fn every_keyword() {
        let cfg = config(
            "limit 5000p limit_bytes 1mb bands 3 mode ins+pst+red ins_target 300us \
             pst_target 0.1ms pst_interval 1ms control_law linear idle_reset off k 100kb \
             tmin 50us tmax 500us pmax 5% seed 42 sched wfq strict 1 quanta 3000,1500 \
             weights 4,2,1 classify dscp priomap 0,1,2,0,1,2,0,1,2,0,1,2,0,1,2,0 \
             dscpmap 46:0,10:2 rate 9.95gbit burst 64kb non_ect drop",
        );
        let m = &cfg.marking;
        assert_eq!(
            (cfg.limit_packets, cfg.limit_bytes, cfg.bands),
            (5000, 1 << 20, 3)
        );
        let want = Modes::ECN_SHARP.union(Modes::QUEUE_ENQUEUE);
        assert_eq!(m.modes, want);
        assert_eq!(
            (m.ins_target, m.pst_target, m.pst_interval),
            (us(300), us(100), ms(1))
        );
        assert_eq!((m.control_law, m.idle_reset), (ControlLaw::Linear, false));
        assert_eq!((m.k, m.k_unit), (100 * 1024, QueueUnit::Bytes));
        assert_eq!(
            (m.tmin, m.tmax, m.pmax_ppm, m.seed),
            (us(50), us(500), 50_000, 42)
        );
        assert_eq!(
            (cfg.sched.kind, cfg.sched.strict_bands),
            (SchedKind::Wfq, 1)
        );
        assert_eq!(cfg.sched.quanta[..3], [3000, 1500, DEFAULT_QUANTUM]);
        assert_eq!(cfg.sched.weights[..4], [4, 2, 1, 1]);
        assert_eq!(cfg.classify.mode, ClassifyMode::Dscp);
        assert_eq!(cfg.classify.priomap[..4], [0, 1, 2, 0]);
        assert_eq!((cfg.classify.dscpmap[46], cfg.classify.dscpmap[10]), (0, 2));
        assert_eq!(cfg.classify.dscpmap[1], 1);
        assert_eq!(
            (cfg.shaper.rate_bps, cfg.shaper.burst_bytes),
            (9_950_000_000, 65536)
        );
        assert_eq!(cfg.non_ect, NonEctPolicy::Drop);
        // Only what was given is kept; the rest stays None.
        let o = parse("bands 3").unwrap();
        assert_eq!(
            o,
            Options {
                bands: Some(3),
                ..Options::default()
            }
        );
        assert_eq!(parse(""), Ok(Options::default()));
    }

    #[test]
    fn modes_and_presets() {
        let modes = |w: &str| parse(&std::format!("mode {w}")).unwrap().modes.unwrap();
        assert_eq!(modes("ecnsharp"), Modes::ECN_SHARP);
        assert_eq!(modes("tcn"), Modes::INSTANTANEOUS);
        assert_eq!(modes("codel"), Modes::PERSISTENT);
        assert_eq!(modes("red"), Modes::QUEUE_ENQUEUE);
        assert_eq!(modes("dequeue"), Modes::QUEUE_DEQUEUE);
        assert_eq!(modes("prob"), Modes::PROBABILISTIC);
        assert_eq!(modes("ecnsharp_prob"), Modes(0b1_0010));
        assert_eq!(modes("ins+pst"), Modes::ECN_SHARP);
        assert_eq!(modes("ins+pst+red+dequeue+prob"), Modes::ALL);
        assert_eq!(modes("ecnsharp+red"), Modes(0b0111));
        for bad in ["ins+", "+pst", "ins++pst", "ECNSHARP", "fifo", "ins pst"] {
            let text = std::format!("mode {bad}");
            let word = bad.split(' ').next().unwrap();
            match parse(&text) {
                Err(ParseError::Illegal {
                    keyword: "mode",
                    word: w,
                }) => assert_eq!(w, word),
                Err(ParseError::Unknown { word: "pst" }) => assert_eq!(bad, "ins pst"),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        // Printing prefers the preset, else flags in bit order.
        let shown = |m| ModesText(Modes(m)).to_string();
        assert_eq!(shown(0b0011), "ecnsharp");
        assert_eq!(shown(0b1_0010), "ecnsharp_prob");
        assert_eq!(shown(0b0111), "ins+pst+red");
        assert_eq!(shown(0b1_1000), "dequeue+prob");
        assert_eq!(shown(0), "0x0");
        assert_eq!(shown(0b10_0001), "ins+0x20");
    }

    #[test]
    fn k_and_its_unit() {
        let k = |t: &str| {
            let o = parse(t).unwrap();
            (o.k, o.k_unit)
        };
        assert_eq!(k("k 65p"), (Some(65), Some(QueueUnit::Packets)));
        assert_eq!(k("K 65p"), (Some(65), Some(QueueUnit::Packets)));
        assert_eq!(k("k 100kb"), (Some(102_400), Some(QueueUnit::Bytes)));
        assert_eq!(k("k 30000b"), (Some(30_000), Some(QueueUnit::Bytes)));
        // A bare number leaves the unit as configured, unless k_unit says.
        assert_eq!(k("k 20"), (Some(20), None));
        assert_eq!(k("k 20 k_unit bytes"), (Some(20), Some(QueueUnit::Bytes)));
        assert_eq!(
            k("k_unit packets k 65p"),
            (Some(65), Some(QueueUnit::Packets))
        );
        assert_eq!(parse("k 65p k_unit bytes"), illegal("k_unit", "bytes"));
        assert_eq!(parse("k 1.5"), illegal("k", "1.5"));
        assert_eq!(parse("k p"), illegal("k", "p"));
        assert_eq!(parse("k 10parsecs"), illegal("k", "10parsecs"));
        assert_eq!(parse("k_unit cells"), illegal("k_unit", "cells"));
    }

    #[test]
    fn maps() {
        let words: Vec<&str> = "priomap 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 bands 2"
            .split(' ')
            .collect();
        let o = Options::parse(words.iter().copied()).unwrap();
        assert_eq!(o.priomap.unwrap()[..3], [1, 2, 3]);
        assert_eq!(o.priomap.unwrap()[15], 0);
        assert_eq!(o.bands, Some(2));
        assert_eq!(parse("priomap 1 2 3"), illegal("priomap", "3"));
        assert_eq!(parse("priomap 1 2 x 4"), illegal("priomap", "x"));
        assert_eq!(parse("priomap 1,2,3"), illegal("priomap", "1,2,3"));
        let seventeen = "priomap 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
        assert_eq!(parse(seventeen), illegal("priomap", &seventeen[8..]));
        assert_eq!(parse("priomap 256"), illegal("priomap", "256"));
        // Entries past the bands in use pass (clamped when classifying); past 15 validation says no.
        let e = parse("priomap 16,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
            .unwrap()
            .applied(&Config::DEFAULT)
            .unwrap_err();
        assert_eq!(e.keyword, "priomap");

        assert_eq!(
            parse("dscpmap default").unwrap().dscpmap,
            Some(DEFAULT_DSCPMAP)
        );
        let map = parse("dscpmap 63:3").unwrap().dscpmap.unwrap();
        assert_eq!((map[63], map[62], map[0]), (3, 15, 0));
        for bad in [
            "64:0", "1:256", "1", "1:", ":1", "1:1,1:2", "1:1,", "a:b", "1-1",
        ] {
            assert_eq!(
                parse(&std::format!("dscpmap {bad}")),
                illegal("dscpmap", bad)
            );
        }

        assert_eq!(
            parse("quanta 1.5kb").unwrap().quanta.unwrap().as_slice(),
            [1536]
        );
        let seventeen = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
        for bad in ["", ",", "1,,2", "1,x", "5gb", seventeen] {
            assert_eq!(
                parse(&std::format!("quanta {bad} "))
                    .unwrap_or_default()
                    .quanta,
                None
            );
            let words = ["weights", bad];
            let want = illegal("weights", bad);
            assert_eq!(Options::parse(words), want);
        }
        assert_eq!(BandValues::from_slice(&[]), None);
        assert_eq!(BandValues::from_slice(&[7; 17]), None);
        assert_eq!(
            BandValues::from_slice(&[7; 2]).unwrap().filled(1)[..3],
            [7, 7, 1]
        );
    }

    #[test]
    fn syntax_errors_in_tc_words() {
        assert_eq!(parse("limt 5"), Err(ParseError::Unknown { word: "limt" }));
        assert_eq!(
            parse("limit"),
            Err(ParseError::Missing { keyword: "limit" })
        );
        let dup = parse("limit 5 limit 6");
        assert_eq!(
            dup,
            Err(ParseError::Duplicate {
                keyword: "limit",
                word: "6"
            })
        );
        assert_eq!(
            parse("k 5 K 6"),
            Err(ParseError::Duplicate {
                keyword: "k",
                word: "6"
            })
        );
        let cases = [
            ("limit", "5q"),
            ("limit", "-1"),
            ("limit", "4294967296"),
            ("limit_bytes", "lots"),
            ("bands", "three"),
            ("bands", "1.5"),
            ("ins_target", "5parsecs"),
            ("pst_target", "1e3"),
            ("pst_interval", "5s"),
            ("control_law", "sqrt"),
            ("idle_reset", "yes"),
            ("tmin", "x"),
            ("tmax", "4.3s"),
            ("pmax", "half"),
            ("seed", "-3"),
            ("sched", "fq"),
            ("strict", "all"),
            ("classify", "tos"),
            ("rate", "10gbits"),
            ("rate", "50%"),
            ("burst", "10kbits"),
            ("non_ect", "mark"),
        ];
        for (keyword, word) in cases {
            let words = [keyword, word];
            assert_eq!(Options::parse(words), illegal(keyword, word));
        }
        let shown = |e: ParseError<'_>| e.to_string();
        assert_eq!(shown(ParseError::Unknown { word: "x" }), "What is \"x\"?");
        let e = ParseError::Illegal {
            keyword: "pst_interval",
            word: "5xs",
        };
        assert_eq!(shown(e), "Illegal \"pst_interval\": bad value \"5xs\"");
        assert_eq!(
            shown(ParseError::Missing { keyword: "k" }),
            "Missing value for \"k\""
        );
        let e = ParseError::Duplicate {
            keyword: "limit",
            word: "6",
        };
        assert_eq!(shown(e), "Duplicate \"limit\": \"6\" is the second value");
        assert!(USAGE.contains("pst_interval TIME"));
    }

    #[test]
    fn printing() {
        assert_eq!(
            print(&Config::DEFAULT),
            "limit 1000p bands 1 mode ecnsharp ins_target 200us pst_target 85us \
             pst_interval 200us control_law inv_sqrt idle_reset on sched dwrr quanta 1514 \
             classify priority priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 non_ect pass"
        );
        // The brief's example: three DWRR bands 2:1:1 behind a 10G shaper.
        let cfg = config("bands 3 quanta 3000,1500,1500 rate 10gbit burst 30kb");
        assert_eq!(
            print(&cfg),
            "limit 1000p bands 3 mode ecnsharp ins_target 200us pst_target 85us \
             pst_interval 200us control_law inv_sqrt idle_reset on sched dwrr \
             quanta 3000,1500,1500 classify priority priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 \
             rate 10Gbit burst 30Kb non_ect pass"
        );
        // Other schemes show their own parameters, and anything changed from the defaults.
        let cfg = config(
            "mode red k 100kb sched sp classify dscp dscpmap 46:0,0:2 ins_target 1.5ms \
             limit_bytes 1514 seed 7 rate 1234567bit burst 3000",
        );
        assert_eq!(
            print(&cfg),
            "limit 1000p limit_bytes 1514b bands 1 mode red ins_target 1.5ms k 100Kb seed 7 \
             sched sp classify dscp dscpmap 0:2,46:0 rate 1.234567Mbit burst 3000b non_ect pass"
        );
        let cfg = config("mode prob tmin 1ns tmax 4.294967295s pmax 0.0001% limit_bytes 2g");
        let text = print(&cfg);
        assert!(
            text.contains(" tmin 1ns tmax 4.294967295s pmax 0.0001% "),
            "{text}"
        );
        assert!(text.contains(" limit_bytes 2Gb "), "{text}");
        let mut s = String::new();
        write_config(&mut s, &cfg).unwrap();
        assert_eq!(s, text);
    }

    #[test]
    fn exact_units_when_printing() {
        let t = |ns| Time(ns).to_string();
        assert_eq!(
            [
                t(0),
                t(999),
                t(1_000),
                t(85_500),
                t(1_000_001),
                t(2_000_000_000)
            ],
            ["0ns", "999ns", "1us", "85.5us", "1.000001ms", "2s"]
        );
        let r = |bps| Rate(bps).to_string();
        assert_eq!(
            [r(999), r(8_000), r(10_000_000_000)],
            ["999bit", "8Kbit", "10Gbit"]
        );
        assert_eq!(r(1_000_000_000_001), "1.000000000001Tbit");
        let s = |b| Size(b).to_string();
        assert_eq!(
            [s(0), s(1514), s(30_720), s(1 << 20), s(3 << 30)],
            ["0b", "1514b", "30Kb", "1Mb", "3Gb"]
        );
        let p = |ppm| Percent(ppm).to_string();
        assert_eq!(
            [p(0), p(1), p(100_000), p(125_000), p(1_000_000)],
            ["0%", "0.0001%", "10%", "12.5%", "100%"]
        );
    }

    proptest! {
        #[test]
        fn text_round_trip(cfg in valid_config()) {
            let text = print(&cfg);
            let options = parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back = options.applied(&Config::DEFAULT);
            prop_assert_eq!(back, Ok(cfg), "{}", text);
            // Stable, and what the helper sends decodes in the kernel to the same.
            prop_assert_eq!(print(&cfg), text);
            let mut buf = [0u8; uapi::OPTIONS_MAX_SIZE];
            let n = options.encode(&mut buf).unwrap();
            let mut kernel = Config::DEFAULT;
            prop_assert_eq!(uapi::decode_options(&buf[..n], &mut kernel), Ok(()));
            prop_assert_eq!(kernel, cfg);
        }

        #[test]
        fn parse_never_panics(words in proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(KEYWORDS.to_vec()).prop_map(String::from),
                "[0-9.]{0,6}[a-zA-Z%]{0,5}",
                "[0-9:,+a-z]{0,12}",
                any::<String>(),
            ],
            0..12,
        )) {
            if let Ok(o) = Options::parse(words.iter().map(String::as_str)) {
                let mut cfg = Config::DEFAULT;
                o.apply(&mut cfg);
                let _ = cfg.validate();
                let mut buf = [0u8; uapi::OPTIONS_MAX_SIZE];
                prop_assert!(o.encode(&mut buf).is_ok());
            }
        }
    }

    #[test]
    fn partial_encode() {
        let mut buf = [0u8; uapi::OPTIONS_MAX_SIZE];
        assert_eq!(Options::default().encode(&mut buf), Ok(0));
        let o = parse("pst_interval 300us quanta 3000,1500").unwrap();
        let n = o.encode(&mut buf).unwrap();
        assert_eq!(n, 8 + 12);
        let attrs: Vec<_> = uapi::NlaIter::new(&buf[..n]).map(Result::unwrap).collect();
        assert_eq!(attrs[0].kind, uapi::TCA_ECNSHARP_PST_INTERVAL);
        assert_eq!(attrs[0].u32(), Some(300_000));
        assert_eq!(attrs[1].payload.len(), 8);
        // A change: only the given options move.
        let mut running = config("bands 3 quanta 1000,1000,1000 sched wfq");
        uapi::decode_options(&buf[..n], &mut running).unwrap();
        assert_eq!(running.sched.kind, SchedKind::Wfq);
        assert_eq!(running.sched.quanta[..3], [3000, 1500, DEFAULT_QUANTUM]);
        assert_eq!(running.marking.pst_interval, us(300));
        // Everything given fits OPTIONS_MAX_SIZE; one byte less does not.
        let all = parse(&print(&config("bands 16 sched wfq mode ins+pst+red+prob"))).unwrap();
        let full = Options {
            seed: Some(1),
            limit_bytes: Some(2000),
            rate_bps: Some(8000),
            burst_bytes: Some(2000),
            strict_bands: Some(1),
            quanta: all.weights,
            dscpmap: Some(DEFAULT_DSCPMAP),
            k_unit: Some(QueueUnit::Bytes),
            split_gso: Some(false),
            ..all
        };
        assert_eq!(full.encode(&mut buf), Ok(uapi::OPTIONS_MAX_SIZE));
        let short = &mut buf[..uapi::OPTIONS_MAX_SIZE - 1];
        assert_eq!(full.encode(short), Err(EncodeError::NoSpace));
    }
}
