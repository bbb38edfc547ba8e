#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compares two runs of the virtual-time testbed, ratio by ratio, from their summary.json.

Usage: tests/uml/compare.py A B [--md FILE]

A and B are output directories of tests/uml/experiments.sh (ecnsharp-plot uml wrote their
summary.json). Two runs of the same plan with other random draws (another seed set, or the
clone-path dependence found in issue 21) are independent samples of one experiment: each ratio's
95% intervals should overlap nearly always (two 95% intervals of one quantity are disjoint far
less than 5% of the time). Prints one line
  compare: ratios=N overlap=M disjoint=K identical=I
and, for every disjoint pair, its key and both intervals; --md writes every pair as a table.
"""
import argparse
import json
import math
import sys


def load(d):
    with open(f"{d}/summary.json") as f:
        return {e["key"]: e for e in json.load(f)}


def fmt(e):
    lo, hi = e.get("lo"), e.get("hi")
    if lo is None or hi is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{e['ratio']:.3f} [-,-]"
    return f"{e['ratio']:.3f} [{lo:.3f},{hi:.3f}]"


def overlap(a, b):
    """Whether the two intervals share a point; None when either has none."""
    if None in (a.get("lo"), a.get("hi"), b.get("lo"), b.get("hi")):
        return None
    return a["lo"] <= b["hi"] and b["lo"] <= a["hi"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--md", help="write every pair as a markdown table")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    keys = [k for k in a if k in b]
    if not keys:
        sys.exit(f"compare: {args.a} and {args.b} have no ratio in common")
    rows, disjoint = [], []
    n_overlap = n_identical = 0
    for k in keys:
        o = overlap(a[k], b[k])
        same = (a[k]["ratio"], a[k].get("lo"), a[k].get("hi")) == (
            b[k]["ratio"], b[k].get("lo"), b[k].get("hi"))
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
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"| ratio | {args.a} | {args.b} | intervals |\n| --- | --- | --- | --- |\n")
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
