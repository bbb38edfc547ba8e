#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The ns-3 side of the sender-model validation (docs/results/ns3/validation.md): 2 or 4
# long-lived DCTCP senders with different base RTTs and a probe host into one 10 Gbit/s port,
# ECN# and DCTCP-RED-Tail at the rule's thresholds, the host marker on (20 us) and off, the
# senders as ns-3.37 has them and deferring as Linux's do (-defer, -defer2), and the sweep's own
# sender and host model (-headline: ns3/sender.sh's HEADLINE_SENDER, round 8). Writes
# one result line per run to docs/results/ns3/validation/ns3-runs.txt, beside it each run's
# .hist (the exact time-weighted queue distribution), .fct (probe FCTs) and .cwnd.gz (every
# 100 us); the 10 us queue series stay in target/ns3/validate/. Then validation.md from
# ns3/validation.md.in (ns3/validation.py).
#   NS3_VALIDATE_DURATION=1 (s of long-lived flows; the window starts at 0.2 s)  NS3_JOBS=2
#   NS3_VALIDATE_ONLY=REGEX (run only the runs whose name matches; the others keep their lines)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${NS3_VALIDATE_DURATION:-1}
JOBS=${NS3_JOBS:-2}
ONLY=${NS3_VALIDATE_ONLY:-}
. ns3/sender.sh
OUT=docs/results/ns3/validation
TMP=target/ns3/validate
nice -n 10 make -s -C ns3 -j2
mkdir -p "$OUT" "$TMP"
jobs=target/ns3/validate-jobs.txt
: >"$jobs"
# 2 and 4 senders from the start; "2join": the 203 us flow alone until the 44 us one joins at
# 0.5 s (alone, its NIC is its bottleneck: the case the host marker was made for).
for senders in 2 4 2join; do
	case $senders in
	2) classes=0,4 extra= ;;
	4) classes=0,1,3,4 extra= ;;
	2join) classes=4,0 extra=--joinAt=0.5 ;;
	esac
	for scheme in ecnsharp red_tail; do
		for mark in 20us 0; do
			# -defer: the senders defer as Linux's TCP does outside CWR (ns3/sim/tso-defer.h,
			# round 3); -defer2: in CWR too, with Linux's PRR (ns3/sim/linux-cwr.h, round 4).
			for defer in 0 1 2; do
				name=$scheme-$senders-mark${mark%us}
				# -defer2 also drops at the host NIC what would wait over 1 ms (the bench's
				# tbf `latency 1ms`): with cwnd grown only when cwnd-limited, that is what
				# ends a lone flow's growth there.
				limit=0
				case $defer in 1) name=$name-defer ;; 2) name=$name-defer2 limit=1ms ;; esac
				echo "$name --scenario=validate --scheme=$scheme --senders=${senders%join} --classes=$classes $extra --hostMark=$mark --hostLimit=$limit --tsoDefer=$defer --duration=$DURATION --warmup=0.2 --outPrefix=$TMP/$name" >>"$jobs"
			done
		done
		# The sender and host model every run of the sweep uses, exactly as the sweep passes it.
		name=$scheme-$senders-headline
		echo "$name --scenario=validate --scheme=$scheme --senders=${senders%join} --classes=$classes $extra $HEADLINE_SENDER --duration=$DURATION --warmup=0.2 --outPrefix=$TMP/$name" >>"$jobs"
	done
done
one() {
	local name=${1%% *} args=${1#* }
	# shellcheck disable=SC2086 # the arguments are words
	nice -n 15 target/ns3/ecnsharp-dc $args >"$TMP/$name.txt" ||
		{ echo "ns3-validate: $name failed" >&2; return 1; }
	cp "$TMP/$name.hist" "$TMP/$name.fct" "$OUT/"
	gzip -9 -n -c "$TMP/$name.cwnd" >"$OUT/$name.cwnd.gz"
}
export -f one
export OUT TMP
todo=$jobs
if [ -n "$ONLY" ]; then
	todo=$jobs.only
	awk -v re="$ONLY" '$1 ~ re' "$jobs" >"$todo"
	[ -s "$todo" ] || { echo "ns3-validate: no run matches NS3_VALIDATE_ONLY=$ONLY" >&2; exit 1; }
fi
tr '\n' '\0' <"$todo" | xargs -0 -r -P "$JOBS" -I{} bash -c 'one "$@"' _ {}
# Every run's line in the jobs' order: this sweep's from its output, the others' as they were.
lines=$TMP/ns3-runs.txt
for name in $(cut -d' ' -f1 "$jobs"); do
	if grep -q "^$name " "$todo"; then
		echo "name=$name $(cat "$TMP/$name.txt")"
	else
		grep "^name=$name " "$OUT/ns3-runs.txt" ||
			{ echo "ns3-validate: $name has no line: run it (NS3_VALIDATE_ONLY)" >&2; exit 1; }
	fi
done >"$lines"
mv "$lines" "$OUT/ns3-runs.txt"
python3 ns3/validation.py docs/results/ns3
