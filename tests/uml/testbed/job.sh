#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One point of the virtual-time testbed, run inside User-Mode Linux by run-in-uml (one boot per
# point, so points are independent and each is deterministic for its seed):
#   job.sh SCENARIO=flows SCHEME=S WORKLOAD=websearch|datamining LOAD=L [SHORT_FLOWS=N]
#          [SPREAD=V] [K_BYTES=K (SCHEME=red_k)] [LIMIT_PKTS=N LIMIT_BYTES=B]
#   job.sh SCENARIO=long SCHEME=S SPREAD=2|3|5
#   job.sh SCENARIO=incast SCHEME=S FANOUT=N
#   job.sh SCENARIO=sched SCHEME=ecnsharp|tcn_tail (three DWRR bands; SCHEME picks the marking)
#   job.sh SCENARIO=sched_probe SCHEME=ecnsharp|tcn_tail|tcn150 (sched plus short probe flows)
# SPREAD (default 3) is the RTT spread; the seed is the boot's (--seed). Writes into
# $ECNSHARP_OUT: result.tsv ("metric value" lines), flows.jsonl, bulk.jsonl or queries.jsonl,
# queue.txt (samples), bands.txt (sched), qdisc.txt/qdisc.json, tcp.txt (TcpExt counters).
# shellcheck disable=SC2163 # each argument is NAME=VALUE: export that assignment
for a in "$@"; do
	case $a in
	*=*) export "$a" ;;
	*) echo "job.sh: unexpected argument $a"; exit 2 ;;
	esac
done
. "$ECNSHARP_REPO/tests/uml/testbed/lib.sh"
# Arguments win over params.sh (make check's short points shorten the runs).
# shellcheck disable=SC2163 # each argument is NAME=VALUE: export that assignment
for a in "$@"; do export "$a"; done
SPREAD=${SPREAD:-3}
: "${SCENARIO:?}" "${SCHEME:?}"
SEED=$ECNSHARP_SEED
: >"$ECNSHARP_OUT/result.tsv"

topology "$SPREAD" || fail "topology"
dctcp_in_force || fail "DCTCP with ECN (and no ECN fallback) is not in force at every end host"
result rtt_classes "$(echo $CLASSES)"

# Parameters: the paper's 3x values, or the lambda-1 rule on this spread's distribution.
if [ "$SPREAD" = 3 ]; then
	install "$SCHEME" || fail "install $SCHEME"
