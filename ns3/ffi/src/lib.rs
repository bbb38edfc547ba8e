// SPDX-License-Identifier: GPL-2.0-only
//! `libecnsharp_ns3.a`: the ecnsharp core's engine behind a small C ABI, for the ns-3 queue disc
//! `ns3::EcnSharpQueueDisc` (`ns3/model/`).
//!
//! The disc does what the kernel glue (`kmod/module/ecnsharp.rs`) does: it owns the packets (one
//! FIFO per band), reads their facts and carries out the engine's verdicts. This crate only
//! converts between C types and the core's; every decision is the core's, from the same source
//! the kernel module compiles. The engine lives in memory the caller provides
//! ([`ecnsharp_engine_size`], [`ecnsharp_engine_align`]); nothing here allocates, and no entry
//! point can panic (the staticlib is built with `-C panic=abort` besides).
//!
//! The C declarations are in `ns3/ffi/ecnsharp_ns3.h`; a test checks them against this file.

#![deny(missing_docs)]

pub mod text;

use core::ffi::{c_char, CStr};
use core::fmt::{self, Write};
use core::mem::{align_of, size_of};
use core::ptr;
use core::slice;

use ecnsharp::band::{Band, MAX_BANDS};
use ecnsharp::config::Config;
use ecnsharp::ecn::{CauseSet, Ecn, MarkCause};
use ecnsharp::engine::{DequeueVerdict, DropReason, Engine, EnqueueVerdict, PacketInfo};
use ecnsharp::options::{ConfigText, Options};

/// `-EINVAL`, what the kernel answers a bad option with.
pub const ECNSHARP_EINVAL: i32 = -22;

/// Enqueue verdicts.
pub const ECNSHARP_QUEUE: i32 = 0;
/// Dropped at enqueue: a limit.
pub const ECNSHARP_DROP_LIMIT: i32 = 1;
/// Dropped by the non-ECT policy (at enqueue or dequeue).
pub const ECNSHARP_DROP_NONECT: i32 = 2;
/// Dequeue verdict: send the packet.
pub const ECNSHARP_SEND: i32 = 0;

/// Qdisc-wide counters, as the kernel's xstats carry them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnSharpStats {
    /// Packets that arrived.
    pub enqueued: u64,
    /// Packets sent.
    pub packets: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// Packets queued now.
    pub qlen: u64,
    /// Bytes queued now.
    pub backlog: u64,
    /// Arrivals dropped by the packet or byte limit.
    pub drops_limit: u64,
    /// Packets dropped by the non-ECT policy.
    pub drops_nonect: u64,
    /// Packets we marked CE.
    pub marks: u64,
    /// Marks by cause: instantaneous, persistent, queue at enqueue, queue at dequeue, probabilistic.
    pub marks_by_cause: [u64; 5],
    /// Packets that arrived already CE.
    pub ce_already: u64,
    /// Non-ECT packets a rule fired on, passed unmarked.
    pub nonect_passed: u64,
    /// Dequeues the shaper held back.
    pub throttles: u64,
}

/// Bytes the caller provides for one engine.
#[no_mangle]
pub extern "C" fn ecnsharp_engine_size() -> usize {
    size_of::<Engine>()
}

/// Alignment the caller's engine memory needs.
#[no_mangle]
pub extern "C" fn ecnsharp_engine_align() -> usize {
    align_of::<Engine>()
}

/// A `fmt::Write` into a C buffer that always stays NUL-terminated and truncates silently.
struct CBuf<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> CBuf<'a> {
    /// # Safety
    /// `buf` is null or valid for writes of `cap` bytes.
    unsafe fn new(buf: *mut c_char, cap: usize) -> Option<CBuf<'a>> {
        if buf.is_null() || cap == 0 {
            return None;
        }
        // SAFETY: the caller promises `cap` writable bytes at `buf`.
        let buf = unsafe { slice::from_raw_parts_mut(buf.cast::<u8>(), cap) };
        buf[0] = 0;
        Some(CBuf { buf, len: 0 })
    }
}

