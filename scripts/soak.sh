#!/usr/bin/env bash
# Soak: holds load on each memory mode for a set time at a share of its maximum rate
# and records the server's memory over time, then judges whether it keeps growing.
#   scripts/soak.sh [SECONDS_PER_MODE]        default 20 (the CI length)
# Environment: SOAK_MODES (default "heap reuse arena arena_pool fragments"), SOAK_SHARE (share
# of the measured maximum rate, default 0.5), SOAK_ITEMS (default 200), SOAK_PROFILE
# (realistic), SOAK_OUT (default BUILD_DIR/soak), BUILD_DIR (default build).
#
# Per mode: start reco_server on 127.0.0.1:0; measure its maximum rate with a 1 s
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
. scripts/lib/script_flags.sh
parse_positionals "$0" "$@"
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

fails=0
for mode in $modes; do
  log="$out/$mode.server.log"
  if ! start_reco_server "$log" "$build/server/reco_server" --mode="$mode"; then
    echo "soak $mode: FAILED (server did not start; see $log)"; fails=$((fails + 1)); continue
  fi
  target=127.0.0.1:$SERVER_PORT
  common=(--target "$mode=$target" --rounds 1 --items "$items" --profile "$profile" --quiet)

  # The maximum: a short closed loop (it only sets the held rate, at SOAK_SHARE of it).
  "$build/client/reco_load" "${common[@]}" --duration 1s --warmup 500ms --json "$out/$mode.max.json" >/dev/null
  max_rate=$($py -c 'import json,sys; c=json.load(open(sys.argv[1]))["targets"][0]["client"]; print(c["ok"] / c["seconds"])' "$out/$mode.max.json")
  rate=$($py -c "print(max(1, int($max_rate * $share)))")

  # The soak: open loop at the chosen rate, sampled every second.
  "$build/client/reco_load" "${common[@]}" --duration "${seconds}s" --warmup 0s --rate "$rate" \
    --verify_every 16 --json "$out/$mode.soak.json" >"$out/$mode.load.log" 2>&1 &
  load_pid=$!
  PYTHONPATH="$stubs" $py scripts/soak_stats.py sample "$target" "$load_pid" "$out/$mode.csv" &
  sampler_pid=$!
  load_rc=0
  wait "$load_pid" || load_rc=$?
  wait "$sampler_pid" || true
  in_use=$(PYTHONPATH="$stubs" $py scripts/soak_stats.py leases "$target")
  stop_reco_server

  verdict=$($py scripts/soak_judge.py "$out/$mode.csv" "$max_growth") && judged=0 || judged=$?
  if [ "$judged" -eq 0 ] && [ "$load_rc" -eq 0 ] && [ "$in_use" = 0 ]; then
    echo "soak $mode: ok      max ${max_rate%.*} rpc/s, held at ${share}: $verdict"
  else
    echo "soak $mode: FAILED  max ${max_rate%.*} rpc/s, held at ${share}: $verdict; reco_load exit $load_rc, leases out $in_use"
    fails=$((fails + 1))
  fi
done
echo "soak: CSVs in $out/ (t_s, rss_bytes, heap_free_bytes, rpcs_per_s, allocs_per_s, ...)"
[ $fails -eq 0 ]
