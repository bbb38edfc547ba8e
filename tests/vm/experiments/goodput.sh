#!/bin/sh
# Goodput the TCG guest sustains over veth between two namespaces (iperf3, DCTCP), with 1 and 4
# flows, offloads on and off. Run with: tests/vm/run-in-vm tests/vm/experiments/goodput.sh [SECONDS]
# Prints one line per case; docs/vm-bench.md records the numbers.
. /test/vm/guest/lib.sh
secs=${1:-5}
net_pair || exit 1
run() {
	label=$1
	shift
	if iperf_run -c 10.0.0.2 -t "$secs" -C dctcp "$@"; then
		bps=$(jq -r '.end.sum_received.bits_per_second | floor' /tmp/iperf.json)
		echo "goodput: $label: $((bps / 1000000)) Mbit/s"
	else
		echo "goodput: $label: iperf3 failed: $(cat /tmp/iperf.err)"
	fi
}
run "1 flow, offloads on"
run "4 flows, offloads on" -P 4
for ns in snd rcv; do
	dev=veth-s
	[ $ns = rcv ] && dev=veth-r
	ip netns exec $ns ethtool -K $dev tso off gso off gro off >/dev/null 2>&1
done
run "1 flow, offloads off"
run "4 flows, offloads off" -P 4
net_teardown
