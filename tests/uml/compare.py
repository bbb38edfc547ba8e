#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compares two runs of the virtual-time testbed, ratio by ratio, from their summary.json.

Usage: tests/uml/compare.py A B [--md FILE]

A and B are output directories of tests/uml/experiments.sh (ecnsharp-plot uml wrote their
summary.json). Two runs of the same plan with other random draws (another seed set, or the
clone-path dependence found in issue 21) are independent samples of one experiment: each ratio's
95% intervals should overlap nearly always (two 95% intervals of one quantity are disjoint far
less than 5% of the time). Prints one line
  compare: ratios=N overlap=M disjoint=K identical=I (of C in both; W without an interval)
("identical": the same ratio and interval to the 4 decimals summary.json keeps), then every
disjoint pair with both intervals, and the ratios only one run has (the plans may differ); --md writes every pair as a
table. Exits 0 whatever it finds: it reports, the reader judges.
"""
import argparse
import json
import math
import sys


def load(d):
    with open(f"{d}/summary.json") as f:
        return {e["key"]: e for e in json.load(f)}


def num(x):
    """A finite number, or None (summary.json writes null for what is not one)."""
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


def interval(e):
    lo, hi = num(e.get("lo")), num(e.get("hi"))
    return None if lo is None or hi is None else (lo, hi)


def fmt(e):
    r = num(e.get("ratio"))
    r = "-" if r is None else f"{r:.3f}"
    i = interval(e)
    return f"{r} [-,-]" if i is None else f"{r} [{i[0]:.3f},{i[1]:.3f}]"


def overlap(a, b):
    """Whether the two intervals share a point; None when either has none."""
    ia, ib = interval(a), interval(b)
    if ia is None or ib is None:
        return None
    return ia[0] <= ib[1] and ib[0] <= ia[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--md", help="write every pair as a markdown table")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    keys = [k for k in a if k in b]
    only_a = [k for k in a if k not in b]
    only_b = [k for k in b if k not in a]
    if not keys:
        sys.exit(f"compare: {args.a} and {args.b} have no ratio in common")
    rows, disjoint = [], []
    n_overlap = n_identical = 0
    for k in keys:
        o = overlap(a[k], b[k])
        same = fmt(a[k]) == fmt(b[k]) and (a[k].get("ratio"), a[k].get("lo"), a[k].get("hi")) == (
            b[k].get("ratio"), b[k].get("lo"), b[k].get("hi"))
        n_identical += same
        if o:
            n_overlap += 1
        elif o is False:
            disjoint.append(k)
        verdict = {True: "overlap", False: "disjoint", None: "no interval"}[o]
        rows.append(f"| {k} | {fmt(a[k])} | {fmt(b[k])} | {verdict} |")
    judged = n_overlap + len(disjoint)
    print(f"compare: ratios={judged} overlap={n_overlap} disjoint={len(disjoint)} "
          f"identical={n_identical} (of {len(keys)} in both; {len(keys) - judged} without an interval)")
    for k in disjoint:
        print(f"compare: disjoint {k}: {fmt(a[k])} vs {fmt(b[k])}")
    for run, ks in ((args.a, only_a), (args.b, only_b)):
        if ks:
            more = f"; and {len(ks) - 5} more" if len(ks) > 5 else ""
            print(f"compare: {len(ks)} ratios only in {run}: " + "; ".join(ks[:5]) + more)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"| ratio | {args.a} | {args.b} | intervals |\n| --- | --- | --- | --- |\n")
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
