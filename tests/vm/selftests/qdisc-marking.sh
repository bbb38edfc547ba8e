#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Marking on real packets. pktgen puts a burst of N equal packets into an ecnsharp qdisc whose
# shaper drains them at a known rate, so each packet's sojourn is known in advance: packet k
# (from 0) leaves when the bucket (BURST bytes, full at the start) plus the tokens earned since
# cover k+1 packets, i.e. sojourn(k) = max(0, ((k+1)*SIZE - BURST) * 8 / RATE). Each mode's marks
# are predicted from that schedule and checked against the qdisc's counters and the receiver's
# (CE seen, checksums valid), within one packet for threshold rules.
. /test/vm/guest/lib.sh
ktap_begin qdisc-marking 57

RATE=1000000 # bit/s: 8 ms per 1000-byte packet, slow enough that TCG timer jitter is noise
SIZE=1000
BURST=3000
N=40
Q=vq

# setup OPTIONS: a fresh qdisc (replace on an existing ecnsharp would be a change, keeping counters).
setup() {
	SETUP_ARGS="$*"
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp rate ${RATE}bit burst $BURST limit 10000 "$@"
}
# rebase: the receiver's counters before a burst, which the checks after it subtract.
rebase() {
	ce0=$(rx InCEPkts); ect0=$(rx InECT0Pkts); hdr0=$(snmp_counter rcv Ip InHdrErrors)
	ce6=$(snmp6_counter rcv Ip6InCEPkts); np0=$(udp_noports)
}
# burst COUNT PKTGEN-COMMANDS...: send a burst, wait for the queue to drain. The predictions
# hold while the shaper's watchdog fires within its 100 ms of credit; when the guest stalled
# longer (TCG on a busy host, seen once in many runs at 690 ms), the schedule was not the one
# predicted, so the burst is measured again, once, on a fresh qdisc set up as before, after the
# first burst's packets have arrived (rebase). A second stall is left for the checks to report;
# the suite's last lines list the stalls (check hides a passing command's output).
burst() {
	# _bn, not _n: wait_drained counts in _n (shell variables are global).
	_bn=$1
	shift
	pg_send "$_bn" $SIZE "$@" && wait_drained $Q 30 || return 1
	SPREAD=$(pg_spread_us)
	_l=$(late_us)
	[ "${_l:-0}" -le 100000 ] || [ -z "${SETUP_ARGS:-}" ] && return 0
	RETRIES="${RETRIES:-}${_l}us "
	sleep 1
	# shellcheck disable=SC2086 # words, as setup was given them
	setup $SETUP_ARGS
	rebase
	pg_send "$_bn" $SIZE "$@" && wait_drained $Q 30 && SPREAD=$(pg_spread_us)
}
# sojourns COUNT: the predicted sojourn of each packet, in microseconds, one per line.
sojourns() {
	awk -v n="$1" -v s=$SIZE -v b=$BURST -v r=$RATE 'BEGIN {
		for (k = 0; k < n; k++) { t = ((k + 1) * s - b) * 8 / r * 1e6; print (t > 0 ? t : 0) } }'
}
# above US COUNT: how many of COUNT packets have a predicted sojourn strictly above US.
above() { sojourns "$2" | awk -v x="$1" '$1 > x { c++ } END { print c + 0 }'; }
rx() { netstat_counter rcv IpExt "$1"; }
# A loaded host fires the shaper's watchdog late (12-24 ms seen; the qdisc measures it: late_max,
# per qdisc, and every burst gets a fresh one). The shaper credits that lateness back
# (TokenBucket::consume, up to 100 ms), so the schedule does not slip: every departure is on time
# or at most late_max late, and a late departure only lengthens a sojourn. Bounds on sojourn
# rules therefore widen on the late side only, by late_max, and stay tight when it is small.
# The schedule also assumes the whole burst was queued at once: a guest stalled while pktgen
# queued it (seen in make check with ns-3 and UML running beside the guest: the last packets 16 ms
# late) queues the later packets late, which shortens their sojourns by at most SPREAD, the time
# pktgen took for the burst (pg_spread_us). Lower bounds from the schedule widen by SPREAD.
late_us() { qstat $Q late_max | awk '{ printf "%d\n", $1 }'; }
# hist_bounds US: from band 0's sojourn histogram (the qdisc's own record of every sent
# packet's sojourn), how many sent packets certainly waited more than US (their bucket lies
# above it) and how many may have (their bucket reaches above it): "LO HI".
hist_bounds() {
	ecnsharp-tc -s -j class show dev $Q | jq -r --argjson t "$(($1 * 1000))" '
		[.[] | select(.handle == "1:1")][0].stats.band.sojourn_hist as $h |
		"\([$h[] | select(.ge_ns > $t) | .packets] | add // 0) \([$h[] | select((.lt_ns // 1e18) > $t) | .packets] | add // 0)"'
}
# ins_near GOT TARGET_US COUNT [STRAYS]: GOT (instantaneous marks, or what stands for them: passed
# non-ECT packets) agrees with the sojourns the qdisc measured: at least the packets whose
# sojourn bucket lies above TARGET_US, at most those whose bucket reaches above it. And at least
# the on-time schedule's count (less 1) for a threshold SPREAD higher: a late departure only
# lengthens a sojourn, a late enqueue shortens it by at most SPREAD. Both bounds hold whatever the guest's timer did.
# STRAYS (for ECT marks): the non-ECT packets a rule passed unmarked (nonect_passed), which the
# histogram counts as well: a stray packet of the kernel's own (ARP/ND to the peer) queued with
# the burst (seen in CI with a kernel building beside the guest: 34 marks, 36 sojourns certainly
# above). They count toward the histogram's lower bound only.
ins_near() {
	_lo=$(above $(($2 + ${SPREAD:-0})) "$3")
	_st=${4:-0}
	read -r _hlo _hhi <<EOT
$(hist_bounds "$2")
EOT
	[ -n "$1" ] && [ "$1" -ge $((_lo - 1)) ] && [ $(($1 + _st)) -ge "${_hlo:-999999}" ] && [ "$1" -le "${_hhi:--1}" ] ||
		{ echo "got $1 (and $_st non-ECT passed); the histogram says $_hlo..$_hhi above ${2}us, the on-time schedule $_lo ($(late_us)us late at most, queued over ${SPREAD:-0}us)"; return 1; }
}
udp_noports() { snmp_counter rcv Udp NoPorts; }

