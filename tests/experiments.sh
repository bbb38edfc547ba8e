#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make experiments-qemu: the ECN# paper's scenarios on the qemu TCG bench kernel, every rate
# divided by 500 and every time multiplied by 500 (docs/results/README.md; the paper's regime is
# make experiments, tests/uml/experiments.sh).
# Boots one VM that runs tests/vm/experiments/run.sh (every scheme, interleaved rounds), keeps
# its measurements in docs/results/experiments.tsv and series.tsv, the run's context (host load,
# guest diagnostics) in docs/results/experiments-run.txt, then draws summary.json, tables.md and
# the SVG plots with ecnsharp-plot, and ends with one line per scenario.
# Usage: tests/experiments.sh [KEY=VALUE...] [SCENARIO...]  (knobs: see tests/vm/experiments/run.sh;
# EXPERIMENTS_OUT=DIR writes elsewhere than docs/results, e.g. for a short trial run)
set -euo pipefail
cd "$(dirname "$0")/.."
tests/vm/deps.sh
out=${EXPERIMENTS_OUT:-docs/results}
mkdir -p "$out"
# EXPERIMENTS_LOG=FILE keeps the console (the raw measurements) there.
log=${EXPERIMENTS_LOG:-$(mktemp)}
[ -n "${EXPERIMENTS_LOG:-}" ] || trap 'rm -f "$log"' EXIT
start=$(date -u +%FT%TZ)
load_before=$(uptime)
t0=$(date +%s)
# The console shows the progress lines only (the measurements go to the log).
tests/vm/run-in-vm --timeout "${EXPERIMENTS_TIMEOUT:-3000}" --log "$log" \
	tests/vm/experiments/run.sh "$@" | while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in "# "* | "[vm]"*) printf '%s\n' "$line" ;; esac
done
t1=$(date +%s)
tr -d '\r' <"$log" | awk -F'\t' '$1 == "R" && NF == 7' | cut -f2- >"$out/experiments.tsv"
tr -d '\r' <"$log" | awk -F'\t' '$1 == "S" && NF == 6' | cut -f2- >"$out/series.tsv"
{
	echo "make experiments-qemu (qemu TCG bench, rates divided by 500) $*: started $start, $((t1 - t0)) s in the VM (kernel cached)"
	echo "host load before: $load_before"
	echo "host load after:  $(uptime)"
	echo "guest diagnostics:"
	tr -d '\r' <"$log" | grep '^# ' || true
} >"$out/experiments-run.txt"
[ -s "$out/experiments.tsv" ] || { echo "experiments: no measurements (see the console above)"; exit 1; }
cargo build --release --locked -q -p ecnsharp-plot
target/release/ecnsharp-plot "$out"
