#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Install what the bench needs on Debian 12, skipping what is present: apt packages, the pinned
# Rust toolchain with rust-src, and bindgen-cli (Debian's bindgen 0.60 is older than the kernel's
# minimum 0.65.1). Fails with a message naming what could not be installed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

APT_PACKAGES=(
	linux-source-6.12 clang lld llvm libclang-dev flex bison bc libelf-dev libssl-dev
	qemu-system-x86 busybox-static cpio kmod iproute2 iperf3 ethtool jq xz-utils gzip make
	python3 python3-pyroute2 curl ca-certificates binutils groff-base bash-completion patch
	# make deb and its test (tests/deb/check.sh): Debian's packaging tools, DKMS, lintian.
	dpkg-dev debhelper dh-dkms dkms lintian fakeroot
	# tests/tc-versions/check.sh: a second iproute2's tc built with extack support.
	libmnl-dev
	# make check lints every shell script with it (tests/check.sh).
	shellcheck
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing apt packages: ${missing[*]}"
	as_root=()
	[ "$(id -u)" -eq 0 ] || as_root=(sudo)
	command -v apt-get >/dev/null || die "apt-get not found: install by hand: ${missing[*]}"
	"${as_root[@]}" apt-get update -qq || die "apt-get update failed (network or permissions?)"
	DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null || die "apt-get install failed for: ${missing[*]}"
fi
[ -f "$KERNEL_SOURCE_TARBALL" ] || die "$KERNEL_SOURCE_TARBALL missing after installing $KERNEL_SOURCE_PKG"

# rustup itself (Debian 12 does not package it): the official installer, into ~/.cargo (lib.sh puts
# ~/.cargo/bin on PATH for every bench script), without a default toolchain (the pinned one is
# installed below) and without editing the user's shell profile.
if ! command -v rustup >/dev/null; then
	say "installing rustup into $HOME/.cargo (https://rustup.rs; your shell profile is left alone)"
	installer=$(mktemp)
	curl --proto '=https' --tlsv1.2 -sSf -o "$installer" https://sh.rustup.rs ||
		{ rm -f "$installer"; die "could not download rustup's installer (network?): install Rust with rustup (https://rustup.rs), then rerun"; }
	sh "$installer" -y --profile minimal --default-toolchain none --no-modify-path >/dev/null ||
		{ rm -f "$installer"; die "rustup's installer failed: install Rust with rustup (https://rustup.rs), then rerun"; }
	rm -f "$installer"
	command -v rustup >/dev/null || die "rustup installed but not found in $HOME/.cargo/bin"
fi
if ! rustup run "$RUST_TOOLCHAIN" rustc --version >/dev/null 2>&1; then
	say "installing Rust toolchain $RUST_TOOLCHAIN"
	rustup toolchain install "$RUST_TOOLCHAIN" --profile minimal ||
		die "could not install Rust $RUST_TOOLCHAIN (pinned in rust-toolchain.toml)"
fi
for c in rust-src rustfmt clippy; do
	if ! rustup component list --toolchain "$RUST_TOOLCHAIN" --installed 2>/dev/null | grep -q "^$c"; then
		say "adding rustup component $c"
		rustup component add "$c" --toolchain "$RUST_TOOLCHAIN" || die "rustup component add $c failed"
	fi
done

# The kernel needs bindgen >= 0.65.1.
bindgen_ok() {
	local v
	v=$(bindgen --version 2>/dev/null | awk '{print $2}') || return 1
	[ -n "$v" ] && [ "$(printf '%s\n0.65.1\n' "$v" | sort -V | head -n 1)" = "0.65.1" ]
}
if ! bindgen_ok; then
	say "installing bindgen-cli with cargo (a few minutes)"
	cargo install --locked bindgen-cli >/dev/null 2>&1 || die "cargo install --locked bindgen-cli failed"
	bindgen_ok || die "bindgen on PATH is still older than 0.65.1: $(command -v bindgen)"
fi
# The ns-3 model (make ns3): ns-3.37 from Debian, and gnuplot: make check renders the ns-3
# pages again, figures included, to compare them with the committed ones.
"$(dirname "$0")/../ns3/deps.sh" --plots || die "could not install the ns-3 packages (tests/ns3/deps.sh)"
say "dependencies present"
