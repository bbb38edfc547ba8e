#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make check's virtual-time steps, as TAP lines: the UML bench kernel builds (or is cached) and
# boots with the module; a short testbed point (six long DCTCP flows through ECN# at 10 Gbit/s,
# 0.3 s) meets bounds that hold exactly in virtual time (the shaper's rate, its timer's lateness,
# the buffer's limit on sojourn); a short workload point (web search at load 0.9 through ECN#
# until 20 short flows have arrived, about 34 flows in 0.05 virtual seconds) run twice with one
# seed gives byte-identical outputs, counters and every flow's completion time (flows.jsonl)
# alike, so does a run from two other clones of the repository, and a run with another seed
# gives other completion times (so the comparison can fail); make experiments' collection
# (tests/uml/collect.sh) gathers those points from a point store; and the native CPU bench (make
# bench's UML part) runs one short round of every case.
# Usage: tests/uml/check.sh   (prints "ok"/"not ok" lines and "# ..." diagnostics)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/lib.sh
. tests/tap-cases.sh
echo "1..10"
# shellcheck disable=SC2034 # the path is unused: run-in-uml finds the built kernel itself
if ! kdir=$(tests/vm/build-kernel.sh uml 2>/tmp/uml-check-build.$$); then
	sed 's/^/# /' /tmp/uml-check-build.$$ | tail -n 20
	not_ok "UML kernel builds or is cached"
	for t in boot identical clone differs collect rate timer sojourn cpu-bench; do not_ok "$t (no kernel)"; done
	exit 1
fi
rm -f /tmp/uml-check-build.$$
ok "UML kernel builds or is cached"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
point=(tests/uml/testbed/job.sh SCENARIO=long SCHEME=ecnsharp LONG_SECS=0.3 LONG_OMIT=0.1)
# The determinism point: short flows, so every flow's completion time is compared.
fpoint=(tests/uml/testbed/job.sh SCENARIO=flows SCHEME=ecnsharp WORKLOAD=websearch LOAD=0.9 SHORT_FLOWS=20)
# What a workload point writes (flows.jsonl: one line per flow with its completion time).
fouts="result.tsv flows.jsonl flows.err qdisc.json tcp.txt"
run() { tests/uml/run-in-uml "$@" >"$out/log" 2>&1 || { tail -n 20 "$out/log" | sed 's/^/# /'; return 1; }; }
if run --seed 7 --out "$out/a" "${point[@]}"; then
	ok "boots, loads sch_ecnsharp.ko and runs a testbed point"
else
	not_ok "boots, loads sch_ecnsharp.ko and runs a testbed point"
