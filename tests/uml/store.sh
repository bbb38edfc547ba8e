# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# store.sh (sourced): where a testbed point's outputs are kept in the point store
# ($ECNSHARP_CACHE/uml-jobs), for tests/uml/experiments.sh, which fills it, and
# tests/uml/collect.sh, which reads it.

# point_key MODEL_KEY SEED ARGS: the point's directory name in the store. ARGS is the point's
# arguments as one string, single spaces between them (a line of plan.txt less its seed), so
# that one point run twice, or by another clone, finds its earlier outputs.
point_key() { printf '%s %s %s\n' "$1" "$2" "$3" | sha256sum | cut -c1-16; }
