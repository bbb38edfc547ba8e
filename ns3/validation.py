#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""validation.md from the validation runs (ns3/validate.sh, and the Linux side when it exists).

    validation.py RESULTS_DIR

reads RESULTS_DIR/validation/ns3-runs.txt (and linux-runs.txt: the same keys, one line per run,
name=SCHEME-SENDERS-markX with X = linux), draws the figures into RESULTS_DIR/fig/ and fills
ns3/validation.md.in into RESULTS_DIR/validation.md. Every number on that page comes from here.
"""
import collections
import gzip
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ss_summary  # noqa: E402
import stats  # noqa: E402
import testbed_compare  # noqa: E402

NAMES = {"ecnsharp": "ECN#", "red_tail": "DCTCP-RED-Tail"}
# The tolerance of the comparison, stated before any Linux run (validation.md, "Agreement").
TOLERANCE = [  # key, relative, absolute floor, what
    ("queue_mean_pkts", 0.20, 3.0, "queue mean"),
    ("queue_p99_pkts", 0.20, 3.0, "queue p99"),
    ("marks_per_kpkt", 0.25, 2.0, "marks per 1,000 packets"),
    ("share1", 0.0, 0.05, "goodput share of flow 1"),
    ("cwnd1_mean_seg", 0.25, 3.0, "mean cwnd of flow 1 (segments)"),
    ("cwndN_mean_seg", 0.25, 3.0, "mean cwnd of the last flow (segments)"),
    ("probe_fct_p50_us", 0.15, 10.0, "probe FCT p50"),
    ("probe_fct_p99_us", 0.25, 20.0, "probe FCT p99"),
    # Join runs only: the lone flow's cwnd before the join, the queue's peak in the 50 ms after.
    ("cwnd1_prejoin_seg", 0.25, 5.0, "the lone flow's cwnd before the join (segments)"),
    ("queue_join_max_pkts", 0.25, 5.0, "the queue's peak in the 50 ms after the join"),
    ("cwnd1_prejoin_max_seg", 0.25, 5.0, "the lone flow's largest cwnd from 0.2 s to the join"),
]


def load(path):
    if not os.path.exists(path):
        return {}
    runs = {}
    for i, line in enumerate(open(path)):
        if line.strip():
            r = stats.parse_line(line, f"{path}:{i + 1}")
            runs[stats_name(r)] = r
    return runs


def stats_name(r):
    if "name" not in r:
        raise stats.ResultError("a validation run without name=")
    return r["name"]


def cwnd_max(results, name, start, end):
    """The largest cwnd (segments) of the first long flow in [start, end) s."""
    path = os.path.join(results, "validation", f"{name}.cwnd.gz")
    top = 0.0
    with gzip.open(path, "rt") as f:
        for line in f:
            w = line.split()
            if not line.startswith("#") and start * 1e6 <= float(w[0]) < end * 1e6:
                top = max(top, float(w[1]))
    return top


def cwnd_means(results, name, warmup, senders):
    """Mean cwnd (segments) of each long flow over the window, from the .cwnd series."""
    path = os.path.join(results, "validation", f"{name}.cwnd.gz")
    sums = [0.0] * senders
    n = 0
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.split()
            if float(w[0]) < warmup * 1e6:
                continue
            for i in range(senders):
                sums[i] += float(w[1 + i])
            n += 1
    return [s / n for s in sums] if n else [float("nan")] * senders


def derived(results, name, r):
    """The compared quantities that are not in the line itself."""
    pk = stats.need(r, "packets")
    r["marks_per_kpkt"] = f"{1000 * stats.need(r, 'marks') / pk:.3f}" if pk else "nan"
    senders = int(stats.need(r, "senders"))
    r["share1"] = f"{stats.need(r, 'goodput1_gbps') / stats.need(r, 'goodput_gbps'):.4f}"
    cw = cwnd_means(results, name, stats.need(r, "warmup_s"), senders)
    r["cwnd1_mean_seg"] = f"{cw[0]:.2f}"
    r["cwndN_mean_seg"] = f"{cw[-1]:.2f}"
    if "join_s" in r:
        r["cwnd1_prejoin_max_seg"] = (
            f"{cwnd_max(results, name, stats.need(r, 'warmup_s'), stats.need(r, 'join_s')):.0f}")
    return r


def table(results, runs):
    md = ["| run | queue mean / p50 / p90 / p99 / max pkts | sojourn mean / p99 us | marks "
          "(ins / pst / red) | host marks | drops | goodput per flow Gbit/s | mean cwnd per "
          "flow (segments) | probe FCT mean / p50 / p99 us |", "|" + "---|" * 9]
    for name, r in runs.items():
        senders = int(stats.need(r, "senders"))
        gp = " / ".join(f"{stats.need(r, f'goodput{i + 1}_gbps'):.2f}" for i in range(senders))
        cw = cwnd_means(results, name, stats.need(r, "warmup_s"), senders)
        md.append(
            f"| {name} | {stats.need(r, 'queue_mean_pkts'):.1f} / {stats.need(r, 'queue_p50_pkts'):.0f}"
            f" / {stats.need(r, 'queue_p90_pkts'):.0f} / {stats.need(r, 'queue_p99_pkts'):.0f} / "
            f"{stats.need(r, 'queue_max_pkts'):.0f} | {stats.need(r, 'sojourn_mean_us'):.1f} / "
            f"{stats.need(r, 'sojourn_p99_us'):.1f} | {stats.need(r, 'marks'):.0f} "
            f"({stats.need(r, 'marks_ins'):.0f} / {stats.need(r, 'marks_pst'):.0f} / "
            f"{stats.need(r, 'marks_red'):.0f}) | {stats.need(r, 'host_marks'):.0f} | "
            f"{stats.need(r, 'drops'):.0f} | {gp} | " + " / ".join(f"{c:.0f}" for c in cw) +
            f" | {stats.need(r, 'probe_fct_mean_us'):.0f} / {stats.need(r, 'probe_fct_p50_us'):.0f}"
            f" / {stats.need(r, 'probe_fct_p99_us'):.0f} |")
    return "\n".join(md)


def num(v):
    return f"{v:.3f}" if abs(v) < 1 else f"{v:.1f}"


# The ns-3 columns of a comparison: the run name's suffix after SCHEME-SENDERS-, and a heading.
COLUMNS = [("mark20", "ns-3, host marker 20 us"), ("mark0", "ns-3, no host marker")]
COLUMNS_DEFER = [("mark20-defer", "ns-3 deferring, host marker 20 us"),
                 ("mark0-defer", "ns-3 deferring, no host marker")]
COLUMNS_DEFER2 = [("mark20-defer2", "ns-3 deferring in CWR too, host marker 20 us"),
                  ("mark0-defer2", "ns-3 deferring in CWR too, no host marker")]
# Round 8: the sender and host model of the sweep (ns3/sender.sh's HEADLINE_SENDER).
COLUMNS_HEADLINE = [("headline", "ns-3, the sweep's sender and hosts")]


# (tag, column, "several" / "join") -> (within, total) of each comparison made, for the prose.
COUNTS = {}
# (tag, column) -> the comparisons outside the tolerance, worded for the prose.
OUTSIDE = collections.defaultdict(list)


def compare(results, ns3, linux, columns=COLUMNS, against="Linux", tag="linux"):
    """Each Linux run beside the ns-3 runs of the same scheme and senders in `columns`."""
    if not linux:
        return "No Linux run yet (`docs/results/ns3/validation/linux-runs.txt` is absent)."
    md = [f"| scheme, senders | metric | {against} | " + " | ".join(h for _, h in columns) +
          " | tolerance |", "|---|---|---|" + "---|" * len(columns) + "---|"]
    within = collections.Counter()  # (join run?, column) -> comparisons within tolerance
    total = collections.Counter()
    for name, lx in linux.items():
        scheme, senders = name.split("-")[:2]  # senders: "2", "4" or "2join"
        for key, rel, floor, what in TOLERANCE:
            if key not in derived(results, name, lx):
                continue  # a join metric of a run without a join
            want = stats.need(lx, key)
            cells = []
            for col, _ in columns:
                r = ns3.get(f"{scheme}-{senders}-{col}")
                if r is None:
                    cells.append("not run")
                    continue
                got = stats.need(derived(results, r["name"], r), key)
                ok = abs(got - want) <= max(rel * abs(want), floor)
                kind = "join" if senders.endswith("join") else "several"
                total[kind, col] += 1
                within[kind, col] += ok
                cells.append(f"{num(got)} ({'within' if ok else 'outside'})")
                if not ok:
                    run = "join run" if kind == "join" else f"{senders} senders"
                    OUTSIDE[tag, col].append(f"{NAMES.get(scheme, scheme)} ({run}), {what}: "
                                             f"{num(got)} against {num(want)}")
            md.append(f"| {NAMES.get(scheme, scheme)}, {senders} | {what} | {num(want)} | " +
                      " | ".join(cells) + f" | {rel:.0%} or {floor:g} |")
    md.append("")
    for col, _ in columns:
        for kind in ("several", "join"):
            COUNTS[tag, col, kind] = (within[kind, col], total[kind, col])
    for kind, what in (("several", "runs with several flows from the start"),
                       ("join", "join runs (a lone flow, then a second)")):
        counts = [f"{within[kind, col]} of {total[kind, col]} ({h})" for col, h in columns
                  if total[kind, col]]
        if counts:
            md.append(f"- {what}: within the tolerance in " + ", ".join(counts) + ".")
    return "\n".join(md)


# The figure's labels for TOLERANCE's keys.
SHORT = {"queue_mean_pkts": "queue mean", "queue_p99_pkts": "queue p99",
         "marks_per_kpkt": "marks/kpkt", "share1": "share 1", "cwnd1_mean_seg": "cwnd 1",
         "cwndN_mean_seg": "cwnd last", "probe_fct_p50_us": "probe p50",
         "probe_fct_p99_us": "probe p99", "cwnd1_prejoin_seg": "cwnd pre-join",
         "queue_join_max_pkts": "queue peak post-join",
         "cwnd1_prejoin_max_seg": "cwnd max pre-join"}


def agreement_figure(results, ns3, linux, col, title):
    """Every comparison of ns-3's `col` runs with Linux: ns-3's value over Linux's, with the
    band the tolerance allows around 1, one point per (run, metric)."""
    rows = []
    for name, lx in linux.items():
        scheme, senders = name.split("-")[:2]
        r = ns3.get(f"{scheme}-{senders}-{col}")
        if r is None:
            continue
        got_all = derived(results, r["name"], dict(r))
        for key, rel, floor, what in TOLERANCE:
            if key not in derived(results, name, lx):
                continue
            want = stats.need(lx, key)
            got = stats.need(got_all, key)
            if want <= 0:
                continue  # no ratio to draw (the table still compares it)
            tol = max(rel * abs(want), floor) / want
            ok = abs(got - want) <= tol * want
            label = f"{'E' if scheme == 'ecnsharp' else 'R'}{senders} {SHORT[key]}"
            rows.append((label, got / want, max(1 - tol, 0.01), 1 + tol, ok))
    if not rows:
        return "Not run yet."
    figdir = os.path.join(results, "fig")
    os.makedirs(figdir, exist_ok=True)
    dat = os.path.join(figdir, f"validation-{col}.agreement.dat")
    with open(dat, "w") as f:
        for ok in (True, False):
            for i, (label, ratio, lo, hi, w) in enumerate(rows):
                if w == ok:
                    f.write(f'{i} {ratio:.4f} {lo:.4f} {hi:.4f} "{label}"\n')
            f.write("\n\n")
    svg = os.path.join(figdir, f"validation-{col}.agreement.svg")
    subprocess.run(["gnuplot"], text=True, check=True, input=f"""set terminal svg size 1200,480 font 'sans,11'
