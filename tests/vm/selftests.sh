#!/usr/bin/env bash
# selftests.sh [--flavour F] [SUITE...]: run VM selftest suites (tests/vm/selftests/*.sh by
# default), one VM boot each, and print the KTAP totals. Exit 0 only if every case passed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

flavour=default
if [ "${1:-}" = --flavour ]; then flavour=$2; shift 2; fi
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=("$VM_DIR"/selftests/*.sh)

pass=0
fail=0
skip=0
for suite in "${suites[@]}"; do
	log=$(mktemp)
	"$VM_DIR/run-in-vm" --flavour "$flavour" --timeout "${SUITE_TIMEOUT:-900}" --log "$log" "$suite" >/dev/null
	rc=$?
	grep -E '^(KTAP|ok |not ok |# |1\.\.)' "$log" | grep -v '^# \[' || true
	p=$(grep -cE '^ok [0-9]+ ' "$log" | tr -d ' ')
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+ ' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# The VM itself failed (timeout, splat, no status): count it, with the reason.
		f=1
		echo "not ok - $(basename "$suite") ($flavour): VM run failed with status $rc"
		grep -E 'BUG:|Oops|WARNING:|KASAN|panic|lock|unreferenced' "$log" | head -n 20 | sed 's/^/# /'
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	rm -f "$log"
done
echo "# vm selftests ($flavour): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
