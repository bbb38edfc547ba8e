// SPDX-License-Identifier: GPL-2.0-only
//! `class show dev DEV`: the device's classes (an ecnsharp qdisc's, one per band), printed as
//! iproute2's `tc class show` prints them with `q_ecnsharp.so`: text, and JSON as tc 6.2 and
//! later write it (tc 6.1 prints classes as text even with `-j`); with `-s` each class's
//! counters and, for an ecnsharp class, its band's xstats record.

use std::fmt::Write as _;

use ecnsharp::report::{xstats_json, JsonSink, Value, XstatsText};
use ecnsharp::uapi::Xstats;

use crate::cli::{Ctx, Flags, EXIT_OK, EXIT_SYNTAX};
use crate::json::JsonWriter;
use crate::netlink::{self, Netlink, TC_H_ROOT};
use crate::show::{classid, tc_size, Qdisc};

/// Runs `class show dev DEV` (also `list`/`ls`, or no verb).
pub fn show<N: Netlink>(ctx: &mut Ctx<'_, N>, flags: Flags, args: &[String]) -> i32 {
    let mut it = args.iter().map(String::as_str).peekable();
    if matches!(it.peek(), Some(&("show" | "list" | "ls"))) {
        it.next();
    }
    let mut dev = None;
    while let Some(word) = it.next() {
        match (word, it.next()) {
            ("dev", Some(d)) => dev = Some(d),
            _ => return ctx.usage(&format!("What is \"{word}\"? Try \"ecnsharp-tc help\".")),
        }
    }
    let Some(dev) = dev else {
        return ctx.usage("Must specify device (class show dev DEV).");
    };
    let Some(ifindex) = ctx.nl.ifindex(dev) else {
        let _ = writeln!(ctx.err, "Cannot find device \"{dev}\"");
        return EXIT_SYNTAX;
    };
    let seq = ctx.next_seq();
    let msg = netlink::class_dump_request(ifindex, seq);
    let dump = match netlink::dump(ctx.nl, &msg, seq) {
        Ok(d) => d,
        Err(e) => return ctx.kernel_error(e),
    };
    let mut json = JsonWriter::default();
    let mut text = String::new();
    let mut warnings = dump.warnings;
    if flags.json {
        json.begin_top_array();
    }
    for tc in &dump.qdiscs {
        let c = Qdisc::from_message(tc);
        if c.ifindex != ifindex {
            continue;
        }
        let x = if flags.stats {
            band_xstats(&c, &mut warnings)
        } else {
            None
        };
        if flags.json {
            class_json(&c, flags.stats, x.as_ref(), &mut json);
        } else {
            text.push_str(&class_text(&c, flags.stats, x.as_ref()));
        }
    }
    if flags.json {
        JsonSink::end_array(&mut json);
        text = json.finish();
        if flags.pretty {
            text = crate::pretty::pretty(&text);
        }
        text.push('\n');
    }
    for w in warnings {
        let _ = writeln!(ctx.err, "ecnsharp-tc: {w}");
    }
    let _ = ctx.out.write_all(text.as_bytes());
    EXIT_OK
}

/// An ecnsharp class's xstats record (none for another kind's class), as `qdisc show` reads
/// the qdisc's.
fn band_xstats(c: &Qdisc, warnings: &mut Vec<String>) -> Option<Xstats> {
    c.ecnsharp_xstats(&format!("class {}", classid(c.handle)), warnings)
}

/// tc's `root ` or `parent H:N `, then `leaf H: ` when a qdisc hangs under the class.
fn class_place(c: &Qdisc) -> String {
    let mut s = if c.parent == TC_H_ROOT {
        "root ".to_string()
    } else {
        format!("parent {} ", classid(c.parent))
    };
    if c.refcnt != 0 {
        let _ = write!(s, "leaf {:x}: ", c.refcnt >> 16);
    }
    s
}

/// One class as tc's text: `class KIND H:N parent H: `, then with `-s` its counters and, for an
/// ecnsharp class, its band's lines.
fn class_text(c: &Qdisc, stats: bool, x: Option<&Xstats>) -> String {
    let mut s = format!(
        "class {} {} {}\n",
        c.kind,
        classid(c.handle),
        class_place(c)
    );
    if !stats {
        return s;
    }
    if let Some((bytes, packets)) = c.basic {
        let _ = write!(s, " Sent {bytes} bytes {packets} pkt");
    }
    if let Some([qlen, backlog, drops, requeues, overlimits]) = c.queue {
        let _ = write!(
            s,
            " (dropped {drops}, overlimits {overlimits} requeues {requeues}) \n \
             backlog {} {qlen}p requeues {requeues}",
            tc_size(backlog)
        );
    }
    s.push('\n');
    if let Some(x) = x {
        let _ = writeln!(s, "{}", XstatsText(x));
    }
    s
}