set output '{svg}'
set title "{title}: ns-3 / Linux per comparison (bars: the tolerance around Linux's value; E ECN#, R DCTCP-RED-Tail)"
set ylabel 'ns-3 / Linux'
set logscale y
set yrange [0.25:4]
set ytics (0.25, 0.5, 0.8, 1, 1.25, 2, 4)
set xrange [-1:{len(rows)}]
set xtics rotate by -60 font 'sans,8'
set grid ytics
set key outside right top
plot 1 notitle lc 'gray' dt 2, \\
  '{dat}' index 0 using 1:(1):3:4 with yerrorbars pt 0 lc 'dark-green' notitle, \\
  '' index 0 using 1:2:xtic(5) with points pt 7 lc 'dark-green' title 'within', \\
  '' index 1 using 1:(1):3:4 with yerrorbars pt 0 lc 'red' notitle, \\
  '' index 1 using 1:2:xtic(5) with points pt 5 lc 'red' title 'outside'
""")
    return f"![{title}](fig/{os.path.basename(svg)})"


def figures(results, runs):
    figdir = os.path.join(results, "fig")
    os.makedirs(figdir, exist_ok=True)
    out = []
    for senders in ("2", "4", "2join"):
        names = [n for n in runs if n.split("-")[1] == senders]
        if not names:
            continue
        dat = os.path.join(figdir, f"validation-{senders}.queue-cdf.dat")
        blocks = []
        for name in names:
            hist = read_hist(os.path.join(results, "validation", f"{name}.hist"))
            total = sum(ns for _, ns in hist)
            acc = 0.0
            rows = []
            for pk, ns in hist:
                acc += ns
                rows.append(f"{pk:g} {acc / total:.6f}")
            blocks.append("\n".join(rows))
        with open(dat, "w") as f:
            f.write("\n\n\n".join(blocks) + "\n")
        svg = os.path.join(figdir, f"validation-{senders}.queue-cdf.svg")
        plots = ", ".join(f"'{dat}' index {i} using 1:2 with steps lw 2 title '{n}'"
                          for i, n in enumerate(names))
        subprocess.run(["gnuplot"], text=True, check=True, input=f"""set terminal svg size 720,420 font 'sans,12'
