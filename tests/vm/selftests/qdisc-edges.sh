#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Edge paths an operator meets on the first day (issue "Correct under every parent, every change
# and every band count"): 16-band dumps, peeking parents, the packet shown to a parent's peek,
# changes that must take effect at once, the shaper's rate with offloads on, and DWRR shares
# when non-ECT packets are dropped at dequeue. A case that needs traffic checks that it flowed.
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh
ktap_begin qdisc-edges 45

Q=vq
# Quiet: exact packet counts, no stray ARP or IPv6 neighbour packet joins a band.
{ pg_pair && quiet_pair; } || { ktap_not_ok "test network"; ktap_end; exit 1; }

# cjson HANDLE: the qdisc with that handle on $Q (JSON, with statistics), from ecnsharp-tc: tc
# 6.1 prints invalid JSON for some parents (qfq).
cjson() { ecnsharp-tc -s -j qdisc show dev $Q | jq -c "[.[] | select(.handle == \"$1\")][0]"; }
# UDP datagrams the receiver got (pktgen sends to port 9, where nothing listens).
rx_udp() { snmp_counter rcv Udp NoPorts; }
# child_drained [TIMEOUT_S]: until no qdisc on $Q holds a packet (read with ecnsharp-tc: tc 6.1
# prints invalid JSON for hfsc and qfq).
child_drained() {
	_n=0
	while ecnsharp-tc -s -j qdisc show dev $Q | jq -e 'any(.[]; .qlen > 0)' >/dev/null; do
		_n=$((_n + 1))
		[ $_n -gt $((${1:-20} * 10)) ] && return 1
		sleep 0.1
	done
}
# balanced_json JSON: every band of that qdisc balances, and the bands add up to its counters.
balanced_json() {
	echo "$1" | jq -e '
		(.bands | all(.enqueued == .packets + .drops_limit + .drops_nonect + .drops_config + .qlen))
		and ([.bands[].packets] | add) == .packets and ([.bands[].qlen] | add) == .qlen' >/dev/null ||
		{ echo "$1"; return 1; }
}

# ---- 1. Dumps of any size: 16 bands with stats fit one message; devices after it still show;
# tc monitor hears of a change.
tc qdisc replace dev $Q root handle 1: ecnsharp bands 16 sched dwrr rate 100mbit
ip link add d9 type dummy && ip link set d9 up
check "16 bands: two pktgen streams (priorities 0 and 6) run" pg_streams 1 200 "skb_priority 0;tos 02" "skb_priority 6;tos 02"
check "16 bands: ecnsharp-tc -s shows the qdisc with 16 band records" sh -c \
	"ecnsharp-tc -s -j qdisc show dev $Q | jq -e '.[0].bands | length == 16' >/dev/null"
check "16 bands: tc -s shows it with 16 band records" sh -c \
	"tc -s -j qdisc show dev $Q | jq -e '.[0].bands | length == 16' >/dev/null"
# The priomap puts priority 0 in band 1 and 6 in band 0: both streams counted, each in its band.
check "16 bands: packets counted in the dump, in bands 0 and 1" sh -c \
	"ecnsharp-tc -s -j qdisc show dev $Q | jq -e '.[0].packets > 0 and .[0].bands[0].enqueued > 0 and .[0].bands[1].enqueued > 0' >/dev/null"
check "16 bands: a device listed after it is not lost (ecnsharp-tc)" sh -c \
	"ecnsharp-tc -s -j qdisc show | jq -e 'any(.[]; .dev == \"d9\")' >/dev/null"
check "16 bands: a device listed after it is not lost (tc)" sh -c \
	"tc -s -j qdisc show | jq -e 'any(.[]; .dev == \"d9\")' >/dev/null"
# tc monitor subscribes on its own time (a slow guest takes over 0.5 s): repeat the change (limit
# 999, 998, ...) every 0.2 s until the monitor shows one, for up to 10 s.
tc monitor >/tmp/monitor.out 2>&1 &
mon=$!
lim=999
while [ $lim -gt 949 ] && ! grep -q "qdisc ecnsharp 1: .*limit 9[5-9][0-9]p" /tmp/monitor.out; do
	tc qdisc change dev $Q root handle 1: ecnsharp limit $lim
	lim=$((lim - 1))
	sleep 0.2
