// SPDX-License-Identifier: GPL-2.0-only
//! What `tc qdisc show` shows for an ecnsharp qdisc, described once for both front ends
//! (`ecnsharp-tc` and tc's `q_ecnsharp.so`): the options and the xstats, including the per-band
//! state of Algorithm 1 (ECN# §3.2, Table 2), as JSON fields and as tc-style text.
//!
//! JSON follows tc's conventions (`tc -s -j qdisc show` of fq_codel, tbf, htb, cake): every
//! number has one JSON type whatever its value. Times are whole microseconds (rounded to the
//! nearest; the text form is exact to the nanosecond), sizes and counters raw integers, rates
//! integer bytes per second as tc prints them (our uapi carries bits per second), probabilities
//! a fraction of 1 always written with a decimal point (`0.1`, `1.0`). Text is what `tc -s` prints
//! for other qdiscs: options through [`ConfigText`], counters exact (`bytes 15103380`), sizes as
//! tc's `sprint_size` (`backlog 4542b`, `1Mb` only within 1 KiB of it), times with one decimal
//! (`85.3us`), and a field that is a boolean in JSON is `on`/`off` in text, as `idle_reset`.

use core::fmt::{self, Write};

use crate::config::{ClassifyMode, Config, ControlLaw, NonEctPolicy, QueueUnit, SchedKind};
use crate::ecn::MarkCause;
use crate::histogram::{bucket_bounds, SojournHist};
use crate::options::ConfigText;
use crate::uapi::{Xstats, XstatsBand, XstatsHeader, XSTATS_KIND_CLASS};

/// The unit of a reported number: how it is written in JSON and in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A plain count (bands, marks, weights, a seed).
    Count,
    /// Packets.
    Packets,
    /// Bytes.
    Bytes,
    /// Bits per second.
    BitsPerSecond,
    /// Nanoseconds, a time or duration; JSON shows microseconds.
    Nanos,
    /// Parts per million, a probability; JSON shows a fraction of 1.
    Ppm,
}

/// A number with its unit. Signed, so that times relative to the dump can say "in the past".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Number {
    /// Whether the value is below zero (only relative times are).
    pub negative: bool,
    /// The magnitude in the raw unit (ns for [`Unit::Nanos`], ppm for [`Unit::Ppm`]).
    pub magnitude: u64,
    /// The unit.
    pub unit: Unit,
}

impl Number {
    /// A non-negative number.
    pub const fn new(magnitude: u64, unit: Unit) -> Number {
        Number {
            negative: false,
            magnitude,
            unit,
        }
    }

    /// The time `at_ns` relative to `now_ns`, in ns (negative: in the past).
    pub const fn relative(at_ns: u64, now_ns: u64) -> Number {
        Number {
            negative: at_ns < now_ns,
            magnitude: at_ns.abs_diff(now_ns),
            unit: Unit::Nanos,
        }
    }

    /// The JSON value as (negative, magnitude) when it is an integer, as it is for every unit but
    /// [`Unit::Ppm`]: times in whole microseconds (rounded to the nearest), rates in bytes per
    /// second. `None` for a probability, which is always written as a fraction ([`fmt::Display`]).
    pub fn json_integer(self) -> Option<(bool, u64)> {
        let whole = match self.unit {
            Unit::Ppm => return None,
            Unit::Nanos => self.magnitude / 1_000 + u64::from(self.magnitude % 1_000 >= 500),
            Unit::BitsPerSecond => self.magnitude / 8,
            Unit::Count | Unit::Packets | Unit::Bytes => self.magnitude,
        };
        Some((self.negative && whole != 0, whole))
    }
}

/// The JSON text of the number: `200`, `-300`, `1250000000`, or a probability `0.1`, `1.0`.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((negative, whole)) = self.json_integer() {
            if negative {
                f.write_char('-')?;
            }
            return write!(f, "{whole}");
        }
        // A probability: ppm as a fraction of 1, with up to 6 decimals and at least one.
        let whole = self.magnitude / 1_000_000;
        let mut rem = self.magnitude % 1_000_000;
        let mut width: usize = 6;
        while rem % 10 == 0 && width > 1 {
            rem /= 10;
            width = width.saturating_sub(1);
        }
        write!(f, "{whole}.{rem:0width$}")
    }
}

/// One JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// A number.
    Number(Number),
    /// A string.
    Text(&'a str),
    /// `true` or `false`.
    Bool(bool),
    /// `null`: not applicable now (e.g. `marking_next` outside the marking state).
    Null,
}

/// Where JSON goes: tc's json_print functions in the plugin, a small writer in the helper.
///
/// `key` is `None` inside arrays. The report opens and closes what it starts, so a writer
/// needs no checks of its own.
pub trait JsonSink {
    /// One value.
    fn value(&mut self, key: Option<&str>, value: Value<'_>);
    /// Starts an object.
    fn begin_object(&mut self, key: Option<&str>);
    /// Ends the object last started.
    fn end_object(&mut self);
    /// Starts an array.
    fn begin_array(&mut self, key: &str);
    /// Ends the array last started.
    fn end_array(&mut self);
}

/// The tc name of a control law, as `control_law` takes it.
pub const fn control_law_name(law: ControlLaw) -> &'static str {
    match law {
        ControlLaw::InvSqrt => "inv_sqrt",
        ControlLaw::Linear => "linear",
        ControlLaw::Ns3 => "ns3",
    }
}

