# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Guest-side library for selftests: KTAP output and the test network. Sourced by suites that run
# inside the bench VM (tests/vm/run-in-vm), where the repository's tests/ tree is at /test.

# busybox ash runs its own ip/tc applets before PATH: shell functions win over applets, so every
# suite gets iproute2 by these names.
ip() { /usr/sbin/ip "$@"; }
tc() { /usr/sbin/tc "$@"; }
ss() { /usr/bin/ss "$@"; }

KTAP_N=0
KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_PLAN=

# ktap_begin SUITE [PLAN]: start a suite; PLAN (the number of cases it will run) is declared at
# once, or with ktap_plan before the first case. The harness (tests/vm/selftests.sh) fails a
# suite whose plan comes late, is 0, or differs from the cases that ran: a suite cannot skip
# cases silently, nor pass by dying before its first one.
ktap_begin() {
	KTAP_SUITE=$1
	echo "KTAP version 1"
	echo "# suite: $1"
	[ -z "${2:-}" ] || ktap_plan "$2"
}

# ktap_plan N: declare the plan (once, before the first case).
ktap_plan() {
	KTAP_PLAN=$1
	echo "1..$1"
}

ktap_ok() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_PASS=$((KTAP_PASS + 1))
	echo "ok $KTAP_N $KTAP_SUITE: $*"
}

ktap_not_ok() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAIL=$((KTAP_FAIL + 1))
	echo "not ok $KTAP_N $KTAP_SUITE: $*"
}

# ktap_skip DESC REASON: a case that could not run here; never counted as passed.
ktap_skip() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_N $KTAP_SUITE: $1 # SKIP $2"
}

# check DESC CMD...: one case; passes when CMD exits 0, otherwise its output is shown as diagnostics.
check() {
	_desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		ktap_ok "$_desc"
	else
		ktap_not_ok "$_desc"
		sed 's/^/# /' /tmp/check.out | head -n 40
	fi
}

# check_fails DESC CMD...: passes when CMD fails (for invalid input).
check_fails() {
	_desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		ktap_not_ok "$_desc"
		echo "# expected failure, but it succeeded:"
		sed 's/^/# /' /tmp/check.out | head -n 20
	else
		ktap_ok "$_desc"
	fi
}

# diag MSG: a diagnostic line (measurements, context).
diag() { echo "# $*"; }

# ktap_end: print the totals; exit status says whether every case passed and the plan held.
ktap_end() {
	echo "# $KTAP_SUITE: $KTAP_PASS passed, $KTAP_FAIL failed, $KTAP_SKIP skipped (plan ${KTAP_PLAN:-none}, $KTAP_N ran)"
	[ "$KTAP_FAIL" -eq 0 ] && [ "${KTAP_PLAN:-none}" = "$KTAP_N" ]
}

# ge A B / gt A B / le A B: integer comparisons usable with check (busybox test handles 64-bit).
ge() { [ "$1" -ge "$2" ]; }
gt() { [ "$1" -gt "$2" ]; }
le() { [ "$1" -le "$2" ]; }

# netstat_counter NS GROUP NAME: a counter from /proc/net/netstat (e.g. IpExt InCEPkts) in netns NS.
netstat_counter() {
	ip netns exec "$1" cat /proc/net/netstat | awk -v g="$2:" -v n="$3" '
		$1 == g && !hdr { for (i = 2; i <= NF; i++) col[$i] = i; hdr = 1; next }
		$1 == g && hdr { print $(col[n]); exit }'
}

# net_pair: two namespaces, snd and rcv, joined by a veth pair (veth-s in snd, veth-r in rcv),
# 10.0.0.1/24 and 10.0.0.2/24, fd00::1/64 and fd00::2/64; DCTCP with ECN on both ends.
net_pair() {
	net_teardown
	ip netns add snd && ip netns add rcv || return 1
	ip link add veth-s netns snd type veth peer name veth-r netns rcv || return 1
	ip -n snd addr add 10.0.0.1/24 dev veth-s
	ip -n rcv addr add 10.0.0.2/24 dev veth-r
	ip -n snd addr add fd00::1/64 dev veth-s nodad
	ip -n rcv addr add fd00::2/64 dev veth-r nodad
	ip -n snd link set lo up
	ip -n rcv link set lo up
	ip -n snd link set veth-s up
	ip -n rcv link set veth-r up
	# A namespace may pick DCTCP only once the init namespace allows it.
	echo "reno cubic dctcp" >/proc/sys/net/ipv4/tcp_allowed_congestion_control
	for ns in snd rcv; do
		ip netns exec "$ns" sh -c 'echo dctcp >/proc/sys/net/ipv4/tcp_congestion_control &&
			echo 1 >/proc/sys/net/ipv4/tcp_ecn' || return 1
	done
}

