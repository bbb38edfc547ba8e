#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Odd packets through ecnsharp: hand-built frames (ecnsharp-nlfuzz craft, an AF_PACKET sender)
# of every kind a switch port meets: plain IPv4, IPv4 with options, IPv6 with extension headers,
# 802.1Q and QinQ tagged IPv4, IPv6 in 802.1Q, runt (42-byte) and 9000-byte frames, IPv4 and
# IPv6 fragments, ARP and other non-IP frames, IPv4 and IPv6 headers cut short, IPv4 with a
# header length below 5, already-CE packets and TCP GSO super-packets over IPv4 and IPv6 (split
# at enqueue, or whole), while a tcpdump-like tap (ecnsharp-nlfuzz tap, AF_PACKET ETH_P_ALL on
# the same device) clones every frame the device sends. The qdisc marks every ECT packet it can
# read at dequeue (mode dequeue, k 1), so for each kind: every frame was enqueued and sent; it was
# marked where the header allows (the tap and the receiver see CE, with valid checksums) and
# counted where not (nonect_passed, or ce_already for CE arrivals); under non_ect drop, frames
# that cannot carry CE are dropped and counted. Then the same kinds with marks made at enqueue
# (mode red). No crash (the debug kernel watches).
#
# It runs on the debug kernel only (KASAN watches every odd header the module parses; its counts
# do not depend on timing): on the default kernel it repeated the same counts (3-4 minutes).
# vm-flavour: debug
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh
ktap_begin qdisc-oddpkts 122

Q=vq
N=${1:-20}
pg_pair || { ktap_not_ok "test network"; ktap_end; exit 1; }
# The crafted frames carry skb->priority 11, which the priomap sends to band 0; whatever the
# stack itself sends meanwhile (ARP, neighbour discovery) goes to band 1, so band 0 counts
# exactly the crafted frames.
PRIO=11
tc qdisc add dev $Q root handle 1: ecnsharp bands 2 priomap 1 1 1 1 1 1 1 1 1 1 1 0 1 1 1 1 \
	mode dequeue k 1 limit 10000 ||
	{ ktap_not_ok "ecnsharp with mode dequeue k 1"; ktap_end; exit 1; }
rx4() { netstat_counter rcv IpExt InCEPkts; }
rx6() { snmp6_counter rcv Ip6InCEPkts; }
hdrerr() { snmp_counter rcv Ip InHdrErrors; }
# band0: band 0's packets, qlen, enqueued, marks, nonect_passed, ce_already and drops_nonect.
band0() {
	qjson $Q | jq -r '.bands[0] | "\(.packets) \(.qlen) \(.enqueued) \(.marks) \(.nonect_passed) \(.ce_already) \(.drops_nonect)"'
}

