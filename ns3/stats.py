#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The statistics of the ns-3 results (docs/results/ns3/rule.md, section 5), used by ns3/run.sh
(make ns3) and ns3/plot.py (make ns3-full).

A run is one result line of ecnsharp-dc (key=value words) and its detail file (one line per
flow `f`, per switch port `p`, per queue sample `q`). A point is a scheme at some setting over
several seeds. Ratios are scheme / DCTCP-RED-Tail with 95% intervals from a two-level bootstrap:
seeds drawn with replacement (the same draw for both schemes: a seed is a workload), then, within
each drawn seed and independently per scheme, the units of the statistic (flows, switch ports,
or 100 us blocks of queue samples). Seeded by the rule's seed and the numbers compared
(`point_rng`): the same runs give the same intervals in make ns3 and on the page. The replicates
are drawn here, or by `ecnsharp-plot ns3-bootstrap` (tests/plot/src/ns3/) from this generator's
own state: the same draws, bit for bit (`selftest` compares the two), 5-20 times faster.

A second, labelled statistic beside the rule's (added after the first results, review of
2026-11-29): the paired interval (`paired_ratio_ci`). A seed fixes the workload, so both schemes
run the same flows (size, start, delay class; `flow_ids`); resampling a flow draws it for both.

    stats.py quick DIR   the make ns3 point from DIR/{leafspine,incast}-SCHEME-SEED.{txt,detail}
    stats.py selftest    checks of the parsing and the statistics (run by make ns3)
"""
import gzip
import hashlib
import heapq
import math
import os
import random
import subprocess
import sys

SHORT_BYTES = 100_000
LARGE_BYTES = 10_000_000
BOOTSTRAP = 2000
SEED = 22
BLOCK = 10  # queue samples per block: 100 us at one sample every 10 us
INF = float("inf")


class ResultError(Exception):
    """A result that cannot be read as the rule says: fatal, never read as zero."""


def parse_line(line, where="result line"):
    """key=value words into a dict; a word without '=' or a repeated key is an error."""
    run = {}
    for word in line.split():
        if "=" not in word:
            raise ResultError(f"{where}: '{word}' is not key=value")
        k, v = word.split("=", 1)
        if k in run:
            raise ResultError(f"{where}: '{k}' appears twice")
        run[k] = v
    if not run:
        raise ResultError(f"{where}: empty")
    return run


def need(run, key):
    """The value of `key` as a number; a missing or non-numeric field is an error."""
    if key not in run:
        raise ResultError(f"field '{key}' missing from the run "
                          f"(scenario={run.get('scenario', '?')} scheme={run.get('scheme', '?')} "
                          f"seed={run.get('seed', '?')})")
    try:
        return float(run[key])
    except ValueError:
        raise ResultError(f"field '{key}' is '{run[key]}', not a number") from None


def load_detail(path):
    """Flows [(size, fct_us or INF, query, timeouts)], ports [mean packets], samples [packets],
    and flow_ids [(size, start, class)], one per flow, for pairing two schemes' flows."""
    opener = gzip.open if path.endswith(".gz") else open
    flows, ports, samples, ids = [], [], [], []
    with opener(path, "rt") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            w = line.split()
            try:
                if w[0] == "f":
                    fct = float(w[3])
                    flows.append((int(w[1]), INF if fct < 0 else fct, w[5] == "1", int(w[6])))
                    ids.append((w[1], w[2], w[4]))
                elif w[0] == "p":
                    ports.append(float(w[1]))
                elif w[0] == "q":
                    samples.append(float(w[2]))
                else:
                    raise ValueError(w[0])
            except (IndexError, ValueError):
                raise ResultError(f"{path}:{n}: cannot read '{line.strip()}'") from None
    if not flows:
        raise ResultError(f"{path}: no flows")
    return {"flows": flows, "ports": ports, "samples": samples, "flow_ids": ids}


# Units of each statistic, per run (one seed).
def short_fcts(d):
    return [fct for size, fct, query, _ in d["flows"] if not query and size < SHORT_BYTES]


def short_flows_by_id(d):
    """The short flows as {(size, start, class): fct}, for pairing."""
    return {i: f[1] for f, i in zip(d["flows"], d["flow_ids"])
            if not f[2] and f[0] < SHORT_BYTES}


def query_timed_out(d):
    """Per query flow, 1.0 if it had a retransmission timeout."""
    return [1.0 if timeouts > 0 else 0.0 for _, _, query, timeouts in d["flows"] if query]


