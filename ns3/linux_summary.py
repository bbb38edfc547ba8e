#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""One Linux validation run (tests/ns3/linux-guest.sh's output directory) as one key=value line
with the keys of ecnsharp-dc --scenario=validate (docs/results/ns3/validation.md).

    linux_summary.py DIR NAME SENDERS WARMUP DURATION [CLASSES JOIN]

CLASSES (comma-separated) and JOIN as tests/ns3/linux-guest.sh took them.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

DELAYS = [1, 20, 50, 80, 160]
CLASSES = {2: [0, 4], 4: [0, 1, 3, 4]}
# ns3/sim/rule.cc's base RTT for 2 links each way: 40 us of propagation, 2 x 1508 bytes of
# serialisation at 10 Gbit/s, the ACK's 1 us class.
BASE_US = 40 + 2 * 1508 * 8 / 10e3 + 1


def nearest_rank(sorted_values, q):
    if not sorted_values:
        return float("nan")
    i = int(q * (len(sorted_values) - 1) + 0.5)
    return sorted_values[min(i, len(sorted_values) - 1)]


def causes(qdisc, cause):
    return sum(b["marks_by_cause"][cause] for b in qdisc["bands"])


def main():
    if len(sys.argv) not in (6, 8):
        print(__doc__, file=sys.stderr)
        return 2
    d, name, senders = sys.argv[1], sys.argv[2], int(sys.argv[3])
    warmup, duration = float(sys.argv[4]), float(sys.argv[5])
    classes = [int(c) for c in sys.argv[6].split(",")] if len(sys.argv) == 8 else CLASSES[senders]
    join = float(sys.argv[7]) if len(sys.argv) == 8 else 0.0
    rtts = [BASE_US + DELAYS[c] for c in classes]
    out = {"name": name, "scenario": "validate", "side": "linux", "senders": senders,
           "rtts_us": ",".join(f"{r:.3f}" for r in rtts), "probe_rtt_us": f"{BASE_US + 1:.3f}",
           "warmup_s": warmup, "duration_s": duration, "host_marks": 0}
    # The queue: backlog samples at Poisson times (PASTA: time averages), in the window.
    q = []
    join_max = 0
    for line in open(os.path.join(d, "queue.txt")):
        w = line.split()
        if len(w) >= 3 and warmup <= float(w[0]) < duration:
            q.append(int(w[2]))
        if len(w) >= 3 and join and join <= float(w[0]) < join + 0.05:
            join_max = max(join_max, int(w[2]))
    if len(q) < 1000:
        raise stats.ResultError(f"{d}: {len(q)} queue samples in the window")
    q.sort()
    # The share of time with at most 15 packets queued: less than ECN#'s pst_target here
    # (17.95 us, 15.45 packets of 1452 bytes at 10 Gbit/s), where its persistent rule resets.
    out["queue_le15_share"] = f"{sum(1 for x in q if x <= 15) / len(q):.4f}"
    out.update(queue_mean_pkts=f"{sum(q) / len(q):.3f}", queue_p50_pkts=nearest_rank(q, 0.5),
               queue_p90_pkts=nearest_rank(q, 0.9), queue_p99_pkts=nearest_rank(q, 0.99),
               queue_max_pkts=q[-1], queue_samples=len(q))
    # The qdisc's counters over the window.
    q0 = json.load(open(os.path.join(d, "qdisc0.json")))[0]
    q1 = json.load(open(os.path.join(d, "qdisc1.json")))[0]
    out.update(marks=q1["marks"] - q0["marks"], packets=q1["packets"] - q0["packets"],
               drops=q1["drops"] - q0["drops"])
    for cause in ("ins", "pst", "red"):
        out[f"marks_{cause}"] = causes(q1, cause) - causes(q0, cause)
    # Goodput of each long flow over the window.
    total = 0.0
    for i in range(1, senders + 1):
        flows = [json.loads(l) for l in open(os.path.join(d, f"bulk{i}.jsonl"))
                 if l.startswith("{") and '"to"' in l]
        if len(flows) != 1:
            raise stats.ResultError(f"{d}/bulk{i}.jsonl: {len(flows)} flows")
        # Bytes over the window (a joining flow's from its start), as ns-3 counts them.
        g = flows[0]["window_bytes"] * 8 / (duration - warmup) / 1e9
        out[f"goodput{i}_gbps"] = f"{g:.3f}"
        total += g
    out["goodput_gbps"] = f"{total:.3f}"
    if join:
        cw = [line.split() for line in open(os.path.join(d, "cwnd.txt"))]
        pre = [float(w[1]) for w in cw if len(w) > 1 and join - 0.05 <= float(w[0]) < join]
        out.update(join_s=f"{join:.3f}", cwnd1_prejoin_seg=f"{sum(pre) / len(pre):.3f}"
                   if pre else "nan", queue_join_max_pkts=join_max)
    # Probes: FCT from connect() at r to the last byte read. r asks and p answers, so a probe
    # takes half p's base RTT more than ns-3's (connect at p): subtracted (validation.md).
    lines = [json.loads(l) for l in open(os.path.join(d, "probes.jsonl")) if l.startswith("{")]
    fcts = sorted(l["fct_us"] for l in lines if "fct_us" in l)
    summary = [l for l in lines if l.get("summary") == "flows"]
    if len(summary) != 1:
        raise stats.ResultError(f"{d}/probes.jsonl: no summary line")
    half = (BASE_US + 1) / 2
    adj = [f - half for f in fcts]
    out.update(probes=summary[0]["launched"], probes_unfinished=summary[0]["unfinished"],
               probe_fct_mean_us=f"{sum(adj) / len(adj):.1f}" if adj else "nan",
               probe_fct_p50_us=f"{nearest_rank(adj, 0.5):.1f}",
               probe_fct_p99_us=f"{nearest_rank(adj, 0.99):.1f}",
               probe_fct_raw_p50_us=f"{nearest_rank(fcts, 0.5):.1f}")
    # Each sender's own NIC (its tbf) over the whole run, when the guest wrote its counters
    # (tcp.txt): how often it held a packet back for want of tokens, against the packets sent.
    tcp = os.path.join(d, "tcp.txt")
    if os.path.exists(tcp):
        host = None
        lines = open(tcp).read().splitlines()
        for i, line in enumerate(lines):
            if line.startswith("== "):
                host = line[3:].strip()
            elif line.startswith("qdisc tbf") and host and host.startswith("s") and i + 1 < len(lines):
                w = lines[i + 1].replace(",", " ").replace("(", " ").replace(")", " ").split()
                if "Sent" in w and "overlimits" in w:
                    n = host[1:]
                    out[f"host_tbf_pkts{n}"] = int(w[w.index("Sent") + 3])
                    out[f"host_tbf_overlimits{n}"] = int(w[w.index("overlimits") + 1])
    print(" ".join(f"{k}={v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (stats.ResultError, OSError, KeyError, ValueError, IndexError) as e:
        print(f"linux_summary: {e}", file=sys.stderr)
        sys.exit(1)