pg_pair || { ktap_not_ok "test network"; ktap_end; exit 1; }

# ---- Instantaneous marking (TCN) on ECT(0), IPv4: marks start within one packet of the
# predicted sojourn crossing ins_target, CE reaches the receiver with valid checksums.
setup mode tcn ins_target 20ms
rebase
check "ECT(0) burst through the shaper" burst $N "tos 02"
want=$(above 20000 $N)
diag "predicted instantaneous marks: $want of $N"
await_count $((np0 + N)) udp_noports
check "tcn: marks within one packet of the prediction (and the timer's lateness)" ins_near "$(bstat $Q 0 marks)" 20000 $N "$(bstat $Q 0 nonect_passed)"
check "tcn: every mark counted as instantaneous" near "$(bstat $Q 0 marks_by_cause.ins)" "$(bstat $Q 0 marks)" 0
check "receiver saw CE on exactly the marked packets" near $(($(rx InCEPkts) - ce0)) "$(bstat $Q 0 marks)" 0
check "receiver saw ECT(0) on the others" near $(($(rx InECT0Pkts) - ect0)) $((N - $(bstat $Q 0 marks))) 0
check "IPv4 checksums valid after marking (no header errors)" near "$(snmp_counter rcv Ip InHdrErrors)" "$hdr0" 0
check "every packet delivered to UDP" near $(($(udp_noports) - np0)) $N 0
soj_pred=$(sojourns $N | tail -n 1 | cut -d. -f1)
soj_max=$(bstat $Q 0 sojourn_max | awk '{ printf "%d\n", $1 }')
late=$(late_us)
check "sojourn_max matches the schedule (within 2 packet times, and the timer's lateness ${late}us)" \
	sh -c "[ ${soj_max:-0} -ge $((soj_pred - 16000 - ${SPREAD:-0})) ] && [ ${soj_max:-0} -le $((soj_pred + 16000 + ${late:-0})) ]"
