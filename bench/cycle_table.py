#!/usr/bin/python3
"""Prints a Markdown table of reco_bench results: time per operation and allocations
per operation, one row per benchmark, one column pair per JSON file (e.g. one file
per malloc). With --benchmark_repetitions the median is used.

Time is CPU time for single-threaded benchmarks (on a shared machine it leaves out
the time the benchmark thread waited for a CPU) and the benchmark's own clock for
/manual_time and /real_time ones.

  bench/cycle_table.py cycle-glibc.json cycle-tcmalloc.json ...

The column header is the "malloc" entry reco_bench writes into the JSON context.
"""
import json
import sys


def load(path):
    doc = json.load(open(path))
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    rows = {}
    for run in doc["benchmarks"]:
        if run.get("error_occurred"):
            continue
        kind = run.get("run_type")
        if kind == "aggregate" and run.get("aggregate_name") != "median":
            continue
        name = run.get("run_name", run["name"])
        if kind == "iteration" and name in rows and rows[name][2]:
            continue  # a median for this name was already kept
        clock = "real_time" if ("/manual_time" in name or "/real_time" in name) else "cpu_time"
        ns = run[clock] * scale[run["time_unit"]]
        rows[name] = (ns, run.get("allocs"), kind == "aggregate")
    return doc["context"].get("malloc", path), rows


def main(paths):
    if not paths:
        sys.exit("usage: cycle_table.py RUN.json [RUN.json ...]")
    tables = [load(p) for p in paths]
    names = []
    for _, rows in tables:
        names += [n for n in rows if n not in names]
    header = "| benchmark |" + "".join(" %s ns/op | allocs/op |" % m for m, _ in tables)
    print(header)
    print("|---|" + "---:|---:|" * len(tables))
    for name in names:
        cells = []
        for _, rows in tables:
            if name in rows:
                ns, allocs, _ = rows[name]
                cells.append(" {:,.0f} | {} |".format(ns, "-" if allocs is None else "{:,.0f}".format(allocs)))
            else:
                cells.append(" - | - |")
        print("| `%s` |%s" % (name, "".join(cells)))


if __name__ == "__main__":
    main(sys.argv[1:])
