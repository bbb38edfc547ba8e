// SPDX-License-Identifier: GPL-2.0-only
//! `q_ecnsharp.so`: the ecnsharp qdisc for iproute2's own `tc`, 6.1 (Debian 12) to 7.1: the
//! `struct qdisc_util` layout and every tc function used here are the same in all of them, and
//! `tests/tc-versions/check.sh` runs the plugin through a tc built from another release. The
//! library is linked with immediate binding (`-z now`, Rust's default), so a tc that lacks one of
//! those functions cannot load it at all (the dynamic linker checks at `dlopen`; tc then says
//! `Unknown qdisc "ecnsharp"`): the plugin never stops half-way through a command.
//!
//! A thin adapter, as `q_fq_codel.c` is over its uapi header: the grammar, the netlink encoding
//! and what is shown all come from the core crate (`options`, `uapi`, `report`). tc finds this
//! library as `$TC_LIB_DIR/q_ecnsharp.so`, looks up the data symbol `ecnsharp_qdisc_util` and
//! writes its `next` field, so the symbol is a writable `static mut`. tc is linked with
//! `-export-dynamic`: the functions declared in [`tc`] are tc's own, resolved when it loads us.
//!
//! Parts, in q_fq_codel.c's order: parse, print and print_xstats over the [`Tc`] trait (so that
//! host tests drive them with a fake), then the C entry points and the exported table.

use std::fmt::Write as _;

use ecnsharp::options::{ConfigText, Options, USAGE};
use ecnsharp::report::{options_json, xstats_json, JsonSink, Value, XstatsText};
use ecnsharp::uapi::{decode_options_shown, decode_xstats, OPTIONS_MAX_SIZE};

/// What the adapter needs from tc: its JSON-aware printing, `addattr_l`, stderr.
pub trait Tc {
    /// Whether `-j` is in force.
    fn is_json(&mut self) -> bool;
    /// Text for the plain output (`print_color_string(PRINT_FP, ...)`).
    fn text(&mut self, s: &str);
    /// tc's `print_nl`: a line break in plain output (`\` with `-oneline`).
    fn newline(&mut self);
    /// One JSON value (`print_color_*(PRINT_JSON, ...)`).
    fn json_value(&mut self, key: Option<&str>, value: Value<'_>);
    /// `open_json_object`.
    fn json_begin_object(&mut self, key: Option<&str>);
    /// `close_json_object`.
    fn json_end_object(&mut self);
    /// `open_json_array(PRINT_JSON, key)`.
    fn json_begin_array(&mut self, key: &str);
    /// `close_json_array(PRINT_JSON, NULL)`.
    fn json_end_array(&mut self);
    /// Appends `TCA_OPTIONS | NLA_F_NESTED` with `payload` to the request (`addattr_l`);
    /// false if it does not fit.
    fn add_options(&mut self, payload: &[u8]) -> bool;
    /// A line on stderr.
    fn error(&mut self, s: &str);
}

/// The report's JSON, through tc's writer.
struct TcJson<'a, T: Tc>(&'a mut T);

impl<T: Tc> JsonSink for TcJson<'_, T> {
    fn value(&mut self, key: Option<&str>, value: Value<'_>) {
        self.0.json_value(key, value);
    }
    fn begin_object(&mut self, key: Option<&str>) {
        self.0.json_begin_object(key);
    }
    fn end_object(&mut self) {
        self.0.json_end_object();
    }
    fn begin_array(&mut self, key: &str) {
        self.0.json_begin_array(key);
    }
    fn end_array(&mut self) {
        self.0.json_end_array();
    }
}

/// `parse_qopt`: the words after `ecnsharp`, sent as one nest holding only the options given
/// (the kernel's defaults or running values stay the single source of truth). 0 or -1.
pub fn parse(words: &[&str], tc: &mut impl Tc) -> i32 {
    if words.first() == Some(&"help") {
        tc.error(USAGE.trim_end());
        return -1;
    }
    let options = match Options::parse(words.iter().copied()) {
        Ok(o) => o,
        Err(e) => {
            tc.error(&e.to_string());
            tc.error(USAGE.trim_end());
            return -1;
        }
    };
    let mut payload = [0u8; OPTIONS_MAX_SIZE];
    let Ok(n) = options.encode(&mut payload) else {
        tc.error("ecnsharp: the options do not fit the request");
        return -1;
    };
    if !tc.add_options(payload.get(..n).unwrap_or(&[])) {
        tc.error("ecnsharp: the options do not fit the request");
        return -1;
    }
    0
}

