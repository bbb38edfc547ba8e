# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The virtual-time testbed inside User-Mode Linux (sourced by job.sh): the ECN# paper's
# 7-to-1 topology at 10 Gbit/s, RTT classes, the schemes under test, and the measurements.
# docs/results/uml/README.md describes the method; params.sh holds every number.
#
#   h1..h7 (senders) --- sw (switch) ==out==> dl (delay stage) --- rcv (receiver)
#
# Sender i owns one address per RTT class c, 10.i.c.1; its eth0 is a 10 Gbit/s NIC (tbf of two
# MTUs, which also segments TSO super-packets). The switch's port "out" toward the receiver is
# the bottleneck that carries the scheme under test. The delay stage gives each packet toward
# the receiver its class's delay (a netem per class, chosen by the source address's third
# octet): on the data path after the bottleneck, so requests (and incast bursts) reach the
# senders at once and the bottleneck sees what they send as they send it. ACKs are not delayed.
# The receiver is 10.200.0.2.

TB_DIR=$ECNSHARP_REPO/tests/uml/testbed
. "$TB_DIR/params.sh"
RCV=10.200.0.2

# result METRIC VALUE: one measurement of this job, collected by the host.
result() { printf '%s\t%s\n' "$1" "$2" >>"$ECNSHARP_OUT/result.tsv"; }
fail() {
	echo "testbed: $*"
	exit 1
}

# class_rtts SPREAD: "RTT_US:PERCENT ..." of the RTT classes at that spread (3 is the paper's
# 3x; 2 and 5 stretch it as params.sh says), RTTs in us with one decimal.
class_rtts() {
	for cw in $RTT_CLASSES; do
		echo "${cw%%:*} ${cw##*:}"
	done | awk -v v="$1" -v m="$RTT_MIN_US" '{ printf "%.1f:%s ", m + ($1 - m) * (v - 1) / 2, $2 }'
}

# topology SPREAD: namespaces, addresses, routes, NICs and the delay stage.
topology() {
	echo "reno cubic dctcp" >/proc/sys/net/ipv4/tcp_allowed_congestion_control
	for ns in sw dl rcv; do ip netns add $ns || return 1; done
	ip link add out netns sw type veth peer name in netns dl || return 1
	ip link add out netns dl type veth peer name eth0 netns rcv || return 1
	ip -n sw addr add 10.100.0.1/24 dev out
	ip -n dl addr add 10.100.0.2/24 dev in
	ip -n dl addr add 10.200.0.1/24 dev out
	ip -n rcv addr add $RCV/24 dev eth0
	for ns in sw dl rcv; do ip -n $ns link set lo up; done
	ip -n sw link set out up
	ip -n dl link set in up
	ip -n dl link set out up
	ip -n rcv link set eth0 up
	ip -n sw route add 10.200.0.0/24 via 10.100.0.2
	ip -n dl route add default via 10.100.0.1
	ip -n rcv route add default via 10.200.0.1
	CLASSES=$(class_rtts "$1")
	NCLASS=$(echo $CLASSES | wc -w)
	i=1
	while [ $i -le "$SENDERS" ]; do
		ip netns add h$i || return 1
		ip link add p$i netns sw type veth peer name eth0 netns h$i || return 1
		ip -n sw addr add 10.$i.0.254/16 dev p$i
		ip -n sw link set p$i up
		ip -n h$i link set lo up
		c=1
		while [ $c -le "$NCLASS" ]; do
			ip -n h$i addr add 10.$i.$c.1/16 dev eth0
			c=$((c + 1))
		done
		ip -n h$i link set eth0 up
		ip -n h$i route add default via 10.$i.0.254
		tc -n h$i qdisc add dev eth0 root tbf rate "$RATE" burst "$NIC_BURST" latency 1ms || return 1
		i=$((i + 1))
	done
	for ns in sw dl; do ip netns exec $ns sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward'; done
	for ns in rcv $(senders); do
		ip netns exec $ns sh -c "echo $CC >/proc/sys/net/ipv4/tcp_congestion_control &&
			echo 1 >/proc/sys/net/ipv4/tcp_ecn && echo 0 >/proc/sys/net/ipv4/tcp_ecn_fallback" ||
			return 1
	done
	delay_stage || return 1
}

senders() {
	i=1
	while [ $i -le "$SENDERS" ]; do
		printf 'h%s ' $i
		i=$((i + 1))
	done
}

# delay_stage: dl's port toward the receiver: a prio band per class, each a netem of the class's
# RTT less the base serializations; the class is the third octet of the source address.
delay_stage() {
	tc -n dl qdisc add dev out root handle 1: prio bands "$NCLASS" \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 || return 1
	c=1
	for cw in $CLASSES; do
		d=$(awk -v r="${cw%%:*}" -v b="$BASE_SERIALIZATION_NS" 'BEGIN { printf "%.3fus", r - b / 1000 }')
		tc -n dl qdisc add dev out parent 1:$c handle $((c + 10)): netem delay "$d" limit 100000 ||
			return 1
		tc -n dl filter add dev out parent 1: protocol ip prio 1 u32 \
			match u32 "$(printf '0x0000%02x00' $c)" 0x0000ff00 at 12 flowid 1:$c || return 1
		c=$((c + 1))
	done
}

# dctcp_in_force: every end host runs DCTCP with ECN and no ECN fallback.
dctcp_in_force() {
	for ns in rcv $(senders); do
		[ "$(ip netns exec $ns cat /proc/sys/net/ipv4/tcp_congestion_control)" = "$CC" ] || return 1
		[ "$(ip netns exec $ns cat /proc/sys/net/ipv4/tcp_ecn)" = 1 ] || return 1
		[ "$(ip netns exec $ns cat /proc/sys/net/ipv4/tcp_ecn_fallback)" = 0 ] || return 1
	done
}

