#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What split_gso costs in CPU: DCTCP through ecnsharp on the sender's veth (TSO/GSO on, a shaper
# at RATE so every run moves the same bytes per second), split_gso on and off interleaved,
# ROUNDS rounds in one boot. For each run: goodput, and the guest's CPU time (all CPUs: user,
# system, softirq) per gigabyte received, from /proc/stat. Prints one line per run and, per
# setting, the median with the range; the last line scripts read:
#   gso_cost: cpu_per_gb split_on/split_off=R (median of ROUNDS rounds)
# Run: tests/vm/run-in-vm tests/vm/experiments/gso-cost.sh [RATE [SECONDS [ROUNDS]]]
. /test/vm/guest/lib.sh
RATE=${1:-500mbit}
SECS=${2:-5}
ROUNDS=${3:-3}
net_pair || exit 1
# busy: jiffies the CPUs spent on anything but idle and iowait.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
hz=100
: >/tmp/gso-cost
r=1
while [ $r -le "$ROUNDS" ]; do
	for split in on off; do
		tc -n snd qdisc replace dev veth-s root ecnsharp rate "$RATE" limit 10000 split_gso $split || exit 1
		b0=$(busy)
		iperf_run -c 10.0.0.2 -t "$SECS" -C dctcp || { cat /tmp/iperf.err; exit 1; }
		b1=$(busy)
		bytes=$(jq -r '.end.sum_received.bytes' /tmp/iperf.json)
		pkts=$(tc -n snd -s -j qdisc show dev veth-s | jq -r '.[0].packets')
		# CPU milliseconds per GB received.
		ms_per_gb=$(awk -v j=$((b1 - b0)) -v b="$bytes" -v hz=$hz 'BEGIN { printf "%d", j * 1000 / hz / (b / 1e9) }')
		mbps=$(jq -r '.end.sum_received.bits_per_second / 1e6 | floor' /tmp/iperf.json)
		echo "gso-cost: round $r split_gso $split: $mbps Mbit/s, $pkts qdisc packets, ${ms_per_gb} CPU ms per GB"
		echo "$split $ms_per_gb $mbps" >>/tmp/gso-cost
	done
	r=$((r + 1))
done
med() { awk -v k="$1" -v c="$2" '$1 == k { print $c }' /tmp/gso-cost | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'; }
# shellcheck disable=SC2046 # split intended: the fields become $1, $2, ...
set -- $(med on 2)
on=$1
echo "gso-cost: split_gso on: CPU ms per GB median $1 (range $2-$3); goodput median $(med on 3 | cut -d' ' -f1) Mbit/s"
# shellcheck disable=SC2046 # split intended: the fields become $1, $2, ...
set -- $(med off 2)
off=$1
echo "gso-cost: split_gso off: CPU ms per GB median $1 (range $2-$3); goodput median $(med off 3 | cut -d' ' -f1) Mbit/s"
awk -v a="$on" -v b="$off" 'BEGIN { printf "gso_cost: cpu_per_gb split_on/split_off=%.2f (median of '"$ROUNDS"' rounds)\n", a / b }'
net_teardown