done
kill $mon 2>/dev/null
wait $mon 2>/dev/null
check "16 bands: tc monitor reports the change" grep -q "qdisc ecnsharp 1: .*limit 9[5-9][0-9]p" /tmp/monitor.out
check "16 bands: dumped options read back (nested TCA_OPTIONS)" near "$(qopt $Q bands)" 16 0
ip link del d9

# ---- 2. Peeking parents: under tbf a packet's sojourn includes its wait for the parent's
# tokens. Two 1000-byte packets at 80 kbit/s with a 1514-byte bucket: the first leaves at once,
# the second waits for the 486 bytes its bucket lacks, 48.6 ms. Decided at peek, its sojourn
# would be ~0; decided when tbf takes it, at least 48.6 ms, as under ecnsharp's own shaper at
# that rate. Timer lateness only adds to both.
two_packets() { pg_send 2 1000 "tos 02" && child_drained 10; }
tc qdisc del dev $Q root 2>/dev/null
tc qdisc add dev $Q root handle 1: ecnsharp rate 80kbit burst 1514 mode tcn ins_target 30ms
own_two() { two_packets && [ "$(bstat $Q 0 packets)" = 2 ]; }
check "built-in shaper at 80kbit: two packets delivered" own_two
own_max=$(bstat $Q 0 sojourn_max)
own_marks=$(bstat $Q 0 marks)
tc qdisc del dev $Q root
tc qdisc add dev $Q root handle 1: tbf rate 80kbit burst 1514 limit 100000
tc qdisc add dev $Q parent 1:1 handle 2: ecnsharp mode tcn ins_target 30ms
check "under tbf 80kbit: two packets delivered" two_packets
tbf=$(cjson 2:)
tbf_max=$(echo "$tbf" | jq -r '.bands[0].sojourn_max')
tbf_marks=$(echo "$tbf" | jq -r '.bands[0].marks')
diag "second packet's sojourn: own shaper ${own_max}us, under tbf ${tbf_max}us; marks $own_marks and $tbf_marks"
check "under tbf: both packets sent" near "$(echo "$tbf" | jq -r '.packets')" 2 0
check "own shaper: the second packet waited for tokens (>= 45 ms)" ge "${own_max%.*}" 45000
check "under tbf: the wait for tbf's tokens is part of the sojourn (>= 45 ms)" ge "${tbf_max%.*}" 45000
check "under tbf: the waiting packet is marked, as under the own shaper (ins_target 30ms)" \
	sh -c "[ '$tbf_marks' = 1 ] && [ '$own_marks' = 1 ]"

# Every peeking parent: traffic flows through ecnsharp, everything is sent, books balance.
parent_case() {
	name=$1
	shift
	tc qdisc del dev $Q root 2>/dev/null
	"$@" || { echo "could not set up $name"; return 1; }
	tc qdisc add dev $Q parent 1:1 handle 2: ecnsharp mode ecnsharp limit 1000 || return 1
	u0=$(rx_udp)
	pg_send 200 1000 "tos 02" || return 1
	child_drained 40 || { echo "not drained"; cjson 2:; return 1; }
	await_count $((u0 + 200)) rx_udp
	got=$(($(rx_udp) - u0))
	c=$(cjson 2:)
	[ "$(echo "$c" | jq -r '.packets')" = 200 ] || { echo "child sent: $c"; return 1; }
	[ "$got" = 200 ] || { echo "receiver got $got of 200"; return 1; }
	balanced_json "$c"
}
setup_tbf() { tc qdisc add dev $Q root handle 1: tbf rate 20mbit burst 5000 limit 1000000; }
setup_drr() {
	tc qdisc add dev $Q root handle 1: drr && tc class add dev $Q parent 1: classid 1:1 drr &&
		tc filter add dev $Q parent 1: protocol all matchall classid 1:1
}
setup_ets() {
	tc qdisc add dev $Q root handle 1: ets bands 2 quanta 3000 1500 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
}
setup_hfsc() {
	tc qdisc add dev $Q root handle 1: hfsc default 1 &&
		tc class add dev $Q parent 1: classid 1:1 hfsc sc rate 20mbit ul rate 20mbit
}
setup_qfq() {
	tc qdisc add dev $Q root handle 1: qfq && tc class add dev $Q parent 1: classid 1:1 qfq weight 1 maxpkt 1514 &&
		tc filter add dev $Q parent 1: protocol all matchall classid 1:1
}
for p in tbf drr ets hfsc qfq; do
	check "under $p: 200 packets through ecnsharp, all delivered, books balance" parent_case $p setup_$p
