#!/usr/bin/env bash
# Cross-checks the allocation counter against an independent count: valgrind
# memcheck's "total heap usage: N allocs". Two runs differ only in how many
# responses they measure (A and B cycles), so the difference in valgrind's totals
# must equal (B - A) times the ledger's allocations per response -- exactly.
# somalloc=nouserintercepts: valgrind must count the calls our counting malloc
# forwards to glibc, not replace our malloc in the executable.
set -eu
ledger=$1
if ! command -v valgrind >/dev/null; then echo "valgrind is not installed (scripts/setup.sh installs it)"; exit 1; fi
fails=0
for mode in heap reuse arena arena_pool arena_alias fragments; do
  for profile in realistic compact; do
    args=(--modes "$mode" --profile "$profile" --items 50 --warmup_responses 2 --format json)
    # The two runs side by side (ctest runs one test at a time; the machine has the cores).
    valgrind --tool=memcheck --soname-synonyms=somalloc=nouserintercepts "$ledger" "${args[@]}" --cycles 4 \
      >/tmp/ledger_a.$$ 2>/tmp/ledger_a_vg.$$ &
    valgrind --tool=memcheck --soname-synonyms=somalloc=nouserintercepts "$ledger" "${args[@]}" --cycles 9 \
      >/tmp/ledger_b.$$ 2>/tmp/ledger_b_vg.$$ || true  # a failed run shows as a count that disagrees
    wait $! || true
    a=$(sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' /tmp/ledger_a_vg.$$ | tr -d ,)
    b=$(sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' /tmp/ledger_b_vg.$$ | tr -d ,)
    per=$(/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["modes"][sys.argv[2]]; print(int(sum(m[p]["allocs"] for p in ("build","serialize","release"))))' /tmp/ledger_b.$$ "$mode")
    want=$((5 * per))
    got=$((b - a))
    if [ "$got" = "$want" ]; then
      echo "ok   $mode/$profile: valgrind counted $got allocations for 5 responses, the ledger says $per each"
    else
      echo "FAIL $mode/$profile: valgrind counted $got allocations for 5 responses, the ledger says 5 x $per = $want"
      fails=$((fails + 1))
    fi
  done
done
rm -f /tmp/ledger_a.$$ /tmp/ledger_b.$$ /tmp/ledger_a_vg.$$ /tmp/ledger_b_vg.$$
[ $fails -eq 0 ]
