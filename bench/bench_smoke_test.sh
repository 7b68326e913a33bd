#!/usr/bin/env bash
# reco_bench in a very short mode: a few benchmarks of every family run, the JSON
# output parses, and every benchmark carries the counters docs/benchmarks.md
# promises. No number is asserted except allocation counts that are exact by design.
set -u
bench=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0

# A misspelt flag is refused, naming it, with a non-zero exit.
err=$("$bench" --benchmark_filtr=x 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] || ! grep -q -- "--benchmark_filtr" <<<"$err"; then
  echo "FAIL: a misspelt flag exited $rc with: $err"; fails=$((fails + 1))
fi

filter='^BM_(Cycle|Build|Serialize|Release|Parse|ParseCycle)/mode:[a-z_]+/items:10/profile:compact'
filter+='|^BM_CycleThreaded/mode:arena_pool/items:200/profile:compact'
filter+='|^BM_ArenaSharing/arena:(per_thread|shared)/items:200/profile:compact'
filter+='|^BM_ArenaBlocks/start_block:256B/max_block:8KiB/items:200/profile:compact'
filter+='|^BM_ArenaInitialBlock/initial_block:(0B|512KiB)/items:200/profile:compact'
filter+='|^BM_CopyItems/mode:[a-z_]+/items:200/profile:compact/how:'
filter+='|^BM_Fragments/items:(10|200)/profile:[a-z]+/reply:'
"$bench" --benchmark_filter="$filter" --benchmark_min_time=0.01 \
  --benchmark_out="$out/run.json" --benchmark_out_format=json >"$out/stdout" 2>&1 \
  || { echo "FAIL: reco_bench exited non-zero"; cat "$out/stdout"; exit 1; }

/usr/bin/python3 - "$out/run.json" "$(nproc)" <<'PY' || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
cores = int(sys.argv[2])
runs = doc["benchmarks"]
names = [r["name"] for r in runs]
assert doc["context"].get("malloc"), "no malloc in the JSON context"

def family(prefix):
    return [r for r in runs if r["name"].startswith(prefix + "/")]

for fam in ("BM_Cycle", "BM_Build", "BM_Serialize", "BM_Release", "BM_Parse", "BM_ParseCycle"):
    got = sorted(r["name"].split("/")[1] for r in family(fam))
    assert got == ["mode:arena", "mode:arena_pool", "mode:heap", "mode:reuse"], (fam, got)
assert len(family("BM_CycleThreaded")) == cores, names
assert len(family("BM_ArenaSharing")) == 2 * cores, names
assert len(family("BM_ArenaBlocks")) == 1 and len(family("BM_ArenaInitialBlock")) == 2, names
got = sorted(r["name"].split("/")[1] + "/" + r["name"].split("/")[4] for r in family("BM_CopyItems"))  # mode/how
assert got == sorted(f"mode:{m}/how:{h}" for m in ("heap", "reuse", "arena", "arena_pool")
                     for h in ("copyfrom", "fieldwise")), (got, names)

got = sorted(r["name"] for r in family("BM_Fragments"))
assert got == sorted(f"BM_Fragments/items:{n}/profile:{p}/reply:{k}" for n in (10, 200)
                     for p in ("realistic", "compact") for k in ("copied", "zero_copy")), (got, names)

for r in runs:
    assert not r.get("error_occurred"), r
    assert r["iterations"] > 0, r
    for key in ("allocs", "frees", "bytes_alloc", "bytes_per_second", "items_per_second",
                "allocs_per_iter", "total_allocated_bytes"):
        assert key in r, (r["name"], key)
    if r["name"].startswith(("BM_ArenaBlocks/", "BM_ArenaInitialBlock/")):
        for key in ("arena_blocks", "space_allocated", "space_used"):
            assert key in r, (r["name"], key)
        assert r["space_used"] <= r["space_allocated"], r
    # Manual timing exactly where a phase needs per-iteration setup.
    manual = r["name"].split("/")[0] in ("BM_Build", "BM_Release", "BM_Parse", "BM_CopyItems")
    assert r["name"].endswith("/manual_time") == manual, r["name"]

# Exact by design (compact text fits the small-string buffer): a reused 512 KiB block
# builds a 200-item response with no malloc at all, and a build allocates, never frees.
by_name = {r["name"]: r for r in runs}
assert by_name["BM_ArenaInitialBlock/initial_block:512KiB/items:200/profile:compact"]["allocs"] == 0
assert by_name["BM_ArenaInitialBlock/initial_block:0B/items:200/profile:compact"]["arena_blocks"] > 0
for r in family("BM_Build"):
    assert r["frees"] == 0, r
assert by_name["BM_Build/mode:heap/items:10/profile:compact/manual_time"]["allocs"] > 0
# Copying items only adds: never a free. Both ways make the same allocations, one per
# sub-message and long string (protobuf 3.21), and none on a reused 512 KiB block.
for r in family("BM_CopyItems"):
    assert r["frees"] == 0, r
    twin = by_name[r["name"].replace("how:copyfrom", "how:fieldwise")]
    assert r["allocs"] == twin["allocs"], (r["name"], r["allocs"], twin["allocs"])
for how in ("copyfrom", "fieldwise"):
    assert by_name[f"BM_CopyItems/mode:arena_pool/items:200/profile:compact/how:{how}/manual_time"]["allocs"] == 0
    assert by_name[f"BM_CopyItems/mode:heap/items:200/profile:compact/how:{how}/manual_time"]["allocs"] > 0
# The fragments path: a reply allocates only gRPC's pieces and the release frees them
# all. copied (the server's default): one slice for the whole reply + the
# grpc_byte_buffer, whatever the items. zero_copy: every item referenced, 2n + 1
# slices, and more allocations (the byte buffer's slice array grows past its 8 inline
# slots).
for r in family("BM_Fragments"):
    items = int(r["name"].split("/")[1].split(":")[1])
    assert r["allocs"] > 0 and r["frees"] == r["allocs"], r
    if r["name"].endswith("/reply:copied"):
        assert (r["allocs"], r["slices"], r["referenced"]) == (2, 1, 0), r
    else:
        assert (r["slices"], r["referenced"]) == (2 * items + 1, items), r
        assert r["allocs"] > by_name[r["name"].replace("reply:zero_copy", "reply:copied")]["allocs"], r
print("reco_bench smoke: %d benchmarks ran with their counters" % len(runs))
PY
[ $fails -eq 0 ] && echo "bench smoke: all checks passed" || { echo "$fails checks failed"; exit 1; }
