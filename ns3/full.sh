#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make ns3-full: the runs of docs/results/ns3/rule.md (the ECN# paper's 5.3 leaf-spine FCT
# sweep, Figures 10 and 11, the labelled sensitivity runs) with ns3::EcnSharpQueueDisc, then the
# tables and figures of docs/results/ns3 from runs.txt (ns3/plot.py).
#
# Each run appends one line to docs/results/ns3/runs.txt, keyed by its arguments and the model
# (the git trees of kmod/src, ns3/ffi, ns3/model, ns3/sim, ns3/workloads, ns3/Makefile and the
# ns-3 version): `key=K model=M commit=C part=P wall_s=T workload=W <ecnsharp-dc's line>
# detail=runs/K.txt.gz args=A,B,...`,
# its flows, ports and queue samples in runs/K.txt.gz; a run that fails appends a line to
# docs/results/ns3/failed.txt instead (one stopped by SIGTERM, as `pkill` stops a sweep, is
# neither). A run whose key is in runs.txt is not run again, so an
# interrupted sweep resumes and a changed model runs afresh; uncommitted changes to the model
# are refused, and so are build inputs outside the key (the toolchain, the crates' manifests,
# CXX/CXXFLAGS) that differ from the model's first run. A 128-host F9 web-search run takes about 2 minutes of one core, a
# data-mining one 6-14, an incast run 1-4; all of it takes many hours on 2 cores. Parts, in
# the rule's order:
#   NS3_PARTS="f10 f11 f9-ws-even s1 s2 s3 f9-ws-odd f9-dm q f11x f11lo"  (the default: all; q is
#   make ns3's leaf-spine point, so that the page can show its line from runs.txt; f9-dm-even
#   and f9-dm-odd are f9-dm's two halves; f11x is F11 for the other two schemes, rule.md's
#   addendum; f11lo is F11 below N = 25, its addendum of 2026-11-30)
#   NS3_JOBS=2 (runs in parallel)  NS3_SEEDS="1 2 3"  NS3_LIST=1 (print the runs to do, run none)
#   NS3_AT=COMMIT (the runs of that commit's model, below)
set -euo pipefail
cd "$(dirname "$0")/.."

PARTS=${NS3_PARTS-f10 f11 f9-ws-even s1 s2 s3 f9-ws-odd f9-dm q f11x f11lo}
JOBS=${NS3_JOBS:-2}
SEEDS=${NS3_SEEDS:-1 2 3}
RESULTS=docs/results/ns3
RUNS=$RESULTS/runs.txt
OUT=target/ns3
MODEL_PATHS=(kmod/src ns3/ffi ns3/model ns3/sim ns3/workloads ns3/Makefile)

tests/ns3/deps.sh --plots
# NS3_AT=COMMIT: the runs of an earlier commit's model (to complete or repeat a page made with
# it after the model changed), by that commit's own ns3/full.sh in a worktree under
# target/ns3/, recording into this tree's docs/results/ns3 (the worktree's is a link to it);
# then this tree's ns3/plot.py renders the page for that model.
if [ -n "${NS3_AT:-}" ]; then
	at=$(git rev-parse --verify --quiet "$NS3_AT^{commit}") ||
		{ echo "ns3-full: NS3_AT=$NS3_AT is not a commit of this repository" >&2; exit 1; }
	tree=$OUT/at-${at:0:12}
	# (git records the worktree in .git/worktrees/; -f takes over a registration whose directory
	# is gone, e.g. after make clean.)
	if [ ! -e "$tree/.git" ]; then
		git worktree add -f -q --detach "$tree" "$at"
	fi
	if [ ! -L "$tree/$RESULTS" ]; then
		rm -rf "${tree:?}/$RESULTS"
		mkdir -p "$(dirname "$tree/$RESULTS")"
		ln -s "$PWD/$RESULTS" "$tree/$RESULTS"
	fi
	model=$( (for p in "${MODEL_PATHS[@]}"; do git rev-parse "$at:$p"; done
		pkg-config --modversion ns3-core) | sha1sum | cut -c1-12)
	echo "ns3-full: model $model of commit ${at:0:12}, in $tree"
	# Its full.sh renders the page with its own plot.py at the end (its exit status counts that
	# too): rendered again below by this tree's.
	rc=0
	(cd "$tree" && unset NS3_AT && bash ns3/full.sh) || rc=$?
	[ -z "${NS3_LIST:-}" ] || exit "$rc"
	cargo build --release --locked -q -p ecnsharp-plot
	ECNSHARP_PLOT=$PWD/target/release/ecnsharp-plot python3 ns3/plot.py "$RESULTS" "$model"
	exit "$rc"
fi
. ns3/sender.sh
if ! git diff --quiet HEAD -- "${MODEL_PATHS[@]}" || [ -n "$(git ls-files --others --exclude-standard -- "${MODEL_PATHS[@]}")" ]; then
	echo "ns3-full: uncommitted changes in ${MODEL_PATHS[*]}: commit them first (runs are keyed by the model's commit)" >&2
	exit 1