/// The tc name of a queue unit, as `k_unit` takes it.
pub const fn k_unit_name(unit: QueueUnit) -> &'static str {
    match unit {
        QueueUnit::Packets => "packets",
        QueueUnit::Bytes => "bytes",
    }
}

/// The tc name of a scheduler, as `sched` takes it.
pub const fn sched_name(kind: SchedKind) -> &'static str {
    match kind {
        SchedKind::Sp => "sp",
        SchedKind::Dwrr => "dwrr",
        SchedKind::Wfq => "wfq",
    }
}

/// The tc name of a classifier, as `classify` takes it.
pub const fn classify_name(mode: ClassifyMode) -> &'static str {
    match mode {
        ClassifyMode::Priority => "priority",
        ClassifyMode::Dscp => "dscp",
    }
}

/// The tc name of a non-ECT policy, as `non_ect` takes it.
pub const fn non_ect_name(policy: NonEctPolicy) -> &'static str {
    match policy {
        NonEctPolicy::Pass => "pass",
        NonEctPolicy::Drop => "drop",
    }
}

/// The short name of a mark cause, as the statistics show it.
pub const fn cause_name(cause: MarkCause) -> &'static str {
    match cause {
        MarkCause::Instantaneous => "ins",
        MarkCause::Persistent => "pst",
        MarkCause::QueueEnqueue => "red",
        MarkCause::QueueDequeue => "deq",
        MarkCause::Probabilistic => "prob",
    }
}

/// Longest word [`WordAfter`] keeps; mode names are at most 24 bytes (`ins+pst+red+dequeue+prob`).
const WORD_MAX: usize = 40;

/// Picks the word that follows `keyword` out of space-separated text as it is written, so that
/// the JSON takes a value from [`ConfigText`] rather than from a second copy of its tables.
struct WordAfter<'k> {
    keyword: &'k str,
    word: [u8; WORD_MAX],
    len: usize,
    overflow: bool,
    after_keyword: bool,
    found: bool,
}

impl<'k> WordAfter<'k> {
    fn new(keyword: &'k str) -> Self {
        WordAfter {
            keyword,
            word: [0; WORD_MAX],
            len: 0,
            overflow: false,
            after_keyword: false,
            found: false,
        }
    }

    fn current(&self) -> &[u8] {
        self.word.get(..self.len).unwrap_or(&[])
    }

    fn end_word(&mut self) {
        if self.found {
            return;
        }
        if self.after_keyword {
            self.found = !self.overflow;
            return;
        }
        self.after_keyword = !self.overflow && self.current() == self.keyword.as_bytes();
        self.len = 0;
        self.overflow = false;
    }

    /// The word found, or `""`.
    fn finish(&mut self) -> &str {
        self.end_word();
        if !self.found {
            return "";
        }
        core::str::from_utf8(self.current()).unwrap_or("")
    }
}

impl Write for WordAfter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if self.found {
                break;
            }
            if b == b' ' {
                self.end_word();
            } else if let Some(slot) = self.word.get_mut(self.len) {
                *slot = b;
                self.len = self.len.saturating_add(1);
            } else {
                self.overflow = true;
            }
        }
        Ok(())
    }
}

/// Writes the options of `cfg` as JSON fields, every option always (the caller opens the
/// `options` object, as tc does). Keys are the tc keywords; values in raw units (see the module
/// documentation); `quanta` and `weights` list the bands in use, `priomap` 16 and `dscpmap` 64
/// bands.
pub fn options_json(cfg: &Config, sink: &mut impl JsonSink) {
    let m = &cfg.marking;
    let num = |v: u64, unit| Value::Number(Number::new(v, unit));
    let mut mode = WordAfter::new("mode");
    // Writing into WordAfter cannot fail.
    let _ = write!(mode, "{}", ConfigText(cfg));
    let k_unit = match m.k_unit {
        QueueUnit::Packets => Unit::Packets,
        QueueUnit::Bytes => Unit::Bytes,
    };
    sink.value(Some("limit"), num(cfg.limit_packets.into(), Unit::Packets));
    sink.value(
        Some("limit_bytes"),
        num(cfg.limit_bytes.into(), Unit::Bytes),
    );
    sink.value(Some("bands"), num(cfg.bands.into(), Unit::Count));
    sink.value(Some("mode"), Value::Text(mode.finish()));
    sink.value(Some("ins_target"), num(m.ins_target, Unit::Nanos));
    sink.value(Some("pst_target"), num(m.pst_target, Unit::Nanos));
    sink.value(Some("pst_interval"), num(m.pst_interval, Unit::Nanos));
    let law = control_law_name(m.control_law);
    sink.value(Some("control_law"), Value::Text(law));
    sink.value(Some("idle_reset"), Value::Bool(m.idle_reset));
    sink.value(Some("k"), num(m.k.into(), k_unit));
    sink.value(Some("k_unit"), Value::Text(k_unit_name(m.k_unit)));
    sink.value(Some("tmin"), num(m.tmin, Unit::Nanos));
    sink.value(Some("tmax"), num(m.tmax, Unit::Nanos));
    sink.value(Some("pmax"), num(m.pmax_ppm.into(), Unit::Ppm));
    sink.value(Some("seed"), num(m.seed.into(), Unit::Count));
    sink.value(Some("sched"), Value::Text(sched_name(cfg.sched.kind)));
    let strict = cfg.sched.strict_bands.into();
    sink.value(Some("strict"), num(strict, Unit::Count));
    let used = usize::from(cfg.bands).clamp(1, crate::band::MAX_BANDS);
    let lists = [
        ("quanta", &cfg.sched.quanta, Unit::Bytes),
        ("weights", &cfg.sched.weights, Unit::Count),
    ];
    for (key, values, unit) in lists {
        sink.begin_array(key);
        for v in values.iter().take(used) {
            sink.value(None, num((*v).into(), unit));
        }
        sink.end_array();
    }
    let classify = classify_name(cfg.classify.mode);
    sink.value(Some("classify"), Value::Text(classify));
    let maps: [(&str, &[u8]); 2] = [
        ("priomap", &cfg.classify.priomap),
        ("dscpmap", &cfg.classify.dscpmap),
    ];
    for (key, map) in maps {
        sink.begin_array(key);
        for band in map {
            sink.value(None, num((*band).into(), Unit::Count));
        }
        sink.end_array();
    }
    let rate = cfg.shaper.rate_bps;
    sink.value(Some("rate"), num(rate, Unit::BitsPerSecond));
    let burst = cfg.shaper.burst_bytes.into();
    sink.value(Some("burst"), num(burst, Unit::Bytes));
    sink.value(Some("non_ect"), Value::Text(non_ect_name(cfg.non_ect)));
    sink.value(Some("split_gso"), Value::Bool(cfg.split_gso));
}

