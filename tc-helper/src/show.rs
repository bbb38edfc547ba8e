// SPDX-License-Identifier: GPL-2.0-only
//! `qdisc show`: a dump's qdiscs printed as iproute2's `tc qdisc show` prints them (text and
//! JSON, with `-s` the generic statistics), ecnsharp's options and xstats through the core's
//! report, so that the output matches tc with `q_ecnsharp.so`. Other kinds are listed with
//! their generic fields and statistics only, and an empty `options` object.

use std::fmt::Write;

use ecnsharp::config::Config;
use ecnsharp::options::ConfigText;
use ecnsharp::report::{options_json, xstats_json, JsonSink, XstatsText};
use ecnsharp::uapi::{decode_options_shown, decode_xstats};
use netlink_packet_route::tc::{TcAttribute, TcMessage, TcOption, TcStats2, TcXstats};

use crate::json::JsonWriter;
use crate::netlink::TC_H_ROOT;

/// `TCA_STATS_PKT64` in `linux/gen_stats.h`: the 64-bit packet count.
const TCA_STATS_PKT64: u16 = 8;

/// What a dump says of one qdisc, in tc's numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Qdisc {
    /// `TCA_KIND`.
    pub kind: String,
    /// Interface index.
    pub ifindex: u32,
    /// Handle, `major << 16`.
    pub handle: u32,
    /// Parent classid.
    pub parent: u32,
    /// `tcm_info`: a qdisc's reference count; a class's leaf qdisc (its handle), 0 for none.
    pub refcnt: u32,
    /// The `TCA_OPTIONS` payload.
    pub options: Option<Vec<u8>>,
    /// Bytes and packets sent (`TCA_STATS_BASIC`, `TCA_STATS_PKT64`).
    pub basic: Option<(u64, u64)>,
    /// qlen, backlog, drops, requeues, overlimits (`TCA_STATS_QUEUE`).
    pub queue: Option<[u32; 5]>,
    /// `TCA_STATS_APP` (or `TCA_XSTATS`): the qdisc's own statistics.
    pub xstats: Option<Vec<u8>>,
}

