#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Linux side of the sender-model validation (docs/results/ns3/validation.md), run inside
# User-Mode Linux in virtual time by ns3/validate-linux.sh through tests/uml/run-in-uml:
#   linux-guest.sh NAME=N SENDERS=2|4 QDISC="mode ecnsharp ins_target ..." [DURATION=1] [WARMUP=0.2]
#                  [CLASSES="4 0"] [JOIN=0.5]
# JOIN: the last sender starts then (the others alone before it), not 5 ms after the one before.
# SAMPLE_US (1) and CWND_MS (1): how often the queue sampler and the cwnd loop run. Under UML's
# time travel a guest process pays virtual time for each clock read, and on the guest's one CPU
# the samplers compete with the senders and receivers; coarser sampling measures what they cost
# the flows (docs/results/ns3/validation.md). HOST_NIC=0 leaves the end hosts' 10 Gbit/s NIC
# shaper (tbf) out, netem alone on their egress: the bottleneck is the switch port either way,
# so this asks whether the hosts' own shapers shape the bursts the bottleneck sees. SS_LOG=1 also keeps each sender's whole `ss -tin`
# line at every cwnd sample (ss.txt: DCTCP's alpha, delivered_ce, notsent, the *_limited times).
# PCAP_MS=N captures N ms of virtual time from WARMUP with tcpdump (headers only, ns stamps):
# every sender's eth0 (its data as its NIC sends it, the ACKs as they reach it: sN.pcap) and the
# bottleneck's port (sw.pcap), for ns3/pcap_dynamics.py. With HOST_NIC=0 a sender's data leaves
# exactly its netem delay after its TCP emitted it (the bench kernel has no act_mirred to copy
# packets ahead of the qdisc). ACK_DELAY=1 (a diagnosis) moves each sender's delay onto its ACKs
# (the switch's port toward it) and leaves its egress without netem or NIC: the same RTTs, and
# its eth0 shows what its TCP emits, when. TSO_WIN_DIVISOR=N sets every host's
# net.ipv4.tcp_tso_win_divisor (Linux's default 3: TCP, whose skbs hold several segments even with
# the device's GSO off, defers sending until a third of cwnd can go at once unless the next ACK is
# far; 255 sends whenever one segment may go, as ns-3's TCP does).
#
#   s1..sN, p (probe) --- sw ==out==> r (receiver)
#
# Every end host's eth0 carries its delay (netem: its class's extra delay plus the propagation
# it stands for) and then a 10 Gbit/s NIC (tbf); sw's port "out" toward r is the bottleneck:
# ecnsharp with its own 10 Gbit/s shaper, limit 250, QDISC's mode and thresholds. DCTCP with ECN
# everywhere, MSS 1400 (MTU 1452), rto_min 5 ms, quickack, no TSO/GSO. Writes into
# $ECNSHARP_OUT the raw measurements ns3/linux_summary.py reduces: queue.txt (the bottleneck's
# backlog at Poisson times, mean 1 us), cwnd.txt (each sender's cwnd every 1 ms), bulkI.jsonl,
# probes.jsonl, qdisc0.json and qdisc1.json (the qdisc at WARMUP and at the end), times.txt.
# shellcheck disable=SC2163 # each argument is NAME=VALUE: export that assignment
for a in "$@"; do
	case $a in
	*=*) export "$a" ;;
	*) echo "linux-guest: unexpected argument $a"; exit 2 ;;
	esac
done
: "${NAME:?}" "${SENDERS:?}" "${QDISC:?}"
DURATION=${DURATION:-1}
SAMPLE_US=${SAMPLE_US:-1}
CWND_MS=${CWND_MS:-1}
SS_LOG=${SS_LOG:-0}
HOST_NIC=${HOST_NIC:-1}
ACK_DELAY=${ACK_DELAY:-0}
TSO_WIN_DIVISOR=${TSO_WIN_DIVISOR:-}
WARMUP=${WARMUP:-0.2}
OUT=$ECNSHARP_OUT
fail() {
	echo "linux-guest: $*"
	exit 1
}
# The host-delay classes of ns3/sim/host-delay.cc (us) and the senders' classes.
DELAYS="1 20 50 80 160"
case $SENDERS in
2) CLASSES=${CLASSES:-0 4} ;;
4) CLASSES=${CLASSES:-0 1 3 4} ;;
*) fail "SENDERS must be 2 or 4" ;;
esac
JOIN=${JOIN:-0}
PCAP_MS=${PCAP_MS:-0}
PROP_US=20 # two 10 us links each way, carried by the sending host's netem
now() { date +%s.%N; } # the virtual clock, to the ns (/proc/uptime counts 10 ms)
at() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; printf "%.6f", (d > 0 ? d : 0) }'; }

