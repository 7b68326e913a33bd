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
# 300 busy ticks (3 s at 100 ticks/s) over 2 s of wall on the CPUs, 1 s of it our own.
ticks=$(getconf CLK_TCK); cpus=$(nproc)
expect=$(awk -v t="$ticks" -v c="$cpus" 'BEGIN { printf "%.0f", (300 / t - 1) / (2 * c) * 100 }')
[ "$expect" -ge 0 ] || expect=0
check "other processes' CPU" "$expect" \
  "$(other_cpu_percent "cpu  0 0 0 0 0 0 0 0 0 0" "cpu  200 0 50 999 7 30 20 0 0 0" 1 2)"
check "own CPU above busy: never below 0" 0 "$(other_cpu_percent "cpu  0 0 0 0" "cpu  10 0 0 0" 5 1)"
line=$(machine_load_line)
[[ "$line" =~ ^load\ [0-9.]+,\ [0-9]+%\ busy\ over\ 1\ s$|^load\ \?,\ busy\ \? ]] ||
  { echo "FAIL: machine_load_line printed '$line'"; fail=1; }
echo "machine_load_line: $line"
exit $fail
