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
# key SEED ARGS: a point's key in the store (as experiments.sh computes it).
key() { printf '%s %s %s\n' "$model_key" "$1" "$2" | sha256sum | cut -c1-16; }
{
	printf 'seed\tscenario\tscheme\tvariant\tmetric\tvalue\n'
	while read -r seed args; do
		dir="$store/$(key "$seed" "$args")"
		[ -f "$dir/done" ] || continue
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
		awk -F'\t' -v p="$seed	$sc	$sch	$var" '{ print p "\t" $1 "\t" $2 }' "$dir/result.tsv"
		printf '%s\t%s\t%s\t%s\twall_s\t%s\n' "$seed" "$sc" "$sch" "$var" "$(cat "$dir/wall_s")"
	done <"$out/plan.txt"
} >"$out/jobs.tsv"
{
	printf 'seed\tworkload\tload\tvariant\tscheme\tsize\tto\tstart_us\tfct_us\n'
	while read -r seed args; do
		case $args in *SCENARIO=flows*) ;; *) continue ;; esac
		dir="$store/$(key "$seed" "$args")"
		[ -f "$dir/done" ] || continue
		w= l= s= v=
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
	done <"$out/plan.txt"
} | gzip -n >"$out/flows.tsv.gz"
# The probe flows of SCENARIO=sched_probe (Figure 13b), one row each, into OUT/probes.tsv.gz; the
# band is the server port's last digit (720B). Not written when the plan has no such point.
if grep -q ' SCENARIO=sched_probe ' "$out/plan.txt"; then
	{
		printf 'seed\tscheme\tsize\tto\tstart_us\tfct_us\n'
		while read -r seed args; do
			case $args in *SCENARIO=sched_probe*) ;; *) continue ;; esac
			dir="$store/$(key "$seed" "$args")"
			[ -f "$dir/done" ] || continue
			s=
			for a in $args; do case $a in SCHEME=*) s=${a#*=} ;; esac; done
			jq -r --arg p "$seed	$s" 'select(.size) |
				"\($p)\t\(.size)\t\(.to)\t\(.start_us)\t\(.fct_us // "-")"' "$dir/flows.jsonl"
		done <"$out/plan.txt"
	} | gzip -n >"$out/probes.tsv.gz"
fi
# Amendment 6: each sched_probe point's probe-window queue samples (bandq.txt) into
# OUT/bandq.tsv.gz, one row per sample: t_us from the window's first sample, then qlen (packets)
# and backlog (bytes) of bands 0, 1, 2. Not written when no point has them.
if grep -q ' SCENARIO=sched_probe ' "$out/plan.txt"; then
	{
		printf 'seed\tscheme\tt_us\tq0\tb0\tq1\tb1\tq2\tb2\n'
		while read -r seed args; do
			case $args in *SCENARIO=sched_probe*) ;; *) continue ;; esac
			dir="$store/$(key "$seed" "$args")"
			[ -f "$dir/done" ] && [ -f "$dir/bandq.txt" ] || continue
			s=
			for a in $args; do case $a in SCHEME=*) s=${a#*=} ;; esac; done
			awk -v p="$seed	$s" 'NR == 1 { t0 = $1 } NF == 7 { printf "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n",
				p, ($1 - t0) / 1000, $2, $3, $4, $5, $6, $7 }' "$dir/bandq.txt"
		done <"$out/plan.txt"
	} | gzip -n >"$out/bandq.tsv.gz"
fi
