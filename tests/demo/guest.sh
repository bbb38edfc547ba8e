#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The demo, inside the VM: two DCTCP flows between two namespaces through a shaped ecnsharp qdisc
# (the qdisc is the bottleneck, as in the TCN testbed). ECN#'s parameters come from the rule of
# thumb of the paper (ecnsharp-tc tune) applied to this VM's RTTs, which are milliseconds under
# TCG rather than a datacenter's tens of microseconds. Three schemes with the same shaper: no
# marking, TCN (instantaneous marking only) and ECN#, interleaved, ROUNDS rounds (3 by default)
# in one boot; the summary gives each scheme's median with the range over the rounds.
# Usage (through tests/vm/run-in-vm): guest.sh [RATE [SECONDS [ROUNDS]]]
. /test/vm/guest/lib.sh
RATE=${1:-300mbit}
SECS=${2:-6}
ROUNDS=${3:-3}
banner() { printf '\n===== %s =====\n' "$*"; }

net_pair || exit 1
banner "the network: namespaces snd -> rcv over veth; congestion control $(ip netns exec snd cat /proc/sys/net/ipv4/tcp_congestion_control) / $(ip netns exec rcv cat /proc/sys/net/ipv4/tcp_congestion_control), tcp_ecn $(ip netns exec snd cat /proc/sys/net/ipv4/tcp_ecn)"
ip netns exec snd ping -q -c 20 -i 0.05 10.0.0.2 | tail -n 1

banner "ECN# parameters for this VM: ecnsharp-tc tune (RTT avg 1ms, p90 4ms, lambda 1)"
ecnsharp-tc tune --rate "$RATE" --rtt-avg 1ms --rtt-p90 4ms --lambda 1
RESULTS=/tmp/results
: >$RESULTS

# run ROUND KEY LABEL QDISC...: one iperf3 run through QDISC; the last round shows the statistics.
run() {
	round=$1
	key=$2
	label=$3
	shift 3
	banner "round $round/$ROUNDS: $label"
	echo "# tc qdisc add dev veth-s root $*"
	tc -n snd qdisc del dev veth-s root 2>/dev/null
	tc -n snd qdisc add dev veth-s root "$@" || exit 1
	ce0=$(netstat_counter rcv IpExt InCEPkts)
	iperf_run -c 10.0.0.2 -t "$SECS" -P 2 -C dctcp || { cat /tmp/iperf.err; exit 1; }
	mbps=$(jq -r '.end.sum_received.bits_per_second / 1000000 | floor' /tmp/iperf.json)
	rtt=$(jq -r '[.end.streams[].sender.mean_rtt] | add / length | floor' /tmp/iperf.json)
	ce=$(($(netstat_counter rcv IpExt InCEPkts) - ce0))
	echo "iperf3: $mbps Mbit/s, 2 flows, both ends $(jq -r .end.sender_tcp_congestion /tmp/iperf.json)/$(jq -r .end.receiver_tcp_congestion /tmp/iperf.json), mean RTT ${rtt}us; receiver saw $ce CE packets"
	if [ "$round" = "$ROUNDS" ]; then
		echo "# tc -s qdisc show dev veth-s"
		tc -n snd -s qdisc show dev veth-s
	fi
	soj=$(tc -n snd -s -j qdisc show dev veth-s | jq -r '.[0].bands[0].sojourn_mean | floor')
	echo "$key $mbps $rtt $soj $ce" >>$RESULTS
}
r=1
while [ $r -le "$ROUNDS" ]; do
	run $r none "no marking (same shaper)" ecnsharp rate "$RATE" limit 10000 mode red k 20000
	run $r tcn "TCN, ins_target 4ms" ecnsharp rate "$RATE" limit 10000 mode tcn ins_target 4ms
	run $r ecnsharp "ECN#, 4ms / 1ms / 4ms" ecnsharp rate "$RATE" limit 10000 ins_target 4ms pst_target 1ms pst_interval 4ms
	r=$((r + 1))
done

# stat KEY COLUMN: "median (min-max)" of a column over the rounds of one scheme.
stat() {
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' $RESULTS | sort -n | awk '
		{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)
			printf "%s (%s-%s)", m, v[1], v[NR] }'
}
banner "summary: shaper $RATE, ${SECS}s per run, $ROUNDS interleaved rounds; median (min-max)"
printf '%-26s %-18s %-20s %-20s %s\n' "qdisc" "Mbit/s" "RTT us" "sojourn us" "CE pkts"
for key in none tcn ecnsharp; do
	case $key in
	none) label="no marking (same shaper)" ;;
	tcn) label="TCN, ins_target 4ms" ;;
	ecnsharp) label="ECN#, 4ms / 1ms / 4ms" ;;
	esac
	printf '%-26s %-18s %-20s %-20s %s\n' "$label" "$(stat $key 2)" "$(stat $key 3)" "$(stat $key 4)" "$(stat $key 5)"
done
net_teardown
