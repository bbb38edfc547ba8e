#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Diagnosis (validation.md, round 6): one DCTCP flow alone from h1 (RTT class C, default 6 = 210 us)
# through the testbed (tests/uml/testbed/lib.sh, ECN# at the switch); every 10 ms of virtual time
# the host NIC's tbf and the switch port's qdisc ([bytes, packets, drops, backlog bytes, qlen,
# overlimits or marks]) and the flow's cwnd. Run: tests/uml/run-in-uml --out DIR lone.sh
# shellcheck disable=SC2163 # each argument is NAME=VALUE: export that assignment
for a in "$@"; do export "$a"; done
. "$ECNSHARP_REPO/tests/uml/testbed/lib.sh"
# shellcheck disable=SC2034 # unused (topology is given 3 itself); kept as the experiment ran
SPREAD=3
topology 3 || fail topology
install ${SCHEME:-ecnsharp} || fail install
servers
C=${C:-6}
( i=0; while [ $i -lt ${N:-40} ]; do
	echo "T $(date +%s.%N)"
	tc -n h1 -s -j qdisc show dev eth0 | jq -c '.[0] | [.bytes,.packets,.drops,.backlog,.qlen,.overlimits]'
	tc -n sw -s -j qdisc show dev out | jq -c '.[0] | [.bytes,.packets,.drops,.backlog,.qlen,.marks]'
	ip netns exec h1 ss -tin | grep -o 'cwnd:[0-9]*' | head -1
	sleep ${DT:-0.01}; i=$((i+1)); done ) >"$ECNSHARP_OUT/samples.txt" 2>&1 &
ip netns exec rcv ecnsharp-flowgen bulk --servers "10.1.$C.1:7000" --seconds ${SECS:-0.4} --omit 0.1 --lowat 1048576 >"$ECNSHARP_OUT/bulk.out" 2>&1
while kill -0 $! 2>/dev/null; do sleep 0.01; done # the sampler (not the servers)
tc -n h1 -s qdisc show dev eth0 >"$ECNSHARP_OUT/h1.txt"
tc -n sw -s qdisc show dev out >"$ECNSHARP_OUT/sw.txt"
