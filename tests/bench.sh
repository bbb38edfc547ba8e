#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: the CPU cost of the qdisc against Linux's own, in one VM boot, beside the host
# per-packet benchmark of the core. Not part of make check (it measures, it asserts nothing but
# that every packet went through every qdisc).
#
#   tests/bench.sh [ROUNDS [COUNT]]   (default 15 rounds of 200000 packets: about 10 minutes)
#
# 1. Host: kmod/benches/per_packet.rs, its table only (ns per packet of the engine over plain
#    FIFOs, best of 7 runs).
# 2. Guest: tests/vm/experiments/cpu-cost.sh, pktgen queue_xmit to a dummy device through prio,
#    fq_codel, red and ecnsharp with 1 to 16 bands (DWRR and WFQ), ROUNDS interleaved rounds.
# 3. User-Mode Linux, native (no time travel): tests/uml/bench/cpu-cost.sh, the same rounds with the
#    kernel's code running on the host CPU, ECT(0) packets and marking on.
# Ends with the cost per band count and, last, the lines scripts read:
#   pps_ratio ecnsharp_1band/prio=A ecnsharp_8band_dwrr/prio=B ecnsharp_1band/fq_codel=C
#   pps_ratio kernel=uml ecnsharp_1band/prio=A ecnsharp_8band_dwrr/prio=B ecnsharp_1band/fq_codel=C
# each preceded by its pps_ratio_nobypass line: fq_codel lets an empty queue be bypassed, and the
# queue is one packet deep here, so the fq_codel ratio above compares ecnsharp with no qdisc work;
# the nobypass ratios compare every qdisc with one matchall filter, which takes the bypass away.
# Method and results: docs/results/bench.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-15}
COUNT=${2:-200000}
tests/vm/deps.sh
echo "bench: host load before: $(uptime)"
host=$(mktemp)
guest=$(mktemp)
trap 'rm -f "$host" "$guest"' EXIT
nice -n 5 cargo bench --locked -q -p ecnsharp --bench per_packet -- nomatch 2>/dev/null |
	sed -n '/^ns per packet/,$p' >"$host"
[ -s "$host" ] || { echo "bench: the host benchmark printed no table" >&2; exit 1; }
tests/vm/run-in-vm --timeout 3600 tests/vm/experiments/cpu-cost.sh "$ROUNDS" "$COUNT" | tee "$guest" |
	grep --line-buffered -E '^cpu-cost: round' || true
grep -q '^pps_ratio ' "$guest" || { echo "bench: the guest run did not finish" >&2; tail -n 30 "$guest" >&2; exit 1; }
echo "bench: host load after: $(uptime)"
echo
echo "== host: the core alone (kmod/benches/per_packet.rs)"
cat "$host"
echo
echo "== guest: packets per second through each qdisc (pktgen queue_xmit -> dummy, 64 B)"
grep -E '^cpu-cost: ' "$guest" | grep -v '^cpu-cost: round'
grep -E '^band_cost ' "$guest"
grep -E '^pps_ratio_nobypass ' "$guest"
grep -E '^pps_ratio ' "$guest"
# 3. User-Mode Linux without time travel: the same measurement with the kernel's code running
#    natively on the host CPU, ECN-capable packets and marking on (tests/uml/bench/cpu-cost.sh).
uml=$(mktemp -d)
tests/uml/run-in-uml --native --timeout 3600 --out "$uml" tests/uml/bench/cpu-cost.sh "$ROUNDS" 1000000 |
	grep --line-buffered -E '^cpu-cost: round' || true
echo
echo "== uml, native: packets per second through each qdisc (pktgen queue_xmit -> dummy, 64 B, ECT(0))"
grep -E '^cpu-cost: ' "$uml/console.log" | grep -v '^cpu-cost: round'
grep -E '^pps_ratio_iqr ' "$uml/console.log"
grep -q '^pps_ratio kernel=uml ' "$uml/console.log" || { echo "bench: the UML run did not finish" >&2; tail -n 20 "$uml/console.log" >&2; exit 1; }
grep -E '^pps_ratio_nobypass ' "$uml/console.log"
grep -E '^pps_ratio ' "$guest"
grep -E '^pps_ratio kernel=uml ' "$uml/console.log"
rm -rf "$uml"
