#!/usr/bin/env bash
# reco_bench's per-iteration allocation counters equal alloc_ledger's exact
# steady-state counts for the same mode, item count and text profile. The phases
# map one to one (both warm up with 3 responses, then count on their own thread):
#   BM_Build     = ledger build      (Acquire + BuildResponse)
#   BM_Serialize = ledger serialize  (ByteSizeLong + SerializeWithCachedSizesToArray)
#   BM_Release   = ledger release    (Release)
#   BM_Cycle     = build + serialize + release
#   BM_Fragments/.../reply:copied = the fragments row's build + serialize + release
#                  (splice + Finish + release, one SplicedReply reused, as the server's)
# allocs, frees and bytes must match exactly, for every mode and fragments, items 10
# and 200, both profiles.
set -u
bench=$1
ledger=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for profile in realistic compact; do
  for items in 10 200; do
    "$ledger" --items "$items" --profile "$profile" --format json >"$out/ledger-$profile-$items.json" \
      || { echo "FAIL: alloc_ledger --items $items --profile $profile exited non-zero"; exit 1; }
  done
done
"$bench" --benchmark_filter='^BM_(Build|Serialize|Release|Cycle)/mode:[a-z_]+/items:(10|200)/|^BM_Fragments/items:(10|200)/profile:[a-z]+/reply:copied' \
  --benchmark_min_time=0.005 --benchmark_out="$out/bench.json" --benchmark_out_format=json \
  >"$out/stdout" 2>&1 || { echo "FAIL: reco_bench exited non-zero"; cat "$out/stdout"; exit 1; }

/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
runs = {r["name"]: r for r in json.load(open(out + "/bench.json"))["benchmarks"]}
checked, failures = 0, []
for profile in ("realistic", "compact"):
    for items in (10, 200):
        ledger = json.load(open("%s/ledger-%s-%d.json" % (out, profile, items)))
        for mode, phases in ledger["modes"].items():
            total = {k: sum(phases[p][k] for p in ("build", "serialize", "release"))
                     for k in ("allocs", "frees", "bytes")}
            if mode == "fragments":  # no phase benchmarks: the whole reply only
                pairs = [("BM_Fragments/items:%d/profile:%s/reply:copied" % (items, profile), total)]
            else:
                pairs = [("BM_%s/mode:%s/items:%d/profile:%s%s" % (fam, mode, items, profile, suffix), want)
                         for fam, suffix, want in (("Build", "/manual_time", phases["build"]),
                                                   ("Serialize", "", phases["serialize"]),
                                                   ("Release", "/manual_time", phases["release"]),
                                                   ("Cycle", "", total))]
            for name, want in pairs:
                if name not in runs:
                    failures.append("missing benchmark " + name)
                    continue
                got = runs[name]
                for bench_key, ledger_key in (("allocs", "allocs"), ("frees", "frees"),
                                              ("bytes_alloc", "bytes")):
                    checked += 1
                    if got[bench_key] != want[ledger_key]:
                        failures.append("%s %s=%s, ledger %s=%s" % (
                            name, bench_key, got[bench_key], ledger_key, want[ledger_key]))
        # Guard against a vacuous pass: the heap build and the fragments' Finish really allocate.
        for mode in ("heap", "fragments"):
            if ledger["modes"].get(mode, {}).get("build", {}).get("allocs", 0) == 0:
                failures.append("ledger %s build made no allocation for %s/%d" % (mode, profile, items))
for f in failures:
    print("FAIL:", f)
# 2 profiles x 2 item counts x (4 modes x 4 benchmarks + fragments) x 3 counters
if failures or checked != 2 * 2 * (4 * 4 + 1) * 3:
    print("%d failures, %d comparisons" % (len(failures), checked))
    sys.exit(1)
print("reco_bench matches alloc_ledger: %d exact comparisons" % checked)
PY
