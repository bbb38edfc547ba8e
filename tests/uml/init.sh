#!/bin/sh
# PID 1 of the virtual-time bench (run-in-uml copies it into the run directory): mount what the
# host's / (read-only) lacks, load the module, run the script with its arguments, report its exit
# status on the console, power off. Everything the run needs is in the directory this file is in.
run=$(dirname "$0")
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /run/out /run/home /run/nstat
set -a
. "$run/env"
set +a
# Results go to the host through a writable hostfs mount; everything else writable is tmpfs.
mount -t hostfs none /run/out -o "$ECNSHARP_OUT"
export ECNSHARP_OUT=/run/out
export HOME=/run/home TMPDIR=/tmp NSTAT_HISTORY=/run/nstat/history TC_LIB_DIR="$run/tc"
export PATH="$ECNSHARP_TOOLS:$PATH"
ip link set lo up
hostname ecnsharp-uml

finish() {
	echo "ECNSHARP-UML-EXIT=$1"
	sync
	busybox poweroff -f
	sleep 5
}

echo "ECNSHARP-UML-BOOTED kernel=$(uname -r) seed=$ECNSHARP_SEED"
if [ -n "${ECNSHARP_MODULE:-}" ]; then
	insmod "$ECNSHARP_MODULE" || {
		echo "run-in-uml: insmod $ECNSHARP_MODULE failed"
		finish 125
	}
fi

cd /run/out || finish 125
# The arguments were written by run-in-uml as one shell-quoted line.
args=$(cat "$run/args")
eval "set -- $args"
/bin/sh "$run/script" "$@"
rc=$?
echo "ECNSHARP-UML-TAINT=$(cat /proc/sys/kernel/tainted)"
finish $rc
