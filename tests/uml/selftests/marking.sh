#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Marking and shaping against exact schedules, in virtual time (the timing-dependent checks of
# tests/vm/selftests/qdisc-marking.sh, with the bounds the qemu guest cannot hold). pktgen puts a
# burst of equal packets into an ecnsharp qdisc whose shaper drains them at a known rate; in
# virtual time the watchdog fires when asked, so each packet's sojourn is known to within the
# microseconds pktgen takes to queue the burst. Every prediction first proves itself unambiguous:
# no sojourn or departure lies nearer a threshold (a target, a histogram edge, a mark's due
# time) than that spread plus the lateness the qdisc measured; then the counts must be exact.
. "$ECNSHARP_REPO/tests/uml/selftests/lib.sh"
ktap_begin uml-marking 48

# 1 ms per 1000-byte packet: short enough in virtual time that a burst costs little host time
# (pktgen spins on its last packet until the qdisc frees it, and a spinning CPU moves UML's
# clock only as it reads it), long enough that every sojourn lies several tolerances (the
# burst's spread and the timer's lateness, about 12 us for 40 packets) from every threshold.
RATE=8000000
SIZE=1000
BURST=3000
N=40
Q=vq
# A bucket edge of the qdisc's sojourn histogram (2^21 ns, 2.097 ms): marks above it and the
# histogram's count above it measure the same thing.
EDGE=2097152
# The persistent rule's target and interval (ns): the interval is no multiple of the 1 ms
# between departures, and no decision of Algorithm 1 over a 100-packet burst, with either control
# law, lies within 100 us of its threshold. ECN#'s ins_target is a histogram edge (2^24 ns)
# where each rule marks packets the other does not.
PT=1250000
PI=4160000
INS=16777216

setup() {
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp rate ${RATE}bit burst $BURST limit 10000 "$@"
}
rebase() {
	ce0=$(rx InCEPkts); ect0=$(rx InECT0Pkts); hdr0=$(snmp_counter rcv Ip InHdrErrors)
	ce6=$(snmp6_counter rcv Ip6InCEPkts); np0=$(udp_noports)
}
rx() { netstat_counter rcv IpExt "$1"; }
udp_noports() { snmp_counter rcv Udp NoPorts; }
# burst COUNT PKTGEN-COMMAND...: pktgen's start returns once the last packet has left and been
# freed, so the queue is empty when it returns; SPREAD_US is then how much earlier than
# scheduled the last packet left (the time pktgen took to queue the burst), LATE_US the
# latest wake-up, TOL_NS their sum (+2 us of rounding): how far a measured sojourn or departure
# may lie from the schedule. A burst whose last packet was dropped keeps the previous burst's
# spread (the same traffic).
burst() {
	_bn=$1
	shift
	pg_send "$_bn" $SIZE "$@" || return 1
	[ "$(qstat $Q qlen)" = 0 ] || { echo "queue not empty: $(qstat $Q qlen)"; return 1; }
	LATE_US=$(qjson $Q | jq -r '.late_max | ceil')
	if [ "$(bstat $Q 0 drops_nonect)" = 0 ]; then
		_last=$(schedule "$_bn" $SIZE $BURST $RATE | tail -n 1)
		SPREAD_US=$(awk -v p="$_last" -v m="$(bstat $Q 0 sojourn_max)" 'BEGIN { printf "%d\n", p / 1000 - m }')
	fi
	TOL_NS=$(((SPREAD_US + LATE_US + 2) * 1000))
}
# sojourns COUNT: the schedule of this suite's bursts.
sojourns() { schedule "$1" $SIZE $BURST $RATE; }
# exact_above THRESHOLD_NS COUNT GOT: GOT is the number of scheduled sojourns above the
# threshold, and none lies within TOL_NS of it (the prediction is unambiguous).
exact_above() {
	_want=$(sojourns "$2" | above "$1")
	_near=$(sojourns "$2" | awk -v x="$1" -v t="$TOL_NS" '{ d = $1 - x; if (d < 0) d = -d; if (d <= t) c++ } END { print c + 0 }')
	echo "got $3, the schedule puts $_want above ${1}ns; $_near within ${TOL_NS}ns of it"
	[ "$_near" = 0 ] && [ "$3" = "$_want" ]
}
# timer_exact: the watchdog fired at most 2 us late, and the burst queued within 100 us.
timer_exact() {
	echo "late_max ${LATE_US}us, burst queued over ${SPREAD_US}us"
	[ "$LATE_US" -le 2 ] && [ "$SPREAD_US" -ge 0 ] && [ "$SPREAD_US" -le 100 ]
}
# hist_as_scheduled COUNT: the band's sojourn histogram is the schedule's, bucket by bucket,
# and no scheduled sojourn lies within TOL_NS of an edge.
hist_as_scheduled() {
	_m=$(sojourns "$1" | edge_margin)
	echo "nearest edge ${_m}ns from a scheduled sojourn (tolerance ${TOL_NS}ns)"
	[ "$_m" -gt "$TOL_NS" ] && same_text "$(hist_measured $Q)" "$(sojourns "$1" | hist_predicted)"
}
# hist_above NS: the packets the histogram puts at or above NS (NS a bucket edge).
hist_above() {
	ecnsharp-tc -s -j class show dev $Q | jq -r --argjson t "$1" \
		'[.[] | select(.handle == "1:1")][0].stats.band.sojourn_hist | [.[] | select(.ge_ns >= $t) | .packets] | add // 0'
}