echo "reno cubic dctcp" >/proc/sys/net/ipv4/tcp_allowed_congestion_control
ip netns add sw || fail "netns"
ip netns exec sw sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward'
ip -n sw link set lo up
# host NS PORT NET DELAY_US: an end host behind sw on 10.NET.0.0/24 whose egress waits DELAY_US.
host() {
	ip netns add "$1" || return 1
	ip link add "$2" netns sw type veth peer name eth0 netns "$1" || return 1
	ip -n sw addr add "10.$3.0.254/24" dev "$2"
	ip -n "$1" addr add "10.$3.0.1/24" dev eth0
	ip -n sw link set "$2" mtu 1452 up
	ip -n "$1" link set eth0 mtu 1452 up
	ip -n "$1" link set lo up
	ip -n "$1" route add default via "10.$3.0.254" rto_min 5ms quickack 1 || return 1
	ip netns exec "$1" sh -c 'echo dctcp >/proc/sys/net/ipv4/tcp_congestion_control &&
		echo 1 >/proc/sys/net/ipv4/tcp_ecn && echo 0 >/proc/sys/net/ipv4/tcp_ecn_fallback &&
		echo "4096 131072 4194304" >/proc/sys/net/ipv4/tcp_wmem &&
		echo "4096 131072 4194304" >/proc/sys/net/ipv4/tcp_rmem' || return 1
	[ -z "$TSO_WIN_DIVISOR" ] ||
		ip netns exec "$1" sh -c "echo $TSO_WIN_DIVISOR >/proc/sys/net/ipv4/tcp_tso_win_divisor" ||
		return 1
	ip netns exec "$1" ethtool -K eth0 tso off gso off >/dev/null 2>&1 ||
		echo "linux-guest: $1: could not turn TSO/GSO off"
	if [ "$ACK_DELAY" = 1 ] && [ "$1" != r ] && [ "$1" != p ]; then
		# The sender's delay on its ACKs instead (sw's port toward it), nothing on its egress:
		# its eth0 then shows the instants its TCP emits.
		tc -n sw qdisc add dev "$2" root netem delay "$4us" limit 100000
		return
	fi
	tc -n "$1" qdisc add dev eth0 root handle 1: netem delay "$4us" limit 100000 || return 1
	[ "$HOST_NIC" = 0 ] ||
		tc -n "$1" qdisc add dev eth0 parent 1:1 handle 2: tbf rate 10gbit burst 3750 latency 1ms ||
		return 1
}
host r out 200 $((1 + PROP_US)) || fail "receiver"
i=1
for c in $CLASSES; do
	d=$(echo $DELAYS | cut -d' ' -f$((c + 1)))
	host "s$i" "p$i" "$i" $((d + PROP_US)) || fail "sender $i"
	i=$((i + 1))
done
host p pp 99 $((1 + PROP_US)) || fail "probe host"
# The bottleneck: sw's port toward r (replacing the receiver host's generic setup on that side).
# Its bucket is two MTUs: a switch port sends one packet at a time (ns-3's has a 1-packet device
# queue); the default, 50 us of the rate (62.5 KB), let 43 packets leave at once after a pause.
tc -n sw qdisc add dev out root handle 10: ecnsharp rate 10gbit burst 3028 limit 250 $QDISC ||
	fail "ecnsharp $QDISC"
tc -n sw qdisc show dev out >"$OUT/qdisc.txt"
for ns in r p $(seq -f 's%g' 1 "$SENDERS"); do
	[ "$(ip netns exec "$ns" cat /proc/sys/net/ipv4/tcp_congestion_control)" = dctcp ] ||
		fail "$ns does not run DCTCP"
done

# Servers on the senders and the probe host; r asks, they answer (the data flows toward r).
for ns in p $(seq -f 's%g' 1 "$SENDERS"); do
	ip netns exec "$ns" ecnsharp-flowgen serve --bind 0.0.0.0:7000 &
done
for ns in p $(seq -f 's%g' 1 "$SENDERS"); do
	n=0
	until ip netns exec "$ns" ss -Hltn 'sport = :7000' | grep -q .; do
		n=$((n + 1))
		[ $n -lt 100 ] || fail "the server on $ns does not listen"
		sleep 0.01
	done
done
echo "20000 0" >/tmp/probe.cdf
echo "20000 1" >>/tmp/probe.cdf

t0=$(now)
touch /tmp/sampling
ip netns exec sw ecnsharp-flowgen sample --dev out --interval-us "$SAMPLE_US" --seed 1 --stop /tmp/sampling \
	>"$OUT/queue.txt" &
