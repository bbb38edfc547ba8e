#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench-selftest.sh: the bench's own tests, run on the host: every guard make check relies on is
# shown to fail on a fixture made to trip it (docs/reliability.md lists them).
# - run-in-vm passes a script's exit status through, and fails a run whose kernel oopses, leaks
#   (debug kernel) or that outlives its timeout;
# - selftests.sh fails the fixture suites (tests/vm/fixtures/suite-*.sh): a failing case, a
#   non-zero exit after all ok, a suite that dies before its plan is met, one that declares 1..5
#   and runs 4, one that prints its plan after its cases, one that declares 1..0, one that
#   declares it twice;
# - a debug run whose kmemleak was turned off is not reported as scanned, and reliability.sh
#   refuses its leaks=0;
# - no-panics.sh rejects a module with a range slice and one with a copy_from_slice, built for
#   either kernel;
# - tests/tap.sh (how make check reads pkg-check.sh and this script) counts a producer that
#   crashes half way, falls short of its plan or exits 0 without one as failed;
# - Kbuild refuses a kernel older than the oldest supported (6.12.29);
# - make bench-profile's analysis (tests/uml/bench/profile.py) gives each part of a synthetic
#   profile its known nanoseconds per packet.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$REPO_DIR/tests/tap.sh"

n=0
pass=0
fail=0
result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then pass=$((pass + 1)); echo "ok $n bench: $2"; else fail=$((fail + 1)); echo "not ok $n bench: $2"; fi
}
skip() {
	n=$((n + 1))
	echo "ok $n bench: $1 # SKIP $2"
}
echo "KTAP version 1"
echo "1..23"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
debug=1
[ "${ECNSHARP_SKIP_DEBUG:-0}" != 1 ] || debug=0

printf 'echo "deliberate failure"\nexit 7\n' >"$tmp/fail.sh"
"$VM_DIR/run-in-vm" --timeout 120 "$tmp/fail.sh" >"$tmp/fail.log" 2>&1
rc=$?
[ "$rc" -eq 7 ] && result ok "a failing script's exit status (7) comes through" ||
	result fail "a failing script's exit status (7) comes through (got $rc)"

printf 'exit 0\n' >"$tmp/pass.sh"
"$VM_DIR/run-in-vm" --timeout 120 "$tmp/pass.sh" >"$tmp/pass.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] && result ok "a passing script exits 0" || result fail "a passing script exits 0 (got $rc)"

