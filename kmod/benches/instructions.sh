#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Instructions per packet of each case of kmod/benches/per_packet.rs, counted by callgrind: the
# same count for the same binary and inputs whatever else loads the machine, unlike a timing.
#
#   kmod/benches/instructions.sh [CASE...]   (default: every case; a case as per_packet names it)
#
# Each case runs twice, for PACKETS and 2 x PACKETS packets (default 200000), and the difference
# of the two totals over PACKETS is its cost per packet: start-up and the first packets' cold
# paths cancel. Prints one line per case: instructions per packet, and the same over the FIFO
# reference it is compared with. CALLGRIND_ANNOTATE=1 also keeps the longer run's profile and
# prints callgrind_annotate's per-function table for it (inlined code charged to the function
# it came from, as the debug info of the bench profile says).
set -euo pipefail
cd "$(dirname "$0")/../.."
PACKETS=${PACKETS:-200000}
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
bin=$(cargo bench --locked -p ecnsharp --bench per_packet --no-run 2>&1 |
	sed -n 's/.*Executable .*(\(.*\))$/\1/p' | tail -n 1)
[ -x "$bin" ] || { echo "instructions.sh: no per_packet binary built" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# total CASE N: instructions callgrind counts for N packets of CASE.
total() {
	PER_PACKET_PROFILE="$1" PER_PACKET_PACKETS="$2" valgrind --tool=callgrind \
		--callgrind-out-file="$work/out.$2" "$bin" >/dev/null 2>"$work/log" ||
		{ cat "$work/log" >&2; return 1; }
	sed -n 's/^summary: \([0-9]*\)$/\1/p' "$work/out.$2"
}

if [ $# -eq 0 ]; then
	set -- "reference: 1 FIFO push+pop" "reference: 8 FIFOs push+pop" "reference: 1 FIFO, 1 deep" \
		"marking alone (ECN#)" "engine: 1 band DWRR" "engine: 8 bands DWRR" "engine: 1 band SP" \
		"engine: 8 bands WFQ" "1 deep: 1 band, all marked" "1 deep: 1 band, none marked" \
		"1 deep: 8 bands DWRR, all marked" "1 deep: 8 bands DWRR, none marked"
fi
declare -A per
printf '%-36s %12s %14s\n' "case ($PACKETS packets)" "instr/pkt" "- reference"
for c in "$@"; do
	a=$(total "$c" "$PACKETS")
	b=$(total "$c" $((2 * PACKETS)))
	per[$c]=$(awk -v a="$a" -v b="$b" -v n="$PACKETS" 'BEGIN { printf "%.1f", (b - a) / n }')
	case $c in
	"reference"*) ref= ;;
	"1 deep"*) ref="reference: 1 FIFO, 1 deep" ;;
	*8\ bands*) ref="reference: 8 FIFOs push+pop" ;;
	"engine"*) ref="reference: 1 FIFO push+pop" ;;
	*) ref= ;;
	esac
	over=
	if [ -n "$ref" ] && [ -n "${per[$ref]:-}" ]; then
		over=$(awk -v x="${per[$c]}" -v r="${per[$ref]}" 'BEGIN { printf "%.1f", x - r }')
	fi
	printf '%-36s %12s %14s\n' "$c" "${per[$c]}" "$over"
	if [ "${CALLGRIND_ANNOTATE:-0}" = 1 ]; then
		callgrind_annotate --inclusive=no "$work/out.$((2 * PACKETS))" | sed -n '1,60p'
	fi
done
