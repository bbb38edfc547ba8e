#!/bin/sh
# The demo, inside the VM: two DCTCP flows between two namespaces through a shaped ecnsharp qdisc
# (the qdisc is the bottleneck, as in the TCN testbed). ECN#'s parameters come from the rule of
# thumb of the paper (ecnsharp-tc tune) applied to this VM's RTTs, which are milliseconds under
# TCG rather than a datacenter's tens of microseconds. Three runs with the same shaper: no
# marking, TCN (instantaneous marking only) and ECN#; then a summary.
# Usage (through tests/vm/run-in-vm): guest.sh [RATE [SECONDS]]
. /test/vm/guest/lib.sh
RATE=${1:-1gbit}
SECS=${2:-6}
banner() { printf '\n===== %s =====\n' "$*"; }

net_pair || exit 1
banner "the network: namespaces snd -> rcv over veth; congestion control $(ip netns exec snd cat /proc/sys/net/ipv4/tcp_congestion_control) / $(ip netns exec rcv cat /proc/sys/net/ipv4/tcp_congestion_control), tcp_ecn $(ip netns exec snd cat /proc/sys/net/ipv4/tcp_ecn)"
ip netns exec snd ping -q -c 20 -i 0.05 10.0.0.2 | tail -n 1

banner "ECN# parameters for this VM: ecnsharp-tc tune (RTT avg 1ms, p90 4ms, lambda 1)"
ecnsharp-tc tune --rate "$RATE" --rtt-avg 1ms --rtt-p90 4ms --lambda 1
SUMMARY=/tmp/summary
: >$SUMMARY

run() {
	label=$1
	shift
	banner "$label"
	echo "# tc qdisc add dev veth-s root $*"
	tc -n snd qdisc del dev veth-s root 2>/dev/null
	tc -n snd qdisc add dev veth-s root "$@" || exit 1
	ce0=$(netstat_counter rcv IpExt InCEPkts)
	iperf_run -c 10.0.0.2 -t "$SECS" -P 2 -C dctcp || { cat /tmp/iperf.err; exit 1; }
	mbps=$(jq -r '.end.sum_received.bits_per_second / 1000000 | floor' /tmp/iperf.json)
	rtt=$(jq -r '[.end.streams[].sender.mean_rtt] | add / length | floor' /tmp/iperf.json)
	ce=$(($(netstat_counter rcv IpExt InCEPkts) - ce0))
	echo "iperf3: $mbps Mbit/s, 2 flows, both ends $(jq -r .end.sender_tcp_congestion /tmp/iperf.json)/$(jq -r .end.receiver_tcp_congestion /tmp/iperf.json), mean RTT ${rtt}us; receiver saw $ce CE packets"
	echo "# tc -s qdisc show dev veth-s"
	tc -n snd -s qdisc show dev veth-s
	soj=$(tc -n snd -s -j qdisc show dev veth-s | jq -r '.[0].bands[0].sojourn_mean | floor')
	printf '%-34s %8s %10s %14s %10s\n' "$label" "$mbps" "$rtt" "$soj" "$ce" >>$SUMMARY
}
run "no marking (same shaper)" ecnsharp rate "$RATE" limit 10000 mode red k 20000
run "TCN, ins_target 4ms" ecnsharp rate "$RATE" limit 10000 mode tcn ins_target 4ms
run "ECN#, 4ms / 1ms / 4ms" ecnsharp rate "$RATE" limit 10000 ins_target 4ms pst_target 1ms pst_interval 4ms

banner "summary (shaper $RATE, ${SECS}s per run)"
printf '%-34s %8s %10s %14s %10s\n' "qdisc" "Mbit/s" "RTT us" "sojourn us" "CE pkts"
cat $SUMMARY
net_teardown
