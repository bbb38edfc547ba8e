#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make experiments / make experiments-full: the ECN# paper's testbed on the real Linux stack in
# virtual time (User-Mode Linux, tests/uml/testbed/), every scheme, several seeds, one UML per
# core. Each point (scenario, scheme, parameters, seed) is one boot of tests/uml/testbed/job.sh,
# deterministic for its seed; finished points are kept in $ECNSHARP_CACHE/uml-jobs under a key
# hashing the point, the testbed's scripts and parameters, the module, the tools and the
# kernel, so an interrupted sweep resumes and a changed model reruns. Collects every point into
# OUT (jobs.tsv, flows.tsv.gz, run.txt) and draws the results with ecnsharp-plot uml.
# Usage: tests/uml/experiments.sh [--quick | --full] [--jobs N] [--out DIR] [--only REGEX]
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/lib.sh
plan=quick
jobs=$(nproc)
out=
only=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) plan=quick; shift ;;
	--full) plan=full; shift ;;
	--jobs) jobs=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	*) die "usage: tests/uml/experiments.sh [--quick | --full] [--jobs N] [--out DIR] [--only REGEX]" ;;
	esac
done
[ -n "$out" ] || out=docs/results/uml/$plan
. tests/uml/testbed/params.sh
t_start=$(date +%s)
# The commit the module and tools are built from, read before the runs (the tree may move on
# while a sweep runs; the points keep the build they started with).
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- || echo ' (modified)')"

tests/vm/deps.sh
kdir=$(tests/vm/build-kernel.sh uml)
# One build for every point: the module and tools for UML (the first boot builds, the rest
# reuse with --no-build).
tests/uml/run-in-uml --out "$(mktemp -d)" tests/uml/testbed/noop.sh >/dev/null ||
	die "the UML bench does not boot (see above)"