def large_fcts(d):
    return [fct for size, fct, query, _ in d["flows"] if not query and size > LARGE_BYTES]


def all_fcts(d):
    return [fct for size, fct, query, _ in d["flows"] if not query]


def port_means(d):
    return d["ports"]


def fig10_blocks(d):
    s = d["samples"]
    if len(s) != 501:
        raise ResultError(f"{len(s)} queue samples, not 501")
    return [sum(s[i:i + BLOCK]) / BLOCK for i in range(0, 500, BLOCK)]


# Statistics over the pooled units of the seeds.
def p99(values):
    """The 99th percentile as ecnsharp-dc computes it (sorted[round(0.99 (n-1))]); an
    unfinished flow (INF) is longer than every finished one."""
    n = len(values)
    if n == 0:
        return math.nan
    rank = int(0.99 * (n - 1) + 0.5)  # 0-based from the smallest
    return heapq.nlargest(n - rank, values)[-1]


def mean(values):
    finite = [v for v in values if v != INF]
    return sum(finite) / len(finite) if finite else math.nan


def pooled(stat, seeds):
    return stat([v for units in seeds for v in units])


def point_rng(what, num, den):
    """The generator of one interval: the rule's seed, what is computed, and the numbers
    compared, so that the same runs give the same interval wherever it is printed, and adding
    other runs moves no interval."""
    h = hashlib.sha1(f"{SEED}:{what}".encode())
    for side in (num, den):
        for units in side:
            h.update(repr(units).encode())
            h.update(b"|")
        h.update(b"#")
    return random.Random(h.hexdigest())


def _ratio(a, b):
    """a / b, or None when it is undefined (b not positive, or either not finite: a p99 that
    falls on an unfinished flow is infinite, and a ratio to it would read 0 and pass)."""
    if not (math.isfinite(a) and math.isfinite(b)) or b <= 0:
        return None
    return a / b


def _interval(replicates):
    """The 95% percentile interval of BOOTSTRAP replicates (each a ratio, or None when
    undefined); NaN if more than 1% were undefined (a ratio with 0 below it, or an empty
    resample), which the caller prints as no interval. Third, each end's Monte Carlo band: the
    replicates one standard deviation of its rank either side of it (the count of replicates
    below a quantile is binomial), what another generator seed could have given."""
    reps = [r for r in replicates if r is not None]
    if BOOTSTRAP - len(reps) > BOOTSTRAP // 100:
        return math.nan, math.nan, ((math.nan, math.nan), (math.nan, math.nan))
    reps.sort()
    n = len(reps)
    ends, bands = [], []
    for q in (0.025, 0.975):
        k = int(q * (n - 1))
        sd = math.ceil(math.sqrt(n * q * (1 - q)))
        ends.append(reps[k])
        bands.append((reps[max(k - sd, 0)], reps[min(k + sd, n - 1)]))
    return ends[0], ends[1], tuple(bands)


def at_edge(lo, hi, bands):
    """Whether 1 lies outside [lo, hi] but within the Monte Carlo band of the end nearer it:
    the interval's side of 1 is then not settled by 2,000 replicates."""
    (lo_a, lo_b), (hi_a, hi_b) = bands
    return (hi < 1 <= hi_b) or (lo_a <= 1 < lo)


def ratio_ci(stat, num, den, rng, bands=False):
    """stat over num's seeds / stat over den's seeds, and its bootstrap 95% interval (and,
    with `bands`, its ends' Monte Carlo bands, `_interval`).
    num and den: lists (one entry per seed, same seed order) of lists of units. A point that is
    not a number (no units, or 0 below the ratio) is an error."""
    if len(num) != len(den) or not num:
        raise ResultError("a ratio needs the same seeds for both schemes")
    point = _ratio(pooled(stat, num), pooled(stat, den))
    if point is None:
        raise ResultError(f"a ratio of {pooled(stat, num)} to {pooled(stat, den)} is undefined "
                          "(a ratio needs a finite value over a positive finite one)")
    lo, hi, mc = _interval(_replicates(False, stat, num, den, rng))
    return (point, lo, hi, mc) if bands else (point, lo, hi)