set output '{svg}'
set title "Validation, {senders} senders: bottleneck queue, time-weighted CDF over the window"
set xlabel 'packets queued'
set ylabel 'fraction of time'
set key bottom right
set grid
plot {plots}
""")
        out.append(f"![queue CDF, {senders} senders](fig/{os.path.basename(svg)})")
        # cwnd of each long flow over 100 ms (around the join), marker on and off.
        t0, t1 = (450000, 550000) if senders.endswith("join") else (200000, 300000)
        for scheme in ("ecnsharp", "red_tail"):
            pair = [f"{scheme}-{senders}-mark20", f"{scheme}-{senders}-mark0"]
            if not all(p in runs for p in pair):
                continue
            dat = os.path.join(figdir, f"validation-{scheme}-{senders}.cwnd.dat")
            blocks = []
            for p in pair:
                with gzip.open(os.path.join(results, "validation", f"{p}.cwnd.gz"), "rt") as f:
                    rows = [l.strip() for l in f if not l.startswith("#")
                            and t0 <= float(l.split()[0]) < t1]
                blocks.append("\n".join(rows))
            with open(dat, "w") as f:
                f.write("\n\n\n".join(blocks) + "\n")
            svg = os.path.join(figdir, f"validation-{scheme}-{senders}.cwnd.svg")
            rtts = runs[pair[0]]["rtts_us"].split(",")
            plots = ", ".join(
                f"'{dat}' index {b} using ($1/1000):{i + 2} with lines dt {1 + b} "
                f"title 'RTT {float(rtts[i]):.0f} us, {'marker 20 us' if b == 0 else 'no marker'}'"
                for b in range(2) for i in range(int(senders[0])))
            subprocess.run(["gnuplot"], text=True, check=True, input=f"""set terminal svg size 720,420 font 'sans,12'
