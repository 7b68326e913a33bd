#!/usr/bin/env bash
# Cross-checks the allocation counter against an independent count: valgrind
# memcheck's "total heap usage: N allocs". Two runs differ only in how many responses
# they measure (A and B cycles), so the difference in valgrind's totals must equal
# (B - A) times the ledger's allocations per response -- exactly, for each mode and
# text profile on its own. Most of a run under valgrind is the ledger's start-up,
# whatever it measures: the test is in the long tier (docs/testing.md).
# somalloc=nouserintercepts: valgrind must count the calls our counting malloc
# forwards to glibc, not replace our malloc in the executable. Uninitialised-value
# tracking is off: only the allocation count is read, and it makes each run slower.
set -eu
ledger=$1
if ! command -v valgrind >/dev/null; then echo "valgrind is not installed (scripts/setup.sh installs it)"; exit 1; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vg=(valgrind --tool=memcheck --undef-value-errors=no --leak-check=no --soname-synonyms=somalloc=nouserintercepts)
valgrind_allocs() {  # valgrind_allocs STDERR_FILE: the "total heap usage" allocations
  sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' "$1" | tr -d ,
}
fails=0
for mode in heap reuse arena arena_pool arena_alias fragments; do
  for profile in realistic compact; do
    args=(--modes "$mode" --profile "$profile" --items 50 --warmup_responses 2 --format json)
    # The two runs side by side (the machine has two cores).
    "${vg[@]}" "$ledger" "${args[@]}" --cycles 4 >"$tmp/a.json" 2>"$tmp/a.vg" &
    "${vg[@]}" "$ledger" "${args[@]}" --cycles 9 >"$tmp/b.json" 2>"$tmp/b.vg" || true  # a failed run shows as a count that disagrees
    wait $! || true
    a=$(valgrind_allocs "$tmp/a.vg") b=$(valgrind_allocs "$tmp/b.vg")
    per=$(/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["modes"][sys.argv[2]]; print(int(sum(m[p]["allocs"] for p in ("build","serialize","release"))))' "$tmp/b.json" "$mode" || echo 0)
    want=$((5 * per)) got=$((${b:-0} - ${a:-0}))
    if [ "$got" = "$want" ]; then
      echo "ok   $mode/$profile: valgrind counted $got allocations for 5 responses, the ledger says $per each"
    else
      echo "FAIL $mode/$profile: valgrind counted $got allocations for 5 responses, the ledger says 5 x $per = $want"
      fails=$((fails + 1))
    fi
  done
done
[ $fails -eq 0 ]
