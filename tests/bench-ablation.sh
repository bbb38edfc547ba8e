#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-ablation: where the module's per-packet cost goes, as the bench measures it
# (docs/results/bench.md, "Where the cost is"). Builds the module once more per patch in
# tests/vm/ablation/, each taking one thing out of the data path (the clock, the DS field read,
# the engine, the sojourn histogram, the marker), boots one VM and runs the bench's prio,
# fq_codel and ecnsharp_1band beside ecnsharp_1band@VARIANT for every build, in interleaved,
# rotated rounds (tests/vm/experiments/cpu-cost.sh). The builds are for measuring only: none is
# a qdisc anyone should load.
#
#   tests/bench-ablation.sh [ROUNDS [COUNT]]   (default 11 rounds of 200000 packets: ~5 min)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-11}
COUNT=${2:-200000}
tests/vm/deps.sh
kdir=$(tests/vm/build-kernel.sh default)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s bench-artifacts KDIR="$kdir" BENCH_OUT="$work/base"
files=()
for p in tests/vm/ablation/*.patch; do
	v=$(basename "$p" .patch)
	cp -a "$work/base/module-src" "$work/$v"
	rm -f "$work/$v"/*.o "$work/$v"/*.ko "$work/$v"/*.mod*
	patch -s -d "$work/$v" -p1 <"$p" || { echo "bench-ablation: $p no longer applies" >&2; exit 1; }
	make -s -C "$kdir" M="$work/$v" LLVM=1 modules >"$work/$v.log" 2>&1 ||
		{ cat "$work/$v.log" >&2; echo "bench-ablation: building $v failed" >&2; exit 1; }
	cp "$work/$v/sch_ecnsharp.ko" "$work/$v.ko"
	files+=(--file "$work/$v.ko")
	echo "bench-ablation: built $v (changes $(grep "^+++ " "$p" | cut -c7- | tr "\n" " "))"
done
echo "bench-ablation: host load before: $(uptime)"
tests/vm/run-in-vm --timeout 1800 "${files[@]}" tests/vm/experiments/cpu-cost.sh "$ROUNDS" "$COUNT" \
	"prio fq_codel ecnsharp_1band" >"$work/guest.log" ||
	{ tail -n 30 "$work/guest.log" >&2; exit 1; }
echo "bench-ablation: host load after: $(uptime)"
tr -d '\r' <"$work/guest.log" | grep -E '^cpu-cost: ' | grep -v '^cpu-cost: round'
