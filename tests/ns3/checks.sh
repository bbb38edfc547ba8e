#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The ns-3 simulator's own checks, run by `make ns3` (ns3/run.sh) before its point: it fails
# loudly (a configuration the core rejects aborts with the core's message and a non-zero exit,
# so do an unknown scheme and scenario), the statistics pass their selftest, and the RTT spread
# the rule rests on is really simulated (each host-delay class adds its delay twice, SYN and
# data, to a one-packet flow's FCT), the Linux-like sender (--tsoDefer=2) keeps a lone flow's
# cwnd bounded and the link full, the host limit drops (and counts) only when set, TSQ holds a
# lone flow's host backlog to its cap, every connection echoes its CE marks (the sink), and the
# testbed scenario's RTT classes are simulated; the validation and results pages are their runs'
# renderings; make ns3-full's NS3_AT lists a commit's runs from a worktree. Prints TAP lines and
# "ns3-checks: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
DC=target/ns3/ecnsharp-dc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OUT=$tmp/out ERR=$tmp/err
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

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

# The bootstrap's fast path (ns3/stats.py): stats.py's selftest compares its draws with Python's.
if cargo build --release --locked -q -p ecnsharp-plot >"$tmp/build" 2>&1; then
	export ECNSHARP_PLOT=$PWD/target/release/ecnsharp-plot
else
	bad "cargo build -p ecnsharp-plot: $(tail -c 300 "$tmp/build")"
fi
if python3 ns3/stats.py selftest >"$tmp/stats" 2>&1; then
	ok "ns3/stats.py selftest: $(grep -c '^ok' "$tmp/stats") checks"
else
	bad "ns3/stats.py selftest"
	sed 's/^/# /' "$tmp/stats"
fi
if python3 ns3/plot.py selftest >"$tmp/plot" 2>&1; then
	ok "ns3/plot.py selftest: $(grep -c '^ok' "$tmp/plot") checks (a mistyped field is an error)"
else
	bad "ns3/plot.py selftest"
	sed 's/^/# /' "$tmp/plot"
fi

# The validation page is generated from its runs: rendered again from a copy of them, it is the
# committed page, byte for byte (a hand edit of validation.md, or a field the template and the
# script no longer agree on, fails here).
mkdir -p "$tmp/results"
cp -r docs/results/ns3/validation "$tmp/results/"
# Its counts and outside lists, which ns3/plot.py reads for README.md, too.
if python3 ns3/validation.py "$tmp/results" >"$tmp/val" 2>&1 &&
	cmp -s "$tmp/results/validation.md" docs/results/ns3/validation.md &&
	cmp -s "$tmp/results/validation/agreement.txt" docs/results/ns3/validation/agreement.txt &&
	cmp -s "$tmp/results/validation/outside.txt" docs/results/ns3/validation/outside.txt; then
	ok "docs/results/ns3/validation.md, agreement.txt and outside.txt are what ns3/validation.py renders from its runs"
else
	bad "docs/results/ns3/validation.md, agreement.txt or outside.txt is not what ns3/validation.py renders from its runs"
	sed 's/^/# /' "$tmp/val"
	diff "$tmp/results/validation.md" docs/results/ns3/validation.md | head -20 | sed 's/^/# /'
fi

# The results page too: ns3/plot.py, run again on a copy of docs/results/ns3 for the model the
# page names, writes every file as committed (README.md, tables.md, the figures' data, archive/),
# byte for byte; the SVGs are gnuplot's drawings of that data, whose bytes may differ between
# gnuplot builds, so they are drawn but not compared. It reads validation/'s counts, so it runs on the committed ones. (Under
# ns3/full.sh, runs.txt grows before the page is regenerated: this fails until it is.)
model=$(sed -n 's/^Model \([0-9a-f]\{12\}\): .*/\1/p' docs/results/ns3/tables.md)
cp -r docs/results/ns3 "$tmp/page"
if [ -z "$model" ]; then
	bad "docs/results/ns3/tables.md names no model (a line 'Model M: ...')"
elif python3 ns3/plot.py "$tmp/page" "$model" >"$tmp/plotpage" 2>&1 &&
	diff -r -x '*.svg' "$tmp/page" docs/results/ns3 >"$tmp/pagediff" 2>&1; then
	ok "docs/results/ns3 is what ns3/plot.py renders from its runs (model $model, $(grep -c . docs/results/ns3/runs.txt) runs in runs.txt)"
else
	bad "docs/results/ns3 is not what ns3/plot.py renders from its runs (model $model)"
	sed 's/^/# /' "$tmp/plotpage" | tail -5
	head -20 "$tmp/pagediff" | sed 's/^/# /'
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