impl Write for CBuf<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.len().saturating_sub(self.len + 1);
        let n = s.len().min(room);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        self.buf[self.len] = 0;
        Ok(())
    }
}

/// Writes `args` into the C buffer `buf` of `cap` bytes, if there is one.
///
/// # Safety
/// `buf` is null or valid for writes of `cap` bytes.
unsafe fn report(buf: *mut c_char, cap: usize, args: fmt::Arguments<'_>) {
    // SAFETY: forwarded from the caller.
    if let Some(mut out) = unsafe { CBuf::new(buf, cap) } {
        let _ = out.write_fmt(args);
    }
}

/// The configuration that tc-style `words` make of the defaults, validated: the same grammar,
/// defaults and checks as `tc qdisc add ... ecnsharp WORDS` and the kernel's `init`.
fn parse_config<'a>(words: impl Iterator<Item = &'a str>) -> Result<Config, ParseFailure<'a>> {
    let opts = Options::parse(words).map_err(ParseFailure::Syntax)?;
    opts.applied(&Config::DEFAULT)
        .map_err(ParseFailure::Invalid)
}

/// Why a configuration was refused.
enum ParseFailure<'a> {
    Syntax(ecnsharp::options::ParseError<'a>),
    Invalid(ecnsharp::config::ConfigError),
}

impl fmt::Display for ParseFailure<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseFailure::Syntax(e) => write!(f, "{e}"),
            ParseFailure::Invalid(e) => write!(f, "{e}"),
        }
    }
}

/// Configures the engine at `engine` from tc-style option words (`"pst_target", "85us", ...`)
/// over the kernel's defaults: 0, or -EINVAL with the reason (naming the option) in `err`.
/// `random_seed` seeds probabilistic marking when the `seed` option is 0, `mtu` floors the
/// shaper's default burst, as `get_random_u32()` and `psched_mtu()` do in the kernel.
///
/// On error the memory at `engine` is left as it was.
///
/// # Safety
/// `engine` is valid for writes of [`ecnsharp_engine_size`] bytes aligned to
/// [`ecnsharp_engine_align`] (an engine there, if any, is overwritten without being read);
/// `words` holds `nwords` NUL-terminated strings; `err` is null or holds `errlen` bytes.
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_init(
    engine: *mut u8,
    nwords: usize,
    words: *const *const c_char,
    random_seed: u32,
    mtu: u32,
    err: *mut c_char,
    errlen: usize,
) -> i32 {
    let words: &[*const c_char] = if nwords == 0 || words.is_null() {
        &[]
    } else {
        // SAFETY: the caller promises `nwords` pointers at `words`.
        unsafe { slice::from_raw_parts(words, nwords) }
    };
    let mut bad_utf8 = false;
    let iter = words.iter().map_while(|w| {
        // SAFETY: each pointer is a NUL-terminated string, as the caller promises.
        let s = unsafe { CStr::from_ptr(*w) }.to_str();
        bad_utf8 |= s.is_err();
        s.ok()
    });
    let parsed = parse_config(iter);
    if bad_utf8 {
        // SAFETY: `err` holds `errlen` bytes or is null.
        unsafe {
            report(
                err,
                errlen,
                format_args!("ecnsharp: option words must be UTF-8"),
            )
        };
        return ECNSHARP_EINVAL;
    }
    match parsed {
        Ok(cfg) => {
            let new = Engine::new_seeded(&cfg, random_seed, mtu);
            // SAFETY: `engine` is valid and aligned for an `Engine` (caller's promise); `write`
            // does not read or drop what was there.
            unsafe { ptr::write(engine.cast::<Engine>(), new) };
            0
        }
        Err(e) => {
            // SAFETY: as above.
            unsafe { report(err, errlen, format_args!("{e}")) };
            ECNSHARP_EINVAL
        }
    }
}

