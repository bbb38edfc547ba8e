#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# PID 1 of the virtual-time bench (run-in-uml copies it into the run directory): mount what the
# host's / (read-only) lacks, load the module, run the script with its arguments, power off.
# Everything the run needs is in the directory this file is in (reached through a link whose
# path depends only on the run, see run-in-uml). The script's output and its
# exit status go to console.log in the results directory: a hostfs write is a plain host write,
# where the UML console would interrupt the guest whenever the host's pipe was full, at a moment
# that depends on the host (and the run would no longer be deterministic).
run=$(dirname "$0")
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
set -a
. "$run/env"
set +a
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /run/out /run/home /run/nstat /run/repo /run/tools /run/boot
# The clone, the tools and the run directory, read-only from the host at fixed places: the same
# paths in every run, wherever the clone and the cache are (a clone under the host's /tmp would
# be hidden by the guest's tmpfs, and making its path again there drew random numbers).
mount -r -t hostfs none /run/repo -o "$ECNSHARP_REPO"
mount -r -t hostfs none /run/tools -o "$ECNSHARP_TOOLS"
mount -r -t hostfs none /run/boot -o "$ECNSHARP_RUN"
ECNSHARP_REPO=/run/repo ECNSHARP_TOOLS=/run/tools ECNSHARP_RUN=/run/boot run=/run/boot
[ -z "${ECNSHARP_MODULE:-}" ] || ECNSHARP_MODULE=/run/boot/sch_ecnsharp.ko
export ECNSHARP_REPO ECNSHARP_TOOLS ECNSHARP_RUN ECNSHARP_MODULE
# Results go to the host through a writable hostfs mount; everything else writable is tmpfs.
mount -t hostfs none /run/out -o "$ECNSHARP_OUT"
export ECNSHARP_OUT=/run/out
export HOME=/run/home TMPDIR=/tmp NSTAT_HISTORY=/run/nstat/history TC_LIB_DIR="$run/tc"
export PATH="$ECNSHARP_TOOLS:$PATH"
ip link set lo up
hostname ecnsharp-uml

finish() {
	echo "ECNSHARP-UML-EXIT=$1" >>"$ECNSHARP_OUT/console.log"
	sync
	busybox poweroff -f
	sleep 5
}

echo "ECNSHARP-UML-BOOTED kernel=$(uname -r) seed=$ECNSHARP_SEED" >>"$ECNSHARP_OUT/console.log"
if [ -n "${ECNSHARP_MODULE:-}" ]; then
	insmod "$ECNSHARP_MODULE" || {
		echo "run-in-uml: insmod $ECNSHARP_MODULE failed" >>"$ECNSHARP_OUT/console.log"
		finish 125
	}
fi

cd /run/out || finish 125
# The arguments were written by run-in-uml as one shell-quoted line.
args=$(cat "$run/args")
eval "set -- $args"
/bin/sh "$run/script" "$@" >>"$ECNSHARP_OUT/console.log" 2>&1
rc=$?
echo "ECNSHARP-UML-TAINT=$(cat /proc/sys/kernel/tainted)" >>"$ECNSHARP_OUT/console.log"
finish $rc