set output '{svg}'
set title "Validation, {NAMES[scheme]}, {senders} senders: cwnd of each long flow, {t0 / 1e6:g}-{t1 / 1e6:g} s"
set xlabel 'time (ms)'
set ylabel 'cwnd (segments)'
set key outside right
set grid
plot {plots}
""")
            out.append(f"![cwnd, {NAMES[scheme]}, {senders} senders](fig/{os.path.basename(svg)})")
    return "\n".join(out)


# Linux runs made again with one change each (ns3/validate-linux.sh NS3_LINUX_VARIANT=NAME):
# name, the file's suffix, and what the change was.
VARIANTS = [
    ("light", "samplers 50 us / 10 ms"),
    ("nonic", "samplers 50 us / 10 ms, no NIC shaper on the hosts"),
    ("q5", "samplers 5 us / 10 ms"),
    ("pcapnonic", "5 us / 10 ms, no NIC shaper, 20 ms captured"),
    ("pcapnonic-k2", "the same on a kernel whose own clock reads cost no virtual time"),
    ("softirq", "5 us / 10 ms, delays on the ACKs, nothing on the senders' egress"),
    ("nodefer-pcap", "the same with tcp_tso_win_divisor 255"),
]


def instrument(results, linux, variants, names):
    """The Linux runs beside their variants `names` (the same runs with one change each), and
    each variant run's per-flow DCTCP state from its whole ss lines."""
    variants = {v: r for v, r in variants.items() if v in names}
    if not any(variants.values()):
        return "Not run yet (no `validation/linux-runs-VARIANT.txt`)."
    keys = [("queue_mean_pkts", "queue mean (pkts)"), ("queue_p50_pkts", "queue p50"),
            ("queue_le15_share", "share of time with at most 15 packets queued"),
            ("queue_p90_pkts", "queue p90"), ("queue_p99_pkts", "queue p99"),
            ("marks_per_kpkt", "marks per 1,000 packets"), ("marks_pst", "persistent-rule marks"),
            ("goodput1_gbps", "goodput, flow 1 (Gbit/s)"), ("goodput2_gbps", "goodput, flow 2"),
            ("cwnd1_mean_seg", "mean cwnd, flow 1 (segments)"),
            ("cwndN_mean_seg", "mean cwnd, flow 2"), ("probe_fct_p50_us", "probe FCT p50 (us)"),
            ("queue_samples", "queue samples in the window"), ("wall_s", "wall time of the run (s)")]
    cols = [(v, what) for v, what in VARIANTS if variants.get(v)]
    md = ["| run | metric | samplers 1 us / 1 ms | " + " | ".join(w for _, w in cols) + " |",
          "|" + "---|" * (3 + len(cols))]
    flows = ["| run | flow | mean cwnd | in flight (unacked) | notsent KB | srtt / minrtt us | "
             "DCTCP alpha | CE fraction of delivered | samples reducing (cwnd > ssthresh) | "
             "own NIC's throttles per packet sent |", "|" + "---|" * 10]
    bases = []
    for v, _ in cols:
        for name in variants[v]:
            base = name[:-len("-" + v)]
            if base not in bases:
                bases.append(base)
    for base_name in bases:
        base = linux.get(base_name)
        if base:
            derived(results, base_name, base)
        runs = []
        for v, _ in cols:
            r = variants[v].get(f"{base_name}-{v}")
            if r:
                derived(results, f"{base_name}-{v}", r)
            runs.append(r)
        for key, what in keys:
            cells = [num(stats.need(r, key)) if r and key in r else "-" for r in [base] + runs]
            md.append(f"| {base_name} | {what} | " + " | ".join(cells) + " |")
    for v, _ in cols:
        for name, lt in variants[v].items():
            ss = os.path.join(results, "validation", f"{name}.ss.gz")
            if not os.path.exists(ss):
                continue
            for flow, f in ss_summary.summarise(ss, stats.need(lt, "warmup_s"),
                                                stats.need(lt, "duration_s")).items():
                n = flow[1:]
                nic = (f"{stats.need(lt, f'host_tbf_overlimits{n}') / stats.need(lt, f'host_tbf_pkts{n}'):.2f}"
                       if f"host_tbf_pkts{n}" in lt else "-")
                flows.append(
                    f"| {name} | {flow} | {f['cwnd']:.1f} | {f['unacked']:.1f} | "
                    f"{f['notsent_kb']:.0f} | {f['srtt_us']:.1f} / {f['minrtt_us']:.1f} | "
                    f"{f['alpha']:.3f} | {f['ce_fraction']:.3f} | {f['reducing']:.2f} | {nic} |")
    return "\n".join(md) + "\n\n" + "\n".join(flows)


