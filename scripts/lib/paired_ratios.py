"""Ratios of targets to a baseline over the paired rounds of one reco_load report.

    paired_ratios.py REPORT.json BASELINE [TARGET ...]

reco_load drives its targets in interleaved rounds (A B C A B C ...), so machine noise
hits every target of a round alike. For each TARGET (default: every other target in
the report) this prints, per figure, the median of the per-round ratios
TARGET / BASELINE with their min-max; a spread that crosses 1.0 is "no measurable
difference". Exact counts (process allocations per RPC) are printed side by side, and
the rounds reco_load's noise guard marked disturbed by other processes.

When BASELINE is the report's own baseline (its first target) the ratios are the ones
reco_load computed (targets[].ratios_to_baseline, client/paired_ratio.h); for another
baseline, or a report from before reco_load had them, they are computed here the same
way.
"""
import json
import statistics
import sys

RATIO_FIGURES = [("server_cpu_us_per_rpc", "server CPU/RPC"), ("qps", "QPS"),
                 ("latency_p50_ms", "client p50 latency")]
COUNT_FIGURES = [("server_process_allocs_per_rpc", "process allocs/RPC"), ("server_rpcs", "server RPCs")]


def round_ratios(target, baseline, key):
    out = []
    for rt, rb in zip(target["rounds"], baseline["rounds"]):
        a, b = rt["figures"].get(key), rb["figures"].get(key)
        if a is not None and b:
            out.append(a / b)
    return out


def paired(target, baseline, key, report_baseline):
    """(median, min, max) of the per-round ratios, or None when no round pairs."""
    ratios = target.get("ratios_to_baseline")
    if ratios is not None and baseline["name"] == report_baseline:
        own = ratios.get(key)
        return (own["median"], own["min"], own["max"]) if own else None
    r = round_ratios(target, baseline, key)
    return (statistics.median(r), min(r), max(r)) if r else None


def describe(target, baseline, report_baseline=None):
    lines = [f"{target['name']} / {baseline['name']} over {len(target['rounds'])} paired rounds"]
    for key, label in RATIO_FIGURES:
        p = paired(target, baseline, key, report_baseline)
        if not p:
            lines.append(f"  {label:22s} n/a")
            continue
        med, lo, hi = p
        verdict = "no measurable difference" if lo <= 1.0 <= hi else ""
        lines.append(f"  {label:22s} x{med:.3f} [{lo:.3f}-{hi:.3f}] {verdict}".rstrip())

    def fmt(v):
        return "n/a" if v is None else f"{v:.1f}"
    for key, label in COUNT_FIGURES:
        lines.append(f"  {label:22s} {target['name']} {fmt(target['figures'].get(key))}  "
                     f"{baseline['name']} {fmt(baseline['figures'].get(key))}")
    for t in (baseline, target):
        for r in t.get("rounds", []):
            m = r.get("machine") or {}
            if m.get("disturbed"):
                lines.append(f"  disturbed: {t['name']} round {r['round']}, other processes used "
                             f"{m['other_cpu_share'] * 100:.0f}% of the machine's CPU")
    return lines


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    with open(argv[1]) as f:
        report = json.load(f)
    by_name = {t["name"]: t for t in report["targets"]}
    if argv[2] not in by_name:
        print(f"paired_ratios: no target '{argv[2]}' in {argv[1]} (has: {', '.join(by_name)})", file=sys.stderr)
        return 2
    names = argv[3:] or [n for n in by_name if n != argv[2]]
    for name in names:
        if name not in by_name:
            print(f"paired_ratios: no target '{name}' in {argv[1]}", file=sys.stderr)
            return 2
        print("\n".join(describe(by_name[name], by_name[argv[2]], report["parameters"].get("baseline"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
