"""Checks the reports of scripts/compose_check.sh's compose runs; fails by assertion.

    compose_check_reports.py all RESULTS_DIR
    compose_check_reports.py scaled RESULTS_DIR
    compose_check_reports.py edge RESULTS_DIR

RESULTS_DIR is the ./results the load container wrote (report.json, report.html).
  all     the default compose run: the memory modes, arena_pool on the async API
          too, and fragments are the targets, in order, each answered without error and
          byte-exact, and named in report.html, which holds a chart.
  scaled  the run with `--scale arena_pool=3`: arena_pool stays one target with three
          replicas, every replica served calls, and their RPCs add up to the target's.
  edge    the run through the edge (--profile edge): one target, "edge", answered
          without error and byte-exact, served by arena_pool_edge behind it.
Prints one line saying what passed.
"""
import json
import os
import sys

MODES = ["heap", "reuse", "arena", "arena_pool", "arena_pool_async", "fragments"]


def check_all(doc, results):
    html = open(os.path.join(results, "report.html")).read()
    names = [t["name"] for t in doc["targets"]]
    assert names == MODES, names
    for t in doc["targets"]:
        c = t["client"]
        assert c["ok"] > 0 and not c["errors_by_code"], (t["name"], c["errors_by_code"])
        assert c["wrong_content"] == 0 and c["wrong_item_count"] == 0, t["name"]
        assert t["name"] in html, t["name"]
    assert "<svg" in html
    print("compose_check: load exited 0; results/report.json and report.html hold", ", ".join(names))


def check_scaled(doc, results):
    names = [t["name"] for t in doc["targets"]]
    assert names == MODES, names
    pool = doc["targets"][names.index("arena_pool")]
    replicas = pool.get("replicas", [])
    addresses = [r["address"] for r in replicas]
    assert len(set(addresses)) == 3, f"arena_pool: want 3 replicas, the report has {addresses}"
    rpcs = [r.get("rpcs", 0) for r in replicas]
    assert all(n > 0 for n in rpcs), f"arena_pool: a replica served nothing: {dict(zip(addresses, rpcs))}"
    assert sum(rpcs) == pool["server"]["rpcs"], (rpcs, pool["server"]["rpcs"])
    assert pool["client"]["ok"] > 0 and not pool["client"]["errors_by_code"], pool["client"]["errors_by_code"]
    shares = ", ".join(f"{a} {n}" for a, n in zip(addresses, rpcs))
    print(f"compose_check: --scale arena_pool=3: one target, every replica served (server RPCs {shares})")


def check_edge(doc, results):
    names = [t["name"] for t in doc["targets"]]
    assert names == ["edge"], names
    t = doc["targets"][0]
    assert t["client"]["ok"] > 0 and not t["client"]["errors_by_code"], t["client"]
    assert t["client"]["wrong_content"] == 0 and t["client"]["wrong_item_count"] == 0
    assert t["server"]["mode"] == "arena_pool" and t["server"]["rpcs"] > 0, t["server"]
    print(f"compose_check: --profile edge: {t['client']['ok']} calls through the edge to arena_pool_edge,"
          " all byte-exact")


CHECKS = {"all": check_all, "scaled": check_scaled, "edge": check_edge}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CHECKS:
        print(__doc__, file=sys.stderr)
        return 2
    results = sys.argv[2]
    CHECKS[sys.argv[1]](json.load(open(os.path.join(results, "report.json"))), results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
