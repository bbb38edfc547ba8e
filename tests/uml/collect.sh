#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# collect.sh STORE MODEL_KEY OUT: every finished point of OUT/plan.txt (tests/uml/experiments.sh)
# from the point store into OUT/jobs.tsv (one row per point and metric, with its wall time) and
# OUT/flows.tsv.gz (one row per flow of the workloads, completed or not; the probes of
# SCENARIO=sched_probe in OUT/probes.tsv.gz). A point that did not
# finish is left out here and reported as failed by the driver.
set -euo pipefail
store=$1
model_key=$2
out=$3
. "$(dirname "$0")/store.sh"
# done_points [SCENARIO]: "SEED<TAB>DIR<TAB>ARGS" for every point of the plan (of SCENARIO only,
# if given) that finished, in the plan's order.
done_points() {
	local seed args dir
	while read -r seed args; do
		[ -z "${1-}" ] || case " $args " in *" SCENARIO=$1 "*) ;; *) continue ;; esac
		dir="$store/$(point_key "$model_key" "$seed" "$args")"
		if [ -f "$dir/done" ]; then printf '%s\t%s\t%s\n' "$seed" "$dir" "$args"; fi
	done <"$out/plan.txt"
}
# arg NAME ARGS...: the value of NAME=VALUE among ARGS (empty if absent).
arg() {
	local name=$1 a
	shift
	for a in "$@"; do case $a in "$name"=*) printf '%s' "${a#*=}" && return ;; esac; done
}
{
	printf 'seed\tscenario\tscheme\tvariant\tmetric\tvalue\n'
	done_points | while IFS=$'\t' read -r seed dir args; do
		# shellcheck disable=SC2086
		set -- $args
		sc='' sch='' var=''
		for a in "$@"; do
			case $a in
			SCENARIO=*) sc=${a#*=} ;;
			SCHEME=*) sch=${a#*=} ;;
			*) var="$var${var:+,}$a" ;;
			esac
		done
		awk -F'\t' -v p="$seed	$sc	$sch	$var" '{ print p "\t" $1 "\t" $2 }' "$dir/result.tsv"
		printf '%s\t%s\t%s\t%s\twall_s\t%s\n' "$seed" "$sc" "$sch" "$var" "$(cat "$dir/wall_s")"
	done
} >"$out/jobs.tsv"
{
	printf 'seed\tworkload\tload\tvariant\tscheme\tsize\tto\tstart_us\tfct_us\n'
	done_points flows | while IFS=$'\t' read -r seed dir args; do
		w='' l='' s='' v=''
		for a in $args; do
			case $a in
			WORKLOAD=*) w=${a#*=} ;;
			LOAD=*) l=${a#*=} ;;
			SCHEME=*) s=${a#*=} ;;
			SCENARIO=*) ;;
			*) v="$v${v:+,}$a" ;;
			esac
		done
		# The variant ("-" for the headline points) is what a sensitivity point changes.
		# An unfinished flow has no completion time: "-" (counted, never dropped).
		jq -r --arg p "$seed	$w	$l	${v:--}	$s" 'select(.size) |
			"\($p)\t\(.size)\t\(.to)\t\(.start_us)\t\(.fct_us // "-")"' "$dir/flows.jsonl"
	done
} | gzip -n >"$out/flows.tsv.gz"
# The probe flows of SCENARIO=sched_probe (Figure 13b), one row each, into OUT/probes.tsv.gz; the
# band is the server port's last digit (720B). Not written when the plan has no such point.
if grep -q ' SCENARIO=sched_probe ' "$out/plan.txt"; then
	{
		printf 'seed\tscheme\tsize\tto\tstart_us\tfct_us\n'
		done_points sched_probe | while IFS=$'\t' read -r seed dir args; do
			# shellcheck disable=SC2086
			jq -r --arg p "$seed	$(arg SCHEME $args)" 'select(.size) |
				"\($p)\t\(.size)\t\(.to)\t\(.start_us)\t\(.fct_us // "-")"' "$dir/flows.jsonl"
		done
	} | gzip -n >"$out/probes.tsv.gz"
fi
# Amendment 6: each sched_probe point's probe-window queue samples (bandq.txt) into
# OUT/bandq.tsv.gz, one row per sample: t_us from the window's first sample, then qlen (packets)
# and backlog (bytes) of bands 0, 1, 2. Not written when no point has them.
with_bandq=$(done_points sched_probe | cut -f2 | while read -r dir; do
	if [ -f "$dir/bandq.txt" ]; then echo "$dir"; fi
done)
if [ -n "$with_bandq" ]; then
	{
		printf 'seed\tscheme\tt_us\tq0\tb0\tq1\tb1\tq2\tb2\n'
		done_points sched_probe | while IFS=$'\t' read -r seed dir args; do
			[ -f "$dir/bandq.txt" ] || continue
			# shellcheck disable=SC2086
			awk -v p="$seed	$(arg SCHEME $args)" 'NR == 1 { t0 = $1 } NF == 7 {
				printf "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", p, ($1 - t0) / 1000, $2, $3, $4, $5, $6, $7 }' "$dir/bandq.txt"
		done
	} | gzip -n >"$out/bandq.tsv.gz"
fi
