#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What `make ns3` needs on Debian 12, skipping what is present: ns-3.37's headers and libraries
# (libns3-dev; its pkg-config files name libgsl by path, hence libgsl-dev), pkg-config and g++.
# With --plots, also gnuplot, which draws the pages' figures (make ns3-full, and make check's
# renderings of the pages). Called by tests/vm/deps.sh (make deps, make check) with --plots.
set -euo pipefail

packages=(libns3-dev libgsl-dev pkg-config g++)
[ "${1:-}" = --plots ] && packages+=(gnuplot-nox)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ns3 deps: installing ${missing[*]}" >&2
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
command -v apt-get >/dev/null || { echo "ns3 deps: apt-get not found: install ${missing[*]}" >&2; exit 1; }
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null || { echo "ns3 deps: apt-get install failed for ${missing[*]}" >&2; exit 1; }
