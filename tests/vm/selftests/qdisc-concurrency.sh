#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# vm-flavour: debug
# Concurrency on the debug kernel (lockdep, KASAN): two churn processes change two ecnsharp
# qdiscs under prio (ecnsharp-nlfuzz churn: valid RTM_NEWQDISC changes of band count, limit,
# mode, scheduler and rate as fast as the kernel answers), while a third process dumps
# `tc -s qdisc show` and `tc -s class show` (JSON) in a loop, and pktgen streams run through
# every band of both. Every change is taken, every dump parses and lists both qdiscs, no splat;
# afterwards every band balances and prio's counters are the sum of its children's.
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh
ktap_begin qdisc-concurrency 9

Q=vq
SECS=${1:-20}
{ pg_pair && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }
tree() {
	tc qdisc add dev $Q root handle 1: prio &&
		tc qdisc add dev $Q parent 1:1 handle 10: ecnsharp bands 3 limit 1000 &&
		tc qdisc add dev $Q parent 1:2 handle 20: ecnsharp bands 3 limit 1000
}
check "prio with ecnsharp 10: under 1:1 and 20: under 1:2" tree

# dumper: until /tmp/conc.stop, dump qdiscs and classes; counts dumps and those that did not
# parse or missed a qdisc, into /tmp/dumper.result.
dumper() {
	_n=0
	_bad=0
	_cls=0
	while [ ! -e /tmp/conc.stop ]; do
		if ! tc -s -j qdisc show dev $Q >/tmp/conc-q.json 2>&1 ||
			! jq -e '[.[] | select(.kind == "ecnsharp")] | length == 2' /tmp/conc-q.json >/dev/null; then
			_bad=$((_bad + 1))
			[ $_bad -le 2 ] && head -c 600 /tmp/conc-q.json >>/tmp/dumper.bad
		fi
		# The class dump read as text: `tc -s -j class show` printed text here (prio and ecnsharp
		# classes alike, iproute2 6.1), so jq refused every one. Both children's bands, prio's classes.
		if ! tc -s class show dev $Q >/tmp/conc-c.json 2>&1 ||
			! grep -q '^class ecnsharp 10:1 ' /tmp/conc-c.json ||
			! grep -q '^class ecnsharp 20:1 ' /tmp/conc-c.json ||
			! grep -q '^class prio 1:2 ' /tmp/conc-c.json; then
			_bad=$((_bad + 1))
			[ $_bad -le 2 ] && head -c 600 /tmp/conc-c.json >>/tmp/dumper.bad
		else
			_cls=$((_cls + 1))
		fi
		_n=$((_n + 1))
	done
	echo "$_n $_bad $_cls" >/tmp/dumper.result
}

rm -f /tmp/conc.stop /tmp/dumper.result /tmp/dumper.bad
# Every band of both: prio sends priorities 6 and 7 to 1:1, 0 to 1:2 (its default priomap);
# ecnsharp's own priomap spreads them over its bands; ECT(0), ECT(1), not-ECT, IPv4 and IPv6.
bg_start "tos 02;skb_priority 6;delay 200000" "tos 00;skb_priority 7;delay 400000" \
	"dst6 fd01::2;src6 fd01::1;traffic_class 01;skb_priority 0;delay 200000" \
	"tos 02;skb_priority 0;delay 400000"
ecnsharp-nlfuzz churn --dev $Q --parent 1:1 --handle 10: --seconds "$SECS" --seed 11 >/tmp/churn-a.out 2>&1 &
ca=$!
ecnsharp-nlfuzz churn --dev $Q --parent 1:2 --handle 20: --seconds "$SECS" --seed 22 >/tmp/churn-b.out 2>&1 &
cb=$!
dumper &
dp=$!
wait $ca
rca=$?
wait $cb
rcb=$?
touch /tmp/conc.stop
wait $dp
bg_stop
cat /tmp/churn-a.out /tmp/churn-b.out /tmp/dumper.bad 2>/dev/null | sed 's/^/# /'
read -r dumps bad classdumps </tmp/dumper.result
diag "dumper: $dumps rounds, $bad dumps that did not parse or missed a qdisc, $classdumps class dumps"
changes_of() { sed -n 's/^churn: changes=\([0-9]*\) failed=0$/\1/p' "$1"; }
a=$(changes_of /tmp/churn-a.out)
b=$(changes_of /tmp/churn-b.out)
check "churn on 10:: every change taken (${a:-none})" sh -c "[ $rca = 0 ] && [ ${a:-0} -gt 0 ]"
check "churn on 20:: every change taken (${b:-none})" sh -c "[ $rcb = 0 ] && [ ${b:-0} -gt 0 ]"
check "dumps ran meanwhile ($dumps rounds of qdisc and class dumps)" gt "${dumps:-0}" 0
check "every qdisc and class dump parsed and listed both qdiscs" sh -c "[ '${bad:-x}' = 0 ] && [ ${classdumps:-0} = ${dumps:-1} ]"
check "traffic offered meanwhile ($BG_OFFERED packets, streams for every band)" gt "${BG_OFFERED:-0}" 0
check "every ecnsharp band balances" balanced_all $Q
# prio_sum: once drained, prio's generic counters are its children's sums (plus its own 1:3
# pfifo, which takes what prio sends to band 2: nothing here). The children's band records are
# not summed against their packet counts: churn may leave 20: with one band, and band 1 (where
# priority 0 goes with two bands or more) then leaves the dump with what it sent.
prio_sum() {
	wait_drained $Q 30 || { echo "not drained"; return 1; }
	settled_balanced $Q churned || return 1
	jq -e '([.[] | select(.kind == "ecnsharp")] | (map(.packets) | add)) as $p |
		([.[] | select(.kind == "ecnsharp")] | (map(.drops) | add)) as $d |
		[.[] | select(.root == true)][0] | .packets == $p and .drops == $d and .qlen == 0' /tmp/dump.json >/dev/null ||
		{ MISMATCHES=$((MISMATCHES + 1)); jq -c '.[]' /tmp/dump.json; return 1; }
}
check "prio's counters are the sum of its ecnsharp children's" prio_sum
tc qdisc del dev $Q root
pg_teardown
check "module unloads" rmmod sch_ecnsharp
reliability "changes=$((${a:-0} + ${b:-0})) counter_mismatches=$MISMATCHES"
ktap_end