net_teardown() {
	ip netns del snd 2>/dev/null
	ip netns del rcv 2>/dev/null
	return 0
}

# iperf_run ARGS...: an iperf3 client in snd towards an iperf3 server in rcv; JSON in /tmp/iperf.json.
iperf_run() {
	ip netns exec rcv iperf3 -s -1 -D -I /tmp/iperf-s.pid >/dev/null 2>&1 || return 1
	wait_listen rcv 5201 || { echo "iperf3 server not listening after 10 s"; return 1; }
	ip netns exec snd iperf3 -J "$@" >/tmp/iperf.json 2>/tmp/iperf.err
	_rc=$?
	[ -f /tmp/iperf-s.pid ] && kill "$(cat /tmp/iperf-s.pid)" 2>/dev/null
	rm -f /tmp/iperf-s.pid
	return $_rc
}

# wait_listen NS PORT [TIMEOUT_S]: until a TCP socket listens on PORT in namespace NS (10 s by
# default). A fixed sleep after starting a server loses the race on a slow or loaded guest.
wait_listen() {
	_n=0
	until ip netns exec "$1" /usr/bin/ss -Hltn "sport = :$2" | grep -q .; do
		_n=$((_n + 1))
		[ $_n -gt $((${3:-10} * 10)) ] && return 1
		sleep 0.1
	done
}

# await_count WANT CMD...: poll CMD (which prints a number) every 0.1 s until it prints at least
# WANT, for up to 5 s; returns 0 either way, the caller compares the value then. After
# wait_drained a packet the qdisc already released can still sit in the other vCPU's backlog on
# its way to the receiver's counters, so an exact count read at once depends on guest speed.
await_count() {
	_want=$1
	shift
	_n=0
	while :; do
		_v=$("$@")
		[ -n "$_v" ] && [ "$_v" -ge "$_want" ] 2>/dev/null && return 0
		_n=$((_n + 1))
		[ $_n -ge 50 ] && return 0
		sleep 0.1
	done
}

# near A B TOL: A and B are numbers and |A - B| <= TOL.
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { n = "^-?[0-9]+([.][0-9]+)?$"
		if (a !~ n || b !~ n) exit 1; d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "got $1, expected $2 (+-$3)"; return 1; }
}
# between V LO HI: V is a number and LO <= V <= HI.
between() {
	awk -v v="$1" -v l="$2" -v h="$3" 'BEGIN { if (v !~ "^-?[0-9]+([.][0-9]+)?$") exit 1; exit !(v >= l && v <= h) }' ||
		{ echo "got $1, expected between $2 and $3"; return 1; }
}

# ---- Exact traffic with pktgen (no userspace sender): the qdisc under test sits on "vq" in the
# init namespace; its peer "vr" lives in namespace rcv, which counts what arrives.

# pg_pair [TXQUEUES]: vq (10.1.0.1, fd01::1) in the init namespace <-> vr (10.1.0.2, fd01::2) in
# rcv; with TXQUEUES > 1 both ends are multiqueue (for mq).
pg_pair() {
	pg_teardown
	ip netns add rcv || return 1
	_q=${1:-1}
	ip link add vq numtxqueues $_q numrxqueues $_q type veth \
		peer name vr numtxqueues $_q numrxqueues $_q netns rcv || return 1
	ip addr add 10.1.0.1/24 dev vq
	ip addr add fd01::1/64 dev vq nodad
	ip -n rcv addr add 10.1.0.2/24 dev vr
	ip -n rcv addr add fd01::2/64 dev vr nodad
	ip link set vq up
	ip -n rcv link set lo up
	ip -n rcv link set vr up
	# One packet per skb, as a switch port sees them.
	ethtool -K vq tso off gso off >/dev/null 2>&1
	PG_MAC=$(ip -n rcv -j link show vr | jq -r '.[0].address')
}

pg_teardown() {
	[ -w /proc/net/pktgen/kpktgend_0 ] && echo "rem_device_all" >/proc/net/pktgen/kpktgend_0
	[ -w /proc/net/pktgen/kpktgend_1 ] && echo "rem_device_all" >/proc/net/pktgen/kpktgend_1
	ip link del vq 2>/dev/null
	ip netns del rcv 2>/dev/null
	return 0
}