# send KIND: N frames of KIND through the qdisc with the tap running; sets D_* (deltas of the
# band's counters), TAP_* (what the tap saw) and R4/R6/HE (receiver's CE counts, header errors).
send() {
	# The band's counters from one snapshot (one tc and jq each side: under KASAN in TCG each
	# costs about a second); every frame queued at this moment leaves during the send too.
	read -r p0 AHEAD e0 m0 n0 c0 x0 <<EOT
$(band0)
EOT
	r40=$(rx4); r60=$(rx6); he0=$(hdrerr)
	# The tap reads from "listening" until the stop file exists and its socket has stayed dry for a second:
	# every frame sent in between is counted, however slow the guest.
	# The old output goes first: the shell truncates tap.out in the background child, so a grep
	# that runs before the child does would find the last kind's "listening" and send too soon
	# (seen: a tap that counted 0 of 20 frames on a loaded host).
	rm -f /tmp/tap.stop /tmp/tap.out
	ecnsharp-nlfuzz tap --dev $Q --stop-file /tmp/tap.stop --seconds 120 >/tmp/tap.out 2>&1 &
	tap=$!
	_t=0
	until grep -q listening /tmp/tap.out 2>/dev/null; do
		_t=$((_t + 1))
		[ $_t -gt 300 ] && { echo "the tap never listened"; cat /tmp/tap.out; return 1; }
		sleep 0.1
	done
	ecnsharp-nlfuzz craft --dev $Q --dst-mac "$PG_MAC" --kind "$1" --count $N --priority $PRIO >/tmp/craft.out 2>&1
	crc=$?
	# A shaper holding the frames may be opened now (the red cases).
	[ -z "${SEND_AFTER:-}" ] || $SEND_AFTER
	wait_drained $Q 30
	touch /tmp/tap.stop
	wait $tap
	cat /tmp/craft.out /tmp/tap.out | sed 's/^/# /'
	read -r p1 _ e1 m1 n1 c1 x1 <<EOT
$(band0)
EOT
	D_ENQ=$((e1 - e0)); D_SENT=$((p1 - p0)); D_MARK=$((m1 - m0))
	D_NONECT=$((n1 - n0)); D_CE=$((c1 - c0))
	D_DROPNONECT=$((x1 - x0))
	R4=$(($(rx4) - r40)); R6=$(($(rx6) - r60)); HE=$(($(hdrerr) - he0))
	TAP_FRAMES=$(sed -n 's/.*frames=\([0-9]*\).*/\1/p' /tmp/tap.out)
	TAP_CE=$(sed -n 's/.* ce=\([0-9]*\).*/\1/p' /tmp/tap.out)
	diag "$1: enqueued $D_ENQ sent $D_SENT marks $D_MARK nonect_passed $D_NONECT ce_already $D_CE; tap frames $TAP_FRAMES ce $TAP_CE; receiver CE v4 $R4 v6 $R6, header errors $HE"
	[ "$crc" = 0 ] && grep -q "sent=$N refused=0" /tmp/craft.out
}
eq() { [ "$1" = "$2" ] || { echo "got $1, expected $2"; return 1; }; }
all_through() { eq "$D_ENQ" $N && eq "$D_SENT" $N; }
accounted() { eq $((D_MARK + D_NONECT + D_CE)) $N; }
# tap_saw [ce]: the tap saw the N frames leave (and, with "ce", each with CE); says what it saw.
tap_saw() {
	[ "${TAP_FRAMES:-0}" -ge $N ] && { [ "${1:-}" != ce ] || [ "$TAP_CE" = $N ]; } && return 0
	echo "tap saw $TAP_FRAMES frames, $TAP_CE with CE, for $N sent ($D_SENT by the qdisc)"
	cat /tmp/craft.out /tmp/tap.out
	return 1
}

# One check more per kind the receiver can count (untagged IP: it has no VLAN device).
receiver_check() {
	case $1 in
	ipv4 | ipv4-opts | runt | frag4 | jumbo)
		check "$1: the receiver saw CE on each, checksums valid" sh -c "[ $R4 = $N ] && [ $HE = 0 ]" ;;
	ipv6-ext | frag6)
		check "$1: the receiver saw CE on each" eq "$R6" $N ;;
	esac
}
MARKED="ipv4 ipv4-opts ipv6-ext vlan qinq vlan6 runt frag4 frag6"
for kind in $MARKED; do
	check "$kind: $N frames crafted and sent" send $kind
	check "$kind: every frame enqueued and sent" all_through
	check "$kind: every frame marked" eq "$D_MARK" $N
	check "$kind: the tap saw them leave with CE" tap_saw ce
	receiver_check $kind
done

# 9000-byte frames on 9000-byte MTUs.
jumbo_mtu() { ip link set $Q mtu "$1" && ip -n rcv link set vr mtu "$1"; }
check "jumbo: MTU 9000 on both ends" jumbo_mtu 9000
check "jumbo: $N frames of 9014 bytes crafted and sent" send jumbo
check "jumbo: every frame enqueued and sent" all_through
check "jumbo: every frame marked" eq "$D_MARK" $N
check "jumbo: the tap saw them leave with CE" tap_saw ce
receiver_check jumbo
jumbo_mtu 1500

