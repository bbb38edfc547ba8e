#!/bin/sh
# One point of the virtual-time testbed, run inside User-Mode Linux by run-in-uml (one boot per
# point, so points are independent and each is deterministic for its seed):
#   job.sh SCENARIO=flows SCHEME=S WORKLOAD=websearch|datamining LOAD=L [SHORT_FLOWS=N]
#   job.sh SCENARIO=long SCHEME=S SPREAD=2|3|5
#   job.sh SCENARIO=incast SCHEME=S FANOUT=N
#   job.sh SCENARIO=sched SCHEME=ecnsharp|tcn_tail
# SPREAD (default 3) is the RTT spread; the seed is the boot's (--seed). Writes into
# $ECNSHARP_OUT: result.tsv ("metric value" lines), flows.jsonl or queries.jsonl, queue.txt
# (samples), qdisc.json, tcp.txt (TcpExt counters), and timing.txt.
for a in "$@"; do
	case $a in
	*=*) export "$a" ;;
	*) echo "job.sh: unexpected argument $a"; exit 2 ;;
	esac
done
. "$ECNSHARP_REPO/tests/uml/testbed/lib.sh"
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
	set -- $(echo $CLASSES | tr ' ' '\n' | awk -F: '{ r[NR] = $1; w[NR] = $2; s += $1 * $2; t += $2 }
		END { c = 0; for (i = 1; i <= NR; i++) { c += w[i]; if (c / t >= 0.9) { p = r[i]; break } }
		printf "%d %d\n", p + 0.5, s / t + 0.5 }')
	result rule_p90_us "$1"
	result rule_mean_us "$2"
	install "$SCHEME" "$1" "$2" "$1" "$(($1 * 1250))" || fail "install $SCHEME"
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
	jq -r '"drops \(.drops)\npackets \(.packets)\nbytes \(.bytes)\nmarks \(.marks // .ecn_mark // .ce_mark // "-")"' \
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
	result flows_virtual_s "$(awk -v t="$t0" '{ print $1 - t }' /proc/uptime)"
	grep '"summary"' "$ECNSHARP_OUT/flows.jsonl" | jq -r 'to_entries[] | select(.key != "summary") |
		"\(.key) \(.value)"' | while read -r k v; do result "flows_$k" "$v"; done
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
	set -- $(queue_summary /tmp/queue "$LONG_OMIT")
	result qdelay_mean_us "$1"
	result qdelay_p50_us "$2"
	result qdelay_p99_us "$3"
	result queue_samples "$4"
	awk -v r="$RATE_BPS" '{ printf "%s %.2f\n", $1, $2 * 8e6 / r }' /tmp/queue >"$ECNSHARP_OUT/queue.txt"
	;;
*) fail "unknown scenario $SCENARIO" ;;
esac
finish
echo "job done: $SCENARIO $SCHEME seed $SEED"