# build_fixture NAME KDIR: build tests/vm/fixtures/NAME against KDIR in $tmp/NAME.
build_fixture() {
	mkdir -p "$tmp/$1"
	cp "$VM_DIR/fixtures/$1"/* "$tmp/$1/"
	make -s -C "$2" M="$tmp/$1" LLVM=1 modules >"$tmp/$1-build.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/$1-build.log" | tail -n 20; return 1; }
}

# A module that panics on load: the guest may even report status 0 afterwards; the log decides.
kdir=$("$VM_DIR/build-kernel.sh" default)
if build_fixture oops "$kdir"; then
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
fi

# A module that leaks: on the debug kernel, kmemleak's report fails the run.
if [ "$debug" -eq 1 ]; then
	kdir_debug=$("$VM_DIR/build-kernel.sh" debug)
	if build_fixture leak "$kdir_debug"; then
		printf 'insmod /test/extra/rust_leak.ko\nexit 0\n' >"$tmp/leak.sh"
		"$VM_DIR/run-in-vm" --flavour debug --timeout 300 --file "$tmp/leak/rust_leak.ko" "$tmp/leak.sh" >"$tmp/leak.log" 2>&1
		rc=$?
		if [ "$rc" -ne 0 ] && grep -q "unreferenced object" "$tmp/leak.log" &&
			grep -q '^ECNSHARP-VM-KMEMLEAK=scanned' "$tmp/leak.log"; then
			result ok "debug kernel: a planted leak is reported by the scan and fails the run (status $rc)"
		else
			result fail "debug kernel: a planted leak is reported by the scan and fails the run (got $rc)"
			tail -n 20 "$tmp/leak.log" | sed 's/^/# /'
		fi
	else
		result fail "the leak fixture module builds"
	fi
	# kmemleak off at run time: no scan can run, so leaks=0 would be unmeasured.
	"$VM_DIR/selftests.sh" --flavour debug "$VM_DIR/fixtures/suite-kmemleak-off.sh" >"$tmp/kl.log" 2>&1
	"$REPO_DIR/tests/reliability.sh" --check "$tmp/kl.log" >"$tmp/kl-rel.log" 2>&1
	rc=$?
	if grep -q '^# vm-log: .* kmemleak=failed' "$tmp/kl.log" && [ "$rc" -ne 0 ] &&
		grep -q 'without a kmemleak scan' "$tmp/kl-rel.log"; then
		result ok "debug kernel: kmemleak turned off is not a scan; reliability refuses leaks=0 (status $rc)"
	else
		result fail "debug kernel: kmemleak turned off is not a scan; reliability refuses leaks=0 (got $rc)"
		sed 's/^/# /' "$tmp/kl.log" "$tmp/kl-rel.log" | tail -n 20
	fi
else
	skip "debug kernel: a planted leak is reported by the scan and fails the run" "ECNSHARP_SKIP_DEBUG=1"
	skip "debug kernel: kmemleak turned off is not a scan; reliability refuses leaks=0" "ECNSHARP_SKIP_DEBUG=1"
fi

# The suite harness (tests/vm/selftests.sh, whose lines make check counts).
for fixture in suite-not-ok suite-exit suite-short suite-plan-short suite-plan-late suite-plan-zero suite-plan-twice; do
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

# no-panics.sh on modules with a panic path it must find without knowing the function's name.
if build_fixture panics "$kdir"; then
	for m in panic_slice:slice_index_fail panic_copy:len_mismatch_fail; do
		"$VM_DIR/no-panics.sh" "$tmp/panics/${m%:*}.ko" "$kdir" >"$tmp/np.log" 2>&1
		rc=$?
		if [ "$rc" -ne 0 ] && grep -q "${m#*:}" "$tmp/np.log"; then
			result ok "no-panics rejects ${m%:*}.ko (path through ${m#*:})"
		else
			result fail "no-panics rejects ${m%:*}.ko (path through ${m#*:}; got $rc)"
			sed 's/^/# /' "$tmp/np.log" | tail -n 10
		fi
	done
else
	result fail "the panic fixture modules build"
	result fail "the panic fixture modules build"
fi
# The same on the debug kernel, where only rustc's undefined-behaviour checks are let through.
if [ "$debug" -eq 1 ]; then
	mkdir -p "$tmp/dbg" && cp -r "$VM_DIR/fixtures/panics" "$tmp/dbg/"
	if make -s -C "$kdir_debug" M="$tmp/dbg/panics" LLVM=1 modules >"$tmp/dbg.log" 2>&1; then
		for m in panic_slice:slice_index_fail panic_copy:len_mismatch_fail; do
			"$VM_DIR/no-panics.sh" --ub-checks-only-on-ub "$tmp/dbg/panics/${m%:*}.ko" "$kdir_debug" >"$tmp/np.log" 2>&1
			rc=$?
			if [ "$rc" -ne 0 ] && grep -q "${m#*:}" "$tmp/np.log"; then
				result ok "debug kernel: no-panics rejects ${m%:*}.ko (path through ${m#*:})"
			else
				result fail "debug kernel: no-panics rejects ${m%:*}.ko (path through ${m#*:}; got $rc)"
				sed 's/^/# /' "$tmp/np.log" | tail -n 10
			fi
		done
	else
		result fail "the panic fixture modules build (debug kernel)"
		result fail "the panic fixture modules build (debug kernel)"
		sed 's/^/# /' "$tmp/dbg.log" | tail -n 10
	fi
else
	skip "debug kernel: no-panics rejects panic_slice.ko" "ECNSHARP_SKIP_DEBUG=1"
	skip "debug kernel: no-panics rejects panic_copy.ko" "ECNSHARP_SKIP_DEBUG=1"
fi

# tap_run, as make check runs pkg-check.sh and this script.
for f in crash:1 short:1 noplan:1 good:0; do
	tap_run "fixture ${f%:*}" "$tmp/tap.log" "$VM_DIR/fixtures/tap-${f%:*}.sh" >"$tmp/tap.out"
	rc=$?
	if { [ "${f#*:}" = 1 ] && [ "$rc" -ne 0 ] && [ "$TAP_FAIL" -ge 1 ]; } ||
		{ [ "${f#*:}" = 0 ] && [ "$rc" -eq 0 ] && [ "$TAP_PASS" = 2 ] && [ "$TAP_FAIL" = 0 ]; }; then
		result ok "make check's TAP reader on tap-${f%:*}.sh: $TAP_PASS passed, $TAP_FAIL failed"
	else
		result fail "make check's TAP reader on tap-${f%:*}.sh: $TAP_PASS passed, $TAP_FAIL failed (status $rc)"
		sed 's/^/# /' "$tmp/tap.out"
	fi
done

# Kbuild refuses a tree older than 6.12.29 (SUBLEVEL stands in for an older one) and builds
# against this one.
mkdir -p "$tmp/ver"
(cd "$REPO_DIR" && cp -a --parents Kbuild kmod/module/shim.c kmod/module/shim.h "$tmp/ver/")
if make -s -C "$kdir" M="$tmp/ver" LLVM=1 SUBLEVEL=28 modules >"$tmp/ver.log" 2>&1; then
	result fail "Kbuild refuses Linux 6.12.28 (it built)"
elif grep -q "needs Linux 6.12.29 or later" "$tmp/ver.log"; then
	result ok "Kbuild refuses Linux 6.12.28, naming the oldest supported"
else
	result fail "Kbuild refuses Linux 6.12.28, naming the oldest supported"
	sed 's/^/# /' "$tmp/ver.log" | tail -n 10
fi

# profile.py on a synthetic profile: an object with two functions stands for the module, loaded
# at 0x1000000; at 1000 Hz and 1,000,000 packets between the two boots a sample is 1 ns per
# packet, so each part's difference in samples is its expected ns per packet.
mkdir -p "$tmp/prof/1/c"
printf 'int fa(int x) { return x * 3 + 1; }\nint fb(int x) { return x - 7; }\n' >"$tmp/prof/f.c"
if cc -O0 -c -o "$tmp/prof/f.o" "$tmp/prof/f.c"; then
	fb=$(readelf -sW "$tmp/prof/f.o" | awk '$8 == "fb" { print $2 }')
	# samples DIR FA FB CLOCK PKTGEN HOST UML: that many lines of each.
	samples() {
		mkdir -p "$1"
		echo ".text 0x1000000" >"$1/sections"
		{
			for _ in $(seq 1 "$2"); do echo " 1000001 [unknown] (/x/#1 (deleted))"; done
			for _ in $(seq 1 "$3"); do printf ' %x [unknown] (/x/#1 (deleted))\n' $((0x1000001 + 0x$fb)); done
			for _ in $(seq 1 "$4"); do echo " 7fff0000 __vdso_clock_gettime ([vdso])"; done
			for _ in $(seq 1 "$5"); do echo " 60001000 pktgen_thread_worker (/k/linux)"; done
			for _ in $(seq 1 "$6"); do echo " ffffffff81000000 finish_task_switch.isra.0 ([kernel.kallsyms])"; done
			for _ in $(seq 1 "$7"); do echo " 60002000 dev_queue_xmit (/k/linux)"; done
		} | gzip >"$1/samples.gz"
	}
	samples "$tmp/prof/1/c/500000" 100 0 100 40 30 60
	samples "$tmp/prof/1/c/1500000" 300 100 200 90 110 180
	python3 "$REPO_DIR/tests/uml/bench/profile.py" --freq 1000 --module "$tmp/prof/f.o" \
		--low 500000 --count 1500000 "$tmp/prof" >"$tmp/prof.out" 2>&1
	if grep -q '^profile: c .* total=650.0 clock=100.0 module=300.0 pktgen=50.0 uml=120.0 host=80.0 other=0.0$' "$tmp/prof.out" &&
		grep -q '200.0 ns  fa$' "$tmp/prof.out" && grep -q '100.0 ns  fb$' "$tmp/prof.out"; then
		result ok "bench-profile's analysis splits a synthetic profile as made"
	else
		result fail "bench-profile's analysis splits a synthetic profile as made"
		sed 's/^/# /' "$tmp/prof.out"
	fi
else
	result fail "bench-profile's analysis splits a synthetic profile as made (no C compiler)"
fi

echo "# bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$n" -eq 23 ]