done

# ---- 3. The packet shown to a parent's peek counts against the limit, and reset frees what is
# queued without counting it in tc's "dropped" (as every kernel qdisc's reset), while ecnsharp's
# band books count it as config drops. tbf at 1 kbit/s sends a packet every 8 s: the queue
# stands still meanwhile.
tc qdisc del dev $Q root
tc qdisc add dev $Q root handle 1: tbf rate 1kbit burst 1600 limit 1000000
tc qdisc add dev $Q parent 1:1 handle 2: ecnsharp limit 1000
fill 20
c=$(cjson 2:)
check "peeked: packets queued behind a slow tbf" ge "$(echo "$c" | jq -r '.qlen')" 10
tc qdisc change dev $Q parent 1:1 handle 2: ecnsharp limit 5
c=$(cjson 2:)
diag "after limit 5: qlen $(echo "$c" | jq -r '.qlen') (bands $(echo "$c" | jq -c '[.bands[].qlen]'))"
# Some must stay queued, or the reset below would free nothing and test nothing.
check "peeked: after change limit 5 the qdisc holds 1 to 5" between "$(echo "$c" | jq -r '.qlen')" 1 5
check "peeked: books balance after the shrink" balanced_json "$c"
c=$(cjson 2:)
held=$(echo "$c" | jq -r '.qlen')
drops0=$(echo "$c" | jq -r '.drops')
cfg0=$(echo "$c" | jq '[.bands[].drops_config] | add')
ip link set $Q down
c=$(cjson 2:)
cfg1=$(echo "$c" | jq '[.bands[].drops_config] | add')
diag "reset freed: qdisc drops $drops0 -> $(echo "$c" | jq -r '.drops'), band config drops $cfg0 -> $cfg1, $held packets were queued"
check "reset: the packets it freed are not drops in tc's counter" near "$(echo "$c" | jq -r '.drops')" "$drops0" 0
# A stray ARP or neighbour packet may join between the snapshot and the reset: at least what was
# queued.
check "reset: the bands count what it freed as config drops, and balance" \
	sh -c "[ $held -ge 1 ] && [ $cfg1 -ge $((cfg0 + held - 1)) ] && [ $cfg1 -le $((cfg0 + held + 2)) ] && echo '$c' | jq -e 'all(.bands[]; .qlen == 0 and .enqueued == .packets + .drops_limit + .drops_nonect + .drops_config)' >/dev/null"
ip link set $Q up

# ---- 4. change takes effect at once: a slow rate's debt and a long pst_interval.
# 8000-byte packets at 8 kbit/s: 8 s each once the bucket (two MTUs) is spent.
tc qdisc del dev $Q root
ip link set $Q mtu 9000
tc qdisc add dev $Q root handle 1: ecnsharp rate 8kbit limit 1000
ping -q -c 5 -i 0.01 -s 8000 -w 2 10.1.0.2 >/dev/null 2>&1
check "rate 8kbit: packets wait behind the shaper (8 s each)" ge "$(qstat $Q qlen)" 2
t0=$(uptime_ms)
tc qdisc change dev $Q root handle 1: ecnsharp rate 10gbit
check "change rate 10gbit: the queue drains at once, not after the old wait (8 s)" wait_drained $Q 3
diag "drained $(($(uptime_ms) - t0)) ms after the change"
tc qdisc del dev $Q root
ip link set $Q mtu 1500

tc qdisc del dev $Q root
tc qdisc add dev $Q root handle 1: ecnsharp rate 10mbit mode ecnsharp ins_target 1s pst_target 1ms pst_interval 1s limit 1000
pg_streams 15 1000 "tos 02" >/dev/null &
pg=$!
# The state machine enters marking once the queue has stood above pst_target for pst_interval:
# wait for it (bound 12 s of the streams' 15; a debug guest starts its streams slowly).
marking() {
	_n=0
	_end=$(($(uptime_ms) + 12000))
	until [ "$(bstat $Q 0 marking_state)" = true ]; do
		[ "$(uptime_ms)" -gt $_end ] && return 1
		sleep 0.1
	done
}
check "pst_interval 1s: a standing queue is in the marking state" marking
tc qdisc change dev $Q root handle 1: ecnsharp pst_interval 10ms
next=$(bstat $Q 0 marking_next)
diag "marking_next after the change: ${next}us from now"
check "change pst_interval 10ms: the next mark is due within 10 ms" sh -c "[ \"$next\" != null ] && [ \"${next%.*}\" -le 10000 ]"
wait $pg