/// The mean sojourn of a band in ns (0 before the first packet).
pub fn sojourn_mean_ns(band: &XstatsBand) -> u64 {
    band.sojourn_sum_ns.checked_div(band.packets).unwrap_or(0)
}

/// Writes the xstats as JSON fields, flat in the qdisc's object as tc puts fq_codel's: `marks`,
/// `throttled`, `shaper_burst` and `now` (the kernel's monotonic time of the dump, in us, so
/// that rates computed from two dumps carry no userspace timing jitter), then a `bands` array
/// with one object per band. Times of
/// Algorithm 1 are relative to the dump (`first_above_time` negative: that long ago), `null`
/// when they mean nothing (below target; not in the marking state).
///
/// A class's xstats (`tc -s -j class show`) are its band's record in a `band` object: tc (6.2
/// on) prints them inside the class's "stats" object, after its own `packets`, `bytes`, `qlen`
/// and `backlog`, which count otherwise (GSO segments, not packets), so flat they would stand
/// twice in one object.
pub fn xstats_json(x: &Xstats, sink: &mut impl JsonSink) {
    let h = &x.header;
    if h.kind == XSTATS_KIND_CLASS {
        sink.begin_object(Some("band"));
        if let Some(b) = x.bands().first() {
            band_json(first_band(h), b, h, sink);
            if let Some(hist) = &x.hist {
                hist_json(&hist.hist(), b.sojourn_max_ns, sink);
            }
        }
        sink.end_object();
        return;
    }
    let num = |v: u64, unit| Value::Number(Number::new(v, unit));
    sink.value(Some("marks"), num(h.marks, Unit::Packets));
    sink.value(Some("throttled"), num(h.throttled, Unit::Count));
    let burst = h.burst_bytes.into();
    sink.value(Some("shaper_burst"), num(burst, Unit::Bytes));
    sink.value(Some("late_wakeups"), num(h.late_wakeups, Unit::Count));
    sink.value(Some("late_max"), num(h.late_max_ns, Unit::Nanos));
    sink.value(Some("now"), num(h.now_ns, Unit::Nanos));
    sink.begin_array("bands");
    for (index, b) in x.bands().iter().enumerate() {
        sink.begin_object(None);
        band_json(index, b, h, sink);
        sink.end_object();
    }
    sink.end_array();
}

/// Percentiles the front ends show: per mille, text name, JSON key.
pub const PERCENTILES: [(u32, &str, &str); 2] =
    [(500, "p50", "sojourn_p50"), (990, "p99", "sojourn_p99")];

/// A class's sojourn percentiles (`sojourn_p50`, `sojourn_p99`: `null` before the first packet)
/// and its non-empty buckets, `sojourn_hist`: `[{"ge_ns":8192,"lt_ns":12288,"packets":98},...]`
/// (edges in ns, exact; `lt_ns` `null` for the last bucket).
fn hist_json(hist: &SojournHist, max_ns: u64, sink: &mut impl JsonSink) {
    let num = |v: u64, unit| Value::Number(Number::new(v, unit));
    for (permille, _, key) in PERCENTILES {
        let v = hist
            .percentile(permille, max_ns)
            .map_or(Value::Null, |ns| num(ns, Unit::Nanos));
        sink.value(Some(key), v);
    }
    sink.begin_array("sojourn_hist");
    for (b, &count) in hist.counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let (lower, upper) = bucket_bounds(b);
        sink.begin_object(None);
        sink.value(Some("ge_ns"), num(lower, Unit::Count));
        let upper = upper.map_or(Value::Null, |u| num(u, Unit::Count));
        sink.value(Some("lt_ns"), upper);
        sink.value(Some("packets"), num(count.into(), Unit::Packets));
        sink.end_object();
    }
    sink.end_array();
}