check "ce: $N already-CE frames" send ce
check "ce: every frame enqueued and sent" all_through
check "ce: counted as arrived CE, never as our marks" sh -c "[ $D_CE = $N ] && [ $D_MARK = 0 ] && [ $R4 = $N ]"

for kind in nonip arp trunc4 trunc6; do
	check "$kind: $N frames crafted and sent" send $kind
	check "$kind: every frame enqueued and sent" all_through
	check "$kind: none marked, each counted as not markable" sh -c "[ $D_MARK = 0 ] && [ $D_NONECT = $N ]"
	check "$kind: the tap saw them leave" tap_saw
done

check "badihl: $N IPv4 frames with a header length below 5" send badihl
check "badihl: every frame enqueued and sent" all_through
check "badihl: each marked or counted" accounted

# Under non_ect drop a frame that cannot carry CE is dropped where a rule fires (here at every
# dequeue), as RED and CoDel drop what they cannot mark: ARP and other non-IP frames too.
check "non_ect drop" tc qdisc change dev $Q root ecnsharp non_ect drop
for kind in arp nonip; do
	check "$kind under non_ect drop: $N frames crafted and queued" send $kind
	check "$kind under non_ect drop: each dropped at dequeue, counted in drops_nonect" \
		sh -c "[ $D_ENQ = $N ] && [ $D_SENT = 0 ] && [ $D_DROPNONECT = $N ]"
done
check "non_ect pass again" tc qdisc change dev $Q root ecnsharp non_ect pass

# GSO: by default (split_gso on) the qdisc cuts each super-packet into its 8 segments at
# enqueue and marks each; with split_gso off it holds one skb per super-packet and the stack cuts
# it after the qdisc, every segment carrying the mark. TCP over IPv4 and over IPv6.
gso_rx() { [ "$1" = gso ] && echo "$R4" || echo "$R6"; }
for kind in gso gso6; do
	check "$kind: $N TCP super-packets of 8 x 1000 bytes (split_gso on)" send $kind
	check "$kind, split: each cut into 8 segments at enqueue, all sent" sh -c "[ $D_ENQ = $((8 * N)) ] && [ $D_SENT = $((8 * N)) ]"
	check "$kind, split: every segment marked" eq "$D_MARK" $((8 * N))
	check "$kind, split: the tap saw 8 CE segments per super-packet" eq "$TAP_CE" $((8 * N))
	check "$kind, split: the receiver saw CE on every segment" eq "$(gso_rx $kind)" $((8 * N))
done
check "split_gso off" tc qdisc change dev $Q root ecnsharp split_gso off
for kind in gso gso6; do
	check "$kind: $N TCP super-packets (split_gso off)" send $kind
	check "$kind, whole: each enqueued and sent as one packet" all_through
	check "$kind, whole: each marked" eq "$D_MARK" $N
	check "$kind, whole: the tap saw 8 CE segments per super-packet" eq "$TAP_CE" $((8 * N))
	check "$kind, whole: the receiver saw CE on every segment" eq "$(gso_rx $kind)" $((8 * N))
done
check "split_gso on again" tc qdisc change dev $Q root ecnsharp split_gso on

