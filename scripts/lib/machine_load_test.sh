#!/usr/bin/env bash
# scripts/lib/machine_load.sh: busy_percent on fixture /proc/stat lines, and the
# line machine_load_line prints on this machine.
set -euo pipefail
. "$(dirname "$0")/machine_load.sh"
fail=0
check() {  # check WHAT EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected '$2', got '$3'"; fail=1; fi
}
# 400 ticks passed, 300 of them idle (iowait unchanged): 25% busy.
check "busy share" 25 "$(busy_percent "cpu  100 0 100 700 100 0 0 0 0 0" "cpu  150 0 150 1000 100 0 0 0 0 0")"
# iowait is not busy; steal is; guest (already inside user) is not counted twice.
check "iowait idle, steal busy" 50 "$(busy_percent "cpu  0 0 0 0 0 0 0 0 0 0" "cpu  0 0 0 50 50 0 0 100 70 0")"
check "no time passed" 0 "$(busy_percent "cpu  1 2 3 4" "cpu  1 2 3 4")"
line=$(machine_load_line)
[[ "$line" =~ ^load\ [0-9.]+,\ [0-9]+%\ busy\ over\ 1\ s$|^load\ \?,\ busy\ \? ]] ||
  { echo "FAIL: machine_load_line printed '$line'"; fail=1; }
echo "machine_load_line: $line"
exit $fail
