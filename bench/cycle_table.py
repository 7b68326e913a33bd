#!/usr/bin/python3
"""Prints a Markdown table of reco_bench results: time per operation and allocations
per operation, one row per benchmark, one column group per JSON file (e.g. one file
per malloc). With --benchmark_repetitions the median is used.

  bench/cycle_table.py cycle-glibc.json cycle-tcmalloc.json ...
  bench/cycle_table.py --counters arena_blocks,space_allocated,space_used sweep.json

Time is CPU time for single-threaded benchmarks (on a shared machine it leaves out
the time the benchmark thread waited for a CPU) and the benchmark's own clock for
/manual_time and /real_time ones. The column header is the "malloc" entry reco_bench
writes into the JSON context.
"""
import argparse
import json

SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path, counters):
    doc = json.load(open(path))
    rows = {}
    for run in doc["benchmarks"]:
        if run.get("error_occurred"):
            continue
        kind = run.get("run_type")
        if kind == "aggregate" and run.get("aggregate_name") != "median":
            continue
        name = run.get("run_name", run["name"])
        if kind == "iteration" and name in rows and rows[name]["median"]:
            continue  # a median for this name was already kept
        clock = "real_time" if ("/manual_time" in name or "/real_time" in name) else "cpu_time"
        values = [run[clock] * SCALE[run["time_unit"]], run.get("allocs")]
        values += [run.get(c) for c in counters]
        rows[name] = {"values": values, "median": kind == "aggregate"}
    return doc["context"].get("malloc", path), rows


def cell(value):
    return "-" if value is None else "{:,.0f}".format(value)


def main():
    parser = argparse.ArgumentParser(description="Markdown tables from reco_bench JSON output.")
    parser.add_argument("--counters", default="", help="extra counters to show, comma-separated")
    parser.add_argument("runs", nargs="+", help="reco_bench --benchmark_out JSON files")
    args = parser.parse_args()
    counters = [c for c in args.counters.split(",") if c]
    tables = [load(p, counters) for p in args.runs]
    names = []
    for _, rows in tables:
        names += [n for n in rows if n not in names]
    columns = ["%s ns/op", "allocs/op"] + counters
    print("| benchmark |" + "".join(" %s |" % (c % m if "%s" in c else c) for m, _ in tables for c in columns))
    print("|---|" + "---:|" * (len(columns) * len(tables)))
    for name in names:
        cells = []
        for _, rows in tables:
            values = rows[name]["values"] if name in rows else [None] * len(columns)
            cells += [cell(v) for v in values]
        print("| `%s` | %s |" % (name, " | ".join(cells)))


if __name__ == "__main__":
    main()
