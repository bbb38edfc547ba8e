#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Per-flow figures from a Linux validation run's `ss -tin` log (SS_LOG=1, saved by
ns3/validate-linux.sh as validation/NAME.ss.gz): over the window [WARMUP, DURATION), for each
sender, the mean cwnd, packets in flight (unacked), notsent bytes, smoothed and minimum RTT, DCTCP's
alpha (/1024), the fraction of its delivered packets that carried CE (delivered_ce), and how
often a sample found it reducing (cwnd > ssthresh, that is during CWR's PRR).

    ss_summary.py FILE.ss.gz [WARMUP DURATION]
"""
import gzip
import re
import statistics
import sys

FIELDS = {"cwnd": r"cwnd:(\d+)", "ssthresh": r"ssthresh:(\d+)", "unacked": r"unacked:(\d+)",
          "notsent": r"notsent:(\d+)", "rtt": r" rtt:([\d.]+)/", "minrtt": r"minrtt:([\d.]+)",
          "alpha": r"alpha:(\d+)", "delivered": r"delivered:(\d+)",
          "delivered_ce": r"delivered_ce:(\d+)"}


def summarise(path, lo=0.2, hi=1.0):
    """{sender: {figure: value}} over [lo, hi) s, for senders with at least two samples."""
    flows = {}
    for line in gzip.open(path, "rt"):
        w = line.split()
        if len(w) < 3 or not lo <= float(w[0]) < hi:
            continue
        names = [t for t in w[1:] if re.fullmatch(r"s\d+", t)]
        if not names:
            continue
        row = {}
        for k, rx in FIELDS.items():
            m = re.search(rx, line)
            row[k] = float(m.group(1)) if m else 0.0
        flows.setdefault(names[0], []).append(row)
    out = {}
    for flow, rows in sorted(flows.items()):
        if len(rows) < 2:
            continue
        mean = {k: statistics.mean(r[k] for r in rows) for k in FIELDS}
        out[flow] = {
            "samples": len(rows), "cwnd": mean["cwnd"], "unacked": mean["unacked"],
            "notsent_kb": mean["notsent"] / 1000, "srtt_us": mean["rtt"] * 1000,
            "minrtt_us": mean["minrtt"] * 1000, "alpha": mean["alpha"] / 1024,
            "ce_fraction": (rows[-1]["delivered_ce"] - rows[0]["delivered_ce"])
            / max(1, rows[-1]["delivered"] - rows[0]["delivered"]),
            "reducing": sum(r["cwnd"] > r["ssthresh"] for r in rows) / len(rows),
        }
    return out


def main():
    if len(sys.argv) not in (2, 4):
        print(__doc__, file=sys.stderr)
        return 2
    lo, hi = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) == 4 else (0.2, 1.0)
    for flow, f in summarise(sys.argv[1], lo, hi).items():
        print(f"{flow}: samples={f['samples']} cwnd={f['cwnd']:.1f} unacked={f['unacked']:.1f} "
              f"notsent_kb={f['notsent_kb']:.0f} srtt_us={f['srtt_us']:.1f} "
              f"minrtt_us={f['minrtt_us']:.1f} alpha={f['alpha']:.3f} "
              f"ce_fraction={f['ce_fraction']:.3f} reducing={f['reducing']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