/// `print_qopt`: the dumped options (the `TCA_OPTIONS` payload) as tc text or JSON. What this
/// plugin cannot read (a newer module's option or value) is left out, with a warning on stderr
/// naming the options shown at their defaults; the rest is shown, as tc shows other qdiscs'.
pub fn print_options(payload: &[u8], tc: &mut impl Tc) -> i32 {
    let (cfg, unshown) = decode_options_shown(payload);
    if unshown.count != 0 {
        tc.error(&format!("ecnsharp: {unshown}"));
    }
    if tc.is_json() {
        options_json(&cfg, &mut TcJson(tc));
    } else {
        tc.text(&ConfigText(&cfg).to_string());
    }
    0
}

/// `print_xstats`: the ecnsharp xstats as tc text lines or JSON (a `bands` array; a class's
/// record as a `band` object).
pub fn print_xstats(payload: &[u8], tc: &mut impl Tc) -> i32 {
    let x = match decode_xstats(payload) {
        Ok(x) => x,
        Err(e) => {
            tc.error(&format!("ecnsharp: cannot read the xstats: {e}"));
            return -1;
        }
    };
    if tc.is_json() {
        xstats_json(&x, &mut TcJson(tc));
        return 0;
    }
    let mut text = String::new();
    let _ = write!(text, "{}", XstatsText(&x));
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            tc.newline();
        }
        tc.text(line);
    }
    0
}

#[cfg(not(test))]
pub mod tc {
    //! tc's side of the ABI: `struct qdisc_util`, the functions it exports, and the entry
    //! points it calls. This module holds every `unsafe` of the plugin.

    use std::ffi::{c_char, c_int, c_void, CStr, CString};

    use ecnsharp::report::Value;
    use ecnsharp::uapi::NLA_F_NESTED;

    /// `enum output_type` of json_print.h.
    const PRINT_FP: c_int = 1;
    /// JSON only.
    const PRINT_JSON: c_int = 2;
    /// `COLOR_NONE` of color.h.
    const COLOR_NONE: c_int = 6;
    /// `TCA_OPTIONS` of linux/rtnetlink.h.
    const TCA_OPTIONS: c_int = 2;
    /// The `maxlen` given to `addattr_l`: tc's request buffer is far larger (64 KiB), and a
    /// full ecnsharp request (headers, kind, 396 bytes of options) needs under 500 bytes.
    const ADDATTR_MAXLEN: c_int = 1024;

    /// `struct qdisc_util` of iproute2's tc_util.h, 6.1 to 7.1 alike: 8 pointer-sized fields.
    #[repr(C)]
    pub struct QdiscUtil {
        next: *mut QdiscUtil,
        id: *const c_char,
        parse_qopt: Option<ParseQopt>,
        print_qopt: Option<PrintAttr>,
        print_xstats: Option<PrintAttr>,
        parse_copt: Option<ParseQopt>,
        print_copt: Option<PrintAttr>,
        has_block: Option<HasBlock>,
    }

    type ParseQopt = unsafe extern "C" fn(
        *mut QdiscUtil,
        c_int,
        *mut *mut c_char,
        *mut c_void,
        *const c_char,
    ) -> c_int;
    type PrintAttr = unsafe extern "C" fn(*mut QdiscUtil, *mut c_void, *mut RtAttr) -> c_int;
    type HasBlock = unsafe extern "C" fn(*mut QdiscUtil, *mut RtAttr, u32, *mut bool) -> c_int;

    /// `struct rtattr`: the header of an attribute, its payload follows.
    #[repr(C)]
    pub struct RtAttr {
        rta_len: u16,
        rta_type: u16,
    }

