#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The ns-3 simulator's own checks, run by `make ns3` (ns3/run.sh) before its point: it fails
# loudly (a configuration the core rejects aborts with the core's message and a non-zero exit,
# so do an unknown scheme and scenario), the statistics pass their selftest, and the RTT spread
# the rule rests on is really simulated (each host-delay class adds its delay twice, SYN and
# data, to a one-packet flow's FCT). Prints TAP lines and "ns3-checks: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
DC=target/ns3/ecnsharp-dc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OUT=$tmp/out ERR=$tmp/err
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

# refused WHAT MESSAGE ARGS...: the run must exit non-zero and print MESSAGE.
refused() {
	local what=$1 msg=$2
	shift 2
	# (Through an inner bash, whose "Aborted" notice goes to /dev/null, not the log.)
	if bash -c '"$@" >"$OUT" 2>"$ERR"; exit $?' _ "$DC" "$@" 2>/dev/null; then
		bad "$what: exit 0 ($(head -c 200 "$tmp/out"))"
	elif grep -qF "$msg" "$tmp/err"; then
		ok "$what: refused with \"$msg\""
	else
		bad "$what: no \"$msg\" in: $(head -c 300 "$tmp/err")"
	fi
}
refused "limit 0 (the core's check)" "invalid configuration: limit must be at least 1 packet" \
	--scenario=incast --limit=0 --launch=0.001 --end=0.002
refused "pst_target of 5 s (the core's check)" "invalid configuration: Illegal \"pst_target\"" \
	--scenario=incast --scheme=ecnsharp --pstTarget=5s --launch=0.001 --end=0.002
refused "an unknown scheme" "unknown scheme \"fast\"" --scheme=fast
refused "an unknown scenario" "unknown scenario \"leaf\"" --scenario=leaf

if python3 ns3/stats.py selftest >"$tmp/stats" 2>&1; then
	ok "ns3/stats.py selftest: $(grep -c '^ok' "$tmp/stats") checks"
else
	bad "ns3/stats.py selftest"
	sed 's/^/# /' "$tmp/stats"
fi

# The delay classes: one-packet data-mining flows at light load; the fastest of each class.
if "$DC" --scenario=incast --scheme=ecnsharp --cdf=ns3/workloads/data-mining.cdf --load=0.3 \
	--launch=1 --queries=1 --seed=1 --detailOut="$tmp/classes" >/dev/null 2>"$tmp/err"; then
	# shellcheck disable=SC2016
	verdict=$(awk 'BEGIN { split("1 20 50 80 160", d, " ") }
		$1 == "f" && $2 <= 1460 && $4 > 0 && $6 == 0 {
			c = $5 + 1; if (!(c in m) || $4 < m[c]) m[c] = $4 }
		END {
			for (c = 1; c <= 5; c++) {
				if (!(c in m)) { print "class " c - 1 " has no one-packet flow"; exit }
				want = m[1] + 2 * (d[c] - d[1])
				if (m[c] < want - 0.5 || m[c] > want + 0.5) {
					printf "class %d: fastest FCT %.3f us, want %.3f\n", c - 1, m[c], want; exit }
				s = s sprintf(" %.1f", m[c])
			}
			print "ok" s
		}' "$tmp/classes")
	case $verdict in
	ok*) ok "host delay classes add 2 x 0/19/49/79/159 us: fastest FCTs${verdict#ok} us" ;;
	*) bad "host delay classes: $verdict" ;;
	esac
else
	bad "the delay-class run failed: $(head -c 300 "$tmp/err")"
fi

echo "ns3-checks: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
