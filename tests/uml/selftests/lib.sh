# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Guest-side library of the virtual-time selftests (tests/uml/selftests/*.sh, each booted in
# User-Mode Linux by tests/uml/selftests.sh): the qemu guest's library (KTAP lines, pktgen, tc
# readers) and schedules predicted to the nanosecond. In virtual time the shaper's watchdog
# fires when it was asked to (late_max is checked) and the CPU takes no time, so a burst leaves
# exactly on its schedule and every sojourn is known before the packets are sent.
. "$ECNSHARP_REPO/tests/vm/guest/lib.sh"
. "$ECNSHARP_REPO/tests/vm/guest/hostile.sh"

# schedule COUNT SIZE BURST RATE_BPS: the sojourn, in ns, of each of COUNT packets of SIZE bytes
# that arrive together at a full bucket of BURST bytes drained at RATE_BPS: packet k (from 0)
# leaves once the bucket and the tokens earned since cover k+1 packets.
schedule() {
	awk -v n="$1" -v s="$2" -v b="$3" -v r="$4" 'BEGIN {
		for (k = 0; k < n; k++) { t = ((k + 1) * s - b) * 8e9 / r; printf "%.0f\n", (t > 0 ? t : 0) } }'
}

# above NS: how many of the sojourns on stdin lie strictly above NS.
above() { awk -v x="$1" '$1 > x { c++ } END { print c + 0 }'; }

# hist_awk: awk functions for the qdisc's sojourn buckets (kmod/src/histogram.rs): below 1024 ns,
# then each octave of ns split at its middle. lower(ns) is a sojourn's bucket's lower edge;
# margin(ns) how far the sojourn lies from the nearest edge.
# shellcheck disable=SC2016 # awk source
hist_awk='
function lower(ns,  b) { if (ns < 1024) return 0; b = 1024; while (b * 2 <= ns) b *= 2
	return (ns >= b * 1.5) ? b * 1.5 : b }
function margin(ns,  l, u) { l = lower(ns); u = (l == 0) ? 1024 : ((l % 3 == 0) ? l / 3 * 4 : l * 1.5)
	return (ns - l < u - ns) ? ns - l : u - ns }'

# hist_predicted: the histogram the sojourns on stdin fill, "LOWER_NS COUNT" per bucket.
hist_predicted() {
	awk "$hist_awk"' { c[lower($1)]++ } END { for (l in c) printf "%.0f %d\n", l, c[l] }' | sort -n
}

# edge_margin: how close (ns) the sojourns on stdin come to a bucket edge, sojourn 0 aside
# (a packet that leaves in the call that queued it waits no time at all).
edge_margin() {
	awk "$hist_awk"' $1 > 0 { m = margin($1); if (!seen || m < best) best = m; seen = 1 }
		END { printf "%.0f\n", seen ? best : 1e18 }'
}

# hist_measured DEV [CLASS]: the histogram of sojourns the qdisc measured for a band (class
# 1:1 by default), "LOWER_NS COUNT" per non-empty bucket.
hist_measured() {
	ecnsharp-tc -s -j class show dev "$1" |
		jq -r --arg c "${2:-1:1}" '[.[] | select(.handle == $c)][0].stats.band.sojourn_hist[] | "\(.ge_ns) \(.packets)"' |
		sort -n
}

# same_text A B: A and B are the same text, else both are shown.
same_text() {
	[ "$1" = "$2" ] || { printf 'got:\n%s\nexpected:\n%s\n' "$1" "$2"; return 1; }
}

# dump_now DEV: the root qdisc's "BYTES NOW_NS" from one dump (the kernel's clock at the dump).
dump_now() { qjson "$1" | jq -r '"\(.bytes) \(.now)"'; }

# pg_clear, for UML's one CPU: the guest library's version also writes kpktgend_1, which only a
# second CPU has (the shell complains before its 2>/dev/null applies).
pg_clear() {
	for _t in /proc/net/pktgen/kpktgend_*; do echo "rem_device_all" >"$_t"; done
	_n=0
	while [ "$(echo /proc/net/pktgen/vq*)" != "/proc/net/pktgen/vq*" ]; do
		_n=$((_n + 1))
		[ $_n -gt 100 ] && { echo "pktgen: old streams not removed"; return 1; }
		sleep 0.01
	done
}