fi
model=$( (for p in "${MODEL_PATHS[@]}"; do git rev-parse "HEAD:$p"; done; pkg-config --modversion ns3-core) | sha1sum | cut -c1-12)
commit=$(git rev-parse --short=12 HEAD)
# What else builds the binary is not in the key (keying it would orphan the runs made): the
# toolchain, the crates' manifests (profiles, features), the compiler and its flags. A sweep
# that resumes a model must build it as its first run did: those files as at that run's commit,
# and ns3/Makefile's own compiler and flags. (Cargo.lock only pins the core's dev-dependencies:
# the library the simulator links has none.)
BUILD_INPUTS=(rust-toolchain.toml Cargo.toml kmod/Cargo.toml ns3/ffi/Cargo.toml)
if [ -n "${CXX:-}${CXXFLAGS:-}${LDFLAGS:-}" ]; then
	echo "ns3-full: CXX, CXXFLAGS or LDFLAGS set: unset them (the runs' key assumes ns3/Makefile's own)" >&2
	exit 1
fi
first=$(awk -v m="model=$model" '$2 == m { sub(/^commit=/, "", $3); print $3; exit }' "$RUNS" 2>/dev/null || true)
if [ -n "$first" ] && ! git diff --quiet "$first" -- "${BUILD_INPUTS[@]}"; then
	echo "ns3-full: ${BUILD_INPUTS[*]} changed since model $model's first run (commit $first):" \
		"its runs would not all come from one build; restore them or change the model" >&2
	exit 1
fi
nice -n 10 make -s -C ns3 -j2
mkdir -p "$RESULTS/runs" "$OUT/full"
# The sweep runs its own copy: a rebuild meanwhile must not change the model under a key.
BIN=$OUT/full/ecnsharp-dc-$model
[ -x "$BIN" ] || cp "$OUT/ecnsharp-dc" "$BIN"
touch "$RUNS"

SCHEMES="ecnsharp red_tail red_avg codel tcn"
FABRIC="--scenario=leafspine --leaves=8 --hostsPerLeaf=16 --spines=8 --shortFlows=667"
INCAST="--scenario=incast --cdf=ns3/workloads/data-mining.cdf --load=0.9 --launch=4"
jobs=$OUT/full/jobs.txt
: >"$jobs"
# The sender and host model of the runs added (ns3/sender.sh): the headline's but in S2.
SENDER=$HEADLINE_SENDER
# add PART ARGS...: one run with $SENDER, unless its key is in runs.txt.
add() {
	local part=$1 args key
	shift
	args="$* $SENDER"
	key=$(printf '%s %s' "$model" "$args" | sha1sum | cut -c1-12)
	grep -q "^key=$key " "$RUNS" && return 0
	echo "$key|$part|$args" >>"$jobs"
}
f9() { # PART WORKLOAD "LOADS" "SCHEMES" EXTRA...
	local part=$1 w=$2 loads=$3 schemes=$4 seed load s
	shift 4
	for load in $loads; do for s in $schemes; do for seed in $SEEDS; do
		add "$part" "$FABRIC --cdf=ns3/workloads/$w.cdf --load=$load --scheme=$s --seed=$seed" "$@"
	done; done; done
}
incast() { # PART "QUERIES" "SCHEMES" EXTRA...
	local part=$1 queries=$2 schemes=$3 seed n s
	shift 3
	for n in $queries; do for s in $schemes; do for seed in $SEEDS; do
		add "$part" "$INCAST --queries=$n --scheme=$s --seed=$seed" "$@"
	done; done; done
}
for part in $PARTS; do
	case $part in
	f10) incast f10 100 "$SCHEMES" ;;
	f11) incast f11 "25 50 75 100 125 150 175 200" "ecnsharp red_tail codel" ;;
	f11x) incast f11x "25 50 75 100 125 150 175 200" "red_avg tcn" ;; # rule.md's F11 addendum
	f11lo) incast f11lo "5 10 15 20" "$SCHEMES" ;; # rule.md's addendum of 2026-11-30
	f9-ws-even) f9 f9 web-search "0.8 0.4 0.6 0.2" "$SCHEMES" ;; # the loudest loads first
	f9-ws-odd) f9 f9 web-search "0.1 0.3 0.5 0.7 0.9" "$SCHEMES" ;;
	f9-dm) f9 f9 data-mining "0.8 0.4 0.6 0.2 0.1 0.3 0.5 0.7 0.9" "$SCHEMES" ;;
	f9-dm-even) f9 f9 data-mining "0.8 0.4 0.6 0.2" "$SCHEMES" ;; # f9-dm in two halves
	f9-dm-odd) f9 f9 data-mining "0.1 0.3 0.5 0.7 0.9" "$SCHEMES" ;;
	s1)
		f9 s1 web-search "0.4 0.8" "$SCHEMES" --lambda=1 --variant=lambda1
		incast s1 100 "$SCHEMES" --lambda=1 --variant=lambda1
		;;
	s2)
		SENDER=$S2_SENDER
		f9 s2 web-search "0.4 0.8" "ecnsharp red_tail"
		incast s2 100 "ecnsharp red_tail"
		SENDER=$HEADLINE_SENDER
		;;
	s3)
		incast s3 100 "ecnsharp red_tail codel" --lambda=1 --pstTarget=10us --codelTarget=10us \
			--codelInterval=240us --variant=authors
		;;
	q)
		for s in ecnsharp red_tail; do for seed in $SEEDS; do
			add q "--scenario=leafspine --leaves=2 --hostsPerLeaf=8 --spines=4 --load=0.8 --launch=0.04 --cdf=ns3/workloads/web-search.cdf --scheme=$s --seed=$seed"
		done; done
		;;
	*) echo "ns3-full: unknown part '$part' (f10 f11 f11x f11lo f9-ws-even f9-ws-odd f9-dm f9-dm-even f9-dm-odd s1 s2 s3 q)" >&2; exit 1 ;;
	esac
