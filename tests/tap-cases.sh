# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tap-cases.sh: the case helpers of the host's TAP producers (sourced by tests/pkg-check.sh,
# tests/deb/check.sh, tests/tc-versions/check.sh, tests/rustc-select.sh, tests/uml/check.sh).
# tests/tap.sh is the other side: it reads what they print. tap_finish prints the plan last, as
# host tools do; tests/uml/check.sh declares its plan first instead.

n=0
fail=0
# ok NAME: a case that passed.
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
# not_ok NAME [OUTPUT]: a case that failed, with OUTPUT's last 40 lines as TAP comments.
not_ok() {
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $1"
	[ -z "${2:-}" ] || tail -n 40 <<<"$2" | sed 's/^/# /'
}
# check NAME CMD...: a case that passes when CMD exits 0 (its output shown when it does not).
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
# check_live NAME CMD...: the same, CMD's output shown as it runs (CMD prints its own "# " lines).
check_live() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# tap_finish LABEL: the plan and "# LABEL: N passed, N failed", then exit, 0 only if none failed.
tap_finish() {
	echo "1..$n"
	echo "# $1: $((n - fail)) passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
