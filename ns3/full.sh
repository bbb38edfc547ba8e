#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make ns3-full: the ECN# paper's simulations (5.3 leaf-spine FCT sweep, 5.4 incast) with
# ns3::EcnSharpQueueDisc, each scheme a mode of the one engine. Appends one key=value line per
# run to docs/results/ns3/runs.txt (runs already there are skipped, so an interrupted sweep
# resumes), then draws the tables and plots from that file (ns3/plot.sh).
#
# The paper's scale is the default; it takes many hours on 2 cores (128 hosts: about 6 minutes
# of CPU per 0.1 s simulated at middle load). Smaller sweeps by environment:
#   NS3_LEAVES=8 NS3_HOSTS_PER_LEAF=16 NS3_SPINES=8 NS3_LAUNCH=0.1 NS3_SEEDS="1"
#   NS3_LOADS="0.1 ... 0.9" NS3_WORKLOADS="web-search data-mining"
#   NS3_SCHEMES="ecnsharp red_tail red_avg codel tcn" NS3_QUERIES="25 50 ... 200"
#   NS3_INCAST_SCHEMES="ecnsharp red_tail codel" NS3_JOBS=2 (runs in parallel); an empty list
#   skips that part (NS3_LOADS="" runs the incast only)
set -euo pipefail
cd "$(dirname "$0")/.."

LEAVES=${NS3_LEAVES:-8}
HOSTS_PER_LEAF=${NS3_HOSTS_PER_LEAF:-16}
SPINES=${NS3_SPINES:-8}
LAUNCH=${NS3_LAUNCH:-0.1}
SEEDS=${NS3_SEEDS:-1}
LOADS=${NS3_LOADS-0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9}
WORKLOADS=${NS3_WORKLOADS-web-search data-mining}
SCHEMES=${NS3_SCHEMES-ecnsharp red_tail red_avg codel tcn}
QUERIES=${NS3_QUERIES-25 50 75 100 125 150 175 200}
INCAST_SCHEMES=${NS3_INCAST_SCHEMES-ecnsharp red_tail codel}
JOBS=${NS3_JOBS:-2}
RESULTS=docs/results/ns3
RUNS=$RESULTS/runs.txt
OUT=target/ns3

tests/ns3/deps.sh --plots
nice -n 10 make -s -C ns3 -j2
mkdir -p "$RESULTS" "$OUT/full"
touch "$RUNS"

# One job per line: the tag that marks it done in runs.txt, then the arguments.
jobs=$OUT/full/jobs.txt
: >"$jobs"
for seed in $SEEDS; do
	for w in $WORKLOADS; do
		for load in $LOADS; do
			for s in $SCHEMES; do
				tag="scenario=leafspine workload=$w scheme=$s hosts=$((LEAVES * HOSTS_PER_LEAF)) load=$load seed=$seed launch=$LAUNCH"
				grep -qF "$tag " "$RUNS" && continue
				echo "$tag|--scenario=leafspine --scheme=$s --cdf=ns3/workloads/$w.cdf --leaves=$LEAVES --hostsPerLeaf=$HOSTS_PER_LEAF --spines=$SPINES --load=$load --launch=$LAUNCH --seed=$seed --end=$(awk -v l="$LAUNCH" 'BEGIN { print l * 10 }')" >>"$jobs"
			done
		done
	done
	for n in $QUERIES; do
		for s in $INCAST_SCHEMES; do
			tag="scenario=incast workload=data-mining scheme=$s queries=$n seed=$seed"
			grep -qF "$tag " "$RUNS" && continue
			echo "$tag|--scenario=incast --scheme=$s --cdf=ns3/workloads/data-mining.cdf --load=0.9 --launch=1 --end=1.1 --queries=$n --seed=$seed --queueOut=$RESULTS/queue-$s-$n.dat" >>"$jobs"
		done
	done
done
echo "ns3-full: $(wc -l <"$jobs") runs to do, $JOBS at a time"

one() {
	local tag=${1%%|*} args=${1#*|} line
	line=$(nice -n 5 target/ns3/ecnsharp-dc $args) || { echo "ns3-full: failed: $args" >&2; return 1; }
	# One write per line, so that parallel runs do not interleave.
	printf '%s %s\n' "$tag" "$line" >>"$RUNS"
	echo "ns3-full: $tag done"
}
export -f one
export RUNS
tr '\n' '\0' <"$jobs" | xargs -0 -r -P "$JOBS" -I{} bash -c 'one "$@"' _ {}

python3 ns3/plot.py "$RESULTS"
