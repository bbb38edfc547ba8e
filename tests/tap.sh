# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# tap.sh: run a TAP producer on the host and count what it says, for tests/check.sh (sourced).
# A producer's "ok" lines alone prove nothing: one that crashes half way prints only oks. So a
# run counts as failed too when the producer exits non-zero, prints no plan, prints 1..0, or
# its plan disagrees with the cases it printed (plan first or last: host tools print it last).
# tests/vm/bench-selftest.sh drives this with producers that crash half way
# (tests/vm/fixtures/tap-*.sh).

# tap_run NAME LOG CMD...: run CMD, keep its output in LOG, print its TAP lines (and "#"
# comments), then one "not ok - NAME: ..." line per way it failed as a whole. Sets TAP_PASS and
# TAP_FAIL (cases passed, failed; skips count as neither); returns 0 only if all went well.
tap_run() {
	local name=$1 log=$2 rc
	shift 2
	"$@" >"$log" 2>&1
	rc=$?
	grep -E '^(ok|not ok|#|1\.\.)' "$log" | grep -vE '^1\.\.'
	tap_judge "$name" "$log" "$rc"
}

# tap_judge NAME LOG RC: tap_run's verdict on a producer already run (its TAP lines shown as it
# ran, e.g. through tee), whose output is LOG and exit status RC.
tap_judge() {
	local name=$1 log=$2 rc=$3 plan plans ran skip bad=0
	TAP_PASS=$(grep -cE '^ok [0-9]+' "$log" | tr -d ' ')
	skip=$(grep -cE '^ok [0-9]+.*# SKIP' "$log" | tr -d ' ')
	TAP_FAIL=$(grep -cE '^not ok [0-9]+' "$log" | tr -d ' ')
	ran=$((TAP_PASS + TAP_FAIL))
	TAP_PASS=$((TAP_PASS - skip))
	plans=$(grep -cE '^1\.\.[0-9]+$' "$log" | tr -d ' ')
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | head -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "not ok - $name: exited with status $rc"
		bad=1
	fi
	if [ "$plans" -ne 1 ]; then
		echo "not ok - $name: $plans plans (1..N) where one was due"
		bad=1
	elif [ "$plan" -eq 0 ] || [ "$plan" -ne "$ran" ]; then
		echo "not ok - $name: plan 1..$plan but $ran cases"
		bad=1
	fi
	if [ "$bad" -ne 0 ]; then
		TAP_FAIL=$((TAP_FAIL + 1))
		tail -n 20 "$log" | grep -vE '^(ok|not ok) ' | sed 's/^/# /'
	fi
	[ "$bad" -eq 0 ] && [ "$TAP_FAIL" -eq 0 ]
}

# A selftest suite's log (tests/vm/selftests.sh, tests/uml/selftests.sh), where the plan must be
# declared before the first case (KTAP), not counted afterwards.
# suite_cases LOG: sets SUITE_PASS, SUITE_SKIP, SUITE_FAIL (its "ok"/"not ok" case lines; skips
# count as neither pass nor fail) and SUITE_RAN.
suite_cases() {
	SUITE_PASS=$(grep -cE '^ok [0-9]+ ' "$1" | tr -d ' ')
	SUITE_SKIP=$(grep -cE '^ok [0-9]+ .*# SKIP' "$1" | tr -d ' ')
	SUITE_FAIL=$(grep -cE '^not ok [0-9]+ ' "$1" | tr -d ' ')
	SUITE_RAN=$((SUITE_PASS + SUITE_FAIL))
	SUITE_PASS=$((SUITE_PASS - SUITE_SKIP))
}
# suite_plan LOG LABEL: after suite_cases, prints "not ok - LABEL: ..." and returns 1 if the
# plan is missing, printed after the first case, repeated, 1..0, or not the cases that ran.
suite_plan() {
	local plan plans early
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$1" | head -n 1)
	plans=$(grep -cE '^1\.\.[0-9]+$' "$1" | tr -d ' ')
	early=$(awk '/^(ok|not ok) [0-9]+ / { exit } /^1\.\.[0-9]+$/ { print "yes"; exit }' "$1")
	if [ -z "$plan" ]; then
		echo "not ok - $2: no plan (1..N)"
	elif [ "$early" != yes ]; then
		echo "not ok - $2: plan 1..$plan printed after the first case, not declared before"
	elif [ "$plans" -ne 1 ]; then
		echo "not ok - $2: $plans plans"
	elif [ "$plan" -eq 0 ]; then
		echo "not ok - $2: plan 1..0: a suite that runs nothing proves nothing"
	elif [ "$plan" -ne "$SUITE_RAN" ]; then
		echo "not ok - $2: plan 1..$plan but $SUITE_RAN cases ran"
	else
		return 0
	fi
	return 1
}