check "counters balance" qdisc_balanced $Q

# ---- ECT(1) is marked as well.
setup mode tcn ins_target 20ms
rebase
check "ECT(1) burst" burst $N "tos 01"
check "ECT(1): marked like ECT(0)" ins_near "$(bstat $Q 0 marks)" 20000 $N "$(bstat $Q 0 nonect_passed)"
check "ECT(1): receiver saw the CE marks" near $(($(rx InCEPkts) - ce0)) "$(bstat $Q 0 marks)" 0

# ---- IPv6.
setup mode tcn ins_target 20ms
rebase
check "IPv6 ECT(0) burst" burst $N "dst6 fd01::2" "src6 fd01::1" "traffic_class 02"
check "IPv6: marks within one packet (and the timer's lateness)" ins_near "$(bstat $Q 0 marks)" 20000 $N "$(bstat $Q 0 nonect_passed)"
check "IPv6: receiver saw the CE marks" near $(($(snmp6_counter rcv Ip6InCEPkts) - ce6)) "$(bstat $Q 0 marks)" 0

# ---- Non-ECT: passed unmarked by default, dropped with non_ect drop.
setup mode tcn ins_target 20ms
rebase
check "non-ECT burst, policy pass" burst $N "tos 00"
# Each read compared as read: in shell arithmetic jq's null (no such qdisc or field) would be 0.
check "pass: no marks, no drops" sh -c "[ '$(bstat $Q 0 marks)' = 0 ] && [ '$(qstat $Q drops)' = 0 ]"
check "pass: would-be marks counted as nonect_passed" ins_near "$(bstat $Q 0 nonect_passed)" 20000 $N
await_count $((np0 + N)) udp_noports
check "pass: all delivered, none CE" near $(($(udp_noports) - np0 + $(rx InCEPkts) - ce0)) $N 0
setup mode tcn ins_target 20ms non_ect drop
rebase
check "non-ECT burst, policy drop" burst $N "tos 00"
# Dropped packets leave no sojourn in the histogram: every packet sent waited at most ins_target
# (no bucket above it), and at least the schedule's count was dropped.
drops_as_measured() {
	_d=$(bstat $Q 0 drops_nonect)
	read -r _hlo _hhi <<EOT
$(hist_bounds 20000)
EOT
	[ "$_hlo" = 0 ] && [ "$_d" -ge $(($(above $((20000 + ${SPREAD:-0})) $N) - 1)) ] && [ "$_d" -lt $N ] ||
		{ echo "dropped $_d; sent above 20ms: $_hlo..$_hhi"; return 1; }
}
check "drop: would-be marks dropped and counted" drops_as_measured
await_count $((np0 + N - $(bstat $Q 0 drops_nonect))) udp_noports
check "drop: the rest delivered" near $(($(udp_noports) - np0)) $((N - $(bstat $Q 0 drops_nonect))) 0
check "drop: counters balance" qdisc_balanced $Q

# ---- A packet that arrives CE stays CE and is not counted as our mark.
setup mode tcn ins_target 20ms
check "CE burst" burst $N "tos 03"
check "CE arrivals counted apart, never as marks" sh -c "[ $(bstat $Q 0 ce_already) = $N ] && [ $(bstat $Q 0 marks) = 0 ]"

