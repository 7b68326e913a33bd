"""Summarizes scripts/compare_h2load.sh's runs: per mode, paired ratios reco_load / h2load.

    compare_h2load_summary.py RUNS.jsonl DURATION WARMUP [--json OUT]

RUNS.jsonl holds one line per run (tool, mode, round, rps, client and server CPU
seconds). Each round ran both tools back to back on the same server, so each round
gives one ratio; the summary is their median [min-max] over the rounds. A spread that
crosses 1.0 is "no measurable difference". When the ceiling is among the modes, each
other mode's share of the ceiling's req/s is given per tool, round by round (the
ceiling of the same round and tool). When the runs counted their socket writes
(SYSCALLS=1), the requests each tool sent per write. --json writes the summary for
bench/matrix_page.py.
"""
import json
import statistics
import sys

GOAL = 0.9  # issue 12: reco_load must reach 0.9x h2load's req/s at equal concurrency
CLIENT_CPU_GOAL = 1.3  # issue 25: reco_load's client CPU per response at most 1.3x h2load's
TOOLS = ("h2load", "reco_load")


def per_request(run, seconds, warmup):
    """Client CPU us per response and server CPU us per RPC for one run."""
    if run["client_cpu_requests"]:  # reco_load: its own window
        client = run["client_cpu_seconds"] / run["client_cpu_requests"]
        client_share = run["client_cpu_seconds"] / seconds
    else:  # h2load: its whole process, warm-up included
        client = run["client_cpu_seconds"] / (run["rps"] * (seconds + warmup))
        client_share = run["client_cpu_seconds"] / run["wall_seconds"]
    server = run["server_cpu_seconds"] / (run["rps"] * (seconds + warmup))
    return client * 1e6, server * 1e6, client_share


def requests_per_write(run, seconds, warmup):
    """Requests sent per socket write over the tool's whole run (warm-up included, as the
    writes were counted), or None when the run did not count its writes."""
    writes = run.get("client_socket_writes")
    return run["rps"] * (seconds + warmup) / writes if writes else None


def value_spread(values):
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def spread(values):
    lo, hi = min(values), max(values)
    text = f"x{statistics.median(values):.2f} [{lo:.2f}-{hi:.2f}]"
    return text + (" (no measurable difference)" if lo <= 1.0 <= hi else "")


def percent_spread(values):
    return f"{100 * statistics.median(values):.0f}% [{100 * min(values):.0f}-{100 * max(values):.0f}%]"


def paired_rounds(runs, mode):
    """{round: {tool: run}} for the rounds of MODE that ran both tools."""
    pairs = {}
    for r in runs:
        if r["mode"] == mode:
            pairs.setdefault(r["round"], {})[r["tool"]] = r
    return {n: p for n, p in sorted(pairs.items()) if len(p) == 2}


def summarize(runs, seconds, warmup):
    modes = list(dict.fromkeys(r["mode"] for r in runs))
    ceiling = paired_rounds(runs, "ceiling") if "ceiling" in modes else {}
    summary = []
    for mode in modes:
        pairs = paired_rounds(runs, mode)
        rounds = list(pairs.values())
        figures = {tool: [per_request(p[tool], seconds, warmup) for p in rounds] for tool in TOOLS}
        entry = {
            "mode": mode, "rounds": len(rounds),
            "rps": {tool: [p[tool]["rps"] for p in rounds] for tool in TOOLS},
            "client_cpu_us_per_response": {tool: [f[0] for f in figures[tool]] for tool in TOOLS},
            "client_cpu_share": {tool: [f[2] for f in figures[tool]] for tool in TOOLS},
            "server_cpu_us_per_rpc": {tool: [f[1] for f in figures[tool]] for tool in TOOLS},
            "rps_ratio": [p["reco_load"]["rps"] / p["h2load"]["rps"] for p in rounds],
            "client_cpu_ratio": [r[0] / h[0] for h, r in zip(figures["h2load"], figures["reco_load"])],
            "server_cpu_ratio": [r[1] / h[1] for h, r in zip(figures["h2load"], figures["reco_load"])],
        }
        batching = {tool: [requests_per_write(p[tool], seconds, warmup) for p in rounds] for tool in TOOLS}
        if rounds and all(v is not None for tool in TOOLS for v in batching[tool]):
            entry["requests_per_socket_write"] = batching
        if ceiling and mode != "ceiling":
            entry["share_of_ceiling"] = {
                tool: [p[tool]["rps"] / ceiling[n][tool]["rps"] for n, p in pairs.items() if n in ceiling]
                for tool in TOOLS}
        summary.append(entry)
    return summary


def print_summary(summary):
    for s in summary:
        if not s["rounds"]:
            print(f"{s['mode']}: no round ran both tools")
            continue

        def med(key, tool):
            return statistics.median(s[key][tool])
        print(f"{s['mode']}: {s['rounds']} paired rounds")
        for tool in TOOLS:
            print(f"  {tool:9s} median {med('rps', tool):8.0f} req/s; "
                  f"client CPU {med('client_cpu_us_per_response', tool):6.1f} us/response "
                  f"({100 * med('client_cpu_share', tool):.0f}% of a CPU); "
                  f"server CPU {med('server_cpu_us_per_rpc', tool):6.1f} us/RPC")
        if s.get("share_of_ceiling", {}).get("h2load"):
            shares = s["share_of_ceiling"]
            print(f"  share of the ceiling's req/s (same tool, same round): "
                  f"h2load {percent_spread(shares['h2load'])}, reco_load {percent_spread(shares['reco_load'])}")
        if "requests_per_socket_write" in s:
            batching = s["requests_per_socket_write"]
            print(f"  requests per socket write: h2load {value_spread(batching['h2load'])}, "
                  f"reco_load {value_spread(batching['reco_load'])}")
        rps, client = s["rps_ratio"], s["client_cpu_ratio"]
        print(f"  reco_load / h2load req/s:        {spread(rps)}")
        print(f"  reco_load / h2load client CPU/response: {spread(client)}")
        print(f"  reco_load / h2load server CPU/RPC: {spread(s['server_cpu_ratio'])}")
        met = statistics.median(rps) >= GOAL
        print(f"  goal reco_load >= {GOAL}x h2load's req/s: {'met' if met else 'NOT met'} on the median"
              f"{'' if min(rps) >= GOAL else f' (lowest round x{min(rps):.2f})'}")
        met = statistics.median(client) <= CLIENT_CPU_GOAL
        print(f"  goal reco_load client CPU/response <= {CLIENT_CPU_GOAL}x h2load's: "
              f"{'met' if met else 'NOT met'} on the median"
              f"{'' if max(client) <= CLIENT_CPU_GOAL else f' (highest round x{max(client):.2f})'}")


def main(argv):
    if len(argv) not in (4, 6) or (len(argv) == 6 and argv[4] != "--json"):
        print(__doc__, file=sys.stderr)
        return 2
    runs = [json.loads(line) for line in open(argv[1])]
    summary = summarize(runs, float(argv[2]), float(argv[3]))
    print_summary(summary)
    if len(argv) == 6:
        with open(argv[5], "w") as out:
            json.dump({"duration": float(argv[2]), "warmup": float(argv[3]), "modes": summary}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
