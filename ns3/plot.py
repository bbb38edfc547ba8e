#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The results page of the ns-3 runs, every number from runs.txt (docs/results/ns3/rule.md).

    plot.py RESULTS_DIR MODEL

reads RESULTS_DIR/runs.txt (one line per run, its detail file in RESULTS_DIR/runs/), keeps the
runs of MODEL (the key ns3/full.sh computes from the model's git trees), and writes
RESULTS_DIR/tables.md (every point, with sample sizes and 95% intervals), the figures in
RESULTS_DIR/fig/ (gnuplot SVG) and RESULTS_DIR/README.md from the template ns3/page.md.in, whose
{{name}} fields are filled from the same numbers (a field the runs cannot fill says "not run").
"""
import collections
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402
import testbed_compare  # noqa: E402

NAMES = {"ecnsharp": "ECN#", "red_tail": "DCTCP-RED-Tail", "red_avg": "DCTCP-RED-AVG",
         "codel": "CoDel", "tcn": "TCN"}
ORDER = ["ecnsharp", "red_tail", "red_avg", "codel", "tcn"]
COLORS = {"ecnsharp": "#d62728", "red_tail": "#1f77b4", "red_avg": "#17becf",
          "codel": "#2ca02c", "tcn": "#9467bd"}
VARIANTS = {"rule": "the rule (lambda 0.17)", "lambda1": "S1: lambda = 1 for every scheme",
            "nohostmark": "S2 (before round 7): host marker off",
            "stockmark": "S2: ns-3's stock sender with the host marker",
            "authors": "S3: lambda 1, pst_target 10 us"}
F9_METRICS = [  # name, units, statistic, title
    ("fct_mean", stats.all_fcts, stats.mean, "overall mean FCT"),
    ("fct_short_mean", stats.short_fcts, stats.mean, "short-flow (<100 KB) mean FCT"),
    ("fct_short_p99", stats.short_fcts, stats.p99, "short-flow 99th percentile FCT"),
    ("fct_large_mean", stats.large_fcts, stats.mean, "large-flow (>10 MB) mean FCT"),
    ("queue_mean", stats.port_means, stats.mean, "queue_mean (every switch port, as filed)"),
]
SEEDS_WANTED = 3
# The loads rule.md plans for F9 under the rule (the sensitivity runs plan 0.4 and 0.8 only).
F9_LOADS = ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"]
# The paper's Figure 9 (web search) where its text gives the numbers (§5.3): ECN# / RED-Tail.
PAPER_F9 = {"fct_short_mean": [("0.4", 4607 / 7297), ("0.5", 5867 / 7195)],
            "fct_mean": [("0.2", 27644 / 37479), ("0.5", 23095 / 36931)]}
# The model's configuration (rule.md §1), to state thresholds in us and packets: every link's
# rate, a full data packet on the wire, a switch port's buffer.
LINK_BPS = 10e9
PKT_BYTES = 1454
PORT_LIMIT = 250
# Figure 10's window: samples 10 us apart from 1 ms before the queries (stats.fig10_blocks).
MS_SAMPLES = 100
NEAR_LIMIT = 200  # packets: "the burst's" queue, four fifths of the port's buffer
# dc.cc prints the mean or percentile of an empty set as 0: the field that counts the set says
# when such a 0 is no measurement (qct_us is -1 when a query did not finish, see qct_of).
COUNTED_BY = {"fct_short_mean_us": "short_flows", "fct_short_p99_us": "short_flows",
              "fct_large_mean_us": "large_flows", "queue_busy_mean_pkts": "port_busy",
              "bg_queue_busy_mean_pkts": "bg_queue_mean_pkts"}


class Page:
    """Everything computed, by name, for the tables and the template."""

    def __init__(self, results, model):
        self.results = results
        self.model = model
        self.values = {}
        self.details = {}
        self.md = []
        self.f10_ecnsharp = {}  # variant -> ECN#'s fig10_queue ratio, compared across settings

    def detail(self, run):
        key = run["key"]
        if key not in self.details:
            self.details[key] = stats.load_detail(os.path.join(self.results, run["detail"]))
        return self.details[key]

    def set(self, name, value):
        self.values[name] = value

    def ratio(self, runs_a, runs_b, units, stat, paired=False):
        """(point, lo, hi, seeds, bands) over the seeds both schemes ran (bands: the ends'
        Monte Carlo bands, stats._interval); `paired`: the paired interval over the same flows
        (units then gives {flow id: value} per run)."""
        a = {r["seed"]: r for r in runs_a}
        b = {r["seed"]: r for r in runs_b}
        seeds = sorted(set(a) & set(b), key=int)
        if not seeds:
            return None
        num = [units(self.detail(a[s])) for s in seeds]
        den = [units(self.detail(b[s])) for s in seeds]
        # Each interval draws from its own generator, seeded by what it compares (as make ns3's
        # line), so that it does not move when other runs are added to the page.
        rng = stats.point_rng(f"{stat.__name__}:{units.__name__}", num, den)
        ci = stats.paired_ratio_ci if paired else stats.ratio_ci
        point, lo, hi, bands = ci(stat, num, den, rng, bands=True)
        return point, lo, hi, len(seeds), bands


def fmt_ci(r):
    if r is None:
        return "not run"
    point, lo, hi, seeds = r[:4]
    few = f" ({seeds} of {SEEDS_WANTED} seeds)" if seeds < SEEDS_WANTED else ""
    if math.isnan(lo):
        return f"{point:.2f} [no interval: over 1% of the replicates undefined]{few}"
    # The verdicts take the side of 1 an end lies on: an end that would print as 1.00 without
    # being 1 gets the decimals that show its side (both ends alike).
    d = 2
    while d < 6 and any(e != 1 and f"{e:.{d}f}" == f"{1:.{d}f}" for e in (lo, hi)):
        d += 1
    return f"{point:.2f} [{lo:.{d}f}, {hi:.{d}f}]{EDGE if edge(r) else ''}{few}"


# Beside an interval whose side of 1 the bootstrap's own noise does not settle (stats.at_edge).
EDGE = " (at the edge)"
EDGE_NOTE = ("\"(at the edge)\": 1 lies outside the interval but within the Monte Carlo "
             "error of its nearer end (one standard deviation of that end's rank over the "
             f"{stats.BOOTSTRAP:,} replicates), so another generator seed could put 1 inside "
             "it; the rule's verdict still takes the interval as printed")


def edge(r):
    """Whether r's interval is at the edge of 1 (stats.at_edge)."""
    return (r is not None and len(r) > 4 and not math.isnan(r[1])
            and stats.at_edge(r[1], r[2], r[4]))


def complete(r):
    return r is not None and r[3] >= SEEDS_WANTED


def verdict(r, paper_below_one=True):
    """The rule's test (5): the interval wholly on the paper's side of 1."""
    if r is None:
        return "not run"
    if math.isnan(r[1]):
        return "no interval"
    point, lo, hi, seeds = r[:4]
    if seeds < SEEDS_WANTED:
        return f"incomplete ({seeds} of {SEEDS_WANTED} seeds)"
    side = hi < 1 if paper_below_one else lo > 1
    # fmt_ci, printed beside every verdict, marks an interval at the edge of 1.
    return "reproduces" if side else "does not reproduce"


def holds_one(ratios):
    """How many of the ratios' intervals hold 1 (no difference detected)."""
    return sum(r[1] <= 1 <= r[2] for r in ratios)


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def params_of(run):
    """ins_target / pst_target / K as the run printed them."""
    def show(key, scale, unit):
        v = int(stats.need(run, key))
        return f"{v / scale:g} {unit}" if v else "-"

    return " / ".join((show("ins_target_ns", 1000, "us"), show("pst_target_ns", 1000, "us"),
                       show("k_bytes", 1, "B")))


def params_all(runs):
    """params_of, which every run given (one scheme and topology) must have printed alike: the
    page states one value per scheme and topology."""
    seen = {params_of(r) for r in runs}
    if len(seen) != 1:
        raise stats.ResultError(f"runs of {runs[0]['scheme']} in one topology printed different "
                                f"thresholds ({' and '.join(sorted(seen))}): runs "
                                + ", ".join(r["key"] for r in runs))
    return seen.pop()


def threshold_fields(page, prefix, runs):
    """A scheme's thresholds in bytes, us at the link rate and packets, for the prose (after
    params_all: every run printed the same)."""
    r = runs[0]
    k = stats.need(r, "k_bytes")
    if k:
        page.set(f"{prefix}.k_bytes", f"{k:,.0f}")
        page.set(f"{prefix}.k_us", f"{k * 8 / LINK_BPS * 1e6:.1f}")
        page.set(f"{prefix}.k_pkts", f"{k / PKT_BYTES:.0f}")
        page.set(f"{prefix}.k_below_limit", f"{PORT_LIMIT - k / PKT_BYTES:.0f}")
    for key, name in (("ins_target_ns", "ins"), ("pst_target_ns", "pst")):
        v = stats.need(r, key)
        if v:
            page.set(f"{prefix}.{name}_us", f"{v / 1000:.1f}")
            page.set(f"{prefix}.{name}_pkts", f"{v * 1e-9 * LINK_BPS / 8 / PKT_BYTES:.0f}")


def measured(run, key):
    """Whether the run's `key` is a measurement, not dc.cc's 0 for an empty set."""
    if key == "qct_us":
        return stats.need(run, "queries") > 0 and stats.need(run, key) >= 0
    count = COUNTED_BY.get(key)
    # (Lines of earlier models may lack the count: then nothing tells.)
    return count is None or count not in run or stats.need(run, count) > 0


def qct_of(runs):
    """(the mean QCT of the runs whose queries all finished, how many runs had a query that did
    not): dc.cc prints qct_us=-1 for those, never averaged in."""
    for r in runs:
        if stats.need(r, "qct_us") < 0 and stats.need(r, "qct_us") != -1:
            raise stats.ResultError(f"run {r['key']}: qct_us={r['qct_us']}")
    done = [stats.need(r, "qct_us") for r in runs if measured(r, "qct_us")]
    return (sum(done) / len(done) if done else math.nan), len(runs) - len(done)


def qct_cell(runs):
    mean, left = qct_of(runs)
    text = "none finished" if math.isnan(mean) else f"{mean:.0f}"
    return text + (f" ({left} of {len(runs)} runs with an unfinished query, left out)"
                   if left else "")


def unfinished_queries(page, runs):
    return sum(1 for r in runs for _, fct, query, _ in page.detail(r)["flows"]
               if query and fct == stats.INF)


def grouped(runs, keys):
    g = collections.defaultdict(list)
    for r in runs:
        g[tuple(r[k] for k in keys)].append(r)
    return g


def by_seed(runs, key, fmt):
    """The runs' `key`, seed by seed in seed order, "/"-separated (seeds 1/2/3)."""
    return "/".join(fmt.format(stats.need(x, key))
                    for x in sorted(runs, key=lambda x: int(x["seed"])))


def marks_pst_alone(run):
    """The marks the persistent rule made alone: a packet two rules fired on counts once in
    marks and once under each cause, so these are the marks no other cause (instantaneous,
    RED) made."""
    return stats.need(run, "marks") - stats.need(run, "marks_ins") - stats.need(run, "marks_red")


def mean_of(runs, key):
    """The mean over the runs where `key` is a measurement (measured)."""
    vals = [stats.need(r, key) for r in runs if measured(r, key)]
    return sum(vals) / len(vals) if vals else math.nan


def p99_rank(n):
    """Which flow, counted from the slowest, stats.p99 returns out of n."""
    return n - int(0.99 * (n - 1) + 0.5)


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def arrival_quarters(d):
    """A run's short-flow FCTs in four lists by when the flow arrived: the quarters of the span
    from its first arrival to its last (extra, review of 2026-11-29: does the load's ramp in a
    window with no warm-up change the short flows' FCTs over the window?)."""
    starts = [float(i[1]) for i in d["flow_ids"]]
    t0, span = min(starts), (max(starts) - min(starts)) or 1.0
    out = [[], [], [], []]
    for (size, fct, query, _), t in zip(d["flows"], starts):
        if not query and size < stats.SHORT_BYTES:
            out[min(3, int(4 * (t - t0) / span))].append(fct)
    return out


def f9_quarters(page, runs, workload):
    """The short flows' mean FCT by arrival quarter, RED-Tail and ECN#, at each load with every
    seed of both (rule's runs, 128 hosts): a table and the prose's ranges."""
    sel = [r for r in runs if r["scenario"] == "leafspine" and r["variant"] == "rule"
           and r["workload"] == workload and r["hosts"] == "128"]
    g = grouped(sel, ("load", "scheme"))
    rows, growth, first, last = [], [], [], []
    for load in sorted({k[0] for k in g}, key=float):
        q = {}
        for s in ("red_tail", "ecnsharp"):
            rs = g.get((load, s), [])
            if len(rs) < SEEDS_WANTED:
                break
            pooled = [[], [], [], []]
            for r in rs:
                for i, fcts in enumerate(arrival_quarters(page.detail(r))):
                    pooled[i] += fcts
            q[s] = [stats.mean(x) for x in pooled]
        if len(q) < 2:
            continue
        ratio = [a / b for a, b in zip(q["ecnsharp"], q["red_tail"])]
        growth.append(q["red_tail"][3] / q["red_tail"][0])
        first.append(ratio[0])
        last.append(ratio[3])
        rows.append(f"| {load} | " + " / ".join(f"{v:.0f}" for v in q["red_tail"]) + " | "
                    + " / ".join(f"{v:.0f}" for v in q["ecnsharp"]) + " | "
                    + " / ".join(f"{v:.2f}" for v in ratio) + " |")
    tag = f"f9.rule.{workload}.quarters"
    if not rows:
        page.set(tag, "not run")
        return
    page.md += [f"### {workload}: short flows by arrival quarter (extra)", "",
                "Each run's arrivals split into four quarters of its span, seeds pooled; mean "
                "FCT (us) of the short flows that arrived in each (added after the results were "
                "seen, review of 2026-11-29).", "",
                "| load | RED-Tail, quarters 1-4 | ECN#, quarters 1-4 | ECN# / RED-Tail |",
                "|---|---|---|---|"] + rows + [""]

    def span(v, d=2):
        return f"{min(v):.{d}f}-{max(v):.{d}f}" if f"{min(v):.{d}f}" != f"{max(v):.{d}f}" \
            else f"{v[0]:.{d}f}"
    page.set(tag, f"RED-Tail's short-flow mean in the last quarter of arrivals is {span(growth)} "
                  f"times its first quarter's over the {len(rows)} loads with every seed, and "
                  f"ECN# / RED-Tail is {span(first)} in the first quarter and {span(last)} in the "
                  "last")


def f9_section(page, runs, variant, workload, hosts="128", tag=None, planned=(), verdicts=True):
    """Leaf-spine FCTs normalised to DCTCP-RED-Tail, with intervals (Figure 9). `planned`: the
    loads the rule plans, listed in the headline as not run until they are; `verdicts`: whether
    the headline gives the rule's verdicts (not for the make ns3 point, a smoke test).
    Returns whether every point (the planned loads, each scheme) has all its seeds."""
    sel = [r for r in runs if r["scenario"] == "leafspine" and r["variant"] == variant
           and r["workload"] == workload and r["hosts"] == hosts]
    if not sel:
        return False
    g = grouped(sel, ("load", "scheme"))
    loads = sorted({k[0] for k in g}, key=float)
    # The simulated window (every run: arrivals until the 667th short flow of the seed, then
    # until the last flow ends), for the page: it bounds what a load means here.
    launch = [stats.need(r, "launch_s") * 1000 for r in sel]
    end = [stats.need(r, "sim_end_s") * 1000 for r in sel]
    page.set(f"{tag or f'f9.{variant}.{workload}'}.window",
             f"arrivals over {min(launch):.0f}-{max(launch):.0f} ms, runs ending at "
             f"{min(end):.0f}-{max(end):.0f} ms")
    schemes = [s for s in ORDER if any((l, s) in g for l in loads)]
    tag = tag or f"f9.{variant}.{workload}"
    title = f"Leaf-spine, {workload}, {hosts} hosts, {VARIANTS[variant]}"
    md = page.md
    md += [f"## {title}", "",
           "Ratios to DCTCP-RED-Tail at the same load over the pooled seeds, with bootstrap 95% "
           "intervals; FCTs pooled over the seeds; queue_mean, drops, marks and the busy ports' "
           "queue are means of the runs (per run).", "",
           "| load | scheme | seeds | flows (unfinished) | short flows | large flows | "
           "short p99 us | short mean us | large mean us | queue_mean pkts | drops | "
           "flows with a timeout | "
           "busy ports' queue pkts | marks (share by the persistent rule alone) | "
           + " | ".join(m[0] + " / RED-Tail" for m in F9_METRICS)
           + " | fct_short_mean / RED-Tail, paired (extra) |",
           "|" + "---|" * (15 + len(F9_METRICS))]
    series = collections.defaultdict(list)  # metric -> rows (load, scheme, ratio)
    pst_shares = collections.defaultdict(list)  # scheme -> the persistent rule's share per load
    for load in loads:
        base = g.get((load, "red_tail"), [])
        for s in schemes:
            rs = g.get((load, s))
            if not rs:
                continue
            ds = [page.detail(r) for r in rs]
            shorts = [v for d in ds for v in stats.short_fcts(d)]
            larges = [v for d in ds for v in stats.large_fcts(d)]
            flows = sum(int(stats.need(r, "flows")) for r in rs)
            unf = sum(int(stats.need(r, "unfinished")) for r in rs)
            ratios = []
            for name, units, stat, _ in F9_METRICS:
                r = page.ratio(rs, base, units, stat) if base and s != "red_tail" else None
                ratios.append(r)
                series[name].append((load, s, r))
                page.set(f"{tag}.{load}.{s}.{name}", fmt_ci(r))
                page.set(f"{tag}.{load}.{s}.{name}.verdict", verdict(r))
            # The paired interval (stats.py: the same flows for both schemes), ECN# only.
            paired = page.ratio(rs, base, stats.short_flows_by_id, stats.mean, paired=True) \
                if base and s == "ecnsharp" else None
            series["fct_short_mean.paired"].append((load, s, paired))
            page.set(f"{tag}.{load}.{s}.fct_short_mean.paired", fmt_ci(paired))
            p99 = stats.p99(shorts)
            page.set(f"{tag}.{load}.{s}.short_flows", f"{len(shorts)}")
            page.set(f"{tag}.{load}.{s}.large_flows", f"{len(larges)}")
            page.set(f"{tag}.{load}.{s}.short_p99_us", f"{p99:.0f}")
            page.set(f"{tag}.{load}.{s}.seeds", f"{len(rs)}")
            # Marks by cause: the share of a scheme's marks that its persistent rule made alone.
            marks = sum(stats.need(r, "marks") for r in rs)
            alone = sum(marks_pst_alone(r) for r in rs)
            has_pst = any(stats.need(r, "marks_pst") for r in rs)
            pst = alone / marks if marks and has_pst else math.nan
            share = "-" if math.isnan(pst) else f"{100 * pst:.2f}%"
            if not math.isnan(pst) and len(rs) >= SEEDS_WANTED:  # as the summaries: whole points
                pst_shares[s].append(pst)
            page.set(f"{tag}.{load}.{s}.drops", f"{mean_of(rs, 'drops'):,.0f}")
            page.set(f"{tag}.{load}.{s}.timeouts", f"{mean_of(rs, 'timeouts'):,.0f}")
            page.set(f"{tag}.{load}.{s}.queue_mean_pkts", f"{mean_of(rs, 'queue_mean_pkts'):.2f}")
            busy = mean_of(rs, "queue_busy_mean_pkts")
            busy = "-" if math.isnan(busy) else f"{busy:.1f}"  # no port was ever busy
            page.set(f"{tag}.{load}.{s}.queue_busy_mean_pkts", busy)
            short_mean = stats.mean(shorts)
            page.set(f"{tag}.{load}.{s}.short_mean_us", f"{short_mean:,.0f}")
            page.set(f"{tag}.{load}.{s}.fct_mean_us",
                     f"{stats.mean([v for d in ds for v in stats.all_fcts(d)]):,.0f}")
            md.append(
                f"| {load} | {NAMES[s]} | {len(rs)} | {flows} ({unf}) | {len(shorts)} | "
                f"{len(larges)} | {p99:.0f} | {short_mean:.0f} | "
                f"{stats.mean(larges):.0f} | {mean_of(rs, 'queue_mean_pkts'):.2f} | "
                f"{mean_of(rs, 'drops'):.0f} | {mean_of(rs, 'timeouts'):.0f} | {busy} | "
                f"{mean_of(rs, 'marks'):.0f} ({share}) | "
                + " | ".join("-" if s == "red_tail" else fmt_ci(r) for r in ratios)
                + f" | {'-' if paired is None else fmt_ci(paired)} |")
    md.append("")
    for s in schemes:
        mine = [r for r in sel if r["scheme"] == s]
        page.set(f"{tag}.{s}.params", params_all(mine))
        threshold_fields(page, f"{tag}.{s}", mine)
    # Drops and flows with a timeout (dc.cc counts a flow once) per run (means of the seeds),
    # the least and most of the schemes at each load, and whether every scheme had both at
    # every load.
    least = {}
    for key in ("drops", "timeouts"):
        for load in loads:
            v = [mean_of(rs, key) for (l, _), rs in g.items() if l == load]
            page.set(f"{tag}.{load}.{key}_range", f"{min(v):,.0f}-{max(v):,.0f}")
        least[key] = min(mean_of(rs, key) for rs in g.values())
    page.set(f"{tag}.loss_every",
             "ends in drops and flows timing out for every scheme at every load run"
             if least["drops"] > 0 and least["timeouts"] > 0 else
             "does not end in drops and flows timing out for every scheme (the least per run: "
             f"{least['drops']:,.0f} drops, {least['timeouts']:,.0f} flows with a timeout)")
    # The points with fewer seeds than the rule's (a seed's arrivals stop at its 667th short
    # flow, so a point has 2,001 short flows per scheme only with every seed).
    few = [f"{load} {NAMES[s]} ({len(g[load, s])} of {SEEDS_WANTED} seeds)"
           for load in loads for s in schemes if 0 < len(g.get((load, s), [])) < SEEDS_WANTED]
    page.set(f"{tag}.partial", "every point run has its " + str(SEEDS_WANTED) + " seeds"
             if not few else "points with fewer seeds so far: " + ", ".join(few))
    # Whether every point the rule plans is run with every seed: the prose's "so far" goes then.
    whole = all(len(g.get((load, s), [])) >= SEEDS_WANTED
                for load in set(loads) | set(planned) for s in (ORDER if planned else schemes))
    page.set(f"{tag}.coverage", "every load the rule plans, each scheme with its "
             f"{SEEDS_WANTED} seeds" if whole else
             "the loads run so far; the rest are rows that say not run")
    page.set(f"{tag}.at_loads", "At every load" if whole else "At the loads run so far")
    # Where the flows are when the arrivals stop (RED-Tail, loads 0.4 and 0.8): the flows still
    # running then, by size class, for the prose's reading of the simulated window.
    after, classes = [], collections.Counter()
    for load in ("0.4", "0.8"):
        for r in g.get((load, "red_tail"), []):
            d = page.detail(r)
            starts = [float(i[1]) for i in d["flow_ids"]]
            last = max(starts)
            running = [size for (size, fct, _, _), t in zip(d["flows"], starts)
                       if t + fct > last]
            after.append(len(running))
            for size in running:
                classes["short" if size < stats.SHORT_BYTES else
                        "large" if size > stats.LARGE_BYTES else "medium"] += 1
    if after:
        n = sum(classes.values()) or 1
        page.set(f"{tag}.after_last",
                 f"{min(after)}-{max(after)} flows per run (RED-Tail, loads 0.4 and 0.8), of "
                 f"them {classes['short'] / n:.0%} short, {classes['medium'] / n:.0%} of "
                 f"100 KB-10 MB and {classes['large'] / n:.0%} over 10 MB")
    # How the workload's bytes are spread (RED-Tail's runs at 0.8: the seeds' own flows).
    sizes = [f[0] for r in g.get(("0.8", "red_tail"), []) for f in page.detail(r)["flows"]]
    if sizes:
        big = sum(x for x in sizes if x > stats.LARGE_BYTES)
        page.set(f"{tag}.large_bytes",
                 f"flows over 10 MB carry {big / sum(sizes):.1%} of the bytes at load 0.8 (the "
                 f"largest {max(sizes) / 1e6:,.0f} MB)")
    for s, shares in pst_shares.items():
        page.set(f"{tag}.{s}.pst_share_range",
                 f"{100 * min(shares):.2f}-{100 * max(shares):.2f}%" if len(shares) > 1
                 else f"{100 * shares[0]:.2f}%")
    # ECN# against TCN (its instantaneous rule alone) and CoDel (its persistent rule alone),
    # for the prose and in the tables.
    for other in ("tcn", "codel"):
        ratios, at = [], {}
        rows = []
        for load in loads:
            a, b = g.get((load, "ecnsharp")), g.get((load, other))
            if a and b:
                r = page.ratio(a, b, stats.short_fcts, stats.mean)
                page.set(f"{tag}.{load}.ecnsharp_{other}.fct_short_mean", fmt_ci(r))
                rows.append(f"| {load} | {fmt_ci(r)} |")
                if complete(r):
                    ratios.append(r)
                    at[id(r)] = load
        if rows:
            md += [f"ECN# / {NAMES[other]}, short-flow mean FCT (95% intervals):", "",
                   "| load | ECN# / " + NAMES[other] + " |", "|---|---|"] + rows + [""]
        if ratios:
            span = f"{min(r[0] for r in ratios):.2f}-{max(r[0] for r in ratios):.2f}"
            holding = holds_one(ratios)
            page.set(f"{tag}.ecnsharp_{other}.fct_short_mean.summary",
                     f"{span} over {len(ratios)} loads (the interval holding 1 at {holding})")
            low = min(ratios, key=lambda r: r[1])
            page.set(f"{tag}.ecnsharp_{other}.size",
                     f"the interval lies wholly below 1 at {sum(r[2] < 1 for r in ratios)} of "
                     f"{len(ratios)} loads; it lies wholly above 0.5 (excluding \"more than "
                     f"50%\" lower) at {sum(r[1] > 0.5 for r in ratios)} of them, the lowest "
                     f"lower end {low[1]:.4f} (load {at[id(low)]})")
    # The headline: ECN# / DCTCP-RED-Tail per load, with the rule's verdict where the paper
    # claims "lower" (overall and short-flow FCT, Figure 9a-c).
    head = ["| load | short flows (ECN#, the seeds compared) | overall mean FCT | short mean FCT | "
            "short p99 FCT (its rank) | large mean FCT | queue_mean (as filed) | "
            "short mean FCT, paired (extra) |", "|---|---|---|---|---|---|---|---|"]
    fewest = None  # the fewest short flows at a point with every seed, for the prose's p99 rank
    for load in sorted(set(loads) | set(planned), key=float):
        if (load, "ecnsharp") not in g or (load, "red_tail") not in g:
            run = [NAMES[s] for s in ("ecnsharp", "red_tail") if (load, s) in g]
            head.append(f"| {load} | not run" + (f" (only {', '.join(run)} so far)" if run else "")
                        + " |" + " |" * 6)
            continue
        compared = {r["seed"] for r in g[load, "red_tail"]}
        n_short = sum(len(stats.short_fcts(page.detail(r))) for r in g[load, "ecnsharp"]
                      if r["seed"] in compared)
        if len(compared & {r["seed"] for r in g[load, "ecnsharp"]}) >= SEEDS_WANTED:
            fewest = n_short if fewest is None else min(fewest, n_short)
        cells = []
        for name, _, _, _ in F9_METRICS:
            r = next((x[2] for x in series[name] if x[0] == load and x[1] == "ecnsharp"), None)
            cell = fmt_ci(r)
            if name in ("fct_mean", "fct_short_mean", "fct_short_p99") and r is not None \
                    and verdicts:
                # fmt_ci names the seeds of an incomplete point already: the verdict, once.
                cell += " incomplete" if r[3] < SEEDS_WANTED else f" {verdict(r)}"
            if name == "fct_short_p99":
                cell += f" ({ordinal(p99_rank(n_short))} slowest of {n_short:,})"
            cells.append(cell)
        paired = next(x[2] for x in series["fct_short_mean.paired"]
                      if x[0] == load and x[1] == "ecnsharp")
        head.append(f"| {load} | {n_short:,} | " + " | ".join(cells) + f" | {fmt_ci(paired)} |")
    page.set(f"{tag}.headline", "\n".join(head))
    if fewest is not None:
        page.set(f"{tag}.p99_rank", f"the {ordinal(p99_rank(fewest))} slowest of {fewest:,}")
    # For the prose: over the loads run, ECN#'s ratios and how many the rule's test passes.
    for name in [m[0] for m in F9_METRICS] + ["fct_short_mean.paired"]:
        rs = [x[2] for x in series[name] if x[1] == "ecnsharp" and complete(x[2])]
        if not rs:
            continue
        # The paper: lower FCTs, but the large flows' "about the same" (an interval holding 1).
        if name == "fct_large_mean":
            passed, test = holds_one(rs), "holding 1"
        else:
            passed, test = sum(verdict(r).startswith("reproduces") for r in rs), "wholly below 1"
        edges = sum(edge(r) for r in rs)
        if len(rs) == 1:
            text = (f"{fmt_ci(rs[0])} at the one load with {SEEDS_WANTED} seeds so far (the "
                    f"interval {'' if passed else 'not '}{test})")
        else:
            lo, hi = f"{min(r[0] for r in rs):.2f}", f"{max(r[0] for r in rs):.2f}"
            n = f"{len(rs)} loads with {SEEDS_WANTED} seeds"
            text = ((f"{lo} at each of {n}" if lo == hi else f"{lo}-{hi} over {n}")
                    + f" (the interval {test} at {passed} of them"
                    + (f"; {edges} of the {len(rs)} at the edge of 1" if edges else "") + ")")
        page.set(f"{tag}.ecnsharp.{name}.summary", text)
    for s in schemes:
        for name in ("fct_short_mean", "fct_large_mean"):
            rs = [x[2] for x in series[name] if x[1] == s and complete(x[2])]
            if rs:
                page.set(f"{tag}.{s}.{name}.sides",
                         f"{min(r[0] for r in rs):.2f}-{max(r[0] for r in rs):.2f} over "
                         f"{len(rs)} loads (the interval wholly below 1 at "
                         f"{sum(r[2] < 1 for r in rs)}, wholly above 1 at "
                         f"{sum(r[1] > 1 for r in rs)})")
    # Where ECN#'s intervals lie off 1 (an interval without ends is no evidence either way).
    apart = [f"{name} at {x[0]}, {'below' if x[2][2] < 1 else 'above'} 1 ({fmt_ci(x[2])})"
             for name in [m[0] for m in F9_METRICS[:4]] for x in series[name]
             if x[1] == "ecnsharp" and complete(x[2]) and not math.isnan(x[2][1])
             and not x[2][1] <= 1 <= x[2][2]]
    done = sum(complete(x[2]) for x in series["fct_mean"] if x[1] == "ecnsharp")
    page.set(f"{tag}.ecnsharp.differences",
             "no load has every seed yet" if not done else
             f"the rule's intervals hold 1 for every FCT metric at each of the {done} loads "
             "with every seed (no difference detected)" if not apart else
             "the rule's intervals lie off 1 for " + "; ".join(apart))
    # The paper's claim (short-flow and overall means lower) against the rule's verdicts.
    hits = [x for name in ("fct_short_mean", "fct_mean") for x in series[name]
            if x[1] == "ecnsharp" and complete(x[2]) and verdict(x[2]) == "reproduces"]
    page.set(f"{tag}.ecnsharp.paper_verdict",
             "have no load with every seed to be judged at yet" if not done else
             "do not reproduce under the rule" if not hits else
             f"reproduce under the rule at {len(hits)} of the {2 * done} (metric, load) points")
    below = [x for x in series["fct_short_mean.paired"] if x[1] == "ecnsharp"
             and complete(x[2]) and x[2][2] < 1]
    page.set(f"{tag}.ecnsharp.paired_gain",
             "no load has every seed yet" if not done else
             "it lies below 1 at no load" if not below else
             f"it lies below 1 at {len(below)} load{'s' if len(below) > 1 else ''} "
             f"({', '.join(x[0] for x in below)}), where ECN#'s short flows are faster by "
             + "/".join(f"{100 * (1 - x[2][0]):.1f}" for x in below) + "% (the points; the "
             "intervals' far ends " + "/".join(f"{100 * (1 - x[2][1]):.1f}" for x in below)
             + f"%; at {len(below)} of the {done} loads tested, by a statistic added after the "
             "results were seen: a hint, not a finding of the rule)")
    paper_least = 1 - 0.185  # the paper's smallest short-flow gain (Figure 9, §5.3 text)
    short = [x[2] for x in series["fct_short_mean"] if x[1] == "ecnsharp" and complete(x[2])]
    if short:
        page.set(f"{tag}.ecnsharp.fct_short_mean.excludes_paper",
                 f"the short-flow mean's interval lies wholly above {paper_least:.3f} (the "
                 f"paper's smallest gain, 18.5%) at {sum(r[1] > paper_least for r in short)} of "
                 f"{len(short)} loads")
    figdir = os.path.join(page.results, "fig")
    for name, _, _, mtitle in F9_METRICS:
        dat = os.path.join(figdir, f"{tag}.{name}.dat")
        plotted = [s for s in schemes if s != "red_tail"]
        with open(dat, "w") as f:
            f.write("# load then, per scheme (" + " ".join(plotted) + "): ratio lo hi "
                    f"(points with {SEEDS_WANTED} seeds only)\n")
            for load in loads:
                row = [load]
                for s in plotted:
                    r = next((x[2] for x in series[name] if x[0] == load and x[1] == s), None)
                    row += ["nan"] * 3 if not complete(r) else [f"{r[0]:.4f}", f"{r[1]:.4f}",
                                                                f"{r[2]:.4f}"]
                f.write(" ".join(map(str, row)) + "\n")
        svg = os.path.join(figdir, f"{tag}.{name}.svg")
        plots = ", ".join(
            f"'{dat}' using ($1+{(i - 1.5) * 0.006:.3f}):{2 + 3 * i}:{3 + 3 * i}:{4 + 3 * i} "
            f"with yerrorlines lc rgb '{COLORS[s]}' title '{NAMES[s]}'"
            for i, s in enumerate(plotted))
        paper = PAPER_F9.get(name) if workload == "web-search" and hosts == "128" else None
        if paper:
            pdat = os.path.join(figdir, f"{tag}.{name}.paper.dat")
            with open(pdat, "w") as f:
                f.write("# load, ECN# / DCTCP-RED-Tail as the paper's §5.3 text gives it\n")
                f.writelines(f"{load} {v:.4f}\n" for load, v in paper)
            plots += (f", '{pdat}' using 1:2 with points pt 7 ps 1.5 lc rgb 'black' "
                      "title \"ECN#, paper (§5.3 text)\"")
        gnuplot(f"""set terminal svg size 720,420 font 'sans,12'
set output '{svg}'
set title "{workload}, {hosts} hosts, {VARIANTS[variant]}:\\n{mtitle} / DCTCP-RED-Tail's (95% CI; {SEEDS_WANTED}-seed points)"
set xlabel 'load'
set ylabel 'ratio to DCTCP-RED-Tail'
set key outside right
set grid
set xrange [0:1]
plot 1 with lines lc rgb 'black' dt 2 notitle, {plots}
""")
        md.append(f"![{mtitle}, {workload}, {VARIANTS[variant]}](fig/{os.path.basename(svg)})")
        page.set(f"{tag}.{name}.figure", f"![{mtitle}](fig/{os.path.basename(svg)})")
    # CDFs of the short flows' FCTs (evidence rule 4: distributions, not only points).
    for load in loads:
        if load not in ("0.4", "0.8"):
            continue
        dat = os.path.join(figdir, f"{tag}.cdf.{load}.dat")
        # Only schemes with every seed: a CDF over fewer workloads is not comparable.
        present = [s for s in schemes if len(g.get((load, s), [])) >= SEEDS_WANTED]
        if not present:
            continue
        blocks = []
        for s in present:
            v = sorted(x for r in g[load, s] for x in stats.short_fcts(page.detail(r)))
            step = max(1, len(v) // 400)
            blocks.append("\n".join(f"{x if x != stats.INF else 1e9:.1f} {(i + 1) / len(v):.5f}"
                                    for i, x in enumerate(v) if i % step == 0 or i == len(v) - 1))
        with open(dat, "w") as f:
            f.write("\n\n\n".join(blocks) + "\n")
        svg = os.path.join(figdir, f"{tag}.cdf.{load}.svg")
        plots = ", ".join(f"'{dat}' index {i} using 1:2 with lines lw 2 lc rgb '{COLORS[s]}' "
                          f"title '{NAMES[s]}'" for i, s in enumerate(present))
        gnuplot(f"""set terminal svg size 720,420 font 'sans,12'
set output '{svg}'
set title "{workload}, {hosts} hosts, load {load}, {VARIANTS[variant]}: short-flow FCT CDF"
set xlabel 'FCT (us)'
set logscale x
set ylabel 'fraction of short flows'
set key bottom right
set grid
plot {plots}
""")
        md.append(f"![short-flow FCT CDF, load {load}](fig/{os.path.basename(svg)})")
        page.set(f"{tag}.cdf.{load}.figure",
                 f"![short-flow FCT CDF, load {load}](fig/{os.path.basename(svg)})")
    md.append("")
    return whole


def f10_section(page, runs, variant):
    """Figure 10's setup: the bottleneck queue around 100 queries at 4 s."""
    sel = [r for r in runs if r["scenario"] == "incast" and r["variant"] == variant
           and r["queries"] == "100"]
    if not sel:
        return
    g = grouped(sel, ("scheme",))
    schemes = [s for s in ORDER if (s,) in g]
    tag = f"f10.{variant}"
    md = page.md
    md += [f"## Figure 10's setup, {VARIANTS[variant]}", "",
           "| scheme | seeds | fig10_queue pkts (seeds 1/2/3) | fig10_queue / RED-Tail | "
           "bg_queue_mean pkts (seeds) | drops at the bottleneck over the run (seeds) | "
           "flows with a timeout over the run (seeds) | queue_mean pkts (as filed) | "
           "bottleneck drops after the queries | query timeouts | QCT us | "
           "ins_target / pst_target / K | background: share of the 4 s with a queue (seeds) | "
           "queue in the ms before the queries, pkts (seeds) | "
           "queue per ms, -1-0/0-1/1-2/2-3/3-4 ms, pkts (mean of seeds) | "
           f"at {NEAR_LIMIT}+ pkts after the queries, ms (any seed) |", "|" + "---|" * 16]
    base = g.get(("red_tail",), [])
    shares = []
    page.set(f"{tag}.near_limit_pkts", f"{NEAR_LIMIT}")
    for s in schemes:
        rs = g[(s,)]
        r = page.ratio(rs, base, stats.fig10_blocks, stats.mean) if base and s != "red_tail" \
            else None
        params = params_all(rs)
        threshold_fields(page, f"{tag}.{s}", rs)

        def seeds_of(key, fmt="{:.0f}"):
            return by_seed(rs, key, fmt)

        per_seed = seeds_of("fig10_queue_pkts")
        ordered = sorted(rs, key=lambda x: int(x["seed"]))
        # bg_queue_mean over the whole background, bg_queue_busy_mean over its non-empty time:
        # their quotient is the share of the 4 s with a queue at the bottleneck.
        nonempty = "/".join(
            f"{stats.need(x, 'bg_queue_mean_pkts') / stats.need(x, 'bg_queue_busy_mean_pkts'):.0%}"
            if stats.need(x, "bg_queue_busy_mean_pkts") > 0 else "0%" for x in ordered)
        # The first 100 samples (10 us apart) are the millisecond before the queries.
        before = "/".join(f"{sum(page.detail(x)['samples'][:100]) / 100:.1f}" for x in ordered)
        page.set(f"{tag}.{s}.bg_nonempty_seeds", nonempty)
        page.set(f"{tag}.{s}.before_queries_seeds", before)
        # The queue per millisecond of the window (the ms before the queries, then 4 after), mean
        # of the seeds, and how much of fig10_queue the millisecond after the queries is.
        per_ms = [sum(sum(page.detail(x)["samples"][i:i + MS_SAMPLES]) / MS_SAMPLES
                      for x in rs) / len(rs) for i in range(0, 5 * MS_SAMPLES, MS_SAMPLES)]
        ms_text = "/".join(f"{v:.1f}" for v in per_ms)
        first_share = per_ms[1] / sum(per_ms) if sum(per_ms) else math.nan
        page.set(f"{tag}.{s}.ms_means", ms_text)
        page.set(f"{tag}.{s}.first_ms_share", f"{first_share:.0%}")
        shares.append(first_share)
        # When, after the queries, the queue was near the port's limit (any seed).
        near = [(i - MS_SAMPLES) * 10 / 1000 for x in rs
                for i, q in enumerate(page.detail(x)["samples"])
                if i >= MS_SAMPLES and q >= NEAR_LIMIT]
        near = f"{min(near):.2f}-{max(near):.2f} ms" if near else "never"
        page.set(f"{tag}.{s}.near_limit", near)
        # A queue held at K, as F10's reading infers the paper's 182: is it, here?
        k = stats.need(rs[0], "k_bytes") / PKT_BYTES
        if k:
            bg, win = mean_of(rs, "bg_queue_mean_pkts"), mean_of(rs, "fig10_queue_pkts")
            where = [w for w, v in (("over the background", bg), ("in the queries' window", win))
                     if v >= k]
            page.set(f"{tag}.{s}.vs_k",
                     f"{bg:.1f} packets over the background and {win:.1f} in the "
                     f"queries' window (means of the seeds) against a K of {k:.0f} packets: "
                     + ("below K in both, not a queue held at K" if not where else
                        f"at or above K {' and '.join(where)}"))
        md.append(f"| {NAMES[s]} | {len(rs)} | {mean_of(rs, 'fig10_queue_pkts'):.1f} ({per_seed}) | "
                  f"{'-' if s == 'red_tail' else fmt_ci(r)} | "
                  f"{mean_of(rs, 'bg_queue_mean_pkts'):.1f} ({seeds_of('bg_queue_mean_pkts')}) | "
                  f"{seeds_of('drops')} | {seeds_of('timeouts')} | "
                  f"{mean_of(rs, 'queue_mean_pkts'):.2f} | "
                  f"{mean_of(rs, 'bottleneck_drops'):.0f} | "
                  f"{sum(int(stats.need(x, 'query_timeouts')) for x in rs)} | "
                  f"{qct_cell(rs)} | {params} | {nonempty} | {before} | {ms_text} | {near} |")
        page.set(f"{tag}.{s}.fig10_queue_seeds", per_seed)
        page.set(f"{tag}.{s}.drops_seeds", seeds_of("drops"))
        page.set(f"{tag}.{s}.bottleneck_drops_seeds", seeds_of("bottleneck_drops"))
        page.set(f"{tag}.{s}.query_timeouts_seeds", seeds_of("query_timeouts"))
        page.set(f"{tag}.{s}.timeouts_seeds", seeds_of("timeouts"))
        page.set(f"{tag}.{s}.bg_queue_seeds", seeds_of("bg_queue_mean_pkts"))
        page.set(f"{tag}.{s}.fig10_queue_pkts", f"{mean_of(rs, 'fig10_queue_pkts'):.1f}")
        page.set(f"{tag}.{s}.bg_queue_mean_pkts", f"{mean_of(rs, 'bg_queue_mean_pkts'):.1f}")
        page.set(f"{tag}.{s}.bottleneck_drops", f"{mean_of(rs, 'bottleneck_drops'):.0f}")
        page.set(f"{tag}.{s}.query_timeouts",
                 f"{sum(int(stats.need(x, 'query_timeouts')) for x in rs)}")
        page.set(f"{tag}.{s}.seeds", f"{len(rs)}")
        page.set(f"{tag}.{s}.params", params)
        if s != "red_tail":
            page.set(f"{tag}.{s}.fig10_queue", fmt_ci(r))
            page.set(f"{tag}.{s}.fig10_queue.verdict", verdict(r))
        if s == "ecnsharp":
            page.f10_ecnsharp[variant] = r
    md.append("")
    # For the prose: how much of fig10_queue the burst is, and how many runs dropped after it.
    shares = [v for v in shares if not math.isnan(v)]
    if shares:
        page.set(f"{tag}.burst_reading",
                 "`fig10_queue` measures mostly the burst and how fast each scheme drains it, not "
                 "a standing queue" if min(shares) > 0.5 else
                 f"`fig10_queue` is not mostly the burst for every scheme (the millisecond after "
                 f"the queries is {min(shares):.0%} of it for one)")
    dropped = sum(stats.need(x, "bottleneck_drops") > 0 for x in sel)
    page.set(f"{tag}.drops_after_runs",
             f"every one of the {len(sel)} runs" if dropped == len(sel) else
             f"{dropped} of the {len(sel)} runs")
    # Each scheme's background mean against RED-Tail's K, for the prose (point 2 of F10's
    # reading asks whether the paper's 182 is a queue held at K).
    k = stats.need(base[0], "k_bytes") / PKT_BYTES if base else 0
    if k:
        page.set(f"{tag}.bg_vs_k", "the port's mean over the background is " + " and ".join(
            f"{mean_of(g[(s,)], 'bg_queue_mean_pkts') / k:.0%} of it for {NAMES[s]}"
            for s in ("ecnsharp", "red_tail") if (s,) in g))
    # The background against ECN#'s pst_target (the threshold its persistent rule acts on),
    # and how many of ECN#'s marks that rule made alone, per seed.
    if ("ecnsharp",) in g:
        es = sorted(g[("ecnsharp",)], key=lambda x: int(x["seed"]))
        pst = stats.need(es[0], "pst_target_ns") * 1e-9 * LINK_BPS / 8 / PKT_BYTES

        def per_seed(s, key):
            return by_seed(g[(s,)], key, "{:.1f}")
        page.set(f"{tag}.bg_vs_pst", " and ".join(
            f"{NAMES[s]} {per_seed(s, 'bg_queue_mean_pkts')} over the 4 s, "
            f"{per_seed(s, 'bg_queue_busy_mean_pkts')} while the port is busy"
            for s in ("ecnsharp", "red_tail") if (s,) in g) +
            f" (seeds 1/2/3), against a `pst_target` of {pst:.1f} packets")
        page.set(f"{tag}.ecnsharp.pst_share_seeds", "/".join(
            f"{marks_pst_alone(x) / stats.need(x, 'marks'):.1%}"
            if stats.need(x, "marks") else "-" for x in es))
    # Per seed, whether a scheme had the most of a quantity of all the schemes (ties count).
    seeds = sorted({x["seed"] for x in sel}, key=int)
    for s in schemes:
        for key in ("bottleneck_drops", "query_timeouts", "fig10_queue_pkts"):
            top = 0
            for seed in seeds:
                v = {t: stats.need(x, key) for t in schemes for x in g[(t,)]
                     if x["seed"] == seed}
                top += s in v and len(v) == len(schemes) and v[s] >= max(v.values())
            page.set(f"{tag}.{s}.{key}.most", f"{top} of {len(seeds)}")
    # ECN#'s background queue against RED-Tail's, seed by seed (three values: no interval).
    if ("ecnsharp",) in g and base:
        e = {x["seed"]: stats.need(x, "bg_queue_mean_pkts") for x in g[("ecnsharp",)]}
        r = {x["seed"]: stats.need(x, "bg_queue_mean_pkts") for x in base}
        both = sorted(set(e) & set(r), key=int)
        lower = sum(e[k] < r[k] for k in both)
        page.set(f"{tag}.ecnsharp.bg_queue_lower",
                 f"lower in every one of the {len(both)} seeds" if lower == len(both) else
                 f"lower in {lower} of the {len(both)} seeds")
    paper = {"ecnsharp": ("8", "0"), "red_tail": ("182", "0"), "codel": ("-", "125")}
    head = ["| scheme | seeds | fig10_queue, packets (paper) | ratio to DCTCP-RED-Tail | "
            "bottleneck drops after the queries (paper) | query flows with a timeout | "
            "bg_queue_mean, packets |", "|---|---|---|---|---|---|---|"]
    for s in schemes:
        p = paper.get(s, ("-", "-"))
        head.append(f"| {NAMES[s]} | {page.values[f'{tag}.{s}.seeds']} | "
                    f"{page.values[f'{tag}.{s}.fig10_queue_pkts']} ({p[0]}) | "
                    f"{page.values.get(f'{tag}.{s}.fig10_queue', '-')} | "
                    f"{page.values[f'{tag}.{s}.bottleneck_drops']} ({p[1]}) | "
                    f"{page.values[f'{tag}.{s}.query_timeouts']} | "
                    f"{page.values[f'{tag}.{s}.bg_queue_mean_pkts']} |")
    page.set(f"{tag}.headline", "\n".join(head))
    # The queue over the 5 ms window, seed 1, every scheme.
    figdir = os.path.join(page.results, "fig")
    dat = os.path.join(figdir, f"{tag}.queue.dat")
    present = [s for s in schemes if any(x["seed"] == "1" for x in g[(s,)])]
    with open(dat, "w") as f:
        blocks = []
        for s in present:
            run = next(x for x in g[(s,)] if x["seed"] == "1")
            samples = page.detail(run)["samples"]
            blocks.append("\n".join(f"{(i * 10 - 1000) / 1000:.2f} {q:g}"
                                    for i, q in enumerate(samples)))
        f.write("\n\n\n".join(blocks) + "\n")
    svg = os.path.join(figdir, f"{tag}.queue.svg")
    plots = ", ".join(f"'{dat}' index {i} using 1:2 with lines lc rgb '{COLORS[s]}' "
                      f"title '{NAMES[s]}'" for i, s in enumerate(present))
    # The paper's Figure 10 means over its 5 ms (§5.4 text): 8 packets for ECN#, 182 for
    # DCTCP-RED-Tail, as dashed lines in the schemes' colours.
    plots += "".join(f", {v} with lines dt 2 lw 2 lc rgb '{COLORS[s]}' "
                     f"title \"{NAMES[s]}, paper's mean (§5.4 text)\""
                     for s, v in (("ecnsharp", 8), ("red_tail", 182)))
    gnuplot(f"""set terminal svg size 760,560 font 'sans,12'
set output '{svg}'
set title "Figure 10's setup, {VARIANTS[variant]}: bottleneck queue every 10 us, seed 1\\n100 queries at 0 ms after 4 s of data-mining background"
set xlabel 'time from the queries (ms)'
set ylabel 'packets'
set key below maxrows 4
set grid
plot {plots}
""")
    md += [f"![bottleneck queue, {VARIANTS[variant]}](fig/{os.path.basename(svg)})", ""]
    page.set(f"{tag}.queue.figure", f"![bottleneck queue](fig/{os.path.basename(svg)})")


def short_name(variant):
    return VARIANTS[variant].split(":")[0] if ":" in VARIANTS[variant] else "the rule"


def f10_settings(page):
    """ECN#'s fig10_queue / RED-Tail across the settings run, for the prose: in which the
    interval lies wholly below 1, and the others' ratios."""
    rs = {v: r for v, r in page.f10_ecnsharp.items() if r is not None}
    below = [v for v, r in rs.items() if complete(r) and not math.isnan(r[1]) and r[2] < 1]
    others = [v for v in rs if v not in below]
    page.set("f10.ecnsharp.fig10_queue.below",
             " and ".join(short_name(v) + (" (at the edge of 1)" if edge(rs[v]) else "")
                          for v in below)
             if below else "none of them")
    page.set("f10.ecnsharp.fig10_queue.others",
             "; ".join(f"{short_name(v)} {fmt_ci(rs[v])}" for v in others) or "none")


# F11's N: the rule's, and its addendum of 2026-11-30's below them (part f11lo), kept apart.
F11_RULE = range(25, 201, 25)
F11_LOW = (5, 10, 15, 20)


# The F11 tables' head, and one row: N, scheme, its runs at that N.
F11_HEAD = ["| queries | scheme | seeds | QCT us (mean of seeds) | query timeouts (all seeds) | "
            "bottleneck drops (mean) | query flows unfinished (all seeds) |",
            "|---|---|---|---|---|---|---|"]


def f11_row(page, n, s, rs):
    return (f"| {n} | {NAMES[s]} | {len(rs)} | {qct_cell(rs)} | "
            f"{sum(int(stats.need(r, 'query_timeouts')) for r in rs)} | "
            f"{mean_of(rs, 'bottleneck_drops'):.0f} | {unfinished_queries(page, rs)} |")


def f11_onset(g, ns, s):
    """The smallest N at which a query flow of any seed timed out (None: none did), and how many
    seeds timed out there: an onset may rest on one seed."""
    for n in ns:
        rs = sorted(g.get((str(n), s), []), key=lambda r: int(r["seed"]))
        by_seed = [int(stats.need(r, "query_timeouts")) for r in rs]
        if sum(by_seed) > 0:
            return n, (f"in {sum(v > 0 for v in by_seed)} of {len(rs)} seeds: "
                       f"{'/'.join(map(str, by_seed))} query timeouts")
    return None, None


def f11_fanout(g, ns, s, onset):
    """The largest N run below the onset, as the page prints it."""
    if onset is None:
        return f"{ns[-1]} or more"
    below = [n for n in ns if n < onset and (str(n), s) in g]
    return str(below[-1]) if below else \
        f"below {onset}" if onset == ns[0] else "not run below the onset"


def onset_ratio(ns, onset):
    """ECN#'s onset over CoDel's, as the grid ns bounds it: a grid onset N says the true onset
    lies in (the N run before it, N]; at the grid's first point, in (0, N]."""
    if "ecnsharp" not in onset or "codel" not in onset:
        return "not defined (a scheme had no timeout in the sweep)"

    def span(s):
        below = [n for n in ns if n < onset[s]]
        return (below[-1] if below else 0), onset[s]

    (elo, ehi), (clo, chi) = span("ecnsharp"), span("codel")
    lo = elo / chi
    where = f"ECN#'s onset lies in ({elo}, {ehi}], CoDel's in ({clo}, {chi}]"
    if clo == 0:
        return (f"not defined: CoDel's queries time out at N = {chi}, the smallest N run, so its "
                f"onset is unknown below it; {where}, so the ratio is only known to exceed "
                f"{lo:.2f}")
    return f"between {lo:.2f} and {ehi / clo:.2f} ({where})"


def f11_low(page, runs):
    """Part f11lo: each scheme's onset and fanout over N = 5-200, the rule's runs with those
    below 25; the rule's own table and comparisons stay on N = 25-200."""
    sel = [r for r in runs if r["scenario"] == "incast" and r["variant"] == "rule"]
    low = [r for r in sel if r["part"] == "f11lo"]
    g = grouped(sel, ("queries", "scheme"))
    ns = sorted({int(k[0]) for k in g})
    onsets, done = {}, set()
    for s in ORDER:
        runs_low = sum(len(g.get((str(n), s), [])) for n in F11_LOW)
        if not runs_low:
            page.set(f"f11.{s}.low", "not run")
            continue
        n, seeds = f11_onset(g, ns, s)
        if n is not None:
            onsets[s] = n
        if all(len(g.get((str(m), s), [])) >= SEEDS_WANTED
               for m in (*F11_LOW, *F11_RULE)):
            done.add(s)
        text = (f"onset {n} ({seeds}), fanout {f11_fanout(g, ns, s, n)}" if n else
                f"no timeout up to {ns[-1]}")
        wanted = len(F11_LOW) * SEEDS_WANTED
        page.set(f"f11.{s}.low", text + ("" if runs_low >= wanted else
                                         f" (incomplete: {runs_low} of {wanted} runs)"))
    # ECN#'s onset over CoDel's as the added N bound it (the rule's stays f11.onset_ratio).
    page.set("f11.onset_ratio_low", onset_ratio(ns, onsets) if {"ecnsharp", "codel"} <= done
             else "not yet (the added N are incomplete)")
    if not low:
        return
    md = page.md
    md += ["## Figure 11 below N = 25 (part f11lo, rule.md's addendum of 2026-11-30)", "",
           *F11_HEAD]
    for n in F11_LOW:
        for s in ORDER:
            rs = g.get((str(n), s), [])
            if rs:
                md.append(f11_row(page, n, s, rs))
    md.append("")


def f11_section(page, runs):
    """Figure 11: query completion and timeouts against the number of queries."""
    sel = [r for r in runs if r["scenario"] == "incast" and r["variant"] == "rule"
           and r["part"] != "f11lo"]
    g = grouped(sel, ("queries", "scheme"))
    ns = sorted({int(k[0]) for k in g})
    # The paper's three schemes, then the two of rule.md's F11 addendum (part f11x).
    schemes = [s for s in ("ecnsharp", "red_tail", "codel", "red_avg", "tcn")
               if any((str(n), s) in g for n in ns)]
    paper3 = [s for s in ("ecnsharp", "red_tail", "codel") if s in schemes]
    page.set("f11.incomplete_note", " An onset read from an incomplete sweep is the smallest N "
             "run so far, not yet the answer.")
    if len(ns) < 2:
        return
    md = page.md
    md += ["## Figure 11: the fanout, the rule", "",
           *F11_HEAD]
    onset, onset_seeds = {}, {}
    done_all = {}
    planned = F11_RULE
    page.set("f11.ecnsharp_red_tail.timeouts.summary", "not yet (no N with every seed)")
    page.set("f11.most", "not yet (no N with every seed)")
    for s in schemes:
        done_all[s] = all(len(g.get((str(n), s), [])) >= SEEDS_WANTED for n in planned)
        n, seeds = f11_onset(g, ns, s)
        if n is not None:
            onset[s], onset_seeds[s] = n, seeds
        for n in ns:
            rs = g.get((str(n), s), [])
            if rs:
                md.append(f11_row(page, n, s, rs))
    md.append("")
    for s in schemes:
        page.set(f"f11.{s}.onset", f"{onset[s]} ({onset_seeds[s]})" if s in onset else
                 f"none up to {ns[-1]}")
        page.set(f"f11.{s}.fanout", f11_fanout(g, ns, s, onset.get(s)))
        done = sum(len(g.get((str(n), s), [])) for n in planned)
        page.set(f"f11.{s}.complete", "complete" if done_all[s] else
                 f"incomplete: {done} of {len(planned) * SEEDS_WANTED} runs")
    if all(done_all.get(s) for s in ORDER):
        page.set("f11.incomplete_note", "")
    if not (done_all.get("ecnsharp") and done_all.get("codel")):
        page.set("f11.onset_ratio", "not yet (the sweep is incomplete)")
    else:
        page.set("f11.onset_ratio", onset_ratio(ns, onset))
    # Query flows with a timeout, ECN# / RED-Tail at each N, with intervals (bootstrap over
    # seeds and query flows), and which scheme has the most at each N.
    rows, fewer, below, shares, no_ci, at_edge = [], 0, 0, [], [], 0
    for n in ns:
        a, b = g.get((str(n), "ecnsharp")), g.get((str(n), "red_tail"))
        for r in (a or []) + (b or []):
            counted = sum(stats.query_timed_out(page.detail(r)))
            if counted != stats.need(r, "query_timeouts"):
                raise stats.ResultError(f"run {r['key']}: {counted} query flows with a timeout "
                                        f"in its detail, query_timeouts={r['query_timeouts']}")
        if not (a and b):
            continue
        tb = sum(stats.need(r, "query_timeouts") for r in b)
        if tb == 0:
            rows.append(f"| {n} | RED-Tail had none |")
            continue
        rr = page.ratio(a, b, stats.query_timed_out, stats.mean)
        rows.append(f"| {n} | {fmt_ci(rr)} |")
        # An N without an interval (too few RED-Tail timeouts to resample) is named, not counted.
        if complete(rr) and math.isnan(rr[1]):
            no_ci.append(str(n))
        elif complete(rr):
            fewer += rr[0] < 1
            below += rr[2] < 1
            at_edge += edge(rr)
            shares.append((n, 1 - rr[0], sum(stats.need(r, "query_timeouts") for r in a)))
    if rows:
        md += ["Query flows with a timeout, ECN# / DCTCP-RED-Tail (95% intervals over seeds and "
               "query flows):", "", "| queries | ECN# / RED-Tail |", "|---|---|"] + rows + [""]
    if shares or no_ci:
        # Where ECN# had none the ratio is 0: named apart, not folded into the range.
        none = [str(n) for n, _, te in shares if te == 0]
        less = [v for _, v, te in shares if v > 0 and te > 0]
        notes = ([f"none for ECN# at N = {', '.join(none)}"] if none else []) + (
            [f"{'otherwise ' if none else ''}by {100 * min(less):.0f}-{100 * max(less):.0f}%"]
            if less else [])
        page.set("f11.ecnsharp_red_tail.timeouts.summary",
                 f"ECN#'s fewer than RED-Tail's at {fewer} of the {len(shares)} N with RED-Tail "
                 f"timeouts, {SEEDS_WANTED} seeds and an interval"
                 + (f" ({'; '.join(notes)})" if notes else "")
                 + f", the interval wholly below 1 at {below} of them"
                 + (f" ({at_edge} of the {len(shares)} at the edge of 1)" if at_edge else "")
                 + (f"; at N = {', '.join(no_ci)} the ratio has no interval (over 1% of the "
                    f"replicates undefined: too few RED-Tail timeouts) and is not counted"
                    if no_ci else ""))
    # The background's own losses: drops other than the bottleneck's after the queries.
    lost = {s: sum(stats.need(r, "drops") - stats.need(r, "bottleneck_drops")
                   for n in ns for r in g.get((str(n), s), [])) for s in schemes}
    nruns = {s: sum(len(g.get((str(n), s), [])) for n in ns) for s in schemes}
    some = [s for s in schemes if lost[s] > 0]
    nil = [s for s in schemes if lost[s] == 0]
    page.set("f11.background_drops",
             "none for any scheme" if not some else
             ", ".join(f"{NAMES[s]} {lost[s]:,.0f} packets over its {nruns[s]} runs" for s in some)
             + (f"; none in any of the runs of {' or '.join(NAMES[s] for s in nil)}"
                if nil else ""))
    # Which of the paper's three times out most, at each N all three ran with every seed.
    most = collections.Counter()
    compared = 0
    totals = {s: {} for s in paper3}  # N -> query timeouts, all seeds
    for n in ns:
        tos = {s: sum(int(stats.need(r, "query_timeouts")) for r in g.get((str(n), s), []))
               for s in paper3 if len(g.get((str(n), s), [])) >= SEEDS_WANTED}
        for s, v in tos.items():
            totals[s][n] = v
        if len(tos) == len(paper3) and any(tos.values()):
            compared += 1
            most[max(tos, key=tos.get)] += 1
    if compared:
        page.set("f11.most", "; ".join(f"{NAMES[s]} the most at {k} of {compared} N"
                                       for s, k in most.most_common()))
    # Whether each one's timeouts grow with N from its onset (never fewer at a larger N).
    falls = []
    for s in paper3:
        past = [(n, v) for n, v in sorted(totals[s].items()) if s in onset and n >= onset[s]]
        falls += [f"{NAMES[s]} {a} at N = {m} to {b} at {n}"
                  for (m, a), (n, b) in zip(past, past[1:]) if b < a]
    page.set("f11.growth", "never fall as N grows" if not falls else
             "do not all grow with N (fewer at a larger N: " + "; ".join(falls) + ")")
    # The paper's onsets (§5.4): CoDel 100, ECN# 175; one verdict per scheme, from the table.
    verdicts = []
    for s, paper_n in (("ecnsharp", 175), ("codel", 100)):
        if not done_all.get(s):
            verdicts.append(f"{NAMES[s]} not yet (incomplete)")
        else:
            got = onset.get(s)
            said = "reproduces" if got == paper_n else "does not reproduce"
            where = got if got else f"none up to {ns[-1]}"
            verdicts.append(f"{NAMES[s]} {said} (onset {where} against {paper_n})")
    page.set("f11.paper_onsets", "; ".join(verdicts))
    md.append("Timeout onset (smallest N with a query timeout in any seed): " + ", ".join(
        f"{NAMES[s]} {page.values[f'f11.{s}.onset']}" for s in schemes) + ".")
    md.append("")
    figdir = os.path.join(page.results, "fig")
    for key, title, fname in (("qct_us", "query completion time (us), mean of seeds", "qct"),
                              ("query_timeouts", "query flows with a timeout, all seeds",
                               "timeouts")):
        dat = os.path.join(figdir, f"f11.{fname}.dat")
        with open(dat, "w") as f:
            f.write("# queries " + " ".join(schemes) + "\n")
            for n in ns:
                row = []
                for s in schemes:
                    rs = g.get((str(n), s), [])
                    if not rs:
                        row.append("nan")
                    elif key == "qct_us":
                        # A point only where every run's queries finished (qct_of).
                        mean, left = qct_of(rs)
                        row.append("nan" if left else f"{mean:.1f}")
                    else:
                        row.append(str(sum(int(stats.need(r, key)) for r in rs)))
                f.write(f"{n} " + " ".join(row) + "\n")
        svg = os.path.join(figdir, f"f11.{fname}.svg")
        plots = ", ".join(f"'{dat}' using 1:{i + 2} with linespoints lc rgb '{COLORS[s]}' "
                          f"title '{NAMES[s]}'" for i, s in enumerate(schemes))
        # The paper's onsets (§5.4 text): CoDel's queries begin to time out at 100, ECN#'s at 175.
        paper = "\n".join(
            f"set arrow from {n}, graph 0 to {n}, graph 1 nohead dt 2 lw 2 lc rgb '{COLORS[s]}'\n"
            f"set label \"{NAMES[s]}'s onset, paper\" at {n}, graph 0.95 right offset -0.5,0 "
            f"tc rgb '{COLORS[s]}'" for s, n in (("codel", 100), ("ecnsharp", 175)))
        gnuplot(f"""set terminal svg size 720,420 font 'sans,12'
set output '{svg}'
set title "Figure 11's sweep, the rule: {title}\\n(dashed: the paper's timeout onsets, §5.4 text)"
{paper}
set xlabel 'concurrent query flows'
set key outside right
set grid
plot {plots}
""")
        md.append(f"![{title}](fig/{os.path.basename(svg)})")
        page.set(f"f11.{fname}.figure", f"![{title}](fig/{os.path.basename(svg)})")
    md.append("")


def shape(name):
    """A field's name with its load, scheme, variant and workload taken out: the fields one
    section fills for every point have one shape."""
    tokens = re.sub(r"(?<=\.)\d\.\d(?=\.|$)", "{load}", name).split(".")
    kinds = ((NAMES, "{scheme}"), (VARIANTS, "{variant}"),
             (("web-search", "data-mining"), "{workload}"))
    return ".".join(next((k for names, k in kinds if t in names), t) for t in tokens)


def write_other_models(results, runs):
    """Every run of an earlier model, with its numbers, one page per model in archive/
    (evidence.md: runs are kept, and shown, not only counted)."""
    fields = ["fct_short_mean_us", "fct_short_p99_us", "fct_mean_us", "fct_large_mean_us",
              "queue_mean_pkts", "drops", "fig10_queue_pkts", "bg_queue_mean_pkts",
              "query_timeouts"]
    for model, rs in grouped(runs, ("model",)).items():
        out = [f"<!-- Generated by ns3/plot.py from runs.txt: the runs of model {model[0]}. -->",
               "", f"# The runs of model `{model[0]}` (not used by the current page)", "",
               f"{len(rs)} lines of [runs.txt](../runs.txt), as each run printed them (\"-\": "
               "the scenario has no such field). Why this model was left: "
               "[rule.md](../rule.md) and the current page's history.", "",
               "| key | commit | part | scenario | workload | scheme | hosts | load | seed | "
               "variant | " + " | ".join(fields) + " |", "|" + "---|" * (10 + len(fields))]
        def cell(r, k):
            if k not in r:
                return "-"
            return r[k] if measured(r, k) else "none"  # dc.cc's 0 for an empty set

        for r in rs:
            out.append("| " + " | ".join(r.get(k, "-") for k in (
                "key", "commit", "part", "scenario", "workload", "scheme", "hosts", "load",
                "seed", "variant")) + " | " + " | ".join(cell(r, k) for k in fields) + " |")
        if any(cell(r, k) == "none" for r in rs for k in fields):
            out += ["", "\"none\": a mean or percentile over no flows (its count is 0; the "
                    "run printed 0), or a query completion time where a query did not finish "
                    "(printed as -1)."]
        with open(os.path.join(results, "archive", f"runs-{model[0]}.md"), "w") as f:
            f.write("\n".join(out) + "\n")


def model_runs(every, model):
    """The runs of `model`, each once, and how many lines repeated one: two sweeps that ran the
    same run print the same result (runs are deterministic); a key with two results is an
    error."""
    runs, twice = {}, 0
    when = ("commit", "part", "wall_s")  # what may differ: when and by which sweep it ran
    for r in every:
        if r.get("model") != model:
            continue
        first = runs.get(r["key"])
        if first is None:
            runs[r["key"]] = r
            continue
        diff = sorted(k for k in set(r) | set(first) if k not in when and r.get(k) != first.get(k))
        if diff:
            raise stats.ResultError(f"runs.txt: run {r['key']} appears twice with different "
                                    f"results ({', '.join(diff)})")
        twice += 1
    return list(runs.values()), twice


def render(page, template_path, out_path):
    text = open(template_path).read()
    missing = []
    # A field no run filled is "not run" only if some run filled a field of its shape (the same
    # figure at another point): a mistyped name is an error, never "not run".
    known = {shape(n) for n in page.values}

    def fill(m):
        name = m.group(1)
        if name in page.values:
            return page.values[name]
        if shape(name) in known:
            return "not run"
        missing.append(name)
        return m.group(0)

    text = re.sub(r"\{\{([^}]+)\}\}", fill, text)
    if missing:
        raise stats.ResultError(f"{template_path}: unknown fields {', '.join(missing)}")
    with open(out_path, "w") as f:
        f.write("<!-- Generated by ns3/plot.py from runs.txt and ns3/page.md.in: edit those. -->\n")
        f.write(text)


def selftest():
    """The template's fields: a point not run says so, a mistyped name is an error."""
    import tempfile
    page = Page("", "m")
    page.set("f9.rule.web-search.0.4.ecnsharp.fct_short_mean", "0.98")
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        t, out = os.path.join(d, "t"), os.path.join(d, "o")
        for text, want in (("{{f9.rule.data-mining.0.6.codel.fct_short_mean}}", "not run"),
                           ("{{f9.rule.web-search.0.4.ecnsharp.fct_shrt_mean}}", None),
                           ("{{f9.rule.web-search.0.4.ecnsharp.fct_short_mean}}", "0.98")):
            open(t, "w").write(text)
            try:
                render(page, t, out)
                got = open(out).read().splitlines()[-1]
            except stats.ResultError:
                got = None
            ok = got == want
            failed += not ok
            print(f"{'ok' if ok else 'FAIL'} - plot.py renders {text} as {got!r}")

    def check(what, ok):
        nonlocal failed
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} - {what}")

    got = fmt_ci((0.98, 0.95, 0.9996, 3))
    check(f"an interval end just below 1 shows its side: {got}", got == "0.98 [0.9500, 0.9996]")
    check("two decimals otherwise", fmt_ci((0.98, 0.95, 1.02, 3)) == "0.98 [0.95, 1.02]")
    runs = [{"key": k, "queries": "100", "qct_us": v} for k, v in (("a", "10.0"), ("b", "-1"))]
    check("an unfinished query's qct_us=-1 is counted, never averaged in",
          qct_of(runs) == (10.0, 1) and qct_cell(runs).startswith("10 (1 of 2 runs"))
    check("a mean over no flows (dc.cc's 0) is no measurement",
          not measured({"fct_large_mean_us": "0.0", "large_flows": "0"}, "fct_large_mean_us")
          and measured({"fct_large_mean_us": "5.0", "large_flows": "1"}, "fct_large_mean_us"))
    line = {"scheme": "red_tail", "ins_target_ns": "0", "pst_target_ns": "0"}
    try:
        params_all([dict(line, key="a", k_bytes="1000"), dict(line, key="b", k_bytes="2000")])
        check("runs of one scheme and topology with different thresholds are an error", False)
    except stats.ResultError:
        check("runs of one scheme and topology with different thresholds are an error", True)
    a = {"key": "k", "model": "m", "wall_s": "1", "drops": "5"}
    check("a run two sweeps printed alike counts once",
          model_runs([a, dict(a, wall_s="2")], "m") == ([a], 1))
    try:
        model_runs([a, dict(a, drops="6")], "m")
        check("a key with two different results is an error", False)
    except stats.ResultError:
        check("a key with two different results is an error", True)
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["selftest"]:
        return selftest()
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    results, model = sys.argv[1], sys.argv[2]
    page = Page(results, model)
    lines = [l for l in open(os.path.join(results, "runs.txt")) if l.strip()]
    every = [stats.parse_line(l, f"runs.txt:{i + 1}") for i, l in enumerate(lines)]
    runs, twice = model_runs(every, model)
    seen = {r["key"] for r in runs}
    other = len(every) - len(runs) - twice
    os.makedirs(os.path.join(results, "fig"), exist_ok=True)
    # Failed runs of this model (ns3/full.sh, failed.txt) that no later attempt replaced.
    failed_path = os.path.join(results, "failed.txt")
    failed = []
    if os.path.exists(failed_path):
        for i, l in enumerate(open(failed_path)):
            if l.strip():
                f = stats.parse_line(l, f"failed.txt:{i + 1}")
                if f.get("model") == model and f["key"] not in seen:
                    failed.append(f)
    page.set("runs_failed", str(len({f["key"] for f in failed})))
    write_other_models(results, [r for r in every if r.get("model") != model])
    parts = collections.Counter(r["part"] for r in runs)
    wall = sum(stats.need(r, "wall_s") for r in runs)
    page.set("model", model)
    # Every commit a model's runs name builds that model: the latest, for NS3_AT.
    page.set("model_commit", runs[-1]["commit"] if runs else "none")
    # The sender models' agreement with the Linux testbed (validation round 7), for the prose.
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # The small scenario's counts (ns3/validation.py writes them): validation.MODEL.within.
    agreement = os.path.join(results, "validation", "agreement.txt")
    counts = collections.Counter()
    if os.path.exists(agreement):
        for i, line in enumerate(open(agreement)):
            w = stats.parse_line(line, f"{agreement}:{i + 1}")
            if w["against"] == "linux":
                counts[w["model"], "ok"] += int(stats.need(w, "within"))
                counts[w["model"], "n"] += int(stats.need(w, "compared"))
        for (m, what), _ in list(counts.items()):
            if what == "n":
                page.set(f"validation.{m}.within", f"{counts[m, 'ok']} of {counts[m, 'n']}")
    # ...what lies outside it (validation.MODEL.outside), and how many rounds the page has.
    outside = os.path.join(results, "validation", "outside.txt")
    if os.path.exists(outside):
        items = collections.defaultdict(list)
        for line in open(outside):
            where, item = line.rstrip("\n").split("\t")
            tag, m = where.split()
            if tag == "linux":
                items[m].append(item)
        for m in {m for m, _ in counts}:  # every model compared, "none" where all is within
            page.set(f"validation.{m}.outside", "; ".join(items[m]) or "none")
    validation_md = os.path.join(results, "validation.md")
    if os.path.exists(validation_md):
        rounds = [int(x) for x in re.findall(r"^## Round (\d+)", open(validation_md).read(), re.M)]
        page.set("validation.rounds", str(max(rounds, default=1)))
    for m, (ok, n) in testbed_compare.within_counts(results, repo).items():
        page.set(f"testbed.{m}.within", f"{ok} of {n}")
    for scen in ("leafspine", "incast"):
        r = next((x for x in runs if x["scenario"] == scen), None)
        for key in ("rtt_mean_us", "rtt_p90_us"):
            page.set(f"rule.{scen}.{key}", f"{stats.need(r, key):.1f}" if r else "not run")
    page.set("runs", str(len(runs)))
    page.set("runs_other_models", str(other))
    page.set("runs_by_part", ", ".join(f"{p} {n}" for p, n in sorted(parts.items())) or "none")
    page.set("wall_hours", f"{wall / 3600:.1f}")
    page.set("edge_note", EDGE_NOTE)
    page.md += ["# ns-3 results: every point (generated by ns3/plot.py from runs.txt)", "",
                f"Model {model}: {len(runs)} runs ({page.values['runs_by_part']}), "
                f"{wall / 3600:.1f} hours of wall time; {other} runs of other models in runs.txt "
                "are not used (rule.md, section 6).", "", EDGE_NOTE + ".", ""]
    whole = True
    for workload in ("web-search", "data-mining"):
        whole &= f9_section(page, runs, "rule", workload, planned=F9_LOADS)
        f9_quarters(page, runs, workload)
    page.set("f9.rule.unreached", "" if whole else
             ' Loads the rule plans and the sweep has not reached are rows that say "not run".')
    f9_section(page, runs, "rule", "web-search", hosts="16", tag="q", verdicts=False)
    f10_section(page, runs, "rule")
    f11_section(page, runs)
    f11_low(page, runs)
    for variant in ("lambda1", "stockmark", "authors"):
        f9_section(page, runs, variant, "web-search")
        f10_section(page, runs, variant)
    f10_settings(page)
    with open(os.path.join(results, "tables.md"), "w") as f:
        f.write("\n".join(page.md) + "\n")
    template = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page.md.in")
    if os.path.exists(template):
        render(page, template, os.path.join(results, "README.md"))
    print(f"ns3-plot: {len(runs)} runs of model {model} ({other} of others) into {results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