fi
same() {
	run --no-build --seed 7 --out "$out/fa" "${fpoint[@]}" || return 1
	run --no-build --seed 7 --out "$out/fb" "${fpoint[@]}" || return 1
	echo "# $(grep -c '"fct_us"' "$out/fa/flows.jsonl") flows' completion times compared"
	for f in $fouts; do
		cmp -s "$out/fa/$f" "$out/fb/$f" || { echo "# $f differs between two runs with seed 7"; return 1; }
	done
}
check_live "determinism: the same seed gives identical counters, marks and flow completion times" same
# From two other clones at two other paths (each with its own run directory, as users' clones
# elsewhere would have), one of them under /tmp (which the guest covers with its own tmpfs), with
# the same module and tools: the same outputs.
clone_run() { # DIR OUT
	local owork rc
	rm -rf "$1"
	git clone -q --shared "$REPO_DIR" "$1" || return 1
	owork=$(uml_work "$1")
	mkdir -p "$owork"
	cp -a "$(uml_work "$REPO_DIR")/sch_ecnsharp.ko" "$(uml_work "$REPO_DIR")/tools" "$owork/"
	(cd "$1" && tests/uml/run-in-uml --no-build --seed 7 --out "$2" "${fpoint[@]}") >"$out/log" 2>&1
	rc=$?
	rm -rf "$owork" "$1"
	[ "$rc" -eq 0 ] || { tail -n 20 "$out/log" | sed 's/^/# /'; return 1; }
}
clone() {
	clone_run "$ECNSHARP_CACHE/run/clone-check-a.$$" "$out/d" || return 1
	clone_run "$(mktemp -d)/clone-check-tmp" "$out/e" || return 1
	for f in $fouts; do
		cmp -s "$out/fa/$f" "$out/d/$f" || { echo "# $f differs between this clone and another with seed 7"; return 1; }
		cmp -s "$out/d/$f" "$out/e/$f" || { echo "# $f differs between two clones with seed 7"; return 1; }
	done
}
check_live "determinism: another clone, elsewhere, gets the same outputs from the same seed" clone
other() {
	run --no-build --seed 8 --out "$out/c" "${fpoint[@]}" || return 1
	# cmp says "differ" for a missing file too: both must be there.
	[ -s "$out/fa/flows.jsonl" ] && [ -s "$out/c/flows.jsonl" ] || { echo "# flows.jsonl missing"; return 1; }
	! cmp -s "$out/fa/flows.jsonl" "$out/c/flows.jsonl"
}
check_live "another seed gives other flows and completion times (the comparison can fail)" other
# make experiments' collection (tests/uml/collect.sh) from its point store: the two points above
# (seeds 7 and 8) stored as experiments.sh stores them, and a third in the plan that never ran.
collect() {
	local store=$out/store col=$out/collect args seed src dir want got flows
	args="${fpoint[*]:1}"
	for seed in 7 8; do
		if [ "$seed" = 7 ]; then src=$out/fa; else src=$out/c; fi
		dir="$store/$(. tests/uml/store.sh && point_key check "$seed" "$args")"
		mkdir -p "$dir"
		cp "$src/"* "$dir/" || return 1
		echo "$seed" >"$dir/wall_s"
		touch "$dir/done"
	done
	mkdir -p "$col"
	printf '%s %s\n' 7 "$args" 8 "$args" 9 "$args" >"$col/plan.txt"
	tests/uml/collect.sh "$store" check "$col" || return 1
	flows=$(gzip -dc "$col/flows.tsv.gz") || return 1
	for seed in 7 8; do
		if [ "$seed" = 7 ]; then dir=$out/fa; else dir=$out/c; fi
		# Every metric of the point and its wall time, under its seed.
		want=$(($(wc -l <"$dir/result.tsv") + 1))
		got=$(awk -F'\t' -v s="$seed" '$1 == s' "$col/jobs.tsv" | wc -l)
		[ "$got" -eq "$want" ] || { echo "# jobs.tsv: $got rows for seed $seed, $want due"; return 1; }
		awk -F'\t' -v s="$seed" '$1 == s && $5 == "wall_s" && $6 == s { f = 1 } END { exit !f }' \
			"$col/jobs.tsv" || { echo "# jobs.tsv: no wall_s row for seed $seed"; return 1; }
		# Every flow, with its completion time as the point wrote it.
		want=$(jq -r 'select(.size) | .fct_us // "-"' "$dir/flows.jsonl")
		got=$(awk -F'\t' -v s="$seed" '$1 == s { print $9 }' <<<"$flows")
		[ -n "$want" ] && [ "$want" = "$got" ] || { echo "# flows.tsv.gz: seed $seed's flows differ"; return 1; }
	done
	echo "# $(($(wc -l <<<"$flows") - 1)) flows and $(($(wc -l <"$col/jobs.tsv") - 1)) metric rows collected"
	! grep -q '^9	' "$col/jobs.tsv" && ! grep -q '^9	' <<<"$flows" &&
		[ ! -e "$col/probes.tsv.gz" ] && [ ! -e "$col/bandq.tsv.gz" ]
}
check_live "make experiments' collection: every metric and flow of the finished points, none of one that did not run" collect
metric() { awk -v k="$1" -F'\t' '$1 == k { print $2 }' "$out/a/result.tsv"; }
# TCP payload is 1448 of every 1514 bytes on the wire: at exactly 10 Gbit/s, 9.564 Gbit/s.
rate() {
	local g
	g=$(metric goodput_mbps)
	echo "# goodput ${g} Mbit/s (line rate less headers: 9564)"
	awk -v g="$g" 'BEGIN { exit !(g >= 9470 && g <= 9600) }'
}
check_live "the shaper runs at its rate: goodput within 1% of 10 Gbit/s less headers" rate
timer() {
	local late
	late=$(jq -r '.late_max // empty' "$out/a/qdisc.json")
	echo "# the shaper's timer fired at most ${late} us late"
	[ -n "$late" ] && [ "$late" -le 2 ]
}
check_live "the shaper's timer is exact: late_max <= 2 us" timer
sojourn() {
	local max limit bound
	max=$(jq -r '.bands[0].sojourn_max // empty' "$out/a/qdisc.json")
	limit=$(. tests/uml/testbed/params.sh && echo "$LIMIT_PKTS")
	# A full buffer drains at exactly 10 Gbit/s: LIMIT packets of 1514 bytes take 1.2112 us
	# each. JSON gives whole microseconds, rounded up here.
	bound=$(awk -v n="$limit" 'BEGIN { printf "%d", n * 1.2112 + 1 }')
	echo "# sojourn max ${max} us ($limit packets at 10 Gbit/s: ${bound} us)"
	[ -n "$max" ] && [ "$max" -le "$bound" ] && [ "$(jq -r '.bands[0].marks' "$out/a/qdisc.json")" -gt 0 ]
}
check_live "no packet waited longer than the buffer holds, and ECN# marked" sojourn
# Every case sends every packet through its qdisc (cpu-cost.sh fails otherwise), fq_codel is
# bypassed at a one-packet queue and its matchall case is not (pktgen.sh).
cpu_bench() {
	run --native --no-build --out "$out/cpu" tests/uml/bench/cpu-cost.sh 1 20000 || return 1
	grep -q '^pps_ratio_nobypass kernel=uml ecnsharp_1band/prio=[0-9.]* ' "$out/cpu/console.log" &&
		grep -q '^cpu-cost:   fq_codel .*enqueued (new flows) in its last run 0 of' "$out/cpu/console.log" &&
		grep -q '^cpu-cost:   fq_codel+matchall .*enqueued (new flows) in its last run 20000 of' "$out/cpu/console.log"
}
check_live "the native CPU bench runs every case; fq_codel is bypassed unless filtered" cpu_bench
echo "# uml check: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