def read_hist(path):
    """ns-3's exact queue distribution (.hist): (packets, ns spent there) rows."""
    return [tuple(map(int, l.split())) for l in open(path) if not l.startswith("#")]


def hist_le(path, n):
    """The share of time ns-3's bottleneck held at most n packets (its exact .hist)."""
    rows = read_hist(path)
    total = sum(ns for _, ns in rows)
    return sum(ns for q, ns in rows if q <= n) / total


def diagnosis(results, ns3):
    """ns-3 runs made again with one change (validation/ns3-diagnosis.txt) beside the run."""
    runs = load(os.path.join(results, "validation", "ns3-diagnosis.txt"))
    md = ["| run | change | queue mean / p50 / p90 / p99 | at most 15 packets queued | "
          "marks per 1,000 packets | persistent-rule marks | goodput per flow Gbit/s |",
          "|" + "---|" * 7]
    for name, r in runs.items():
        base = name.rsplit("-", 1)[0]
        for n, x, change in ((base, ns3.get(base), "none"), (name, r, r.get("change", "?"))):
            if x is None:
                raise stats.ResultError(f"ns3-diagnosis: no run {n}")
            hist = os.path.join(results, "validation", f"{n}.hist")
            gp = " / ".join(f"{stats.need(x, f'goodput{i + 1}_gbps'):.2f}"
                            for i in range(int(stats.need(x, "senders"))))
            md.append(f"| {n} | {change} | {stats.need(x, 'queue_mean_pkts'):.1f} / "
                      f"{stats.need(x, 'queue_p50_pkts'):.0f} / {stats.need(x, 'queue_p90_pkts'):.0f}"
                      f" / {stats.need(x, 'queue_p99_pkts'):.0f} | {hist_le(hist, 15):.3f} | "
                      f"{1000 * stats.need(x, 'marks') / stats.need(x, 'packets'):.1f} | "
                      f"{stats.need(x, 'marks_pst'):.0f} | {gp} |")
    return "\n".join(md) if runs else "Not run yet."