/// The default of option `keyword` as tc text (`"200us"`, `"ecnsharp"`, ...): 0, or -EINVAL if
/// the keyword is unknown.
///
/// # Safety
/// `keyword` is a NUL-terminated string; `out` is null or holds `outlen` bytes.
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_option_default(
    keyword: *const c_char,
    out: *mut c_char,
    outlen: usize,
) -> i32 {
    // SAFETY: the caller promises a NUL-terminated string.
    let Ok(keyword) = unsafe { CStr::from_ptr(keyword) }.to_str() else {
        return ECNSHARP_EINVAL;
    };
    let mut value = Fixed::<128>::new();
    match text::write_value(&mut value, &Config::DEFAULT, keyword) {
        Ok(true) => {
            // SAFETY: `out` holds `outlen` bytes or is null.
            unsafe { report(out, outlen, format_args!("{}", value.as_str())) };
            0
        }
        _ => ECNSHARP_EINVAL,
    }
}

/// The engine's configuration as canonical tc text (what `tc qdisc show` prints).
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`]; `out` is null or holds `outlen` bytes.
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_config_text(
    engine: *const u8,
    out: *mut c_char,
    outlen: usize,
) {
    // SAFETY: an initialised engine, as the caller promises.
    let engine = unsafe { &*engine.cast::<Engine>() };
    // SAFETY: `out` holds `outlen` bytes or is null.
    unsafe { report(out, outlen, format_args!("{}", ConfigText(engine.config()))) };
}

/// The number of bands in use.
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`].
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_bands(engine: *const u8) -> u32 {
    // SAFETY: an initialised engine, as the caller promises.
    let engine = unsafe { &*engine.cast::<Engine>() };
    u32::from(engine.config().bands)
}

/// Bit `i` set for each [`MarkCause`] in `set`, in [`MarkCause::ALL`] order.
fn cause_bits(set: CauseSet) -> u8 {
    MarkCause::ALL
        .iter()
        .enumerate()
        .filter(|(_, c)| set.contains(**c))
        .fold(0, |bits, (i, _)| bits | (1 << i))
}

/// `dsfield` as the core takes it: negative for a packet that is not IP.
fn dsfield_of(dsfield: i32) -> Option<u8> {
    u8::try_from(dsfield).ok()
}

/// A packet of `len` bytes with `priority` and DS field `dsfield` (negative: not IP) arrives.
/// Returns [`ECNSHARP_QUEUE`] with the band in `*band` and the mark causes in `*mark` (set CE
/// now if not 0), or a drop verdict (the engine counted it).
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`]; `band` and `mark` are valid for writes.
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_enqueue(
    engine: *mut u8,
    len: u32,
    priority: u32,
    dsfield: i32,
    band: *mut u8,
    mark: *mut u8,
) -> i32 {
    // SAFETY: an initialised engine, exclusively ours for the call (caller's promise).
    let engine = unsafe { &mut *engine.cast::<Engine>() };
    let info = PacketInfo {
        len,
        priority,
        dsfield: dsfield_of(dsfield),
    };
    let (b, m, verdict) = match engine.enqueue(&info) {
        // The packet note (a non-ECT packet already counted as passed at enqueue) is not carried
        // through this ABI yet: only `nonect_passed` can differ from the kernel, when DCTCP-RED
        // and a dequeue rule both fire on one non-ECT packet; marks and drops do not.
        EnqueueVerdict::Queue { band, mark, .. } => (band, cause_bits(mark), ECNSHARP_QUEUE),
        EnqueueVerdict::Drop { band, reason } => (band, 0, drop_code(reason)),
    };
    // SAFETY: valid for writes, as the caller promises.
    unsafe {
        *band = b.index() as u8;
        *mark = m;
    }
    verdict
}

fn drop_code(reason: DropReason) -> i32 {
    match reason {
        DropReason::NonEct => ECNSHARP_DROP_NONECT,
        _ => ECNSHARP_DROP_LIMIT,
    }
}

/// The band to serve next, or -1 if nothing is queued.
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`].
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_select(engine: *mut u8) -> i32 {
    // SAFETY: an initialised engine, exclusively ours for the call.
    let engine = unsafe { &mut *engine.cast::<Engine>() };
    engine.select().map_or(-1, |b| b.index() as i32)
}

