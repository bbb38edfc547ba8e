#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# vm-needs: tdc
# The kernel's own tc-testing: tdc.py from the kernel tree (tools/testing/selftests/tc-testing,
# put in the guest unchanged by run-in-vm --tdc, with python3) runs ecnsharp's cases,
# tests/tdc/ecnsharp.json, the harness upstream reviewers run for every qdisc: create with
# defaults and with each option, bad values refused with the exit status tc gives (1 for
# syntax, 2 for the kernel's no), change, replace, delete (twice, and one that is not there),
# duplicate add, JSON and statistics output, classes, a filter, parents, grafts refused. Each
# case in a fresh namespace with a dummy device, as tdc's nsPlugin makes it. Each tdc case is one
# case here; the summary "# tdc: N passed, N failed" is the line make check prints.
. /test/vm/guest/lib.sh

CASES=/test/tdc/ecnsharp.json
n=$(jq length $CASES)
ktap_begin kernel-tdc $((n + 2))
check "python3 and the kernel's tdc.py in the guest" sh -c "[ -x /usr/bin/python3 ] && [ -f /usr/share/tc-testing/tdc.py ]"

# tdc writes its results and reads its configuration next to itself: a copy in /tmp, with this
# guest's iproute2 paths in tdc_config_local.py (the override tdc_config.py documents).
rm -rf /tmp/tdc
cp -a /usr/share/tc-testing /tmp/tdc
cat >/tmp/tdc/tdc_config_local.py <<'EOF'
# The bench guest keeps iproute2 in /usr/sbin (tdc_config.py expects /sbin).
EXTRA_NAMES = {'TC': '/usr/sbin/tc', 'IP': '/usr/sbin/ip'}
EOF
(cd /tmp/tdc && python3 tdc.py -f $CASES --outfile /tmp/tdc.tap) >/tmp/tdc.out 2>&1
rc=$?
# tdc's own log, kept out of the case count (its TAP lines would read as this suite's).
sed 's/^/# tdc.py: /' /tmp/tdc.out | grep -v '^# tdc.py: $' | tail -n 60
ran=$(grep -cE '^(not )?ok [0-9]+ ' /tmp/tdc.tap 2>/dev/null | tr -d ' ')
check "tdc.py ran all $n cases (it ran ${ran:-0}, exit $rc)" sh -c "[ '${ran:-0}' = $n ]"

passed=0
failed=0
grep -E '^(not )?ok [0-9]+ ' /tmp/tdc.tap 2>/dev/null >/tmp/tdc.res
while read -r line; do
	case "$line" in
	"not ok "*)
		failed=$((failed + 1))
		ktap_not_ok "tdc.py case ${line#not ok [0-9]* }"
		;;
	*"# skipped"*)
		ktap_skip "tdc.py case ${line#ok [0-9]* }" "tdc.py skipped it"
		;;
	*)
		passed=$((passed + 1))
		ktap_ok "tdc.py case ${line#ok [0-9]* }"
		;;
	esac
done </tmp/tdc.res
echo "# tdc: $passed passed, $failed failed"
ktap_end
