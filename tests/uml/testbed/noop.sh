#!/bin/sh
# Boots, checks the module is loaded, and powers off (the experiments' first boot builds).
grep -q '^sch_ecnsharp ' /proc/modules || { echo "sch_ecnsharp is not loaded"; exit 1; }
echo "uml bench up: $(uname -r), $(cut -d' ' -f1 /proc/uptime) s"