# The books: every band balances, the bands add up to the generic qlen, backlog and bytes, and
# the classes (tc -s class show) add up to the generic packet count: a GSO packet held whole
# counts in both as the kernel's bstats count it (its gso_segs). This network is not quiet (no
# quiet_pair: vq answers the receiver's ARP and neighbour solicitations and sends its own router
# solicitations, into band 1), and the class dump and the qdisc dump are two moments, as are the
# kernel's reads within one dump: a packet the stack sends in between is retried, as
# settled_balanced does.
books() {
	for _try in 1 2 3 4 5; do
		# The classes' generic counters, from tc's text (its class JSON does not parse in 6.1;
		# ecnsharp-tc's shows the band records, which count skbs).
		_cls=$(tc -s class show dev $Q | awk '$1 == "class" { c = ($2 == "ecnsharp") } c && $1 == "Sent" { s += $4; c = 0 } END { print s + 0 }')
		_qj=$(qjson $Q)
		echo "$_qj" | jq -e --argjson cls "${_cls:-null}" '
			all(.bands[]; .enqueued == .packets + .drops_limit + .drops_nonect + .drops_config + .qlen)
			and ([.bands[].qlen] | add) == .qlen and ([.bands[].backlog] | add) == .backlog
			and ([.bands[].bytes] | add) == .bytes and .packets == $cls' >/dev/null && return 0
		sleep 0.2
	done
	MISMATCHES=$((MISMATCHES + 1))
	echo "classes: $_cls packets"
	echo "$_qj"
	return 1
}
check "counters balance after all of it; the classes add up to the qdisc, GSO packets too" books

# Marks at enqueue (mode red, k 1): a frame is marked when it joins a band holding more than one
# packet. The shaper holds them: on 9000-byte MTUs a 9014-byte frame leaves at once and puts the
# bucket (1514 bytes at 8 kbit/s) 7.5 KB in debt, 9 s of tokens; two 1392-byte frames then stay
# queued, and every test frame finds them ahead however slowly the guest sends; a change to
# 1 Gbit/s then lets everything go.
check "mode red k 1 behind a shaper at 8 kbit/s, MTU 9000" sh -c "
	/usr/sbin/ip link set $Q mtu 9000 && /usr/sbin/ip -n rcv link set vr mtu 9000 &&
	/usr/sbin/tc qdisc change dev $Q root ecnsharp mode red k 1 burst 1514 rate 8kbit"
# send_red KIND: the frames that hold the band, then N frames of KIND (send's deltas).
send_red() {
	tc qdisc change dev $Q root ecnsharp rate 8kbit || return 1
	ecnsharp-nlfuzz craft --dev $Q --dst-mac "$PG_MAC" --kind jumbo --count 1 --priority $PRIO >/dev/null 2>&1 &&
		ecnsharp-nlfuzz craft --dev $Q --dst-mac "$PG_MAC" --kind ipv4 --count 2 --size 1350 --priority $PRIO \
			>/dev/null 2>&1 || return 1
	SEND_AFTER="tc qdisc change dev $Q root ecnsharp rate 1gbit" send "$1"
}
RED="ipv4 ipv6-ext vlan qinq vlan6"
for kind in $RED; do
	check "red, $kind: $N frames queued behind two" send_red $kind
	# The frames ahead are counted when the send starts (two, or three when the bucket was still
	# in debt and the jumbo frame waited too).
	check "red, $kind: every frame marked at enqueue, the ones ahead ($AHEAD) and all sent" \
		sh -c "[ $AHEAD -ge 2 ] && [ $D_ENQ = $N ] && [ $D_MARK = $N ] && [ $D_SENT = $((N + AHEAD)) ] ||
			{ echo 'ahead $AHEAD enqueued $D_ENQ marked $D_MARK sent $D_SENT, tap $TAP_FRAMES frames $TAP_CE CE'; exit 1; }"
	check "red, $kind: the tap saw them leave with CE" sh -c "[ ${TAP_CE:-0} -ge $N ]"
done
for kind in gso gso6; do
	check "red, $kind: $N super-packets queued behind two" send_red $kind
	check "red, $kind: every segment marked at enqueue" \
		sh -c "[ $AHEAD -ge 2 ] && [ $D_ENQ = $((8 * N)) ] && [ $D_MARK = $((8 * N)) ] && [ $D_SENT = $((8 * N + AHEAD)) ]"
	check "red, $kind: the receiver saw CE on every segment" sh -c "[ $(gso_rx $kind) -ge $((8 * N)) ]"
done
jumbo_mtu 1500
tc qdisc del dev $Q root
pg_teardown
check "module unloads" rmmod sch_ecnsharp
reliability "counter_mismatches=$MISMATCHES"
ktap_end