else
	# shellcheck disable=SC2046 # split intended: the two numbers become $1 $2
	set -- $(echo $CLASSES | tr ' ' '\n' | awk -F: '{ r[NR] = $1; w[NR] = $2; s += $1 * $2; t += $2 }
		END { c = 0; for (i = 1; i <= NR; i++) { c += w[i]; if (c / t >= 0.9) { p = r[i]; break } }
		printf "%d %d\n", p + 0.5, s / t + 0.5 }')
	result rule_p90_us "$1"
	result rule_mean_us "$2"
	install "$SCHEME" "$1" "$2" "$1" "$(($1 * 1250))" "$(($2 * 1250))" || fail "install $SCHEME"
fi
tc -n sw qdisc show dev out >"$ECNSHARP_OUT/qdisc.txt"
servers
targets /tmp/targets
tcp_counters >/tmp/tcp0

# finish: the counters every scenario reports.
finish() {
	tcp_counters >/tmp/tcp1
	awk 'NR == FNR { a[$1] = $2; next } { print $1, $2 - a[$1] }' /tmp/tcp0 /tmp/tcp1 |
		sort >"$ECNSHARP_OUT/tcp.txt"
	for k in TCPTimeouts TCPSynRetrans TCPLossProbes TCPRetransFail; do
		result "$k" "$(awk -v k=$k '$1 == k { print $2 }' "$ECNSHARP_OUT/tcp.txt")"
	done
	result retransmits "$(for ns in $(senders); do ip netns exec $ns cat /proc/net/snmp; done |
		awk '/^Tcp:/ { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1; next }
			s += $c; h = 0 } END { print s }')"
	leaf >"$ECNSHARP_OUT/qdisc.json"
	# Marks as each qdisc counts them: ecnsharp's marks (and by cause, and its own sojourn
	# mean), codel's and pie's ecn_mark, fq_codel's ecn_mark plus ce_mark, red's marked.
	jq -r '"drops \(.drops)\npackets \(.packets)\nbytes \(.bytes)\nmarks \(.marks //
		((.ecn_mark // 0) + (.ce_mark // 0) + (.marked // 0)))",
		(.bands // [] | .[0] // {} | (.marks_by_cause // {} | to_entries[] | "marks_\(.key) \(.value)"),
		 (if .sojourn_mean then "sojourn_mean_us \(.sojourn_mean)" else empty end))' \
		"$ECNSHARP_OUT/qdisc.json" | while read -r k v; do result "$k" "$v"; done
	result virtual_s "$(cut -d' ' -f1 /proc/uptime)"
}

# queue_summary FILE FROM: mean, p50, p99 of the sampled backlog as delay at RATE (us), after
# FROM seconds, and the sample count.
queue_summary() {
	awk -v from="$2" -v r="$RATE_BPS" '$1 >= from { print $2 * 8e6 / r }' "$1" | sort -n |
		awk '{ v[NR] = $1; s += $1 } END { if (NR) printf "%.2f %.2f %.2f %d\n", s / NR,
			v[int(NR * 0.5 + 0.999)], v[int(NR * 0.99 + 0.999)], NR; else print "- - - 0" }'
}

case $SCENARIO in
flows)
	: "${WORKLOAD:?}" "${LOAD:?}"
	cdf=$ECNSHARP_REPO/ns3/workloads/$([ "$WORKLOAD" = websearch ] && echo web-search || echo data-mining).cdf
	[ -f "$cdf" ] || fail "no CDF $cdf"
	sampler_start /tmp/queue "$FLOWS_SAMPLE_US"
	t0=$(cut -d' ' -f1 /proc/uptime)
	ip netns exec rcv ecnsharp-flowgen flows --targets /tmp/targets --cdf "$cdf" --load "$LOAD" \
		--rate-mbit $((RATE_BPS / 1000000)) --short-flows "${SHORT_FLOWS:-$SHORT_FLOWS_PER_SEED}" \
		--drain-seconds "$FLOW_DRAIN_S" --large-bytes "$LARGE_BYTES" --seed "$SEED" \
		--lowat 1048576 >"$ECNSHARP_OUT/flows.jsonl" 2>/tmp/flows.err ||
		{ cat /tmp/flows.err; fail "flowgen flows"; }
	sampler_stop
	cp /tmp/flows.err "$ECNSHARP_OUT/flows.err"
	result flows_virtual_s "$(awk -v t="$t0" '{ print $1 - t }' /proc/uptime)"
	grep '"summary"' "$ECNSHARP_OUT/flows.jsonl" | jq -r 'to_entries[] | select(.key != "summary") |
		"\(.key) \(.value)"' | while read -r k v; do result "flows_$k" "$v"; done
	# shellcheck disable=SC2046 # split intended: the summary's fields become $1, $2, ...
	set -- $(queue_summary /tmp/queue 0)
	result qdelay_mean_us "$1"
	result qdelay_p50_us "$2"
	result qdelay_p99_us "$3"
	result queue_samples "$4"
	;;
long)
	# One long flow per RTT class, from sender c for class c.
	srv=
	c=1
	for cw in $CLASSES; do
		srv="$srv,10.$c.$c.1:7000"
		c=$((c + 1))
	done
	sampler_start /tmp/queue "$SAMPLE_US"
	ip netns exec rcv ecnsharp-flowgen bulk --servers "${srv#,}" --seconds "$LONG_SECS" \
		--omit "$LONG_OMIT" --lowat 1048576 >/tmp/bulk.out 2>&1 || { cat /tmp/bulk.out; fail "bulk"; }
	sampler_stop
	cp /tmp/bulk.out "$ECNSHARP_OUT/bulk.jsonl"
	c=1
	for g in $(jq -r 'select(.to) | .goodput_mbps' /tmp/bulk.out); do
		result "goodput_class${c}_mbps" "$g"
		c=$((c + 1))
	done
	result goodput_mbps "$(jq -r 'select(.summary) | .goodput_mbps' /tmp/bulk.out)"
	# The queue over the measured window only (the flows' slow start is omitted).
	# shellcheck disable=SC2046 # split intended: the summary's fields become $1, $2, ...
	set -- $(queue_summary /tmp/queue "$LONG_OMIT")
	result qdelay_mean_us "$1"
	result qdelay_p50_us "$2"
	result qdelay_p99_us "$3"
	result queue_samples "$4"
	awk -v r="$RATE_BPS" '{ printf "%s %.2f\n", $1, $2 * 8e6 / r }' /tmp/queue >"$ECNSHARP_OUT/queue.txt"
	;;
