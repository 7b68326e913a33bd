"""scaling_ratios.py on made-up reports: the per-item ratios are round r against round r,
a mode that served no calls at a size gets no ratio (n/a), not a crash, and each
phase's wall time per item is the median over the rounds, "-" for a phase not timed.

    scaling_ratios_test.py        exits 0 when every check holds
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def report(items, cpu_us, build_ns=None, started_ms=0):
    """A reco_load report with one round per target; cpu_us: name -> server CPU per RPC or None;
    build_ns: a's mean build time per call (its serialize phase timed no call)."""
    targets = []
    for name, value in cpu_us.items():
        figures = {} if value is None else {"server_cpu_us_per_rpc": value}
        target = {"name": name, "rounds": [{"figures": figures, "window_start_unix_ms": started_ms}]}
        if name == "a" and build_ns is not None:
            target["server"] = {"build": {"latency": {"count": 10, "mean_ns": build_ns}},
                                "serialize": {"latency": {"count": 0, "mean_ns": 0}}}
        targets.append(target)
    return {"environment": {"cpu_model": "test CPU"},
            "parameters": {"items": items, "variants": 64, "profile": "compact"}, "targets": targets}


def main():
    with tempfile.TemporaryDirectory() as d:
        # Per item at 200: a 1.0 and 2.0 us; at 1,000: a 1.5 and 2.0 us (rounds 1, 2).
        # b serves nothing at 1,000 items.
        rounds = {(200, 1): {"a": 200.0, "b": 400.0}, (200, 2): {"a": 400.0, "b": 400.0},
                  (1000, 1): {"a": 1500.0, "b": None}, (1000, 2): {"a": 2000.0, "b": None}}
        # a's build per item: at 200, 1.0 and 3.0 us; at 1,000, 2.5 us both rounds.
        build_ns = {(200, 1): 200_000, (200, 2): 600_000, (1000, 1): 2_500_000, (1000, 2): 2_500_000}
        for (n, r), cpu in rounds.items():
            (Path(d) / f"items-{n}-round-{r}.json").write_text(json.dumps(report(n, cpu, build_ns[(n, r)])))
        out = subprocess.run([sys.executable, HERE / "scaling_ratios.py", d, "200", "1000"],
                             capture_output=True, text=True, check=True).stdout
        summary = json.loads(out)
        a = summary["per_item_ratios"]["a"]["1000"]
        # Round 1: 1.5 / 1.0; round 2: 2.0 / 2.0. Paired, not median against median.
        assert (a["min"], a["max"], a["rounds"]) == (1.0, 1.5, 2), a
        assert summary["per_item_ratios"]["b"]["1000"] == {"rounds": 0}, summary["per_item_ratios"]["b"]
        assert summary["per_item_us"]["b"]["1000"] is None
        assert summary["parameters"]["variants"] == 64 and summary["parameters"]["profile"] == "compact"
        phases = summary["phase_us_per_item"]
        assert phases["a"]["200"] == {"build": 2.0, "serialize": None, "release": None}, phases["a"]
        assert phases["a"]["1000"]["build"] == 2.5 and phases["b"]["200"]["build"] is None, phases
        by_round = summary["cpu_us_per_rpc_by_round"]
        assert by_round["a"]["1000"] == [1500.0, 2000.0] and by_round["b"]["1000"] == [None, None], by_round
        path = Path(d) / "scaling.json"
        path.write_text(out)
        table = subprocess.run([sys.executable, HERE / "scaling_ratios.py", "--table", path],
                               capture_output=True, text=True, check=True).stdout
        assert "64 request variants, compact text" in table, table
        lines = table.splitlines()
        where = next(i for i, line in enumerate(lines) if line.startswith("where:"))
        rows = {line.split()[0]: line for line in lines[2:where]}
        assert "x1.25 [1.00-1.50]" in rows["a"], table
        assert rows["b"].endswith("n/a"), table
        phase_rows = {line.split()[0]: line.split()[1:] for line in lines[where + 1:]}
        assert phase_rows["a"] == ["2.00/-/-", "2.50/-/-"] and phase_rows["b"] == ["-/-/-", "-/-/-"], table
    # scaling.sh's own layout: one report per size, round and mode. b ran before a in
    # every round, so b comes first; a's pairs are the same as above.
    with tempfile.TemporaryDirectory() as d:
        for (n, r), cpu in rounds.items():
            for order, name in enumerate(("b", "a")):
                (Path(d) / f"items-{n}-round-{r}-{name}.json").write_text(
                    json.dumps(report(n, {name: cpu[name]}, build_ns[(n, r)], started_ms=1000 * r + order)))
        summary = json.loads(subprocess.run([sys.executable, HERE / "scaling_ratios.py", d, "200", "1000"],
                                            capture_output=True, text=True, check=True).stdout)
        assert list(summary["per_item_ratios"]) == ["b", "a"], summary["per_item_ratios"]
        a = summary["per_item_ratios"]["a"]["1000"]
        assert (a["min"], a["max"], a["rounds"]) == (1.0, 1.5, 2), a
        assert summary["per_item_ratios"]["b"]["1000"] == {"rounds": 0}
    print("scaling_ratios_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