    extern "C" {
        fn addattr_l(
            n: *mut c_void,
            maxlen: c_int,
            kind: c_int,
            data: *const c_void,
            alen: c_int,
        ) -> c_int;
        fn is_json_context() -> bool;
        fn print_nl();
        fn open_json_object(key: *const c_char);
        fn close_json_object();
        fn open_json_array(t: c_int, key: *const c_char);
        fn close_json_array(t: c_int, delim: *const c_char);
        fn print_color_string(
            t: c_int,
            color: c_int,
            key: *const c_char,
            fmt: *const c_char,
            v: *const c_char,
        ) -> c_int;
        fn print_color_u64(
            t: c_int,
            color: c_int,
            key: *const c_char,
            fmt: *const c_char,
            v: u64,
        ) -> c_int;
        fn print_color_s64(
            t: c_int,
            color: c_int,
            key: *const c_char,
            fmt: *const c_char,
            v: i64,
        ) -> c_int;
        fn print_color_bool(
            t: c_int,
            color: c_int,
            key: *const c_char,
            fmt: *const c_char,
            v: bool,
        ) -> c_int;
        fn print_color_null(
            t: c_int,
            color: c_int,
            key: *const c_char,
            fmt: *const c_char,
            v: *const c_char,
        ) -> c_int;
        fn get_json_writer() -> *mut c_void;
        fn jsonw_name(w: *mut c_void, name: *const c_char);
        fn jsonw_printf(w: *mut c_void, fmt: *const c_char, ...);
    }

    /// The writable table tc looks up and links into its list.
    #[no_mangle]
    pub static mut ecnsharp_qdisc_util: QdiscUtil = QdiscUtil {
        next: std::ptr::null_mut(),
        id: c"ecnsharp".as_ptr(),
        parse_qopt: Some(parse_qopt),
        print_qopt: Some(print_qopt),
        print_xstats: Some(print_xstats),
        parse_copt: None,
        print_copt: None,
        has_block: None,
    };

    /// A key for tc (keys are ASCII literals of the report, never with NUL).
    fn key(k: Option<&str>) -> Option<CString> {
        k.and_then(|k| CString::new(k).ok())
    }

    fn ptr(c: &Option<CString>) -> *const c_char {
        c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
    }

    /// tc, during one callback; `n` is the request being built (parse only).
    struct Real {
        n: *mut c_void,
    }

    impl super::Tc for Real {
        fn is_json(&mut self) -> bool {
            // SAFETY: tc's own function, no arguments.
            unsafe { is_json_context() }
        }

        fn text(&mut self, s: &str) {
            let Ok(s) = CString::new(s) else { return };
            // SAFETY: valid C strings; "%s" consumes the one string argument.
            unsafe {
                print_color_string(
                    PRINT_FP,
                    COLOR_NONE,
                    std::ptr::null(),
                    c"%s".as_ptr(),
                    s.as_ptr(),
                )
            };
        }

        fn newline(&mut self) {
            // SAFETY: tc's own function, no arguments.
            unsafe { print_nl() };
        }

        fn json_value(&mut self, k: Option<&str>, value: Value<'_>) {
            let k = key(k);
            let kp = ptr(&k);
            let null = std::ptr::null();
            // SAFETY (all arms): `kp` is NULL or a valid C string; the format is unused in
            // PRINT_JSON; `jsonw_*` are only reached in JSON context, where the writer exists.
            match value {
                Value::Number(n) => match n.json_integer() {
                    Some((false, m)) => unsafe {
                        print_color_u64(PRINT_JSON, COLOR_NONE, kp, null, m);
                    },
                    Some((true, m)) => unsafe {
                        let v = i64::try_from(m).map_or(i64::MIN, |v| -v);
                        print_color_s64(PRINT_JSON, COLOR_NONE, kp, null, v);
                    },
                    None => {
                        // A probability (0.1, 1.0): always with a decimal point, so its JSON type
                        // never depends on its value; tc's %g would print 1.0 as 1.
                        let Ok(text) = CString::new(n.to_string()) else {
                            return;
                        };
                        unsafe {
                            if !is_json_context() {
                                return;
                            }
                            let w = get_json_writer();
                            if !kp.is_null() {
                                jsonw_name(w, kp);
                            }
                            jsonw_printf(w, c"%s".as_ptr(), text.as_ptr());
                        }
                    }
                },
                Value::Text(s) => {
                    let Ok(s) = CString::new(s) else { return };
                    unsafe { print_color_string(PRINT_JSON, COLOR_NONE, kp, null, s.as_ptr()) };
                }
                Value::Bool(b) => unsafe {
                    print_color_bool(PRINT_JSON, COLOR_NONE, kp, null, b);
                },
                Value::Null => unsafe {
                    print_color_null(PRINT_JSON, COLOR_NONE, kp, null, null);
                },
            }
        }

        fn json_begin_object(&mut self, k: Option<&str>) {
            let k = key(k);
            // SAFETY: NULL or a valid C string.
            unsafe { open_json_object(ptr(&k)) };
        }

