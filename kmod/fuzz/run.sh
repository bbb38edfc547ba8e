#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs every cargo-fuzz target of the ecnsharp core for SECONDS each (default 30) and exits
# non-zero if any of them crashed (a crash input is left in artifacts/TARGET/).
#
# cargo-fuzz needs nightly `-Z` flags; RUSTC_BOOTSTRAP=1 lets the pinned stable toolchain accept
# them, so the fuzzers are built by the same rustc as the kernel module. The core has no unsafe
# code, so AddressSanitizer could find nothing that Rust's checks do not: the targets are built
# without a sanitizer but with debug assertions, which turn overflow checks on as in the kernel.
set -euo pipefail

seconds="${1:-30}"
case "$seconds" in
'' | *[!0-9]*)
    echo "usage: $0 SECONDS" >&2
    exit 2
    ;;
esac

cd "$(dirname "$0")"
toolchain=1.95.0
export RUSTC_BOOTSTRAP=1

if ! cargo "+$toolchain" fuzz --version >/dev/null 2>&1; then
    cargo "+$toolchain" install --locked cargo-fuzz
fi

build_flags=(--release --debug-assertions --sanitizer none)
cargo "+$toolchain" fuzz build "${build_flags[@]}"

targets=$(cargo "+$toolchain" fuzz list)
if [[ -z "$targets" ]]; then
    echo "no fuzz target listed by 'cargo fuzz list': nothing was fuzzed" >&2
    exit 1
fi
failed=()
ran=0
for target in $targets; do
    ran=$((ran + 1))
    mkdir -p "corpus/$target"
    args=(-max_total_time="$seconds" -print_final_stats=1)
    if [[ -f "$target.dict" ]]; then
        args+=(-dict="$target.dict")
    fi
    echo "=== $target: ${seconds}s"
    if ! cargo "+$toolchain" fuzz run "${build_flags[@]}" "$target" "corpus/$target" -- "${args[@]}"; then
        failed+=("$target")
    fi
done

if ((${#failed[@]} > 0)); then
    echo "fuzz targets that crashed: ${failed[*]}" >&2
    exit 1
fi
echo "all $ran fuzz targets ran ${seconds}s without a crash"