def paired_ratio_ci(stat, num, den, rng, bands=False):
    """As ratio_ci, but num and den are per seed {flow id: value} over the same flows (the same
    workload): each replicate draws the seeds, then within a seed the flows, once for both
    schemes. A seed whose two schemes do not hold the same flows is an error."""
    if len(num) != len(den) or not num:
        raise ResultError("a ratio needs the same seeds for both schemes")
    pairs = []
    for a, b in zip(num, den):
        if a.keys() != b.keys():
            raise ResultError(f"paired ratio: the schemes ran different flows "
                              f"({len(a.keys() - b.keys())} and {len(b.keys() - a.keys())} unmatched)")
        ids = sorted(a)
        pairs.append(([a[i] for i in ids], [b[i] for i in ids]))
    point = _ratio(pooled(stat, [p[0] for p in pairs]), pooled(stat, [p[1] for p in pairs]))
    if point is None:
        raise ResultError("a paired ratio is undefined (a ratio needs a finite value over a "
                          "positive finite one)")
    lo, hi, mc = _interval(_replicates(True, stat, [p[0] for p in pairs],
                                       [p[1] for p in pairs], rng))
    return (point, lo, hi, mc) if bands else (point, lo, hi)


def replicates_here(paired, stat, num, den, rng):
    """BOOTSTRAP replicates of stat(num) / stat(den), drawn in Python. Plain: every seed drawn
    first, then each drawn seed's units with replacement, the numerator's, then the
    denominator's. Paired (num[i][j] and den[i][j] the same flow): each drawn seed, then its
    flows, one draw for both schemes."""
    k = len(num)

    def replicate():
        if not paired:
            draw = [rng.randrange(k) for _ in range(k)]
            a = [rng.choices(num[i], k=len(num[i])) for i in draw]
            b = [rng.choices(den[i], k=len(den[i])) for i in draw]
            return _ratio(pooled(stat, a), pooled(stat, b))
        xs, ys = [], []
        for i in (rng.randrange(k) for _ in range(k)):
            va, vb = num[i], den[i]
            idx = [rng.randrange(len(va)) for _ in range(len(va))]
            xs.append([va[j] for j in idx])
            ys.append([vb[j] for j in idx])
        return _ratio(pooled(stat, xs), pooled(stat, ys))

    return [replicate() for _ in range(BOOTSTRAP)]


def fast_bootstrap():
    """ecnsharp-plot, to draw the replicates: $ECNSHARP_PLOT, or target/release/ecnsharp-plot
    when built after every change to its ns3 sources; None: draw them here."""
    path = os.environ.get("ECNSHARP_PLOT")
    if path is not None:
        if path and not os.access(path, os.X_OK):
            raise ResultError(f"ECNSHARP_PLOT={path}: not an executable")
        return path or None  # ECNSHARP_PLOT= (empty): draw here
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(repo, "target", "release", "ecnsharp-plot")
    src = os.path.join(repo, "tests", "plot", "src", "ns3")
    try:
        built = os.path.getmtime(path)
        if all(os.path.getmtime(os.path.join(src, f)) < built for f in os.listdir(src)):
            return path
    except OSError:
        pass
    return None