/// A class's sojourn line: `   sojourn p50 12.2us p99 1ms hist 8.1us+ 98 1ms+ 2`, each bucket
/// named by its lower edge.
fn hist_text(f: &mut fmt::Formatter<'_>, hist: &SojournHist, max_ns: u64) -> fmt::Result {
    let time = |ns| HumanTime(Number::new(ns, Unit::Nanos));
    f.write_str("\n   sojourn")?;
    for (permille, name, _) in PERCENTILES {
        match hist.percentile(permille, max_ns) {
            Some(ns) => write!(f, " {name} {}", time(ns))?,
            None => write!(f, " {name} -")?,
        }
    }
    f.write_str(" hist")?;
    for (b, &count) in hist.counts.iter().enumerate() {
        if count != 0 {
            write!(f, " {}+ {count}", time(bucket_bounds(b).0))?;
        }
    }
    Ok(())
}

/// The band of a header's first record.
fn first_band(h: &XstatsHeader) -> usize {
    usize::try_from(h.first_band).unwrap_or(0)
}

/// The fields of one band record.
fn band_json(index: usize, b: &XstatsBand, h: &XstatsHeader, sink: &mut impl JsonSink) {
    let num = |v: u64, unit| Value::Number(Number::new(v, unit));
    let index = u64::try_from(index).unwrap_or(u64::MAX);
    sink.value(Some("band"), num(index, Unit::Count));
    let counters = [
        ("enqueued", b.enqueued, Unit::Packets),
        ("packets", b.packets, Unit::Packets),
        ("bytes", b.bytes, Unit::Bytes),
        ("qlen", b.qlen.into(), Unit::Packets),
        ("backlog", b.backlog.into(), Unit::Bytes),
        ("drops_limit", b.drops_limit, Unit::Packets),
        ("drops_nonect", b.drops_nonect, Unit::Packets),
        ("drops_config", b.drops_config, Unit::Packets),
        ("marks", b.marks, Unit::Packets),
    ];
    for (key, v, unit) in counters {
        sink.value(Some(key), num(v, unit));
    }
    sink.begin_object(Some("marks_by_cause"));
    for (cause, count) in MarkCause::ALL.iter().zip(b.marks_by_cause.iter()) {
        sink.value(Some(cause_name(*cause)), num(*count, Unit::Packets));
    }
    sink.end_object();
    let more = [
        ("ce_already", b.ce_already, Unit::Packets),
        ("nonect_passed", b.nonect_passed, Unit::Packets),
        ("sojourn_max", b.sojourn_max_ns, Unit::Nanos),
        ("sojourn_mean", sojourn_mean_ns(b), Unit::Nanos),
    ];
    for (key, v, unit) in more {
        sink.value(Some(key), num(v, unit));
    }
    sink.value(Some("marking_state"), Value::Bool(b.marking_state != 0));
    let count = b.marking_count.into();
    sink.value(Some("marking_count"), num(count, Unit::Count));
    let first_above = match b.first_above_time_ns {
        0 => Value::Null,
        t => Value::Number(Number::relative(t, h.now_ns)),
    };
    sink.value(Some("first_above_time"), first_above);
    let next = match b.marking_state {
        0 => Value::Null,
        _ => Value::Number(Number::relative(b.marking_next_ns, h.now_ns)),
    };
    sink.value(Some("marking_next"), next);
}

/// A size as tc's `sprint_size` writes backlogs and buckets: whole `Mb` within 1 KiB of one,
/// else whole `Kb` within 16 bytes of one, else exact bytes (`4542b`, `3Kb`, `1Mb`); the whole
/// number as C's `%g` prints it (`1e+06Kb` past six digits). The one copy for both front ends:
/// `ecnsharp-tc` prints tc's own `backlog` lines with it too.
pub struct TcSize(pub u64);

impl fmt::Display for TcSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        for (unit, slack, suffix) in [(1u64 << 20, 1024, "Mb"), (1 << 10, 16, "Kb")] {
            // The nearest whole number of units (tc's rint; a tie is never within the slack).
            let whole = v / unit + u64::from(v % unit >= unit / 2);
            if v >= unit && whole.saturating_mul(unit).abs_diff(v) < slack {
                write_g(f, whole)?;
                return f.write_str(suffix);
            }
        }
        write!(f, "{v}b")
    }
}

/// A whole number as C's `%g` prints it: as is below 10^6, else six significant digits (half to
/// even on an exact half, as printf) with an exponent, `1.23456e+06`.
fn write_g(f: &mut fmt::Formatter<'_>, v: u64) -> fmt::Result {
    if v < 1_000_000 {
        return write!(f, "{v}");
    }
    let mut exp: u32 = 0;
    let mut scale: u64 = 1;
    while v / scale >= 1_000_000 {
        scale = scale.saturating_mul(10);
        exp = exp.saturating_add(1);
    }
    // v = head * scale + rest, head of six digits.
    let head = v / scale;
    let rest = v % scale;
    let half = scale / 2;
    let up = rest > half || (rest == half && head % 2 == 1);
    let mut m = head.saturating_add(u64::from(up));
    exp = exp.saturating_add(5);
    if m == 1_000_000 {
        m = 100_000;
        exp = exp.saturating_add(1);
    }
    // m has six digits: the first, a point, the others without trailing zeros.
    let mut frac = m % 100_000;
    let mut width: usize = 5;
    while frac != 0 && frac % 10 == 0 {
        frac /= 10;
        width = width.saturating_sub(1);
    }
    match frac {
        0 => write!(f, "{}e+{exp:02}", m / 100_000),
        _ => write!(f, "{}.{frac:0width$}e+{exp:02}", m / 100_000),
    }
}

