#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make demo: build the kernel (cached), the module and the tools, boot a VM, and show ecnsharp
# marking real DCTCP traffic, with statistics. Usage: tests/demo.sh [RATE [SECONDS [ROUNDS]]]
set -euo pipefail
cd "$(dirname "$0")/.."
tests/vm/deps.sh
exec tests/vm/run-in-vm --timeout 900 tests/demo/guest.sh "${1:-300mbit}" "${2:-6}" "${3:-3}"
