"""compare_h2load_runs.py and compare_h2load_summary.py on made-up runs: the socket
writes counted under SYSCALLS=1 become requests per write for each tool, a count perf
could not take stops the script, and runs without counts print no such line.

    compare_h2load_summary_test.py        exits 0 when every check holds
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(*args, env=None):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=env)


def perf_file(path, counts):
    lines = ["# started on a day", ""]
    lines += [f"{count},,syscalls:sys_enter_{name},1000,100.00,," for name, count in counts.items()]
    path.write_text("\n".join(lines) + "\n")


def check_writes(d):
    perf_file(d / "ok.csv", {"sendmsg": 120, "writev": 30, "sendto": 0})
    out = run(HERE / "compare_h2load_runs.py", "writes", d / "ok.csv")
    assert out.returncode == 0 and out.stdout.strip() == "150", out
    perf_file(d / "bad.csv", {"sendmsg": "<not counted>", "writev": 30})
    out = run(HERE / "compare_h2load_runs.py", "writes", d / "bad.csv")
    assert out.returncode == 1 and "did not count syscalls:sys_enter_sendmsg" in out.stderr, out


def reco_load_line(d, *writes):
    report = {"parameters": {"threads": 2},
              "targets": [{"client": {"ok": 400, "seconds": 4, "client_cpu_seconds": 0.5, "completed": 400}}]}
    (d / "rl.json").write_text(json.dumps(report))
    out = run(HERE / "compare_h2load_runs.py", "reco_load", d / "rl.json", "ceiling", 1, 10, 11, *writes)
    assert out.returncode == 0, out
    return json.loads(out.stdout)


def summary(d, h2load_writes, reco_load_writes):
    """The summary of one round: each tool 100 req/s over 4 s + 1 s of warm-up (500 requests)."""
    h2load = {"tool": "h2load", "mode": "ceiling", "round": 1, "rps": 100.0, "client_cpu_seconds": 0.5,
              "client_cpu_requests": None, "wall_seconds": 5.0, "server_cpu_seconds": 1.0,
              "client_socket_writes": h2load_writes}
    reco_load = dict(h2load, tool="reco_load", client_cpu_requests=400, wall_seconds=None,
                     client_socket_writes=reco_load_writes)
    (d / "runs.jsonl").write_text(json.dumps(h2load) + "\n" + json.dumps(reco_load) + "\n")
    out = run(HERE / "compare_h2load_summary.py", d / "runs.jsonl", 4, 1, "--json", d / "summary.json")
    assert out.returncode == 0, out
    return out.stdout, json.loads((d / "summary.json").read_text())["modes"][0]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        check_writes(d)
        assert reco_load_line(d, "480")["client_socket_writes"] == 480
        assert reco_load_line(d, "null")["client_socket_writes"] is None
        assert reco_load_line(d)["client_socket_writes"] is None  # a runs file from before SYSCALLS
        text, entry = summary(d, 100, 500)
        assert "requests per socket write: h2load 5.00 [5.00-5.00], reco_load 1.00 [1.00-1.00]" in text, text
        assert entry["requests_per_socket_write"] == {"h2load": [5.0], "reco_load": [1.0]}, entry
        text, entry = summary(d, None, None)
        assert "socket write" not in text and "requests_per_socket_write" not in entry, text
        bad = subprocess.run([HERE / "compare_h2load.sh"], capture_output=True, text=True,
                             env=dict(os.environ, SYSCALLS="yes"))
        assert bad.returncode == 2 and "SYSCALLS must be 0 or 1, not 'yes'" in bad.stderr, bad
    print("compare_h2load_summary_test: ok")


if __name__ == "__main__":
    main()
