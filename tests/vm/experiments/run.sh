#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make experiments, inside the VM: the ECN# paper's scenarios on the routed topology of lib.sh,
# every scheme in one boot, ROUNDS interleaved rounds. Prints "R" lines (one measurement each)
# and "S" lines (queue samples) that tests/experiments.sh collects into docs/results/.
# Usage (through tests/vm/run-in-vm): run.sh [KEY=VALUE...] [SCENARIO...]
#   scenarios: rtt_variation incast rtt_variation_host flows sched (default: all, in this order)
# Knobs (KEY=VALUE arguments, the guest has no host environment): ROUNDS (3), SECS (long-flow
# run, measured, 10), OMIT (seconds before it, 3), RTT_VARIATIONS ("3 2 5"), SENSITIVITY_SCHEMES
# (3x only: ecnsharp_pst_avg ecnsharp_pst_sim), VARIATION_SCHEMES (2x and 5x: ecnsharp tcn_tail),
# HOST_SCHEMES (ecnsharp tcn_tail dctcp_red fq_codel), INCAST_SCHEMES (ecnsharp
# codel_like tcn_tail fq_codel), INCAST_FANOUTS ("8 16 24 32 48 64 96"), INCAST_QUERIES (2),
# FLOW_LOADS ("0.5 0.8"), FLOW_SECS (25), FLOW_LARGE_BYTES (1000000), FLOW_SCHEMES (ecnsharp
# tcn_tail), SCHED_SECS (15), SCHEMES (all six), RATE_MBIT (20), LIMIT (400), BASE_RTT_US (35000).
# shellcheck disable=SC2163 # each argument is NAME=VALUE: export that assignment
for a in "$@"; do
	case $a in
	*=*) export "$a" ;;
	*) SCENARIOS="$SCENARIOS $a" ;;
	esac
done
. /test/vm/experiments/lib.sh
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-10}
OMIT=${OMIT:-3}
SCENARIOS=${SCENARIOS:-rtt_variation incast rtt_variation_host flows sched}

topology || { echo "topology failed"; exit 1; }
dctcp_in_force || { echo "DCTCP with ECN (and no ECN fallback) is not in force at every end host"; exit 1; }
echo "# load: $(cat /proc/loadavg)"
# The topology's own RTT (no netem), subtracted from the netem delays.
measure_rtts
NATIVE_US=$RTT_AVG_US
echo "# native RTT (no netem): avg ${RTT_AVG_US}us p90 ${RTT_P90_US}us"
result setup - - 0 native_rtt_us "$NATIVE_US"
result setup - - 0 rate_mbit "$RATE_MBIT"
result setup - - 0 limit_pkts "$LIMIT"

# spread V: the RTT spread V, measured and tuned; prints the parameters.
spread() {
	rtt_spread "$1" || return 1
	measure_rtts
	tune || { cat /tmp/tune.out; return 1; }
	echo "# ${1}x: RTT avg ${RTT_AVG_US}us p90 ${RTT_P90_US}us -> ins_target $INS pst_target $PST pst_interval $INTERVAL K $K_BYTES bytes (pst_target sensitivity: $PST_AVG, $PST_SIM)"
	for kv in "rtt_avg_us $RTT_AVG_US" "rtt_p90_us $RTT_P90_US" "k_bytes $K_BYTES"; do
		result params "${1}x" - 0 $kv
	done
}

# ecn_sojourn NS DEV: "packets sojourn_mean_us" of an ecnsharp leaf (band 0), or nothing.
ecn_sojourn() {
	leaf "$1" "$2" | jq -r 'select(.kind == "ecnsharp") | .bands[0] | "\(.packets) \(.sojourn_mean)"'
}

# queue_stats FILE FROM_S: mean and p99 of the sampled queue, as delay at RATE (us), after FROM_S.
queue_stats() {
	awk -v from="$2" -v r="$RATE_MBIT" '$1 >= from && $2 != "" { print $2 * 8 / r }' "$1" |
		sort -n | awk '{ v[NR] = $1; s += $1 } END { if (NR) printf "%d %d %d\n", s / NR, v[int(NR * 0.99 + 0.5) > 0 ? int(NR * 0.99 + 0.5) : 1], NR }'
}

