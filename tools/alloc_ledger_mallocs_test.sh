#!/usr/bin/env bash
# The counter must keep counting, and keep the preloaded allocator serving, under
# tcmalloc, jemalloc and mimalloc. Counts are calls our program makes, so they
# must be the same under every allocator; the ledger names the malloc it found.
set -eu
ledger=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib/mallocs.sh"
args=(--items 100 --profile realistic --format json --cycles 3)
"$ledger" "${args[@]}" >/tmp/ledger_glibc.$$
fails=0
for m in tcmalloc jemalloc mimalloc; do
  lib=$(malloc_library "$m") || { echo "FAIL: $m not installed"; fails=$((fails + 1)); continue; }
  LD_PRELOAD=$lib "$ledger" "${args[@]}" >/tmp/ledger_$m.$$ || { echo "FAIL: ledger crashed under $m"; fails=$((fails + 1)); continue; }
  if /usr/bin/python3 "$here/tools/check_ledger_under_malloc.py" /tmp/ledger_glibc.$$ /tmp/ledger_$m.$$ "$m"
  then echo "ok   $m: served the allocations and the counts equal glibc's"
  else echo "FAIL $m"; fails=$((fails + 1)); fi
done
rm -f /tmp/ledger_*.$$
[ $fails -eq 0 ]
