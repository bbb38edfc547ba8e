#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The Linux side of the sender-model validation (docs/results/ns3/validation.md): the scenario of
# ns3/validate.sh on the real 6.12 stack with sch_ecnsharp.ko, in User-Mode Linux in virtual time
# (tests/uml/run-in-uml, one boot per run), ECN# and DCTCP-RED-Tail at the very thresholds the
# ns-3 runs printed, 2 and 4 senders. Appends one line per run to
# docs/results/ns3/validation/linux-runs.txt (same keys as ns-3's), each run's cwnd series
# beside it, then redraws validation.md. Needs ns3/validate.sh's runs first.
#   NS3_VALIDATE_DURATION=1  NS3_LINUX_RUNS="ecnsharp-2 red_tail-2 ecnsharp-4 red_tail-4"
# NS3_LINUX_VARIANT=NAME runs the same with the guest's extra settings NS3_LINUX_GUEST (e.g.
# "SAMPLE_US=50 CWND_MS=10 SS_LOG=1") into validation/linux-runs-NAME.txt, runs named
# SCHEME-SENDERS-marklinux-NAME: a comparison of the instrument, beside the runs, never in place.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${NS3_VALIDATE_DURATION:-1}
WARMUP=0.2
RUNS=${NS3_LINUX_RUNS:-ecnsharp-2 red_tail-2 ecnsharp-4 red_tail-4 ecnsharp-2join red_tail-2join}
V=docs/results/ns3/validation
NS3=$V/ns3-runs.txt
[ -s "$NS3" ] || { echo "validate-linux: no $NS3: run ns3/validate.sh first" >&2; exit 1; }
[ -x tests/uml/run-in-uml ] || { echo "validate-linux: tests/uml/run-in-uml missing" >&2; exit 1; }
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
for run in $RUNS; do
	scheme=${run%-*}
	senders=${run#*-}
	name=$run-marklinux${NS3_LINUX_VARIANT:+-$NS3_LINUX_VARIANT}
	case $senders in
	2) classes=0,4 join=0 ;;
	4) classes=0,1,3,4 join=0 ;;
	2join) classes=4,0 join=0.5 ;;
	*) echo "validate-linux: unknown run $run" >&2; exit 1 ;;
	esac
	ref=$(grep "^name=$scheme-$senders-mark20 " "$NS3") || { echo "validate-linux: no ns-3 run $scheme-$senders" >&2; exit 1; }
	case $scheme in
	ecnsharp) qdisc="mode ecnsharp ins_target $(field "$ref" ins_target_ns)ns pst_target $(field "$ref" pst_target_ns)ns pst_interval $(field "$ref" pst_interval_ns)ns" ;;
	red_tail) qdisc="mode red k $(field "$ref" k_bytes) k_unit bytes" ;;
	*) echo "validate-linux: unknown scheme $scheme" >&2; exit 1 ;;
	esac
	out=target/ns3/linux/$name
	rm -rf "$out" && mkdir -p "$out"
	echo "validate-linux: $name: $qdisc"
	start=$(date +%s)
	# Not into console.log: run-in-uml follows that file (the guest writes it) onto its stdout.
	nice -n 15 tests/uml/run-in-uml --seed 1 --out "$out" --timeout 7200 tests/ns3/linux-guest.sh \
		NAME="$name" SENDERS="${senders%join}" QDISC="$qdisc" DURATION="$DURATION" WARMUP="$WARMUP" \
		CLASSES="${classes//,/ }" JOIN="$join" ${NS3_LINUX_GUEST:-} \
		>"$out/run.log" 2>&1 || { tail -n 30 "$out/run.log" >&2; exit 1; }
	line=$(python3 ns3/linux_summary.py "$out" "$name" "${senders%join}" "$WARMUP" "$DURATION" "$classes" "$join")
	awk '{ $1 = sprintf("%.0f", $1 * 1e6); print }' "$out/cwnd.txt" | gzip -9 -n >"$V/$name.cwnd.gz"
	runs=$V/linux-runs${NS3_LINUX_VARIANT:+-$NS3_LINUX_VARIANT}.txt
	[ -z "${NS3_LINUX_VARIANT:-}" ] || [ ! -f "$out/ss.txt" ] || gzip -9 -n <"$out/ss.txt" >"$V/$name.ss.gz"
	touch "$runs"
	grep -v "^name=$name " "$runs" >"$runs.new" || true
	# The bench kernel's cache key: a patch to the UML kernel changes what the runs measure.
	kernel=$(grep -o 'kernel/uml-[0-9a-f]*' "$out/run.log" | head -n 1 | cut -d/ -f2)
	echo "$line qdisc=${qdisc// /,} guest=${NS3_LINUX_GUEST// /,} kernel=${kernel:-unknown} wall_s=$(($(date +%s) - start))" >>"$runs.new"
	mv "$runs.new" "$runs"
	echo "validate-linux: $name done in $(($(date +%s) - start)) s"
done
python3 ns3/validation.py docs/results/ns3