/// One class as an object of tc's JSON array, as tc 6.2 on writes it: the counters in a
/// `stats` object, an ecnsharp band's record in a `band` object within it (its `packets`,
/// `bytes`, `qlen` and `backlog` are the band's own, beside tc's).
fn class_json(c: &Qdisc, stats: bool, x: Option<&Xstats>, w: &mut JsonWriter) {
    w.begin_object(None);
    w.text("class", &c.kind);
    w.text("handle", &classid(c.handle));
    if c.parent == TC_H_ROOT {
        w.value(Some("root"), Value::Bool(true));
    } else {
        w.text("parent", &classid(c.parent));
    }
    if c.refcnt != 0 {
        w.text("leaf", &format!("{:#x}", c.refcnt >> 16));
    }
    if stats {
        w.begin_object(Some("stats"));
        if let Some((bytes, packets)) = c.basic {
            w.uint("bytes", bytes);
            w.uint("packets", packets);
        }
        if let Some([qlen, backlog, drops, requeues, overlimits]) = c.queue {
            w.uint("drops", drops.into());
            w.uint("overlimits", overlimits.into());
            w.uint("requeues", requeues.into());
            w.uint("backlog", backlog.into());
            w.uint("qlen", qlen.into());
        }
        if let Some(x) = x {
            xstats_json(x, w);
        }
        w.end_object();
    }
    w.end_object();
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnsharp::uapi::{encode_xstats, XstatsBand, XstatsHeader, XSTATS_KIND_CLASS};

    /// Band 1's class under `1:`, with its counters and xstats record.
    fn band_class() -> Qdisc {
        let header = XstatsHeader {
            kind: XSTATS_KIND_CLASS,
            first_band: 1,
            ..XstatsHeader::default()
        };
        let band = XstatsBand {
            packets: 2,
            bytes: 3028,
            qlen: 1,
            ..XstatsBand::default()
        };
        let mut buf = [0u8; 1024];
        let n = encode_xstats(&header, &[band], &mut buf).unwrap();
        Qdisc {
            kind: "ecnsharp".into(),
            handle: 0x1_0002,
            parent: 0x1_0000,
            basic: Some((4542, 3)),
            queue: Some([1, 1514, 0, 0, 0]),
            xstats: Some(buf[..n].to_vec()),
            ..Qdisc::default()
        }
    }

    fn json_of(c: &Qdisc, x: Option<&Xstats>) -> String {
        let mut w = JsonWriter::default();
        class_json(c, true, x, &mut w);
        w.finish()
    }

    #[test]
    fn band_record_in_its_own_object_within_stats() {
        let c = band_class();
        let mut warnings = Vec::new();
        let x = band_xstats(&c, &mut warnings);
        assert!(warnings.is_empty() && x.is_some());
        let j = json_of(&c, x.as_ref());
        // tc's counters (3 segments) and the band's (2 packets) under different objects: no
        // key written twice in one object.
        let head = "{\"class\":\"ecnsharp\",\"handle\":\"1:2\",\"parent\":\"1:\",\"stats\":{\
                    \"bytes\":4542,\"packets\":3,\"drops\":0,\"overlimits\":0,\"requeues\":0,\
                    \"backlog\":1514,\"qlen\":1,\"band\":{\"band\":1,\"enqueued\":0,\
                    \"packets\":2,\"bytes\":3028,\"qlen\":1,";
        assert!(j.starts_with(head), "{j}");
        assert!(j.ends_with("}}}"), "{j}");
        let text = class_text(&c, true, x.as_ref());
        assert!(text.starts_with("class ecnsharp 1:2 parent 1: \n Sent 4542 bytes 3 pkt"));
        assert!(
            text.contains("\n  enqueued 0 packets 2 bytes 3028"),
            "{text}"
        );
    }

    #[test]
    fn another_kinds_class_as_tc_prints_it() {
        // htb's class at the root with a leaf qdisc 8001:, and xstats ecnsharp cannot read.
        let c = Qdisc {
            kind: "htb".into(),
            handle: 0x1_0001,
            parent: TC_H_ROOT,
            refcnt: 0x8001_0000,
            xstats: Some(vec![1, 2, 3]),
            ..Qdisc::default()
        };
        let mut warnings = Vec::new();
        assert!(band_xstats(&c, &mut warnings).is_none());
        assert!(warnings.is_empty(), "not ours to read: {warnings:?}");
        assert_eq!(
            class_text(&c, false, None),
            "class htb 1:1 root leaf 8001: \n"
        );
        assert_eq!(
            json_of(&c, None),
            "{\"class\":\"htb\",\"handle\":\"1:1\",\"root\":true,\"leaf\":\"0x8001\",\"stats\":{}}"
        );
        // An ecnsharp class whose record cannot be read says so.
        let c = Qdisc {
            xstats: Some(vec![1, 2, 3]),
            ..band_class()
        };
        assert!(band_xstats(&c, &mut warnings).is_none());
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("cannot read the xstats of class 1:2: "));
    }
}