{ pg_pair && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }

# ---- Instantaneous marking (TCN), ECT(0), IPv4, ins_target on a histogram edge.
setup mode tcn ins_target ${EDGE}ns
rebase
check "tcn: 40-packet ECT(0) burst through the shaper, drained" burst $N "tos 02"
check "the watchdog is exact: late_max <= 2us, and the burst queued within 100us" timer_exact
check "the sojourn histogram is the schedule's, bucket by bucket" hist_as_scheduled $N
check "tcn: marks are exactly the packets the schedule puts above ins_target" exact_above $EDGE $N "$(bstat $Q 0 marks)"
check "tcn: marks equal the histogram's count above ins_target" near "$(bstat $Q 0 marks)" "$(hist_above $EDGE)" 0
check "tcn: every mark counted as instantaneous" near "$(bstat $Q 0 marks_by_cause.ins)" "$(bstat $Q 0 marks)" 0
check "receiver saw CE on exactly the marked packets" near $(($(rx InCEPkts) - ce0)) "$(bstat $Q 0 marks)" 0
check "receiver saw ECT(0) on the others" near $(($(rx InECT0Pkts) - ect0)) $((N - $(bstat $Q 0 marks))) 0
check "IPv4 checksums valid after marking, every packet delivered" \
	sh -c "[ $(snmp_counter rcv Ip InHdrErrors) = $hdr0 ] && [ $(($(udp_noports) - np0)) = $N ]"
check "counters balance" qdisc_balanced $Q

# ---- The threshold to a tenth of a millisecond: packet 4 waits 2 ms; ins_target 100 us either
# side of it moves exactly that packet across.
for t in 1900 2100; do
	setup mode tcn ins_target ${t}us
	burst $N "tos 02" >/dev/null
	check "tcn: ins_target ${t}us, 100us from packet 4's sojourn: marks as scheduled" exact_above $((t * 1000)) $N "$(bstat $Q 0 marks)"
	if [ $t = 1900 ]; then m_lo=$(bstat $Q 0 marks); else m_hi=$(bstat $Q 0 marks); fi
done
check "tcn: 200us of ins_target moved exactly one mark (test has power)" near "$m_lo" $((m_hi + 1)) 0

# ---- ECT(1) and IPv6.
setup mode tcn ins_target ${EDGE}ns
rebase
check "ECT(1) burst" burst $N "tos 01"
check "ECT(1): marks as scheduled" exact_above $EDGE $N "$(bstat $Q 0 marks)"
check "ECT(1): receiver saw the CE marks" near $(($(rx InCEPkts) - ce0)) "$(bstat $Q 0 marks)" 0
setup mode tcn ins_target ${EDGE}ns
rebase
check "IPv6 ECT(0) burst" burst $N "dst6 fd01::2" "src6 fd01::1" "traffic_class 02"
check "IPv6: marks as scheduled" exact_above $EDGE $N "$(bstat $Q 0 marks)"
check "IPv6: receiver saw the CE marks" near $(($(snmp6_counter rcv Ip6InCEPkts) - ce6)) "$(bstat $Q 0 marks)" 0

# ---- Non-ECT: passed unmarked, or dropped with non_ect drop. A drop spends no tokens, so the
# packets behind the first dropped one leave at once, each already above ins_target: the drops
# are exactly the schedule's count too.
setup mode tcn ins_target ${EDGE}ns
rebase
check "non-ECT burst, policy pass" burst $N "tos 00"
check "pass: would-be marks counted as nonect_passed, as scheduled" exact_above $EDGE $N "$(bstat $Q 0 nonect_passed)"
check "pass: no marks, no drops, all delivered, none CE" \
	sh -c "[ '$(bstat $Q 0 marks)' = 0 ] && [ '$(qstat $Q drops)' = 0 ] && [ $(($(rx InCEPkts) - ce0)) = 0 ] && [ $(($(udp_noports) - np0)) = $N ]"
