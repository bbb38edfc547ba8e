#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Names the samples tests/uml/bench/profile.sh took and prints CPU nanoseconds per packet by part.

For every case and round, the profile of the LOW-packet boot is taken from the COUNT-packet
boot's, so what the boot and set-up cost cancels and what is left is COUNT - LOW packets' worth.
A sample is one of:
  module:FN  in the module's code (its sections as the guest loaded them, named from the .ko)
  clock      reading the clock: UML's ktime_get -> timer_read -> os_nsecs -> the host's
             clock_gettime (vDSO), which every AQM that stamps packets pays twice per packet
  pktgen     the packet generator
  uml        the rest of the UML kernel (the stack, skb allocation, the dummy device, ...)
  host       the host kernel under the UML process (signals, scheduling)
  other      libraries and the rest
Prints, per case, the median over rounds of each part's ns per packet, the module's functions,
and each case's gap to prio; writes profile.tsv (round, case, part, samples, ns_per_packet).
"""
import argparse
import collections
import gzip
import os
import re
import statistics
import subprocess

CLOCK = {
    "__vdso_clock_gettime", "clock_gettime", "clock_gettime@@GLIBC_2.17", "__clock_gettime",
    "ktime_get", "ktime_get_ns", "ktime_get_real_ts64", "timer_read", "os_nsecs",
}


def module_symbols(ko, sections):
    """[(start, end, name)] of the module's functions at the addresses the guest loaded them."""
    names = {}
    for line in subprocess.run(["readelf", "-SW", ko], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m:
            names[int(m.group(1))] = m.group(2)
    syms = []
    for line in subprocess.run(["readelf", "-sW", "-C", ko], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        p = line.split(None, 7)
        if len(p) == 8 and p[3] == "FUNC" and p[6].isdigit():
            sec = names.get(int(p[6]))
            if sec in sections:
                start = sections[sec] + int(p[1], 16)
                syms.append((start, start + int(p[2]), short(p[7])))
    return sorted(syms)


def short(name):
    """A demangled name without the crate's path and hash."""
    return re.sub(r"sch_ecnsharp_rs(\[[0-9a-f]+\])?::", "", name)


def parts_of(boot_dir, ko, span=0x40000):
    sections = {}
    with open(os.path.join(boot_dir, "sections")) as f:
        for line in f:
            n, a = line.split()
            sections[n] = int(a, 16)
    syms = module_symbols(ko, sections)
    lo = min(sections.values())
    counts = collections.Counter()
    with gzip.open(os.path.join(boot_dir, "samples.gz"), "rt") as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            ip = int(p[0], 16)
            dso = p[-1]
            sym = " ".join(p[1:-1])
            if lo <= ip < lo + span:
                name = "?"
                for start, end, fn in syms:
                    if start <= ip < end:
                        name = fn
                        break
                counts["module:" + name] += 1
            elif sym in CLOCK or sym.split("+")[0] in CLOCK:
                counts["clock"] += 1
            elif sym.startswith("pktgen"):
                counts["pktgen"] += 1
            elif "kernel.kallsyms" in dso:
                counts["host"] += 1
            elif dso.endswith("/linux)") or dso == "(linux)":
                counts["uml"] += 1
            else:
                counts["other"] += 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--freq", type=float, required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--low", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("out")
    a = ap.parse_args()
    ns_per_sample = 1e9 / a.freq
    packets = a.count - a.low
    per = collections.defaultdict(set)  # the parts seen per case
    rows = []
    rounds = sorted(d for d in os.listdir(a.out) if d.isdigit())
    for r in rounds:
        for case in sorted(os.listdir(os.path.join(a.out, r))):
            base = os.path.join(a.out, r, case)
            low = parts_of(os.path.join(base, str(a.low)), a.module)
            high = parts_of(os.path.join(base, str(a.count)), a.module)
            for part in set(low) | set(high):
                d = high[part] - low[part]
                ns = d * ns_per_sample / packets
                rows.append((r, case, part, d, ns))
                per[case].add(part)
    with open(os.path.join(a.out, "profile.tsv"), "w") as f:
        f.write("round\tcase\tpart\tsamples\tns_per_packet\n")
        for row in sorted(rows):
            f.write("%s\t%s\t%s\t%d\t%.2f\n" % row)

    def med(case, pred):
        by_round = collections.defaultdict(float)
        for r, c, part, _, ns in rows:
            if c == case and pred(part):
                by_round[r] += ns
        return statistics.median([by_round[r] for r in rounds]) if rounds else 0.0

    groups = [("total", lambda p: True), ("clock", lambda p: p == "clock"),
              ("module", lambda p: p.startswith("module:")), ("pktgen", lambda p: p == "pktgen"),
              ("uml", lambda p: p == "uml"), ("host", lambda p: p == "host"),
              ("other", lambda p: p == "other")]
    cases = sorted(per, key=lambda c: (c != "prio", c))
    for case in cases:
        print("profile: %-26s ns/packet %s" % (case, " ".join(
            "%s=%.1f" % (g, med(case, f)) for g, f in groups)))
        mod = sorted(((med(case, lambda p, q=p: p == q), p) for p in per[case]
                      if p.startswith("module:")), reverse=True)
        for ns, p in mod[:8]:
            if ns >= 0.5:
                print("profile:     %5.1f ns  %s" % (ns, p[len("module:"):]))
    # Each case against prio with the same filters, and ecnsharp against fq_codel where neither
    # is bypassed.
    pairs = [(c, "prio+matchall" if c.endswith("+matchall") else "prio") for c in cases]
    pairs.append(("ecnsharp_1band+matchall", "fq_codel+matchall"))
    for case, ref in pairs:
        if case != ref and case in per and ref in per:
            print("cpu_gap kernel=uml %s-%s %s" % (case, ref, " ".join(
                "%s=%.1f" % (g, med(case, f) - med(ref, f)) for g, f in groups)))


if __name__ == "__main__":
    main()
