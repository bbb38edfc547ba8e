// SPDX-License-Identifier: GPL-2.0-only
//! include/uapi/linux/pkt_sched_ecnsharp.h, the C header for pyroute2, Go clients and an
//! upstream iproute2, against `ecnsharp::uapi`, the source of truth: the attribute enum in
//! order, every constant, and the xstats structs' sizes and field offsets, asserted by the C
//! compiler itself (`_Static_assert`). Every identifier the header defines must be checked here.

use std::collections::BTreeSet;
use std::io::Write;
use std::mem::{offset_of, size_of};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use ecnsharp::band::MAX_BANDS;
use ecnsharp::config::Modes;
use ecnsharp::ecn::MarkCause;
use ecnsharp::histogram::SOJOURN_BUCKETS;
use ecnsharp::uapi::{self, Attr, XstatsBand, XstatsHeader, XstatsHist};

fn include_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../include/uapi")
}

fn header() -> String {
    let path = include_dir().join("linux/pkt_sched_ecnsharp.h");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `StrictBands` -> `STRICT_BANDS`.
fn upper_snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// The C names of the attributes, in number order, from `uapi::Attr`.
fn attribute_names() -> Vec<String> {
    Attr::ALL
        .iter()
        .map(|a| format!("TCA_ECNSHARP_{}", upper_snake(&format!("{a:?}"))))
        .collect()
}

/// Offsets of the xstats fields, as Rust lays them out.
macro_rules! offsets {
    ($ty:ty; $($field:ident),* $(,)?) => {
        vec![$((stringify!($field), offset_of!($ty, $field))),*]
    };
}

fn header_fields() -> Vec<(&'static str, usize)> {
    offsets!(XstatsHeader; tag, version, header_size, band_size, bands, burst_bytes, now_ns,
        rate_bps, throttled, drops, marks, late_wakeups, late_max_ns, kind, first_band)
}

fn hist_fields() -> Vec<(&'static str, usize)> {
    offsets!(XstatsHist; buckets, first_edge_ns, steps_per_octave, reserved, counts)
}

fn band_fields() -> Vec<(&'static str, usize)> {
    offsets!(XstatsBand; packets, bytes, qlen, backlog, drops_limit, drops_nonect, marks,
        marks_by_cause, ce_already, nonect_passed, sojourn_max_ns, sojourn_sum_ns, marking_state,
        marking_count, first_above_time_ns, marking_next_ns, enqueued, drops_config)
}

/// The C name of each mark cause, in `MarkCause::ALL` order (the index of `marks_by_cause`).
fn cause_name(cause: MarkCause) -> &'static str {
    match cause {
        MarkCause::Instantaneous => "TC_ECNSHARP_CAUSE_INS",
        MarkCause::Persistent => "TC_ECNSHARP_CAUSE_PST",
        MarkCause::QueueEnqueue => "TC_ECNSHARP_CAUSE_RED",
        MarkCause::QueueDequeue => "TC_ECNSHARP_CAUSE_DEQUEUE",
        MarkCause::Probabilistic => "TC_ECNSHARP_CAUSE_PROB",
    }
}

