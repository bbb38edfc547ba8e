#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Goodput the TCG guest sustains over veth between two namespaces (iperf3, DCTCP), with 1 and 4
# flows, for root qdiscs QDISC... on the sender's veth (default: pfifo, fq_codel, ecnsharp), with
# offloads on and off. All in one boot, so the numbers compare (run-to-run noise is ~10%).
# Run: tests/vm/run-in-vm tests/vm/experiments/goodput.sh [SECONDS [QDISC...]]
. /test/vm/guest/lib.sh
secs=${1:-5}
[ $# -gt 0 ] && shift
qdiscs=${*:-pfifo fq_codel ecnsharp}
net_pair || exit 1
run() {
	label=$1
	shift
	if iperf_run -c 10.0.0.2 -t "$secs" -C dctcp "$@"; then
		bps=$(jq -r '.end.sum_received.bits_per_second | floor' /tmp/iperf.json)
		ce=$(netstat_counter rcv IpExt InCEPkts)
		drops=$(tc -n snd -s -j qdisc show dev veth-s | jq -r '.[0].drops')
		echo "goodput: $label: $((bps / 1000000)) Mbit/s (receiver CE packets so far: $ce, qdisc drops so far: $drops)"
	else
		echo "goodput: $label: iperf3 failed: $(cat /tmp/iperf.err)"
	fi
}
offloads() {
	ip netns exec snd ethtool -K veth-s tso "$1" gso "$1" gro "$1" >/dev/null 2>&1
	ip netns exec rcv ethtool -K veth-r tso "$1" gso "$1" gro "$1" >/dev/null 2>&1
}
for off in ${OFFLOADS:-on off}; do
	offloads $off
	for q in $qdiscs; do
		tc -n snd qdisc replace dev veth-s root $q || continue
		run "$q, 1 flow, offloads $off"
		run "$q, 4 flows, offloads $off" -P 4
	done
done
net_teardown
