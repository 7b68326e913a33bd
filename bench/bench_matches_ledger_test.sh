#!/usr/bin/env bash
# reco_bench's per-iteration allocation counters equal alloc_ledger's exact
# steady-state counts for the same mode, item count and text profile. The phases
# map one to one (both warm up with 3 responses, then count on their own thread):
#   BM_Build     = ledger build      (Acquire + BuildResponse)
#   BM_Serialize = ledger serialize  (ByteSizeLong + SerializeWithCachedSizesToArray)
#   BM_Release   = ledger release    (Release)
#   BM_Cycle     = build + serialize + release
#   BM_Fragments/.../reply:copied = the fragments row's build + serialize + release
#                  (the reply written once into one slice + release, as the server does)
# allocs, frees and bytes must match exactly, for every mode and fragments, items 10
# and 200, both profiles. (The ledger's arena_alias rows have no benchmark: reco_bench
# measures the memory modes; core_tests holds arena_alias's counts exactly.)
set -u
bench=$1
ledger=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for profile in realistic compact; do
  for items in 10 200; do
    "$ledger" --items "$items" --profile "$profile" --modes heap,reuse,arena,arena_pool,fragments --format json \
      >"$out/ledger-$profile-$items.json" \
      || { echo "FAIL: alloc_ledger --items $items --profile $profile exited non-zero"; exit 1; }
  done
done
"$bench" --benchmark_filter='^BM_(Build|Serialize|Release|Cycle)/mode:[a-z_]+/items:(10|200)/|^BM_Fragments/items:(10|200)/profile:[a-z]+/reply:copied' \
  --benchmark_min_time=0.005 --benchmark_out="$out/bench.json" --benchmark_out_format=json \
  >"$out/stdout" 2>&1 || { echo "FAIL: reco_bench exited non-zero"; cat "$out/stdout"; exit 1; }

/usr/bin/python3 "$(dirname "$0")/check_bench_matches_ledger.py" "$out"
