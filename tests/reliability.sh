#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# reliability.sh [--check] LOG: the reliability figures of a selftests.sh run (normally the
# debug kernel's), as one line scripts read:
#   reliability: fuzz_tried=N fuzz_rejected=N fuzz_accepted=N fuzz_oracle_mismatches=N stress_s=N stress_pkts=N changes=N faults_injected=N splats=N leaks=N counter_mismatches=N
# The suites print "# reliability: key=value ..." (summed here over suites and runs); splats and
# leaks come from selftests.sh's "# vm-log:" lines (what the kernel log of each run showed).
# With --check, exit 1 unless fuzz_tried >= ${MIN_FUZZ:-10000}, stress traffic and changes
# happened, faults were injected, splats, leaks, counter_mismatches and fuzz_oracle_mismatches
# are 0 and every run was scanned by kmemleak (a scan that failed is no scan: leaks=0 from it is
# unmeasured).
set -uo pipefail
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
log=${1:?usage: reliability.sh [--check] LOG}

summary=$(awk '
	function add(s,   i, kv) { for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) sum[kv[1]] += kv[2] }
	/^# reliability: / { add($0) }
	/^# vm-log: / { add($0); runs++; if ($0 !~ /kmemleak=scanned/) unscanned++ }
	END {
		n = split("fuzz_tried fuzz_rejected fuzz_accepted fuzz_oracle_mismatches stress_s stress_pkts changes faults_injected splats leaks counter_mismatches", keys, " ")
		for (i = 1; i <= n; i++) out = out (i > 1 ? " " : "") keys[i] "=" (sum[keys[i]] + 0)
		print out
		print runs + 0, unscanned + 0
	}' "$log")
line=$(sed -n 1p <<<"$summary")
read -r runs unscanned < <(sed -n 2p <<<"$summary")
echo "reliability: $line"
[ "$check" -eq 1 ] || exit 0

get() { tr ' ' '\n' <<<"$line" | sed -n "s/^$1=//p"; }
bad=0
complain() { echo "# reliability: $*"; bad=1; }
[ "$(get fuzz_tried)" -ge "${MIN_FUZZ:-10000}" ] || complain "fuzz_tried below ${MIN_FUZZ:-10000}"
[ "$(get stress_pkts)" -gt 0 ] || complain "no stress traffic"
[ "$(get changes)" -gt 0 ] || complain "no configuration change under stress"
[ "$(get faults_injected)" -gt 0 ] || complain "no fault injected"
[ "$(get fuzz_oracle_mismatches)" -eq 0 ] || complain "the fuzzer's oracle disagreed with the kernel"
[ "$(get splats)" -eq 0 ] || complain "kernel splats"
[ "$(get leaks)" -eq 0 ] || complain "kmemleak reports"
[ "$(get counter_mismatches)" -eq 0 ] || complain "counters that do not balance"
[ "$runs" -gt 0 ] || complain "no VM run in $log"
[ "$unscanned" -eq 0 ] || complain "$unscanned runs without a kmemleak scan"
exit "$bad"