incast)
	: "${FANOUT:?}"
	# Two background long flows (the shortest and the longest RTT class), past slow start, then
	# the queries; the counters are read around the queries only.
	dur=$(awk -v q="$INCAST_QUERIES" -v w="$INCAST_WARMUP_S" 'BEGIN { print w + q * 0.05 + 2 }')
	ip netns exec rcv ecnsharp-flowgen bulk --servers "10.1.1.1:7000,10.$SENDERS.$NCLASS.1:7000" \
		--seconds "$dur" --lowat 1048576 >/tmp/bulk.out 2>&1 &
	bg=$!
	sleep "$INCAST_WARMUP_S"
	d0=$(leaf | jq -r .drops)
	tcp_counters >/tmp/tcp_i0
	ip netns exec rcv ecnsharp-flowgen incast --targets /tmp/targets --fanout "$FANOUT" \
		--queries "$INCAST_QUERIES" --gap-ms 50 --min "$INCAST_MIN_BYTES" --max "$INCAST_MAX_BYTES" \
		--seed "$SEED" --lowat 1048576 --timeout-s 10 >"$ECNSHARP_OUT/queries.jsonl" 2>/tmp/incast.err ||
		{ cat /tmp/incast.err; echo "incast: some responses failed"; }
	tcp_counters >/tmp/tcp_i1
	d1=$(leaf | jq -r .drops)
	result incast_drops $((d1 - d0))
	result incast_timeouts "$(awk 'NR == FNR { a[$1] = $2; next } $1 == "TCPTimeouts" { print $2 - a[$1] }' /tmp/tcp_i0 /tmp/tcp_i1)"
	grep '"summary"' "$ECNSHARP_OUT/queries.jsonl" | jq -r 'to_entries[] | select(.key != "summary") |
		"\(.key) \(.value)"' | while read -r k v; do result "incast_$k" "$v"; done
	wait $bg
	;;
