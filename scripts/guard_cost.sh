#!/usr/bin/env bash
# What the memory guards of issue 10 cost per RPC: the reply budget (a context new'd
# per call, one reservation), the cancellation/deadline checks every 16 items and the
# malloc_trim thread, all on by default. For each MODE, two reco_server processes --
# guarded (defaults) and unguarded (--inflight_budget_bytes=0 --check_every_items=0
# --trim_interval=0) -- driven by reco_load in interleaved rounds (A B A B ...), so
# machine noise hits both. Prints, per mode, the median of the per-round ratios
# guarded / unguarded with their min-max, for server CPU/RPC, QPS and build p50, and the
# guarded server's trims; a ratio whose spread crosses 1.0 is "no measurable
# difference". Exact counts (process allocations per RPC) are printed side by side.
#
#   scripts/guard_cost.sh [BUILD_DIR]     (default: build)
#   env: MODES="heap arena_pool" ROUNDS=7 DURATION=5s ITEMS=200 JSON_DIR=(temporary)
# The test suite runs it short (ROUNDS=1 DURATION=500ms) to keep it working.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
modes=${MODES:-heap arena_pool} rounds=${ROUNDS:-7} duration=${DURATION:-5s} items=${ITEMS:-200}
require_reco_binaries "$build"
require_positive_integers rounds
measurement_work_dir work json_dir

echo "machine: $(machine_cpus)"
for mode in $modes; do
  start_reco_server "$work/$mode-guarded.log" "$build/server/reco_server" --mode "$mode" || exit 1
  guarded=$SERVER_PORT
  start_reco_server "$work/$mode-unguarded.log" "$build/server/reco_server" --mode "$mode" \
    --inflight_budget_bytes=0 --check_every_items=0 --trim_interval=0 || exit 1
  unguarded=$SERVER_PORT
  "$build/client/reco_load" --target "guarded=127.0.0.1:$guarded" --target "unguarded=127.0.0.1:$unguarded" \
    --rounds "$rounds" --duration "$duration" --items "$items" --quiet --json "$json_dir/guard_cost_$mode.json" \
    >/dev/null
  stop_reco_servers
  echo
  echo "$mode:"
  /usr/bin/python3 scripts/lib/paired_ratios.py "$json_dir/guard_cost_$mode.json" unguarded guarded
  /usr/bin/python3 scripts/guard_cost_trims.py "$json_dir/guard_cost_$mode.json"
done
