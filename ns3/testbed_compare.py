#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Validation round 5: ns-3's --scenario=testbed against the UML testbed's web-search runs.

    testbed_compare.py RESULTS_DIR    print the section validation.md includes

Linux: docs/results/uml/full/flows.tsv.gz (the testbed as committed, variant "-"); ns-3:
RESULTS_DIR/validation/testbed-runs.txt and testbed/NAME.txt.gz (ns3/validate-testbed.sh).
Both sides through the same statistics (ns3/stats.py: pooled over seeds, p99 as ecnsharp-dc
computes it, an unfinished flow longer than any finished one).
"""
import collections
import gzip
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

UML_FLOWS = os.path.join("docs", "results", "uml", "full", "flows.tsv.gz")
LOADS = ("0.5", "0.9")
SCHEMES = ("ecnsharp", "red_tail")
NAMES = {"ecnsharp": "ECN#", "red_tail": "DCTCP-RED-Tail"}
MODELS = [("stock", "stock, marker 20 us"), ("stock-nomark", "stock, no marker"),
          ("linux", "Linux-like, no marker, 1 ms limit"), ("linux-mark", "Linux-like, marker 20 us"),
          ("linux-tsq", "Linux-like, TSQ, no marker")]
# The tolerance, written before any run of this comparison: key, statistic, relative, what.
TOLERANCE = [("short_mean", stats.mean, 0.15, "short-flow FCT mean"),
             ("short_p99", stats.p99, 0.25, "short-flow FCT p99"),
             ("large_mean", stats.mean, 0.25, "large-flow FCT mean")]
RATIO_TOLERANCE = 0.10  # ECN# / DCTCP-RED-Tail: within 0.10 of Linux's ratio


def units(key, flows):
    if key.startswith("short"):
        return [f for s, f in flows if s < stats.SHORT_BYTES]
    return [f for s, f in flows if s > stats.LARGE_BYTES]


def linux_flows(repo):
    """{(scheme, load): {seed: [(size, fct_us)]}} of the testbed's web-search runs."""
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    with gzip.open(os.path.join(repo, UML_FLOWS), "rt") as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {k: i for i, k in enumerate(header)}
        for line in f:
            w = line.rstrip("\n").split("\t")
            if w[col["workload"]] != "websearch" or w[col["variant"]] != "-":
                continue
            if w[col["scheme"]] not in SCHEMES or w[col["load"]] not in LOADS:
                continue
            fct = float(w[col["fct_us"]])
            out[w[col["scheme"]], w[col["load"]]][w[col["seed"]]].append(
                (int(w[col["size"]]), stats.INF if fct < 0 else fct))
    return out


def ns3_flows(results):
    """{(model, scheme, load): {seed: [(size, fct_us)]}} and {same: [run lines]}."""
    path = os.path.join(results, "validation", "testbed-runs.txt")
    flows = collections.defaultdict(dict)
    runs = collections.defaultdict(list)
    if not os.path.exists(path):
        return flows, runs
    for n, line in enumerate(open(path), 1):
        r = stats.parse_line(line, f"{path}:{n}")
        model, scheme, load, seed = r["name"].rsplit("-", 3)
        d = stats.load_detail(os.path.join(results, "validation", "testbed", f"{r['name']}.txt.gz"))
        flows[model, scheme, load][seed] = [(s, f) for s, f, q, _ in d["flows"] if not q]
        runs[model, scheme, load].append(r)
    return flows, runs


def section(results, repo):
    return compare(results, repo)[0]


def within_counts(results, repo):
    """{model: (comparisons within the tolerance, comparisons made)}."""
    _, within, total = compare(results, repo)
    return {m: (within[m], total[m]) for m in total}


