#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-selftest.sh: the bench's own tests, run on the host. run-in-vm must pass a script's exit
# status through, and must fail a run whose kernel oopses, leaks (debug kernel) or that outlives
# its timeout; selftests.sh must fail the fixture suites (tests/vm/fixtures/suite-*.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=0
pass=0
fail=0
result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then pass=$((pass + 1)); echo "ok $n bench: $2"; else fail=$((fail + 1)); echo "not ok $n bench: $2"; fi
}
echo "KTAP version 1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'echo "deliberate failure"\nexit 7\n' >"$tmp/fail.sh"
"$VM_DIR/run-in-vm" --timeout 120 "$tmp/fail.sh" >"$tmp/fail.log" 2>&1
rc=$?
[ "$rc" -eq 7 ] && result ok "a failing script's exit status (7) comes through" ||
	result fail "a failing script's exit status (7) comes through (got $rc)"

printf 'exit 0\n' >"$tmp/pass.sh"
"$VM_DIR/run-in-vm" --timeout 120 "$tmp/pass.sh" >"$tmp/pass.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] && result ok "a passing script exits 0" || result fail "a passing script exits 0 (got $rc)"

# A module that panics on load: the guest may even report status 0 afterwards; the log decides.
kdir=$("$VM_DIR/build-kernel.sh" default)
mkdir -p "$tmp/oops"
cp "$VM_DIR/fixtures/oops/Kbuild" "$VM_DIR/fixtures/oops/rust_oops.rs" "$tmp/oops/"
if make -s -C "$kdir" M="$tmp/oops" LLVM=1 modules >"$tmp/oops-build.log" 2>&1; then
	printf 'insmod /test/extra/rust_oops.ko\nexit 0\n' >"$tmp/oops.sh"
	"$VM_DIR/run-in-vm" --timeout 120 --file "$tmp/oops/rust_oops.ko" "$tmp/oops.sh" >"$tmp/oops.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q "rust_oops" "$tmp/oops.log"; then
		result ok "a module that oopses fails the run (status $rc)"
	else
		result fail "a module that oopses fails the run (got $rc)"
		tail -n 20 "$tmp/oops.log" | sed 's/^/# /'
	fi
else
	result fail "the oops fixture module builds"
	sed 's/^/# /' "$tmp/oops-build.log" | tail -n 20
fi

# A module that leaks: on the debug kernel, kmemleak's report fails the run.
if [ "${ECNSHARP_SKIP_DEBUG:-0}" != 1 ]; then
	kdir_debug=$("$VM_DIR/build-kernel.sh" debug)
	mkdir -p "$tmp/leak"
	cp "$VM_DIR/fixtures/leak/Kbuild" "$VM_DIR/fixtures/leak/rust_leak.rs" "$tmp/leak/"
	if make -s -C "$kdir_debug" M="$tmp/leak" LLVM=1 modules >"$tmp/leak-build.log" 2>&1; then
		printf 'insmod /test/extra/rust_leak.ko\nexit 0\n' >"$tmp/leak.sh"
		"$VM_DIR/run-in-vm" --flavour debug --timeout 300 --file "$tmp/leak/rust_leak.ko" "$tmp/leak.sh" >"$tmp/leak.log" 2>&1
		rc=$?
		if [ "$rc" -ne 0 ] && grep -q "unreferenced object" "$tmp/leak.log"; then
			result ok "debug kernel: a leaking module fails the run (kmemleak, status $rc)"
		else
			result fail "debug kernel: a leaking module fails the run (got $rc)"
			tail -n 20 "$tmp/leak.log" | sed 's/^/# /'
		fi
	else
		result fail "the leak fixture module builds"
		sed 's/^/# /' "$tmp/leak-build.log" | tail -n 20
	fi
else
	n=$((n + 1))
	echo "ok $n bench: debug kernel: a leaking module fails the run # SKIP ECNSHARP_SKIP_DEBUG=1"
fi

# The suite harness (tests/vm/selftests.sh, whose lines make check counts) fails a suite that
# prints "not ok", one that exits non-zero after all "ok", and one that stops before its plan.
for fixture in suite-not-ok suite-exit suite-short; do
	"$VM_DIR/selftests.sh" --flavour default "$VM_DIR/fixtures/$fixture.sh" >"$tmp/$fixture.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q '^not ok' "$tmp/$fixture.log" &&
		grep -qE '^# vm selftests \(default\): [0-9]+ passed, [1-9][0-9]* failed' "$tmp/$fixture.log"; then
		result ok "harness reports the fixture $fixture as failed (status $rc)"
	else
		result fail "harness reports the fixture $fixture as failed (got $rc)"
		tail -n 20 "$tmp/$fixture.log" | sed 's/^/# /'
	fi
done

printf 'sleep 600\n' >"$tmp/hang.sh"
"$VM_DIR/run-in-vm" --timeout 25 "$tmp/hang.sh" >"$tmp/hang.log" 2>&1
rc=$?
[ "$rc" -eq 124 ] && result ok "a hung guest is stopped at the timeout (124)" ||
	result fail "a hung guest is stopped at the timeout (got $rc)"

echo "1..$n"
echo "# bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
