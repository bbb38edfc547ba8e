#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# selftests.sh [SUITE...]: the virtual-time selftests. Each suite (tests/uml/selftests/*.sh by
# default, lib.sh aside) boots once in User-Mode Linux with time-travel=inf-cpu
# (tests/uml/run-in-uml), where timers fire exactly and the CPU takes no time, so checks that
# the qemu guest's selftests can only bound loosely (shaper rate, sojourns, marks against a
# schedule) are exact. The UML kernel, the module and the tools are built (or reused) once.
# Prints every suite's KTAP lines and ends with "# uml selftests: N passed, N failed"; exit 0
# only if every case passed.
#
# A suite fails as a whole (one extra "not ok - ..." line) as tests/vm/selftests.sh does: when
# its run fails (non-zero status, a kernel splat, a timeout), when its plan "1..N" is missing,
# comes after its first case, is given twice or is 1..0, or disagrees with the cases that ran.
# SUITE_TIMEOUT (seconds, default 600) bounds each run; each suite's wall time is printed.
set -uo pipefail
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
UML_DIR=$REPO_DIR/tests/uml

suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
	for s in "$UML_DIR"/selftests/*.sh; do
		[ "$(basename "$s")" = lib.sh ] || suites+=("$s")
	done
fi
for i in "${!suites[@]}"; do suites[i]=$(suite_path "$UML_DIR/selftests" "${suites[$i]}") || exit 1; done

pass=0
fail=0
skip=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
t_all=$(date +%s)

# Built once: the kernel (cached under $ECNSHARP_CACHE), then the module and tools for it, by
# the first run (run-in-uml's own build); the other suites reuse them (--no-build).
build=()
if ! "$VM_DIR/build-kernel.sh" uml >/dev/null 2>"$out/build.log"; then
	tail -n 20 "$out/build.log" | sed 's/^/# /'
	for suite in "${suites[@]}"; do
		echo "not ok - $(basename "$suite" .sh) (uml): the UML kernel did not build"
		fail=$((fail + 1))
	done
	echo "# uml selftests: $pass passed, $fail failed"
	exit 1
fi

for suite in "${suites[@]}"; do
	name=$(basename "$suite" .sh)
	t0=$(date +%s)
	rm -rf "$out/run"
	"$UML_DIR/run-in-uml" "${build[@]}" --seed 1 --out "$out/run" --timeout "${SUITE_TIMEOUT:-600}" \
		"$suite" >"$out/stdout" 2>"$out/stderr"
	rc=$?
	build=(--no-build)
	log=$out/run/console.log
	[ -f "$log" ] || : >"$log"
	grep -E '^(KTAP|ok |not ok |# |1\.\.)' "$log" || true
	suite_cases "$log"
	p=$SUITE_PASS s=$SUITE_SKIP f=$SUITE_FAIL
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# The run itself failed (build, timeout, splat, no status): counted, with the reason.
		f=1
		echo "not ok - $name (uml): run-in-uml failed with status $rc"
		tail -n 20 "$out/stderr" | sed 's/^/# /'
		[ -f "$out/run/kernel.log" ] && tail -n 10 "$out/run/kernel.log" | sed 's/^/# kernel: /'
	fi
	suite_plan "$log" "$name (uml)" || f=$((f + 1))
	echo "# $name (uml): $((p)) passed, $f failed, $s skipped in $(($(date +%s) - t0)) s"
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
done
echo "# uml selftests: wall time $(($(date +%s) - t_all)) s"
echo "# uml selftests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
