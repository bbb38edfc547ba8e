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
# Started through run-in-uml's link (under the host's /tmp): from here on, the run directory.
run=$ECNSHARP_RUN
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /run/out /run/home /run/nstat
# A clone (or a cache) under the host's /tmp is hidden by the guest's own /tmp: mount it again
# at its path, read-only, from the host.
for d in "$ECNSHARP_REPO" "$ECNSHARP_TOOLS" "$run"; do
	case $d in
	/tmp/*) mkdir -p "$d" && mount -r -t hostfs none "$d" -o "$d" ;;
	esac
done
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