# ---- Persistent marking (Algorithm 1) alone: its marks follow the control law. The prediction
# runs Algorithm 1 over the predicted departures (f64, the paper's pseudo-code).
# LATE_US (optional, may be negative): added to every sojourn, for the bounds under timer lateness.
predict_pst() { # TARGET_US INTERVAL_US LAW(sqrt|linear) COUNT [LATE_US]
	sojourns "$4" | awk -v tgt="$1" -v iv="$2" -v law="$3" -v late="${5:-0}" '
		{ soj = $1 + late
		  now = soj # all arrive at ~0, so a packet leaves at its sojourn
		  if (soj < tgt) { fat = -1; det = 0 }
		  else if (fat < 0) { fat = now; det = 0 }
		  else det = (now > fat + iv)
		  if (state) {
			if (!det) state = 0
			else if (now > nxt) { cnt++; nxt += (law == "sqrt" ? iv / root(cnt) : iv / cnt); m++ }
		  } else if (det) { state = 1; cnt = 1; nxt = now + iv; m++ } }
		function root(x,  r, i) { r = x; for (i = 0; i < 40; i++) r = (r + x / r) / 2; return r }
		BEGIN { fat = -1 } END { print m + 0 }'
}
# pst_as_predicted TARGET_US INTERVAL_US LAW COUNT: the qdisc's persistent marks lie, within 1,
# between the prediction with every sojourn shortened and lengthened by the latest watchdog
# wake-up the qdisc measured in this burst. Late departures lengthen sojourns; on a loaded host
# the guest's vCPU is also descheduled while pktgen queues the burst, so later packets arrive
# late and wait less (a check run under load saw 80 marks against 83 predicted on time, with
# the watchdog 16 ms late). The lateness stands in for both; on a guest whose timers fire on
# time the bounds meet. The exact check, with the burst's spread and lateness measured apart,
# runs in virtual time (tests/uml/selftests/marking.sh).
pst_as_predicted() {
	_got=$(bstat $Q 0 marks_by_cause.pst)
	_late=$(qstat $Q late_max | awk '{ printf "%d", $1 }')
	_lo=$(predict_pst "$1" "$2" "$3" "$4" "-${_late:-0}")
	_hi=$(predict_pst "$1" "$2" "$3" "$4" "${_late:-0}")
	echo "persistent marks $_got, predicted $_lo to $_hi with sojourns ${_late}us shorter or longer"
	# Past the shaper's 100 ms of credit the schedule slipped (burst retried once already), and
	# bounds that wide would take any count, 0 too.
	[ "${_late:-0}" -le 100000 ] || { echo "the watchdog woke ${_late}us late: no prediction holds"; return 1; }
	[ "$_got" -ge $((_lo - 1)) ] && [ "$_got" -le $((_hi + 1)) ]
}
for law in sqrt linear; do
	cl=inv_sqrt
	[ $law = linear ] && cl=linear
	setup mode codel pst_target 10ms pst_interval 40ms control_law $cl
	check "codel-like ($cl): 100-packet burst" burst 100 "tos 02"
	want=$(predict_pst 10000 40000 $law 100)
	diag "predicted persistent marks ($cl): $want"
	check "codel-like ($cl): persistent marks follow Algorithm 1 (within 1, and the timer's lateness)" pst_as_predicted 10000 40000 $law 100
	check "codel-like ($cl): no instantaneous marks" near "$(bstat $Q 0 marks_by_cause.ins)" 0 0
done
check "the two control laws differ here (test has power)" sh -c "[ $(predict_pst 10000 40000 sqrt 100) != $(predict_pst 10000 40000 linear 100) ]"
setup mode codel pst_target 10ms pst_interval 2s
check "persistent: no mark before pst_interval has passed" burst 100 "tos 02"
check "persistent: none within a drain shorter than pst_interval" near "$(bstat $Q 0 marks)" 0 0

