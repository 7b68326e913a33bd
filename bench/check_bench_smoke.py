"""Checks reco_bench's JSON from bench/bench_smoke_test.sh; fails by assertion.

    check_bench_smoke.py RUN.json CORES

RUN.json is reco_bench's --benchmark_out of the smoke filter; CORES is the machine's
CPU count (the threaded families run once per thread count up to it). Checks that
every family ran with the names it should, that every benchmark carries the counters
docs/benchmarks.md promises, with manual timing exactly where a phase needs
per-iteration setup, and the allocation counts that are exact by design. No speed is
asserted.
"""
import json
import sys


def family(runs, prefix):
    """The runs of one benchmark family, e.g. BM_Cycle."""
    return [r for r in runs if r["name"].startswith(prefix + "/")]


def check_families(runs, cores):
    names = [r["name"] for r in runs]
    for fam in ("BM_Cycle", "BM_Build", "BM_Serialize", "BM_Release", "BM_Parse", "BM_ParseCycle"):
        got = sorted(r["name"].split("/")[1] for r in family(runs, fam))
        assert got == ["mode:arena", "mode:arena_pool", "mode:heap", "mode:reuse"], (fam, got)
    assert len(family(runs, "BM_CycleThreaded")) == cores, names
    assert len(family(runs, "BM_ArenaSharing")) == 2 * cores, names
    assert len(family(runs, "BM_ArenaBlocks")) == 1 and len(family(runs, "BM_ArenaInitialBlock")) == 2, names
    # mode/how
    got = sorted(r["name"].split("/")[1] + "/" + r["name"].split("/")[4] for r in family(runs, "BM_CopyItems"))
    assert got == sorted(f"mode:{m}/how:{h}" for m in ("heap", "reuse", "arena", "arena_pool")
                         for h in ("copyfrom", "fieldwise")), (got, names)

    got = sorted(r["name"] for r in family(runs, "BM_Fragments"))
    assert got == sorted(f"BM_Fragments/items:{n}/profile:{p}/reply:{k}" for n in (10, 200)
                         for p in ("realistic", "compact") for k in ("copied", "zero_copy")), (got, names)


def check_counters(runs):
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


def check_exact_counts(runs):
    # Exact by design (compact text fits the small-string buffer): a reused 512 KiB block
    # builds a 200-item response with no malloc at all, and a build allocates, never frees.
    by_name = {r["name"]: r for r in runs}
    assert by_name["BM_ArenaInitialBlock/initial_block:512KiB/items:200/profile:compact"]["allocs"] == 0
    assert by_name["BM_ArenaInitialBlock/initial_block:0B/items:200/profile:compact"]["arena_blocks"] > 0
    for r in family(runs, "BM_Build"):
        assert r["frees"] == 0, r
    assert by_name["BM_Build/mode:heap/items:10/profile:compact/manual_time"]["allocs"] > 0
    # Copying items only adds: never a free. Both ways make the same allocations, one per
    # sub-message and long string (protobuf 3.21), and none on a reused 512 KiB block.
    for r in family(runs, "BM_CopyItems"):
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
    for r in family(runs, "BM_Fragments"):
        items = int(r["name"].split("/")[1].split(":")[1])
        assert r["allocs"] > 0 and r["frees"] == r["allocs"], r
        if r["name"].endswith("/reply:copied"):
            assert (r["allocs"], r["slices"], r["referenced"]) == (2, 1, 0), r
        else:
            assert (r["slices"], r["referenced"]) == (2 * items + 1, items), r
            assert r["allocs"] > by_name[r["name"].replace("reply:zero_copy", "reply:copied")]["allocs"], r


def main():
    doc = json.load(open(sys.argv[1]))
    cores = int(sys.argv[2])
    runs = doc["benchmarks"]
    assert doc["context"].get("malloc"), "no malloc in the JSON context"
    check_families(runs, cores)
    check_counters(runs)
    check_exact_counts(runs)
    print("reco_bench smoke: %d benchmarks ran with their counters" % len(runs))


if __name__ == "__main__":
    main()
