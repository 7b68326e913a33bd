"""Checks the page and raw results of `bench/matrix.sh --short`; fails by assertion.

    check_matrix_short.py WORK_DIR

WORK_DIR is bench/matrix_short_test.sh's folder: out.txt (matrix.sh's output),
page/RESULTS.md and page/results/*.svg (the page and its charts), raw/MALLOC/ (each
malloc's reco_load and reco_bench JSON). Checks that the page names all four mallocs
as run or SKIPPED (glibc always runs; a malloc not asked for is SKIPPED saying so),
has the ceiling row with its share once per malloc run and says how busy the machine
was; that every reco_load target of every malloc answered without error, and
reco_bench ran every case; that the charts parse as SVG and the page links them. No
speed is asserted.
"""
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

TARGETS = ["heap", "reuse", "arena", "arena_pool", "fragments", "ceiling"]


def mallocs_run(page, out):
    """The mallocs the page says ran; a SKIPPED one must be said so in the output too."""
    ran = []
    for m in ("glibc", "tcmalloc", "jemalloc", "mimalloc"):
        status = re.search(r"\*\*%s\*\* (ran|SKIPPED)" % m, page)
        assert status, "the page does not name %s as run or SKIPPED" % m
        if status.group(1) == "SKIPPED":
            asked = "**%s** SKIPPED (not asked for (--mallocs))" % m in page
            assert asked or "%s SKIPPED" % m in out, "%s skipped in the page but not in the output" % m
        else:
            ran.append(m)
    assert "glibc" in ran, "glibc needs no library: it must always run"
    return ran


def check_raw(raw_dir, m):
    """One malloc's raw results: reco_load's every target clean, reco_bench's every case."""
    doc = json.load(open(os.path.join(raw_dir, m, "load-realistic.json")))
    names = [t["name"] for t in doc["targets"]]
    assert names == TARGETS, names
    assert doc["error_rate"] == 0, (m, doc["error_rate"], doc["warnings"])
    assert doc["parameters"]["ceiling"] == "ceiling"
    assert doc["parameters"]["rounds"] == 2, doc["parameters"]["rounds"]
    for t in doc["targets"]:
        assert t["figures"]["qps"] > 0, (m, t["name"])
        assert t["server"]["mode"] == t["name"], (m, t["name"], t["server"]["mode"])
        assert 0 < t["qps_share_of_ceiling"], (m, t["name"])
        # bench/matrix_short_test.sh asks for --rounds 2.
        assert t["ratios_to_baseline"]["qps"]["rounds"] == 2, (m, t["name"], t["ratios_to_baseline"]["qps"])
        assert all("other_cpu_share" in r["machine"] for r in t["rounds"]), (m, t["name"])
    bench = json.load(open(os.path.join(raw_dir, m, "bench.json")))
    names = {r["name"] for r in bench["benchmarks"]}
    assert len([n for n in names if n.startswith("BM_Cycle/")]) == 24, sorted(names)
    assert len([n for n in names if n.startswith("BM_Parse/")]) == 8, sorted(names)
    assert bench["context"]["malloc"] == m, (m, bench["context"]["malloc"])


def check_charts(page_dir, page):
    svgs = sorted(os.listdir(os.path.join(page_dir, "results")))
    assert svgs == ["cycle-200-compact.svg", "cycle-200-realistic.svg", "service-qps-realistic.svg"], svgs
    for name in svgs:
        root = ET.parse(os.path.join(page_dir, "results", name)).getroot()
        assert root.tag.endswith("svg") and root.findall(".//{http://www.w3.org/2000/svg}rect"), name
        assert "(results/%s)" % name in page, name
    return svgs


def check_h2load(work, page):
    """The share of the ceiling by h2load: in the page and the raw summary when h2load
    is installed (fragments against the ceiling in the short form), said missing else."""
    if not shutil.which("h2load"):
        assert "Not measured in this run: h2load" in page, "h2load is missing but the page does not say so"
        return False
    summary = json.load(open(os.path.join(work, "raw", "h2load", "summary.json")))
    by_mode = {m["mode"]: m for m in summary["modes"]}
    assert sorted(by_mode) == ["ceiling", "fragments"], sorted(by_mode)
    fragments = by_mode["fragments"]
    assert fragments["rounds"] == 2 and len(fragments["share_of_ceiling"]["h2load"]) == 2, fragments
    assert 0 < fragments["share_of_ceiling"]["h2load"][0], fragments
    assert "share_of_ceiling" not in by_mode["ceiling"], by_mode["ceiling"]
    row = re.search(r"^\| `fragments` \| [0-9,]+ \| [0-9]+ % \[[0-9]+-[0-9]+ %\] \| [0-9]+ % .* \| x[0-9.]+ .*\|$",
                    page, re.M)
    assert row, "no fragments row with its h2load share in the page"
    return True


def main():
    work = sys.argv[1]
    page = open(os.path.join(work, "page", "RESULTS.md")).read()
    out = open(os.path.join(work, "out.txt")).read()
    ran = mallocs_run(page, out)
    # The ceiling row, and its share of itself, once per malloc that ran.
    row = re.search(r"^\| `ceiling` \|(.*)\|$", page, re.M)
    assert row, "no ceiling row in the service table"
    assert row.group(1).count("**100 %**") == len(ran), row.group(0)
    assert "QPS share of ceiling" in out, "reco_load's table has no share row"
    assert "machine before run: load " in page, "the page does not say how busy the machine was before the run"
    for m in ran:
        check_raw(os.path.join(work, "raw"), m)
    svgs = check_charts(os.path.join(work, "page"), page)
    h2load = check_h2load(work, page)
    print("matrix short: page, %d malloc(s) run, ceiling row, %d charts, h2load share %s"
          % (len(ran), len(svgs), "checked" if h2load else "not installed: said so"))


if __name__ == "__main__":
    main()
