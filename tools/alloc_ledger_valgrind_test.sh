#!/usr/bin/env bash
# Cross-checks the allocation counter against an independent count: valgrind
# memcheck's "total heap usage: N allocs". Two runs differ only in how many responses
# they measure (A and B cycles), so the difference in valgrind's totals must equal
# (B - A) times the ledger's allocations per response -- exactly. Each run measures
# every mode, so the check is on the modes' counts added up: a mode that misses or
# adds even one allocation per response fails it (unless another mode is off by as
# many the other way). One run of each kind per profile, not one per mode: most of a
# run under valgrind is the ledger's start-up, the same whatever it measures.
# somalloc=nouserintercepts: valgrind must count the calls our counting malloc
# forwards to glibc, not replace our malloc in the executable. Uninitialised-value
# tracking is off: only the allocation count is read, and it makes each run slower.
set -eu
ledger=$1
if ! command -v valgrind >/dev/null; then echo "valgrind is not installed (scripts/setup.sh installs it)"; exit 1; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind_allocs() {  # valgrind_allocs STDERR_FILE: the "total heap usage" allocations
  sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' "$1" | tr -d ,
}
modes=heap,reuse,arena,arena_pool,arena_alias,fragments
fails=0
for profile in realistic compact; do
  args=(--modes "$modes" --profile "$profile" --items 50 --warmup_responses 2 --format json)
  vg=(valgrind --tool=memcheck --undef-value-errors=no --leak-check=no --soname-synonyms=somalloc=nouserintercepts)
  # The two runs side by side (the machine has two cores).
  "${vg[@]}" "$ledger" "${args[@]}" --cycles 4 >"$tmp/a.json" 2>"$tmp/a.vg" &
  "${vg[@]}" "$ledger" "${args[@]}" --cycles 9 >"$tmp/b.json" 2>"$tmp/b.vg" || true  # a failed run shows as a count that disagrees
  wait $! || true
  a=$(valgrind_allocs "$tmp/a.vg") b=$(valgrind_allocs "$tmp/b.vg")
  read -r per detail < <(/usr/bin/python3 -c '
import json, sys
modes = json.load(open(sys.argv[1]))["modes"]
each = {m: int(sum(modes[m][p]["allocs"] for p in ("build", "serialize", "release"))) for m in sys.argv[2].split(",")}
print(sum(each.values()), " ".join("%s=%d" % kv for kv in each.items()))' "$tmp/b.json" "$modes")
  want=$((5 * per)) got=$((${b:-0} - ${a:-0}))
  if [ "$got" = "$want" ]; then
    echo "ok   $profile: valgrind counted $got allocations for 5 responses of every mode; the ledger says $per ($detail)"
  else
    echo "FAIL $profile: valgrind counted $got allocations for 5 responses of every mode; the ledger says 5 x $per = $want ($detail)"
    fails=$((fails + 1))
  fi
done
[ $fails -eq 0 ]