# pg_send COUNT SIZE [PKTGEN-COMMAND...]: send COUNT UDP packets of SIZE bytes from vq through its
# root qdisc (xmit_mode queue_xmit) to vr, as fast as pktgen goes; each extra argument is one
# pktgen command (e.g. "tos 02", "skb_priority 1", "dst6 fd01::2"). Returns when all are sent.
pg_send() {
	_count=$1
	_size=$2
	shift 2
	_d=/proc/net/pktgen/vq
	# Every thread: a stream pg_streams left on another one (count 0: endless) would start too,
	# and "start" would never return; and only once the threads have removed them (seen: the 40
	# packets of pg_counted's last stream started again beside a 1-packet pg_send).
	pg_clear || return 1
	echo "add_device vq" >/proc/net/pktgen/kpktgend_0 || return 1
	for _c in "count $_count" "pkt_size $_size" "delay 0" "clone_skb 0" "burst 1" \
		"xmit_mode queue_xmit" "dst 10.1.0.2" "dst_mac $PG_MAC" "udp_dst_min 9" "udp_dst_max 9" "$@"; do
		echo "$_c" >$_d || { echo "pktgen refused: $_c"; return 1; }
	done
	echo start >/proc/net/pktgen/pgctrl
}

# pg_spread_us: how long the last pg_send took pktgen to put its packets into the queue, in
# microseconds (its own "Result: OK: USEC(...)" line; 0 when there is none). A guest stalled
# mid-burst enqueues the later packets late, which shortens their sojourns by up to this much.
pg_spread_us() {
	sed -n 's/^Result: OK: \([0-9]*\)(.*/\1/p' /proc/net/pktgen/vq 2>/dev/null | head -n 1 |
		awk '{ v = $1 } END { print v + 0 }'
}

# pg_clear: every pktgen stream removed from every thread, and gone. The threads remove devices
# on their own time: adding a name still listed fails, and "start" would run it again.
pg_clear() {
	echo "rem_device_all" >/proc/net/pktgen/kpktgend_0
	echo "rem_device_all" >/proc/net/pktgen/kpktgend_1 2>/dev/null
	_n=0
	# shellcheck disable=SC2010 # /proc/net/pktgen holds plain device names
	while ls /proc/net/pktgen | grep -q '^vq'; do
		_n=$((_n + 1))
		[ $_n -gt 100 ] && { echo "pktgen: old streams not removed"; return 1; }
		sleep 0.1
	done
}

# pg_streams SECONDS SIZE SPEC...: several concurrent streams on vq, one per SPEC, each a
# ";"-separated list of pktgen commands (e.g. "skb_priority 0;tos 02"); they run for SECONDS.
# Streams are spread over the pktgen threads (stream i on thread i mod 2). A thread serves the
# stream with the earliest next transmit time, so delay-0 streams sharing a thread starve all
# but one of them: give such streams a delay.
pg_streams() {
	_secs=$1
	shift
	pg_setup_streams 0 "$@" || return 1
	echo start >/proc/net/pktgen/pgctrl &
	_pg=$!
	sleep "$_secs"
	pg_stop_all $_pg
}

# pg_counted COUNT SIZE SPEC...: as pg_streams, but each stream sends COUNT packets, started in
# the background (PG_PID: reap it with pg_stop_all). pktgen's "start" returns only once the
# last packet of each stream has been freed, which a slow shaper may hold back for minutes: wait
# for the qdisc's own counters instead.
pg_counted() {
	pg_setup_streams "$@" || return 1
	echo start >/proc/net/pktgen/pgctrl &
	# shellcheck disable=SC2034 # read by the suites that source this
	PG_PID=$!
}

# pg_setup_streams COUNT SIZE SPEC...: the streams of pg_streams and pg_counted (COUNT 0: endless).
pg_setup_streams() {
	_count=$1
	_size=$2
	shift 2
	pg_clear || return 1
	_i=0
	for _spec in "$@"; do
		_t=kpktgend_$((_i % 2))
		[ -w /proc/net/pktgen/$_t ] || _t=kpktgend_0
		echo "add_device vq@$_i" >/proc/net/pktgen/$_t || return 1
		_d=/proc/net/pktgen/vq@$_i
		for _c in "count $_count" "pkt_size $_size" "delay 0" "clone_skb 0" "burst 1" \
			"xmit_mode queue_xmit" "dst 10.1.0.2" "dst_mac $PG_MAC" "udp_dst_min 9" "udp_dst_max 9"; do
			echo "$_c" >$_d || return 1
		done
		echo "$_spec" | tr ';' '\n' | while read -r _c; do
			[ -z "$_c" ] || echo "$_c" >$_d || echo "pktgen refused: $_c"
		done
		_i=$((_i + 1))
	done
}

