"""scaling_ratios.py on made-up reports: the per-item ratios are round r against round r,
and a mode that served no calls at a size gets no ratio (n/a), not a crash.

    scaling_ratios_test.py        exits 0 when every check holds
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def report(items, cpu_us):
    """A reco_load report with one round per target; cpu_us: name -> server CPU per RPC or None."""
    targets = []
    for name, value in cpu_us.items():
        figures = {} if value is None else {"server_cpu_us_per_rpc": value}
        targets.append({"name": name, "rounds": [{"figures": figures}]})
    return {"environment": {"cpu_model": "test CPU"},
            "parameters": {"items": items, "variants": 64, "profile": "compact"}, "targets": targets}


def main():
    with tempfile.TemporaryDirectory() as d:
        # Per item at 200: a 1.0 and 2.0 us; at 1,000: a 1.5 and 2.0 us (rounds 1, 2).
        # b serves nothing at 1,000 items.
        rounds = {(200, 1): {"a": 200.0, "b": 400.0}, (200, 2): {"a": 400.0, "b": 400.0},
                  (1000, 1): {"a": 1500.0, "b": None}, (1000, 2): {"a": 2000.0, "b": None}}
        for (n, r), cpu in rounds.items():
            (Path(d) / f"items-{n}-round-{r}.json").write_text(json.dumps(report(n, cpu)))
        out = subprocess.run([sys.executable, HERE / "scaling_ratios.py", d, "200", "1000"],
                             capture_output=True, text=True, check=True).stdout
        summary = json.loads(out)
        a = summary["per_item_ratios"]["a"]["1000"]
        # Round 1: 1.5 / 1.0; round 2: 2.0 / 2.0. Paired, not median against median.
        assert (a["min"], a["max"], a["rounds"]) == (1.0, 1.5, 2), a
        assert summary["per_item_ratios"]["b"]["1000"] == {"rounds": 0}, summary["per_item_ratios"]["b"]
        assert summary["per_item_us"]["b"]["1000"] is None
        assert summary["parameters"]["variants"] == 64 and summary["parameters"]["profile"] == "compact"
        path = Path(d) / "scaling.json"
        path.write_text(out)
        table = subprocess.run([sys.executable, HERE / "scaling_ratios.py", "--table", path],
                               capture_output=True, text=True, check=True).stdout
        assert "64 request variants, compact text" in table, table
        rows = {line.split()[0]: line for line in table.splitlines()[2:]}
        assert "x1.25 [1.00-1.50]" in rows["a"], table
        assert rows["b"].endswith("n/a"), table
    print("scaling_ratios_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