/// A boolean in text, as tc writes one it always shows (`idle_reset on`).
const fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// A time in human units with one decimal, signed for relative times: `85ns`, `42.3us`,
/// `1.5ms`, `-300us`.
pub struct HumanTime(pub Number);

impl fmt::Display for HumanTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n.negative && n.magnitude != 0 {
            f.write_char('-')?;
        }
        let v = n.magnitude;
        let units: [(u64, &str); 3] = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")];
        for (scale, suffix) in units {
            if v >= scale {
                let whole = v / scale;
                let tenths = (v % scale) / (scale / 10);
                return match tenths {
                    0 => write!(f, "{whole}{suffix}"),
                    t => write!(f, "{whole}.{t}{suffix}"),
                };
            }
        }
        write!(f, "{v}ns")
    }
}

/// The xstats as tc text, laid out like fq_codel's (lines start with two spaces), lines
/// separated by `\n` with none at the end (tc's `print_nl` goes between them):
///
/// ```text
///   marks 12 throttled 0
///   band 0: enqueued 103 packets 100 bytes 149900 qlen 3p backlog 4542b
///    drops limit 0 non_ect 0 config 0 marks 12 (ins 10 pst 2 red 0 deq 0 prob 0) ce_already 0 nonect_passed 0
///    sojourn max 1.2ms mean 85.3us marking_state on marking_count 4 first_above_time -300us marking_next 50us
/// ```
///
/// `burst` (the bucket in force) follows `throttled` when shaping; `first_above_time` and
/// `marking_next` appear only when they mean something.
pub struct XstatsText<'a>(pub &'a Xstats);

impl fmt::Display for XstatsText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.0.header;
        if h.kind == XSTATS_KIND_CLASS {
            // tc has printed the class line and its counters: the band's own lines follow.
            let Some(b) = self.0.bands().first() else {
                return Ok(());
            };
            band_text(f, first_band(h), b, h, "  ")?;
            return match &self.0.hist {
                Some(hist) => hist_text(f, &hist.hist(), b.sojourn_max_ns),
                None => Ok(()),
            };
        }
        write!(f, "  marks {} throttled {}", h.marks, h.throttled)?;
        if h.rate_bps != 0 {
            write!(f, " burst {}", TcSize(h.burst_bytes.into()))?;
        }
        if h.late_wakeups != 0 {
            write!(
                f,
                " late_wakeups {} late_max {}",
                h.late_wakeups,
                HumanTime(Number::new(h.late_max_ns, Unit::Nanos))
            )?;
        }
        for (index, b) in self.0.bands().iter().enumerate() {
            f.write_str("\n")?;
            band_text(f, first_band(h).saturating_add(index), b, h, "  band ")?;
        }
        Ok(())
    }
}