setup mode tcn ins_target ${EDGE}ns non_ect drop
rebase
check "non-ECT burst, policy drop" burst $N "tos 00"
check "drop: exactly the packets scheduled above ins_target dropped" exact_above $EDGE $N "$(bstat $Q 0 drops_nonect)"
check "drop: no sent packet waited beyond ins_target, the rest delivered" \
	sh -c "[ $(hist_above $EDGE) = 0 ] && [ $(($(udp_noports) - np0)) = $((N - $(bstat $Q 0 drops_nonect))) ]"

# ---- Persistent marking (Algorithm 1, kmod/src/persistent.rs) over the scheduled departures.
# Everything arrives at once, so a packet leaves at its sojourn. Prints the marks and the least
# distance (ns) of any comparison from its threshold, or with "list" each marked packet's index.
predict_pst() { # TARGET_NS INTERVAL_NS LAW(sqrt|linear) COUNT [list]
	sojourns "$4" | awk -v tgt="$1" -v iv="$2" -v law="$3" -v list="${5:-}" '
		function near(d) { if (d < 0) d = -d; if (d < mg) mg = d }
		{ soj = $1; now = soj; k = NR - 1
		  near(soj - tgt)
		  if (soj < tgt) { above = 0; det = 0 }
		  else if (!above) { above = 1; fat = now; det = 0 }
		  else { near(now - fat - iv); det = (now > fat + iv) }
		  mark = 0
		  if (state) {
			if (!det) state = 0
			else { near(now - nxt); if (now > nxt) { cnt++; nxt += (law == "sqrt" ? iv / sqrt(cnt) : int(iv / cnt)); mark = 1 } }
		  } else if (det) { state = 1; cnt = 1; nxt = now + iv; mark = 1 }
		  if (mark) { m++; if (list) print k } }
		BEGIN { mg = 1e18 } END { if (!list) printf "%d %.0f\n", m, mg }'
}
# pst_exact TARGET_NS INTERVAL_NS LAW COUNT: the persistent marks are Algorithm 1's over the
# schedule, which no comparison decides within TOL_NS.
pst_exact() {
	read -r _want _mg <<EOT
$(predict_pst "$1" "$2" "$3" "$4")
EOT
	_got=$(bstat $Q 0 marks_by_cause.pst)
	echo "persistent marks $_got, Algorithm 1 over the schedule $_want (nearest decision ${_mg}ns from its threshold, tolerance ${TOL_NS}ns)"
	[ "$_mg" -gt "$TOL_NS" ] && [ "$_got" = "$_want" ]
}
for law in sqrt linear; do
	cl=inv_sqrt
	[ $law = linear ] && cl=linear
	setup mode codel pst_target ${PT}ns pst_interval ${PI}ns control_law $cl
	check "codel-like ($cl): 100-packet burst" burst 100 "tos 02"
	check "codel-like ($cl): persistent marks exactly Algorithm 1's" pst_exact $PT $PI $law 100
	check "codel-like ($cl): no instantaneous marks" near "$(bstat $Q 0 marks_by_cause.ins)" 0 0
done
check "the two control laws differ here (test has power)" \
	sh -c "[ '$(predict_pst $PT $PI sqrt 100)' != '$(predict_pst $PT $PI linear 100)' ]"
setup mode codel pst_target ${PT}ns pst_interval 2s
check "persistent: 100-packet burst with pst_interval 2s" burst 100 "tos 02"
check "persistent: no mark within a drain shorter than pst_interval" near "$(bstat $Q 0 marks)" 0 0

