#!/usr/bin/env bash
# Soak: holds load on each memory mode for a set time at a share of its maximum rate
# and records the server's memory over time, then judges whether it keeps growing.
#   scripts/soak.sh [SECONDS_PER_MODE]        default 20 (the CI length)
# Environment: SOAK_MODES (default "heap reuse arena arena_pool fragments"), SOAK_SHARE (share
# of the measured maximum rate, default 0.5), SOAK_ITEMS (default 200), SOAK_PROFILE
# (realistic), SOAK_OUT (default BUILD_DIR/soak), BUILD_DIR (default build).
#
# Per mode: start reco_server on 127.0.0.1:0; measure its maximum rate with a 3 s
# closed-loop reco_load; then drive it open-loop at SOAK_SHARE of that rate for
# SECONDS while a sampler reads the ServerStats RPC every second into
# SOAK_OUT/MODE.csv (RSS, mallinfo2 arena/in-use/free bytes, allocation and RPC
# rates, pool gauges). Verdict after the run, on the samples after warm-up (the
# first quarter):
#   - growth: least-squares slope of RSS over the second half of the run, times the
#     half's length, relative to the half's mean RSS. Fails above SOAK_MAX_GROWTH
#     (default 0.05 = 5 %) AND above 4 MiB absolute: a server that settles has a
#     slope near zero; one that leaks a little per RPC grows in proportion to time.
#   - errors: any rpc_errors in the server's window, any client error or wrong reply
#     (reco_load exits non-zero), or a lease still out after the load stopped.
# Prints one line per mode and exits non-zero if any mode failed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
case "$seconds" in ''|*[!0-9]*) echo "soak.sh: SECONDS_PER_MODE must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
[ "$seconds" -ge 8 ] || { echo "soak.sh: SECONDS_PER_MODE must be at least 8 (warm-up plus two halves)" >&2; exit 2; }
modes=${SOAK_MODES:-heap reuse arena arena_pool fragments}
share=${SOAK_SHARE:-0.5}
items=${SOAK_ITEMS:-200}
profile=${SOAK_PROFILE:-realistic}
max_growth=${SOAK_MAX_GROWTH:-0.05}
build=${BUILD_DIR:-build}
out=${SOAK_OUT:-$build/soak}
py=/usr/bin/python3

scripts/setup.sh
cmake --preset default -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" --target reco_server reco_load
mkdir -p "$out"
stubs=$(mktemp -d)
. scripts/lib/reco_servers.sh
trap 'stop_reco_servers || true; rm -rf "$stubs"' EXIT

# Python stubs for the ServerStats RPC, generated from the repo's proto.
protoc -I proto --python_out="$stubs" --grpc_python_out="$stubs" \
  --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin proto/stats.proto

# The sampler: every second one GetStats (no reset), one CSV row; stops when the
# load process ($2) has exited. Rates are per second between samples.
cat >"$stubs/sampler.py" <<'PY'
import csv, os, sys, time
import grpc
import stats_pb2, stats_pb2_grpc

target, load_pid, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
stub = stats_pb2_grpc.ServerStatsStub(grpc.insecure_channel(target))
fields = ["t_s", "rss_bytes", "peak_rss_bytes", "heap_arena_bytes", "heap_in_use_bytes", "heap_free_bytes",
          "rpcs_per_s", "errors", "allocs_per_s", "alloc_bytes_per_s", "store_in_use", "store_idle"]
