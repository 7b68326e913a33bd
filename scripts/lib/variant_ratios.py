"""Paired ratios of two reco_load variants run back to back in each round.

    variant_ratios.py RUNS.txt VARIANT BASELINE

RUNS.txt holds one line per reco_load run: ROUND LABEL REPORT.json (one target per
report; a kept report may be gzipped, REPORT.json.gz). Each round ran VARIANT and
BASELINE back to back against the same server, so each round gives one ratio
VARIANT / BASELINE per figure; the summary is their median [min-max]. A spread that
crosses 1.0 is "no measurable difference". Used by
scripts/generic_call_cost.sh (generic / recommend) and scripts/client_poller_cost.sh
(poll / epoll1).
"""
import gzip
import json
import statistics
import sys

FIGURES = [("client_cpu_us_per_response", "client CPU/response"), ("qps", "QPS")]


def load(path):
    return json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))


def main():
    runs, variant, baseline = sys.argv[1:4]
    rounds = {}
    for line in open(runs):
        rnd, label, report = line.split()
        figures = load(report)["targets"][0]["figures"]
        rounds.setdefault(int(rnd), {})[label] = figures
    cpu = load(report)["environment"]["cpu_model"]
    print(f"{variant} / {baseline}, {len(rounds)} paired round(s), {cpu}:")
    for key, label in FIGURES:
        ratios = [r[variant][key] / r[baseline][key] for r in rounds.values()
                  if r.get(variant, {}).get(key) and r.get(baseline, {}).get(key)]
        if not ratios:
            print(f"  {label}: no figures")
            continue
        lo, hi = min(ratios), max(ratios)
        median = statistics.median(ratios)
        base = statistics.median(r[baseline][key] for r in rounds.values() if r.get(baseline, {}).get(key))
        note = " (no measurable difference)" if lo <= 1.0 <= hi else ""
        print(f"  {label}: x{median:.2f} [{lo:.2f}-{hi:.2f}]{note}  ({baseline}: {base:.1f})")


if __name__ == "__main__":
    main()
