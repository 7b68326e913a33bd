"""Checks a reco_load report of the example Inbox service (tests/e2e/your_service_test.sh).

    check_your_service_report.py REPORT.json CALLS HEAP_BUILD_ALLOCS

Every target answered exactly CALLS calls per round with no error; every server
reported through the stats library (source reco_server_stats) with its RPCs counted;
Recommend's settings (items, profile, seed, variants, verify_every) are not written;
heap's build allocations per RPC are exactly HEAP_BUILD_ALLOCS (what the example's
allocation test counts in-process with another malloc counter); pooled_arena's are
0; the other targets carry paired ratios to heap with their spread. HEAP_BUILD_ALLOCS
"-" skips the allocation checks (a sanitizer build, whose malloc the stats library
cannot count).
"""
import json
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    report = json.load(open(argv[1]))
    calls = int(argv[2])
    heap_allocs = None if argv[3] == "-" else float(argv[3])
    problems = []
    if report["parameters"]["call"] != "/inbox.v1.Inbox/ListThreads":
        problems.append(f"parameters.call is {report['parameters']['call']!r}")
    recommend_only = {"items", "profile", "seed", "variants", "verify_every"} & report["parameters"].keys()
    if recommend_only:
        problems.append(f"parameters that mean nothing for --call are written: {sorted(recommend_only)}")
    for t in report["targets"]:
        name, server = t["name"], t["server"]
        for r in t["rounds"]:
            c = r["client"]
            if c["ok"] != calls or c["completed"] != calls:
                problems.append(f"{name} round {r['round']}: {c['ok']} OK of {c['completed']}, want {calls}")
        if t["figures"]["errors"] != 0:
            problems.append(f"{name}: {t['figures']['errors']} errors")
        if not server["available"] or server.get("source") != "reco_server_stats" or server.get("rpcs_from_client"):
            problems.append(f"{name}: server figures not from the stats library: {server}")
        if server.get("rpcs", 0) < calls * len(t["rounds"]):
            problems.append(f"{name}: the server counted {server.get('rpcs')} RPCs")
        unpooled = t["figures"].get("server_pool_unpooled")
        if (name == "pooled_arena" and unpooled != 0) or (name != "pooled_arena" and unpooled is not None):
            problems.append(f"{name}: leases unpooled {unpooled}: want 0 for the pool (16 in flight, 64 arenas), "
                            "null without one")
        if heap_allocs is not None:
            build = t["figures"]["server_build_allocs_per_rpc"]
            want = {"heap": heap_allocs, "pooled_arena": 0.0}.get(name)
            if want is not None and build != want:
                problems.append(f"{name}: build allocs/RPC {build}, want {want}")
            if t["figures"]["server_process_allocs_per_rpc"] is None:
                problems.append(f"{name}: no process allocations per RPC")
        if name != "heap" and not t["ratios_to_baseline"].get("qps"):
            problems.append(f"{name}: no paired QPS ratio to heap")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        counts = ("not counted (sanitizer build)" if heap_allocs is None
                  else f"heap build {heap_allocs:g} allocs/RPC, pooled_arena 0")
        print(f"ok: {len(report['targets'])} targets, {calls} calls per round each, {counts}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
