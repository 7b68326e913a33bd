#!/usr/bin/env bash
# Re-measures what articles claim an arena does for a service like this one
# (docs/FINDINGS.md, "The published claims, re-measured"): heap against arena_pool,
# realistic text, 200 items, at 1, 16 and 64 calls in flight. One reco_load run per
# depth, interleaved paired rounds, the servers' own figures (serialize p99, CPU per
# RPC, glibc free bytes, peak RSS). The mallocs per reply come from tools/alloc_ledger,
# which docs/render_docs.py runs itself.
#
#   scripts/published_claims.sh [BUILD_DIR]       (default: build)
#   env: ROUNDS=5 DURATION=3 WARMUP=1 PROFILE=realistic
#        JSON_DIR=DIR  keep the three reports there (claims-c1.json, -c16, -c64);
#                      docs/results/<machine>-<date>/claims/ holds the kept ones
# Prints each run's table and verdict as reco_load does; about 2 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/measurement_start.sh
parse_positionals "$0" "$@"
build=${1:-build}
rounds=${ROUNDS:-5} seconds=${DURATION:-3} warmup=${WARMUP:-1} profile=${PROFILE:-realistic}
require_positive_integers rounds seconds warmup
case $profile in realistic|compact) ;; *) echo "PROFILE=$profile must be realistic or compact" >&2; exit 2 ;; esac
require_reco_binaries "$build"
measurement_work_dir work json_dir
echo "machine before run: $(machine_load_line)"

targets=()
for mode in heap arena_pool; do
  start_reco_server "$work/$mode.log" "$build/server/reco_server" --mode "$mode" || exit 1
  targets+=(--target "$mode=127.0.0.1:$SERVER_PORT")
done
# 1 in flight: one connection, one client thread, so every call waits for the last.
# 16 is reco_load's default depth; 64 the most the servers' reply budget holds at
# 200 items with room to spare.
for depth in 1 16 64; do
  shape=(--concurrency "$depth")
  [ "$depth" = 1 ] && shape+=(--connections 1 --threads 1)
  echo "=== $depth in flight"
  "$build/client/reco_load" "${targets[@]}" "${shape[@]}" --profile "$profile" \
    --rounds "$rounds" --duration "$seconds" --warmup "$warmup" --quiet \
    --json "$json_dir/claims-c$depth.json"
done
[ -z "${JSON_DIR:-}" ] || echo "reports: $json_dir/claims-c{1,16,64}.json"
