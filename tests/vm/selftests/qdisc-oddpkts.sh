#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Odd packets through ecnsharp: hand-built frames (ecnsharp-nlfuzz craft, an AF_PACKET sender)
# of every kind a switch port meets: plain IPv4, IPv4 with options, IPv6 with extension headers,
# 802.1Q and QinQ tagged IPv4, non-IP, IPv4 and IPv6 headers cut short, IPv4 with a header length
# below 5, already-CE packets and TCP GSO super-packets (split at enqueue, or whole), while a
# tcpdump-like tap (ecnsharp-nlfuzz tap, AF_PACKET ETH_P_ALL on the same device) clones every
# frame the device sends. The qdisc marks every ECT packet it can read at dequeue (mode dequeue,
# k 1), so for each kind: every frame was enqueued and sent; it was marked where the header
# allows (the tap and the receiver see CE, with valid checksums) and counted where not
# (nonect_passed, or ce_already for CE arrivals). No crash (the debug kernel watches).
. /test/vm/guest/lib.sh
. /test/vm/guest/hostile.sh
ktap_begin qdisc-oddpkts

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
b() { bstat $Q 0 "$1"; }

# send KIND: N frames of KIND through the qdisc with the tap running; sets D_* (deltas of the
# band's counters), TAP_* (what the tap saw) and R4/R6/HE (receiver's CE counts, header errors).
send() {
	e0=$(b enqueued); p0=$(b packets); m0=$(b marks); n0=$(b nonect_passed); c0=$(b ce_already)
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
	wait_drained $Q 30
	touch /tmp/tap.stop
	wait $tap
	cat /tmp/craft.out /tmp/tap.out | sed 's/^/# /'
	D_ENQ=$(($(b enqueued) - e0)); D_SENT=$(($(b packets) - p0)); D_MARK=$(($(b marks) - m0))
	D_NONECT=$(($(b nonect_passed) - n0)); D_CE=$(($(b ce_already) - c0))
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

for kind in ipv4 ipv4-opts ipv6-ext vlan qinq; do
	check "$kind: $N frames crafted and sent" send $kind
	check "$kind: every frame enqueued and sent" all_through
	check "$kind: every frame marked" eq "$D_MARK" $N
	check "$kind: the tap saw them leave with CE" tap_saw ce
	case $kind in
	ipv4 | ipv4-opts)
		check "$kind: the receiver saw CE on each, checksums valid" sh -c "[ $R4 = $N ] && [ $HE = 0 ]" ;;
	ipv6-ext)
		check "$kind: the receiver saw CE on each" eq "$R6" $N ;;
	esac
done

check "ce: $N already-CE frames" send ce
check "ce: every frame enqueued and sent" all_through
check "ce: counted as arrived CE, never as our marks" sh -c "[ $D_CE = $N ] && [ $D_MARK = 0 ] && [ $R4 = $N ]"

for kind in nonip trunc4 trunc6; do
	check "$kind: $N frames crafted and sent" send $kind
	check "$kind: every frame enqueued and sent" all_through
	check "$kind: none marked, each counted as not markable" sh -c "[ $D_MARK = 0 ] && [ $D_NONECT = $N ]"
	check "$kind: the tap saw them leave" tap_saw
done

check "badihl: $N IPv4 frames with a header length below 5" send badihl
check "badihl: every frame enqueued and sent" all_through
check "badihl: each marked or counted" accounted

# GSO: by default (split_gso on) the qdisc cuts each super-packet into its 8 segments at
# enqueue and marks each; with split_gso off it holds one skb per super-packet and the stack cuts
# it after the qdisc, every segment carrying the mark.
check "gso: $N TCP super-packets of 8 x 1000 bytes (split_gso on)" send gso
check "gso, split: each cut into 8 segments at enqueue, all sent" sh -c "[ $D_ENQ = $((8 * N)) ] && [ $D_SENT = $((8 * N)) ]"
check "gso, split: every segment marked" eq "$D_MARK" $((8 * N))
check "gso, split: the tap saw 8 CE segments per super-packet" eq "$TAP_CE" $((8 * N))
check "gso, split: the receiver saw CE on every segment" eq "$R4" $((8 * N))
check "split_gso off" tc qdisc change dev $Q root ecnsharp split_gso off
check "gso: $N TCP super-packets (split_gso off)" send gso
check "gso, whole: each enqueued and sent as one packet" all_through
check "gso, whole: each marked" eq "$D_MARK" $N
check "gso, whole: the tap saw 8 CE segments per super-packet" eq "$TAP_CE" $((8 * N))
check "gso, whole: the receiver saw CE on every segment" eq "$R4" $((8 * N))

# The books: every band balances, the bands add up to the generic qlen, backlog and bytes. The
# generic packet count differs by the GSO packets only: the kernel's bstats count a GSO skb as
# its gso_segs, which 6.12 leaves at 0 for an AF_PACKET sender's unverified ("dodgy") GSO
# packets (it computes the segments only for the length), where ecnsharp's bands count skbs.
books() {
	qjson $Q | jq -e --argjson n $N '
		([.bands[].packets] | add) as $p |
		all(.bands[]; .enqueued == .packets + .drops_limit + .drops_nonect + .drops_config + .qlen)
		and ([.bands[].qlen] | add) == .qlen and ([.bands[].backlog] | add) == .backlog
		and ([.bands[].bytes] | add) == .bytes
		and (.packets == $p - $n or .packets == $p + 7 * $n)' >/dev/null ||
		{ MISMATCHES=$((MISMATCHES + 1)); qjson $Q; return 1; }
}
check "counters balance after all of it (GSO packets: the kernel counts their segments)" books
tc qdisc del dev $Q root
pg_teardown
check "module unloads" rmmod sch_ecnsharp
reliability "counter_mismatches=$MISMATCHES"
ktap_end