# long_flows SCENARIO VARIANT SCHEME ROUND QNS QDEV: four DCTCP long flows (one per sender
# namespace, each with its own base RTT) through the scheme for SECS seconds. The router
# topology sends from s1..s4 to rcv; the host-egress variant (QNS rcv) sends from rcv to s1..s4.
long_flows() {
	sc=$1 var=$2 scheme=$3 round=$4 qns=$5 qdev=$6
	t_run=$(uptime_ms)
	install "$qns" "$qdev" "$scheme" || { echo "# install $scheme failed"; return 1; }
	for i in 1 2 3 4; do
		if [ "$qns" = r ]; then srv=rcv cli=s$i dst=10.9.0.2; else srv=s$i cli=rcv dst=10.0.$i.1; fi
		ip netns exec $srv iperf3 -s -p 520$i -1 -D -I /tmp/iperf-s$i.pid >/dev/null 2>&1
	done
	sleep 0.3
	sampler_start "$qns" "$qdev" /tmp/queue
	CLIENTS=
	for i in 1 2 3 4; do
		if [ "$qns" = r ]; then cli=s$i dst=10.9.0.2; else cli=rcv dst=10.0.$i.1; fi
		ip netns exec $cli iperf3 -c $dst -p 520$i -t "$SECS" -O "$OMIT" -C dctcp -J >/tmp/iperf$i.json 2>&1 &
		CLIENTS="$CLIENTS $!"
	done
	sleep "$OMIT.2"
	s1=$(ecn_sojourn "$qns" "$qdev")
	wait_iperf
	s2=$(ecn_sojourn "$qns" "$qdev")
	[ -n "$s1" ] && echo "# $sc $var $scheme: ecnsharp packets and sojourn_mean_us at the window start [$s1], end [$s2]"
	sampler_stop
	total=0
	for i in 1 2 3 4; do
		b=$(jq -r '.end.sum_received.bits_per_second // 0 | floor' /tmp/iperf$i.json 2>/dev/null)
		[ -n "$b" ] || b=0
		[ "$b" = 0 ] && echo "# flow $i failed: $(head -c 300 /tmp/iperf$i.json)"
		total=$((total + b))
		result "$sc" "$var" "$scheme" "$round" "goodput_flow${i}_mbps" "$(awk "BEGIN { printf \"%.2f\", $b / 1e6 }")"
	done
	result "$sc" "$var" "$scheme" "$round" goodput_mbps "$(awk "BEGIN { printf \"%.2f\", $total / 1e6 }")"
	# shellcheck disable=SC2046 # split intended: the fields become $1, $2, ...
	set -- $(queue_stats /tmp/queue "$OMIT.5")
	result "$sc" "$var" "$scheme" "$round" qdelay_mean_us "$1"
	result "$sc" "$var" "$scheme" "$round" qdelay_p99_us "$2"
	result "$sc" "$var" "$scheme" "$round" queue_samples "$3"
	if [ -n "$s1" ] && [ -n "$s2" ]; then
		# The qdisc's own mean sojourn over the measured window (after iperf3's omitted seconds):
		# from the mean over all packets at both ends of the window.
		result "$sc" "$var" "$scheme" "$round" sojourn_mean_us "$(echo "$s1 $s2" | awk '
			{ d = $3 - $1; printf "%d", (d > 0 ? ($3 * $4 - $1 * $2) / d : $4) }')"
	fi
	# One tc and one jq for the three counters: each process costs a good part of a second under
	# TCG, and there are about 50 runs.
	# shellcheck disable=SC2046 # split intended: the fields become $1, $2, ...
	set -- $(leaf "$qns" "$qdev" | jq -r '"\(.drops) \(.late_max // "-") \(.late_wakeups // "-")"')
	result "$sc" "$var" "$scheme" "$round" drops "$1"
	late_max=${2#-} late_wakeups=${3#-}
	# How often the queue held packets: with a backlog the shaper should be sending at RATE, so
	# goodput well below busy x RATE means the guest did not run the dequeue in time (a loaded
	# host descheduling the vCPUs); ecnsharp also reports how late its shaper's timer fired.
	result "$sc" "$var" "$scheme" "$round" queue_busy_pct "$(awk -v from="$OMIT.5" '$1 >= from && $2 != "" { n++; if ($2 > 0) b++ }
		END { if (n) printf "%d", 100 * b / n }' /tmp/queue)"
	result "$sc" "$var" "$scheme" "$round" late_max_us "$late_max"
	result "$sc" "$var" "$scheme" "$round" late_wakeups "$late_wakeups"
	# The queue over time for the plots (as delay at RATE, us): round 1 only, every 100 ms.
	[ "$round" = 1 ] && awk -v sc="$sc" -v var="$var" -v s="$scheme" -v r="$RATE_MBIT" \
		'$1 >= nx { printf "S\t%s\t%s\t%s\t%.2f\t%d\n", sc, var, s, $1, $2 * 8 / r; nx = $1 + 0.1 }' /tmp/queue
	echo "# $sc $var $scheme round $round: $((total / 1000000)) Mbit/s ($(($(uptime_ms) - t_run)) ms)"
	return 0
}

# wait_iperf: the iperf3 clients started in the background (CLIENTS), then any server left behind.
wait_iperf() {
	for j in $CLIENTS; do wait "$j" 2>/dev/null; done
	for i in 1 2 3 4; do
		[ -f /tmp/iperf-s$i.pid ] && kill "$(cat /tmp/iperf-s$i.pid)" 2>/dev/null
		rm -f /tmp/iperf-s$i.pid
	done
}

scenario_rtt_variation() {
	for v in ${RTT_VARIATIONS:-3 2 5}; do
		spread "$v" || return 1
		r=1
		# 3x with every scheme and ECN# with two other pst_targets; the other spreads with ECN#
		# and the current practice (VARIATION_SCHEMES), so that the whole run stays near 30
		# minutes on 2 cores (docs/results/README.md).
		sch="$SCHEMES ${SENSITIVITY_SCHEMES-ecnsharp_pst_avg ecnsharp_pst_sim}"
		[ "$v" = 3 ] || sch=${VARIATION_SCHEMES:-ecnsharp tcn_tail}
		while [ $r -le "$ROUNDS" ]; do
			for s in $sch; do long_flows rtt_variation "${v}x" "$s" $r r out; done
			r=$((r + 1))
		done
	done
}

# The host-egress variant: the qdisc on the sending host's own egress with offloads on (TSO, GSO,
# GRO, as a server has them); the same netem spread (now on the data path, in the router).
scenario_rtt_variation_host() {
	spread 3 || return 1
	offloads on
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for s in ${HOST_SCHEMES:-ecnsharp tcn_tail dctcp_red fq_codel}; do
			long_flows rtt_variation_host 3x "$s" $r rcv eth0
		done
		r=$((r + 1))
	done
	tc -n rcv qdisc del dev eth0 root 2>/dev/null
	offloads off
}

# flowgen servers on every sender (port 7000), started once.
servers() {
	[ -n "$SERVERS_UP" ] && return 0
	for i in 1 2 3 4; do
		ip netns exec s$i ecnsharp-flowgen serve --bind 10.0.$i.1:7000 &
	done
	SERVERS_UP=1
	sleep 0.5
}
SRV=10.0.1.1:7000,10.0.2.1:7000,10.0.3.1:7000,10.0.4.1:7000

# Incast: two background long flows (the smallest and the largest RTT), then for each fanout N
# INCAST_QUERIES synchronized queries of N responses of 3-60 KB (round robin over the senders).
scenario_incast() {
	spread 3 || return 1
	servers
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for s in ${INCAST_SCHEMES:-ecnsharp codel_like tcn_tail fq_codel}; do
			install r out "$s" || return 1
			ip netns exec rcv iperf3 -s -p 5201 -D -I /tmp/bg1.pid >/dev/null 2>&1
			ip netns exec rcv iperf3 -s -p 5204 -D -I /tmp/bg4.pid >/dev/null 2>&1
			sleep 0.3
			ip netns exec s1 iperf3 -c 10.9.0.2 -p 5201 -t 600 -C dctcp >/dev/null 2>&1 &
			b1=$!
			ip netns exec s4 iperf3 -c 10.9.0.2 -p 5204 -t 600 -C dctcp >/dev/null 2>&1 &
			b4=$!
			# Past the background flows' slow start (under a second at 20 Mbit/s), whose drops would
			# count against the first N.
			sleep 5
			for n in ${INCAST_FANOUTS:-8 16 24 32 48 64 96}; do
				d0=$(leaf r out | jq -r .drops)
				t0=$(tcp_timeouts)
				ip netns exec rcv ecnsharp-flowgen incast --servers $SRV --fanout $n \
					--queries "${INCAST_QUERIES:-2}" --gap-ms 100 --seed $((r * 1000 + n)) >/tmp/incast.out ||
					echo "# incast $s N=$n failed"
				d1=$(leaf r out | jq -r .drops)
				t1=$(tcp_timeouts)
				sum=$(grep '"summary"' /tmp/incast.out)
				result incast "$n" "$s" $r drops $((d1 - d0))
				result incast "$n" "$s" $r timeouts $((t1 - t0))
				result incast "$n" "$s" $r qct_mean_us "$(echo "$sum" | jq -r .qct_mean_us)"
				result incast "$n" "$s" $r qct_max_us "$(echo "$sum" | jq -r .qct_max_us)"
			done
			kill $b1 $b4 2>/dev/null
			wait $b1 $b4 2>/dev/null
			kill "$(cat /tmp/bg1.pid)" "$(cat /tmp/bg4.pid)" 2>/dev/null
			rm -f /tmp/bg1.pid /tmp/bg4.pid
			echo "# incast $s round $r done"
		done
		r=$((r + 1))
	done
}

# Short flows among long flows: web-search sizes, Poisson arrivals at each load of the
# bottleneck, from the senders to the receiver (3x RTT spread).
scenario_flows() {
	spread 3 || return 1
	servers
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for load in ${FLOW_LOADS:-0.5 0.8}; do
			for s in ${FLOW_SCHEMES:-ecnsharp tcn_tail}; do
				install r out "$s" || return 1
				ip netns exec rcv ecnsharp-flowgen flows --servers $SRV --load "$load" \
					--rate-mbit "$RATE_MBIT" --seconds "${FLOW_SECS:-25}" --drain-seconds 15 \
					--large-bytes "${FLOW_LARGE_BYTES:-1000000}" \
					--seed $r >/tmp/flows.out || echo "# flows $s failed"
				sum=$(grep '"summary"' /tmp/flows.out)
				for k in short_mean_us short_p99_us large_mean_us fct_mean_us short_n large_n launched unfinished; do
					result flows "$load" "$s" $r $k "$(echo "$sum" | jq -r .$k)"
				done
				result flows "$load" "$s" $r drops "$(leaf r out | jq -r .drops)"
				echo "# flows load $load $s round $r: $sum"
			done
		done
		r=$((r + 1))
	done
}

# Scheduling (journal Fig. 19-20): three DWRR bands, quanta 2:1:1, by DSCP; long flows start one
# after another, a third of SCHED_SECS apart (s1 DSCP 0 -> band 0, s2 DSCP 1 -> band 1, s3 DSCP 2
# -> band 2); per-band throughput over time, and the shares once all three are active. Short
# flows (3-60 KB, the journal's probe) from s4 into the three bands at 10% load: ECN# against TCN
# (ins_target alone, the same value).
scenario_sched() {
	spread 3 || return 1
	for b in 0 1 2; do
		ip netns exec s4 ecnsharp-flowgen serve --bind 10.0.4.1:700$((b + 1)) --tos $((b * 4)) &
	done
	sleep 0.3
	T=${SCHED_SECS:-15}
	third=$((T / 3))
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for s in ecnsharp tcn_tail; do
			tc -n r qdisc del dev out root 2>/dev/null
			m="mode ecnsharp ins_target $INS pst_target $PST pst_interval $INTERVAL"
			[ $s = tcn_tail ] && m="mode tcn ins_target $INS"
			tc -n r qdisc add dev out root handle 10: ecnsharp rate "$RATE" burst "$BURST" limit "$LIMIT" \
				bands 3 sched dwrr quanta 3028,1514,1514 classify dscp $m || return 1
			for i in 1 2 3; do
				ip netns exec rcv iperf3 -s -p 520$i -1 -D -I /tmp/iperf-s$i.pid >/dev/null 2>&1
			done
			sleep 0.3
			ip netns exec rcv ecnsharp-flowgen flows --servers 10.0.4.1:7001,10.0.4.1:7002,10.0.4.1:7003 \
				--cdf /test/vm/experiments/short.cdf --load 0.1 --rate-mbit "$RATE_MBIT" --seconds "$T" \
				--drain-seconds 10 --seed $r >/tmp/flows.out &
			fl=$!
			# By the guest's clock: under a loaded host a loop iteration takes seconds, not one.
			CLIENTS=
			started=0
			b0=
			t0=$(uptime_ms)
			while :; do
				now=$(($(uptime_ms) - t0))
				if [ $started -lt 3 ] && [ $now -ge $((started * third * 1000)) ]; then
					i=$((started + 1))
					ip netns exec s$i iperf3 -c 10.9.0.2 -p 520$i -t $((T - started * third)) \
						-S $(((i - 1) * 4)) -C dctcp >/dev/null 2>&1 &
					CLIENTS="$CLIENTS $!"
					started=$i
				fi
				# The shares once all three have run for a second, until just before the end.
				if [ -z "$b0" ] && [ $now -ge $(((2 * third + 1) * 1000)) ]; then
					b0=$(leaf r out | jq -c '[.bands[].bytes]')
					u0=$(uptime_ms)
				fi
				[ $now -ge $((T * 1000 - 500)) ] && break
				[ "$r" = 1 ] && leaf r out | jq -r --arg t "$(awk "BEGIN { print $now / 1000 }")" --arg s $s \
					'"S\tsched\t3bands\t\($s)\t\($t)\t" + ([.bands[].bytes] | map(tostring) | join(","))'
				sleep 0.5
			done
			b1=$(leaf r out | jq -c '[.bands[].bytes]')
			u1=$(uptime_ms)
			wait $fl
			wait_iperf
			sum=$(grep '"summary"' /tmp/flows.out)
			result sched 3bands $s $r short_mean_us "$(echo "$sum" | jq -r .short_mean_us)"
			result sched 3bands $s $r short_p99_us "$(echo "$sum" | jq -r .short_p99_us)"
			result sched 3bands $s $r short_n "$(echo "$sum" | jq -r .short_n)"
			for b in 0 1 2; do
				# Throughput of each band while all three long flows were active.
				result sched 3bands $s $r "band${b}_mbps" "$(jq -n --argjson a "$b0" --argjson z "$b1" \
					"(\$z[$b] - \$a[$b]) * 8 / ($u1 - $u0) / 1000 | . * 100 | floor / 100")"
			done
			echo "# sched $s round $r: $sum"
		done
		r=$((r + 1))
	done
}

for sc in $SCENARIOS; do
	echo "# scenario $sc start, load: $(cat /proc/loadavg)"
	t0_sc=$(uptime_ms)
	syn0=$(syn_retrans)
	scenario_$sc || echo "# scenario $sc failed"
	# Where the run's time goes (the whole run is meant to stay near 30 minutes), and how many
	# connections had to send their SYN again (they keep ECN: see topology).
	echo "# scenario $sc took $((($(uptime_ms) - t0_sc) / 1000)) s, SYNs sent again: $(($(syn_retrans) - syn0))"
done
echo "# done, load: $(cat /proc/loadavg)"
for ns in r rcv s1 s2 s3 s4; do ip netns del $ns 2>/dev/null; done
exit 0