# ---- ECN# = instantaneous OR persistent.
setup mode ecnsharp ins_target 200ms pst_target 10ms pst_interval 40ms
rebase
check "ecnsharp: 100-packet burst" burst 100 "tos 02"
# shellcheck disable=SC2034 # unused: ins_near makes its own prediction
ins=$(above 200000 100)
await_count $((np0 + 100)) udp_noports
check "ecnsharp: all 100 delivered" near $(($(udp_noports) - np0)) 100 0
check "ecnsharp: instantaneous marks as predicted (and the timer's lateness)" ins_near "$(bstat $Q 0 marks_by_cause.ins)" 200000 100 "$(bstat $Q 0 nonect_passed)"
check "ecnsharp: persistent marks as predicted" pst_as_predicted 10000 40000 sqrt 100
# Late in the burst both rules fire on the same packets (the causes add up to more than the
# marks), and the receiver's CE count, which sees each packet once, equals the marks.
check "ecnsharp: both rules fired on some packets" sh -c "[ $(($(bstat $Q 0 marks_by_cause.ins) + $(bstat $Q 0 marks_by_cause.pst))) -gt $(bstat $Q 0 marks) ]"
check "ecnsharp: a packet is marked once even when both rules fire (receiver's CE = marks)" near $(($(rx InCEPkts) - ce0)) "$(bstat $Q 0 marks)" 0

# ---- Queue-length rules, with the queue built before anything leaves: on 9000-byte MTUs a
# 9000-byte not-ECT plug leaves at once and puts the bucket (1514 bytes, the least, at
# 8 kbit/s) 7.5 KB in debt, 8.5 s before the next packet may leave; the N test packets (sent within a fraction of a
# millisecond) then all wait, and a change to 1 Mbit/s releases them. So arrival k (from 0)
# finds exactly k packets queued, and the N leave one by one from queues of N down to 1: exact
# counts, no tolerance for timing (an earlier version let the bucket's first packets go as they
# came, and one of them left a longer queue once: 29 marks for 28).
# The kernel may queue a stray packet of its own meanwhile (an ARP or ND probe to vr, seen once in
# CI: 32 dequeue marks for 31): not ECT, so never marked itself, but it lengthens the queue by one
# for the test packets around it, which moves one of them across K. So strays are measured (what
# the band took in beyond the plug and the N) and each may add one mark, no more.
# The plug's debt holds the burst 7.5 s; a guest slowed by a busy host (seen in a cold make
# check, kernels building beside it) once took longer than that to set up the N packets' stream,
# and the first of them left before the release. That is a failed set-up, not a wrong count: the
# set-up is made again (3 tries) with a fresh qdisc, and the counts are checked only on a burst
# that was held.
# held_burst OPTIONS: a fresh qdisc holding N ECT(0) packets behind the plug, then released;
# sets HELD_STRAYS.
held_burst() {
	HELD_STRAYS=0
	for _try in 1 2 3; do
		held_burst_once "$@"
		_rc=$?
		[ $_rc -eq 2 ] || return $_rc
		HELD_RETRIES="${HELD_RETRIES:-}${HELD_RETRIES:+, }$1 $2 try $_try"
		# The held packets first, so that pktgen's writer (waiting for its last skb) can stop.
		tc qdisc del dev $Q root 2>/dev/null
		pg_stop_all $PG_PID >/dev/null
		ip link set $Q mtu 1500 && ip -n rcv link set vr mtu 1500
	done
	echo "the burst was not held in 3 tries"
	return 1
}
# held_burst_once OPTIONS: one try; returns 2 when more than the plug left before the release
# (a test packet went out on the credit of a slow set-up), 1 on any other failure.
held_burst_once() {
	ip link set $Q mtu 9000 && ip -n rcv link set vr mtu 9000 || return 1
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp rate 8kbit burst 1514 limit 10000 "$@" || return 1
	pg_send 1 9000 "tos 00" || return 1
	pg_counted $N $SIZE "tos 02" || return 1
	_t=0
	until [ "$(bstat $Q 0 enqueued)" -ge $((N + 1)) ]; do
		_t=$((_t + 1))
		[ $_t -gt 600 ] && { echo "only $(bstat $Q 0 enqueued) of $((N + 1)) arrived"; return 1; }
		sleep 0.1
	done
	_left=$(bstat $Q 0 packets)
	[ "$_left" = 1 ] || {
		echo "$_left left before the release, not the plug alone"
		[ "$_left" -gt 1 ] 2>/dev/null && return 2
		return 1
	}
	tc qdisc change dev $Q root handle 1: ecnsharp rate ${RATE}bit || return 1
	wait_drained $Q 30 || return 1
	HELD_STRAYS=$(($(bstat $Q 0 enqueued) - N - 1))
	[ "$HELD_STRAYS" -eq 0 ] || diag "$HELD_STRAYS stray packet(s) queued with the burst"
	pg_stop_all $PG_PID >/dev/null
	ip link set $Q mtu 1500 && ip -n rcv link set vr mtu 1500 || return 1
	return 0
}
# DCTCP-RED: queue length > K at enqueue (before the arriving packet).
check "red: burst held behind a plug, then released" held_burst mode red k 10
check "red: packets arriving to more than K queued are marked" \
	between "$(bstat $Q 0 marks_by_cause.red)" $((N - 10 - 1)) $((N - 10 - 1 + ${HELD_STRAYS:-0}))
