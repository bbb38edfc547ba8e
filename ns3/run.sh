#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make ns3: build the ns-3 side (ns3/Makefile), check that ns3::EcnSharpQueueDisc and the kernel
# harness agree packet for packet, then run one small leaf-spine point with ECN# and with
# DCTCP-RED-Tail and print the ratios on one line that scripts read:
#   ns3: hosts=N load=L fct_short_p99 ecnsharp/red_tail=R1 fct_short_mean ecnsharp/red_tail=R2
#        fct_large_mean ecnsharp/red_tail=R3 queue_mean ecnsharp/red_tail=R4
# The paper's direction is R1 <= 0.75, R3 <= 1.05, R4 <= 0.2 (docs/results/ns3/README.md).
# R1-R3 come from the leaf-spine point; R4 is the paper's Figure 10 comparison: the mean queue at
# the 16-to-1 incast bottleneck over NS3_INCAST_LAUNCH (1) seconds of data-mining background
# before the queries. The point can be changed: NS3_LEAVES, NS3_HOSTS_PER_LEAF, NS3_SPINES,
# NS3_LOAD, NS3_LAUNCH (seconds of flow arrivals), NS3_SEED, NS3_INCAST_LAUNCH.
set -euo pipefail
cd "$(dirname "$0")/.."

LEAVES=${NS3_LEAVES:-2}
HOSTS_PER_LEAF=${NS3_HOSTS_PER_LEAF:-8}
SPINES=${NS3_SPINES:-4}
LOAD=${NS3_LOAD:-0.8}
LAUNCH=${NS3_LAUNCH:-0.04}
SEED=${NS3_SEED:-1}
INCAST_LAUNCH=${NS3_INCAST_LAUNCH:-1}
OUT=target/ns3

pkg-config --exists ns3-core ns3-traffic-control || {
	echo "ns3: libns3-dev (ns-3.37) not found: run 'make deps' (tests/ns3/deps.sh)" >&2
	exit 1
}
nice -n 10 make -s -C ns3 -j2

# 1. The attributes' defaults and errors are the kernel's; the ns-3 disc and the kernel harness
# agree, packet for packet.
"$OUT/ecnsharp-agree" --attributes >"$OUT/attributes.log" || { cat "$OUT/attributes.log"; exit 1; }
echo "ns3-attributes: $(grep -c '^ok' "$OUT/attributes.log") checks of defaults and errors passed"
rm -rf "$OUT/agree" && mkdir -p "$OUT/agree"
ECNSHARP_AGREE_DIR="$PWD/$OUT/agree" cargo test -q --locked -p ecnsharp-ns3 --test agree >"$OUT/agree/cargo.log" 2>&1 ||
	{ cat "$OUT/agree/cargo.log"; exit 1; }
for schedule in "$OUT"/agree/*.schedule; do
	name=$(basename "$schedule" .schedule)
	"$OUT/ecnsharp-agree" "$schedule" >"$OUT/agree/$name.ns3" 2>"$OUT/agree/$name.err" ||
		{ cat "$OUT/agree/$name.err"; exit 1; }
	if ! cmp -s "$OUT/agree/$name.expected" "$OUT/agree/$name.ns3"; then
		echo "ns3-agree: $name: the ns-3 disc and the kernel harness disagree:" >&2
		diff "$OUT/agree/$name.expected" "$OUT/agree/$name.ns3" | head -n 20 >&2
		exit 1
	fi
	awk -v n="$name" '
		/^e / { pkts++ } / drop$/ || / x$/ { drops++ }
		/^e .* q [1-9]/ || / s [1-9]/ { marks++ }
		END { printf "ns3-agree: %s: %d packets, %d marks, %d drops: identical\n", n, pkts, marks, drops }
	' "$OUT/agree/$name.expected"
done

# 2. One leaf-spine point, ECN# and DCTCP-RED-Tail on the same flows, side by side (R1-R3), and
# the paper's Figure 10 queue: the 16-to-1 bottleneck under 1 s of data-mining background (R4).
leafspine() {
	nice -n 5 "$OUT/ecnsharp-dc" --scenario=leafspine --scheme="$1" --leaves="$LEAVES" \
		--hostsPerLeaf="$HOSTS_PER_LEAF" --spines="$SPINES" --load="$LOAD" --launch="$LAUNCH" \
		--end=1 --seed="$SEED" --cdf=ns3/workloads/web-search.cdf >"$OUT/point-$1.txt"
}
incast() {
	nice -n 5 "$OUT/ecnsharp-dc" --scenario=incast --scheme="$1" --load=0.9 \
		--launch="$INCAST_LAUNCH" --end="$(awk -v l="$INCAST_LAUNCH" 'BEGIN { print l + 0.1 }')" \
		--queries=100 --seed="$SEED" --cdf=ns3/workloads/data-mining.cdf >"$OUT/incast-$1.txt"
}
leafspine ecnsharp &
pid=$!
leafspine red_tail
wait "$pid"
incast ecnsharp &
pid=$!
incast red_tail
wait "$pid"
cat "$OUT/point-ecnsharp.txt" "$OUT/point-red_tail.txt" "$OUT/incast-ecnsharp.txt" "$OUT/incast-red_tail.txt"
field() { tr ' ' '\n' <"$OUT/$1.txt" | sed -n "s/^$2=//p"; }
ratio() {
	awk -v a="$(field "$1-ecnsharp" "$2")" -v b="$(field "$1-red_tail" "$2")" \
		'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'
}
# The issue's first queue figure, every switch port of the fabric over the whole arrival window
# (idle ports included), kept for comparison; R4 below is the paper's (docs/results/ns3/README.md).
echo "ns3-fabric-queue: hosts=$(field point-ecnsharp hosts) load=$LOAD" \
	"queue_mean ecnsharp/red_tail=$(ratio point queue_mean_pkts)" \
	"queue_busy_mean ecnsharp/red_tail=$(ratio point queue_busy_mean_pkts)"
echo "ns3-incast-queue: background=${INCAST_LAUNCH}s" \
	"ecnsharp=$(field incast-ecnsharp bg_queue_mean_pkts)" \
	"red_tail=$(field incast-red_tail bg_queue_mean_pkts) packets at the bottleneck"
echo "ns3: hosts=$(field point-ecnsharp hosts) load=$LOAD" \
	"fct_short_p99 ecnsharp/red_tail=$(ratio point fct_short_p99_us)" \
	"fct_short_mean ecnsharp/red_tail=$(ratio point fct_short_mean_us)" \
	"fct_large_mean ecnsharp/red_tail=$(ratio point fct_large_mean_us)" \
	"queue_mean ecnsharp/red_tail=$(ratio incast bg_queue_mean_pkts)"
