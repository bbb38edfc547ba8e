// SPDX-License-Identifier: GPL-2.0-only
//! `class show dev DEV`: an ecnsharp qdisc's classes, one per band, printed as iproute2's
//! `tc class show` prints them with `q_ecnsharp.so` (text and JSON; with `-s` each band's
//! counters and its xstats record).

use std::fmt::Write as _;

use ecnsharp::report::{xstats_json, JsonSink, XstatsText};
use ecnsharp::uapi::decode_xstats;

use crate::cli::{Ctx, Flags, EXIT_OK, EXIT_SYNTAX};
use crate::json::JsonWriter;
use crate::netlink::{self, Netlink};
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
    if flags.json {
        json.begin_top_array();
    }
    for tc in &dump.qdiscs {
        let c = Qdisc::from_message(tc);
        if c.ifindex != ifindex {
            continue;
        }
        if flags.json {
            class_json(&c, flags.stats, &mut json);
        } else {
            text.push_str(&class_text(&c, flags.stats));
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
    for w in dump.warnings {
        let _ = writeln!(ctx.err, "ecnsharp-tc: {w}");
    }
    let _ = ctx.out.write_all(text.as_bytes());
    EXIT_OK
}

/// One class as tc's text: `class KIND H:N parent H: `, then with `-s` its counters and, for an
/// ecnsharp class, its band's lines.
fn class_text(c: &Qdisc, stats: bool) -> String {
    let mut s = format!(
        "class {} {} parent {} \n",
        c.kind,
        classid(c.handle),
        classid(c.parent)
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
    if let Some(x) = c.xstats.as_deref().and_then(|b| decode_xstats(b).ok()) {
        let _ = writeln!(s, "{}", XstatsText(&x));
    }
    s
}

/// One class as an object of tc's JSON array.
fn class_json(c: &Qdisc, stats: bool, w: &mut JsonWriter) {
    w.begin_object(None);
    w.text("class", &c.kind);
    w.text("handle", &classid(c.handle));
    w.text("parent", &classid(c.parent));
    if stats {
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
        if let Some(x) = c.xstats.as_deref().and_then(|b| decode_xstats(b).ok()) {
            xstats_json(&x, w);
        }
    }
    w.end_object();
}