        fn json_end_object(&mut self) {
            // SAFETY: closes what json_begin_object opened.
            unsafe { close_json_object() };
        }

        fn json_begin_array(&mut self, k: &str) {
            let k = key(Some(k));
            // SAFETY: a valid C string; PRINT_JSON prints nothing in plain mode.
            unsafe { open_json_array(PRINT_JSON, ptr(&k)) };
        }

        fn json_end_array(&mut self) {
            // SAFETY: PRINT_JSON never reads the delimiter.
            unsafe { close_json_array(PRINT_JSON, std::ptr::null()) };
        }

        fn add_options(&mut self, payload: &[u8]) -> bool {
            let Ok(len) = c_int::try_from(payload.len()) else {
                return false;
            };
            let kind = TCA_OPTIONS | c_int::from(NLA_F_NESTED);
            // SAFETY: `n` is tc's request (checked non-NULL by parse_qopt); addattr_l copies
            // `len` bytes from `payload` and checks `maxlen` itself.
            unsafe { addattr_l(self.n, ADDATTR_MAXLEN, kind, payload.as_ptr().cast(), len) == 0 }
        }

        fn error(&mut self, s: &str) {
            eprintln!("{s}");
        }
    }

    /// The payload of `rta`, checking its length.
    ///
    /// # Safety
    /// `rta` is NULL or points at an attribute of at least `rta_len` readable bytes, as tc's
    /// parsed attribute tables do.
    unsafe fn payload<'a>(rta: *const RtAttr) -> Option<&'a [u8]> {
        if rta.is_null() {
            return None;
        }
        // SAFETY: non-NULL and readable per the contract.
        let len = usize::from(unsafe { (*rta).rta_len });
        let payload_len = len.checked_sub(std::mem::size_of::<RtAttr>())?;
        // SAFETY: the payload follows the 4-byte header, `payload_len` bytes of it.
        Some(unsafe { std::slice::from_raw_parts(rta.cast::<u8>().add(4), payload_len) })
    }

    /// tc's `parse_qopt(qu, argc, argv, n, dev)`.
    unsafe extern "C" fn parse_qopt(
        _qu: *mut QdiscUtil,
        argc: c_int,
        argv: *mut *mut c_char,
        n: *mut c_void,
        _dev: *const c_char,
    ) -> c_int {
        let count = usize::try_from(argc).unwrap_or(0);
        if n.is_null() || (count > 0 && argv.is_null()) {
            return -1;
        }
        let mut words = Vec::with_capacity(count);
        for i in 0..count {
            // SAFETY: argv holds argc valid C strings.
            let word = unsafe { CStr::from_ptr(*argv.add(i)) };
            match word.to_str() {
                Ok(w) => words.push(w),
                Err(_) => {
                    eprintln!("What is \"{}\"?", word.to_string_lossy());
                    return -1;
                }
            }
        }
        super::parse(&words, &mut Real { n })
    }

    /// tc's `print_qopt(qu, f, opt)`; tc prints to stdout whatever `f` is, and so do we.
    unsafe extern "C" fn print_qopt(
        _qu: *mut QdiscUtil,
        _f: *mut c_void,
        opt: *mut RtAttr,
    ) -> c_int {
        // SAFETY: tc passes its parsed TCA_OPTIONS attribute (or NULL).
        match unsafe { payload(opt) } {
            Some(p) => super::print_options(
                p,
                &mut Real {
                    n: std::ptr::null_mut(),
                },
            ),
            None => 0,
        }
    }

