#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench-profile: where each packet's CPU time goes when the kernel's code runs natively (UML
# without time travel), sampled from the host with perf. For each case (pktgen.sh) and round,
# two boots send LOW and COUNT packets through the case (profile-guest.sh) under
# `perf record -e cpu-clock`; the difference of the two profiles, over COUNT - LOW packets, is the
# cost of a packet without the boot's. profile.py names each sample (the module's functions
# from the sections the guest reports, the clock reads, the rest of the UML kernel, the host
# kernel under it) and prints nanoseconds of CPU per packet by part, each case's gap to prio,
# and profile.tsv for plots. CPU time, not packets per second: a busy host slows the boots but
# moves the samples per packet far less than it moves a rate.
#
#   tests/uml/bench/profile.sh [ROUNDS [COUNT]]   (default 3 rounds of 10,000,000: ~5 min)
# Environment: PROFILE_CASES (default "prio ecnsharp_1band prio+matchall fq_codel+matchall
# ecnsharp_1band+matchall"), PROFILE_OUT (keep the profiles there), PROFILE_FREQ (default 2999).
set -euo pipefail
cd "$(dirname "$0")/../../.."
. tests/vm/lib.sh
ROUNDS=${1:-3}
COUNT=${2:-10000000}
LOW=$((COUNT / 5))
FREQ=${PROFILE_FREQ:-2999}
CASES=${PROFILE_CASES:-prio ecnsharp_1band prio+matchall fq_codel+matchall ecnsharp_1band+matchall}
command -v perf >/dev/null 2>&1 || die "perf is missing (Debian: apt install linux-perf)"
need python3
perf record -q -e cpu-clock -F "$FREQ" -o /dev/null -- true 2>/dev/null ||
	die "perf cannot sample here (perf record -e cpu-clock; kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid))"
out=${PROFILE_OUT:-$(mktemp -d)}
mkdir -p "$out"

# One build (the module and tools for UML), then every boot uses it.
tests/uml/run-in-uml --out "$out/build" tests/uml/testbed/noop.sh >/dev/null ||
	die "the UML bench does not boot"
work=$(uml_work "$REPO_DIR")
echo "profile: $ROUNDS rounds, $LOW and $COUNT packets per case, perf cpu-clock at $FREQ Hz; host load: $(uptime)"
n=$(echo $CASES | wc -w)
for r in $(seq 1 "$ROUNDS"); do
	k=$(((r - 1) % n))
	# shellcheck disable=SC2086
	for c in $(echo $CASES $CASES | cut -d' ' -f$((k + 1))-$((k + n))); do
		for count in "$LOW" "$COUNT"; do
			d="$out/$r/$c/$count"
			mkdir -p "$d"
			perf record -q -e cpu-clock -F "$FREQ" -o "$d/perf.data" -- \
				tests/uml/run-in-uml --native --no-build --timeout 900 --out "$d" \
				tests/uml/bench/profile-guest.sh "$c" "$count" >"$d/run.log" 2>&1 ||
				{ tail -n 20 "$d/run.log" >&2; die "profile: $c ($count packets) failed"; }
			perf script -F ip,sym,dso -i "$d/perf.data" 2>/dev/null | gzip >"$d/samples.gz"
			rm -f "$d/perf.data"
			grep '^profile-guest:' "$d/run.log"
		done
	done
done
python3 tests/uml/bench/profile.py --freq "$FREQ" --module "$work/sch_ecnsharp.ko" --low "$LOW" \
	--count "$COUNT" "$out"
echo "profile: host load after: $(uptime); profiles in $out"