# ---- 5. The shaper keeps its rate with the default bucket: a watchdog that fires late must not
# cost throughput. iperf3 (4 flows, TSO/GSO on, super-packets kept whole) through `rate R` with
# the default bucket and with `burst 1mb`, and unshaped, interleaved over five rounds in this
# boot; the rate is the qdisc's own byte count over its own clock. R is a quarter of what the
# guest's sender reached unshaped in a first run (at most 1 Gbit/s), so the shaper, not the
# emulated sender, is the limit on any host: the TCG guest sends 0.3-3 Gbit/s depending on the
# host and varies by a third from run to run on a busy one (with R at half of it, the sender
# fell below R in some runs, and the large bucket then delivered less than the default one).
# Before the late-wakeup credit the default bucket delivered about 0.85 of what the large one did
# (issue 14: 800 against 945 Mbit/s at 1 Gbit/s). The default bucket is judged against the large
# one run beside it, round by round (the median of five ratios), and the rate against the large
# bucket: a host that stalls the guest longer than the late credit covers (the device's queue,
# 18 ms at 650 Mbit/s) costs both buckets alike in that round, and one such round in CI (a stall
# of 53 ms while ns-3 ran on the other core) had pulled the median of three default runs to 0.86
# of the rate although the ratio was 0.95 in the other two rounds.
# shaped_mbit OPTIONS...: Mbit/s the root ecnsharp on $Q sent during the middle 2 s of a 4 s run.
# shellcheck disable=SC2120 # the calls with options are inside eval strings below
shaped_mbit() {
	# A fresh qdisc each time: `replace` of an ecnsharp is a change, which keeps the options not
	# given, so the "unshaped" run would keep the last rate.
	tc qdisc del dev $Q root 2>/dev/null
	tc qdisc add dev $Q root handle 1: ecnsharp limit 10000 split_gso off "$@" || return 1
	ip netns exec rcv iperf3 -s -1 -D -I /tmp/iperf-s.pid >/dev/null 2>&1
	sleep 0.3
	iperf3 -c 10.1.0.2 -t 4 -P 4 >/tmp/iperf.out 2>&1 &
	_ipf=$!
	sleep 1
	_a=$(qjson $Q)
	sleep 2
	_b=$(qjson $Q)
	wait $_ipf
	kill "$(cat /tmp/iperf-s.pid 2>/dev/null)" 2>/dev/null
	echo "$(echo "$_b" | jq -r '.late_wakeups // 0') late wake-ups, latest $(echo "$_b" | jq -r '.late_max // 0')us" >/tmp/late
	echo "$_a $_b" | jq -s '((.[1].bytes - .[0].bytes) * 8 / (.[1].now - .[0].now)) | floor'
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
tc qdisc del dev $Q root 2>/dev/null
ethtool -K $Q tso on gso on >/dev/null 2>&1
free_0=$(shaped_mbit)
R=$(( ${free_0:-0} / 4 / 50 * 50 ))
[ "$R" -le 1000 ] || R=1000
[ "$R" -ge 50 ] || R=50
diag "unshaped first run: $free_0 Mbit/s, so the shaper runs at rate ${R}mbit"
for r in 1 2 3 4 5; do
	eval "def_$r=\$(shaped_mbit rate ${R}mbit)"
	diag "round $r: rate ${R}mbit, default bucket: $(eval echo \$def_$r) Mbit/s ($(cat /tmp/late))"
	eval "big_$r=\$(shaped_mbit rate ${R}mbit burst 1mb)"
	diag "round $r: rate ${R}mbit, burst 1mb: $(eval echo \$big_$r) Mbit/s ($(cat /tmp/late))"
	eval "free_$r=\$(shaped_mbit)"
	diag "round $r: unshaped: $(eval echo \$free_$r) Mbit/s"
	# The default bucket's share of the large one's throughput in this round, in thousandths.
	eval "ratio_$r=\$(( \${def_$r:-0} * 1000 / (\${big_$r:-0} > 0 ? \${big_$r:-0} : 1) ))"
done
ethtool -K $Q tso off gso off >/dev/null 2>&1
tc qdisc del dev $Q root
# shellcheck disable=SC2154 # assigned by eval in the loop above
def=$(median "$def_1" "$def_2" "$def_3" "$def_4" "$def_5")
# shellcheck disable=SC2154 # assigned by eval in the loop above
big=$(median "$big_1" "$big_2" "$big_3" "$big_4" "$big_5")
# shellcheck disable=SC2154 # assigned by eval in the loop above
free=$(median "$free_1" "$free_2" "$free_3" "$free_4" "$free_5")
# shellcheck disable=SC2154 # assigned by eval in the loop above
ratio=$(median "$ratio_1" "$ratio_2" "$ratio_3" "$ratio_4" "$ratio_5")
diag "rate ${R}mbit medians: default bucket $def, burst 1mb $big, unshaped $free Mbit/s; default / burst 1mb by round: $ratio_1 $ratio_2 $ratio_3 $ratio_4 $ratio_5 per mille, median $ratio"
_every=0
for r in 1 2 3 4 5; do
	# shellcheck disable=SC1083 # the escaped braces are for eval
	[ "$(eval echo \${def_$r:-0})" -gt 0 ] && [ "$(eval echo \${big_$r:-0})" -gt 0 ] || _every=1
done
check "shaper rate: traffic went through the shaper in every round" test $_every -eq 0
check "shaper rate: the default bucket, median of the rounds, never faster than the rate (+3%)" le "${def:-9999}" $((R * 103 / 100))
# Only a sender that outruns the rate makes the shaper the limit. If the host starved the guest
# during the rounds so that even the unshaped median fell below 1.5 R, the bucket cannot be
# judged, and the case says so.
if [ "${free:-0}" -ge $((R * 3 / 2)) ]; then
	check "shaper rate: the default bucket delivers at least 0.9 of what burst 1mb does (median of the rounds)" \
		ge "${ratio:-0}" 900
	check "shaper rate: with burst 1mb the shaper gets at least 90% of the rate" ge "$((${big:-0} * 100))" $((R * 90))
else
	for _c in "the default bucket delivers at least 0.9 of what burst 1mb does (median of the rounds)" \
		"with burst 1mb the shaper gets at least 90% of the rate"; do
		ktap_skip "shaper rate: $_c" "the guest's sender reached only $free Mbit/s unshaped against rate ${R}mbit (host busy): the shaper was not the limit"
	done
fi

# ---- 6. Fair drops: band 0 holds non-ECT packets (dropped at dequeue by non_ect drop, sojourn
# far above ins_target) and ECT ones, band 1 ECT only; equal quanta must give equal shares of
# what is sent while both stay backlogged. Charged for its dropped heads, band 0 would get about
# half of band 1's. The queue is filled behind a shaper at 8 kbit/s (one packet a second), 400
# packets per stream into a limit that never drops, then the rate goes to 100 kbit/s (12.5
# packets a second) and the shares are read once 200 packets have left. A starved guest's tc
# took up to 8 s per call, and at the 400 kbit/s of an earlier version everything had left by
# the time it read; at 100 kbit/s 8 s of lateness costs 100 of the 400 each band still holds. Band 0's two streams share a pktgen thread
# (streams 0 and 2 with equal delays alternate), so its queue alternates non-ECT and ECT.
# sent_at_least N: until the qdisc on $Q has sent N packets (60 s of the guest's clock at most).
sent_at_least() {
	_end=$(($(uptime_ms) + 60000))
	until [ "$(qstat $Q packets)" -ge "$1" ]; do
		[ "$(uptime_ms)" -gt $_end ] && { echo "sent $(qstat $Q packets), not $1"; return 1; }
		sleep 0.1
	done
}
# enqueued_at_least N: until the bands of the qdisc on $Q have taken N packets (60 s at most).
enqueued_at_least() {
	_end=$(($(uptime_ms) + 60000))
	until [ "$(qjson $Q | jq '[.bands[].enqueued] | add')" -ge "$1" ]; do
		[ "$(uptime_ms)" -gt $_end ] && { qjson $Q; return 1; }
		sleep 0.1
	done
}
tc qdisc del dev $Q root 2>/dev/null
tc qdisc add dev $Q root handle 1: ecnsharp bands 2 sched dwrr quanta 1514,1514 rate 8kbit \
	mode tcn ins_target 1ms non_ect drop limit 30000
check "fair drops: three pktgen streams of 400 packets started" pg_counted 400 1000 \
	"skb_priority 6;tos 00;delay 200000" "skb_priority 0;tos 02;delay 200000" \
	"skb_priority 6;tos 02;delay 200000"
# (pktgen may still hold a stream's last packet.)
check "fair drops: 1200 packets queued behind the slow shaper" enqueued_at_least 1190
s00=$(qstat $Q packets)
tc qdisc change dev $Q root handle 1: ecnsharp rate 100kbit
sent_at_least $((s00 + 200))
c=$(qjson $Q)
tc qdisc del dev $Q root
pg_stop_all $PG_PID >/dev/null
s0=$(echo "$c" | jq -r '.bands[0].packets')
s1=$(echo "$c" | jq -r '.bands[1].packets')
d0=$(echo "$c" | jq -r '.bands[0].drops_nonect')
diag "band 0 sent $s0 (dropped $d0 non-ECT at dequeue, $(echo "$c" | jq -r '.bands[0].qlen') queued)," \
	"band 1 sent $s1 ($(echo "$c" | jq -r '.bands[1].qlen') queued); drops at enqueue: $(echo "$c" | jq -r '[.bands[].drops_limit] | add')"
check "fair drops: both bands sent, band 0 dropped non-ECT packets, both still backlogged" \
	sh -c "echo '$c' | jq -e '.bands[0].packets > 50 and .bands[1].packets > 50 and .bands[0].drops_nonect > 50 and all(.bands[]; .qlen > 0 and .drops_limit == 0)' >/dev/null"
check "fair drops: band 0 gets its half of what is sent (within 10%)" near "$s0" "$s1" $((${s1:-0} / 10))

# ---- 7. non_ect drop under a parent that peeks: the packet shown to tbf's peek is promised (it
# is sent whatever the rules say, tbf has charged its tokens), so the policy is applied when the
# head is chosen for the peek: a non-ECT head that has waited beyond ins_target is dropped then.
# 60 not-ECT packets behind tbf at 1 Mbit/s (8 ms each) wait far beyond 1 ms.
tc qdisc del dev $Q root
tc qdisc add dev $Q root handle 1: tbf rate 1mbit burst 1600 limit 1000000
tc qdisc add dev $Q parent 1:1 handle 2: ecnsharp mode tcn ins_target 1ms non_ect drop limit 1000
send_nonect() { pg_send 60 1000 "tos 00" && child_drained 30; }
check "non_ect drop under tbf: 60 not-ECT packets through tbf and ecnsharp" send_nonect
c=$(cjson 2:)
t=$(ecnsharp-tc -s -j qdisc show dev $Q | jq -c '[.[] | select(.handle == "1:")][0]')
diag "under tbf: ecnsharp sent $(echo "$c" | jq -r '.packets'), dropped $(echo "$c" | jq -r '.bands[0].drops_nonect') non-ECT, passed $(echo "$c" | jq -r '.bands[0].nonect_passed'); tbf sent $(echo "$t" | jq -r '.packets') dropped $(echo "$t" | jq -r '.drops')"
check "non_ect drop under tbf: non-ECT packets waiting beyond ins_target are dropped, not passed" \
	sh -c "echo '$c' | jq -e '.bands[0].drops_nonect > 10' >/dev/null"
check "non_ect drop under tbf: every packet sent or dropped, tbf's counters agree with ecnsharp's" \
	sh -c "echo '$c' | jq -e '.packets + .bands[0].drops_nonect == 60 and .qlen == 0' >/dev/null &&
		[ \"\$(echo '$t' | jq -r '.packets')\" = \"\$(echo '$c' | jq -r '.packets')\" ] &&
		[ \"\$(echo '$t' | jq -r '.drops')\" = \"\$(echo '$c' | jq -r '.drops')\" ]"

# ---- 8. A replace is one notification holding the old qdisc and the new (qdisc_notify builds
# both in one NLMSG_GOODSIZE buffer): with 16 bands each, ecnsharp keeps a message outside a
# dump within half of it, so tc monitor hears of the replace (it heard nothing before).
tc qdisc del dev $Q root
ip link set d9 up 2>/dev/null || { ip link add d9 type dummy && ip link set d9 up; }
tc qdisc replace dev d9 root handle 1: ecnsharp bands 16
tc monitor >/tmp/monitor2.out 2>&1 &
mon=$!
# tc monitor subscribes on its own time: replace back and forth until it shows one (10 s).
h=2
# shellcheck disable=SC2034 # i only counts the tries
for i in $(seq 1 50); do
	grep -q "^qdisc ecnsharp 2: dev d9 root" /tmp/monitor2.out && break
	tc qdisc replace dev d9 root handle $h: ecnsharp bands 16
	[ $h = 2 ] && h=1 || h=2
	sleep 0.2
done
# What the ecnsharp replaces alone said: the fq_codel replace below deletes an ecnsharp too.
cp /tmp/monitor2.out /tmp/monitor2-ecnsharp.out
tc qdisc replace dev d9 root handle 3: fq_codel
sleep 1
kill $mon 2>/dev/null
wait $mon 2>/dev/null
check "replace 16 bands by 16 bands: tc monitor reports the new qdisc" grep -q "^qdisc ecnsharp 2: dev d9 root" /tmp/monitor2-ecnsharp.out
check "replace 16 bands by 16 bands: and the old one deleted" grep -q "^deleted qdisc ecnsharp [12]: dev d9 root" /tmp/monitor2-ecnsharp.out
check "replace 16 bands by fq_codel: reported" grep -q "^qdisc fq_codel 3: dev d9 root" /tmp/monitor2.out
# Every band count, with and without a rate estimator (more statistics after the xstats): the
# second message takes what the first left, the xstats records are cut to fit, and what
# tc_fill_qdisc writes after them (basic, rate, queue and the legacy TCA_STATS) must still fit,
# or qdisc_notify drops the whole notification.
tc monitor >/tmp/monitor3.out 2>&1 &
mon=$!
# A new monitor subscribes on its own time too: replace fq_codel (3: or 4:) by the other until
# the monitor shows one (10 s).
h=3
# shellcheck disable=SC2034 # i only counts the tries
for i in $(seq 1 50); do
	h=$((7 - h))
	tc qdisc replace dev d9 root handle $h: fq_codel
	sleep 0.2
	grep -q "^qdisc fq_codel $h: dev d9 root" /tmp/monitor3.out && break
done
# Each replace names the other handle than the root's, so that it is a new qdisc, never a change
# in place: the first of each N replaces N - 1 bands (fq_codel for N = 1), the second N.
h=1
for est in "" "estimator 1sec 8sec"; do
	for n in $(seq 1 16); do
		for _ in 1 2; do
			h=$((3 - h))
			# shellcheck disable=SC2086 # est is words or nothing
			tc qdisc replace dev d9 root handle $h: $est ecnsharp bands $n
		done
	done
done
sleep 1
kill $mon 2>/dev/null
wait $mon 2>/dev/null
# replaced_all: for each N, both replaces of N bands by N bands reached the monitor (twice with
# and twice without the estimator: 4 new qdiscs of N bands, each notification's second message).
replaced_all() {
	missing=
	for n in $(seq 1 16); do
		c=$(grep -c "^qdisc ecnsharp [12]: dev d9 root .* bands $n " /tmp/monitor3.out)
		[ "$c" -ge 4 ] || missing="$missing $n($c)"
	done
	[ -z "$missing" ] || { echo "bands(new qdiscs heard):$missing"; return 1; }
}
check "replace N bands by N bands, N = 1..16, with and without an estimator: every notification heard" replaced_all
ip link del d9

# ---- 9. The MTU raised under a running shaper (no tc change): the default bucket, at least two
# packets of the MTU, follows it once a longer packet waits (it stayed at the old MTU's before).
tc qdisc add dev $Q root handle 1: ecnsharp rate 100mbit limit 1000
burst_now() { qstat $Q shaper_burst; }
b0=$(burst_now)
ip link set $Q mtu 9000
ip -n rcv link set vr mtu 9000
pg_send 3 9000 "tos 02" >/dev/null 2>&1
wait_drained $Q 10
b1=$(burst_now)
diag "default bucket at rate 100mbit: $b0 bytes at MTU 1500, $b1 after MTU 9000"
check "MTU 1500: the default bucket holds two 1514-byte packets" near "$b0" 3028 0
check "MTU 9000: the default bucket follows, two 9014-byte packets" near "$b1" 18028 0
tc qdisc del dev $Q root
ip link set $Q mtu 1500
ip -n rcv link set vr mtu 1500

pg_teardown
ktap_end