def compare(results, repo):
    """The section's Markdown, and per model the comparisons within and made."""
    lx = linux_flows(repo)
    ns, runs = ns3_flows(results)
    if not ns:
        return "Not run yet (`ns3/validate-testbed.sh`).", collections.Counter(), collections.Counter()
    md = ["| load, scheme | metric | Linux (UML testbed) | " + " | ".join(h for _, h in MODELS) +
          " | tolerance |", "|---|---|---|" + "---|" * len(MODELS) + "---|"]
    within = collections.Counter()
    total = collections.Counter()
    for load in LOADS:
        for scheme in SCHEMES:
            seeds = sorted(lx[scheme, load])
            for key, stat, rel, what in TOLERANCE:
                want = stat([v for s in seeds for v in units(key, lx[scheme, load][s])])
                cells = []
                for model, _ in MODELS:
                    got_seeds = ns.get((model, scheme, load))
                    if not got_seeds:
                        cells.append("not run")
                        continue
                    got = stat([v for s in got_seeds for v in units(key, got_seeds[s])])
                    ok = abs(got - want) <= rel * want
                    total[model] += 1
                    within[model] += ok
                    cells.append(f"{got:.0f} ({'within' if ok else 'outside'})")
                md.append(f"| {load}, {NAMES[scheme]} | {what} (us) | {want:.0f} | " +
                          " | ".join(cells) + f" | {rel:.0%} |")
    # The ratios the experiments report, with the same bootstrap on both sides.
    for load in LOADS:
        for key, stat, _, what in TOLERANCE:
            rng = random.Random(stats.SEED)
            seeds = sorted(set(lx["ecnsharp", load]) & set(lx["red_tail", load]))
            want = stats.ratio_ci(stat, [units(key, lx["ecnsharp", load][s]) for s in seeds],
                                  [units(key, lx["red_tail", load][s]) for s in seeds], rng)
            cells = []
            for model, _ in MODELS:
                a, b = ns.get((model, "ecnsharp", load)), ns.get((model, "red_tail", load))
                common = sorted(set(a or {}) & set(b or {}))
                if not common:
                    cells.append("not run")
                    continue
                got = stats.ratio_ci(stat, [units(key, a[s]) for s in common],
                                     [units(key, b[s]) for s in common], random.Random(stats.SEED))
                ok = abs(got[0] - want[0]) <= RATIO_TOLERANCE
                total[model] += 1
                within[model] += ok
                cells.append(f"{stats.fmt(*got)} ({'within' if ok else 'outside'})")
            md.append(f"| {load}, ECN# / RED-Tail | {what} | {stats.fmt(*want)} | " +
                      " | ".join(cells) + f" | {RATIO_TOLERANCE:g} |")
    md.append("")
    md.append("- Within the tolerance: " + ", ".join(
        f"{within[m]} of {total[m]} ({h})" for m, h in MODELS if total[m]) + ".")
    facts = []
    for model, h in MODELS:
        rs = [r for k, v in runs.items() if k[0] == model for r in v]
        if rs:
            facts.append(f"{h}: {sum(int(stats.need(r, 'short_flows')) for r in rs)} short flows, "
                         f"{sum(int(stats.need(r, 'timeouts')) for r in rs)} timeouts, "
                         f"{sum(int(stats.need(r, 'drops')) for r in rs)} drops, "
                         f"{sum(int(stats.need(r, 'unfinished')) for r in rs)} unfinished")
    made = sorted({(k[2], r["seed"]) for k, v in runs.items() for r in v})
    md.append("- ns-3 runs made (load, seed): " + ", ".join(f"({l}, {s})" for l, s in made) +
              ", both schemes; summed: " + "; ".join(facts) + ".")
    n_lx = sum(len(units('short', lx[s, l][k])) for s in SCHEMES for l in LOADS for k in lx[s, l])
    md.append(f"- Linux: {n_lx} short flows over both schemes and loads "
              f"(seeds {', '.join(sorted(lx['ecnsharp', LOADS[0]]))}).")
    return "\n".join(md), within, total


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(section(sys.argv[1], repo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
