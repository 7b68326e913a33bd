"""The per-run lines of scripts/compare_h2load.sh.

    compare_h2load_runs.py reco_load REPORT.json MODE ROUND SERVER_CPU_BEFORE SERVER_CPU_AFTER [WRITES]
    compare_h2load_runs.py round < LAST_TWO_RUNS.jsonl
    compare_h2load_runs.py writes PERF_STAT.csv

reco_load  prints the JSON line of one reco_load run, in the shape the script writes
           for an h2load run: req/s and client CPU from reco_load's report (its own
           process over the measured window), the server's CPU seconds over the run
           (the two readings of /proc/PID/stat, in seconds); WRITES, the tool's socket
           writes over the run ("null" or absent: not counted).
round      reads a round's two run lines (one per tool, same mode) and prints the
           round's req/s of both tools and their ratio reco_load / h2load.
writes     prints the sum of the counts in a `perf stat -x,` file (SYSCALLS=1: the
           tool's socket-writing syscalls); exits 1 on a count perf could not take.
compare_h2load_summary.py summarizes all the lines.
"""
import json
import sys


def reco_load_run(report_path, mode, round_number, server_cpu_before, server_cpu_after, writes="null"):
    report = json.load(open(report_path))
    c = report["targets"][0]["client"]
    return {"tool": "reco_load", "mode": mode, "round": int(round_number),
            "rps": c["ok"] / c["seconds"], "client_cpu_seconds": c["client_cpu_seconds"],
            "client_cpu_requests": c["completed"], "wall_seconds": None,
            "server_cpu_seconds": float(server_cpu_after) - float(server_cpu_before),
            "threads": report["parameters"].get("threads"), "client_socket_writes": json.loads(writes)}


def perf_stat_sum(path):
    """The sum of the event counts in a `perf stat -x,` file; ValueError if one was not counted."""
    total = 0
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        count, event = line.split(",")[0], line.split(",")[2]
        if not count.isdigit():
            raise ValueError(f"{path}: perf did not count {event} ({count})")
        total += int(count)
    return total


def round_line(lines):
    runs = {r["tool"]: r for r in map(json.loads, lines)}
    h, r = runs["h2load"]["rps"], runs["reco_load"]["rps"]
    return "round %d %10s: h2load %8.0f req/s, reco_load %8.0f req/s (x%.2f)" % (
        runs["h2load"]["round"], runs["h2load"]["mode"], h, r, r / h)


def main():
    if sys.argv[1] == "reco_load":
        print(json.dumps(reco_load_run(*sys.argv[2:8])))
    elif sys.argv[1] == "writes":
        try:
            print(perf_stat_sum(sys.argv[2]))
        except ValueError as e:
            sys.exit(f"compare_h2load_runs.py: {e}")
    else:
        print(round_line(sys.stdin))


if __name__ == "__main__":
    main()
