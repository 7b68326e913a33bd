"""Per-item cost ratios from scripts/scaling.sh's reports.

    scaling_ratios.py DIR ITEMS...        prints scaling.json (to stdout)
    scaling_ratios.py --table FILE        prints a table of a scaling.json

DIR holds items-N-round-R-MODE.json (reco_load reports of one round and one target;
scripts/scaling.sh writes one per mode and size) or items-N-round-R.json (one report of
every target, as the runs kept from before it did). For each mode and
each N but the first (the base, e.g. 200), the per-round ratio is
(server CPU per RPC at N / N) / (server CPU per RPC at base / base), round r against
round r; the summary is the median and min-max of those ratios. A round with a target
that served no calls, or that reco_load marked disturbed, is counted in the output.
Where the growth is: per mode and N, the median over the rounds of each server phase's
mean wall time per call (build, serialize, release) divided by N, in us per item. And
each round's server CPU per RPC per mode and N (None where it served nothing), so that
two modes can be paired round by round at one size (scripts/render_docs.py does).
"""
import json
import re
import statistics
import sys
from pathlib import Path

FIGURE = "server_cpu_us_per_rpc"
PHASES = ("build", "serialize", "release")


def window_start(report):
    rounds = report["targets"][0]["rounds"] if report["targets"] else []
    return rounds[0].get("window_start_unix_ms", 0) if rounds else 0


def load_reports(directory):
    """{(N, R): one report}: the reports of one size and round, each of its own target(s),
    joined into one in the order they ran, so that the modes keep the order of MODES."""
    parts = {}
    for path in Path(directory).glob("items-*-round-*.json"):
        match = re.match(r"items-(\d+)-round-(\d+)(-[\w.]+)?\.json$", path.name)
        if not match:
            continue
        key = (int(match.group(1)), int(match.group(2)))
        parts.setdefault(key, []).append(json.loads(path.read_text()))
    reports = {}
    for key, found in parts.items():
        found.sort(key=window_start)
        joined = dict(found[0])
        joined["targets"] = [t for report in found for t in report["targets"]]
        reports[key] = joined
    return reports


def per_item_costs(report, items):
    out = {}
    for target in report["targets"]:
        rounds = target["rounds"]
        value = rounds[0]["figures"].get(FIGURE) if rounds else None
        out[target["name"]] = value / items if value else None
    return out


def phase_us_per_item(report, items, mode):
    """{phase: mean wall us per call / items} of MODE's server, None for a phase it did not time."""
    target = next((t for t in report["targets"] if t["name"] == mode), None)
    server = (target or {}).get("server") or {}
    out = {}
    for phase in PHASES:
        latency = (server.get(phase) or {}).get("latency") or {}
        out[phase] = latency["mean_ns"] / 1000 / items if latency.get("count") else None
    return out


def median_phases(reports, rounds, n, mode):
    per_round = [phase_us_per_item(reports[(n, r)], n, mode) for r in rounds]
    medians = {}
    for phase in PHASES:
        values = [p[phase] for p in per_round if p[phase] is not None]
        medians[phase] = statistics.median(values) if values else None
    return medians


def summarize(directory, items):
    reports = load_reports(directory)
    rounds = sorted({r for (_, r) in reports})
    base = items[0]
    first = reports[(base, rounds[0])]
    result = {"environment": first["environment"],
              "parameters": {"rounds": len(rounds), "items": items, "figure": FIGURE, "base_items": base,
                             "variants": first["parameters"]["variants"],
                             "profile": first["parameters"]["profile"]},
              "per_item_ratios": {}, "per_item_us": {}, "phase_us_per_item": {},
              "cpu_us_per_rpc_by_round": {}, "disturbed_reports": 0}
    for report in reports.values():
        result["disturbed_reports"] += sum(1 for t in report["targets"] if t.get("disturbed_rounds"))
    modes = [t["name"] for t in first["targets"]]
    for mode in modes:
        result["per_item_ratios"][mode] = {}
        result["per_item_us"][mode] = {}
        result["phase_us_per_item"][mode] = {str(n): median_phases(reports, rounds, n, mode) for n in items}
        result["cpu_us_per_rpc_by_round"][mode] = {
            str(n): [None if c is None else c * n
                     for c in (per_item_costs(reports[(n, r)], n).get(mode) for r in rounds)]
            for n in items}
        for n in items:
            costs = [per_item_costs(reports[(n, r)], n).get(mode) for r in rounds]
            served = [c for c in costs if c]
            result["per_item_us"][mode][str(n)] = statistics.median(served) if served else None
            if n == base:
                continue
            bases = [per_item_costs(reports[(base, r)], base).get(mode) for r in rounds]
            ratios = [c / b for c, b in zip(costs, bases) if c and b]
            # No round where the mode served calls at both sizes: no ratio, said so.
            result["per_item_ratios"][mode][str(n)] = (
                {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios), "rounds": len(ratios)}
                if ratios else {"rounds": 0})
    return result


def variants_line(parameters):
    # Summaries written before the knob existed ran reco_load's default.
    return f"{parameters.get('variants', 4)} request variants, {parameters.get('profile', 'realistic')} text"


def cpu_line(environment):
    """The CPU's model name, with its family/model/stepping when the report has them."""
    signature = environment.get("cpu_signature")
    return environment["cpu_model"] + (f", {signature}" if signature else "")


def table(summary):
    items = summary["parameters"]["items"]
    base = summary["parameters"]["base_items"]
    print(f"server CPU per item, against its cost at {base} items (median [min-max] of "
          f"{summary['parameters']['rounds']} paired rounds; {variants_line(summary['parameters'])}; "
          f"{cpu_line(summary['environment'])}):")
    print("mode".ljust(12) + "".join(f"{n:>26}" for n in items))
    for mode, by_items in summary["per_item_ratios"].items():
        base_us = summary["per_item_us"][mode][str(base)]
        cells = [f"{base_us:.2f} us/item" if base_us else "no calls served"]
        for n in items[1:]:
            r = by_items[str(n)]
            cells.append(f"x{r['median']:.2f} [{r['min']:.2f}-{r['max']:.2f}]" if r["rounds"] else "n/a")
        print(mode.ljust(12) + "".join(f"{c:>26}" for c in cells))
    phases = summary.get("phase_us_per_item")  # summaries written before it have none
    if phases:
        print("where: each phase's wall time per item, us (median of the rounds), build / serialize / release:")
        for mode, by_items in phases.items():
            cells = ["/".join("-" if by_items[str(n)][p] is None else f"{by_items[str(n)][p]:.2f}" for p in PHASES)
                     for n in items]
            print(mode.ljust(12) + "".join(f"{c:>26}" for c in cells))
    if summary["disturbed_reports"]:
        print(f"note: {summary['disturbed_reports']} target-rounds were marked disturbed by other processes")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        table(json.loads(Path(sys.argv[2]).read_text()))
        return 0
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    json.dump(summarize(sys.argv[1], [int(n) for n in sys.argv[2:]]), sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