/// Whether the shaper holds back the selected band's head of `head_len` bytes at `now` (ns):
/// 1 with the time it may go in `*at`, or 0 if it may go now.
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`]; `at` is valid for writes.
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_shaper_delay(
    engine: *mut u8,
    now: u64,
    head_len: u32,
    at: *mut u64,
) -> i32 {
    // SAFETY: an initialised engine, exclusively ours for the call.
    let engine = unsafe { &mut *engine.cast::<Engine>() };
    match engine.shaper_delay(now, head_len) {
        Some(t) => {
            // SAFETY: valid for writes, as the caller promises.
            unsafe { *at = t };
            1
        }
        None => 0,
    }
}

/// The caller took the head packet (`len` bytes, enqueued at `enqueued_at` ns, DS field
/// `dsfield` as it is now, negative if not IP) out of `band`, the band
/// [`ecnsharp_engine_select`] named; `next_head_len` is the band's new head length, negative if
/// the band is now empty. Returns [`ECNSHARP_SEND`] with the mark causes in `*mark` (set CE
/// first if not 0), or [`ECNSHARP_DROP_NONECT`] (drop it and dequeue again).
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`]; `mark` is valid for writes.
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_dequeue(
    engine: *mut u8,
    now: u64,
    band: u32,
    len: u32,
    enqueued_at: u64,
    dsfield: i32,
    next_head_len: i64,
    mark: *mut u8,
) -> i32 {
    // SAFETY: an initialised engine, exclusively ours for the call.
    let engine = unsafe { &mut *engine.cast::<Engine>() };
    let band = Band::clamped(band as usize, MAX_BANDS);
    let ecn = dsfield_of(dsfield).map_or(Ecn::NotEct, Ecn::from_dsfield);
    let next = u32::try_from(next_head_len).ok();
    let (m, verdict) = match engine.dequeue(now, band, len, enqueued_at, ecn, next) {
        DequeueVerdict::Send { mark } => (cause_bits(mark), ECNSHARP_SEND),
        DequeueVerdict::Drop { reason } => (0, drop_code(reason)),
    };
    // SAFETY: valid for writes, as the caller promises.
    unsafe { *mark = m };
    verdict
}

/// The caller emptied `band`'s FIFO (reset or resynchronisation); the engine forgets its packets.
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`].
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_flush_band(engine: *mut u8, band: u32) {
    // SAFETY: an initialised engine, exclusively ours for the call.
    let engine = unsafe { &mut *engine.cast::<Engine>() };
    engine.flush_band(Band::clamped(band as usize, MAX_BANDS));
}

/// The qdisc-wide counters.
///
/// # Safety
/// `engine` was set up by [`ecnsharp_engine_init`]; `out` is valid for writes.
#[no_mangle]
pub unsafe extern "C" fn ecnsharp_engine_stats(engine: *const u8, out: *mut EcnSharpStats) {
    // SAFETY: an initialised engine, as the caller promises.
    let engine = unsafe { &*engine.cast::<Engine>() };
    let s = engine.stats();
    let mut by_cause = [0u64; 5];
    for band in (0..MAX_BANDS).filter_map(Band::new) {
        let b = engine.band_stats(band);
        for (sum, cause) in by_cause.iter_mut().zip(MarkCause::ALL) {
            *sum = sum.wrapping_add(b.marks_for(cause));
        }
    }
    let stats = EcnSharpStats {
        enqueued: s.enqueued,
        packets: s.packets,
        bytes: s.bytes,
        qlen: u64::from(s.qlen),
        backlog: s.backlog,
        drops_limit: s.drops_limit,
        drops_nonect: s.drops_nonect,
        marks: s.marks,
        marks_by_cause: by_cause,
        ce_already: s.ce_already,
        nonect_passed: s.nonect_passed,
        throttles: s.throttles,
    };
    // SAFETY: valid for writes, as the caller promises.
    unsafe { ptr::write(out, stats) };
}

/// A small stack string for one option value.
struct Fixed<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Fixed<N> {
    fn new() -> Self {
        Fixed {
            buf: [0; N],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl<const N: usize> Write for Fixed<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self
            .len
            .checked_add(s.len())
            .filter(|e| *e <= N)
            .ok_or(fmt::Error)?;
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
