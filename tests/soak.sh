#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make soak [SOAK_MINUTES=60]: the reliability suites on the debug kernel (KASAN, lockdep,
# kmemleak), round after round with new seeds, for about SOAK_MINUTES, then the same figures as
# make check: "reliability: fuzz_tried=N ... counter_mismatches=N". Not part of make check (CI).
# Each round: qdisc-fuzz with FUZZ_REQUESTS requests (default 5000, seed = the round number; a
# round of 20000 outlasted its 3600 s limit on a host loaded by other VMs), qdisc-stress with STRESS_SECONDS of traffic per run (default 10), qdisc-oddpkts with 200
# frames of each kind, qdisc-faults. Exit 0 only if every case of every round passed and the
# figures are clean.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
minutes=${1:-${SOAK_MINUTES:-60}}
fuzz=${FUZZ_REQUESTS:-5000}
secs=${STRESS_SECONDS:-10}
log=${SOAK_LOG:-$(mktemp /tmp/ecnsharp-soak.XXXXXX)}
tests/vm/build-kernel.sh debug >/dev/null || exit 1
end=$((SECONDS + minutes * 60))
round=0
echo "# soak: $minutes minutes on the debug kernel, log $log"
while [ "$SECONDS" -lt "$end" ]; do
	round=$((round + 1))
	echo "# soak round $round ($((SECONDS / 60)) of $minutes minutes)"
	SUITE_TIMEOUT=3600 SUITE_ARGS="$fuzz $round" tests/vm/selftests.sh --flavour debug tests/vm/selftests/qdisc-fuzz.sh
	[ "$SECONDS" -lt "$end" ] || break
	SUITE_TIMEOUT=3600 SUITE_ARGS="$secs" tests/vm/selftests.sh --flavour debug tests/vm/selftests/qdisc-stress.sh
	[ "$SECONDS" -lt "$end" ] || break
	SUITE_TIMEOUT=1800 SUITE_ARGS=200 tests/vm/selftests.sh --flavour debug tests/vm/selftests/qdisc-oddpkts.sh
	[ "$SECONDS" -lt "$end" ] || break
	SUITE_TIMEOUT=1800 tests/vm/selftests.sh --flavour debug tests/vm/selftests/qdisc-faults.sh
done 2>&1 | tee "$log" | grep -E '^(not ok|# (soak|reliability|vm-log|vm selftests))'
fail=$(grep -c '^not ok' "$log")
round=$(grep -c '^# soak round' "$log")
echo "# soak: $round rounds in $((SECONDS / 60)) minutes, $fail failed cases"
tests/reliability.sh "$log"
MIN_FUZZ=10000 tests/reliability.sh --check "$log" >/dev/null && [ "$fail" -eq 0 ]