# ---- ECN# = instantaneous OR persistent; ins_target on a histogram edge (2^24 ns, 16.8 ms).
setup mode ecnsharp ins_target ${INS}ns pst_target ${PT}ns pst_interval ${PI}ns
rebase
check "ecnsharp: 100-packet burst" burst 100 "tos 02"
check "ecnsharp: instantaneous marks as scheduled" exact_above $INS 100 "$(bstat $Q 0 marks_by_cause.ins)"
check "ecnsharp: persistent marks exactly Algorithm 1's" pst_exact $PT $PI sqrt 100
# The packets either rule marks, each once: the union of the two predicted sets.
union=$({ sojourns 100 | awk -v x=$INS '$1 > x { print NR - 1 }'; predict_pst $PT $PI sqrt 100 list; } | sort -un | wc -l)
diag "ecnsharp: $union packets predicted marked by either rule"
check "ecnsharp: marks are exactly the union of the two rules' packets" near "$(bstat $Q 0 marks)" "$union" 0
mi=$(bstat $Q 0 marks_by_cause.ins)
mp=$(bstat $Q 0 marks_by_cause.pst)
check "ecnsharp: both rules marked some packets, and each some the other did not (union $union, ins $mi, pst $mp)" \
	sh -c "[ $union -lt $((mi + mp)) ] && [ $union -gt $mi ] && [ $union -gt $mp ]"
check "ecnsharp: the receiver's CE count is the marks, all 100 delivered" \
	sh -c "[ $(($(rx InCEPkts) - ce0)) = $(bstat $Q 0 marks) ] && [ $(($(udp_noports) - np0)) = 100 ]"

# ---- The shaper's rate. (a) 20 Mbit/s, kept backlogged by pktgen paced at 1.5x: the bytes sent
# over a window of the kernel's own clock (the dumps' "now", us) are the rate times the window,
# within two packets.
rate_exact() { # BYTES0 NOW0_US BYTES1 NOW1_US RATE_BPS PACKETS
	awk -v b0="$1" -v t0="$2" -v b1="$3" -v t1="$4" -v r="$5" -v p="$6" 'BEGIN {
		want = r * (t1 - t0) / 8e6; got = b1 - b0; d = got - want; if (d < 0) d = -d
		# Two packets, and the dumps clock rounding (1 us) at the rate.
		tol = p * 1000 + r / 8e6
		printf "sent %d bytes in %d us: %.1f expected at the rate, off by %.1f (tolerance %.1f); %.4f%% of the window\n",
			got, t1 - t0, want, d, tol, 100 * d / want
		exit !(got > 0 && d <= tol) }'
}
tc qdisc del dev $Q root
tc qdisc add dev $Q root handle 1: ecnsharp rate 20mbit limit 1000
pg_streams 2 $SIZE "tos 02;delay 266000" &
sleep 0.5
read -r b0 t0 <<EOT
$(dump_now $Q)
EOT
sleep 1
read -r b1 t1 <<EOT
$(dump_now $Q)
EOT
d1=$(qstat $Q drops)
wait
check "shaper 20mbit: the queue stayed backlogged (limit drops)" gt "$d1" 0
check "shaper 20mbit: bytes over 1 s of the kernel's clock within two packets and 1 us of the rate" rate_exact "$b0" "$t0" "$b1" "$t1" 20000000 2
check "shaper 20mbit: counters balance after overload" qdisc_balanced $Q

# (b) 10 Gbit/s from a held queue: 30,000 packets queued behind a shaper at 8 kbit/s, then the
# rate goes to 10gbit and two dumps 10 ms apart (the queue holds 24 ms) measure it.
tc qdisc del dev $Q root
tc qdisc add dev $Q root handle 1: ecnsharp rate 8kbit burst 1514 limit 40000
pg_counted 30000 $SIZE "tos 02"
held() {
	_t=0
	until [ "$(qstat $Q qlen)" -ge 29990 ]; do
		_t=$((_t + 1))
		[ $_t -gt 100 ] && { echo "only $(qstat $Q qlen) queued"; return 1; }
		sleep 0.01
	done
}
check "shaper 10gbit: 30000 packets held behind 8kbit" held
tc qdisc change dev $Q root handle 1: ecnsharp rate 10gbit
sleep 0.002
read -r b0 t0 <<EOT
$(dump_now $Q)
EOT
sleep 0.01
read -r b1 t1 <<EOT
$(dump_now $Q)
EOT
q1=$(qstat $Q qlen)
check "shaper 10gbit: still backlogged at the window's end ($q1 queued)" gt "$q1" 0
check "shaper 10gbit: bytes over 10 ms of the kernel's clock within two packets and 1 us of the rate" rate_exact "$b0" "$t0" "$b1" "$t1" 10000000000 2
check "shaper 10gbit: the watchdog stayed exact (late_max <= 2us)" sh -c "[ $(qjson $Q | jq -r '.late_max | ceil') -le 2 ]"
pg_stop_all "$PG_PID" >/dev/null
wait_drained $Q 5
check "shaper 10gbit: drained, counters balance" qdisc_balanced $Q

pg_teardown
ktap_end
