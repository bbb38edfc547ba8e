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

# ktap_begin SUITE: start a suite.
ktap_begin() {
	KTAP_SUITE=$1
	echo "KTAP version 1"
	echo "# suite: $1"
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

# ktap_end: print the plan and totals; exit status says whether every case passed.
ktap_end() {
	echo "1..$KTAP_N"
	echo "# $KTAP_SUITE: $KTAP_PASS passed, $KTAP_FAIL failed, $KTAP_SKIP skipped"
	[ "$KTAP_FAIL" -eq 0 ]
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
	sleep 0.3
	ip netns exec snd iperf3 -J "$@" >/tmp/iperf.json 2>/tmp/iperf.err
	_rc=$?
	[ -f /tmp/iperf-s.pid ] && kill "$(cat /tmp/iperf-s.pid)" 2>/dev/null
	rm -f /tmp/iperf-s.pid
	return $_rc
}
