#!/bin/sh
# The demo, inside the VM: DCTCP flows between two namespaces through a shaped ecnsharp qdisc
# (so the qdisc is the bottleneck, as in the TCN testbed), then the same through pfifo for
# comparison; prints goodput, the qdisc's statistics and what the receiver saw.
. /test/vm/guest/lib.sh
RATE=${1:-500mbit}
SECS=${2:-8}

banner() { printf '\n===== %s =====\n' "$*"; }
net_pair || exit 1
banner "sender and receiver run: $(ip netns exec snd cat /proc/sys/net/ipv4/tcp_congestion_control) / $(ip netns exec rcv cat /proc/sys/net/ipv4/tcp_congestion_control), ECN $(ip netns exec snd cat /proc/sys/net/ipv4/tcp_ecn)"

run() {
	label=$1
	shift
	banner "$label"
	echo "# tc qdisc replace dev veth-s root $*"
	tc -n snd qdisc replace dev veth-s root "$@" || exit 1
	ce0=$(netstat_counter rcv IpExt InCEPkts)
	ect0=$(netstat_counter rcv IpExt InECT0Pkts)
	iperf_run -c 10.0.0.2 -t "$SECS" -P 2 -C dctcp || { cat /tmp/iperf.err; exit 1; }
	bps=$(jq -r '.end.sum_received.bits_per_second | floor' /tmp/iperf.json)
	rtt=$(jq -r '[.end.streams[].sender.mean_rtt] | add / length | floor' /tmp/iperf.json)
	echo "goodput $((bps / 1000000)) Mbit/s over ${SECS}s, 2 DCTCP flows (both ends: $(jq -r .end.sender_tcp_congestion /tmp/iperf.json)/$(jq -r .end.receiver_tcp_congestion /tmp/iperf.json)), mean RTT ${rtt}us"
	echo "receiver: $(($(netstat_counter rcv IpExt InCEPkts) - ce0)) CE packets, $(($(netstat_counter rcv IpExt InECT0Pkts) - ect0)) ECT(0) packets"
	echo "# tc -s qdisc show dev veth-s"
	tc -n snd -s qdisc show dev veth-s
}
run "ecnsharp (ECN#: ins_target 200us, pst_target 85us, pst_interval 200us) at $RATE" \
	ecnsharp rate "$RATE" limit 10000
run "tcn (instantaneous only, ins_target 200us) at $RATE" \
	ecnsharp rate "$RATE" limit 10000 mode tcn
run "no marking: the same shaper, mode red with K above the limit" \
	ecnsharp rate "$RATE" limit 10000 mode red k 20000
net_teardown