impl Qdisc {
    /// Reads one `RTM_NEWQDISC` message.
    pub fn from_message(tc: &TcMessage) -> Qdisc {
        let mut q = Qdisc {
            ifindex: u32::try_from(tc.header.index).unwrap_or(0),
            handle: tc.header.handle.into(),
            parent: tc.header.parent.into(),
            refcnt: tc.header.info,
            ..Qdisc::default()
        };
        let mut packets64 = None;
        for attr in &tc.attributes {
            match attr {
                TcAttribute::Kind(k) => q.kind = k.clone(),
                TcAttribute::Options(opts) => {
                    // An unknown kind's TCA_OPTIONS comes as one attribute holding the payload.
                    if let [TcOption::Other(nla)] = opts.as_slice() {
                        let mut payload = vec![0u8; netlink_packet_core::Nla::value_len(nla)];
                        netlink_packet_core::Nla::emit_value(nla, &mut payload);
                        q.options = Some(payload);
                    }
                }
                TcAttribute::Stats2(stats) => {
                    for s in stats {
                        match s {
                            TcStats2::Basic(b) => {
                                q.basic = Some((b.bytes, u64::from(b.packets)));
                            }
                            TcStats2::Queue(s) => {
                                q.queue =
                                    Some([s.qlen, s.backlog, s.drops, s.requeues, s.overlimits])
                            }
                            TcStats2::App(TcXstats::Other(v)) => q.xstats = Some(v.clone()),
                            TcStats2::Other(nla)
                                if netlink_packet_core::Nla::kind(nla) == TCA_STATS_PKT64 =>
                            {
                                let mut v = [0u8; 8];
                                if netlink_packet_core::Nla::value_len(nla) == 8 {
                                    netlink_packet_core::Nla::emit_value(nla, &mut v);
                                    packets64 = Some(u64::from_ne_bytes(v));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                TcAttribute::Xstats(TcXstats::Other(v)) if q.xstats.is_none() => {
                    q.xstats = Some(v.clone())
                }
                _ => {}
            }
        }
        if let (Some(p), Some((_, packets))) = (packets64, q.basic.as_mut()) {
            if p != 0 {
                *packets = p;
            }
        }
        q
    }

    fn is_ecnsharp(&self) -> bool {
        self.kind == "ecnsharp"
    }

    /// The configuration the options describe, for an ecnsharp qdisc. What this version cannot
    /// read (a newer module's option or value) is left out, with a warning naming the options
    /// shown at their defaults; the rest is shown.
    fn config(&self, warnings: &mut Vec<String>) -> Option<Config> {
        let payload = self.options.as_deref().filter(|_| self.is_ecnsharp())?;
        let (cfg, unshown) = decode_options_shown(payload);
        if unshown.count != 0 {
            warnings.push(format!("ecnsharp {:x}: {unshown}", self.handle >> 16));
        }
        Some(cfg)
    }

    /// The ecnsharp xstats (none for another kind); one that cannot be read is a warning
    /// naming `what` (the qdisc or the class).
    pub(crate) fn ecnsharp_xstats(
        &self,
        what: &str,
        warnings: &mut Vec<String>,
    ) -> Option<ecnsharp::uapi::Xstats> {
        let bytes = self.xstats.as_deref().filter(|_| self.is_ecnsharp())?;
        match decode_xstats(bytes) {
            Ok(x) => Some(x),
            Err(e) => {
                warnings.push(format!("cannot read the xstats of {what}: {e}"));
                None
            }
        }
    }
}

/// tc's `print_tc_classid`.
pub fn classid(h: u32) -> String {
    match (h, h >> 16, h & 0xffff) {
        (TC_H_ROOT, _, _) => "root".to_string(),
        (0, _, _) => "none".to_string(),
        (_, 0, min) => format!(":{min:x}"),
        (_, maj, 0) => format!("{maj:x}:"),
        (_, maj, min) => format!("{maj:x}:{min:x}"),
    }
}

/// tc's `sprint_size` (`1514b`, `30Kb`, `2Mb`), as the core writes it for the xstats too.
pub fn tc_size(sz: u32) -> String {
    ecnsharp::report::TcSize(u64::from(sz)).to_string()
}

/// How to print.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// `-s`: statistics.
    pub stats: bool,
    /// Print `dev NAME` (when not filtering by device, as tc).
    pub show_dev: bool,
}

/// One qdisc as tc's text: the qdisc line, and with `-s` the statistics lines.
pub fn text(q: &Qdisc, style: Style, ifname: &str, warnings: &mut Vec<String>) -> String {
    let mut s = format!("qdisc {} {:x}: ", q.kind, q.handle >> 16);
    if style.show_dev {
        let _ = write!(s, "dev {ifname} ");
    }
    match q.parent {
        TC_H_ROOT => s.push_str("root "),
        0 => {}
        p => {
            let _ = write!(s, "parent {} ", classid(p));
        }
    }
    if q.refcnt != 1 {
        let _ = write!(s, "refcnt {} ", q.refcnt);
    }
    if let Some(cfg) = q.config(warnings) {
        let _ = write!(s, "{}", ConfigText(&cfg));
    }
    s.push('\n');
    if !style.stats {
        return s;
    }
    if q.basic.is_some() || q.queue.is_some() {
        if let Some((bytes, packets)) = q.basic {
            let _ = write!(s, " Sent {bytes} bytes {packets} pkt");
        }
        if let Some([qlen, backlog, drops, requeues, overlimits]) = q.queue {
            let _ = write!(
                s,
                " (dropped {drops}, overlimits {overlimits} requeues {requeues}) \n \
                 backlog {} {qlen}p requeues {requeues}",
                tc_size(backlog)
            );
        }
        s.push('\n');
    }
    if let Some(x) = q.ecnsharp_xstats(&format!("ecnsharp {:x}", q.handle >> 16), warnings) {
        let _ = writeln!(s, "{}", XstatsText(&x));
    }
    s
}

/// One qdisc as an object of tc's JSON array.
pub fn json(q: &Qdisc, style: Style, ifname: &str, w: &mut JsonWriter, warnings: &mut Vec<String>) {
    w.begin_object(None);
    w.text("kind", &q.kind);
    w.text("handle", &format!("{:x}:", q.handle >> 16));
    if style.show_dev {
        w.text("dev", ifname);
    }
    match q.parent {
        TC_H_ROOT => w.value(Some("root"), ecnsharp::report::Value::Bool(true)),
        0 => {}
        p => w.text("parent", &classid(p)),
    }
    if q.refcnt != 1 {
        w.uint("refcnt", q.refcnt.into());
    }
    w.begin_object(Some("options"));
    if let Some(cfg) = q.config(warnings) {
        options_json(&cfg, w);
    }
    w.end_object();
    if style.stats {
        if let Some((bytes, packets)) = q.basic {
            w.uint("bytes", bytes);
            w.uint("packets", packets);
        }
        if let Some([qlen, backlog, drops, requeues, overlimits]) = q.queue {
            w.uint("drops", drops.into());
            w.uint("overlimits", overlimits.into());
            w.uint("requeues", requeues.into());
            w.uint("backlog", backlog.into());
            w.uint("qlen", qlen.into());
        }
        if let Some(x) = q.ecnsharp_xstats(&format!("ecnsharp {:x}", q.handle >> 16), warnings) {
            xstats_json(&x, w);
        }
    }
    w.end_object();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classids_as_tc() {
        assert_eq!(classid(TC_H_ROOT), "root");
        assert_eq!(classid(0), "none");
        assert_eq!(classid(0x0001_0000), "1:");
        assert_eq!(classid(0x0000_0005), ":5");
        assert_eq!(classid(0x00ab_0010), "ab:10");
    }

    /// A newer module's option hides only itself: the rest is shown, with a warning naming it.
    #[test]
    fn options_shown_around_an_unknown_attribute() {
        let cfg = ecnsharp::options::Options::parse("bands 2 ins_target 50us".split(' '))
            .unwrap()
            .applied(&Config::DEFAULT)
            .unwrap();
        let mut buf = [0u8; ecnsharp::uapi::OPTIONS_MAX_SIZE];
        let n = ecnsharp::uapi::encode_options(&cfg, &mut buf).unwrap();
        let mut payload = vec![8, 0, 99, 0, 1, 0, 0, 0];
        payload.extend(&buf[..n]);
        let q = Qdisc {
            kind: "ecnsharp".into(),
            handle: 0x0001_0000,
            parent: TC_H_ROOT,
            refcnt: 1,
            options: Some(payload),
            ..Qdisc::default()
        };
        let mut warnings = Vec::new();
        let line = text(&q, Style::default(), "veth0", &mut warnings);
        assert!(
            line.starts_with(
                "qdisc ecnsharp 1: root limit 1000p bands 2 mode ecnsharp ins_target 50us"
            ),
            "{line}"
        );
        assert_eq!(
            warnings,
            [
                "ecnsharp 1: 1 option cannot be read (a newer module?): unknown ecnsharp \
                 attribute (attribute 99)"
            ]
        );
        let mut w = JsonWriter::default();
        json(&q, Style::default(), "veth0", &mut w, &mut warnings);
        assert_eq!(warnings.len(), 2);
        let v: serde_json::Value = serde_json::from_str(&w.finish()).unwrap();
        assert_eq!(
            (
                v["options"]["bands"].as_u64(),
                v["options"]["ins_target"].as_u64()
            ),
            (Some(2), Some(50))
        );
    }

    #[test]
    fn sizes_as_tc() {
        let cases = [
            (0, "0b"),
            (1514, "1514b"),
            (1023, "1023b"),
            (1024, "1Kb"),
            (1039, "1Kb"),
            (1040, "1040b"),
            (1536, "1536b"),
            (30 * 1024, "30Kb"),
            (1 << 20, "1Mb"),
            ((1 << 20) + 1023, "1Mb"),
            ((1 << 20) + 1024, "1025Kb"),
            (3 << 30, "3072Mb"),
            (u32::MAX, "4096Mb"),
        ];
        for (sz, want) in cases {
            assert_eq!(tc_size(sz), want, "{sz}");
        }
    }
}