/// One band's three lines, the first starting with `lead` (`"  band "` in the qdisc's xstats,
/// with the band number; `"  "` in a class's, whose line already names the band).
fn band_text(
    f: &mut fmt::Formatter<'_>,
    index: usize,
    b: &XstatsBand,
    h: &XstatsHeader,
    lead: &str,
) -> fmt::Result {
    if lead == "  " {
        f.write_str(lead)?;
    } else {
        write!(f, "{lead}{index}: ")?;
    }
    write!(
        f,
        "enqueued {} packets {} bytes {} qlen {}p backlog {}",
        b.enqueued,
        b.packets,
        b.bytes,
        b.qlen,
        TcSize(b.backlog.into())
    )?;
    write!(
        f,
        "\n   drops limit {} non_ect {} config {} marks {} (",
        b.drops_limit, b.drops_nonect, b.drops_config, b.marks
    )?;
    let mut sep = "";
    for (cause, count) in MarkCause::ALL.iter().zip(b.marks_by_cause.iter()) {
        write!(f, "{sep}{} {count}", cause_name(*cause))?;
        sep = " ";
    }
    write!(
        f,
        ") ce_already {} nonect_passed {}",
        b.ce_already, b.nonect_passed
    )?;
    let time = |ns| HumanTime(Number::new(ns, Unit::Nanos));
    write!(
        f,
        "\n   sojourn max {} mean {} marking_state {} marking_count {}",
        time(b.sojourn_max_ns),
        time(sojourn_mean_ns(b)),
        on_off(b.marking_state != 0),
        b.marking_count
    )?;
    if b.first_above_time_ns != 0 {
        let rel = Number::relative(b.first_above_time_ns, h.now_ns);
        write!(f, " first_above_time {}", HumanTime(rel))?;
    }
    if b.marking_state != 0 {
        let rel = Number::relative(b.marking_next_ns, h.now_ns);
        write!(f, " marking_next {}", HumanTime(rel))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Options;
    use crate::uapi::{decode_xstats, encode_xstats, XSTATS_MAX_SIZE};
    use std::format;
    use std::string::{String, ToString};
    use std::vec::Vec;

    /// A JSON writer for tests, as small as tc's jsonw: commas, no spaces.
    #[derive(Default)]
    struct Json {
        out: String,
        need_comma: Vec<bool>,
    }

    impl Json {
        fn sep(&mut self, key: Option<&str>) {
            if let Some(first) = self.need_comma.last_mut() {
                if *first {
                    self.out.push(',');
                }
                *first = true;
            }
            if let Some(k) = key {
                self.out.push_str(&format!("\"{k}\":"));
            }
        }
    }

    impl JsonSink for Json {
        fn value(&mut self, key: Option<&str>, value: Value<'_>) {
            self.sep(key);
            let text = match value {
                Value::Number(n) => n.to_string(),
                Value::Text(s) => format!("\"{s}\""),
                Value::Bool(b) => b.to_string(),
                Value::Null => "null".to_string(),
            };
            self.out.push_str(&text);
        }
        fn begin_object(&mut self, key: Option<&str>) {
            self.sep(key);
            self.out.push('{');
            self.need_comma.push(false);
        }
        fn end_object(&mut self) {
            self.need_comma.pop();
            self.out.push('}');
        }
        fn begin_array(&mut self, key: &str) {
            self.sep(Some(key));
            self.out.push('[');
            self.need_comma.push(false);
        }
        fn end_array(&mut self) {
            self.need_comma.pop();
            self.out.push(']');
        }
    }

    fn config(text: &str) -> Config {
        Options::parse(text.split_whitespace())
            .unwrap()
            .applied(&Config::DEFAULT)
            .unwrap()
    }

    fn options(cfg: &Config) -> String {
        let mut j = Json::default();
        j.begin_object(None);
        options_json(cfg, &mut j);
        j.end_object();
        j.out
    }

    /// tc's conventions: one JSON type per field whatever the value.
    #[test]
    fn numbers_in_json_keep_their_type() {
        let t = |ns| Number::new(ns, Unit::Nanos).to_string();
        assert_eq!(t(200_000), "200");
        assert_eq!(t(85_500), "86", "whole microseconds, to the nearest");
        assert_eq!(t(85_499), "85");
        assert_eq!(t(1), "0");
        assert_eq!(t(4_294_967_295), "4294967");
        assert_eq!(t(u64::MAX), (u64::MAX / 1000 + 1).to_string());
        assert_eq!(t(0), "0");
        let rel = |at, now| Number::relative(at, now).to_string();
        assert_eq!(rel(1_000, 301_000), "-300");
        assert_eq!(rel(350_500, 300_000), "51");
        assert_eq!(rel(300_400, 300_000), "0");
        assert_eq!(rel(299_600, 300_000), "0", "no -0");
        assert_eq!(rel(5, 5), "0");
        let p = |ppm| Number::new(ppm, Unit::Ppm).to_string();
        assert_eq!(
            [p(100_000), p(125_000), p(1), p(1_000_000), p(0)],
            ["0.1", "0.125", "0.000001", "1.0", "0.0"]
        );
        let r = |bps| Number::new(bps, Unit::BitsPerSecond).to_string();
        assert_eq!(r(10_000_000_000), "1250000000", "bytes per second, as tc");
        assert_eq!(r(9_950_000_000), "1243750000");
        assert_eq!(r(8_001), "1000");
        assert_eq!(
            Number::new(u64::MAX, Unit::Bytes).to_string(),
            u64::MAX.to_string()
        );
        // Everything but a probability goes through integer writers.
        assert_eq!(
            Number::new(200_000, Unit::Nanos).json_integer(),
            Some((false, 200))
        );
        assert_eq!(Number::relative(0, 2_000).json_integer(), Some((true, 2)));
        assert_eq!(
            Number::new(85_500, Unit::Nanos).json_integer(),
            Some((false, 86))
        );
        assert_eq!(Number::new(7, Unit::Count).json_integer(), Some((false, 7)));
        assert_eq!(Number::new(100_000, Unit::Ppm).json_integer(), None);
        assert_eq!(Number::new(1_000_000, Unit::Ppm).json_integer(), None);
    }

    #[test]
    fn default_options_as_json() {
        let json = options(&Config::DEFAULT);
        assert_eq!(
            json,
            "{\"limit\":1000,\"limit_bytes\":0,\"bands\":1,\"mode\":\"ecnsharp\",\
             \"ins_target\":200,\"pst_target\":85,\"pst_interval\":200,\
             \"control_law\":\"inv_sqrt\",\"idle_reset\":true,\"k\":65,\"k_unit\":\"packets\",\
             \"tmin\":100,\"tmax\":400,\"pmax\":0.1,\"seed\":0,\"sched\":\"dwrr\",\"strict\":0,\
             \"quanta\":[1514],\"weights\":[1],\"classify\":\"priority\",\
             \"priomap\":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],\
             \"dscpmap\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,15,15,15,15,15,15,15,15,15,15,\
             15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,15,\
             15,15,15,15,15,15,15,15,15,15,15],\
             \"rate\":0,\"burst\":0,\"non_ect\":\"pass\",\"split_gso\":true}"
        );
    }

    #[test]
    fn changed_options_as_json() {
        let cfg = config(
            "bands 3 quanta 3000,1500,1500 mode ins+pst+red k 100kb pst_target 85.5us \
             control_law ns3 idle_reset off sched wfq weights 4,2,1 classify dscp \
             rate 9.95gbit burst 64kb pmax 12.5% non_ect drop tmin 1ns split_gso off",
        );
        let json = options(&cfg);
        for part in [
            "\"bands\":3,\"mode\":\"ins+pst+red\"",
            "\"pst_target\":86,",
            "\"control_law\":\"ns3\",\"idle_reset\":false,\"k\":102400,\"k_unit\":\"bytes\"",
            "\"tmin\":0,",
            "\"pmax\":0.125,",
            "\"sched\":\"wfq\",\"strict\":0,\"quanta\":[3000,1500,1500],\"weights\":[4,2,1]",
            "\"classify\":\"dscp\"",
            "\"rate\":1243750000,\"burst\":65536,\"non_ect\":\"drop\",\"split_gso\":false}",
        ] {
            assert!(json.contains(part), "{part} not in {json}");
        }
    }

    /// Every name the JSON shows is a word the grammar takes back, with the same meaning.
    #[test]
    fn names_are_the_grammar() {
        for law in [ControlLaw::InvSqrt, ControlLaw::Linear, ControlLaw::Ns3] {
            let o = Options::parse(["control_law", control_law_name(law)]).unwrap();
            assert_eq!(o.control_law, Some(law));
        }
        for unit in [QueueUnit::Packets, QueueUnit::Bytes] {
            let o = Options::parse(["k_unit", k_unit_name(unit)]).unwrap();
            assert_eq!(o.k_unit, Some(unit));
        }
        for kind in [SchedKind::Sp, SchedKind::Dwrr, SchedKind::Wfq] {
            let o = Options::parse(["sched", sched_name(kind)]).unwrap();
            assert_eq!(o.sched, Some(kind));
        }
        for mode in [ClassifyMode::Priority, ClassifyMode::Dscp] {
            let o = Options::parse(["classify", classify_name(mode)]).unwrap();
            assert_eq!(o.classify, Some(mode));
        }
        for policy in [NonEctPolicy::Pass, NonEctPolicy::Drop] {
            let o = Options::parse(["non_ect", non_ect_name(policy)]).unwrap();
            assert_eq!(o.non_ect, Some(policy));
        }
        // The mode comes from the canonical text, whatever the flags.
        for bits in 1..32u32 {
            let mut cfg = Config::DEFAULT;
            cfg.marking.modes = crate::config::Modes(bits);
            let json = options(&cfg);
            let start = json.find("\"mode\":\"").unwrap() + 8;
            let name = &json[start..start + json[start..].find('"').unwrap()];
            let o = Options::parse(["mode", name]).unwrap();
            assert_eq!(o.modes, Some(cfg.marking.modes), "{name}");
        }
    }

    #[test]
    fn word_after_keyword() {
        let find = |text: &str, key: &str| {
            let mut w = WordAfter::new(key);
            // Written in pieces, as a formatter does.
            for piece in text.split_inclusive(['e', ' ']) {
                w.write_str(piece).unwrap();
            }
            String::from(w.finish())
        };
        assert_eq!(find("limit 5 mode red sched sp", "mode"), "red");
        assert_eq!(find("mode ecnsharp", "mode"), "ecnsharp");
        assert_eq!(find("limit 5", "mode"), "");
        assert_eq!(find("mode", "mode"), "");
        assert_eq!(find("moder x mode y", "mode"), "y");
        let long = format!("mode {}", "x".repeat(WORD_MAX + 1));
        assert_eq!(find(&long, "mode"), "");
    }

    fn recorded() -> Xstats {
        let header = XstatsHeader {
            burst_bytes: 30_720,
            now_ns: 10_000_000,
            rate_bps: 10_000_000_000,
            throttled: 7,
            drops: 3,
            marks: 12,
            ..XstatsHeader::default()
        };
        let busy = XstatsBand {
            enqueued: 106,
            packets: 100,
            bytes: 149_900,
            qlen: 3,
            backlog: 4_542,
            drops_limit: 2,
            drops_nonect: 1,
            marks: 12,
            marks_by_cause: [10, 2, 0, 0, 0],
            ce_already: 4,
            nonect_passed: 5,
            sojourn_max_ns: 1_234_567,
            sojourn_sum_ns: 8_530_000,
            marking_state: 1,
            marking_count: 4,
            first_above_time_ns: 9_700_000,
            marking_next_ns: 10_050_500,
            drops_config: 0,
        };
        let idle = XstatsBand::default();
        let mut buf = [0u8; XSTATS_MAX_SIZE];
        let n = encode_xstats(&header, &[busy, idle], &mut buf).unwrap();
        decode_xstats(&buf[..n]).unwrap()
    }

    #[test]
    fn xstats_as_text() {
        let text = XstatsText(&recorded()).to_string();
        let want = "  marks 12 throttled 7 burst 30Kb\n\
            \x20 band 0: enqueued 106 packets 100 bytes 149900 qlen 3p backlog 4542b\n\
            \x20  drops limit 2 non_ect 1 config 0 marks 12 (ins 10 pst 2 red 0 deq 0 prob 0) \
            ce_already 4 nonect_passed 5\n\
            \x20  sojourn max 1.2ms mean 85.3us marking_state on marking_count 4 \
            first_above_time -300us marking_next 50.5us\n\
            \x20 band 1: enqueued 0 packets 0 bytes 0 qlen 0p backlog 0b\n\
            \x20  drops limit 0 non_ect 0 config 0 marks 0 (ins 0 pst 0 red 0 deq 0 prob 0) \
            ce_already 0 nonect_passed 0\n\
            \x20  sojourn max 0ns mean 0ns marking_state off marking_count 0";
        assert_eq!(text, want);
        // Without a shaper, no bucket.
        let mut x = recorded();
        x.header.rate_bps = 0;
        assert!(XstatsText(&x)
            .to_string()
            .starts_with("  marks 12 throttled 7\n"));
    }

    #[test]
    fn xstats_as_json() {
        let mut j = Json::default();
        j.begin_object(None);
        xstats_json(&recorded(), &mut j);
        j.end_object();
        let band0 = "{\"band\":0,\"enqueued\":106,\"packets\":100,\"bytes\":149900,\"qlen\":3,\
            \"backlog\":4542,\"drops_limit\":2,\"drops_nonect\":1,\"drops_config\":0,\"marks\":12,\
            \"marks_by_cause\":{\"ins\":10,\"pst\":2,\"red\":0,\"deq\":0,\"prob\":0},\
            \"ce_already\":4,\"nonect_passed\":5,\"sojourn_max\":1235,\"sojourn_mean\":85,\
            \"marking_state\":true,\"marking_count\":4,\"first_above_time\":-300,\
            \"marking_next\":51}";
        let band1_tail = "\"marking_state\":false,\"marking_count\":0,\
            \"first_above_time\":null,\"marking_next\":null}";
        let head = "{\"marks\":12,\"throttled\":7,\"shaper_burst\":30720,\"late_wakeups\":0,\"late_max\":0,\"now\":10000,\"bands\":[";
        assert!(j.out.starts_with(head), "{}", j.out);
        assert!(j.out.contains(band0), "{}", j.out);
        assert!(j.out.ends_with(&format!("{band1_tail}]}}")), "{}", j.out);
        assert_eq!(j.out.matches("\"band\":").count(), 2);
    }

    /// A class's record is one `band` object, so that none of its counters shares a key with
    /// tc's own in the class's "stats" object.
    #[test]
    fn class_xstats_as_json() {
        let x = recorded();
        let header = XstatsHeader {
            kind: XSTATS_KIND_CLASS,
            first_band: 1,
            ..x.header
        };
        let mut buf = [0u8; XSTATS_MAX_SIZE];
        let n = encode_xstats(&header, &x.bands()[..1], &mut buf).unwrap();
        let mut j = Json::default();
        j.begin_object(None);
        j.value(Some("packets"), Value::Bool(false));
        xstats_json(&decode_xstats(&buf[..n]).unwrap(), &mut j);
        j.end_object();
        let head = "{\"packets\":false,\"band\":{\"band\":1,\"enqueued\":106,\"packets\":100,";
        assert!(j.out.starts_with(head), "{}", j.out);
        assert!(j.out.ends_with("\"marking_next\":51}}"), "{}", j.out);
        assert_eq!(j.out.matches("\"packets\":").count(), 2);
    }

    #[test]
    fn human_units() {
        // tc's sprint_size: exact unless within 16 bytes of a whole Kb or 1 KiB of a whole Mb.
        let s = |b| TcSize(b).to_string();
        assert_eq!(
            [
                s(0),
                s(1023),
                s(1024),
                s(1039),
                s(1040),
                s(1008),
                s(1536),
                s(3028),
                s(30_720),
                s(3 << 20),
                s((3 << 20) + 1023),
                s((3 << 20) + 1024),
                s((1000 << 20) + 2048),
                s(u64::MAX)
            ],
            [
                "0b",
                "1023b",
                "1Kb",
                "1Kb",
                "1040b",
                "1008b",
                "1536b",
                "3028b",
                "30Kb",
                "3Mb",
                "3Mb",
                "3073Kb",
                "1.024e+06Kb",
                "1.75922e+13Mb"
            ]
        );
        // Past six digits, C's %g: six significant digits, half to even, an exponent.
        let g = |kib: u64| TcSize(kib << 10).to_string();
        assert_eq!(g(999_999), "999999Kb");
        assert_eq!(g(1_000_000), "1e+06Kb");
        assert_eq!(g(4_194_303), "4.1943e+06Kb");
        assert_eq!(g(1_234_565), "1.23456e+06Kb");
        assert_eq!(g(1_234_575), "1.23458e+06Kb");
        assert_eq!(g(9_999_995), "1e+07Kb");
        let t = |ns| HumanTime(Number::new(ns, Unit::Nanos)).to_string();
        assert_eq!(
            [
                t(0),
                t(999),
                t(1_000),
                t(42_345),
                t(1_500_000),
                t(2_000_000_000)
            ],
            ["0ns", "999ns", "1us", "42.3us", "1.5ms", "2s"]
        );
        assert_eq!(
            HumanTime(Number::relative(0, 300_000)).to_string(),
            "-300us"
        );
    }
}