sched | sched_probe)
	# Three DWRR bands 2:1:1 by DSCP, one long flow each (from h1, h2, h3 with DSCP 0, 1, 2),
	# starting SCHED_STAGGER_S apart and ending together; per-band bytes sampled every 10 ms.
	# sched_probe adds short probe flows (params.sh): servers on h4..h7, one port per band
	# (720B with DSCP B), and Poisson arrivals from SCHED_STAGGER_S after the third flow starts.
	tc -n sw qdisc del dev out root
	m="mode ecnsharp ins_target ${ECNSHARP_INS_US}us pst_target ${ECNSHARP_PST_US}us pst_interval ${ECNSHARP_INTERVAL_US}us"
	[ "$SCHEME" = tcn_tail ] && m="mode tcn ins_target ${TCN_TAIL_US}us"
	[ "$SCHEME" = tcn150 ] && [ "$SCENARIO" = sched_probe ] && m="mode tcn ins_target ${TCN_PAPER_US}us"
	[ "$SCHEME" = ecnsharp ] || [ "$SCHEME" = tcn_tail ] ||
		{ [ "$SCHEME" = tcn150 ] && [ "$SCENARIO" = sched_probe ]; } ||
		fail "sched runs ecnsharp or tcn_tail (sched_probe also tcn150)"
	tc -n sw qdisc add dev out root handle 10: ecnsharp rate "$RATE" burst "$BOTTLENECK_BURST" \
		limit "$LIMIT_PKTS" bands 3 sched dwrr quanta 3028,1514,1514 classify dscp $m ||
		fail "install sched"
	tc -n sw qdisc show dev out >"$ECNSHARP_OUT/qdisc.txt"
	for b in 0 1 2; do
		ip netns exec h$((b + 1)) ecnsharp-flowgen serve --bind 0.0.0.0:710$b --tos $((b * 4)) &
	done
	if [ "$SCENARIO" = sched_probe ]; then
		# Probe targets: every (sender h4..h7, RTT class, band) with the class's weight, so a
		# probe's class follows the workloads' distribution and its sender and band are uniform.
		: >/tmp/probe_targets
		c=1
		for cw in $CLASSES; do
			for i in $(seq 4 "$SENDERS"); do
				for b in 0 1 2; do echo "${cw##*:} 10.$i.$c.1:720$b" >>/tmp/probe_targets; done
			done
			c=$((c + 1))
		done
		printf '%s 0\n%s 1\n' "$SCHED_PROBE_MIN_BYTES" "$SCHED_PROBE_MAX_BYTES" >/tmp/probe.cdf
		for i in $(seq 4 "$SENDERS"); do
			for b in 0 1 2; do
				ip netns exec h$i ecnsharp-flowgen serve --bind 0.0.0.0:720$b --tos $((b * 4)) &
			done
		done
	fi
	sleep 0.05
	for b in 0 1 2; do
		ip netns exec rcv ecnsharp-flowgen bulk --servers "10.$((b + 1)).1.1:710$b" \
			--seconds "$(awk -v t="$SCHED_SECS" -v s="$SCHED_STAGGER_S" -v b=$b 'BEGIN { print t - b * s }')" \
			--lowat 1048576 >/tmp/sched$b.out 2>&1 &
		pids="${pids:-} $!"
		[ $b = 2 ] || sleep "$SCHED_STAGGER_S"
	done
	t0=$(awk '{ print $1 }' /proc/uptime)
	if [ "$SCENARIO" = sched_probe ]; then
		(
			sleep "$SCHED_STAGGER_S"
			ip netns exec rcv ecnsharp-flowgen flows --targets /tmp/probe_targets --cdf /tmp/probe.cdf \
				--load "$SCHED_PROBE_LOAD" --rate-mbit $((RATE_BPS / 1000000)) \
				--short-flows "$SCHED_PROBES_PER_SEED" --drain-seconds "$FLOW_DRAIN_S" \
				--large-bytes "$LARGE_BYTES" --seed "$SEED" --lowat 1048576 \
				>"$ECNSHARP_OUT/flows.jsonl" 2>/tmp/flows.err || { cat /tmp/flows.err; echo "flowgen probes failed"; }
			touch /tmp/probes.done
		) &
		probes=$!
		# Amendment 6: the probe window's queues (params.sh). From the probes' start until the
		# last probe ends, every SCHED_PROBE_SAMPLE_S each band's qlen (packets) and backlog
		# (bytes) into bandq.txt ("ns q0 b0 q1 b1 q2 b2"); the qdisc's stats and the probe
		# senders' (h4..h7) TcpExt counters at the window's two ends (pw0.json/pw1.json,
		# pwtcp0/pwtcp1) give each band's marks by cause and the probes' CE-echoed packets over it.
		(
			sleep "$SCHED_STAGGER_S"
			leaf >"$ECNSHARP_OUT/pw0.json"
			for i in $(seq 4 "$SENDERS"); do ip netns exec h$i cat /proc/net/netstat; done >/tmp/pwtcp0
			: >"$ECNSHARP_OUT/bandq.txt"
			k=0
			while [ ! -f /tmp/probes.done ] && [ $k -lt "$SCHED_PROBE_SAMPLES_MAX" ]; do
				echo "$(date +%s%N) $(leaf | jq -r '[.bands[] | .qlen, .backlog] | map(tostring) | join(" ")')" \
					>>"$ECNSHARP_OUT/bandq.txt"
				sleep "$SCHED_PROBE_SAMPLE_S"
				k=$((k + 1))
			done
			leaf >"$ECNSHARP_OUT/pw1.json"
			for i in $(seq 4 "$SENDERS"); do ip netns exec h$i cat /proc/net/netstat; done >/tmp/pwtcp1
		) &
		pwsampler=$!
	fi
	# From the third flow's start: every 10 ms the bands' bytes, until the flows end.
	: >"$ECNSHARP_OUT/bands.txt"
	n=0
	# shellcheck disable=SC2046 # awk prints one integer
	while [ $n -lt $(awk -v t="$SCHED_SECS" -v s="$SCHED_STAGGER_S" 'BEGIN { print int((t - 2 * s) * 100) - 2 }') ]; do
		echo "$(date +%s%N) $(leaf | jq -r '[.bands[].bytes] | map(tostring) | join(" ")')" >>"$ECNSHARP_OUT/bands.txt"
		sleep 0.01
		n=$((n + 1))
	done
	for p in $pids; do wait "$p"; done
	# Shares once all three run, after a settling SCHED_STAGGER_S: bytes per band over the window.
	awk -v s="$SCHED_STAGGER_S" 'NR == 1 { t0 = $1 } ($1 - t0) / 1e9 >= s && !a { a = 1; ta = $1;
		b0 = $2; b1 = $3; b2 = $4 } { tz = $1; z0 = $2; z1 = $3; z2 = $4 }
		END { d = (tz - ta) / 1e9; printf "band0_mbps %.1f\nband1_mbps %.1f\nband2_mbps %.1f\n",
			(z0 - b0) * 8 / d / 1e6, (z1 - b1) * 8 / d / 1e6, (z2 - b2) * 8 / d / 1e6 }' \
		"$ECNSHARP_OUT/bands.txt" | while read -r k v; do result "$k" "$v"; done
	cat /tmp/sched0.out /tmp/sched1.out /tmp/sched2.out >"$ECNSHARP_OUT/bulk.jsonl"
	if [ "$SCENARIO" = sched_probe ]; then
		wait "$probes"
		wait "$pwsampler"
		cp /tmp/flows.err "$ECNSHARP_OUT/flows.err"
		grep '"summary"' "$ECNSHARP_OUT/flows.jsonl" | jq -r 'to_entries[] | select(.key != "summary") |
			"\(.key) \(.value)"' | while read -r k v; do result "probes_$k" "$v"; done
		# Each band's marks by cause and its packets' mean sojourn (the qdisc's own, over the run).
		leaf | jq -r '.bands[] | "band\(.band)_marks \(.marks)", "band\(.band)_sojourn_mean_us \(.sojourn_mean)",
			(.band as $b | .marks_by_cause // {} | to_entries[] | "band\($b)_marks_\(.key) \(.value)")' |
			while read -r k v; do result "$k" "$v"; done
		# Amendment 6, over the probe window only: each band's marks by cause and packets sent
		# (pw1 - pw0), the window's length, its samples, and the probe senders' delivered and
		# CE-echoed packets (TcpExt TCPDelivered, TCPDeliveredCE summed over h4..h7).
		jq -n -r --slurpfile a "$ECNSHARP_OUT/pw0.json" --slurpfile z "$ECNSHARP_OUT/pw1.json" \
			'($a[0].bands | map({(.band | tostring): .}) | add) as $x | $z[0].bands[] | .band as $b |
			"pw_band\($b)_packets \(.packets - $x[$b | tostring].packets)",
			"pw_band\($b)_marks \(.marks - $x[$b | tostring].marks)",
			(.marks_by_cause // {} | to_entries[] |
				"pw_band\($b)_marks_\(.key) \(.value - $x[$b | tostring].marks_by_cause[.key])")' |
			while read -r k v; do result "$k" "$v"; done
		result pw_samples "$(wc -l <"$ECNSHARP_OUT/bandq.txt")"
		result pw_ms "$(jq -n --slurpfile a "$ECNSHARP_OUT/pw0.json" --slurpfile z "$ECNSHARP_OUT/pw1.json" \
			'($z[0].now - $a[0].now) / 1000')"
		for f in 0 1; do
			awk '/^TcpExt:/ { if (!h) { for (i = 2; i <= NF; i++) n[i] = $i; h = 1; next }
				for (i = 2; i <= NF; i++) s[n[i]] += $i; h = 0 }
				END { print s["TCPDelivered"] + 0, s["TCPDeliveredCE"] + 0 }' /tmp/pwtcp$f
		done | awk 'NR == 1 { d = $1; c = $2 } NR == 2 { print "pw_probe_delivered", $1 - d;
			print "pw_probe_delivered_ce", $2 - c }' | while read -r k v; do result "$k" "$v"; done
	fi
	;;
*) fail "unknown scenario $SCENARIO" ;;
esac
finish
echo "job done: $SCENARIO $SCHEME seed $SEED"
