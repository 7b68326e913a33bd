#!/usr/bin/env bash
# bench/matrix.sh --short end to end (CTest: bench_matrix_short): the page exists, names
# all four mallocs as run or SKIPPED, has the ceiling row with its share, charts that
# parse as SVG; the raw reco_load JSON shows every target answered without error. Then
# the page renderer alone, on a copy of the results with one malloc marked missing,
# must say SKIPPED for it. No speed is asserted.
set -u
build=$1
root=$(cd "$(dirname "$0")/.." && pwd)
# Under a sanitizer build the figures mean nothing and no other malloc can be
# preloaded (the sanitizer's runtime must come first): CTest reports the test skipped.
if ldd "$build/server/reco_server" 2>/dev/null | grep -qE 'lib(asan|tsan|ubsan)'; then
  echo "bench_matrix_short: skipped: $build is a sanitizer build"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A malloc name the script does not know is refused before anything runs.
if err=$("$root/bench/matrix.sh" --short --build "$build" --mallocs "glibc bogus" --out "$work/no" 2>&1); then
  echo "FAIL: --mallocs bogus was accepted"; exit 1
fi
grep -q -- "--mallocs: unknown malloc 'bogus'" <<<"$err" || { echo "FAIL: unexpected message: $err"; exit 1; }

"$root/bench/matrix.sh" --short --build "$build" --out "$work/raw" --page "$work/page/RESULTS.md" \
  >"$work/out.txt" 2>&1 || { echo "FAIL: matrix.sh --short exited non-zero"; cat "$work/out.txt"; exit 1; }
cat "$work/out.txt"

/usr/bin/python3 - "$work" <<'PY' || exit 1
import json, os, re, sys, xml.etree.ElementTree as ET
work = sys.argv[1]
page = open(os.path.join(work, "page", "RESULTS.md")).read()
out = open(os.path.join(work, "out.txt")).read()
ran = []
for m in ("glibc", "tcmalloc", "jemalloc", "mimalloc"):
    status = re.search(r"\*\*%s\*\* (ran|SKIPPED)" % m, page)
    assert status, "the page does not name %s as run or SKIPPED" % m
    if status.group(1) == "SKIPPED":
        assert "%s SKIPPED" % m in out, "%s skipped in the page but not in the output" % m
    else:
        ran.append(m)
assert "glibc" in ran, "glibc needs no library: it must always run"
# The ceiling row, and its share of itself, once per malloc that ran.
row = re.search(r"^\| `ceiling` \|(.*)\|$", page, re.M)
assert row, "no ceiling row in the service table"
assert row.group(1).count("**100 %**") == len(ran), row.group(0)
assert "QPS share of ceiling" in out, "reco_load's table has no share row"
assert "machine before run: load " in page, "the page does not say how busy the machine was before the run"
for m in ran:
    doc = json.load(open(os.path.join(work, "raw", m, "load-realistic.json")))
    names = [t["name"] for t in doc["targets"]]
    assert names == ["heap", "reuse", "arena", "arena_pool", "fragments", "ceiling"], names
    assert doc["error_rate"] == 0, (m, doc["error_rate"], doc["warnings"])
    assert doc["parameters"]["ceiling"] == "ceiling"
    for t in doc["targets"]:
        assert t["figures"]["qps"] > 0, (m, t["name"])
        assert t["server"]["mode"] == t["name"], (m, t["name"], t["server"]["mode"])
        assert 0 < t["qps_share_of_ceiling"], (m, t["name"])
        assert t["ratios_to_baseline"]["qps"]["rounds"] == 1, (m, t["name"], t["ratios_to_baseline"]["qps"])
        assert all("other_cpu_share" in r["machine"] for r in t["rounds"]), (m, t["name"])
    bench = json.load(open(os.path.join(work, "raw", m, "bench.json")))
    names = {r["name"] for r in bench["benchmarks"]}
    assert len([n for n in names if n.startswith("BM_Cycle/")]) == 24, sorted(names)
    assert len([n for n in names if n.startswith("BM_Parse/")]) == 8, sorted(names)
    assert bench["context"]["malloc"] == m, (m, bench["context"]["malloc"])
svgs = sorted(os.listdir(os.path.join(work, "page", "results")))
assert svgs == ["cycle-200-compact.svg", "cycle-200-realistic.svg", "service-qps-realistic.svg"], svgs
for name in svgs:
    root = ET.parse(os.path.join(work, "page", "results", name)).getroot()
    assert root.tag.endswith("svg") and root.findall(".//{http://www.w3.org/2000/svg}rect"), name
    assert "(results/%s)" % name in page, name
print("matrix short: page, %d malloc(s) run, ceiling row, %d charts" % (len(ran), len(svgs)))
PY

# The renderer alone: a malloc whose library is missing must show as SKIPPED.
cp -r "$work/raw" "$work/raw2"
rm -rf "$work/raw2/mimalloc" && mkdir "$work/raw2/mimalloc"
echo "mimalloc is not installed (/usr/lib/x/libmimalloc.so.2 missing)" >"$work/raw2/mimalloc/SKIPPED"
/usr/bin/python3 "$root/bench/matrix_page.py" "$work/raw2" --page "$work/page2.md" >/dev/null \
  || { echo "FAIL: matrix_page.py failed on a skipped malloc"; exit 1; }
grep -q '\*\*mimalloc\*\* SKIPPED (mimalloc is not installed' "$work/page2.md" \
  || { echo "FAIL: the page does not mark mimalloc SKIPPED"; exit 1; }
grep -q '^| `ceiling` |.*| SKIPPED |$' "$work/page2.md" \
  || { echo "FAIL: the service table has no SKIPPED column"; exit 1; }
echo "bench matrix short: all checks passed"
