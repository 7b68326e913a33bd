"""Summarizes scripts/generic_call_cost.sh: paired ratios generic / Recommend.

    generic_call_cost_summary.py RUNS.txt

RUNS.txt holds one line per reco_load run: ROUND PATH REPORT.json, PATH being
"recommend" or "generic". Each round ran both paths back to back against the same
server, so each round gives one ratio per figure; the summary is their median
[min-max]. A spread that crosses 1.0 is "no measurable difference".
"""
import json
import statistics
import sys

FIGURES = [("client_cpu_us_per_response", "client CPU/response"), ("qps", "QPS")]


def main():
    rounds = {}
    for line in open(sys.argv[1]):
        rnd, path, report = line.split()
        figures = json.load(open(report))["targets"][0]["figures"]
        rounds.setdefault(int(rnd), {})[path] = figures
    cpu = json.load(open(report))["environment"]["cpu_model"]
    print(f"generic (--call) / Recommend, {len(rounds)} paired round(s), {cpu}:")
    for key, label in FIGURES:
        ratios = [r["generic"][key] / r["recommend"][key] for r in rounds.values()
                  if r.get("generic", {}).get(key) and r.get("recommend", {}).get(key)]
        if not ratios:
            print(f"  {label}: no figures")
            continue
        lo, hi = min(ratios), max(ratios)
        median = statistics.median(ratios)
        base = statistics.median(r["recommend"][key] for r in rounds.values())
        note = " (no measurable difference)" if lo <= 1.0 <= hi else ""
        print(f"  {label}: x{median:.2f} [{lo:.2f}-{hi:.2f}]{note}  (Recommend: {base:.1f})")


if __name__ == "__main__":
    main()