def dynamics(results):
    """How each sender's packets leave it (validation/dynamics.txt, ns3/pcap_dynamics.py)."""
    path = os.path.join(results, "validation", "dynamics.txt")
    if not os.path.exists(path):
        return "Not measured yet."
    md = ["| run | kernel | flow | seen at | data pkts/ms | gap p50 / p99 us | gaps over 10 us "
          "per ms | burst mean (pkts) | share of packets in bursts of 8+ | ACKs followed by 0 / "
          "1 / 2 / 3+ packets |", "|" + "---|" * 10]
    for i, line in enumerate(open(path)):
        w = stats.parse_line(line, f"{path}:{i + 1}")
        md.append(f"| {w['name']} | {w['kernel']} | {w['flow']} | {w['where']} | "
                  f"{w['pkts_per_ms']} | {w['gap_p50_us']} / {w['gap_p99_us']} | "
                  f"{w['gaps10_per_ms']} | {w['burst_mean']} | {w['burst8_share']} | "
                  f"{w['sent_per_ack_0']} / {w['sent_per_ack_1']} / {w['sent_per_ack_2']} / "
                  f"{w['sent_per_ack_3p']} |")
    return "\n".join(md)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    results = sys.argv[1]
    ns3 = load(os.path.join(results, "validation", "ns3-runs.txt"))
    linux = load(os.path.join(results, "validation", "linux-runs.txt"))
    variants = {v: load(os.path.join(results, "validation", f"linux-runs-{v}.txt"))
                for v, _ in VARIANTS}
    if not ns3:
        raise stats.ResultError("no ns-3 validation runs")
    first = next(iter(ns3.values()))
    testbed, tb_within, tb_total = testbed_compare.compare(
        results, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    fields = {
        "ns3_table": table(results, ns3),
        "compare_table": compare(results, ns3, linux),
        "compare_nodefer": compare(
            results, ns3, load(os.path.join(results, "validation", "linux-runs-nodefer.txt")),
            COLUMNS, "Linux, tcp_tso_win_divisor 255", tag="nodefer"),
        "compare_defer": compare(results, ns3, linux, COLUMNS_DEFER),
        "compare_defer2": compare(results, ns3, linux, COLUMNS_DEFER2),
        "compare_headline": compare(results, ns3, linux, COLUMNS_HEADLINE),
        "figure_headline": agreement_figure(results, ns3, linux, "headline",
                                            "Round 8, the sweep's sender"),
        "testbed": testbed,
        # The prose's counts, from the comparison itself, not copied by hand.
        "testbed_within": ", ".join(f"{tb_within[m]} of {tb_total[m]} ({h})"
                                    for m, h in testbed_compare.MODELS if tb_total[m])
        or "not run yet",
        "testbed_tolerance": "; ".join(f"{what} within {rel:.0%} of Linux's"
                                       for _, _, rel, what in testbed_compare.TOLERANCE) +
        f"; each ECN# / DCTCP-RED-Tail ratio within {testbed_compare.RATIO_TOLERANCE:g} of "
        "Linux's",
        "figures": figures(results, ns3),
        "instrument": instrument(results, linux, variants, ("light", "nonic")),
        "instrument3": instrument(results, linux, variants,
                                  ("q5", "pcapnonic", "pcapnonic-k2", "softirq", "nodefer-pcap")),
        "dynamics": dynamics(results),
        "diagnosis": diagnosis(results, ns3),
        "ns3_le15": " / ".join(
            f"{hist_le(os.path.join(results, 'validation', f'{s}-2-mark20.hist'), 15):.3f}"
            for s in ("ecnsharp", "red_tail")),
        "tolerance": "\n".join(f"- {what}: within {rel:.0%} of Linux's value or {floor:g} "
                               f"({key.replace('_', ' ')})" for key, rel, floor, what in TOLERANCE),
        "rule": " ".join(f"{k}={first[k]}" for k in ("lambda", "rtt_mean_us", "rtt_p90_us")),
        "ecnsharp_params": next((f"ins_target {int(stats.need(r, 'ins_target_ns'))}ns pst_target "
                                 f"{int(stats.need(r, 'pst_target_ns'))}ns pst_interval "
                                 f"{int(stats.need(r, 'pst_interval_ns'))}ns"
                                 for n, r in ns3.items() if n.startswith("ecnsharp")), "not run"),
        "red_params": next((f"k {int(stats.need(r, 'k_bytes'))} k_unit bytes"
                            for n, r in ns3.items() if n.startswith("red_tail")), "not run"),
    }
    # The prose's counts of comparisons within the tolerance: n.TAG.COLUMN.several, .join and
    # .all ("W of T"), from the tables above, never copied by hand.
    for (tag, col, kind), (ok, n) in list(COUNTS.items()):
        fields[f"n.{tag}.{col}.{kind}"] = f"{ok} of {n}"
        if kind == "join":
            ok2, n2 = COUNTS[tag, col, "several"]
            fields[f"n.{tag}.{col}.all"] = f"{ok + ok2} of {n + n2}"
    # ...and what lies outside it: outside.TAG.COLUMN, every comparison, "; "-separated.
    for tag, col, _ in COUNTS:
        fields[f"outside.{tag}.{col}"] = "; ".join(OUTSIDE[tag, col]) or "none"
    # The same counts for ns3/plot.py's page, one line per model compared with Linux.
    with open(os.path.join(results, "validation", "agreement.txt"), "w") as f:
        for (tag, col, kind), (ok, n) in sorted(COUNTS.items()):
            f.write(f"against={tag} model={col} runs={kind} within={ok} compared={n}\n")
    # ...and what is outside it, one comparison per line: TAG MODEL<TAB>the prose's wording.
    with open(os.path.join(results, "validation", "outside.txt"), "w") as f:
        for (tag, col), items in sorted(OUTSIDE.items()):
            f.writelines(f"{tag} {col}\t{item}\n" for item in items)
    template = os.path.join(os.path.dirname(os.path.abspath(__file__)), "validation.md.in")
    text = open(template).read()
    for k, v in fields.items():
        text = text.replace("{{" + k + "}}", v)
    # A run's own number in the prose: {{ns3.NAME.KEY}} or {{linux.NAME.KEY}} (the keys of its
    # line and of derived()), KEY:D for D decimals, so that a rerun carries the prose with it.
    sides = {"ns3": ns3, "linux": linux}

    def value(side, name, key):
        if name not in sides[side]:
            raise stats.ResultError(f"validation.md.in: no {side} run {name}")
        return stats.need(derived(results, name, dict(sides[side][name])), key)

    def run_value(m):
        side, name, key, decimals = m.groups()
        v = value(side, name, key)
        return num(v) if decimals is None else f"{v:,.{decimals}f}"
    text = re.sub(r"\{\{(ns3|linux)\.([\w-]+)\.(\w+)(?::(\d))?\}\}", run_value, text)

    # A quotient of two such values: {{ratio:SIDE.NAME.KEY/SIDE.NAME.KEY:D}}.
    def operand(x):
        side = re.fullmatch(r"(ns3|linux)\.([\w-]+)\.(\w+)", x)
        if side is None:
            raise stats.ResultError(f"validation.md.in: '{x}' is not SIDE.RUN.KEY in a ratio")
        return value(*side.groups())

    def ratio(m):
        a, b = operand(m.group(1)), operand(m.group(2))
        if b == 0:
            raise stats.ResultError(f"validation.md.in: {m.group(2)} is 0 below a ratio")
        return f"{a / b:.{m.group(3)}f}"
    text = re.sub(r"\{\{ratio:([\w.-]+)/([\w.-]+):(\d)\}\}", ratio, text)
    if "{{" in text:
        raise stats.ResultError(f"{template}: unfilled field near "
                                f"'{text[text.index('{{'):text.index('{{') + 40]}'")
    with open(os.path.join(results, "validation.md"), "w") as f:
        f.write("<!-- Generated by ns3/validation.py from validation/*-runs.txt and "
                "ns3/validation.md.in: edit those. -->\n" + text)
    print(f"ns3-validation: {len(ns3)} ns-3 runs, {len(linux)} Linux runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