with open(path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(fields)
    start, prev = time.monotonic(), None
    while True:
        s = stub.GetStats(stats_pb2.GetStatsRequest(), timeout=5)
        now = time.monotonic() - start
        if prev is not None:
            dt = now - prev[0]
            p = prev[1]
            w.writerow([f"{now:.2f}", s.rss_bytes, s.peak_rss_bytes, s.malloc_heap.arena_bytes,
                        s.malloc_heap.in_use_bytes, s.malloc_heap.free_bytes,
                        f"{(s.rpcs - p.rpcs) / dt:.1f}", s.rpc_errors,
                        f"{(s.process_allocations.allocs - p.process_allocations.allocs) / dt:.0f}",
                        f"{(s.process_allocations.bytes - p.process_allocations.bytes) / dt:.0f}",
                        s.store.in_use, s.store.idle])
            f.flush()
        prev = (now, s)
        try:
            os.kill(load_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(1.0)
PY

# The verdict on one CSV (see the top of this file). Prints the figures; exit 1 = fail.
cat >"$stubs/judge.py" <<'PY'
import csv, sys
path, max_growth = sys.argv[1], float(sys.argv[2])
rows = list(csv.DictReader(open(path)))
if len(rows) < 6:
    print(f"only {len(rows)} samples"); sys.exit(1)
steady = rows[len(rows) // 4:]          # after warm-up
half = steady[len(steady) // 2:]        # the second half of the steady part
t = [float(r["t_s"]) for r in half]
rss = [int(r["rss_bytes"]) for r in half]
n, mt, mr = len(t), sum(t) / len(t), sum(rss) / len(rss)
slope = sum((a - mt) * (b - mr) for a, b in zip(t, rss)) / max(1e-9, sum((a - mt) ** 2 for a in t))
span = t[-1] - t[0]
growth = slope * span
rel = growth / mr
errors = int(rows[-1]["errors"])
rate = sum(float(r["rpcs_per_s"]) for r in steady) / len(steady)
free = [int(r["heap_free_bytes"]) for r in steady]
allocs = sum(float(r["allocs_per_s"]) for r in steady) / len(steady)
ok = errors == 0 and not (rel > max_growth and growth > 4 * 1024 * 1024)
print(f"{rate:.0f} rpc/s, RSS {rss[0] / 2**20:.1f} -> {rss[-1] / 2**20:.1f} MiB, second-half slope "
      f"{slope / 1024:.1f} KiB/s = {growth / 2**20:+.2f} MiB ({rel * 100:+.2f} %) over {span:.0f} s, "
      f"malloc free {min(free) / 2**20:.1f}-{max(free) / 2**20:.1f} MiB, {allocs:.0f} allocs/s, errors {errors}")
sys.exit(0 if ok else 1)
PY

fails=0
for mode in $modes; do
  log="$out/$mode.server.log"
  if ! start_reco_server "$log" "$build/server/reco_server" --mode="$mode"; then
    echo "soak $mode: FAILED (server did not start; see $log)"; fails=$((fails + 1)); continue
  fi
  target=127.0.0.1:$SERVER_PORT
  common=(--target "$mode=$target" --rounds 1 --items "$items" --profile "$profile" --quiet)

  # The maximum: a short closed loop.
  "$build/client/reco_load" "${common[@]}" --duration 3s --warmup 1s --json "$out/$mode.max.json" >/dev/null
  max_rate=$($py -c 'import json,sys; c=json.load(open(sys.argv[1]))["targets"][0]["client"]; print(c["ok"] / c["seconds"])' "$out/$mode.max.json")
  rate=$($py -c "print(max(1, int($max_rate * $share)))")

  # The soak: open loop at the chosen rate, sampled every second.
  "$build/client/reco_load" "${common[@]}" --duration "${seconds}s" --warmup 0s --rate "$rate" \
    --verify_every 16 --json "$out/$mode.soak.json" >"$out/$mode.load.log" 2>&1 &
  load_pid=$!
  PYTHONPATH="$stubs" $py "$stubs/sampler.py" "$target" "$load_pid" "$out/$mode.csv" &
  sampler_pid=$!
  load_rc=0
  wait "$load_pid" || load_rc=$?
  wait "$sampler_pid" || true
  in_use=$(PYTHONPATH="$stubs" $py -c 'import sys, grpc, stats_pb2, stats_pb2_grpc, time
stub = stats_pb2_grpc.ServerStatsStub(grpc.insecure_channel(sys.argv[1]))
for _ in range(50):
    n = stub.GetStats(stats_pb2.GetStatsRequest(), timeout=5).store.in_use
    if n == 0: break
    time.sleep(0.1)
print(n)' "$target")
  stop_reco_server

  verdict=$($py "$stubs/judge.py" "$out/$mode.csv" "$max_growth") && judged=0 || judged=$?
  if [ $judged -eq 0 ] && [ $load_rc -eq 0 ] && [ "$in_use" = 0 ]; then
    echo "soak $mode: ok      max ${max_rate%.*} rpc/s, held at ${share}: $verdict"
  else
    echo "soak $mode: FAILED  max ${max_rate%.*} rpc/s, held at ${share}: $verdict; reco_load exit $load_rc, leases out $in_use"
    fails=$((fails + 1))
  fi
done
echo "soak: CSVs in $out/ (t_s, rss_bytes, heap_free_bytes, rpcs_per_s, allocs_per_s, ...)"
[ $fails -eq 0 ]
