#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Inside UML for tests/uml/bench/profile.sh: COUNT packets through CASE (pktgen.sh), nothing else,
# while the host samples the UML process. Writes where the module's code sections were loaded
# (for the host to name the samples that fall in them) and the qdisc's books.
# Usage: profile-guest.sh CASE COUNT
CASE=$1
COUNT=$2
DEV=bench0
. "$ECNSHARP_REPO/tests/uml/bench/pktgen.sh"
pktgen_dev $DEV || exit 1
install_case $DEV "$CASE" || exit 1
for f in /sys/module/sch_ecnsharp/sections/.*text*; do
	echo "$(basename "$f") $(cat "$f")"
done >"$ECNSHARP_OUT/sections"
pps=$(pktgen_send $DEV "$COUNT") || exit 1
books=$(qdisc_books $DEV "$COUNT") || exit 1
echo "profile-guest: $CASE $COUNT packets at $pps pps, sent/drops/marks $books"
