#!/usr/bin/env bash
# What a ctest run cost: the tests run, their seconds added up, and the slowest of
# them, read from ctest's own output. .ci/run prints this after its ctest steps, so a
# change's cost is seen before it lands.
#   scripts/test_times.sh [BUILD_DIR | LOG] [COUNT]     default: build 15
# BUILD_DIR: its ctest.log, which scripts/test.sh and scripts/sanitize.sh write
# (ctest --output-log); LOG: any saved ctest output. A test run more than once
# (ctest --repeat) shows its seconds added up.
# Exits 2 when there is no log or COUNT is not a whole number.
set -euo pipefail
. "$(dirname "$0")/lib/script_flags.sh"  # BUILD_DIR is taken from where it is run
parse_positionals "$0" "$@"
where=${1:-build} count=${2:-15}
case "$count" in '' | *[!0-9]*) echo "test_times.sh: COUNT must be a whole number, not '$count'" >&2; exit 2 ;; esac
log=$where
[ -d "$where" ] && log=$where/ctest.log
[ -f "$log" ] || { echo "test_times.sh: no ctest output at $log (scripts/test.sh writes BUILD_DIR/ctest.log)" >&2; exit 2; }

# ctest prints one line per finished test: "  12/345 Test  #67: NAME ....   Passed    1.23 sec".
awk -v count="$count" '
  / Test +#[0-9]+: .* sec$/ {
    name = $0; sub(/.* Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
    secs[name] += $(NF - 1); total += $(NF - 1)
  }
  END {
    n = 0; for (t in secs) n++
    printf "%d tests, %.0f test-seconds; the slowest:\n", n, total
    for (t in secs) printf "%9.1f s  %s\n", secs[t], t | "sort -rn | head -" count
  }' "$log"
