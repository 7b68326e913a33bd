"""Summarizes scripts/compare_h2load.sh's runs: per mode, paired ratios reco_load / h2load.

    compare_h2load_summary.py RUNS.jsonl DURATION WARMUP

RUNS.jsonl holds one line per run (tool, mode, round, rps, client and server CPU
seconds). Each round ran both tools back to back on the same server, so each round
gives one ratio; the summary is their median [min-max] over the rounds. A spread that
crosses 1.0 is "no measurable difference".
"""
import json
import statistics
import sys

GOAL = 0.9  # issue 12: reco_load must reach 0.9x h2load's req/s at equal concurrency


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


def spread(values):
    lo, hi = min(values), max(values)
    text = f"x{statistics.median(values):.2f} [{lo:.2f}-{hi:.2f}]"
    return text + (" (no measurable difference)" if lo <= 1.0 <= hi else "")


def main():
    runs = [json.loads(line) for line in open(sys.argv[1])]
    seconds, warmup = float(sys.argv[2]), float(sys.argv[3])
    modes = list(dict.fromkeys(r["mode"] for r in runs))
    summary = []
    for mode in modes:
        pairs = {}
        for r in runs:
            if r["mode"] == mode:
                pairs.setdefault(r["round"], {})[r["tool"]] = r
        rounds = [p for _, p in sorted(pairs.items()) if len(p) == 2]
        figures = {tool: [per_request(p[tool], seconds, warmup) for p in rounds] for tool in ("h2load", "reco_load")}
        rps = [p["reco_load"]["rps"] / p["h2load"]["rps"] for p in rounds]
        client = [r[0] / h[0] for h, r in zip(figures["h2load"], figures["reco_load"])]
        server = [r[1] / h[1] for h, r in zip(figures["h2load"], figures["reco_load"])]
        med = lambda tool, i: statistics.median(f[i] for f in figures[tool])
        print(f"{mode}: {len(rounds)} paired rounds")
        for tool in ("h2load", "reco_load"):
            print(f"  {tool:9s} median {statistics.median(p[tool]['rps'] for p in rounds):8.0f} req/s; "
                  f"client CPU {med(tool, 0):6.1f} us/response ({100 * med(tool, 2):.0f}% of a CPU); "
                  f"server CPU {med(tool, 1):6.1f} us/RPC")
        print(f"  reco_load / h2load req/s:        {spread(rps)}")
        print(f"  reco_load / h2load client CPU/response: {spread(client)}")
        print(f"  reco_load / h2load server CPU/RPC: {spread(server)}")
        met = statistics.median(rps) >= GOAL
        print(f"  goal reco_load >= {GOAL}x h2load's req/s: {'met' if met else 'NOT met'} on the median"
              f"{'' if min(rps) >= GOAL else f' (lowest round x{min(rps):.2f})'}")
        summary.append({"mode": mode, "rounds": len(rounds), "rps_ratio": rps, "client_cpu_ratio": client,
                        "server_cpu_ratio": server})
    return summary


if __name__ == "__main__":
    main()
