#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# selftests.sh [--flavour F] [SUITE...]: run VM selftest suites (tests/vm/selftests/*.sh by
# default), one VM boot each, and print the KTAP totals. Exit 0 only if every case passed.
# SUITE_ARGS (words) are passed to every suite, SUITE_TIMEOUT (seconds, default 900) bounds each.
#
# A suite fails as a whole (one extra "not ok - ..." line) when its VM run fails (non-zero
# status, splat, timeout), when its plan "1..N" is missing, comes after its first case, is given
# twice or is 1..0, or when it disagrees with the cases that ran (a suite that died half-way, or
# skipped cases silently). Per suite, one line
# "# vm-log: suite=S flavour=F splats=N leaks=N kmemleak=scanned|failed|absent wall_s=N" reports
# what the kernel log showed, for tests/check.sh's reliability figures, and the run's wall time.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

flavour=default
if [ "${1:-}" = --flavour ]; then flavour=$2; shift 2; fi
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=("$VM_DIR"/selftests/*.sh)
for i in "${!suites[@]}"; do suites[i]=$(suite_path "$VM_DIR/selftests" "${suites[$i]}") || exit 1; done

# The patterns run-in-vm fails a run on.
splat_re='BUG:|Oops|WARNING:|KASAN|UBSAN|Kernel panic|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|rust_panic|Call Trace:'

pass=0
fail=0
skip=0
for suite in "${suites[@]}"; do
	name=$(basename "$suite" .sh)
	# A suite for one flavour only ("# vm-flavour: debug": fault injection, lockdep) is not booted
	# on another; the line says so, and counts as neither passed nor failed.
	only=$(sed -n 's/^# vm-flavour: *\([a-z]*\)$/\1/p' "$suite" | head -n 1)
	if [ -n "$only" ] && [ "$only" != "$flavour" ]; then
		echo "# $name: $only kernel only, not run on the $flavour kernel"
		continue
	fi
	# A suite that needs python3 in the guest ("# vm-needs: tdc": the kernel's tdc.py).
	extra_opts=()
	grep -q '^# vm-needs: tdc$' "$suite" && extra_opts+=(--tdc)
	log=$(mktemp)
	t0=$SECONDS
	# shellcheck disable=SC2086 # SUITE_ARGS: words passed to every suite (make soak)
	"$VM_DIR/run-in-vm" --flavour "$flavour" --timeout "${SUITE_TIMEOUT:-900}" --log "$log" "${extra_opts[@]}" "$suite" ${SUITE_ARGS:-} >/dev/null
	rc=$?
	grep -E '^(KTAP|ok |not ok |# |1\.\.)' "$log" | grep -v '^# \[' || true
	suite_cases "$log"
	p=$SUITE_PASS s=$SUITE_SKIP f=$SUITE_FAIL
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# The VM itself failed (timeout, splat, no status): count it, with the reason.
		f=1
		echo "not ok - $name ($flavour): VM run failed with status $rc"
		grep -E "$splat_re|panic|lock|unreferenced" "$log" | head -n 20 | sed 's/^/# /'
	fi
	suite_plan "$log" "$name ($flavour)" || f=$((f + 1))
	splats=$(grep -cE "$splat_re" "$log" | tr -d ' ')
	leaks=$(grep -c 'unreferenced object' "$log" | tr -d ' ')
	kmemleak=absent
	grep -q '^ECNSHARP-VM-KMEMLEAK=failed' "$log" && kmemleak=failed
	grep -q '^ECNSHARP-VM-KMEMLEAK=scanned' "$log" && kmemleak=scanned
	echo "# vm-log: suite=$name flavour=$flavour splats=$splats leaks=$leaks kmemleak=$kmemleak wall_s=$((SECONDS - t0))"
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	rm -f "$log"
done
echo "# vm selftests ($flavour): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
