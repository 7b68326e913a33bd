"""Compares reco_bench's allocation counters with alloc_ledger's, exactly.

    check_bench_matches_ledger.py OUT_DIR

OUT_DIR holds bench.json (reco_bench's --benchmark_out of bench/bench_matches_ledger_test.sh's
filter) and ledger-PROFILE-ITEMS.json (alloc_ledger --format json) for both text
profiles and 10 and 200 items. For every mode, each phase benchmark's allocs, frees and
bytes must equal the ledger's phase (BM_Cycle: build + serialize + release; fragments:
BM_Fragments/.../reply:copied against the whole reply). Prints each mismatch and exits
1 when one is found, a benchmark is missing, or the count of comparisons is not the
expected one.
"""
import json
import sys

PHASES = ("build", "serialize", "release")


def expected_pairs(mode, phases, items, profile):
    """(benchmark name, the ledger's counts it must show) for one mode of one ledger."""
    total = {k: sum(phases[p][k] for p in PHASES) for k in ("allocs", "frees", "bytes")}
    if mode == "fragments":  # no phase benchmarks: the whole reply only
        return [("BM_Fragments/items:%d/profile:%s/reply:copied" % (items, profile), total)]
    return [("BM_%s/mode:%s/items:%d/profile:%s%s" % (fam, mode, items, profile, suffix), want)
            for fam, suffix, want in (("Build", "/manual_time", phases["build"]),
                                      ("Serialize", "", phases["serialize"]),
                                      ("Release", "/manual_time", phases["release"]),
                                      ("Cycle", "", total))]


def compare(runs, name, want, failures):
    """Appends to failures where the benchmark's counters differ; returns the comparisons made."""
    if name not in runs:
        failures.append("missing benchmark " + name)
        return 0
    got = runs[name]
    for bench_key, ledger_key in (("allocs", "allocs"), ("frees", "frees"), ("bytes_alloc", "bytes")):
        if got[bench_key] != want[ledger_key]:
            failures.append("%s %s=%s, ledger %s=%s" % (name, bench_key, got[bench_key], ledger_key, want[ledger_key]))
    return 3


def main():
    out = sys.argv[1]
    runs = {r["name"]: r for r in json.load(open(out + "/bench.json"))["benchmarks"]}
    checked, failures = 0, []
    for profile in ("realistic", "compact"):
        for items in (10, 200):
            ledger = json.load(open("%s/ledger-%s-%d.json" % (out, profile, items)))
            for mode, phases in ledger["modes"].items():
                for name, want in expected_pairs(mode, phases, items, profile):
                    checked += compare(runs, name, want, failures)
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


if __name__ == "__main__":
    main()