/// Every constant of the header with the value `ecnsharp` gives it.
fn constants() -> Vec<(String, u64)> {
    let mut c: Vec<(String, u64)> = attribute_names()
        .into_iter()
        .zip(Attr::ALL.iter().map(|a| *a as u64))
        .collect();
    let named: [(&str, u64); 27] = [
        ("TCA_ECNSHARP_MAX", uapi::TCA_ECNSHARP_MAX.into()),
        ("__TCA_ECNSHARP_MAX", u64::from(uapi::TCA_ECNSHARP_MAX) + 1),
        ("TC_ECNSHARP_MAX_BANDS", MAX_BANDS as u64),
        ("TC_ECNSHARP_MODE_INS", Modes::INSTANTANEOUS.0.into()),
        ("TC_ECNSHARP_MODE_PST", Modes::PERSISTENT.0.into()),
        ("TC_ECNSHARP_MODE_RED", Modes::QUEUE_ENQUEUE.0.into()),
        ("TC_ECNSHARP_MODE_DEQUEUE", Modes::QUEUE_DEQUEUE.0.into()),
        ("TC_ECNSHARP_MODE_PROB", Modes::PROBABILISTIC.0.into()),
        ("TC_ECNSHARP_MODE_ECNSHARP", Modes::ECN_SHARP.0.into()),
        (
            "TC_ECNSHARP_CONTROL_LAW_INV_SQRT",
            uapi::CONTROL_LAW_INV_SQRT.into(),
        ),
        (
            "TC_ECNSHARP_CONTROL_LAW_LINEAR",
            uapi::CONTROL_LAW_LINEAR.into(),
        ),
        ("TC_ECNSHARP_CONTROL_LAW_NS3", uapi::CONTROL_LAW_NS3.into()),
        ("TC_ECNSHARP_K_UNIT_PACKETS", uapi::K_UNIT_PACKETS.into()),
        ("TC_ECNSHARP_K_UNIT_BYTES", uapi::K_UNIT_BYTES.into()),
        ("TC_ECNSHARP_SCHED_SP", uapi::SCHED_SP.into()),
        ("TC_ECNSHARP_SCHED_DWRR", uapi::SCHED_DWRR.into()),
        ("TC_ECNSHARP_SCHED_WFQ", uapi::SCHED_WFQ.into()),
        (
            "TC_ECNSHARP_CLASSIFY_PRIORITY",
            uapi::CLASSIFY_PRIORITY.into(),
        ),
        ("TC_ECNSHARP_CLASSIFY_DSCP", uapi::CLASSIFY_DSCP.into()),
        ("TC_ECNSHARP_NON_ECT_PASS", uapi::NON_ECT_PASS.into()),
        ("TC_ECNSHARP_NON_ECT_DROP", uapi::NON_ECT_DROP.into()),
        ("TC_ECNSHARP_XSTATS_TAG", uapi::XSTATS_TAG.into()),
        ("TC_ECNSHARP_XSTATS_VERSION", uapi::XSTATS_VERSION.into()),
        (
            "TC_ECNSHARP_XSTATS_KIND_QDISC",
            uapi::XSTATS_KIND_QDISC.into(),
        ),
        (
            "TC_ECNSHARP_XSTATS_KIND_CLASS",
            uapi::XSTATS_KIND_CLASS.into(),
        ),
        ("TC_ECNSHARP_CAUSES", MarkCause::ALL.len() as u64),
        ("TC_ECNSHARP_HIST_BUCKETS", SOJOURN_BUCKETS as u64),
    ];
    // The five flags are all the flags there are.
    let all = named[3..8].iter().fold(0, |acc, (_, v)| acc | v);
    assert_eq!(all, u64::from(Modes::ALL.0), "a mode flag is missing here");
    c.extend(named.iter().map(|(n, v)| (n.to_string(), *v)));
    c.extend(
        MarkCause::ALL
            .iter()
            .enumerate()
            .map(|(i, cause)| (cause_name(*cause).to_string(), i as u64)),
    );
    c
}

/// Identifiers the header defines: enumerators and macros named `TCA_ECNSHARP_*`,
/// `__TCA_ECNSHARP_*` or `TC_ECNSHARP_*`.
fn defined_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim_start();
        let line = line.strip_prefix("#define ").unwrap_or(line);
        let word: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if word.starts_with("TCA_ECNSHARP_")
            || word.starts_with("__TCA_ECNSHARP_")
            || (word.starts_with("TC_ECNSHARP_") && !word.ends_with("_H"))
        {
            names.insert(word);
        }
    }
    names
}

