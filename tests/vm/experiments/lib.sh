# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Guest-side library of `make experiments` (sourced by tests/vm/experiments/run.sh inside the
# bench VM): the routed topology, the schemes under one shaper, RTT scaling and tuning, and the
# result lines the host collects. See docs/results/README.md for the method.
. /test/vm/guest/lib.sh

# Bottleneck and buffer, the same for every scheme. RATE_MBIT is the paper's 10 Gbit/s divided by
# 500 and every time is multiplied by 500 (70-210 us -> 35-105 ms), so bytes in flight,
# thresholds in bytes and queue lengths in packets are the paper's. (At 100 and 50 Mbit/s the TCG
# guest fell to 9-48 Mbit/s of goodput while other VMs loaded the host: the guest's CPU, not the
# qdisc, was the bottleneck.)
RATE_MBIT=${RATE_MBIT:-20}
RATE=${RATE_MBIT}mbit
LIMIT=${LIMIT:-400}
BURST=${BURST:-15140}
BASE_RTT_US=${BASE_RTT_US:-35000}
NSENDERS=4
SCHEMES=${SCHEMES:-ecnsharp tcn_tail tcn_avg codel_like dctcp_red fq_codel}

# result SCENARIO VARIANT SCHEME ROUND METRIC VALUE: one measurement, collected by the host.
result() { printf 'R\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@"; }

# topology: namespaces s1..s4 (senders) -- r (router) -- rcv (receiver). Sender i is 10.0.i.1 on
# its eth0, the router's port toward it is "si" (10.0.i.2); the router's egress toward the
# receiver is "out" (10.9.0.1), the receiver 10.9.0.2 on eth0. The qdisc under test goes on
# r/out. Offloads are off on every data path device, so the bottleneck sees MTU-sized packets,
# as a switch port does.
topology() {
	for ns in r rcv s1 s2 s3 s4; do ip netns del $ns 2>/dev/null; done
	echo "reno cubic dctcp" >/proc/sys/net/ipv4/tcp_allowed_congestion_control
	ip netns add r && ip netns add rcv || return 1
	ip link add out netns r type veth peer name eth0 netns rcv || return 1
	ip -n r addr add 10.9.0.1/24 dev out
	ip -n rcv addr add 10.9.0.2/24 dev eth0
	ip -n r link set lo up
	ip -n r link set out up
	ip -n rcv link set lo up
	ip -n rcv link set eth0 up
	ip -n rcv route add default via 10.9.0.1
	i=1
	while [ $i -le $NSENDERS ]; do
		ip netns add s$i || return 1
		ip link add s$i netns r type veth peer name eth0 netns s$i || return 1
		ip -n s$i addr add 10.0.$i.1/24 dev eth0
		ip -n r addr add 10.0.$i.2/24 dev s$i
		ip -n s$i link set lo up
		ip -n s$i link set eth0 up
		ip -n r link set s$i up
		ip -n s$i route add default via 10.0.$i.2
		i=$((i + 1))
	done
	ip netns exec r sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward'
	# tcp_ecn_fallback 0: a SYN sent again (its first lost at a full bottleneck in another flow's
	# slow start) keeps asking for ECN. With the default 1 such a connection runs without ECN,
	# so DCTCP falls back to Reno and fills the buffer: one 5x run saw a flow take 18 of 20
	# Mbit/s and ECN#'s queue stand at 175 ms.
	for ns in rcv s1 s2 s3 s4; do
		ip netns exec $ns sh -c 'echo dctcp >/proc/sys/net/ipv4/tcp_congestion_control &&
			echo 1 >/proc/sys/net/ipv4/tcp_ecn && echo 0 >/proc/sys/net/ipv4/tcp_ecn_fallback' ||
			return 1
	done
	offloads off
}

# offloads on|off: TSO/GSO/GRO on the data path (senders' and receiver's eth0, router ports).
offloads() {
	for ns in rcv s1 s2 s3 s4; do
		ip netns exec $ns ethtool -K eth0 tso "$1" gso "$1" gro "$1" >/dev/null 2>&1
	done
	for d in out s1 s2 s3 s4; do
		ip netns exec r ethtool -K $d tso "$1" gso "$1" gro "$1" >/dev/null 2>&1
	done
}

# dctcp_in_force: every end host runs DCTCP with ECN (the init namespace must allow it first).
dctcp_in_force() {
	grep -qw dctcp /proc/sys/net/ipv4/tcp_allowed_congestion_control || return 1
	for ns in rcv s1 s2 s3 s4; do
		[ "$(ip netns exec $ns cat /proc/sys/net/ipv4/tcp_congestion_control)" = dctcp ] || return 1
		[ "$(ip netns exec $ns cat /proc/sys/net/ipv4/tcp_ecn)" = 1 ] || return 1
		[ "$(ip netns exec $ns cat /proc/sys/net/ipv4/tcp_ecn_fallback)" = 0 ] || return 1
	done
}

# syn_retrans: SYNs sent again at every end host (TcpExt TCPSynRetrans), summed.
syn_retrans() {
	_s=0
	for ns in rcv s1 s2 s3 s4; do
		_s=$((_s + $(netstat_counter $ns TcpExt TCPSynRetrans)))
	done
	echo $_s
}

# rtt_spread V: base RTTs from BASE_RTT_US to V x that over the four senders, long-tailed as
# the paper's Figure 1 (multipliers 1, 1+0.1(V-1), 1+0.3(V-1), V). netem sits on the router's
# port toward each sender, delaying that sender's ACKs: at the sender's own egress, TCP Small
# Queues would cap each flow at about 1 ms of data inside netem and the flows could not fill the
# bottleneck. The delay added is the target RTT less the topology's own (measured by NATIVE_US).
rtt_spread() {
	v=$1
	i=1
	for m in 1 "1 + 0.1 * ($v - 1)" "1 + 0.3 * ($v - 1)" "$v"; do
		d=$(awk "BEGIN { d = $BASE_RTT_US * ($m) - ${NATIVE_US:-0}; print ((d < 0) ? 0 : int(d)) }")
		tc -n r qdisc replace dev s$i root netem delay ${d}us limit 100000 || return 1
		i=$((i + 1))
	done
}

# measure_rtts DEV: ping every sender from the receiver (idle path), pooled; sets RTT_AVG_US and
# RTT_P90_US, as docs/tuning.md measures base RTTs.
measure_rtts() {
	: >/tmp/rtts
	for i in 1 2 3 4; do
		ip netns exec rcv ping -c 12 -i 0.05 10.0.$i.1 | awk -F'time=' '/time=/ { print $2 * 1000 }' |
			tail -n 10 >>/tmp/rtts
	done
	# shellcheck disable=SC2046 # split intended: the fields become $1, $2, ...
	set -- $(sort -n /tmp/rtts | awk '{ v[NR] = $1; s += $1 }
		END { printf "%d %d\n", s / NR, v[int(NR * 0.9 + 0.5)] }')
	RTT_AVG_US=$1
	RTT_P90_US=$2
}

# tune: ECN#'s parameters for the measured RTTs, from ecnsharp-tc tune (docs/tuning.md, "Keeping
# the current practice's threshold"). ins_target, pst_interval and K from lambda 1, the current
# practice's high threshold (the paper's testbed: 250 KB, 200 us at the p90 RTT), so ECN# and
# TCN-Tail mark instantaneously at the very same sojourn; pst_target from the lambda of the
# transport the hosts run, DCTCP's 0.17, the lower bound of section 3.4 (offloads are off, so
# there is no GSO oscillation to stay above). Sets INS, PST, INTERVAL (times with units),
# K_BYTES, AVG (the mean RTT, TCN-Avg's threshold), PST_AVG (lambda 1 x the mean RTT, the
# testbed's pst_target) and PST_SIM (the paper's simulations' 10 us, scaled like every time).
tune() {
	ecnsharp-tc tune --rate "$RATE" --rtt-avg "${RTT_AVG_US}us" --rtt-p90 "${RTT_P90_US}us" \
		--lambda 1 --dev out >/tmp/tune.out || return 1
	line=$(grep '^tc qdisc replace' /tmp/tune.out)
	INS=$(echo "$line" | sed -n 's/.*ins_target \([^ ]*\).*/\1/p')
	PST_AVG=$(echo "$line" | sed -n 's/.*pst_target \([^ ]*\).*/\1/p')
	INTERVAL=$(echo "$line" | sed -n 's/.*pst_interval \([^ ]*\).*/\1/p')
	K_BYTES=$(sed -n 's/.*= \([0-9]*\) bytes.*/\1/p' /tmp/tune.out)
	ecnsharp-tc tune --rate "$RATE" --rtt-avg "${RTT_AVG_US}us" --rtt-p90 "${RTT_P90_US}us" \
		--transport dctcp --dev out >>/tmp/tune.out || return 1
	PST=$(grep '^tc qdisc replace' /tmp/tune.out | tail -n 1 | sed -n 's/.*pst_target \([^ ]*\).*/\1/p')
	AVG=${RTT_AVG_US}us
	PST_SIM=$((10 * 10000 / RATE_MBIT))us
	[ -n "$INS" ] && [ -n "$PST" ] && [ -n "$PST_AVG" ] && [ -n "$INTERVAL" ] && [ -n "$K_BYTES" ]
}

# install NS DEV SCHEME: the scheme as the root of DEV, shaped to RATE with a BURST-byte bucket.
# ecnsharp shapes itself; the Linux qdiscs sit under tbf (same rate and bucket), handle 10:.
install() {
	_ns=$1
	_dev=$2
	tc -n "$_ns" qdisc del dev "$_dev" root 2>/dev/null
	_e="ecnsharp rate $RATE burst $BURST limit $LIMIT"
	case $3 in
	ecnsharp) tc -n "$_ns" qdisc add dev "$_dev" root handle 10: $_e mode ecnsharp ins_target "$INS" \
		pst_target "$PST" pst_interval "$INTERVAL" ;;
	tcn_tail) tc -n "$_ns" qdisc add dev "$_dev" root handle 10: $_e mode tcn ins_target "$INS" ;;
	# Sensitivity of ECN# to pst_target (3x only): the testbed's lambda-1 value and the
	# simulations' 10 us.
	ecnsharp_pst_avg | ecnsharp_pst_sim)
		_p=$PST_AVG
		[ "$3" = ecnsharp_pst_sim ] && _p=$PST_SIM
		tc -n "$_ns" qdisc add dev "$_dev" root handle 10: $_e mode ecnsharp ins_target "$INS" \
			pst_target "$_p" pst_interval "$INTERVAL" ;;
	tcn_avg) tc -n "$_ns" qdisc add dev "$_dev" root handle 10: $_e mode tcn ins_target "$AVG" ;;
	codel_like) tc -n "$_ns" qdisc add dev "$_dev" root handle 10: $_e mode codel pst_target "$PST" \
		pst_interval "$INTERVAL" ;;
	dctcp_red | fq_codel)
		tc -n "$_ns" qdisc add dev "$_dev" root handle 1: tbf rate "$RATE" burst "$BURST" limit 100000 ||
			return 1
		if [ "$3" = dctcp_red ]; then
			# DCTCP-RED: one threshold K (min = max), mark instead of drop. tc derives RED's
			# averaging weight from burst / avpkt and needs burst >= min / avpkt; avpkt = K with
			# burst 1 gives Wlog 1 (avg = avg/2 + queue/2 at each arrival), which follows the
			# instantaneous queue within a packet or two, as DCTCP's marking needs.
			tc -n "$_ns" qdisc add dev "$_dev" parent 1:1 handle 10: red limit $((LIMIT * 1514)) \
				min "$K_BYTES" max "$K_BYTES" avpkt "$K_BYTES" burst 1 probability 1.0 \
				bandwidth "$RATE" ecn
		else
			tc -n "$_ns" qdisc add dev "$_dev" parent 1:1 handle 10: fq_codel limit "$LIMIT" \
				target "$PST" interval "$INTERVAL" ce_threshold "$INS" ecn
		fi
		;;
	*) echo "unknown scheme $3" >&2; return 1 ;;
	esac
}

# leaf NS DEV: the JSON stats of the qdisc that holds the queue (handle 10:).
leaf() { tc -n "$1" -s -j qdisc show dev "$2" | jq -c '[.[] | select(.handle == "10:")][0]'; }

# sampler_start NS DEV FILE: "seconds backlog_bytes qlen drops" of DEV's root qdisc (tbf counts
# its child's queue) every SAMPLE_MS (20) ms into FILE, until sampler_stop (ecnsharp-flowgen
# sample reads it over rtnetlink; a tc process per sample takes ~300 ms under TCG).
sampler_start() {
	touch /tmp/sampling
	ip netns exec "$1" ecnsharp-flowgen sample --dev "$2" --interval-ms "${SAMPLE_MS:-20}" \
		--stop /tmp/sampling >"$3" &
	SAMPLER=$!
}
sampler_stop() {
	rm -f /tmp/sampling
	wait $SAMPLER 2>/dev/null
}

# tcp_timeouts: RTO expiries summed over the senders.
tcp_timeouts() {
	_s=0
	for ns in s1 s2 s3 s4; do
		_s=$((_s + $(netstat_counter $ns TcpExt TCPTimeouts)))
	done
	echo $_s
}