refused "an unknown sender model" "tsoDefer: 0, 1 or 2, not 3" --scenario=validate --tsoDefer=3 \
	--duration=0.01 --warmup=0

# The Linux-like sender (validation.md, round 4), a flow alone with its NIC as its bottleneck:
# cwnd grows only while cwnd-limited, so it stays below twice the 4 MB receive window in
# segments (tcp_is_cwnd_limited's slow-start bound; ns-3.37's own grows to about 90,000 here);
# Linux's PRR keeps the link full once the second flow joins.
if "$DC" --scenario=validate --scheme=ecnsharp --senders=2 --classes=4,0 --joinAt=0.3 \
	--hostMark=0 --hostLimit=1ms --tsoDefer=2 --duration=0.6 --warmup=0.1 \
	--outPrefix="$tmp/lone" >"$tmp/lone.txt" 2>"$tmp/err"; then
	cwnd_max=$(awk '!/^#/ && $2 > m { m = $2 } END { print m + 0 }' "$tmp/lone.cwnd")
	goodput=$(grep -o 'goodput_gbps=[0-9.]*' "$tmp/lone.txt" | cut -d= -f2)
	limit=$(((4 << 20) * 2 / 1400))
	if [ "$cwnd_max" -gt 0 ] && [ "$cwnd_max" -le "$limit" ]; then
		ok "Linux-like sender: a lone flow's largest cwnd $cwnd_max <= $limit segments"
	else
		bad "Linux-like sender: a lone flow's largest cwnd $cwnd_max, want 1..$limit"
	fi
	if awk -v g="${goodput:-0}" 'BEGIN { exit !(g >= 9.0) }'; then
		ok "Linux-like sender: goodput $goodput Gbit/s >= 9.0"
	else
		bad "Linux-like sender: goodput ${goodput:-missing} Gbit/s < 9.0"
	fi
else
	bad "the Linux-like sender's run failed: $(head -c 300 "$tmp/err")"
fi

# --hostLimit: ns-3.37's sender alone fills its host's queue in slow start; what is over 1 ms late
# is dropped there and counted, and nothing is without the limit.
for limit in 1ms 0; do
	if "$DC" --scenario=validate --scheme=ecnsharp --senders=2 --classes=4,0 --joinAt=0.06 \
		--duration=0.11 --warmup=0.005 --hostMark=0 --hostLimit=$limit >"$tmp/limit.txt" \
		2>"$tmp/err"; then
		drops=$(grep -o 'host_drops=[0-9]*' "$tmp/limit.txt" | cut -d= -f2)
		case $limit,${drops:-missing} in
		1ms,[1-9]* | 0,0) ok "host limit $limit: $drops host drops" ;;
		*) bad "host limit $limit: host drops ${drops:-missing}" ;;
		esac
	else
		bad "the host-limit run ($limit) failed: $(head -c 300 "$tmp/err")"
	fi
done

refused "TSQ without the Linux-like sender" "tsq: with tsoDefer=2 only" --scenario=validate \
	--tsq=1 --tsoDefer=1 --duration=0.01 --warmup=0

# --tsq (validation.md, round 6): a lone flow's packets in its host stay within TSQ's 1 MB cap
# (at 2,140 bytes each: 490, plus the one that crosses it), as the Linux testbed's lone flow held
# at most 490; it reaches the cap (its NIC is its bottleneck) and the link stays full. Without
# TSQ the same flow queues far more there.
for tsq in 1 0; do
	if "$DC" --scenario=validate --scheme=ecnsharp --senders=2 --classes=4,0 --joinAt=0.3 \
		--hostMark=0 --tsoDefer=2 --tsq=$tsq --duration=0.35 --warmup=0.1 >"$tmp/tsq.txt" \
		2>"$tmp/err"; then
		held=$(grep -o 'host_max_pkts=[0-9]*' "$tmp/tsq.txt" | cut -d= -f2)
		goodput=$(grep -o 'goodput_gbps=[0-9.]*' "$tmp/tsq.txt" | cut -d= -f2)
		case $tsq in
		1) want="400..491 and goodput >= 9" ;;
		0) want="more than 1000" ;;
		esac
		if awk -v t="$tsq" -v h="${held:--1}" -v g="${goodput:-0}" \
			'BEGIN { exit !(t == 1 ? h >= 400 && h <= 491 && g >= 9.0 : h > 1000) }'; then
			ok "tsq=$tsq: a lone flow's host held at most $held packets ($want)"
		else
			bad "tsq=$tsq: a lone flow's host held ${held:-missing} packets," \
				"goodput ${goodput:-missing}, want $want"
		fi
	else
		bad "the tsq=$tsq run failed: $(head -c 300 "$tmp/err")"
	fi