/// The field names of `struct NAME { ... }` in the header, in order.
fn struct_fields(text: &str, name: &str) -> Vec<String> {
    let body = text
        .split_once(&format!("struct {name} {{"))
        .and_then(|(_, rest)| rest.split_once("};"))
        .map(|(b, _)| b)
        .unwrap_or_else(|| panic!("no struct {name}"));
    body.lines()
        .filter_map(|l| {
            let decl = l.split("/*").next()?.trim().strip_suffix(';')?;
            let name = decl.split_whitespace().last()?;
            Some(name.split('[').next()?.to_string())
        })
        .collect()
}

#[test]
fn attributes_in_number_order() {
    let text = header();
    let start = text
        .find("\tTCA_ECNSHARP_UNSPEC,")
        .expect("the attribute enum");
    let in_header: Vec<String> = text[start..]
        .lines()
        .map(|l| {
            l.trim()
                .split([',', ' ', '\t'])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .take_while(|w| w != "__TCA_ECNSHARP_MAX")
        .collect();
    assert_eq!(in_header, attribute_names());
}

#[test]
fn every_identifier_is_checked_and_every_field_listed() {
    let text = header();
    let checked: BTreeSet<String> = constants().into_iter().map(|(n, _)| n).collect();
    let defined = defined_names(&text);
    let unchecked: Vec<_> = defined.difference(&checked).collect();
    assert!(
        unchecked.is_empty(),
        "defined in the header, not checked: {unchecked:?}"
    );
    let missing: Vec<_> = checked.difference(&defined).collect();
    assert!(missing.is_empty(), "not in the header: {missing:?}");
    let names = |f: Vec<(&str, usize)>| {
        f.into_iter()
            .map(|(n, _)| n.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        struct_fields(&text, "tc_ecnsharp_xstats"),
        names(header_fields())
    );
    assert_eq!(
        struct_fields(&text, "tc_ecnsharp_xstats_band"),
        names(band_fields())
    );
    assert_eq!(
        struct_fields(&text, "tc_ecnsharp_xstats_hist"),
        names(hist_fields())
    );
}

/// The C compiler asserts every value, size and offset against the Rust ones.
#[test]
fn c_compiler_agrees() {
    let mut c = String::from("#include <stddef.h>\n#include <linux/pkt_sched_ecnsharp.h>\n");
    let mut assert = |expr: String, what: &str| {
        c.push_str(&format!("_Static_assert({expr}, \"{what}\");\n"));
    };
    for (name, value) in constants() {
        assert(format!("(unsigned long long)({name}) == {value}ULL"), &name);
    }
    for (ty, rust_size, fields) in [
        (
            "tc_ecnsharp_xstats",
            size_of::<XstatsHeader>(),
            header_fields(),
        ),
        (
            "tc_ecnsharp_xstats_band",
            size_of::<XstatsBand>(),
            band_fields(),
        ),
        (
            "tc_ecnsharp_xstats_hist",
            size_of::<XstatsHist>(),
            hist_fields(),
        ),
    ] {
        assert(
            format!("sizeof(struct {ty}) == {rust_size}"),
            &format!("sizeof {ty}"),
        );
        for (field, offset) in fields {
            assert(
                format!("offsetof(struct {ty}, {field}) == {offset}"),
                &format!("{ty}.{field}"),
            );
        }
    }
    assert(
        format!(
            "sizeof(struct tc_ecnsharp_xstats) == {}",
            uapi::XSTATS_HEADER_SIZE
        ),
        "XSTATS_HEADER_SIZE",
    );
    assert(
        format!(
            "sizeof(struct tc_ecnsharp_xstats_band) == {}",
            uapi::XSTATS_BAND_SIZE
        ),
        "XSTATS_BAND_SIZE",
    );
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-fsyntax-only",
        ])
        .arg("-I")
        .arg(include_dir())
        .args(["-x", "c", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("a C compiler (cc; tests/vm/deps.sh installs clang)");
    cc.stdin.take().unwrap().write_all(c.as_bytes()).unwrap();
    let out = cc.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the header disagrees with ecnsharp::uapi:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