# install SCHEME [INS PST INTERVAL K_TAIL K_AVG]: the scheme on sw's port "out" at RATE; the
# values override the paper's 3x ones (the rule at other spreads). ecnsharp's modes shape themselves; Linux's
# qdiscs sit under a tbf of the same rate and bucket. The qdisc holding the queue is 10:.
install() {
	ins=${2:-$ECNSHARP_INS_US} pst=${3:-$ECNSHARP_PST_US} iv=${4:-$ECNSHARP_INTERVAL_US}
	k=${5:-$RED_TAIL_K_BYTES} kavg=${6:-$RED_AVG_K_BYTES}
	e="ecnsharp rate $RATE burst $BOTTLENECK_BURST limit $LIMIT_PKTS"
	q="tc -n sw qdisc add dev out"
	case $1 in
	ecnsharp) $q root handle 10: $e mode ecnsharp ins_target ${ins}us pst_target ${pst}us \
		pst_interval ${iv}us ;;
	red_tail) $q root handle 10: $e mode red k "$k" k_unit bytes ;;
	red_avg) $q root handle 10: $e mode red k "$kavg" k_unit bytes ;;
	# DCTCP-RED at a K given by the point (K_BYTES): the threshold sweep of Figure 2.
	red_k) $q root handle 10: $e mode red k "${K_BYTES:?}" k_unit bytes ;;
	tcn_tail) $q root handle 10: $e mode tcn ins_target ${TCN_TAIL_US}us ;;
	tcn_avg) $q root handle 10: $e mode tcn ins_target ${TCN_AVG_US}us ;;
	# TCN at the paper's stated 150 us (Figure 13b's setting; SCENARIO=sched_probe).
	tcn150) $q root handle 10: $e mode tcn ins_target ${TCN_PAPER_US}us ;;
	codel) $q root handle 10: $e mode codel pst_target ${CODEL_TARGET_US}us \
		pst_interval ${CODEL_INTERVAL_US}us ;;
	linux_*)
		# tbf's own limit does not matter once the child is in place (the child's does).
		$q root handle 1: tbf rate "$RATE" burst "$BOTTLENECK_BURST" latency 1ms || return 1
		q="$q parent 1:1 handle 10:"
		case $1 in
		linux_codel) $q codel limit "$LIMIT_PKTS" target ${LINUX_CODEL_TARGET_US}us \
			interval ${LINUX_CODEL_INTERVAL_US}us ecn ;;
		linux_fq_codel) $q fq_codel limit "$LIMIT_PKTS" target ${LINUX_CODEL_TARGET_US}us \
			interval ${LINUX_CODEL_INTERVAL_US}us ce_threshold ${LINUX_FQ_CODEL_CE_US}us ecn ;;
		linux_red) $q red limit "$LIMIT_BYTES" min "$LINUX_RED_MIN_BYTES" max "$LINUX_RED_MAX_BYTES" \
			avpkt 1000 burst 251 probability 1.0 bandwidth "$RATE" ecn ;;
		linux_pie) $q pie limit "$LIMIT_PKTS" target ${LINUX_PIE_TARGET_US}us \
			tupdate ${LINUX_PIE_TUPDATE_US}us ecn ;;
		*) fail "unknown scheme $1" ;;
		esac
		;;
	*) fail "unknown scheme $1" ;;
	esac
}

# servers: a flowgen server on every sender (port 7000, every address).
servers() {
	for ns in $(senders); do
		ip netns exec $ns ecnsharp-flowgen serve --bind 0.0.0.0:7000 &
	done
	for ns in $(senders); do
		n=0
		until ip netns exec $ns ss -Hltn 'sport = :7000' | grep -q .; do
			n=$((n + 1))
			[ $n -lt 100 ] || fail "the server on $ns does not listen"
			sleep 0.01
		done
	done
}

# targets FILE: every (sender, class) address with the class's weight spread over the senders.
targets() {
	: >"$1"
	c=1
	for cw in $CLASSES; do
		for i in $(seq 1 "$SENDERS"); do
			echo "${cw##*:} 10.$i.$c.1:7000" >>"$1"
		done
		c=$((c + 1))
	done
}

# leaf: the JSON stats of the qdisc holding the queue (handle 10:).
leaf() { tc -n sw -s -j qdisc show dev out | jq -c '[.[] | select(.handle == "10:")][0]'; }

# tcp_counters: TcpExt counters summed over the end hosts, as "name value" lines.
tcp_counters() {
	for ns in rcv $(senders); do
		ip netns exec $ns cat /proc/net/netstat
	done | awk '/^TcpExt:/ { if (!h) { for (i = 2; i <= NF; i++) n[i] = $i; h = 1; next }
		for (i = 2; i <= NF; i++) s[n[i]] += $i; h = 0 }
		END { for (k in s) print k, s[k] }'
}

# sampler_start FILE MEAN_US / sampler_stop: the bottleneck's root backlog at Poisson times of
# that mean spacing (the same instrument for every scheme: tbf's backlog counts its child's
# queue).
sampler_start() {
	touch /tmp/sampling
	ip netns exec sw ecnsharp-flowgen sample --dev out --interval-us "$2" \
		--seed "$ECNSHARP_SEED" --stop /tmp/sampling >"$1" &
	SAMPLER=$!
}
sampler_stop() {
	rm -f /tmp/sampling
	wait $SAMPLER
}
