#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Validation round 5 (docs/results/ns3/validation.md): the UML testbed's web-search `flows`
# runs (docs/results/uml/full/flows.tsv.gz, the real Linux stack) against ns-3's
# --scenario=testbed (ns3/sim/testbed.h) with each sender and host model, ECN# and
# DCTCP-RED-Tail at the testbed's values, loads 0.5 and 0.9 (make experiments' points), seeds
# 1-3, 700 short flows per seed as the testbed. Each run's line goes to
# docs/results/ns3/validation/testbed-runs.txt, its flows to validation/testbed/NAME.txt.gz;
# then validation.md (ns3/validation.py).
#   NS3_JOBS=2  NS3_SEEDS="1 2 3"  NS3_TESTBED_LOADS="0.5 0.9"
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${NS3_JOBS:-2}
SEEDS=${NS3_SEEDS:-1 2 3}
LOADS=${NS3_TESTBED_LOADS:-0.5 0.9}
OUT=docs/results/ns3/validation
TMP=target/ns3/validate-testbed
nice -n 10 make -s -C ns3 -j2
mkdir -p "$OUT/testbed" "$TMP"
# The testbed's settings (tests/uml/testbed/params.sh): a 1000-packet port, ECN# 200/85/200 us
# and K = 250 KB (the lambda-1 rule on its RTT classes, with pst_target the paper's 85 us),
# Linux's 200 ms minimum RTO.
COMMON="--scenario=testbed --cdf=ns3/workloads/web-search.cdf --shortFlows=700 --limit=1000 --lambda=1 --pstTarget=85us --ns3::TcpSocketBase::MinRto=200ms"
# The models: NAME:ARGS (the ns-3 results' model first).
MODELS="stock:--tsoDefer=0,--hostMark=20us stock-nomark:--tsoDefer=0,--hostMark=0 linux:--tsoDefer=2,--hostMark=0,--hostLimit=1ms linux-mark:--tsoDefer=2,--hostMark=20us linux-tsq:--tsoDefer=2,--hostMark=0,--tsq=1"
jobs=$TMP/jobs.txt
: >"$jobs"
for seed in $SEEDS; do
	for load in $LOADS; do
		for m in $MODELS; do
			for scheme in ecnsharp red_tail; do
				echo "${m%%:*}-$scheme-$load-$seed $COMMON --scheme=$scheme --load=$load --seed=$seed ${m#*:}" | tr ',' ' ' >>"$jobs"
			done
		done
	done
done
one() {
	local name=${1%% *} args=${1#* }
	# shellcheck disable=SC2086 # the arguments are words
	nice -n 15 target/ns3/ecnsharp-dc $args --detailOut="$TMP/$name.detail" >"$TMP/$name.txt" ||
		{ echo "ns3-validate-testbed: $name failed" >&2; return 1; }
	grep -v '^[pq] ' "$TMP/$name.detail" | gzip -9 -n >"$OUT/testbed/$name.txt.gz"
	echo "ns3-validate-testbed: $name"
}
export -f one
export OUT TMP
tr '\n' '\0' <"$jobs" | xargs -0 -r -P "$JOBS" -I{} bash -c 'one "$@"' _ {}
while read -r name args; do
	echo "name=$name $(cat "$TMP/$name.txt") args=${args// /,}"
done <"$jobs" >"$OUT/testbed-runs.txt"
python3 ns3/validation.py docs/results/ns3
