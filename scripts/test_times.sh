#!/usr/bin/env bash
# What a build directory's last ctest run cost: the tests run, their seconds added up,
# and the slowest of them, read from CTest's own log (Testing/Temporary/LastTest.log,
# written by every ctest run). .ci/run prints this after each of its ctest steps, so
# a change's cost is seen before it lands.
#   scripts/test_times.sh [BUILD_DIR] [COUNT]     default: build 15
# Exits 2 when BUILD_DIR has no ctest log or COUNT is not a whole number.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/script_flags.sh
parse_positionals "$0" "$@"
build=${1:-build} count=${2:-15}
case "$count" in '' | *[!0-9]*) echo "test_times.sh: COUNT must be a whole number, not '$count'" >&2; exit 2 ;; esac
log=$build/Testing/Temporary/LastTest.log
[ -f "$log" ] || { echo "test_times.sh: no ctest log in $build (looked for $log)" >&2; exit 2; }

# LastTest.log holds, per test, "N/M Test: NAME" then, after its output, "Test time = S sec".
# A test repeated (ctest --repeat) is listed once per run; its times are added.
awk '
  /^[0-9]+\/[0-9]+ Test: / { name = $3 }
  /^Test time = / && name != "" { secs[name] += $4; total += $4; name = "" }
  END {
    n = 0; for (t in secs) n++
    printf "%d tests, %.0f test-seconds\n", n, total
    for (t in secs) printf "%9.1f s  %s\n", secs[t], t | "sort -rn | head -'"$count"'"
  }' "$log"