    /// tc's `print_xstats(qu, f, xstats)`.
    unsafe extern "C" fn print_xstats(
        _qu: *mut QdiscUtil,
        _f: *mut c_void,
        xstats: *mut RtAttr,
    ) -> c_int {
        // SAFETY: tc passes TCA_STATS_APP or TCA_XSTATS (or NULL).
        match unsafe { payload(xstats) } {
            Some(p) => super::print_xstats(
                p,
                &mut Real {
                    n: std::ptr::null_mut(),
                },
            ),
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnsharp::uapi::{
        encode_options, encode_xstats, XstatsBand, XstatsHeader, XSTATS_KIND_CLASS,
    };

    /// tc as a recorder: plain output, JSON as compact text, the attributes added, stderr.
    #[derive(Default)]
    struct FakeTc {
        json: bool,
        out: String,
        open: Vec<bool>,
        attrs: Vec<Vec<u8>>,
        err: Vec<String>,
        room: usize,
    }

    impl FakeTc {
        fn sep(&mut self, key: Option<&str>) {
            if let Some(has) = self.open.last_mut() {
                if *has {
                    self.out.push(',');
                }
                *has = true;
            }
            if let Some(k) = key {
                self.out.push_str(&format!("\"{k}\":"));
            }
        }
    }

    impl Tc for FakeTc {
        fn is_json(&mut self) -> bool {
            self.json
        }
        fn text(&mut self, s: &str) {
            assert!(!self.json, "text in JSON context");
            self.out.push_str(s);
        }
        fn newline(&mut self) {
            self.out.push('\n');
        }
        fn json_value(&mut self, key: Option<&str>, value: Value<'_>) {
            assert!(self.json);
            self.sep(key);
            let v = match value {
                Value::Number(n) => n.to_string(),
                Value::Text(s) => format!("\"{s}\""),
                Value::Bool(b) => b.to_string(),
                Value::Null => "null".into(),
            };
            self.out.push_str(&v);
        }
        fn json_begin_object(&mut self, key: Option<&str>) {
            self.sep(key);
            self.out.push('{');
            self.open.push(false);
        }
        fn json_end_object(&mut self) {
            self.open.pop();
            self.out.push('}');
        }
        fn json_begin_array(&mut self, key: &str) {
            self.sep(Some(key));
            self.out.push('[');
            self.open.push(false);
        }
        fn json_end_array(&mut self) {
            self.open.pop();
            self.out.push(']');
        }
        fn add_options(&mut self, payload: &[u8]) -> bool {
            if payload.len() > self.room {
                return false;
            }
            self.attrs.push(payload.to_vec());
            true
        }
        fn error(&mut self, s: &str) {
            self.err.push(s.to_string());
        }
    }

    fn tc() -> FakeTc {
        FakeTc {
            room: 1024,
            ..FakeTc::default()
        }
    }

    #[test]
    fn parse_appends_one_nest_of_the_options_given() {
        let mut t = tc();
        assert_eq!(parse(&["bands", "3", "pst_interval", "300us"], &mut t), 0);
        assert_eq!(
            t.attrs,
            [vec![
                8, 0, 4, 0, 3, 0, 0, 0, 8, 0, 8, 0, 0xe0, 0x93, 0x04, 0
            ]]
        );
        assert!(t.err.is_empty());
        // No options: an empty nest, as fq_codel always sends one.
        let mut t = tc();
        assert_eq!(parse(&[], &mut t), 0);
        assert_eq!(t.attrs, [Vec::<u8>::new()]);
    }

    #[test]
    fn parse_errors_in_tc_words() {
        for (words, first) in [
            (&["limt", "5"][..], "What is \"limt\"?"),
            (
                &["pst_interval", "5parsecs"][..],
                "Illegal \"pst_interval\": bad value \"5parsecs\"",
            ),
            (&["limit"][..], "Missing value for \"limit\""),
        ] {
            let mut t = tc();
            assert_eq!(parse(words, &mut t), -1);
            assert_eq!(t.err[0], first);
            assert!(t.err[1].starts_with("Usage: ... ecnsharp"));
            assert!(t.attrs.is_empty());
        }
        let mut t = tc();
        assert_eq!(parse(&["help"], &mut t), -1);
        assert!(t.err[0].starts_with("Usage:"));
        let mut t = FakeTc::default();
        assert_eq!(parse(&["bands", "3"], &mut t), -1, "no room in the request");
        assert_eq!(t.err, ["ecnsharp: the options do not fit the request"]);
    }

    fn dumped(text: &str) -> Vec<u8> {
        let cfg = Options::parse(text.split_whitespace())
            .unwrap()
            .applied(&ecnsharp::config::Config::DEFAULT)
            .unwrap();
        let mut buf = [0u8; OPTIONS_MAX_SIZE];
        let n = encode_options(&cfg, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    #[test]
    fn print_options_text_and_json() {
        let payload = dumped("bands 2 pst_target 85.5us");
        let mut t = tc();
        assert_eq!(print_options(&payload, &mut t), 0);
        assert!(t
            .out
            .starts_with("limit 1000p bands 2 mode ecnsharp ins_target 200us pst_target 85.5us"));
        assert!(t.out.ends_with("non_ect pass"));
        let mut t = FakeTc { json: true, ..tc() };
        // tc has opened the "options" object.
        t.json_begin_object(Some("options"));
        assert_eq!(print_options(&payload, &mut t), 0);
        t.json_end_object();
        let head = "\"options\":{\"limit\":1000,\"limit_bytes\":0,\"bands\":2";
        assert!(t.out.starts_with(head), "{}", t.out);
        assert!(t.out.ends_with("\"non_ect\":\"pass\",\"split_gso\":true}"));
        // tc's conventions: whole microseconds (the text above is exact), probabilities with a
        // decimal point.
        assert!(t.out.contains("\"pst_target\":86,"));
        assert!(t.out.contains("\"pmax\":0.1,"));
        assert!(t.out.contains("\"quanta\":[1514,1514]"));
        // What cannot be read is left out, never read past, with a warning; the rest shows.
        let mut t = tc();
        assert_eq!(print_options(&payload[..payload.len() - 2], &mut t), 0);
        assert_eq!(
            t.err,
            [
                "ecnsharp: 1 option cannot be read (a newer module?): split_gso: attribute \
                 has the wrong length; shown at their defaults: split_gso"
            ]
        );
        assert!(
            t.out.starts_with("limit 1000p bands 2 mode ecnsharp"),
            "{}",
            t.out
        );
        let mut newer = std::vec![8, 0, 99, 0, 0, 0, 0, 0];
        newer.extend(&payload);
        let mut t = tc();
        assert_eq!(print_options(&newer, &mut t), 0);
        assert_eq!(
            t.err,
            [
                "ecnsharp: 1 option cannot be read (a newer module?): unknown ecnsharp \
                 attribute (attribute 99)"
            ]
        );
        assert!(t.out.contains("pst_target 85.5us"), "{}", t.out);
    }

    #[test]
    fn print_xstats_lines_and_bands_array() {
        let header = XstatsHeader {
            now_ns: 1_000_000,
            marks: 2,
            ..XstatsHeader::default()
        };
        let band = XstatsBand {
            packets: 4,
            marks: 2,
            marks_by_cause: [1, 1, 0, 0, 0],
            ..XstatsBand::default()
        };
        let mut buf = [0u8; 1024];
        let n = encode_xstats(&header, &[band, band, band], &mut buf).unwrap();
        let mut t = tc();
        assert_eq!(print_xstats(&buf[..n], &mut t), 0);
        let lines: Vec<&str> = t.out.split('\n').collect();
        assert_eq!(lines.len(), 1 + 3 * 3);
        assert_eq!(lines[0], "  marks 2 throttled 0");
        assert!(lines[1].starts_with("  band 0: enqueued 0 packets 4"));
        assert!(lines[8].contains("(ins 1 pst 1 red 0 deq 0 prob 0)"));
        let mut t = FakeTc { json: true, ..tc() };
        // Inside the qdisc's object, after the generic statistics.
        t.json_begin_object(None);
        t.json_value(Some("qlen"), Value::Bool(false));
        assert_eq!(print_xstats(&buf[..n], &mut t), 0);
        t.json_end_object();
        assert!(t.out.starts_with("{\"qlen\":false,\"marks\":2,\"throttled\":0,\"shaper_burst\":0,\"late_wakeups\":0,\"late_max\":0,\"now\":1000,\"bands\":[{\"band\":0,"), "{}", t.out);
        assert_eq!(t.out.matches("\"band\":").count(), 3);
        assert!(t.out.ends_with("\"marking_next\":null}]}"));
        // A class's record, inside tc's "stats" object: no key of tc's written twice.
        let class = XstatsHeader {
            kind: XSTATS_KIND_CLASS,
            first_band: 1,
            ..header
        };
        let n = encode_xstats(&class, &[band], &mut buf).unwrap();
        let mut t = FakeTc { json: true, ..tc() };
        t.json_begin_object(Some("stats"));
        t.json_value(Some("packets"), Value::Bool(false));
        assert_eq!(print_xstats(&buf[..n], &mut t), 0);
        t.json_end_object();
        assert!(
            t.out.starts_with(
                "\"stats\":{\"packets\":false,\"band\":{\"band\":1,\"enqueued\":0,\"packets\":4,"
            ),
            "{}",
            t.out
        );
        assert!(t.out.ends_with("}}"), "{}", t.out);
        let mut t = tc();
        assert_eq!(print_xstats(&buf[..10], &mut t), -1);
        assert_eq!(
            t.err,
            ["ecnsharp: cannot read the xstats: ecnsharp xstats too short"]
        );
    }
}
