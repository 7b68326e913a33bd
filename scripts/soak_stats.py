"""Reads reco_server's ServerStats RPC for scripts/soak.sh.

    soak_stats.py sample TARGET LOAD_PID CSV
    soak_stats.py leases TARGET

Needs the Python stubs of proto/stats.proto (stats_pb2, stats_pb2_grpc) on PYTHONPATH;
soak.sh generates them with protoc. TARGET is the server's HOST:PORT.
  sample  every second one GetStats (no reset), one CSV row (RSS, mallinfo2 arena,
          in-use and free bytes, RPC and allocation rates per second between samples,
          errors, pool gauges); stops after the sample that finds the load process
          LOAD_PID gone.
  leases  prints the pool's leases still out, polled every 0.1 s for up to 5 s until
          none is: a lease still out after the load stopped is a leak.
"""
import csv
import os
import sys
import time

import grpc
import stats_pb2
import stats_pb2_grpc

FIELDS = ["t_s", "rss_bytes", "peak_rss_bytes", "heap_arena_bytes", "heap_in_use_bytes", "heap_free_bytes",
          "rpcs_per_s", "errors", "allocs_per_s", "alloc_bytes_per_s", "store_in_use", "store_idle"]


def stats_stub(target):
    return stats_pb2_grpc.ServerStatsStub(grpc.insecure_channel(target))


def row(now, dt, s, p):
    """One CSV row: sample s at `now`, rates against the previous sample p, dt seconds before."""
    return [f"{now:.2f}", s.rss_bytes, s.peak_rss_bytes, s.malloc_heap.arena_bytes,
            s.malloc_heap.in_use_bytes, s.malloc_heap.free_bytes,
            f"{(s.rpcs - p.rpcs) / dt:.1f}", s.rpc_errors,
            f"{(s.process_allocations.allocs - p.process_allocations.allocs) / dt:.0f}",
            f"{(s.process_allocations.bytes - p.process_allocations.bytes) / dt:.0f}",
            s.store.in_use, s.store.idle]


def sample(target, load_pid, path):
    stub = stats_stub(target)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        start, prev = time.monotonic(), None
        while True:
            s = stub.GetStats(stats_pb2.GetStatsRequest(), timeout=5)
            now = time.monotonic() - start
            if prev is not None:
                w.writerow(row(now, now - prev[0], s, prev[1]))
                f.flush()
            prev = (now, s)
            try:
                os.kill(load_pid, 0)
            except ProcessLookupError:
                break
            time.sleep(1.0)


def leases(target):
    stub = stats_stub(target)
    for _ in range(50):
        n = stub.GetStats(stats_pb2.GetStatsRequest(), timeout=5).store.in_use
        if n == 0:
            break
        time.sleep(0.1)
    print(n)


def main():
    if sys.argv[1] == "sample":
        sample(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        leases(sys.argv[2])


if __name__ == "__main__":
    main()