sampler=$!
# Long flows, sender i from (i-1) x 5 ms, each measured over the same window [WARMUP, DURATION).
# bulk I: flow I from now until DURATION, its bytes counted from WARMUP (or its start).
bulk() {
	start=$(at "$(now)" "$t0")
	echo "bulk$1 $start" >>"$OUT/times.txt"
	exec ip netns exec r ecnsharp-flowgen bulk --servers "10.$1.0.1:7000" \
		--seconds "$(at "$DURATION" "$start")" --omit "$(at "$WARMUP" "$start")" \
		>"$OUT/bulk$1.jsonl" 2>&1
}
bulks=
i=1
for c in $CLASSES; do
	if [ $i -eq "$SENDERS" ] && [ "$JOIN" != 0 ]; then
		(sleep "$(at "$JOIN" "$(at "$(now)" "$t0")")" && bulk $i) &
	else
		[ $i -eq 1 ] || sleep 0.005
		(bulk $i) &
	fi
	bulks="$bulks $!"
	i=$((i + 1))
done
sleep "$(at "$WARMUP" "$(at "$(now)" "$t0")")"
tc -n sw -s -j qdisc show dev out >"$OUT/qdisc0.json"
echo "window $(at "$(now)" "$t0")" >>"$OUT/times.txt"
if [ "$PCAP_MS" != 0 ]; then
	command -v tcpdump >/dev/null || fail "PCAP_MS needs tcpdump"
	dumps=
	# dump NS DEV FILE
	dump() {
		ip netns exec "$1" tcpdump -Z root -i "$2" -s 96 -n -U --time-stamp-precision=nano \
			-w "$OUT/$3.pcap" tcp 2>>"$OUT/tcpdump.err" &
		dumps="$dumps $!"
	}
	for ns in $(seq -f 's%g' 1 "$SENDERS"); do dump "$ns" eth0 "$ns"; done
	dump sw out sw
	(sleep "$(awk -v m="$PCAP_MS" 'BEGIN { printf "%.3f", m / 1000 }')" && kill -INT $dumps) &
fi
# Probes: 20,000-byte transfers from p on new connections, Poisson with a mean gap of 5 ms.
ip netns exec r ecnsharp-flowgen flows --servers 10.99.0.1:7000 --cdf /tmp/probe.cdf \
	--load 0.0032 --rate-mbit 10000 --seconds "$(at "$DURATION" "$WARMUP")" --drain-seconds 0.5 \
	--seed 1 >"$OUT/probes.jsonl" 2>"$OUT/probes.err" &
probes=$!
# Each sender's cwnd every CWND_MS ms until the end.
end=$(awk -v t="$t0" -v d="$DURATION" 'BEGIN { printf "%.6f", t + d }')
pause=$(awk -v m="$CWND_MS" 'BEGIN { printf "%.3f", m / 1000 }')
while awk -v n="$(now)" -v e="$end" 'BEGIN { exit !(n < e) }'; do
	line=$(at "$(now)" "$t0")
	i=1
	while [ $i -le "$SENDERS" ]; do
		if [ "$SS_LOG" = 0 ]; then
			cw=$(ip netns exec "s$i" ss -Htin dst 10.200.0.1 | grep -o 'cwnd:[0-9]*' | head -n 1)
		else
			ssl=$(ip netns exec "s$i" ss -Htin dst 10.200.0.1 | tr -s ' \t\n' ' ')
			echo "$line s$i $ssl" >>"$OUT/ss.txt"
			cw=$(echo "$ssl" | grep -o 'cwnd:[0-9]*' | head -n 1)
		fi
		cw=${cw#cwnd:}
		line="$line ${cw:-0}"
		i=$((i + 1))
	done
	echo "$line" >>"$OUT/cwnd.txt"
	sleep "$pause"
done
tc -n sw -s -j qdisc show dev out >"$OUT/qdisc1.json"
# TCP's own counters at each host (ACKs sent per segment received, ECN, retransmissions).
for ns in r p $(seq -f 's%g' 1 "$SENDERS"); do
	echo "== $ns"
	ip netns exec "$ns" cat /proc/net/snmp /proc/net/netstat
	ip netns exec "$ns" ss -tin
	# The host's own egress (netem, tbf): what waited there, off the bottleneck.
	tc -n "$ns" -s qdisc show dev eth0
done >"$OUT/tcp.txt"
# Where the guest's one CPU did its network work: softirqs run on the spot or deferred to
# ksoftirqd (its schedstat: ns on CPU, ns waiting, times run), the backlog's squeezes.
{
	cat /proc/net/softnet_stat /proc/softirqs
	for p in $(pgrep ksoftirqd); do echo "ksoftirqd $p $(cat "/proc/$p/schedstat" 2>/dev/null)"; done
} >"$OUT/softirq.txt"
echo "end $(at "$(now)" "$t0")" >>"$OUT/times.txt"
for b in $bulks; do wait "$b" || fail "a bulk flow failed: $(cat "$OUT"/bulk*.jsonl)"; done
wait $probes || fail "probes: $(cat "$OUT/probes.err")"
rm -f /tmp/sampling
wait $sampler
echo "linux-guest: $NAME done"