# pg_stop_all PID: stop every pktgen stream and reap PID (the background "start" writer).
# A pktgen thread takes "stop" as a flag it reads on its own time; when that races with its
# handling of "start" it misses the stop and streams on (count 0: for ever), and the writer
# waits for it for ever. So stop again until no thread lists a running device, then reap.
pg_stop_all() {
	_tries=0
	while :; do
		echo stop >/proc/net/pktgen/pgctrl
		sleep 0.2
		grep -q '^Running: *[^ ]' /proc/net/pktgen/kpktgend_* 2>/dev/null || break
		_tries=$((_tries + 1))
		if [ $_tries -ge 50 ]; then
			echo "# pktgen: streams still running after 50 stops: $(grep -h '^Running' /proc/net/pktgen/kpktgend_*)"
			kill "$1" 2>/dev/null
			break
		fi
	done
	[ $_tries -gt 0 ] && echo "# pktgen: a stream missed a stop; stopped after $((_tries + 1)) tries"
	wait "$1" 2>/dev/null
	return 0
}

# fill COUNT: COUNT ICMP echo requests of 1014 bytes on the wire (1000 IP) from vq, 100 per
# second, without waiting for them to leave (pktgen waits until its last packet is freed, so it
# cannot leave packets stuck behind a starved shaper).
fill() {
	ping -q -c "$1" -i 0.01 -s 972 -w $(($1 / 100 + 2)) 10.1.0.2 >/dev/null 2>&1
	return 0
}

# wait_drained DEV [TIMEOUT_S]: until DEV's root qdisc holds no packet.
wait_drained() {
	_n=0
	while [ "$(tc -s -j qdisc show dev "$1" | jq -r '.[0].qlen')" != 0 ]; do
		_n=$((_n + 1))
		[ $_n -gt $((${2:-20} * 10)) ] && return 1
		sleep 0.1
	done
}

# snmp6_counter NS NAME: an IPv6 counter from /proc/net/snmp6 in netns NS.
snmp6_counter() {
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/snmp6
}

# snmp_counter NS GROUP NAME: a counter from /proc/net/snmp (e.g. Ip InHdrErrors) in netns NS.
snmp_counter() {
	ip netns exec "$1" cat /proc/net/snmp | awk -v g="$2:" -v n="$3" '
		$1 == g && !hdr { for (i = 2; i <= NF; i++) col[$i] = i; hdr = 1; next }
		$1 == g && hdr { print $(col[n]); exit }'
}

# uptime_ms: milliseconds since boot (10 ms resolution), for rates over seconds.
uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# ---- Reading an ecnsharp qdisc back through tc's JSON (the q_ecnsharp.so plugin prints it).
# qopt DEV KEY: an option of DEV's root qdisc. qstat DEV KEY: a generic counter or a qdisc-wide
# xstat. bstat DEV BAND KEY: a per-band xstat. All raw JSON values (times in microseconds).
qjson() { tc -s -j qdisc show dev "$1" | jq -c '[.[] | select(.root == true)][0]'; }
qopt() { qjson "$1" | jq -c ".options.$2"; }
qstat() { qjson "$1" | jq -r ".$2"; }
bstat() { qjson "$1" | jq -r ".bands[$2].$3"; }

# bands_balanced DEV: every band's counters balance: enqueued = sent + drops + queued. The band
# records are one snapshot (taken under the qdisc lock), so this holds under traffic too.
BANDS_BALANCE='.bands | all(.enqueued == .packets + .drops_limit + .drops_nonect + .drops_config
	+ .qlen)'
bands_balanced() {
	qjson "$1" | jq -e "$BANDS_BALANCE" >/dev/null || { qjson "$1"; return 1; }
}

# qdisc_balanced DEV: bands_balanced, and the bands add up to the qdisc's generic counters.
# The kernel reads qlen before our xstats and bstats after them, without the qdisc lock
# (tc_fill_qdisc), so a packet a shaper sends during the dump makes one snapshot disagree: the
# bands must balance in every snapshot, the sums in one of five (a real mismatch stays).
qdisc_balanced() {
	_qb=0
	while :; do
		_qj=$(qjson "$1")
		printf '%s\n' "$_qj" | jq -e "$BANDS_BALANCE" >/dev/null || { echo "$_qj"; return 1; }
		printf '%s\n' "$_qj" | jq -e '([.bands[].packets] | add) == .packets
			and ([.bands[].qlen] | add) == .qlen
			and ([.bands[].backlog] | add) == .backlog' >/dev/null && return 0
		_qb=$((_qb + 1))
		[ $_qb -lt 5 ] || { echo "$_qj"; return 1; }
	done
}
