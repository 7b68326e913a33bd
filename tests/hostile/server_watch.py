"""server_watch: what h2_attacks.py measures about a reco_server while it is attacked,
from outside the attack's connection: CPU time and VmRSS from /proc/PID (ProcSampler),
a normal gRPC client calling Recommend on a schedule (Prober), and the ServerStats RPC
(get_stats; messages made by protoc at run time, load_messages).

Only ever connects to 127.0.0.1.
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import grpc

HOST = "127.0.0.1"


class ProcSampler:
    """Samples /proc/PID: CPU seconds (utime + stime) and VmRSS, every 50 ms."""

    def __init__(self, pid):
        self.pid = pid
        self.tick = os.sysconf("SC_CLK_TCK")
        self.peak_rss = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.tick  # utime, stime

    def rss_bytes(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def _loop(self):
        while not self.stop.is_set():
            try:
                self.peak_rss = max(self.peak_rss, self.rss_bytes())
            except OSError:
                return
            self.stop.wait(0.05)

    def alive(self):
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False


def load_messages(proto_dir):
    """reco_pb2 and stats_pb2, made by protoc into a temporary directory."""
    out = tempfile.mkdtemp(prefix="h2_attacks_pb2_")
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    subprocess.run(["protoc", f"-I{proto_dir}", f"--python_out={out}", "reco.proto", "stats.proto"],
                   check=True, cwd=proto_dir)
    sys.path.insert(0, out)
    import reco_pb2  # noqa: E402
    import stats_pb2  # noqa: E402
    return reco_pb2, stats_pb2


class Prober:
    """A normal gRPC client calling Recommend every `interval` s with a deadline."""

    def __init__(self, port, request, interval, deadline, expected):
        self.request = request
        self.channel = grpc.insecure_channel(f"{HOST}:{port}")
        self.call = self.channel.unary_unary("/reco.v1.Recommender/Recommend")
        self.interval, self.deadline, self.expected = interval, deadline, expected
        self.ok = self.timeouts = self.errors = self.wrong = 0
        self.worst_ok_s = 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def once(self):
        t = time.monotonic()
        try:
            reply = self.call(self.request, timeout=self.deadline)
        except grpc.RpcError as e:
            return ("timeout" if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED else "error"), None
        took = time.monotonic() - t
        if self.expected is not None and reply != self.expected:
            return "wrong", reply
        self.worst_ok_s = max(self.worst_ok_s, took)
        return "ok", reply

    def _loop(self):
        while not self.stop.is_set():
            start = time.monotonic()
            what, _ = self.once()
            if what == "ok":
                self.ok += 1
            elif what == "timeout":
                self.timeouts += 1
            elif what == "wrong":
                self.wrong += 1
            else:
                self.errors += 1
            self.stop.wait(max(0.0, self.interval - (time.monotonic() - start)))


def get_stats(port, stats_pb2, reset):
    with grpc.insecure_channel(f"{HOST}:{port}") as ch:
        call = ch.unary_unary("/reco.v1.ServerStats/GetStats",
                              request_serializer=stats_pb2.GetStatsRequest.SerializeToString,
                              response_deserializer=stats_pb2.StatsSnapshot.FromString)
        return call(stats_pb2.GetStatsRequest(reset=reset), timeout=10)