# Dequeue marking: queue length (with the leaving packet) >= K when it leaves.
check "dequeue: burst held behind a plug, then released" held_burst mode dequeue k 10
check "dequeue: packets leaving a queue of K or more are marked" \
	between "$(bstat $Q 0 marks_by_cause.deq)" $((N - 10 + 1)) $((N - 10 + 1 + ${HELD_STRAYS:-0}))
[ -z "${HELD_RETRIES:-}" ] || diag "bursts set up again (not held the first time): $HELD_RETRIES"

# ---- Probabilistic: linear from 0 at tmin to pmax at tmax; the expected count and its spread
# come from the predicted sojourns.
setup mode prob tmin 20ms tmax 200ms pmax 100% seed 7
check "prob: burst" burst 60 "tos 02"
# The expectation from the sojourns the qdisc measured (its histogram), at each bucket's lower
# and upper edge: the marks are a sum of independent draws whose probabilities lie between
# those, so they stay within 4 standard deviations (+1) of that range however late the timer.
read -r mlo mhi sd hn <<EOT
$(ecnsharp-tc -s -j class show dev $Q | jq -r '[.[] | select(.handle == "1:1")][0].stats.band.sojourn_hist[] |
	"\(.ge_ns) \(.lt_ns // .ge_ns) \(.packets)"' | awk '
	function p(ns) { us = ns / 1000; return (us < 20000) ? 0 : (us > 200000 ? 1 : (us - 20000) / 180000) }
	function root(x,  r, i) { if (x <= 0) return 0; r = x; for (i = 0; i < 40; i++) r = (r + x / r) / 2; return r }
	{ lo += $3 * p($1); hi += $3 * p($2)
	  # The largest variance p(1 - p) over the bucket: at the p nearest one half.
	  pl = p($1); ph = p($2); q = (pl <= 0.5 && ph >= 0.5) ? 0.5 : (ph < 0.5 ? ph : pl); v += $3 * q * (1 - q) }
	{ n += $3 }
	END { printf "%d %d %d %d\n", lo, hi + 0.999, root(v) + 0.999, n }')
EOT
diag "probabilistic: expected between $mlo and $mhi marks (+- $sd) from the measured sojourns"
# Without the histogram (a failed dump, a renamed field) the range below would be -1..1, which
# a mode that never marks passes: the expectation must rest on the burst, some of it past tmin.
prob_expectation_rests_on_burst() {
	# At least: a stray ARP or neighbour packet may have joined the band (its sojourn is in the
	# histogram, and so in the expectation).
	[ "${hn:-0}" -ge 60 ] && [ "${mhi:-0}" -gt 0 ] ||
		{ echo "histogram holds ${hn:-no} packets, at most ${mhi:-no} marks expected"; return 1; }
}
check "prob: the class's sojourn histogram holds the burst's 60 packets, some past tmin" \
	prob_expectation_rests_on_burst
check "prob: marks within 4 standard deviations (+1) of the expectation" \
	between "$(bstat $Q 0 marks_by_cause.prob)" $((mlo - 4 * sd - 1)) $((mhi + 4 * sd + 1))

# ---- The limit: pktgen keeps offering packets until COUNT are accepted, so every refusal it
# counts as an error must be a drop the qdisc counted, and only the accepted ones arrive. The
# kernel may offer a stray packet of its own meanwhile (an ARP or ND answer to vr), which a full
# queue refuses too: a matchall filter on the egress hook, before the qdisc, counts everything
# offered, so strays are measured rather than allowed for.
tc qdisc del dev $Q root
tc qdisc add dev $Q root handle 1: ecnsharp rate ${RATE}bit burst $BURST limit 20 mode tcn
SETUP_ARGS= # no second try here: refusals, not the schedule, are what this measures
tc qdisc add dev $Q clsact
tc filter add dev $Q egress protocol all prio 1 matchall action pass
np0=$(udp_noports)
check "limit: 50 packets accepted into a limit of 20" burst 50 "tos 02"
refused=$(awk '{ for (i = 1; i < NF; i++) if ($i == "errors:") { print $(i + 1); exit } }' /proc/net/pktgen/vq)
offered=$(tc -s -j filter show dev $Q egress | jq '[.[] | .options.actions[]?.stats.packets] | add')
strays=$((${offered:-0} - 50 - ${refused:-0}))
tc qdisc del dev $Q clsact
diag "pktgen saw $refused refusals; the qdisc was offered $offered packets, $strays not from pktgen"
check "limit: there were refusals" sh -c "[ ${refused:-0} -gt 0 ]"
check "limit: strays are few (the filter saw every pktgen packet)" sh -c "[ $strays -ge 0 ] && [ $strays -le 5 ]"
check "limit: every refusal counted as a limit drop (strays may add theirs)" \
	between "$(bstat $Q 0 drops_limit)" "$refused" "$((refused + strays))"
check "limit: generic drops agree" near "$(qstat $Q drops)" "$(bstat $Q 0 drops_limit)" 0
await_count $((np0 + 50)) udp_noports
check "limit: exactly the accepted packets delivered" near $(($(udp_noports) - np0)) 50 0
check "limit: counters balance" qdisc_balanced $Q

# ---- The shaper holds the configured rate (within 2%) while always backlogged: pktgen paced at
# 1.5x the rate (flat out, it would starve the guest's CPU and make the clock readings noisy).
# Bytes and time come from the same dumps: "now" is the kernel's clock at the dump.
bytes_now() { qjson $Q | jq -r '"\(.bytes) \(.now | floor)"'; }
# shaper_rate: on a fresh qdisc, the bit/s it sent over 5 s of backlog.
shaper_rate() {
	tc qdisc del dev $Q root
	tc qdisc add dev $Q root handle 1: ecnsharp rate 20mbit limit 1000
	pg_streams 9 $SIZE "tos 02;delay 266000" >&2 &
	sleep 2
	read -r b0 t0 <<EOT
$(bytes_now)
EOT
	sleep 5
	read -r b1 t1 <<EOT
$(bytes_now)
EOT
	wait
	echo $(((b1 - b0) * 8 * 1000000 / (t1 - t0)))
}
# The shaper credits a late watchdog back up to 100 ms (as burst() above says); a guest stalled
# longer loses the rest of the stall's time, which is the host's, not the shaper's: measured
# again, once, on a fresh qdisc, when the qdisc's own late_max says so (seen in a make check
# beside ns-3: 19.37 Mbit/s).
rate=$(shaper_rate)
_l=$(late_us)
if [ "${_l:-0}" -gt 100000 ]; then
	RETRIES="${RETRIES:-}${_l}us(shaper) "
	rate=$(shaper_rate)
fi
diag "shaper: $rate bit/s for 20000000 configured, $(qstat $Q drops) drops (the queue stayed full), late_max $(late_us) us"
check "shaper: the queue stayed backlogged (limit drops)" sh -c "[ $(qstat $Q drops) -gt 0 ]"
check "shaper rate within 2% of 20mbit" near "$rate" 20000000 400000
wait_drained $Q 30
check "shaper: counters balance after overload" qdisc_balanced $Q

pg_teardown
diag "bursts measured again after a stall beyond the shaper's credit (late_max): ${RETRIES:-none}"
ktap_end