def replicates_there(path, paired, stat, num, den, rng):
    """The replicates replicates_here would draw, drawn by ecnsharp-plot ns3-bootstrap from
    rng's state; rng is left where replicates_here would leave it."""
    version, state, gauss = rng.getstate()
    lines = [f"ns3-bootstrap {'paired' if paired else 'plain'} {stat.__name__} {BOOTSTRAP}",
             "state " + " ".join(map(str, state))]
    for a, b in zip(num, den):
        lines.append("num " + " ".join(repr(float(v)) for v in a))
        lines.append("den " + " ".join(repr(float(v)) for v in b))
    p = subprocess.run([path, "ns3-bootstrap"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    out = p.stdout.splitlines()
    if p.returncode != 0 or len(out) != BOOTSTRAP + 1 or not out[-1].startswith("state "):
        raise ResultError(f"{path} ns3-bootstrap: exit {p.returncode}, {len(out)} lines: "
                          f"{p.stderr.strip()[:300]}")
    rng.setstate((version, tuple(int(w) for w in out[-1].split()[1:]), gauss))
    return [None if x == "none" else float(x) for x in out[:-1]]


def _replicates(paired, stat, num, den, rng):
    path = fast_bootstrap() if stat in (mean, p99) else None
    if path is None:
        return replicates_here(paired, stat, num, den, rng)
    return replicates_there(path, paired, stat, num, den, rng)


def fmt(point, lo, hi):
    return f"{point:.3f} [{lo:.3f},{hi:.3f}]"


def quick(directory):
    """The make ns3 line: R1-R3 from the leaf-spine runs, R4 the fabric queue_mean as filed,
    R5 fig10_queue, with sample sizes and intervals."""
    seeds = sorted({name.rsplit("-", 1)[1].split(".")[0] for name in os.listdir(directory)
                    if name.startswith("leafspine-ecnsharp-") and name.endswith(".txt")}, key=int)
    if not seeds:
        raise ResultError(f"{directory}: no runs")
    runs, details = {}, {}
    for scen in ("leafspine", "incast"):
        for scheme in ("ecnsharp", "red_tail"):
            for seed in seeds:
                base = os.path.join(directory, f"{scen}-{scheme}-{seed}")
                with open(base + ".txt") as f:
                    lines = [l for l in f if l.startswith("scenario=")]
                if len(lines) != 1:
                    raise ResultError(f"{base}.txt: {len(lines)} result lines, not 1")
                runs[scen, scheme, seed] = parse_line(lines[0], base + ".txt")
                details[scen, scheme, seed] = load_detail(base + ".detail")
    # Everything is checked before anything is printed: a line a script reads must never be
    # printed for runs that are then refused.
    for scen in ("leafspine", "incast"):
        for scheme in ("ecnsharp", "red_tail"):
            for seed in seeds:
                r = runs[scen, scheme, seed]
                # The fields the lines below and the page read: missing is an error.
                for key in ("hosts", "load", "flows", "unfinished", "short_flows", "large_flows",
                            "queue_mean_pkts", "drops", "timeouts", "ins_target_ns",
                            "pst_target_ns", "k_bytes"):
                    need(r, key)
                if scen == "incast":
                    for key in ("fig10_queue_pkts", "bg_queue_mean_pkts", "bottleneck_drops",
                                "query_timeouts"):
                        need(r, key)
                # The ratios are computed from the detail files: one with lines missing would
                # give a ratio over fewer units, not an error. Every flow of the run is there...
                d = details[scen, scheme, seed]
                if len(d["flows"]) != need(r, "flows"):
                    raise ResultError(f"{scen}-{scheme}-{seed}.detail: {len(d['flows'])} flows, "
                                      f"the result line says flows={r['flows']}")
        # ... and every switch port (R4's units), as many in every run of the topology.
        ports = {len(details[scen, sch, s]["ports"]) for sch in ("ecnsharp", "red_tail")
                 for s in seeds}
        if len(ports) != 1 or 0 in ports:
            raise ResultError(f"{scen}: the detail files hold {sorted(ports)} switch ports, "
                              "not one count above 0 in every run")

    def per_seed(scen, scheme, units):
        return [units(details[scen, scheme, s]) for s in seeds]

    def ratio(scen, units, stat):
        num, den = per_seed(scen, "ecnsharp", units), per_seed(scen, "red_tail", units)
        return ratio_ci(stat, num, den, point_rng(f"{stat.__name__}:{units.__name__}", num, den))

    r1 = ratio("leafspine", short_fcts, p99)
    r2 = ratio("leafspine", short_fcts, mean)
    r3 = ratio("leafspine", large_fcts, mean)
    r4 = ratio("leafspine", port_means, mean)
    r5 = ratio("incast", fig10_blocks, mean)
    for name, (point, lo, hi) in (("fct_short_p99", r1), ("fct_short_mean", r2),
                                  ("fct_large_mean", r3), ("queue_mean", r4),
                                  ("fig10_queue", r5)):
        if not (lo <= point <= hi):
            raise ResultError(f"{name}: {point} outside its own interval [{lo}, {hi}]")
    ls = [runs["leafspine", "ecnsharp", s] for s in seeds]
    n_short = sum(len(short_fcts(details["leafspine", "ecnsharp", s])) for s in seeds)
    n_large = sum(len(large_fcts(details["leafspine", "ecnsharp", s])) for s in seeds)
    unfinished = {sch: int(sum(need(runs["leafspine", sch, s], "unfinished") for s in seeds))
                  for sch in ("ecnsharp", "red_tail")}

    def avg(scen, scheme, key):
        return sum(need(runs[scen, scheme, s], key) for s in seeds) / len(seeds)

    hosts = int(need(ls[0], "hosts"))
    load = need(ls[0], "load")
    print(f"ns3-fabric-queue: hosts={hosts} load={load:g} seeds={len(seeds)} "
          f"queue_mean ecnsharp={avg('leafspine', 'ecnsharp', 'queue_mean_pkts'):.3f} "
          f"red_tail={avg('leafspine', 'red_tail', 'queue_mean_pkts'):.3f} packets "
          f"(every switch port over the arrival window, as filed)")
    print(f"ns3-incast-queue: seeds={len(seeds)} "
          f"fig10_queue ecnsharp={avg('incast', 'ecnsharp', 'fig10_queue_pkts'):.1f} "
          f"red_tail={avg('incast', 'red_tail', 'fig10_queue_pkts'):.1f} packets (paper 8, 182); "
          f"bg_queue_mean ecnsharp={avg('incast', 'ecnsharp', 'bg_queue_mean_pkts'):.1f} "
          f"red_tail={avg('incast', 'red_tail', 'bg_queue_mean_pkts'):.1f}; "
          f"bottleneck_drops ecnsharp={avg('incast', 'ecnsharp', 'bottleneck_drops'):.0f} "
          f"red_tail={avg('incast', 'red_tail', 'bottleneck_drops'):.0f}")
    print(f"ns3-samples: flows_short={n_short} flows_large={n_large} seeds={len(seeds)} "
          f"unfinished ecnsharp={unfinished['ecnsharp']} red_tail={unfinished['red_tail']} "
          f"bootstrap={BOOTSTRAP}")
    print(f"ns3: hosts={hosts} load={load:g} "
          f"fct_short_p99 ecnsharp/red_tail={fmt(*r1)} "
          f"fct_short_mean ecnsharp/red_tail={fmt(*r2)} "
          f"fct_large_mean ecnsharp/red_tail={fmt(*r3)} "
          f"queue_mean ecnsharp/red_tail={fmt(*r4)} "
          f"fig10_queue ecnsharp/red_tail={fmt(*r5)} "
          f"flows_short={n_short} seeds={len(seeds)}")


def selftest():
    """What the rule's statistics promise, checked on numbers worked by hand."""
    failed = 0

    def check(what, ok):
        nonlocal failed
        print(f"{'ok' if ok else 'FAIL'} - {what}")
        failed += not ok

    check("p99 of 1..100 is 99", p99(list(range(1, 101))) == 99)
    check("p99 counts an unfinished flow as the longest",
          p99(list(range(1, 100)) + [INF]) == 99 and p99([1.0] * 98 + [INF, INF]) == INF)
    check("mean leaves unfinished flows out", mean([1.0, 3.0, INF]) == 2.0)
    try:
        need({"scenario": "x"}, "queue_mean_pkts")
        check("a missing field is an error", False)
    except ResultError as e:
        check("a missing field is an error", "queue_mean_pkts" in str(e))
    try:
        parse_line("a=1 a=2")
        check("a repeated key is an error", False)
    except ResultError:
        check("a repeated key is an error", True)
    rng = random.Random(1)
    same = [[float(i) for i in range(200)] for _ in range(3)]
    point, lo, hi = ratio_ci(mean, same, same, rng)
    check(f"identical schemes: ratio 1 inside [{lo:.3f},{hi:.3f}]", point == 1 and lo <= 1 <= hi)
    half = [[v / 2 for v in s] for s in same]
    point, lo, hi = ratio_ci(mean, half, same, rng)
    check(f"halved FCTs: ratio 0.5, interval [{lo:.3f},{hi:.3f}] excludes 1",
          abs(point - 0.5) < 1e-12 and hi < 1)
    noisy_a = [[rng.expovariate(1.0) for _ in range(300)] for _ in range(3)]
    noisy_b = [[rng.expovariate(1.0) for _ in range(300)] for _ in range(3)]
    point, lo, hi = ratio_ci(mean, noisy_a, noisy_b, rng)
    check(f"same distribution, independent draws: [{lo:.3f},{hi:.3f}] contains 1", lo <= 1 <= hi)
    point, lo, hi, ((la, lb), (ha, hb)) = ratio_ci(mean, noisy_a, noisy_b, random.Random(3),
                                                   bands=True)
    check(f"each end lies inside its Monte Carlo band: [{la:.3f},{lb:.3f}] and "
          f"[{ha:.3f},{hb:.3f}]", la <= lo <= lb and ha <= hi <= hb and la < lb and ha < hb)
    check("an end whose band reaches 1 is at the edge; one whose band stops short is not",
          at_edge(0.9, 0.999, ((0.89, 0.91), (0.995, 1.002)))
          and at_edge(1.001, 1.2, ((0.999, 1.003), (1.1, 1.3)))
          and not at_edge(0.9, 0.97, ((0.89, 0.91), (0.96, 0.98)))
          and not at_edge(0.9, 1.1, ((0.89, 0.91), (1.05, 1.15))))
    pa = [{i: float(i % 50) for i in range(300)} for _ in range(3)]
    pb = [{i: v * 1.02 + (i % 7) for i, v in s.items()} for s in pa]
    point, lo, hi = paired_ratio_ci(mean, pa, pb, random.Random(2))
    _, ulo, uhi = ratio_ci(mean, [list(s.values()) for s in pa], [list(s.values()) for s in pb],
                           random.Random(2))
    check(f"paired: the same flows in both schemes give a narrower interval [{lo:.3f},{hi:.3f}] "
          f"than unpaired [{ulo:.3f},{uhi:.3f}]", lo <= point <= hi and hi - lo < uhi - ulo)
    try:
        paired_ratio_ci(mean, [{1: 1.0}], [{2: 1.0}], random.Random(2))
        check("paired: different flows are an error", False)
    except ResultError:
        check("paired: different flows are an error", True)
    try:
        ratio_ci(mean, [[1.0]], [[INF]], random.Random(2))
        check("a ratio over nothing finished is an error, not a number", False)
    except ResultError:
        check("a ratio over nothing finished is an error, not a number", True)
    for num, den in (([[1.0] * 50], [[1.0] * 49 + [INF]]), ([[1.0] * 49 + [INF]], [[1.0] * 50])):
        try:
            ratio_ci(p99, num, den, random.Random(2))
            check("a p99 on an unfinished flow (infinite) is an error, not a ratio of 0 or inf",
                  False)
        except ResultError:
            check("a p99 on an unfinished flow (infinite) is an error, not a ratio of 0 or inf",
                  True)
    _, lo, hi = ratio_ci(mean, [[1.0, 2.0]], [[0.0, 0.0, 0.0, 1.0]], random.Random(2))
    check("replicates with 0 below the ratio: no interval (NaN), not a narrower one",
          math.isnan(lo) and math.isnan(hi))
    # The replicates ecnsharp-plot draws are Python's, bit for bit, and it leaves the generator
    # where Python would: both statistics, both kinds, unfinished flows, empty and one-unit
    # seeds, seed counts of 1 to 4, units drawn from many magnitudes.
    path = fast_bootstrap()
    if path is None:
        check("ecnsharp-plot built, to compare its replicates with Python's (cargo build "
              "--release -p ecnsharp-plot, or ECNSHARP_PLOT=PATH)", False)
    else:
        gen = random.Random(5)
        cases = 0
        for trial in range(12):
            k = 1 + trial % 4
            sizes = [gen.choice([0, 1, 2, 7, 150]) if trial % 3 == 0 else gen.randint(20, 400)
                     for _ in range(k)]
            num = [[gen.lognormvariate(5, 2) if gen.random() > 0.02 else INF for _ in range(n)]
                   for n in sizes]
            den = [[v * gen.uniform(0.5, 1.5) if v != INF else gen.expovariate(0.01) for v in s]
                   for s in num]
            for paired in (False, True):
                for stat in (mean, p99):
                    here, there = random.Random(trial), random.Random(trial)
                    a = replicates_here(paired, stat, num, den, here)
                    b = replicates_there(path, paired, stat, num, den, there)
                    cases += a == b and here.getstate() == there.getstate() and \
                        here.random() == there.random()
        check(f"ecnsharp-plot ns3-bootstrap draws Python's replicates bit for bit and leaves its "
              f"generator where Python does: {cases} of 48 cases", cases == 48)
    a1 = point_rng("x", [[1.0, 2.0]], [[3.0]]).random()
    check("the generator depends on the numbers compared, and only on them",
          a1 == point_rng("x", [[1.0, 2.0]], [[3.0]]).random()
          and a1 != point_rng("x", [[1.0, 2.5]], [[3.0]]).random())
    return 1 if failed else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "quick":
        try:
            quick(sys.argv[2])
        except (ResultError, OSError) as e:
            print(f"ns3: {e}", file=sys.stderr)
            return 1
        return 0
    if len(sys.argv) == 2 and sys.argv[1] == "selftest":
        return selftest()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