done
# A run listed twice (f11's N = 100 is f10's) runs once.
awk -F'|' '!seen[$1]++' "$jobs" >"$jobs.uniq" && mv "$jobs.uniq" "$jobs"
echo "ns3-full: model $model (commit $commit): $(wc -l <"$jobs") runs to do, $JOBS at a time"
if [ -n "${NS3_LIST:-}" ]; then
	cut -d'|' -f2,3 "$jobs"
	exit 0
fi

one() {
	local key=${1%%|*} rest=${1#*|} part args line start wall
	part=${rest%%|*}
	args=${rest#*|}
	# Another sweep may have run it meanwhile.
	if grep -q "^key=$key " "$RUNS"; then
		echo "ns3-full: $part $args: already in runs.txt"
		return 0
	fi
	start=$(date +%s.%N)
	# shellcheck disable=SC2086 # the arguments are words
	local rc=0
	line=$(nice -n 15 "$BIN" $args --detailOut="$OUT/full/$key.detail" 2>"$OUT/full/$key.err") || rc=$?
	if [ "$rc" -eq 143 ]; then
		# SIGTERM: the sweep was stopped by hand (pkill); the run is not made, not failed.
		echo "ns3-full: stopped ($part): $args" >&2
		return 1
	elif [ "$rc" -ne 0 ]; then
		echo "ns3-full: failed ($part, exit $rc): $args" >&2
		cat "$OUT/full/$key.err" >&2
		failed_run "$key" "$part" "$args" "exit_$rc:_$(tail -n 1 "$OUT/full/$key.err")"
		return 1
	fi
	case $line in scenario=*) ;; *)
		echo "ns3-full: no result line from $args" >&2
		failed_run "$key" "$part" "$args" "no result line"
		return 1
		;;
	esac
	wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
	gzip -9 -n -c "$OUT/full/$key.detail" >"$RESULTS/runs/$key.txt.gz"
	rm -f "$OUT/full/$key.detail" "$OUT/full/$key.err"
	# One write per line, so that parallel runs do not interleave.
	workload=${args#*--cdf=ns3/workloads/}
	workload=${workload%%.cdf*}
	printf 'key=%s model=%s commit=%s part=%s wall_s=%s workload=%s %s detail=runs/%s.txt.gz args=%s\n' \
		"$key" "$MODEL" "$COMMIT" "$part" "$wall" "$workload" "$line" "$key" "${args// /,}" >>"$RUNS"
	echo "ns3-full: $part $args: ${wall}s"
}
# failed_run KEY PART ARGS WHY: a failure is recorded, so that the page counts it (a failed run
# is not a run not made); the next sweep tries it again.
failed_run() {
	printf 'key=%s model=%s commit=%s part=%s status=failed args=%s why=%s\n' \
		"$1" "$MODEL" "$COMMIT" "$2" "${3// /,}" "${4// /_}" >>"$RESULTS/failed.txt"
}
export -f one failed_run
export RUNS RESULTS OUT BIN
export MODEL=$model COMMIT=$commit
failed=0
tr '\n' '\0' <"$jobs" | xargs -0 -r -P "$JOBS" -I{} bash -c 'one "$@"' _ {} || failed=1

# The page's bootstrap drawn by ecnsharp-plot (ns3/stats.py: the same draws as Python's).
cargo build --release --locked -q -p ecnsharp-plot
ECNSHARP_PLOT=$PWD/target/release/ecnsharp-plot python3 ns3/plot.py "$RESULTS" "$model"
[ "$failed" -eq 0 ] || { echo "ns3-full: some runs failed (above)" >&2; exit 1; }