done

# The sink (ns3/sim/sink.h): every connection echoes its own CE marks. With ns-3.37's sink, a
# listener that had been handed a stray CE-marked segment at 7.5 MB made each later connection
# ignore CE below that sequence number: in this run 16 flows got marks and never an echo, 7,000
# marks went unechoed, and the port dropped 383 packets (validation.md, round 6).
if "$DC" --scenario=testbed --scheme=ecnsharp --cdf=ns3/workloads/web-search.cdf --load=0.5 \
	--shortFlows=700 --seed=1 --limit=1000 --lambda=1 --pstTarget=85us \
	--ns3::TcpSocketBase::MinRto=200ms --tsoDefer=2 --hostMark=0 --tsq=1 --ecnAudit=1 --end=0.76 \
	>"$tmp/echo.txt" 2>"$tmp/err"; then
	field() { grep -o " $1=[0-9]*" "$tmp/echo.txt" | cut -d= -f2; }
	marked=$(field ce_flows) unechoed=$(field ce_unechoed_flows)
	ce=$(field ce_segments) ece=$(field ece_acks)
	if awk -v m="${marked:-0}" -v u="${unechoed:--1}" -v c="${ce:-0}" -v e="${ece:-0}" \
		'BEGIN { exit !(m >= 20 && u == 0 && c > 0 && e >= 0.99 * c) }'; then
		ok "every marked flow echoes: $marked flows marked, $unechoed without an echo," \
			"$ece ECE ACKs for $ce CE segments"
	else
		bad "CE echo: ${marked:-missing} flows marked, ${unechoed:-missing} without an echo," \
			"${ece:-missing} ECE ACKs for ${ce:-missing} CE segments"
	fi
else
	bad "the echo run failed: $(head -c 300 "$tmp/err")"
fi

# --scenario=testbed: the UML testbed's RTT classes (70, 75, 80, 120, 200, 210 us) are what its
# flows see: each class adds twice its RTT's difference from 70 us to a one-packet flow's FCT.
if "$DC" --scenario=testbed --scheme=ecnsharp --cdf=ns3/workloads/data-mining.cdf --load=0.3 \
	--shortFlows=400 --seed=1 --limit=1000 --lambda=1 --detailOut="$tmp/testbed" >/dev/null \
	2>"$tmp/err"; then
	# shellcheck disable=SC2016
	verdict=$(awk 'BEGIN { split("70 75 80 120 200 210", r, " ") }
		$1 == "f" && $2 <= 1460 && $4 > 0 { if (!($5 in m) || $4 < m[$5]) m[$5] = $4 }
		END {
			for (c = 1; c <= 6; c++) {
				if (!(c in m)) { print "class " c " has no one-packet flow"; exit }
				want = m[1] + 2 * (r[c] - r[1])
				if (m[c] < want - 0.5 || m[c] > want + 0.5) {
					printf "class %d: fastest FCT %.3f us, want %.3f\n", c, m[c], want; exit }
				s = s sprintf(" %.1f", m[c])
			}
			print "ok" s
		}' "$tmp/testbed")
	case $verdict in
	ok*) ok "testbed RTT classes add 2 x 0/5/10/50/130/140 us: fastest FCTs${verdict#ok} us" ;;
	*) bad "testbed RTT classes: $verdict" ;;
	esac
else
	bad "the testbed run failed: $(head -c 300 "$tmp/err")"
fi

# NS3_AT (make ns3-full for an earlier commit's model): that commit's own full.sh, in a worktree
# whose results directory is this tree's; listed, not run, with HEAD standing in for the commit.
head=$(git rev-parse HEAD | cut -c1-12)
at_tree=target/ns3/at-$head
at_had=0
[ ! -e "$at_tree" ] || at_had=1 # a sweep's own worktree is left to it
if at_out=$(NS3_AT=HEAD NS3_PARTS=q NS3_LIST=1 bash ns3/full.sh 2>&1) &&
	grep -q "^ns3-full: model [0-9a-f]\{12\} of commit $head, in $at_tree\$" <<<"$at_out" &&
	[ "$(readlink "$at_tree/docs/results/ns3")" = "$PWD/docs/results/ns3" ]; then
	ok "NS3_AT: a commit's model listed by its own ns3/full.sh in a worktree recording into this tree ($(grep -c '^q|' <<<"$at_out") runs of part q to do)"
else
	bad "NS3_AT: $(tail -c 300 <<<"$at_out")"
fi
[ "$at_had" = 1 ] || git worktree remove --force "$at_tree" 2>/dev/null

echo "ns3-checks: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
