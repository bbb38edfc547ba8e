#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Smoke suite: the bench itself works. Boot, module load/unload, two namespaces joined by veth with
# DCTCP and ECN, a TCP transfer between them, and tc statistics.
. /test/vm/guest/lib.sh
ktap_begin smoke 19

kernel_ok() {
	uname -r | grep -q '^6\.12\.' && [ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ]
}
module_loaded() { grep -q "^sch_ecnsharp " /proc/modules; }
module_absent() { ! module_loaded; }
real_tc() { tc -V | grep -q iproute2; }
dctcp_in_force() {
	for ns in snd rcv; do
		cc=$(ip netns exec $ns cat /proc/sys/net/ipv4/tcp_congestion_control)
		[ "$cc" = dctcp ] || { echo "$ns runs $cc"; return 1; }
	done
}
both_dctcp() {
	[ "$(jq -r .end.sender_tcp_congestion /tmp/iperf.json)" = dctcp ] &&
		[ "$(jq -r .end.receiver_tcp_congestion /tmp/iperf.json)" = dctcp ]
}
stats_count() { tc -n snd -s qdisc show dev veth-s | tee /dev/stderr | grep -q "Sent [1-9][0-9]* bytes"; }
stats_json() { tc -n snd -s -j qdisc show dev veth-s | jq -e '.[0].bytes > 0'; }

check "kernel is 6.12 with both vCPUs" kernel_ok
check "module loaded at boot" module_loaded
check "module unloads" rmmod sch_ecnsharp
check "module is gone after unload" module_absent
check "module loads again" insmod /lib/modules/ecnsharp/sch_ecnsharp.ko
check "iproute2 tc is the real one, not busybox's applet" real_tc
check "two namespaces joined by veth" net_pair
check "IPv4 ping across the veth" ip netns exec snd ping -c 2 -W 2 10.0.0.2
check "IPv6 ping across the veth" ip netns exec snd ping -c 2 -W 2 fd00::2
check "DCTCP in force in both namespaces" dctcp_in_force
check "pfifo root qdisc on the sender's veth" tc -n snd qdisc replace dev veth-s root pfifo limit 1000

# segs: IPv4 packets the receiver counted (IpExt In*Pkts count each segment of a GRO packet).
segs() {
	echo $(($(netstat_counter rcv IpExt InNoECTPkts) + $(netstat_counter rcv IpExt InECT1Pkts) +
		$(netstat_counter rcv IpExt InECT0Pkts) + $(netstat_counter rcv IpExt InCEPkts)))
}
ect0_before=$(netstat_counter rcv IpExt InECT0Pkts)
segs_before=$(segs)
check "TCP transfer (iperf3, 3 s, DCTCP)" iperf_run -c 10.0.0.2 -t 3 -C dctcp
bytes=$(jq -r '.end.sum_received.bytes // 0' /tmp/iperf.json 2>/dev/null)
bps=$(jq -r '.end.sum_received.bits_per_second // 0 | floor' /tmp/iperf.json 2>/dev/null)
diag "received $bytes bytes, $((bps / 1000000)) Mbit/s"
# Volumes are relative, not fixed: a fixed volume measures the guest's speed and the host's load
# (a debug guest on a loaded CI host moves far less than 10 MB in 3 s). Every received byte
# crossed the pfifo, which counts them with headers, so it counts at least as many.
qbytes=$(tc -n snd -s -j qdisc show dev veth-s | jq -r '.[0].bytes')
check "receiver got data, all of it through the root qdisc ($qbytes bytes counted)" \
	sh -c "[ '${bytes:-0}' -gt 0 ] && [ '$qbytes' -ge '${bytes:-0}' ]"
check "both ends ran DCTCP" both_dctcp
ect0_after=$(netstat_counter rcv IpExt InECT0Pkts)
segs_after=$(segs)
diag "receiver InECT0Pkts: $ect0_before -> $ect0_after of $((segs_after - segs_before)) packets"
# ECT(0) on at least 90% of what arrived (DCTCP marks every data segment; only the handshakes'
# SYNs go without), whatever the guest's speed made that.
check "ECN negotiated: receiver saw ECT(0) on at least 90% of the packets" \
	sh -c "[ $((segs_after - segs_before)) -gt 0 ] && [ $(((ect0_after - ect0_before) * 10)) -ge $(((segs_after - segs_before) * 9)) ]"
check "tc -s qdisc show counts the transfer" stats_count
check "tc -s -j qdisc show is valid JSON" stats_json

# The experiments' flow generator (tests/flowgen, make experiments): synchronized queries over
# real TCP, and the rtnetlink queue sampler reading this kernel's qdisc dump.
flowgen_incast() {
	ip netns exec rcv ecnsharp-flowgen serve --bind 10.0.0.2:7000 &
	_srv=$!
	wait_listen rcv 7000 || { kill $_srv; echo "flowgen server not listening after 10 s"; return 1; }
	ip netns exec snd ecnsharp-flowgen incast --servers 10.0.0.2:7000 --fanout 4 --queries 2 \
		--gap-ms 0 >/tmp/flowgen.out
	_rc=$?
	kill $_srv
	cat /tmp/flowgen.out
	[ $_rc = 0 ] && grep '"summary"' /tmp/flowgen.out | jq -e '.queries == 2 and .failed == 0 and .qct_mean_us > 0'
}
flowgen_sample() {
	touch /tmp/flowgen.run
	rm -f /tmp/flowgen.out
	# Stop the sampler once it wrote 3 samples (30 s cap), not after a fixed time that a slow
	# guest can spend starting it.
	(
		n=0
		while [ "$(cat /tmp/flowgen.out 2>/dev/null | wc -l)" -lt 3 ] && [ $n -lt 300 ]; do
			n=$((n + 1))
			sleep 0.1
		done
		rm -f /tmp/flowgen.run
	) &
	ip netns exec snd ecnsharp-flowgen sample --dev veth-s --interval-ms 20 --stop /tmp/flowgen.run \
		>/tmp/flowgen.out || return 1
	wait
	[ "$(wc -l </tmp/flowgen.out)" -ge 3 ] || { echo "fewer than 3 samples"; return 1; }
	head -n 3 /tmp/flowgen.out
	# "seconds backlog qlen drops" lines, the drops those tc reports for the root.
	_drops=$(tc -n snd -s -j qdisc show dev veth-s | jq -r '.[0].drops')
	[ -s /tmp/flowgen.out ] && awk -v d="$_drops" 'NF != 4 || $4 != d { exit 1 }' /tmp/flowgen.out
}
check "flowgen: 2 incast queries of 4 responses complete" flowgen_incast
check "flowgen: the queue sampler reads the root qdisc over rtnetlink" flowgen_sample
net_teardown

ktap_end