work=$(uml_work "$REPO_DIR")
# What a point's result depends on: the testbed's scripts and parameters (comments left out: a
# comment cannot change a result), the workloads, the module, the tools and the kernel.
model_key=$({
	grep -hv '^[[:space:]]*#' tests/uml/testbed/*.sh tests/uml/init.sh tests/uml/run-in-uml ns3/workloads/*.cdf
	sha256sum "$work/sch_ecnsharp.ko" "$work/tools/"* | cut -d' ' -f1
	kernel_key uml
} | sha256sum | cut -c1-16)

# The plan: one line per point, "SEED ARGS...". Seeds are the outer loop, so a sweep cut short
# has every scheme at every point for its first seeds.
points() {
	local seeds loads fanouts workloads
	if [ $plan = full ]; then
		loads=$LOADS_FULL
		fanouts=$INCAST_FANOUTS_FULL
		workloads="websearch datamining"
	else
		loads=$LOADS_QUICK
		fanouts=$INCAST_FANOUTS_QUICK
		workloads=websearch
	fi
	seeds=$SEEDS
	[ "$LONG_SEEDS" -gt "$seeds" ] && seeds=$LONG_SEEDS
	for seed in $(seq 1 "$seeds"); do
		if [ "$seed" -le "$LONG_SEEDS" ]; then
			for s in $SCHEMES; do echo "$seed SCENARIO=long SCHEME=$s SPREAD=3"; done
			for v in 2 5; do
				for s in $VARIATION_SCHEMES; do echo "$seed SCENARIO=long SCHEME=$s SPREAD=$v"; done
			done
		fi
		[ "$seed" -le "$SEEDS" ] || continue
		for w in $workloads; do
			for l in $loads; do
				for s in $SCHEMES; do echo "$seed SCENARIO=flows SCHEME=$s WORKLOAD=$w LOAD=$l"; done
			done
		done
		for n in $fanouts; do
			for s in $INCAST_SCHEMES; do echo "$seed SCENARIO=incast SCHEME=$s FANOUT=$n"; done
		done
		for s in ecnsharp tcn_tail; do echo "$seed SCENARIO=sched SCHEME=$s"; done
		# Figure 13b (Amendment 5): sched plus short probe flows, in both plans.
		for s in $SCHED_PROBE_SCHEMES; do echo "$seed SCENARIO=sched_probe SCHEME=$s"; done
		[ $plan = full ] || continue
		# Sensitivity, each its own labelled table (docs/results/uml/README.md):
		# Figure 2: DCTCP-RED's K from 50 to 250 KB at 3x, web search at load 0.5.
		for k in 50000 100000 150000 200000; do
			echo "$seed SCENARIO=flows SCHEME=red_k WORKLOAD=websearch LOAD=0.5 K_BYTES=$k"
		done
		# Figure 3: DCTCP-RED at the mean and at the 90th percentile RTT as the spread grows.
		for v in 2 4 5; do
			for s in red_tail red_avg; do echo "$seed SCENARIO=flows SCHEME=$s WORKLOAD=websearch LOAD=0.5 SPREAD=$v"; done
		done
		# Figure 8: ECN# against DCTCP-RED-Tail at 4x and 5x, web search, every load.
		for v in 4 5; do
			for l in $loads; do
				for s in $VARIATION_SCHEMES; do
					# (DCTCP-RED-Tail at load 0.5 is Figure 3's point already.)
					[ "$l" = 0.5 ] && [ "$s" = red_tail ] && continue
					echo "$seed SCENARIO=flows SCHEME=$s WORKLOAD=websearch LOAD=$l SPREAD=$v"
				done
			done
		done
		# The first run's buffer (250 packets) for ECN# and the instantaneous schemes.
		for l in 0.5 0.9; do
			for s in ecnsharp red_tail tcn_tail codel; do
				echo "$seed SCENARIO=flows SCHEME=$s WORKLOAD=websearch LOAD=$l LIMIT_PKTS=250 LIMIT_BYTES=378500"
			done
		done
	done
}

store="$ECNSHARP_CACHE/uml-jobs"
mkdir -p "$store" "$out"
. tests/uml/store.sh
# run_point SEED ARGS...: one boot, its outputs in the store under the point's key.
run_point() {
	local seed=$1 key dir
	shift
	key=$(point_key "$model_key" "$seed" "$*")
	dir="$store/$key"
	if [ -f "$dir/done" ]; then
		echo "cached $seed $*"
		return 0
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	printf '%s\n' "$seed $*" >"$dir/point"
	# shellcheck disable=SC2155 # date +%s does not fail
	local t0=$(date +%s)
	if tests/uml/run-in-uml --no-build --seed "$seed" --out "$dir" --timeout "${POINT_TIMEOUT:-7200}" \
		tests/uml/testbed/job.sh "$@" >"$dir/run.log" 2>&1; then
		echo "$(($(date +%s) - t0))" >"$dir/wall_s"
		touch "$dir/done"
		echo "done $seed $* ($(cat "$dir/wall_s") s)"
	else
		echo "FAILED $seed $* (log: $dir/run.log)"
		tail -n 5 "$dir/run.log" | sed 's/^/#   /'
	fi
}
export -f run_point point_key
export model_key store ECNSHARP_CACHE

points | { if [ -n "$only" ]; then grep -E "$only"; else cat; fi; } >"$out/plan.txt"
n=$(wc -l <"$out/plan.txt")
say "$plan plan: $n points on $jobs parallel UML instances (results: $out)"
xargs -a "$out/plan.txt" -P "$jobs" -L 1 bash -c 'run_point "$@"' _ | tee "$out/progress.log"

# Determinism: one point booted again must give byte-identical outputs: the plan's first
# workload point (its flows.jsonl holds every flow's completion time; it costs about what a
# long-flow point does), or its first point when it has none (--only).
det=$(grep -m 1 ' SCENARIO=flows ' "$out/plan.txt" || head -n 1 "$out/plan.txt")
ddir=$(mktemp -d)
# shellcheck disable=SC2086
tests/uml/run-in-uml --no-build --seed ${det%% *} --out "$ddir" tests/uml/testbed/job.sh ${det#* } \
	>"$ddir/run.log" 2>&1 || true
dkey=$(point_key "$model_key" "${det%% *}" "${det#* }")
determinism=identical
for f in result.tsv flows.jsonl flows.err bulk.jsonl queries.jsonl bands.txt queue.txt qdisc.json tcp.txt; do
	[ -f "$store/$dkey/$f" ] || continue
	cmp -s "$store/$dkey/$f" "$ddir/$f" || { determinism="differs ($f)"; break; }
done

# Collect every finished point of the plan into OUT (tests/uml/collect.sh).
tests/uml/collect.sh "$store" "$model_key" "$out"
failed=$(grep -c '^FAILED' "$out/progress.log" || true)
# Points this invocation booted, and points it took from the cache (an earlier invocation's):
# the wall time below is this invocation's only.
ran=$(grep -c '^done ' "$out/progress.log" || true)
cached=$(grep -c '^cached ' "$out/progress.log" || true)
wall=$(($(date +%s) - t_start))
cpu=$(awk -F'\t' '$5 == "wall_s" { s += $6 } END { print s + 0 }' "$out/jobs.tsv")
{
	echo "make experiments ($plan): $n points ($ran run now, $cached from the cache), $failed failed, ${wall} s wall for this invocation on $jobs cores ($(nproc) on the host), ${cpu} s summed over the points (cached points count their first run)"
	echo "model key $model_key, kernel $(basename "$kdir"), commit $commit at the start"
	echo "determinism: $determinism (point: $det)"
	echo "host load at the end: $(uptime)"
} >"$out/run.txt"
cat "$out/run.txt"
cargo build --release --locked -q -p ecnsharp-plot
target/release/ecnsharp-plot uml "$out"
[ "$failed" -eq 0 ] || { echo "experiments: $failed points failed (see $out/progress.log)"; exit 1; }
