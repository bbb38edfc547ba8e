#!/usr/bin/env bash
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

tests/vm/deps.sh
kdir=$(tests/vm/build-kernel.sh uml)
# One build for every point: the module and tools for UML (the first boot builds, the rest
# reuse with --no-build).
tests/uml/run-in-uml --out "$(mktemp -d)" tests/uml/testbed/noop.sh >/dev/null ||
	die "the UML bench does not boot (see above)"
work="$ECNSHARP_CACHE/run/uml-$(printf '%s' "$REPO_DIR" | sha256sum | cut -c1-8)"
model_key=$({
	cat tests/uml/testbed/*.sh tests/uml/init.sh tests/uml/run-in-uml ns3/workloads/*.cdf
	sha256sum "$work/sch_ecnsharp.ko" "$work/tools/"* | cut -d' ' -f1
	kernel_key uml
} | sha256sum | cut -c1-16)

# The plan: one line per point, "SEED ARGS...". Seeds are the outer loop, so a sweep cut short
# has every scheme at every point for its first seeds.
points() {
	local seeds loads fanouts workloads
	if [ $plan = full ]; then
		seeds=$(seq 1 "$SEEDS")
		loads=$LOADS_FULL
		fanouts=$INCAST_FANOUTS_FULL
		workloads="websearch datamining"
	else
		seeds=$(seq 1 "$SEEDS")
		loads=$LOADS_QUICK
		fanouts=$INCAST_FANOUTS_QUICK
		workloads=websearch
	fi
	for seed in $seeds; do
		for s in $SCHEMES; do echo "$seed SCENARIO=long SCHEME=$s SPREAD=3"; done
		for v in 2 5; do
			for s in $VARIATION_SCHEMES; do echo "$seed SCENARIO=long SCHEME=$s SPREAD=$v"; done
		done
		for w in $workloads; do
			for l in $loads; do
				for s in $SCHEMES; do echo "$seed SCENARIO=flows SCHEME=$s WORKLOAD=$w LOAD=$l"; done
			done
		done
		for n in $fanouts; do
			for s in $INCAST_SCHEMES; do echo "$seed SCENARIO=incast SCHEME=$s FANOUT=$n"; done
		done
		for s in ecnsharp tcn_tail; do echo "$seed SCENARIO=sched SCHEME=$s"; done
	done
}

store="$ECNSHARP_CACHE/uml-jobs"
mkdir -p "$store" "$out"
# run_point SEED ARGS...: one boot, its outputs in the store under the point's key.
run_point() {
	local seed=$1 key dir
	shift
	key=$(printf '%s %s %s\n' "$model_key" "$seed" "$*" | sha256sum | cut -c1-16)
	dir="$store/$key"
	if [ -f "$dir/done" ]; then
		echo "cached $seed $*"
		return 0
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	printf '%s\n' "$seed $*" >"$dir/point"
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
export -f run_point
export model_key store ECNSHARP_CACHE

points | { if [ -n "$only" ]; then grep -E "$only"; else cat; fi; } >"$out/plan.txt"
n=$(wc -l <"$out/plan.txt")
say "$plan plan: $n points on $jobs parallel UML instances (results: $out)"
xargs -a "$out/plan.txt" -P "$jobs" -L 1 bash -c 'run_point "$@"' _ | tee "$out/progress.log"

# Determinism: one point booted again must give byte-identical outputs.
det=$(head -n 1 "$out/plan.txt")
ddir=$(mktemp -d)
# shellcheck disable=SC2086
tests/uml/run-in-uml --no-build --seed ${det%% *} --out "$ddir" tests/uml/testbed/job.sh ${det#* } \
	>"$ddir/run.log" 2>&1 || true
dkey=$(printf '%s %s %s\n' "$model_key" "${det%% *}" "${det#* }" | sha256sum | cut -c1-16)
determinism=identical
for f in result.tsv flows.jsonl bulk.jsonl queue.txt qdisc.json tcp.txt; do
	[ -f "$store/$dkey/$f" ] || continue
	cmp -s "$store/$dkey/$f" "$ddir/$f" || { determinism="differs ($f)"; break; }
done

# Collect: every point's results as rows, flows as rows (gzip), and the run's context.
{
	printf 'seed\tscenario\tscheme\tvariant\tmetric\tvalue\n'
	while read -r seed args; do
		key=$(printf '%s %s %s\n' "$model_key" "$seed" "$args" | sha256sum | cut -c1-16)
		[ -f "$store/$key/done" ] || continue
		# shellcheck disable=SC2086
		set -- $args
		sc= sch= var=
		for a in "$@"; do
			case $a in
			SCENARIO=*) sc=${a#*=} ;;
			SCHEME=*) sch=${a#*=} ;;
			*) var="$var${var:+,}$a" ;;
			esac
		done
		awk -F'\t' -v p="$seed	$sc	$sch	$var" '{ print p "\t" $1 "\t" $2 }' "$store/$key/result.tsv"
		printf '%s\t%s\t%s\t%s\twall_s\t%s\n' "$seed" "$sc" "$sch" "$var" "$(cat "$store/$key/wall_s")"
	done <"$out/plan.txt"
} >"$out/jobs.tsv"
{
	printf 'seed\tworkload\tload\tscheme\tsize\tto\tstart_us\tfct_us\n'
	while read -r seed args; do
		case $args in *SCENARIO=flows*) ;; *) continue ;; esac
		key=$(printf '%s %s %s\n' "$model_key" "$seed" "$args" | sha256sum | cut -c1-16)
		[ -f "$store/$key/done" ] || continue
		# shellcheck disable=SC2086
		set -- $args
		for a in "$@"; do export "J_${a%%=*}=${a#*=}"; done
		jq -r --arg p "$seed	$J_WORKLOAD	$J_LOAD	$J_SCHEME" 'select(.fct_us) |
			"\($p)\t\(.size)\t\(.to)\t\(.start_us)\t\(.fct_us)"' "$store/$key/flows.jsonl"
	done <"$out/plan.txt"
} | gzip -n >"$out/flows.tsv.gz"
failed=$(grep -c '^FAILED' "$out/progress.log" || true)
wall=$(($(date +%s) - t_start))
cpu=$(awk -F'\t' '$5 == "wall_s" { s += $6 } END { print s + 0 }' "$out/jobs.tsv")
{
	echo "make experiments ($plan): $n points, $failed failed, ${wall} s wall on $jobs cores ($(nproc) on the host), ${cpu} s summed over the points (cached points count their first run)"
	echo "model key $model_key, kernel $(basename "$kdir"), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
	echo "determinism: $determinism (point: $det)"
	echo "host load at the end: $(uptime)"
} >"$out/run.txt"
cat "$out/run.txt"
cargo build --release --locked -q -p ecnsharp-plot
target/release/ecnsharp-plot uml "$out"
[ "$failed" -eq 0 ] || { echo "experiments: $failed points failed (see $out/progress.log)"; exit 1; }
